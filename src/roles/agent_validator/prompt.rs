//! The text R4a shows its model: the system rules, the numbered tool calls of an attempt
//! (the ground truth) and R3's report (a claim), with a reply skeleton the model fills.
//!
//! **Invariant:** the prompt always keeps ground truth and claim apart — the calls are
//! rendered from the structured records, and R3's prose is labelled as a claim.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::contracts::{
    Criterion, ExecutionResult, ExecutionStatus, SubTask, ToolCallRecord, ToolCallStatus,
};
use crate::text::first_chars;
use crate::text::{Keep, elide_middle, plural};

/// Characters of R3's output shown to the model.
pub const MAX_CLAIM_CHARS: usize = 4_000;
/// Characters of the sub-task context shown to the model.
pub const MAX_CONTEXT_CHARS: usize = 6_000;
/// Tool calls listed in full in one prompt; beyond it the first and the last are kept.
pub const MAX_CALLS_SHOWN: usize = 40;
/// Characters of each call's recorded output shown to the model.
pub const CALL_OUTPUT_SHOWN: usize = 600;

/// The date line every validator prompt opens with, in the user's local time zone.
pub fn today_line(now: DateTime<Utc>) -> String {
    let local = now.with_timezone(&chrono::Local);
    format!(
        "Today's date: {} ({}), local time {} (UTC{}).",
        local.format("%Y-%m-%d"),
        local.format("%A"),
        local.format("%H:%M"),
        local.format("%:z")
    )
}

/// R4a's instructions after the shared preamble.
const JUDGE_RULES: &str = "You are R4a, the Agent-Validator. The Executor (R3) attempted \
one sub-task with tools. You judge the attempt against each success criterion. You never \
run anything.

Evidence rules:
1. The numbered TOOL CALLS are the ground truth: the tool, its input, how it ended (ok, \
error, denied, refused) and what it printed. What a call printed is what it shows: a \
counting command that printed 2 shows the count is 2, and a command that makes, copies or \
moves files and ended ok (printing nothing) did it. The executor's report is only a claim: \
believe it where a call shows the same thing.
2. A criterion about the computer or the web (files, counts, contents, actions done) is met \
only when a call that ended ok shows it. A criterion about the report's own text (a summary \
of material given in the context) is judged on the report.
3. A call that failed, was cut off or was refused proves nothing. A check made afterwards \
(ls, stat, reading the file back) does not prove that a failed action happened.
4. An empty result is an answer: a search or listing that ran ok and found nothing meets a \
criterion that asks what exists or what was found (the answer is \"none\").
5. DENIED means the user did not allow the action (Law 1): it did not happen. That is an \
environmental failure; never suggest doing it another way.
For each unmet criterion, unmet_cause: \"environmental\" (a missing file or path, permission \
denied, network, timeout, a missing program, a denial) or \"logical\" (the approach, the \
command or the output is wrong). If anything is unmet: diagnosis says what was wrong, quoting \
the evidence; remedy says what the executor must do differently. If everything is met, both \
are empty strings.";

/// R4a's system prompt: the shared preamble, then R4a's rules.
pub fn system_prompt(preamble: &str) -> String {
    format!("{preamble}\n{JUDGE_RULES}")
}

/// A judgement reply's generation cap: a verdict with a short quote per criterion and a
/// diagnosis and remedy when something is unmet.
pub const JUDGE_MAX_TOKENS: u32 = 600;

fn status_line(call: &ToolCallRecord) -> String {
    let error = call.error.as_deref().map(|e| first_chars(e, 300));
    match call.status {
        ToolCallStatus::Ok => {
            let approved = if call.confirmation.is_some() {
                ", approved by the user under Law 1"
            } else {
                ""
            };
            match call.failed_exit {
                Some(code) => format!(
                    "ran but FAILED with exit status {code}{approved}; its output proves \
                     nothing, {} ms",
                    call.duration_ms
                ),
                None => format!("ok{approved}, {} ms", call.duration_ms),
            }
        }
        ToolCallStatus::Error => format!("ERROR: {}", error.unwrap_or_default()),
        ToolCallStatus::Denied => format!(
            "DENIED under Law 1 — the action did not run{}",
            error.map(|e| format!(": {e}")).unwrap_or_default()
        ),
        ToolCallStatus::Refused => format!(
            "REFUSED before running{}",
            error.map(|e| format!(": {e}")).unwrap_or_default()
        ),
    }
}

/// A call's input as a person reads it: the command, path, pattern or query itself when
/// the input is that one string (with the other parameters after it), else its JSON.
fn input_text(call: &ToolCallRecord) -> String {
    let Value::Object(map) = &call.input else {
        return call.target.clone();
    };
    let main = ["command", "path", "pattern", "query", "script", "name"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str).map(|v| (*k, v)));
    match main {
        Some((key, value)) => {
            let rest: Vec<String> = map
                .iter()
                .filter(|(k, v)| k.as_str() != key && !v.is_null())
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            if rest.is_empty() {
                value.to_string()
            } else {
                format!("{value} ({})", rest.join(", "))
            }
        }
        None => call.input.to_string(),
    }
}

/// Renders call `n`; `changed_by` is the number of a later call that changed what this
/// one looked at. Its output is then the place as it was, and is left out: a judge
/// quoting it would judge the end state by the state before the change.
fn render_call(out: &mut String, n: usize, call: &ToolCallRecord, changed_by: Option<usize>) {
    let _ = writeln!(
        out,
        "[{n}] {}: {} — {}",
        call.tool,
        first_chars(&input_text(call), 400),
        status_line(call)
    );
    if let Some(later) = changed_by {
        let _ = writeln!(
            out,
            "    what it printed is out of date: call [{later}] changed this place after \
             it, so the calls from [{later}] on show it as it is now"
        );
    } else if call.status == ToolCallStatus::Ok || !call.output_head.is_empty() {
        let head = if call.output_head.trim().is_empty() {
            "(nothing)".to_string()
        } else {
            first_chars(call.output_head.trim_end(), CALL_OUTPUT_SHOWN)
        };
        let _ = writeln!(out, "    it printed:\n{}", indent(&head));
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The number of the first call after call `i` that changed the place call `i` only
/// looked at (a call that changed files itself is an event, never out of date).
fn changed_by(calls: &[ToolCallRecord], i: usize) -> Option<usize> {
    let call = &calls[i];
    if !call.effects.is_empty() || call.status != ToolCallStatus::Ok {
        return None;
    }
    calls[i + 1..]
        .iter()
        .position(|later| later.changed(&call.target))
        .map(|k| i + k + 2)
}

/// The numbered tool calls of one attempt.
pub fn render_calls(calls: &[ToolCallRecord]) -> String {
    if calls.is_empty() {
        return "(none: no tool ran in this attempt)\n".to_string();
    }
    let mut out = String::new();
    let keep_head = MAX_CALLS_SHOWN / 4;
    let keep_tail = MAX_CALLS_SHOWN - keep_head;
    for (i, call) in calls.iter().enumerate() {
        if calls.len() > MAX_CALLS_SHOWN && i == keep_head {
            let _ = writeln!(
                out,
                "… {} calls not shown …",
                calls.len() - keep_head - keep_tail
            );
        }
        if calls.len() <= MAX_CALLS_SHOWN || i < keep_head || i >= calls.len() - keep_tail {
            render_call(&mut out, i + 1, call, changed_by(calls, i));
        }
    }
    out
}

/// The start of a reply with every criterion copied in: small models follow a shape
/// they are shown far better than a schema.
pub fn reply_skeleton(criteria: &[Criterion]) -> String {
    let entries: Vec<Value> = criteria
        .iter()
        .map(|c| {
            serde_json::json!({
                "criterion": c.criterion.trim(),
                "evidence": "…",
                "met": "true or false",
                "unmet_cause": "null, \"logical\" or \"environmental\"",
            })
        })
        .collect();
    serde_json::json!({ "criteria": entries }).to_string()
}

/// The user turn for judging one attempt.
pub fn judgement_prompt(
    now: DateTime<Utc>,
    subtask: &SubTask,
    criteria: &[Criterion],
    result: &ExecutionResult,
    attempt: u32,
    max_attempts: u32,
    previous_correction: Option<&str>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Local time: {}\n",
        now.with_timezone(&chrono::Local).format("%H:%M")
    );
    let _ = writeln!(out, "SUB-TASK: {}", subtask.intent.trim());
    if !subtask.context.trim().is_empty() {
        let _ = writeln!(
            out,
            "Context the executor was given:\n{}",
            elide_middle(subtask.context.trim(), MAX_CONTEXT_CHARS, Keep::Balanced)
        );
    }
    let _ = writeln!(out, "\nSUCCESS CRITERIA:");
    for (i, c) in criteria.iter().enumerate() {
        let _ = writeln!(out, "{}. {}", i + 1, c.criterion.trim());
    }
    let _ = writeln!(out, "\nATTEMPT {attempt} of at most {max_attempts}.");
    if let Some(previous) = previous_correction {
        let _ = writeln!(
            out,
            "The previous attempt was corrected because: {}",
            first_chars(previous, 400)
        );
    }
    let _ = writeln!(out, "\nTOOL CALLS (ground truth):");
    out.push_str(&render_calls(&result.tool_calls));
    let status = match result.status {
        ExecutionStatus::Completed => "completed",
        ExecutionStatus::Uncertain => "uncertain",
        ExecutionStatus::Failed => "failed",
    };
    let claim = if result.output.trim().is_empty() {
        "(empty)".to_string()
    } else {
        elide_middle(result.output.trim(), MAX_CLAIM_CHARS, Keep::Balanced)
    };
    let _ = writeln!(
        out,
        "\nEXECUTOR'S REPORT (a claim, not evidence) — status {status}:\n{claim}"
    );
    let _ = write!(
        out,
        "\nJudge the success criteria, not the tool calls: `criteria` holds exactly \
         {entries}, one per success criterion above, in that order, shaped like this:\n{}",
        reply_skeleton(criteria),
        entries = plural(criteria.len(), "entry", "entries"),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock as _;
    use crate::contracts::{TaskId, ToolRef};
    use crate::roles::agent_validator::fixtures::{call, result};

    #[test]
    fn the_prompt_separates_ground_truth_from_the_claim() {
        let subtask = SubTask {
            context: "in /tmp/x".into(),
            success_criteria: vec![Criterion::new("the count is a number")],
            ..SubTask::new(TaskId::mint(), 1, "count the files")
        };
        let mut ok = call("shell", ToolCallStatus::Ok, None);
        ok.output_head = "3".into();
        let r = result(
            ExecutionStatus::Completed,
            vec![
                ok,
                call("shell", ToolCallStatus::Denied, Some("denied by the user")),
            ],
            "There are 3 files",
        );
        let p = judgement_prompt(
            crate::clock::FakeClock::at_epoch().now(),
            &subtask,
            &subtask.criteria_to_judge(),
            &r,
            1,
            3,
            None,
        );
        assert!(p.starts_with("Local time: "), "{p}");
        assert!(p.contains("1. the count is a number"));
        assert!(p.contains("[1] shell: "), "{p}");
        assert!(p.contains("— ok"), "{p}");
        assert!(p.contains("it printed:\n    3"), "{p}");
        assert!(p.contains("— DENIED under Law 1"), "{p}");
        // The reply's shape, with the criterion copied in for the model to keep.
        assert!(
            p.contains(r#"{"criteria":[{"criterion":"the count is a number","#),
            "{p}"
        );
        assert!(p.contains("a claim, not evidence) — status completed:\nThere are 3 files"));
    }

    #[test]
    fn a_subtask_without_criteria_is_judged_on_its_intent() {
        let subtask = SubTask::new(TaskId::mint(), 1, "rename a.txt to b.txt");
        let c = subtask.criteria_to_judge();
        assert_eq!(c.len(), 1);
        assert!(c[0].criterion.contains("rename a.txt to b.txt"));
    }

    #[test]
    fn what_a_read_showed_before_a_later_call_changed_its_file_is_left_out() {
        let read = |path: &str, printed: &str| {
            let mut c = call("read_lines", ToolCallStatus::Ok, None);
            c.input = serde_json::json!({ "path": path, "op": "count", "text": "TODO" });
            c.target = path.into();
            c.output_head = printed.into();
            c
        };
        let mut change = call("convert_file", ToolCallStatus::Ok, None);
        change.target = "/tmp/w/plan.md".into();
        change.output_head = "wrote plan.md: 3 lines, 2 holding \"TODO\" left out".into();
        change.effects = vec![crate::contracts::PathEffect {
            path: "/tmp/w/plan.md".into(),
            exists: true,
            effect: "overwrite".into(),
        }];
        let calls = vec![
            read("/tmp/w/plan.md", "2 of the 5 lines contain \"todo\""),
            read("/tmp/w/other.md", "1 of the 4 lines contain \"todo\""),
            change,
            read("/tmp/w/plan.md", "0 of the 3 lines contain \"todo\""),
        ];
        let text = render_calls(&calls);
        assert!(!text.contains("2 of the 5 lines"), "{text}");
        assert!(
            text.contains("what it printed is out of date: call [3] changed this place"),
            "{text}"
        );
        // Another file's read, the change's own account and the read after it stand.
        assert!(text.contains("1 of the 4 lines"), "{text}");
        assert!(text.contains("2 holding \"TODO\" left out"), "{text}");
        assert!(text.contains("0 of the 3 lines"), "{text}");
        // A folder's listing is out of date once something in it changed.
        let mut listing = read("/tmp/w", "plan.md other.md");
        listing.tool = ToolRef::parse("list_files");
        let calls = vec![listing, calls[2].clone()];
        assert!(!render_calls(&calls).contains("plan.md other.md"));
    }

    #[test]
    fn long_call_lists_keep_their_start_and_end_with_original_numbers() {
        let calls: Vec<_> = (0..100)
            .map(|_| call("glob", ToolCallStatus::Ok, None))
            .collect();
        let text = render_calls(&calls);
        assert!(text.contains("[1] glob"));
        assert!(text.contains("[100] glob"));
        assert!(!text.contains("[50] glob"));
        assert!(text.contains("60 calls not shown"));
    }
}
