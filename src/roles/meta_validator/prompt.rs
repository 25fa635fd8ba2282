//! R4b's merge prompt: the fixed rules after the shared preamble, and the user turn that
//! quotes the request, the task criteria and every matched sub-task output.
//!
//! **Invariant:** the system prompt is fixed text after the preamble (the model server
//! caches it); the outputs shown share [`MAX_OUTPUTS_CHARS`] equally, each cut in the
//! middle, so no single output crowds out the others.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use super::super::agent_validator::reply_skeleton;
use crate::contracts::{Criterion, DispatchManifest, SubTaskOutcome};
use crate::text::first_chars;
use crate::text::output_text;
use crate::text::{Keep, elide_middle, plural};

/// Total characters of sub-task outputs shown to the model; each output gets an equal
/// share, cut in the middle.
pub const MAX_OUTPUTS_CHARS: usize = 24_000;

/// R4b's instructions after the shared preamble.
const MERGE_RULES: &str = "You are R4b, the Meta-Validator. Every sub-task of the plan \
passed its own checks. You merge their outputs into the one result the user asked for, and \
judge that merged result against each task criterion. You are the last check before the \
user sees the result: be skeptical.

Rules:
1. combined_output is the result itself as concrete data taken from the sub-task outputs: \
the list, the numbers, the paths, the text the user asked for. Never a description of what \
was done, and never anything that is not in the outputs.
2. Judge each task criterion against combined_output only; it is met only when the data \
positively shows it. When the evidence is ambiguous or incomplete, it is unmet.
3. For an unmet criterion, unmet_cause: \"logical\" when the result is wrong or incomplete, \
\"environmental\" when the outputs show the environment blocked it.
4. summary: one or two sentences for the user that state the result, not the process.";

/// R4b's system prompt: the shared preamble, then R4b's rules.
pub fn system_prompt(preamble: &str) -> String {
    format!("{preamble}\n{MERGE_RULES}")
}

/// A merge reply's generation cap.
pub const MERGE_MAX_TOKENS: u32 = 800;

/// The user turn: the request, the criteria and every matched output.
pub fn merge_prompt(
    now: DateTime<Utc>,
    manifest: &DispatchManifest,
    intent: &str,
    criteria: &[Criterion],
    outcomes: &[&SubTaskOutcome],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Local time: {}\n",
        now.with_timezone(&chrono::Local).format("%H:%M")
    );
    if let Some(spec) = &manifest.task_spec {
        let _ = writeln!(
            out,
            "USER'S REQUEST (verbatim): {}",
            first_chars(spec.raw_input.trim(), 2_000)
        );
    }
    let _ = writeln!(out, "TASK: {}", intent.trim());
    if let Some(words) = manifest.task_spec.as_ref().and_then(|s| s.answer.words()) {
        // The shape the plan named: combined_output must be that, not a tool's listing.
        let _ = writeln!(out, "THE ANSWER ASKED FOR: {words}");
    }
    let _ = writeln!(out, "\nTASK CRITERIA:");
    for (i, c) in criteria.iter().enumerate() {
        let _ = writeln!(out, "{}. {}", i + 1, c.criterion.trim());
    }
    let _ = writeln!(
        out,
        "\nSUB-TASK OUTPUTS ({}; each passed its own criteria):",
        outcomes.len()
    );
    let share = MAX_OUTPUTS_CHARS / outcomes.len().max(1);
    for (i, o) in outcomes.iter().enumerate() {
        let checked: Vec<&str> = o
            .criteria_verdicts
            .iter()
            .map(|v| v.criterion.as_str())
            .collect();
        let _ = writeln!(out, "[{}] checked: {}", i + 1, checked.join("; "));
        let _ = writeln!(
            out,
            "{}",
            elide_middle(&output_text(&o.output), share, Keep::Balanced)
        );
        if i + 1 < outcomes.len() {
            let _ = writeln!(out, "---");
        }
    }
    let _ = write!(
        out,
        "\nMerge the outputs into combined_output, then judge the task criteria: \
         `criteria` holds exactly {entries}, one per task criterion above, in that order, \
         shaped like this:\n{}",
        reply_skeleton(criteria),
        entries = plural(criteria.len(), "entry", "entries"),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock as _, FakeClock};
    use crate::contracts::{GapPoint, SubTaskId, SubTaskStatus, TaskId, TaskSpec};
    use serde_json::Value;

    #[test]
    fn the_merge_prompt_quotes_the_request_criteria_and_outputs() {
        let task = TaskId::mint();
        let m = DispatchManifest {
            task_id: task.clone(),
            subtasks: vec![],
            task_spec: Some(TaskSpec {
                task_id: task.clone(),
                intent: "list files".into(),
                constraints: Default::default(),
                raw_input: "what's in /tmp/x?".into(),
                answer: Default::default(),
            }),
            dispatched_at: FakeClock::at_epoch().now(),
            task_criteria: vec![Criterion::new("names every file")],
            round: 0,
        };
        let o = SubTaskOutcome {
            subtask_id: SubTaskId::mint(),
            parent_task_id: task,
            status: SubTaskStatus::Matched,
            output: Value::String("a.txt\nb.txt".into()),
            failure_reason: None,
            gap_trajectory: vec![GapPoint {
                attempt: 1,
                score: 1.0,
                unmet_criteria: vec![],
                failure_class: None,
            }],
            criteria_verdicts: vec![],
            tool_calls: vec![],
        };
        let p = merge_prompt(
            FakeClock::at_epoch().now(),
            &m,
            "list files",
            &m.task_criteria,
            &[&o],
        );
        assert!(p.contains("USER'S REQUEST (verbatim): what's in /tmp/x?"));
        assert!(p.contains("1. names every file"));
        assert!(p.contains("a.txt\nb.txt"));
        // No shape was said: none is claimed.
        assert!(!p.contains("THE ANSWER ASKED FOR"), "{p}");
        let mut counted = m.clone();
        if let Some(spec) = counted.task_spec.as_mut() {
            spec.answer = crate::contracts::AnswerShape::Number;
        }
        let p = merge_prompt(
            FakeClock::at_epoch().now(),
            &counted,
            "count files",
            &m.task_criteria,
            &[&o],
        );
        assert!(p.contains("THE ANSWER ASKED FOR: one number"), "{p}");
    }
}
