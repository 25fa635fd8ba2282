//! The rule R4a applies before any model call: an attempt R3 reported as failed, or one in
//! which a tool call hit an infrastructure failure, is over at once — a retry cannot help.
//!
//! **Invariant:** the decision reads only typed fields — the execution status, R3's typed
//! [`Interruption`], each call's status and [`ToolFailure`] kind — never the wording of an
//! error or of R3's report. A missing file or a malformed input is the model's to handle,
//! not infrastructure.

use crate::contracts::{
    ExecutionResult, ExecutionStatus, FailureClass, ToolCallRecord, ToolCallStatus, ToolFailure,
};
use crate::text::first_chars;

/// A failure decided by the code before (or instead of) a model verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct ImmediateFailure {
    /// Why the attempt failed, in one sentence for the validator's report.
    pub reason: String,
    /// Whether the approach or the environment is to blame.
    pub class: FailureClass,
}

/// The infrastructure failure a call ended in, if it ended in one: the environment (a
/// time-out, a cancellation, the network, a tool or sandbox this machine cannot run)
/// stopped it, not the model's choice of call. A record without a kind (written before
/// kinds were kept) counts as no infrastructure failure.
fn infrastructure(call: &ToolCallRecord) -> Option<ToolFailure> {
    if call.status != ToolCallStatus::Error {
        return None;
    }
    call.failure.filter(|kind| kind.is_infrastructure())
}

/// The rule checked before any model call: R3 reported `failed`, or a tool call hit an
/// infrastructure failure. Either way the attempt is over and a retry cannot help.
///
/// A failed report is environmental when R3 says the environment interrupted it (time
/// budget, its model endpoint), when a call was denied under Law 1 or hit infrastructure,
/// or when every call of the attempt failed; otherwise it is logical.
pub fn precheck(result: &ExecutionResult) -> Option<ImmediateFailure> {
    if result.status == ExecutionStatus::Failed {
        let calls = &result.tool_calls;
        let environmental = result.interrupted.is_some()
            || calls
                .iter()
                .any(|c| c.status == ToolCallStatus::Denied || infrastructure(c).is_some())
            || (!calls.is_empty() && calls.iter().all(ToolCallRecord::failed));
        return Some(ImmediateFailure {
            reason: format!(
                "the executor reported failure: {}",
                first_chars(result.output.trim(), 300)
            ),
            class: if environmental {
                FailureClass::Environmental
            } else {
                FailureClass::Logical
            },
        });
    }
    result.tool_calls.iter().find_map(|c| {
        infrastructure(c).map(|_| ImmediateFailure {
            reason: format!(
                "infrastructure error in {} ({}): {}",
                c.tool,
                first_chars(&c.target, 120),
                first_chars(c.error.as_deref().unwrap_or_default(), 200)
            ),
            class: FailureClass::Environmental,
        })
    })
}

/// Calls the user (or the confirmation timeout) refused under Law 1.
pub(super) fn denied_calls(calls: &[ToolCallRecord]) -> Vec<&ToolCallRecord> {
    calls
        .iter()
        .filter(|c| c.status == ToolCallStatus::Denied)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::Interruption;
    use crate::roles::agent_validator::fixtures::{call, failed_call, result};

    #[test]
    fn a_failed_execution_fails_at_once_and_its_class_follows_the_evidence() {
        let plain = result(ExecutionStatus::Failed, vec![], "I could not work out how");
        assert_eq!(precheck(&plain).unwrap().class, FailureClass::Logical);
        let mut net = result(
            ExecutionStatus::Failed,
            vec![],
            "cannot reach the model endpoint http://x: connection refused",
        );
        net.interrupted = Some(Interruption::ModelUnavailable);
        assert_eq!(precheck(&net).unwrap().class, FailureClass::Environmental);
        let mut budget = result(ExecutionStatus::Failed, vec![], "stopped");
        budget.interrupted = Some(Interruption::TimeBudget);
        assert_eq!(
            precheck(&budget).unwrap().class,
            FailureClass::Environmental
        );
        let denied = result(
            ExecutionStatus::Failed,
            vec![call("shell", ToolCallStatus::Denied, None)],
            "the user said no",
        );
        assert_eq!(
            precheck(&denied).unwrap().class,
            FailureClass::Environmental
        );
    }

    #[test]
    fn the_wording_of_r3s_report_decides_nothing() {
        let prose = result(
            ExecutionStatus::Failed,
            vec![],
            "network timeout: connection refused, the host was unreachable",
        );
        assert_eq!(precheck(&prose).unwrap().class, FailureClass::Logical);
        let completed = result(ExecutionStatus::Completed, vec![], "the request timed out");
        assert_eq!(precheck(&completed), None);
    }

    #[test]
    fn an_infrastructure_tool_error_fails_at_once_but_a_missing_file_does_not() {
        let timeout = result(
            ExecutionStatus::Completed,
            vec![failed_call(
                "shell",
                ToolFailure::Timeout,
                "timed out after 30 s; the command and every process it started were stopped",
            )],
            "done",
        );
        let f = precheck(&timeout).expect("a timeout is infrastructure");
        assert_eq!(f.class, FailureClass::Environmental);
        assert!(f.reason.contains("timed out"), "{}", f.reason);
        let missing = result(
            ExecutionStatus::Completed,
            vec![failed_call(
                "read_file",
                ToolFailure::NotFound,
                "No such file or directory",
            )],
            "done",
        );
        assert_eq!(precheck(&missing), None);
    }

    #[test]
    fn a_missing_network_config_file_is_not_infrastructure() {
        let missing = result(
            ExecutionStatus::Completed,
            vec![failed_call(
                "read_file",
                ToolFailure::NotFound,
                "/Users/me/network_config.txt does not exist (network unreachable?)",
            )],
            "the network config could not be read: connection refused",
        );
        assert_eq!(precheck(&missing), None);
        let invalid = result(
            ExecutionStatus::Completed,
            vec![failed_call(
                "glob",
                ToolFailure::Invalid,
                "bad pattern \"[\"",
            )],
            "done",
        );
        assert_eq!(precheck(&invalid), None);
    }

    #[test]
    fn every_infrastructure_kind_fails_at_once() {
        for kind in [
            ToolFailure::Timeout,
            ToolFailure::Cancelled,
            ToolFailure::Network,
            ToolFailure::Unavailable,
        ] {
            let r = result(
                ExecutionStatus::Completed,
                vec![failed_call("search", kind, "stopped")],
                "done",
            );
            let f = precheck(&r).unwrap_or_else(|| panic!("{kind:?} is infrastructure"));
            assert_eq!(f.class, FailureClass::Environmental);
        }
    }
}
