//! The answer: the folder check and its errors, the sort, and the text the model reads
//! (header, rows, totals, groups, notes, or the empty-result message).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::ErrorKind;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Local, Utc};

use super::scan::{self, EntryKind, Found, Items, Scan};
use super::{Group, Kind, Limits, Request, Sort};

/// Groups named at most in a group-by line; the rest are counted.
const MAX_GROUPS: usize = 30;
/// Extensions named at most when an empty answer says what the folder holds.
const MAX_EXTENSIONS: usize = 10;
/// Look-alike names offered at most when the folder does not exist.
const MAX_LOOKALIKES: usize = 5;
/// Seconds from the epoch to 1900-01-01 and to the end of 9999: the range shown in
/// local time (outside it, UTC; the time-zone lookup is not asked about odd years).
const LOCAL_RANGE: std::ops::RangeInclusive<i64> = -2_208_988_800..=253_402_300_799;

/// Checks that `folder` is a folder this call can read; the error says what it is
/// instead (missing, with look-alike names; a file, with its size and date).
pub(super) fn check_folder(folder: &Path, shown: &str, limits: &Limits) -> Result<(), String> {
    match fs::metadata(folder) {
        Ok(meta) if meta.is_dir() => fs::read_dir(folder)
            .map(|_| ())
            .map_err(|e| format!("cannot read folder {shown}: {}", reason(&e))),
        Ok(meta) => {
            let what = if meta.is_file() {
                "a file"
            } else {
                "not a regular file or folder"
            };
            let mut msg = format!(
                "{shown} is {what}, not a folder: {}, modified {}",
                size_text(meta.len()),
                date(meta.modified().ok())
            );
            if let Some(parent) = shown_parent(shown) {
                let _ = write!(msg, "; its folder is {parent}");
            }
            if meta.is_file()
                && let Some(reader) = reader_of(folder)
            {
                let _ = write!(
                    msg,
                    "; to read what is inside it, call {reader} with `path` {shown}"
                );
            }
            Err(msg)
        }
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            Err(missing(folder, shown, limits))
        }
        Err(e) => Err(format!("cannot open folder {shown}: {}", reason(&e))),
    }
}

/// The tool that reads inside a file of this type: a table's columns and rows, or a
/// text's lines; `None` for a kind of file neither reads (a photo, a PDF, an archive).
fn reader_of(file: &Path) -> Option<&'static str> {
    let ext = file
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "csv" | "tsv" | "json" | "jsonl" | "ndjson" => Some("read_table (its columns and rows)"),
        _ if super::kinds::kind_of_extension(&ext).is_some() => None,
        _ => Some("read_lines (its lines)"),
    }
}

fn reason(e: &std::io::Error) -> String {
    match e.kind() {
        ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// How `shown` names its parent folder: `~/Downloads` → `~`, `/tmp` → `/`; `None`
/// for a bare name.
fn shown_parent(shown: &str) -> Option<String> {
    let trimmed = shown.trim_end_matches('/');
    let (parent, _) = trimmed.rsplit_once('/')?;
    Some(if parent.is_empty() {
        "/".to_string()
    } else {
        parent.to_string()
    })
}

/// "no such folder", with up to [`MAX_LOOKALIKES`] names beside it that look alike.
fn missing(folder: &Path, shown: &str, limits: &Limits) -> String {
    let mut msg = format!("no such folder: {shown}");
    let (Some(parent), Some(name)) = (folder.parent(), folder.file_name()) else {
        return msg;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let Ok(listing) = fs::read_dir(parent) else {
        if fs::metadata(parent).is_err() {
            msg.push_str(" (its parent folder does not exist either)");
        }
        return msg;
    };
    let want = name.to_string_lossy().to_lowercase();
    let mut alike: Vec<(u8, bool, String)> = Vec::new();
    for entry in listing.take(limits.max_entries).flatten() {
        let entry_name = entry.file_name();
        if scan::is_hidden(&entry_name) && !want.starts_with('.') {
            continue;
        }
        let lossy = entry_name.to_string_lossy();
        if let Some(rank) = likeness(&want, &lossy.to_lowercase()) {
            let is_dir = fs::metadata(entry.path()).is_ok_and(|m| m.is_dir());
            alike.push((rank, !is_dir, scan::escape_controls(&lossy)));
        }
    }
    if alike.is_empty() {
        return msg;
    }
    alike.sort();
    let prefix = match shown_parent(shown) {
        Some(p) if p.ends_with('/') => p,
        Some(p) => format!("{p}/"),
        None => String::new(),
    };
    let names: Vec<String> = alike
        .iter()
        .take(MAX_LOOKALIKES)
        .map(|(_, not_dir, n)| format!("{prefix}{n}{}", if *not_dir { "" } else { "/" }))
        .collect();
    let _ = write!(msg, "; similar names there: {}", names.join(", "));
    msg
}

/// How much `have` looks like `want` (both lowercase): 0 best, `None` not at all.
fn likeness(want: &str, have: &str) -> Option<u8> {
    if want == have {
        return Some(0);
    }
    let (want_len, have_len) = (want.chars().count(), have.chars().count());
    let shorter = want_len.min(have_len);
    if shorter >= 3 && (have.starts_with(want) || want.starts_with(have)) {
        return Some(1);
    }
    let allowed = (want_len / 4).max(1);
    if want_len <= 64 && have_len <= 64 && want_len.abs_diff(have_len) <= allowed {
        let distance = edit_distance(want, have);
        if distance <= allowed {
            return Some(2);
        }
    }
    let common = want
        .chars()
        .zip(have.chars())
        .take_while(|(a, b)| a == b)
        .count();
    if common >= 4 {
        return Some(3);
    }
    if shorter >= 4 && (have.contains(want) || want.contains(have)) {
        return Some(4);
    }
    None
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let best = (diagonal + usize::from(ca != *cb))
                .min(above.saturating_add(1))
                .min(left.saturating_add(1));
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = best;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// Rows a request shows.
fn shown_rows(req: &Request, limits: &Limits) -> usize {
    req.limit.min(limits.max_shown)
}

/// Sorts the matches and counts the items of the folders that will be shown (of every
/// matched folder first, when sorting by size, since that is the folders' size key).
pub(super) fn arrange(scanned: &mut Scan, req: &Request, limits: &Limits) {
    let mut budget = limits.max_entries;
    if req.sort == Sort::Size {
        for f in scanned.found.iter_mut() {
            if f.kind == EntryKind::Folder {
                f.items = scan::count_items(&f.path, req.hidden, &mut budget);
            }
        }
    }
    scanned
        .found
        .sort_by(|a, b| compare(a, b, req.sort, req.descending));
    for f in scanned.found.iter_mut().take(shown_rows(req, limits)) {
        if f.kind == EntryKind::Folder && f.items == Items::NotCounted {
            f.items = scan::count_items(&f.path, req.hidden, &mut budget);
        }
    }
}

/// The sort order: the key in the asked direction, then the name, A to Z.
fn compare(a: &Found, b: &Found, sort: Sort, descending: bool) -> Ordering {
    let directed = |o: Ordering| if descending { o.reverse() } else { o };
    let by_name = a.key.cmp(&b.key).then_with(|| a.shown.cmp(&b.shown));
    match sort {
        Sort::Name => directed(by_name),
        Sort::Size => {
            let folder = |f: &Found| f.kind == EntryKind::Folder;
            let value = |f: &Found| match f.kind {
                EntryKind::Folder => u64::try_from(f.items.sort_value()).unwrap_or(u64::MAX),
                EntryKind::File | EntryKind::Link => f.size,
            };
            folder(a)
                .cmp(&folder(b))
                .then_with(|| directed(value(a).cmp(&value(b))))
                .then(by_name)
        }
        Sort::Modified => directed(a.modified.cmp(&b.modified)).then(by_name),
        Sort::Extension => {
            let (ext_a, ext_b) = (a.ext.as_deref(), b.ext.as_deref());
            directed(ext_a.unwrap_or("").cmp(ext_b.unwrap_or(""))).then(by_name)
        }
    }
}

/// A size for people: `532 B`, `1.2 MB` (1000-based, one decimal).
pub(super) fn human(bytes: u64) -> String {
    crate::text::human_size(bytes)
}

/// A size column: `532 B`, or `1.2 MB (1234567 bytes)`.
pub(super) fn size_text(bytes: u64) -> String {
    if bytes < 1000 {
        human(bytes)
    } else {
        format!("{} ({bytes} bytes)", human(bytes))
    }
}

/// A modified time: `YYYY-MM-DD HH:MM` in local time; `-` when unknown.
pub(super) fn date(time: Option<SystemTime>) -> String {
    let Some(time) = time else {
        return "-".to_string();
    };
    let secs = match time.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).ok(),
        Err(e) => {
            let d = e.duration();
            i64::try_from(d.as_secs())
                .ok()
                .map(|s| -s - i64::from(d.subsec_nanos() > 0))
        }
    };
    let Some(secs) = secs else {
        return "-".to_string();
    };
    match DateTime::<Utc>::from_timestamp(secs, 0) {
        Some(utc) if LOCAL_RANGE.contains(&secs) => utc
            .with_timezone(&Local)
            .format("%Y-%m-%d %H:%M")
            .to_string(),
        Some(utc) => utc.format("%Y-%m-%d %H:%M UTC").to_string(),
        None => "-".to_string(),
    }
}

/// How long before `now` a time was: `3 hours ago`.
fn ago(now: SystemTime, time: SystemTime) -> String {
    let secs = match now.duration_since(time) {
        Ok(d) => d.as_secs(),
        Err(e) if e.duration().as_secs() < 60 => 0,
        Err(_) => return "in the future".to_string(),
    };
    const MINUTE: u64 = 60;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    let (n, unit) = match secs {
        s if s < MINUTE => return "just now".to_string(),
        s if s < HOUR => (s / MINUTE, "minute"),
        s if s < DAY => (s / HOUR, "hour"),
        s if s < 60 * DAY => (s / DAY, "day"),
        s if s < 730 * DAY => (s / (30 * DAY), "month"),
        s => (s / (365 * DAY), "year"),
    };
    format!("{} ago", plural(n, unit))
}

/// `1 file`, `3 files`.
fn plural(n: impl Into<u64>, word: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn count(n: usize, word: &str) -> String {
    plural(u64::try_from(n).unwrap_or(u64::MAX), word)
}

/// What was looked for: `files matching *.pdf with extension .pdf`.
fn describe(req: &Request) -> String {
    let mut out = match req.kind {
        Kind::Files => "files",
        Kind::Folders => "folders",
        Kind::Any => "files and folders",
    }
    .to_string();
    if !req.patterns.is_empty() {
        let _ = write!(out, " matching {}", req.patterns.join(" or "));
    }
    if !req.extensions.is_empty() {
        let exts: Vec<String> = req
            .extensions
            .iter()
            .map(|e| format!(".{}", e.trim_start_matches('.')))
            .collect();
        let _ = write!(out, " with extension {}", exts.join(" or "));
    }
    if let Some(c) = req.name_contains.as_deref().filter(|c| !c.is_empty()) {
        let _ = write!(out, " whose name contains \"{}\"", scan::escape_controls(c));
    }
    if let Some(c) = req.containing.as_deref().filter(|c| !c.is_empty()) {
        let _ = write!(out, " whose text holds \"{}\"", scan::escape_controls(c));
    }
    let empty_folders = req.kind == super::Kind::Folders
        && req.max_size == Some(0)
        && req.min_size.is_none_or(|m| m == 0);
    match (req.min_size, req.max_size) {
        _ if empty_folders => {
            out.push_str(" that are empty (nothing in them, hidden entries included)")
        }
        (Some(min), Some(max)) => {
            let _ = write!(out, " between {} and {}", human(min), human(max));
        }
        (Some(min), None) => {
            let _ = write!(out, " of at least {}", human(min));
        }
        (None, Some(max)) => {
            let _ = write!(out, " of at most {}", human(max));
        }
        (None, None) => {}
    }
    if let Some(age) = req.modified_within {
        let _ = write!(out, " modified within the last {}", super::age::words(age));
    }
    if let Some(age) = req.older_than {
        let _ = write!(out, " not modified for {}", super::age::words(age));
    }
    if req.hidden {
        out.push_str(" (hidden included)");
    }
    out
}

/// How the rows are ordered, for the "showing the first …" line.
fn sort_text(req: &Request, any_folders: bool) -> String {
    let (key, asc, desc) = match req.sort {
        Sort::Name => ("name", "A to Z", "Z to A"),
        Sort::Size => ("size", "smallest first", "largest first"),
        Sort::Modified => ("modified time", "oldest first", "newest first"),
        Sort::Extension => ("extension", "A to Z", "Z to A"),
    };
    let mut out = format!(
        "sorted by {key}, {}",
        if req.descending { desc } else { asc }
    );
    if req.sort == Sort::Size && any_folders {
        out.push_str(" (folders after files, by item count)");
    }
    out
}

fn row(f: &Found) -> String {
    let when = date(f.modified);
    let ext = f.ext.as_deref().unwrap_or("-");
    match f.kind {
        EntryKind::File => format!("{}\t{}\t{when}\t{ext}", f.shown, size_text(f.size)),
        EntryKind::Folder => format!("{}/\t{}\t{when}\tfolder", f.shown, items_text(f.items)),
        EntryKind::Link => format!(
            "{}\tlink -> {}\t{when}\t{ext}",
            f.shown,
            f.target.as_deref().unwrap_or("?")
        ),
    }
}

fn items_text(items: Items) -> String {
    match items {
        Items::Counted { n, capped: false } => count(n, "item"),
        Items::Counted { n, capped: true } => format!("{n}+ items"),
        Items::Unreadable => "items unreadable".to_string(),
        Items::NotCounted => "items not counted".to_string(),
    }
}

/// The answer text.
pub(super) fn render(
    shown_folder: &str,
    req: &Request,
    limits: &Limits,
    scanned: &Scan,
    now: SystemTime,
) -> String {
    let scope = if req.recursive {
        "recursive"
    } else {
        "not recursive"
    };
    let what = describe(req);
    let found = &scanned.found;
    let mut out = String::new();
    if found.is_empty() {
        let _ = writeln!(
            out,
            "no {} in {shown_folder} ({scope}); {}",
            what.replacen("files and folders", "files or folders", 1),
            holdings(req, scanned)
        );
    } else {
        let partial = if scanned.complete {
            ""
        } else {
            " so far (partial)"
        };
        let _ = writeln!(
            out,
            "{shown_folder} ({scope}), {what}: {} found{partial}",
            found.len()
        );
        let shown = shown_rows(req, limits);
        for f in found.iter().take(shown) {
            let _ = writeln!(out, "{}", row(f));
        }
        let _ = writeln!(out, "{}", totals(req, found, now));
        if found.len() > shown {
            let folders = found.iter().any(|f| f.kind == EntryKind::Folder);
            let _ = write!(
                out,
                "(showing the first {shown} of {}, {}",
                found.len(),
                sort_text(req, folders)
            );
            if req.limit > limits.max_shown {
                let _ = write!(
                    out,
                    "; at most {} rows per call: narrow the filters for the rest",
                    limits.max_shown
                );
            }
            out.push_str(")\n");
        }
        match req.group_by {
            Some(Group::Content) => {
                let _ = writeln!(out, "{}", super::same::line(found));
            }
            Some(group) => {
                let _ = writeln!(out, "{}", group_line(found, group));
            }
            None => {}
        }
    }
    if scanned.unreadable > 0 {
        let _ = writeln!(
            out,
            "skipped {} that could not be read",
            if scanned.unreadable == 1 {
                "1 entry".to_string()
            } else {
                format!("{} entries", scanned.unreadable)
            }
        );
    }
    if !scanned.complete {
        let _ = writeln!(
            out,
            "partial: stopped after reading {} entries; the counts cover only those. Narrow the folder or the filters{}",
            limits.max_entries,
            if req.recursive {
                ", or set recursive=false"
            } else {
                ""
            }
        );
    }
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

/// `total: 3 files, 1234 bytes (1.2 KB); newest modified 2 hours ago, oldest 3 days ago`.
fn totals(req: &Request, found: &[Found], now: SystemTime) -> String {
    let of = |k: EntryKind| found.iter().filter(|f| f.kind == k).count();
    let (files, folders, links) = (
        of(EntryKind::File),
        of(EntryKind::Folder),
        of(EntryKind::Link),
    );
    let bytes = found
        .iter()
        .filter(|f| f.kind == EntryKind::File)
        .fold(0u64, |sum, f| sum.saturating_add(f.size));
    let mut parts = Vec::new();
    if files > 0 || req.kind == Kind::Files {
        parts.push(count(files, "file"));
    }
    if folders > 0 {
        parts.push(count(folders, "folder"));
    }
    if links > 0 {
        parts.push(count(links, "link"));
    }
    let mut line = format!("total: {}", parts.join(", "));
    if files > 0 {
        let _ = write!(line, ", {bytes} bytes ({})", human(bytes));
    }
    let times: Vec<SystemTime> = found.iter().filter_map(|f| f.modified).collect();
    if let (Some(newest), Some(oldest)) = (times.iter().max(), times.iter().min()) {
        let (newest, oldest) = (ago(now, *newest), ago(now, *oldest));
        if found.len() == 1 || newest == oldest {
            let _ = write!(line, "; modified {newest}");
        } else {
            let _ = write!(line, "; newest modified {newest}, oldest {oldest}");
        }
    }
    line
}

/// `by extension: pdf = 3 (1.2 MB), jpg = 2 (3.4 MB), (none) = 1 (532 B)`: every
/// match counted per group, most first, then by name; sizes are the files' bytes.
fn group_line(found: &[Found], group: Group) -> String {
    let label = match group {
        Group::Extension => "extension",
        Group::Folder => "folder",
        Group::Kind => "kind",
        Group::Content => "content",
    };
    let mut groups: BTreeMap<String, (usize, usize, u64)> = BTreeMap::new();
    for f in found {
        let key = match group {
            Group::Extension if f.kind == EntryKind::Folder => "(folder)".to_string(),
            Group::Extension => f.ext.clone().unwrap_or_else(|| "(none)".to_string()),
            Group::Folder => f.parent.clone(),
            Group::Kind => f.kind.word().to_string(),
            Group::Content => crate::text::human_size(f.size),
        };
        let slot = groups.entry(key).or_insert((0, 0, 0));
        slot.0 += 1;
        if f.kind == EntryKind::File {
            slot.1 += 1;
            slot.2 = slot.2.saturating_add(f.size);
        }
    }
    let mut ordered: Vec<(String, (usize, usize, u64))> = groups.into_iter().collect();
    ordered.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(&b.0)));
    let mut items: Vec<String> = ordered
        .iter()
        .take(MAX_GROUPS)
        .map(|(key, (n, files, bytes))| {
            if *files > 0 {
                format!("{key} = {n} ({})", human(*bytes))
            } else {
                format!("{key} = {n}")
            }
        })
        .collect();
    if ordered.len() > MAX_GROUPS {
        items.push(format!("… and {} more groups", ordered.len() - MAX_GROUPS));
    }
    format!("by {label}: {}", items.join(", "))
}

/// What the folder holds, for an answer with no match: files per extension, folders,
/// links, hidden entries left out.
fn holdings(req: &Request, scanned: &Scan) -> String {
    let mut parts = Vec::new();
    if scanned.seen_files > 0 {
        let mut exts: Vec<(&String, &usize)> = scanned.seen_exts.iter().collect();
        exts.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let mut named: Vec<String> = exts
            .iter()
            .take(MAX_EXTENSIONS)
            .map(|(ext, n)| {
                if ext.is_empty() {
                    format!("{n} without extension")
                } else {
                    format!("{n} .{ext}")
                }
            })
            .collect();
        if exts.len() > MAX_EXTENSIONS {
            named.push(format!(
                "… and {} more extensions",
                exts.len() - MAX_EXTENSIONS
            ));
        }
        parts.push(format!(
            "{}: {}",
            count(scanned.seen_files, "file"),
            named.join(", ")
        ));
    }
    if scanned.seen_folders > 0 {
        let mut folders = count(scanned.seen_folders, "folder");
        // Their names, when all of them fit: "1 folder (artoo/)".
        if !scanned.top_folders.is_empty() && scanned.top_folders.len() == scanned.seen_folders {
            let mut names = scanned.top_folders.clone();
            names.sort();
            let _ = write!(
                folders,
                " ({})",
                names
                    .iter()
                    .map(|n| format!("{n}/"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if !req.recursive {
            folders.push_str(" (recursive=true looks inside)");
        }
        parts.push(folders);
    }
    if scanned.seen_links > 0 {
        parts.push(count(scanned.seen_links, "link"));
    }
    let mut out = if parts.is_empty() && scanned.hidden_skipped > 0 && !req.hidden {
        "the folder holds no visible entries".to_string()
    } else if parts.is_empty() {
        "the folder is empty".to_string()
    } else if req.recursive {
        format!(
            "the folder and its subfolders hold {}",
            parts.join("; and ")
        )
    } else {
        format!("the folder holds {}", parts.join("; and "))
    };
    if scanned.hidden_skipped > 0 && !req.hidden {
        let _ = write!(
            out,
            "; {} left out (hidden=true includes them)",
            if scanned.hidden_skipped == 1 {
                "1 hidden entry".to_string()
            } else {
                format!("{} hidden entries", scanned.hidden_skipped)
            }
        );
    }
    out
}
