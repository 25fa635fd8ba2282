//! Law 0 on the delivered answer: the numbers, paths and file names of a result must come
//! from what the tools returned (their output, the inputs they ran with) or from the
//! user's own words. Whatever cannot be found there is named in the result as not
//! verified — a small model's merge or finish can state a number no tool printed, and the
//! user must be able to tell.
//!
//! A number also counts as shown when it is the count of lines or entries of one tool
//! output (`ls` printed three names, the answer says 3), or the sum of a column of
//! numbers in one (a CSV). Nothing else is derived.
//!
//! **Invariant:** pure; the result lists each unverified item once, in answer order.

use std::collections::BTreeSet;

/// Items listed at most.
pub const MAX_UNVERIFIED: usize = 5;

/// The items of `answer` that no evidence text shows.
pub fn unverified(answer: &str, evidence: &[&str]) -> Vec<String> {
    let haystack: String = evidence.join("\n");
    let derived = derived_numbers(evidence);
    let mut out: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for item in items(answer) {
        if out.len() >= MAX_UNVERIFIED || !seen.insert(item.clone()) {
            continue;
        }
        let shown = match &item {
            Item::Number(n) => {
                contains_number(&haystack, n) || parse(n).is_some_and(|v| derived.contains(&key(v)))
            }
            Item::Path(p) => {
                haystack.contains(p.as_str())
                    || p.strip_prefix("~/")
                        .is_some_and(|rest| haystack.contains(rest))
                    || last_component(p).is_some_and(|name| haystack.contains(name))
            }
            Item::FileName(f) => haystack.contains(f.as_str()),
        };
        if !shown {
            out.push(item.text().to_string());
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Number(String),
    Path(String),
    FileName(String),
}

impl Item {
    fn text(&self) -> &str {
        match self {
            Item::Number(s) | Item::Path(s) | Item::FileName(s) => s,
        }
    }
}

fn last_component(path: &str) -> Option<&str> {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
}

/// Abbreviations that look like file names.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "a.m", "p.m", "u.s", "etc", "vs", "no.", "approx",
];

fn is_file_name(token: &str) -> bool {
    if ABBREVIATIONS.contains(&token.to_lowercase().as_str()) {
        return false;
    }
    match token.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
                && stem.chars().any(|c| c.is_alphanumeric())
        }
        None => false,
    }
}

/// Numbers (with `,` thousands separators folded), paths and file names of a text.
fn items(text: &str) -> Vec<Item> {
    let mut out = Vec::new();
    for raw in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | '|' | '*' | '='
            )
    }) {
        let token = raw
            .trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '!' | '?' | '，' | '。' | '：'))
            .trim_end_matches('.');
        if token.is_empty() {
            continue;
        }
        if token.starts_with('/') && token.len() > 1 || token.starts_with("~/") {
            out.push(Item::Path(token.to_string()));
        } else if is_file_name(token) && !token.contains('/') {
            out.push(Item::FileName(token.to_string()));
        } else if let Some(number) = number_of(token) {
            out.push(Item::Number(number));
        }
    }
    out
}

/// The number a token is (`1,234` → `1234`, `3.5`), or none.
fn number_of(token: &str) -> Option<String> {
    let t = token.trim_start_matches(['$', '¥', '€', '£', '+']);
    let t = t.trim_end_matches(['%', 'k', 'K', 'M', 'G', 'B']);
    if t.is_empty() || !t.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    if !t
        .chars()
        .all(|c| c.is_ascii_digit() || c == ',' || c == '.')
    {
        return None;
    }
    let folded: String = t.chars().filter(|c| *c != ',').collect();
    parse(&folded).map(|_| folded)
}

fn parse(n: &str) -> Option<f64> {
    n.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Whether `number` occurs in the text as a number of its own (not inside another one),
/// with or without thousands separators.
fn contains_number(text: &str, number: &str) -> bool {
    let folded: String = text
        .char_indices()
        .filter(|(i, c)| {
            // Drop a comma between two digits (1,234 → 1234).
            !(*c == ','
                && text[..*i]
                    .chars()
                    .next_back()
                    .is_some_and(|p| p.is_ascii_digit())
                && text[i + 1..]
                    .chars()
                    .next()
                    .is_some_and(|n| n.is_ascii_digit()))
        })
        .map(|(_, c)| c)
        .collect();
    folded.match_indices(number).any(|(at, _)| {
        let before = folded[..at].chars().next_back();
        let after = folded[at + number.len()..].chars().next();
        // A whole number: no digit or decimal point before it, no digit after it, and
        // not the integer part of a longer decimal ("3" inside "3.5").
        let decimal_follows = after == Some('.')
            && folded[at + number.len() + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit());
        !before.is_some_and(|c| c.is_ascii_digit() || c == '.')
            && !after.is_some_and(|c| c.is_ascii_digit())
            && !decimal_follows
    })
}

fn key(v: f64) -> i64 {
    (v * 1000.0).round() as i64
}

/// Numbers one evidence text implies: its count of non-empty lines, of whitespace
/// separated entries, and the sum of each column of numbers.
fn derived_numbers(evidence: &[&str]) -> BTreeSet<i64> {
    let mut out = BTreeSet::new();
    for text in evidence {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        out.insert(key(lines.len() as f64));
        out.insert(key(text.split_whitespace().count() as f64));
        // A header line does not count as an entry.
        if lines.len() > 1 {
            out.insert(key(lines.len() as f64 - 1.0));
        }
        let mut columns: Vec<f64> = Vec::new();
        for line in &lines {
            for (i, cell) in line.split([',', '\t', ';']).enumerate() {
                if let Some(v) = parse(cell.trim()) {
                    if columns.len() <= i {
                        columns.resize(i + 1, 0.0);
                    }
                    columns[i] += v;
                }
            }
        }
        for sum in columns {
            out.insert(key(sum));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_no_tool_printed_are_unverified() {
        assert_eq!(unverified("The product is 1513.", &["37 * 41"]), ["1513"]);
        assert!(unverified("There are 2 files.", &["2\n"]).is_empty());
        assert!(unverified("1,234 bytes", &["size 1234"]).is_empty());
        assert!(unverified("12 apples", &["112 apples"]) == ["12"]);
    }

    #[test]
    fn counts_of_a_listing_and_sums_of_a_column_are_shown() {
        assert!(unverified("3 files", &["a.txt\nb.txt\nc.md\n"]).is_empty());
        assert!(
            unverified(
                "The total is 20.",
                &["name,amount\napples,3\npears,5\nplums,12\n"]
            )
            .is_empty()
        );
    }

    #[test]
    fn paths_and_file_names_must_appear_in_the_evidence() {
        let evidence = ["/home/u/Downloads/video2.mp4\t120000", "ls -S ~/Downloads"];
        assert!(unverified("The largest is video2.mp4 (120000 bytes).", &evidence).is_empty());
        assert_eq!(
            unverified("The largest is movie.mkv in ~/Movies/x", &evidence),
            ["movie.mkv", "~/Movies/x"]
        );
        assert!(unverified("~/Downloads/video2.mp4", &evidence).is_empty());
    }

    #[test]
    fn plain_words_are_not_items() {
        assert!(unverified("Done. The folder is empty, e.g. nothing", &[]).is_empty());
    }
}
