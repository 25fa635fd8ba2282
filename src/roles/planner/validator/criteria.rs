//! What makes a criterion worthless to a validator: empty, copied from the prompt's
//! worked example, or made only of words that say nothing a tool output shows.
//!
//! **Invariant:** these are pure predicates on one criterion's text; a criterion that
//! names anything concrete (a number, a name, a path) is never vague.

use crate::roles::planner::schema::{CRITERION_EXAMPLE, DraftCriterion, EXAMPLE_FOLDER};

pub(super) fn is_blank(c: &DraftCriterion) -> bool {
    c.criterion.trim().is_empty()
}

/// Whether a criterion comes from the prompt's worked example: the example verbatim, or
/// naming the example's folder while the task does not.
pub(super) fn is_example(criterion: &str, task: &str) -> bool {
    let c = criterion.trim().trim_end_matches('.').to_lowercase();
    if c == CRITERION_EXAMPLE.to_lowercase() {
        return true;
    }
    let folder = EXAMPLE_FOLDER.to_lowercase();
    let user = folder.rsplit_once('/').map_or(folder.as_str(), |(u, _)| u);
    c.contains(user) && !task.to_lowercase().contains(user)
}

/// Words a criterion can consist of and still say nothing a tool output shows ("the
/// sub-task has been completed successfully", "the output is correct").
const VAGUE_WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "task",
    "subtask",
    "sub",
    "it",
    "this",
    "is",
    "was",
    "are",
    "be",
    "has",
    "have",
    "been",
    "done",
    "complete",
    "completed",
    "finished",
    "finishes",
    "successful",
    "successfully",
    "success",
    "succeeded",
    "succeeds",
    "executed",
    "runs",
    "ran",
    "run",
    "correctly",
    "correct",
    "properly",
    "proper",
    "without",
    "any",
    "errors",
    "error",
    "works",
    "working",
    "as",
    "expected",
    "user",
    "satisfied",
    "output",
    "result",
    "results",
    "ok",
    "fine",
    "all",
    "steps",
    "step",
    "and",
    "valid",
    "accurate",
    "accurately",
    "performed",
    "action",
    "request",
    "requested",
    "fulfilled",
    "achieved",
    "goal",
];

/// Whether a criterion checks nothing: every word of it is in [`VAGUE_WORDS`].
pub fn is_vague(criterion: &str) -> bool {
    let lower = criterion.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    !words.is_empty() && words.iter().all(|w| VAGUE_WORDS.contains(w))
}
