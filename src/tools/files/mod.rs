//! `files`: lists or finds files under one folder, with typed parameters, so a small
//! model asks for "the 5 largest PDFs in ~/Downloads" instead of improvising
//! `ls | sort | head` or `find | wc -l` pipelines and misreading their output.
//!
//! [`Request::from_json`] reads the model's parameters leniently (aliases such as
//! `sort: "largest"`, sizes such as `"1MB"`, booleans given as `"yes"`); [`run`] walks
//! the folder and answers in compact text: a first line naming the folder and the
//! filters, one row per match (`name<TAB>size<TAB>modified<TAB>ext`), a totals line, an
//! optional per-group line, and notes for what was skipped. When nothing matched it
//! says what the folder does hold, so the next attempt can adjust its filters.
//!
//! Invariants:
//! - Read-only: the folder is only read (directory listings and metadata, and the bytes
//!   of same-sized files when the call asks which hold the same content); nothing is
//!   created, changed or deleted, and symlinks are listed as links, never followed.
//! - Bounded: at most [`Limits::max_entries`] entries are read by the walk (the answer
//!   then says it is partial), counting a folder's items reads at most as many again,
//!   and at most [`Limits::max_shown`] rows are printed whatever `limit` asks for.
//! - Never panics, on any name or metadata: non-UTF-8 names are shown lossily, odd
//!   timestamps are shown as `-`, and unreadable entries are skipped and counted.
//! - Names are shown exactly (spaces, accents, emoji intact; not quoted), except that
//!   control characters are escaped (`\n`, `\t`, `\u{1b}`) so a row stays one line.
//!
//! The caller resolves `~` and relative folders before calling [`run`]; this module
//! has no other dependency on the crate.

mod age;
pub(crate) use age::parse_age;
pub use age::{ages_asked, mentions_age, words as age_words};
pub mod kinds;
mod params;
pub(crate) use params::parse_size;
pub use params::{Setting, set};
mod by_text;
mod report;
mod same;
mod scan;
pub(crate) use by_text::{hint as by_text_hint, instead as text_instead};
pub(crate) use same::identical as identical_files;
pub(crate) use scan::holds_text;
#[cfg(test)]
mod tests;

use std::path::Path;
use std::time::SystemTime;

/// Rows shown when the call gives no `limit`.
pub const DEFAULT_LIMIT: usize = 50;

/// What to list: the model's parameters, read by [`Request::from_json`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Also look inside subfolders (rows then show paths relative to the folder).
    pub recursive: bool,
    /// Globs on the entry's name (not its path), case-insensitive; an entry matches
    /// when any one matches. Empty: no name pattern.
    pub patterns: Vec<String>,
    /// Extensions, lowercase and without the dot (`pdf`, `tar.gz`); an entry matches
    /// when its name ends with any one. Empty: any extension.
    pub extensions: Vec<String>,
    /// Files, folders or both.
    pub kind: Kind,
    /// The sort key (ties are broken by name, A to Z).
    pub sort: Sort,
    /// Sort from the largest / newest / Z end.
    pub descending: bool,
    /// Rows to show (the totals always count every match); capped by
    /// [`Limits::max_shown`]. 0 shows only the counts.
    pub limit: usize,
    /// Adds a line counting the matches (and their bytes) per group.
    pub group_by: Option<Group>,
    /// Only files of at least this many bytes (folders and links are then left out).
    pub min_size: Option<u64>,
    /// Only files of at most this many bytes (folders and links are then left out).
    pub max_size: Option<u64>,
    /// Only entries last modified at most this long ago.
    pub modified_within: Option<std::time::Duration>,
    /// Only entries last modified more than this long ago.
    pub older_than: Option<std::time::Duration>,
    /// Include names starting with `.` (and look inside such folders).
    pub hidden: bool,
    /// Only names containing this text, case-insensitive.
    pub name_contains: Option<String>,
    /// Only files whose text holds this phrase, case-insensitive.
    pub containing: Option<String>,
}

impl Default for Request {
    /// Files in the folder itself, by name, [`DEFAULT_LIMIT`] rows, no filters.
    fn default() -> Self {
        Request {
            recursive: false,
            patterns: Vec::new(),
            extensions: Vec::new(),
            kind: Kind::Files,
            sort: Sort::Name,
            descending: false,
            limit: DEFAULT_LIMIT,
            group_by: None,
            min_size: None,
            max_size: None,
            modified_within: None,
            older_than: None,
            hidden: false,
            name_contains: None,
            containing: None,
        }
    }
}

/// Which entries to list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    /// Files, and symlinks (which are shown as links, not followed).
    #[default]
    Files,
    /// Folders only.
    Folders,
    /// Everything.
    Any,
}

/// The sort key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sort {
    /// Name (relative path when recursive), case-insensitive.
    #[default]
    Name,
    /// Size in bytes; folders come after files and sort by their item count.
    Size,
    /// Last modified time.
    Modified,
    /// Extension, case-insensitive (names without one first when ascending).
    Extension,
}

/// What a group-by line counts per.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Lowercase extension; `(none)` for names without one, `(folder)` for folders.
    Extension,
    /// The folder the entry is in, relative (`./` for the folder itself).
    Folder,
    /// File, folder or link.
    Kind,
    /// Identical bytes: the sets of files whose content is the same.
    Content,
}

/// How much one call may read and print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Entries the walk reads at most before it stops and calls the listing partial.
    pub max_entries: usize,
    /// Rows printed at most, whatever the request's `limit`.
    pub max_shown: usize,
}

impl Default for Limits {
    /// 20 000 entries read, 200 rows shown.
    fn default() -> Self {
        Limits {
            max_entries: 20_000,
            max_shown: 200,
        }
    }
}

/// The parameters the model is shown: (name, JSON type, required, one-line meaning).
pub const PARAMS: &[(&str, &str, bool, &str)] = &[
    ("folder", "string", true, "absolute, ~/…, or relative"),
    (
        "recursive",
        "boolean",
        false,
        "also look inside subfolders (default false)",
    ),
    (
        "pattern",
        "string",
        false,
        "glob on the file name, e.g. \"*.pdf\" or \"IMG_*\"; several separated by commas; {jpg,png} works; case-insensitive",
    ),
    (
        "extensions",
        "string",
        false,
        "e.g. \"jpg,png\", or a kind: \"image\", \"video\", \"audio\", \"spreadsheet\", \"presentation\", \"archive\" (every type of it); case-insensitive, dot optional",
    ),
    (
        "type",
        "string",
        false,
        "\"files\" (default), \"folders\" or \"any\"",
    ),
    (
        "sort",
        "string",
        false,
        "\"name\" (default), \"size\", \"modified\" or \"extension\"; also \"largest\", \"smallest\", \"newest\", \"oldest\"",
    ),
    (
        "order",
        "string",
        false,
        "\"asc\" or \"desc\" (default: largest/newest first for size/modified, A to Z otherwise)",
    ),
    (
        "limit",
        "integer",
        false,
        "rows to show (default 50); the totals line always counts every match",
    ),
    (
        "group_by",
        "string",
        false,
        "\"extension\", \"folder\" or \"kind\" (file, folder, link): adds counts and sizes per group; \"content\": names the files whose bytes are identical",
    ),
    (
        "min_size",
        "string",
        false,
        "only files at least this big: bytes or e.g. \"1MB\", \"500 KB\", \"2 GiB\"",
    ),
    (
        "max_size",
        "string",
        false,
        "only files at most this big: bytes or e.g. \"10MB\"; 0 with type folders: only the empty folders",
    ),
    (
        "modified_within",
        "string",
        false,
        "only entries changed at most this long ago: e.g. \"7 days\", \"24 hours\", \"2 weeks\"",
    ),
    (
        "older_than",
        "string",
        false,
        "only entries not changed for longer than this: e.g. \"30 days\", \"1 year\"",
    ),
    (
        "hidden",
        "boolean",
        false,
        "include names starting with \".\" (default false)",
    ),
    (
        "name_contains",
        "string",
        false,
        "only names containing this text, case-insensitive",
    ),
    (
        "containing",
        "string",
        false,
        "only files whose text holds this word or phrase (case ignored), as the request says it",
    ),
];

/// The closed values of the parameters above, as the step grammar offers them (each one
/// is read by [`Request::from_json`]; the aliases it also reads are for models that write
/// without a grammar).
pub const CHOICES: &[(&str, &[&str])] = &[
    ("type", &["files", "folders", "any"]),
    (
        "sort",
        &[
            "name",
            "size",
            "modified",
            "extension",
            "largest",
            "smallest",
            "newest",
            "oldest",
        ],
    ),
    ("order", &["asc", "desc"]),
    // "type" is not offered: people say "files of each type" for the file type, and a
    // model given "type" grouped into file / folder / link (the extension is the type;
    // `kind` is file, folder or link).
    ("group_by", &["extension", "folder", "kind", "content"]),
];

/// What the tool does, in one line for the model.
pub const SUMMARY: &str = "list or find files under a folder with sizes and dates, sorted, counted, grouped (no shell pipelines needed)";

impl Request {
    /// Reads the model's parameters, leniently: aliases (`sort: "newest"`), strings for
    /// booleans and numbers, sizes with units, lists as strings or arrays. `folder` and
    /// unknown keys are ignored. An unknown value is an error naming the valid values.
    pub fn from_json(input: &serde_json::Value) -> Result<Request, String> {
        params::from_json(input)
    }
}

/// The end of an order a word of a request asks for: a superlative that names a sort
/// key and a direction ("largest" is size, descending; "earliest" is modified time,
/// ascending), or "most recent" / "least recent" as two words. Plain adjectives ("a new
/// folder", "the last line", "big files") ask for no order.
pub fn end_asked_by(words: &[&str]) -> Option<(Sort, bool)> {
    let joined = words.join("_");
    let superlative = match words {
        [one] => one.ends_with("est"),
        [first, _] => matches!(*first, "most" | "least"),
        _ => false,
    };
    if !superlative {
        return None;
    }
    match params::sort(&joined) {
        Ok((sort, None, Some(descending))) => Some((sort, descending)),
        _ => None,
    }
}

/// The words of `text` that are the request's own, not a part of a name it gives: a path
/// (`~/old/`, `/data/big`) or a file name (`old.tmp`, `large-scan.pdf`) names a thing,
/// and "old" in `old.tmp` asks for no age. Tokens are split at white space; what is
/// left is joined by spaces.
pub fn prose(text: &str) -> String {
    text.split_whitespace()
        .filter(|t| {
            let t = t.trim_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '~' | '/'));
            !(t.contains('/') || t.starts_with('~') || crate::text::is_file_name(t))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `words` speak of size at all: a unit of size (alone or after digits) or a word
/// that asks by size, outside the names they give ([`prose`]). Where they do not, no
/// bound of size was asked for.
pub fn mentions_size(words: &str) -> bool {
    const SIZE_WORDS: &[&str] = &[
        "large", "larger", "largest", "big", "bigger", "biggest", "small", "smaller", "smallest",
        "huge", "tiny", "size", "sizes", "sized", "empty", "heavy", "heavier", "light", "lighter",
        "space",
    ];
    const UNITS: &[&str] = &[
        "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib", "byte", "bytes",
    ];
    prose(words)
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .any(|t| {
            let unit = t.trim_start_matches(|c: char| c.is_ascii_digit());
            SIZE_WORDS.contains(&t.as_str()) || UNITS.contains(&unit)
        })
}

/// The size bounds a request states in words: "bigger than 200 KB", "over 5 MB", "at
/// least 1 GB" bound from below; "smaller than 10 KB", "under 2 MB", "at most 500 bytes"
/// from above. A size needs its unit (a bare "3" is no size); the first bound of each
/// side counts. Emptiness is a size too ([`emptiness_asked`]). Returns (at least, at
/// most), in bytes.
pub fn size_bounds_asked(words: &str) -> (Option<u64>, Option<u64>) {
    const ABOVE: &[&str] = &[
        "above",
        "bigger",
        "exceeding",
        "exceeds",
        "greater",
        "heavier",
        "larger",
        "more",
        "over",
    ];
    const BELOW: &[&str] = &["below", "less", "lighter", "smaller", "under"];
    let tokens: Vec<String> = words
        .split_whitespace()
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric() && c != '.')
                .trim_end_matches('.')
                .to_lowercase()
        })
        .filter(|t| !t.is_empty())
        .collect();
    let mut bounds = (None, None);
    for i in 0..tokens.len() {
        let t = &tokens[i];
        if !t.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        // The size and how many tokens it spans ("200KB", or "200" then "KB").
        let has_unit = |s: &str| s.chars().any(char::is_alphabetic);
        let size = if has_unit(t) {
            params::parse_size(t)
        } else {
            tokens
                .get(i + 1)
                .filter(|u| has_unit(u))
                .and_then(|u| params::parse_size(&format!("{t}{u}")))
        };
        let Some(bytes) = size else { continue };
        let before: Vec<&str> = tokens[i.saturating_sub(3)..i]
            .iter()
            .map(String::as_str)
            .collect();
        let at = |w: &str| before.windows(2).any(|p| p == ["at", w]);
        let side = if at("least") || before.iter().any(|w| ABOVE.contains(w)) {
            Some(true)
        } else if at("most") || before.iter().any(|w| BELOW.contains(w)) {
            Some(false)
        } else {
            None
        };
        match side {
            Some(true) if bounds.0.is_none() => bounds.0 = Some(bytes),
            Some(false) if bounds.1.is_none() => bounds.1 = Some(bytes),
            _ => {}
        }
    }
    // Emptiness is read on the line that says it: a "Folder:" label on the next line
    // names no empty folder.
    let line = words
        .lines()
        .find(|l| l.to_lowercase().contains("empty"))
        .unwrap_or("");
    let line_tokens: Vec<String> = line
        .split_whitespace()
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '-' && c != '\'')
                .trim_end_matches('.')
                .to_lowercase()
        })
        .filter(|t| !t.is_empty())
        .collect();
    match emptiness_asked(&line_tokens) {
        Some(true) if bounds.1.is_none() => bounds.1 = Some(0),
        Some(false) if bounds.0.is_none() => bounds.0 = Some(1),
        _ => {}
    }
    bounds
}

/// Whether the request's words (lower case) ask to look below the folder's top level:
/// "anywhere under", "in any subfolder", "subfolders included", "recursively", "at any
/// depth", "the whole tree". A listing of the top level alone misses what such a request
/// is about.
pub fn depth_asked(words: &str) -> bool {
    const DEEP: &[&str] = &[
        "anywhere",
        "subfolder",
        "subfolders",
        "subdirectory",
        "subdirectories",
        "recursive",
        "recursively",
        "nested",
        "tree",
    ];
    let tokens: Vec<&str> = words
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    tokens.iter().any(|t| DEEP.contains(t))
        || tokens
            .windows(2)
            .any(|p| matches!(p, ["any", "depth"] | ["all", "levels"] | ["sub", "folders"]))
}

/// Words after which "empty" is a verb whose object starts ("empty the trash").
const EMPTY_VERB_OBJECT: &[&str] = &[
    "the", "my", "your", "this", "that", "these", "those", "out", "it",
];

/// Words that name folders.
const FOLDER_WORDS: &[&str] = &[
    "folder",
    "folders",
    "directory",
    "directories",
    "dir",
    "dirs",
    "subfolder",
    "subfolders",
];

/// Whether the request asks for folders that are empty ("the empty folders", "which
/// folders are empty", "empty subfolders"), in its own words outside names; not for the
/// verb ("empty the folder").
pub fn empty_folders_asked(words: &str) -> bool {
    // Line by line: a "Folder: …" label on the next line says nothing of emptiness.
    words.lines().any(|line| {
        let tokens: Vec<String> = prose(line)
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .filter(|t| !t.is_empty())
            .map(str::to_lowercase)
            .collect();
        tokens.iter().enumerate().any(|(at, t)| {
            t == "empty"
                && !tokens
                    .get(at + 1)
                    .is_some_and(|n| EMPTY_VERB_OBJECT.contains(&n.as_str()))
                && tokens[at.saturating_sub(4)..tokens.len().min(at + 2)]
                    .iter()
                    .any(|n| FOLDER_WORDS.contains(&n.as_str()))
        })
    })
}

/// Whether the request selects files by being empty (`Some(true)`: "the empty logs",
/// "files that are empty") or by not being empty (`Some(false)`: "non-empty", "not
/// empty"), from the tokens of the line that says it (lower case). A file's emptiness is its size: 0 bytes, or at
/// least 1. Not read when the words speak of what a file holds or of folders (an empty
/// line, an empty folder: no file's size says those), nor for the verb ("empty the
/// trash").
fn emptiness_asked(tokens: &[String]) -> Option<bool> {
    /// Things that can be empty without being a file of 0 bytes.
    const NOT_A_FILE: &[&str] = &[
        "line", "lines", "row", "rows", "cell", "cells", "field", "fields", "column", "columns",
        "value", "values", "string", "strings",
    ];
    /// How many words before "empty" may name what is empty.
    const NEAR: usize = 5;
    let at = tokens
        .iter()
        .position(|t| matches!(t.as_str(), "empty" | "non-empty" | "nonempty"))?;
    // What is empty is named next to the word: "empty lines", "folders that are empty"
    // (a "Folder:" label elsewhere in the words says nothing about it).
    let near = &tokens[at.saturating_sub(NEAR)..tokens.len().min(at + 2)];
    if near
        .iter()
        .any(|t| NOT_A_FILE.contains(&t.as_str()) || FOLDER_WORDS.contains(&t.as_str()))
    {
        return None;
    }
    let word = tokens[at].as_str();
    if word != "empty" {
        return Some(false);
    }
    if tokens
        .get(at + 1)
        .is_some_and(|next| EMPTY_VERB_OBJECT.contains(&next.as_str()))
    {
        return None;
    }
    let before = &tokens[at.saturating_sub(2)..at];
    let negated = before
        .iter()
        .any(|t| matches!(t.as_str(), "not" | "non" | "isn't" | "aren't" | "never"));
    Some(!negated)
}

/// The grouping a request's words (lower case) ask for: "each", "per", "every", "by" or
/// "which" before a word the `group_by` parameter reads ("files of each type" groups by
/// extension, "per folder" and "which folder has the most files" by folder); files with
/// "the same content", "identical" files or "duplicates" by content. `None` when it asks
/// for none, or for two different ones.
pub fn group_asked(words: &[String]) -> Option<Group> {
    let same_content = words.windows(2).any(|p| {
        p[0] == "same" && matches!(p[1].as_str(), "content" | "contents" | "bytes" | "data")
    }) || words
        .iter()
        .any(|w| matches!(w.as_str(), "identical" | "duplicate" | "duplicates"));
    if same_content {
        return Some(Group::Content);
    }
    let mut asked = words.windows(2).filter_map(|p| {
        matches!(p[0].as_str(), "each" | "per" | "every" | "by" | "which")
            .then(|| {
                params::group(&serde_json::Value::from(p[1].as_str()))
                    .ok()
                    .flatten()
            })
            .flatten()
    });
    let first = asked.next()?;
    asked.all(|g| g == first).then_some(first)
}

impl Group {
    /// The value `group_by` takes for it.
    pub fn label(self) -> &'static str {
        match self {
            Group::Extension => "extension",
            Group::Folder => "folder",
            Group::Kind => "kind",
            Group::Content => "content",
        }
    }
}

impl Sort {
    /// The key as a listing names it.
    pub fn label(self) -> &'static str {
        match self {
            Sort::Name => "name",
            Sort::Size => "size",
            Sort::Modified => "modified time",
            Sort::Extension => "extension",
        }
    }
}

/// Lists `folder` as `req` asks and returns the answer text. `shown_folder` is how the
/// folder is named in the answer (`~/Downloads`); `now` dates the "modified … ago"
/// summary. Errors: the folder is missing (with look-alike sibling names), is a file,
/// cannot be read, or a pattern is not a valid glob.
pub fn run(
    folder: &Path,
    shown_folder: &str,
    req: &Request,
    limits: &Limits,
    now: SystemTime,
) -> Result<String, String> {
    let filter = scan::Filter::new(req, now)?;
    report::check_folder(folder, shown_folder, limits)?;
    let mut scanned = scan::scan(folder, req, &filter, limits);
    report::arrange(&mut scanned, req, limits);
    let mut out = report::render(shown_folder, req, limits, &scanned, now);
    // Nothing named so, while files hold the word in their text: say so.
    if scanned.found.is_empty() && req.containing.is_none() {
        let mut asked = req.patterns.clone();
        asked.extend(req.name_contains.iter().cloned());
        if let Some(hint) = by_text::hint(folder, &asked, "give containing: \"{word}\"") {
            out = format!("{}; {hint}\n", out.trim_end());
        }
    }
    Ok(out)
}
