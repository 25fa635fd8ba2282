//! Reading a file within the byte limit, decoding it to text, and choosing its format.

use std::io::Read;
use std::path::Path;

use super::{Limits, Loaded, Request, Row, Table, delimited, folder, json};

/// The file at `path` as a table (or a finished answer), read within `limits`.
pub(super) fn load(path: &Path, req: &Request, limits: &Limits) -> Result<Loaded, String> {
    let name = path.display().to_string();
    if path.is_dir() {
        return folder::read(path, &name, limits.max_rows).map(Loaded::Table);
    }
    let bytes = read_bounded(path, &name, limits.max_bytes)?;
    let (text, mut notes) = decode(&bytes);
    drop(bytes);
    if text.contains('\0') {
        return Err(format!(
            "{name} looks like a binary file (it contains NUL bytes), not a table"
        ));
    }
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let trimmed = text.trim_start();
    let kind = match ext.as_str() {
        "csv" | "tsv" | "tab" | "psv" => Kind::Delimited,
        "json" | "geojson" => Kind::Json,
        "jsonl" | "ndjson" | "jsonlines" => Kind::JsonLines,
        _ if trimmed.starts_with(['{', '[']) => {
            if serde_json::from_str::<serde_json::Value>(trimmed).is_ok() {
                Kind::Json
            } else if json::looks_like_lines(trimmed) {
                Kind::JsonLines
            } else {
                Kind::Delimited
            }
        }
        _ if !delimited::has_delimiter(&text) => {
            // A list of numbers, one per line, is a column of values with no header:
            // its sum, mean, min and max are asked of it like any column's.
            if let Some(table) = number_list(&text, &name, limits.max_rows)
                .or_else(|| spaced(&text, &name, limits.max_rows))
            {
                let mut table = table;
                notes.append(&mut table.notes);
                table.notes = notes;
                return Ok(Loaded::Table(table));
            }
            // A note or a log is not a table: read as one, its first line would become
            // a header and every count would be one short.
            return Err(format!(
                "{name} is plain text, not a table (no column separator in it); read it with \
                 read_file, which also counts its lines and words"
            ));
        }
        _ => Kind::Delimited,
    };
    match kind {
        Kind::Delimited => {
            let prefer_tab = matches!(ext.as_str(), "tsv" | "tab");
            let mut table = delimited::read(&text, prefer_tab, limits.max_rows);
            notes.append(&mut table.notes);
            if req.json_path.is_some() {
                notes.push("json_path was ignored: this file is not JSON".to_owned());
            }
            table.notes = notes;
            table.name = name;
            Ok(Loaded::Table(table))
        }
        Kind::Json => json::read(&text, name, notes, req, limits),
        Kind::JsonLines => json::read_lines(&text, name, notes, limits.max_rows).map(Loaded::Table),
    }
}

/// The name of the one column of a file of one number per line.
pub(super) const NUMBER_LIST_COLUMN: &str = "value";

/// The format of a file of one number per line, as a table reports it.
pub(super) const NUMBER_LIST_FORMAT: &str = "a list of numbers (one per line)";

/// A file whose every non-blank line is one number, as a table of one column
/// ([`NUMBER_LIST_COLUMN`]) with no header row; `None` for any other text (or fewer than
/// two numbers, which is no list).
fn number_list(text: &str, name: &str, max_rows: usize) -> Option<Table> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let numbers = lines.len() >= 2
        && lines.iter().all(|(_, l)| {
            super::num::parse(l, false).is_some() && !l.contains(char::is_whitespace)
        });
    if !numbers {
        return None;
    }
    let cells: Vec<Vec<String>> = lines
        .into_iter()
        .map(|(_, l)| vec![l.to_string()])
        .collect();
    let notes = vec![format!(
        "one number per line, no header: read as one column named \"{NUMBER_LIST_COLUMN}\""
    )];
    Some(lines_table(
        name,
        NUMBER_LIST_FORMAT,
        vec![NUMBER_LIST_COLUMN.to_string()],
        &cells,
        max_rows,
        notes,
    ))
}

/// A table made of a text's lines, one row of `cells` each, at most `max_rows` kept (the
/// notes say when fewer were read than there are).
fn lines_table(
    name: &str,
    format: &str,
    columns: Vec<String>,
    cells: &[Vec<String>],
    max_rows: usize,
    mut notes: Vec<String>,
) -> Table {
    let total_rows = cells.len();
    let rows: Vec<Row> = cells
        .iter()
        .take(max_rows)
        .enumerate()
        .map(|(i, cells)| Row {
            n: i + 1,
            cells: cells.clone(),
        })
        .collect();
    if rows.len() < total_rows {
        notes.push(format!(
            "only the first {} of {total_rows} lines were read",
            rows.len()
        ));
    }
    Table {
        name: name.to_string(),
        format: format.to_string(),
        columns,
        rows,
        total_rows,
        notes,
        decimal_comma: false,
    }
}

/// The format of text whose lines are fields separated by spaces, as a table reports it.
pub(super) const SPACED_FORMAT: &str = "text in columns separated by spaces";

/// The most fields a line of a table in columns separated by spaces may have; past it,
/// lines of one length are more likely prose.
const MAX_SPACED_FIELDS: usize = 12;

/// Text whose every non-blank line splits at runs of blanks into the same number of
/// fields (2 to [`MAX_SPACED_FIELDS`]; a log, a command's output) as a table: its first
/// line is a header only where a column of numbers shows it is one (`size` over `4096`);
/// otherwise the columns are named `field1`, `field2`, … in order. `None` for other text
/// (prose, whose lines differ in length, or a single line).
fn spaced(text: &str, name: &str, max_rows: usize) -> Option<Table> {
    let lines: Vec<Vec<String>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    let width = lines.first()?.len();
    if lines.len() < 2
        || !(2..=MAX_SPACED_FIELDS).contains(&width)
        || lines.iter().any(|l| l.len() != width)
    {
        return None;
    }
    let later: Vec<&[String]> = lines[1..].iter().map(Vec::as_slice).collect();
    let numeric_column = (0..width).any(|i| {
        later
            .iter()
            .all(|r| super::num::parse(&r[i], false).is_some())
    });
    let header = numeric_column && super::delimited::detect_header(&lines[0], &later, false);
    let (columns, data): (Vec<String>, &[Vec<String>]) = if header {
        (lines[0].clone(), &lines[1..])
    } else {
        (
            (1..=width).map(|i| format!("field{i}")).collect(),
            &lines[..],
        )
    };
    let mut notes = Vec::new();
    if !header {
        let examples: Vec<String> = columns
            .iter()
            .zip(&data[0])
            .map(|(c, v)| format!("{c} (e.g. {v})"))
            .collect();
        notes.push(format!(
            "no header row: the columns are named by their place: {}",
            examples.join(", ")
        ));
    }
    Some(lines_table(
        name,
        SPACED_FORMAT,
        columns,
        data,
        max_rows,
        notes,
    ))
}

/// The formats a file can be read as.
enum Kind {
    /// CSV, TSV and other delimited text.
    Delimited,
    /// One JSON document.
    Json,
    /// One JSON value per line.
    JsonLines,
}

/// The file's bytes, refused without reading when it is over `max_bytes`.
fn read_bounded(path: &Path, name: &str, max_bytes: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("no such file: {name}"),
        _ => format!("cannot read {name}: {e}"),
    })?;
    if !meta.is_file() {
        return Err(format!("{name} is not a regular file"));
    }
    let too_big = |size: u64| {
        format!(
            "{name} is {}, over this tool's limit of {}; it was not read (use a smaller extract)",
            human_size(size),
            human_size(max_bytes)
        )
    };
    if meta.len() > max_bytes {
        return Err(too_big(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {name}: {e}"))?;
    let cap = usize::try_from(meta.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(cap);
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// `12.3 MB`, `850 KB`, `120 bytes`.
fn human_size(n: u64) -> String {
    const KB: f64 = 1024.0;
    let f = n as f64;
    if f >= KB * KB * KB {
        format!("{:.1} GB", f / (KB * KB * KB))
    } else if f >= KB * KB {
        format!("{:.1} MB", f / (KB * KB))
    } else if f >= KB {
        format!("{:.1} KB", f / KB)
    } else {
        format!("{n} bytes")
    }
}

/// The bytes as text without a BOM: UTF-8 (lossily, and said), or UTF-16 when a BOM says so.
fn decode(bytes: &[u8]) -> (String, Vec<String>) {
    let mut notes = Vec::new();
    let utf16 = |rest: &[u8], little: bool, notes: &mut Vec<String>| {
        let units = rest.chunks_exact(2).map(|p| {
            if little {
                u16::from_le_bytes([p[0], p[1]])
            } else {
                u16::from_be_bytes([p[0], p[1]])
            }
        });
        let mut bad = false;
        let text: String = char::decode_utf16(units)
            .map(|r| {
                r.unwrap_or_else(|_| {
                    bad = true;
                    char::REPLACEMENT_CHARACTER
                })
            })
            .collect();
        notes.push(if bad || rest.len() % 2 == 1 {
            "the file is UTF-16 with invalid parts; they were replaced by �".to_owned()
        } else {
            "the file is UTF-16; it was decoded".to_owned()
        });
        text
    };
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return (utf16(rest, true, &mut notes), notes);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return (utf16(rest, false, &mut notes), notes);
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = match String::from_utf8_lossy(body) {
        std::borrow::Cow::Borrowed(s) => s.to_owned(),
        std::borrow::Cow::Owned(s) => {
            notes.push(
                "the file is not valid UTF-8; the bytes that could not be decoded were replaced by �"
                    .to_owned(),
            );
            s
        }
    };
    (text, notes)
}
