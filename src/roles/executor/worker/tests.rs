//! Unit tests of the worker's honesty rules: the status and output a finish, a denial or
//! the step cap comes to, from the tool-call records alone.
//!
//! **Invariant:** these tests build records by hand; nothing here runs a tool or a model.

use super::*;
use crate::tools::ToolName;

fn record(status: ToolCallStatus, error: Option<&str>) -> ToolCallRecord {
    ToolCallRecord {
        status,
        error: error.map(Into::into),
        ..ToolCallRecord::ran(
            ToolName::Shell,
            serde_json::json!({"command": "rm a"}),
            "rm a",
            "",
        )
    }
}

#[test]
fn a_completed_claim_without_a_successful_call_goes_out_as_uncertain() {
    let (status, output) = honest_finish(
        FinishStatus::Completed,
        "42",
        "counted",
        &[record(ToolCallStatus::Error, Some("No such file"))],
    );
    assert_eq!(status, ExecutionStatus::Uncertain);
    assert!(output.starts_with(UNBACKED_PREFIX), "{output}");
    assert!(output.contains("42"));
    let (status, output) = honest_finish(
        FinishStatus::Completed,
        "42",
        "counted",
        &[record(ToolCallStatus::Ok, None)],
    );
    assert_eq!(
        (status, output.as_str()),
        (ExecutionStatus::Completed, "42")
    );
}

#[test]
fn a_law1_denial_makes_the_attempt_fail_with_the_denial_first() {
    let denied = record(
        ToolCallStatus::Denied,
        Some("[LAW1] The user denied it: delete a. Nothing was changed."),
    );
    let (status, output) = honest_finish(
        FinishStatus::Completed,
        "done",
        "deleted it",
        &[record(ToolCallStatus::Ok, None), denied],
    );
    assert_eq!(status, ExecutionStatus::Failed);
    assert!(output.starts_with("[LAW1] The user denied it"), "{output}");
}

#[test]
fn honest_statuses_keep_the_summary_before_the_output() {
    let (status, output) = honest_finish(FinishStatus::Failed, "", "no such folder", &[]);
    assert_eq!(
        (status, output.as_str()),
        (ExecutionStatus::Failed, "no such folder")
    );
}

#[test]
fn the_step_cap_is_uncertain_with_the_latest_output_or_failed_without_any() {
    let ok = Observed {
        tool: ToolName::Shell.into(),
        input: "ls".into(),
        status: ToolCallStatus::Ok,
        text: "a.txt".into(),
    };
    let (status, output) = step_capped(3, &[record(ToolCallStatus::Ok, None)], &[ok]);
    assert_eq!(status, ExecutionStatus::Uncertain);
    assert!(
        output.starts_with("Stopped after 3 model turns"),
        "{output}"
    );
    assert!(output.ends_with("a.txt"), "{output}");
    let (status, _) = step_capped(3, &[], &[]);
    assert_eq!(status, ExecutionStatus::Failed);
}
