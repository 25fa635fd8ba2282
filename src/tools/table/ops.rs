//! The operations on a loaded table, each printed in one fixed shape.

use std::collections::HashMap;

use chrono::Datelike as _;

use super::{Bounds, DEFAULT_LIMIT, Limits, Op, Request, Row, Table, cut, loose_key, num, plural};

/// Values or groups listed when the request gives no limit.
const DEFAULT_LIST: usize = 30;

/// Rows shown by `schema` at most.
const SCHEMA_ROWS: usize = 5;

/// Column names in the first line at most.
const HEAD_COLUMNS: usize = 60;

/// Column names listed in an unknown-column error at most.
const ERROR_COLUMNS: usize = 200;

/// Row numbers listed in a "skipped" line at most.
const SKIPPED_LISTED: usize = 10;

/// Values suggested when a filter matches nothing.
const HINT_VALUES: usize = 10;

/// The answer to `req` about `t`.
pub(super) fn answer(t: &Table, req: &Request, limits: &Limits) -> Result<String, String> {
    let max_chars = limits.max_cell_chars;
    let mut out = head_line(t, max_chars);
    for note in &t.notes {
        out.push_str("\nnote: ");
        out.push_str(note);
    }
    // A plain row count is exact even past `max_rows`: every row was counted while reading.
    let whole_count = req.op == Op::Count
        && req.column.is_none()
        && req.where_column.is_none()
        && req.equals.is_none()
        && req.bounds.is_empty();
    if t.rows.len() < t.total_rows {
        let covers = if whole_count {
            String::new()
        } else {
            format!(
                ", so this answer covers only the first {} rows",
                t.rows.len()
            )
        };
        out.push_str(&format!(
            "\nnote: the file has {} data rows; only the first {} were read{covers}",
            t.total_rows,
            t.rows.len(),
        ));
    }

    // `count` with `column` and `equals` but no `where_column` means "count where column = …".
    let (column_arg, where_arg) = match (&req.column, &req.where_column, &req.equals) {
        (Some(c), None, Some(_)) if req.op == Op::Count => (None, Some(c)),
        (c, w, _) => (c.as_ref(), w.as_ref()),
    };
    let by = req.by.as_ref().map(|c| find_column(t, c)).transpose()?;
    let column = match column_arg.map(|c| find_column(t, c)).transpose() {
        Ok(c) => c,
        // An op that adds numbers, given a column the table lacks, where the table has
        // one column of numbers: that column is the only one it can mean (a small model
        // named "total" for the amounts of a table whose columns are month, category,
        // amount), and the result says what ran.
        Err(e) => match (
            matches!(req.op, Op::Sum | Op::Mean | Op::Median | Op::GroupSum),
            sole_number_column(t, by),
        ) {
            (true, Some(c)) => {
                out.push_str(&format!(
                    "\nnote: there is no column {:?}; {} is the one column of numbers, so {} ran on it",
                    column_arg.map(String::as_str).unwrap_or_default(),
                    shown_name(t, c, max_chars),
                    req.op.name()
                ));
                Some(c)
            }
            _ => return Err(e),
        },
    };
    let filter = match (where_arg, &req.equals) {
        (Some(w), Some(e)) => Some((find_column(t, w)?, e.as_str())),
        // A filter given half keeps nothing out: the call runs on every row and says
        // so (a small model named the column it meant to count by and no value, and
        // the distinct values it asked for are the answer it needed).
        (Some(w), None) if req.bounds.is_empty() => {
            out.push_str(&format!(
                "\nnote: where_column \"{w}\" was given no value to keep (equals), so every \
                 row counts"
            ));
            None
        }
        (None, Some(e)) => {
            return Err(format!(
                "equals \"{e}\" needs where_column: the column that must have that value"
            ));
        }
        (_, None) => None,
    };

    // What the filter and the bounds say of the rows they keep, from here on.
    let filter_from = out.len();
    let all: Vec<&Row> = t.rows.iter().collect();
    let rows: Vec<&Row> = match filter {
        None => all,
        Some((col, want)) => {
            let want_lower = want.trim().to_lowercase();
            let want_num = t.number(want);
            // A month or a year asked of a column of dates: the rows whose date falls in
            // it ("March 2026" is every day of that month), by the calendar, not by text.
            // A cell that is a number is no date, whatever its digits.
            let span = crate::calc::period(want);
            let in_span = |cell: &str| {
                span.is_some_and(|(first, last)| {
                    t.number(cell).is_none()
                        && crate::calc::dates_in(cell)
                            .first()
                            .is_some_and(|d| (first..=last).contains(d))
                })
            };
            let kept: Vec<&Row> = all
                .into_iter()
                .filter(|r| {
                    let cell = r.cells[col].trim();
                    cell.to_lowercase() == want_lower
                        || want_num.is_some_and(|w| t.number(cell) == Some(w))
                        || in_span(cell)
                })
                .collect();
            let dated = kept.iter().any(|r| in_span(r.cells[col].trim()));
            let days = match span {
                Some((first, last)) if dated && first != last => {
                    format!(" (dates {first} to {last})")
                }
                _ => String::new(),
            };
            out.push_str(&format!(
                "\nwhere {} = {:?}{days}: {} of {} rows ({}%)",
                shown_name(t, col, max_chars),
                cut(want, max_chars),
                kept.len(),
                t.rows.len(),
                crate::text::percent(kept.len(), t.rows.len())
            ));
            if kept.is_empty() {
                let hint = no_match_hint(t, col, want, max_chars);
                if req.op != Op::Count {
                    return Err(format!("{}: {hint}", t.name));
                }
                out.push_str("\ncount = 0 rows\n");
                out.push_str(&hint);
                return Ok(out);
            }
            kept
        }
    };
    let rows = if req.bounds.is_empty() {
        rows
    } else {
        // The bounds hold the filter's column, or the column the op computes on; where
        // the filter keeps rows by a value (`equals`), its column is taken, and the
        // bounds hold the op's column ("the .log files of at least 1000 bytes").
        let at = if filter.is_some() {
            column_arg.or(where_arg)
        } else {
            where_arg.or(column_arg)
        };
        let Some(at) = at else {
            return Err(format!(
                "below, above, at_most and at_least need where_column: the column whose \
                 values they bound; the columns of {} are: {}",
                t.name,
                column_list(t, ERROR_COLUMNS, max_chars)
            ));
        };
        let col = find_column(t, at)?;
        let (kept, said) = within(t, rows, col, &req.bounds, max_chars)?;
        out.push_str(&said);
        if kept.is_empty() && req.op != Op::Count {
            return Err(format!("{}: no row keeps within the bounds", t.name));
        }
        kept
    };

    // An op that cannot work on its column still answers with what the filter kept:
    // "how many of the rows are …" is most often what the caller wanted (a small model
    // summed a column of text to count the card payments, and asked the failing call
    // again and again). The op's failure is said beside it; without a filter there is
    // nothing kept to say, and the call fails.
    let filter_said = out[filter_from..].trim().to_string();
    let kept_so_far = out.clone();
    let failed = |e: String| -> Result<String, String> {
        if filter_said.is_empty() {
            Err(e)
        } else {
            Ok(format!(
                "{kept_so_far}\nnot computed: {e}\n(the count of the rows the filter kept is above)"
            ))
        }
    };
    let cap = limits.max_shown_rows.max(1);
    let shown = |default: usize| {
        let asked = if req.limit == 0 { default } else { req.limit };
        asked.min(cap)
    };
    let need = |col: Option<usize>, what: &str| -> Result<usize, String> {
        col.ok_or_else(|| {
            format!(
                "{} needs {what}; the columns of {} are: {}",
                req.op.name(),
                t.name,
                column_list(t, ERROR_COLUMNS, max_chars)
            )
        })
    };

    let body = match req.op {
        Op::Schema => schema(t, &rows, shown(SCHEMA_ROWS).min(SCHEMA_ROWS), max_chars),
        Op::Rows => list_rows(t, &rows, column, shown(DEFAULT_LIMIT), max_chars),
        Op::Count => match column {
            None if whole_count => format!("count = {}", plural(t.total_rows, "row", "rows")),
            None => format!("count = {}", plural(rows.len(), "row", "rows")),
            Some(c) => {
                let filled = rows
                    .iter()
                    .filter(|r| !r.cells[c].trim().is_empty())
                    .count();
                // Both sides, each with its own line: "how many have no email" is
                // the second, and a small model reading only the first answered it.
                let name = shown_name(t, c, max_chars);
                format!(
                    "count of rows with a value in {name} = {filled} (of {})\n\
                     count of rows with no value in {name} (empty) = {}",
                    plural(rows.len(), "row", "rows"),
                    rows.len() - filled
                )
            }
        },
        Op::Distinct => {
            let c = need(column.or(by), "column (whose distinct values to list)")?;
            distinct(t, &rows, c, shown(DEFAULT_LIST), max_chars)
        }
        Op::Sum | Op::Mean => {
            let c = need(column, "column (the numbers to add up)")?;
            let nums = numbers(t, &rows, c);
            // A sum over a column of text, with no filter, where the table has one
            // column of numbers: the sum of those numbers for each of its values ("the
            // month with the highest total" asked as the sum of month).
            if nums.values.is_empty()
                && req.op == Op::Sum
                && filter_said.is_empty()
                && let Some(n) = sole_number_column(t, Some(c))
            {
                let grouped = Request {
                    op: Op::GroupSum,
                    by: Some(t.columns[c].clone()),
                    column: Some(t.columns[n].clone()),
                    ..req.clone()
                };
                let out = answer(t, &grouped, limits)?;
                return Ok(format!(
                    "{out}\nnote: {} holds no numbers, so the sum is of {}, for each {} (group_sum)",
                    shown_name(t, c, max_chars),
                    shown_name(t, n, max_chars),
                    shown_name(t, c, max_chars)
                ));
            }
            if nums.values.is_empty() && !(req.op == Op::Sum && rows.is_empty()) {
                return failed(no_numbers(t, &rows, c, req.op, max_chars));
            }
            let mut sum = num::Sum::default();
            for (_, v) in &nums.values {
                sum.add(*v);
            }
            let n = nums.values.len();
            let name = shown_name(t, c, max_chars);
            let line = if req.op == Op::Sum {
                format!(
                    "sum of {name} = {} (over {})",
                    num::format(sum.value()),
                    plural(n, "row", "rows")
                )
            } else {
                format!(
                    "mean of {name} = {} (sum {} / {})",
                    num::format(sum.value() / n as f64),
                    num::format(sum.value()),
                    plural(n, "row", "rows")
                )
            };
            with_skipped(line, &nums.skipped(&name, "a number"))
        }
        Op::Median => {
            let c = need(column, "column (the numbers whose middle value to find)")?;
            let nums = numbers(t, &rows, c);
            if nums.values.is_empty() {
                return failed(no_numbers(t, &rows, c, req.op, max_chars));
            }
            let mut sorted: Vec<f64> = nums.values.iter().map(|(_, v)| *v).collect();
            sorted.sort_by(f64::total_cmp);
            let n = sorted.len();
            let middle = if n % 2 == 1 {
                sorted[n / 2]
            } else {
                (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
            };
            let name = shown_name(t, c, max_chars);
            let how = if n % 2 == 1 {
                format!("the middle of {} in order", plural(n, "row", "rows"))
            } else {
                format!(
                    "halfway between the two middle values {} and {} of {} in order",
                    num::format(sorted[n / 2 - 1]),
                    num::format(sorted[n / 2]),
                    plural(n, "row", "rows")
                )
            };
            const SHOWN_VALUES: usize = 15;
            let values = if n <= SHOWN_VALUES {
                format!(
                    ": {}",
                    sorted
                        .iter()
                        .map(|v| num::format(*v))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                String::new()
            };
            let line = format!("median of {name} = {} ({how}{values})", num::format(middle));
            with_skipped(line, &nums.skipped(&name, "a number"))
        }
        Op::Min | Op::Max | Op::MinRow | Op::MaxRow => {
            let c = need(column, "column (the values to compare)")?;
            let highest = matches!(req.op, Op::Max | Op::MaxRow);
            let ext = match extreme(t, &rows, c, highest, req.op, max_chars) {
                Ok(ext) => ext,
                Err(e) => return failed(e),
            };
            let name = shown_name(t, c, max_chars);
            let word = if highest { "highest" } else { "lowest" };
            let line = match req.op {
                // The value with the row that holds it: asked which one, the answer is in
                // the row, not in the value.
                Op::Min | Op::Max => {
                    let mut s = format!(
                        "{} of {name} = {} (over {})",
                        if highest { "max" } else { "min" },
                        ext.value,
                        plural(ext.over, "row", "rows")
                    );
                    match ext.rows.as_slice() {
                        [one] => s.push_str(&format!(
                            "\nthe row holding it (row {}): {}",
                            one.n,
                            row_text(t, one, None, max_chars)
                        )),
                        [] => {}
                        tied => s.push_str(&format!(
                            "\n{} rows hold it ({} lists them)",
                            tied.len(),
                            if highest { "max_row" } else { "min_row" }
                        )),
                    }
                    s
                }
                _ => match ext.rows.as_slice() {
                    [one] => format!(
                        "row with the {word} {name} (row {}): {}",
                        one.n,
                        row_text(t, one, None, max_chars)
                    ),
                    tied => {
                        let limit = shown(DEFAULT_LIMIT);
                        let mut s = format!(
                            "{} rows share the {word} {name} ({}):",
                            tied.len(),
                            ext.value
                        );
                        for r in tied.iter().take(limit) {
                            s.push_str(&format!(
                                "\nrow {}: {}",
                                r.n,
                                row_text(t, r, None, max_chars)
                            ));
                        }
                        if tied.len() > limit {
                            s.push_str(&format!(
                                "\n… and {} more rows with {name} = {}",
                                tied.len() - limit,
                                ext.value
                            ));
                        }
                        s
                    }
                },
            };
            with_skipped(line, &ext.skipped)
        }
        Op::GroupCount => {
            let key = need(
                by.or(column),
                "by (the column whose values form the groups)",
            )?;
            let mut groups: HashMap<&str, usize> = HashMap::new();
            for r in &rows {
                *groups.entry(r.cells[key].trim()).or_default() += 1;
            }
            let mut sorted: Vec<(&str, usize)> = groups.into_iter().collect();
            sorted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| name_order(a.0, b.0)));
            let items: Vec<String> = sorted
                .iter()
                .map(|(k, n)| format!("{} = {n}", list_value(k, max_chars)))
                .collect();
            let line = format!(
                "count by {} ({}): {}",
                shown_name(t, key, max_chars),
                plural(sorted.len(), "group", "groups"),
                join_capped(&items, shown(DEFAULT_LIST), "groups")
            );
            line + &shares(&sorted, rows.len(), shown(DEFAULT_LIST), max_chars)
        }
        Op::GroupSum => {
            let key = need(
                by,
                "by (the column whose values form the groups) and column (the numbers to add up)",
            )?;
            let c = need(
                column,
                "column (the numbers to add up) and by (the column whose values form the groups)",
            )?;
            let nums = numbers(t, &rows, c);
            if nums.values.is_empty() {
                return failed(no_numbers(t, &rows, c, req.op, max_chars));
            }
            let mut groups: HashMap<&str, num::Sum> = HashMap::new();
            for (r, v) in &nums.values {
                groups.entry(r.cells[key].trim()).or_default().add(*v);
            }
            let mut sorted: Vec<(&str, f64)> =
                groups.into_iter().map(|(k, s)| (k, s.value())).collect();
            sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| name_order(a.0, b.0)));
            let items: Vec<String> = sorted
                .iter()
                .map(|(k, v)| format!("{} = {}", list_value(k, max_chars), num::format(*v)))
                .collect();
            let name = shown_name(t, c, max_chars);
            let line = format!(
                "sum of {name} by {} ({}): {}",
                shown_name(t, key, max_chars),
                plural(sorted.len(), "group", "groups"),
                join_capped(&items, shown(DEFAULT_LIST), "groups")
            );
            with_skipped(line, &nums.skipped(&name, "a number"))
        }
    };
    out.push('\n');
    out.push_str(&body);
    Ok(out)
}

/// The first line: file, format, data rows, columns.
fn head_line(t: &Table, max_chars: usize) -> String {
    let rows = if t.rows.len() < t.total_rows {
        format!(
            "{} data rows (only the first {} read)",
            t.total_rows,
            t.rows.len()
        )
    } else {
        plural(t.total_rows, "data row", "data rows")
    };
    let columns = if t.columns.is_empty() {
        "no columns".to_owned()
    } else {
        format!(
            "{}: {}",
            plural(t.columns.len(), "column", "columns"),
            column_list(t, HEAD_COLUMNS, max_chars)
        )
    };
    format!("{}: {}, {rows}, {columns}", t.name, t.format)
}

/// The column names, the first `max` of them.
fn column_list(t: &Table, max: usize, max_chars: usize) -> String {
    if t.columns.is_empty() {
        return "none (the file has no columns)".to_owned();
    }
    // Columns named by their place (a table with no header) say what they hold: a
    // caller that asked for "ip" sees which field holds addresses.
    let named_by_place = t.format == super::source::SPACED_FORMAT
        && t.columns.first().is_some_and(|c| c == "field1");
    let names: Vec<String> = t
        .columns
        .iter()
        .enumerate()
        .take(max)
        .map(|(i, c)| match t.rows.first().map(|r| r.cells[i].as_str()) {
            Some(example) if named_by_place => {
                format!("{} (e.g. {})", cut(c, max_chars), cut(example, max_chars))
            }
            _ => cut(c, max_chars).into_owned(),
        })
        .collect();
    let more = t.columns.len().saturating_sub(max);
    if more > 0 {
        format!("{}, … and {more} more", names.join(", "))
    } else {
        names.join(", ")
    }
}

/// Column `i`'s name as printed.
/// The rows of `rows` whose value in `col` keeps within `bounds`, with the line that
/// says so: the bounds, how many rows they keep of how many, and the rows left out for
/// holding no value of the bounds' kind (no number, no date) with what their cells hold.
fn within<'t>(
    t: &Table,
    rows: Vec<&'t Row>,
    col: usize,
    bounds: &Bounds,
    max_chars: usize,
) -> Result<(Vec<&'t Row>, String), String> {
    // A bound is a number where it reads as one, else a date: the column's cells are
    // read the same way, and a cell of neither kind keeps within no bound.
    enum Value {
        Number(f64),
        Date(chrono::NaiveDate),
    }
    let read = |text: &str| -> Option<Value> {
        t.number(text.trim()).map(Value::Number).or_else(|| {
            crate::calc::dates_in(text)
                .first()
                .copied()
                .map(Value::Date)
        })
    };
    let mut given = Vec::new();
    for (cmp, text) in bounds.each() {
        let bound = read(text).ok_or_else(|| {
            format!(
                "the bound {} {text:?} is neither a number nor a date",
                cmp.sign()
            )
        })?;
        given.push((cmp, text, bound));
    }
    let mut unreadable = 0;
    let kept: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| {
            let cell = r.cells[col].trim();
            let keeps = given
                .iter()
                .map(|(cmp, _, bound)| match (bound, read(cell)) {
                    (Value::Number(b), Some(Value::Number(v))) => Some(cmp.keeps(v, *b)),
                    (Value::Date(b), Some(Value::Date(v))) => {
                        Some(cmp.keeps(v.num_days_from_ce() as f64, b.num_days_from_ce() as f64))
                    }
                    _ => None,
                });
            let keeps: Option<Vec<bool>> = keeps.collect();
            match keeps {
                Some(all) => all.into_iter().all(|k| k),
                None => {
                    unreadable += 1;
                    false
                }
            }
        })
        .collect();
    let name = shown_name(t, col, max_chars);
    let said: Vec<String> = given
        .iter()
        .map(|(cmp, text, _)| format!("{name} {} {}", cmp.sign(), cut(text, max_chars)))
        .collect();
    let mut line = format!(
        "\nwhere {}: {} of {} rows ({}%)",
        said.join(" and "),
        kept.len(),
        rows.len(),
        crate::text::percent(kept.len(), rows.len())
    );
    if unreadable > 0 {
        line.push_str(&format!(
            "; {} left out: {name} holds no value of the bound's kind there",
            plural(unreadable, "row", "rows")
        ));
    }
    Ok((kept, line))
}

/// The columns (other than `besides`) whose cells in `rows` are all numbers, with at
/// least one filled.
fn number_columns(t: &Table, rows: &[&Row], besides: Option<usize>) -> Vec<usize> {
    (0..t.columns.len())
        .filter(|c| Some(*c) != besides)
        .filter(|c| {
            let mut cells = rows
                .iter()
                .map(|r| r.cells[*c].trim())
                .filter(|x| !x.is_empty())
                .peekable();
            cells.peek().is_some() && cells.all(|x| t.number(x).is_some())
        })
        .collect()
}

/// The one column whose every filled cell is a number (other than `besides`), if the
/// table has exactly one.
fn sole_number_column(t: &Table, besides: Option<usize>) -> Option<usize> {
    let all: Vec<&Row> = t.rows.iter().collect();
    match number_columns(t, &all, besides)[..] {
        [one] => Some(one),
        _ => None,
    }
}

fn shown_name(t: &Table, i: usize, max_chars: usize) -> String {
    cut(&t.columns[i], max_chars).into_owned()
}

/// The column `want` names: exactly (any name, in a list of numbers), else ignoring case, else ignoring spaces, underscores
/// and punctuation, else as a unique prefix, else as the last part of a flattened `a.b` name.
fn find_column(t: &Table, want: &str) -> Result<usize, String> {
    let cols = &t.columns;
    if let Some(i) = cols.iter().position(|c| c == want) {
        return Ok(i);
    }
    // A list of numbers has one column and no header to name it: whatever name a call
    // gives it ("amount", "reading") can only mean that column.
    if t.format == super::source::NUMBER_LIST_FORMAT {
        return Ok(0);
    }
    let trimmed = want.trim();
    let lower = trimmed.to_lowercase();
    let key = loose_key(trimmed);
    type Rule<'a> = Box<dyn Fn(&str) -> bool + 'a>;
    let mut rules: Vec<(&str, Rule)> = vec![
        ("", Box::new(|c: &str| c.trim() == trimmed)),
        ("", Box::new(|c: &str| c.trim().to_lowercase() == lower)),
    ];
    if !key.is_empty() {
        rules.push(("", Box::new(|c: &str| loose_key(c) == key)));
        rules.push((
            "starts with",
            Box::new(|c: &str| loose_key(c).starts_with(&key)),
        ));
        rules.push((
            "ends with",
            Box::new(|c: &str| {
                c.rsplit('.')
                    .next()
                    .is_some_and(|last| loose_key(last) == key)
            }),
        ));
    }
    for (how, rule) in &rules {
        let hits: Vec<usize> = (0..cols.len()).filter(|&i| rule(&cols[i])).collect();
        match hits.as_slice() {
            [] => {}
            [one] => return Ok(*one),
            many => {
                let names: Vec<&str> = many.iter().map(|&i| cols[i].as_str()).collect();
                let how = if how.is_empty() { "matches" } else { how };
                return Err(format!(
                    "{}: column \"{want}\" is ambiguous: it {how} {}; give one of them exactly",
                    t.name,
                    names.join(", ")
                ));
            }
        }
    }
    if cols.is_empty() {
        return Err(format!(
            "{}: no column \"{want}\": the file has no columns (it is empty)",
            t.name
        ));
    }
    let suggestion = cols
        .iter()
        .map(|c| (edit_distance(&loose_key(c), &key), c))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, _)| *d <= (key.chars().count() / 3).max(1))
        .map(|(_, c)| format!(" (did you mean {c}?)"))
        .unwrap_or_default();
    Err(format!(
        "{}: no column \"{want}\"{suggestion}; the columns are: {}",
        t.name,
        column_list(t, ERROR_COLUMNS, usize::MAX)
    ))
}

/// Edit distance between `a` and `b` in characters, a swap of two neighbours counting one.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * width + j] = if i == 0 {
                j
            } else if j == 0 {
                i
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (d[(i - 1) * width + j - 1] + cost)
                    .min(d[(i - 1) * width + j] + 1)
                    .min(d[i * width + j - 1] + 1);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[(i - 2) * width + j - 2] + 1);
                }
                v
            };
        }
    }
    d[a.len() * width + b.len()]
}

/// What to say when no row has `want` in column `col`: the commonest values there.
fn no_match_hint(t: &Table, col: usize, want: &str, max_chars: usize) -> String {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for r in &t.rows {
        let cell = r.cells[col].trim();
        if !cell.is_empty() {
            *counts.entry(cell).or_default() += 1;
        }
    }
    let name = shown_name(t, col, max_chars);
    let mut sorted: Vec<(&str, usize)> = counts.into_iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| name_order(a.0, b.0)));
    if sorted.is_empty() {
        return format!(
            "no row has {name} = {:?}: {name} is empty in all {}",
            cut(want, max_chars),
            plural(t.rows.len(), "row", "rows")
        );
    }
    let items: Vec<String> = sorted
        .iter()
        .map(|(v, n)| format!("{} ({n})", list_value(v, max_chars)))
        .collect();
    format!(
        "no row has {name} = {:?} (of {}); the commonest values of {name} are: {}",
        cut(want, max_chars),
        plural(t.rows.len(), "row", "rows"),
        join_capped(&items, HINT_VALUES, "values")
    )
}

/// The cells of one column that are numbers, and the rows whose cell is not.
struct Numbers<'a> {
    /// Rows with their numbers.
    values: Vec<(&'a Row, f64)>,
    /// Numbers of the rows whose cell is text.
    not_numbers: Vec<usize>,
    /// Numbers of the rows whose cell is empty.
    empty: Vec<usize>,
}

impl Numbers<'_> {
    /// The "skipped …" lines for column `name`, the values being `what` ("a number").
    fn skipped(&self, name: &str, what: &str) -> Vec<String> {
        skipped_lines(&self.not_numbers, &self.empty, name, what)
    }
}

/// `skipped 2 rows whose price is not a number (rows 5, 9)` and its empty-cell sibling.
fn skipped_lines(not_values: &[usize], empty: &[usize], name: &str, what: &str) -> Vec<String> {
    let rows = |ns: &[usize]| {
        let listed: Vec<String> = ns
            .iter()
            .take(SKIPPED_LISTED)
            .map(usize::to_string)
            .collect();
        let more = if ns.len() > SKIPPED_LISTED {
            ", …"
        } else {
            ""
        };
        let word = if ns.len() == 1 { "row" } else { "rows" };
        format!("{word} {}{more}", listed.join(", "))
    };
    let mut out = Vec::new();
    if !not_values.is_empty() {
        out.push(format!(
            "skipped {} whose {name} is not {what} ({})",
            plural(not_values.len(), "row", "rows"),
            rows(not_values)
        ));
    }
    if !empty.is_empty() {
        out.push(format!(
            "skipped {} with no {name} ({})",
            plural(empty.len(), "row", "rows"),
            rows(empty)
        ));
    }
    out
}

/// The numbers in column `col` of `rows`.
fn numbers<'a>(t: &Table, rows: &[&'a Row], col: usize) -> Numbers<'a> {
    let mut out = Numbers {
        values: Vec::with_capacity(rows.len()),
        not_numbers: Vec::new(),
        empty: Vec::new(),
    };
    for r in rows {
        let cell = r.cells[col].trim();
        if cell.is_empty() {
            out.empty.push(r.n);
        } else if let Some(v) = t.number(cell) {
            out.values.push((r, v));
        } else {
            out.not_numbers.push(r.n);
        }
    }
    out
}

/// Why a numeric op has nothing to work on in column `col`.
fn no_numbers(t: &Table, rows: &[&Row], col: usize, op: Op, max_chars: usize) -> String {
    let name = shown_name(t, col, max_chars);
    if rows.is_empty() {
        return format!(
            "{}: there are no data rows, so no {} of {name}",
            t.name,
            op.name()
        );
    }
    let mut examples: Vec<String> = Vec::new();
    for r in rows {
        let cell = r.cells[col].trim();
        if !cell.is_empty() && !examples.iter().any(|e| e == cell) {
            examples.push(cell.to_owned());
            if examples.len() == 3 {
                break;
            }
        }
    }
    if examples.is_empty() {
        return format!(
            "{}: {name} is empty in all {}, so no {} of it",
            t.name,
            plural(rows.len(), "row", "rows"),
            op.name()
        );
    }
    let shown: Vec<String> = examples
        .iter()
        .map(|e| format!("{:?}", cut(e, max_chars)))
        .collect();
    // The lowest or highest of a text column is most often "which one has the lowest of
    // a number": that is min_row or max_row on the number column, whose row names it.
    let row_op = match op {
        Op::Min | Op::MinRow => Some(("lowest", "min_row")),
        Op::Max | Op::MaxRow => Some(("highest", "max_row")),
        _ => None,
    };
    let numeric: Vec<String> = number_columns(t, rows, Some(col))
        .into_iter()
        .map(|c| shown_name(t, c, max_chars))
        .collect();
    let which = match row_op {
        Some((end, row_op)) if !numeric.is_empty() => format!(
            "; to find which {name} has the {end} value of a number column, call {row_op} with \
             that column ({}): its row shows the {name}",
            numeric.join(", ")
        ),
        _ => String::new(),
    };
    format!(
        "{}: no value of {name} is a number (e.g. {}), so {} cannot work on it{which}; for text use distinct or group_count",
        t.name,
        shown.join(", "),
        op.name()
    )
}

/// The lowest or highest value of a column and the rows that have it.
struct Extreme<'a> {
    /// The value as printed.
    value: String,
    /// The rows that have it.
    rows: Vec<&'a Row>,
    /// Rows compared.
    over: usize,
    /// The "skipped …" lines.
    skipped: Vec<String>,
}

/// The lowest (or `highest`) value of column `col`: numbers, else ISO-like dates.
fn extreme<'a>(
    t: &Table,
    rows: &[&'a Row],
    col: usize,
    highest: bool,
    op: Op,
    max_chars: usize,
) -> Result<Extreme<'a>, String> {
    let name = shown_name(t, col, max_chars);
    let nums = numbers(t, rows, col);
    let better = |a: f64, b: f64| if highest { a > b } else { a < b };
    if let Some(&(_, first)) = nums.values.first() {
        let best = nums
            .values
            .iter()
            .fold(first, |acc, &(_, v)| if better(v, acc) { v } else { acc });
        return Ok(Extreme {
            value: num::format(best),
            rows: nums
                .values
                .iter()
                .filter(|(_, v)| *v == best)
                .map(|(r, _)| *r)
                .collect(),
            over: nums.values.len(),
            skipped: nums.skipped(&name, "a number"),
        });
    }
    let mut dated: Vec<(&'a Row, String)> = Vec::new();
    let mut not_dates = Vec::new();
    for r in rows {
        let cell = r.cells[col].trim();
        if cell.is_empty() {
            continue;
        }
        match num::date_key(cell) {
            Some(k) => dated.push((r, k)),
            None => not_dates.push(r.n),
        }
    }
    let best = if highest {
        dated.iter().map(|(_, k)| k).max()
    } else {
        dated.iter().map(|(_, k)| k).min()
    };
    let Some(best) = best.cloned() else {
        return Err(no_numbers(t, rows, col, op, max_chars));
    };
    let at: Vec<&'a Row> = dated
        .iter()
        .filter(|(_, k)| *k == best)
        .map(|(r, _)| *r)
        .collect();
    let value = at
        .first()
        .map(|r| cut(r.cells[col].trim(), max_chars).into_owned())
        .unwrap_or_default();
    Ok(Extreme {
        value,
        rows: at,
        over: dated.len(),
        skipped: skipped_lines(&not_dates, &nums.empty, &name, "a date"),
    })
}

/// `line` followed by the skipped lines.
fn with_skipped(line: String, skipped: &[String]) -> String {
    let mut out = line;
    for s in skipped {
        out.push('\n');
        out.push_str(s);
    }
    out
}

/// Orders group names: case-insensitively, then exactly.
fn name_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.to_lowercase()
        .cmp(&b.to_lowercase())
        .then_with(|| a.cmp(b))
}

/// `a, b, c` with the first `max` items, then `… and N more <what>` (`what` is plural; its
/// singular drops the final `s`).
fn join_capped(items: &[String], max: usize, what: &str) -> String {
    let mut s = items
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        let more = items.len() - max;
        let word = if more == 1 {
            what.strip_suffix('s').unwrap_or(what)
        } else {
            what
        };
        s.push_str(&format!(
            ", … and {more} more {word} (raise limit to see them)"
        ));
    }
    s
}

/// A value in a list: bare when plain, quoted when it has commas, `=`, quotes or edge spaces.
fn list_value(v: &str, max_chars: usize) -> String {
    if v.is_empty() {
        return "(empty)".to_owned();
    }
    let v = cut(v, max_chars);
    let plain = !v.contains([',', '=', '"', '\\', '(', ')'])
        && !v.chars().any(char::is_control)
        && v.trim() == v;
    if plain {
        v.into_owned()
    } else {
        format!("{v:?}")
    }
}

/// A cell in a row: numbers as written, text quoted, empty as `""`.
fn cell_text(t: &Table, cell: &str, max_chars: usize) -> String {
    let c = cell.trim();
    if !c.is_empty() && t.number(c).is_some() {
        cut(c, max_chars).into_owned()
    } else {
        format!("{:?}", cut(c, max_chars))
    }
}

/// `a = 1, b = "x"`: the whole row, or only column `only`.
fn row_text(t: &Table, row: &Row, only: Option<usize>, max_chars: usize) -> String {
    let parts: Vec<String> = (0..t.columns.len())
        .filter(|&i| only.is_none_or(|o| o == i))
        .map(|i| {
            format!(
                "{} = {}",
                shown_name(t, i, max_chars),
                cell_text(t, &row.cells[i], max_chars)
            )
        })
        .collect();
    parts.join(", ")
}

/// `row 1: …` lines for the first `limit` rows.
fn list_rows(
    t: &Table,
    rows: &[&Row],
    only: Option<usize>,
    limit: usize,
    max_chars: usize,
) -> String {
    if rows.is_empty() {
        return "no rows".to_owned();
    }
    let mut lines: Vec<String> = rows
        .iter()
        .take(limit)
        .map(|r| format!("row {}: {}", r.n, row_text(t, r, only, max_chars)))
        .collect();
    if rows.len() > limit {
        lines.push(format!(
            "… {} more rows (raise limit, or filter with where_column and equals)",
            rows.len() - limit
        ));
    }
    lines.join("\n")
}

/// `12 distinct values of customer: a (3 rows), b (1 row) …`, in order of first
/// appearance, each with the rows that hold it: a question about one value ("how many
/// have the level error") finds its count beside it rather than the number of values.
fn distinct(t: &Table, rows: &[&Row], col: usize, limit: usize, max_chars: usize) -> String {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    let mut empty = 0usize;
    for r in rows {
        let cell = r.cells[col].trim();
        if cell.is_empty() {
            empty += 1;
            continue;
        }
        let n = seen.entry(cell).or_insert(0);
        if *n == 0 {
            order.push(cell);
        }
        *n += 1;
    }
    let items: Vec<String> = order
        .iter()
        .map(|v| {
            let n = seen.get(v).copied().unwrap_or(0);
            format!(
                "{} ({})",
                list_value(v, max_chars),
                plural(n, "row", "rows")
            )
        })
        .collect();
    let mut s = format!(
        "{} of {}: {}",
        plural(order.len(), "distinct value", "distinct values"),
        shown_name(t, col, max_chars),
        join_capped(&items, limit, "values")
    );
    if empty > 0 {
        s.push_str(&format!(
            "\ncount of rows with no value in {} (empty) = {empty}",
            shown_name(t, col, max_chars)
        ));
    }
    let counted: Vec<(&str, usize)> = order
        .iter()
        .map(|v| (*v, seen.get(v).copied().unwrap_or(0)))
        .collect();
    s + &shares(&counted, rows.len(), limit, max_chars)
}

/// Each group's share of the rows, computed here so that no percentage is a model's
/// arithmetic: a line "share of the 8 rows: open 50%, closed 37.5%, …" (one decimal at
/// most), or nothing when there are no rows.
fn shares(groups: &[(&str, usize)], total: usize, limit: usize, max_chars: usize) -> String {
    if total == 0 || groups.is_empty() {
        return String::new();
    }
    let items: Vec<String> = groups
        .iter()
        .map(|(k, n)| {
            format!(
                "{} {}%",
                list_value(k, max_chars),
                crate::text::percent(*n, total)
            )
        })
        .collect();
    format!(
        "\nshare of the {}: {}",
        plural(total, "row", "rows"),
        join_capped(&items, limit, "groups")
    )
}

/// Each column's type and two example values, then the first rows.
fn schema(t: &Table, rows: &[&Row], limit: usize, max_chars: usize) -> String {
    let mut out = String::from("columns:");
    if t.columns.is_empty() {
        out.push_str(" none");
    }
    for (i, name) in t.columns.iter().enumerate() {
        let mut filled = 0usize;
        let mut numbers = 0usize;
        let mut dates = 0usize;
        let mut examples: Vec<&str> = Vec::new();
        for r in rows {
            let cell = r.cells[i].trim();
            if cell.is_empty() {
                continue;
            }
            filled += 1;
            if t.number(cell).is_some() {
                numbers += 1;
            } else if num::is_date(cell) {
                dates += 1;
            }
            if examples.len() < 2 && !examples.contains(&cell) {
                examples.push(cell);
            }
        }
        let empty = rows.len() - filled;
        let kind = if filled == 0 {
            "empty".to_owned()
        } else if numbers == filled {
            "number".to_owned()
        } else if dates == filled {
            "date".to_owned()
        } else if numbers * 2 > filled {
            format!(
                "number ({})",
                plural(
                    filled - numbers,
                    "cell is not a number",
                    "cells are not numbers"
                )
            )
        } else if dates * 2 > filled {
            format!(
                "date ({})",
                plural(filled - dates, "cell is not a date", "cells are not dates")
            )
        } else {
            "text".to_owned()
        };
        let empties = if empty > 0 && filled > 0 {
            format!(", {} empty", plural(empty, "row", "rows"))
        } else {
            String::new()
        };
        let eg = if examples.is_empty() {
            String::new()
        } else {
            let shown: Vec<String> = examples
                .iter()
                .map(|e| cell_text(t, e, max_chars))
                .collect();
            format!(", e.g. {}", shown.join(", "))
        };
        out.push_str(&format!(
            "\n  {}: {kind}{empties}{eg}",
            cut(name, max_chars)
        ));
    }
    let n = limit.min(rows.len());
    if n > 0 {
        out.push_str(&format!("\nfirst {}:", plural(n, "row", "rows")));
        for r in rows.iter().take(n) {
            out.push_str(&format!(
                "\n  row {}: {}",
                r.n,
                row_text(t, r, None, max_chars)
            ));
        }
    } else {
        out.push_str("\nno data rows");
    }
    out
}
