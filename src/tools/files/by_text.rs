//! A selection by name that finds nothing may have looked for a word the files hold in
//! their text instead: people ask for "the letters about the invoice", and letters are
//! rarely named so. Where a name pattern (or, on a folder read as a table, a column
//! name) selects nothing, this reads the folder's files for the word the pattern
//! carries and says which files hold it and which parameter selects by text, so the
//! failed call's output carries what the folder holds and the next call can differ.
//!
//! Invariants: read-only; at most [`MAX_FILES_READ`] files directly in the folder, each
//! read to [`MAX_BYTES_EACH`]; a pattern that names one file (`report.pdf`) carries no
//! word — that file is missing, not mis-selected.

use std::path::Path;

/// Files of a folder read at most for one hint.
const MAX_FILES_READ: usize = 200;

/// Bytes of each file read at most for one hint.
const MAX_BYTES_EACH: u64 = 1024 * 1024;

/// Files named in a hint at most.
const MAX_NAMED: usize = 5;

/// The word a name pattern looks for: its letters without wildcards and extension
/// (`invoice*` and `*invoice*.pdf` give `invoice`; a bare word gives itself). None for
/// a pattern of an extension only (`*.txt`), a character class, a file's own name
/// (`notes.txt`) or fewer than three letters.
pub(crate) fn word_of(pattern: &str) -> Option<String> {
    let base = pattern.rsplit(['/', '\\']).next().unwrap_or(pattern).trim();
    if base.contains(['[', ']']) {
        return None;
    }
    let wild = base.contains(['*', '?']);
    let stem = match base.rsplit_once('.') {
        Some((stem, ext))
            if !ext.is_empty()
                && ext.len() <= 5
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            if !wild {
                return None;
            }
            stem
        }
        _ => base,
    };
    let word: String = stem.chars().filter(|c| !matches!(c, '*' | '?')).collect();
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    (word.chars().filter(|c| c.is_alphabetic()).count() >= 3).then(|| word.to_string())
}

/// The names of the files directly in `folder` whose text holds `word` (case ignored),
/// sorted, reading at most [`MAX_FILES_READ`] files.
pub(crate) fn holders(folder: &Path, word: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<std::path::PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut out: Vec<String> = files
        .iter()
        .take(MAX_FILES_READ)
        .filter(|p| super::scan::holds_text_within(p, word, MAX_BYTES_EACH))
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    out.sort();
    out
}

/// For the patterns of a call that selected nothing in `folder`: the first word one of
/// them carries that files of the folder hold in their text, said with those files and
/// `then` — how the calling tool selects by text (e.g. `give containing: "invoice"`,
/// where `{word}` in `then` is the word).
pub(crate) fn hint(folder: &Path, patterns: &[String], then: &str) -> Option<String> {
    let mut tried: Vec<String> = Vec::new();
    for word in patterns.iter().filter_map(|p| word_of(p)) {
        if tried.iter().any(|t| t.eq_ignore_ascii_case(&word)) {
            continue;
        }
        let found = holders(folder, &word);
        if !found.is_empty() {
            let shown: Vec<&str> = found.iter().take(MAX_NAMED).map(String::as_str).collect();
            let more = if found.len() > MAX_NAMED {
                format!(", … {} more", found.len() - MAX_NAMED)
            } else {
                String::new()
            };
            return Some(format!(
                "no file name holds \"{word}\", but the text of {} does ({}{more}); {}",
                if found.len() == 1 {
                    "1 file".to_string()
                } else {
                    format!("{} files", found.len())
                },
                shown.join(", "),
                then.replace("{word}", &word)
            ));
        }
        tried.push(word);
    }
    None
}

/// For a call selecting in `folder` by `patterns`: the first word a pattern carries that
/// `said` (the request) holds as a word, that no file name of the folder holds, and that
/// the text of some of its files does — with those files. What [`crate::tools::Asked::by_text`]
/// takes.
pub(crate) fn instead(
    folder: &Path,
    patterns: &[String],
    said: &str,
) -> Option<(String, Vec<String>)> {
    let said = crate::text::fold(said);
    let names: Vec<String> = std::fs::read_dir(folder)
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_lowercase())
        .collect();
    patterns.iter().filter_map(|p| word_of(p)).find_map(|word| {
        let lower = word.to_lowercase();
        let in_request = said
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == crate::text::fold(&word));
        let named = names.iter().any(|n| n.contains(&lower));
        if !in_request || named {
            return None;
        }
        let found = holders(folder, &word);
        (!found.is_empty()).then_some((word, found))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_carries_its_word_and_a_file_name_none() {
        assert_eq!(word_of("invoice*").as_deref(), Some("invoice"));
        assert_eq!(word_of("*Garden*.txt").as_deref(), Some("Garden"));
        assert_eq!(word_of("urgent").as_deref(), Some("urgent"));
        assert_eq!(word_of("~/letters/*invoice*").as_deref(), Some("invoice"));
        assert_eq!(word_of("*.txt"), None);
        assert_eq!(word_of("report.pdf"), None);
        assert_eq!(word_of("[ab]*"), None);
        assert_eq!(word_of("a*"), None);
    }

    #[test]
    fn the_files_that_hold_the_word_are_named_with_the_way_to_select_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "Re: INVOICE 12").unwrap();
        std::fs::write(dir.path().join("b.txt"), "lunch").unwrap();
        std::fs::write(dir.path().join("c.txt"), "the invoice is paid").unwrap();
        std::fs::write(dir.path().join(".d.txt"), "invoice, hidden").unwrap();
        let said = hint(
            dir.path(),
            &["*.txt".into(), "invoice*".into()],
            "give containing: \"{word}\"",
        )
        .expect("two files hold the word");
        assert_eq!(
            said,
            "no file name holds \"invoice\", but the text of 2 files does (a.txt, c.txt); \
             give containing: \"invoice\""
        );
        // Said by the request, named by no file, held by two: select by the text.
        let said = "copy the letters that mention the invoice";
        assert_eq!(
            instead(dir.path(), &["invoice*".into()], said),
            Some(("invoice".to_string(), vec!["a.txt".into(), "c.txt".into()]))
        );
        assert_eq!(
            instead(dir.path(), &["invoice*".into()], "copy the letters"),
            None
        );
        std::fs::write(dir.path().join("invoice-old.txt"), "x").unwrap();
        assert_eq!(
            instead(dir.path(), &["invoice*".into()], said),
            None,
            "a name holds it"
        );
        // A word no file holds, and a file's own name, say nothing.
        assert_eq!(hint(dir.path(), &["garden*".into()], "x"), None);
        assert_eq!(hint(dir.path(), &["invoice.txt".into()], "x"), None);
    }
}
