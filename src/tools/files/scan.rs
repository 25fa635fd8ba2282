//! The walk: reads the folder (and its subfolders when recursive) within the entry
//! budget, keeps the entries the request's filters match, and tallies what else it saw
//! so an empty answer can say what the folder does hold.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use walkdir::WalkDir;

use super::{Kind, Request};

/// What an entry is, as read without following links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum EntryKind {
    /// A regular file (or anything that is neither a folder nor a link).
    File,
    /// A folder.
    Folder,
    /// A symlink, listed and never followed.
    Link,
}

impl EntryKind {
    /// The word for one of these.
    pub(super) fn word(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Folder => "folder",
            EntryKind::Link => "link",
        }
    }
}

/// A folder's item count, read on demand within a budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Items {
    /// Not read (not shown, or the budget ran out first).
    NotCounted,
    /// The folder could not be listed.
    Unreadable,
    /// `n` items; `capped` when the budget ran out part-way (at least `n`).
    Counted {
        /// Items counted.
        n: usize,
        /// The budget ran out before the end.
        capped: bool,
    },
}

impl Items {
    /// The count the size sort uses for a folder.
    pub(super) fn sort_value(self) -> usize {
        match self {
            Items::Counted { n, .. } => n,
            Items::NotCounted | Items::Unreadable => 0,
        }
    }
}

/// One entry the filters matched.
#[derive(Clone, Debug)]
pub(super) struct Found {
    /// Path relative to the listed folder, as shown (lossy, control characters
    /// escaped), without a trailing `/`.
    pub(super) shown: String,
    /// `shown` in lowercase: the name sort's key.
    pub(super) key: String,
    /// The relative folder it is in, as shown: `./` or `photos/2024/`.
    pub(super) parent: String,
    /// Where it is on disk.
    pub(super) path: PathBuf,
    /// File, folder or link.
    pub(super) kind: EntryKind,
    /// Bytes, for files; 0 for folders and links.
    pub(super) size: u64,
    /// Last modified, when the metadata gives it.
    pub(super) modified: Option<SystemTime>,
    /// Lowercase extension, when the name has one.
    pub(super) ext: Option<String>,
    /// Items in a folder, once counted.
    pub(super) items: Items,
    /// Where a link points, as shown.
    pub(super) target: Option<String>,
}

/// What a walk read.
#[derive(Debug)]
pub(super) struct Scan {
    /// The matches, in walk order until sorted.
    pub(super) found: Vec<Found>,
    /// False when the entry budget stopped the walk early.
    pub(super) complete: bool,
    /// Entries (or folders' listings) that could not be read.
    pub(super) unreadable: usize,
    /// Hidden entries left out (hidden folders' contents are not read, so not counted).
    pub(super) hidden_skipped: usize,
    /// Files seen in scope, matched or not.
    pub(super) seen_files: usize,
    /// Folders seen in scope, matched or not.
    pub(super) seen_folders: usize,
    /// The names of the first folders seen at the top of the scope (a few, for an answer
    /// with no match to name what the folder holds).
    pub(super) top_folders: Vec<String>,
    /// Links seen in scope, matched or not.
    pub(super) seen_links: usize,
    /// Files seen in scope per lowercase extension (`""`: none).
    pub(super) seen_exts: BTreeMap<String, usize>,
}

/// Folders named at most when an answer with no match says what the folder holds.
const TOP_FOLDERS_NAMED: usize = 5;

/// The request's filters, compiled.
pub(super) struct Filter {
    globs: Option<GlobSet>,
    extensions: Vec<String>,
    contains: Option<String>,
    /// A phrase the file's text must hold, lowercase.
    text: Option<String>,
    kind: Kind,
    min_size: Option<u64>,
    max_size: Option<u64>,
    /// Modified at or after this time.
    since: Option<SystemTime>,
    /// Modified before this time.
    until: Option<SystemTime>,
}

impl Filter {
    /// Compiles the request's patterns; an invalid glob is an error naming it.
    pub(super) fn new(req: &Request, now: SystemTime) -> Result<Filter, String> {
        let extensions = req
            .extensions
            .iter()
            .map(|e| e.trim().trim_start_matches('.').to_lowercase())
            .filter(|e| !e.is_empty())
            .collect();
        let contains = req
            .name_contains
            .as_deref()
            .map(str::to_lowercase)
            .filter(|c| !c.is_empty());
        Ok(Filter {
            globs: compile(&req.patterns)?,
            extensions,
            contains,
            text: req
                .containing
                .as_deref()
                .map(str::to_lowercase)
                .filter(|c| !c.is_empty()),
            kind: req.kind,
            min_size: req.min_size,
            max_size: req.max_size,
            since: req.modified_within.and_then(|d| now.checked_sub(d)),
            until: req.older_than.and_then(|d| now.checked_sub(d)),
        })
    }

    fn sized(&self) -> bool {
        self.min_size.is_some() || self.max_size.is_some()
    }

    /// A listing of folders bounded to 0 bytes asks for the empty folders: a folder's
    /// size is no number of bytes, and "at most 0" of anything is nothing in it.
    pub(super) fn empty_folders(&self) -> bool {
        self.kind == Kind::Folders
            && self.max_size == Some(0)
            && self.min_size.is_none_or(|m| m == 0)
    }

    fn wants_kind(&self, kind: EntryKind) -> bool {
        let by_type = match self.kind {
            Kind::Files => kind != EntryKind::Folder,
            Kind::Folders => kind == EntryKind::Folder,
            Kind::Any => true,
        };
        by_type && (!self.sized() || kind == EntryKind::File || self.empty_folders())
    }

    fn name_matches(&self, name: &OsStr, lower: &str) -> bool {
        if let Some(globs) = &self.globs
            && !globs.is_match(Path::new(name))
        {
            return false;
        }
        if !self.extensions.is_empty() && !self.extensions.iter().any(|e| has_extension(lower, e)) {
            return false;
        }
        match &self.contains {
            Some(c) => lower.contains(c.as_str()),
            None => true,
        }
    }

    /// A modified time within the window (an entry without one matches no window).
    fn time_matches(&self, modified: Option<SystemTime>) -> bool {
        if self.since.is_none() && self.until.is_none() {
            return true;
        }
        modified
            .is_some_and(|m| self.since.is_none_or(|s| m >= s) && self.until.is_none_or(|u| m < u))
    }

    fn size_matches(&self, size: u64) -> bool {
        self.min_size.is_none_or(|m| size >= m) && self.max_size.is_none_or(|m| size <= m)
    }
}

/// The bytes of a file read at most to see whether its text holds a phrase.
const MAX_READ_FOR_TEXT: u64 = 4 * 1024 * 1024;

/// Whether the file at `path` holds `phrase` in its first [`MAX_READ_FOR_TEXT`] bytes,
/// case ignored (the bytes read as UTF-8, lossily).
pub(crate) fn holds_text(path: &Path, phrase: &str) -> bool {
    holds_text_within(path, phrase, MAX_READ_FOR_TEXT)
}

/// Whether the file at `path` holds `phrase` in its first `max` bytes, case ignored.
pub(super) fn holds_text_within(path: &Path, phrase: &str, max: u64) -> bool {
    let mut bytes = Vec::new();
    let read = fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, max), &mut bytes));
    read.is_ok()
        && String::from_utf8_lossy(&bytes)
            .to_lowercase()
            .contains(&phrase.to_lowercase())
}

/// The name (lowercase) ends with `.ext` and has something before the dot.
fn has_extension(lower: &str, ext: &str) -> bool {
    lower
        .strip_suffix(ext)
        .is_some_and(|stem| stem.len() > 1 && stem.ends_with('.'))
}

/// Compiles name globs, case-insensitive; none gives `None` (everything matches).
pub(super) fn compile(patterns: &[String]) -> Result<Option<GlobSet>, String> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut set = GlobSetBuilder::new();
    for p in patterns {
        if p.contains('/') {
            return Err(format!(
                "pattern {p:?} names a path, but patterns match file names only: give the folder as `folder`, the name as `pattern` (e.g. \"*.pdf\"), and recursive=true to look in subfolders"
            ));
        }
        let glob = GlobBuilder::new(p)
            .case_insensitive(true)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("pattern {p:?} is not a valid glob: {e}"))?;
        set.add(glob);
    }
    set.build()
        .map(Some)
        .map_err(|e| format!("the patterns could not be compiled: {e}"))
}

/// A name starting with `.`.
pub(super) fn is_hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// Text as shown in a row: exactly, except control characters, which are escaped so
/// the row stays one line and its columns stay apart.
pub(super) fn escape_controls(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// Lowercase extension of a name, if it has a non-empty one (`.bashrc` has none).
pub(super) fn extension_of(name: &OsStr) -> Option<String> {
    Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .filter(|e| !e.is_empty())
}

/// Walks `folder` (its own entries, or everything below it when recursive), reading at
/// most `limits.max_entries` entries, and keeps what the filter matches.
pub(super) fn scan(folder: &Path, req: &Request, filter: &Filter, limits: &super::Limits) -> Scan {
    let mut out = Scan {
        found: Vec::new(),
        complete: true,
        unreadable: 0,
        hidden_skipped: 0,
        seen_files: 0,
        seen_folders: 0,
        top_folders: Vec::new(),
        seen_links: 0,
        seen_exts: BTreeMap::new(),
    };
    let mut walker = WalkDir::new(folder).follow_links(false).min_depth(1);
    if !req.recursive {
        walker = walker.max_depth(1);
    }
    let mut entries = walker.into_iter();
    let mut read = 0usize;
    while let Some(item) = entries.next() {
        if read >= limits.max_entries {
            out.complete = false;
            break;
        }
        read += 1;
        let Ok(entry) = item else {
            out.unreadable += 1;
            continue;
        };
        let file_type = entry.file_type();
        if !req.hidden && is_hidden(entry.file_name()) {
            out.hidden_skipped += 1;
            if file_type.is_dir() {
                entries.skip_current_dir();
            }
            continue;
        }
        let kind = if file_type.is_symlink() {
            out.seen_links += 1;
            EntryKind::Link
        } else if file_type.is_dir() {
            out.seen_folders += 1;
            if entry.depth() == 1 && out.top_folders.len() < TOP_FOLDERS_NAMED {
                out.top_folders
                    .push(entry.file_name().to_string_lossy().into_owned());
            }
            EntryKind::Folder
        } else {
            out.seen_files += 1;
            let ext = extension_of(entry.file_name()).unwrap_or_default();
            *out.seen_exts.entry(ext).or_insert(0) += 1;
            EntryKind::File
        };
        if !filter.wants_kind(kind) {
            continue;
        }
        let lower = entry.file_name().to_string_lossy().to_lowercase();
        if !filter.name_matches(entry.file_name(), &lower) {
            continue;
        }
        let Ok(meta) = entry.metadata() else {
            out.unreadable += 1;
            continue;
        };
        let size = if kind == EntryKind::File {
            meta.len()
        } else {
            0
        };
        if filter.sized() && !filter.size_matches(size) {
            continue;
        }
        // An empty folder holds nothing at all, hidden entries included: a folder with
        // only a `.DS_Store` in it is not one to call empty (or to delete as such).
        if kind == EntryKind::Folder
            && filter.empty_folders()
            && !fs::read_dir(entry.path()).is_ok_and(|mut d| d.next().is_none())
        {
            continue;
        }
        if !filter.time_matches(meta.modified().ok()) {
            continue;
        }
        // Only files have text; the phrase is looked for last, after every cheap test.
        if let Some(phrase) = &filter.text
            && (kind != EntryKind::File || !holds_text(entry.path(), phrase))
        {
            continue;
        }
        let relative = entry.path().strip_prefix(folder).unwrap_or(entry.path());
        let shown = escape_controls(&relative.to_string_lossy());
        let parent = match relative.parent() {
            Some(p) if !p.as_os_str().is_empty() => {
                format!("{}/", escape_controls(&p.to_string_lossy()))
            }
            _ => "./".to_string(),
        };
        let target = (kind == EntryKind::Link).then(|| match fs::read_link(entry.path()) {
            Ok(t) => escape_controls(&t.to_string_lossy()),
            Err(_) => "?".to_string(),
        });
        out.found.push(Found {
            key: shown.to_lowercase(),
            shown,
            parent,
            path: entry.path().to_path_buf(),
            kind,
            size,
            modified: meta.modified().ok(),
            ext: extension_of(entry.file_name()),
            items: Items::NotCounted,
            target,
        });
    }
    out
}

/// Counts a folder's items (hidden ones only when `hidden`), spending one unit of
/// `budget` per entry read.
pub(super) fn count_items(path: &Path, hidden: bool, budget: &mut usize) -> Items {
    if *budget == 0 {
        return Items::NotCounted;
    }
    let Ok(listing) = fs::read_dir(path) else {
        return Items::Unreadable;
    };
    let mut n = 0usize;
    for entry in listing {
        if *budget == 0 {
            return Items::Counted { n, capped: true };
        }
        *budget -= 1;
        let Ok(entry) = entry else { continue };
        if hidden || !is_hidden(&entry.file_name()) {
            n += 1;
        }
    }
    Items::Counted { n, capped: false }
}
