//! Medium-loop contracts: R4b's fan-in verdict, GGS's directive and the final result.

use serde::{Deserialize, Serialize};

use super::execution::{CriterionVerdict, MixedFailureClass, SubTaskOutcome, UnrunSubTask};
use super::ids::{SubTaskId, TaskId};
use super::task::Criterion;
use super::tool::ToolRef;

/// R4b's advice to GGS. GGS still decides; R4b never ends a task itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Recommendation {
    /// Another plan may still close the gap.
    Replan,
    /// No plan is likely to close the gap; R4b suggests ending the task.
    Abandon,
}

/// R4b → R7: the round did not meet its criteria.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReplanRequest {
    /// The task whose round fell short.
    pub task_id: TaskId,
    /// The task's intent (from the TaskSpec R4b holds), for GGS's terminal Megram tag
    /// and graceful-failure request.
    #[serde(default)]
    pub intent: String,
    /// R4b's plain account of what the merged output still lacks.
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
    /// Wall time of the task so far, in milliseconds; feeds Ω.
    #[serde(default)]
    pub elapsed_ms: u64,
    /// R4b's advice; replan when the field is absent.
    #[serde(default = "replan")]
    pub recommendation: Recommendation,
}

fn replan() -> Recommendation {
    Recommendation::Replan
}

impl ReplanRequest {
    /// Every outcome of the round: the failed ones first, then the matched ones.
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
    /// The task whose round was accepted.
    pub task_id: TaskId,
    /// The task's intent (from the TaskSpec R4b holds), for GGS's terminal Megram tag.
    #[serde(default)]
    pub intent: String,
    /// Concrete data, not a prose summary.
    pub merged_output: serde_json::Value,
    /// R4b's one-paragraph account of the merged output.
    pub summary: String,
    /// R4b's verdicts on the task criteria; all passed when R4b accepted.
    #[serde(default)]
    pub task_criteria_verdicts: Vec<CriterionVerdict>,
    /// The matched outcome of every sub-task in the round.
    #[serde(default)]
    pub outcomes: Vec<SubTaskOutcome>,
    /// Wall time of the task so far, in milliseconds; feeds Ω.
    #[serde(default)]
    pub elapsed_ms: u64,
}

/// The four loss components, serialised with capitalised keys as the formulas write them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Loss {
    /// D, the intent-result distance: the weighted share of failed criteria, in [0, 1].
    #[serde(rename = "D")]
    pub d: f64,
    /// P, the process implausibility: the logical share of the failures, in [0, 1].
    #[serde(rename = "P")]
    pub p: f64,
    /// Ω, the resource cost: replans and elapsed time against their budgets, in [0, 1].
    #[serde(rename = "Omega")]
    pub omega: f64,
    /// L = α·D + β_eff·P + λ·Ω, the value GGS drives down.
    #[serde(rename = "L")]
    pub l: f64,
}

/// The six macro-states plus `accept` (success with D = 0, every sub-task matched and
/// R4b accepted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum MacroState {
    /// D = 0, every sub-task matched and R4b accepted: the task is done.
    Accept,
    /// D within δ: close enough to the intent to end the task.
    Success,
    /// The loss is moving and the failures are environmental: keep the approach, tighten its
    /// parameters.
    Refine,
    /// The loss is flat and the failures are environmental: same approach, a different target.
    ChangePath,
    /// The loss is moving but the failures are logical: switch to a different tool class.
    ChangeApproach,
    /// The loss is flat and the failures are logical: block the failing tools and demand a new
    /// approach.
    BreakSymmetry,
    /// The budget is spent (Ω ≥ θ) or the task cannot be done: end with a graceful failure.
    Abandon,
}

impl MacroState {
    /// The snake_case name, as it appears on the wire and in the task log.
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

    /// Whether the state ends the task (accept, success or abandon).
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
    /// See [`MacroState::Refine`].
    Refine,
    /// See [`MacroState::ChangePath`].
    ChangePath,
    /// See [`MacroState::ChangeApproach`].
    ChangeApproach,
    /// See [`MacroState::BreakSymmetry`].
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
    /// See [`MacroState::Accept`].
    Accept,
    /// See [`MacroState::Success`].
    Success,
    /// See [`MacroState::Abandon`].
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
    /// No replan yet: the first plan.
    #[default]
    Init,
    /// The previous round was told to refine.
    Refine,
    /// The previous round was told to change path.
    ChangePath,
    /// The previous round was told to change approach.
    ChangeApproach,
    /// The previous round was told to break symmetry.
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
    /// |∇L| ≤ ε: no clear direction; apply the directive as written.
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
    /// ∇L < −ε: the loss is falling.
    Improving,
    /// |∇L| ≤ ε with D within δ: settled near the goal.
    Stable,
    /// ∇L > ε: the loss is rising.
    Worsening,
    /// |∇L| ≤ ε with D above δ: stuck short of the goal.
    Plateau,
}

/// R7 → R2: what kind of change the next plan must make, with urgency, gradient and round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PlanDirective {
    /// The task to replan.
    pub task_id: TaskId,
    /// The loss of the round that was just judged.
    pub loss: Loss,
    /// The directive the round that was just judged ran under.
    pub prev_directive: PrevDirective,
    /// The kind of change the next plan must make.
    pub directive: ReplanDirective,
    /// Tools the next plan must not use (the failing ones, under break_symmetry).
    pub blocked_tools: Vec<ToolRef>,
    /// Paths, hosts or other targets the next plan must avoid.
    pub blocked_targets: Vec<String>,
    /// The first criterion that failed, quoted for the planner; empty when none failed.
    pub failed_criterion: String,
    /// Whether the round's failures were logical, environmental or both.
    pub failure_class: MixedFailureClass,
    /// Ω, for display.
    pub budget_pressure: f64,
    /// ∇L, the change in L since the previous round; 0 on the first replan.
    pub grad_l: f64,
    /// Why GGS chose the directive, with the numbers it compared.
    pub rationale: String,
    /// How much latitude the planner has, from the sign of ∇L.
    #[serde(default)]
    pub urgency: Urgency,
    /// The trajectory label; None when there was no earlier round to compare.
    #[serde(default)]
    pub gradient: Option<Gradient>,
    /// 1 for the first replan.
    #[serde(default)]
    pub round: u32,
}

/// Law 1 gates that fired in a round or a task, by the decision that came back. A final
/// result carries the task's as data beside the answer; it is never words glued into it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct Law1Tally {
    /// Requests the user (or a grant) approved.
    pub approved: u32,
    /// Requests denied, by the user or by expiry.
    pub denied: u32,
    /// Deletions the user sent to the Trash instead.
    pub trashed: u32,
    /// Actions a standing grant by effect approved without asking anyone.
    pub granted: u32,
}

impl Law1Tally {
    /// Counts the Law 1 decisions recorded in `outcomes`.
    pub fn of<'a>(outcomes: impl IntoIterator<Item = &'a SubTaskOutcome>) -> Self {
        let mut tally = Self::default();
        for call in outcomes.into_iter().flat_map(|o| o.tool_calls.iter()) {
            let Some(decision) = call.confirmation else {
                continue;
            };
            match decision {
                super::Decision::Approve if call.grant.is_some() => tally.granted += 1,
                super::Decision::Approve => tally.approved += 1,
                super::Decision::Deny => tally.denied += 1,
                super::Decision::Trash => tally.trashed += 1,
            }
        }
        tally
    }

    /// Whether no Law 1 gate fired.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// All Law 1 gates of the round, whatever their answer, granted ones included.
    pub fn total(&self) -> u32 {
        self.asked() + self.granted
    }

    /// The Law 1 requests someone answered (not a standing grant).
    pub fn asked(&self) -> u32 {
        self.approved + self.denied + self.trashed
    }

    /// Adds another round's counts to these.
    pub fn add(&mut self, other: Law1Tally) {
        self.approved += other.approved;
        self.denied += other.denied;
        self.trashed += other.trashed;
        self.granted += other.granted;
    }
}

/// R7 → User. GGS is the only emitter, on every path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FinalResult {
    /// The task that ended.
    pub task_id: TaskId,
    /// The answer, first and alone, in the user's words: prefixed `[LAW1]` (the seed's
    /// marker) whenever a confirmation gate fired during the task, and nothing else
    /// glued to it — the tally, the tools' account and the unverified names are the
    /// fields below.
    pub summary: String,
    /// Merged output; `null` on abandon.
    pub output: serde_json::Value,
    /// The loss of the last round.
    pub loss: Loss,
    /// ∇L of the last round.
    pub grad_l: f64,
    /// How many replans were directed before the task ended.
    pub replans: u32,
    /// The directive the last round ran under.
    pub prev_directive: PrevDirective,
    /// How the task ended.
    pub directive: TerminalDirective,
    /// Graceful failure: 2–3 concrete next moves (abandon only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next_moves: Vec<String>,
    /// Every change the task made to files, measured from its tool calls (what a tool
    /// wrote, what the sandbox kept), whatever the directive: the honest account of its
    /// effects, shown on lines of their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<crate::contracts::PathEffect>,
    /// The standing grants by effect that let actions of this task run without asking,
    /// in words, each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grants: Vec<String>,
    /// Set when a schedule started the task: its note ("Scheduled: every weekday at
    /// 09:00. …"), shown with the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled: Option<Box<crate::contracts::ScheduledRun>>,
    /// How the task's Law 1 gates were answered, and how many actions a standing grant
    /// let run unasked.
    #[serde(default, skip_serializing_if = "Law1Tally::is_empty")]
    pub law1: Law1Tally,
    /// What the task's file tools reported they did and could not do, line by line from
    /// their records (`copied 2 of 3 into ~/to-print: a.pdf, b.pdf`, `missing: c.pdf (not
    /// in ~/docs)`), paths from the home folder, each once, none the answer already says.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub account: Vec<String>,
    /// Numbers, paths and names the answer states that no tool output (nor the user's
    /// words) shows (Law 0).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unverified: Vec<String>,
    /// A success delivered within the convergence threshold: the criteria it did not
    /// meet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_met: Vec<String>,
}

/// One matched sub-task's output, quoted verbatim in a graceful-failure request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MatchedOutput {
    /// The sub-task that matched.
    pub subtask_id: SubTaskId,
    /// Its output, verbatim.
    pub output: serde_json::Value,
}

/// R7 → R2 on abandon: "say what was actually accomplished and what to try next".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GracefulFailureRequest {
    /// The task being abandoned.
    pub task_id: TaskId,
    /// The task's intent, as the perceiver stated it.
    pub intent: String,
    /// Why GGS abandoned, in plain words.
    pub reason: String,
    /// What did succeed, quoted so the reply cannot overstate it.
    pub matched_outputs: Vec<MatchedOutput>,
    /// One line per failure the reply should explain.
    pub failures: Vec<String>,
}

/// R2 → R7, the reply to a [`GracefulFailureRequest`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GracefulFailure {
    /// The abandoned task.
    pub task_id: TaskId,
    /// What was actually accomplished, quoting matched outputs verbatim.
    pub accomplished: String,
    /// Two or three concrete things the user could try next.
    pub next_moves: Vec<String>,
}

/// R2 → R7: no valid plan could be produced (after the bounded re-ask). GGS abandons
/// honestly; R2 never emits a FinalResult itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PlanningFailed {
    /// The task no plan could be made for.
    pub task_id: TaskId,
    /// The task's intent (from the TaskSpec R2 holds), for GGS's terminal Megram tag and
    /// graceful-failure request.
    #[serde(default)]
    pub intent: String,
    /// Why planning failed (the validator's last objection or the model error).
    pub reason: String,
    /// The replan round that failed; 0 for the first plan.
    pub round: u32,
}
