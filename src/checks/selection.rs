//! A line quoted from a file, held to the words the request selects lines by.
//!
//! Asked for "the first line of server.log that mentions disk", a small model read the
//! file's first line — its call left out the word that selects the lines — and the
//! validators passed `10:00 INFO up`. The rule reads the file itself: a word the request
//! names that marks some of the file's lines, but at most half of them, is a word that
//! selects lines; an answer that quotes a whole line of the file without it has picked
//! by something else — alone, or beside the lines that hold it (the whole read given as
//! the answer, the picking left to the reader). Words common to most lines ("the" in prose) select nothing, and a
//! word no line holds says nothing about the file, so neither counts.
//!
//! **Invariant:** pure; reads only the request, the answer and the texts given.

use std::collections::BTreeSet;

use crate::contracts::{AnswerShape, ToolCallRecord, ToolCallStatus, ToolName};
use crate::text::fold;

/// The shortest line that counts as quoted: a line of one or two characters is text an
/// answer holds by chance.
const MIN_QUOTED_CHARS: usize = 3;

/// The shortest word that can select lines: one- and two-letter words are parts of
/// speech, not what a line is about.
const MIN_WORD_CHARS: usize = 3;

/// Whether a line's words `ws` hold the request's word `w`, as written or in another
/// form of it ([`crate::text::same_word`]): "the second warning" is about the lines that
/// say `warn`.
fn holds(ws: &BTreeSet<String>, w: &str) -> bool {
    ws.contains(w) || ws.iter().any(|v| crate::text::same_word(v, w))
}

/// The words of `text`, lower case, as the rule compares them: runs of letters and
/// digits.
fn words(text: &str) -> BTreeSet<String> {
    crate::text::word_runs(text).collect()
}

/// Whether an answer of this shape can be a line quoted from a file: free text, an item,
/// or a shape not said. A number, a list, a file or an action is held to other checks.
pub fn may_quote_a_line(shape: AnswerShape) -> bool {
    matches!(
        shape,
        AnswerShape::Text | AnswerShape::Item | AnswerShape::Any
    )
}

/// A line an answer quotes from a file, and the words of the request that select the
/// file's lines which it lacks.
struct Unselected<'a> {
    /// The file as the user sees its path.
    path: &'a str,
    /// Its text.
    text: &'a str,
    /// The first line the answer quotes whole.
    quoted: &'a str,
    /// Each word the request names that marks some, at most half, of the file's lines
    /// and none of the quoted ones, with how many lines hold it.
    words: Vec<(String, usize)>,
    /// The file's non-empty lines.
    lines: usize,
    /// Whether a word that alone marks at most half the lines is missing from every
    /// quoted line: the one case in which the line it selects may be stated by code.
    by_one_word: bool,
    /// The words that together make the selection: the file's lines holding them all
    /// are shown to the model with the push-back.
    select_by: Vec<String>,
}

/// The first file of `texts` a line of which `answer` quotes whole without a word of
/// `request` (outside paths) that marks at least one and at most half of its lines.
fn unselected<'a>(
    request: &str,
    answer: &str,
    texts: &'a [(String, String)],
) -> Option<Unselected<'a>> {
    let asked: BTreeSet<String> = crate::tools::file_kinds::words_outside_paths(request)
        .into_iter()
        .filter(|w| w.chars().count() >= MIN_WORD_CHARS)
        .collect();
    let said = fold(answer);
    texts.iter().find_map(|(path, text)| {
        let lines: Vec<(&str, BTreeSet<String>)> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| (l, words(l)))
            .collect();
        let quoted: Vec<&(&str, BTreeSet<String>)> = lines
            .iter()
            .filter(|(l, _)| l.chars().count() >= MIN_QUOTED_CHARS && said.contains(&fold(l)))
            .collect();
        let first = quoted.first()?.0;
        let selecting: Vec<(String, usize)> = asked
            .iter()
            .map(|w| (w, lines.iter().filter(|(_, ws)| holds(ws, w)).count()))
            .filter(|(_, n)| *n >= 1 && n * 2 <= lines.len())
            .map(|(w, n)| (w.clone(), n))
            .collect();
        // A word no quoted line holds: the answer picked its line by something else.
        let lacked: Vec<(String, usize)> = selecting
            .iter()
            .filter(|(w, _)| quoted.iter().all(|(_, ws)| !holds(ws, w)))
            .cloned()
            .collect();
        if !lacked.is_empty() {
            return Some(Unselected {
                path,
                text,
                quoted: first,
                select_by: lacked.iter().map(|(w, _)| w.clone()).collect(),
                words: lacked,
                lines: lines.len(),
                by_one_word: true,
            });
        }
        // Every such word held, but by lines quoted beside others that hold none: the
        // read was given whole, and the picking left to the reader.
        if let Some(stray) = quoted
            .iter()
            .find(|(_, ws)| selecting.iter().all(|(w, _)| !holds(ws, w)))
            .filter(|_| !selecting.is_empty())
        {
            return Some(Unselected {
                path,
                text,
                quoted: stray.0,
                select_by: selecting.iter().map(|(w, _)| w.clone()).collect(),
                words: selecting,
                lines: lines.len(),
                by_one_word: false,
            });
        }
        // Words that each mark many lines may together mark few ("the ERROR line about
        // a payment"): the lines holding every request word that some but not all lines
        // hold are the selection, when they are at most half the file; a quoted line
        // outside it lacks a word of it.
        let marking: Vec<(String, usize)> = asked
            .iter()
            .map(|w| (w, lines.iter().filter(|(_, ws)| holds(ws, w)).count()))
            .filter(|(_, n)| *n >= 1 && *n < lines.len())
            .map(|(w, n)| (w.clone(), n))
            .collect();
        let selected = lines
            .iter()
            .filter(|(_, ws)| marking.iter().all(|(w, _)| holds(ws, w)))
            .count();
        if marking.len() < 2 || selected == 0 || selected * 2 > lines.len() {
            return None;
        }
        let (outside, ws) = quoted
            .iter()
            .find(|(_, ws)| marking.iter().any(|(w, _)| !holds(ws, w)))?;
        Some(Unselected {
            path,
            text,
            quoted: outside,
            words: marking
                .iter()
                .filter(|(w, _)| !holds(ws, w))
                .cloned()
                .collect(),
            lines: lines.len(),
            by_one_word: false,
            select_by: marking.iter().map(|(w, _)| w.clone()).collect(),
        })
    })
}

/// Why the answer's quoted line is not one the request selects, if it is not: for each
/// `(path, text)` of a file the sub-task names, the lines of it `answer` quotes whole,
/// and the words of `request` (outside paths) that mark at least one and at most half of
/// the file's lines but none of the quoted ones.
pub fn unselected_line(request: &str, answer: &str, texts: &[(String, String)]) -> Option<String> {
    let u = unselected(request, answer, texts)?;
    let ((word, holding), rest) = u.words.split_first()?;
    let others: Vec<String> = rest.iter().map(|(w, _)| format!("«{w}»")).collect();
    Some(format!(
        "the output quotes «{}» of {}, which does not hold «{word}»{} — a word the \
         sub-task names that marks {} of the file's {} lines.{} If the sub-task asks for a \
         line that holds it, let read_lines select it by code (text set to that word, op \
         first, last or at as asked) and finish with the line it prints; if it does not, \
         finish again as you did",
        crate::text::first_chars(u.quoted, 120),
        u.path,
        if others.is_empty() {
            String::new()
        } else {
            format!(" (nor {})", others.join(", "))
        },
        holding,
        u.lines,
        holding_all(&u)
    ))
}

/// The most lines of a selection a push-back shows.
const SHOWN_SELECTED: usize = 3;

/// The file's lines that hold every word of the selection, numbered as the file
/// numbers them, as a sentence for the push-back; empty when there are more than
/// [`SHOWN_SELECTED`]. Code found them; the model decides whether they are what the
/// sub-task asks for.
fn holding_all(u: &Unselected<'_>) -> String {
    let held: Vec<String> = u
        .text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let ws = words(l);
            u.select_by.iter().all(|w| holds(&ws, w))
        })
        .map(|(i, l)| {
            format!(
                "line {}: {}",
                i + 1,
                crate::text::first_chars(l.trim(), 120)
            )
        })
        .collect();
    if held.is_empty() || held.len() > SHOWN_SELECTED {
        return String::new();
    }
    let named: Vec<String> = u.select_by.iter().map(|w| format!("«{w}»")).collect();
    format!(
        " The file's lines that hold {}: {}.",
        named.join(" and "),
        held.join("; ")
    )
}

/// The n-th line of those a word selects, stated by code where the answer quotes
/// another of them: the request puts an ordinal right before a word ("the second
/// warning"), the lines holding that word (in any of its forms) are at least n, and the
/// answer quotes exactly one line of the file, one of those but not the n-th. Counting
/// to the n-th is a computation; the model chose the kind of line, code the place.
/// `Line N: <line>`, numbered as the file's lines are.
pub fn nth_selected(request: &str, answer: &str, texts: &[(String, String)]) -> Option<String> {
    let asked = crate::tools::file_kinds::words_outside_paths(request);
    let (n, word) = asked.windows(2).find_map(|w| {
        let n = crate::tools::ordinal_number(&w[0])?;
        (w[1].chars().count() >= MIN_WORD_CHARS).then(|| (n, w[1].clone()))
    })?;
    let said = fold(answer);
    texts.iter().find_map(|(_, text)| {
        let numbered: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty())
            .collect();
        let quoted: Vec<&(usize, &str)> = numbered
            .iter()
            .filter(|(_, l)| l.chars().count() >= MIN_QUOTED_CHARS && said.contains(&fold(l)))
            .collect();
        let [(at, _)] = quoted.as_slice() else {
            return None;
        };
        let selected: Vec<&(usize, &str)> = numbered
            .iter()
            .filter(|(_, l)| holds(&words(l), &word))
            .collect();
        let (nth, line) = **selected.get(n - 1)?;
        let quotes_another = nth != *at && selected.iter().any(|(i, _)| i == at);
        quotes_another.then(|| format!("Line {nth}: {line}"))
    })
}

/// The line a first or last read would have selected by the word the request names,
/// stated by code: the answer quotes a line that a `read_lines` call picked as the
/// file's first or last line with no word to select by, and exactly one word of the
/// request marks some of that file's lines but not the quoted one. Picking the first or
/// last line holding a word is the read's own computation; the call only left the word
/// out. `Line N: <line>`, numbered as the file's lines are.
pub fn selected_stated(
    request: &str,
    answer: &str,
    texts: &[(String, String)],
    records: &[&ToolCallRecord],
) -> Option<String> {
    let u = unselected(request, answer, texts).filter(|u| u.by_one_word)?;
    let [(word, _)] = u.words.as_slice() else {
        return None;
    };
    let quoted = fold(u.quoted);
    let end = records.iter().rev().find_map(|r| {
        let read = r.status == ToolCallStatus::Ok
            && r.tool.builtin() == Some(ToolName::ReadLines)
            && r.input
                .get("text")
                .and_then(|t| t.as_str())
                .is_none_or(|t| t.trim().is_empty())
            && fold(&r.output_head).contains(&quoted);
        if !read {
            return None;
        }
        match r.input.get("op").and_then(|o| o.as_str()) {
            Some("first") => Some(false),
            Some("last") => Some(true),
            _ => None,
        }
    })?;
    let holding = |(_, l): &(usize, &str)| holds(&words(l), word);
    let numbered: Vec<(usize, &str)> = u.text.lines().enumerate().collect();
    let (i, line) = if end {
        numbered.into_iter().rev().find(holding)?
    } else {
        numbered.into_iter().find(holding)?
    };
    Some(format!("Line {}: {}", i + 1, line.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "10:00 INFO up\n10:02 WARN slow disk\n10:03 INFO request\n\
                       10:04 WARN disk 91% full\n10:05 ERROR disk full\n10:06 INFO down\n";
    const RECIPE: &str = "Pancakes for two\nMix the flour, eggs and milk\n\
                          Melt the butter in a pan\nPour in the batter and flip once\n";

    fn file(path: &str, text: &str) -> Vec<(String, String)> {
        vec![(path.to_string(), text.to_string())]
    }

    #[test]
    fn a_quoted_line_without_the_word_that_selects_lines_is_named() {
        let log = file("~/logs/server.log", LOG);
        let asked = "Find the first line of ~/logs/server.log that mentions disk";
        let why = unselected_line(asked, "10:00 INFO up", &log).expect("unselected");
        assert!(
            why.contains("«10:00 INFO up»") && why.contains("«disk»"),
            "{why}"
        );
        assert!(why.contains("3 of the file's 6 lines"), "{why}");
        assert!(
            why.contains(
                "lines that hold «disk»: line 2: 10:02 WARN slow disk; line 4: 10:04 WARN \
                 disk 91% full; line 5: 10:05 ERROR disk full."
            ),
            "{why}"
        );
        // The line that holds it, or several that all do, are what was asked.
        assert_eq!(unselected_line(asked, "10:02 WARN slow disk", &log), None);
        assert_eq!(
            unselected_line(asked, "Line 2: 10:02 WARN slow disk", &log),
            None
        );
        // Another language's request, another file: the same rule.
        let recipe = file("~/notes/recipe.txt", RECIPE);
        let butter = "Which line of ~/notes/recipe.txt mentions butter?";
        assert!(unselected_line(butter, "Pancakes for two", &recipe).is_some());
        assert_eq!(
            unselected_line(butter, "Melt the butter in a pan", &recipe),
            None
        );
    }

    fn read(op: &str, text: Option<&str>, output: &str) -> ToolCallRecord {
        let mut input = serde_json::json!({"path": "/h/logs/server.log", "op": op});
        if let Some(t) = text {
            input["text"] = serde_json::json!(t);
        }
        ToolCallRecord::ran(ToolName::ReadLines, input, "/h/logs/server.log", output)
    }

    #[test]
    fn the_line_a_first_or_last_read_would_select_by_the_word_is_stated_by_code() {
        let log = file("~/logs/server.log", LOG);
        let first = read(
            "first",
            None,
            "The first of the 6 lines: line 1: 10:00 INFO up",
        );
        let asked = "Find the first line of ~/logs/server.log that mentions disk";
        assert_eq!(
            selected_stated(asked, "10:00 INFO up", &log, &[&first]).as_deref(),
            Some("Line 2: 10:02 WARN slow disk")
        );
        let last = read(
            "last",
            None,
            "The last of the 6 lines: line 6: 10:06 INFO down",
        );
        assert_eq!(
            selected_stated(
                "the last line of ~/logs/server.log that mentions disk",
                "10:06 INFO down",
                &log,
                &[&last]
            )
            .as_deref(),
            Some("Line 5: 10:05 ERROR disk full")
        );
        // A read that selected by a word is the model's own selection; a line no first
        // or last read picked, or two words that could select, is left to the model.
        let by_word = read("first", Some("info"), "line 1: 10:00 INFO up");
        assert_eq!(
            selected_stated(asked, "10:00 INFO up", &log, &[&by_word]),
            None
        );
        assert_eq!(selected_stated(asked, "10:00 INFO up", &log, &[]), None);
        assert_eq!(
            selected_stated(
                "the first line of ~/logs/server.log that mentions disk or request",
                "10:00 INFO up",
                &log,
                &[&first]
            ),
            None
        );
    }

    #[test]
    fn a_whole_read_quoted_under_a_claimed_line_quotes_lines_the_word_does_not_select() {
        let journal = file(
            "~/journal.txt",
            "Mon: sunny walk\nTue: rain all day\nWed: cloudy\nThu: light rain at noon\nFri: sunny again\n",
        );
        let asked = "Give me the last line of ~/journal.txt that talks about rain.";
        let dump = "The last line that talks about rain is 'Mon: sunny walk'.\nMon: sunny walk\n\
                    Tue: rain all day\nWed: cloudy\nThu: light rain at noon\nFri: sunny again";
        let why = unselected_line(asked, dump, &journal).expect("the whole file quoted");
        assert!(
            why.contains("«Mon: sunny walk»") && why.contains("«rain»"),
            "{why}"
        );
        // The lines the word selects, one or both, are what was asked.
        assert_eq!(
            unselected_line(asked, "Line 4: Thu: light rain at noon", &journal),
            None
        );
        assert_eq!(
            unselected_line(
                asked,
                "Tue: rain all day, and last Thu: light rain at noon",
                &journal
            ),
            None
        );
        // With no word that selects, quoting the whole file is not this rule's to judge.
        assert_eq!(
            unselected_line("Show me ~/journal.txt", dump, &journal),
            None
        );
    }

    #[test]
    fn words_that_mark_many_lines_each_may_select_few_together() {
        let log = file(
            "~/logs/app.log",
            "09:00 INFO payment started\n09:01 ERROR network down\n09:02 ERROR payment declined\n\
             09:03 INFO payment done\n09:04 ERROR disk slow\n",
        );
        let asked = "Which ERROR line of ~/logs/app.log is about a payment?";
        let why = unselected_line(asked, "line 1: 09:00 INFO payment started", &log)
            .expect("a payment line that is no error");
        assert!(why.contains("does not hold «error» —"), "{why}");
        assert!(
            why.contains(
                "The file's lines that hold «error» and «payment»: line 3: 09:02 ERROR payment declined."
            ),
            "{why}"
        );
        assert!(unselected_line(asked, "09:01 ERROR network down", &log).is_some());
        assert_eq!(
            unselected_line(asked, "Line 3: 09:02 ERROR payment declined", &log),
            None
        );
        // Code states no line for a selection no single word makes.
        assert_eq!(
            selected_stated(asked, "09:00 INFO payment started", &log, &[]),
            None
        );
    }

    #[test]
    fn a_word_selects_the_lines_that_hold_a_form_of_it() {
        let log = file(
            "~/logs/build.log",
            "ok compile\nwarn unused import\nok link\nwarn deprecated call\nok test\nwarn slow test\n",
        );
        let asked = "What is the second warning in ~/logs/build.log?";
        let dump =
            "ok compile warn unused import ok link warn deprecated call ok test warn slow test";
        let why = unselected_line(asked, dump, &log).expect("the whole log given");
        assert!(
            why.contains("«ok compile»") && why.contains("does not hold «warning»"),
            "{why}"
        );
        assert!(
            why.contains(
                "line 2: warn unused import; line 4: warn deprecated call; line 6: warn slow test"
            ),
            "{why}"
        );
        assert_eq!(
            unselected_line(asked, "Line 4: warn deprecated call", &log),
            None
        );
        // Three letters make no stem: "ok" and "okay" are not one word here, nor "tes".
        assert!(!holds(&words("ok test"), "okay"));
        assert!(holds(&words("errors found"), "error"));
    }

    #[test]
    fn the_nth_of_the_lines_a_word_selects_is_stated_by_code() {
        let log = file(
            "~/logs/build.log",
            "ok compile\nwarn unused import\nok link\nwarn deprecated call\nok test\nwarn slow test\n",
        );
        let asked = "What is the second warning in ~/logs/build.log?";
        assert_eq!(
            nth_selected(asked, "warn unused import", &log).as_deref(),
            Some("Line 4: warn deprecated call")
        );
        assert_eq!(
            nth_selected(
                "the third warning of ~/logs/build.log",
                "Line 4: warn deprecated call",
                &log
            )
            .as_deref(),
            Some("Line 6: warn slow test")
        );
        // The n-th itself, a line of another kind, two lines, or no ordinal: not this rule's.
        assert_eq!(
            nth_selected(asked, "Line 4: warn deprecated call", &log),
            None
        );
        assert_eq!(nth_selected(asked, "ok link", &log), None);
        assert_eq!(
            nth_selected(asked, "warn unused import, warn slow test", &log),
            None
        );
        assert_eq!(
            nth_selected(
                "the last warning in ~/logs/build.log",
                "warn unused import",
                &log
            ),
            None
        );
        // Fewer such lines than the ordinal: nothing to state.
        assert_eq!(
            nth_selected(
                "the fifth warning in ~/logs/build.log",
                "warn unused import",
                &log
            ),
            None
        );
    }

    #[test]
    fn words_of_most_lines_no_line_or_a_path_select_nothing() {
        let recipe = file("~/notes/recipe.txt", RECIPE);
        // "the" is in three of four lines; "first" and "line" in none.
        assert_eq!(
            unselected_line(
                "What is the first line of ~/notes/recipe.txt?",
                "Pancakes for two",
                &recipe
            ),
            None
        );
        // A word only in the path names the file, not its lines.
        let log = file("~/logs/disk.log", LOG);
        assert_eq!(
            unselected_line(
                "Show the first line of ~/logs/disk.log",
                "10:00 INFO up",
                &log
            ),
            None
        );
        // An answer that quotes no line (a count) is not a quoted line.
        assert_eq!(
            unselected_line(
                "How many lines of ~/logs/server.log mention disk?",
                "3",
                &file("~/logs/server.log", LOG)
            ),
            None
        );
    }
}
