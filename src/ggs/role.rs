//! R7 on the bus. Consumes its inbox:
//! - `TaskSubmitted` (R7 listens to the user's submission) → arm the whole task's time
//!   budget, measured from `submitted_at`;
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
//! by the graceful-failure timeout of [`crate::limits::Limits`]. The wait is a job of the
//! task on the role's runner, so other tasks' rounds are not held up and a close stops
//! it; if no reply comes, GGS completes the abandon with the code-built graceful failure.
//! GGS is the only emitter of `FinalResult`, on every path.
//!
//! **Invariant:** exactly one `FinalResult` per task that reaches a terminal state, and
//! none for a task closed before that; a task that ended ignores later traffic.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::feedback::Feedback;
use super::state::{Finish, Observation, PendingAbandon, Settings, Step, TaskState};
use crate::actor::{Actor, Cx, Outbox, Runner, TimerId};
use crate::bus::{Bus, BusHandle, Envelope};
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{MegramWrite, Message, Role, TaskClosed, TaskId, TaskSubmitted};
use crate::lifecycle::Registry;
use crate::text::tilde;

/// R7: the Goal Gradient Solver wired to the bus.
pub struct Ggs(Runner<Solver>);

/// R7's state and reactions.
struct Solver {
    bus: BusHandle,
    clock: SharedClock,
    settings: Settings,
    graceful_timeout: Duration,
    tasks: HashMap<TaskId, TaskState>,
    /// Tasks GGS ended whose close the runtime has not announced yet; an abandon still
    /// being completed holds the token that makes it deliver the code-built graceful
    /// failure at once. A task leaves on `TaskClosed`, when the registry takes over.
    ended: HashMap<TaskId, Option<CancellationToken>>,
    /// The armed time budget of each task, until it finishes or closes.
    budgets: HashMap<TaskId, TimerId>,
    /// The user's home folder: results show paths under it as `~/…`.
    home: Arc<Path>,
}

impl Ggs {
    /// Subscribes now, so nothing addressed to R7 after this call is missed.
    pub fn new(config: &Config, bus: &Bus, clock: SharedClock, registry: Registry) -> Self {
        let solver = Solver {
            bus: bus.handle(Role::Ggs),
            clock,
            settings: Settings {
                params: config.ggs.clone(),
                budgets: config.budgets.clone(),
                longest_budget_ms: u64::try_from(config.longest_task_budget().as_millis())
                    .unwrap_or(u64::MAX),
            },
            graceful_timeout: config.limits().graceful_failure_timeout,
            home: Arc::from(config.home.as_path()),
            tasks: HashMap::new(),
            ended: HashMap::new(),
            budgets: HashMap::new(),
        };
        Self(Runner::new(solver, bus, Role::Ggs, registry))
    }

    /// Overrides how long GGS waits for R2's graceful failure
    /// (`Limits::graceful_failure_timeout`).
    pub fn with_graceful_timeout(mut self, timeout: Duration) -> Self {
        self.0.actor_mut().graceful_timeout = timeout;
        self
    }

    /// Serves until the bus closes; an abandon still being completed then is dropped.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Solver {
    type Done = ();
    /// The submission whose time budget ran out.
    type Timer = Arc<TaskSubmitted>;

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        let Some(task_id) = env.task_id.clone() else {
            return;
        };
        if self.ended.contains_key(&task_id) {
            tracing::debug!(task = %task_id, kind = env.message.kind().name(),
                "GGS ignores traffic of an ended task");
            return;
        }
        if let Message::TaskSubmitted(b) = &env.message {
            let now = self.clock.now();
            let state = state_for(&mut self.tasks, &task_id, "", now);
            state.set_submitted(b.submitted_at, &b.raw_input, b.time_budget_ms);
            state.scheduled = b.scheduled.clone();
            let at = Instant::now() + Duration::from_millis(b.time_budget_ms);
            let timer = cx.at_task_time(at, &task_id, Arc::new(b.clone()));
            if let Some(old) = self.budgets.insert(task_id, timer) {
                cx.cancel(old);
            }
            return;
        }
        let waited = cx.person_time(&task_id).waited;
        let Some(step) = self.step(env, waited) else {
            return;
        };
        match step {
            Step::Replan {
                directive,
                megrams,
                feedback,
            } => {
                let fx = cx.effects();
                fx.publish(Role::Planner, directive);
                write_megrams(fx, &task_id, megrams);
                write_feedback(fx, &task_id, feedback);
            }
            Step::Finish(finish) => {
                self.tasks.remove(&task_id);
                if let Some(timer) = self.budgets.remove(&task_id) {
                    cx.cancel(timer);
                }
                self.ended.insert(task_id, None);
                deliver(cx.effects(), finish, &self.home);
            }
            Step::Abandon(pending) => {
                self.tasks.remove(&task_id);
                // The graceful part may still take a model call: the task's budget
                // stays armed and hurries it (see `out_of_budget`).
                let hurry = CancellationToken::new();
                self.ended.insert(task_id.clone(), Some(hurry.clone()));
                cx.spawn(
                    &task_id,
                    complete_abandon(
                        self.bus.clone(),
                        self.clock.clone(),
                        self.graceful_timeout,
                        pending,
                        hurry,
                        Arc::clone(&self.home),
                    ),
                );
            }
        }
    }

    fn on_deadline(&mut self, task: TaskId, budget: Arc<TaskSubmitted>, cx: &mut Cx<'_, Self>) {
        self.budgets.remove(&task);
        let waited = cx.person_time(&task).waited;
        self.out_of_budget(&task, &budget, waited, cx.effects());
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        self.tasks.remove(&closed.task_id);
        self.ended.remove(&closed.task_id);
        self.budgets.remove(&closed.task_id);
    }
}

impl Solver {
    /// A task's budget ran out. Still running: abandon now with the code-built graceful
    /// result (no model call: the budget is spent). Being abandoned: the graceful part
    /// stops waiting for R2 and goes out code-built. Ended: nothing.
    fn out_of_budget(
        &mut self,
        task_id: &TaskId,
        budget: &TaskSubmitted,
        waited: Duration,
        out: &mut impl Outbox,
    ) {
        match self.ended.get(task_id) {
            Some(Some(hurry)) => return hurry.cancel(),
            Some(None) => return,
            None => {}
        }
        let now = self.clock.now();
        let mut state = self
            .tasks
            .remove(task_id)
            .unwrap_or_else(|| TaskState::new(task_id.clone(), "", now));
        if state.intent().is_empty() {
            state = {
                let mut fresh = TaskState::new(task_id.clone(), &budget.raw_input, now);
                fresh.set_submitted(
                    budget.submitted_at,
                    &budget.raw_input,
                    budget.time_budget_ms,
                );
                fresh.note_effects(state.effects());
                fresh.note_account(state.account());
                for grant in state.grants() {
                    fresh.note_grant(grant);
                }
                fresh.scheduled = state.scheduled.clone();
                fresh
            };
        }
        tracing::info!(task = %task_id, budget_ms = budget.time_budget_ms,
            "the task's time budget ran out; abandoning");
        state.set_person_time(waited);
        let pending = state.budget_exhausted(budget.time_budget_ms, &self.settings, now);
        self.ended.insert(task_id.clone(), None);
        deliver(out, pending.complete(None, now), &self.home);
    }

    /// GGS's reaction to one message; `waited` is the task's person time so far.
    fn step(&mut self, env: &Envelope, waited: Duration) -> Option<Step> {
        let now = self.clock.now();
        match &env.message {
            Message::ReplanRequest(r) => Some(
                state_at(&mut self.tasks, &r.task_id, &r.intent, now, waited).observe(
                    Observation::Rejected(r),
                    &self.settings,
                    now,
                ),
            ),
            Message::OutcomeSummary(s) => Some(
                state_at(&mut self.tasks, &s.task_id, &s.intent, now, waited).observe(
                    Observation::Accepted(s),
                    &self.settings,
                    now,
                ),
            ),
            Message::PlanningFailed(f) => Some(Step::Abandon(
                state_at(&mut self.tasks, &f.task_id, &f.intent, now, waited).planning_failed(
                    f,
                    &self.settings,
                    now,
                ),
            )),
            Message::MemoryRecall(r) => {
                state_for(&mut self.tasks, &r.task_id, "", now).recalled(r);
                None
            }
            Message::GracefulFailure(_) => {
                tracing::debug!("late graceful-failure reply ignored");
                None
            }
            Message::ToolCallEvent(call) => {
                // Only a call that leaves something to account for opens a task's state.
                let r = &call.record;
                let reported = super::evidence::reported(r);
                if !r.effects.is_empty() || r.grant.is_some() || !reported.is_empty() {
                    state_for(&mut self.tasks, &call.task_id, "", now).note_call(r, &reported);
                }
                None
            }
            _ => None,
        }
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

/// The task's state, told how long the task has waited for the user so far.
fn state_at<'a>(
    tasks: &'a mut HashMap<TaskId, TaskState>,
    task_id: &TaskId,
    intent: &str,
    now: chrono::DateTime<chrono::Utc>,
    waited: Duration,
) -> &'a mut TaskState {
    let state = state_for(tasks, task_id, intent, now);
    state.set_person_time(waited);
    state
}

fn write_megrams(out: &mut impl Outbox, task_id: &TaskId, megrams: Vec<crate::contracts::Megram>) {
    for megram in megrams {
        let write = MegramWrite {
            task_id: Some(task_id.clone()),
            megram,
            against_rule: None,
        };
        out.send(Role::Memory, write.into());
    }
}

fn write_feedback(out: &mut impl Outbox, task_id: &TaskId, feedback: Vec<Feedback>) {
    for f in feedback {
        let write = MegramWrite {
            task_id: Some(task_id.clone()),
            megram: f.megram,
            against_rule: Some(f.rule),
        };
        out.send(Role::Memory, write.into());
    }
}

/// The task's result to the user, with paths under the home folder shown as `~/…` in
/// its words (the measured effects keep their full paths: they are data), then what it
/// teaches memory.
fn deliver(out: &mut impl Outbox, mut finish: Finish, home: &Path) {
    let result = &mut finish.result;
    result.summary = tilde(&result.summary, home);
    if let serde_json::Value::String(text) = &result.output {
        result.output = serde_json::Value::String(tilde(text, home));
    }
    for line in result
        .next_moves
        .iter_mut()
        .chain(&mut result.account)
        .chain(&mut result.unverified)
    {
        *line = tilde(line, home);
    }
    // A line of the tools' account the answer already says is not said twice.
    let output = match &result.output {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    };
    let said = crate::text::fold(&format!("{}\n{output}", result.summary));
    result
        .account
        .retain(|line| !said.contains(&crate::text::fold(line)));
    let task_id = finish.result.task_id.clone();
    out.send(Role::User, finish.result.into());
    write_megrams(out, &task_id, finish.megram.into_iter().collect());
    write_feedback(out, &task_id, finish.feedback);
}

/// Asks R2 for the graceful-failure part, waits at most `timeout` (or until `hurry`),
/// then delivers. A task that closes meanwhile aborts this job.
async fn complete_abandon(
    bus: BusHandle,
    clock: SharedClock,
    timeout: Duration,
    pending: PendingAbandon,
    hurry: CancellationToken,
    home: Arc<Path>,
) {
    let reply = bus.request(Role::Planner, pending.request.clone());
    let reply = tokio::select! {
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
    // A move of the model's that names a place not on this machine is dropped (code's
    // own moves top the list up).
    let reply = reply.map(|mut r| {
        r.next_moves.retain(|m| {
            super::graceful::names_real_places(m, pending.words(), &home, |p| p.exists())
        });
        r
    });
    let mut bus = bus;
    deliver(
        &mut bus,
        pending.complete(reply.as_ref(), clock.now()),
        &home,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::{FinalResult, Loss, PathEffect, PrevDirective, TerminalDirective};

    struct Sent(Vec<(Role, Message)>);

    impl Outbox for Sent {
        fn send(&mut self, to: Role, message: Message) {
            self.0.push((to, message));
        }
    }

    #[test]
    fn a_result_shows_paths_under_home_as_tilde_and_keeps_its_effects_whole() {
        let effect = PathEffect {
            path: "/home/ana/out/a.txt".into(),
            exists: false,
            effect: "create".into(),
        };
        let finish = Finish {
            result: FinalResult {
                task_id: TaskId::mint(),
                summary: "Wrote /home/ana/out/a.txt (not /home/anab/x)".into(),
                output: serde_json::json!("/home/ana/out/a.txt"),
                loss: Loss {
                    d: 0.0,
                    p: 0.0,
                    omega: 0.1,
                    l: 0.04,
                },
                grad_l: 0.0,
                replans: 0,
                prev_directive: PrevDirective::Init,
                directive: TerminalDirective::Accept,
                next_moves: vec!["Open /home/ana/out".into()],
                effects: vec![effect.clone()],
                grants: Vec::new(),
                scheduled: None,
                law1: Default::default(),
                account: Vec::new(),
                unverified: Vec::new(),
                not_met: Vec::new(),
            },
            megram: None,
            feedback: Vec::new(),
        };
        let mut sent = Sent(Vec::new());
        deliver(&mut sent, finish, Path::new("/home/ana"));
        let Some((Role::User, Message::FinalResult(r))) = sent.0.first() else {
            panic!("the result goes to the user first: {:?}", sent.0.len())
        };
        assert_eq!(r.summary, "Wrote ~/out/a.txt (not /home/anab/x)");
        assert_eq!(r.output, serde_json::json!("~/out/a.txt"));
        assert_eq!(r.next_moves, ["Open ~/out"]);
        assert_eq!(r.effects, [effect]);
    }
}
