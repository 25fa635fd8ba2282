//! Rules for code that is not shell: AppleScript, Shortcuts, SQL, and the inline code of
//! interpreters (`python -c`, `perl -e`, `node -e`, awk programs).

use super::shell::Walker;
use super::{Assessment, Effect, EffectKind, Scope, Target};

/// Markers of deletion, overwriting, process control or dynamic code in inline
/// interpreter code. A heuristic on purpose: interpreters are not parsed, so any marker
/// means "cannot vouch for it" and the call is confirmed.
const CODE_MARKERS: &[&str] = &[
    "os.remove",
    "os.unlink",
    "os.rmdir",
    "os.removedirs",
    "rmtree",
    "remove_tree",
    "unlink",
    "rmdir",
    "rm_rf",
    "rm_r",
    "rmSync",
    "fs.rm",
    "File.delete",
    "Files.delete",
    "FileUtils.rm",
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
    "os.kill",
    "process.kill",
    "kill(",
    "truncate",
    "smtplib",
    "sendmail",
    "send_message",
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
    "`",
    "qx",
    "%x(",
    "__import__",
    "importlib",
    "remove(",
];

/// The first marker of a risky operation in interpreter code, if any.
pub(super) fn scan_code(code: &str) -> Option<String> {
    if let Some(m) = CODE_MARKERS.iter().find(|m| code.contains(**m)) {
        return Some((*m).to_string());
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
            return Some("open(…) for writing".to_string());
        }
        rest = after;
    }
    None
}

/// Risky parts of an awk program: running commands or printing into files.
pub(super) fn scan_awk(program: &str) -> Option<String> {
    if program.contains("system(") {
        return Some("system(".into());
    }
    if program.contains("| \"") || program.contains("|\"") || program.contains("|&") {
        return Some("a pipe to a command".into());
    }
    for stmt in program.split([';', '{', '}', '\n']) {
        let s = stmt.trim_start();
        if (s.starts_with("print") || s.starts_with("printf"))
            && (s.contains("> \"")
                || s.contains(">\"")
                || s.contains(">> \"")
                || s.contains("> $")
                || s.contains(">>\""))
        {
            return Some("print into a file".into());
        }
    }
    None
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

/// First words of a Shortcut name that only look things up.
const READ_ONLY_SHORTCUT_VERBS: &[&str] = &[
    "get",
    "show",
    "find",
    "list",
    "read",
    "check",
    "count",
    "search",
    "look",
    "what",
    "when",
    "where",
    "which",
    "who",
    "how",
    "display",
    "view",
    "calculate",
    "translate",
    "summarize",
    "weather",
    "open",
    "speak",
    "today",
    "tell",
];

pub(super) fn classify_shortcut(name: &str) -> Assessment {
    let lower = name.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
    let source = format!("shortcut \"{name}\"");
    let effect = |kind, target| Effect {
        kind,
        target,
        source: source.clone(),
        note: Some(
            "a Shortcut's steps cannot be inspected, so its name is all artoo can check".into(),
        ),
    };
    if has(&[
        "send", "message", "messages", "mail", "email", "text", "post", "tweet", "share", "reply",
        "forward", "call", "pay", "order", "buy", "publish", "upload", "imessage", "sms",
    ]) {
        return Assessment::from_effects(vec![effect(EffectKind::Send, Target::None)], None);
    }
    if has(&[
        "delete",
        "remove",
        "erase",
        "clear",
        "trash",
        "empty",
        "wipe",
        "purge",
        "clean",
        "cleanup",
        "reset",
        "overwrite",
        "replace",
    ]) {
        let target = Target::Unknown(format!("what the Shortcut \"{name}\" removes"));
        return Assessment::from_effects(vec![effect(EffectKind::Delete, target)], None);
    }
    if words
        .first()
        .is_some_and(|w| READ_ONLY_SHORTCUT_VERBS.contains(w))
    {
        return Assessment::reversible();
    }
    Assessment::from_effects(vec![effect(EffectKind::Opaque, Target::None)], None)
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
        } else if c == '¬' {
            // Line continuation.
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
                    Some(cmd) => w.script(&cmd, depth + 1),
                    None => w.opaque(&shown, "`do shell script` runs a command built at run time"),
                }
                i += 3;
                continue;
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
    fn do_shell_script_strings_are_classified_as_shell() {
        assert!(!check(r#"do shell script "ls -la ~""#).is_irreversible());
        assert!(check(r#"do shell script "rm -rf ~/Documents""#).is_irreversible());
        assert!(check(r#"do shell script "rm " & quoted form of f"#).is_irreversible());
        assert!(
            check(r#"do shell script "ls"#).is_irreversible(),
            "unclosed string fails closed"
        );
    }

    #[test]
    fn shortcuts_are_judged_by_name_and_unknown_ones_are_confirmed() {
        assert!(!classify_shortcut("Get Weather").is_irreversible());
        assert!(classify_shortcut("Send Message to Mom").is_irreversible());
        assert!(classify_shortcut("Clean Downloads").is_irreversible());
        assert!(classify_shortcut("Morning Routine").is_irreversible());
    }

    #[test]
    fn interpreter_code_with_deletion_or_writes_is_flagged() {
        assert_eq!(scan_code("print(sum(range(10)))"), None);
        assert_eq!(
            scan_code("import json; print(json.load(open('a.json')))"),
            None
        );
        assert!(scan_code("import os; os.remove('x')").is_some());
        assert!(scan_code("open('out.txt', 'w').write('x')").is_some());
        assert!(scan_code("open(f, mode='a')").is_some());
        assert!(scan_code("open(my $fh, '>', 'out.txt')").is_some());
        assert_eq!(scan_code("data = open('a.csv', 'r').read()"), None);
        assert!(scan_code("require('fs').unlinkSync('x')").is_some());
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
