//! AppleScript and Shortcuts: the effects of an AppleScript program, read statement
//! by statement, and the answer for running a Shortcut.
//!
//! Effects are recorded through the walker's effect API only; the shell commands of
//! `do shell script` strings are walked through the walker's script hook, so this module
//! needs neither the shell walk nor the program table.
//!
//! **Invariant:** a statement that starts with a word not known to be harmless, a raw
//! Apple event, or code built at run time is never left unrecorded: it is at least
//! opaque.

use super::assessment::{Assessment, Effect, EffectKind, Target};
use super::text;
use super::walker::Walker;

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
            i = block_comment_end(&chars, i + 2)?;
            continue;
        }
        if c == '"' || c == '“' {
            let (s, next) = string_literal(&chars, i + 1, c)?;
            out.push(Tok::Str(s));
            i = next;
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

/// The end of a block comment `(* … *)` (nested ones included) whose body starts at
/// `i`; `None` when it is not closed.
fn block_comment_end(chars: &[char], mut i: usize) -> Option<usize> {
    let mut level = 1;
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
    (level == 0).then_some(i)
}

/// A string literal opened by `open` whose text starts at `start`: its value and the
/// index after its closing quote; `None` when it is not closed.
fn string_literal(chars: &[char], start: usize, open: char) -> Option<(String, usize)> {
    let close = if open == '"' { '"' } else { '”' };
    let mut s = String::new();
    let mut i = start;
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
    closed.then_some((s, i))
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
    let shown = text::display(source.lines().next().unwrap_or(source));
    let Some(toks) = tokens(source) else {
        w.opaque(
            &shown,
            "the AppleScript could not be read (an unclosed string or comment)",
        );
        return;
    };
    let mut i = 0;
    while i < toks.len() {
        i += statement(w, &toks, i, &shown, depth);
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

/// Records an effect of the statement `shown` on targets described by `what`.
fn push(w: &mut Walker<'_>, shown: &str, kind: EffectKind, what: &str) {
    let target = match kind {
        EffectKind::Delete | EffectKind::Overwrite => Target::Unknown(what.to_string()),
        _ => Target::None,
    };
    w.push(kind, target, shown.to_string(), Some(what.to_string()));
}

/// Records the effect of the words at `toks[i]`; returns how many tokens to move on.
fn statement(w: &mut Walker<'_>, toks: &[Tok], i: usize, shown: &str, depth: usize) -> usize {
    let ws = words_at(toks, i, 3);
    match ws.as_slice() {
        ["do", "shell", "script", ..] => {
            let literal = match (toks.get(i + 3), toks.get(i + 4)) {
                (Some(Tok::Str(s)), next) if next != Some(&Tok::Amp) => Some(s.clone()),
                _ => None,
            };
            match literal {
                Some(cmd) => {
                    w.opaque(
                        shown,
                        "`do shell script` runs a shell command outside the sandbox",
                    );
                    w.script(&cmd, depth + 1);
                }
                None => w.opaque(shown, "`do shell script` runs a command built at run time"),
            }
            return 3;
        }
        ["do", "script", ..] => {
            w.opaque(shown, "`do script` runs a command in Terminal");
        }
        ["run", "script", ..] | ["do", "javascript", ..] | ["load", "script", ..] => {
            w.opaque(shown, "it runs code that is only known when it runs");
        }
        ["empty", "trash", ..] | ["empty", "the", "trash"] => {
            push(w, shown, EffectKind::Delete, "everything in the Trash")
        }
        ["delete", ..] => push(w, shown, EffectKind::Delete, "items the script deletes"),
        ["erase", ..] => push(w, shown, EffectKind::Delete, "what the script erases"),
        ["remove", ..] => push(w, shown, EffectKind::Delete, "what the script removes"),
        ["move", ..] => {
            let ahead = words_at(toks, i, 40);
            if ahead.contains(&"trash") {
                push(w, shown, EffectKind::Delete, "items moved to the Trash");
            } else if ahead.contains(&"replacing") {
                push(
                    w,
                    shown,
                    EffectKind::Overwrite,
                    "items replaced at the destination",
                );
            }
        }
        ["duplicate", ..] if words_at(toks, i, 40).contains(&"replacing") => push(
            w,
            shown,
            EffectKind::Overwrite,
            "items replaced at the destination",
        ),
        ["send", ..] | ["reply", ..] | ["forward", ..] | ["redirect", ..] => {
            push(w, shown, EffectKind::Send, "a message or email")
        }
        ["quit", ..] => push(
            w,
            shown,
            EffectKind::Kill,
            "quits an application (unsaved work may be lost)",
        ),
        ["shut", "down", ..] | ["restart", ..] | ["log", "out", ..] => push(
            w,
            shown,
            EffectKind::Kill,
            "shuts down, restarts or logs out",
        ),
        ["close", ..] => {
            let ahead = words_at(toks, i, 12);
            if ahead.windows(2).any(|p| p == ["saving", "no"]) {
                push(
                    w,
                    shown,
                    EffectKind::Delete,
                    "unsaved changes of the closed documents",
                );
            }
        }
        ["save", ..] => push(
            w,
            shown,
            EffectKind::Overwrite,
            "documents saved over their files",
        ),
        ["write", ..] => push(w, shown, EffectKind::Overwrite, "a file the script writes"),
        ["set", "eof", ..] => push(
            w,
            shown,
            EffectKind::Truncate,
            "a file the script truncates",
        ),
        ["keystroke", ..] | ["key", "code", ..] | ["click", ..] | ["perform", "action", ..] => w
            .opaque(
                shown,
                "it types or clicks in other applications, whose effect cannot be checked",
            ),
        _ => {}
    }
    1
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
    use super::super::{Action, Scope, classify};
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
}
