//! Text helpers of the classifier: look-alike folding for command names, safe display of
//! paths in a confirmation dialog, and lexical path resolution (no file system access).

use std::path::{Component, Path, PathBuf};

/// Characters that render as nothing (or reorder text) and so can hide what a name or
/// path really is: zero-width marks, bidirectional overrides, soft hyphen, BOM.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Maps a look-alike of a Latin letter (Cyrillic, Greek, full-width forms, a few
/// letter-like symbols) to that letter; other characters map to themselves.
fn fold_char(c: char) -> char {
    match c {
        // Full-width ASCII.
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        // Cyrillic.
        'а' | 'А' => 'a',
        'с' | 'С' => 'c',
        'ԁ' => 'd',
        'е' | 'Е' | 'ё' => 'e',
        'һ' | 'Н' => 'h',
        'і' | 'І' | 'ӏ' => 'i',
        'ј' | 'Ј' => 'j',
        'к' | 'К' => 'k',
        'м' | 'М' => 'm',
        'о' | 'О' => 'o',
        'р' | 'Р' => 'p',
        'ѕ' | 'Ѕ' => 's',
        'т' | 'Т' => 't',
        'у' | 'У' => 'y',
        'х' | 'Х' => 'x',
        'г' => 'r',
        'ь' => 'b',
        'п' => 'n',
        // Greek.
        'α' | 'Α' => 'a',
        'β' | 'Β' => 'b',
        'ε' | 'Ε' => 'e',
        'ι' | 'Ι' => 'i',
        'κ' | 'Κ' => 'k',
        'ν' | 'Ν' => 'v',
        'ο' | 'Ο' => 'o',
        'ρ' | 'Ρ' => 'p',
        'τ' | 'Τ' => 't',
        'υ' | 'Υ' => 'u',
        'χ' | 'Χ' => 'x',
        'μ' | 'Μ' => 'm',
        // Latin and letter-like symbols.
        'ı' => 'i',
        'ℓ' => 'l',
        'ɡ' => 'g',
        'ʀ' => 'r',
        'ᴍ' => 'm',
        _ => c,
    }
}

/// A command name as the classifier compares it: invisible characters dropped,
/// look-alikes folded to Latin, ASCII lower-cased (macOS file systems are
/// case-insensitive, so `RM` runs `/bin/rm` there).
pub fn fold_name(name: &str) -> String {
    name.chars()
        .filter(|c| !is_invisible(*c))
        .map(fold_char)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether `s` contains characters that are invisible or only look like Latin letters.
pub fn has_lookalikes(s: &str) -> bool {
    s.chars().any(|c| is_invisible(c) || fold_char(c) != c)
}

/// Text for a dialog: invisible, bidirectional and control characters are shown as
/// `\u{…}` escapes so a path cannot disguise itself.
pub fn display(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if is_invisible(c) || (c.is_control() && c != '\n' && c != '\t') {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Look-alike characters of `s`, named for the dialog (`о U+043E`).
pub fn lookalike_note(s: &str) -> Option<String> {
    let found: Vec<String> = s
        .chars()
        .filter(|c| is_invisible(*c) || fold_char(*c) != *c)
        .map(|c| format!("U+{:04X}", c as u32))
        .collect();
    if found.is_empty() {
        None
    } else {
        Some(format!(
            "contains characters that are invisible or only look like Latin letters ({})",
            found.join(", ")
        ))
    }
}

/// Resolves `raw` against `cwd` lexically: `.` and `..` are folded, nothing is read
/// from disk. `None` when the path is relative and the working directory is unknown.
pub fn resolve(raw: &str, cwd: Option<&Path>) -> Option<PathBuf> {
    let p = Path::new(raw);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd?.join(p)
    };
    Some(normalize(&joined))
}

/// Folds `.` and `..` components without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Whether unquoted text expands to other names: `*`, `?`, a `[…]` class, or a brace
/// expansion (`{a,b}`, `{1..3}`).
pub fn is_glob(s: &str) -> bool {
    if s.contains(['*', '?']) {
        return true;
    }
    let class = s.find('[').is_some_and(|i| s[i + 1..].contains(']'));
    let brace = s.find('{').is_some_and(|i| {
        let inner = &s[i + 1..];
        inner
            .find('}')
            .is_some_and(|j| inner[..j].contains(',') || inner[..j].contains(".."))
    });
    class || brace
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alike_command_names_fold_to_their_latin_form() {
        assert_eq!(fold_name("rm"), "rm");
        assert_eq!(fold_name("RM"), "rm");
        assert_eq!(fold_name("r\u{200B}m"), "rm");
        assert_eq!(fold_name("ｒｍ"), "rm");
        assert_eq!(fold_name("гm"), "rm");
        assert_eq!(fold_name("shrеd"), "shred");
        assert!(has_lookalikes("shrеd"));
        assert!(!has_lookalikes("résumé"));
    }

    #[test]
    fn display_escapes_bidi_overrides_and_zero_width_characters() {
        assert_eq!(display("a\u{202E}txt.exe"), "a\\u{202E}txt.exe");
        assert_eq!(display("x\u{200B}y"), "x\\u{200B}y");
        assert_eq!(display("日本語/ファイル"), "日本語/ファイル");
    }

    #[test]
    fn glob_syntax_is_recognised_but_a_lone_bracket_is_not() {
        assert!(is_glob("*.txt") && is_glob("f?.md") && is_glob("[ab].c"));
        assert!(is_glob("{a,b}.txt") && is_glob("f{1..3}"));
        assert!(!is_glob("[") && !is_glob("]") && !is_glob("{}") && !is_glob("plain"));
    }

    #[test]
    fn resolve_is_lexical_and_needs_a_known_cwd_for_relative_paths() {
        let cwd = Path::new("/home/u/ws");
        assert_eq!(
            resolve("../a/./b", Some(cwd)),
            Some(PathBuf::from("/home/u/a/b"))
        );
        assert_eq!(resolve("/x/../y", None), Some(PathBuf::from("/y")));
        assert_eq!(resolve("a", None), None);
    }
}
