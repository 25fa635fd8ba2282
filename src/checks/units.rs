//! A number's unit, held to the unit the tools printed it with. Grounding checks that a
//! number of the answer appeared in a tool's output; it does not check what the number
//! counted. A small model asked which of two files has more lines answered "282 lines"
//! and "30 lines" — the files' sizes in bytes, as the listing printed them (`282 B`).
//!
//! The rule: where the answer writes a number with a unit (`282 lines`, `number of lines
//! … is 282`) and the tools printed that number only with other units (`282 B`), the
//! answer misreads what the number counts. A number the tools printed with the answer's
//! unit, or with no unit at all, is not held to anything here.
//!
//! **Invariant:** pure, and silent unless a tool printed the very number with a unit of
//! another kind and never with the answer's.

use crate::contracts::{ToolCallRecord, ToolCallStatus};

/// The units read, each with the words that name it.
const UNITS: &[(&str, &[&str])] = &[
    ("bytes", &["b", "byte", "bytes"]),
    ("lines", &["line", "lines"]),
    ("rows", &["row", "rows"]),
    ("files", &["file", "files"]),
    ("folders", &["folder", "folders"]),
    ("words", &["word", "words"]),
    ("characters", &["character", "characters", "chars"]),
    ("days", &["day", "days"]),
];

/// Words that end the clause a "number of <unit>" opens.
const CLAUSE_ENDS: &[&str] = &["and", "but", "while", "whereas"];

/// What the answer gets wrong about a number's unit, if anything: the number, the unit
/// the answer gives it and the one the tools printed it with.
pub fn misread_unit(answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let printed: Vec<(String, &str)> = records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .flat_map(|r| with_units(&r.output_head))
        .collect();
    with_units(answer).into_iter().find_map(|(number, unit)| {
        let units: Vec<&str> = printed
            .iter()
            .filter(|(n, _)| *n == number)
            .map(|(_, u)| *u)
            .collect();
        (!units.is_empty() && !units.contains(&unit)).then(|| {
            format!(
                "the answer gives {number} as {unit}, and the tools printed {number} as {}: \
                 take the number of {unit} from a tool that counted them",
                units[0]
            )
        })
    })
}

/// What the answer leaves unconverted, if anything: the request asks its answer in one
/// unit ("how many hours"), and the answer's one number was printed on a line that
/// names another unit of that kind ("sum of minutes = 300"), while the answer holds no
/// number that is it converted. A small model summed the minutes and gave 300 for the
/// hours asked.
pub fn unconverted(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let asked = crate::calc::asked_unit(request)?;
    let stated = crate::calc::numbers_of(request);
    let given: Vec<f64> = crate::calc::numbers_of(answer)
        .into_iter()
        .filter(|n| !stated.contains(n))
        .collect();
    let [n] = given[..] else { return None };
    let lines: Vec<&str> = records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .flat_map(|r| r.output_head.lines())
        .filter(|line| crate::calc::numbers_of(line).contains(&n))
        .collect();
    // A line that names the unit asked beside another ("3000000 bytes (3 MB)") may
    // print the number in either: nothing to hold the answer to.
    if lines.iter().any(|l| crate::calc::names_unit(l, asked)) {
        return None;
    }
    let from = lines
        .iter()
        .find_map(|line| crate::calc::units_like(line, asked).first().copied())?;
    let converted = crate::calc::convert(n, from, asked)?;
    Some(format!(
        "the request asks for {asked}, and {} is in {from} as the tools printed it: convert \
         it (calculate \"{} {from} in {asked}\" gives {}) and answer with that",
        crate::calc::shown(n),
        crate::calc::shown(n),
        crate::calc::shown(converted)
    ))
}

/// The unit a word names.
pub(super) fn unit_of(word: &str) -> Option<&'static str> {
    UNITS
        .iter()
        .find(|(_, words)| words.contains(&word))
        .map(|(unit, _)| *unit)
}

/// A number token: digits, with `.` or `,` inside.
fn is_number(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

/// The numbers of `text` written with a unit: a number followed by a unit word, or by
/// one word and then a unit word (`8 data rows`); and the first number after "number of
/// <unit>" in the same clause (`the number of lines in a.txt is 282`).
pub(super) fn with_units(text: &str) -> Vec<(String, &'static str)> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == ','))
        .map(|w| w.trim_end_matches(['.', ',']))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !is_number(w) {
            continue;
        }
        let after = |k: usize| words.get(i + k).copied();
        let unit = after(1).and_then(unit_of).or_else(|| {
            after(1)
                .filter(|next| !is_number(next))
                .and(after(2))
                .and_then(unit_of)
        });
        if let Some(unit) = unit {
            out.push((w.to_string(), unit));
        }
    }
    for (i, pair) in words.windows(3).enumerate() {
        let (["number", "of", unit] | ["count", "of", unit]) = pair else {
            continue;
        };
        let Some(unit) = unit_of(unit) else { continue };
        let number = words[i + 3..]
            .iter()
            .take_while(|w| !CLAUSE_ENDS.contains(w))
            .find(|w| is_number(w));
        if let Some(number) = number {
            out.push((number.to_string(), unit));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::ToolName;

    fn ok(tool: ToolName, output: &str) -> ToolCallRecord {
        crate::checks::shape::tests::ok(tool, "", output)
    }

    #[test]
    fn a_number_printed_in_another_unit_than_the_one_asked_is_sent_to_be_converted() {
        let sum = ok(
            ToolName::ReadTable,
            "calls.csv: CSV (delimiter ',', header row), 3 data rows, 2 columns: who, minutes\n\
             sum of minutes = 300 (over 3 rows)",
        );
        let asked = "The call lengths in ~/work/calls.csv are in minutes. How many hours of \
                     calls is that in total?";
        let why = unconverted(asked, "300", &[&sum]).expect("300 is minutes");
        assert!(
            why.contains("asks for hours") && why.contains("gives 5"),
            "{why}"
        );
        // Converted, or given with its conversion: nothing to say.
        assert_eq!(unconverted(asked, "5 hours", &[&sum]), None);
        assert_eq!(unconverted(asked, "300 minutes is 5 hours", &[&sum]), None);
        // The unit asked is the one the tools printed.
        let hours = ok(ToolName::ReadTable, "sum of hours = 9.5 (over 3 rows)");
        assert_eq!(
            unconverted("How many hours did I log for Alpha?", "9.5", &[&hours]),
            None
        );
        // A temperature the recipe writes "428 F", asked in Celsius.
        let read = ok(ToolName::ReadFile, "Bread\nBake at 428 F for 35 minutes.");
        let why = unconverted(
            "The recipe in ~/notes/oven.txt gives the temperature in Fahrenheit. What is it in Celsius?",
            "428",
            &[&read],
        )
        .expect("428 is °F");
        assert!(why.contains("gives 220"), "{why}");
        // A line that prints the number beside the unit asked holds it to nothing.
        let listing = ok(ToolName::ListFiles, "total: 3 files, 3000000 bytes (3 MB)");
        assert_eq!(
            unconverted("How many MB do the videos take?", "3", &[&listing]),
            None
        );
    }

    #[test]
    fn a_size_given_as_lines_is_a_misread() {
        let listing = ok(
            ToolName::ListFiles,
            "~/texts (not recursive), files with extension .txt: 2 found\n\
             south.txt\t282 B\t2026-11-30 15:33\ttxt\nnorth.txt\t30 B\t2026-11-30 15:33\ttxt\n\
             total: 2 files, 312 bytes (312 B)",
        );
        for answer in [
            "The number of lines in ~/texts/north.txt is 282 and in ~/texts/south.txt is 30.",
            "south.txt has 282 lines, north.txt 30 lines",
        ] {
            let why = misread_unit(answer, &[&listing]).expect(answer);
            assert!(
                why.contains("282 as lines") && why.contains("as bytes"),
                "{why}"
            );
        }
        // Counted as lines by a tool: fine, whatever else printed the number.
        let counted = ok(
            ToolName::ReadLines,
            "south.txt: 4 lines\n282 lines of something else",
        );
        assert_eq!(
            misread_unit("south.txt has 282 lines", &[&listing, &counted]),
            None
        );
        // The answer's own units, and numbers with none: nothing to hold.
        assert_eq!(misread_unit("2 files, 312 bytes", &[&listing]), None);
        assert_eq!(misread_unit("north.txt (30)", &[&listing]), None);
        assert_eq!(misread_unit("It has 7 lines.", &[&listing]), None);
    }

    #[test]
    fn units_are_read_after_a_number_or_from_number_of() {
        assert_eq!(
            with_units("8 data rows, 4 columns; 0 of the 7 lines"),
            vec![("8".to_string(), "rows"), ("7".to_string(), "lines")]
        );
        assert_eq!(
            with_units("the count of files in it is 12, and the size 3"),
            vec![("12".to_string(), "files")]
        );
    }
}
