//! R7 on the bus. Consumes its inbox:
//! - `ReplanRequest` / `OutcomeSummary` from R4b → one round of [`TaskState::observe`];
//! - `PlanningFailed` from R2 → abandon honestly;
//! - `MemoryRecall` from R2 → the Best Practices in force for the round, so a failed
//!   round can send negative feedback against those it followed ([`super::feedback`]);
//! - `TaskClosed` → drop the task's state; nothing more is published for it.
//!
//! Publishes `PlanDirective` → R2, `FinalResult` → User, `Megram` → R5 (that publish is
//! the fire-and-forget memory write: GGS never touches the store and never waits for it;
//! a write marked `against_rule` is negative feedback R5 records against that rule),
//! and on abandon one `GracefulFailureRequest` → R2 through [`BusHandle::request`], bounded
//! by the graceful-failure timeout of [`crate::limits::Limits`]. The wait runs in its own
//! task so other tasks' rounds are not held up; if no reply comes, GGS completes the abandon with the code-built
//! graceful failure. GGS is the only emitter of `FinalResult`, on every path.
//!
//! **Invariant:** exactly one `FinalResult` per task that reaches a terminal state, and
//! none for a task closed before that; a task that ended ignores later traffic.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::Duration;

use tokio::time::Instant;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::feedback::Feedback;
use super::state::{Finish, Observation, PendingAbandon, Settings, Step, TaskState};
use crate::bus::{Bus, BusHandle, Envelope, Inbox};
use crate::clock::SharedClock;
use crate::clock::sleep_until;
use crate::config::Config;
use crate::contracts::{MegramWrite, Message, Role, TaskBudget, TaskId};
use crate::lifecycle::Registry;

/// R7: the Goal Gradient Solver wired to the bus.
pub struct Ggs {
    bus: BusHandle,
    inbox: Inbox,
    clock: SharedClock,
    settings: Settings,
    graceful_timeout: Duration,
    registry: Registry,
}

impl Ggs {
    /// Subscribes now, so nothing addressed to R7 after this call is missed.
    pub fn new(config: &Config, bus: &Bus, clock: SharedClock, registry: Registry) -> Self {
        Self {
            bus: bus.handle(Role::Ggs),
            inbox: bus.subscribe(Role::Ggs),
            clock,
            settings: Settings {
                params: config.ggs.clone(),
                budgets: config.budgets.clone(),
            },
            graceful_timeout: config.limits().graceful_failure_timeout,
            registry,
        }
    }

    /// Overrides how long GGS waits for R2's graceful failure
    /// (`Limits::graceful_failure_timeout`).
    pub fn with_graceful_timeout(mut self, timeout: Duration) -> Self {
        self.graceful_timeout = timeout;
        self
    }

    /// Serves until the bus closes, then waits for abandons still being completed.
    pub async fn run(mut self) {
        let tracker = TaskTracker::new();
        let mut tasks: HashMap<TaskId, TaskState> = HashMap::new();
        let mut ended = Ended::default();
        let mut deadlines = Deadlines::default();
        loop {
            let next = deadlines.next();
            let env = tokio::select! {
                env = self.inbox.recv() => match env {
                    Some(env) => env,
                    None => break,
                },
                () = sleep_until(next), if next.is_some() => {
                    for (task_id, budget) in deadlines.due(Instant::now()) {
                        self.out_of_budget(&task_id, &budget, &mut tasks, &mut ended);
                    }
                    continue;
                }
            };
            let Some(task_id) = env.task_id.clone() else {
                continue;
            };
            if let Message::TaskClosed(c) = &env.message {
                self.registry.heard(c);
                tasks.remove(&task_id);
                deadlines.remove(&task_id);
                ended.close(&task_id);
                continue;
            }
            if ended.contains(&task_id) || self.registry.is_closed(&task_id) {
                tracing::debug!(task = %task_id, kind = env.message.kind().name(),
                    "GGS ignores traffic of an ended task");
                continue;
            }
            if let Message::TaskBudget(b) = &env.message {
                if env.from == Role::User {
                    let now = self.clock.now();
                    state_for(&mut tasks, &task_id, "", now)
                        .set_submitted(b.submitted_at, &b.raw_input);
                    deadlines.add(b, Instant::now());
                }
                continue;
            }
            let Some(step) = self.step(&env, &mut tasks) else {
                continue;
            };
            match step {
                Step::Replan {
                    directive,
                    megrams,
                    feedback,
                } => {
                    self.bus.publish(Role::Planner, directive);
                    self.write(&task_id, megrams);
                    write_feedback(&self.bus, &task_id, feedback);
                }
                Step::Finish(finish) => {
                    tasks.remove(&task_id);
                    deadlines.remove(&task_id);
                    ended.end(task_id, None);
                    self.deliver(finish);
                }
                Step::Abandon(pending) => {
                    tasks.remove(&task_id);
                    let tokens = Finishing::default();
                    // The graceful part may still take a model call: the task's deadline
                    // stays armed and hurries it (see `out_of_budget`).
                    ended.end(task_id, Some(tokens.clone()));
                    tracker.spawn(complete_abandon(
                        self.bus.clone(),
                        self.clock.clone(),
                        self.graceful_timeout,
                        pending,
                        tokens,
                    ));
                }
            }
        }
        tracker.close();
        tracker.wait().await;
    }

    /// A task's budget ran out. Still running: abandon now with the code-built graceful
    /// result (no model call: the budget is spent). Being abandoned: the graceful part
    /// stops waiting for R2 and goes out code-built. Ended: nothing.
    fn out_of_budget(
        &self,
        task_id: &TaskId,
        budget: &TaskBudget,
        tasks: &mut HashMap<TaskId, TaskState>,
        ended: &mut Ended,
    ) {
        if let Some(finishing) = ended.finishing(task_id) {
            finishing.hurry.cancel();
            return;
        }
        if ended.contains(task_id) {
            return;
        }
        let now = self.clock.now();
        let mut state = tasks
            .remove(task_id)
            .unwrap_or_else(|| TaskState::new(task_id.clone(), "", now));
        if state.intent().is_empty() {
            state = {
                let mut fresh = TaskState::new(task_id.clone(), &budget.raw_input, now);
                fresh.set_submitted(budget.submitted_at, &budget.raw_input);
                fresh
            };
        }
        tracing::info!(task = %task_id, budget_ms = budget.time_budget_ms,
            "the task's time budget ran out; abandoning");
        let pending = state.budget_exhausted(budget.time_budget_ms, &self.settings, now);
        ended.end(task_id.clone(), None);
        self.deliver(pending.complete(None, now));
    }

    fn step(&self, env: &Envelope, tasks: &mut HashMap<TaskId, TaskState>) -> Option<Step> {
        let now = self.clock.now();
        let expect = |role: Role| {
            let ok = env.from == role;
            if !ok {
                tracing::warn!(from = %env.from, kind = env.message.kind().name(),
                    "GGS refuses a message from a role that may not send it");
            }
            ok
        };
        match &env.message {
            Message::ReplanRequest(r) if expect(Role::MetaValidator) => {
                Some(state_for(tasks, &r.task_id, &r.intent, now).observe(
                    Observation::Rejected(r),
                    &self.settings,
                    now,
                ))
            }
            Message::OutcomeSummary(s) if expect(Role::MetaValidator) => {
                Some(state_for(tasks, &s.task_id, &s.intent, now).observe(
                    Observation::Accepted(s),
                    &self.settings,
                    now,
                ))
            }
            Message::PlanningFailed(f) if expect(Role::Planner) => Some(Step::Abandon(
                state_for(tasks, &f.task_id, &f.intent, now).planning_failed(
                    f,
                    &self.settings,
                    now,
                ),
            )),
            Message::MemoryRecall(r) if expect(Role::Planner) => {
                state_for(tasks, &r.task_id, "", now).recalled(r);
                None
            }
            Message::GracefulFailure(_) => {
                tracing::debug!("late graceful-failure reply ignored");
                None
            }
            _ => None,
        }
    }

    fn write(&self, task_id: &TaskId, megrams: Vec<crate::contracts::Megram>) {
        write_megrams(&self.bus, task_id, megrams);
    }

    fn deliver(&self, finish: Finish) {
        deliver(&self.bus, finish);
    }
}

fn state_for<'a>(
    tasks: &'a mut HashMap<TaskId, TaskState>,
    task_id: &TaskId,
    intent: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> &'a mut TaskState {
    tasks
        .entry(task_id.clone())
        .or_insert_with(|| TaskState::new(task_id.clone(), intent, now))
}

fn write_megrams(bus: &BusHandle, task_id: &TaskId, megrams: Vec<crate::contracts::Megram>) {
    for megram in megrams {
        bus.publish(
            Role::Memory,
            MegramWrite {
                task_id: Some(task_id.clone()),
                megram,
                against_rule: None,
            },
        );
    }
}

fn write_feedback(bus: &BusHandle, task_id: &TaskId, feedback: Vec<Feedback>) {
    for f in feedback {
        bus.publish(
            Role::Memory,
            MegramWrite {
                task_id: Some(task_id.clone()),
                megram: f.megram,
                against_rule: Some(f.rule),
            },
        );
    }
}

fn deliver(bus: &BusHandle, finish: Finish) {
    let task_id = finish.result.task_id.clone();
    bus.publish(Role::User, finish.result);
    write_megrams(bus, &task_id, finish.megram.into_iter().collect());
    write_feedback(bus, &task_id, finish.feedback);
}

/// Asks R2 for the graceful-failure part, waits at most `timeout`, then delivers — unless
/// the task was cancelled meanwhile.
async fn complete_abandon(
    bus: BusHandle,
    clock: SharedClock,
    timeout: Duration,
    pending: PendingAbandon,
    tokens: Finishing,
) {
    let Finishing {
        cancel: cancelled,
        hurry,
    } = tokens;
    let reply = bus.request(Role::Planner, pending.request.clone());
    let reply = tokio::select! {
        () = cancelled.cancelled() => return,
        () = hurry.cancelled() => {
            tracing::info!(task = %pending.task_id(),
                "the time budget ran out during the graceful failure; using the code-built one");
            None
        }
        waited = tokio::time::timeout(timeout, reply) => match waited {
            Ok(Ok(env)) => match &env.message {
                Message::GracefulFailure(g) => Some(g.clone()),
                other => {
                    tracing::warn!(kind = other.kind().name(),
                        "unexpected reply to a graceful-failure request");
                    None
                }
            },
            Ok(Err(closed)) => {
                tracing::debug!(error = %closed, "no graceful failure: the bus closed");
                None
            }
            Err(_) => {
                tracing::info!(task = %pending.task_id(), ?timeout,
                    "R2 sent no graceful failure in time; using the code-built one");
                None
            }
        },
    };
    if cancelled.is_cancelled() {
        return;
    }
    deliver(&bus, pending.complete(reply.as_ref(), clock.now()));
}

/// The tokens of an abandon still being completed: `cancel` drops it (the user
/// cancelled), `hurry` makes it deliver the code-built graceful failure now (the budget
/// ran out).
#[derive(Clone, Default)]
struct Finishing {
    cancel: CancellationToken,
    hurry: CancellationToken,
}

/// The armed time budgets, soonest first.
#[derive(Default)]
struct Deadlines {
    heap: BinaryHeap<Reverse<(Instant, TaskId)>>,
    budgets: HashMap<TaskId, TaskBudget>,
}

impl Deadlines {
    fn add(&mut self, budget: &TaskBudget, now: Instant) {
        let at = now + Duration::from_millis(budget.time_budget_ms);
        self.heap.push(Reverse((at, budget.task_id.clone())));
        self.budgets.insert(budget.task_id.clone(), budget.clone());
    }

    fn remove(&mut self, task_id: &TaskId) {
        // The heap entry is dropped lazily when it comes up.
        self.budgets.remove(task_id);
    }

    /// The soonest deadline still armed.
    fn next(&mut self) -> Option<Instant> {
        while let Some(Reverse((at, task))) = self.heap.peek() {
            if self.budgets.contains_key(task) {
                return Some(*at);
            }
            self.heap.pop();
        }
        None
    }

    /// The budgets due at `now`, disarmed.
    fn due(&mut self, now: Instant) -> Vec<(TaskId, TaskBudget)> {
        let mut out = Vec::new();
        while let Some(Reverse((at, _))) = self.heap.peek() {
            if *at > now {
                break;
            }
            if let Some(Reverse((_, task))) = self.heap.pop()
                && let Some(budget) = self.budgets.remove(&task)
            {
                out.push((task, budget));
            }
        }
        out
    }
}

/// Tasks GGS ended whose close the runtime has not announced yet, with the tokens of an
/// abandon still being completed. A task leaves on `TaskClosed`; from then on the
/// registry says it is closed.
#[derive(Default)]
struct Ended {
    finishing: HashMap<TaskId, Option<Finishing>>,
}

impl Ended {
    fn contains(&self, task_id: &TaskId) -> bool {
        self.finishing.contains_key(task_id)
    }

    fn finishing(&self, task_id: &TaskId) -> Option<&Finishing> {
        self.finishing.get(task_id)?.as_ref()
    }

    fn end(&mut self, task_id: TaskId, finishing: Option<Finishing>) {
        self.finishing.insert(task_id, finishing);
    }

    /// The task closed: an abandon still being completed stops (after its result went
    /// out, stopping it changes nothing).
    fn close(&mut self, task_id: &TaskId) {
        if let Some(Some(tokens)) = self.finishing.remove(task_id) {
            tokens.cancel.cancel();
        }
    }
}
