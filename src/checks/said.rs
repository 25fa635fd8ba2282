//! What every check of an answer's account reads the same way: whether an answer says
//! something was not done, and whether the calls changed anything at all. [`super::claims`] and [`super::unmade`] hold answers to these.
//!
//! **Invariant:** pure.

use crate::contracts::{Decision, ToolCallRecord, ToolCallStatus};

/// The tools that change files, each with what it does, as a check that sends back an
/// answer with no change behind it names them.
pub(crate) const CHANGE_TOOLS: &str = "edit_file replaces a text in a file, set_value sets \
     a setting's value by its key, convert_file writes a file made from another, write_file \
     writes, move_files moves and renames, delete_files deletes";

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
