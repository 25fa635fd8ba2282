//! The file types of each kind of thing people name: "my videos" are `.mp4`, `.mov`,
//! `.mkv`, `.webm` and more, not the two a model remembers first. A listing asked for a
//! kind takes every type of it, by code.
//!
//! The kinds are the memory lexicon's concepts ([`crate::tags::kind::object_named`]), so
//! a word the request uses ("photos", "recordings of music", "spreadsheets") and a type
//! (`jpg`) meet in one concept.

/// Each kind's extensions, lower case, sorted; the kinds sorted by id.
pub const KINDS: &[(&str, &[&str])] = &[
    (
        "archive",
        &[
            "7z", "bz2", "dmg", "gz", "iso", "rar", "tar", "tbz2", "tgz", "xz", "zip", "zst",
        ],
    ),
    (
        "audio",
        &[
            "aac", "aif", "aiff", "alac", "amr", "flac", "m4a", "mid", "midi", "mp3", "oga", "ogg",
            "opus", "wav", "wma",
        ],
    ),
    (
        "image",
        &[
            "avif", "bmp", "cr2", "dng", "gif", "heic", "heif", "jpeg", "jpg", "nef", "png", "raw",
            "svg", "tif", "tiff", "webp",
        ],
    ),
    ("pdf", &["pdf"]),
    ("presentation", &["key", "odp", "ppt", "pptx"]),
    (
        "spreadsheet",
        &["csv", "numbers", "ods", "tsv", "xls", "xlsm", "xlsx"],
    ),
    (
        "video",
        &[
            "3gp", "avi", "flv", "m2ts", "m4v", "mkv", "mov", "mp4", "mpeg", "mpg", "mts", "ogv",
            "webm", "wmv",
        ],
    ),
];

/// The extensions of the kind `id`.
pub fn extensions_of(id: &str) -> Option<&'static [&'static str]> {
    KINDS
        .binary_search_by(|(k, _)| (*k).cmp(id))
        .ok()
        .map(|i| KINDS[i].1)
}

/// The kind an extension belongs to.
pub fn kind_of_extension(ext: &str) -> Option<&'static str> {
    let ext = ext.to_lowercase();
    KINDS
        .iter()
        .find(|(_, exts)| exts.binary_search(&ext.as_str()).is_ok())
        .map(|(id, _)| *id)
}

/// The kind a word names when it is not itself an extension ("videos", "photo",
/// "image"): `None` for an extension (`pdf` stays a type) or a word that names none.
pub fn kind_named(word: &str) -> Option<&'static str> {
    if kind_of_extension(word).is_some() {
        return None;
    }
    crate::tags::kind::object_named(word).filter(|id| extensions_of(id).is_some())
}

/// The words of `text` that can name a kind, lower case: a path (`~/Pictures/trip`,
/// `/data/videos`) names a place, not what is asked for, and is left out.
pub fn words_outside_paths(text: &str) -> Vec<String> {
    text.split_whitespace()
        .filter(|t| !t.contains('/') && !t.starts_with('~'))
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The words of `text` outside its paths and its file names: an extension of a file the
/// text names ("larger than intro.mp3") is no kind of file it asks for.
pub fn words_outside_names(text: &str) -> Vec<String> {
    text.split_whitespace()
        .filter(|t| !t.contains('/') && !t.starts_with('~'))
        .filter(|t| {
            let bare = t.trim_matches(|c: char| !c.is_alphanumeric());
            !crate::text::is_file_name(bare)
        })
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_sorted_for_their_searches() {
        assert!(KINDS.windows(2).all(|w| w[0].0 < w[1].0));
        for (id, exts) in KINDS {
            assert!(exts.windows(2).all(|w| w[0] < w[1]), "{id}");
        }
    }

    #[test]
    fn a_word_names_a_kind_and_an_extension_belongs_to_one() {
        assert_eq!(kind_named("videos"), Some("video"));
        assert_eq!(kind_named("Photos"), Some("image"));
        assert_eq!(kind_named("spreadsheets"), Some("spreadsheet"));
        assert_eq!(
            kind_named("pdf"),
            None,
            "an extension is a type, not a kind"
        );
        assert_eq!(kind_named("files"), None);
        assert_eq!(kind_of_extension("MOV"), Some("video"));
        assert_eq!(kind_of_extension("txt"), None);
        assert!(extensions_of("image").is_some_and(|e| e.contains(&"jpeg")));
    }

    #[test]
    fn a_folder_in_a_path_names_no_kind() {
        assert_eq!(
            words_outside_paths("Count the files in /h/Pictures/holiday over 200 KB"),
            ["count", "the", "files", "in", "over", "200", "kb"]
        );
        assert_eq!(
            words_outside_paths("my videos in ~/Movies"),
            ["my", "videos", "in"]
        );
    }
}
