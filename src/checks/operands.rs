//! A number the request states is an operand of the work: "20% of the largest amount",
//! "45 days after the start date", "the 3 largest files", "over 100". An answer that no
//! call computed with it skipped the part of the request it belongs to — a small model
//! read the largest amount and gave it, unchanged, for 20% of it; read the start date and
//! gave it for the date 45 days later.
//!
//! **Invariant:** pure. A stated number counts as used when a successful call's input or
//! the answer itself holds it; a number with a unit of size (`1 KB`, `2MB`), which calls
//! take converted, is not held to this.

use crate::contracts::{ToolCallRecord, ToolCallStatus};

/// Units a size is written with; a number before one is a bound a call takes converted.
const SIZE_UNITS: [&str; 12] = [
    "b", "kb", "mb", "gb", "tb", "k", "m", "g", "bytes", "byte", "kib", "mib",
];

/// The numbers `request` states (a token of digits, with `.` or `,` inside, or a
/// trailing `%`), as written and as values, and whether each is a percentage, each once;
/// not one inside a word or a path, or one a size unit follows.
fn stated(request: &str) -> Vec<(String, f64, bool)> {
    let tokens: Vec<&str> = request.split_whitespace().collect();
    let mut out: Vec<(String, f64, bool)> = Vec::new();
    for (i, raw) in tokens.iter().enumerate() {
        let token = raw.trim_matches(|c: char| {
            matches!(
                c,
                '.' | ',' | ';' | ':' | '!' | '?' | '"' | '\'' | '(' | ')' | '[' | ']'
            )
        });
        let percent = token.ends_with('%')
            || tokens
                .get(i + 1)
                .is_some_and(|t| t.to_lowercase().starts_with("percent"));
        let bare = token.strip_suffix('%').unwrap_or(token);
        let (number, unit) = match bare.find(|c: char| c.is_ascii_alphabetic()) {
            Some(at) => (&bare[..at], Some(bare[at..].to_lowercase())),
            None => (bare, None),
        };
        let numeric = !number.is_empty()
            && number.chars().any(|c| c.is_ascii_digit())
            && number
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | ','));
        let next = tokens.get(i + 1).map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        });
        let sized = unit
            .as_deref()
            .or(next.as_deref())
            .is_some_and(|u| SIZE_UNITS.contains(&u));
        if !numeric || unit.is_some() || sized || token.contains(['/', '~']) {
            continue;
        }
        let written = number.replace(',', "");
        let Ok(value) = written.parse::<f64>() else {
            continue;
        };
        if !out.iter().any(|(w, _, _)| *w == written) {
            out.push((written, value, percent));
        }
    }
    out
}

/// The numbers written in `text` (runs of digits with at most one decimal point), as
/// values.
fn values(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut run = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || (c == '.' && !run.contains('.') && !run.is_empty()) {
            run.push(c);
        } else {
            if let Ok(v) = run.trim_end_matches('.').parse::<f64>() {
                out.push(v);
            }
            run.clear();
        }
    }
    out
}

/// The numbers `request` states that neither a successful call's input nor the answer
/// holds (a percentage also as its fraction: 20% as 0.2), as the push-back; none when no
/// call succeeded (other rows speak to that).
pub fn unused(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let inputs: Vec<String> = records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .map(|r| r.input.to_string())
        .collect();
    if inputs.is_empty() {
        return None;
    }
    let mut seen: Vec<f64> = values(answer);
    for input in &inputs {
        seen.extend(values(input));
    }
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
    let unused: Vec<String> = stated(request)
        .into_iter()
        .filter(|(_, v, percent)| {
            !seen
                .iter()
                .any(|s| same(*s, *v) || (*percent && same(*s, v / 100.0)))
        })
        .map(|(w, _, _)| w)
        .collect();
    (!unused.is_empty()).then(|| {
        format!(
            "the request states {}, and no call computed with {} and the answer does not \
             hold {}: the part of the request {} belongs to is not done — compute it by \
             code (calculate, or the parameter of the tool that takes it), then answer with \
             what it prints",
            unused.join(", "),
            if unused.len() == 1 { "it" } else { "them" },
            if unused.len() == 1 { "it" } else { "them" },
            if unused.len() == 1 { "it" } else { "each" },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::ToolRef;
    use serde_json::json;

    fn ok(tool: &str, input: serde_json::Value) -> ToolCallRecord {
        ToolCallRecord::ran(ToolRef::parse(tool), input, "", "")
    }

    #[test]
    fn a_stated_number_no_call_used_and_the_answer_lacks_is_named() {
        let max = ok(
            "read_table",
            json!({"path": "b.csv", "op": "max", "column": "amount"}),
        );
        let request = "What is 20% of the largest amount in ~/money/bills.csv?";
        let why = unused(request, "55.00", &[&max]).expect("20% unused");
        assert!(why.starts_with("the request states 20,"), "{why}");
        // Used by a calculation, as the percentage or its fraction; or said in the answer.
        let calc = ok("calculate", json!({"expression": "55 * 0.2"}));
        assert_eq!(unused(request, "11", &[&max, &calc]), None);
        let calc = ok("calculate", json!({"expression": "55 * 20 / 100"}));
        assert_eq!(unused(request, "11", &[&max, &calc]), None);
        assert_eq!(unused(request, "20% of 55 is 11", &[&max]), None);
        // Sizes are taken converted; names and paths hold no stated number; no call, no say.
        let list = ok("list_files", json!({"folder": "~/var", "min_size": 1000}));
        assert_eq!(
            unused("How many files in ~/var are over 1 KB?", "2", &[&list]),
            None
        );
        assert_eq!(
            unused("Copy report2024.pdf and ~/2024/a.txt", "done", &[&list]),
            None
        );
        assert_eq!(unused(request, "55.00", &[]), None);
        // A bound of 3 given as 30 is not the 3.
        let top = ok("list_files", json!({"folder": "~", "limit": 30}));
        assert!(unused("the 3 largest files", "a, b, c", &[&top]).is_some());
    }
}
