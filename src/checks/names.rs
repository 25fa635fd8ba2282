//! What a token of an answer or a request is, read the same way by every check.

pub use crate::text::is_file_name;

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
