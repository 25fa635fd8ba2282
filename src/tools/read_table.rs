//! `read_table`: reads a CSV/TSV, JSON or JSON Lines file as a table — a real parser,
//! quoting and delimiters included — shows its columns, and computes by column *name*
//! (count, distinct, sum, mean, min, max, the row with the min or max, counts and sums
//! per group), naming the rows it skipped and why. A recipe such as `awk -F, '{s+=$2}'`
//! reads the wrong column or splits a quoted comma; this does neither. The parsing and
//! computing live in [`super::table`]; this wraps them as a tool: the path is resolved
//! once by code and the work runs on the blocking pool.
//!
//! Read-only: it never needs Law 1.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::{Value, json};

use super::list_files::params_of;
use super::{
    Choices, Form, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
    table,
};

/// Largest file read (a table tool's file is read whole, row by row).
const MAX_BYTES: u64 = 128 * 1024 * 1024;
/// Rows read at most; an answer over more says it covers only these.
const MAX_ROWS: usize = 2_000_000;
/// Rows shown at most.
const MAX_SHOWN_ROWS: usize = 50;
/// Characters of one cell shown at most.
const MAX_CELL_CHARS: usize = 200;

/// The read_table tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadTable;

fn path_param(input: &Value) -> Result<&str, ToolError> {
    ["path", "file"]
        .iter()
        .find_map(|name| input.get(*name).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ToolError::InvalidInput("`path` is required".into()))
}

/// The file to read: the wrapper's own parameter, before the engine's.
const PATH: (&str, &str, bool, &str) = (
    "path",
    "string",
    true,
    "the file: absolute, ~/…, or relative to the sub-task's folder",
);

const _: () = assert!(table::NEEDS.len() == 4, "one form per group of ops");

/// The forms of a call, one per group of ops that need the same parameters
/// ([`table::NEEDS`]): the step grammar cannot write a mean without its column.
const FORMS: [Form; 4] = {
    const fn form(i: usize) -> Form {
        Form {
            param: "op",
            values: table::NEEDS[i].0,
            requires: table::NEEDS[i].1,
        }
    }
    [form(0), form(1), form(2), form(3)]
};

/// The engine's closed values, and its column parameters as columns the task has seen.
fn choices() -> Vec<(&'static str, Choices)> {
    let fixed = table::CHOICES.iter().map(|(n, v)| (*n, Choices::Fixed(v)));
    let columns = table::COLUMN_PARAMS
        .iter()
        .map(|n| (*n, Choices::SeenColumns));
    fixed.chain(columns).collect()
}

impl Tool for ReadTable {
    fn spec(&self) -> ToolSpec {
        static PARAMS: OnceLock<Vec<Param>> = OnceLock::new();
        ToolSpec {
            name: ToolName::ReadTable.into(),
            priority: 4,
            summary: Cow::Borrowed(table::SUMMARY),
            params: Cow::Owned(
                PARAMS
                    .get_or_init(|| {
                        let mut params = params_of(&[PATH], &[]);
                        params.extend(params_of(table::PARAMS, &choices()));
                        params
                    })
                    .clone(),
            ),
            forms: &FORMS,
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let path = ctx.resolve_read_path(path_param(input)?);
        table::Request::from_json(input).map_err(ToolError::InvalidInput)?;
        let shown = path.to_string_lossy().into_owned();
        let mut executed = input.clone();
        if let Some(map) = executed.as_object_mut() {
            map.remove("file");
            map.insert("path".into(), json!(shown));
        }
        Ok(Prepared::plain(ToolName::ReadTable, executed, shown))
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let path = ctx.resolve_read_path(path_param(&call.input)?);
            let request =
                table::Request::from_json(&call.input).map_err(ToolError::InvalidInput)?;
            let limits = table::Limits {
                max_bytes: MAX_BYTES,
                max_rows: MAX_ROWS,
                max_shown_rows: MAX_SHOWN_ROWS,
                max_cell_chars: MAX_CELL_CHARS,
            };
            if !path.exists() {
                return Err(ToolError::NotFound(format!(
                    "no such file: {}",
                    path.display()
                )));
            }
            // The columns are noted whether or not the op succeeded: an error that names
            // them has shown them too.
            let asked = unknown_folder_columns(&call.input, &path);
            let (answer, columns) = tokio::task::spawn_blocking(move || {
                let (answer, columns) = table::run_with_columns(&path, &request, &limits);
                // A folder has no column of a word its files may hold in their text.
                let answer = answer.map_err(|e| {
                    match crate::tools::files::by_text_hint(
                        &path,
                        &asked,
                        "list_files with containing: \"{word}\" selects them",
                    ) {
                        Some(hint) => format!("{e}; {hint}"),
                        None => e,
                    }
                });
                (answer, columns)
            })
            .await
            .map_err(|e| ToolError::Failed(format!("the table read did not complete: {e}")))?;
            ctx.task_calls.saw_columns(&columns);
            answer.map_err(ToolError::Failed)
        })
    }
}

/// The column names a call on a folder gives that no folder column has (none for a
/// file): words the folder's files may hold in their text.
fn unknown_folder_columns(input: &Value, path: &std::path::Path) -> Vec<String> {
    if !path.is_dir() {
        return Vec::new();
    }
    table::COLUMN_PARAMS
        .iter()
        .filter_map(|k| input.get(*k).and_then(Value::as_str))
        .filter(|c| {
            !table::FOLDER_COLUMNS
                .iter()
                .any(|f| f.eq_ignore_ascii_case(c.trim()))
        })
        .map(str::to_string)
        .collect()
}
