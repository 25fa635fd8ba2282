//! Scanners for code that is not shell, read as text: the inline code of interpreters
//! (`python -c`, `perl -e`, `node -e`), sed scripts, awk programs and SQL.
//!
//! **Invariant:** pure text functions with no notion of the walker; they only report
//! what they find (a deletion, a file written, a command run, a write keyword), and
//! what they cannot read is reported as unproven, never as harmless.

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
    while i < chars.len() {
        if !skip_addresses(&chars, &mut i) {
            scan.unproven = Some("the sed script could not be read".into());
            return scan;
        }
        let Some(&cmd) = chars.get(i) else { break };
        i += 1;
        if let Some(why) = sed_command(&chars, &mut i, cmd, &mut scan.writes) {
            scan.unproven = Some(why);
            return scan;
        }
    }
    scan
}

/// The rest of the line from `i`, trimmed; `i` ends at the line break.
fn to_eol(chars: &[char], i: &mut usize) -> String {
    let start = *i;
    while *i < chars.len() && chars[*i] != '\n' {
        *i += 1;
    }
    chars[start..*i]
        .iter()
        .collect::<String>()
        .trim()
        .to_string()
}

/// Reads up to an unescaped `delim`; false when the script ends first.
fn part(chars: &[char], i: &mut usize, delim: char) -> bool {
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
}

/// Skips the addresses before a sed command: line numbers, `$`, `/re/`, `\cREc`,
/// ranges, steps, negation. False when a regular expression is not closed.
fn skip_addresses(chars: &[char], i: &mut usize) -> bool {
    loop {
        match chars.get(*i) {
            Some(c)
                if c.is_ascii_digit()
                    || matches!(
                        c,
                        '$' | ',' | '!' | '~' | '+' | ' ' | '\t' | ';' | '\n' | '{' | '}'
                    ) =>
            {
                *i += 1
            }
            Some('/') => {
                *i += 1;
                if !part(chars, i, '/') {
                    return false;
                }
                while matches!(chars.get(*i), Some('I' | 'M')) {
                    *i += 1;
                }
            }
            Some('\\') => {
                let Some(&d) = chars.get(*i + 1) else {
                    return true;
                };
                *i += 2;
                if !part(chars, i, d) {
                    return false;
                }
            }
            _ => return true,
        }
    }
}

/// Reads the sed command `cmd` whose arguments start at `i`, adding the files it
/// writes to `writes`. `Some(why)` when the script cannot be proven.
fn sed_command(
    chars: &[char],
    i: &mut usize,
    cmd: char,
    writes: &mut Vec<String>,
) -> Option<String> {
    match cmd {
        's' | 'y' => {
            let Some(&d) = chars.get(*i) else {
                return Some("the sed script could not be read".into());
            };
            *i += 1;
            if !(part(chars, i, d) && part(chars, i, d)) {
                return Some("the sed script could not be read".into());
            }
            if cmd == 'y' {
                return None;
            }
            while let Some(&f) = chars.get(*i) {
                match f {
                    'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => *i += 1,
                    'e' => return Some("the sed script runs commands (`e`)".into()),
                    'w' => {
                        *i += 1;
                        writes.push(to_eol(chars, i));
                        break;
                    }
                    _ => break,
                }
            }
        }
        'w' | 'W' => writes.push(to_eol(chars, i)),
        'e' => return Some("the sed script runs commands (`e`)".into()),
        'r' | 'R' | 'a' | 'i' | 'c' | '#' => {
            to_eol(chars, i);
        }
        ':' | 'b' | 't' | 'T' => {
            while *i < chars.len() && !matches!(chars[*i], ';' | '\n' | '}') {
                *i += 1;
            }
        }
        'q' | 'Q' | 'l' | 'L' => {
            while chars
                .get(*i)
                .is_some_and(|c| c.is_ascii_digit() || *c == ' ')
            {
                *i += 1;
            }
        }
        '=' | 'd' | 'D' | 'n' | 'N' | 'p' | 'P' | 'h' | 'H' | 'g' | 'G' | 'x' | 'z' | 'F' => {}
        other => {
            return Some(format!(
                "the sed script uses `{other}`, which artoo does not know"
            ));
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

#[cfg(test)]
mod tests {
    use super::*;

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
