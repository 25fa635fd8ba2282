//! `convert_file`: writes a file made by code from another file — the email or web
//! addresses it holds, one per line; its lines sorted,
//! reversed, without repeats, without blank lines, without the lines that hold a text or
//! with only those, its letters in lower or upper case, its table's rows ordered by a
//! column (the header kept), or its table (CSV, TSV, JSON, JSON Lines) in another of those
//! formats. Asked for a sorted copy or a JSON version of a CSV, a small model read
//! the file and said it was saved, or wrote the CSV's text under the new name; one that
//! re-types the content through `write_file` hands over its own text, not the file's.
//!
//! The new text is worked out when the call is prepared and is part of the call, so what
//! Law 1 asks about (replacing a file that exists, the source itself included) is exactly
//! what is written. A table's cells keep their text: a cell becomes a JSON number only
//! when the number is written the same way (`2024`, `12.5`; not `01234` or `12.50`).
//!
//! **Invariant:** every line or cell written comes from the source file (a change of
//! case keeps every character, only its case changes; an address is a run of the
//! file's own characters); nothing is added but the format's
//! own marks, and a row the table reader could not read is named
//! in the report, never silently dropped.

use std::borrow::Cow;
use std::path::Path;

use serde_json::{Value, json};

use super::write_file::write_text;
use super::{
    Form, Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName,
    ToolSpec, table,
};

/// The largest source read.
const MAX_SOURCE_BYTES: u64 = 256 * 1024;
/// The largest text written (it travels with the call).
const MAX_OUT_BYTES: usize = 1024 * 1024;
/// Rows of a table written at most.
const MAX_ROWS: usize = 20_000;

/// The ways a file is made, in the order the grammar offers them: first those that need
/// nothing more ([`WHOLE`]), then those that need the `text` a line holds ([`BY_TEXT`]).
const HOW: [&str; 17] = [
    "email_addresses",
    "web_addresses",
    "sort_lines",
    "sort_lines_descending",
    "distinct_lines",
    "reverse_lines",
    "drop_blank_lines",
    "lower_case",
    "upper_case",
    "table_to_json",
    "table_to_jsonl",
    "table_to_csv",
    "table_to_tsv",
    "drop_lines_containing",
    "keep_lines_containing",
    "sort_rows_by",
    "sort_rows_by_descending",
];
const WHOLE: [&str; 13] = [
    HOW[0], HOW[1], HOW[2], HOW[3], HOW[4], HOW[5], HOW[6], HOW[7], HOW[8], HOW[9], HOW[10],
    HOW[11], HOW[12],
];
const BY_TEXT: [&str; 2] = [HOW[13], HOW[14]];
const BY_COLUMN: [&str; 2] = [HOW[15], HOW[16]];

/// What each way needs: the ways that keep or drop lines by a text cannot leave it out,
/// nor those that order a table's rows by a column the column.
const FORMS: [Form; 3] = [
    Form {
        param: "how",
        values: &WHOLE,
        requires: &[],
    },
    Form {
        param: "how",
        values: &BY_TEXT,
        requires: &["text"],
    },
    Form {
        param: "how",
        values: &BY_COLUMN,
        requires: &["column"],
    },
];

/// The convert_file tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvertFile;

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("from"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("the file to read, as the user wrote it"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("how"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed(
            "email_addresses (every email address in the file, one per line, each once) / web_addresses (every http(s) address, one per line, each once) / sort_lines (A to Z, numbers by value) / sort_lines_descending / distinct_lines (each line once, first kept) / reverse_lines / drop_blank_lines / lower_case (every letter in lower case) / upper_case / drop_lines_containing (every line that holds `text` left out) / keep_lines_containing (only the lines that hold `text`) / sort_rows_by (a table's rows in the order of `column`, lowest first, the header kept) / sort_rows_by_descending (highest first) / table_to_json (an array of one object per row) / table_to_jsonl / table_to_csv / table_to_tsv",
        ),
        choices: super::Choices::Fixed(&HOW),
    },
    Param {
        name: Cow::Borrowed("to"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed(
            "the file to write, as the user wrote it (the same as from to change it in place)",
        ),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("text"),
        kind: Cow::Borrowed("string"),
        required: false,
        about: Cow::Borrowed(
            "for drop_lines_containing and keep_lines_containing: the text a line holds, exactly as it is written in the file",
        ),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("column"),
        kind: Cow::Borrowed("string"),
        required: false,
        about: Cow::Borrowed(
            "for sort_rows_by and sort_rows_by_descending: the column whose values order the rows",
        ),
        choices: super::Choices::SeenColumns,
    },
];

/// The lines of `text`, without their line ends.
fn lines_of(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// Lines sorted as people sort them: by number when every non-blank line is one, else
/// alphabetically ignoring case (ties in their own order); blank lines dropped.
fn sorted(text: &str, descending: bool) -> Vec<&str> {
    let mut lines: Vec<&str> = lines_of(text)
        .into_iter()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let numbers: Option<Vec<f64>> = lines
        .iter()
        .map(|l| l.trim().parse::<f64>().ok().filter(|n| n.is_finite()))
        .collect();
    if let Some(numbers) = numbers {
        let mut paired: Vec<(f64, &str)> = numbers.into_iter().zip(lines).collect();
        paired.sort_by(|a, b| a.0.total_cmp(&b.0));
        lines = paired.into_iter().map(|(_, l)| l).collect();
    } else {
        lines.sort_by_cached_key(|l| l.trim().to_lowercase());
    }
    if descending {
        lines.reverse();
    }
    lines
}

/// Each line once, where it first occurs.
fn distinct(text: &str) -> Vec<&str> {
    let mut seen = std::collections::HashSet::new();
    lines_of(text)
        .into_iter()
        .filter(|l| seen.insert(*l))
        .collect()
}

/// The lines of `text` that hold `needle` (`keep`) or do not; an error when no line
/// does, so that nothing is written for nothing (the absence is the answer).
fn by_text<'a>(
    text: &'a str,
    needle: &str,
    keep: bool,
    shown: &str,
) -> Result<Vec<&'a str>, String> {
    if needle.is_empty() {
        return Err("`text` is empty: give the text a line holds".to_string());
    }
    let lines = lines_of(text);
    if !lines.iter().any(|l| l.contains(needle)) {
        return Err(format!(
            "no line of {shown} holds {needle:?} (case counts): nothing to keep or leave out"
        ));
    }
    Ok(lines
        .into_iter()
        .filter(|l| l.contains(needle) == keep)
        .collect())
}

/// A cell as JSON: a number when it reads back the same, else its text.
fn cell_value(cell: &str) -> Value {
    if let Ok(n) = cell.parse::<i64>()
        && n.to_string() == cell
    {
        return json!(n);
    }
    if let Ok(x) = cell.parse::<f64>()
        && x.is_finite()
        && let Some(n) = serde_json::Number::from_f64(x)
        && n.to_string() == cell
    {
        return Value::Number(n);
    }
    Value::String(cell.to_string())
}

/// The rows of `records` as JSON objects, one per line, each with its keys in the
/// table's column order (a JSON map would sort them).
fn objects(records: &table::Records) -> Vec<String> {
    records
        .rows
        .iter()
        .map(|row| {
            let fields: Vec<String> = records
                .columns
                .iter()
                .zip(row)
                .map(|(c, v)| format!("{}: {}", Value::from(c.as_str()), cell_value(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        })
        .collect()
}

/// The rows of `records` written with `delimiter`, the header first.
fn delimited(records: &table::Records, delimiter: u8) -> Result<String, String> {
    let mut out = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(Vec::new());
    let write = |e: csv::Error| format!("cannot write the table: {e}");
    out.write_record(&records.columns).map_err(write)?;
    for row in &records.rows {
        out.write_record(row).map_err(write)?;
    }
    let bytes = out
        .into_inner()
        .map_err(|e| format!("cannot write the table: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("cannot write the table: {e}"))
}

/// What a conversion made: the text, and what the report says of it.
#[derive(Debug, PartialEq)]
struct Made {
    text: String,
    /// `5 lines, sorted A to Z`, `3 rows as JSON`.
    what: String,
    /// Rows the table reader skipped, and why.
    notes: Vec<String>,
}

/// The rows of `records` ordered by the column `column` (its name as the header writes
/// it, case and spaces aside): by value when every filled cell of it is a number, else
/// as text ignoring case; ties keep their order, and empty cells come last either way.
fn sort_rows(
    records: &mut table::Records,
    column: &str,
    descending: bool,
) -> Result<String, String> {
    let key = |c: &str| crate::tools::lenient_key(c);
    let at = records
        .columns
        .iter()
        .position(|c| key(c) == key(column))
        .ok_or_else(|| {
            format!(
                "no column {column:?}; the columns are: {}",
                records.columns.join(", ")
            )
        })?;
    let name = records.columns[at].clone();
    let filled = |row: &Vec<String>| !row[at].trim().is_empty();
    let numbers: Option<Vec<f64>> = records
        .rows
        .iter()
        .filter(|r| filled(r))
        .map(|r| r[at].trim().parse::<f64>().ok().filter(|n| n.is_finite()))
        .collect();
    let by_number = numbers.is_some_and(|n| !n.is_empty());
    records.rows.sort_by(|a, b| {
        let order = match (filled(a), filled(b)) {
            (false, false) => return std::cmp::Ordering::Equal,
            (false, true) => return std::cmp::Ordering::Greater,
            (true, false) => return std::cmp::Ordering::Less,
            (true, true) if by_number => {
                let n = |r: &Vec<String>| r[at].trim().parse::<f64>().unwrap_or(f64::NAN);
                n(a).total_cmp(&n(b))
            }
            (true, true) => a[at]
                .trim()
                .to_lowercase()
                .cmp(&b[at].trim().to_lowercase()),
        };
        if descending { order.reverse() } else { order }
    });
    Ok(format!(
        "by {name}, {}{}",
        if descending {
            "highest first"
        } else {
            "lowest first"
        },
        if by_number { "" } else { " (as text)" }
    ))
}

/// The new text made from the file at `from` by `how` (with `text`, for the ways that
/// keep or drop lines by it; with `column`, for those that order a table's rows by it),
/// written for the file `to` (a table keeps the format `to` names, else the source's).
fn convert(
    from: &Path,
    to: &Path,
    how: &str,
    text_in: Option<&str>,
    column: Option<&str>,
) -> Result<Made, String> {
    let shown = from.display();
    if let Some(descending) = match how {
        "sort_rows_by" => Some(false),
        "sort_rows_by_descending" => Some(true),
        _ => None,
    } {
        let column = column
            .ok_or_else(|| format!("`{how}` needs `column`: the column that orders the rows"))?;
        let mut records = table::records(from, MAX_SOURCE_BYTES, MAX_ROWS)?;
        let order = sort_rows(&mut records, column, descending)?;
        let ext = |p: &Path| {
            p.extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default()
        };
        let format = match ext(to).as_str() {
            f @ ("csv" | "tsv" | "json" | "jsonl" | "ndjson") => f.to_string(),
            _ => ext(from),
        };
        let rows = records.rows.len();
        let text = match format.as_str() {
            "tsv" => delimited(&records, b'\t')?,
            "json" if rows == 0 => "[]\n".to_string(),
            "json" => format!("[\n  {}\n]\n", objects(&records).join(",\n  ")),
            "jsonl" | "ndjson" => objects(&records).iter().map(|o| format!("{o}\n")).collect(),
            _ => delimited(&records, b',')?,
        };
        return Ok(Made {
            text,
            what: format!("{rows} row{} {order}", if rows == 1 { "" } else { "s" }),
            notes: records.notes,
        });
    }
    let lines_made = |lines: Vec<&str>, what: &str| Made {
        text: if lines.is_empty() {
            String::new()
        } else {
            format!("{}\n", lines.join("\n"))
        },
        what: format!(
            "{} line{}, {what}",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" }
        ),
        notes: Vec::new(),
    };
    if let Some(table_how) = how.strip_prefix("table_to_") {
        let records = table::records(from, MAX_SOURCE_BYTES, MAX_ROWS)?;
        let rows = records.rows.len();
        let text = match table_how {
            "json" if rows == 0 => "[]\n".to_string(),
            "json" => format!("[\n  {}\n]\n", objects(&records).join(",\n  ")),
            "jsonl" => objects(&records).iter().map(|o| format!("{o}\n")).collect(),
            "csv" => delimited(&records, b',')?,
            "tsv" => delimited(&records, b'\t')?,
            other => return Err(format!("unknown conversion table_to_{other}")),
        };
        return Ok(Made {
            text,
            what: format!(
                "{rows} row{} of {} column{} as {}",
                if rows == 1 { "" } else { "s" },
                records.columns.len(),
                if records.columns.len() == 1 { "" } else { "s" },
                table_how.to_uppercase()
            ),
            notes: records.notes,
        });
    }
    let meta = std::fs::metadata(from).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if meta.is_dir() {
        return Err(format!("{shown} is a folder; give the file to read"));
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(format!(
            "{shown} has {} bytes; convert_file reads files of at most {MAX_SOURCE_BYTES} bytes",
            meta.len()
        ));
    }
    let bytes = std::fs::read(from).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{shown} is not UTF-8 text; its lines cannot be sorted"))?;
    Ok(match how {
        "email_addresses" | "web_addresses" => {
            let (found, kind) = if how == "email_addresses" {
                (crate::text::email_addresses(&text), "email address")
            } else {
                (crate::text::web_addresses(&text), "web address")
            };
            if found.is_empty() {
                return Err(format!("{shown} holds no {kind}: nothing to write"));
            }
            lines_made(found, &format!("each {kind} in it, once"))
        }
        "sort_lines" => lines_made(sorted(&text, false), "sorted A to Z"),
        "sort_lines_descending" => lines_made(sorted(&text, true), "sorted Z to A"),
        "distinct_lines" => lines_made(distinct(&text), "each once"),
        "reverse_lines" => {
            let mut lines = lines_of(&text);
            lines.reverse();
            lines_made(lines, "in reverse order")
        }
        "drop_blank_lines" => {
            let lines = lines_of(&text);
            let kept: Vec<&str> = lines
                .iter()
                .copied()
                .filter(|l| !l.trim().is_empty())
                .collect();
            if kept.len() == lines.len() {
                return Err(format!("{shown} has no blank line: nothing to leave out"));
            }
            let dropped = lines.len() - kept.len();
            lines_made(kept, &format!("{dropped} blank left out"))
        }
        "lower_case" | "upper_case" => {
            let lower = how == "lower_case";
            let changed = if lower {
                text.to_lowercase()
            } else {
                text.to_uppercase()
            };
            let lines = lines_of(&changed).len();
            Made {
                what: format!(
                    "{lines} line{}, every letter in {} case",
                    if lines == 1 { "" } else { "s" },
                    if lower { "lower" } else { "upper" }
                ),
                text: changed,
                notes: Vec::new(),
            }
        }
        "drop_lines_containing" | "keep_lines_containing" => {
            let needle =
                text_in.ok_or_else(|| format!("`{how}` needs `text`: the text a line holds"))?;
            let keep = how == "keep_lines_containing";
            let all = lines_of(&text).len();
            let kept = by_text(&text, needle, keep, &shown.to_string())?;
            let what = if keep {
                format!("those holding {needle:?}, {} left out", all - kept.len())
            } else {
                format!("{} holding {needle:?} left out", all - kept.len())
            };
            lines_made(kept, &what)
        }
        other => {
            return Err(format!(
                "unknown way `{other}`; the ways are: {}",
                HOW.join(", ")
            ));
        }
    })
}

impl Tool for ConvertFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::ConvertFile.into(),
            priority: 4,
            summary: Cow::Borrowed(
                "Write a file made by code from another: the email or web addresses in it, one per line; its lines sorted, reversed, each once, without blank lines, without the lines holding a text or only those, in lower or upper case, a table's rows sorted by a column, or a table (CSV, TSV, JSON, JSON Lines) in another of those formats. Replacing a file asks the user.",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &FORMS,
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let from = ctx.resolve_read_path(super::str_param(input, "from")?);
        let how = super::str_param(input, "how")?.trim().to_lowercase();
        let text = input.get("text").and_then(Value::as_str);
        let raw_to = super::str_param(input, "to")?;
        if raw_to.trim().ends_with('/') {
            return Err(ToolError::InvalidInput(format!(
                "`to` {raw_to} names a folder; give the new file's name"
            )));
        }
        // A bare name lands beside the source, where a person would look for it.
        let to = if raw_to.contains('/') || raw_to.starts_with('~') {
            ctx.resolve_path(raw_to)
        } else {
            from.parent()
                .map_or_else(|| ctx.resolve_path(raw_to), |dir| dir.join(raw_to.trim()))
        };
        if to.is_dir() {
            return Err(ToolError::InvalidInput(format!(
                "{} is a folder; give the new file's name",
                to.display()
            )));
        }
        let column = input.get("column").and_then(Value::as_str);
        let made = convert(&from, &to, &how, text, column).map_err(ToolError::Failed)?;
        if made.text.len() > MAX_OUT_BYTES {
            return Err(ToolError::InvalidInput(format!(
                "the converted text would have {} bytes; convert_file writes at most \
                 {MAX_OUT_BYTES}",
                made.text.len()
            )));
        }
        let home = &ctx.config.home;
        let shown_from = crate::text::tilde(&from.display().to_string(), home);
        let shown_to = crate::text::tilde(&to.display().to_string(), home);
        let mut report = format!("{shown_to}: {} from {shown_from}", made.what);
        for note in &made.notes {
            report.push_str(&format!("\n{note}"));
        }
        Ok(Prepared {
            tool: ToolName::ConvertFile.into(),
            // The text is part of the call: what Law 1 asks about is what is written.
            input: json!({
                "from": from.display().to_string(),
                "how": how,
                "to": to.display().to_string(),
                "report": report,
                "written_text": made.text,
            }),
            target: to.display().to_string(),
            action: Some(Law1Action::WriteFile {
                path: to,
                append: false,
            }),
            note: None,
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let to = ctx.resolve_path(super::str_param(&call.input, "to")?);
            let report = super::str_param(&call.input, "report")?;
            let text = call
                .input
                .get("written_text")
                .and_then(Value::as_str)
                .ok_or_else(|| ToolError::InvalidInput("`written_text` is missing".into()))?;
            let written = write_text(call, ctx, &to, text, false).await?;
            Ok(format!("wrote {report}\n{written}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p
    }

    #[test]
    fn lines_are_sorted_as_people_sort_them() {
        assert_eq!(
            sorted("Zoe\nadam\nMia\n\nBen\nLuca\n", false),
            ["adam", "Ben", "Luca", "Mia", "Zoe"]
        );
        assert_eq!(
            sorted("10\n9\n-3\n104.25\n", false),
            ["-3", "9", "10", "104.25"]
        );
        assert_eq!(sorted("b\na\nc", true), ["c", "b", "a"]);
        assert_eq!(distinct("a\nb\na\nc\nb\n"), ["a", "b", "c"]);
    }

    #[test]
    fn a_change_of_case_keeps_every_character_and_every_line_end() {
        let dir = tempfile::tempdir().expect("dir");
        let shout = file(
            &dir,
            "shout.txt",
            "HELLO THERE\r\nGood MORNING, Ána\n\nÉTÉ 2026",
        );
        let lower = convert(&shout, &shout, "lower_case", None, None).expect("text");
        assert_eq!(lower.text, "hello there\r\ngood morning, ána\n\nété 2026");
        assert_eq!(lower.what, "4 lines, every letter in lower case");
        let upper = convert(&shout, &shout, "upper_case", None, None).expect("text");
        assert_eq!(upper.text, "HELLO THERE\r\nGOOD MORNING, ÁNA\n\nÉTÉ 2026");
    }

    #[test]
    fn a_table_s_rows_are_ordered_by_a_column_with_the_header_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let scores = file(
            &dir,
            "scores.csv",
            "name,score\nAna,72\nBo,91\nCy,\nDi,9\n\"Ed, Jr\",85\n",
        );
        let to = dir.path().join("ranked.csv");
        let made =
            convert(&scores, &to, "sort_rows_by_descending", None, Some("Score")).expect("a table");
        // By value (9 after 85, not before it as text), the empty cell last, the quoted
        // comma kept.
        assert_eq!(
            made.text,
            "name,score\nBo,91\n\"Ed, Jr\",85\nAna,72\nDi,9\nCy,\n"
        );
        assert_eq!(made.what, "5 rows by score, highest first");
        let up = convert(&scores, &to, "sort_rows_by", None, Some("name")).expect("a table");
        assert!(
            up.text
                .starts_with("name,score\nAna,72\nBo,91\nCy,\nDi,9\n"),
            "{}",
            up.text
        );
        assert_eq!(up.what, "5 rows by name, lowest first (as text)");
        // Written as the new file's format names it.
        let json = convert(
            &scores,
            &dir.path().join("r.json"),
            "sort_rows_by",
            None,
            Some("score"),
        )
        .expect("a table");
        assert!(
            json.text
                .starts_with("[\n  {\"name\": \"Di\", \"score\": 9}"),
            "{}",
            json.text
        );
        let err = convert(&scores, &to, "sort_rows_by", None, Some("points"))
            .expect_err("no such column");
        assert!(err.contains("the columns are: name, score"), "{err}");
        assert!(convert(&scores, &to, "sort_rows_by", None, None).is_err());
    }

    #[test]
    fn a_cell_is_a_json_number_only_when_it_reads_back_the_same() {
        assert_eq!(cell_value("2024"), json!(2024));
        assert_eq!(cell_value("12.5"), json!(12.5));
        assert_eq!(cell_value("-3"), json!(-3));
        for text in ["01234", "12.50", "+49 30 5550", "1e3", "", "Ana"] {
            assert_eq!(cell_value(text), json!(text), "{text}");
        }
    }

    #[test]
    fn a_csv_becomes_one_object_per_row_and_back() {
        let dir = tempfile::tempdir().expect("dir");
        let csv = file(
            &dir,
            "members.csv",
            "name,city,joined\nAna,\"Porto, PT\",2024\nBo,Oslo,2025\n",
        );
        let made = convert(&csv, &csv, "table_to_json", None, None).expect("a table");
        let parsed: Value = serde_json::from_str(&made.text).expect("JSON");
        assert_eq!(
            parsed,
            json!([
                {"name": "Ana", "city": "Porto, PT", "joined": 2024},
                {"name": "Bo", "city": "Oslo", "joined": 2025}
            ])
        );
        assert_eq!(made.what, "2 rows of 3 columns as JSON");
        // The keys in the columns' order.
        assert!(
            made.text
                .contains(r#"{"name": "Ana", "city": "Porto, PT", "joined": 2024}"#),
            "{}",
            made.text
        );
        let json = file(&dir, "members.json", &made.text);
        let back = convert(&json, &json, "table_to_csv", None, None).expect("a table");
        // A JSON object's keys have no order: they come back by name.
        assert_eq!(
            back.text,
            "city,joined,name\n\"Porto, PT\",2024,Ana\nOslo,2025,Bo\n"
        );
        let lines = convert(&csv, &csv, "table_to_jsonl", None, None).expect("a table");
        assert_eq!(lines.text.lines().count(), 2);
    }

    #[test]
    fn what_is_not_a_table_or_not_text_is_refused_with_why() {
        let dir = tempfile::tempdir().expect("dir");
        let note = file(&dir, "note.txt", "just a note\n");
        assert!(convert(&note, &note, "table_to_json", None, None).is_err());
        let bin = dir.path().join("b.bin");
        std::fs::write(&bin, [0xff, 0xfe, 0x00]).expect("write");
        let err = convert(&bin, &bin, "sort_lines", None, None).expect_err("not text");
        assert!(err.contains("not UTF-8"), "{err}");
        let err = convert(dir.path(), dir.path(), "sort_lines", None, None).expect_err("a folder");
        assert!(err.contains("is a folder"), "{err}");
        assert!(convert(&note, &note, "shuffle", None, None).is_err());
    }

    #[test]
    fn lines_are_left_out_by_what_they_hold_and_only_when_some_do() {
        let dir = tempfile::tempdir().expect("dir");
        let env = file(&dir, "env.txt", "NAME=shop\nDEBUG=true\nPORT=8000\n");
        let made = convert(
            &env,
            &env,
            "drop_lines_containing",
            Some("DEBUG=true"),
            None,
        )
        .expect("dropped");
        assert_eq!(made.text, "NAME=shop\nPORT=8000\n");
        assert!(made.what.contains("1 holding"), "{}", made.what);
        let kept = convert(&env, &env, "keep_lines_containing", Some("=s"), None).expect("kept");
        assert_eq!(kept.text, "NAME=shop\n");
        // Case counts, and a text no line holds writes nothing.
        let err =
            convert(&env, &env, "drop_lines_containing", Some("debug"), None).expect_err("none");
        assert!(err.contains("no line"), "{err}");
        assert!(convert(&env, &env, "drop_lines_containing", None, None).is_err());
        assert!(convert(&env, &env, "drop_lines_containing", Some(""), None).is_err());
        let list = file(&dir, "list.txt", "milk\n\neggs\n  \n\nbread\n");
        let made = convert(&list, &list, "drop_blank_lines", None, None).expect("dropped");
        assert_eq!(made.text, "milk\neggs\nbread\n");
        assert!(made.what.contains("3 blank"), "{}", made.what);
        let err = convert(&env, &env, "drop_blank_lines", None, None).expect_err("none blank");
        assert!(err.contains("no blank line"), "{err}");
    }

    #[test]
    fn the_addresses_of_a_file_are_written_one_per_line_each_once() {
        let dir = tempfile::tempdir().expect("dir");
        let notes = file(
            &dir,
            "notes.txt",
            "Met Ana, ana@example.org\nCall Ben\nBen: ben.ruiz@mail.test (work)\n\
             Dan <dan@home.test>, again ana@example.org; see https://shop.test/a.\n",
        );
        let to = dir.path().join("emails.txt");
        let made = convert(&notes, &to, "email_addresses", None, None).expect("made");
        assert_eq!(
            made.text,
            "ana@example.org\nben.ruiz@mail.test\ndan@home.test\n"
        );
        assert!(made.what.starts_with("3 lines"), "{}", made.what);
        let made = convert(&notes, &to, "web_addresses", None, None).expect("made");
        assert_eq!(made.text, "https://shop.test/a\n");
        // A file with none writes nothing, and says why.
        let plain = file(&dir, "plain.txt", "no address here\n");
        let err = convert(&plain, &to, "email_addresses", None, None).expect_err("none");
        assert!(err.contains("holds no email address"), "{err}");
    }
}
