//! R2's decisions as plain state. In: a `TaskSpec`, a `PlanDirective`, a
//! `GracefulFailureRequest`, R5's `MemoryResponse`s, the end of a model call and the
//! deadline of a round's memory wait. Out, through the handler's [`Effects`]: the
//! `MemoryQuery`s with their deadline, the `MemoryRecall`s, one `DispatchManifest` or one
//! `PlanningFailed` per round, the `GracefulFailure` reply, and the next model call to
//! make ([`Call`]). No bus, no model, no clock: the wiring in `mod.rs` builds the
//! requests, runs the calls, reads the time and says when a task closed.
//!
//! A kept task is idle (with the summary of the last plan it dispatched, for the next
//! replan) or runs one round, which is calibrating (its two memory queries out, waiting
//! for the answers at most until the round's deadline) or planning (one model call in
//! flight, with the re-asks made so far). A round that arrives while another is in
//! flight waits its turn, in arrival order, and is planned against the plan the earlier
//! round left. R5 answers its queries in order, so an answer that comes after its round
//! stopped waiting is counted out and never taken for a later round's.
//!
//! Kept tasks are bounded: past `live_tasks` the least recently used one is forgotten.
//! A forgotten task (or one whose graceful failure was asked for) takes no new
//! directive, but a round already in flight or waiting still ends as it would have.
//!
//! **Invariant:** a task runs at most one round at a time, every round ends in exactly
//! one `DispatchManifest` (of a plan the validator accepted) or one `PlanningFailed`
//! unless its model call was cancelled, and a task the state was told closed is
//! forgotten at once, so nothing more is published for it.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::calibration::{self, Answer, Calibration, Group};
use super::compose::{code_built, composed, manifest};
use super::prompt::{self, PlanSummary};
use super::schema::{GracefulDraft, PlanDraft};
use super::validator::{self, PlanRules, Violation};
use crate::actor::Effects;
use crate::checks::criteria::Files;
use crate::contracts::{
    EnvelopeId, GracefulFailureRequest, MemoryQuery, MemoryResponse, PlanDirective, PlanningFailed,
    ReplanDirective, Role, TaskId, TaskSpec,
};
use crate::llm::{ChatRequest, LlmError, REASK_ECHO_CHARS};
use crate::text::first_chars;

/// A model call the state asks for: the wiring builds its request, runs it as a job of
/// the task and hands what it ended with to [`Plans::on_done`].
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Call {
    /// A round's first ask: the plan (no directive) or replan request built from these.
    Plan {
        /// The task's spec, as the round was asked for.
        spec: Arc<TaskSpec>,
        /// GGS's directive; None for the first plan.
        directive: Option<PlanDirective>,
        /// The plan dispatched last for the task, if any.
        previous: Option<PlanSummary>,
        /// The calibration's constraint block.
        constraints: String,
    },
    /// A re-ask: the conversation so far, extended with the rejected plan and why.
    Reask {
        /// The task planned.
        task: TaskId,
        /// The whole request to send.
        request: ChatRequest,
    },
    /// The model's part of a graceful failure, bounded by the wiring's budget.
    Graceful {
        /// The request envelope the reply answers.
        request_id: EnvelopeId,
        /// GGS's request.
        request: GracefulFailureRequest,
        /// The task's spec, when R2 still kept it.
        spec: Option<Arc<TaskSpec>>,
    },
}

impl Call {
    /// The task the call works for.
    pub(super) fn task(&self) -> &TaskId {
        match self {
            Call::Plan { spec, .. } => &spec.task_id,
            Call::Reask { task, .. } => task,
            Call::Graceful { request, .. } => &request.task_id,
        }
    }
}

/// A plan the model wrote, with the reply it came in (echoed back on a re-ask).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Drafted {
    /// The parsed plan.
    pub(super) draft: PlanDraft,
    /// The reply's text.
    pub(super) reply: String,
}

/// What one of R2's model calls ended with.
#[derive(Debug)]
pub(super) enum Done {
    /// A plan call: the request it made and the plan, or why there is none.
    Planned {
        /// The request sent, which a re-ask extends.
        request: ChatRequest,
        /// The plan, or why there is none.
        outcome: Result<Drafted, LlmError>,
    },
    /// A graceful-failure call, with the request it answers.
    Graceful {
        /// The request envelope the reply answers.
        request_id: EnvelopeId,
        /// GGS's request.
        request: GracefulFailureRequest,
        /// The model's next moves, or why there are none.
        outcome: Result<GracefulDraft, LlmError>,
    },
}

/// The deadline of a round's memory wait: the round's number within its task.
pub(super) type Timer = u64;

/// The effects of one reaction.
pub(super) type Fx = Effects<Timer>;

/// What the decisions depend on, set once from the configuration.
#[derive(Clone, Debug)]
pub(super) struct Settings {
    /// Re-asks allowed per round after the validator rejected a plan.
    pub(super) plan_reasks: u32,
    /// The most memory constraints kept per round.
    pub(super) max_constraints: usize,
    /// The most tasks kept; past it the least recently used is forgotten.
    pub(super) live_tasks: usize,
    /// How long a round waits for memory before it plans without it.
    pub(super) memory_timeout: Duration,
    /// The user's home folder, for the validator's `~`.
    pub(super) home: PathBuf,
    /// The files, as the checks code derives from a request read them.
    pub(super) files: Arc<dyn Files>,
}

/// A round asked for, not started yet.
struct Ask {
    spec: Arc<TaskSpec>,
    directive: Option<PlanDirective>,
}

/// Where the round in flight is.
enum Phase {
    /// The memory queries are out; each group's answer, once it came.
    Calibrating {
        answers: Vec<(Group, Option<Answer>)>,
    },
    /// The plan call is in flight.
    Planning { cal: Calibration, reasks: u32 },
}

/// The round in flight.
struct Round {
    ask: Ask,
    /// Counts the task's rounds; its memory deadline carries it.
    number: Timer,
    phase: Phase,
}

impl Round {
    /// The planning round as GGS counts it: 0 for the first plan.
    fn round(&self) -> u32 {
        self.ask.directive.as_ref().map_or(0, |d| d.round)
    }
}

/// One task R2 plans for.
struct Task {
    spec: Arc<TaskSpec>,
    previous: Option<PlanSummary>,
    round: Option<Round>,
    waiting: VecDeque<Ask>,
    /// False once forgotten: a directive then finds no task.
    kept: bool,
    last_used: u64,
    rounds: Timer,
    /// Per group, the answers still due to rounds that stopped waiting for them.
    stale: Vec<(Group, u32)>,
}

impl Task {
    fn new(spec: Arc<TaskSpec>) -> Self {
        Self {
            spec,
            previous: None,
            round: None,
            waiting: VecDeque::new(),
            kept: true,
            last_used: 0,
            rounds: 0,
            stale: Vec::new(),
        }
    }

    fn idle(&self) -> bool {
        self.round.is_none() && self.waiting.is_empty()
    }

    /// Queues a round; it starts now if none is in flight.
    fn enqueue(&mut self, ask: Ask, s: &Settings, fx: &mut Fx) {
        self.waiting.push_back(ask);
        if self.round.is_none() {
            self.next(s, fx);
        }
    }

    /// Starts the next waiting round: one query per memory group, one deadline.
    fn next(&mut self, s: &Settings, fx: &mut Fx) {
        let Some(ask) = self.waiting.pop_front() else {
            return;
        };
        self.rounds += 1;
        let task = ask.spec.task_id.clone();
        let groups = calibration::groups(&ask.spec.intent);
        for group in &groups {
            fx.publish(
                Role::Memory,
                MemoryQuery {
                    task_id: task.clone(),
                    space: group.space.clone(),
                    entity: group.entity.clone(),
                },
            );
        }
        fx.after(s.memory_timeout, &task, self.rounds);
        self.round = Some(Round {
            ask,
            number: self.rounds,
            phase: Phase::Calibrating {
                answers: groups.into_iter().map(|g| (g, None)).collect(),
            },
        });
    }

    /// Counts out an answer due to a round that stopped waiting; true when it was one.
    fn take_stale(&mut self, group: &Group) -> bool {
        match self.stale.iter_mut().find(|(g, n)| g == group && *n > 0) {
            Some((_, n)) => {
                *n -= 1;
                true
            }
            None => false,
        }
    }

    fn mark_stale(&mut self, group: &Group) {
        match self.stale.iter_mut().find(|(g, _)| g == group) {
            Some((_, n)) => *n += 1,
            None => self.stale.push((group.clone(), 1)),
        }
    }

    /// Memory is in (or given up on): the recalls go to GGS and the plan call is asked.
    fn calibrated(&mut self, s: &Settings, now: DateTime<Utc>, fx: &mut Fx) -> Option<Call> {
        let round = self.round.as_mut()?;
        let Phase::Calibrating { answers } = &round.phase else {
            return None;
        };
        let answers: Vec<(Group, Answer)> = answers
            .iter()
            .map(|(g, a)| {
                let a = a
                    .clone()
                    .unwrap_or_else(|| calibration::overdue(s.memory_timeout));
                (g.clone(), a)
            })
            .collect();
        let cal = calibration::calibrate(calibration::Input {
            task_id: &round.ask.spec.task_id,
            round: round.round(),
            answers: &answers,
            directive: round.ask.directive.as_ref(),
            max_constraints: s.max_constraints,
            now,
        });
        for recall in &cal.recalls {
            fx.publish(Role::Ggs, recall.clone());
        }
        let call = Call::Plan {
            spec: Arc::clone(&round.ask.spec),
            directive: round.ask.directive.clone(),
            previous: self.previous.clone(),
            constraints: cal.prompt_block.clone(),
        };
        round.phase = Phase::Planning { cal, reasks: 0 };
        Some(call)
    }
}

/// What the validator's verdict on a plan answer leads to.
enum Verdict {
    Dispatch(PlanDraft),
    Reask(Vec<Violation>),
    Failed(String),
}

/// R2's decisions: plain state, no bus, no model, no clock.
pub(super) struct Plans {
    pub(super) settings: Settings,
    tasks: HashMap<TaskId, Task>,
    tick: u64,
}

impl Plans {
    pub(super) fn new(settings: Settings) -> Self {
        Self {
            settings,
            tasks: HashMap::new(),
            tick: 0,
        }
    }

    /// A task to plan: it is kept (the least recently used one forgotten if there is no
    /// room) and its first round is queued.
    pub(super) fn on_spec(&mut self, spec: &TaskSpec, fx: &mut Fx) {
        self.tick += 1;
        let id = &spec.task_id;
        if !self.tasks.get(id).is_some_and(|t| t.kept) {
            self.make_room();
        }
        let spec = Arc::new(spec.clone());
        let task = self
            .tasks
            .entry(id.clone())
            .or_insert_with(|| Task::new(Arc::clone(&spec)));
        task.spec = Arc::clone(&spec);
        task.kept = true;
        task.last_used = self.tick;
        let ask = Ask {
            spec,
            directive: None,
        };
        task.enqueue(ask, &self.settings, fx);
    }

    /// Forgets the least recently used kept task when no more fit.
    fn make_room(&mut self) {
        let kept = self.tasks.values().filter(|t| t.kept).count();
        if kept < self.settings.live_tasks {
            return;
        }
        let oldest = self
            .tasks
            .iter()
            .filter(|(_, t)| t.kept)
            .min_by_key(|(_, t)| t.last_used)
            .map(|(id, _)| id.clone());
        if let Some(id) = oldest {
            self.forget(&id);
        }
    }

    /// Forgets a kept task, returning its spec; a round in flight or waiting still ends.
    fn forget(&mut self, task: &TaskId) -> Option<Arc<TaskSpec>> {
        let entry = self.tasks.get_mut(task).filter(|t| t.kept)?;
        entry.kept = false;
        let spec = Arc::clone(&entry.spec);
        if entry.idle() {
            self.tasks.remove(task);
        }
        Some(spec)
    }

    /// GGS's replan directive: a round against the task's own spec, queued behind any in
    /// flight. For a task R2 does not keep (never seen, or forgotten) there is nothing to
    /// plan against, so GGS hears so at once rather than waiting.
    pub(super) fn on_directive(&mut self, d: &PlanDirective, fx: &mut Fx) {
        self.tick += 1;
        let Some(task) = self.tasks.get_mut(&d.task_id).filter(|t| t.kept) else {
            fx.publish(
                Role::Ggs,
                PlanningFailed {
                    task_id: d.task_id.clone(),
                    intent: String::new(),
                    reason: "R2 holds no TaskSpec for this task, so it cannot replan it".into(),
                    round: d.round,
                },
            );
            return;
        };
        task.last_used = self.tick;
        let ask = Ask {
            spec: Arc::clone(&task.spec),
            directive: Some(d.clone()),
        };
        task.enqueue(ask, &self.settings, fx);
    }

    /// GGS's graceful-failure request: the task is ending, so this is the last R2 hears
    /// of it; it is forgotten now and the model is asked for the next moves.
    pub(super) fn on_graceful(
        &mut self,
        request_id: EnvelopeId,
        request: &GracefulFailureRequest,
    ) -> Call {
        Call::Graceful {
            request_id,
            request: request.clone(),
            spec: self.forget(&request.task_id),
        }
    }

    /// R5's answer for one group of a task's round. Once every group is in, the round
    /// calibrates and asks for its plan call.
    pub(super) fn on_memory(
        &mut self,
        response: &MemoryResponse,
        now: DateTime<Utc>,
        fx: &mut Fx,
    ) -> Option<Call> {
        let task = self.tasks.get_mut(&response.task_id)?;
        let group = Group {
            space: response.space.clone(),
            entity: response.entity.clone(),
        };
        if task.take_stale(&group) {
            tracing::debug!(task = %response.task_id, space = %group.space,
                "a memory answer after its round stopped waiting ignored");
            return None;
        }
        let Some(Round {
            phase: Phase::Calibrating { answers },
            ..
        }) = &mut task.round
        else {
            return None;
        };
        let (_, slot) = answers
            .iter_mut()
            .find(|(g, a)| *g == group && a.is_none())?;
        *slot = Some(calibration::answer_of(response));
        if answers.iter().any(|(_, a)| a.is_none()) {
            return None;
        }
        task.calibrated(&self.settings, now, fx)
    }

    /// A round's memory wait ended: the groups still unanswered are planned without. A
    /// deadline of a round that already moved on is stale and changes nothing.
    pub(super) fn memory_overdue(
        &mut self,
        task: &TaskId,
        number: Timer,
        now: DateTime<Utc>,
        fx: &mut Fx,
    ) -> Option<Call> {
        let task = self.tasks.get_mut(task)?;
        let Some(Round {
            number: current,
            phase: Phase::Calibrating { answers },
            ..
        }) = &task.round
        else {
            return None;
        };
        if *current != number {
            return None;
        }
        let late: Vec<Group> = answers
            .iter()
            .filter(|(_, a)| a.is_none())
            .map(|(g, _)| g.clone())
            .collect();
        for group in &late {
            task.mark_stale(group);
        }
        task.calibrated(&self.settings, now, fx)
    }

    /// A model call of `task` ended.
    pub(super) fn on_done(
        &mut self,
        task: &TaskId,
        done: Done,
        now: DateTime<Utc>,
        fx: &mut Fx,
    ) -> Option<Call> {
        match done {
            Done::Planned { request, outcome } => self.planned(task, request, outcome, now, fx),
            Done::Graceful {
                request_id,
                request,
                outcome,
            } => {
                let reply = match outcome {
                    Ok(draft) => composed(&request, draft),
                    Err(e) => {
                        tracing::info!(task = %request.task_id, error = %e,
                            "graceful failure from the model failed; answering with the code-built one");
                        code_built(&request)
                    }
                };
                fx.reply(Role::Ggs, request_id, reply);
                None
            }
        }
    }

    /// A plan call ended: dispatch, re-ask or fail, then the next waiting round.
    fn planned(
        &mut self,
        id: &TaskId,
        request: ChatRequest,
        outcome: Result<Drafted, LlmError>,
        now: DateTime<Utc>,
        fx: &mut Fx,
    ) -> Option<Call> {
        let s = &self.settings;
        let task = self.tasks.get_mut(id)?;
        let Task {
            round: Some(round),
            previous,
            ..
        } = &mut *task
        else {
            return None;
        };
        let n = round.round();
        let Phase::Planning { cal, reasks } = &mut round.phase else {
            return None;
        };
        let verdict = match outcome {
            // The call was stopped: the round ends with nothing to say.
            Err(LlmError::Cancelled) => None,
            Err(e) => {
                tracing::warn!(task = %id, error = %e, "no usable plan from the model");
                Some(Verdict::Failed(format!(
                    "no plan could be made: {}",
                    e.plain()
                )))
            }
            Ok(drafted) => {
                match judge(
                    &drafted.draft,
                    &round.ask,
                    previous.as_ref(),
                    cal,
                    *reasks,
                    s,
                ) {
                    Verdict::Reask(violations) => {
                        *reasks += 1;
                        tracing::info!(task = %id, n_reasks = *reasks, ?violations,
                            "plan rejected; re-asking");
                        let echo = first_chars(&drafted.reply, REASK_ECHO_CHARS);
                        return Some(Call::Reask {
                            task: id.clone(),
                            request: prompt::reask(request, &echo, &violations),
                        });
                    }
                    verdict => Some(verdict),
                }
            }
        };
        let spec = &round.ask.spec;
        match verdict {
            Some(Verdict::Dispatch(draft)) => {
                // One envelope: R4b hears the manifest the dispatcher gets.
                let world = (s.home.as_path(), &*s.files);
                fx.publish(
                    Role::Dispatcher,
                    manifest(spec, &draft, cal, (n, now), world),
                );
                *previous = Some(PlanSummary::of(&draft, n));
            }
            Some(Verdict::Failed(reason)) => {
                tracing::warn!(task = %id, round = n, %reason, "no valid plan");
                fx.publish(
                    Role::Ggs,
                    PlanningFailed {
                        task_id: spec.task_id.clone(),
                        intent: spec.intent.clone(),
                        reason,
                        round: n,
                    },
                );
            }
            Some(Verdict::Reask(_)) | None => {}
        }
        task.round = None;
        task.next(s, fx);
        if !task.kept && task.idle() {
            self.tasks.remove(id);
        }
        None
    }

    /// Forgets a task that closed; nothing more is published for it.
    pub(super) fn close(&mut self, task: &TaskId) {
        if self.tasks.remove(task).is_some() {
            tracing::debug!(task = %task, "planning stopped: the task closed");
        }
    }
}

/// The validator's verdict on a plan, with `reasks` re-asks made: accepted, mended by
/// code once the re-asks are spent (a task is not abandoned for the plan's form alone),
/// re-asked, or failed.
fn judge(
    draft: &PlanDraft,
    ask: &Ask,
    previous: Option<&PlanSummary>,
    cal: &Calibration,
    reasks: u32,
    s: &Settings,
) -> Verdict {
    let spec = &ask.spec;
    let task_words = format!("{}\n{}", spec.intent, spec.raw_input);
    let distinct_from = match &ask.directive {
        Some(d) if d.directive == ReplanDirective::BreakSymmetry => previous.map(|p| &p.tools),
        _ => None,
    };
    let replaces = match &ask.directive {
        Some(d) => previous.map(|p| validator::Replaced {
            subtasks: &p.drafted,
            why: &d.failed_criterion,
        }),
        None => None,
    };
    // What the planning prompt showed besides the task's words: the facts code computed
    // from them, and memory's constraints.
    let shown = format!(
        "{}\n{}",
        crate::calc::computed_lines(&task_words).join("\n"),
        cal.prompt_block
    );
    let rules = PlanRules {
        blocked_tools: &cal.must_not_tools,
        blocked_targets: &cal.must_not_targets,
        distinct_from,
        replaces,
        home: &s.home,
        task: &task_words,
        request: &spec.raw_input,
        shown: &shown,
    };
    let deduped = draft.without_repeats();
    if deduped.subtasks.len() < draft.subtasks.len() {
        tracing::info!(task = %spec.task_id, "a sub-task the plan repeated was left out");
    }
    // A question is answered by reading what exists: a step that only changes files, or
    // one about a path nobody named that is not there, is left out (`needed`).
    let shape = super::compose::answer_of(&deduped, spec);
    let (needed, left_out) =
        super::needed::for_a_question(&deduped, &spec.raw_input, shape, &s.home, &*s.files);
    if needed.subtasks.len() < deduped.subtasks.len() {
        tracing::info!(task = %spec.task_id, ?left_out, "a question's steps were left out or made one");
    }
    let draft = &needed;
    let violations = validator::validate(draft, &rules);
    if violations.is_empty() {
        return Verdict::Dispatch(draft.clone());
    }
    if reasks < s.plan_reasks {
        return Verdict::Reask(violations);
    }
    let repaired = validator::repair(draft, &spec.intent, &rules);
    // The tools are a short closed list: once the re-asks are spent, a plan that changes
    // what its sub-tasks do (intents, contexts, parameters) is a new approach with the
    // same tools too. Only a plan that repeats the previous one is not (and `repair`
    // tells each sub-task what failed).
    let left: Vec<Violation> = validator::validate(&repaired, &rules)
        .into_iter()
        .filter(|v| !matches!(v, Violation::RepeatedToolSet { .. }))
        .collect();
    if left.is_empty() {
        tracing::info!(task = %spec.task_id, ?violations, "plan mended by code after the re-asks");
        return Verdict::Dispatch(repaired);
    }
    let list: Vec<String> = left.iter().map(ToString::to_string).collect();
    Verdict::Failed(format!(
        "the plan validator rejected the plan after {reasks} re-ask(s): {}",
        list.join("; ")
    ))
}

#[cfg(test)]
mod tests;
