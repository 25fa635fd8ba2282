//! Medium-loop contracts: R4b's fan-in verdict, GGS's directive and the final result.

use serde::{Deserialize, Serialize};

use super::execution::{CriterionVerdict, MixedFailureClass, SubTaskOutcome, UnrunSubTask};
use super::ids::{SubTaskId, TaskId};
use super::task::Criterion;
use crate::tools::ToolRef;

/// R4b's advice to GGS. GGS still decides; R4b never ends a task itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Recommendation {
    Replan,
    Abandon,
}

/// R4b → R7: the round did not meet its criteria.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReplanRequest {
    pub task_id: TaskId,
    /// The task's intent (from the TaskSpec R4b holds), for GGS's terminal Megram tag
    /// and graceful-failure request.
    #[serde(default)]
    pub intent: String,
    pub gap_summary: String,
    /// Outcomes with status `failed`.
    pub failed_outcomes: Vec<SubTaskOutcome>,
    /// Outcomes with status `matched`, so GGS sees every criterion of the round.
    #[serde(default)]
    pub matched_outcomes: Vec<SubTaskOutcome>,
    /// The sub-tasks that ended failed this round.
    #[serde(default)]
    pub failed_subtasks: Vec<SubTaskId>,
    /// R4b's verdicts on the task criteria; empty when the code gate fired before any
    /// LLM call. A rejection here raises D even when every sub-task matched.
    #[serde(default)]
    pub task_criteria_verdicts: Vec<CriterionVerdict>,
    /// Planned sub-tasks of the round that produced no outcome (halted after a failed
    /// group, or silent until the round was given up). Each counts against D.
    #[serde(default)]
    pub unrun_subtasks: Vec<UnrunSubTask>,
    /// Task criteria nobody judged this round (the code gate fired, or R4b's judgement
    /// was unusable). None was shown to pass, so each counts against D.
    #[serde(default)]
    pub unjudged_task_criteria: Vec<Criterion>,
    /// Fast-loop attempts summed over the round's outcomes.
    #[serde(default)]
    pub correction_count: u32,
    #[serde(default)]
    pub elapsed_ms: u64,
    #[serde(default = "replan")]
    pub recommendation: Recommendation,
}

fn replan() -> Recommendation {
    Recommendation::Replan
}

impl ReplanRequest {
    pub fn outcomes(&self) -> impl Iterator<Item = &SubTaskOutcome> {
        self.failed_outcomes
            .iter()
            .chain(self.matched_outcomes.iter())
    }
}

/// R4b → R7: every sub-task matched and R4b accepted the merged output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct OutcomeSummary {
    pub task_id: TaskId,
    /// The task's intent (from the TaskSpec R4b holds), for GGS's terminal Megram tag.
    #[serde(default)]
    pub intent: String,
    /// Concrete data, not a prose summary.
    pub merged_output: serde_json::Value,
    pub summary: String,
    #[serde(default)]
    pub task_criteria_verdicts: Vec<CriterionVerdict>,
    #[serde(default)]
    pub outcomes: Vec<SubTaskOutcome>,
    #[serde(default)]
    pub elapsed_ms: u64,
}

/// The four loss components, serialised with capitalised keys as the formulas write them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Loss {
    #[serde(rename = "D")]
    pub d: f64,
    #[serde(rename = "P")]
    pub p: f64,
    #[serde(rename = "Omega")]
    pub omega: f64,
    #[serde(rename = "L")]
    pub l: f64,
}

/// The six macro-states plus `accept` (success with D = 0, every sub-task matched and
/// R4b accepted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum MacroState {
    Accept,
    Success,
    Refine,
    ChangePath,
    ChangeApproach,
    BreakSymmetry,
    Abandon,
}

impl MacroState {
    pub fn as_str(self) -> &'static str {
        match self {
            MacroState::Accept => "accept",
            MacroState::Success => "success",
            MacroState::Refine => "refine",
            MacroState::ChangePath => "change_path",
            MacroState::ChangeApproach => "change_approach",
            MacroState::BreakSymmetry => "break_symmetry",
            MacroState::Abandon => "abandon",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            MacroState::Accept | MacroState::Success | MacroState::Abandon
        )
    }
}

/// A directive that sends the task back to R2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ReplanDirective {
    Refine,
    ChangePath,
    ChangeApproach,
    BreakSymmetry,
}

impl From<ReplanDirective> for MacroState {
    fn from(value: ReplanDirective) -> Self {
        match value {
            ReplanDirective::Refine => MacroState::Refine,
            ReplanDirective::ChangePath => MacroState::ChangePath,
            ReplanDirective::ChangeApproach => MacroState::ChangeApproach,
            ReplanDirective::BreakSymmetry => MacroState::BreakSymmetry,
        }
    }
}

/// A directive that ends the task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum TerminalDirective {
    Accept,
    Success,
    Abandon,
}

impl From<TerminalDirective> for MacroState {
    fn from(value: TerminalDirective) -> Self {
        match value {
            TerminalDirective::Accept => MacroState::Accept,
            TerminalDirective::Success => MacroState::Success,
            TerminalDirective::Abandon => MacroState::Abandon,
        }
    }
}

/// The directive of the previous round; `init` before the first replan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum PrevDirective {
    #[default]
    Init,
    Refine,
    ChangePath,
    ChangeApproach,
    BreakSymmetry,
}

impl From<ReplanDirective> for PrevDirective {
    fn from(value: ReplanDirective) -> Self {
        match value {
            ReplanDirective::Refine => PrevDirective::Refine,
            ReplanDirective::ChangePath => PrevDirective::ChangePath,
            ReplanDirective::ChangeApproach => PrevDirective::ChangeApproach,
            ReplanDirective::BreakSymmetry => PrevDirective::BreakSymmetry,
        }
    }
}

/// ∇L's sign as an urgency modulator: how much latitude R2 has in the next plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Urgency {
    /// ∇L < −ε: the trajectory is helping; apply the directive with latitude.
    Low,
    #[default]
    Normal,
    /// ∇L > ε: diverging; apply the directive aggressively.
    High,
}

/// Which way the loss moved between rounds, as GGS reads its gradient.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Gradient {
    Improving,
    Stable,
    Worsening,
    Plateau,
}

/// R7 → R2: what kind of change the next plan must make, with urgency, gradient and round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PlanDirective {
    pub task_id: TaskId,
    pub loss: Loss,
    pub prev_directive: PrevDirective,
    pub directive: ReplanDirective,
    pub blocked_tools: Vec<ToolRef>,
    pub blocked_targets: Vec<String>,
    pub failed_criterion: String,
    pub failure_class: MixedFailureClass,
    /// Ω, for display.
    pub budget_pressure: f64,
    pub grad_l: f64,
    pub rationale: String,
    #[serde(default)]
    pub urgency: Urgency,
    #[serde(default)]
    pub gradient: Option<Gradient>,
    /// 1 for the first replan.
    #[serde(default)]
    pub round: u32,
}

/// R7 → User. GGS is the only emitter, on every path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FinalResult {
    pub task_id: TaskId,
    /// Prefixed `[LAW1]` whenever a confirmation gate fired during the task.
    pub summary: String,
    /// Merged output; `null` on abandon.
    pub output: serde_json::Value,
    pub loss: Loss,
    pub grad_l: f64,
    pub replans: u32,
    pub prev_directive: PrevDirective,
    pub directive: TerminalDirective,
    /// Graceful failure: 2–3 concrete next moves (abandon only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next_moves: Vec<String>,
}

/// One matched sub-task's output, quoted verbatim in a graceful-failure request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MatchedOutput {
    pub subtask_id: SubTaskId,
    pub output: serde_json::Value,
}

/// R7 → R2 on abandon: "say what was actually accomplished and what to try next".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GracefulFailureRequest {
    pub task_id: TaskId,
    pub intent: String,
    pub reason: String,
    pub matched_outputs: Vec<MatchedOutput>,
    pub failures: Vec<String>,
}

/// R2 → R7, the reply to a [`GracefulFailureRequest`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GracefulFailure {
    pub task_id: TaskId,
    /// What was actually accomplished, quoting matched outputs verbatim.
    pub accomplished: String,
    pub next_moves: Vec<String>,
}

/// R2 → R7: no valid plan could be produced (after the bounded re-ask). GGS abandons
/// honestly; R2 never emits a FinalResult itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PlanningFailed {
    pub task_id: TaskId,
    /// The task's intent (from the TaskSpec R2 holds), for GGS's terminal Megram tag and
    /// graceful-failure request.
    #[serde(default)]
    pub intent: String,
    pub reason: String,
    pub round: u32,
}
