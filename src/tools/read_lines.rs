//! `read_lines`: a text file's lines chosen by code — by what they contain and where
//! they are — each shown with its line number. A small model that reads a log or a list
//! whole and picks "the last warning", "line 4" or "how many are still open" by eye
//! picks a neighbour, a line of another kind, or miscounts; here the selection and the
//! count are made by code and the model copies them.
//!
//! The ops: `count` (how many lines, or how many contain the text), `first` and `last`
//! (the first or last `take` lines, default 1, of those that contain the `text`), `all`
//! (every such line, up to a cap, then how many more), `distinct` (each different line
//! with how often it occurs, most frequent first) and `at` (the file's line at that
//! position).
//! `text` matches ignoring case, and every answer says so; line numbers are the
//! file's own, counted from 1, blank lines included.
//!
//! Read-only: it never needs Law 1.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};

use super::{
    Choices, Form, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// Largest file read; a larger one is read up to here and the answer says so.
const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// Lines shown at most by `all`, `first`, `last` and `distinct`.
const MAX_SHOWN: usize = 50;
/// Characters of one line shown at most.
const MAX_LINE_CHARS: usize = 300;

/// Lines a filtered count shows beside the count when it found at most this many: a
/// count of "which line mentions …" then carries the line, and nobody asks again.
const COUNT_SHOWS: usize = 3;

/// The ops, in the order the grammar offers them.
const OPS: [&str; 6] = ["count", "first", "last", "all", "distinct", "at"];

/// What each op needs beyond the file: `at` needs the line's number.
const FORMS: [Form; 2] = [
    Form {
        param: "op",
        values: &["count", "first", "last", "all", "distinct"],
        requires: &[],
    },
    Form {
        param: "op",
        values: &["at"],
        requires: &["position"],
    },
];

/// In the order the grammar writes them (by name): the op first, then the file, the
/// position only `at` needs, how many lines to show, and the text lines must contain.
const PARAMS: [Param; 5] = [
    Param {
        name: Cow::Borrowed("path"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("the text file: absolute, ~/…, or relative to the sub-task's folder"),
        choices: Choices::Open,
    },
    Param {
        name: Cow::Borrowed("op"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed(
            "count: how many lines; first / last: the first or last lines; all: every line; \
             distinct: each different line with how often it occurs; at: the line at `position`",
        ),
        choices: Choices::Fixed(&OPS),
    },
    Param {
        name: Cow::Borrowed("text"),
        kind: Cow::Borrowed("string"),
        required: false,
        about: Cow::Borrowed(
            "only the lines that contain this text (case is ignored); null for every line",
        ),
        choices: Choices::Open,
    },
    Param {
        name: Cow::Borrowed("take"),
        kind: Cow::Borrowed("integer"),
        required: false,
        about: Cow::Borrowed("how many lines first, last or distinct show (first and last: 1)"),
        choices: Choices::Open,
    },
    Param {
        // Every name sorts after `op`: under a grammar the model writes the properties
        // in name order, and chose the text, a limit and a position before the op
        // (filling the text with the file's name, and a position that left only `at`).
        name: Cow::Borrowed("position"),
        kind: Cow::Borrowed("integer"),
        required: false,
        about: Cow::Borrowed("for op at: which line of the file, 1 for the first"),
        choices: Choices::Open,
    },
];

/// What to select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Count,
    First,
    Last,
    All,
    Distinct,
    At,
}

impl Op {
    /// The op a name means, in any case, with the aliases a model writes.
    fn parse(name: &str) -> Option<Op> {
        Some(match super::lenient_key(name).as_str() {
            "count" | "number" | "total" | "howmany" => Op::Count,
            "first" | "head" | "top" | "start" => Op::First,
            "last" | "tail" | "end" | "bottom" => Op::Last,
            "all" | "lines" | "list" | "show" | "read" | "matching" | "filter" | "grep" => Op::All,
            "distinct" | "unique" | "frequency" | "frequencies" | "mostcommon" | "groupcount"
            | "countby" | "counts" => Op::Distinct,
            "at" | "line" | "nth" | "lineat" | "get" => Op::At,
            _ => return None,
        })
    }
}

/// One call's request, parsed leniently from the model's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Request {
    op: Op,
    /// Lowercased text a line must contain, if any.
    containing: Option<String>,
    /// Lines shown; `None` is the op's default.
    limit: Option<usize>,
    /// Which of the chosen lines `at` shows, from 1.
    position: Option<usize>,
}

/// A non-negative whole number written as a number or a string.
fn count_param(v: Option<&Value>, name: &str) -> Result<Option<usize>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
            (Some(u), _) => Ok(Some(usize::try_from(u).unwrap_or(usize::MAX))),
            (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 => Ok(Some(f.min(1e12) as usize)),
            _ => Err(format!(
                "{name} must be a whole number of 0 or more, not {n}"
            )),
        },
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{name} must be a whole number, not \"{s}\"")),
        Some(other) => Err(format!("{name} must be a whole number, not {other}")),
    }
}

impl Request {
    fn from_json(input: &Value) -> Result<Request, String> {
        let Some(obj) = input.as_object() else {
            return Err("the parameters must be a JSON object".to_owned());
        };
        let lookup = |names: &[&str]| super::lenient_param(obj, names);
        let valid = OPS.join(", ");
        let op = match lookup(&["op", "operation", "action"]) {
            Some(Value::String(s)) => {
                Op::parse(s).ok_or_else(|| format!("unknown op \"{s}\"; the ops are: {valid}"))?
            }
            None | Some(Value::Null) => {
                return Err(format!("op is required; the ops are: {valid}"));
            }
            Some(other) => return Err(format!("op must be one of {valid}, not {other}")),
        };
        let containing = match lookup(&["text", "containing", "contains", "match", "pattern"]) {
            None | Some(Value::Null) => None,
            // Blanks around the text are a model's slip, never meant: " autumn" found
            // nothing in a file whose first line is "Autumn".
            // So is the word null written as text for "no filter".
            Some(Value::String(s)) => Some(s.trim().to_lowercase())
                .filter(|s| !s.is_empty() && !matches!(s.as_str(), "null" | "none")),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(other) => return Err(format!("text must be a string, not {other}")),
        };
        let limit = count_param(lookup(&["take", "limit", "n", "count"]), "take")?;
        let position = count_param(
            lookup(&["position", "line", "linenumber", "number", "index"]),
            "position",
        )?;
        if op == Op::At {
            match position {
                None => {
                    return Err("op at needs `position`: which line, 1 for the first".into());
                }
                Some(0) => return Err("lines are counted from 1; there is no line 0".into()),
                Some(_) => {}
            }
        }
        Ok(Request {
            op,
            containing,
            limit,
            position,
        })
    }
}

/// One line as shown: its number and its text, cut if very long.
fn shown(number: usize, text: &str) -> String {
    let text = text.trim_end_matches('\r');
    if text.trim().is_empty() {
        return format!("line {number}: (blank)");
    }
    let mut out: String = text.chars().take(MAX_LINE_CHARS).collect();
    if text.chars().count() > MAX_LINE_CHARS {
        out.push_str(" […]");
    }
    format!("line {number}: {out}")
}

/// "that contain \"x\" (case ignored)" or "", the filter in words.
fn filter_words(containing: Option<&str>) -> String {
    containing.map_or_else(String::new, |c| {
        format!(" that contain \"{c}\" (case ignored)")
    })
}

/// The answer for `request` over a file's `text`, named `name`.
fn select(name: &str, text: &str, request: &Request) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    let containing = request.containing.as_deref();
    let mut chosen: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| containing.is_none_or(|c| l.to_lowercase().contains(c)))
        .map(|(i, l)| (i + 1, *l))
        .collect();
    let of_total = crate::text::plural(total, "line", "lines");
    let mut filter = filter_words(containing);
    // A word no line holds, where lines hold a shorter or longer form of it ("warning"
    // in a log that says `warn`): the lines of that form, and the filter says so.
    let form = containing
        .filter(|_| chosen.is_empty())
        .and_then(|c| word_form(&lines, c));
    if let Some(form) = &form {
        chosen = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| crate::text::word_runs(l).any(|w| w == *form))
            .map(|(i, l)| (i + 1, *l))
            .collect();
        filter = format!(
            " that hold \"{form}\", a form of \"{}\" (no line holds that word itself; case ignored)",
            containing.unwrap_or_default()
        );
    }
    let containing = form.as_deref().or(containing);
    let n = chosen.len();
    let look = || {
        if n == 0 {
            a_look(&lines, containing)
        } else {
            String::new()
        }
    };
    match request.op {
        Op::Count => match containing {
            None => {
                let blank = lines.iter().filter(|l| l.trim().is_empty()).count();
                format!(
                    "{name} has {of_total} ({blank} of them blank, {} with text).",
                    total - blank
                )
            }
            // With the part's share of the whole, computed here: no model divides; and
            // with the lines themselves when they are few.
            Some(c) if total > 0 => {
                let head = format!(
                    "{n} of the {of_total} of {name}{filter} ({}% of the lines){}",
                    crate::text::percent(n, total),
                    occurrences(&chosen, c)
                );
                if (1..=COUNT_SHOWS).contains(&n) {
                    std::iter::once(format!("{head}:"))
                        .chain(chosen.iter().map(|(i, l)| shown(*i, l)))
                        .collect::<Vec<_>>()
                        .join("\n")
                } else {
                    format!("{head}.{}", look())
                }
            }
            Some(_) => format!("{n} of the {of_total} of {name}{filter}.{}", look()),
        },
        Op::First | Op::Last => {
            let want = request.limit.unwrap_or(1).clamp(1, MAX_SHOWN);
            if n == 0 {
                return none_found(name, &of_total, &filter) + &look();
            }
            let (word, picked): (&str, Vec<&(usize, &str)>) = if request.op == Op::First {
                ("first", chosen.iter().take(want).collect())
            } else {
                ("last", chosen.iter().skip(n.saturating_sub(want)).collect())
            };
            let head = if picked.len() == 1 {
                format!("The {word} of the {n} lines of {name}{filter}:")
            } else {
                format!(
                    "The {word} {} of the {n} lines of {name}{filter}:",
                    picked.len()
                )
            };
            std::iter::once(head)
                .chain(picked.iter().map(|(i, l)| shown(*i, l)))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Op::All => {
            if n == 0 {
                return none_found(name, &of_total, &filter) + &look();
            }
            let cap = request.limit.unwrap_or(MAX_SHOWN).clamp(1, MAX_SHOWN);
            let mut out = vec![format!("{n} of the {of_total} of {name}{filter}:")];
            out.extend(chosen.iter().take(cap).map(|(i, l)| shown(*i, l)));
            if n > cap {
                out.push(format!(
                    "… and {} more (op count counts them; first or last with take shows either end)",
                    n - cap
                ));
            }
            out.join("\n")
        }
        Op::Distinct => {
            if n == 0 {
                return none_found(name, &of_total, &filter) + &look();
            }
            // Counted per exact line (trailing blanks and a CR ignored), first seen first
            // among equal counts, so the order is stable.
            let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
            for (i, l) in &chosen {
                let key = l.trim_end();
                if key.trim().is_empty() {
                    continue;
                }
                counts.entry(key).or_insert((0, *i)).0 += 1;
            }
            let mut rows: Vec<(&str, usize, usize)> = counts
                .into_iter()
                .map(|(l, (c, first))| (l, c, first))
                .collect();
            rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
            let cap = request.limit.unwrap_or(10).clamp(1, MAX_SHOWN);
            let mut out = vec![format!(
                "{} different lines among the {n} lines of {name}{filter} (blank lines left out), most frequent first:",
                rows.len()
            )];
            out.extend(rows.iter().take(cap).map(|(l, c, first)| {
                let times = if *c == 1 {
                    "once".to_owned()
                } else {
                    format!("{c} times")
                };
                let text: String = l.chars().take(MAX_LINE_CHARS).collect();
                format!("{times}: {text} (first at line {first})")
            }));
            if rows.len() > cap {
                out.push(format!("… and {} more different lines", rows.len() - cap));
            }
            out.join("\n")
        }
        // The file's own line at that position: a text written beside it does not
        // narrow it (a small model fills the text with the file's name).
        Op::At => {
            let at = request.position.unwrap_or(1);
            match lines.get(at - 1) {
                Some(l) => format!("Line {at} of the {of_total} of {name}:\n{}", shown(at, l)),
                None => format!("{name} has only {of_total}; there is no line {at}."),
            }
        }
    }
}

/// How often `text` (lower-cased) occurs in the chosen lines, when that is not once per
/// line: in all, and as a whole word (not inside a longer word). A count of lines is not a
/// count of times, and "apple" is in "pineapple".
fn occurrences(chosen: &[(usize, &str)], text: &str) -> String {
    let mut all = 0usize;
    let mut whole = 0usize;
    for (_, line) in chosen {
        let line = line.to_lowercase();
        for (at, _) in line.match_indices(text) {
            all += 1;
            let before = line[..at].chars().next_back();
            let after = line[at + text.len()..].chars().next();
            let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !part(before) && !part(after) {
                whole += 1;
            }
        }
    }
    // Whole words are counted only for a text that is a word.
    let a_word = text.chars().all(char::is_alphanumeric);
    if all == chosen.len() && (whole == all || !a_word) {
        return String::new();
    }
    let word = if a_word {
        format!(", {whole} of them as a whole word")
    } else {
        String::new()
    };
    format!("; \"{text}\" occurs {all} times in all{word}")
}

/// Words a request uses for the first or the last of an order, by the op that picks it.
const POSITION_WORDS: &[(&str, &[&str])] = &[
    ("first", &["first", "earliest", "第一", "最早"]),
    ("last", &["last", "final", "latest", "最后", "最近"]),
];

/// The one line a read_lines `output` selected, as shown (`line 2: …`), when it selected
/// exactly one: the only line that holds the text, the line at the position asked, or
/// the first or last of several when `request` asks for the first or the last (its own
/// words say which). A first or last line picked among several that the request did not
/// ask by its place is not "the" line the text selects, and a line cut short is not
/// whole; both give `None`.
pub fn sole_line(request: &str, output: &str) -> Option<String> {
    let mut lines = output.lines();
    let head = lines.next()?;
    let asked = crate::text::fold(request);
    let by_place = POSITION_WORDS.iter().any(|(op, words)| {
        head.starts_with(&format!("The {op} of the "))
            && words.iter().any(|w| {
                if w.is_ascii() {
                    asked.split(|c: char| !c.is_alphanumeric()).any(|t| t == *w)
                } else {
                    asked.contains(w)
                }
            })
    });
    let one = head.starts_with("1 of the ")
        || head.starts_with("The first of the 1 lines")
        || head.starts_with("The last of the 1 lines")
        || by_place
        || (head.starts_with("Line ") && head.ends_with(':'));
    let shown: Vec<&str> = lines.filter(|l| is_shown(l)).collect();
    match shown.as_slice() {
        [line] if one && !line.ends_with(" […]") && !line.ends_with(": (blank)") => {
            Some((*line).to_string())
        }
        _ => None,
    }
}

/// Whether `line` is a line as [`shown`] writes it: `line <number>: <text>`.
fn is_shown(line: &str) -> bool {
    line.strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
        .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

fn none_found(name: &str, of_total: &str, filter: &str) -> String {
    format!("None of the {of_total} of {name}{filter}.")
}

/// The one word of `lines` that is another form of the filter `text`
/// ([`crate::text::same_word`]): `warn` for "warning", `errors` for "error". `None` when
/// the filter is no single word, or no word or several different words are such a form.
fn word_form(lines: &[&str], text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() || !text.chars().all(char::is_alphanumeric) {
        return None;
    }
    let mut forms: Vec<String> = lines
        .iter()
        .flat_map(|l| crate::text::word_runs(l))
        .filter(|w| crate::text::same_word(w, text))
        .collect();
    forms.sort();
    forms.dedup();
    match forms.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// How many of a file's lines a filter that kept none of them shows.
const LOOK_LINES: usize = 5;

/// The first lines of a file that a text filter kept none of, indented so that nothing
/// reads them as lines the filter selected: the filter was a word of the request, and
/// the file may write what it asks for in other words or marks (a checklist's `[ ]`, a
/// list's "yes"). What the next call selects by is then chosen from the data. Empty when
/// no filter was set or the file has no line with text.
fn a_look(lines: &[&str], containing: Option<&str>) -> String {
    if containing.is_none() {
        return String::new();
    }
    let first: Vec<String> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .take(LOOK_LINES)
        .map(|(i, l)| format!("  {}", shown(i + 1, l)))
        .collect();
    if first.is_empty() {
        return String::new();
    }
    // What the file's lines are, counted whole: a question about its lines ("how many
    // are empty") may be answered by them, not by a word a line holds.
    let blank = lines.iter().filter(|l| l.trim().is_empty()).count();
    format!(
        "\nThe file has {} ({blank} of them blank, {} with text). How it writes its lines \
         (its first {} with text), to choose what to select by:\n{}",
        crate::text::plural(lines.len(), "line", "lines"),
        lines.len() - blank,
        first.len(),
        first.join("\n")
    )
}

/// The file's text, read up to [`MAX_BYTES`]; `Err` names a missing file, a folder or a
/// binary file. The flag says the file was longer than what was read. Blocking.
fn read_text(path: &Path) -> Result<(String, bool), ToolError> {
    let (size, bytes) = super::read_file::read_head(path, MAX_BYTES)?;
    if super::read_file::sniff(&bytes).1 {
        return Err(ToolError::InvalidInput(format!(
            "{} is not a text file; read_lines reads text",
            path.display()
        )));
    }
    let cut = (bytes.len() as u64) < size;
    Ok((String::from_utf8_lossy(&bytes).into_owned(), cut))
}

/// The read_lines tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadLines;

impl Tool for ReadLines {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::ReadLines.into(),
            // After read_file, with the typed tools: offered first, it took the simplest
            // reads too (a line count became an "all" call with a filter of "null" and the
            // model answered its own limit), and the task it was moved for still went
            // to read_file. A line picked from a whole read is sent here instead
            // (`checks::shape::picked_by_eye`).
            priority: 4,
            summary: Cow::Borrowed(
                "Exact answers about a text file's lines (a log, notes, a list): how many, \
                 the first or last ones, every line, each different line with its count, or \
                 line number N; optionally only the lines that contain a text. Each line is \
                 shown with its number.",
            ),
            params: Cow::Borrowed(&PARAMS),
            forms: &FORMS,
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let path = ctx.resolve_read_path(super::str_param(input, "path")?);
        Request::from_json(input).map_err(ToolError::InvalidInput)?;
        let shown = path.to_string_lossy().into_owned();
        let mut executed = input.clone();
        if let Some(map) = executed.as_object_mut() {
            map.insert("path".into(), json!(shown));
        }
        Ok(Prepared::plain(ToolName::ReadLines, executed, shown))
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let path = ctx.resolve_read_path(super::str_param(&call.input, "path")?);
            let request = Request::from_json(&call.input).map_err(ToolError::InvalidInput)?;
            let name = path.to_string_lossy().into_owned();
            let (text, cut) = tokio::task::spawn_blocking(move || read_text(&path))
                .await
                .map_err(|e| ToolError::Failed(format!("the read did not complete: {e}")))??;
            let mut out = select(&name, &text, &request);
            if cut {
                out.push_str(&format!(
                    "\n[only the first {MAX_BYTES} bytes of the file were read]"
                ));
            }
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Op, Request, select, word_form};
    use serde_json::json;

    const LOG: &str = "08:00 INFO started\n\
08:01 WARNING disk at 81%\n\
08:02 ERROR upload failed\n\
\n\
08:03 Warning: upload slow\n\
08:04 INFO done\n";

    fn run(input: serde_json::Value) -> String {
        select("app.log", LOG, &Request::from_json(&input).unwrap())
    }

    #[test]
    fn the_last_line_of_a_kind_is_chosen_by_code_ignoring_case() {
        assert_eq!(
            run(json!({"op": "last", "text": "WARNING"})),
            "The last of the 2 lines of app.log that contain \"warning\" (case ignored):\n\
             line 5: 08:03 Warning: upload slow"
        );
        assert_eq!(
            run(json!({"op": "first", "text": "warning", "take": null})),
            "The first of the 2 lines of app.log that contain \"warning\" (case ignored):\n\
             line 2: 08:01 WARNING disk at 81%"
        );
        // Without a text, the last line is the file's own last line.
        assert!(run(json!({"op": "tail"})).ends_with("line 6: 08:04 INFO done"));
    }

    #[test]
    fn counts_say_what_was_counted() {
        assert_eq!(
            run(json!({"op": "count", "text": "upload"})),
            "2 of the 6 lines of app.log that contain \"upload\" (case ignored) (33.3% of the lines):\n\
             line 3: 08:02 ERROR upload failed\n\
             line 5: 08:03 Warning: upload slow"
        );
        // Many matches: the count alone.
        assert_eq!(
            run(json!({"op": "count", "text": "08:0"})),
            "5 of the 6 lines of app.log that contain \"08:0\" (case ignored) (83.3% of the lines)."
        );
        assert_eq!(
            run(json!({"op": "count"})),
            "app.log has 6 lines (1 of them blank, 5 with text)."
        );
        // A filter that keeps none says so first, then how the file writes its lines.
        assert!(
            run(json!({"op": "count", "text": "timeout"})).starts_with(
                "0 of the 6 lines of app.log that contain \"timeout\" (case ignored) (0% of the lines).\n\
                 The file has 6 lines (1 of them blank, 5 with text). How it writes its lines"
            )
        );
        assert!(run(json!({"op": "last", "text": "timeout"})).starts_with(
            "None of the 6 lines of app.log that contain \"timeout\" (case ignored).\n\
                 The file has 6 lines (1 of them blank, 5 with text). How it writes its lines"
        ));
    }

    #[test]
    fn a_count_of_lines_says_how_often_the_text_occurs_when_that_differs() {
        let fruit =
            "apple pie, apple juice and apple jam\nbanana\npineapple tart\nan Apple a day\n";
        let out = select(
            "fruit.txt",
            fruit,
            &Request::from_json(&json!({"op": "count", "text": "apple"})).unwrap(),
        );
        assert!(
            out.starts_with(
                "3 of the 4 lines of fruit.txt that contain \"apple\" (case ignored) (75% of \
                 the lines); \"apple\" occurs 5 times in all, 4 of them as a whole word:"
            ),
            "{out}"
        );
    }

    #[test]
    fn the_sole_line_is_the_only_one_the_text_selects_or_the_one_at_a_position() {
        use super::sole_line;
        let only = "line 3: 08:02 ERROR upload failed";
        for input in [
            json!({"op": "count", "text": "error"}),
            json!({"op": "all", "text": "error"}),
            json!({"op": "last", "text": "error"}),
            json!({"op": "at", "position": 3}),
        ] {
            assert_eq!(
                sole_line("which line has the error?", &run(input.clone())).as_deref(),
                Some(only),
                "{input}"
            );
        }
        // One of several picked by its place, several, none, a blank line: no sole line.
        for input in [
            json!({"op": "last", "text": "warning"}),
            json!({"op": "all", "text": "upload"}),
            json!({"op": "count", "text": "timeout"}),
            json!({"op": "at", "position": 4}),
            json!({"op": "distinct", "text": "error"}),
        ] {
            assert_eq!(
                sole_line("which line has the warning?", &run(input.clone())),
                None,
                "{input}"
            );
        }
        // The last of several, when the request asks for the last one: that line. Asked
        // for the first, or in words that only hold the position's letters, it is not.
        let last = run(json!({"op": "last", "text": "warning"}));
        assert_eq!(
            sole_line("Which is the last line with a warning?", &last).as_deref(),
            Some("line 5: 08:03 Warning: upload slow")
        );
        assert_eq!(
            sole_line("最后一条警告是哪一行？", &last).as_deref(),
            Some("line 5: 08:03 Warning: upload slow")
        );
        assert_eq!(sole_line("Which is the first warning?", &last), None);
        assert_eq!(sole_line("Which warning lasted longest?", &last), None);
    }

    #[test]
    fn a_line_by_its_number_counts_blank_lines_and_refuses_line_zero() {
        assert_eq!(
            run(json!({"op": "at", "position": 5})),
            "Line 5 of the 6 lines of app.log:\nline 5: 08:03 Warning: upload slow"
        );
        assert_eq!(
            run(json!({"op": "at", "line": "4"})),
            "Line 4 of the 6 lines of app.log:\nline 4: (blank)"
        );
        assert_eq!(
            run(json!({"op": "at", "position": 9})),
            "app.log has only 6 lines; there is no line 9."
        );
        assert!(Request::from_json(&json!({"op": "at", "position": 0})).is_err());
        assert!(Request::from_json(&json!({"op": "at"})).is_err());
        // A text beside a position does not move it.
        assert_eq!(
            run(json!({"op": "at", "position": 2, "text": "autumn"})),
            "Line 2 of the 6 lines of app.log:\nline 2: 08:01 WARNING disk at 81%"
        );
    }

    #[test]
    fn all_lists_every_match_up_to_its_limit_and_says_how_many_more() {
        assert_eq!(
            run(json!({"op": "all", "text": "info", "take": 1})),
            "2 of the 6 lines of app.log that contain \"info\" (case ignored):\n\
             line 1: 08:00 INFO started\n\
             … and 1 more (op count counts them; first or last with take shows either end)"
        );
        assert_eq!(
            run(json!({"op": "grep", "text": "ERROR"})),
            "1 of the 6 lines of app.log that contain \"error\" (case ignored):\n\
             line 3: 08:02 ERROR upload failed"
        );
    }

    #[test]
    fn distinct_lines_come_most_frequent_first_with_their_counts() {
        let text = "b\na\nb\n\nc\nb\na\n";
        let out = select(
            "x.txt",
            text,
            &Request::from_json(&json!({"op": "distinct", "take": 2})).unwrap(),
        );
        assert_eq!(
            out,
            "3 different lines among the 7 lines of x.txt (blank lines left out), most frequent first:\n\
             3 times: b (first at line 1)\n\
             2 times: a (first at line 2)\n\
             … and 1 more different lines"
        );
    }

    #[test]
    fn a_word_no_line_holds_selects_the_lines_of_its_one_other_form() {
        const BUILD: &str = "ok compile\nwarn unused import\nok link\nwarn deprecated call\nok test\nwarn slow test\n";
        let on = |input: serde_json::Value| {
            select("build.log", BUILD, &Request::from_json(&input).unwrap())
        };
        assert_eq!(
            on(json!({"op": "first", "text": "warning", "take": 2})),
            "The first 2 of the 3 lines of build.log that hold \"warn\", a form of \"warning\" \
             (no line holds that word itself; case ignored):\nline 2: warn unused import\n\
             line 4: warn deprecated call"
        );
        assert!(on(json!({"op": "count", "text": "warning"})).starts_with("3 of the 6 lines"));
        // A word some line holds is matched as written; a short or a many-word text has no
        // form; two different forms choose none.
        assert!(on(json!({"op": "count", "text": "warn"})).starts_with("3 of the 6 lines"));
        assert!(on(json!({"op": "count", "text": "oks"})).starts_with("0 of the 6 lines"));
        assert!(on(json!({"op": "count", "text": "warning call"})).starts_with("0 of the 6 lines"));
        assert_eq!(word_form(&["tests run", "testing one"], "test"), None);
    }

    #[test]
    fn a_filter_that_keeps_no_line_shows_how_the_file_writes_its_lines() {
        const GUESTS: &str = "Anna: yes\n\nBen: no\nCleo: yes\nDan: maybe\nEli: yes\nFay: no\n";
        let on = |input: serde_json::Value| {
            select("guests.txt", GUESTS, &Request::from_json(&input).unwrap())
        };
        let counted = on(json!({"op": "count", "text": "confirmed"}));
        assert!(
            counted.starts_with("0 of the 7 lines of guests.txt that contain \"confirmed\""),
            "{counted}"
        );
        // The first five lines with text, numbered as the file numbers them, indented so
        // no reader takes them for lines the filter selected.
        assert!(
            counted.ends_with(
                "  line 1: Anna: yes\n  line 3: Ben: no\n  line 4: Cleo: yes\n  \
                 line 5: Dan: maybe\n  line 6: Eli: yes"
            ),
            "{counted}"
        );
        assert_eq!(
            crate::tools::sole_line("the first confirmed guest", &counted),
            None
        );
        for op in ["first", "last", "all", "distinct"] {
            let out = on(json!({"op": op, "text": "confirmed"}));
            assert!(
                out.starts_with("None of the 7 lines") && out.contains("  line 1: Anna: yes"),
                "{op}: {out}"
            );
        }
        // A filter that keeps a line, or no filter, shows only what was asked.
        let kept = on(json!({"op": "count", "text": "yes"}));
        assert!(!kept.contains("How the file writes"), "{kept}");
        assert!(!run(json!({"op": "count"})).contains("How the file writes"));
    }

    #[test]
    fn lenient_names_and_clear_errors() {
        let r = Request::from_json(&json!({"op": "last", "text": " Autumn "})).unwrap();
        assert_eq!(r.containing.as_deref(), Some("autumn"));
        let r = Request::from_json(&json!({"op": "all", "text": "null"})).unwrap();
        assert_eq!(r.containing, None);
        let r = Request::from_json(&json!({"operation": "Most common", "contains": ""})).unwrap();
        assert_eq!((r.op, r.containing), (Op::Distinct, None));
        let e = Request::from_json(&json!({"op": "sum"})).unwrap_err();
        assert!(e.contains("count, first, last, all, distinct, at"), "{e}");
        assert!(Request::from_json(&json!({"op": "first", "take": -2})).is_err());
    }
}
