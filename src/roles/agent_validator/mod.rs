//! R4a Agent-Validator: the sensor and controller of the fast loop. It judges each of
//! R3's attempts at a sub-task against the sub-task's success criteria and either asks
//! for a correction or closes the sub-task.
//!
//! - `SubTask` from the dispatcher opens a sub-task (criteria, intent, context). If no
//!   `ExecutionResult` follows within the attempt timeout (the executor went silent), the
//!   sub-task is closed as an environmental failure, so nothing downstream waits forever.
//! - `ExecutionResult` is a request from R3. The code fails the sub-task at once, with no
//!   model call and no retry, when R3 reports `failed` or a tool call ended in an
//!   infrastructure failure (a typed timeout, cancellation, network or unavailable kind;
//!   see [`precheck`]). Otherwise one tool-tier model
//!   call judges every criterion — pass/fail, logical|environmental, evidence — under the
//!   evidence-grounding rule: `tool_calls` (structured [`ToolCallRecord`]s) are the ground
//!   truth, R3's output prose is a claim, a post-hoc `ls`/`stat` proves nothing, an empty
//!   result of a search that really ran is an answer, and a Law 1 denial is an honest
//!   environmental failure.
//! - The code, not the model, decides: matched ⇔ every criterion passed. A failed
//!   judgement gets a `CorrectionSignal` reply (what was wrong, what to do, calls to
//!   avoid) while corrections remain (`Config.budgets.max_retries`) and no Law 1 denial is
//!   involved — a denial is never retried, so the denied action is not sought another
//!   way. Otherwise the sub-task closes: a `SubTaskClosed` reply to R3 and a
//!   `SubTaskOutcome` to R4b carrying a gap-trajectory point per attempt, the final
//!   verdicts (with each criterion's mode) and the tool calls of every attempt.
//! - A model error: environmental ones (timeout, unreachable, rate limit …) fail the
//!   sub-task at once as infrastructure; a verdict still unusable after the model
//!   layer's re-ask fails it as a "scoring error" without a class. Never a hang.
//! - `TaskClosed` drops the task's sub-tasks and stops their model calls; nothing more
//!   is published for them.
//!
//! **Invariant:** every sub-task R4a opens is closed exactly once — one `SubTaskOutcome`
//! to R4b and a `SubTaskClosed` to R3 — unless its task closed first, and `matched` is
//! only ever set by the code when every criterion has a passing verdict.

mod judge;
mod precheck;
mod prompt;
mod schema;

#[cfg(test)]
mod fixtures;

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::bus::{Bus, BusHandle, Envelope};
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{
    CorrectionSignal, Criterion, CriterionVerdict, EnvelopeId, ExecutionResult, FailureClass,
    GapPoint, Message, Role, SubTask, SubTaskClosed, SubTaskId, SubTaskOutcome, SubTaskStatus,
    TaskClosed, TaskId, ToolCallRecord,
};
use crate::lifecycle::Registry;
use crate::llm::{CallCtx, ChatRequest, Llm, LlmError, RoleLlm};
use crate::roles::preamble::{machine_facts, tool_preamble};
use crate::roles::runner::{Actor, Cx, Runner, TimerId};
use crate::text::first_chars;

pub use judge::{
    MAX_CALLS_TO_AVOID, align_judgements, attempt_class, check_judgements, gap_point,
    ground_in_calls, verdicts_from,
};
use judge::{calls_to_avoid, default_class, failing_verdicts, unmet_summary};
pub use precheck::{ImmediateFailure, precheck};
pub use prompt::{
    CALL_OUTPUT_SHOWN, JUDGE_MAX_TOKENS, MAX_CALLS_SHOWN, MAX_CLAIM_CHARS, MAX_CONTEXT_CHARS,
    judgement_prompt, render_calls, reply_skeleton, system_prompt, today_line,
};
pub use schema::{CriterionJudgement, Judgement, UnmetCause};

// ---------------------------------------------------------------------------------------
// The role
// ---------------------------------------------------------------------------------------

/// One `ExecutionResult` request waiting for an answer.
struct Request {
    id: EnvelopeId,
    from: Role,
    result: ExecutionResult,
}

enum Phase {
    /// Waiting for R3's next attempt, at most until the deadline of this timer.
    Awaiting { timer: TimerId },
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

type Judged = (SubTaskId, Result<Judgement, LlmError>);

/// R4a wired to the bus.
pub struct AgentValidator(Runner<Validate>);

/// R4a's state and reactions.
struct Validate {
    bus: BusHandle,
    llm: RoleLlm,
    registry: Registry,
    clock: SharedClock,
    max_retries: u32,
    attempt_timeout: Duration,
    tracks: HashMap<SubTaskId, Track>,
    /// The sub-tasks of live tasks that closed, to answer a late or repeated request the
    /// same way; a task's go when it closes.
    closed: HashMap<SubTaskId, SubTaskClosed>,
    home: PathBuf,
    workspace: PathBuf,
}

impl AgentValidator {
    /// Subscribes now, so nothing addressed to R4a after this call is missed. An attempt
    /// the executor never reports on is closed after the task's whole time budget
    /// (`Config.budgets.time_budget_ms`).
    pub fn new(
        config: &Config,
        bus: &Bus,
        llm: &Llm,
        registry: Registry,
        clock: SharedClock,
    ) -> Self {
        let handle = bus.handle(Role::AgentValidator);
        let validate = Validate {
            llm: llm
                .for_role(handle.clone())
                .expect("R4a runs on the tool tier"),
            bus: handle,
            registry: registry.clone(),
            clock,
            max_retries: config.budgets.max_retries,
            attempt_timeout: Duration::from_millis(config.budgets.time_budget_ms),
            tracks: HashMap::new(),
            closed: HashMap::new(),
            home: config.home.clone(),
            workspace: config.workspace.clone(),
        };
        Self(Runner::new(validate, bus, Role::AgentValidator, registry))
    }

    /// Overrides how long R4a waits for an attempt before closing the sub-task.
    pub fn with_attempt_timeout(mut self, timeout: Duration) -> Self {
        self.0.actor_mut().attempt_timeout = timeout;
        self
    }

    /// Runs [`AgentValidator::run`] on the current tokio runtime.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run())
    }

    /// Serves until the bus closes; model calls still running then are aborted.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Validate {
    type Done = Judged;
    /// The sub-task whose next attempt is due.
    type Timer = SubTaskId;

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        match &env.message {
            Message::SubTask(s) => self.open(s, cx),
            Message::ExecutionResult(r) => self.on_result(
                Request {
                    id: env.id,
                    from: env.from,
                    result: r.clone(),
                },
                cx,
            ),
            other => tracing::warn!(from = %env.from, kind = other.kind().name(),
                "R4a ignores a message it has no contract for"),
        }
    }

    fn on_done(&mut self, _task: TaskId, (id, judged): Judged, cx: &mut Cx<'_, Self>) {
        self.on_judged(id, judged, cx);
    }

    fn on_deadline(&mut self, _task: TaskId, id: SubTaskId, _cx: &mut Cx<'_, Self>) {
        self.attempt_overdue(id);
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        self.close_task(&closed.task_id);
    }
}

impl Validate {
    /// Drops a closed task's sub-tasks (the runner stopped their model calls).
    fn close_task(&mut self, task: &TaskId) {
        self.closed.retain(|_, c| &c.parent_task_id != task);
        self.tracks.retain(|_, t| t.task() != task);
    }

    fn open(&mut self, subtask: &SubTask, cx: &mut Cx<'_, Self>) {
        if self.tracks.contains_key(&subtask.subtask_id)
            || self.closed.contains_key(&subtask.subtask_id)
        {
            tracing::warn!(subtask = %subtask.subtask_id, "a sub-task was opened twice; the first is kept");
            return;
        }
        self.tracks.insert(
            subtask.subtask_id,
            Track {
                criteria: subtask.criteria_to_judge(),
                subtask: subtask.clone(),
                points: Vec::new(),
                calls: Vec::new(),
                last_correction: None,
                phase: Phase::Awaiting {
                    timer: cx.at(
                        Instant::now() + self.attempt_timeout,
                        &subtask.parent_task_id,
                        subtask.subtask_id,
                    ),
                },
                queued: VecDeque::new(),
            },
        );
    }

    fn on_result(&mut self, request: Request, cx: &mut Cx<'_, Self>) {
        let id = request.result.subtask_id;
        if let Some(closed) = self.closed.get(&id) {
            // A repeated or late request gets the answer the sub-task closed with.
            self.bus.reply(request.from, request.id, closed.clone());
            return;
        }
        let Some(track) = self.tracks.get_mut(&id) else {
            return self.close_unknown(request);
        };
        if matches!(track.phase, Phase::Judging { .. }) {
            track.queued.push_back(request);
            return;
        }
        self.judge(id, request, cx);
    }

    /// A result for a sub-task the dispatcher never opened: it cannot be judged without
    /// criteria, so it fails honestly instead of waiting.
    fn close_unknown(&mut self, request: Request) {
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
        self.bus.reply(request.from, request.id, closed.clone());
        self.closed.insert(closed.subtask_id, closed);
        self.bus.publish(Role::MetaValidator, outcome);
    }

    /// Judges one attempt: the code's immediate rules first, then the model.
    fn judge(&mut self, id: SubTaskId, request: Request, cx: &mut Cx<'_, Self>) {
        let now = self.clock.now();
        let max_attempts = self.max_retries.saturating_add(1);
        let Some(track) = self.tracks.get_mut(&id) else {
            return;
        };
        if let Phase::Awaiting { timer } = track.phase {
            cx.cancel(timer);
        }
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
            return self.close(id, closing, Some(request));
        }
        let prompt = judgement_prompt(
            now,
            &track.subtask,
            &track.criteria,
            &request.result,
            attempt,
            max_attempts,
            track.last_correction.as_deref(),
        );
        let chat = ChatRequest::new(system_prompt(tool_preamble()), prompt)
            .facts_first(&machine_facts(&self.home, &self.workspace, now))
            .temperature(0.0)
            .max_tokens(JUDGE_MAX_TOKENS);
        let ctx = CallCtx::for_task(track.task().clone(), self.registry.token(track.task()));
        let criteria = track.criteria.clone();
        let llm = self.llm.clone();
        cx.spawn(track.task(), async move {
            let judged = llm
                .structured_checked::<Judgement, _>(&ctx, &chat, |j| {
                    check_judgements(&criteria, &j.criteria)
                })
                .await
                .map(|s| s.value);
            (id, judged)
        });
        track.phase = Phase::Judging { request };
    }

    fn on_judged(
        &mut self,
        id: SubTaskId,
        judged: Result<Judgement, LlmError>,
        cx: &mut Cx<'_, Self>,
    ) {
        let Some(track) = self.tracks.get_mut(&id) else {
            return; // cancelled meanwhile
        };
        if !matches!(track.phase, Phase::Judging { .. }) {
            return;
        }
        let timer = cx.at(
            Instant::now() + self.attempt_timeout,
            track.task(),
            track.subtask.subtask_id,
        );
        let Phase::Judging { request } =
            std::mem::replace(&mut track.phase, Phase::Awaiting { timer })
        else {
            return;
        };
        let judgement = match judged {
            Ok(j) => j,
            Err(LlmError::Cancelled) => {
                let task = track.task().clone();
                tracing::debug!(subtask = %id, "judgement cancelled with its task");
                return self.close_task(&task);
            }
            Err(e) => {
                let (reason, class) = model_failure(&e);
                let closing = track.fail_attempt(reason, class);
                return self.close(id, closing, Some(request));
            }
        };
        let calls = &request.result.tool_calls;
        let verdicts =
            match verdicts_from(&track.criteria, &judgement.criteria, default_class(calls)) {
                Ok(verdicts) => verdicts,
                // The model layer's check already ran this; kept honest if it ever differs.
                Err(problem) => {
                    let closing = track.fail_attempt(format!("scoring error: {problem}"), None);
                    return self.close(id, closing, Some(request));
                }
            };
        let given = [
            track.subtask.intent.as_str(),
            track.subtask.context.as_str(),
        ];
        let verdicts = ground_in_calls(verdicts, calls, &request.result.output, &given);
        track
            .points
            .push(gap_point(track.attempts() + 1, &verdicts));
        self.correct_or_close(id, request, &judgement, verdicts, cx);
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
        cx: &mut Cx<'_, Self>,
    ) {
        let Some(track) = self.tracks.get_mut(&id) else {
            return;
        };
        let attempt = track.attempts();
        let Some(first_unmet) = verdicts.iter().find(|v| v.failed()).cloned() else {
            let output = Value::String(request.result.output.clone());
            return self.close(
                id,
                Closing {
                    status: SubTaskStatus::Matched,
                    output,
                    reason: None,
                    verdicts,
                },
                Some(request),
            );
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
            return self.close(id, Closing::failed(reason, verdicts), Some(request));
        }
        let corrections_made = attempt - 1;
        if corrections_made >= self.max_retries {
            let reason = format!(
                "max retries ({}) reached; last issue: {}",
                self.max_retries,
                first_chars(&what_was_wrong, 400)
            );
            return self.close(id, Closing::failed(reason, verdicts), Some(request));
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
        self.bus.reply(request.from, request.id, correction);
        self.drain_queue(id, cx);
    }

    /// Handles a request that arrived while the previous one was being judged.
    fn drain_queue(&mut self, id: SubTaskId, cx: &mut Cx<'_, Self>) {
        let next = self.tracks.get_mut(&id).and_then(|t| t.queued.pop_front());
        if let Some(next) = next {
            self.judge(id, next, cx);
        }
    }

    fn close(&mut self, id: SubTaskId, closing: Closing, request: Option<Request>) {
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
            Some(r) => {
                self.bus.reply(r.from, r.id, closed.clone());
            }
            // Nobody asked (the executor went silent): tell the executor side anyway,
            // so its worker and the dispatcher learn the sub-task is over.
            None => {
                self.bus.publish(Role::Executor, closed.clone());
            }
        }
        for queued in track.queued {
            self.bus.reply(queued.from, queued.id, closed.clone());
        }
        self.closed.insert(closed.subtask_id, closed);
        // The outcome last: it can end the round (R4b → R7 → FinalResult) at once, on
        // another thread, so everything else of the sub-task must already be on the bus.
        // R4b waits for the outcome whatever the executor side does meanwhile.
        self.bus.publish(Role::MetaValidator, outcome);
    }

    /// R3 sent nothing for the sub-task's next attempt in time: it closes as failed.
    fn attempt_overdue(&mut self, id: SubTaskId) {
        let Some(track) = self.tracks.get_mut(&id) else {
            return;
        };
        if !matches!(track.phase, Phase::Awaiting { .. }) {
            return;
        }
        let attempt = track.attempts() + 1;
        let reason = format!(
            "the executor sent no result for attempt {attempt} within {}s",
            self.attempt_timeout.as_secs()
        );
        tracing::warn!(subtask = %id, %reason, "sub-task closed without a result");
        let closing = track.fail_attempt(reason, Some(FailureClass::Environmental));
        self.close(id, closing, None);
    }
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
