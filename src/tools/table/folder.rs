//! A folder read as a table: one row per entry, so every op (a count where a column
//! keeps within bounds, the row with the largest size, counts per extension) answers
//! questions about files with the same typed parameters as about a CSV's rows.
//!
//! Invariants: read-only; hidden entries (names starting with `.`) are left out and
//! the answer says how many; symbolic links are rows of their own and never followed;
//! a folder's size is the bytes of the files beneath it, walked within
//! [`MAX_WALKED`] entries in all, and the answer says when a walk stopped there.

use std::path::Path;
use std::time::SystemTime;

use super::{Row, Table};

/// The columns, in order.
pub(super) const COLUMNS: [&str; 6] = [
    "name",
    "type",
    "extension",
    "size_bytes",
    "modified",
    "days_old",
];

/// The names of files read as tables of their own.
const TABLE_EXTENSIONS: [&str; 5] = [".csv", ".tsv", ".json", ".jsonl", ".ndjson"];

/// The entries' names, in the order of `rows`.
fn rows_named(rows: &[Row]) -> impl Iterator<Item = &str> {
    rows.iter().map(|r| r.cells[0].as_str())
}

/// Entries walked at most, in all, to add up the sizes of the folder's folders.
const MAX_WALKED: usize = 100_000;

/// What the format line says a folder is.
pub(super) const FORMAT: &str = "a folder (one row per entry)";

/// The folder at `path` as a table of its entries, sorted by name, at most `max_rows`.
pub(super) fn read(path: &Path, name: &str, max_rows: usize) -> Result<Table, String> {
    let entries = std::fs::read_dir(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let now = SystemTime::now();
    let mut hidden = 0;
    let mut listed: Vec<(String, std::fs::Metadata, std::path::PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with('.') {
            hidden += 1;
            continue;
        }
        if let Ok(meta) = std::fs::symlink_metadata(entry.path()) {
            listed.push((file_name, meta, entry.path()));
        }
    }
    listed.sort_by(|a, b| a.0.cmp(&b.0));
    let total_rows = listed.len();
    let mut budget = MAX_WALKED;
    let mut walk_cut = false;
    let rows: Vec<Row> = listed
        .into_iter()
        .take(max_rows)
        .enumerate()
        .map(|(i, (file_name, meta, full))| {
            let (kind, size) = if meta.file_type().is_symlink() {
                ("link", meta.len())
            } else if meta.is_dir() {
                let (size, cut) = bytes_beneath(&full, &mut budget);
                walk_cut |= cut;
                ("folder", size)
            } else {
                ("file", meta.len())
            };
            let extension = if kind == "file" {
                Path::new(&file_name)
                    .extension()
                    .map(|e| e.to_string_lossy().to_lowercase())
                    .unwrap_or_default()
            } else {
                String::new()
            };
            let (modified, days_old) = match meta.modified() {
                Ok(at) => {
                    let local: chrono::DateTime<chrono::Local> = at.into();
                    let days = now.duration_since(at).map_or(0, |d| d.as_secs() / 86_400);
                    (local.format("%Y-%m-%d %H:%M").to_string(), days.to_string())
                }
                Err(_) => (String::new(), String::new()),
            };
            Row {
                n: i + 1,
                cells: vec![
                    file_name,
                    kind.to_string(),
                    extension,
                    size.to_string(),
                    modified,
                    days_old,
                ],
            }
        })
        .collect();
    let mut notes = vec![
        "size_bytes of a folder is the bytes of every file beneath it; days_old is whole days \
         since the entry last changed"
            .to_string(),
    ];
    if hidden > 0 {
        notes.push(format!(
            "{hidden} hidden entr{} (names starting with .) left out",
            if hidden == 1 { "y" } else { "ies" }
        ));
    }
    let tables: Vec<&str> = rows_named(&rows)
        .filter(|n| {
            let lower = n.to_lowercase();
            TABLE_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))
        })
        .take(10)
        .collect();
    if !tables.is_empty() {
        notes.push(format!(
            "the tables in it: {} (give one as the path to read its rows)",
            tables.join(", ")
        ));
    }
    if walk_cut {
        notes.push(format!(
            "the folders' sizes count only the first {MAX_WALKED} entries beneath them"
        ));
    }
    Ok(Table {
        name: name.to_string(),
        format: FORMAT.to_string(),
        columns: COLUMNS.map(str::to_string).to_vec(),
        rows,
        total_rows,
        notes,
        decimal_comma: false,
    })
}

/// The bytes of the files beneath `dir`, links not followed, spending `budget` entries;
/// whether the walk stopped because the budget ran out.
fn bytes_beneath(dir: &Path, budget: &mut usize) -> (u64, bool) {
    let mut total = 0u64;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            if *budget == 0 {
                return (total, true);
            }
            *budget -= 1;
            let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() {
                total = total.saturating_add(meta.len());
            }
        }
    }
    (total, false)
}
