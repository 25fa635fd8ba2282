//! Reading the model's parameters: lenient about spellings and types (aliases,
//! strings for booleans and numbers, sizes with units, lists as text or arrays), strict
//! about values it cannot understand (the error names the valid ones, so the next
//! attempt can correct itself).

use serde_json::{Map, Value};

use super::{Group, Kind, Request, Sort, scan};

const RECURSIVE: &[&str] = &[
    "recursive",
    "recurse",
    "recursively",
    "subfolders",
    "include_subfolders",
    "deep",
];
const PATTERN: &[&str] = &["pattern", "patterns", "glob", "globs", "name_pattern"];
const EXTENSIONS: &[&str] = &["extensions", "extension", "ext", "exts", "file_extensions"];
const TYPE: &[&str] = &["type", "kind", "types", "entry_type"];
const SORT: &[&str] = &["sort", "sort_by", "sortby", "order_by", "orderby"];
const ORDER: &[&str] = &["order", "direction", "sort_order", "sort_direction"];
const DESCENDING: &[&str] = &["descending", "desc", "reverse"];
const LIMIT: &[&str] = &[
    "limit",
    "max_results",
    "top",
    "n",
    "head",
    "max_rows",
    "rows",
];
const GROUP: &[&str] = &["group_by", "groupby", "group"];
const MIN_SIZE: &[&str] = &[
    "min_size",
    "minsize",
    "min_bytes",
    "larger_than",
    "bigger_than",
    "min",
];
const MAX_SIZE: &[&str] = &["max_size", "maxsize", "max_bytes", "smaller_than"];
const HIDDEN: &[&str] = &["hidden", "include_hidden", "show_hidden"];
const WITHIN: &[&str] = &[
    "modified_within",
    "changed_within",
    "within",
    "newer_than",
    "modified_in_last",
    "max_age",
];
const OLDER: &[&str] = &["older_than", "not_modified_within", "min_age"];
const CONTAINS: &[&str] = &["name_contains", "contains", "name_includes", "substring"];
const TEXT: &[&str] = &["containing", "mentioning", "text_contains"];

/// A parameter code sets on a call because the request states it (`tools::asked`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// `sort` (replacing any order or direction the call gave).
    Sort,
    /// `extensions`.
    Extensions,
    /// `min_size`.
    MinSize,
    /// `max_size`.
    MaxSize,
    /// `group_by`.
    GroupBy,
    /// `limit`.
    Limit,
    /// `recursive`.
    Recursive,
    /// `modified_within`.
    ModifiedWithin,
    /// `older_than`.
    OlderThan,
    /// `hidden`.
    Hidden,
    /// `pattern`.
    Pattern,
    /// `type`.
    Type,
}

/// Sets `setting` on the call `input` to `value`, under its own name, after removing
/// every name [`from_json`] would read it (or, for the sort, its direction) under; a
/// `null` value leaves the setting out.
pub fn set(input: &mut Value, setting: Setting, value: Value) {
    let (name, names): (&str, &[&[&str]]) = match setting {
        Setting::Sort => ("sort", &[SORT, ORDER, DESCENDING]),
        Setting::Extensions => ("extensions", &[EXTENSIONS]),
        Setting::MinSize => ("min_size", &[MIN_SIZE]),
        Setting::MaxSize => ("max_size", &[MAX_SIZE]),
        Setting::GroupBy => ("group_by", &[GROUP]),
        Setting::Limit => ("limit", &[LIMIT]),
        Setting::Recursive => ("recursive", &[RECURSIVE]),
        Setting::ModifiedWithin => ("modified_within", &[WITHIN]),
        Setting::OlderThan => ("older_than", &[OLDER]),
        Setting::Hidden => ("hidden", &[HIDDEN]),
        Setting::Pattern => ("pattern", &[PATTERN]),
        Setting::Type => ("type", &[TYPE]),
    };
    if let Some(map) = input.as_object_mut() {
        map.retain(|k, _| !names.iter().any(|n| n.contains(&normal(k).as_str())));
        if !value.is_null() {
            map.insert(name.to_string(), value);
        }
    }
}

/// See [`Request::from_json`].
pub(super) fn from_json(input: &Value) -> Result<Request, String> {
    let obj = match input {
        Value::Object(obj) => obj,
        Value::Null => return Ok(Request::default()),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(inner @ Value::Object(_)) => return from_json(&inner),
            _ => return Err(not_an_object()),
        },
        _ => return Err(not_an_object()),
    };
    let mut req = Request::default();

    let mut implied_recursive = false;
    if let Some(v) = get(obj, PATTERN) {
        for token in list("pattern", v)? {
            let mut token = token.trim_start_matches("./");
            while let Some(rest) = token.strip_prefix("**/") {
                implied_recursive = true;
                token = rest;
            }
            if matches!(token, "" | "*" | "*.*" | "**") {
                continue;
            }
            // A bare extension (".pdf") names no file: it means the files ending so.
            let bare_extension = token.starts_with('.')
                && token.len() > 1
                && !token[1..].contains(['.', '*', '?', '[', '{']);
            if bare_extension {
                req.patterns.push(format!("*{token}"));
            } else {
                req.patterns.push(token.to_string());
            }
        }
    }
    scan::compile(&req.patterns)?;

    if let Some(v) = get(obj, RECURSIVE) {
        req.recursive = boolean("recursive", v)?;
    }
    req.recursive |= implied_recursive;

    if let Some(v) = get(obj, EXTENSIONS) {
        for token in list("extensions", v)? {
            let ext = token
                .trim_start_matches('*')
                .trim_start_matches('.')
                .to_lowercase();
            if ext.is_empty() {
                continue;
            }
            if ext.contains(['*', '?', '[', ']', '{', '}', '/', '\\']) {
                return Err(format!(
                    "extension {token:?} is not a plain extension: give e.g. \"jpg,png\", or put globs in `pattern`"
                ));
            }
            // A kind of thing ("video", "photos") is every type of it.
            let types = super::kinds::kind_named(&ext)
                .and_then(super::kinds::extensions_of)
                .map_or_else(
                    || vec![ext],
                    |all| all.iter().map(|e| (*e).to_string()).collect(),
                );
            for ext in types {
                if !req.extensions.contains(&ext) {
                    req.extensions.push(ext);
                }
            }
        }
    }

    if let Some(v) = get(obj, TYPE) {
        req.kind = kind(&text("type", v)?)?;
    }

    let mut token_order = None;
    let mut implied_order = None;
    if let Some(v) = get(obj, SORT) {
        let (sort, from_token, implied) = sort(&text("sort", v)?)?;
        req.sort = sort;
        token_order = from_token;
        implied_order = implied;
    }
    let explicit_order = match get(obj, ORDER) {
        Some(v) => Some(order(v)?),
        None => match get(obj, DESCENDING) {
            Some(v) => Some(boolean("descending", v)?),
            None => None,
        },
    };
    req.descending = explicit_order
        .or(token_order)
        .or(implied_order)
        .unwrap_or(matches!(req.sort, Sort::Size | Sort::Modified));

    if let Some(v) = get(obj, LIMIT) {
        req.limit = limit(v)?;
    }
    if let Some(v) = get(obj, GROUP) {
        req.group_by = group(v)?;
    }
    if let Some(v) = get(obj, MIN_SIZE) {
        req.min_size = Some(size("min_size", v)?);
    }
    if let Some(v) = get(obj, MAX_SIZE) {
        req.max_size = Some(size("max_size", v)?);
    }
    if let (Some(min), Some(max)) = (req.min_size, req.max_size)
        && min > max
    {
        return Err(format!(
            "min_size ({min} bytes) is larger than max_size ({max} bytes): no file can match both"
        ));
    }
    if let Some(v) = get(obj, WITHIN) {
        req.modified_within = Some(age("modified_within", v)?);
    }
    if let Some(v) = get(obj, OLDER) {
        req.older_than = Some(age("older_than", v)?);
    }
    if let Some(v) = get(obj, HIDDEN) {
        req.hidden = boolean("hidden", v)?;
    }
    if let Some(v) = get(obj, CONTAINS) {
        let c = text("name_contains", v)?;
        req.name_contains = Some(c.trim().to_string()).filter(|c| !c.is_empty());
    }
    if let Some(v) = get(obj, TEXT) {
        let c = text("containing", v)?;
        req.containing = Some(c.trim().to_string()).filter(|c| !c.is_empty());
    }
    Ok(req)
}

fn not_an_object() -> String {
    "the parameters must be a JSON object, e.g. {\"folder\": \"~/Downloads\", \"pattern\": \"*.pdf\"}"
        .to_string()
}

/// A key as compared: lowercase, `-` and spaces as `_`.
fn normal(key: &str) -> String {
    key.trim()
        .to_lowercase()
        .chars()
        .map(|c| if c == '-' || c == ' ' { '_' } else { c })
        .collect()
}

/// The value of the first of `names` the object gives, skipping nulls and blank text.
fn get<'a>(obj: &'a Map<String, Value>, names: &[&str]) -> Option<&'a Value> {
    names.iter().find_map(|name| {
        obj.iter()
            .find(|(k, v)| normal(k) == *name && !blank(v))
            .map(|(_, v)| v)
    })
}

fn blank(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

/// A value as text (numbers and booleans spelled out).
fn text(name: &str, v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.trim().to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(format!("{name} must be text, got {v}")),
    }
}

fn boolean(name: &str, v: &Value) -> Result<bool, String> {
    let bad = || format!("{name} must be true or false, got {v}");
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Number(n) => match n.as_f64() {
            Some(0.0) => Ok(false),
            Some(1.0) => Ok(true),
            _ => Err(bad()),
        },
        Value::String(s) => match normal(s).as_str() {
            "true" | "yes" | "y" | "1" | "on" => Ok(true),
            "false" | "no" | "n" | "0" | "off" => Ok(false),
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

/// A list given as text (`"a, b; c d"`) or an array of such texts.
fn list(name: &str, v: &Value) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    match v {
        Value::String(s) => out.extend(split(s)),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::String(s) => out.extend(split(s)),
                    Value::Number(n) => out.push(n.to_string()),
                    Value::Null => {}
                    _ => return Err(format!("{name} must be text or a list of texts, got {v}")),
                }
            }
        }
        _ => return Err(format!("{name} must be text or a list of texts, got {v}")),
    }
    Ok(out)
}

/// Splits at `,`, `;` and white space outside `{…}` and `[…]`, and drops quotes
/// around each piece.
fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut piece = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c == ',' || c == ';' || c.is_whitespace()) {
            push_piece(&mut out, &mut piece);
        } else {
            piece.push(c);
        }
    }
    push_piece(&mut out, &mut piece);
    out
}

fn push_piece(out: &mut Vec<String>, piece: &mut String) {
    let trimmed = piece.trim_matches(|c| c == '"' || c == '\'' || c == '`');
    if !trimmed.is_empty() {
        out.push(trimmed.to_string());
    }
    piece.clear();
}

fn kind(raw: &str) -> Result<Kind, String> {
    match normal(raw).as_str() {
        "files" | "file" | "f" | "regular" | "regular_files" => Ok(Kind::Files),
        "folders" | "folder" | "dir" | "dirs" | "directory" | "directories" | "d" => {
            Ok(Kind::Folders)
        }
        "any" | "all" | "both" | "everything" | "entries" | "*" => Ok(Kind::Any),
        _ => Err(format!(
            "type must be \"files\", \"folders\" or \"any\" (got {raw:?})"
        )),
    }
}

/// The sort key, the direction a trailing `asc`/`desc` word gave, and the direction
/// the word itself implies (`largest` → descending).
type SortChoice = (Sort, Option<bool>, Option<bool>);

pub(super) fn sort(raw: &str) -> Result<SortChoice, String> {
    let norm = normal(raw).replace(':', "_");
    let mut words: Vec<&str> = norm.split('_').filter(|w| !w.is_empty()).collect();
    let mut token_order = None;
    while let Some(last) = words.last() {
        match *last {
            "asc" | "ascending" => token_order = token_order.or(Some(false)),
            "desc" | "descending" => token_order = token_order.or(Some(true)),
            "first" | "order" => {}
            _ => break,
        }
        words.pop();
    }
    let key = words.join("_");
    let (sort, implied) = match key.as_str() {
        "" | "name" | "names" | "filename" | "file_name" | "alphabetical" | "alphabetic"
        | "alpha" | "a_z" | "az" => (Sort::Name, None),
        "z_a" | "za" => (Sort::Name, Some(true)),
        "size" | "sizes" | "bytes" | "file_size" | "filesize" | "length" => (Sort::Size, None),
        "largest" | "biggest" | "large" | "big" => (Sort::Size, Some(true)),
        "smallest" | "small" | "tiniest" => (Sort::Size, Some(false)),
        "modified" | "date" | "time" | "mtime" | "modification" | "modification_time"
        | "modified_time" | "modified_date" | "date_modified" | "last_modified" | "updated"
        | "changed" | "timestamp" | "age" => (Sort::Modified, None),
        "newest" | "latest" | "recent" | "most_recent" | "recently_modified" | "new" | "last" => {
            (Sort::Modified, Some(true))
        }
        "oldest" | "old" | "earliest" | "least_recent" => (Sort::Modified, Some(false)),
        "extension" | "extensions" | "ext" | "type" | "file_type" | "kind" | "suffix" => {
            (Sort::Extension, None)
        }
        _ => {
            return Err(format!(
                "sort must be one of: name, size, modified, extension (or largest, smallest, newest, oldest); got {raw:?}"
            ));
        }
    };
    Ok((sort, token_order, implied))
}

/// `order`: true for descending.
fn order(v: &Value) -> Result<bool, String> {
    if let Value::Bool(b) = v {
        return Ok(*b);
    }
    let raw = text("order", v)?;
    match normal(&raw).as_str() {
        "asc" | "ascending" | "up" | "increasing" | "a_z" | "az" | "smallest_first"
        | "oldest_first" | "normal" => Ok(false),
        "desc" | "descending" | "down" | "decreasing" | "reverse" | "reversed" | "z_a" | "za"
        | "largest_first" | "biggest_first" | "newest_first" => Ok(true),
        _ => Err(format!("order must be \"asc\" or \"desc\" (got {raw:?})")),
    }
}

fn limit(v: &Value) -> Result<usize, String> {
    let bad = || format!("limit must be a whole number of rows, e.g. 20 (got {v})");
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Ok(usize::try_from(u).unwrap_or(usize::MAX))
            } else {
                match n.as_f64() {
                    Some(x) if x.is_finite() && x >= 0.0 => Ok(x as usize),
                    _ => Err(bad()),
                }
            }
        }
        Value::String(s) => match normal(s).as_str() {
            "all" | "unlimited" | "none" | "max" | "everything" | "no_limit" => Ok(usize::MAX),
            t => match t.parse::<u64>() {
                Ok(u) => Ok(usize::try_from(u).unwrap_or(usize::MAX)),
                Err(_) => match t.parse::<f64>() {
                    Ok(x) if x.is_finite() && x >= 0.0 => Ok(x as usize),
                    _ => Err(bad()),
                },
            },
        },
        _ => Err(bad()),
    }
}

pub(super) fn group(v: &Value) -> Result<Option<Group>, String> {
    if *v == Value::Bool(false) {
        return Ok(None);
    }
    let raw = text("group_by", v)?;
    match normal(&raw).as_str() {
        // A file's type, as people say it, is its extension.
        "extension" | "extensions" | "ext" | "exts" | "file_extension" | "type" | "types"
        | "file_type" | "filetype" | "format" => Ok(Some(Group::Extension)),
        "folder" | "folders" | "directory" | "directories" | "dir" | "dirs" | "parent"
        | "parent_folder" | "subfolder" | "subfolders" | "location" | "path" => {
            Ok(Some(Group::Folder))
        }
        "kind" | "kinds" | "entry_type" | "entry_kind" => Ok(Some(Group::Kind)),
        "content" | "contents" | "same_content" | "identical" | "duplicate" | "duplicates"
        | "hash" | "checksum" | "bytes" => Ok(Some(Group::Content)),
        "none" | "no" | "false" | "off" => Ok(None),
        _ => Err(format!(
            "group_by must be \"extension\", \"folder\", \"kind\" or \"content\" (got {raw:?})"
        )),
    }
}

/// An age from a number (days) or a text with its unit ("7 days", "24 hours").
fn age(name: &str, v: &Value) -> Result<std::time::Duration, String> {
    let parsed = match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(|d| super::age::parse_age(&d.to_string())),
        Value::String(s) => super::age::parse_age(s),
        _ => None,
    };
    parsed.ok_or_else(|| {
        format!("{name}: cannot read {v} as an age; give a number and a unit, e.g. \"7 days\", \"24 hours\", \"1 year\"")
    })
}

fn size(name: &str, v: &Value) -> Result<u64, String> {
    let bad = || {
        format!(
            "{name}: cannot read {v} as a size; give bytes or a number with KB, MB, GB (1000-based) or KiB, MiB, GiB (1024-based), e.g. \"1MB\""
        )
    };
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(u) => Ok(u),
            None => match n.as_f64() {
                Some(x) if (0.0..1.8e19).contains(&x) => Ok(x.round() as u64),
                _ => Err(bad()),
            },
        },
        Value::String(s) => parse_size(s).ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// Bytes from text such as `1MB`, `500 KB`, `2 GiB`, `1.5g`, `1,000,000`: decimal units
/// are 1000-based, binary (`KiB`) 1024-based; no unit means bytes.
pub(crate) fn parse_size(text: &str) -> Option<u64> {
    let compact: String = text
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    let split = compact
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(compact.len());
    let (number, unit) = compact.split_at(split);
    let number = if number.contains(',') {
        let mut groups = number.split(',');
        let first = groups.next().unwrap_or("");
        let thousands = number.contains('.')
            || (!first.is_empty() && first.len() <= 3 && groups.all(|g| g.len() == 3));
        if thousands {
            number.replace(',', "")
        } else {
            number.replace(',', ".")
        }
    } else {
        number.to_string()
    };
    let value: f64 = number.parse().ok()?;
    let scale: f64 = match unit {
        "" | "b" | "byte" | "bytes" => 1.0,
        "k" | "kb" | "kilobyte" | "kilobytes" => 1e3,
        "m" | "mb" | "megabyte" | "megabytes" => 1e6,
        "g" | "gb" | "gigabyte" | "gigabytes" => 1e9,
        "t" | "tb" | "terabyte" | "terabytes" => 1e12,
        "ki" | "kib" => 1024.0,
        "mi" | "mib" => 1024.0 * 1024.0,
        "gi" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "ti" | "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let bytes = (value * scale).round();
    (0.0..1.8e19).contains(&bytes).then_some(bytes as u64)
}
