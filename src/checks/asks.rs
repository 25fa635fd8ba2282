//! The answer shape a question's own opening fixes, where a model's choice contradicts
//! it. R1 and R2 choose the shape the delivered answer is checked against; a small model
//! chose "number" for "Which month has the highest total?", and the right answer, a
//! month, was then sent back by code for holding no number. The grammar of a question
//! settles a few cases:
//!
//! - "which …" / "who …" asks to identify: one item ("which month"), or several when the
//!   head of its noun phrase is plural ("which hidden files are …"): then a list, even
//!   where the model chose one item. Not when the noun is itself a quantity or a time
//!   ("which year", "which day"): those may well be answered by a number or a date.
//! - "how many …" / "how much …" / "what percentage …" asks for a number, or for a
//!   number per group when it spreads over groups ("how many per folder").
//!
//! **Invariant:** only a shape that contradicts the opening is replaced; a shape the
//! opening allows (a list for "which file", counts per group for "how many") stays, and
//! a request that opens otherwise keeps the model's choice.

use crate::contracts::AnswerShape;

/// Leading words that only make a request polite: skipped before the opening is read.
const POLITE: &[&str] = &[
    "please", "can", "could", "would", "you", "tell", "me", "let", "know", "do", "i", "want", "to",
    "and",
];

/// Nouns after "which" that are quantities or times: their answer may be a number or a
/// date.
const QUANTITIES: &[&str] = &[
    "year",
    "years",
    "day",
    "days",
    "date",
    "dates",
    "time",
    "times",
    "hour",
    "hours",
    "number",
    "numbers",
    "amount",
    "amounts",
    "size",
    "sizes",
    "price",
    "prices",
    "value",
    "values",
    "total",
    "totals",
    "percentage",
    "count",
];

/// Words that spread a count over groups.
const SPREAD: &[&str] = &["each", "per", "every"];

/// The shape `request` asks for, given that a model chose `chosen`: the opening's shape
/// where `chosen` contradicts it, else `chosen`.
pub fn settled(request: &str, chosen: AnswerShape) -> AnswerShape {
    match opening_shape(request) {
        Some(named @ (AnswerShape::Item | AnswerShape::List))
            if matches!(
                chosen,
                AnswerShape::Number | AnswerShape::Date | AnswerShape::Text | AnswerShape::Any
            ) =>
        {
            named
        }
        // "Which files …" asks for every one that fits: one item is the wrong shape (a
        // small model named the first of two hidden files and stopped).
        Some(AnswerShape::List) if chosen == AnswerShape::Item => AnswerShape::List,
        Some(AnswerShape::Number)
            if !matches!(
                chosen,
                AnswerShape::Number | AnswerShape::PerGroup | AnswerShape::Action
            ) =>
        {
            AnswerShape::Number
        }
        Some(AnswerShape::PerGroup)
            if !matches!(chosen, AnswerShape::PerGroup | AnswerShape::Action) =>
        {
            AnswerShape::PerGroup
        }
        _ => chosen,
    }
}

/// Whether `request` asks for a share as a percentage ("what percentage of …", "what
/// percent", "in %"): then a count is not yet the answer. A percentage the request
/// states with its number ("15% of the total", "after a 5 percent rise") is an operand,
/// not the shape asked for.
pub fn asks_percentage(request: &str) -> bool {
    let folded = crate::text::fold(request);
    let chars: Vec<char> = folded.chars().collect();
    let after_number = |at: usize| {
        chars[..at]
            .iter()
            .rev()
            .find(|c| !c.is_whitespace())
            .is_some_and(char::is_ascii_digit)
    };
    let bare_sign = chars
        .iter()
        .enumerate()
        .any(|(i, c)| *c == '%' && !after_number(i));
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let bare_word = words.iter().enumerate().any(|(i, w)| match *w {
        "percentage" | "percentages" | "百分比" => true,
        "percent" => !(i > 0 && words[i - 1].chars().all(|c| c.is_ascii_digit())),
        _ => false,
    });
    bare_sign || bare_word
}

/// The shape the question's opening words fix, if they fix one.
fn opening_shape(request: &str) -> Option<AnswerShape> {
    let folded = crate::text::fold(request);
    let trimmed = folded.trim_start();
    for (cjk, shape) in [
        ("哪个", AnswerShape::Item),
        ("哪一个", AnswerShape::Item),
        ("多少", AnswerShape::Number),
    ] {
        if trimmed.starts_with(cjk) {
            return Some(shape);
        }
    }
    let words: Vec<&str> = folded
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let start = words.iter().position(|w| !POLITE.contains(w))?;
    let (first, rest) = (words[start], &words[start + 1..]);
    match first {
        "which" | "who" => {
            let noun = head_noun(rest);
            if QUANTITIES.contains(&noun) {
                None
            } else if first == "which" && is_plural(noun) {
                Some(AnswerShape::List)
            } else {
                Some(AnswerShape::Item)
            }
        }
        "how" if matches!(rest.first(), Some(&"many" | &"much")) => Some(counted(rest)),
        "what" if matches!(rest.first(), Some(&"percentage" | &"percent" | &"share")) => {
            Some(counted(rest))
        }
        _ => None,
    }
}

/// Words that end the noun phrase after "which": a verb or a preposition ("which hidden
/// files *are* in …", "which month *has* …", "which file *in* ~/x …").
const PHRASE_ENDS: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will",
    "would", "should", "in", "of", "from", "under", "inside", "on", "at", "with", "that",
    "contain", "contains", "hold", "holds", "take", "takes", "appear", "appears", "mention",
    "mentions", "to", "for", "by", "weigh", "weighs", "cost", "costs",
];

/// The head of the noun phrase after "which": its last word before a verb or a
/// preposition ("hidden files" → "files", "month" → "month"), within four words; the
/// first word when the phrase has no end in reach.
fn head_noun<'a>(rest: &[&'a str]) -> &'a str {
    let phrase: Vec<&str> = rest
        .iter()
        .take(4)
        .take_while(|w| !PHRASE_ENDS.contains(w))
        .copied()
        .collect();
    match (phrase.last(), rest.get(phrase.len())) {
        (Some(last), Some(_)) => last,
        _ => rest.first().copied().unwrap_or(""),
    }
}

/// A number, or a number per group when the words spread it over groups.
fn counted(words: &[&str]) -> AnswerShape {
    if words.iter().any(|w| SPREAD.contains(w)) {
        AnswerShape::PerGroup
    } else {
        AnswerShape::Number
    }
}

/// A plural English noun, roughly: ends in "s" but not in "ss", "us" or "is" ("files",
/// "photos"; not "class", "status", "analysis").
fn is_plural(noun: &str) -> bool {
    noun.len() > 2
        && noun.ends_with('s')
        && !noun.ends_with("ss")
        && !noun.ends_with("us")
        && !noun.ends_with("is")
}

#[cfg(test)]
mod tests {
    use super::*;
    use AnswerShape::*;

    #[test]
    fn a_which_question_asks_for_an_item_or_items() {
        let month = "Which month has the highest total amount in ~/finance/expenses.csv?";
        assert_eq!(settled(month, Number), Item);
        assert_eq!(settled(month, Text), Item);
        assert_eq!(settled("Please tell me which folder is biggest", Any), Item);
        assert_eq!(settled("Which files in ~/inbox are empty?", Number), List);
        assert_eq!(settled("Who sent the most tickets?", Date), Item);
        assert_eq!(settled("哪个文件最大？", Number), Item);
        // A plural asks for every one that fits: a list, not one item.
        assert_eq!(settled("Which files in ~/inbox are empty?", Item), List);
        assert_eq!(settled("Which hidden files are in ~/project?", Text), List);
        assert_eq!(settled("Which hidden files are in ~/project?", Item), List);
        assert_eq!(settled("Which large video is the newest?", Text), Item);
        // A shape the opening allows stays.
        assert_eq!(settled(month, PerGroup), PerGroup);
        assert_eq!(settled("Which status has 3 tickets?", List), List);
        // A quantity or a time after "which": its number or date may be the answer.
        assert_eq!(settled("Which year had the most sales?", Number), Number);
        assert_eq!(settled("Which day was the warmest?", Date), Date);
    }

    #[test]
    fn a_how_many_question_asks_for_a_number_or_one_per_group() {
        assert_eq!(settled("How many lines does ~/a.txt have?", Item), Number);
        assert_eq!(
            settled("What percentage of the tickets are open?", Text),
            Number
        );
        assert_eq!(
            settled("How many files are there of each type?", Number),
            PerGroup
        );
        assert_eq!(settled("How many files per folder?", PerGroup), PerGroup);
        assert_eq!(settled("how much space do my videos take", Action), Action);
    }

    #[test]
    fn a_percentage_is_asked_in_words_or_by_its_sign() {
        assert!(asks_percentage(
            "What percentage of the lines are INFO lines?"
        ));
        assert!(asks_percentage("how many percent of my files are PDFs"));
        assert!(asks_percentage("share of open tickets in %"));
        assert!(!asks_percentage("How many tickets are open?"));
        // A percentage stated with its number is an operand, not the shape asked.
        assert!(!asks_percentage(
            "What is 15% of the total in ~/money/budget.csv?"
        ));
        assert!(!asks_percentage("the rent after a 5 percent increase"));
        assert!(asks_percentage("what percentage is 15 of 60"));
    }

    #[test]
    fn other_openings_keep_the_models_choice() {
        for shape in AnswerShape::CHOSEN {
            assert_eq!(settled("Delete the empty logs in ~/logs", shape), shape);
            assert_eq!(
                settled("What day of the week was 14 March 2026?", shape),
                shape
            );
            assert_eq!(settled("Is there a file called tax.pdf?", shape), shape);
        }
    }
}
