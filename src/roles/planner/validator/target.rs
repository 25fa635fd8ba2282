//! Matching blocked targets in a sub-task's prose: `~` and `$HOME` spelled out, then a
//! whole-token search, ignoring case at the caller.
//!
//! **Invariant:** a blocked folder also blocks what is inside it (a `/` may follow the
//! match), and a longer name that merely starts with the target does not match.

use std::path::Path;

/// `~`, `~/…` and `$HOME` spelled out, so `~/Downloads` and `/home/u/Downloads` match.
pub(super) fn expand_home(text: &str, home: &Path) -> String {
    let h = home.to_string_lossy();
    let h = h.trim_end_matches('/');
    let mut out = text.replace("${HOME}", h).replace("$HOME", h);
    if out == "~" {
        return h.to_string();
    }
    if let Some(rest) = out.strip_prefix("~/") {
        out = format!("{h}/{rest}");
    }
    for lead in [' ', '\'', '"', '`', '(', '\n', '\t', '='] {
        out = out.replace(&format!("{lead}~/"), &format!("{lead}{h}/"));
    }
    out
}

/// Whether `needle` occurs in `hay` as a whole token: not glued to a letter, digit, `_`,
/// `-` or `.` on either side, except that a `/` may follow (a blocked folder blocks what
/// is inside it).
pub(super) fn contains_token(hay: &str, needle: &str) -> bool {
    let glued = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let at = from + pos;
        let end = at + needle.len();
        let before_ok = hay[..at].chars().next_back().is_none_or(|c| !glued(c));
        let after_ok = match hay[end..].chars().next() {
            None => true,
            // A sentence may end right after the target.
            Some('.') => hay[end + 1..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace),
            Some(c) => !glued(c),
        };
        if before_ok && after_ok {
            return true;
        }
        from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
    }
    false
}
