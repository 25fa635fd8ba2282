//! R4a's decisions as plain state: sub-tasks, attempts and judgements in; corrections,
//! closes, outcomes, attempt deadlines and the judgements to ask the model for out. No
//! bus, no model, no clock: the wiring in `mod.rs` makes the calls and the time.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::judge::{
    absence_shown, absent_named, calls_to_avoid, default_class, failing_verdicts, gap_point,
    ground_in_calls, unmet_summary, verdicts_from,
};
use super::precheck::{self, precheck};
use super::prompt::judgement_prompt;
use super::schema::Judgement;
use crate::actor::Effects;
use crate::checks::criteria::{Outcome, World, by_code_alone, hold_to_checks, with_code_verdicts};
use crate::contracts::{
    CorrectionSignal, Criterion, CriterionVerdict, EnvelopeId, ExecutionResult, ExecutionStatus,
    FailureClass, GapPoint, Role, SubTask, SubTaskClosed, SubTaskId, SubTaskOutcome, SubTaskStatus,
    TaskId, ToolCallRecord, Verdict, without_doubt,
};
use crate::llm::LlmError;
use crate::text::first_chars;

/// One `ExecutionResult` request waiting for an answer.
pub(super) struct Request {
    pub(super) id: EnvelopeId,
    pub(super) from: Role,
    pub(super) result: ExecutionResult,
}

enum Phase {
    /// Waiting for R3's next attempt, at most until the deadline armed last.
    Awaiting,
    /// The model is judging this request.
    Judging { request: Request },
}

/// One open sub-task.
struct Track {
    subtask: SubTask,
    criteria: Vec<Criterion>,
    points: Vec<GapPoint>,
    calls: Vec<ToolCallRecord>,
    last_correction: Option<String>,
    phase: Phase,
    /// Counts the attempt deadlines armed; only the latest one may close the sub-task.
    armed: u32,
    queued: VecDeque<Request>,
}

impl Track {
    fn task(&self) -> &TaskId {
        &self.subtask.parent_task_id
    }

    fn attempts(&self) -> u32 {
        u32::try_from(self.points.len()).unwrap_or(u32::MAX)
    }

    /// Records the next attempt as failed on every criterion for one reason (no model
    /// verdict was possible or needed) and returns how the sub-task closes.
    fn fail_attempt(&mut self, reason: String, class: Option<FailureClass>) -> Closing {
        let verdicts = failing_verdicts(&self.criteria, &reason, class);
        self.points.push(gap_point(self.attempts() + 1, &verdicts));
        Closing::failed(reason, verdicts)
    }
}

/// How a sub-task ends.
struct Closing {
    status: SubTaskStatus,
    output: Value,
    reason: Option<String>,
    verdicts: Vec<CriterionVerdict>,
}

impl Closing {
    /// A failed sub-task: no output travels on (an unvalidated claim is not data).
    fn failed(reason: String, verdicts: Vec<CriterionVerdict>) -> Self {
        Self {
            status: SubTaskStatus::Failed,
            output: Value::Null,
            reason: Some(reason),
            verdicts,
        }
    }
}

/// A model judgement the state asks for: the wiring makes the call and hands the result
/// to [`Validation::on_judged`].
pub(super) struct Judge {
    pub(super) task: TaskId,
    pub(super) subtask: SubTaskId,
    pub(super) prompt: String,
    pub(super) criteria: Vec<Criterion>,
}

/// The criteria the model judges: all but those code judges alone
/// ([`crate::checks::criteria::by_code_alone`]) — all of them if code would judge every
/// one, since a judgement needs a criterion to read.
fn for_the_model(criteria: &[Criterion]) -> Vec<Criterion> {
    let asked: Vec<Criterion> = criteria
        .iter()
        .filter(|c| !by_code_alone(c))
        .cloned()
        .collect();
    if asked.is_empty() {
        criteria.to_vec()
    } else {
        asked
    }
}

/// R3's own doubt is evidence: an attempt it reports `uncertain` does not pass on a
/// model's word. Each criterion the model passed whose check code did not meet (it has
/// none, or code could not tell) fails as logical, with R3's report as the evidence; a
/// criterion code met keeps its pass. So an answer its own executor doubted reaches the
/// user only where code showed it right; otherwise the correction loop runs, and at its
/// end the sub-task closes unmet instead of delivering the doubted answer as done.
fn hold_doubt(
    mut verdicts: Vec<CriterionVerdict>,
    criteria: &[Criterion],
    result: &ExecutionResult,
    world: &World,
) -> Vec<CriterionVerdict> {
    if result.status != ExecutionStatus::Uncertain {
        return verdicts;
    }
    for (verdict, criterion) in verdicts.iter_mut().zip(criteria) {
        let met_by_code = criterion
            .check
            .as_ref()
            .is_some_and(|c| matches!(world.evaluate(c, &result.output), Outcome::Met(_)));
        if verdict.failed() || met_by_code {
            continue;
        }
        verdict.verdict = Verdict::Fail;
        verdict.failure_class = Some(FailureClass::Logical);
        verdict.evidence = format!(
            "the executor reported this attempt uncertain, and no check by code shows the \
             criterion met: {}",
            first_chars(result.output.trim(), 300)
        );
    }
    verdicts
}

/// The attempt deadline of a sub-task: the sub-task and which arming it was.
pub(super) type Timer = (SubTaskId, u32);

/// The effects of one reaction.
pub(super) type Fx = Effects<Timer>;

/// R4a's decisions: plain state, no bus, no model, no clock.
pub(super) struct Validation {
    pub(super) max_retries: u32,
    pub(super) attempt_timeout: Duration,
    /// Where the checks of criteria look.
    world: World,
    tracks: HashMap<SubTaskId, Track>,
    /// The sub-tasks of live tasks that closed, to answer a late or repeated request the
    /// same way; a task's go when it closes.
    closed: HashMap<SubTaskId, SubTaskClosed>,
}

impl Validation {
    pub(super) fn new(max_retries: u32, attempt_timeout: Duration) -> Self {
        Self {
            max_retries,
            attempt_timeout,
            world: World::disk("/"),
            tracks: HashMap::new(),
            closed: HashMap::new(),
        }
    }

    /// The same, its criteria's checks looking in `world`.
    pub(super) fn in_world(self, world: World) -> Self {
        Self { world, ..self }
    }

    /// Drops a closed task's sub-tasks (the runner stopped their model calls).
    pub(super) fn close_task(&mut self, task: &TaskId) {
        self.closed.retain(|_, c| &c.parent_task_id != task);
        self.tracks.retain(|_, t| t.task() != task);
    }

    pub(super) fn open(&mut self, subtask: &SubTask, fx: &mut Fx) {
        if self.tracks.contains_key(&subtask.subtask_id)
            || self.closed.contains_key(&subtask.subtask_id)
        {
            tracing::warn!(subtask = %subtask.subtask_id, "a sub-task was opened twice; the first is kept");
            return;
        }
        let mut track = Track {
            criteria: subtask.criteria_to_judge(),
            subtask: subtask.clone(),
            points: Vec::new(),
            calls: Vec::new(),
            last_correction: None,
            phase: Phase::Awaiting,
            armed: 0,
            queued: VecDeque::new(),
        };
        arm(&mut track, self.attempt_timeout, fx);
        self.tracks.insert(subtask.subtask_id, track);
    }

    /// An attempt from R3: answered at once, or a judgement to make.
    pub(super) fn on_result(
        &mut self,
        request: Request,
        now: DateTime<Utc>,
        fx: &mut Fx,
    ) -> Option<Judge> {
        let id = request.result.subtask_id;
        if let Some(closed) = self.closed.get(&id) {
            // A repeated or late request gets the answer the sub-task closed with.
            fx.reply(request.from, request.id, closed.clone());
            return None;
        }
        let Some(track) = self.tracks.get_mut(&id) else {
            self.close_unknown(request, fx);
            return None;
        };
        if matches!(track.phase, Phase::Judging { .. }) {
            track.queued.push_back(request);
            return None;
        }
        self.judge(id, request, now, fx)
    }

    /// A result for a sub-task the dispatcher never opened: it cannot be judged without
    /// criteria, so it fails honestly instead of waiting.
    fn close_unknown(&mut self, request: Request, fx: &mut Fx) {
        let r = &request.result;
        tracing::warn!(subtask = %r.subtask_id, "a result arrived for a sub-task R4a never received");
        let reason = "the validator never received this sub-task or its criteria from the \
                      dispatcher, so the result could not be judged";
        let outcome = SubTaskOutcome {
            subtask_id: r.subtask_id,
            parent_task_id: r.parent_task_id.clone(),
            status: SubTaskStatus::Failed,
            output: Value::Null,
            failure_reason: Some(reason.to_string()),
            gap_trajectory: vec![GapPoint {
                attempt: 1,
                score: 0.0,
                unmet_criteria: vec![],
                failure_class: None,
            }],
            criteria_verdicts: vec![],
            tool_calls: r.tool_calls.clone(),
        };
        let closed = SubTaskClosed {
            subtask_id: r.subtask_id,
            parent_task_id: r.parent_task_id.clone(),
            status: SubTaskStatus::Failed,
            output: Value::Null,
        };
        // The close before the outcome, as in `close`.
        fx.reply(request.from, request.id, closed.clone());
        self.closed.insert(closed.subtask_id, closed);
        fx.publish(Role::MetaValidator, outcome);
    }

    /// Judges one attempt: the code's immediate rules first, then the model.
    fn judge(
        &mut self,
        id: SubTaskId,
        request: Request,
        now: DateTime<Utc>,
        fx: &mut Fx,
    ) -> Option<Judge> {
        let max_attempts = self.max_retries.saturating_add(1);
        let track = self.tracks.get_mut(&id)?;
        let attempt = track.attempts() + 1;
        if request.result.attempt != attempt {
            tracing::debug!(subtask = %id, executor = request.result.attempt, validator = attempt,
                "attempt numbers differ; R4a counts its own");
        }
        track
            .calls
            .extend(request.result.tool_calls.iter().cloned());
        if let Some(failure) = precheck(&request.result) {
            let closing = track.fail_attempt(failure.reason, Some(failure.class));
            self.close(id, closing, Some(request), fx);
            return None;
        }
        // What code judges alone is not put to the model.
        let asked = for_the_model(&track.criteria);
        let judge = Judge {
            task: track.task().clone(),
            subtask: id,
            prompt: judgement_prompt(
                now,
                &track.subtask,
                &asked,
                &request.result,
                attempt,
                max_attempts,
                track.last_correction.as_deref(),
            ),
            criteria: asked,
        };
        track.phase = Phase::Judging { request };
        Some(judge)
    }

    /// The model's judgement of the attempt being judged: a correction or a close, and
    /// the next queued attempt's judgement, if one waits.
    pub(super) fn on_judged(
        &mut self,
        id: SubTaskId,
        judged: Result<Judgement, LlmError>,
        now: DateTime<Utc>,
        fx: &mut Fx,
    ) -> Option<Judge> {
        let timeout = self.attempt_timeout;
        let track = self.tracks.get_mut(&id)?;
        if !matches!(track.phase, Phase::Judging { .. }) {
            return None;
        }
        arm(track, timeout, fx);
        let Phase::Judging { request } = std::mem::replace(&mut track.phase, Phase::Awaiting)
        else {
            return None;
        };
        let task = track.task().clone();
        let judgement = match judged {
            Ok(j) => j,
            Err(LlmError::Cancelled) => {
                tracing::debug!(subtask = %id, "judgement cancelled with its task");
                self.close_task(&task);
                return None;
            }
            Err(e) => {
                let (reason, class) = model_failure(&e);
                let closing = track.fail_attempt(reason, class);
                self.close(id, closing, Some(request), fx);
                return None;
            }
        };
        let calls = &request.result.tool_calls;
        let asked = for_the_model(&track.criteria);
        let verdicts = match verdicts_from(&asked, &judgement.criteria, default_class(calls)) {
            Ok(verdicts) => with_code_verdicts(
                &track.criteria,
                verdicts,
                &request.result.output,
                &self.world,
            ),
            // The model layer's check already ran this; kept honest if it ever differs.
            Err(problem) => {
                let closing = track.fail_attempt(format!("scoring error: {problem}"), None);
                self.close(id, closing, Some(request), fx);
                return None;
            }
        };
        let given = [
            track.subtask.intent.as_str(),
            track.subtask.context.as_str(),
        ];
        // The answer is held to the calls without R3's doubt line; the doubt is weighed
        // on its own.
        let answer = without_doubt(&request.result.output);
        let verdicts = ground_in_calls(verdicts, calls, answer, &given);
        let verdicts = hold_doubt(verdicts, &track.criteria, &request.result, &self.world);
        let verdicts = absence_shown(verdicts, calls, answer);
        let verdicts = absent_named(verdicts, &track.subtask, calls, answer);
        let verdicts = hold_to_checks(
            verdicts,
            &track.criteria,
            &request.result.output,
            &self.world,
        );
        track
            .points
            .push(gap_point(track.attempts() + 1, &verdicts));
        self.correct_or_close(id, request, &judgement, verdicts, now, fx)
    }

    /// After a usable judgement of the attempt just recorded: close the sub-task as
    /// matched when every criterion passed, close it as failed when a Law 1 denial is
    /// involved or no correction remains, and otherwise reply with a correction.
    fn correct_or_close(
        &mut self,
        id: SubTaskId,
        request: Request,
        judgement: &Judgement,
        verdicts: Vec<CriterionVerdict>,
        now: DateTime<Utc>,
        fx: &mut Fx,
    ) -> Option<Judge> {
        let track = self.tracks.get_mut(&id)?;
        let attempt = track.attempts();
        let Some(first_unmet) = verdicts.iter().find(|v| v.failed()).cloned() else {
            let output = Value::String(request.result.output.clone());
            let matched = Closing {
                status: SubTaskStatus::Matched,
                output,
                reason: None,
                verdicts,
            };
            self.close(id, matched, Some(request), fx);
            return None;
        };
        let what_was_wrong = if judgement.diagnosis.trim().is_empty() {
            unmet_summary(&verdicts)
        } else {
            judgement.diagnosis.trim().to_string()
        };
        let calls = &request.result.tool_calls;
        let denied = precheck::denied_calls(calls);
        if !denied.is_empty() {
            let reason = format!(
                "Law 1: the user did not allow {} — not retried, so the denied action is not \
                 attempted another way; {}",
                denied
                    .iter()
                    .map(|c| format!("`{}: {}`", c.tool, first_chars(&c.target, 120)))
                    .collect::<Vec<_>>()
                    .join(", "),
                first_chars(&what_was_wrong, 300)
            );
            self.close(id, Closing::failed(reason, verdicts), Some(request), fx);
            return None;
        }
        let corrections_made = attempt - 1;
        if corrections_made >= self.max_retries {
            let reason = format!(
                "max retries ({}) reached; last issue: {}",
                self.max_retries,
                first_chars(&what_was_wrong, 400)
            );
            self.close(id, Closing::failed(reason, verdicts), Some(request), fx);
            return None;
        }
        let what_to_do = if judgement.remedy.trim().is_empty() {
            format!(
                "Use a different approach whose tool output shows: {}",
                first_unmet.criterion
            )
        } else {
            judgement.remedy.trim().to_string()
        };
        let correction = CorrectionSignal {
            subtask_id: id,
            parent_task_id: track.task().clone(),
            attempt_number: attempt,
            failed_criterion: first_unmet.criterion.clone(),
            failure_class: first_unmet.failure_class.unwrap_or(FailureClass::Logical),
            what_was_wrong: what_was_wrong.clone(),
            what_to_do,
            calls_to_avoid: calls_to_avoid(calls),
        };
        track.last_correction = Some(what_was_wrong);
        fx.reply(request.from, request.id, correction);
        // A request that arrived while this one was judged is judged next.
        let next = track.queued.pop_front()?;
        self.judge(id, next, now, fx)
    }

    fn close(&mut self, id: SubTaskId, closing: Closing, request: Option<Request>, fx: &mut Fx) {
        let Some(track) = self.tracks.remove(&id) else {
            return;
        };
        let closed = SubTaskClosed {
            subtask_id: id,
            parent_task_id: track.task().clone(),
            status: closing.status,
            output: closing.output.clone(),
        };
        let outcome = SubTaskOutcome {
            subtask_id: id,
            parent_task_id: track.task().clone(),
            status: closing.status,
            output: closing.output,
            failure_reason: closing.reason,
            gap_trajectory: track.points,
            criteria_verdicts: closing.verdicts,
            tool_calls: track.calls,
        };
        match request {
            Some(r) => fx.reply(r.from, r.id, closed.clone()),
            // Nobody asked (the executor went silent): tell the executor side anyway,
            // so its worker and the dispatcher learn the sub-task is over.
            None => fx.publish(Role::Executor, closed.clone()),
        }
        for queued in track.queued {
            fx.reply(queued.from, queued.id, closed.clone());
        }
        self.closed.insert(closed.subtask_id, closed);
        // The outcome last: it can end the round (R4b → R7 → FinalResult) at once, on
        // another thread, so everything else of the sub-task must already be on the bus.
        // R4b waits for the outcome whatever the executor side does meanwhile.
        fx.publish(Role::MetaValidator, outcome);
    }

    /// R3 sent nothing for the sub-task's next attempt in time: it closes as failed. A
    /// deadline armed before the latest one is stale and changes nothing.
    pub(super) fn attempt_overdue(&mut self, (id, armed): Timer, fx: &mut Fx) {
        let Some(track) = self.tracks.get_mut(&id) else {
            return;
        };
        if !matches!(track.phase, Phase::Awaiting) || track.armed != armed {
            return;
        }
        let attempt = track.attempts() + 1;
        let reason = format!(
            "the executor sent no result for attempt {attempt} within {}s",
            self.attempt_timeout.as_secs()
        );
        tracing::warn!(subtask = %id, %reason, "sub-task closed without a result");
        let closing = track.fail_attempt(reason, Some(FailureClass::Environmental));
        self.close(id, closing, None, fx);
    }
}

/// Arms the sub-task's attempt deadline on the task's time (a person answering a
/// question of the attempt spends none of it); any earlier one goes stale.
fn arm(track: &mut Track, timeout: Duration, fx: &mut Fx) {
    track.armed += 1;
    let task = track.subtask.parent_task_id.clone();
    fx.after_task_time(timeout, &task, (track.subtask.subtask_id, track.armed));
}

/// Why the validator's own model call failed, and its class: environmental errors
/// (timeout, unreachable, rate limit …) are infrastructure; an unusable verdict is a
/// scoring error without a class.
fn model_failure(e: &LlmError) -> (String, Option<FailureClass>) {
    if e.is_environmental() {
        (
            format!(
                "infrastructure error: the validator's model call failed: {} ({e})",
                e.plain()
            ),
            Some(FailureClass::Environmental),
        )
    } else {
        (format!("scoring error: {e}"), None)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::super::schema::{CriterionJudgement, UnmetCause};
    use super::*;
    use crate::clock::{Clock, FakeClock};
    use crate::contracts::{ExecutionStatus, Message};

    const CRITERION: &str = "the answer names the largest file";

    fn now() -> DateTime<Utc> {
        FakeClock::at_epoch().now()
    }

    fn subtask() -> SubTask {
        SubTask {
            success_criteria: vec![Criterion::new(CRITERION)],
            ..SubTask::new(TaskId::mint(), 1, "name the largest file")
        }
    }

    /// R3's attempt at `sub`, reporting `status` with no tool call.
    fn attempt(sub: &SubTask, attempt: u32, status: ExecutionStatus) -> Request {
        let mut result = fixtures::result(status, vec![], "done");
        result.subtask_id = sub.subtask_id;
        result.parent_task_id = sub.parent_task_id.clone();
        result.attempt = attempt;
        Request {
            id: EnvelopeId::mint(),
            from: Role::Executor,
            result,
        }
    }

    fn judgement(met: bool) -> Judgement {
        Judgement {
            criteria: vec![CriterionJudgement {
                criterion: CRITERION.into(),
                evidence: "the report".into(),
                met,
                unmet_cause: (!met).then_some(UnmetCause::Logical),
            }],
            diagnosis: if met {
                String::new()
            } else {
                "no file named".into()
            },
            remedy: if met {
                String::new()
            } else {
                "list the folder by size".into()
            },
        }
    }

    /// What went out: the message type, to whom, and whether it answers a request.
    fn sent(fx: &Fx) -> Vec<(&'static str, Role, bool)> {
        fx.published()
            .iter()
            .map(|o| (o.message.kind().name(), o.to, o.in_reply_to.is_some()))
            .collect()
    }

    #[test]
    fn a_passing_judgement_closes_the_sub_task_matched_reply_first_outcome_last() {
        let sub = subtask();
        let mut v = Validation::new(2, Duration::from_secs(60));
        let mut fx = Fx::default();
        v.open(&sub, &mut fx);
        assert_eq!(fx.deadlines().len(), 1, "the first attempt is awaited");
        assert!(fx.on_task_time(0), "a person's answer spends none of it");
        let request = attempt(&sub, 1, ExecutionStatus::Completed);
        let asked = request.id;
        let judge = v.on_result(request, now(), &mut fx).expect("a judgement");
        assert_eq!(judge.subtask, sub.subtask_id);
        assert!(judge.prompt.contains(CRITERION));

        let mut fx = Fx::default();
        let next = v.on_judged(sub.subtask_id, Ok(judgement(true)), now(), &mut fx);
        assert!(next.is_none());
        assert_eq!(
            sent(&fx),
            [
                ("SubTaskClosed", Role::Executor, true),
                ("SubTaskOutcome", Role::MetaValidator, false)
            ]
        );
        assert_eq!(fx.published()[0].in_reply_to, Some(asked));
        let Message::SubTaskOutcome(outcome) = &fx.published()[1].message else {
            panic!("an outcome");
        };
        assert_eq!(outcome.status, SubTaskStatus::Matched);
        assert_eq!(outcome.gap_trajectory.len(), 1);

        // A repeated request gets the same close, and nothing else.
        let mut fx = Fx::default();
        assert!(
            v.on_result(attempt(&sub, 1, ExecutionStatus::Completed), now(), &mut fx)
                .is_none()
        );
        assert_eq!(sent(&fx), [("SubTaskClosed", Role::Executor, true)]);
    }

    #[test]
    fn a_failing_judgement_is_corrected_while_retries_remain_then_closes_failed() {
        let sub = subtask();
        let mut v = Validation::new(1, Duration::from_secs(60));
        let mut fx = Fx::default();
        v.open(&sub, &mut fx);
        v.on_result(attempt(&sub, 1, ExecutionStatus::Completed), now(), &mut fx)
            .expect("a judgement");
        // The next attempt arrives while the first is judged: it waits its turn.
        let queued = v.on_result(attempt(&sub, 2, ExecutionStatus::Completed), now(), &mut fx);
        assert!(queued.is_none());

        let mut fx = Fx::default();
        let next = v.on_judged(sub.subtask_id, Ok(judgement(false)), now(), &mut fx);
        assert_eq!(sent(&fx), [("CorrectionSignal", Role::Executor, true)]);
        let Message::CorrectionSignal(c) = &fx.published()[0].message else {
            panic!("a correction");
        };
        assert_eq!(c.what_to_do, "list the folder by size");
        assert!(next.is_some(), "the queued attempt is judged next");

        let mut fx = Fx::default();
        v.on_judged(sub.subtask_id, Ok(judgement(false)), now(), &mut fx);
        let Some(Message::SubTaskOutcome(outcome)) = fx.published().last().map(|o| &o.message)
        else {
            panic!("an outcome");
        };
        assert_eq!(outcome.status, SubTaskStatus::Failed);
        assert!(
            outcome
                .failure_reason
                .as_deref()
                .unwrap_or_default()
                .starts_with("max retries (1)"),
            "{:?}",
            outcome.failure_reason
        );
        assert_eq!(outcome.gap_trajectory.len(), 2);
    }

    #[test]
    fn an_attempt_r3_doubts_is_not_passed_on_the_models_word_but_passes_by_a_met_check() {
        // One attempt of `sub` reported with `status`, which the model passes: what went out.
        let passed_once = |sub: &SubTask, status| {
            let mut v = Validation::new(2, Duration::from_secs(60));
            let mut fx = Fx::default();
            v.open(sub, &mut fx);
            v.on_result(attempt(sub, 1, status), now(), &mut fx)
                .expect("a judgement");
            let mut fx = Fx::default();
            v.on_judged(sub.subtask_id, Ok(judgement(true)), now(), &mut fx);
            fx
        };
        // No check: the model's pass is overruled, and a correction follows.
        let sub = subtask();
        let fx = passed_once(&sub, ExecutionStatus::Uncertain);
        assert_eq!(sent(&fx), [("CorrectionSignal", Role::Executor, true)]);
        let Message::CorrectionSignal(c) = &fx.published()[0].message else {
            panic!("a correction");
        };
        assert!(
            c.what_was_wrong.contains("uncertain"),
            "{}",
            c.what_was_wrong
        );
        // The same report, completed: the pass stands.
        let fx = passed_once(&sub, ExecutionStatus::Completed);
        assert_eq!(sent(&fx)[0].0, "SubTaskClosed");
        // Uncertain, but a check code evaluates is met by the report: the pass stands.
        let mut checked = subtask();
        checked.success_criteria = vec![Criterion {
            check: Some(crate::contracts::Check::AnswerStates {
                text: "done".into(),
            }),
            ..Criterion::new(CRITERION)
        }];
        let fx = passed_once(&checked, ExecutionStatus::Uncertain);
        let Some(Message::SubTaskOutcome(outcome)) = fx.published().last().map(|o| &o.message)
        else {
            panic!("an outcome");
        };
        assert_eq!(outcome.status, SubTaskStatus::Matched);
    }

    #[test]
    fn an_attempt_r3_reports_failed_closes_without_asking_the_model() {
        let sub = subtask();
        let mut v = Validation::new(2, Duration::from_secs(60));
        let mut fx = Fx::default();
        v.open(&sub, &mut fx);
        let mut fx = Fx::default();
        let judge = v.on_result(attempt(&sub, 1, ExecutionStatus::Failed), now(), &mut fx);
        assert!(judge.is_none());
        assert_eq!(
            sent(&fx),
            [
                ("SubTaskClosed", Role::Executor, true),
                ("SubTaskOutcome", Role::MetaValidator, false)
            ]
        );
    }

    #[test]
    fn only_the_latest_attempt_deadline_can_close_a_silent_sub_task() {
        let sub = subtask();
        let mut v = Validation::new(2, Duration::from_secs(60));
        let mut fx = Fx::default();
        v.open(&sub, &mut fx);
        let first = fx.deadlines()[0].2;
        v.on_result(attempt(&sub, 1, ExecutionStatus::Completed), now(), &mut fx)
            .expect("a judgement");
        // Due while the model judges: stale, nothing happens.
        let mut fx = Fx::default();
        v.attempt_overdue(first, &mut fx);
        assert!(fx.published().is_empty());
        v.on_judged(sub.subtask_id, Ok(judgement(false)), now(), &mut fx);
        let second = fx.deadlines()[0].2;
        assert_ne!(first, second);
        let mut fx = Fx::default();
        v.attempt_overdue(first, &mut fx);
        assert!(fx.published().is_empty(), "the first arming is stale");
        v.attempt_overdue(second, &mut fx);
        assert_eq!(
            sent(&fx),
            [
                ("SubTaskClosed", Role::Executor, false),
                ("SubTaskOutcome", Role::MetaValidator, false)
            ]
        );
        let Message::SubTaskOutcome(outcome) = &fx.published()[1].message else {
            panic!("an outcome");
        };
        assert!(
            outcome
                .failure_reason
                .as_deref()
                .unwrap_or_default()
                .contains("no result for attempt 2"),
            "{:?}",
            outcome.failure_reason
        );
    }

    #[test]
    fn a_result_for_a_sub_task_never_opened_fails_honestly_at_once() {
        let sub = subtask();
        let mut v = Validation::new(2, Duration::from_secs(60));
        let mut fx = Fx::default();
        assert!(
            v.on_result(attempt(&sub, 1, ExecutionStatus::Completed), now(), &mut fx)
                .is_none()
        );
        assert_eq!(
            sent(&fx),
            [
                ("SubTaskClosed", Role::Executor, true),
                ("SubTaskOutcome", Role::MetaValidator, false)
            ]
        );
    }
}
