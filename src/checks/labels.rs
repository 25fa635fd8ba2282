//! A number read for another thing. Tools print a number with the words that say what it
//! counts ("The file has 7 lines (3 of them blank, 4 with text)"); grounding checks that
//! the answer's number was printed, not what it was printed for. Asked how many lines
//! "have text on them", a small model answered 3 — the blank ones.
//!
//! The rule: the answer gives one number (besides those the request states); wherever
//! the successful calls printed it with words after it, none of those words is one the
//! request says; and the same calls printed other numbers with words the request does
//! say. The answer took the number of something nobody asked about, and hears which
//! numbers were printed for what it asks.
//!
//! **Invariant:** pure, and silent unless the answer's number was printed with words of
//! its own, never with a word of the request, while another number was.

use crate::contracts::{ToolCallRecord, ToolCallStatus};

/// Words that say nothing of what a number counts.
const EMPTY_WORDS: &[&str] = &[
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "of", "in", "on", "at", "to",
    "and", "or", "it", "its", "them", "they", "their", "with", "by", "for", "from", "has", "have",
    "had", "there", "this", "that", "these", "those", "which", "what", "how", "many", "much", "as",
    "than", "do", "does", "did", "my", "i", "me", "you", "your", "our", "we",
];

/// At most this many words after a number say what it counts.
const LABEL_WORDS: usize = 3;

/// One piece of a text, as this check reads it.
#[derive(Debug, PartialEq)]
enum Token {
    Number(f64),
    Word(String),
    /// Punctuation that ends what a number's words say.
    Break,
}

/// `text` as numbers, lower-case words and breaks. A path's pieces are words; `-`, `/`,
/// quotes and `=` join rather than break.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (matches!(chars[i], '.' | ',')
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let written: String = chars[start..i].iter().filter(|c| **c != ',').collect();
            // A number glued to letters ("file1", "q3") names something; it counts nothing.
            let glued = chars.get(i).is_some_and(|c| c.is_alphabetic())
                || (start > 0 && chars[start - 1].is_alphabetic());
            match written.parse::<f64>() {
                Ok(v) if !glued => out.push(Token::Number(v)),
                _ => out.push(Token::Word(written)),
            }
        } else if c.is_alphabetic() {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect::<String>().to_lowercase();
            out.push(Token::Word(word));
        } else {
            if matches!(
                c,
                ',' | ';' | ':' | '(' | ')' | '[' | ']' | '.' | '\n' | '|' | '\t'
            ) {
                out.push(Token::Break);
            }
            i += 1;
        }
    }
    out
}

/// Each number of `text` with the words printed after it that say something (at most
/// [`LABEL_WORDS`], up to a break or the next number).
fn labelled(text: &str) -> Vec<(f64, Vec<String>)> {
    let tokens = tokens(text);
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let Token::Number(n) = t else { continue };
        let words: Vec<String> = tokens[i + 1..]
            .iter()
            .map_while(|t| match t {
                Token::Word(w) => Some(w),
                _ => None,
            })
            .take(LABEL_WORDS)
            .filter(|w| !EMPTY_WORDS.contains(&w.as_str()))
            .cloned()
            .collect();
        out.push((*n, words));
    }
    out
}

/// The words of `request` that say what it asks about.
fn asked_words(request: &str) -> Vec<String> {
    tokens(request)
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w) if !EMPTY_WORDS.contains(&w.as_str()) => Some(w),
            _ => None,
        })
        .collect()
}

/// The numbers of `text`.
fn numbers(text: &str) -> Vec<f64> {
    tokens(text)
        .into_iter()
        .filter_map(|t| match t {
            Token::Number(n) => Some(n),
            _ => None,
        })
        .collect()
}

/// Why the answer's one number reads another thing than the request asks about, if it
/// does: what it was printed for, and the numbers printed for what is asked.
pub fn misread_number(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let stated = numbers(request);
    let mut given: Vec<f64> = numbers(answer)
        .into_iter()
        .filter(|n| !stated.contains(n))
        .collect();
    given.dedup();
    let [n] = given[..] else { return None };
    let asked = asked_words(request);
    let says = |w: &String| asked.iter().any(|a| crate::text::same_word(a, w));
    let printed: Vec<(f64, Vec<String>)> = records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .flat_map(|r| labelled(&r.output_head))
        .filter(|(_, words)| !words.is_empty())
        .collect();
    let for_n: Vec<&Vec<String>> = printed
        .iter()
        .filter(|(m, _)| *m == n)
        .map(|(_, w)| w)
        .collect();
    if for_n.is_empty() || for_n.iter().any(|words| words.iter().any(says)) {
        return None;
    }
    // The numbers printed for what the request says, those for a word that is no mere
    // unit first ("4 with text" before "7 lines" when the request asks about text).
    let mut instead: Vec<(f64, &Vec<String>, bool)> = Vec::new();
    for (m, words) in &printed {
        if *m == n || !words.iter().any(says) || instead.iter().any(|(x, _, _)| x == m) {
            continue;
        }
        let telling = words
            .iter()
            .any(|w| says(w) && crate::checks::units::unit_of(w).is_none());
        instead.push((*m, words, telling));
    }
    if instead.is_empty() {
        return None;
    }
    instead.sort_by_key(|(_, _, telling)| !telling);
    let shown: Vec<String> = instead
        .iter()
        .take(3)
        .map(|(m, words, _)| format!("{} for «{}»", show(*m), words.join(" ")))
        .collect();
    Some(format!(
        "the answer gives {}, which the tools printed for «{}», and the request does not \
         ask about that; they printed {}: give the number printed for what the request asks",
        show(n),
        for_n[0].join(" "),
        shown.join(", ")
    ))
}

/// A number as a person writes it: no fraction of only zeros.
fn show(n: f64) -> String {
    let text = format!("{n}");
    text.strip_suffix(".0").unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::ToolName;

    fn ok_record(output: &str) -> ToolCallRecord {
        crate::checks::shape::tests::ok(ToolName::ReadLines, "", output)
    }

    const READ: &str = "0 of the 7 lines of /tmp/h/poems/sea.txt that contain \"text\" \
        (case ignored) (0% of the lines). The file has 7 lines (3 of them blank, 4 with \
        text). How it writes its lines: line 1: The sea is wide line 3: and the sky is grey";
    const ASKED: &str = "How many lines of ~/poems/sea.txt have text on them?";

    #[test]
    fn a_count_printed_for_another_thing_hears_the_ones_printed_for_what_is_asked() {
        let records = [ok_record(READ)];
        let refs: Vec<&ToolCallRecord> = records.iter().collect();
        let why = misread_number(ASKED, "3", &refs).expect("3 counts the blank lines");
        assert!(why.contains("printed for «blank»"), "{why}");
        assert!(why.contains("4 for «text»"), "{why}");
        // The number printed for a word that is no mere unit comes first.
        assert!(
            why.find("4 for").unwrap() < why.find("7 for").unwrap(),
            "{why}"
        );
    }

    #[test]
    fn the_number_printed_for_what_is_asked_passes() {
        let records = [ok_record(READ)];
        let refs: Vec<&ToolCallRecord> = records.iter().collect();
        assert_eq!(misread_number(ASKED, "4 lines have text.", &refs), None);
        assert_eq!(misread_number(ASKED, "7", &refs), None);
    }

    #[test]
    fn a_number_printed_with_no_words_or_never_printed_is_not_held_to_this() {
        let records = [ok_record("sum of amount = 1200 (3 rows, 0 skipped)")];
        let refs: Vec<&ToolCallRecord> = records.iter().collect();
        let asked = "What is the total of the amounts in ~/money/budget.csv?";
        assert_eq!(misread_number(asked, "1200", &refs), None);
        assert_eq!(misread_number(asked, "1300", &refs), None);
    }

    #[test]
    fn an_answer_of_several_numbers_or_a_stated_one_is_not_held_to_this() {
        let records = [ok_record(READ)];
        let refs: Vec<&ToolCallRecord> = records.iter().collect();
        assert_eq!(
            misread_number(ASKED, "3 blank and 4 with text", &refs),
            None
        );
        let stated = "How many of the 3 blank lines of ~/poems/sea.txt come first?";
        assert!(misread_number(stated, "3", &refs).is_none());
    }

    #[test]
    fn names_with_digits_are_words_and_failed_calls_show_nothing() {
        assert_eq!(
            tokens("file1.txt 12 rows"),
            [
                Token::Word("file1".into()),
                Token::Break,
                Token::Word("txt".into()),
                Token::Number(12.0),
                Token::Word("rows".into()),
            ]
        );
        let mut failed = ok_record(READ);
        failed.status = ToolCallStatus::Error;
        assert_eq!(misread_number(ASKED, "3", &[&failed]), None);
    }
}
