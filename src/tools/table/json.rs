//! JSON and JSON Lines: a path to the table (or to one value), arrays of objects as tables
//! with nested objects flattened into `a.b` columns, and an object's keys when there is no
//! table.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{Loaded, Op, Request, Row, Table, cut, loose_key, plural};

/// Levels of nested objects flattened into `a.b.c` columns; deeper ones stay JSON text.
const FLATTEN_DEPTH: usize = 4;

/// Columns at most; keys past this are left out (and said).
const MAX_COLUMNS: usize = 1000;

/// Keys listed per object, and arrays of objects listed, in an object's description.
const MAX_LISTED: usize = 30;

/// Characters of a value shown in an object's description.
const VALUE_CHARS: usize = 60;

/// Unreadable lines described one by one in the notes.
const MAX_BROKEN_NOTES: usize = 5;

/// Whether `text` reads as JSON Lines: its first non-empty line is a whole JSON object or
/// array, and another line follows.
pub(super) fn looks_like_lines(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first_is_value = lines.next().is_some_and(|l| {
        matches!(
            serde_json::from_str::<Value>(l),
            Ok(Value::Object(_) | Value::Array(_))
        )
    });
    first_is_value && lines.next().is_some()
}

/// The JSON document in `text`: the table (or value) at `req.json_path`, else the file's own.
pub(super) fn read(
    text: &str,
    name: String,
    notes: Vec<String>,
    req: &super::Request,
    limits: &super::Limits,
) -> Result<Loaded, String> {
    let root: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            if looks_like_lines(text) {
                return read_lines(text, name, notes, limits.max_rows).map(Loaded::Table);
            }
            return Err(format!("{name} is not valid JSON: {e}"));
        }
    };
    let (value, label) = match req.json_path.as_deref() {
        Some(path) => walk(&root, path, &name)?,
        None => (&root, String::new()),
    };
    resolve(value, label, name, notes, req, limits)
}

/// The table, value or object view that `value` (found at `label`; empty: the top level) is.
fn resolve(
    value: &Value,
    label: String,
    name: String,
    mut notes: Vec<String>,
    req: &Request,
    limits: &super::Limits,
) -> Result<Loaded, String> {
    let at = |label: &str| {
        if label.is_empty() {
            "top-level".to_owned()
        } else {
            format!("at {label}")
        }
    };
    match value {
        Value::Array(items) => {
            let format = format!("JSON (array {})", at(&label));
            Ok(Loaded::Table(table(
                items,
                name,
                format,
                notes,
                limits.max_rows,
            )))
        }
        Value::Object(map) => {
            let arrays: Vec<(&String, &Vec<Value>)> = map
                .iter()
                .filter_map(|(k, v)| match v {
                    Value::Array(a) if is_array_of_objects(a) => Some((k, a)),
                    _ => None,
                })
                .collect();
            // Read on its own only when it is the only table anywhere in the object: an
            // array of staff beside a store whose products are nested is not "the" table.
            let mut anywhere = Vec::new();
            find_tables(map, &label, 0, &mut anywhere);
            if let [(key, items)] = arrays.as_slice()
                && anywhere.len() == 1
            {
                let path = join(&label, key);
                let holder = if label.is_empty() {
                    "the file".to_owned()
                } else {
                    label.clone()
                };
                notes.push(format!(
                    "using the array {path}, the only array of objects in {holder} (give json_path to read another part)"
                ));
                let format = format!("JSON (array at {path})");
                return Ok(Loaded::Table(table(
                    items,
                    name,
                    format,
                    notes,
                    limits.max_rows,
                )));
            }
            let wants_keys = matches!(req.op, Op::Schema | Op::Rows);
            if !wants_keys && !map.is_empty() && map.values().all(Value::is_object) {
                return Ok(Loaded::Table(keyed_table(
                    map,
                    name,
                    &label,
                    notes,
                    limits.max_rows,
                )));
            }
            let view = object_view(map, &label, &name, &notes);
            if wants_keys {
                Ok(Loaded::Text(view))
            } else {
                Err(format!(
                    "{view}\n{} needs a table: give json_path to an array of objects",
                    req.op.name()
                ))
            }
        }
        scalar => {
            let shown = scalar_text(scalar);
            let label = if label.is_empty() {
                "value".to_owned()
            } else {
                label
            };
            let mut out = format!("{name}: JSON, one value at {label}");
            for note in &notes {
                out.push_str(&format!("\nnote: {note}"));
            }
            out.push_str(&format!(
                "\n{label} = {}",
                cut(&shown, limits.max_cell_chars)
            ));
            Ok(Loaded::Text(out))
        }
    }
}

/// `prefix.key`, or `key` at the top level.
fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Whether `items` is a non-empty array whose elements are all objects.
fn is_array_of_objects(items: &[Value]) -> bool {
    !items.is_empty() && items.iter().all(Value::is_object)
}

/// A scalar as the reader sees it: strings quoted, the rest as JSON.
fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// The value at `path` below `root`, with its path spelled canonically (`a.0.b`).
fn walk<'a>(root: &'a Value, path: &str, name: &str) -> Result<(&'a Value, String), String> {
    let segments = split_path(path);
    let mut cur = root;
    let mut done = String::new();
    for (i, seg) in segments.iter().enumerate() {
        let place = if done.is_empty() {
            "the top level".to_owned()
        } else {
            done.clone()
        };
        let prefix = format!("{name}: json_path \"{path}\": {place}");
        cur = match cur {
            Value::Object(map) => {
                let Some((key, next)) = find_key(map, seg) else {
                    let keys: Vec<&str> = map.keys().map(String::as_str).take(MAX_LISTED).collect();
                    let more = if map.len() > MAX_LISTED { ", …" } else { "" };
                    return Err(format!(
                        "{prefix} has no key \"{seg}\"; its keys are: {}{more}",
                        keys.join(", ")
                    ));
                };
                done = join(&done, key);
                next
            }
            Value::Array(items) => match seg.parse::<usize>() {
                Ok(index) => {
                    let Some(next) = items.get(index) else {
                        return Err(format!(
                            "{prefix} has {} (indexes 0 to {}), not {index}",
                            plural(items.len(), "item", "items"),
                            items.len().saturating_sub(1)
                        ));
                    };
                    done = join(&done, &index.to_string());
                    next
                }
                Err(_) if is_array_of_objects(items) => {
                    let rest = segments[i..].join(".");
                    let array = if done.is_empty() { "$" } else { &done };
                    return Err(format!(
                        "{prefix} is an array of {}, not one object: to compute on their \"{rest}\" give json_path \"{array}\" and column \"{rest}\"",
                        plural(items.len(), "object", "objects")
                    ));
                }
                Err(_) => {
                    return Err(format!(
                        "{prefix} is an array of {}; follow it with an index like 0",
                        plural(items.len(), "item", "items")
                    ));
                }
            },
            scalar => {
                return Err(format!(
                    "{prefix} is the value {}; it has no key \"{seg}\"",
                    cut(&scalar_text(scalar), VALUE_CHARS)
                ));
            }
        };
    }
    Ok((cur, done))
}

/// The member of `map` named `seg`: exactly, else ignoring case, else ignoring punctuation.
fn find_key<'a>(map: &'a Map<String, Value>, seg: &str) -> Option<(&'a String, &'a Value)> {
    map.get_key_value(seg)
        .or_else(|| {
            map.iter()
                .find(|(k, _)| k.to_lowercase() == seg.to_lowercase())
        })
        .or_else(|| {
            let want = loose_key(seg);
            (!want.is_empty())
                .then(|| map.iter().find(|(k, _)| loose_key(k) == want))
                .flatten()
        })
}

/// The keys and indexes of a path: `data.users`, `$.a.b`, `a[0].b`, `a["x.y"]`, `/a/b`.
fn split_path(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = path.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '.' | '/' => out.push(std::mem::take(&mut cur)),
            '[' => {
                out.push(std::mem::take(&mut cur));
                let mut inner = String::new();
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                    inner.push(d);
                }
                out.push(inner.trim().trim_matches(['"', '\'']).to_owned());
            }
            _ => cur.push(c),
        }
    }
    out.push(cur);
    let mut segments: Vec<String> = out
        .into_iter()
        .filter(|s| !s.is_empty() && s != "*")
        .collect();
    if segments.first().is_some_and(|s| s == "$") {
        segments.remove(0);
    }
    segments
}

/// A cell's text for a JSON value: strings as they are, null as empty, the rest as JSON.
fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `(column, cell)` pairs of an object, nested objects flattened into `a.b` names.
fn flatten(prefix: &str, map: &Map<String, Value>, depth: usize, out: &mut Vec<(String, String)>) {
    for (k, v) in map {
        let key = join(prefix, k);
        match v {
            Value::Object(inner) if depth + 1 < FLATTEN_DEPTH && !inner.is_empty() => {
                flatten(&key, inner, depth + 1, out);
            }
            other => out.push((key, cell(other))),
        }
    }
}

/// Builds rows from `(column, cell)` pairs, growing the column list as names appear.
#[derive(Default)]
struct Builder {
    /// Column names in order of first appearance.
    columns: Vec<String>,
    /// Column name to index.
    index: HashMap<String, usize>,
    /// Rows as `(column index, cell)` pairs.
    rows: Vec<(usize, Vec<(usize, String)>)>,
    /// Whether some keys were left out past [`MAX_COLUMNS`].
    dropped: bool,
}

impl Builder {
    /// Adds row number `n` with these cells.
    fn push(&mut self, n: usize, pairs: Vec<(String, String)>) {
        let mut cells = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            let idx = match self.index.get(&k) {
                Some(&i) => i,
                None if self.columns.len() < MAX_COLUMNS => {
                    self.columns.push(k.clone());
                    self.index.insert(k, self.columns.len() - 1);
                    self.columns.len() - 1
                }
                None => {
                    self.dropped = true;
                    continue;
                }
            };
            cells.push((idx, v));
        }
        self.rows.push((n, cells));
    }

    /// The pairs for one array element.
    fn pairs(item: &Value) -> Vec<(String, String)> {
        match item {
            Value::Object(map) => {
                let mut out = Vec::with_capacity(map.len());
                flatten("", map, 0, &mut out);
                out
            }
            Value::Array(cells) => cells
                .iter()
                .enumerate()
                .map(|(j, v)| (format!("col{}", j + 1), cell(v)))
                .collect(),
            other => vec![("value".to_owned(), cell(other))],
        }
    }

    /// The finished table.
    fn finish(
        self,
        name: String,
        format: String,
        mut notes: Vec<String>,
        total_rows: usize,
    ) -> Table {
        let width = self.columns.len();
        let rows = self
            .rows
            .into_iter()
            .map(|(n, pairs)| {
                let mut cells = vec![String::new(); width];
                for (i, v) in pairs {
                    cells[i] = v;
                }
                Row { n, cells }
            })
            .collect();
        if self.dropped {
            notes.push(format!(
                "only the first {MAX_COLUMNS} column names were kept; later keys were left out"
            ));
        }
        Table {
            name,
            format,
            columns: self.columns,
            rows,
            total_rows,
            notes,
            decimal_comma: false,
        }
    }
}

/// The table an array is: objects flattened, arrays as `col1…`, scalars as `value`.
fn table(
    items: &[Value],
    name: String,
    format: String,
    notes: Vec<String>,
    max_rows: usize,
) -> Table {
    let mut b = Builder::default();
    for (i, item) in items.iter().take(max_rows).enumerate() {
        b.push(i + 1, Builder::pairs(item));
    }
    b.finish(name, format, notes, items.len())
}

/// The table an object of objects is: one row per member, its name in a `key` column.
fn keyed_table(
    map: &Map<String, Value>,
    name: String,
    label: &str,
    notes: Vec<String>,
    max_rows: usize,
) -> Table {
    let key_column = if map.values().any(|v| v.get("key").is_some()) {
        "_key"
    } else {
        "key"
    };
    let mut b = Builder::default();
    for (i, (k, v)) in map.iter().take(max_rows).enumerate() {
        let mut pairs = vec![(key_column.to_owned(), k.clone())];
        pairs.extend(Builder::pairs(v));
        b.push(i + 1, pairs);
    }
    let place = if label.is_empty() {
        "top-level".to_owned()
    } else {
        format!("at {label}")
    };
    let format = format!(
        "JSON (object {place} read as a table: one row per member, named in column {key_column})"
    );
    b.finish(name, format, notes, map.len())
}

/// JSON Lines: one row per line; unreadable lines are skipped and said.
pub(super) fn read_lines(
    text: &str,
    name: String,
    mut notes: Vec<String>,
    max_rows: usize,
) -> Result<Table, String> {
    let mut b = Builder::default();
    let mut total = 0usize;
    let mut ordinal = 0usize;
    let mut broken: Vec<String> = Vec::new();
    let mut broken_count = 0usize;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        ordinal += 1;
        match serde_json::from_str::<Value>(line) {
            Ok(v) => {
                if total < max_rows {
                    b.push(ordinal, Builder::pairs(&v));
                }
                total += 1;
            }
            Err(e) => {
                broken_count += 1;
                if broken.len() < MAX_BROKEN_NOTES {
                    broken.push(format!(
                        "row {ordinal} (line {}) could not be read: {e}",
                        i + 1
                    ));
                }
            }
        }
    }
    if total == 0 && broken_count > 0 {
        return Err(format!(
            "{name} could not be read as JSON Lines: {}",
            broken.first().map_or("", String::as_str)
        ));
    }
    for line in broken {
        notes.push(format!(
            "{line}; it was skipped ({} read)",
            plural(total, "row", "rows")
        ));
    }
    if broken_count > MAX_BROKEN_NOTES {
        notes.push(format!(
            "{} more lines could not be read and were skipped",
            broken_count - MAX_BROKEN_NOTES
        ));
    }
    Ok(b.finish(name, "JSON Lines".to_owned(), notes, total))
}

/// An object's keys with their types, two levels deep, and where its tables are.
fn object_view(map: &Map<String, Value>, label: &str, name: &str, notes: &[String]) -> String {
    let place = if label.is_empty() {
        "at the top level".to_owned()
    } else {
        format!("at {label}")
    };
    let mut out = format!(
        "{name}: JSON object {place} with {}, no table there",
        plural(map.len(), "key", "keys")
    );
    for note in notes {
        out.push_str(&format!("\nnote: {note}"));
    }
    out.push_str("\nkeys:");
    for (k, v) in map.iter().take(MAX_LISTED) {
        out.push_str(&format!("\n  {k}: {}", describe(v, true)));
    }
    if map.len() > MAX_LISTED {
        out.push_str(&format!("\n  … and {} more keys", map.len() - MAX_LISTED));
    }
    let mut tables = Vec::new();
    find_tables(map, label, 0, &mut tables);
    if !tables.is_empty() {
        out.push_str(&format!(
            "\narrays of objects (give one as json_path to read it as a table): {}",
            tables.join(", ")
        ));
    }
    if let Some((k, v)) = map.iter().find(|(_, v)| !v.is_object() && !v.is_array()) {
        out.push_str(&format!(
            "\nto read one value, give its path as json_path, e.g. {} ({})",
            join(label, k),
            cut(&scalar_text(v), VALUE_CHARS)
        ));
    } else if let Some((k, Value::Object(inner))) = map.iter().find(|(_, v)| v.is_object())
        && let Some(child) = inner.keys().next()
    {
        out.push_str(&format!(
            "\nto read one value, give its path as json_path, e.g. {}",
            join(&join(label, k), child)
        ));
    }
    out
}

/// A value's type, and its keys or value: one level more when `nested`.
fn describe(v: &Value, nested: bool) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("text {}", cut(&format!("{s:?}"), VALUE_CHARS)),
        Value::Array(items) => {
            if items.is_empty() {
                return "empty array".to_owned();
            }
            if is_array_of_objects(items) {
                let mut keys: Vec<&str> = Vec::new();
                for item in items.iter().take(50) {
                    if let Value::Object(m) = item {
                        for k in m.keys() {
                            if !keys.contains(&k.as_str()) && keys.len() < MAX_LISTED {
                                keys.push(k);
                            }
                        }
                    }
                }
                return format!(
                    "array of {} (keys: {})",
                    plural(items.len(), "object", "objects"),
                    keys.join(", ")
                );
            }
            let kind = if items.iter().all(Value::is_number) {
                "number"
            } else if items.iter().all(Value::is_string) {
                "text"
            } else {
                "value"
            };
            format!("array of {} {kind}s", items.len())
        }
        Value::Object(m) => {
            let head = format!("object with {}", plural(m.len(), "key", "keys"));
            if !nested || m.is_empty() {
                return head;
            }
            let parts: Vec<String> = m
                .iter()
                .take(MAX_LISTED)
                .map(|(k, v)| format!("{k} ({})", describe(v, false)))
                .collect();
            let more = if m.len() > MAX_LISTED { ", …" } else { "" };
            format!("{head}: {}{more}", parts.join(", "))
        }
    }
}

/// Paths of the arrays of objects within `map`, through nested objects, a few levels deep.
fn find_tables(map: &Map<String, Value>, label: &str, depth: usize, out: &mut Vec<String>) {
    for (k, v) in map {
        if out.len() >= MAX_LISTED {
            return;
        }
        match v {
            Value::Array(items) if is_array_of_objects(items) => {
                out.push(format!(
                    "{} ({})",
                    join(label, k),
                    plural(items.len(), "item", "items")
                ));
            }
            Value::Object(inner) if depth < 3 => {
                find_tables(inner, &join(label, k), depth + 1, out)
            }
            _ => {}
        }
    }
}
