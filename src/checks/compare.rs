//! A choice between named items, held to the numbers the tools printed for them. Asked
//! "which has more lines, north.txt or south.txt?", a small model read 7 lines and 4
//! lines and answered "south.txt has more lines". Which of two numbers is larger is a
//! computation: where the request names two or more files and compares them by a unit
//! ("more lines", "fewer rows", "larger"), and the tools printed that unit's number for
//! each, the answer must not give the choice to the wrong one.
//!
//! **Invariant:** pure; silent unless every named item has exactly one printed value of
//! the compared unit and the values differ.

use crate::contracts::{ToolCallRecord, ToolCallStatus};

/// Words that ask for the larger value, each with the unit it implies when no unit word
/// follows (`larger` compares sizes).
const MORE: &[(&str, Option<&str>)] = &[
    ("more", None),
    ("most", None),
    ("larger", Some("bytes")),
    ("largest", Some("bytes")),
    ("bigger", Some("bytes")),
    ("biggest", Some("bytes")),
    ("longer", Some("lines")),
    ("longest", Some("lines")),
];

/// Words that ask for the smaller value.
const FEWER: &[(&str, Option<&str>)] = &[
    ("fewer", None),
    ("fewest", None),
    ("less", None),
    ("least", None),
    ("smaller", Some("bytes")),
    ("smallest", Some("bytes")),
    ("shorter", Some("lines")),
    ("shortest", Some("lines")),
];

/// Words after a comparative that keep the files as what it compares ("the larger one",
/// "bigger than", "the largest of", "which file is larger, a or b").
const OF_THE_FILES: &[&str] = &[
    "file", "files", "one", "ones", "of", "than", "is", "and", "or", "in", "size",
];

/// Why the answer gives the choice to the wrong item, if it does.
pub fn wrong_choice(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let words: Vec<String> = request
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '-' || c == '_'))
        .map(|w| w.trim_matches('.').to_string())
        .filter(|w| !w.is_empty())
        .collect();
    let items: Vec<&str> = {
        let mut names: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| super::names::is_file_name(w))
            .collect();
        names.dedup();
        names
    };
    if items.len() < 2 {
        return None;
    }
    let (word, larger, unit) = words.iter().enumerate().find_map(|(i, w)| {
        let (larger, implied) = MORE
            .iter()
            .find(|(m, _)| m == w)
            .map(|(_, u)| (true, *u))
            .or_else(|| FEWER.iter().find(|(f, _)| f == w).map(|(_, u)| (false, *u)))?;
        let next = words.get(i + 1).map(String::as_str);
        // The unit a comparative implies holds only where the files are what it
        // compares: "the largest number in a.txt" compares numbers, not a.txt and b.txt.
        let of_the_files = next.is_none_or(|n| OF_THE_FILES.contains(&n) || items.contains(&n));
        let unit = next
            .and_then(super::units::unit_of)
            .or(implied.filter(|_| of_the_files))?;
        Some((w.clone(), larger, unit))
    })?;
    let printed: Vec<&str> = records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .flat_map(|r| r.output_head.lines())
        .collect();
    let mut values: Vec<(&str, f64)> = Vec::new();
    let mut uncounted: Vec<&str> = Vec::new();
    for item in &items {
        let mut found: Vec<f64> = printed
            .iter()
            .filter(|line| line.to_lowercase().contains(item))
            .flat_map(|line| super::units::with_units(line))
            .filter(|(_, u)| *u == unit)
            .filter_map(|(n, _)| n.replace(',', "").parse::<f64>().ok())
            .collect();
        found.dedup();
        match found.as_slice() {
            [value] => values.push((item, *value)),
            [] => uncounted.push(item),
            _ => return None,
        }
    }
    // Some items counted and others not: a choice between them is a guess about the rest.
    let said = answer.to_lowercase();
    if !values.is_empty() && !uncounted.is_empty() && items.iter().any(|i| said.contains(i)) {
        return Some(format!(
            "the answer compares {} by {unit}, and no tool printed the {unit} of {}: count \
             them for every one before choosing",
            items.join(" and "),
            uncounted.join(", ")
        ));
    }
    let best = if larger {
        values.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?
    } else {
        values.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1))?
    };
    if values.iter().filter(|(_, v)| *v == best.1).count() > 1 {
        return None;
    }
    let first = |name: &str| said.find(name);
    let winner_at = first(best.0);
    let loser = values
        .iter()
        .filter(|(name, _)| *name != best.0)
        .filter_map(|(name, _)| first(name).map(|at| (name, at)))
        .min_by_key(|(_, at)| *at);
    let (loser, loser_at) = loser?;
    // The loser named alone, or named first and given the request's own comparative.
    let credited = match winner_at {
        None => true,
        Some(w) => loser_at < w && said[loser_at..w].contains(&word),
    };
    credited.then(|| {
        let shown: Vec<String> = values
            .iter()
            .map(|(name, v)| format!("{name}: {v} {unit}"))
            .collect();
        format!(
            "the answer gives the choice to {loser}, and the tools printed {}: the one \
             with the {} {unit} is {}",
            shown.join(", "),
            if larger { "most" } else { "fewest" },
            best.0
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::shape::tests::ok;
    use crate::contracts::ToolName;

    fn counted() -> Vec<ToolCallRecord> {
        vec![
            ok(
                ToolName::ReadLines,
                "/h/texts/north.txt",
                "7 of the 7 lines of /h/texts/north.txt:\nline 1: fir",
            ),
            ok(
                ToolName::ReadLines,
                "/h/texts/south.txt",
                "4 of the 4 lines of /h/texts/south.txt:\nline 1: the long warm",
            ),
            ok(
                ToolName::ListFiles,
                "/h/texts",
                "~/texts, files: 2 found\nsouth.txt\t282 B\t2026-11-30 15:33\ttxt\n\
                 north.txt\t30 B\t2026-11-30 15:33\ttxt",
            ),
        ]
    }

    #[test]
    fn the_choice_goes_to_the_item_whose_printed_number_wins() {
        let records = counted();
        let refs: Vec<&ToolCallRecord> = records.iter().collect();
        let asked = "Which has more lines, ~/texts/north.txt or ~/texts/south.txt?";
        let why = wrong_choice(asked, "south.txt has more lines than north.txt", &refs)
            .expect("4 lines against 7");
        assert!(
            why.contains("north.txt: 7 lines") && why.ends_with("is north.txt"),
            "{why}"
        );
        assert!(wrong_choice(asked, "south.txt", &refs).is_some());
        for right in [
            "north.txt (7 lines against 4)",
            "north.txt has more lines than south.txt",
            "south.txt has fewer lines than north.txt",
        ] {
            assert_eq!(wrong_choice(asked, right, &refs), None, "{right}");
        }
        // By size, the listing's bytes decide: south.txt is the larger.
        let bigger = "Which is bigger, north.txt or south.txt?";
        assert!(wrong_choice(bigger, "north.txt", &refs).is_some());
        assert_eq!(wrong_choice(bigger, "south.txt (282 B)", &refs), None);
    }

    #[test]
    fn a_comparative_about_something_else_than_the_files_compares_no_files() {
        // Recorded (held max_reading_saved, 1.5B): the largest *number* of one file
        // written to another; the answer's account names the written file and its bytes.
        let read = ok(
            ToolName::ReadTable,
            "/h/data/readings.txt",
            "/h/data/readings.txt: a list of numbers (one per line), 5 data rows
max of value = 31",
        );
        let wrote = ok(
            ToolName::WriteFile,
            "/h/data/max.txt",
            "wrote 2 bytes to /h/data/max.txt",
        );
        let asked =
            "Write the largest number in ~/data/readings.txt into a new file ~/data/max.txt";
        assert_eq!(
            wrong_choice(
                asked,
                "31\nwrote 2 bytes to ~/data/max.txt",
                &[&read, &wrote]
            ),
            None
        );
        // Files compared by the same word still are.
        let records = counted();
        let refs: Vec<&ToolCallRecord> = records.iter().collect();
        for asked in [
            "Which of north.txt and south.txt is larger?",
            "Is north.txt larger than south.txt?",
            "Which is larger, north.txt or south.txt?",
        ] {
            assert!(wrong_choice(asked, "north.txt", &refs).is_some(), "{asked}");
        }
    }

    #[test]
    fn without_two_named_items_or_their_numbers_nothing_is_held() {
        let records = counted();
        let refs: Vec<&ToolCallRecord> = records.iter().collect();
        assert_eq!(
            wrong_choice("Which file has more lines?", "south.txt", &refs),
            None
        );
        assert_eq!(
            wrong_choice(
                "Which has more words, north.txt or south.txt?",
                "south.txt",
                &refs
            ),
            None
        );
        assert_eq!(
            wrong_choice(
                "Which has more lines, north.txt or south.txt?",
                "south.txt",
                &[]
            ),
            None
        );
        // One counted, the other not: the choice is a guess about the other.
        let north_only: Vec<&ToolCallRecord> = records.iter().take(1).collect();
        let why = wrong_choice(
            "Which has more lines, north.txt or south.txt?",
            "north.txt has more lines than south.txt",
            &north_only,
        )
        .expect("south.txt never counted");
        assert!(why.contains("lines of south.txt"), "{why}");
    }
}
