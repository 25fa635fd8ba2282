//! The loss of one medium-loop round, as R7 computes it:
//!
//! ```text
//! L = α·D + β_eff·P + λ·Ω,   β_eff = β·(1 − Ω)
//! ```
//!
//! **D** is taken over every criterion verdict of the round — each sub-task's criteria
//! **and** R4b's task-criteria verdicts (without the latter, an R4b rejection with every
//! sub-task matched would read as "success"). Every verdict weighs 1 in the
//! denominator; a failed one contributes:
//! - verifiable (or no mode): 1.0;
//! - plausible, sub-task criterion: k/N, with k the attempts in which it was unmet and N
//!   the attempts (`SubTaskOutcome::failure_count`). The final verdict is itself a failing
//!   attempt, so k ≥ 1 and N ≥ k; no trajectory at all means k = N = 1;
//! - plausible, task criterion: 1.0 (R4b judges the merged output once per round: k = N = 1).
//!
//! Failures that carry no failing verdict still count, so nothing that went wrong is
//! invisible to D:
//! - a `failed` sub-task whose verdicts record no failure (no verdicts at all: the executor
//!   crashed, scoring failed, the time ran out) adds one failed verifiable unit;
//! - a `matched` sub-task without verdicts adds one passed unit (it did count as done);
//! - a rejected round (a `ReplanRequest`) in which nothing above failed — R4b rejected
//!   without verdicts, e.g. its reply did not parse — adds one failed verifiable unit.
//!
//! What was planned but never observed counts as well ([`Unobserved`]), because a
//! criterion nobody showed to pass is not met (Law 0: a partly run plan is not a
//! success):
//! - a planned sub-task that never ran or never reported (the dispatcher halted it after
//!   an earlier group failed, or R4b gave the round up) adds one failed unit per success
//!   criterion it carried, or one unit when its criteria are unknown;
//! - a task criterion R4b did not judge (its code gate fired, or its judgement was
//!   unusable) adds one failed unit.
//!
//! **P** = logical / (logical + environmental), counted over the failed units. A unit's
//! class is its verdict's `failure_class`, else the class of the sub-task's last attempt,
//! else (for a unit without verdicts) environmental when one of its tool calls ended in
//! `error` or `denied`. A `mixed` or still unclassified unit counts one half on each side:
//! no evidence either way, and P of only such units is 0.5. P is 0 when nothing failed.
//! An unobserved unit raises D but is left out of P: it says nothing about whether the
//! approach was wrong or the environment blocked it (that is the observed failure that
//! stopped it), and counting it would dilute the class of what was actually seen.
//!
//! **Ω** = w₁·replans/maxReplans + w₂·elapsed/time_budget, clamped to [0, 1], where
//! `replans` is the number of replans already directed for the task (what has been spent,
//! the same number the FinalResult reports).
//!
//! **Invariant:** pure arithmetic over its arguments — no clock, no IO, no tokio; D, P
//! and Ω are always finite and in [0, 1].

use crate::config::GgsParams;
use crate::contracts::{
    Criterion, CriterionMode, CriterionVerdict, FailureClass, Loss, MixedFailureClass,
    SubTaskOutcome, SubTaskStatus, ToolCallStatus, UnrunSubTask,
};

/// How one failed unit weighs in P.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitClass {
    /// The plan or the model was wrong.
    Logical,
    /// The environment stopped it.
    Environmental,
    /// Counted one half on each side.
    Mixed,
    /// No class anywhere: counted one half on each side.
    Unclassified,
    /// Never run or never judged: raises D, left out of P.
    Unobserved,
}

impl UnitClass {
    fn from_mixed(class: MixedFailureClass) -> Self {
        match class {
            MixedFailureClass::Logical => UnitClass::Logical,
            MixedFailureClass::Environmental => UnitClass::Environmental,
            MixedFailureClass::Mixed => UnitClass::Mixed,
        }
    }

    /// (logical, environmental) share of one unit.
    fn shares(self) -> (f64, f64) {
        match self {
            UnitClass::Logical => (1.0, 0.0),
            UnitClass::Environmental => (0.0, 1.0),
            UnitClass::Mixed | UnitClass::Unclassified => (0.5, 0.5),
            UnitClass::Unobserved => (0.0, 0.0),
        }
    }
}

impl From<FailureClass> for UnitClass {
    fn from(value: FailureClass) -> Self {
        match value {
            FailureClass::Logical => UnitClass::Logical,
            FailureClass::Environmental => UnitClass::Environmental,
        }
    }
}

/// Where a failed unit came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitSource {
    /// A criterion of the sub-task at this index of the round's outcomes.
    SubTaskCriterion(usize),
    /// A failed sub-task without a failing verdict.
    SubTask(usize),
    /// A task criterion R4b judged failed.
    TaskCriterion,
    /// R4b rejected the round without any failing verdict.
    Rejection,
    /// A planned sub-task (index into [`Unobserved::unrun`]) that produced no outcome.
    UnrunSubTask(usize),
    /// A task criterion nobody judged.
    UnjudgedTaskCriterion,
}

/// What a round planned but nobody observed: sub-tasks without an outcome and task
/// criteria without a verdict.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unobserved<'a> {
    /// Planned sub-tasks that produced no outcome.
    pub unrun: &'a [UnrunSubTask],
    /// Task criteria nobody judged.
    pub unjudged_task_criteria: &'a [Criterion],
}

/// One failure that raises D.
#[derive(Clone, Debug, PartialEq)]
pub struct FailedUnit {
    /// The criterion text, or what failed when there is no criterion.
    pub criterion: String,
    /// Contribution to D's numerator, in (0, 1].
    pub weight: f64,
    /// How it weighs in P.
    pub class: UnitClass,
    /// Where it came from.
    pub source: UnitSource,
}

/// D and P of one round with what they were computed from.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// D, in [0, 1].
    pub d: f64,
    /// P, in [0, 1].
    pub p: f64,
    /// Σ of the failed units' weights (D's numerator).
    pub weighted_failures: f64,
    /// Σ w over every unit (D's denominator).
    pub total_weight: f64,
    /// Logical and environmental counts behind P (halves from mixed units).
    pub logical: f64,
    /// Environmental counts behind P (halves from mixed units).
    pub environmental: f64,
    /// Every failed unit, in the order they were found.
    pub failed: Vec<FailedUnit>,
}

impl Assessment {
    /// Majority of the failed units; a tie (or nothing failed) is `mixed`.
    pub fn failure_class(&self) -> MixedFailureClass {
        if self.logical > self.environmental {
            MixedFailureClass::Logical
        } else if self.environmental > self.logical {
            MixedFailureClass::Environmental
        } else {
            MixedFailureClass::Mixed
        }
    }

    /// The failed unit contributing most to D (the first of equals); empty if none.
    pub fn primary_criterion(&self) -> &str {
        self.failed
            .iter()
            .fold(None::<&FailedUnit>, |best, u| match best {
                Some(b) if b.weight >= u.weight => Some(b),
                _ => Some(u),
            })
            .map_or("", |u| u.criterion.as_str())
    }
}

/// D and P over every verdict of a round in which everything planned was observed.
/// `outcomes` are all sub-task outcomes of the round (failed and matched); `rejection`
/// is R4b's gap summary when the round was rejected (`ReplanRequest`), `None` when R4b
/// accepted it.
pub fn assess<'a>(
    outcomes: impl IntoIterator<Item = &'a SubTaskOutcome>,
    task_criteria_verdicts: &[CriterionVerdict],
    rejection: Option<&str>,
) -> Assessment {
    assess_round(
        outcomes,
        task_criteria_verdicts,
        Unobserved::default(),
        rejection,
    )
}

/// [`assess`] with what the round planned but never observed (see the module docs).
pub fn assess_round<'a>(
    outcomes: impl IntoIterator<Item = &'a SubTaskOutcome>,
    task_criteria_verdicts: &[CriterionVerdict],
    unobserved: Unobserved<'_>,
    rejection: Option<&str>,
) -> Assessment {
    let mut units = Units::default();
    for (idx, outcome) in outcomes.into_iter().enumerate() {
        units.add_outcome(idx, outcome);
    }
    units.add_task_verdicts(task_criteria_verdicts);
    units.add_unobserved(&unobserved);
    if let Some(gap) = rejection
        && units.failed.is_empty()
    {
        units.total_weight += 1.0;
        units.failed.push(FailedUnit {
            criterion: if gap.trim().is_empty() {
                "R4b rejected the round".to_string()
            } else {
                gap.to_string()
            },
            weight: 1.0,
            class: UnitClass::Unclassified,
            source: UnitSource::Rejection,
        });
    }
    units.into_assessment()
}

/// The logical units of a round counted so far, in the order [`assess_round`] visits
/// them (sub-tasks, task criteria, unobserved work, a bare rejection).
#[derive(Default)]
struct Units {
    total_weight: f64,
    failed: Vec<FailedUnit>,
}

impl Units {
    /// One sub-task's verdicts, plus one unit when it failed without a failing verdict.
    fn add_outcome(&mut self, idx: usize, outcome: &SubTaskOutcome) {
        let last_class = outcome
            .gap_trajectory
            .last()
            .and_then(|p| p.failure_class)
            .map(UnitClass::from_mixed);
        let mut any_failed_verdict = false;
        for verdict in &outcome.criteria_verdicts {
            self.total_weight += 1.0;
            if !verdict.failed() {
                continue;
            }
            any_failed_verdict = true;
            let weight = match verdict.effective_mode() {
                CriterionMode::Verifiable => 1.0,
                CriterionMode::Plausible => {
                    let (k, n) = outcome.failure_count(&verdict.criterion);
                    trajectory_consistency(k, n)
                }
            };
            let class = verdict
                .failure_class
                .map(UnitClass::from)
                .or(last_class)
                .unwrap_or(UnitClass::Unclassified);
            self.failed.push(FailedUnit {
                criterion: verdict.criterion.clone(),
                weight,
                class,
                source: UnitSource::SubTaskCriterion(idx),
            });
        }
        let sub_task_failed = outcome.status == SubTaskStatus::Failed;
        if outcome.criteria_verdicts.is_empty() {
            self.total_weight += 1.0;
        } else if sub_task_failed && !any_failed_verdict {
            // The verdicts say nothing failed yet the sub-task did: one more unit.
            self.total_weight += 1.0;
        }
        if sub_task_failed && !any_failed_verdict {
            let class = last_class.unwrap_or_else(|| {
                let env = outcome
                    .tool_calls
                    .iter()
                    .any(|c| matches!(c.status, ToolCallStatus::Error | ToolCallStatus::Denied));
                if env {
                    UnitClass::Environmental
                } else {
                    UnitClass::Unclassified
                }
            });
            self.failed.push(FailedUnit {
                criterion: outcome
                    .failure_reason
                    .clone()
                    .filter(|r| !r.trim().is_empty())
                    .unwrap_or_else(|| format!("sub-task {} failed", outcome.subtask_id)),
                weight: 1.0,
                class,
                source: UnitSource::SubTask(idx),
            });
        }
    }

    /// R4b's verdicts on the task criteria: one unit each.
    fn add_task_verdicts(&mut self, verdicts: &[CriterionVerdict]) {
        for verdict in verdicts {
            self.total_weight += 1.0;
            if verdict.failed() {
                self.failed.push(FailedUnit {
                    criterion: verdict.criterion.clone(),
                    weight: 1.0,
                    class: verdict
                        .failure_class
                        .map(UnitClass::from)
                        .unwrap_or(UnitClass::Unclassified),
                    source: UnitSource::TaskCriterion,
                });
            }
        }
    }

    /// Planned but never observed: each criterion of an unrun sub-task (or the sub-task
    /// itself when its criteria are unknown) and each unjudged task criterion fails.
    fn add_unobserved(&mut self, unobserved: &Unobserved<'_>) {
        for (idx, unrun) in unobserved.unrun.iter().enumerate() {
            let why = if unrun.reason.trim().is_empty() {
                format!("sub-task {} produced no outcome", unrun.subtask_id)
            } else {
                unrun.reason.trim().to_string()
            };
            let units: Vec<String> = if unrun.success_criteria.is_empty() {
                vec![why]
            } else {
                unrun
                    .success_criteria
                    .iter()
                    .map(|c| format!("{} (not shown: {why})", c.criterion))
                    .collect()
            };
            for criterion in units {
                self.total_weight += 1.0;
                self.failed.push(FailedUnit {
                    criterion,
                    weight: 1.0,
                    class: UnitClass::Unobserved,
                    source: UnitSource::UnrunSubTask(idx),
                });
            }
        }
        for criterion in unobserved.unjudged_task_criteria {
            self.total_weight += 1.0;
            self.failed.push(FailedUnit {
                criterion: format!("{} (not judged)", criterion.criterion),
                weight: 1.0,
                class: UnitClass::Unobserved,
                source: UnitSource::UnjudgedTaskCriterion,
            });
        }
    }

    fn into_assessment(self) -> Assessment {
        let Units {
            total_weight,
            failed,
        } = self;
        let weighted_failures: f64 = failed.iter().map(|u| u.weight).sum();
        let (logical, environmental) = failed.iter().fold((0.0, 0.0), |(l, e), u| {
            let (dl, de) = u.class.shares();
            (l + dl, e + de)
        });
        let d = if total_weight > 0.0 {
            unit_interval(weighted_failures / total_weight)
        } else {
            0.0
        };
        let p = if logical + environmental > 0.0 {
            unit_interval(logical / (logical + environmental))
        } else {
            0.0
        };
        Assessment {
            d,
            p,
            weighted_failures,
            total_weight,
            logical,
            environmental,
            failed,
        }
    }
}

/// k/N for a plausible criterion whose final verdict failed: the final verdict is one
/// failing attempt, so k is at least 1 and N at least k.
pub fn trajectory_consistency(k: usize, n: usize) -> f64 {
    let k = k.max(1);
    let n = n.max(k);
    k as f64 / n as f64
}

/// How much of a task's budgets a point of its run has used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spent {
    /// Replans so far.
    pub replans: u32,
    /// Replans the task may make (`budgets.max_replans`).
    pub max_replans: u32,
    /// Time since the submit, in milliseconds.
    pub elapsed_ms: u64,
    /// The task's own time budget (fixed in the settings or derived from the model's
    /// speed when it was submitted), in milliseconds.
    pub budget_ms: u64,
}

/// Ω = w₁·replans/maxReplans + w₂·elapsed/time_budget, clamped to [0, 1].
pub fn resource_cost(spent: Spent, params: &GgsParams) -> f64 {
    let replan_share = f64::from(spent.replans) / f64::from(spent.max_replans.max(1));
    let time_share = spent.elapsed_ms as f64 / spent.budget_ms.max(1) as f64;
    unit_interval(params.w1 * replan_share + params.w2 * time_share)
}

/// L = αD + β(1 − Ω)P + λΩ.
pub fn total_loss(d: f64, p: f64, omega: f64, params: &GgsParams) -> Loss {
    let beta_eff = params.beta * (1.0 - omega);
    Loss {
        d,
        p,
        omega,
        l: params.alpha * d + beta_eff * p + params.lambda * omega,
    }
}

/// ∇L = L − L_prev; 0 on the first round (no L_prev).
pub fn gradient(l: f64, l_prev: Option<f64>) -> f64 {
    l_prev.map_or(0.0, |prev| l - prev)
}

fn unit_interval(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::{Criterion, GapPoint, SubTaskId, TaskId, ToolCallRecord, Verdict};
    use crate::tools::ToolName;

    fn verdict(c: &str, v: Verdict, class: Option<FailureClass>) -> CriterionVerdict {
        let mut verdict = CriterionVerdict::for_criterion(&Criterion::new(c), v);
        verdict.failure_class = class;
        verdict
    }

    fn outcome(status: SubTaskStatus, verdicts: Vec<CriterionVerdict>) -> SubTaskOutcome {
        SubTaskOutcome {
            subtask_id: SubTaskId::mint(),
            parent_task_id: TaskId::from_existing("t"),
            status,
            output: serde_json::Value::Null,
            failure_reason: None,
            gap_trajectory: vec![],
            criteria_verdicts: verdicts,
            tool_calls: vec![],
        }
    }

    #[test]
    fn trajectory_consistency_is_k_over_n_with_the_final_failure_counted() {
        assert_eq!(trajectory_consistency(2, 4), 0.5);
        assert_eq!(trajectory_consistency(3, 3), 1.0);
        assert_eq!(trajectory_consistency(0, 0), 1.0);
        assert_eq!(trajectory_consistency(0, 2), 0.5);
    }

    #[test]
    fn nothing_observed_and_nothing_rejected_is_zero_distance() {
        let a = assess([], &[], None);
        assert_eq!((a.d, a.p, a.total_weight), (0.0, 0.0, 0.0));
        assert_eq!(a.failure_class(), MixedFailureClass::Mixed);
        assert_eq!(a.primary_criterion(), "");
    }

    #[test]
    fn a_rejection_without_any_failing_verdict_still_counts_as_a_failure() {
        let matched = outcome(
            SubTaskStatus::Matched,
            vec![verdict("listed", Verdict::Pass, None)],
        );
        let a = assess([&matched], &[], Some("merged output lacks sizes"));
        // D = 1 / (1 + 1) = 0.5; the only failed unit is unclassified → P = 0.5.
        assert_eq!(a.d, 0.5);
        assert_eq!(a.p, 0.5);
        assert_eq!(a.primary_criterion(), "merged output lacks sizes");
        assert_eq!(a.failed[0].source, UnitSource::Rejection);
    }

    #[test]
    fn a_failed_sub_task_with_only_passing_verdicts_adds_one_failed_unit() {
        let mut o = outcome(
            SubTaskStatus::Failed,
            vec![verdict("a", Verdict::Pass, None)],
        );
        o.failure_reason = Some("executor timed out".into());
        o.tool_calls.push(ToolCallRecord {
            tool: ToolName::Shell.into(),
            input: serde_json::json!({"command": "sleep 99"}),
            target: "sleep 99".into(),
            output_head: String::new(),
            status: ToolCallStatus::Error,
            error: Some("timeout".into()),
            duration_ms: 30_000,
            confirmation: None,
            failure: None,
            failed_exit: None,
            effects: Vec::new(),
            grant: None,
        });
        let a = assess([&o], &[], Some("1/1 failed"));
        // Units: "a" passed (w 1) + the sub-task itself failed (w 1): D = 1/2.
        assert_eq!(a.d, 0.5);
        assert_eq!(a.failed.len(), 1);
        assert_eq!(a.failed[0].class, UnitClass::Environmental);
        assert_eq!(a.p, 0.0);
        assert_eq!(a.primary_criterion(), "executor timed out");
    }

    #[test]
    fn the_last_attempts_class_classifies_an_unclassified_verdict() {
        let mut o = outcome(
            SubTaskStatus::Failed,
            vec![verdict("a", Verdict::Fail, None)],
        );
        o.gap_trajectory.push(GapPoint {
            attempt: 1,
            score: 0.0,
            unmet_criteria: vec!["a".into()],
            failure_class: Some(MixedFailureClass::Logical),
        });
        let a = assess([&o], &[], Some("gap"));
        assert_eq!(a.failed[0].class, UnitClass::Logical);
        assert_eq!(a.p, 1.0);
        assert_eq!(a.failure_class(), MixedFailureClass::Logical);
    }

    #[test]
    fn a_partly_run_plan_counts_every_unrun_criterion_and_unjudged_task_criterion() {
        // Four parallel look-ups, one failed environmentally; the report-writing sub-task
        // of the next group never ran and the task criterion was never judged.
        let mut lookups: Vec<SubTaskOutcome> = (0..3)
            .map(|i| {
                outcome(
                    SubTaskStatus::Matched,
                    vec![verdict(&format!("found {i}"), Verdict::Pass, None)],
                )
            })
            .collect();
        lookups.push(outcome(
            SubTaskStatus::Failed,
            vec![verdict(
                "found 3",
                Verdict::Fail,
                Some(FailureClass::Environmental),
            )],
        ));
        let seen = assess(lookups.iter(), &[], Some("1 of 4 failed"));
        assert_eq!(seen.d, 0.25, "what the code saw before: within δ");

        let unrun = [UnrunSubTask {
            subtask_id: SubTaskId::mint(),
            success_criteria: vec![Criterion::new("report.txt exists")],
            reason: "group 1 failed".into(),
        }];
        let task_criteria = [Criterion::new("report.txt lists every finding")];
        let a = assess_round(
            lookups.iter(),
            &[],
            Unobserved {
                unrun: &unrun,
                unjudged_task_criteria: &task_criteria,
            },
            Some("1 of 4 failed"),
        );
        // 4 look-up criteria (1 failed) + 1 unrun criterion + 1 unjudged task criterion.
        assert_eq!(a.d, 3.0 / 6.0);
        assert_eq!(a.failed.len(), 3);
        // P stays what was observed: the one environmental failure.
        assert_eq!(a.p, 0.0);
        assert_eq!(a.failure_class(), MixedFailureClass::Environmental);
        assert_eq!(a.primary_criterion(), "found 3");
        assert!(a.failed[1].criterion.starts_with("report.txt exists"));
        assert_eq!(a.failed[1].source, UnitSource::UnrunSubTask(0));
        assert_eq!(a.failed[2].source, UnitSource::UnjudgedTaskCriterion);
    }

    #[test]
    fn an_unrun_sub_task_with_unknown_criteria_is_one_unit() {
        let unrun = [UnrunSubTask {
            subtask_id: SubTaskId::mint(),
            success_criteria: vec![],
            reason: String::new(),
        }];
        let a = assess_round(
            [],
            &[],
            Unobserved {
                unrun: &unrun,
                unjudged_task_criteria: &[],
            },
            Some("silent"),
        );
        assert_eq!((a.d, a.p, a.failed.len()), (1.0, 0.0, 1));
        assert!(a.primary_criterion().contains("produced no outcome"));
    }

    #[test]
    fn omega_is_clamped_and_survives_degenerate_budgets() {
        let params = GgsParams::default();
        let spent = Spent {
            replans: 10,
            max_replans: 3,
            elapsed_ms: 10_000_000,
            budget_ms: 120_000,
        };
        assert_eq!(resource_cost(spent, &params), 1.0);
        let degenerate = Spent {
            replans: 0,
            max_replans: 0,
            elapsed_ms: 0,
            budget_ms: 0,
        };
        assert!((0.0..=1.0).contains(&resource_cost(degenerate, &params)));
    }

    #[test]
    fn omega_s_time_term_is_measured_against_the_task_s_own_budget() {
        let params = GgsParams::default();
        let at = |budget_ms| Spent {
            replans: 0,
            max_replans: 3,
            elapsed_ms: 60_000,
            budget_ms,
        };
        // One minute is half of a two-minute budget and a sixth of a six-minute one.
        assert!((resource_cost(at(120_000), &params) - params.w2 * 0.5).abs() < 1e-9);
        assert!((resource_cost(at(360_000), &params) - params.w2 / 6.0).abs() < 1e-9);
    }
}
