//! Rules for code that is not shell: AppleScript, Shortcuts, SQL, and the inline code of
//! interpreters (`python -c`, `perl -e`, `node -e`, awk programs).

use super::shell::Walker;
use super::{Assessment, Effect, EffectKind, Scope, Target};

/// Calls that delete files in common interpreters. Code that makes one is asked about.
const DELETE_MARKERS: &[&str] = &[
    "os.remove(",
    "os.unlink(",
    "os.rmdir(",
    "os.removedirs(",
    "rmtree(",
    "remove_tree(",
    ".unlink(",
    "unlink(",
    "unlinkSync",
    "rmSync",
    "rmdirSync",
    "fs.rm(",
    "fs.rmdir(",
    "fs.promises.rm",
    "File.delete",
    "Files.delete",
    "FileUtils.rm",
    "rm_rf",
    "rm_r(",
    "remove_dir_all",
    "remove_file(",
    "os.RemoveAll",
    "Deno.remove",
    "file.remove(",
    "unlink.file",
];

/// Markers of writing, process control, the network or dynamic code in interpreter
/// code: reported as the reason the code is not proven.
const CODE_MARKERS: &[&str] = &[
    "os.system",
    "subprocess",
    "os.popen",
    "popen",
    "child_process",
    "execSync",
    "spawn",
    "system(",
    "system \"",
    "system '",
    "system qq",
    "exec \"",
    "exec(",
    "eval(",
    "getattr(",
    "os.kill",
    "process.kill",
    "kill(",
    "truncate",
    "smtplib",
    "sendmail",
    "send_message",
    "socket",
    "urllib",
    "requests.",
    "fetch(",
    "write_text",
    "write_bytes",
    "writeFile",
    "File.write",
    "IO.write",
    "os.rename",
    "os.replace",
    "renameSync",
    "shutil.move",
    "shutil.copy",
    "copyfile",
    "chmod",
    "chown",
    "`",
    "qx",
    "%x(",
    "__import__",
    "importlib",
    "base64",
    "b64decode",
    "compile(",
    "remove(",
];

/// What a scan of interpreter code found first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum CodeMarker {
    /// A call that deletes files.
    Deletes(String),
    /// Something else that cannot be checked: writing, running programs, dynamic code.
    Other(String),
}

/// The first marker of a risky operation in interpreter code, deletions first.
pub(super) fn scan_code(code: &str) -> Option<CodeMarker> {
    if let Some(m) = DELETE_MARKERS.iter().find(|m| code.contains(**m)) {
        return Some(CodeMarker::Deletes((*m).to_string()));
    }
    if let Some(m) = CODE_MARKERS.iter().find(|m| code.contains(**m)) {
        return Some(CodeMarker::Other((*m).to_string()));
    }
    // open(…, 'w') and friends: writing a file that may exist. The mode is the second
    // argument (Python, Ruby) or the start of the second (Perl: open(FH, '>', …)).
    let mut rest = code;
    while let Some(pos) = rest.find("open(") {
        let after = &rest[pos + 5..];
        let call = after.split(')').next().unwrap_or(after);
        let writes = call.split_once(',').is_some_and(|(_, args)| {
            let args = args.trim_start();
            let mode = args.strip_prefix("mode=").unwrap_or(args);
            let mode = mode.trim_start_matches(['\'', '"']);
            mode.starts_with(['w', 'a', 'x', '>', '+'])
                || mode.starts_with("r+")
                || args.contains("mode=\"w")
                || args.contains("mode='w")
        });
        if writes {
            return Some(CodeMarker::Other("open(…) for writing".to_string()));
        }
        rest = after;
    }
    None
}

/// What an awk or sed program does beyond printing to standard output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ProgramScan {
    /// Files it writes, named literally.
    pub writes: Vec<String>,
    /// Why it cannot be checked (it runs commands, writes where only run time says, or
    /// could not be read), if it cannot.
    pub unproven: Option<String>,
}

/// Reads an awk program for commands it runs (`system()`, pipes to and from commands)
/// and files it prints into (`print > "f"`, `printf >> "f"`).
pub(super) fn scan_awk(program: &str) -> ProgramScan {
    let mut scan = ProgramScan::default();
    let code = awk_code(program);
    if code.contains("system(") || code.contains("system (") {
        scan.unproven = Some("the awk program runs commands (`system`)".into());
        return scan;
    }
    if code.contains('|') && !code.contains("||") || code.contains("|&") {
        scan.unproven = Some("the awk program pipes to or from a command".into());
        return scan;
    }
    // `>` and `>>` outside strings, after a print statement, redirect it into a file.
    let bytes = program.as_bytes();
    let mut in_str = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'>' if !in_str && statement_prints(&program[..i]) => {
                let rest = program[i..].trim_start_matches('>').trim_start();
                match rest.strip_prefix('"').and_then(|r| r.split_once('"')) {
                    Some((file, _)) => scan.writes.push(file.to_string()),
                    None => {
                        scan.unproven =
                            Some("the awk program prints into a file named at run time".into());
                        return scan;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    scan
}

/// The awk program with its string literals and regular expressions blanked, so that
/// `|` or `system(` inside them is not taken for code.
fn awk_code(program: &str) -> String {
    let mut out = String::with_capacity(program.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut prev_code = ' ';
    for c in program.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            out.push(' ');
            continue;
        }
        if c == '"'
            || (c == '/'
                && matches!(
                    prev_code,
                    '(' | ',' | '~' | '!' | ' ' | '{' | ';' | '&' | '|'
                ))
        {
            quote = Some(c);
            out.push(' ');
            continue;
        }
        if !c.is_whitespace() {
            prev_code = c;
        } else {
            prev_code = ' ';
        }
        out.push(c);
    }
    out
}

/// Whether the statement that `>` ends belongs to a print (so `>` redirects, not
/// compares).
fn statement_prints(before: &str) -> bool {
    let stmt = before
        .rsplit([';', '{', '}', '\n'])
        .next()
        .unwrap_or(before);
    let stmt = stmt.trim_start();
    stmt.starts_with("print") && !stmt.contains('(')
        || stmt.starts_with("print ")
        || stmt.starts_with("printf")
}

/// Reads a sed script for the commands that write files (`w FILE`, `W FILE`, the `w`
/// flag of `s`) or run commands (`e`, the `e` flag of `s`). A command it does not
/// know makes the script unproven.
pub(super) fn scan_sed(script: &str) -> ProgramScan {
    let mut scan = ProgramScan::default();
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let to_eol = |i: &mut usize| -> String {
        let start = *i;
        while *i < chars.len() && chars[*i] != '\n' {
            *i += 1;
        }
        chars[start..*i]
            .iter()
            .collect::<String>()
            .trim()
            .to_string()
    };
    // Reads up to an unescaped `delim`; false when the script ends first.
    let part = |i: &mut usize, delim: char| -> bool {
        while *i < chars.len() {
            match chars[*i] {
                '\\' => *i += 2,
                c if c == delim => {
                    *i += 1;
                    return true;
                }
                _ => *i += 1,
            }
        }
        false
    };
    while i < chars.len() {
        // Addresses: line numbers, `$`, `/re/`, `\cREc`, ranges, steps, negation.
        loop {
            match chars.get(i) {
                Some(c)
                    if c.is_ascii_digit()
                        || matches!(
                            c,
                            '$' | ',' | '!' | '~' | '+' | ' ' | '\t' | ';' | '\n' | '{' | '}'
                        ) =>
                {
                    i += 1
                }
                Some('/') => {
                    i += 1;
                    if !part(&mut i, '/') {
                        scan.unproven = Some("the sed script could not be read".into());
                        return scan;
                    }
                    while matches!(chars.get(i), Some('I' | 'M')) {
                        i += 1;
                    }
                }
                Some('\\') => {
                    let Some(&d) = chars.get(i + 1) else { break };
                    i += 2;
                    if !part(&mut i, d) {
                        scan.unproven = Some("the sed script could not be read".into());
                        return scan;
                    }
                }
                _ => break,
            }
        }
        let Some(&cmd) = chars.get(i) else { break };
        i += 1;
        match cmd {
            's' | 'y' => {
                let Some(&d) = chars.get(i) else {
                    scan.unproven = Some("the sed script could not be read".into());
                    return scan;
                };
                i += 1;
                if !(part(&mut i, d) && part(&mut i, d)) {
                    scan.unproven = Some("the sed script could not be read".into());
                    return scan;
                }
                if cmd == 'y' {
                    continue;
                }
                while let Some(&f) = chars.get(i) {
                    match f {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => i += 1,
                        'e' => {
                            scan.unproven = Some("the sed script runs commands (`e`)".into());
                            return scan;
                        }
                        'w' => {
                            i += 1;
                            scan.writes.push(to_eol(&mut i));
                            break;
                        }
                        _ => break,
                    }
                }
            }
            'w' | 'W' => scan.writes.push(to_eol(&mut i)),
            'e' => {
                scan.unproven = Some("the sed script runs commands (`e`)".into());
                return scan;
            }
            'r' | 'R' | 'a' | 'i' | 'c' | '#' => {
                to_eol(&mut i);
            }
            ':' | 'b' | 't' | 'T' => {
                while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                    i += 1;
                }
            }
            'q' | 'Q' | 'l' | 'L' => {
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_digit() || *c == ' ')
                {
                    i += 1;
                }
            }
            '=' | 'd' | 'D' | 'n' | 'N' | 'p' | 'P' | 'h' | 'H' | 'g' | 'G' | 'x' | 'z' | 'F' => {}
            other => {
                scan.unproven = Some(format!(
                    "the sed script uses `{other}`, which artoo does not know"
                ));
                return scan;
            }
        }
    }
    scan
}

/// The first data-changing SQL keyword in `sql`, if any.
pub(super) fn sql_write_keyword(sql: &str) -> Option<String> {
    const WRITES: &[&str] = &[
        "DROP", "DELETE", "TRUNCATE", "UPDATE", "ALTER", "REPLACE", "INSERT", "VACUUM", "ATTACH",
        "DETACH", "CREATE", "GRANT", "REVOKE", "MERGE", "UPSERT", "REINDEX",
    ];
    // String literals are data, not statements.
    let mut code = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    for c in sql.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None => code.push(c),
        }
    }
    let upper = code.to_ascii_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '.')
        .filter(|w| !w.is_empty())
        .collect();
    words
        .iter()
        .find(|w| WRITES.contains(w) || w.starts_with(".RESTORE") || w.starts_with(".IMPORT"))
        .map(|w| w.to_string())
}

/// A client command of sqlite3, psql or mysql that runs a program, reads commands from
/// a file or writes one: `.shell`, `.system`, `.output`, `\\!`, `\\i`, `\\o`, `source`…
pub(super) fn sql_client_command(sql: &str) -> Option<String> {
    const DOT: &[&str] = &[
        ".shell", ".system", ".output", ".once", ".read", ".import", ".save", ".backup",
        ".restore", ".clone", ".excel", ".log", ".cd", ".load", ".open", ".dump",
    ];
    for line in sql.lines() {
        let t = line.trim_start();
        let lower = t.to_ascii_lowercase();
        if let Some(d) = DOT.iter().find(|d| lower.starts_with(**d)) {
            return Some((*d).to_string());
        }
        if let Some(rest) = t.strip_prefix('\\') {
            let cmd: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
            if matches!(
                cmd.as_str(),
                "!" | "i"
                    | "ir"
                    | "include"
                    | "include_relative"
                    | "o"
                    | "out"
                    | "w"
                    | "write"
                    | "copy"
                    | "g"
                    | "gexec"
                    | "gset"
                    | "setenv"
                    | "e"
                    | "edit"
                    | "ef"
                    | "ev"
                    | "cd"
                    | "lo_export"
                    | "lo_import"
                    | "T"
                    | "tee"
            ) || cmd.starts_with('!')
            {
                return Some(format!("\\{cmd}"));
            }
        }
        if lower.starts_with("source ") || lower.starts_with("system ") || lower.starts_with("tee ")
        {
            return Some(
                lower
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
    }
    None
}

/// A Shortcut's steps cannot be seen from outside (its name says nothing reliable about
/// them), so running one always asks — unless the user allowed that exact Shortcut for
/// good, which the tool checks before it asks.
pub(super) fn classify_shortcut(name: &str) -> Assessment {
    let effect = Effect {
        kind: EffectKind::Opaque,
        target: Target::None,
        source: format!("shortcut \"{name}\""),
        note: Some("a Shortcut's steps cannot be inspected, whatever its name says".into()),
    };
    Assessment::from_effects(vec![effect], None)
}

pub(super) fn classify_applescript(source: &str, scope: &Scope<'_>) -> Assessment {
    let mut w = Walker::new(scope);
    applescript_effects(&mut w, source, 0);
    w.finish()
}

/// One lexical token of AppleScript.
#[derive(Debug, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Amp,
    /// A line break: statements end there.
    Newline,
    /// `«event …»` or `«class …»`: a raw Apple event code.
    Raw,
    Other,
}

/// Splits AppleScript into words and string literals, dropping comments. `None` when a
/// string or block comment is not closed.
fn tokens(source: &str) -> Option<Vec<Tok>> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '-' && chars.get(i + 1) == Some(&'-') || c == '#' {
            while i < chars.len() && chars[i] != '\n' && chars[i] != '\r' {
                i += 1;
            }
            continue;
        }
        if c == '\n' || c == '\r' {
            out.push(Tok::Newline);
            i += 1;
            continue;
        }
        if c == '¬' {
            // Line continuation: the statement goes on past the line break.
            i += 1;
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            continue;
        }
        if c == '«' {
            out.push(Tok::Raw);
            while i < chars.len() && chars[i] != '»' {
                i += 1;
            }
            i += 1;
            continue;
        }
        if c == '(' && chars.get(i + 1) == Some(&'*') {
            let mut level = 1;
            i += 2;
            while i < chars.len() && level > 0 {
                if chars[i] == '(' && chars.get(i + 1) == Some(&'*') {
                    level += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&')') {
                    level -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
            if level > 0 {
                return None;
            }
            continue;
        }
        if c == '"' || c == '“' {
            let close = if c == '"' { '"' } else { '”' };
            let mut s = String::new();
            i += 1;
            let mut closed = false;
            while i < chars.len() {
                match chars[i] {
                    '\\' if i + 1 < chars.len() => {
                        let e = chars[i + 1];
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            other => other,
                        });
                        i += 2;
                    }
                    ch if ch == close => {
                        closed = true;
                        i += 1;
                        break;
                    }
                    ch => {
                        s.push(ch);
                        i += 1;
                    }
                }
            }
            if !closed {
                return None;
            }
            out.push(Tok::Str(s));
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let mut w = String::new();
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                w.push(chars[i].to_ascii_lowercase());
                i += 1;
            }
            out.push(Tok::Word(w));
            continue;
        }
        if c == '&' {
            out.push(Tok::Amp);
        } else if !c.is_whitespace() {
            out.push(Tok::Other);
        }
        i += 1;
    }
    Some(out)
}

fn words_at(toks: &[Tok], i: usize, n: usize) -> Vec<&str> {
    toks[i..]
        .iter()
        .take(n)
        .map(|t| match t {
            Tok::Word(w) => w.as_str(),
            _ => "",
        })
        .collect()
}

/// Adds the effects of an AppleScript program to `w`. `do shell script "…"` strings
/// are classified as shell commands.
pub(super) fn applescript_effects(w: &mut Walker<'_>, source: &str, depth: usize) {
    let shown = super::text::display(source.lines().next().unwrap_or(source));
    let Some(toks) = tokens(source) else {
        w.opaque(
            &shown,
            "the AppleScript could not be read (an unclosed string or comment)",
        );
        return;
    };
    let push = |w: &mut Walker<'_>, kind: EffectKind, what: &str| {
        let target = match kind {
            EffectKind::Delete | EffectKind::Overwrite => Target::Unknown(what.to_string()),
            _ => Target::None,
        };
        w.push(kind, target, shown.clone(), Some(what.to_string()));
    };
    let mut i = 0;
    while i < toks.len() {
        let ws = words_at(&toks, i, 3);
        match ws.as_slice() {
            ["do", "shell", "script", ..] => {
                let literal = match (toks.get(i + 3), toks.get(i + 4)) {
                    (Some(Tok::Str(s)), next) if next != Some(&Tok::Amp) => Some(s.clone()),
                    _ => None,
                };
                match literal {
                    Some(cmd) => {
                        w.opaque(
                            &shown,
                            "`do shell script` runs a shell command outside the sandbox",
                        );
                        w.script(&cmd, depth + 1);
                    }
                    None => w.opaque(&shown, "`do shell script` runs a command built at run time"),
                }
                i += 3;
                continue;
            }
            ["do", "script", ..] => {
                w.opaque(&shown, "`do script` runs a command in Terminal");
            }
            ["run", "script", ..] | ["do", "javascript", ..] | ["load", "script", ..] => {
                w.opaque(&shown, "it runs code that is only known when it runs");
            }
            ["empty", "trash", ..] | ["empty", "the", "trash"] => {
                push(w, EffectKind::Delete, "everything in the Trash")
            }
            ["delete", ..] => push(w, EffectKind::Delete, "items the script deletes"),
            ["erase", ..] => push(w, EffectKind::Delete, "what the script erases"),
            ["remove", ..] => push(w, EffectKind::Delete, "what the script removes"),
            ["move", ..] => {
                let ahead = words_at(&toks, i, 40);
                if ahead.contains(&"trash") {
                    push(w, EffectKind::Delete, "items moved to the Trash");
                } else if ahead.contains(&"replacing") {
                    push(
                        w,
                        EffectKind::Overwrite,
                        "items replaced at the destination",
                    );
                }
            }
            ["duplicate", ..] if words_at(&toks, i, 40).contains(&"replacing") => push(
                w,
                EffectKind::Overwrite,
                "items replaced at the destination",
            ),
            ["send", ..] | ["reply", ..] | ["forward", ..] | ["redirect", ..] => {
                push(w, EffectKind::Send, "a message or email")
            }
            ["quit", ..] => push(
                w,
                EffectKind::Kill,
                "quits an application (unsaved work may be lost)",
            ),
            ["shut", "down", ..] | ["restart", ..] | ["log", "out", ..] => {
                push(w, EffectKind::Kill, "shuts down, restarts or logs out")
            }
            ["close", ..] => {
                let ahead = words_at(&toks, i, 12);
                if ahead.windows(2).any(|p| p == ["saving", "no"]) {
                    push(
                        w,
                        EffectKind::Delete,
                        "unsaved changes of the closed documents",
                    );
                }
            }
            ["save", ..] => push(w, EffectKind::Overwrite, "documents saved over their files"),
            ["write", ..] => push(w, EffectKind::Overwrite, "a file the script writes"),
            ["set", "eof", ..] => push(w, EffectKind::Truncate, "a file the script truncates"),
            ["keystroke", ..] | ["key", "code", ..] | ["click", ..] | ["perform", "action", ..] => {
                w.opaque(
                    &shown,
                    "it types or clicks in other applications, whose effect cannot be checked",
                )
            }
            _ => {}
        }
        i += 1;
    }
    if toks.contains(&Tok::Raw) {
        w.opaque(
            &shown,
            "it sends a raw Apple event, whose effect cannot be checked",
        );
    }
    for statement in toks.split(|t| *t == Tok::Newline) {
        if let Some(verb) = unknown_verb(statement) {
            w.opaque(
                &shown,
                format!("it uses `{verb}`, which artoo does not know to be harmless"),
            );
        }
    }
}

/// Words that may start a statement that only reads, controls the flow or sets a
/// local variable. A statement starting with anything else changes something, or may.
const KNOWN_STATEMENT_WORDS: &[&str] = &[
    "tell",
    "end",
    "get",
    "count",
    "return",
    "if",
    "else",
    "repeat",
    "exit",
    "on",
    "try",
    "error",
    "log",
    "considering",
    "ignoring",
    "using",
    "with",
    "local",
    "global",
    "property",
    "exists",
    "activate",
    "delay",
    "beep",
    "say",
    "current",
    "name",
    "names",
    "every",
    "the",
    "first",
    "last",
    "some",
    "number",
    "id",
    "date",
    "path",
    "posix",
    "properties",
    "text",
    "words",
    "paragraphs",
    "characters",
    "items",
    "item",
    "length",
    "class",
    "value",
    "contents",
    "my",
    "its",
    "not",
    "true",
    "false",
    "missing",
    "script",
    "of",
    "from",
    "middle",
    "second",
    "third",
];

/// The first word of an AppleScript statement that is not known to be harmless, if any
/// (`tell … to VERB`, `if … then VERB` are looked into; `set x to …` is a local variable
/// only when `x` is one word).
fn unknown_verb(statement: &[Tok]) -> Option<String> {
    let words: Vec<&Tok> = statement.iter().collect();
    let first = words.first()?;
    let word = |i: usize| match words.get(i) {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    match first {
        Tok::Word(w) => match w.as_str() {
            "tell" | "if" => {
                // `tell app "X" to VERB …` / `if COND then VERB …`: the rest is a statement.
                let sep = if w == "tell" { "to" } else { "then" };
                let after = words
                    .iter()
                    .position(|t| matches!(t, Tok::Word(x) if x == sep))
                    .map(|p| p + 1)?;
                unknown_verb(&statement[after..])
            }
            "set" => {
                // `set x to …` names a local variable; `set volume …`, `set name of f
                // to …`, `set the clipboard to …` change something.
                (!(matches!(words.get(1), Some(Tok::Word(_))) && word(2) == Some("to")))
                    .then(|| "set".to_string())
            }
            "copy" => None,
            "display" => (!matches!(word(1), Some("notification" | "dialog" | "alert")))
                .then(|| "display".to_string()),
            other if KNOWN_STATEMENT_WORDS.contains(&other) => None,
            other => Some(other.to_string()),
        },
        Tok::Str(_) | Tok::Other | Tok::Amp => None,
        Tok::Raw => Some("«event»".into()),
        Tok::Newline => None,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::testing::MemFs;
    use super::super::{Action, classify};
    use super::*;

    fn check(script: &str) -> Assessment {
        let fs = MemFs::default();
        classify(
            &Action::AppleScript(script),
            &Scope {
                cwd: Path::new("/w"),
                home: Path::new("/h"),
                fs: &fs,
            },
        )
    }

    #[test]
    fn applescript_reading_is_reversible_and_deleting_or_sending_is_not() {
        assert!(
            !check(r#"tell application "Finder" to get name of every file of desktop"#)
                .is_irreversible()
        );
        assert!(
            !check(r#"tell application "Calendar" to count calendars -- delete later"#)
                .is_irreversible()
        );
        assert!(
            check(r#"tell application "Finder" to delete file "a.txt" of desktop"#)
                .is_irreversible()
        );
        assert!(check(r#"tell application "Mail" to send newMessage"#).is_irreversible());
        assert!(
            check(r#"tell application "Finder" to move (every file of desktop) to trash"#)
                .is_irreversible()
        );
    }

    #[test]
    fn do_shell_script_always_asks_and_its_command_is_described() {
        let ls = check(r#"do shell script "ls -la ~""#);
        assert!(ls.is_irreversible());
        assert!(
            ls.description().contains("outside the sandbox"),
            "{}",
            ls.description()
        );
        let rm = check(r#"do shell script "rm -rf ~/Documents/*""#);
        assert!(rm.effects().iter().any(|e| e.kind == EffectKind::Delete));
        assert!(check(r#"do shell script "rm " & quoted form of f"#).is_irreversible());
        assert!(
            check(r#"do shell script "ls"#).is_irreversible(),
            "unclosed string fails closed"
        );
    }

    #[test]
    fn every_shortcut_asks_whatever_its_name() {
        for name in [
            "Get Weather",
            "Send Message to Mom",
            "Clean Downloads",
            "Show Today",
        ] {
            assert!(classify_shortcut(name).is_irreversible(), "{name}");
        }
    }

    #[test]
    fn applescript_fails_closed_on_verbs_raw_events_and_scripts() {
        for ok in [
            r#"tell application "Finder" to get name of every file of desktop"#,
            "tell application \"Music\"\n  set t to name of current track\nend tell\nreturn t",
            r#"tell application "System Events" to count processes"#,
            r#"display notification "done" with title "artoo""#,
            r#"return (current date) as string"#,
        ] {
            assert!(!check(ok).is_irreversible(), "{ok}");
        }
        for ask in [
            r#"tell application "Finder" to «event fndrempt»"#,
            r#"tell application "Terminal" to do script "ls""#,
            r#"do shell script "ls""#,
            r#"tell application "Finder" to empty trash"#,
            r#"tell application "Music" to play"#,
            r#"tell application "Finder" to set name of file "a" of desktop to "b""#,
            r#"set volume output volume 0"#,
            r#"tell application "Safari" to open location "https://x""#,
        ] {
            assert!(check(ask).is_irreversible(), "{ask}");
        }
    }

    #[test]
    fn interpreter_code_with_deletion_or_writes_is_flagged() {
        assert_eq!(scan_code("print(sum(range(10)))"), None);
        assert_eq!(
            scan_code("import json; print(json.load(open('a.json')))"),
            None
        );
        assert!(matches!(
            scan_code("import os; os.remove('x')"),
            Some(CodeMarker::Deletes(_))
        ));
        assert!(matches!(
            scan_code("open('out.txt', 'w').write('x')"),
            Some(CodeMarker::Other(_))
        ));
        assert!(scan_code("open(f, mode='a')").is_some());
        assert!(scan_code("open(my $fh, '>', 'out.txt')").is_some());
        assert_eq!(scan_code("data = open('a.csv', 'r').read()"), None);
        assert!(matches!(
            scan_code("require('fs').unlinkSync('x')"),
            Some(CodeMarker::Deletes(_))
        ));
    }

    #[test]
    fn sed_scripts_are_read_for_writes_and_commands() {
        assert_eq!(scan_sed("s/a/b/g; /x/d; 1,5p"), ProgramScan::default());
        assert_eq!(scan_sed("s|/usr|/opt|g").writes, Vec::<String>::new());
        assert_eq!(
            scan_sed("s/a/b/w out.txt").writes,
            vec!["out.txt".to_string()]
        );
        assert_eq!(
            scan_sed("/err/w errors.log").writes,
            vec!["errors.log".to_string()]
        );
        assert!(scan_sed("s/.*/rm -rf ~/e").unproven.is_some());
        assert!(scan_sed("1e rm x").unproven.is_some());
        assert!(scan_sed("$!N; s/\\n/ /; P; D").unproven.is_none());
        assert!(scan_sed("/start/,/end/{s/a/b/;p}").unproven.is_none());
    }

    #[test]
    fn awk_programs_are_read_for_redirections_and_commands() {
        assert_eq!(
            scan_awk("{ print $1 > \"out.txt\" }").writes,
            vec!["out.txt".to_string()]
        );
        assert_eq!(scan_awk("$3 > 100 { print $1 }"), ProgramScan::default());
        assert!(scan_awk("{ print | \"sh\" }").unproven.is_some());
        assert!(scan_awk("BEGIN { system(\"rm x\") }").unproven.is_some());
        assert!(scan_awk("{ \"date\" | getline d }").unproven.is_some());
        assert!(scan_awk("{ print > $2 }").unproven.is_some());
        assert!(
            scan_awk("$1 == \"a|b\" || /x|y/ { n++ } END { print n }")
                .unproven
                .is_none()
        );
    }

    #[test]
    fn sql_keywords_that_change_data_are_found() {
        assert_eq!(
            sql_write_keyword("SELECT * FROM t WHERE name = 'drop'"),
            None
        );
        assert_eq!(sql_write_keyword("drop table t"), Some("DROP".into()));
        assert_eq!(sql_write_keyword(".tables"), None);
    }
}
