//! The n-th of groups ranked by how many rows each has: "the second most common status"
//! is the group with the second highest count in a table tool's counts per value. A small
//! model read "blocked (1 row)" off `open (4 rows), closed (3 rows), blocked (1 row)` as
//! the second most common. The counts are in hand; ranking them is a computation.
//!
//! **Invariant:** pure; a group is named only from a count line a table call printed, and
//! ties at the n-th place name no group (code cannot choose between them).

use crate::contracts::{ToolCallRecord, ToolCallStatus, ToolName};

/// The n-th group asked for: its name, its count and what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NthGroup {
    /// "second most common".
    pub asked: String,
    /// The group's value, as the tool printed it.
    pub name: String,
    /// Its row count.
    pub count: u64,
}

/// When `request` asks for the n-th most (or least) of something ("the second most
/// common status", "the 3rd least frequent") and a table call of `records` printed
/// counts per value: the group at that place.
pub fn nth_group(request: &str, records: &[&ToolCallRecord]) -> Option<NthGroup> {
    let (n, most, asked) = ordinal_asked(request)?;
    let counts = records
        .iter()
        .rev()
        .filter(|r| r.status == ToolCallStatus::Ok && r.tool.builtin() == Some(ToolName::ReadTable))
        .find_map(|r| counts_of(&r.output_head))?;
    let mut ranked = counts;
    // A stable sort keeps the printed order among equal counts; ties are checked below.
    if most {
        ranked.sort_by_key(|g| std::cmp::Reverse(g.1));
    } else {
        ranked.sort_by_key(|g| g.1);
    }
    let (name, count) = ranked.get(n - 1)?.clone();
    let tied = ranked
        .iter()
        .enumerate()
        .any(|(i, (_, c))| i != n - 1 && *c == count);
    (!tied).then_some(NthGroup { asked, name, count })
}

/// (n, whether from the most, the words asked) for "second most …", "3rd least …".
fn ordinal_asked(request: &str) -> Option<(usize, bool, String)> {
    let words: Vec<String> = request
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    words.windows(3).find_map(|w| {
        let n = crate::tools::ordinal_number(&w[0])?;
        let most = match w[1].as_str() {
            "most" => true,
            "least" => false,
            _ => return None,
        };
        Some((n, most, w.join(" ")))
    })
}

/// The counts per value a table call printed: `count by status (3 groups): open = 4,
/// closed = 3` or `3 distinct values of status: open (4 rows), closed (3 rows)`.
fn counts_of(output: &str) -> Option<Vec<(String, u64)>> {
    output.lines().find_map(|line| {
        let (head, list) = line.split_once(": ")?;
        let grouped = head.starts_with("count by ");
        let distinct = head.contains("distinct value");
        if !grouped && !distinct {
            return None;
        }
        let items: Vec<(String, u64)> = list
            .split(", ")
            .filter_map(|item| {
                if grouped {
                    let (name, n) = item.rsplit_once(" = ")?;
                    Some((name.trim().to_string(), n.trim().parse().ok()?))
                } else {
                    let (name, rest) = item.rsplit_once(" (")?;
                    let n = rest.split_whitespace().next()?.parse().ok()?;
                    Some((name.trim().to_string(), n))
                }
            })
            .collect();
        (items.len() >= 2).then_some(items)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::shape::tests::ok;

    #[test]
    fn the_nth_most_common_is_ranked_from_the_counts() {
        let distinct = ok(
            ToolName::ReadTable,
            "/h/work/tickets.jsonl",
            "tickets.jsonl: JSON Lines, 8 data rows, 3 columns: id, status, title\n\
             3 distinct values of status: blocked (1 row), open (4 rows), closed (3 rows)",
        );
        let asked = "Which status is the second most common in ~/work/tickets.jsonl?";
        let got = nth_group(asked, &[&distinct]).expect("closed");
        assert_eq!(
            (got.name.as_str(), got.count, got.asked.as_str()),
            ("closed", 3, "second most common")
        );
        let least = nth_group("the 2nd least frequent status", &[&distinct]).expect("closed");
        assert_eq!(least.name, "closed");
        let grouped = ok(
            ToolName::ReadTable,
            "/h/s.csv",
            "count by city (3 groups): Paris = 3, Lyon = 2, Nice = 1",
        );
        assert_eq!(
            nth_group("the third most common city", &[&grouped]).map(|g| g.name),
            Some("Nice".to_string())
        );
    }

    #[test]
    fn no_ordinal_no_counts_or_a_tie_name_no_group() {
        let tied = ok(
            ToolName::ReadTable,
            "/h/s.csv",
            "count by city (3 groups): Paris = 3, Lyon = 1, Nice = 1",
        );
        assert_eq!(nth_group("the second most common city", &[&tied]), None);
        assert_eq!(nth_group("the most common city", &[&tied]), None);
        let listing = ok(
            ToolName::ListFiles,
            "/h",
            "a.txt\t1 B\t2026-01-01 00:00\ttxt",
        );
        assert_eq!(nth_group("the second most common type", &[&listing]), None);
    }
}
