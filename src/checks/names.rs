//! What a token of an answer or a request is, read the same way by every check.

/// A token that is a file's name: letters before a dot and letters after it
/// (`notes.txt`, `IMG_0042.jpeg`), not a number or a version.
pub fn is_file_name(t: &str) -> bool {
    t.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.chars().any(char::is_alphabetic)
            && ext.chars().all(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_has_letters_after_its_dot() {
        for name in ["notes.txt", "IMG_0042.jpeg", "archive.tar", "a.7z"] {
            assert!(is_file_name(name), "{name}");
        }
        for not in ["1.5", "v2.0", ".bashrc", "version.", "x.toolongext"] {
            assert!(!is_file_name(not), "{not}");
        }
    }
}
