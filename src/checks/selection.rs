//! A line quoted from a file, held to the words the request selects lines by.
//!
//! Asked for "the first line of server.log that mentions disk", a small model read the
//! file's first line — its call left out the word that selects the lines — and the
//! validators passed `10:00 INFO up`. The rule reads the file itself: a word the request
//! names that marks some of the file's lines, but at most half of them, is a word that
//! selects lines; an answer that quotes a whole line of the file without it has picked
//! by something else. Words common to most lines ("the" in prose) select nothing, and a
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

/// The words of `text`, lower case, as the rule compares them: runs of letters and
/// digits.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
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
        let words: Vec<(String, usize)> = asked
            .iter()
            .map(|w| (w, lines.iter().filter(|(_, ws)| ws.contains(w)).count()))
            .filter(|(_, n)| *n >= 1 && n * 2 <= lines.len())
            .filter(|(w, _)| quoted.iter().all(|(_, ws)| !ws.contains(*w)))
            .map(|(w, n)| (w.clone(), n))
            .collect();
        (!words.is_empty()).then_some(Unselected {
            path,
            text,
            quoted: first,
            words,
            lines: lines.len(),
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
         sub-task names that marks {} of the file's {} lines. If the sub-task asks for a \
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
        u.lines
    ))
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
    let u = unselected(request, answer, texts)?;
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
    let holding = |(_, l): &(usize, &str)| words(l).contains(word);
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
        ToolCallRecord {
            tool: ToolName::ReadLines.into(),
            input,
            target: "/h/logs/server.log".into(),
            output_head: output.into(),
            status: ToolCallStatus::Ok,
            error: None,
            duration_ms: 1,
            confirmation: None,
            failure: None,
            failed_exit: None,
            effects: Vec::new(),
            grant: None,
        }
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
