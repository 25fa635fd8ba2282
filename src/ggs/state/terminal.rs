//! How a task ends: the accept/success [`Finish`] built from a round, and the abandon
//! that waits on R2's graceful-failure reply ([`PendingAbandon`]) before it becomes one.
//!
//! **Invariant:** pure like the rest of the state — no IO, no clock of its own; every
//! terminal summary carries the Law 1 prefix when a gate fired, and an abandon within δ
//! writes no terminal Megram.

use chrono::{DateTime, Utc};

use super::{AbandonParts, Finish, Observation, Round, Settings, TaskState};
use crate::contracts::{
    FinalResult, GracefulFailure, GracefulFailureRequest, Law1Tally, Loss, MacroState, PathEffect,
    PrevDirective, SubTaskOutcome, SubTaskStatus, TaskId, TerminalDirective,
};
use crate::ggs::decide::{self, Reason};
use crate::ggs::evidence::FailedInput;
use crate::ggs::feedback::Feedback;
use crate::ggs::graceful::{self, FailureFacts, MIN_NEXT_MOVES};
use crate::ggs::loss::Assessment;
use crate::ggs::writes;
use crate::laws::LAW1_PREFIX;
use crate::text::first_chars;

/// At most this many `tool: target` pairs are named in a terminal Megram.
const MAX_TOOLS_NAMED: usize = 5;
/// A target named in a terminal Megram is cut to this many characters.
const TARGET_CHARS_NAMED: usize = 80;

impl TaskState {
    pub(super) fn finish(
        &self,
        round: Round<'_>,
        observation: Observation<'_>,
        now: DateTime<Utc>,
    ) -> Finish {
        let accept = round.decision.state == MacroState::Accept;
        // A success within δ names what it did not meet as data, never in the answer.
        let not_met = if accept {
            Vec::new()
        } else {
            unmet(round.assessment)
        };
        let (summary, output) = match observation {
            Observation::Accepted(s) => {
                let summary = if s.summary.trim().is_empty() {
                    "Done: every sub-task met its criteria and the merged output was accepted."
                        .to_string()
                } else {
                    s.summary.trim().to_string()
                };
                (summary, s.merged_output.clone())
            }
            Observation::Rejected(_) => {
                let matched: Vec<&SubTaskOutcome> = round
                    .outcomes
                    .iter()
                    .copied()
                    .filter(|o| o.status == SubTaskStatus::Matched)
                    .collect();
                let summary = format!(
                    "Done in part: {} of {} sub-task(s) met their criteria.",
                    matched.len(),
                    round.outcomes.len()
                );
                let output = match matched.as_slice() {
                    [] => serde_json::Value::Null,
                    [one] => one.output.clone(),
                    many => {
                        serde_json::Value::Array(many.iter().map(|o| o.output.clone()).collect())
                    }
                };
                (summary, output)
            }
        };
        let unverified = self.unverified(&summary, &output, round.outcomes);
        let summary = law1_marked(self.law1, summary);
        let directive = if accept {
            TerminalDirective::Accept
        } else {
            TerminalDirective::Success
        };
        let used = used_tools(round.outcomes);
        let content = format!(
            "Succeeded ({}, D={:.2}) on \"{}\" after {} replan(s). Used: {}. Result: {}",
            round.decision.state.as_str(),
            round.loss.d,
            self.intent,
            self.replans,
            if used.is_empty() {
                "no tools".to_string()
            } else {
                used
            },
            summary
        );
        Finish {
            result: FinalResult {
                task_id: self.task_id.clone(),
                summary,
                output,
                loss: round.loss,
                grad_l: round.grad_l,
                replans: self.replans,
                prev_directive: self.prev_directive,
                directive,
                next_moves: Vec::new(),
                effects: self.effects().to_vec(),
                grants: self.grants().to_vec(),
                scheduled: self.scheduled.clone().map(Box::new),
                law1: self.law1,
                account: self.account().to_vec(),
                unverified,
                not_met,
            },
            megram: Some(writes::terminal_megram(
                round.decision.state,
                &self.intent,
                &content,
                now,
            )),
            feedback: Vec::new(),
        }
    }

    pub(super) fn abandon(&self, round: Round<'_>, settings: &Settings) -> PendingAbandon {
        let params = &settings.params;
        let loss = round.loss;
        let summary_reason = match round.decision.reason {
            Reason::KillSwitch => format!(
                "the loss worsened on {} consecutive rounds (∇L={:+.3} > ε={}), so Law 2 stopped the run",
                round.worsening_streak, round.grad_l, params.epsilon
            ),
            Reason::ReplanBudget => format!(
                "all {} replans were used and the result is still short (D={:.3} > δ={})",
                settings.budgets.max_replans, loss.d, params.delta
            ),
            Reason::SensorAbandon => match round.gap.map(str::trim).filter(|g| !g.is_empty()) {
                Some(gap) => format!(
                    "the meta-validator advised stopping (D={:.3} > δ={}): {}",
                    loss.d,
                    params.delta,
                    crate::text::first_chars(gap, 400)
                ),
                None => format!(
                    "the meta-validator's plan budget ran out with the result still short (D={:.3} > δ={})",
                    loss.d, params.delta
                ),
            },
            _ => format!(
                "the budget ran out (Ω={:.3} ≥ θ={}) with D={:.3}",
                loss.omega, params.theta, loss.d
            ),
        };
        let mut failures: Vec<String> = round
            .assessment
            .failed
            .iter()
            .map(|u| u.criterion.clone())
            .collect();
        failures.extend(
            self.blocked
                .iter()
                .map(|b| format!("{} on \"{}\": {}", b.tool, b.target, b.why)),
        );
        self.pending_abandon(AbandonParts {
            loss,
            grad_l: round.grad_l,
            rationale: round.rationale,
            summary_reason,
            failures,
            failed_criterion: round.assessment.primary_criterion().to_string(),
            within_threshold: decide::within_threshold(loss.d, params),
            feedback: round.feedback,
            params,
            settings,
        })
    }

    pub(super) fn pending_abandon(&self, parts: AbandonParts<'_>) -> PendingAbandon {
        let spent = self.spent(self.last_elapsed_ms, parts.settings);
        let replan_share =
            f64::from(spent.replans) / f64::from(spent.max_replans.max(1)) * parts.params.w1;
        let time_share = spent.elapsed_ms as f64 / spent.budget_ms.max(1) as f64 * parts.params.w2;
        PendingAbandon {
            request: GracefulFailureRequest {
                task_id: self.task_id.clone(),
                intent: self.intent.clone(),
                reason: parts.rationale,
                matched_outputs: self.matched.clone(),
                failures: parts.failures,
            },
            summary_reason: parts.summary_reason,
            loss: parts.loss,
            grad_l: parts.grad_l,
            replans: self.replans,
            prev_directive: self.prev_directive,
            law1: self.law1,
            failed_inputs: self.blocked.clone(),
            failed_criterion: parts.failed_criterion,
            out_of_time: time_share > replan_share,
            effects: self.effects().to_vec(),
            grants: self.grants().to_vec(),
            account: self.account().to_vec(),
            words: format!("{}\n{}", self.intent, self.raw_input),
            scheduled: self.scheduled.clone(),
            elapsed_ms: self.last_elapsed_ms,
            within_threshold: parts.within_threshold,
            feedback: parts.feedback,
        }
    }
}

/// An abandon waiting for R2's graceful-failure reply (or the timeout).
#[derive(Clone, Debug)]
pub struct PendingAbandon {
    /// The request to publish to R2.
    pub request: GracefulFailureRequest,
    summary_reason: String,
    loss: Loss,
    grad_l: f64,
    replans: u32,
    prev_directive: PrevDirective,
    law1: Law1Tally,
    failed_inputs: Vec<FailedInput>,
    failed_criterion: String,
    pub(super) out_of_time: bool,
    elapsed_ms: u64,
    within_threshold: bool,
    feedback: Vec<Feedback>,
    /// What the task did to files before it was abandoned.
    effects: Vec<PathEffect>,
    /// The standing grants by effect that approved its calls.
    grants: Vec<String>,
    /// What its file tools reported they did.
    account: Vec<String>,
    /// The task's intent and the user's words.
    words: String,
    /// The schedule's run, when a schedule started the task.
    scheduled: Option<crate::contracts::ScheduledRun>,
}

impl PendingAbandon {
    /// The task being abandoned.
    pub fn task_id(&self) -> &TaskId {
        &self.request.task_id
    }

    /// The task's intent and the user's words: what R2's next moves may name.
    pub fn words(&self) -> &str {
        &self.words
    }

    /// The abandon `FinalResult` and its terminal Megram. With R2's reply, its account of
    /// what was accomplished and its next moves are used (topped up to two moves from the
    /// code-built ones); without it (timeout, no planner, empty reply) the code-built
    /// fallback: matched outputs verbatim and concrete next moves.
    pub fn complete(self, reply: Option<&GracefulFailure>, now: DateTime<Utc>) -> Finish {
        let facts = FailureFacts {
            matched_outputs: &self.request.matched_outputs,
            failed_inputs: &self.failed_inputs,
            failed_criterion: &self.failed_criterion,
            law1: self.law1,
            out_of_time: self.out_of_time,
            elapsed_ms: self.elapsed_ms,
            replans: self.replans,
        };
        // With changes on disk, the account of what was accomplished is built by code
        // from the measured effects: a model's "nothing was completed" must never stand
        // beside a file the task made.
        let reply = reply.filter(|r| {
            r.task_id == self.request.task_id
                && !r.accomplished.trim().is_empty()
                && self.effects.is_empty()
        });
        let (accomplished, next_moves) = match reply {
            Some(r) => {
                let mut moves = graceful::dedup(r.next_moves.clone());
                if moves.len() < MIN_NEXT_MOVES {
                    moves.extend(graceful::next_moves(&facts));
                    moves = graceful::dedup(moves);
                }
                (r.accomplished.trim().to_string(), moves)
            }
            None => (
                graceful::accomplished(
                    &self.request.intent,
                    &self.request.matched_outputs,
                    &self.effects,
                ),
                graceful::next_moves(&facts),
            ),
        };
        let summary = law1_marked(
            self.law1,
            format!(
                "Abandoned after {} replan(s): {}. {accomplished}",
                self.replans, self.summary_reason
            ),
        );
        let tried: Vec<String> = self
            .failed_inputs
            .iter()
            .take(MAX_TOOLS_NAMED)
            .map(|b| format!("{}: {}", b.tool, first_chars(&b.target, TARGET_CHARS_NAMED)))
            .collect();
        let content = format!(
            "Failed (abandon) on \"{}\" after {} replan(s): {}. Tried: {}. Gap: {}",
            self.request.intent,
            self.replans,
            self.summary_reason,
            if tried.is_empty() {
                "nothing that failed on a specific input".to_string()
            } else {
                tried.join("; ")
            },
            if self.failed_criterion.is_empty() {
                "-"
            } else {
                &self.failed_criterion
            }
        );
        // Law 3: the budget, not the approach, ended a round within δ; no σ −1 for it.
        let megram = (!self.within_threshold).then(|| {
            writes::terminal_megram(MacroState::Abandon, &self.request.intent, &content, now)
        });
        Finish {
            megram,
            feedback: self.feedback,
            result: FinalResult {
                task_id: self.request.task_id,
                summary,
                output: serde_json::Value::Null,
                loss: self.loss,
                grad_l: self.grad_l,
                replans: self.replans,
                prev_directive: self.prev_directive,
                directive: TerminalDirective::Abandon,
                next_moves,
                effects: self.effects,
                grants: self.grants,
                scheduled: self.scheduled.map(Box::new),
                law1: self.law1,
                account: self.account,
                unverified: Vec::new(),
                not_met: Vec::new(),
            },
        }
    }
}

/// Marks a summary `[LAW1]` (the seed's marker) when any Law 1 gate fired during the
/// task; how each was answered travels as [`FinalResult::law1`].
fn law1_marked(law1: Law1Tally, summary: String) -> String {
    if law1.is_empty() {
        summary
    } else {
        format!("{LAW1_PREFIX} {summary}")
    }
}

/// The criteria the round did not meet.
fn unmet(assessment: &Assessment) -> Vec<String> {
    assessment
        .failed
        .iter()
        .map(|u| u.criterion.clone())
        .collect()
}

/// `tool: target` of the calls that produced output in matched sub-tasks.
fn used_tools(outcomes: &[&SubTaskOutcome]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for call in outcomes
        .iter()
        .filter(|o| o.status == SubTaskStatus::Matched)
        .flat_map(|o| o.tool_calls.iter())
        .filter(|c| c.grounds())
    {
        let named = format!(
            "{}: {}",
            call.tool,
            first_chars(&call.target, TARGET_CHARS_NAMED)
        );
        if !seen.contains(&named) && seen.len() < MAX_TOOLS_NAMED {
            seen.push(named);
        }
    }
    seen.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_marked_law1_only_when_a_gate_fired_and_carries_no_tally() {
        assert_eq!(law1_marked(Law1Tally::default(), "Done.".into()), "Done.");
        for tally in [
            Law1Tally {
                approved: 1,
                denied: 1,
                ..Law1Tally::default()
            },
            Law1Tally {
                granted: 2,
                ..Law1Tally::default()
            },
        ] {
            assert_eq!(law1_marked(tally, "Done.".into()), "[LAW1] Done.");
        }
    }
}
