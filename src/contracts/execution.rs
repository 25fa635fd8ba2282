//! Fast-loop contracts: what R3 did (with structured evidence) and how R4a judged it.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use super::ids::{SubTaskId, TaskId};
use super::task::{Criterion, CriterionMode};
use super::tool::ToolRef;

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
    /// The call ran past its time limit and was stopped.
    Timeout,
    /// The task was cancelled while the call ran.
    Cancelled,
    /// A network failure: DNS, a refused or reset connection, an unreachable host.
    Network,
    /// What the call named does not exist.
    NotFound,
    /// The system refused access to what the call named (permission denied, operation
    /// not permitted).
    Forbidden,
    /// The call's input was malformed.
    Invalid,
    /// The tool or the sandbox cannot run on this machine.
    Unavailable,
    /// The tool ran and failed for any other reason.
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
    /// How the call ended.
    pub status: ToolCallStatus,
    /// The error text of an `error` or `denied` call; None when the call succeeded.
    pub error: Option<String>,
    /// The kind of an `error` call's failure; `None` for other statuses and for records
    /// written before the kind was kept (their `error` text is all there is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<ToolFailure>,
    /// Wall time of the call, in milliseconds.
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
    /// What the call measurably did to files — `create`, `append`, `overwrite` — from
    /// the tool's own account or the sandbox's layer, never from the model's words. Empty
    /// for a call that changed no file (and in records written before it was kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<crate::contracts::PathEffect>,
    /// The standing grant by effect that approved the call without asking, in words
    /// ("deleting .tmp files under ~/Downloads"); None when the user answered, or no
    /// Law 1 gate fired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<String>,
}

impl ToolCallRecord {
    /// A call of `tool` with `input` on `target` that ran and printed `output`, as the
    /// unit tests of the checks write one.
    #[cfg(test)]
    pub(crate) fn ran(
        tool: impl Into<crate::contracts::ToolRef>,
        input: serde_json::Value,
        target: &str,
        output: &str,
    ) -> Self {
        ToolCallRecord {
            tool: tool.into(),
            input,
            target: target.into(),
            output_head: output.into(),
            status: ToolCallStatus::Ok,
            error: None,
            duration_ms: 1,
            confirmation: None,
            failure: None,
            failed_exit: None,
            effects: Vec::new(),
            grant: None,
        }
    }

    /// True when the call did not produce usable output.
    pub fn failed(&self) -> bool {
        self.status != ToolCallStatus::Ok
    }

    /// Whether what the call returned can back a claim: it ran, and, if it was a shell
    /// command, the command did not fail.
    pub fn grounds(&self) -> bool {
        self.status == ToolCallStatus::Ok && self.failed_exit.is_none()
    }

    /// Whether this call measurably changed `place` — the file itself, or something in
    /// it when `place` is a folder. What an earlier call showed of that place is then the
    /// state before the change, not the state now: it backs no claim about the end state
    /// and is worth asking for again.
    pub fn changed(&self, place: &str) -> bool {
        let place = std::path::Path::new(place.trim());
        self.status == ToolCallStatus::Ok
            && place.is_absolute()
            && self.effects.iter().any(|e| e.path.starts_with(place))
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
        #[serde(default)]
        effects: Vec<crate::contracts::PathEffect>,
        #[serde(default)]
        grant: Option<String>,
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
                    effects: Vec::new(),
                    grant: None,
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
                effects,
                grant,
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
                effects,
                grant,
            },
        })
    }
}

/// The opening of the line an uncertain `ExecutionResult` output starts with when R3's
/// finish checks still doubt the answer below it: the doubt, then the answer.
pub const DOUBT_PREFIX: &str = "Not settled by the executor's own checks:";

/// An execution output without the doubt line R3 put first ([`DOUBT_PREFIX`]): the
/// answer as the model gave it, which the tool outputs are held to.
pub fn without_doubt(output: &str) -> &str {
    match output.strip_prefix(DOUBT_PREFIX) {
        Some(rest) => rest.split_once('\n').map_or("", |(_, answer)| answer),
        None => output,
    }
}

/// R3's own reading of how an attempt went. A claim: R4a judges the tool calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ExecutionStatus {
    /// R3 believes the sub-task is done.
    Completed,
    /// R3 did something but cannot tell whether it met the criteria.
    Uncertain,
    /// R3 could not do the sub-task.
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
    /// The sub-task this attempt belongs to.
    pub subtask_id: SubTaskId,
    /// Added so every fast-loop message can be attributed to its task by observers.
    pub parent_task_id: TaskId,
    /// R3's own reading of the attempt; R4a judges it against the tool calls.
    pub status: ExecutionStatus,
    /// R3's own account — a claim; `tool_calls` are the ground truth.
    pub output: String,
    /// Every tool call of the attempt, in the order they ran: the evidence R4a judges.
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
    /// Every failure was the plan's or the model's doing.
    Logical,
    /// Every failure was the environment's doing.
    Environmental,
    /// Some failures of each kind.
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
    /// The sub-task to retry.
    pub subtask_id: SubTaskId,
    /// The task the sub-task belongs to.
    pub parent_task_id: TaskId,
    /// The attempt that was judged; the retry is the next one.
    pub attempt_number: u32,
    /// The criterion the attempt failed first.
    pub failed_criterion: String,
    /// Whether the failure was logical or environmental.
    pub failure_class: FailureClass,
    /// R4a's account of the gap, citing the tool calls.
    pub what_was_wrong: String,
    /// R4a's concrete advice for the next attempt.
    pub what_to_do: String,
    /// Calls of the previous attempt the executor must not repeat.
    #[serde(default)]
    pub calls_to_avoid: Vec<ToolCallRecord>,
}

/// A judge's ruling on one criterion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The evidence shows the criterion is met.
    Pass,
    /// The evidence does not show the criterion is met.
    Fail,
}

/// One criterion judged once, with the mode it was judged in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CriterionVerdict {
    /// The criterion's text, as the plan stated it.
    pub criterion: String,
    /// How the criterion can be checked; None counts as verifiable.
    #[serde(default)]
    pub mode: Option<CriterionMode>,
    /// Whether it was met.
    pub verdict: Verdict,
    /// Whether a failure was logical or environmental; None for a pass or when the judge gave no
    /// class.
    #[serde(default)]
    pub failure_class: Option<FailureClass>,
    /// The tool output or reasoning the verdict rests on; empty when none was given.
    #[serde(default)]
    pub evidence: String,
}

impl CriterionVerdict {
    /// A verdict on `criterion` with its text and mode, no class and no evidence.
    pub fn for_criterion(criterion: &Criterion, verdict: Verdict) -> Self {
        Self {
            criterion: criterion.criterion.clone(),
            mode: criterion.mode,
            verdict,
            failure_class: None,
            evidence: String::new(),
        }
    }

    /// Whether the verdict is a fail.
    pub fn failed(&self) -> bool {
        self.verdict == Verdict::Fail
    }

    /// The criterion's mode, verifiable when it has none.
    pub fn effective_mode(&self) -> CriterionMode {
        self.mode.unwrap_or(CriterionMode::Verifiable)
    }
}

/// One attempt of the fast loop, as seen by R4a.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GapPoint {
    /// The attempt number, 1 for the first.
    pub attempt: u32,
    /// Share of criteria passed in this attempt, in [0, 1].
    pub score: f64,
    /// The criteria this attempt did not meet, by text.
    pub unmet_criteria: Vec<String>,
    /// The class of this attempt's failures; None when it passed or nothing classed them.
    pub failure_class: Option<MixedFailureClass>,
}

/// How a sub-task's fast loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum SubTaskStatus {
    /// Every criterion of the sub-task was met.
    Matched,
    /// The fast loop ended with some criterion unmet.
    Failed,
}

/// R4a → R4b: the final word on one sub-task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SubTaskOutcome {
    /// The sub-task that ended.
    pub subtask_id: SubTaskId,
    /// The task it belongs to.
    pub parent_task_id: TaskId,
    /// Whether it matched.
    pub status: SubTaskStatus,
    /// The final attempt's output, as R4a read it; `null` when there was none.
    pub output: serde_json::Value,
    /// Why it failed; None when it matched.
    pub failure_reason: Option<String>,
    /// One point per attempt, oldest first.
    pub gap_trajectory: Vec<GapPoint>,
    /// R4a's verdicts on the final attempt.
    pub criteria_verdicts: Vec<CriterionVerdict>,
    /// The final attempt's tool calls.
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
    fn the_doubt_line_is_not_part_of_the_answer() {
        let doubted = format!("{DOUBT_PREFIX} it states 3, which no result shows\n3 files");
        assert_eq!(without_doubt(&doubted), "3 files");
        assert_eq!(without_doubt("3 files"), "3 files");
        assert_eq!(without_doubt(DOUBT_PREFIX), "");
    }

    #[test]
    fn seed_string_tool_calls_parse_into_records() {
        let rec: ToolCallRecord =
            serde_json::from_str(r#""shell: ls ~/Downloads → a.mp4\nb.mkv""#).unwrap();
        assert_eq!(rec.tool, crate::contracts::ToolName::Shell);
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
    /// The sub-task that ended.
    pub subtask_id: SubTaskId,
    /// The task it belongs to.
    pub parent_task_id: TaskId,
    /// Whether it matched.
    pub status: SubTaskStatus,
    /// The matched output, injected into the context of later sequence groups.
    pub output: serde_json::Value,
}

/// Dispatcher → R4b: a sequence group failed, so these later sub-tasks of the plan were
/// not run (a failed group stops later groups); R4b must not wait for them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DispatchHalted {
    /// The task whose round stopped early.
    pub task_id: TaskId,
    /// The sub-tasks that were never started.
    pub skipped: Vec<SubTaskId>,
    /// Why the dispatcher stopped, in plain words.
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
    /// The sub-task that produced no outcome.
    pub subtask_id: SubTaskId,
    /// Its success criteria; empty when they are unknown to the sender.
    #[serde(default)]
    pub success_criteria: Vec<Criterion>,
    /// Why it produced no outcome.
    #[serde(default)]
    pub reason: String,
}
