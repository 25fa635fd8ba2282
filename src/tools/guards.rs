//! The executor's guards, in code: head + tail truncation of tool output, the
//! personal-path `find` redirect to mdfind, the `-maxdepth` strip, duplicate-call
//! refusal and per-task MUST NOT enforcement (blocked tools and targets); and the
//! refusal of a command bash itself would reject as a syntax error.
//!
//! **Invariant:** truncation cuts on character boundaries and never returns more than
//! the limit; a refusal always says why and what to do instead.

use std::path::{Path, PathBuf};

use brush_parser::ast::{
    Command, CommandPrefixOrSuffixItem, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect,
    SimpleCommand,
};
use brush_parser::word::{Parameter, ParameterExpr, TildeExpr, WordPiece};
use serde_json::Value;

use super::{Prepared, ToolRef};
use crate::contracts::{ToolCallRecord, ToolCallStatus};
use crate::text::first_chars;

/// Why bash would reject `command` before running any of it (or would read it as no
/// one means it), when it would: a small
/// model that mangles the escaping of `-exec … \;` or a quote writes such commands, and
/// asking the user to approve one (the classifier cannot read it, so it would ask) only
/// to see it fail helps nobody. Bash is asked (`bash -n`: read, never run) only when the
/// classifier's own parser could not read the command; when bash cannot be asked, the
/// command goes on to the Law 1 gate as before.
pub fn syntax_error(command: &str) -> Option<String> {
    // Bash reads a lone backslash at the very end as a literal one; no command needs
    // that, and it is what is left of `\;` when the escaping slipped.
    let trailing = command
        .trim_end()
        .chars()
        .rev()
        .take_while(|c| *c == '\\')
        .count();
    if trailing % 2 == 1 {
        return Some("it ends with a lone backslash".into());
    }
    if crate::laws::classify::parse_bounded(command).is_ok() {
        return None;
    }
    let checked = std::process::Command::new("bash")
        .args(["-n", "-c", command])
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    if checked.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&checked.stderr);
    let first = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("syntax error");
    // `bash: -c: line 1: unexpected EOF …` → `line 1: unexpected EOF …`
    let message = first
        .trim()
        .trim_start_matches("bash: ")
        .trim_start_matches("-c: ")
        .to_string();
    Some(first_chars(&message, 200))
}

/// A refusal when `tool` is blocked for this task.
pub fn blocked_tool(tool: &ToolRef, blocked: &[ToolRef]) -> Option<String> {
    blocked.contains(tool).then(|| {
            format!(
                "Refused: the plan forbids the tool `{tool}` for this task (MUST NOT). Use a different tool."
            )
        })
}

/// The confirmation text when the called tool — as requested or after a rewrite — is
/// one of the task's Caution tools (memory marks its approach as risky for this kind of
/// task, so each use asks the user, reversible or not).
pub fn caution_tool(
    requested: &ToolRef,
    runs: &ToolRef,
    confirm_tools: &[ToolRef],
) -> Option<String> {
    [requested, runs]
        .into_iter()
        .find(|t| confirm_tools.contains(t))
        .map(|tool| {
            format!(
                "Memory marks `{tool}` as a Caution approach for tasks like this one, so each use \
             asks first in this task."
            )
        })
}

/// Every string in the call: its target and all string parameters.
fn call_texts(prepared: &Prepared) -> Vec<String> {
    fn collect(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            Value::Object(o) => o.values().for_each(|x| collect(x, out)),
            _ => {}
        }
    }
    let mut out = vec![prepared.target.clone()];
    collect(&prepared.input, &mut out);
    out
}

fn expand_home(s: &str, home: &Path) -> String {
    let h = home.to_string_lossy();
    let mut out = s.replace("${HOME}", &h).replace("$HOME", &h);
    if out == "~" {
        out = h.to_string();
    } else if let Some(rest) = out.strip_prefix("~/") {
        out = format!("{h}/{rest}");
    }
    out.replace(" ~/", &format!(" {h}/"))
        .replace("'~/", &format!("'{h}/"))
        .replace("\"~/", &format!("\"{h}/"))
}

/// Whether `needle` occurs in `hay` as a whole token: not glued to letters or digits on
/// either side (a `/` after it is allowed, so a blocked folder blocks what is inside).
fn contains_token(hay: &str, needle: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    let mut start = 0;
    while let Some(pos) = hay[start..].find(needle) {
        let at = start + pos;
        let end = at + needle.len();
        let before_ok = hay[..at].chars().next_back().is_none_or(|c| !is_word(c));
        let after_ok = hay[end..].chars().next().is_none_or(|c| !is_word(c));
        if before_ok && after_ok {
            return true;
        }
        start = at + hay[at..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The first of `needles` the call names as a whole token (paths with `~` expanded).
fn named_target<'a>(prepared: &Prepared, needles: &'a [String], home: &Path) -> Option<&'a str> {
    let texts: Vec<String> = call_texts(prepared)
        .iter()
        .map(|t| expand_home(t, home))
        .collect();
    needles.iter().map(String::as_str).find(|b| {
        let needle = expand_home(b.trim(), home);
        let needle = needle.trim_end_matches('/');
        !needle.is_empty() && texts.iter().any(|t| contains_token(t, needle))
    })
}

/// A refusal when the call names a blocked target (path, query or command).
pub fn blocked_target(prepared: &Prepared, blocked: &[String], home: &Path) -> Option<String> {
    named_target(prepared, blocked, home).map(|b| {
        format!(
            "Refused: the plan forbids the target `{b}` for this task (MUST NOT): it failed before. Choose a different target or approach."
        )
    })
}

/// A refusal when the call names artoo's own data directory (memory, the audit log, task
/// logs, settings): no role may read or write it — the audit log is evidence about the
/// agents, so the agents must not reach it.
pub fn app_data(prepared: &Prepared, data_dir: &Path, home: &Path) -> Option<String> {
    let mut forms = vec![data_dir.to_string_lossy().into_owned()];
    if let Ok(rel) = data_dir.strip_prefix(home) {
        forms.push(format!("~/{}", rel.to_string_lossy()));
        forms.push(format!("$HOME/{}", rel.to_string_lossy()));
    }
    named_target(prepared, &forms, home).map(|_| {
        format!(
            "Refused: `{}` holds artoo's own memory, audit log and task logs; no tool may read or change it. Work on the user's files instead.",
            data_dir.display()
        )
    })
}

/// The message for a call identical to call `n` of this sub-task.
pub fn duplicate_message(n: usize, earlier: &ToolCallRecord) -> String {
    let how = match earlier.status {
        ToolCallStatus::Ok => format!("{SUCCEEDED}: «{}»", first_chars(&earlier.output_head, 120)),
        ToolCallStatus::Error => {
            format!("it failed: {}", earlier.error.as_deref().unwrap_or("error"))
        }
        ToolCallStatus::Denied => "the user did not allow it".to_string(),
        ToolCallStatus::Refused => format!(
            "it was refused: {}",
            earlier.error.as_deref().unwrap_or("refused")
        ),
    };
    format!(
        "Refused: this exact call ({} {}) {RAN_BEFORE}{n} of this sub-task; {how}. Use that \
         result or try a different approach.",
        earlier.tool,
        first_chars(&earlier.target, 120)
    )
}

/// Words of the refusal of a call that repeats one that failed in another sub-task or
/// attempt of this task.
const FAILED_BEFORE: &str = "already failed earlier in this task";

/// Words of the refusal of a call that repeats one of this sub-task, and of the one that
/// tells it succeeded.
const RAN_BEFORE: &str = "already ran as call #";
const SUCCEEDED: &str = "it succeeded and its output began";

/// Whether a refusal's reason is that the call repeats one that already failed (or was
/// refused or denied) in this task: the model asked again for what it had seen fail.
pub fn repeats_a_failure(reason: &str) -> bool {
    reason.starts_with("Refused:")
        && (reason.contains(FAILED_BEFORE)
            || (reason.contains(RAN_BEFORE) && !reason.contains(SUCCEEDED)))
}

/// Why a call that already failed in this task is not issued again: nothing the task did
/// since could have changed what it saw, so it would fail the same way.
pub fn failed_before_message(
    tool: &ToolRef,
    target: &str,
    earlier: &super::context::EarlierFailure,
) -> String {
    if earlier.same_path {
        return format!(
            "Refused: {} on this path ({}) {FAILED_BEFORE} ({}), and another value of the \
             call cannot change that. Use a path that exists and is what the tool reads (list \
             the folder to see the files in it).",
            tool,
            first_chars(target, 120),
            first_chars(earlier.error.trim(), 240)
        );
    }
    format!(
        "Refused: this exact call ({} {}) {FAILED_BEFORE} ({}), and nothing has changed \
         files since, so it would fail the same way. Look at what is there first (list the \
         folder, or show the file's columns or keys) and change the call to fit what you saw.",
        tool,
        first_chars(target, 120),
        first_chars(earlier.error.trim(), 240)
    )
}

/// What the `find` guards made of a shell command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FindRewrite {
    /// Not a `find` the guards change.
    Unchanged,
    /// `-maxdepth N` removed (depth limits the model picks make searches miss files).
    Stripped(String),
    /// A `find` on a personal path, answered by the file index instead.
    Mdfind {
        /// The `-name` pattern to look for.
        query: String,
        /// The folder to search under.
        onlyin: PathBuf,
        /// `f` for files only, `d` for folders only; None for both.
        kind: Option<char>,
        /// The command after stripping, kept for the record.
        original: String,
    },
}

/// The literal value of a word when it has no run-time parts.
fn literal(w: &str, home: &Path) -> Option<String> {
    let pieces = crate::laws::classify::parse_word(w, false)?;
    let mut out = String::new();
    fn piece(p: &WordPiece, home: &Path, out: &mut String) -> Option<()> {
        match p {
            WordPiece::Text(s) | WordPiece::SingleQuotedText(s) => out.push_str(s),
            WordPiece::DoubleQuotedSequence(inner) => {
                for x in inner {
                    piece(&x.piece, home, out)?;
                }
            }
            WordPiece::EscapeSequence(s) => out.push_str(s.strip_prefix('\\').unwrap_or(s)),
            WordPiece::TildeExpansion(TildeExpr::Home) => out.push_str(&home.to_string_lossy()),
            WordPiece::ParameterExpansion(ParameterExpr::Parameter {
                parameter: Parameter::Named(n),
                indirect: false,
            }) if n == "HOME" => out.push_str(&home.to_string_lossy()),
            _ => return None,
        }
        Some(())
    }
    for p in &pieces {
        piece(&p.piece, home, &mut out)?;
    }
    Some(out)
}

fn is_personal(path: &str, home: &Path) -> bool {
    let p = Path::new(path);
    p.starts_with(home)
        || ["/Users", "/Volumes", "/home"]
            .iter()
            .any(|root| p.starts_with(root))
}

fn char_to_byte(s: &str, char_idx: usize) -> usize {
    s.char_indices().nth(char_idx).map_or(s.len(), |(i, _)| i)
}

fn words_of(sc: &SimpleCommand) -> Vec<&brush_parser::ast::Word> {
    let mut out = Vec::new();
    if let Some(w) = &sc.word_or_name {
        out.push(w);
    }
    if let Some(suffix) = &sc.suffix {
        for item in &suffix.0 {
            if let CommandPrefixOrSuffixItem::Word(w) = item {
                out.push(w);
            }
        }
    }
    out
}

fn find_commands(cmd: &Command, out: &mut Vec<SimpleCommand>) {
    use brush_parser::ast::CompoundCommand as C;
    let list = |l: &brush_parser::ast::CompoundList, out: &mut Vec<SimpleCommand>| {
        for item in &l.0 {
            for p in
                std::iter::once(&item.0.first).chain(item.0.additional.iter().map(|a| match a {
                    brush_parser::ast::AndOr::And(p) | brush_parser::ast::AndOr::Or(p) => p,
                }))
            {
                for c in &p.seq {
                    find_commands(c, out);
                }
            }
        }
    };
    match cmd {
        Command::Simple(sc) => out.push(sc.clone()),
        Command::Compound(cc, _) => match cc {
            C::BraceGroup(b) => list(&b.list, out),
            C::Subshell(s) => list(&s.list, out),
            C::ForClause(f) => list(&f.body.list, out),
            C::ArithmeticForClause(f) => list(&f.body.list, out),
            C::WhileClause(w) | C::UntilClause(w) => {
                list(&w.0, out);
                list(&w.1.list, out);
            }
            C::IfClause(i) => {
                list(&i.condition, out);
                list(&i.then, out);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        list(c, out);
                    }
                    list(&e.body, out);
                }
            }
            C::CaseClause(c) => {
                for item in &c.cases {
                    if let Some(l) = &item.cmd {
                        list(l, out);
                    }
                }
            }
            C::Arithmetic(_) | C::Coprocess(_) => {}
        },
        Command::Function(_) | Command::ExtendedTest(..) => {}
    }
}

/// Applies the `find` guards to a shell command.
pub fn rewrite_find(command: &str, home: &Path) -> FindRewrite {
    // Bounded like the classifier's parse; what it refuses, Law 1 gates anyway.
    let Ok(program) = crate::laws::classify::parse_bounded(command) else {
        return FindRewrite::Unchanged;
    };
    let mut simple = Vec::new();
    let mut pipelines = 0;
    for list in &program.complete_commands {
        for item in &list.0 {
            pipelines += 1 + item.0.additional.len();
            for p in std::iter::once(&item.0.first) {
                for c in &p.seq {
                    find_commands(c, &mut simple);
                }
            }
            for a in &item.0.additional {
                let (brush_parser::ast::AndOr::And(p) | brush_parser::ast::AndOr::Or(p)) = a;
                for c in &p.seq {
                    find_commands(c, &mut simple);
                }
            }
        }
    }
    let (stripped, changed) = strip_maxdepth(command, &simple, home);

    // Redirect: the whole command is one `find` on a personal path, selecting by name.
    if pipelines == 1
        && simple.len() == 1
        && is_find(&simple[0], home)
        && program.complete_commands.len() == 1
    {
        let sc = &simple[0];
        let args: Option<Vec<String>> = words_of(sc)[1..]
            .iter()
            .map(|w| literal(&w.value, home))
            .collect();
        if let (true, Some(args)) = (only_stderr_redirects(sc), args)
            && let Some(r) = redirect_plan(&args, home)
        {
            return FindRewrite::Mdfind {
                query: r.0,
                onlyin: r.1,
                kind: r.2,
                original: stripped,
            };
        }
    }
    if changed {
        FindRewrite::Stripped(stripped)
    } else {
        FindRewrite::Unchanged
    }
}

/// Whether `sc` runs `find` (by name or by a path ending in `/find`).
fn is_find(sc: &SimpleCommand, home: &Path) -> bool {
    sc.word_or_name
        .as_ref()
        .and_then(|w| literal(&w.value, home))
        .is_some_and(|n| n == "find" || n.ends_with("/find"))
}

/// `command` with `-maxdepth N` cut from every `find` in `simple`, by source position,
/// and whether anything was cut.
fn strip_maxdepth(command: &str, simple: &[SimpleCommand], home: &Path) -> (String, bool) {
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for sc in simple.iter().filter(|sc| is_find(sc, home)) {
        let words = words_of(sc);
        for (i, w) in words.iter().enumerate() {
            if w.value == "-maxdepth"
                && let (Some(a), Some(b)) = (
                    w.loc.as_ref(),
                    words.get(i + 1).and_then(|n| n.loc.as_ref()),
                )
            {
                cuts.push((a.start.index, b.end.index));
            }
        }
    }
    let mut stripped = command.to_string();
    cuts.sort_unstable();
    for (start, end) in cuts.iter().rev() {
        let (bs, be) = (
            char_to_byte(&stripped, *start),
            char_to_byte(&stripped, *end),
        );
        // Also drop one space before the option so no double spaces remain.
        let bs = if bs > 0 && stripped[..bs].ends_with(' ') {
            bs - 1
        } else {
            bs
        };
        stripped.replace_range(bs..be, "");
    }
    (stripped, !cuts.is_empty())
}

/// Whether the only redirections of `sc` send stderr to `/dev/null` (and it has no
/// prefix such as an assignment).
fn only_stderr_redirects(sc: &SimpleCommand) -> bool {
    sc.suffix
        .iter()
        .flat_map(|s| s.0.iter())
        .all(|item| match item {
            CommandPrefixOrSuffixItem::IoRedirect(IoRedirect::File(
                Some(2),
                IoFileRedirectKind::Write,
                IoFileRedirectTarget::Filename(w),
            )) => w.value == "/dev/null",
            CommandPrefixOrSuffixItem::IoRedirect(_)
            | CommandPrefixOrSuffixItem::ProcessSubstitution(..) => false,
            _ => true,
        })
        && sc.prefix.is_none()
}

/// `find ROOT [-type f|d] -name|-iname PATTERN [-print]` on a personal ROOT, with no
/// `-path` (or any other test the index cannot answer) → (query, root, kind).
fn redirect_plan(args: &[String], home: &Path) -> Option<(String, PathBuf, Option<char>)> {
    let mut i = 0;
    while i < args.len() && matches!(args[i].as_str(), "-H" | "-L" | "-P") {
        i += 1;
    }
    let root = args.get(i)?;
    if root.starts_with('-') {
        return None;
    }
    let root_path = PathBuf::from(root);
    if !root_path.is_absolute() || !is_personal(root, home) {
        return None;
    }
    i += 1;
    let mut query = None;
    let mut kind = None;
    while i < args.len() {
        match args[i].as_str() {
            "-name" | "-iname" => {
                if query.is_some() {
                    return None;
                }
                query = Some(args.get(i + 1)?.clone());
                i += 2;
            }
            "-type" => {
                kind = match args.get(i + 1).map(String::as_str) {
                    Some("f") => Some('f'),
                    Some("d") => Some('d'),
                    _ => return None,
                };
                i += 2;
            }
            "-print" => i += 1,
            // Stripped anyway.
            "-maxdepth" => i += 2,
            // -path and every other test or action: the index cannot answer it.
            _ => return None,
        }
    }
    Some((query?, root_path, kind))
}

#[cfg(test)]
mod tests {

    #[test]
    fn both_refusals_of_a_repeated_failure_are_known_as_such() {
        use super::super::context::EarlierFailure;
        let call = super::super::Prepared::plain(
            super::super::ToolName::ReadTable,
            serde_json::json!({"path": "/h/dupes"}),
            "/h/dupes".into(),
        );
        for same_path in [false, true] {
            let earlier = EarlierFailure {
                error: "/h/dupes is a folder, not a file".into(),
                same_path,
            };
            let reason = failed_before_message(&call.tool, &call.target, &earlier);
            assert!(repeats_a_failure(&reason), "{reason}");
        }
        assert!(!repeats_a_failure(
            "Refused: nothing in this sub-task asks to move anything"
        ));
        let record = |status, error: Option<&str>| ToolCallRecord {
            status,
            error: error.map(Into::into),
            ..crate::checks::shape::tests::ok(ToolName::ReadFile, "/h/a.txt", "a")
        };
        let failed = duplicate_message(1, &record(ToolCallStatus::Error, Some("No such file")));
        assert!(repeats_a_failure(&failed), "{failed}");
        let ok = duplicate_message(1, &record(ToolCallStatus::Ok, None));
        assert!(!repeats_a_failure(&ok), "{ok}");
        assert!(!repeats_a_failure(
            "the folder already failed earlier in this task"
        ));
    }

    #[test]
    fn bash_is_asked_about_syntax_only_when_our_parser_gives_up() {
        assert_eq!(syntax_error("ls -1 ~/notes/*.txt | wc -l"), None);
        let open_quote = syntax_error("echo \"unterminated").expect("bash rejects it");
        assert!(open_quote.contains("unexpected EOF"), "{open_quote}");
        assert!(!open_quote.starts_with("bash:"), "{open_quote}");
        assert_eq!(
            syntax_error("find . -exec rm {} \\").as_deref(),
            Some("it ends with a lone backslash")
        );
        assert_eq!(
            syntax_error("echo a\\\\"),
            None,
            "an escaped backslash is one"
        );
        assert_eq!(syntax_error("if true; then echo ok; fi"), None);
        assert!(syntax_error("if true; then echo ok").is_some());
    }

    use super::*;
    use crate::tools::ToolName;

    #[test]
    fn find_on_a_personal_path_by_name_goes_to_mdfind() {
        let home = Path::new("/home/u");
        assert_eq!(
            rewrite_find("find ~ -name '*.pdf' 2>/dev/null", home),
            FindRewrite::Mdfind {
                query: "*.pdf".into(),
                onlyin: PathBuf::from("/home/u"),
                kind: None,
                original: "find ~ -name '*.pdf' 2>/dev/null".into(),
            }
        );
        assert!(matches!(
            rewrite_find("find /Users/u/Documents -type f -iname report", home),
            FindRewrite::Mdfind {
                kind: Some('f'),
                ..
            }
        ));
    }

    #[test]
    fn find_with_path_tests_or_pipes_is_not_redirected() {
        let home = Path::new("/home/u");
        for cmd in [
            "find ~ -path '*/src/*' -name '*.rs'",
            "find ~ -name '*.log' -delete",
            "find ~ -name x | head",
            "find . -name x",
            "find /tmp -name x",
        ] {
            assert_eq!(rewrite_find(cmd, home), FindRewrite::Unchanged, "{cmd}");
        }
    }

    #[test]
    fn maxdepth_is_stripped_wherever_find_runs() {
        let home = Path::new("/home/u");
        assert_eq!(
            rewrite_find("find . -maxdepth 1 -name '*.md' | wc -l", home),
            FindRewrite::Stripped("find . -name '*.md' | wc -l".into())
        );
        assert!(matches!(
            rewrite_find("find ~/Documents -maxdepth 2 -name 'é*.txt'", home),
            FindRewrite::Mdfind { ref original, .. } if original == "find ~/Documents -name 'é*.txt'"
        ));
    }

    #[test]
    fn a_blocked_target_matches_as_a_whole_token_or_a_parent_folder() {
        let p = Prepared {
            tool: ToolName::Shell.into(),
            input: serde_json::json!({"command": "ls ~/Downloads/movies"}),
            target: "ls ~/Downloads/movies".into(),
            action: None,
            note: None,
            approved: false,
            sandbox: None,
        };
        let home = Path::new("/home/u");
        assert!(blocked_target(&p, &["/home/u/Downloads".into()], home).is_some());
        assert!(blocked_target(&p, &["~/Downloads/movies".into()], home).is_some());
        assert!(blocked_target(&p, &["~/Down".into()], home).is_none());
        assert!(blocked_target(&p, &["movie".into()], home).is_none());
    }

    #[test]
    fn the_apps_own_data_directory_is_off_limits_in_any_spelling() {
        let call = |command: &str| Prepared {
            tool: ToolName::Shell.into(),
            input: serde_json::json!({ "command": command }),
            target: command.into(),
            action: None,
            note: None,
            approved: false,
            sandbox: None,
        };
        let (home, data) = (Path::new("/home/u"), Path::new("/home/u/.artoo"));
        for command in [
            "rm -rf ~/.artoo/audit",
            "cat /home/u/.artoo/memory.leveldb/CURRENT",
            "ls $HOME/.artoo",
        ] {
            assert!(app_data(&call(command), data, home).is_some(), "{command}");
        }
        for command in ["ls ~/.artoo_old", "ls ~/artoo_workspace", "echo artoo"] {
            assert!(app_data(&call(command), data, home).is_none(), "{command}");
        }
    }
}
