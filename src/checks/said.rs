//! What every check of an answer's account reads the same way: the verb a request opens
//! with, whether an answer says something was not done, and whether the calls changed
//! anything at all. [`super::claims`] and [`super::unmade`] hold answers to these.
//!
//! **Invariant:** pure.

use crate::contracts::{Decision, ToolCallRecord, ToolCallStatus};

/// Words a request may open with before its verb.
const LEAD_INS: &[&str] = &[
    "please", "kindly", "can", "could", "would", "will", "you", "now", "then", "just", "go",
    "ahead", "and",
];

/// Words a request may open a phrase of place or time with, before a comma and its verb
/// ("In ~/site/links.txt, change every http:// to https://").
const PLACE_OPENERS: &[&str] = &[
    "in", "inside", "within", "on", "at", "for", "from", "under", "after", "before", "when",
];

/// The request's first word after its lead-ins, lower case, with the word after it: its
/// verb when it opens with one. A request that opens with a phrase of place or time and a
/// comma has its verb after the comma.
pub(crate) fn leading_verb(request: &str) -> Option<(String, Option<String>)> {
    let folded = crate::text::fold(request);
    let opener = folded
        .split(|c: char| !c.is_alphabetic())
        .find(|w| !w.is_empty())
        .is_some_and(|w| PLACE_OPENERS.contains(&w));
    let request = match folded.split_once(',') {
        Some((_, rest)) if opener => rest.to_string(),
        _ => folded,
    };
    let mut words = request
        .split(|c: char| !c.is_alphabetic() && c != '\'')
        .filter(|w| !w.is_empty())
        .skip_while(|w| LEAD_INS.contains(w));
    let verb = words.next()?.to_string();
    Some((verb, words.next().map(str::to_string)))
}

/// Words that say something did not happen or could not be done: an answer holding one
/// reports what was not done, and is not read as a claim.
const NEGATIONS: &[&str] = &[
    "not", "no", "nothing", "none", "never", "cannot", "can't", "couldn't", "didn't", "wasn't",
    "weren't", "isn't", "aren't", "won't", "failed", "denied", "没", "未", "无", "不",
];

/// Whether `answer` says something was not done or not there (a word of [`NEGATIONS`];
/// the Chinese ones anywhere in it).
pub(crate) fn says_not(answer: &str) -> bool {
    let folded = crate::text::fold(answer);
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .collect();
    NEGATIONS.iter().any(|n| {
        if n.is_ascii() {
            words.contains(n)
        } else {
            answer.contains(n)
        }
    })
}

/// Whether a call of `records` changed something: a successful call with an effect on
/// record, or an action the user approved (a command run outside the sandbox has no
/// measured effects).
pub(crate) fn changed_anything(records: &[&ToolCallRecord]) -> bool {
    records.iter().any(|r| {
        (r.status == ToolCallStatus::Ok && !r.effects.is_empty())
            || matches!(r.confirmation, Some(Decision::Approve | Decision::Trash))
    })
}
