//! One envelope of every message kind, as the roles send them: shared by the tests of
//! everything that describes a message (the library's status lines, the `artoo` binary's
//! pipeline lines), and [`is_role_line`] to tell a pipeline line from other output.
//!
//! **Invariant:** test data only — fixed ids and times, so a description of a sample
//! is the same on every run; nothing outside tests uses this module.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::bus::Envelope;
use crate::contracts::{EnvelopeId, Message, Role};

/// A fixed task id for samples.
pub const TASK: &str = "task_0123456789ab";
/// A fixed sub-task id for samples.
pub const SUB: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";
/// A fixed request id for samples.
pub const REQ: &str = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

/// A fixed instant, 2026-02-27 10:00 UTC, for samples.
pub fn at() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-02-27T10:00:00Z")
        .expect("a valid time")
        .with_timezone(&Utc)
}

/// A message of type `kind` from a JSON payload; panics when it does not parse.
pub fn message(kind: &str, payload: Value) -> Message {
    serde_json::from_value(json!({"type": kind, "payload": payload}))
        .unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// An envelope from `from` to `to`, stamped [`at`].
pub fn envelope(from: Role, to: Role, message: Message) -> Envelope {
    Envelope {
        id: EnvelopeId::mint(),
        seq: 1,
        timestamp: at(),
        from,
        to,
        in_reply_to: None,
        task_id: message.task_id().cloned(),
        message,
    }
}

/// A verdict on `criterion` as JSON, with shell evidence.
pub fn verdict(criterion: &str, verdict: &str) -> Value {
    json!({"criterion": criterion, "verdict": verdict, "failure_class": null, "evidence": "shell: ls → 3"})
}

/// A shell tool-call record as JSON, with the given status.
pub fn tool_record(status: &str) -> Value {
    json!({"tool": "shell", "input": {"command": "ls ~/Downloads"}, "target": "ls ~/Downloads",
           "output_head": "a.pdf", "status": status, "error": null, "duration_ms": 12})
}

/// A loss as JSON, with the capitalised keys.
pub fn loss(d: f64, p: f64, omega: f64, l: f64) -> Value {
    json!({"D": d, "P": p, "Omega": omega, "L": l})
}

/// Potentials as JSON that advise avoiding.
pub fn potentials() -> Value {
    json!({"attention": 1.5, "decision": -0.8, "action": "Avoid"})
}

/// One envelope of every message kind, as the roles send them, in the order a task
/// meets them.
pub fn samples() -> Vec<Envelope> {
    [
        intake_samples(),
        planning_samples(),
        execution_samples(),
        control_samples(),
        oversight_samples(),
    ]
    .concat()
}

/// A sub-task outcome with two criteria, the second failing when `status` is `failed`.
fn outcome(status: &str) -> Value {
    json!({"subtask_id": SUB, "parent_task_id": TASK, "status": status, "output": "3 files",
           "failure_reason": if status == "failed" { json!("max retries reached") } else { Value::Null },
           "gap_trajectory": [{"attempt": 1, "score": 0.5, "unmet_criteria": ["sizes listed"], "failure_class": "logical"}],
           "criteria_verdicts": [verdict("paths listed", "pass"), verdict("sizes listed", if status == "failed" { "fail" } else { "pass" })]})
}

/// The task from submission to its spec.
fn intake_samples() -> Vec<Envelope> {
    use Role::*;
    vec![
        envelope(
            User,
            Perceiver,
            message(
                "TaskSubmitted",
                json!({"task_id": TASK, "raw_input": "find the largest pdf", "submitted_at": at(), "session_history": [{"input": "hi", "summary": "hello"}], "time_budget_ms": 120000}),
            ),
        ),
        envelope(
            Perceiver,
            User,
            message(
                "ClarificationRequest",
                json!({"task_id": TASK, "question": "Which folder?", "round": 1}),
            ),
        ),
        envelope(
            User,
            Perceiver,
            message(
                "ClarificationAnswer",
                json!({"task_id": TASK, "answer": ""}),
            ),
        ),
        envelope(
            Perceiver,
            User,
            message(
                "ChatReply",
                json!({"task_id": TASK, "answer": "Hello, I'm artoo."}),
            ),
        ),
        envelope(
            Perceiver,
            Planner,
            message(
                "TaskSpec",
                json!({"task_id": TASK, "intent": "Find the largest PDF", "constraints": {"scope": "~/Downloads", "deadline": null}, "raw_input": "find the largest pdf"}),
            ),
        ),
    ]
}

/// Memory consulted and the plan dispatched.
fn planning_samples() -> Vec<Envelope> {
    use Role::*;
    vec![
        envelope(
            Planner,
            Memory,
            message(
                "MemoryQuery",
                json!({"task_id": TASK, "space": "intent:find_largest_pdf", "entity": "env:local"}),
            ),
        ),
        envelope(
            Memory,
            Planner,
            message(
                "MemoryResponse",
                json!({"task_id": TASK, "space": "intent:find_largest_pdf", "entity": "env:local", "sops": [], "potentials": potentials()}),
            ),
        ),
        envelope(
            Planner,
            Memory,
            message(
                "MemoryRecall",
                json!({"task_id": TASK, "space": "intent:find_largest_pdf", "entity": "tool:shell", "sops": [], "potentials": potentials(),
            "constraints": [{"kind": "must_not", "text": "Law 0 — Never deceive", "source": "law"},
                            {"kind": "must_not", "text": "do not use the shell tool", "source": "memory"}]}),
            ),
        ),
        envelope(
            Planner,
            MetaValidator,
            message(
                "DispatchManifest",
                json!({"task_id": TASK, "subtasks": [{"subtask_id": SUB, "parent_task_id": TASK, "intent": "List PDFs with sizes", "context": "", "success_criteria": ["paths listed", "sizes listed"], "sequence": 1, "blocked_tools": ["search"]}], "task_spec": null, "dispatched_at": at(), "task_criteria": ["names one file"], "round": 1}),
            ),
        ),
        envelope(
            Dispatcher,
            Executor,
            message(
                "SubTask",
                json!({"subtask_id": SUB, "parent_task_id": TASK, "intent": "List PDFs with sizes", "context": "", "success_criteria": ["paths listed", "sizes listed"], "sequence": 1, "blocked_tools": ["search"]}),
            ),
        ),
    ]
}

/// Sub-tasks executed and judged.
fn execution_samples() -> Vec<Envelope> {
    use Role::*;
    vec![
        envelope(
            Executor,
            Observer,
            message(
                "ToolCallEvent",
                json!({"task_id": TASK, "subtask_id": SUB, "attempt": 1, "record": tool_record("error")}),
            ),
        ),
        envelope(
            Executor,
            AgentValidator,
            message(
                "ExecutionResult",
                json!({"subtask_id": SUB, "parent_task_id": TASK, "status": "completed", "output": "a.pdf", "tool_calls": [tool_record("ok")], "attempt": 1}),
            ),
        ),
        envelope(
            AgentValidator,
            Executor,
            message(
                "CorrectionSignal",
                json!({"subtask_id": SUB, "parent_task_id": TASK, "attempt_number": 1, "failed_criterion": "sizes listed", "failure_class": "logical", "what_was_wrong": "no sizes", "what_to_do": "use ls -l"}),
            ),
        ),
        envelope(
            AgentValidator,
            MetaValidator,
            message("SubTaskOutcome", outcome("failed")),
        ),
        envelope(
            AgentValidator,
            Executor,
            message(
                "SubTaskClosed",
                json!({"subtask_id": SUB, "parent_task_id": TASK, "status": "matched", "output": "3 files"}),
            ),
        ),
        envelope(
            Dispatcher,
            MetaValidator,
            message(
                "DispatchHalted",
                json!({"task_id": TASK, "skipped": [SUB], "reason": "group 1 failed"}),
            ),
        ),
        envelope(
            MetaValidator,
            Ggs,
            message(
                "ReplanRequest",
                json!({"task_id": TASK, "gap_summary": "sizes missing", "failed_outcomes": [outcome("failed")], "matched_outcomes": [outcome("matched")]}),
            ),
        ),
        envelope(
            MetaValidator,
            Ggs,
            message(
                "OutcomeSummary",
                json!({"task_id": TASK, "merged_output": {"largest": "a.pdf"}, "summary": "a.pdf is the largest",
            "task_criteria_verdicts": [verdict("names one file", "pass")]}),
            ),
        ),
    ]
}

/// GGS steering, the end of a task, and memory writes.
fn control_samples() -> Vec<Envelope> {
    use Role::*;
    let megram = json!({"id": SUB, "level": "M", "created_at": at(), "last_recalled_at": null,
        "space": "intent:count_files", "entity": "tool:shell", "content": "ls worked", "state": "accept",
        "f": 0.9, "sigma": 1.0, "k": 0.05});
    vec![
        envelope(
            Ggs,
            Planner,
            message(
                "PlanDirective",
                json!({"task_id": TASK, "loss": loss(1.0, 0.2, 0.217, 0.6868), "prev_directive": "init", "directive": "change_path",
            "blocked_tools": ["search"], "blocked_targets": ["ls /nonexistent"], "failed_criterion": "sizes listed", "failure_class": "environmental",
            "budget_pressure": 0.217, "grad_l": 0.25, "rationale": "Worsening with environmental failures: same tools, another target.", "urgency": "high", "round": 1}),
            ),
        ),
        envelope(
            Planner,
            Ggs,
            message(
                "PlanningFailed",
                json!({"task_id": TASK, "reason": "no valid plan after the re-ask", "round": 2}),
            ),
        ),
        envelope(
            Ggs,
            Planner,
            message(
                "GracefulFailureRequest",
                json!({"task_id": TASK, "intent": "Find the largest PDF", "reason": "budget exhausted", "matched_outputs": [], "failures": ["sizes missing"]}),
            ),
        ),
        envelope(
            Planner,
            Ggs,
            message(
                "GracefulFailure",
                json!({"task_id": TASK, "accomplished": "Listed 3 PDFs.", "next_moves": ["Try ~/Documents", "Give the folder"]}),
            ),
        ),
        envelope(
            Ggs,
            User,
            message(
                "FinalResult",
                json!({"task_id": TASK, "summary": "Gave up: sizes missing", "output": null, "loss": loss(1.0, 0.0, 0.95, 0.7),
            "grad_l": -0.2, "replans": 3, "prev_directive": "change_path", "directive": "abandon", "next_moves": ["Try ~/Documents"]}),
            ),
        ),
        envelope(
            Ggs,
            Memory,
            message("Megram", json!({"task_id": TASK, "megram": megram})),
        ),
        envelope(
            User,
            Memory,
            message(
                "MemoryOperatorChange",
                json!({"operation": "remember", "megram_ids": [SUB], "detail": "remember C [global:user / env:local]"}),
            ),
        ),
    ]
}

/// Law 1, cancellation, the auditor and model calls.
fn oversight_samples() -> Vec<Envelope> {
    use Role::*;
    vec![
        envelope(
            Executor,
            User,
            message(
                "ConfirmationRequest",
                json!({"request_id": REQ, "task_id": TASK, "subtask_id": SUB, "tool": "shell", "description": "delete 1 file",
            "command": "rm ~/Downloads/a.pdf", "paths": [{"path": "/home/u/Downloads/a.pdf", "exists": true, "effect": "delete"}], "reversible": false,
            "reversible_alternative": "move it to the Trash", "can_trash": true, "expires_at": at()}),
            ),
        ),
        envelope(
            User,
            Executor,
            message(
                "ConfirmationDecision",
                json!({"request_id": REQ, "task_id": TASK, "decision": "deny", "source": "non_interactive"}),
            ),
        ),
        envelope(
            User,
            All,
            message(
                "TaskClosed",
                json!({"task_id": TASK, "end": {"kind": "cancelled", "reason": "cancelled by the user (Ctrl+C)"}}),
            ),
        ),
        envelope(
            User,
            Auditor,
            message("AuditQuery", json!({"query_id": REQ})),
        ),
        envelope(
            Auditor,
            User,
            message(
                "AuditReport",
                serde_json::from_str::<Value>(include_str!(
                    "../../tests/fixtures/contracts/AuditReport.json"
                ))
                .expect("fixture"),
            ),
        ),
        envelope(
            Planner,
            Observer,
            message(
                "LlmCall",
                json!({"task_id": TASK, "role": "R2", "model": "qwen", "system_prompt": "", "user_prompt": "", "response": "{}",
            "prompt_tokens": 1200, "completion_tokens": 80, "elapsed_ms": 2500, "error": "timed out"}),
            ),
        ),
    ]
}

/// Every role a pipeline line can name, so tests can tell a role line from others.
pub fn is_role_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    Role::ALL_ROLES
        .iter()
        .chain([Role::Observer, Role::All].iter())
        .any(|r| trimmed.starts_with(&format!("{} →", r.short())))
}
