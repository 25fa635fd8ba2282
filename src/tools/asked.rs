//! Whether a call's values follow from what it was asked, checked before it runs.
//!
//! A small model filling a typed call writes values for parameters it was not asked
//! about — "list the files in my home folder" became a listing of `.txt` and `.md`
//! files only — and picks a value next to the one the request names ("the 3 largest"
//! kept the first three by extension). Both calls succeed and print something
//! plausible, so nothing downstream notices. Two rules, for every built-in tool that
//! narrows or orders what it shows:
//!
//! - **A narrowing value comes from somewhere.** A value that keeps only some of the
//!   data (a file-name filter, an extension, a line's text, a row's value) must be
//!   named by the request — its words, their singular, or the kind of thing they name
//!   (an `mp4` is a video) — or shown by a call of the task. Else it is an invented
//!   filter.
//! - **A call that keeps the first rows keeps them in the order asked for.** When the
//!   request asks for one end of an order with a superlative ("largest", "newest",
//!   "most recent") and the call keeps fewer rows than it would by default, its order
//!   must be that one.
//!
//! The executor tells the model once why a call does not follow ([`unasked`]); the same
//! call asked again runs.

use serde_json::Value;

use super::files::{self, Sort};
use super::{ToolName, ToolRef};

/// What a call is checked against: the request's own words (the sub-task, its context
/// and criteria, a correction) and what the task's calls have printed so far.
#[derive(Clone, Copy, Debug)]
pub struct Asked<'a> {
    /// The words of the request.
    pub words: &'a str,
    /// The outputs of the task's calls.
    pub seen: &'a str,
}

/// The parameters of each tool whose values keep only part of the data.
const NARROWING: &[(ToolName, &[&str])] = &[
    (
        ToolName::ListFiles,
        &["extensions", "name_contains", "pattern"],
    ),
    (ToolName::ReadLines, &["text"]),
    (ToolName::ReadTable, &["equals"]),
];

/// Pieces of a value shorter than this are not checked (`*.c`, a one-letter prefix).
const MIN_PIECE_CHARS: usize = 2;

/// Why the call `tool` with `input` does not follow from `asked`, in words for the
/// model; `None` when it does, or when the tool has nothing to check.
pub fn unasked(tool: &ToolRef, input: &Value, asked: Asked<'_>) -> Option<String> {
    let name = tool.builtin()?;
    invented_filter(name, input, asked).or_else(|| match name {
        ToolName::ListFiles => order_not_asked(input, asked.words),
        _ => None,
    })
}

/// The first narrowing value of the call that neither the request nor any output
/// names, as the push-back.
fn invented_filter(tool: ToolName, input: &Value, asked: Asked<'_>) -> Option<String> {
    let (_, params) = NARROWING.iter().find(|(t, _)| *t == tool)?;
    let words = Words::of(asked.words);
    let seen = asked.seen.to_lowercase();
    let obj = input.as_object()?;
    params.iter().find_map(|param| {
        let key = super::lenient_key(param);
        let value = super::lenient_param(obj, &[key.as_str()]).and_then(as_text)?;
        let missing: Vec<String> = pieces(&value)
            .into_iter()
            .filter(|p| !words.name(p) && !seen.contains(p.as_str()))
            .collect();
        (!missing.is_empty()).then(|| {
            format!(
                "`{param}` {value:?} keeps only what the sub-task does not ask for (it \
                 names no {}): call again with `{param}` null, or with only what the \
                 sub-task names",
                missing.join(", ")
            )
        })
    })
}

/// A value as text; `None` for an empty one or the words a model writes for "none".
fn as_text(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s.trim().to_string(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(","),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let blank = text.is_empty()
        || ["null", "none", "any", "all", "*"].contains(&text.to_lowercase().as_str());
    (!blank).then_some(text)
}

/// The pieces of a value that name something, lower case: its runs of letters and
/// digits of [`MIN_PIECE_CHARS`] or more (`"*.PDF,IMG_*"` → `pdf`, `img`).
fn pieces(value: &str) -> Vec<String> {
    let mut out: Vec<String> = value
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|p| p.chars().count() >= MIN_PIECE_CHARS)
        .collect();
    out.dedup();
    out
}

/// The request's words, for asking whether it names a piece.
struct Words {
    /// The whole text, lower case (a piece in a script without spaces is found in it).
    text: String,
    /// Its runs of ASCII letters and digits, lower case.
    ascii: Vec<String>,
}

impl Words {
    fn of(text: &str) -> Self {
        let text = text.to_lowercase();
        let ascii = text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        Words { text, ascii }
    }

    /// Whether the request names `piece`: a word starts with it ("pdfs" names `pdf`), it
    /// starts with a word of three letters or more, a non-ASCII piece is in the text, or
    /// a word names the same kind of thing ("videos" names `mp4`).
    fn name(&self, piece: &str) -> bool {
        if !piece.is_ascii() {
            return self.text.contains(piece);
        }
        let kind = crate::tags::kind::object_named(piece);
        self.ascii.iter().any(|w| {
            w.starts_with(piece)
                || (w.len() >= 3 && piece.starts_with(w.as_str()))
                || kind.is_some_and(|k| crate::tags::kind::object_named(w) == Some(k))
        })
    }
}

/// When a list_files call keeps fewer rows than its default in an order other than the
/// one the request's superlative asks for, the push-back naming that order.
fn order_not_asked(input: &Value, words: &str) -> Option<String> {
    let request = files::Request::from_json(input).ok()?;
    if request.limit >= files::DEFAULT_LIMIT {
        return None;
    }
    let folded = words.to_lowercase();
    let list: Vec<&str> = folded
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let single = list.iter().map(|w| (*w, files::end_asked_by(&[w])));
    let pairs = list.windows(2).map(|p| (p[0], files::end_asked_by(p)));
    let asked: Vec<(String, Sort, bool)> = single
        .chain(pairs)
        .filter_map(|(w, end)| end.map(|(s, d)| (w.to_string(), s, d)))
        .collect();
    let (word, sort, descending) = asked.first()?.clone();
    // Two different orders asked ("the newest of the largest"): no one order to hold.
    if asked.iter().any(|(_, s, d)| (*s, *d) != (sort, descending)) {
        return None;
    }
    if (request.sort, request.descending) == (sort, descending) {
        return None;
    }
    let direction = |d: bool| if d { "descending" } else { "ascending" };
    Some(format!(
        "this call keeps the first {} rows by {}, {}, but the sub-task asks for the \
         {word} ones ({}, {}): call again with `sort` {:?}",
        request.limit,
        request.sort.label(),
        direction(request.descending),
        sort.label(),
        direction(descending),
        end_word(sort, descending),
    ))
}

/// The sort value that names an order's end.
fn end_word(sort: Sort, descending: bool) -> &'static str {
    match (sort, descending) {
        (Sort::Size, true) => "largest",
        (Sort::Size, false) => "smallest",
        (Sort::Modified, true) => "newest",
        (Sort::Modified, false) => "oldest",
        (Sort::Name | Sort::Extension, true) => "z_a",
        (Sort::Name | Sort::Extension, false) => "name",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(tool: ToolName, input: Value, words: &str, seen: &str) -> Option<String> {
        unasked(&tool.into(), &input, Asked { words, seen })
    }

    #[test]
    fn a_filter_the_request_does_not_name_is_pushed_back() {
        let why = check(
            ToolName::ListFiles,
            json!({"folder": "~", "extensions": "txt,md", "limit": 50}),
            "List all files in /tmp/.tmpNN2AcT/home | Folder: /tmp/.tmpNN2AcT/home",
            "",
        )
        .expect("an invented filter");
        assert!(
            why.contains("`extensions`") && why.contains("txt, md"),
            "{why}"
        );
    }

    #[test]
    fn a_filter_the_request_names_passes_in_any_form() {
        let pdfs = json!({"folder": "~/Downloads", "extensions": "pdf"});
        assert_eq!(
            check(ToolName::ListFiles, pdfs, "Find the 3 largest PDFs", ""),
            None
        );
        // The kind of thing a word names: videos are mp4 and mov files.
        let videos = json!({"folder": "~", "pattern": "*.mp4,*.MOV"});
        assert_eq!(
            check(ToolName::ListFiles, videos, "find my largest videos", ""),
            None
        );
        // A value a call of the task printed.
        let seen = json!({"path": "a.csv", "equals": "Lyon", "op": "count"});
        assert_eq!(
            check(
                ToolName::ReadTable,
                seen,
                "how many rows are in the city with fewest rows",
                "distinct city: Lyon (1 row), Paris (3 rows)"
            ),
            None
        );
        // Non-ASCII words are found in the text as they are.
        let zh = json!({"path": "a.log", "op": "count", "text": "错误"});
        assert_eq!(
            check(ToolName::ReadLines, zh, "统计日志里有多少行错误", ""),
            None
        );
        // "none", blanks and wildcards filter nothing.
        let none =
            json!({"folder": "~", "extensions": "none", "pattern": "*", "name_contains": ""});
        assert_eq!(check(ToolName::ListFiles, none, "list my files", ""), None);
    }

    #[test]
    fn a_kind_of_thing_is_not_another_kind() {
        let why = check(
            ToolName::ListFiles,
            json!({"folder": "~", "extensions": "jpg,mp4"}),
            "find my videos",
            "",
        )
        .expect("jpg is no video");
        assert!(why.contains("names no jpg)"), "{why}");
    }

    #[test]
    fn a_row_value_nobody_named_is_pushed_back() {
        let why = check(
            ToolName::ReadTable,
            json!({"path": "a.csv", "op": "count", "where_column": "city", "equals": "Berlin"}),
            "how many rows does sales.csv have",
            "sales.csv: 4 data rows; columns city, amount",
        );
        assert!(why.is_some_and(|w| w.contains("berlin")));
    }

    #[test]
    fn a_truncated_listing_in_another_order_than_the_superlative_is_pushed_back() {
        let why = check(
            ToolName::ListFiles,
            json!({"folder": "~/Downloads", "extensions": "pdf", "limit": 3, "sort": "extension", "order": "desc"}),
            "Find the 3 largest PDFs in ~/Downloads",
            "",
        )
        .expect("kept by extension, asked for the largest");
        assert!(why.contains("\"largest\""), "{why}");
        // Size ascending keeps the smallest: also not the largest.
        let asc = json!({"folder": "~", "limit": 3, "sort": "size", "order": "asc"});
        assert!(check(ToolName::ListFiles, asc, "the 3 largest files", "").is_some());
        // Two words: "most recent" is the newest.
        let by_name = json!({"folder": "~", "limit": 1, "sort": "name"});
        let why = check(ToolName::ListFiles, by_name, "my most recent download", "")
            .expect("most recent is modified time");
        assert!(why.contains("\"newest\""), "{why}");
    }

    #[test]
    fn an_order_passes_when_it_is_the_one_asked_or_none_is_asked() {
        let right = json!({"folder": "~", "limit": 3, "sort": "largest"});
        assert_eq!(
            check(
                ToolName::ListFiles,
                right.clone(),
                "the 3 largest files",
                ""
            ),
            None
        );
        let spelled = json!({"folder": "~", "limit": 3, "sort": "size", "order": "desc"});
        assert_eq!(
            check(ToolName::ListFiles, spelled, "the 3 biggest files", ""),
            None
        );
        // Plain adjectives ask for no order; neither does a whole listing.
        let five = json!({"folder": "~", "limit": 5, "sort": "name"});
        assert_eq!(
            check(
                ToolName::ListFiles,
                five.clone(),
                "show 5 big files in a new folder",
                ""
            ),
            None
        );
        let whole = json!({"folder": "~", "sort": "name"});
        assert_eq!(
            check(ToolName::ListFiles, whole, "the largest files", ""),
            None
        );
        // Two orders asked: no one order holds.
        assert_eq!(
            check(
                ToolName::ListFiles,
                five,
                "the newest of the largest files",
                ""
            ),
            None
        );
        // Other tools have no order to check.
        assert_eq!(
            check(
                ToolName::ReadLines,
                json!({"path": "a", "op": "first", "take": 1}),
                "the largest line",
                ""
            ),
            None
        );
    }
}
