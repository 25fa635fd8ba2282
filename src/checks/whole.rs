//! A count of every line given where the request counts only some of them.
//!
//! Asked "how many guests in guests.txt have confirmed they are coming", a small model
//! read the list and answered with its number of lines; the validators passed it, since
//! the number was one a tool printed. The grammar of the question tells the two kinds of
//! count apart: after "how many <noun>", words that only place or own the items ("are
//! in ~/notes", "does the file have", "are there") count them all; any other word ("have
//! confirmed", "mention disk", "are not checked off") counts those it describes. Where
//! the question counts some and the answer is the number of every line a read showed,
//! with no filtering call printing it, the finish is sent back once, with the way to
//! count the others by code; a model whose question does mean every line finishes again.
//!
//! **Invariant:** pure; reads only the request, the answer and the call records given.

use crate::contracts::{ToolCallRecord, ToolCallStatus, ToolName};

/// Words that, after "how many <noun>", only place the items, own them or say they are
/// there: a question made of these and paths counts every item.
const WHOLE: &[&str] = &[
    "a",
    "all",
    "altogether",
    "an",
    "are",
    "at",
    "contain",
    "contains",
    "currently",
    "did",
    "directory",
    "do",
    "does",
    "file",
    "folder",
    "has",
    "have",
    "hold",
    "holds",
    "in",
    "inside",
    "is",
    "it",
    "its",
    "list",
    "my",
    "now",
    "of",
    "on",
    "right",
    "the",
    "there",
    "these",
    "this",
    "those",
    "total",
    "under",
    "was",
    "were",
    "within",
];

/// Words between "how many" and the noun counted ("how many of the items").
const BEFORE_NOUN: &[&str] = &["of", "the", "my", "your", "these", "those"];

/// Whether `request` asks "how many …" of only some of the items it names: after the
/// noun counted, a word that does more than place, own or find the items there. `false`
/// where it asks no "how many".
pub fn counts_some(request: &str) -> bool {
    // The words outside paths and file names: a place is named, not described.
    let words: Vec<String> = request
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric() && c != '~' && c != '/'))
        .filter(|t| !t.contains('/') && !t.starts_with('~') && !super::names::is_file_name(t))
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let Some(at) = words
        .windows(2)
        .position(|w| w[0] == "how" && w[1] == "many")
    else {
        return false;
    };
    let mut rest = words[at + 2..]
        .iter()
        .skip_while(|w| BEFORE_NOUN.contains(&w.as_str()));
    // The noun counted.
    if rest.next().is_none() {
        return false;
    }
    rest.any(|w| !WHOLE.contains(&w.as_str()) && !w.chars().all(|c| c.is_ascii_digit()))
}

/// read_table's parameters that keep only some rows.
const ROW_FILTERS: &[&str] = &[
    "where_column",
    "equals",
    "below",
    "above",
    "at_most",
    "at_least",
];

/// Whether the call's `input` gives `key` a value: a non-blank string or a number.
fn given(input: &serde_json::Value, key: &str) -> bool {
    match input.get(key) {
        Some(serde_json::Value::String(s)) => !s.trim().is_empty(),
        Some(serde_json::Value::Number(_)) => true,
        _ => false,
    }
}

/// The counts of every item that a record shows of what it read whole, with the kind of
/// item: `read_file`'s "[the whole file: N lines", a `read_lines` count with no text
/// ("has N lines (B of them blank, M with text)"), a `read_table` call with no row
/// filter ("N data rows") and an unfiltered listing ("files: N found").
fn whole_counts(r: &ToolCallRecord) -> Vec<(u64, &'static str)> {
    if r.status != ToolCallStatus::Ok {
        return Vec::new();
    }
    let out = &r.output_head;
    let number_after = |marker: &str| -> Option<u64> {
        let at = out.find(marker)? + marker.len();
        let digits: String = out[at..]
            .chars()
            .skip_while(|c| *c == ' ')
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    let number_before = |marker: &str| -> Option<u64> {
        let at = out.find(marker)?;
        let digits: Vec<char> = out[..at]
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.into_iter().rev().collect::<String>().parse().ok()
    };
    let unset = |key: &str| !given(&r.input, key);
    let found: Vec<u64> = match r.tool.builtin() {
        Some(ToolName::ReadFile) => number_after("[the whole file:").into_iter().collect(),
        Some(ToolName::ReadLines) if unset("text") => number_after(" has ")
            .into_iter()
            .chain(number_after(" blank, "))
            .collect(),
        Some(ToolName::ReadTable) if ROW_FILTERS.iter().all(|k| unset(k)) => {
            number_before(" data rows").into_iter().collect()
        }
        Some(ToolName::ListFiles) => number_after("files: ")
            .filter(|n| out.contains(&format!("files: {n} found")))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    };
    let item = match r.tool.builtin() {
        Some(ToolName::ReadTable) => "row",
        Some(ToolName::ListFiles) => "file",
        _ => "line",
    };
    found.into_iter().map(|n| (n, item)).collect()
}

/// Why a count answer counts every item where the request counts some, if it does: the
/// answer is one number, the request counts some of the items ([`counts_some`]), a call
/// showed that number as every line, row or file of what it read whole, and no call that
/// filtered printed it.
pub fn whole_counted(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    if !counts_some(request) {
        return None;
    }
    let numbers: Vec<u64> = answer
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .filter_map(|w| w.parse().ok())
        .collect();
    let [n] = numbers.as_slice() else {
        return None;
    };
    let (whole, item) = records.iter().find_map(|r| {
        whole_counts(r)
            .into_iter()
            .find(|(c, _)| c == n)
            .map(|(_, item)| (r, item))
    })?;
    let filtered = records.iter().any(|r| {
        let filters = ["text", "name_contains", "pattern", "extensions"]
            .iter()
            .chain(ROW_FILTERS)
            .any(|k| *k != "where_column" && given(&r.input, k));
        filters
            && r.output_head
                .split(|c: char| !c.is_ascii_digit())
                .any(|w| w == n.to_string())
    });
    if filtered {
        return None;
    }
    Some(format!(
        "{n} is the number of every {item} of {} — all of them counted — while the \
         request counts only some of them.{} Count those by code: read_lines with op count \
         and the text that marks them (choose it from how the file writes its lines), \
         read_table count with where_column and equals (or below, above), or list_files \
         with the filter \
         that keeps them; if the request does count every {item}, finish again as you did",
        whole.target,
        differ_by(whole)
    ))
}

/// Why a share answers a "how many" question, if it does: the request asks "how many",
/// and every number the answer gives is a percentage. A count is asked; a tool that
/// printed the share printed the count beside it (a small model answered "42.9%" where
/// the table showed "card (3 rows)", "share of the 7 rows: card 42.9%").
pub fn share_for_count(request: &str, answer: &str) -> Option<String> {
    let folded = crate::text::fold(request);
    if !folded.contains("how many") {
        return None;
    }
    let numbers: Vec<(&str, bool)> = answer
        .split_whitespace()
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .map(|w| (w, w.trim_end_matches(['.', ',', ')', ';']).ends_with('%')))
        .collect();
    let all_shares = !numbers.is_empty() && numbers.iter().all(|(_, share)| *share);
    all_shares.then(|| {
        let shares: Vec<&str> = numbers.iter().map(|(w, _)| *w).collect();
        format!(
            "the request asks how many, and the output gives a share ({}): give the count \
             itself, the number of items the tools counted",
            shares.join(", ")
        )
    })
}

/// A "how many" answered with one share, still, once the push-back about it is spent:
/// the count that share was computed from, stated by code. A share a table call printed
/// ("share of the 7 rows: card 42.9%") sits beside the count of its group in the same
/// output ("card (3 rows)" from distinct, "card = 3" from group_count); the answer
/// becomes "3 (card: 42.9% of the 7 rows)". `None` where the request itself speaks of a
/// percentage, the answer gives another number than one share, or no call printed that
/// share with its group's count.
pub fn share_counted(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    share_for_count(request, answer)?;
    if request.contains('%') || crate::text::fold(request).contains("percent") {
        return None;
    }
    let [share] = answer
        .split_whitespace()
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let share = share.trim_end_matches(['.', ',', ')', ';']);
    records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .find_map(|r| group_of_share(&r.output_head, share))
        .map(|(count, group, total)| format!("{count} ({group}: {share} of the {total})"))
}

/// In a table call's `output`, the group whose share is `share` (as "share of the N
/// rows: g1 P1%, g2 P2%" writes it), with its count (as "g (C rows)" or "g = C" writes
/// it) and "N rows"; `None` unless exactly one group has that share.
fn group_of_share(output: &str, share: &str) -> Option<(u64, String, String)> {
    let line = output
        .lines()
        .find_map(|l| l.strip_prefix("share of the "))?;
    let (total, items) = line.split_once(": ")?;
    let groups: Vec<&str> = items
        .split(", ")
        .filter_map(|item| item.strip_suffix(share)?.strip_suffix(' '))
        .collect();
    let [group] = groups[..] else {
        return None;
    };
    let count = |marker: String| -> Option<u64> {
        let at = output.find(&marker)? + marker.len();
        output[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    let counted = count(format!("{group} ("))
        .or_else(|| count(format!(": {group} = ")))
        .or_else(|| count(format!(", {group} = ")))?;
    Some((counted, group.to_string(), total.to_string()))
}

/// The most recurring words a push-back names.
const SHOWN_WORDS: usize = 6;

/// How the lines a read showed differ, as a sentence: the words that recur in some of
/// them but not all, each with how many lines hold it, most first — the groups a count
/// of some is likely one of ("yes (3 lines), no (2 lines)"). Code counts; the model
/// decides which group the request means. Empty for a record that shows no lines, or
/// lines that share no such word.
fn differ_by(r: &ToolCallRecord) -> String {
    if r.tool.builtin() != Some(ToolName::ReadFile) {
        return String::new();
    }
    let lines: Vec<std::collections::BTreeSet<String>> = r
        .output_head
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("[the whole file:"))
        .map(|l| crate::text::word_runs(l).collect())
        .collect();
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for words in &lines {
        for w in words {
            *counts.entry(w.as_str()).or_default() += 1;
        }
    }
    let mut recurring: Vec<(&str, usize)> = counts
        .into_iter()
        .filter(|(_, c)| *c >= 2 && *c < lines.len())
        .collect();
    recurring.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    if recurring.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = recurring
        .iter()
        .take(SHOWN_WORDS)
        .map(|(w, c)| format!("«{w}» ({c} lines)"))
        .collect();
    format!(" Its lines differ by the words: {}.", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_does_not_answer_how_many() {
        let asked = "How many orders in ~/shop/orders.csv were paid by card?";
        let why = share_for_count(asked, "42.9%").expect("a share for a count");
        assert!(why.contains("(42.9%)"), "{why}");
        assert_eq!(share_for_count(asked, "3"), None);
        assert_eq!(share_for_count(asked, "3 orders (42.9%)"), None);
        assert_eq!(
            share_for_count("What share of the orders were paid by card?", "42.9%"),
            None
        );
    }

    #[test]
    fn a_share_kept_for_a_count_becomes_the_count_printed_beside_it() {
        let asked = "How many orders in ~/shop/orders.csv were paid by card?";
        let distinct = ToolCallRecord::ran(
            ToolName::ReadTable,
            serde_json::json!({"op": "distinct", "column": "paid_with"}),
            "/h/orders.csv",
            "2 distinct values of paid_with: card (3 rows), cash (4 rows)\n\
             share of the 7 rows: card 42.9%, cash 57.1%",
        );
        let grouped = ToolCallRecord::ran(
            ToolName::ReadTable,
            serde_json::json!({"op": "group_count", "by": "paid_with"}),
            "/h/orders.csv",
            "count by paid_with (2 groups): cash = 4, card = 3\n\
             share of the 7 rows: cash 57.1%, card 42.9%",
        );
        for r in [&distinct, &grouped] {
            assert_eq!(
                share_counted(asked, "42.9%", &[r]).as_deref(),
                Some("3 (card: 42.9% of the 7 rows)")
            );
        }
        assert_eq!(
            share_counted(asked, "57.1%.", &[&distinct]).as_deref(),
            Some("4 (cash: 57.1% of the 7 rows)")
        );
        // A count is left as it is; a share no call printed, or two groups with the
        // same share, state nothing; nor does a question about a percentage.
        assert_eq!(share_counted(asked, "3", &[&distinct]), None);
        assert_eq!(share_counted(asked, "40%", &[&distinct]), None);
        let tied = ToolCallRecord::ran(
            ToolName::ReadTable,
            serde_json::json!({"op": "distinct", "column": "paid_with"}),
            "/h/orders.csv",
            "2 distinct values of paid_with: card (2 rows), cash (2 rows)\n\
             share of the 4 rows: card 50%, cash 50%",
        );
        assert_eq!(share_counted(asked, "50%", &[&tied]), None);
        assert_eq!(
            share_counted(
                "How many percent of ~/shop/orders.csv were paid by card?",
                "42.9%",
                &[&distinct]
            ),
            None
        );
    }

    #[test]
    fn a_question_that_only_places_the_items_counts_them_all() {
        for request in [
            "How many lines are in ~/notes/todo.txt?",
            "How many lines does ~/notes/todo.txt have?",
            "how many files are there in ~/Downloads",
            "How many of the items in my list are there in total?",
            "How many words are in the file ~/essay.txt?",
            "How many lines are in todo.txt?",
        ] {
            assert!(!counts_some(request), "{request}");
        }
        for request in [
            "How many guests in ~/party/guests.txt have confirmed they are coming?",
            "How many items in ~/notes/todo.md are not checked off yet?",
            "How many lines of ~/logs/server.log mention disk?",
            "How many PDF files are in ~/inbox?",
        ] {
            assert!(counts_some(request), "{request}");
        }
        assert!(!counts_some("Count the lines of ~/a.txt"));
    }

    fn record(tool: ToolName, input: serde_json::Value, output: &str) -> ToolCallRecord {
        ToolCallRecord::ran(tool, input, "/h/party/guests.txt", output)
    }

    #[test]
    fn every_line_counted_for_some_is_named_once_a_filter_printed_nothing_of_it() {
        let asked = "How many guests in ~/party/guests.txt have confirmed they are coming?";
        let read = record(
            ToolName::ReadFile,
            serde_json::json!({"path": "/h/party/guests.txt"}),
            "Anna: yes\nBen: no\nCleo: yes\nDan: maybe\nEli: yes\nFay: no\n\
             [the whole file: 6 lines, 12 words, 56 characters]",
        );
        let why = whole_counted(asked, "6", &[&read]).expect("every line counted");
        assert!(
            why.starts_with("6 is the number of every line of /h/party/guests.txt —"),
            "{why}"
        );
        assert!(
            why.contains("Its lines differ by the words: «yes» (3 lines), «no» (2 lines)."),
            "{why}"
        );
        // The count of those who said yes, a question that counts every line, or an
        // answer of two numbers: not this rule's.
        assert_eq!(whole_counted(asked, "3", &[&read]), None);
        assert_eq!(
            whole_counted("How many lines are in ~/party/guests.txt?", "6", &[&read]),
            None
        );
        assert_eq!(whole_counted(asked, "6 of 6", &[&read]), None);
        // A count with no text is a whole count too, of every line or every line with text.
        let counted = record(
            ToolName::ReadLines,
            serde_json::json!({"path": "/h/party/guests.txt", "op": "count"}),
            "guests.txt has 7 lines (1 of them blank, 6 with text).",
        );
        assert!(whole_counted(asked, "6 guests", &[&counted]).is_some());
        assert!(whole_counted(asked, "7", &[&counted]).is_some());
        // Every line held the text a filtering call selected by: its count stands.
        let filtered = record(
            ToolName::ReadLines,
            serde_json::json!({"path": "/h/party/guests.txt", "op": "count", "text": ":"}),
            "6 of the 6 lines of guests.txt that contain \":\" (case ignored) (100% of the lines).",
        );
        assert_eq!(whole_counted(asked, "6", &[&read, &filtered]), None);
        // Every row of a table read with no row filter; every file of a listing with none.
        let rows = record(
            ToolName::ReadTable,
            serde_json::json!({"path": "/h/orders.csv", "op": "count"}),
            "/h/orders.csv: CSV (delimiter ',', header row), 8 data rows, 3 columns: id, amount, paid\ncount = 8 rows",
        );
        let paid = "How many orders in ~/orders.csv were paid by card?";
        assert!(
            whole_counted(paid, "8", &[&rows])
                .is_some_and(|w| w.starts_with("8 is the number of every row"))
        );
        let by_card = record(
            ToolName::ReadTable,
            serde_json::json!({"path": "/h/orders.csv", "op": "count", "where_column": "paid", "equals": "card"}),
            "/h/orders.csv: CSV (delimiter ',', header row), 8 data rows, 3 columns: id, amount, paid\ncount = 3 rows",
        );
        assert_eq!(whole_counted(paid, "8", &[&by_card]), None);
        let listing = record(
            ToolName::ListFiles,
            serde_json::json!({"folder": "/h/photos"}),
            "~/photos (not recursive), files: 5 found\na.jpg …",
        );
        assert!(
            whole_counted(
                "How many photos in ~/photos were taken this week?",
                "5",
                &[&listing]
            )
            .is_some()
        );
    }
}
