//! `table`: exact answers about a tabular file (CSV, TSV, JSON, JSON Lines) from typed
//! parameters, so that a small model asks "sum of price where city = Paris" instead of
//! improvising an `awk` pipeline that miscounts quoted commas or the header row.
//!
//! [`Request::from_json`] reads the model's parameters leniently (op names and aliases in any
//! case); [`run_with_columns`] loads the file and answers in plain, compact text whose first line always
//! names the file, its format, its number of data rows and its columns, followed by the answer
//! in a fixed shape (see [`Op`]). Errors are `Err(String)` written for the model's next
//! attempt: an unknown column lists the real ones, an unknown op lists the valid ones.
//!
//! Invariants:
//! - Read-only: the file is opened for reading and nothing else is touched.
//! - Bounded: a file over [`Limits::max_bytes`] is refused from its size alone (never read
//!   whole); at most [`Limits::max_rows`] data rows are kept (the answer says when it covers
//!   only those); at most [`Limits::max_shown_rows`] rows or values are printed; cells are cut
//!   at [`Limits::max_cell_chars`] characters with `…`, never inside a character.
//! - Never panics, whatever the bytes: broken quoting, invalid UTF-8 (decoded lossily, and
//!   said), a BOM, CRLF, an empty file, a header alone and ragged rows all give an answer or
//!   an `Err` that says what is wrong.
//! - Self-contained: std, `csv` and `serde_json` only; no async, no crate-internal imports.

mod delimited;
mod folder;
mod json;
mod num;
mod ops;
mod source;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

/// What the model asked for, parsed from the tool call's JSON parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The operation.
    pub op: Op,
    /// The column the op works on (the summed one for `GroupSum`).
    pub column: Option<String>,
    /// The column to group on (`GroupCount`, `GroupSum`).
    pub by: Option<String>,
    /// Keep only rows whose `where_column` equals `equals`.
    pub where_column: Option<String>,
    /// The value `where_column` must equal: case-insensitive, trimmed; numbers compare as numbers.
    pub equals: Option<String>,
    /// The bounds `where_column` must keep within.
    pub bounds: Bounds,
    /// JSON only: the path to the array (or value) to read, e.g. `data.users`.
    pub json_path: Option<String>,
    /// How many rows or values to show; 0 means the op's default.
    pub limit: usize,
}

/// The columns of a folder read as a table, in order.
pub const FOLDER_COLUMNS: [&str; 6] = folder::COLUMNS;

/// Bounds on the values of a filter's column, each a number (or, for a column of dates,
/// a date), as the call wrote it: "fewer than 5" is `below` 5, "5 or more" `at_least` 5.
/// A row is kept when its value keeps within every bound given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// Kept: values strictly below this.
    pub below: Option<String>,
    /// Kept: values strictly above this.
    pub above: Option<String>,
    /// Kept: values at most this.
    pub at_most: Option<String>,
    /// Kept: values at least this.
    pub at_least: Option<String>,
}

/// How a value stands to a bound, with the sign the answer shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Below,
    Above,
    AtMost,
    AtLeast,
}

impl Cmp {
    fn sign(self) -> &'static str {
        match self {
            Cmp::Below => "<",
            Cmp::Above => ">",
            Cmp::AtMost => "<=",
            Cmp::AtLeast => ">=",
        }
    }

    fn keeps(self, value: f64, bound: f64) -> bool {
        match self {
            Cmp::Below => value < bound,
            Cmp::Above => value > bound,
            Cmp::AtMost => value <= bound,
            Cmp::AtLeast => value >= bound,
        }
    }
}

impl Bounds {
    /// Whether no bound is given.
    pub fn is_empty(&self) -> bool {
        self.each().next().is_none()
    }

    /// The bounds given, each with how a kept value stands to it.
    fn each(&self) -> impl Iterator<Item = (Cmp, &str)> {
        [
            (Cmp::Below, &self.below),
            (Cmp::Above, &self.above),
            (Cmp::AtMost, &self.at_most),
            (Cmp::AtLeast, &self.at_least),
        ]
        .into_iter()
        .filter_map(|(cmp, v)| v.as_deref().map(|v| (cmp, v)))
    }
}

/// The operations, each answered in one fixed shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Each column with its type and two example values, then the first rows.
    Schema,
    /// The first `limit` rows as `column = value` lists.
    Rows,
    /// `count = 8 rows` (with `column`: how many have a value in it).
    Count,
    /// `12 distinct values of customer: a, b, c …`
    Distinct,
    /// `sum of amount = 1234.5 (over 12 rows)`
    Sum,
    /// `mean of score = 71.25 (sum 570 / 8 rows)`
    Mean,
    /// `median of price = 5 (the middle of 5 rows in order: 3, 4, 5, 9, 20)`
    Median,
    /// `min of price = 12 (over 12 rows)`, with the row holding it (or how many do)
    Min,
    /// `max of price = 450 (over 12 rows)`, with the row holding it (or how many do)
    Max,
    /// The whole row (or rows, on a tie) with the lowest value in `column`.
    MinRow,
    /// The whole row (or rows, on a tie) with the highest value in `column`.
    MaxRow,
    /// `count by city (4 groups): Paris = 3, Lyon = 2, …`
    GroupCount,
    /// `sum of amount by city (3 groups): Paris = 1200, …`
    GroupSum,
}

impl Op {
    /// Every op, in the order the model is shown them.
    pub const ALL: [Op; 13] = [
        Op::Schema,
        Op::Rows,
        Op::Count,
        Op::Distinct,
        Op::Sum,
        Op::Mean,
        Op::Median,
        Op::Min,
        Op::Max,
        Op::MinRow,
        Op::MaxRow,
        Op::GroupCount,
        Op::GroupSum,
    ];

    /// The op's canonical name, as the model should write it.
    pub fn name(self) -> &'static str {
        match self {
            Op::Schema => "schema",
            Op::Rows => "rows",
            Op::Count => "count",
            Op::Distinct => "distinct",
            Op::Sum => "sum",
            Op::Mean => "mean",
            Op::Median => "median",
            Op::Min => "min",
            Op::Max => "max",
            Op::MinRow => "min_row",
            Op::MaxRow => "max_row",
            Op::GroupCount => "group_count",
            Op::GroupSum => "group_sum",
        }
    }

    /// The op named `name`: canonical names and common aliases, in any case, with or without
    /// `_`, `-` or spaces.
    pub fn parse(name: &str) -> Option<Op> {
        Some(match crate::tools::lenient_key(name).as_str() {
            "schema" | "columns" | "keys" | "structure" | "describe" | "info" | "fields"
            | "header" | "headers" | "cols" => Op::Schema,
            "rows" | "head" | "preview" | "show" | "sample" | "first" | "list" | "row" => Op::Rows,
            "count" | "countrows" | "rowcount" | "numrows" | "len" | "length" | "size" => Op::Count,
            "distinct" | "unique" | "uniq" | "distinctvalues" | "uniquevalues" | "values" => {
                Op::Distinct
            }
            "sum" | "total" | "add" => Op::Sum,
            "mean" | "average" | "avg" | "averageof" => Op::Mean,
            "median" | "med" | "middle" | "middlevalue" => Op::Median,
            "min" | "minimum" => Op::Min,
            "max" | "maximum" => Op::Max,
            "minrow" | "argmin" | "smallest" | "lowest" | "rowmin" => Op::MinRow,
            "maxrow" | "argmax" | "largest" | "highest" | "biggest" | "rowmax" => Op::MaxRow,
            "groupcount" | "countby" | "groupby" | "countgroups" | "frequency" | "frequencies"
            | "histogram" | "valuecounts" => Op::GroupCount,
            "groupsum" | "sumby" | "totalby" | "sumgroups" => Op::GroupSum,
            _ => return None,
        })
    }
}

/// The bounds every call stays within.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Files larger than this are refused without being read.
    pub max_bytes: u64,
    /// Data rows kept; the answer says when it covers only the first ones.
    pub max_rows: usize,
    /// Rows, values or groups printed at most.
    pub max_shown_rows: usize,
    /// Characters of a cell printed at most (longer cells end in `…`).
    pub max_cell_chars: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bytes: 20 * 1024 * 1024,
            max_rows: 200_000,
            max_shown_rows: 50,
            max_cell_chars: 200,
        }
    }
}

/// The parameter list for the model's prompt: (name, JSON type, required, one-line meaning).
/// The file's path is the wrapper's own parameter and is not listed here.
pub const PARAMS: &[(&str, &str, bool, &str)] = &[
    (
        "op",
        "string",
        true,
        "schema, rows, count, distinct, sum, mean, median, min, max, min_row, max_row, group_count or group_sum",
    ),
    (
        "column",
        "string",
        false,
        "the column to compute on (as named by schema; case and spaces do not matter)",
    ),
    (
        "by",
        "string",
        false,
        "group_count and group_sum: the column whose values form the groups",
    ),
    (
        "where_column",
        "string",
        false,
        "keep only the rows whose where_column equals `equals`",
    ),
    (
        "equals",
        "string",
        false,
        "the value where_column must have (case-insensitive); for a column of dates, a month or a year keeps the rows dated in it (2026-03, March 2026, 2026)",
    ),
    (
        "below",
        "string",
        false,
        "keep only the rows whose where_column is a number (or date) less than this",
    ),
    (
        "above",
        "string",
        false,
        "keep only the rows whose where_column is a number (or date) greater than this",
    ),
    (
        "at_most",
        "string",
        false,
        "keep only the rows whose where_column is a number (or date) at most this",
    ),
    (
        "at_least",
        "string",
        false,
        "keep only the rows whose where_column is a number (or date) at least this",
    ),
    (
        "json_path",
        "string",
        false,
        "JSON only: dotted path to the array or value, e.g. data.users or database.port",
    ),
    (
        "limit",
        "integer",
        false,
        "how many rows or values to show (default 10)",
    ),
];

/// The closed values of the parameters above, as a grammar offers them: `op` is one of
/// the ops' canonical names (the aliases [`Op::parse`] also reads are for models that
/// write without a grammar).
pub const CHOICES: &[(&str, &[&str])] = &[("op", &OP_NAMES)];

/// Every op's canonical name, in the order of [`Op::ALL`].
pub const OP_NAMES: [&str; 13] = [
    "schema",
    "rows",
    "count",
    "distinct",
    "sum",
    "mean",
    "median",
    "min",
    "max",
    "min_row",
    "max_row",
    "group_count",
    "group_sum",
];

/// The parameters that name a column of the file.
pub const COLUMN_PARAMS: &[&str] = &["column", "by", "where_column"];

/// What each op needs beyond the file: (ops, the parameters they need). Every op is in
/// exactly one group, and an op asked without what it needs is an error naming the
/// columns.
pub const NEEDS: &[(&[&str], &[&str])] = &[
    (&["schema", "rows", "count"], &[]),
    (
        &[
            "distinct", "sum", "mean", "median", "min", "max", "min_row", "max_row",
        ],
        &["column"],
    ),
    (&["group_count"], &["by"]),
    (&["group_sum"], &["by", "column"]),
];

/// One line for the model: what the tool does.
pub const SUMMARY: &str = "Exact answers about a CSV, TSV, JSON or JSON Lines file: its columns, \
    rows, row count, distinct values, sum, mean, median, min, max, the row with the lowest or highest \
    value, counts or sums per group; optionally only over rows where a column equals a value or \
    is below or above a number or date. A folder reads as the table of its entries (name, type, \
    extension, size_bytes, modified, days_old).";

/// Rows shown when the request gives no limit.
const DEFAULT_LIMIT: usize = 10;

impl Request {
    /// The request in the tool call's parameters. Lenient: op names and aliases in any case
    /// (`average`, `total`, `count_by`, `argmax`, `head`, `columns`…), numbers where strings
    /// are expected, and a few alternative parameter names (`group_by`, `where`, `value`).
    pub fn from_json(input: &Value) -> Result<Request, String> {
        let Some(obj) = input.as_object() else {
            return Err(
                "the parameters must be a JSON object, like {\"op\": \"sum\", \"column\": \"price\"}"
                    .to_owned(),
            );
        };
        let lookup = |names: &[&str]| crate::tools::lenient_param(obj, names);
        let text = |names: &[&str], label: &str| -> Result<Option<String>, String> {
            match lookup(names) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => {
                    let t = s.trim();
                    Ok((!t.is_empty()).then(|| t.to_owned()))
                }
                Some(Value::Number(n)) => Ok(Some(n.to_string())),
                Some(Value::Bool(b)) => Ok(Some(b.to_string())),
                Some(_) => Err(format!("{label} must be a string")),
            }
        };
        let valid = Op::ALL.map(Op::name).join(", ");
        let op = match lookup(&["op", "operation", "action"]) {
            Some(Value::String(s)) => {
                Op::parse(s).ok_or_else(|| format!("unknown op \"{s}\"; the ops are: {valid}"))?
            }
            Some(other) => {
                return Err(format!(
                    "op must be a string, not {other}; the ops are: {valid}"
                ));
            }
            None => return Err(format!("op is required; the ops are: {valid}")),
        };
        let limit = match lookup(&["limit", "n", "top"]) {
            None | Some(Value::Null) => 0,
            Some(Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
                (Some(u), _) => usize::try_from(u).unwrap_or(usize::MAX),
                (None, Some(f)) if f >= 1.0 => f.min(1e9) as usize,
                _ => 0,
            },
            Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
            Some(_) => return Err("limit must be an integer".to_owned()),
        };
        Ok(Request {
            op,
            column: text(&["column", "col", "field"], "column")?,
            by: text(&["by", "groupby", "groupcolumn"], "by")?,
            where_column: text(&["wherecolumn", "where", "filtercolumn"], "where_column")?,
            equals: text(&["equals", "value", "eq", "wherevalue", "equal"], "equals")?,
            bounds: Bounds {
                below: text(&["below", "lessthan", "lt", "under"], "below")?,
                above: text(&["above", "greaterthan", "gt", "over", "morethan"], "above")?,
                at_most: text(&["atmost", "lte"], "at_most")?,
                at_least: text(&["atleast", "gte"], "at_least")?,
            },
            json_path: text(&["jsonpath", "jsonpointer"], "json_path")?,
            limit,
        })
    }
}

/// Answers `req` about the file at `path`, within `limits`, with the column names of the
/// table it read (a JSON file's at its `json_path`) — also when the op failed, since its
/// error names them — or none when the file is not a table (plain text, a JSON value,
/// unreadable). The text starts with a line naming the file, its format, its data rows and
/// its columns; `Err` says what to change.
pub fn run_with_columns(
    path: &Path,
    req: &Request,
    limits: &Limits,
) -> (Result<String, String>, Vec<String>) {
    match source::load(path, req, limits) {
        Ok(Loaded::Table(table)) => (ops::answer(&table, req, limits), table.columns),
        Ok(Loaded::Text(text)) => (Ok(text), Vec::new()),
        Err(e) => (Err(e), Vec::new()),
    }
}

/// What a check of a table call needs before the call runs, read from the file once:
/// the table's column names (at the call's `json_path`, for JSON) — the columns its words
/// may name ("which month") — and the one value of the table the words name, with its
/// column. Empty when the file is no table or cannot be read within a small bound.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// The column names, in order.
    pub columns: Vec<String>,
    /// A word of the request (outside paths, three letters or more, not a column's name)
    /// that is a whole cell of exactly one column, with that column ("hours logged on
    /// Atlas": `project` = `Atlas`). `None` when no word is a cell, or the words name
    /// cells of two columns or two cells: then code cannot tell which rows are meant.
    pub named: Option<(String, String)>,
}

/// The [`Facts`] of the table at `path` for the call `input` and the request's `words`.
pub fn facts(path: &Path, input: &Value, words: &str) -> Facts {
    let Ok(mut req) = Request::from_json(input) else {
        return Facts::default();
    };
    req.op = Op::Rows;
    let limits = Limits {
        max_bytes: 4 * 1024 * 1024,
        max_rows: 20_000,
        ..Limits::default()
    };
    let Ok(Loaded::Table(table)) = source::load(path, &req, &limits) else {
        return Facts::default();
    };
    let named = value_named(&table, words).or_else(|| period_named(&table, words));
    Facts {
        columns: table.columns,
        named,
    }
}

/// A whole table as text cells: its column names and every data row, for a tool that
/// writes it out in another format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Records {
    /// The column names, in order.
    pub columns: Vec<String>,
    /// The data rows, each as wide as `columns`.
    pub rows: Vec<Vec<String>>,
    /// What the reader noted (rows it skipped and why, a lossy decoding).
    pub notes: Vec<String>,
}

/// Every row of the table at `path`, read as `read_table` reads it, within `max_bytes`
/// and `max_rows`; `Err` when it is no table, or holds more rows than `max_rows`.
pub fn records(path: &Path, max_bytes: u64, max_rows: usize) -> Result<Records, String> {
    let req = Request::from_json(&serde_json::json!({ "op": "rows" }))?;
    let limits = Limits {
        max_bytes,
        max_rows,
        ..Limits::default()
    };
    match source::load(path, &req, &limits)? {
        Loaded::Table(table) if table.total_rows > table.rows.len() => Err(format!(
            "{} has {} data rows; at most {max_rows} are written out",
            table.name, table.total_rows
        )),
        Loaded::Table(table) => Ok(Records {
            columns: table.columns,
            rows: table.rows.into_iter().map(|r| r.cells).collect(),
            notes: table.notes,
        }),
        Loaded::Text(text) => Err(format!(
            "{} is not a table of rows: {}",
            path.display(),
            cut(&text, 200)
        )),
    }
}

/// See [`Facts::named`].
fn value_named(table: &Table, words: &str) -> Option<(String, String)> {
    let columns: Vec<String> = table.columns.iter().map(|c| loose_key(c)).collect();
    let tokens = super::files::kinds::words_outside_paths(words);
    // A value may be written in two or three words ("Maria Keller"): the runs of the
    // request's words count as written together.
    let runs = (2..=3).flat_map(|n| tokens.windows(n).map(|w| w.concat()));
    let asked: Vec<String> = tokens
        .iter()
        .cloned()
        .chain(runs)
        .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
        .map(|w| loose_key(&w))
        .filter(|w| !columns.contains(w))
        .collect();
    let mut found: Vec<(usize, String)> = Vec::new();
    for row in &table.rows {
        for (col, cell) in row.cells.iter().enumerate() {
            let key = loose_key(cell);
            if !key.is_empty()
                && asked.contains(&key)
                && !found.iter().any(|(c, k)| *c == col && loose_key(k) == key)
            {
                found.push((col, cell.trim().to_string()));
            }
        }
    }
    match found.as_slice() {
        [(col, cell)] => Some((table.columns[*col].clone(), cell.clone())),
        _ => None,
    }
}

/// A month of a year the request names ("in March 2026"), as its words, with the one
/// column whose cells are mostly dates: the rows of that month are the rows asked about,
/// as a value of a column is ([`Facts::named`]). A year alone, or a day, counts only when
/// written with its month (a bare number is too often something else).
fn period_named(table: &Table, words: &str) -> Option<(String, String)> {
    let tokens = super::files::kinds::words_outside_paths(words);
    let phrase = tokens.windows(2).find_map(|pair| {
        let phrase = pair.join(" ");
        crate::calc::period(&phrase)
            .filter(|(first, last)| first != last)
            .map(|_| phrase)
    })?;
    let dated = |col: usize| {
        table
            .rows
            .iter()
            .filter(|r| !crate::calc::dates_in(&r.cells[col]).is_empty())
            .count()
    };
    let columns: Vec<usize> = (0..table.columns.len())
        .filter(|&c| !table.rows.is_empty() && dated(c) * 2 > table.rows.len())
        .collect();
    match columns.as_slice() {
        [col] => Some((table.columns[*col].clone(), phrase)),
        _ => None,
    }
}

/// What loading a file gave.
enum Loaded {
    /// Rows and columns.
    Table(Table),
    /// A finished answer (a JSON scalar at a path, or a JSON object's keys).
    Text(String),
}

/// A file's rows, all cells as text.
struct Table {
    /// The file as the user named it.
    name: String,
    /// E.g. `CSV (delimiter ';', header row)`.
    format: String,
    /// Column names, unique and non-empty.
    columns: Vec<String>,
    /// The kept data rows, each as wide as `columns`.
    rows: Vec<Row>,
    /// Data rows in the file, counting the ones past `max_rows`.
    total_rows: usize,
    /// Things the reader should know (lossy decoding, skipped rows, a cut at `max_rows`).
    notes: Vec<String>,
    /// Whether numbers are written with a decimal comma (`12,5`).
    decimal_comma: bool,
}

/// One data row.
struct Row {
    /// Its 1-based number among the file's data rows (an unreadable row keeps its number).
    n: usize,
    /// Its cells, one per column.
    cells: Vec<String>,
}

impl Table {
    /// The number in `cell`, read the way this table writes numbers.
    fn number(&self, cell: &str) -> Option<f64> {
        num::parse(cell, self.decimal_comma)
    }
}

/// `s` cut to `max` characters, the last one being `…` when cut.
fn cut(s: &str, max: usize) -> Cow<'_, str> {
    let max = max.max(1);
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some(_) => {
            let end = s.char_indices().nth(max - 1).map_or(s.len(), |(i, _)| i);
            Cow::Owned(format!("{}…", &s[..end]))
        }
    }
}

/// A column name or value as a lookup key: lowercase letters and digits only.
fn loose_key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// `12 data rows`, `1 data row`.
fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}
