//! Per-task GGS state and the processing of one round: loss, gradient, decision, and the
//! messages that follow from it (a `PlanDirective` with its action Megrams, a
//! `FinalResult` with its terminal Megram, or an abandon waiting for R2's graceful
//! failure).
//!
//! Kept per task across rounds: L_prev, the consecutive-worsening count, the replans
//! directed, the previous directive (`init` before the first), the failed inputs of every
//! round (deduplicated by target, first-seen order), the calls Law 1 denied, the Law 1
//! gates that fired, the matched outputs seen so far, and the last elapsed time R4b
//! reported. A round with a denial never gets refine or change_path: the user's no is
//! final for the task, so the approach is blocked rather than retried on a new target.
//!
//! A round's D counts what it planned but never observed: R4b's `unrun_subtasks` and
//! `unjudged_task_criteria`, and any sub-task it names as failed without an outcome
//! (see [`loss`]).
//!
//! Terminal Megrams follow the quantization matrix, with one exception for Law 3: an
//! abandon whose last round was within the convergence threshold (D ≤ δ, so only the
//! budget Ω ≥ θ stopped it) writes no terminal Megram. The approach did not fail; a
//! σ −1 "abandon" on the task's kind would teach memory to avoid what worked.
//!
//! **Invariant:** no IO and no awaiting — the role task does the publishing; a round
//! yields exactly one [`Step`], and only terminal steps carry a `FinalResult`.

use chrono::{DateTime, Utc};

use super::decide::{self, Decision, Inputs};
use super::evidence::{self, FailedInput};
use super::feedback::{self, Feedback, PreferredRule};
use super::grounding;
use super::loss::{self, Assessment, Unobserved};
use super::writes;
use crate::config::{Budgets, GgsParams};
use crate::contracts::Law1Tally;
use crate::contracts::{
    Criterion, CriterionVerdict, FinalResult, Loss, MacroState, MatchedOutput, Megram,
    MemoryRecall, OutcomeSummary, PathEffect, PlanDirective, PlanningFailed, PrevDirective,
    Recommendation, ReplanDirective, ReplanRequest, SubTaskOutcome, SubTaskStatus, TaskId,
    ToolCallRecord, UnrunSubTask,
};
mod terminal;
pub use terminal::PendingAbandon;

/// At most this many matched outputs are kept per task for a graceful failure.
pub const MAX_MATCHED_OUTPUTS: usize = 8;

/// The hyper-parameters and budgets GGS runs with (from `Config.ggs` and
/// `Config.budgets`).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// GGS's thresholds and weights.
    pub params: GgsParams,
    /// What one task may spend.
    pub budgets: Budgets,
    /// The longest time budget a task can get ([`crate::config::Config::longest_task_budget`]),
    /// in milliseconds: Ω's yardstick for a task whose submission named none.
    pub longest_budget_ms: u64,
}

/// What R4b reported for a round.
#[derive(Clone, Copy, Debug)]
pub enum Observation<'a> {
    /// The round missed its criteria.
    Rejected(&'a ReplanRequest),
    /// Every sub-task matched and R4b accepted the merged output.
    Accepted(&'a OutcomeSummary),
}

/// What the role must do after a round.
#[derive(Debug)]
pub enum Step {
    /// Send the task back to R2, write one Megram per failed input of the round, and
    /// ask R5 for negative feedback against each followed Best Practice.
    Replan {
        /// The directive to R2.
        directive: PlanDirective,
        /// One Megram per failed input of the round.
        megrams: Vec<Megram>,
        /// Negative feedback against each Best Practice the round followed.
        feedback: Vec<Feedback>,
    },
    /// Deliver the result and write the terminal Megram.
    Finish(Finish),
    /// Ask R2 for the graceful-failure part, then [`PendingAbandon::complete`].
    Abandon(PendingAbandon),
}

/// A terminal result and its Megram (none for an abandon within δ, see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Finish {
    /// The result to deliver.
    pub result: FinalResult,
    /// The terminal Megram; None for an abandon within δ.
    pub megram: Option<Megram>,
    /// Negative feedback against the Best Practices a failed last round followed.
    pub feedback: Vec<Feedback>,
}

/// The GGS state of one task.
#[derive(Clone, Debug)]
pub struct TaskState {
    task_id: TaskId,
    intent: String,
    l_prev: Option<f64>,
    worsening_streak: u32,
    replans: u32,
    prev_directive: PrevDirective,
    blocked: Vec<FailedInput>,
    /// Calls Law 1 denied in this task: final, so their targets stay blocked whatever
    /// the directive.
    denied: Vec<FailedInput>,
    law1: Law1Tally,
    matched: Vec<MatchedOutput>,
    last_elapsed_ms: u64,
    last_seen: DateTime<Utc>,
    /// When the user submitted the task (from its `TaskSubmitted`): Ω's elapsed term runs
    /// from here, not from the first plan.
    submitted_at: Option<DateTime<Utc>>,
    /// The user's words, from the task's budget announcement.
    raw_input: String,
    /// The task's own time budget, from its submission (0 until then).
    budget_ms: u64,
    /// The time the task has waited for the user so far ([`crate::lifecycle`]): none
    /// of it is the task's, so Ω's elapsed term leaves it out.
    person_ms: u64,
    /// The last round's D and P, for a budget abandon between rounds.
    last_dp: Option<(f64, f64)>,
    /// The Best Practices R2 was told to prefer for round `preferred_round`.
    preferred: Vec<PreferredRule>,
    preferred_round: u32,
    /// What the task's calls did to files, in order, each path once (its latest effect
    /// on top of the first: a file created then appended to stays "create").
    effects: Vec<PathEffect>,
    /// The standing grants by effect that approved calls of the task, in words.
    grants: Vec<String>,
    /// What the task's file tools reported they did, line by line, each line once.
    account: Vec<String>,
    /// The schedule's run, when a schedule started the task (its result says so).
    pub scheduled: Option<crate::contracts::ScheduledRun>,
}

impl TaskState {
    /// The state of a task GGS has just heard of.
    pub fn new(task_id: TaskId, intent: &str, now: DateTime<Utc>) -> Self {
        Self {
            submitted_at: None,
            raw_input: String::new(),
            budget_ms: 0,
            person_ms: 0,
            last_dp: None,
            task_id,
            intent: intent.trim().to_string(),
            l_prev: None,
            worsening_streak: 0,
            replans: 0,
            prev_directive: PrevDirective::Init,
            blocked: Vec::new(),
            denied: Vec::new(),
            law1: Law1Tally::default(),
            matched: Vec::new(),
            last_elapsed_ms: 0,
            last_seen: now,
            preferred: Vec::new(),
            preferred_round: 0,
            effects: Vec::new(),
            grants: Vec::new(),
            account: Vec::new(),
            scheduled: None,
        }
    }

    /// A standing grant by effect that let a call of the task run without asking.
    pub fn note_grant(&mut self, words: &str) {
        if !self.grants.iter().any(|g| g == words) {
            self.grants.push(words.to_string());
        }
    }

    /// The standing grants by effect that let calls of the task run without asking.
    pub fn grants(&self) -> &[String] {
        &self.grants
    }

    /// A tool call's measured effects on files (GGS hears every call).
    pub fn note_effects(&mut self, effects: &[PathEffect]) {
        for e in effects {
            if !self.effects.iter().any(|known| known.path == e.path) {
                self.effects.push(e.clone());
            }
        }
    }

    /// What the task did to files so far.
    pub fn effects(&self) -> &[PathEffect] {
        &self.effects
    }

    /// A tool call of the task: its measured effects, the standing grant that let it
    /// run, and what it `reported` doing ([`evidence::reported`]; GGS hears every call).
    pub fn note_call(&mut self, record: &ToolCallRecord, reported: &[String]) {
        self.note_effects(&record.effects);
        if let Some(grant) = &record.grant {
            self.note_grant(grant);
        }
        self.note_account(reported);
    }

    /// Lines of the tools' account of the task, each kept once, in order.
    pub fn note_account(&mut self, lines: &[String]) {
        for line in lines {
            if !self.account.contains(line) {
                self.account.push(line.clone());
            }
        }
    }

    /// What the task's file tools reported they did so far.
    pub fn account(&self) -> &[String] {
        &self.account
    }

    /// R2's account of what memory made it prefer for a round (one per group).
    pub fn recalled(&mut self, recall: &MemoryRecall) {
        if recall.round != self.preferred_round {
            self.preferred.clear();
            self.preferred_round = recall.round;
        }
        for rule in feedback::preferred_rules(recall) {
            if !self.preferred.iter().any(|r| r.id == rule.id) {
                self.preferred.push(rule);
            }
        }
    }

    /// The task.
    pub fn task_id(&self) -> &TaskId {
        &self.task_id
    }

    /// The task's intent, trimmed; empty when it was not known.
    pub fn intent(&self) -> &str {
        &self.intent
    }

    /// Replans directed so far.
    pub fn replans(&self) -> u32 {
        self.replans
    }

    /// L of the previous round; None before the first decision.
    pub fn l_prev(&self) -> Option<f64> {
        self.l_prev
    }

    /// Consecutive rounds in which ∇L was worsening.
    pub fn worsening_streak(&self) -> u32 {
        self.worsening_streak
    }

    /// The directive the current round runs under.
    pub fn prev_directive(&self) -> PrevDirective {
        self.prev_directive
    }

    /// Every failed input of the task so far, deduplicated, in first-seen order.
    pub fn blocked_targets(&self) -> Vec<String> {
        self.blocked.iter().map(|b| b.target.clone()).collect()
    }

    /// Ω's clock starts at the submit and runs against the task's own budget; the
    /// user's words are evidence for the answer.
    pub fn set_submitted(&mut self, at: DateTime<Utc>, raw_input: &str, budget_ms: u64) {
        self.submitted_at = Some(at);
        self.raw_input = raw_input.trim().to_string();
        self.budget_ms = budget_ms;
    }

    /// What the task has used of its budgets at `elapsed_ms`. A task whose submission
    /// carried no budget (records older than that field) is measured against the
    /// longest budget the settings allow.
    fn spent(&self, elapsed_ms: u64, settings: &Settings) -> loss::Spent {
        let budget_ms = match self.budget_ms {
            0 => settings.longest_budget_ms,
            ms => ms,
        };
        loss::Spent {
            replans: self.replans,
            max_replans: settings.budgets.max_replans,
            elapsed_ms,
            budget_ms,
        }
    }

    /// The answer's numbers, paths and file names that no tool output (nor the user's
    /// words) shows (Law 0): named beside the answer, never glued into it.
    fn unverified(
        &self,
        summary: &str,
        output: &serde_json::Value,
        outcomes: &[&SubTaskOutcome],
    ) -> Vec<String> {
        let output_text = match output {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => String::new(),
            other => other.to_string(),
        };
        let answer = format!("{summary}\n{output_text}");
        let calls: Vec<&ToolCallRecord> = outcomes
            .iter()
            .flat_map(|o| o.tool_calls.iter())
            .filter(|c| c.grounds())
            .collect();
        let outputs: Vec<&str> = calls.iter().map(|c| c.output_head.as_str()).collect();
        let inputs: Vec<String> = calls.iter().map(|c| c.input.to_string()).collect();
        let mut words: Vec<&str> = calls.iter().map(|c| c.target.as_str()).collect();
        words.extend(inputs.iter().map(String::as_str));
        words.push(&self.intent);
        words.push(&self.raw_input);
        grounding::unverified(&answer, &outputs, &words)
    }

    /// Milliseconds since the submit, when known.
    /// The task's own time since it was submitted: the wall time less the time it
    /// waited for the user.
    fn since_submit_ms(&self, now: DateTime<Utc>) -> Option<u64> {
        self.submitted_at.map(|at| {
            u64::try_from((now - at).num_milliseconds())
                .unwrap_or(0)
                .saturating_sub(self.person_ms)
        })
    }

    /// Records how long the task has waited for the user so far.
    pub fn set_person_time(&mut self, waited: std::time::Duration) {
        self.person_ms = u64::try_from(waited.as_millis()).unwrap_or(u64::MAX);
    }

    /// The task's time budget ran out before it ended: abandon now, with what was
    /// matched so far. D and P are the last round's (no round yet: D = 1, and P = 0, since
    /// nothing shows a logical failure — the cause is the budget, and the memory written
    /// must not say otherwise); Ω counts the whole budget as spent.
    pub fn budget_exhausted(
        &mut self,
        budget_ms: u64,
        settings: &Settings,
        now: DateTime<Utc>,
    ) -> PendingAbandon {
        let params = &settings.params;
        let elapsed_ms = self
            .since_submit_ms(now)
            .unwrap_or(0)
            .max(self.last_elapsed_ms)
            .max(budget_ms);
        let (d, p) = self.last_dp.unwrap_or((1.0, 0.0));
        let omega = loss::resource_cost(self.spent(elapsed_ms, settings), params);
        let loss = loss::total_loss(d, p, omega, params);
        let grad_l = loss::gradient(loss.l, self.l_prev);
        self.l_prev = Some(loss.l);
        self.last_elapsed_ms = elapsed_ms;
        self.last_seen = now;
        let seconds = budget_ms as f64 / 1000.0;
        let rationale = format!(
            "The task's time budget ({seconds:.0} s from submit) ran out before it ended; \
             abandoning at once with what was done, D={:.3}, P={:.3}, Ω={:.3} after {} \
             replan(s). [L={:.3}, ∇L={grad_l:+.3}]",
            loss.d, loss.p, loss.omega, self.replans, loss.l
        );
        let summary_reason = format!("the time budget of {seconds:.0} s ran out");
        // The next moves are about time (out_of_time), not about this as a criterion.
        let criterion = String::new();
        let mut pending = self.pending_abandon(AbandonParts {
            loss,
            grad_l,
            rationale,
            summary_reason,
            failures: vec![summary_reason_line(seconds)],
            failed_criterion: criterion,
            within_threshold: self.last_dp.is_some() && decide::within_threshold(loss.d, params),
            feedback: Vec::new(),
            params,
            settings,
        });
        pending.out_of_time = true;
        pending
    }

    fn adopt_intent(&mut self, intent: &str) {
        if self.intent.is_empty() && !intent.trim().is_empty() {
            self.intent = intent.trim().to_string();
        }
    }

    /// Processes one round reported by R4b.
    pub fn observe(
        &mut self,
        observation: Observation<'_>,
        settings: &Settings,
        now: DateTime<Utc>,
    ) -> Step {
        let params = &settings.params;
        let max_replans = settings.budgets.max_replans;
        let facts = RoundFacts::of(observation);
        self.adopt_intent(facts.intent);
        let outcomes = facts.outcomes;
        let all_matched = outcomes.iter().all(|o| o.status == SubTaskStatus::Matched);

        let assessment = loss::assess_round(
            outcomes.iter().copied(),
            facts.verdicts,
            Unobserved {
                unrun: &facts.unrun,
                unjudged_task_criteria: facts.unjudged,
            },
            facts.rejection,
        );
        // R4b's clock (from the first plan) only moves forward; a missing elapsed_ms
        // (0) keeps the last one. The task's own clock (from the submit) is the longer
        // one when known. Both leave out the time the task waited for the user.
        let elapsed_ms = facts
            .elapsed_ms
            .max(self.last_elapsed_ms)
            .max(self.since_submit_ms(now).unwrap_or(0));
        let omega = loss::resource_cost(self.spent(elapsed_ms, settings), params);
        let loss = loss::total_loss(assessment.d, assessment.p, omega, params);
        let grad_l = loss::gradient(loss.l, self.l_prev);
        let worsening_streak = if decide::is_worsening(grad_l, params) {
            self.worsening_streak + 1
        } else {
            0
        };
        let inputs = Inputs {
            loss,
            grad_l,
            accepted: matches!(observation, Observation::Accepted(_)) && all_matched,
            worsening_streak,
            replans: self.replans,
            sensor_abandon: facts.sensor_abandon,
        };
        let mut decision = decide::decide(&inputs, params, max_replans);
        let mut rationale = decide::rationale(&decision, &inputs, params, max_replans);
        self.apply_denials(&outcomes, &mut decision, &mut rationale);
        tracing::info!(task = %self.task_id, d = loss.d, p = loss.p, omega = loss.omega,
            l = loss.l, grad_l, state = decision.state.as_str(), "GGS decision");

        self.l_prev = Some(loss.l);
        self.last_dp = Some((loss.d, loss.p));
        self.worsening_streak = worsening_streak;
        self.last_elapsed_ms = elapsed_ms;
        self.last_seen = now;
        self.law1.add(Law1Tally::of(outcomes.iter().copied()));
        let round_inputs = self.block_failed_inputs(&outcomes);
        self.remember_matched(&outcomes);
        let feedback =
            self.failed_round_feedback(&decision, loss, &outcomes, &assessment, params, now);

        let round = Round {
            outcomes: &outcomes,
            assessment: &assessment,
            loss,
            grad_l,
            decision,
            rationale,
            round_inputs,
            worsening_streak,
            gap: facts.rejection,
            feedback,
        };
        match decision.state {
            MacroState::Refine
            | MacroState::ChangePath
            | MacroState::ChangeApproach
            | MacroState::BreakSymmetry => self.replan(round, now),
            MacroState::Accept | MacroState::Success => {
                Step::Finish(self.finish(round, observation, now))
            }
            MacroState::Abandon => Step::Abandon(self.abandon(round, settings)),
        }
    }

    /// Records the round's Law 1 denials and turns a directive that would keep the
    /// denied approach into `change_approach`.
    fn apply_denials(
        &mut self,
        outcomes: &[&SubTaskOutcome],
        decision: &mut Decision,
        rationale: &mut String,
    ) {
        let round_denials = evidence::denials(outcomes);
        for d in &round_denials {
            if !self.denied.iter().any(|b| b.target == d.target) {
                self.denied.push(d.clone());
            }
        }
        // A Law 1 denial is final for the task: the denied approach is blocked, and a
        // new target for the same effect is no way out (the user would only be asked
        // again). So a round with a denial never gets a directive that keeps the
        // approach and changes the target.
        if !round_denials.is_empty()
            && matches!(decision.state, MacroState::Refine | MacroState::ChangePath)
        {
            decision.state = MacroState::ChangeApproach;
            rationale.push_str(
                " The user denied an action this round; a denial is final for the task, so \
                 the approach is blocked (change_approach), not retried on another target.",
            );
        }
    }

    /// The round's failed inputs, each added to the task's blocked list once.
    fn block_failed_inputs(&mut self, outcomes: &[&SubTaskOutcome]) -> Vec<FailedInput> {
        // What the task names is never blocked: the intent R1 wrote and the user's own
        // words (a paraphrase may drop a path the user wrote).
        let task_words = format!("{}\n{}", self.intent, self.raw_input);
        let round_inputs = evidence::failed_inputs(outcomes, &task_words);
        for input in &round_inputs {
            if !self.blocked.iter().any(|b| b.target == input.target) {
                self.blocked.push(input.clone());
            }
        }
        round_inputs
    }

    /// Negative feedback against the Best Practices a failed round followed.
    fn failed_round_feedback(
        &self,
        decision: &Decision,
        loss: Loss,
        outcomes: &[&SubTaskOutcome],
        assessment: &Assessment,
        params: &GgsParams,
        now: DateTime<Utc>,
    ) -> Vec<Feedback> {
        // A round that failed (a replan, or an abandon with D > δ) corrects the Best
        // Practices it followed; the rules of another round say nothing about this one.
        let failed = match decision.state {
            MacroState::Accept | MacroState::Success => false,
            MacroState::Abandon => !decide::within_threshold(loss.d, params),
            _ => true,
        };
        if failed && self.preferred_round == self.replans {
            feedback::against_followed(
                &self.preferred,
                outcomes,
                self.replans,
                assessment.primary_criterion(),
                now,
            )
        } else {
            Vec::new()
        }
    }

    /// R2 could not produce a valid plan: abandon honestly. The planning failure is one
    /// failed logical unit (D = 1, P = 1); the elapsed time is R4b's last report plus
    /// the time since, on the clock GGS was given.
    pub fn planning_failed(
        &mut self,
        failure: &PlanningFailed,
        settings: &Settings,
        now: DateTime<Utc>,
    ) -> PendingAbandon {
        self.adopt_intent(&failure.intent);
        let params = &settings.params;
        let since_ms = u64::try_from((now - self.last_seen).num_milliseconds()).unwrap_or(0);
        let elapsed_ms = self
            .last_elapsed_ms
            .saturating_add(since_ms)
            .max(self.since_submit_ms(now).unwrap_or(0));
        let omega = loss::resource_cost(self.spent(elapsed_ms, settings), params);
        let loss = loss::total_loss(1.0, 1.0, omega, params);
        let grad_l = loss::gradient(loss.l, self.l_prev);
        self.l_prev = Some(loss.l);
        self.last_elapsed_ms = elapsed_ms;
        self.last_seen = now;
        let reason = failure.reason.trim();
        let rationale = format!(
            "R2 could not produce a valid plan for round {}: {reason}. Abandoning honestly with \
             D={:.3}, P={:.3}, Ω={:.3} after {} replan(s). [L={:.3}, ∇L={grad_l:+.3}]",
            failure.round, loss.d, loss.p, loss.omega, self.replans, loss.l
        );
        let summary_reason = format!("no valid plan could be produced ({reason})");
        let criterion = format!("no valid plan: {reason}");
        self.pending_abandon(AbandonParts {
            loss,
            grad_l,
            rationale,
            summary_reason,
            failures: vec![criterion.clone()],
            failed_criterion: criterion,
            within_threshold: false,
            feedback: Vec::new(),
            params,
            settings,
        })
    }

    fn remember_matched(&mut self, outcomes: &[&SubTaskOutcome]) {
        for o in outcomes
            .iter()
            .filter(|o| o.status == SubTaskStatus::Matched)
        {
            if o.output.is_null() || self.matched.iter().any(|m| m.output == o.output) {
                continue;
            }
            self.matched.push(MatchedOutput {
                subtask_id: o.subtask_id,
                output: o.output.clone(),
            });
        }
        let excess = self.matched.len().saturating_sub(MAX_MATCHED_OUTPUTS);
        self.matched.drain(..excess);
    }

    fn replan(&mut self, round: Round<'_>, now: DateTime<Utc>) -> Step {
        let directive = match round.decision.state {
            MacroState::Refine => ReplanDirective::Refine,
            MacroState::ChangePath => ReplanDirective::ChangePath,
            MacroState::ChangeApproach => ReplanDirective::ChangeApproach,
            _ => ReplanDirective::BreakSymmetry,
        };
        let environmental = matches!(
            directive,
            ReplanDirective::Refine | ReplanDirective::ChangePath
        );
        let plan = PlanDirective {
            task_id: self.task_id.clone(),
            loss: round.loss,
            prev_directive: self.prev_directive,
            directive,
            blocked_tools: if environmental {
                Vec::new()
            } else {
                evidence::tools_of_failing(round.outcomes)
            },
            blocked_targets: if environmental {
                self.blocked_targets()
            } else {
                // Denied targets stay blocked whatever the directive.
                self.denied.iter().map(|d| d.target.clone()).collect()
            },
            failed_criterion: round.assessment.primary_criterion().to_string(),
            failure_class: round.assessment.failure_class(),
            budget_pressure: round.loss.omega,
            grad_l: round.grad_l,
            rationale: round.rationale,
            urgency: round.decision.urgency,
            gradient: Some(round.decision.gradient),
            round: self.replans + 1,
        };
        self.prev_directive = directive.into();
        self.replans += 1;
        let megrams =
            writes::action_megrams(round.decision.state, &self.intent, &round.round_inputs, now);
        Step::Replan {
            directive: plan,
            megrams,
            feedback: round.feedback,
        }
    }
}

/// The pieces an abandon is built from.
struct AbandonParts<'a> {
    loss: Loss,
    grad_l: f64,
    rationale: String,
    summary_reason: String,
    failures: Vec<String>,
    failed_criterion: String,
    /// The last round was within δ: only the budget stopped the task.
    within_threshold: bool,
    feedback: Vec<Feedback>,
    params: &'a GgsParams,
    settings: &'a Settings,
}

fn summary_reason_line(seconds: f64) -> String {
    format!("the task did not end within its time budget of {seconds:.0} s")
}

/// What R4b's report of a round says, whichever way the round went.
struct RoundFacts<'a> {
    outcomes: Vec<&'a SubTaskOutcome>,
    verdicts: &'a [CriterionVerdict],
    /// R4b's gap summary of a rejected round.
    rejection: Option<&'a str>,
    elapsed_ms: u64,
    /// R4b recommended abandoning.
    sensor_abandon: bool,
    intent: &'a str,
    unrun: Vec<UnrunSubTask>,
    unjudged: &'a [Criterion],
}

impl<'a> RoundFacts<'a> {
    fn of(observation: Observation<'a>) -> Self {
        match observation {
            Observation::Rejected(r) => RoundFacts {
                outcomes: r.outcomes().collect(),
                verdicts: r.task_criteria_verdicts.as_slice(),
                rejection: Some(r.gap_summary.as_str()),
                elapsed_ms: r.elapsed_ms,
                sensor_abandon: r.recommendation == Recommendation::Abandon,
                intent: r.intent.as_str(),
                unrun: unrun_of(r),
                unjudged: r.unjudged_task_criteria.as_slice(),
            },
            Observation::Accepted(s) => RoundFacts {
                outcomes: s.outcomes.iter().collect(),
                verdicts: s.task_criteria_verdicts.as_slice(),
                rejection: None,
                elapsed_ms: s.elapsed_ms,
                sensor_abandon: false,
                intent: s.intent.as_str(),
                unrun: Vec::new(),
                unjudged: &[],
            },
        }
    }
}

/// Everything of one round the message builders need.
struct Round<'a> {
    outcomes: &'a [&'a SubTaskOutcome],
    assessment: &'a Assessment,
    loss: Loss,
    grad_l: f64,
    decision: Decision,
    rationale: String,
    round_inputs: Vec<FailedInput>,
    worsening_streak: u32,
    /// R4b's gap summary of a rejected round.
    gap: Option<&'a str>,
    feedback: Vec<Feedback>,
}

/// The sub-tasks of a rejected round without an outcome: R4b's `unrun_subtasks`, plus
/// any sub-task it names as failed that has neither an outcome nor an unrun entry.
fn unrun_of(r: &ReplanRequest) -> Vec<UnrunSubTask> {
    let mut unrun = r.unrun_subtasks.clone();
    for id in &r.failed_subtasks {
        let seen =
            r.outcomes().any(|o| o.subtask_id == *id) || unrun.iter().any(|u| u.subtask_id == *id);
        if !seen {
            unrun.push(UnrunSubTask {
                subtask_id: *id,
                success_criteria: Vec::new(),
                reason: format!("sub-task {id} reported no outcome"),
            });
        }
    }
    unrun
}
