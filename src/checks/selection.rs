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

/// Why the answer's quoted line is not one the request selects, if it is not: for each
/// `(path, text)` of a file the sub-task names, the lines of it `answer` quotes whole,
/// and the words of `request` (outside paths) that mark at least one and at most half of
/// the file's lines but none of the quoted ones.
pub fn unselected_line(request: &str, answer: &str, texts: &[(String, String)]) -> Option<String> {
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
        if quoted.is_empty() {
            return None;
        }
        let selecting: Vec<(&String, usize)> = asked
            .iter()
            .map(|w| (w, lines.iter().filter(|(_, ws)| ws.contains(w)).count()))
            .filter(|(_, n)| *n >= 1 && n * 2 <= lines.len())
            .filter(|(w, _)| quoted.iter().all(|(_, ws)| !ws.contains(*w)))
            .collect();
        let ((word, holding), rest) = selecting.split_first()?;
        let others: Vec<String> = rest.iter().map(|(w, _)| format!("«{w}»")).collect();
        Some(format!(
            "the output quotes «{}» of {path}, which does not hold «{word}»{} — a word the \
             sub-task names that marks {} of the file's {} lines. If the sub-task asks for a \
             line that holds it, let read_lines select it by code (text set to that word, \
             op first, last or at as asked) and finish with the line it prints; if it does \
             not, finish again as you did",
            crate::text::first_chars(quoted[0].0, 120),
            if others.is_empty() {
                String::new()
            } else {
                format!(" (nor {})", others.join(", "))
            },
            holding,
            lines.len()
        ))
    })
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
