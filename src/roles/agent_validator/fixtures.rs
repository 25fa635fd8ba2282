//! Records and results for R4a's unit tests: one tool call of a given status, and an
//! attempt's result holding given calls. No invariant beyond building valid contracts.

use crate::contracts::{
    ExecutionResult, ExecutionStatus, SubTaskId, TaskId, ToolCallRecord, ToolCallStatus,
    ToolFailure,
};
use crate::tools::ToolRef;

pub(super) fn call(tool: &str, status: ToolCallStatus, error: Option<&str>) -> ToolCallRecord {
    ToolCallRecord {
        status,
        error: error.map(Into::into),
        ..ToolCallRecord::ran(
            ToolRef::parse(tool),
            serde_json::json!({"command": "x"}),
            "x",
            "",
        )
    }
}

/// A call that ended in an error of `kind`.
pub(super) fn failed_call(tool: &str, kind: ToolFailure, error: &str) -> ToolCallRecord {
    let mut c = call(tool, ToolCallStatus::Error, Some(error));
    c.failure = Some(kind);
    c
}

pub(super) fn result(
    status: ExecutionStatus,
    calls: Vec<ToolCallRecord>,
    output: &str,
) -> ExecutionResult {
    ExecutionResult {
        subtask_id: SubTaskId::mint(),
        parent_task_id: TaskId::mint(),
        status,
        output: output.into(),
        tool_calls: calls,
        attempt: 1,
        interrupted: None,
    }
}

/// A sub-task with `intent`, one criterion restating it, and no context.
pub(super) fn subtask(intent: &str) -> crate::contracts::SubTask {
    crate::contracts::SubTask {
        success_criteria: vec![crate::contracts::Criterion::new(intent)],
        ..crate::contracts::SubTask::new(TaskId::mint(), 1, intent)
    }
}
