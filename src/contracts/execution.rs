//! Fast-loop contracts: what R3 did (with structured evidence) and how R4a judged it.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use super::ids::{SubTaskId, TaskId};
use super::task::{Criterion, CriterionMode};
use crate::tools::ToolRef;

/// Number of output characters kept in an evidence record. A listing or a small file's text
/// is longer than a line, and the delivered answer is checked against this
/// record (Law 0), so it keeps 2 000. Prompts show less of it (R4a: 600).
pub const EVIDENCE_HEAD_CHARS: usize = 2_000;

/// How a single tool call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    /// The tool ran and returned output. A non-zero shell exit that printed a result
    /// (stdout) or nothing at all (`grep` without a match) is still `ok`, with the exit
    /// status in the output; the model and R4a judge it.
    Ok,
    /// The tool could not run or failed (missing file, timeout, unavailable platform, a
    /// shell command that exited non-zero with only an error message).
    Error,
    /// Law 1: the user (or the timeout) denied the action.
    Denied,
    /// Refused in code before running: blocked tool/target, duplicate call.
    Refused,
}

/// What kind of failure ended a tool call that could not do its work: the closed list R4a
/// and GGS branch on, so nobody re-derives it from the error's wording. Each tool error
/// maps to exactly one kind (`ToolError::failure` in the tools module):
/// - `timeout`: the call ran out of time (a command's timeout, an I/O time-out);
/// - `cancelled`: the task was cancelled while the call ran;
/// - `network`: the network or a remote service could not be reached (web search
///   unavailable, connection refused or reset, host unreachable);
/// - `not_found`: a file, folder, program, web page or entry the call named does not
///   exist (GGS blocks the path or URL the error names; nothing else blocks a target);
/// - `invalid`: the input was malformed (bad JSON shape, bad pattern, unknown option);
/// - `unavailable`: the tool or the sandbox cannot run on this machine;
/// - `failed`: anything else — the tool ran and failed (a command's error exit, a refused
///   write, an I/O error of no kind above).
///
/// Timeout, cancelled, network and unavailable are the environment's doing
/// ([`ToolFailure::is_infrastructure`]); not-found, invalid and failed answer what the
/// model asked for, and are the model's to handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ToolFailure {
    Timeout,
    Cancelled,
    Network,
    NotFound,
    /// The system refused access to what the call named (permission denied, operation
    /// not permitted).
    Forbidden,
    Invalid,
    Unavailable,
    Failed,
}

impl ToolFailure {
    /// Whether retrying the same sub-task cannot help: the environment, not the model's
    /// choice of call, stopped it.
    pub fn is_infrastructure(self) -> bool {
        match self {
            ToolFailure::Timeout
            | ToolFailure::Cancelled
            | ToolFailure::Network
            | ToolFailure::Unavailable => true,
            ToolFailure::NotFound
            | ToolFailure::Forbidden
            | ToolFailure::Invalid
            | ToolFailure::Failed => false,
        }
    }
}

/// The evidence record of one tool call — the single structured type R3 produces, R4a
/// grounds its verdicts on and GGS derives `blocked_tools`/`blocked_targets` from. Nothing
/// downstream re-parses prose, so no change in a model's wording can lose evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolCallRecord {
    /// The tool as the executor knows it (`shell`, `glob`, `read_file`, an MCP server's
    /// `files.read_text_file`, …).
    pub tool: ToolRef,
    /// The parameters exactly as executed (after code-side rewrites such as the find
    /// redirect), as a JSON object.
    pub input: serde_json::Value,
    /// The primary target of the call — path, query or command — as executed. GGS
    /// accumulates these into `blocked_targets`.
    pub target: String,
    /// First [`EVIDENCE_HEAD_CHARS`] characters of the output (char-boundary safe).
    pub output_head: String,
    pub status: ToolCallStatus,
    pub error: Option<String>,
    /// The kind of an `error` call's failure; `None` for other statuses and for records
    /// written before the kind was kept (their `error` text is all there is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<ToolFailure>,
    pub duration_ms: u64,
    /// Set when a Law 1 gate fired for this call: the decision that came back. GGS uses
    /// it to prefix the task's summary with `[LAW1]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<crate::contracts::Decision>,
    /// The exit status of a shell command that failed yet printed something, so the call
    /// is `ok` (its output is shown and judged) — but it is no proof of anything: such a
    /// call grounds no claim (Law 0). Not set for a success or the quiet status 1 with
    /// which `grep`, `diff` and `test` answer "no".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_exit: Option<i32>,
}

impl ToolCallRecord {
    /// True when the call did not produce usable output.
    pub fn failed(&self) -> bool {
        self.status != ToolCallStatus::Ok
    }

    /// Whether what the call returned can back a claim: it ran, and, if it was a shell
    /// command, the command did not fail.
    pub fn grounds(&self) -> bool {
        self.status == ToolCallStatus::Ok && self.failed_exit.is_none()
    }
}

use crate::text::first_chars;

impl fmt::Display for ToolCallRecord {
    /// The one-line string form: `tool_name: input → firstN(output, 200)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} → ", self.tool, self.target)?;
        match (&self.status, &self.error) {
            (ToolCallStatus::Ok, _) => f.write_str(&self.output_head),
            (status, Some(err)) => write!(f, "{status:?}: {err}"),
            (status, None) => write!(f, "{status:?}"),
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ToolCallRepr {
    /// Seed form `"tool_name: input → output"`; kept readable for old logs and fixtures.
    Seed(String),
    Structured {
        tool: ToolRef,
        #[serde(default)]
        input: serde_json::Value,
        #[serde(default)]
        target: String,
        #[serde(default)]
        output_head: String,
        status: ToolCallStatus,
        #[serde(default)]
        error: Option<String>,
        #[serde(default)]
        failure: Option<ToolFailure>,
        #[serde(default)]
        duration_ms: u64,
        #[serde(default)]
        confirmation: Option<crate::contracts::Decision>,
        #[serde(default)]
        failed_exit: Option<i32>,
    },
}

impl<'de> Deserialize<'de> for ToolCallRecord {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match ToolCallRepr::deserialize(deserializer)? {
            ToolCallRepr::Seed(line) => {
                let (tool, rest) = line.split_once(':').unwrap_or((line.as_str(), ""));
                let (target, output) = rest.split_once('→').unwrap_or((rest, ""));
                let target = target.trim().to_string();
                ToolCallRecord {
                    tool: ToolRef::parse(tool.trim()),
                    input: serde_json::Value::String(target.clone()),
                    target,
                    output_head: first_chars(output.trim(), EVIDENCE_HEAD_CHARS),
                    status: ToolCallStatus::Ok,
                    error: None,
                    failure: None,
                    duration_ms: 0,
                    confirmation: None,
                    failed_exit: None,
                }
            }
            ToolCallRepr::Structured {
                tool,
                input,
                target,
                output_head,
                status,
                error,
                failure,
                duration_ms,
                confirmation,
                failed_exit,
            } => ToolCallRecord {
                tool,
                input,
                target,
                output_head,
                status,
                error,
                failure,
                duration_ms,
                confirmation,
                failed_exit,
            },
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ExecutionStatus {
    Completed,
    Uncertain,
    Failed,
}

/// Why R3 itself stopped an attempt when the environment, not the sub-task, stopped it.
/// R4a classes such a failure as environmental without reading R3's prose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Interruption {
    /// The sub-task's time budget ran out during the attempt.
    TimeBudget,
    /// The executor's own model call failed for an environmental reason (endpoint
    /// unreachable, time-out, rate limit).
    ModelUnavailable,
}

/// R3 → R4a.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ExecutionResult {
    pub subtask_id: SubTaskId,
    /// Added so every fast-loop message can be attributed to its task by observers.
    pub parent_task_id: TaskId,
    pub status: ExecutionStatus,
    /// R3's own account — a claim; `tool_calls` are the ground truth.
    pub output: String,
    pub tool_calls: Vec<ToolCallRecord>,
    /// 1 for the first execution, 2.. after corrections.
    #[serde(default = "one")]
    pub attempt: u32,
    /// Set when the environment stopped the attempt (absent in older logs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interruption>,
}

fn one() -> u32 {
    1
}

/// Why a criterion failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// The approach is wrong.
    Logical,
    /// The approach is sound; the environment blocked it (missing file, network, denial).
    Environmental,
}

/// A failure class that may be split between the two (GGS directive, gap trajectory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum MixedFailureClass {
    Logical,
    Environmental,
    Mixed,
}

impl From<FailureClass> for MixedFailureClass {
    fn from(value: FailureClass) -> Self {
        match value {
            FailureClass::Logical => MixedFailureClass::Logical,
            FailureClass::Environmental => MixedFailureClass::Environmental,
        }
    }
}

/// R4a → R3: one fast-loop correction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CorrectionSignal {
    pub subtask_id: SubTaskId,
    pub parent_task_id: TaskId,
    pub attempt_number: u32,
    pub failed_criterion: String,
    pub failure_class: FailureClass,
    pub what_was_wrong: String,
    pub what_to_do: String,
    /// Calls of the previous attempt the executor must not repeat.
    #[serde(default)]
    pub calls_to_avoid: Vec<ToolCallRecord>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
}

/// One criterion judged once, with the mode it was judged in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CriterionVerdict {
    pub criterion: String,
    #[serde(default)]
    pub mode: Option<CriterionMode>,
    pub verdict: Verdict,
    #[serde(default)]
    pub failure_class: Option<FailureClass>,
    #[serde(default)]
    pub evidence: String,
}

impl CriterionVerdict {
    pub fn for_criterion(criterion: &Criterion, verdict: Verdict) -> Self {
        Self {
            criterion: criterion.criterion.clone(),
            mode: criterion.mode,
            verdict,
            failure_class: None,
            evidence: String::new(),
        }
    }

    pub fn failed(&self) -> bool {
        self.verdict == Verdict::Fail
    }

    pub fn effective_mode(&self) -> CriterionMode {
        self.mode.unwrap_or(CriterionMode::Verifiable)
    }
}

/// One attempt of the fast loop, as seen by R4a.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GapPoint {
    pub attempt: u32,
    /// Share of criteria passed in this attempt, in [0, 1].
    pub score: f64,
    pub unmet_criteria: Vec<String>,
    pub failure_class: Option<MixedFailureClass>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum SubTaskStatus {
    Matched,
    Failed,
}

/// R4a → R4b: the final word on one sub-task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SubTaskOutcome {
    pub subtask_id: SubTaskId,
    pub parent_task_id: TaskId,
    pub status: SubTaskStatus,
    pub output: serde_json::Value,
    pub failure_reason: Option<String>,
    pub gap_trajectory: Vec<GapPoint>,
    pub criteria_verdicts: Vec<CriterionVerdict>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCallRecord>,
}

impl SubTaskOutcome {
    /// Number of attempts in which `criterion` was unmet, and the number of attempts.
    pub fn failure_count(&self, criterion: &str) -> (usize, usize) {
        let n = self.gap_trajectory.len();
        let k = self
            .gap_trajectory
            .iter()
            .filter(|p| p.unmet_criteria.iter().any(|c| c == criterion))
            .count();
        (k, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_string_tool_calls_parse_into_records() {
        let rec: ToolCallRecord =
            serde_json::from_str(r#""shell: ls ~/Downloads → a.mp4\nb.mkv""#).unwrap();
        assert_eq!(rec.tool, crate::tools::ToolName::Shell);
        assert_eq!(rec.target, "ls ~/Downloads");
        assert_eq!(rec.output_head, "a.mp4\nb.mkv");
        assert_eq!(rec.to_string(), "shell: ls ~/Downloads → a.mp4\nb.mkv");
    }

    #[test]
    fn failure_count_counts_attempts_in_which_a_criterion_was_unmet() {
        let outcome = SubTaskOutcome {
            subtask_id: SubTaskId::mint(),
            parent_task_id: TaskId::mint(),
            status: SubTaskStatus::Failed,
            output: serde_json::Value::Null,
            failure_reason: None,
            gap_trajectory: (1..=3)
                .map(|attempt| GapPoint {
                    attempt,
                    score: 0.0,
                    unmet_criteria: if attempt == 2 {
                        vec![]
                    } else {
                        vec!["c".into()]
                    },
                    failure_class: None,
                })
                .collect(),
            criteria_verdicts: vec![],
            tool_calls: vec![],
        };
        assert_eq!(outcome.failure_count("c"), (2, 3));
        assert_eq!(outcome.failure_count("other"), (0, 3));
    }
}

/// R4a → R3, the reply to an `ExecutionResult` request that ends the fast loop: no more
/// corrections are coming. (The outcome itself goes to R4b as a `SubTaskOutcome`.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SubTaskClosed {
    pub subtask_id: SubTaskId,
    pub parent_task_id: TaskId,
    pub status: SubTaskStatus,
    /// The matched output, injected into the context of later sequence groups.
    pub output: serde_json::Value,
}

/// Dispatcher → R4b: a sequence group failed, so these later sub-tasks of the plan were
/// not run (a failed group stops later groups); R4b must not wait for them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DispatchHalted {
    pub task_id: TaskId,
    pub skipped: Vec<SubTaskId>,
    pub reason: String,
    /// Each skipped sub-task with its success criteria, so R4b can tell GGS what was
    /// left unshown (absent in older logs: then only the ids are known).
    #[serde(default)]
    pub unrun: Vec<UnrunSubTask>,
}

/// A planned sub-task that produced no outcome in its round: the dispatcher never ran it
/// (an earlier group failed, or the plan never arrived whole) or it never reported before
/// R4b gave the round up. None of its criteria was shown to pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct UnrunSubTask {
    pub subtask_id: SubTaskId,
    /// Its success criteria; empty when they are unknown to the sender.
    #[serde(default)]
    pub success_criteria: Vec<Criterion>,
    /// Why it produced no outcome.
    #[serde(default)]
    pub reason: String,
}
