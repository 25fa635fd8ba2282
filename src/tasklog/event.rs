//! The line format of a run file: one JSON object per line,
//! `{"kind": "<kind>", …the kind's fields…, "ts": RFC 3339, "seq": bus seq}`.
//!
//! `kind` is always the first key (the reader peeks at it to skip bulky lines), `seq` is the
//! bus sequence number of the envelope the line was derived from (absent on lines the
//! writer makes itself: `gap`, and `task_end` at shutdown), and `after_end: true` marks a
//! line that arrived after its run had ended. Field names follow the contracts; fields are only ever added, so every old file stays readable.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::contracts::{
    ConfirmationDecision, ConfirmationRequest, Criterion, CriterionMode, Decision, DispatchHalted,
    ExecutionStatus, FailureClass, GapPoint, Gradient, Level, LlmCall, Loss, MacroState, MegramId,
    MegramOrigin, MemoryAction, MixedFailureClass, PrevDirective, RecalledConstraint,
    Recommendation, ReplanDirective, Role, SOPRecord, SubTaskId, SubTaskStatus, TaskId,
    TerminalDirective, ToolCallStatus, Urgency, Verdict,
};
use crate::tools::ToolRef;

/// One line of a run file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LogLine {
    /// Declared first so that `kind` leads the serialised object.
    #[serde(flatten)]
    pub event: Event,
    pub ts: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// The run had already ended (a result, a chat answer or a cancel) when this
    /// arrived: a straggler, kept rather than dropped.
    #[serde(default, skip_serializing_if = "is_false")]
    pub after_end: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl LogLine {
    pub fn kind(&self) -> &'static str {
        self.event.kind()
    }
}

macro_rules! events {
    ($($(#[$doc:meta])* $variant:ident($payload:ident) = $kind:literal),* $(,)?) => {
        /// Every kind of line. Unknown kinds (written by a newer version) are skipped by
        /// the reader, never fatal.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "specta", derive(specta::Type))]
        #[serde(tag = "kind")]
        pub enum Event {
            $($(#[$doc])* #[serde(rename = $kind)] $variant($payload),)*
        }

        impl Event {
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Event::$variant(_) => $kind,)*
                }
            }

            /// Every kind this version writes.
            pub const KINDS: &'static [&'static str] = &[$($kind,)*];
        }

        $(impl From<$payload> for Event {
            fn from(payload: $payload) -> Self {
                Event::$variant(payload)
            }
        })*
    };
}

events! {
    /// TaskSubmitted: a run starts.
    TaskBegin(TaskBegin) = "task_begin",
    /// R1's TaskSpec: the intent the run works on.
    TaskSpec(TaskSpec) = "task_spec",
    Clarification(Clarification) = "clarification",
    ClarificationAnswer(ClarificationAnswer) = "clarification_answer",
    /// R1's conversational fast path; ends the run.
    ChatReply(ChatReply) = "chat_reply",
    /// What memory said for one (space, entity) group before a plan (MemoryRecall).
    MemoryQuery(MemoryQuery) = "memory_query",
    /// R2's DispatchManifest: one planning round.
    Plan(Plan) = "plan",
    SubtaskBegin(SubtaskBegin) = "subtask_begin",
    /// R3's ExecutionResult: its own account of one attempt (a claim; tool calls are the
    /// evidence).
    Execution(Execution) = "execution",
    ToolCall(ToolCall) = "tool_call",
    CriterionVerdict(CriterionVerdict) = "criterion_verdict",
    Correction(Correction) = "correction",
    SubtaskEnd(SubtaskEnd) = "subtask_end",
    /// The dispatcher stopped a plan after a failed sequence group; these never ran.
    DispatchHalted(DispatchHalted) = "dispatch_halted",
    /// R4b's ReplanRequest.
    Replan(Replan) = "replan",
    /// R4b's OutcomeSummary: the round's merged output was accepted.
    OutcomeSummary(OutcomeSummary) = "outcome_summary",
    /// GGS's decision on one round, replan or terminal (the accept path included).
    GgsDecision(GgsDecision) = "ggs_decision",
    PlanDirective(PlanDirective) = "plan_directive",
    PlanningFailed(PlanningFailed) = "planning_failed",
    GracefulFailureRequest(GracefulFailureRequest) = "graceful_failure_request",
    GracefulFailure(GracefulFailure) = "graceful_failure",
    FinalResult(FinalResult) = "final_result",
    MemoryWrite(MemoryWrite) = "memory_write",
    /// A Law 1 confirmation request, as the executor published it.
    Law1Request(ConfirmationRequest) = "law1_request",
    Law1Decision(ConfirmationDecision) = "law1_decision",
    /// One model call with its full prompts and response, for offline replay.
    LlmCall(LlmCall) = "llm_call",
    Cancelled(Cancelled) = "cancelled",
    /// The writer's tap fell behind and lost messages: this run's log is incomplete.
    Gap(Gap) = "gap",
    TaskEnd(TaskEnd) = "task_end",
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskBegin {
    pub task_id: TaskId,
    /// Verbatim user input; `None` on a partial run.
    #[serde(default)]
    pub raw_input: Option<String>,
    #[serde(default)]
    pub submitted_at: Option<DateTime<Utc>>,
    /// Earlier turns of the session R1 was given.
    #[serde(default)]
    pub session_turns: usize,
    /// The run's TaskSubmitted was never seen (the writer started late or lost it in a
    /// gap): the file starts at the first event the writer did see.
    #[serde(default, skip_serializing_if = "is_false")]
    pub partial: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskSpec {
    pub intent: String,
    #[serde(default)]
    pub scope: Option<String>,
    #[serde(default)]
    pub deadline: Option<String>,
    /// The input R1 worked from (the user's words plus clarification answers).
    #[serde(default)]
    pub raw_input: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Clarification {
    pub round: u32,
    pub question: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ClarificationAnswer {
    pub answer: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChatReply {
    pub answer: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MemoryQuery {
    pub round: u32,
    pub space: String,
    pub entity: String,
    pub sop_count: usize,
    pub action: MemoryAction,
    pub attention: f64,
    pub decision: f64,
    /// What R2 injected into the plan prompt, with the Megrams behind each constraint.
    #[serde(default)]
    pub constraints: Vec<RecalledConstraint>,
    #[serde(default)]
    pub sops: Vec<SOPRecord>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Plan {
    /// 0 for the first plan, n for the n-th replan.
    pub round: u32,
    pub subtask_ids: Vec<SubTaskId>,
    /// Assertions about the combined output, judged by R4b.
    #[serde(default)]
    pub task_criteria: Vec<Criterion>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SubtaskBegin {
    pub subtask_id: SubTaskId,
    /// The planning round the sub-task belongs to.
    pub round: u32,
    pub intent: String,
    pub sequence: i64,
    pub criteria: Vec<Criterion>,
    #[serde(default)]
    pub context: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Execution {
    pub subtask_id: SubTaskId,
    pub attempt: u32,
    pub status: ExecutionStatus,
    pub output: String,
    pub tool_call_count: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolCall {
    pub subtask_id: SubTaskId,
    pub attempt: u32,
    pub tool: ToolRef,
    pub input: serde_json::Value,
    pub target: String,
    pub output_head: String,
    pub status: ToolCallStatus,
    #[serde(default)]
    pub error: Option<String>,
    pub duration_ms: u64,
    /// Set when a Law 1 gate fired for this call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Decision>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CriterionVerdict {
    /// `None` for a task criterion judged by R4b on the merged output.
    #[serde(default)]
    pub subtask_id: Option<SubTaskId>,
    /// Set on task criteria (R4b), whose verdicts are not tied to a sub-task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    pub criterion: String,
    pub verdict: Verdict,
    #[serde(default)]
    pub mode: Option<CriterionMode>,
    #[serde(default)]
    pub failure_class: Option<FailureClass>,
    #[serde(default)]
    pub evidence: String,
    /// The fast-loop attempt the verdict judged (R4a); `None` for task criteria.
    #[serde(default)]
    pub attempt: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Correction {
    pub subtask_id: SubTaskId,
    pub attempt: u32,
    pub failed_criterion: String,
    pub failure_class: FailureClass,
    pub what_was_wrong: String,
    pub what_to_do: String,
    #[serde(default)]
    pub calls_to_avoid: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SubtaskEnd {
    pub subtask_id: SubTaskId,
    pub status: SubTaskStatus,
    #[serde(default)]
    pub failure_reason: Option<String>,
    /// Fast-loop attempts (R4a's gap trajectory).
    #[serde(default)]
    pub gap_trajectory: Vec<GapPoint>,
    #[serde(default)]
    pub output: serde_json::Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Replan {
    pub round: u32,
    pub gap_summary: String,
    #[serde(default)]
    pub failed_subtasks: Vec<SubTaskId>,
    #[serde(default)]
    pub correction_count: u32,
    #[serde(default)]
    pub recommendation: Option<Recommendation>,
    #[serde(default)]
    pub elapsed_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct OutcomeSummary {
    pub round: u32,
    pub summary: String,
    #[serde(default)]
    pub merged_output: serde_json::Value,
    #[serde(default)]
    pub elapsed_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GgsDecision {
    /// The planning round this decision judged.
    pub round: u32,
    /// D, P, Omega, L, with capitalised keys as the formulas write them.
    #[serde(flatten)]
    pub loss: Loss,
    pub grad_l: f64,
    pub directive: MacroState,
    #[serde(default)]
    pub prev_directive: PrevDirective,
    /// Why GGS chose this directive; terminal results carry none on the bus.
    #[serde(default)]
    pub rationale: Option<String>,
    #[serde(default)]
    pub gradient: Option<Gradient>,
    /// Replans so far, this decision included.
    #[serde(default)]
    pub replans: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PlanDirective {
    /// The round whose outcome produced this directive (the next plan is `round + 1`).
    pub round: u32,
    pub directive: ReplanDirective,
    pub blocked_tools: Vec<ToolRef>,
    pub blocked_targets: Vec<String>,
    #[serde(default)]
    pub failed_criterion: String,
    pub failure_class: MixedFailureClass,
    #[serde(default)]
    pub urgency: Urgency,
    pub rationale: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PlanningFailed {
    pub round: u32,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GracefulFailureRequest {
    pub reason: String,
    #[serde(default)]
    pub failures: Vec<String>,
    #[serde(default)]
    pub matched_outputs: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GracefulFailure {
    pub accomplished: String,
    #[serde(default)]
    pub next_moves: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FinalResult {
    pub directive: TerminalDirective,
    pub summary: String,
    #[serde(default)]
    pub output: serde_json::Value,
    #[serde(default)]
    pub replans: u32,
    #[serde(default)]
    pub next_moves: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MemoryWrite {
    pub megram_id: MegramId,
    pub state: MegramOrigin,
    pub level: Level,
    pub space: String,
    pub entity: String,
    #[serde(default)]
    pub content: String,
    pub f: f64,
    pub sigma: f64,
    pub k: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Cancelled {
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Gap {
    /// Bus messages the writer never saw (of any task: the tap cannot tell whose).
    pub skipped: u64,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// No `task_end` yet: the task is still running, or the process died mid-task.
    #[default]
    Open,
    /// GGS accepted R4b's verdict (D = 0).
    Accepted,
    /// GGS delivered within the convergence threshold (D ≤ δ).
    Success,
    Abandoned,
    Cancelled,
    /// R1's conversational fast path answered; no plan ran.
    Answered,
    /// The log ended before the task did: the writer shut down, or the task id was
    /// submitted again while this run was still open.
    Unfinished,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Open => "open",
            RunStatus::Accepted => "accepted",
            RunStatus::Success => "success",
            RunStatus::Abandoned => "abandoned",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Answered => "answered",
            RunStatus::Unfinished => "unfinished",
        }
    }
}

impl From<TerminalDirective> for RunStatus {
    fn from(value: TerminalDirective) -> Self {
        match value {
            TerminalDirective::Accept => RunStatus::Accepted,
            TerminalDirective::Success => RunStatus::Success,
            TerminalDirective::Abandon => RunStatus::Abandoned,
        }
    }
}

/// Model usage of one role within a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RoleUsage {
    pub role: Role,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Summed call time; parallel calls overlap, so this can exceed the run's duration.
    pub elapsed_ms: u64,
    /// Calls that ended in an error.
    #[serde(default)]
    pub errors: u64,
}

/// Cost of a run: model calls per role and tool calls. Aggregated by the writer for
/// `task_end`, and by the reader from `llm_call`/`tool_call` lines when a run has none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Usage {
    /// In role order: R1, R2, R3, R4a, R4b, then the rest.
    pub role_stats: Vec<RoleUsage>,
    pub total_tokens: u64,
    pub tool_call_count: u64,
    pub tool_elapsed_ms: u64,
}

impl Usage {
    pub fn record_llm_call(&mut self, call: &LlmCall) {
        self.record_llm(
            call.role,
            call.prompt_tokens,
            call.completion_tokens,
            call.elapsed_ms,
            call.error.is_some(),
        );
    }

    pub fn record_llm(
        &mut self,
        role: Role,
        prompt_tokens: u64,
        completion_tokens: u64,
        elapsed_ms: u64,
        failed: bool,
    ) {
        let idx = match self.role_stats.binary_search_by(|s| s.role.cmp(&role)) {
            Ok(idx) => idx,
            Err(idx) => {
                self.role_stats.insert(
                    idx,
                    RoleUsage {
                        role,
                        calls: 0,
                        prompt_tokens: 0,
                        completion_tokens: 0,
                        elapsed_ms: 0,
                        errors: 0,
                    },
                );
                idx
            }
        };
        let stats = &mut self.role_stats[idx];
        stats.calls += 1;
        stats.prompt_tokens += prompt_tokens;
        stats.completion_tokens += completion_tokens;
        stats.elapsed_ms += elapsed_ms;
        stats.errors += u64::from(failed);
        self.total_tokens += prompt_tokens + completion_tokens;
    }

    pub fn record_tool_call(&mut self, duration_ms: u64) {
        self.tool_call_count += 1;
        self.tool_elapsed_ms += duration_ms;
    }

    /// Model calls over all roles.
    pub fn llm_calls(&self) -> u64 {
        self.role_stats.iter().map(|s| s.calls).sum()
    }

    /// Usage of one role, if it made any call.
    pub fn role(&self, role: Role) -> Option<&RoleUsage> {
        self.role_stats.iter().find(|s| s.role == role)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskEnd {
    pub status: RunStatus,
    /// From TaskSubmitted to the closing message, by the bus clock.
    pub elapsed_ms: u64,
    /// Plans dispatched (DispatchManifests).
    pub rounds: u32,
    pub replans: u32,
    #[serde(flatten)]
    pub usage: Usage,
    /// Bus messages lost to tap gaps while this run was open.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped_messages: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The kind of a serialised line, read without parsing it: lines start with
/// `{"kind":"…"`. `None` when the line does not have that shape.
pub fn peek_kind(line: &[u8]) -> Option<&str> {
    let rest = line.strip_prefix(br#"{"kind":""#)?;
    let end = rest.iter().position(|&b| b == b'"')?;
    std::str::from_utf8(&rest[..end]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(event: impl Into<Event>) -> LogLine {
        LogLine {
            event: event.into(),
            ts: DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
            seq: Some(7),
            after_end: false,
        }
    }

    #[test]
    fn a_line_starts_with_its_kind_and_carries_ts_and_seq() {
        let json = serde_json::to_string(&line(Cancelled {
            reason: "user".into(),
        }))
        .unwrap();
        assert!(json.starts_with(r#"{"kind":"cancelled","#), "{json}");
        assert_eq!(peek_kind(json.as_bytes()), Some("cancelled"));
        let back: LogLine = serde_json::from_str(&json).unwrap();
        assert_eq!(back.seq, Some(7));
        assert!(!json.contains("after_end"));
    }

    #[test]
    fn the_ggs_decision_uses_the_seeds_capitalised_loss_keys() {
        let json = serde_json::to_value(line(GgsDecision {
            round: 0,
            loss: Loss {
                d: 0.5,
                p: 0.25,
                omega: 0.1,
                l: 0.4,
            },
            grad_l: -0.2,
            directive: MacroState::ChangePath,
            prev_directive: PrevDirective::Init,
            rationale: Some("r".into()),
            gradient: None,
            replans: 1,
        }))
        .unwrap();
        for (key, value) in [("D", 0.5), ("P", 0.25), ("Omega", 0.1), ("L", 0.4)] {
            assert_eq!(json[key], value, "{key} in {json}");
        }
        assert_eq!(json["kind"], "ggs_decision");
        assert_eq!(json["directive"], "change_path");
    }

    #[test]
    fn kind_names_are_the_seed_spellings() {
        for kind in [
            "task_begin",
            "task_end",
            "subtask_begin",
            "subtask_end",
            "llm_call",
            "tool_call",
            "criterion_verdict",
            "correction",
            "replan",
            "ggs_decision",
            "plan_directive",
            "memory_query",
            "memory_write",
            "law1_request",
            "law1_decision",
            "chat_reply",
            "clarification",
            "cancelled",
            "gap",
        ] {
            assert!(Event::KINDS.contains(&kind), "{kind} missing");
        }
    }

    #[test]
    fn usage_keeps_roles_in_pipeline_order_and_sums_tokens() {
        let mut usage = Usage::default();
        usage.record_llm(Role::MetaValidator, 10, 5, 100, false);
        usage.record_llm(Role::Perceiver, 3, 2, 10, false);
        usage.record_llm(Role::Executor, 7, 1, 30, true);
        usage.record_llm(Role::Perceiver, 1, 1, 5, false);
        let roles: Vec<_> = usage.role_stats.iter().map(|s| s.role).collect();
        assert_eq!(
            roles,
            vec![Role::Perceiver, Role::Executor, Role::MetaValidator]
        );
        assert_eq!(usage.total_tokens, 30);
        assert_eq!(usage.llm_calls(), 4);
        let r1 = usage.role(Role::Perceiver).unwrap();
        assert_eq!((r1.calls, r1.prompt_tokens, r1.elapsed_ms), (2, 4, 15));
        assert_eq!(usage.role(Role::Executor).unwrap().errors, 1);
    }

    #[test]
    fn peek_kind_rejects_lines_of_another_shape() {
        assert_eq!(peek_kind(br#"{"ts":"x","kind":"gap"}"#), None);
        assert_eq!(peek_kind(br#"{"kind":"gap"#), None);
        assert_eq!(peek_kind(b""), None);
    }
}
