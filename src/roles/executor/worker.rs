//! One sub-task's fast loop on the executor side: attempts of a bounded tool loop, each
//! sent to R4a as an `ExecutionResult` request, until R4a closes the sub-task.
//!
//! The honesty rules (Law 0), applied by code to what the model claims:
//! - A `completed` finish with no tool call that ended `ok` in the attempt is not taken
//!   at its word: the first time, the model is told nothing shows its output and gets
//!   another turn (call a tool, or finish honestly); if it claims `completed` again with
//!   no successful call (or it was the last turn), the result goes to R4a as
//!   `uncertain`, its output marked as backed by no tool result. A sub-task answerable
//!   from its context (a summary of earlier outputs) can still be matched by R4a, which
//!   judges such criteria on the report; anything about the computer cannot.
//! - A finish is weighed by one table of checks (`finish::CHECKS`), in order:
//!   a number none of the attempt's results shows, a copy of a result a later call
//!   superseded, a file the sub-task names left untouched or unwritten, an answer of
//!   the wrong shape each get one more turn saying so, within the row's budget; where
//!   code knows the answer (the n-th row, the one line selected, an absence) code
//!   states it.
//! - A Law 1 denial in the attempt makes the result `failed`, whatever the model said,
//!   with the denial first in the output (`[LAW1] …`): the denied action did not happen
//!   and must not be sought another way.
//! - The step cap ends the attempt as `uncertain` when some call succeeded (its latest
//!   output is the data; R4a judges whether it suffices), `failed` when none did.
//! - A model reply still unusable after the model layer's re-ask, or a model error, ends
//!   the attempt as `failed`, saying so.
//!
//! **Invariant:** every `ExecutionResult` carries exactly the tool-call records of its
//! attempt, and its status is never more confident than those records allow.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::finish::{Finish, Once, Pushes, Subject, Weighed, weigh};
use super::prompt::{Observed, Offer, Turn, state_prompt, system_prompt};
use super::review::NamedFile;
use super::step::{Action, FinishStatus, FinishStep, NextStep};
use super::{Shared, schema};
use crate::checks::shape::{self, Verdict};
use crate::contracts::{
    AnswerShape, CorrectionSignal, ExecutionResult, ExecutionStatus, Interruption, Message, Role,
    SubTask, SubTaskClosed, SubTaskStatus, ToolCallRecord, ToolCallStatus,
};
use crate::llm::{CallCtx, ChatRequest, LlmError};
use crate::roles::preamble::{machine_facts, preamble_with_tools};
use crate::text::first_chars;
use crate::tools::{self, Seen, ToolContext, ToolRef, ToolSpec};

/// Characters of the latest successful output carried by a step-capped result.
pub const MAX_CAPPED_OUTPUT_CHARS: usize = 4_000;

/// Marks the output of a `completed` claim no tool result backs.
pub const UNBACKED_PREFIX: &str =
    "Not backed by any tool result (no tool call succeeded in this attempt):";

/// How one attempt ended.
enum Attempted {
    Result(ExecutionResult),
    /// The task was cancelled: nothing more is published for it.
    Cancelled,
}

/// What one attempt's tool loop has seen and said so far.
struct Progress {
    /// The sub-task's first tool-call record of this attempt.
    first_record: usize,
    observed: Vec<Observed>,
    /// The place (path, folder or command) each observed call worked on, by its result
    /// number less one.
    places: Vec<String>,
    /// Canonical calls of this attempt, by the result number they produced. A call whose
    /// place a later call changed leaves it: asked again, it is a new look, not a repeat.
    called: Vec<(CallKey, usize)>,
    /// What the next turn is told first (a push-back), if anything.
    nudge: Option<String>,
    /// What the finish checks have spent, and whether only a finish is asked for now.
    pushes: Pushes,
    /// Calls in a row that failed or were refused.
    stalled: u32,
    /// Calls not run because they narrowed by what the request does not name
    /// ([`tools::fit`]); each is run if asked for again.
    asked_back: Vec<CallKey>,
}

impl Progress {
    fn new(first_record: usize) -> Self {
        Self {
            first_record,
            observed: Vec::new(),
            places: Vec::new(),
            called: Vec::new(),
            nudge: None,
            pushes: Pushes::default(),
            stalled: 0,
            asked_back: Vec::new(),
        }
    }

    /// Records a call's result; after [`STALL_LIMIT`] failures in a row the model is
    /// made to finish.
    fn record_call(&mut self, key: CallKey, seen: Observed, record: &ToolCallRecord) {
        let places = &self.places;
        self.called
            .retain(|(_, n)| !record.changed(&places[*n - 1]));
        self.places.push(record.target.clone());
        self.stalled = if seen.status == ToolCallStatus::Ok {
            0
        } else {
            self.stalled + 1
        };
        self.observed.push(seen);
        self.called.push((key, self.observed.len()));
        if self.stalled >= STALL_LIMIT {
            self.pushes.finish_only = true;
            self.nudge = Some(format!(
                "The last {STALL_LIMIT} calls failed or were refused. Finish now: \
                 say what the results show and why the rest could not be done."
            ));
        }
    }
}

/// Model turns in a row whose calls all failed or were refused before the attempt is
/// made to finish (a stuck attempt ends early with its honest state).
pub const STALL_LIMIT: u32 = 3;

/// A step reply's generation cap: a call is a few dozen tokens; a finish carries the
/// answer, which may quote a short listing or a file's gist.
pub const STEP_MAX_TOKENS: u32 = 400;

/// The next turn's first words after a failed call was asked for again while another
/// call had succeeded.
pub const FAILED_AGAIN_NUDGE: &str = "A call that failed was asked for again. Finish now: \
     answer from the results that succeeded, and say what could not be done.";

/// Calls an attempt sends back at most for values the request does not ask for.
const MAX_ASKED_BACK: usize = 2;

/// Refused repeats of failed calls of one tool after which a sub-task is no longer
/// offered it: one is often the model reading the failure again before it mends the
/// call; a second is a model with nothing else to try with that tool.
const STUCK_AFTER: usize = 2;

/// Successful calls remembered across a sub-task's attempts.
const MAX_REMEMBERED_CALLS: usize = 64;

/// One running sub-task.
pub(super) struct Worker {
    pub shared: Arc<Shared>,
    pub subtask: SubTask,
    pub ctx: ToolContext,
    /// The end of the sub-task's time budget on the task's time, as set (the time its
    /// questions wait for the user moves it: [`crate::lifecycle::Registry::due_now`]).
    pub deadline: Instant,
    /// The task's person time when `deadline` was set.
    pub credited: std::time::Duration,
    /// The places the sub-task names, as prompt lines.
    pub places: Option<String>,
    /// The files the sub-task names that its finish is checked to have touched.
    pub files: Vec<NamedFile>,
    /// The text of each file the sub-task names that was there when it began
    /// ([`super::review::texts_of`]).
    pub texts: Vec<(String, String)>,
    /// Calls that succeeded in this sub-task, with what the model saw and their record.
    pub done: std::sync::Mutex<Vec<(CallKey, Observed, ToolCallRecord)>>,
    /// The tool of each call of this sub-task refused for repeating one that had failed
    /// in the task. A tool with [`STUCK_AFTER`] of them is no longer offered to the
    /// sub-task: the model has no other value to try with it, and each refused repeat
    /// costs a model turn.
    pub repeats: std::sync::Mutex<Vec<ToolRef>>,
}

/// How a worker's fast loop ended.
#[derive(Debug)]
pub enum End {
    /// R4a closed the sub-task; the dispatcher heard the close on the bus.
    Closed,
    /// R4a gave no verdict (it never answered, or answered with something else): the
    /// worker's own failed close, which the executor sends the dispatcher.
    Unjudged(SubTaskClosed),
    /// The task was cancelled.
    Cancelled,
}

impl Worker {
    /// Runs attempts until R4a closes the sub-task.
    pub async fn run(self) -> End {
        let cancel = self.ctx.cancel.clone();
        tokio::select! {
            biased;
            () = cancel.cancelled() => End::Cancelled,
            end = self.fast_loop() => end,
        }
    }

    async fn fast_loop(mut self) -> End {
        let mut correction: Option<CorrectionSignal> = None;
        let mut attempt = 1;
        loop {
            if self.ctx.cancel.is_cancelled() {
                return End::Cancelled;
            }
            self.ctx.attempt = attempt;
            let first_record = self.ctx.history.len();
            let task = self.subtask.parent_task_id.clone();
            let out_of_time =
                self.shared
                    .registry
                    .sleep_task_time(&task, self.deadline, self.credited);
            let attempted = tokio::select! {
                a = self.attempt(attempt, correction.as_ref()) => Some(a),
                () = out_of_time => None,
            };
            let result = match attempted {
                Some(Attempted::Result(r)) => r,
                Some(Attempted::Cancelled) => return End::Cancelled,
                None => {
                    let mut r = self.result(
                        attempt,
                        ExecutionStatus::Failed,
                        format!(
                            "timed out: the sub-task's time budget ({} s) ran out during \
                             attempt {attempt}; the attempt was stopped",
                            self.shared.time_budget.as_secs_f64()
                        ),
                        first_record,
                    );
                    r.interrupted = Some(Interruption::TimeBudget);
                    r
                }
            };
            if self.ctx.cancel.is_cancelled() {
                return End::Cancelled;
            }
            let pending = self
                .shared
                .bus
                .request(Role::AgentValidator, result.clone());
            // R4a answers every request (its own model call is bounded); the bound here
            // only matters if R4a is gone, and then the sub-task fails honestly so the
            // dispatcher's group still ends.
            let deadline = self.shared.registry.due_now(
                &self.subtask.parent_task_id,
                self.deadline,
                self.credited,
            );
            let reply_by = deadline.max(Instant::now()) + self.shared.reply_grace;
            let reply = match tokio::time::timeout_at(reply_by, pending).await {
                Ok(Ok(env)) => env,
                Ok(Err(_closed)) => return End::Unjudged(self.failed("the bus closed")),
                Err(_elapsed) => {
                    return End::Unjudged(self.failed(&format!(
                        "the validator did not answer attempt {attempt} within the time budget"
                    )));
                }
            };
            match &reply.message {
                Message::CorrectionSignal(c) => {
                    tracing::debug!(subtask = %self.subtask.subtask_id, attempt,
                        what_to_do = %c.what_to_do, "correction received");
                    correction = Some(c.clone());
                    attempt += 1;
                }
                Message::SubTaskClosed(_) => {
                    return End::Closed;
                }
                other => {
                    tracing::warn!(from = %reply.from, kind = other.kind().name(),
                        "unexpected reply to an ExecutionResult");
                    return End::Unjudged(self.failed("the validator's reply was not a verdict"));
                }
            }
        }
    }

    /// A failed close the executor reports itself (R4a could not).
    fn failed(&self, why: &str) -> SubTaskClosed {
        tracing::warn!(subtask = %self.subtask.subtask_id, why, "sub-task failed without a verdict");
        SubTaskClosed {
            subtask_id: self.subtask.subtask_id,
            parent_task_id: self.subtask.parent_task_id.clone(),
            status: SubTaskStatus::Failed,
            output: serde_json::Value::Null,
        }
    }

    fn records_since(&self, first_record: usize) -> Vec<ToolCallRecord> {
        self.ctx
            .history
            .records()
            .into_iter()
            .skip(first_record)
            .collect()
    }

    fn result(
        &self,
        attempt: u32,
        status: ExecutionStatus,
        output: String,
        first_record: usize,
    ) -> ExecutionResult {
        ExecutionResult {
            subtask_id: self.subtask.subtask_id,
            parent_task_id: self.subtask.parent_task_id.clone(),
            status,
            output,
            tool_calls: self.records_since(first_record),
            attempt,
            interrupted: None,
        }
    }

    /// One attempt: at most `max_steps` model turns.
    async fn attempt(&self, attempt: u32, correction: Option<&CorrectionSignal>) -> Attempted {
        let shared = &self.shared;
        let mut progress = Progress::new(self.ctx.history.len());
        let system = system_prompt(&preamble_with_tools(&shared.tools_text));
        let facts = machine_facts(
            &shared.config.home,
            &shared.config.workspace,
            shared.clock.now(),
        );
        let call_ctx =
            CallCtx::for_task(self.subtask.parent_task_id.clone(), self.ctx.cancel.clone());
        let max_steps = shared.max_steps.max(1);
        for step in 1..=max_steps {
            if self.ctx.cancel.is_cancelled() {
                return Attempted::Cancelled;
            }
            let offer = if progress.pushes.finish_only || step == max_steps {
                Offer::Finish
            } else if progress.observed.is_empty() {
                Offer::Call
            } else if self.change_owed(attempt, &progress) {
                Offer::Change
            } else if self.only_looked(progress.first_record) {
                Offer::Compute
            } else {
                Offer::Either
            };
            let user = state_prompt(
                &self.subtask,
                self.places.as_deref(),
                correction,
                &progress.observed,
                progress.nudge.as_deref(),
                Turn {
                    step,
                    max_steps,
                    offer,
                },
            );
            let request = ChatRequest::new(system.clone(), user)
                .facts_first(&facts)
                .temperature(0.0)
                .max_tokens(STEP_MAX_TOKENS);
            let action = match self.next_action(&call_ctx, &request, offer).await {
                Ok(Ok(action)) => action,
                Ok(Err(problem)) => {
                    // The check above already passed this reply; kept honest regardless.
                    return Attempted::Result(self.result(
                        attempt,
                        ExecutionStatus::Failed,
                        format!("the executor's model gave no usable next step: {problem}"),
                        progress.first_record,
                    ));
                }
                Err(LlmError::Cancelled) => return Attempted::Cancelled,
                Err(e) => return self.model_failed(attempt, step, &e, &progress),
            };
            progress.nudge = None;
            let turn = match action {
                Action::CallTool { tool, input } => {
                    self.call_tool(attempt, &mut progress, (step, max_steps), &tool, input)
                        .await
                }
                Action::Finish {
                    status,
                    output,
                    summary,
                } => self.finish(
                    attempt,
                    &mut progress,
                    (step, max_steps),
                    status,
                    &output,
                    &summary,
                ),
            };
            if let ControlFlow::Break(end) = turn {
                return end;
            }
        }
        let records = self.records_since(progress.first_record);
        let (status, output) = step_capped(max_steps, &records, &progress.observed);
        Attempted::Result(self.result(attempt, status, output, progress.first_record))
    }

    /// The model's next step: a finish only when `finish_only`, else a call or a finish
    /// checked against the offered tools.
    async fn next_action(
        &self,
        call_ctx: &CallCtx,
        request: &ChatRequest,
        offer: Offer,
    ) -> Result<Result<Action, String>, LlmError> {
        let shared = &self.shared;
        // The tools that change files, as the sub-task's words ask for their changes
        // (the user's own words where it carries them: a paraphrase can name a copy
        // that was never asked for).
        let asked = self
            .subtask
            .request
            .as_deref()
            .unwrap_or(&self.subtask.intent);
        let offered = tools::offered_specs(&shared.specs, asked);
        let stuck = self.stuck();
        let unstuck: Vec<ToolSpec>;
        let specs: &[ToolSpec] = if stuck.is_empty() {
            &offered
        } else {
            unstuck = offered
                .iter()
                .filter(|s| !stuck.contains(&s.name))
                .cloned()
                .collect();
            &unstuck
        };
        let changing: Vec<ToolSpec>;
        let specs: &[ToolSpec] = if offer == Offer::Change {
            changing = tools::changing_specs(specs);
            &changing
        } else {
            specs
        };
        let all_offered = specs.len() == shared.specs.len();
        if offer == Offer::Finish {
            shared
                .llm
                .structured::<FinishStep>(call_ctx, request)
                .await
                .map(|s| Ok(s.value.action()))
        } else {
            // Once the task has seen its data, a call can name only what it saw.
            let seen = self.ctx.task_calls.seen();
            let narrowed;
            let schema = if matches!(offer, Offer::Call | Offer::Compute | Offer::Change) {
                narrowed = schema::first_step_schema(specs, &seen);
                &narrowed
            } else if seen == Seen::default() && all_offered {
                &shared.schema
            } else {
                narrowed = schema::output_schema_seen(specs, &seen);
                &narrowed
            };
            shared
                .llm
                .structured_checked_with::<NextStep, _>(call_ctx, request, schema, |s| {
                    s.action(specs).map(|_| ())
                })
                .await
                .map(|s| s.value.action(specs))
        }
    }

    /// The attempt's end when the model call failed at `step`. What the calls already
    /// showed is kept: with a successful call the attempt ends as the step cap ends it
    /// (uncertain, the latest output), with the model's failure said first.
    fn model_failed(
        &self,
        attempt: u32,
        step: u32,
        e: &LlmError,
        progress: &Progress,
    ) -> Attempted {
        let why = format!(
            "the executor's model call failed at step {step}: {} ({e})",
            e.plain()
        );
        let records = self.records_since(progress.first_record);
        let (status, output) = match step_capped(step, &records, &progress.observed) {
            (ExecutionStatus::Uncertain, shown) => {
                (ExecutionStatus::Uncertain, format!("{why}\n{shown}"))
            }
            _ => (ExecutionStatus::Failed, why),
        };
        let mut result = self.result(attempt, status, output, progress.first_record);
        if e.is_environmental() {
            result.interrupted = Some(Interruption::ModelUnavailable);
        }
        Attempted::Result(result)
    }

    /// Runs (or recalls) one tool call; breaks with the attempt's end on a repeated call
    /// or a cancel.
    async fn call_tool(
        &self,
        attempt: u32,
        progress: &mut Progress,
        turn: (u32, u32),
        tool: &ToolRef,
        input: Value,
    ) -> ControlFlow<Attempted> {
        let key = CallKey::of(tool, &input);
        // A call that failed or was refused, asked for again, goes to the toolbox, which
        // refuses it and quotes why it failed (its memory of failed calls): the next turn
        // reads that, and calls that keep failing end the attempt (`STALL_LIMIT`).
        let repeated_call = progress
            .called
            .iter()
            .find(|(k, n)| *k == key && !retold(&progress.observed[*n - 1]));
        // The call as its request states it: sent back once when it narrows by what
        // nobody named (asked for again, it runs), mended when the request says how.
        let mut note = None;
        let input = match self.fit(tool, &input) {
            tools::Fit::Unasked(why)
                if repeated_call.is_none()
                    && progress.asked_back.len() < MAX_ASKED_BACK
                    && !progress.asked_back.contains(&key) =>
            {
                tracing::info!(subtask = %self.subtask.subtask_id, tool = %tool, why, "call sent back");
                progress.asked_back.push(key);
                progress.nudge = Some(format!("The {tool} call was not run: {why}."));
                return ControlFlow::Continue(());
            }
            tools::Fit::Refused(why) => {
                tracing::info!(subtask = %self.subtask.subtask_id, tool = %tool, why, "call refused before it ran");
                progress.nudge = Some(format!("The {tool} call was not run: {why}."));
                return ControlFlow::Continue(());
            }
            tools::Fit::Mended { input, note: why } => {
                tracing::info!(subtask = %self.subtask.subtask_id, tool = %tool, why, "call mended");
                note = Some(format!(
                    "The {tool} call [{}]: {why}.",
                    progress.observed.len() + 1
                ));
                input
            }
            _ => input,
        };
        if let Some((_, n)) = repeated_call {
            // A read asked for again while the change asked for is not made: the model
            // has what it needs to make it, and is asked for that, once.
            if !progress.pushes.spent(Once::Change) && self.change_unmade(progress) {
                progress.pushes.spend(Once::Change);
                progress.nudge = Some(format!(
                    "Call [{n}] was asked for again; its result is above. The sub-task asks \
                     for a change, and no call has made it."
                ));
                return ControlFlow::Continue(());
            }
            // Never run twice. A small model repeats a call when it does not know how to
            // finish; the result it keeps asking for is the answer it has, so the attempt
            // ends with that result, verbatim (asking the model to restate it invites a
            // misquote).
            let records = self.records_since(progress.first_record);
            let (status, output) = repeated(&progress.observed[*n - 1], *n);
            let refs: Vec<&ToolCallRecord> = records.iter().collect();
            // Where the sub-task asks for the n-th of an order and a listing in that
            // order is in hand, the answer is that row, stated by code: the listing
            // whole would leave the picking to a reader.
            let output = match shape::nth_row(&self.asked_words(), &refs) {
                Some(row) if status == FinishStatus::Completed => row.statement(),
                _ => output,
            };
            // Unless that result, verbatim, is not the shape the task asks for (a listing
            // where a count or a value per group is asked): then the model gets one
            // finish-only turn to state the answer from it, checked like any finish.
            let misfit = matches!(
                shape::check(self.subtask.answer, &self.subtask.intent, &output, &refs),
                Verdict::Misfit(_)
            );
            if status == FinishStatus::Completed && misfit && !progress.pushes.finish_only {
                progress.pushes.finish_only = true;
                progress.nudge = Some(format!(
                    "Call [{n}] was asked for again; its result is above. Finish now: \
                     state {} from it.",
                    self.subtask.answer.words().unwrap_or("the answer")
                ));
                return ControlFlow::Continue(());
            }
            // The result asked for again is the answer the model has: weighed by the
            // finish table as its finish (a whole read given for one line is sent back
            // here as anywhere).
            return self.finish(attempt, progress, turn, status, &output, "");
        }
        let (seen, record) = if let Some((earlier, record)) = self.earlier_ok(&key) {
            // The same call succeeded in an earlier attempt: its result is shown again
            // rather than run again, and its record joins this attempt's, so what the
            // attempt finishes with is backed by it as if it had run now.
            self.ctx.history.recall(record.clone());
            (earlier, record)
        } else {
            // The same call failed before in this sub-task (a call whose parameters were
            // refused before it ran, a folder where a file is read, fails again without a
            // refusal). A denial is not a failure: Law 1 settles what follows one.
            let repeats_failure = self.ctx.history.records().iter().any(|r| {
                r.status == ToolCallStatus::Error && CallKey::of(&r.tool, &r.input) == key
            });
            let result = self.shared.toolbox.call(&self.ctx, tool, input).await;
            if self.ctx.cancel.is_cancelled() {
                return ControlFlow::Break(Attempted::Cancelled);
            }
            let seen = Observed::of(&result);
            self.forget_changed(&result.record);
            if seen.status == ToolCallStatus::Ok {
                self.remember_ok(key.clone(), &seen, &result.record);
            }
            let refused_as_repeat = seen.status == ToolCallStatus::Refused
                && result
                    .record
                    .error
                    .as_deref()
                    .is_some_and(tools::guards::repeats_a_failure);
            let failed_again = repeats_failure && seen.status == ToolCallStatus::Error;
            if (refused_as_repeat || failed_again)
                && let Ok(mut repeats) = self.repeats.lock()
            {
                repeats.push(tool.clone());
            }
            if self.stuck().contains(tool) {
                progress.nudge = Some(format!(
                    "{tool} is no longer offered to this sub-task: it was asked again, more \
                     than once, for calls that had already failed. Use another tool, or finish \
                     with what the results show and what could not be done."
                ));
            }
            (seen, result.record)
        };
        // A call that failed, asked for again, shows the model has nothing new to try:
        // with a result in hand the attempt finishes now rather than spend the budget on
        // more of the same.
        let failed_again = progress
            .called
            .iter()
            .any(|(k, n)| *k == key && retold(&progress.observed[*n - 1]));
        progress.record_call(key, seen, &record);
        let has_result = progress
            .observed
            .iter()
            .any(|o| o.status == ToolCallStatus::Ok);
        if failed_again && has_result && !progress.pushes.finish_only {
            progress.pushes.finish_only = true;
            progress.nudge = Some(FAILED_AGAIN_NUDGE.to_string());
        }
        if progress.nudge.is_none() {
            progress.nudge = note;
        }
        ControlFlow::Continue(())
    }

    /// The tools no longer offered to the sub-task (see [`Worker::repeats`]).
    fn stuck(&self) -> Vec<ToolRef> {
        let repeats = self.repeats.lock().map(|r| r.clone()).unwrap_or_default();
        let mut stuck: Vec<ToolRef> = Vec::new();
        for tool in &repeats {
            let n = repeats.iter().filter(|t| *t == tool).count();
            if n >= STUCK_AFTER && !stuck.contains(tool) {
                stuck.push(tool.clone());
            }
        }
        stuck
    }

    /// The sub-task's intent, with the user's own words where it carries them: what an
    /// answer is held to.
    fn asked_words(&self) -> String {
        match &self.subtask.request {
            Some(r) => format!("{}\n{r}", self.subtask.intent),
            None => self.subtask.intent.clone(),
        }
    }

    /// How a call's values stand against the sub-task (its intent, context, criteria and
    /// the user's own words) and what its calls printed.
    fn fit(&self, tool: &ToolRef, input: &Value) -> tools::Fit {
        let s = &self.subtask;
        let criteria = s.success_criteria.iter().map(|c| c.criterion.as_str());
        // The user's own words too, where the sub-task carries them: a value they name
        // is asked for, even when the intent's paraphrase lost it.
        let words = [s.intent.as_str(), s.context.as_str()]
            .into_iter()
            .chain(s.request.as_deref())
            .chain(criteria)
            .collect::<Vec<_>>()
            .join("\n");
        let records = self.ctx.history.records();
        // What calls on the same file or folder printed: a value one file shows is no
        // reason to filter another by it (a word of one poem became the line filter of
        // the next file, and kept none of its lines).
        // A written text draws on what any call printed, whatever it looked at.
        let here = ["path", "folder"]
            .iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))
            .filter(|_| tool.builtin() != Some(tools::ToolName::WriteFile))
            .map(|p| self.ctx.resolve_read_path(p).display().to_string());
        let mut seen = records
            .iter()
            .filter(|r| {
                here.as_ref()
                    .is_none_or(|h| r.target.trim_end_matches('/') == h.trim_end_matches('/'))
            })
            .map(|r| r.output_head.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        // A table's columns and values are known before its first call: the request's
        // words may name a column ("which month") or a value of one ("on Atlas"), and the
        // check of that first call needs them.
        let mut row_value = None;
        let mut table_columns: Vec<String> = Vec::new();
        if tool.builtin() == Some(tools::ToolName::ReadTable)
            && let Some(path) = input.get("path").and_then(Value::as_str)
        {
            let file = self.ctx.resolve_read_path(path);
            // The sub-task's own words, not its context: earlier steps' outputs there
            // are full of the table's values.
            let tools::TableFacts { columns, named } =
                tools::table_facts(&file, input, &self.asked_words());
            row_value = named;
            if !columns.is_empty() {
                seen.push_str(&format!(
                    "\n{path}: {} columns: {}",
                    columns.len(),
                    columns.join(", ")
                ));
            }
            table_columns = columns;
        }
        let earlier: Vec<Value> = records
            .iter()
            .filter(|r| r.status == ToolCallStatus::Ok && &r.tool == tool)
            .map(|r| r.input.clone())
            .collect();
        let stated = s.stated();
        // Only the rules of filters, copies and moves read what the task is to make; a
        // call of another tool looks for no file.
        let unmade = if matches!(
            tool.builtin(),
            Some(
                tools::ToolName::ListFiles
                    | tools::ToolName::ReadLines
                    | tools::ToolName::ReadTable
                    | tools::ToolName::CopyFiles
                    | tools::ToolName::MoveFiles
            )
        ) {
            self.unmade(&stated, input, &records)
        } else {
            Vec::new()
        };
        // A name pattern of a word the request says, that no file name holds and the
        // text of some files does: read here, from the folder, for the rule that selects
        // by the text instead.
        let by_text = match tool.builtin() {
            Some(
                tools::ToolName::CopyFiles
                | tools::ToolName::MoveFiles
                | tools::ToolName::ListFiles,
            ) => {
                let folder = ["from", "folder"]
                    .iter()
                    .find_map(|k| input.get(*k).and_then(Value::as_str))
                    .map(|p| self.ctx.resolve_read_path(p))
                    .filter(|f| f.is_dir());
                let patterns: Vec<String> = tools::NAME_SELECTORS
                    .iter()
                    .filter_map(|k| input.get(*k).and_then(Value::as_str))
                    .flat_map(|v| v.split(','))
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect();
                folder
                    .filter(|_| !patterns.is_empty())
                    .and_then(|f| tools::text_instead(&f, &patterns, &self.asked_words()))
            }
            _ => None,
        };
        tools::fit(
            tool,
            input,
            tools::Asked {
                words: &words,
                stated: &stated,
                seen: &seen,
                earlier: &earlier,
                row_value: row_value.as_ref().map(|(c, v)| (c.as_str(), v.as_str())),
                columns: &table_columns,
                unmade: &unmade,
                by_text: by_text.as_ref().map(|(w, h)| (w.as_str(), h.as_slice())),
            },
        )
    }

    /// The file names `stated` gives that exist nowhere yet: not at the path written,
    /// not in the home folder nor in a folder the call names, and in no call's output.
    /// What the task is to make ([`tools::Asked::unmade`]).
    fn unmade(&self, stated: &str, input: &Value, records: &[ToolCallRecord]) -> Vec<String> {
        let folders: Vec<std::path::PathBuf> = ["from", "to", "folder", "path"]
            .iter()
            .filter_map(|k| input.get(*k).and_then(Value::as_str))
            .map(|p| self.ctx.resolve_read_path(p))
            .flat_map(|p| [p.parent().map(std::path::Path::to_path_buf), Some(p)])
            .flatten()
            .chain(std::iter::once(self.ctx.resolve_read_path("~")))
            .collect();
        tools::file_names_stated(stated)
            .into_iter()
            .filter(|name| {
                let exists = if name.contains('/') || name.starts_with('~') {
                    self.ctx.resolve_read_path(name).exists()
                } else {
                    folders.iter().any(|f| f.join(name).exists())
                };
                let shown = records
                    .iter()
                    .any(|r| r.output_head.contains(name.as_str()));
                !exists && !shown
            })
            .collect()
    }

    /// Weighs a finish by the table of finish checks ([`super::finish::CHECKS`]): sent
    /// back (continue, the push-back told first), settled by code, or delivered with
    /// the account of its effects and as honest as its records allow.
    fn finish(
        &self,
        attempt: u32,
        progress: &mut Progress,
        (step, max_steps): (u32, u32),
        status: FinishStatus,
        output: &str,
        summary: &str,
    ) -> ControlFlow<Attempted> {
        let records = self.records_since(progress.first_record);
        let finish = Finish {
            status,
            output,
            summary,
            records: &records,
            observed: &progress.observed,
            step,
            max_steps,
        };
        let subject = self.subject(progress);
        let (check, output) = match weigh(&finish, &subject, &mut progress.pushes) {
            Weighed::Pushed { check, nudge } => {
                tracing::info!(subtask = %self.subtask.subtask_id, check, %output, %nudge, "finish sent back");
                progress.nudge = Some(nudge);
                return ControlFlow::Continue(());
            }
            Weighed::Settled { check, answer } => {
                tracing::info!(subtask = %self.subtask.subtask_id, check, %answer, "answer stated by code");
                return ControlFlow::Break(Attempted::Result(self.result(
                    attempt,
                    ExecutionStatus::Completed,
                    answer,
                    progress.first_record,
                )));
            }
            Weighed::Delivered {
                output,
                restated_by,
                doubts,
            } => (restated_by, (output, doubts)),
        };
        let (output, doubts) = output;
        for check in check {
            tracing::info!(subtask = %self.subtask.subtask_id, check, %output, "answer restated by code");
        }
        let (status, output) = honest_finish(status, &output, summary, &records);
        // What the finish checks still hold against the answer goes with it.
        let (status, output) = match (status, doubts.first()) {
            (ExecutionStatus::Completed, Some(doubt)) => {
                tracing::info!(subtask = %self.subtask.subtask_id, %doubt, "delivered with a doubt");
                (
                    ExecutionStatus::Uncertain,
                    format!(
                        "{} {}\n{output}",
                        crate::contracts::DOUBT_PREFIX,
                        crate::text::one_line(doubt, 600)
                    ),
                )
            }
            (status, _) => (status, output),
        };
        ControlFlow::Break(Attempted::Result(self.result(
            attempt,
            status,
            output,
            progress.first_record,
        )))
    }

    /// What the finish checks know of the sub-task.
    fn subject(&self, progress: &Progress) -> Subject<'_> {
        Subject {
            answer: self.subtask.answer,
            intent: &self.subtask.intent,
            context: &self.subtask.context,
            request: self.subtask.request.as_deref(),
            files: &self.files,
            texts: &self.texts,
            unwritten: self.unwritten(),
            change_unmade: self.change_unmade(progress),
            can_calculate: self.shared.toolbox.has(&tools::ToolName::Calculate.into()),
            home: &self.shared.config.home,
        }
    }

    /// Whether the attempt's calls that answered only looked at the data's structure
    /// (`shape::is_look`) while the sub-task asks for something about its content: then
    /// nothing is computed yet, and a finish now could only copy the look or guess. An
    /// answer that *does* something (a file, an action) is not read from a look.
    fn only_looked(&self, first_record: usize) -> bool {
        if matches!(self.subtask.answer, AnswerShape::File | AnswerShape::Action) {
            return false;
        }
        let records = self.records_since(first_record);
        let mut ok = records
            .iter()
            .filter(|r| r.status == ToolCallStatus::Ok)
            .peekable();
        ok.peek().is_some() && ok.all(shape::is_look)
    }

    /// Whether the next step must make the change the sub-task asks for
    /// ([`Offer::Change`]): the change is unmade ([`Worker::change_unmade`]), and a finish
    /// without it was sent back in this attempt, or a read was asked for again, or an
    /// earlier attempt ended without it.
    fn change_owed(&self, attempt: u32, progress: &Progress) -> bool {
        let pressed = progress.pushes.shape_pushes() > 0
            || progress.pushes.spent(Once::Change)
            || attempt > 1;
        pressed && self.change_unmade(progress)
    }

    /// Whether the sub-task owes a change it has not made — a change in place its words
    /// ask for ([`crate::laws::requested::in_place_change`]) while its calls changed
    /// nothing, or a file it asks to make that is still unwritten ([`Worker::unwritten`])
    /// — while its calls have read something, none was put to the user, this attempt has
    /// not tried a tool that changes files (a failed try is the model's to answer), and
    /// some such tool is still offered.
    fn change_unmade(&self, progress: &Progress) -> bool {
        let records = self.ctx.history.records();
        let refs: Vec<&ToolCallRecord> = records.iter().collect();
        let in_place = crate::laws::requested::in_place_change(&self.asked_words()).is_some()
            && !crate::checks::said::changed_anything(&refs);
        let owed = in_place || !self.unwritten().is_empty();
        let looked = records.iter().any(|r| r.status == ToolCallStatus::Ok);
        let untouched = owed && records.iter().all(|r| r.confirmation.is_none());
        let tried = records
            .iter()
            .skip(progress.first_record)
            .any(|r| r.tool.builtin().is_some_and(tools::changes_files));
        let stuck = self.stuck();
        let can_change =
            self.shared.specs.iter().any(|s| {
                !stuck.contains(&s.name) && s.name.builtin().is_none_or(tools::changes_files)
            });
        looked && untouched && !tried && can_change
    }

    /// The files the sub-task names that did not exist when it began, when its words ask
    /// to make files (Law 1's vocabulary of writing: write, save, create, combine, …) and
    /// no successful call of the sub-task has written them yet: outputs it owes.
    fn unwritten(&self) -> Vec<String> {
        let words = self.asked_words();
        if !crate::laws::requested::asks_for(crate::laws::EffectKind::Overwrite, &words) {
            return Vec::new();
        }
        let records = self.ctx.history.records();
        let written: Vec<String> = records
            .iter()
            .filter(|r| r.status == ToolCallStatus::Ok)
            .flat_map(|r| &r.effects)
            .filter_map(|e| e.path.file_name())
            .map(|n| n.to_string_lossy().to_lowercase())
            .collect();
        self.files
            .iter()
            .filter(|f| !f.folders.is_empty() && !written.contains(&f.name))
            .map(|f| f.name.clone())
            .collect()
    }

    /// The result of an identical call that succeeded in an earlier attempt.
    fn earlier_ok(&self, key: &CallKey) -> Option<(Observed, ToolCallRecord)> {
        let done = crate::sync::lock(&self.done);
        done.iter().find(|(k, ..)| k == key).map(|(_, o, record)| {
            let shown = Observed {
                text: format!(
                    "(the same call ran in an earlier attempt; its result:)\n{}",
                    o.text
                ),
                ..o.clone()
            };
            (shown, record.clone())
        })
    }

    /// Forgets the remembered results of calls whose place `change` changed: shown again,
    /// they would show the place as it was, not as it is.
    fn forget_changed(&self, change: &ToolCallRecord) {
        crate::sync::lock(&self.done).retain(|(_, _, record)| !change.changed(&record.target));
    }

    fn remember_ok(&self, key: CallKey, seen: &Observed, record: &ToolCallRecord) {
        let mut done = crate::sync::lock(&self.done);
        if done.len() < MAX_REMEMBERED_CALLS {
            done.push((key, seen.clone(), record.clone()));
        }
    }
}

/// A call with its input canonicalised: strings trimmed and their runs of whitespace
/// folded, so `ls  /a` and `ls /a ` are the same call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CallKey {
    tool: ToolRef,
    input: Value,
}

impl CallKey {
    pub fn of(tool: &ToolRef, input: &Value) -> Self {
        fn canon(v: &Value) -> Value {
            match v {
                Value::String(s) => {
                    Value::String(s.split_whitespace().collect::<Vec<_>>().join(" "))
                }
                Value::Array(items) => Value::Array(items.iter().map(canon).collect()),
                Value::Object(map) => Value::Object(
                    map.iter()
                        .filter(|(_, v)| !v.is_null())
                        .map(|(k, v)| (k.clone(), canon(v)))
                        .collect(),
                ),
                other => other.clone(),
            }
        }
        Self {
            tool: tool.clone(),
            input: canon(input),
        }
    }
}

/// Whether a call's failure is told again by the toolbox when the call is asked for
/// again (an error or a refusal), rather than settling the attempt (a success is the
/// answer the model has; a Law 1 denial is final).
fn retold(seen: &Observed) -> bool {
    matches!(seen.status, ToolCallStatus::Error | ToolCallStatus::Refused)
}

/// The finish of an attempt whose model asked for call `[n]` again: its output when it
/// succeeded, its failure otherwise.
pub fn repeated(seen: &Observed, n: usize) -> (FinishStatus, String) {
    if seen.status == ToolCallStatus::Ok {
        (
            FinishStatus::Completed,
            first_chars(seen.text.trim(), MAX_CAPPED_OUTPUT_CHARS),
        )
    } else {
        (
            FinishStatus::Failed,
            format!(
                "call [{n}] ({} {}) did not succeed and the executor asked for it again: {}",
                seen.tool,
                first_chars(&seen.input, 200),
                first_chars(seen.text.trim(), 600)
            ),
        )
    }
}

/// Whether some call of the attempt shows anything (a shell command that exited with a
/// failure does not).
fn any_ok(records: &[ToolCallRecord]) -> bool {
    records.iter().any(ToolCallRecord::grounds)
}

/// The first Law 1 denial of the attempt, as the toolbox reported it.
fn denial(records: &[ToolCallRecord]) -> Option<&ToolCallRecord> {
    records.iter().find(|r| r.status == ToolCallStatus::Denied)
}

fn join_nonempty(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The status and output sent to R4a for a finish, under the honesty rules above.
pub fn honest_finish(
    status: FinishStatus,
    output: &str,
    summary: &str,
    records: &[ToolCallRecord],
) -> (ExecutionStatus, String) {
    if let Some(denied) = denial(records) {
        let reason = denied
            .error
            .clone()
            .unwrap_or_else(|| format!("[LAW1] {} was not allowed", denied.tool));
        return (
            ExecutionStatus::Failed,
            join_nonempty(&[&reason, summary, output]),
        );
    }
    match status {
        FinishStatus::Completed if !any_ok(records) => (
            ExecutionStatus::Uncertain,
            join_nonempty(&[UNBACKED_PREFIX, output, summary]),
        ),
        FinishStatus::Completed => (
            ExecutionStatus::Completed,
            if output.is_empty() {
                summary.to_string()
            } else {
                output.to_string()
            },
        ),
        FinishStatus::Uncertain | FinishStatus::Failed => {
            (status.into(), join_nonempty(&[summary, output]))
        }
    }
}

/// The result of an attempt that used every turn without finishing.
pub fn step_capped(
    max_steps: u32,
    records: &[ToolCallRecord],
    observed: &[Observed],
) -> (ExecutionStatus, String) {
    let head = format!(
        "Stopped after {max_steps} model turns without finishing ({} tool call(s), {} ok).",
        records.len(),
        records
            .iter()
            .filter(|r| r.status == ToolCallStatus::Ok)
            .count()
    );
    if let Some(denied) = denial(records) {
        let reason = denied.error.clone().unwrap_or_default();
        return (ExecutionStatus::Failed, join_nonempty(&[&reason, &head]));
    }
    match observed
        .iter()
        .rev()
        .find(|o| o.status == ToolCallStatus::Ok)
    {
        Some(latest) => (
            ExecutionStatus::Uncertain,
            format!(
                "{head}\nLatest successful output ({} {}):\n{}",
                latest.tool,
                first_chars(&latest.input, 200),
                first_chars(&latest.text, MAX_CAPPED_OUTPUT_CHARS)
            ),
        ),
        None => (ExecutionStatus::Failed, head),
    }
}

/// How long a worker waits for R4a beyond the sub-task's budget: one judgement with its
/// re-ask at the configured call timeout, and a margin.
pub fn reply_grace(call_timeout: Duration) -> Duration {
    call_timeout * 2 + Duration::from_secs(10)
}

#[cfg(test)]
mod tests;
