//! The one way a role runs on the bus. A role is an [`Actor`]: it reacts to a routed
//! envelope, to the end of a job it started, and to a deadline it set, and it changes
//! nothing outside itself except through [`Effects`]: the messages it publishes and the
//! deadlines it sets, which the runner carries out once the handler returns. A role's
//! decisions can so live in plain state that takes a message and an `Effects` and is
//! tested without a bus or a runtime. The [`Runner`] owns everything else:
//!
//! - the role's inbox (the bus already dropped every envelope outside the route table,
//!   so an actor reads routed traffic only);
//! - the jobs in flight (model calls and tool loops), each tied to the
//!   task it works for, in one join set: none is detached, none outlives the role;
//! - one deadline heap;
//! - the end of a task: on `TaskClosed` the runner tells the registry, aborts the task's
//!   jobs and forgets its deadlines before the actor hears of it, so no actor has to
//!   remember which of its jobs and timers belonged to the task. The registry learns of
//!   a close before the `TaskClosed` reaches every inbox (the runtime closes a task,
//!   then announces it), so from that moment a message, a job end or a deadline of the
//!   task is dropped before any actor sees it: no role has to ask the registry itself.
//!
//! **Invariant:** once a task is closed in the registry, an actor hears nothing more of
//! it but its `TaskClosed`: no message, no job end, no deadline.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;

use crate::bus::{Bus, BusHandle, Envelope, Inbox};
use crate::clock::sleep_until;
use crate::contracts::{EnvelopeId, Message, Role, TaskClosed, TaskId};
use crate::lifecycle::Registry;

/// Where a role's messages go: a handler's [`Effects`], or, inside a job that runs
/// beside the role, its bus handle. Lets one function build what goes out for both.
pub trait Outbox {
    /// Sends `message` to `to` as the role.
    fn send(&mut self, to: Role, message: Message);
}

impl<T> Outbox for Effects<T> {
    fn send(&mut self, to: Role, message: Message) {
        self.publish(to, message);
    }
}

impl Outbox for BusHandle {
    fn send(&mut self, to: Role, message: Message) {
        self.publish(to, message);
    }
}

/// One message a handler sends as its role.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// The role the message is addressed to.
    pub to: Role,
    /// Set when the message answers a request.
    pub in_reply_to: Option<EnvelopeId>,
    /// The message itself.
    pub message: Message,
}

/// What a handler decided to do outside itself, in order: messages to send as its role
/// and deadlines to set. Collected while the handler runs, carried out by the runner
/// right after it, before the next event.
#[derive(Debug)]
pub struct Effects<T> {
    published: Vec<Outgoing>,
    deadlines: Vec<(Duration, TaskId, T)>,
    /// Which of `deadlines` (by index) run on the task's time.
    task_time: Vec<usize>,
}

impl<T> Default for Effects<T> {
    fn default() -> Self {
        Self {
            published: Vec::new(),
            deadlines: Vec::new(),
            task_time: Vec::new(),
        }
    }
}

impl<T> Effects<T> {
    /// Publishes `message` to `to` as the role.
    pub fn publish(&mut self, to: Role, message: impl Into<Message>) {
        self.published.push(Outgoing {
            to,
            in_reply_to: None,
            message: message.into(),
        });
    }

    /// Answers the request `request` from `to` with `message`.
    pub fn reply(&mut self, to: Role, request: EnvelopeId, message: impl Into<Message>) {
        self.published.push(Outgoing {
            to,
            in_reply_to: Some(request),
            message: message.into(),
        });
    }

    /// Sets a deadline `delay` from now for `task`, by the wall clock; it comes back as
    /// `timer`.
    pub fn after(&mut self, delay: Duration, task: &TaskId, timer: T) {
        self.deadlines.push((delay, task.clone(), timer));
    }

    /// Sets a deadline `delay` from now on `task`'s own time: time its questions wait
    /// for the user does not count ([`crate::lifecycle`]).
    pub fn after_task_time(&mut self, delay: Duration, task: &TaskId, timer: T) {
        self.task_time.push(self.deadlines.len());
        self.deadlines.push((delay, task.clone(), timer));
    }

    /// The messages sent so far, in order.
    pub fn published(&self) -> &[Outgoing] {
        &self.published
    }

    /// The deadlines set so far, in order.
    pub fn deadlines(&self) -> &[(Duration, TaskId, T)] {
        &self.deadlines
    }

    /// Whether the `i`th deadline set runs on its task's time.
    pub fn on_task_time(&self, i: usize) -> bool {
        self.task_time.contains(&i)
    }
}

/// A role's reactions. Each handler runs to completion before the next event, on the
/// runner's task, so an actor's state needs no lock.
pub trait Actor: Send + 'static {
    /// What a job of this role ends with.
    type Done: Send + 'static;
    /// What a deadline of this role carries back when it falls due.
    type Timer: Send + 'static;

    /// A routed envelope addressed to (or heard by) this role, other than `TaskClosed`.
    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>);

    /// A job started with [`Cx::spawn`] finished (it was not aborted).
    fn on_done(&mut self, _task: TaskId, _done: Self::Done, _cx: &mut Cx<'_, Self>) {}

    /// A deadline set with [`Cx::at`] fell due and was not cancelled.
    fn on_deadline(&mut self, _task: TaskId, _timer: Self::Timer, _cx: &mut Cx<'_, Self>) {}

    /// The task closed; its jobs are already aborted and its deadlines forgotten.
    fn on_task_closed(&mut self, _closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {}
}

/// Names a deadline so its setter can cancel it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerId(u64);

/// What an actor may ask of its runner while it handles an event.
pub struct Cx<'a, A: Actor + ?Sized> {
    jobs: &'a mut Jobs<A::Done>,
    timers: &'a mut Timers<A::Timer>,
    effects: &'a mut Effects<A::Timer>,
    registry: &'a Registry,
}

impl<A: Actor + ?Sized> Cx<'_, A> {
    /// Publishes `message` to `to` as the role, once the handler returns.
    pub fn publish(&mut self, to: Role, message: impl Into<Message>) {
        self.effects.publish(to, message);
    }

    /// The effects of this handler, to hand to a role's plain state.
    pub fn effects(&mut self) -> &mut Effects<A::Timer> {
        self.effects
    }

    /// Runs `job` for `task`; its result comes back through [`Actor::on_done`]. The job
    /// is aborted when the task closes or the role stops; the handle aborts it sooner.
    pub fn spawn(
        &mut self,
        task: &TaskId,
        job: impl Future<Output = A::Done> + Send + 'static,
    ) -> AbortHandle {
        self.jobs.spawn(task, job)
    }

    /// Calls [`Actor::on_deadline`] with `timer` at `when` by the wall clock, unless
    /// `task` closes first.
    pub fn at(&mut self, when: Instant, task: &TaskId, timer: A::Timer) -> TimerId {
        self.timers.set(when, task, timer, None)
    }

    /// Like [`Cx::at`], on `task`'s own time: the deadline falls later by the time the
    /// task's questions wait for the user meanwhile ([`Registry::postpone`]).
    pub fn at_task_time(&mut self, when: Instant, task: &TaskId, timer: A::Timer) -> TimerId {
        let credited = self.registry.person_time(task).waited;
        self.timers.set(when, task, timer, Some(credited))
    }

    /// How long `task` has waited for the user so far ([`Registry::person_time`]).
    pub fn person_time(&self, task: &TaskId) -> crate::lifecycle::PersonTime {
        self.registry.person_time(task)
    }

    /// Forgets a deadline that has not fallen due; a no-op for one that has.
    pub fn cancel(&mut self, timer: TimerId) {
        self.timers.cancel(timer);
    }
}

/// Runs one [`Actor`] until the bus closes.
pub struct Runner<A: Actor> {
    actor: A,
    inbox: Inbox,
    bus: BusHandle,
    registry: Registry,
    jobs: Jobs<A::Done>,
    timers: Timers<A::Timer>,
    effects: Effects<A::Timer>,
}

impl<A: Actor> Runner<A> {
    /// Runs `actor` as `role` on `bus`. It subscribes now, so nothing addressed to the
    /// role after this call is missed.
    pub fn new(actor: A, bus: &Bus, role: Role, registry: Registry) -> Self {
        Self {
            actor,
            inbox: bus.subscribe(role),
            bus: bus.handle(role),
            registry,
            jobs: Jobs::default(),
            timers: Timers::default(),
            effects: Effects::default(),
        }
    }

    /// The actor, to adjust before the runner starts.
    pub fn actor_mut(&mut self) -> &mut A {
        &mut self.actor
    }

    /// Serves until the bus closes; jobs still running then are aborted.
    pub async fn run(mut self) {
        loop {
            let deadline = self.timers.next_due();
            tokio::select! {
                env = self.inbox.recv() => match env {
                    Some(env) => self.on_envelope(&env),
                    None => break,
                },
                Some((task, done)) = self.jobs.next(), if !self.jobs.is_empty() => {
                    if self.registry.is_closed(&task) {
                        tracing::debug!(task = %task, "a job of a closed task ended; dropped");
                    } else {
                        let mut cx = Cx {
                            jobs: &mut self.jobs,
                            timers: &mut self.timers,
                            effects: &mut self.effects,
                            registry: &self.registry,
                        };
                        self.actor.on_done(task, done, &mut cx);
                    }
                }
                () = sleep_until(deadline), if deadline.is_some() => self.on_due(),
            }
            self.carry_out();
        }
        self.jobs.set.abort_all();
    }

    /// Publishes what the last handler published and sets the deadlines it set.
    fn carry_out(&mut self) {
        for out in self.effects.published.drain(..) {
            match out.in_reply_to {
                Some(request) => self.bus.reply(out.to, request, out.message),
                None => self.bus.publish(out.to, out.message),
            };
        }
        let now = Instant::now();
        let task_time = std::mem::take(&mut self.effects.task_time);
        for (i, (delay, task, timer)) in self.effects.deadlines.drain(..).enumerate() {
            let credited = task_time
                .contains(&i)
                .then(|| self.registry.person_time(&task).waited);
            self.timers.set(now + delay, &task, timer, credited);
        }
    }

    fn on_envelope(&mut self, env: &Arc<Envelope>) {
        let mut cx = Cx {
            jobs: &mut self.jobs,
            timers: &mut self.timers,
            effects: &mut self.effects,
            registry: &self.registry,
        };
        match &env.message {
            Message::TaskClosed(closed) => {
                self.registry.heard(closed);
                cx.jobs.abort_task(&closed.task_id);
                cx.timers.forget_task(&closed.task_id);
                self.actor.on_task_closed(closed, &mut cx);
            }
            // A message of a task that already closed starts nothing, in any role.
            _ if env
                .task_id
                .as_ref()
                .is_some_and(|t| self.registry.is_closed(t)) =>
            {
                tracing::debug!(
                    kind = env.message.kind().name(),
                    "traffic of a closed task dropped"
                );
            }
            _ => self.actor.on_message(env, &mut cx),
        }
    }

    fn on_due(&mut self) {
        let now = Instant::now();
        while let Some((id, due)) = self.timers.pop_due(now) {
            if self.registry.is_closed(&due.task) {
                continue; // its `TaskClosed` is on the way and will forget the rest
            }
            if let Some(credited) = due.credited
                && let Some(p) = self.registry.postpone(&due.task, due.at, credited, now)
            {
                self.timers.put_back(
                    id,
                    p.look_at,
                    Due {
                        at: p.due,
                        credited: Some(p.credited),
                        ..due
                    },
                );
                continue;
            }
            let mut cx = Cx {
                jobs: &mut self.jobs,
                timers: &mut self.timers,
                effects: &mut self.effects,
                registry: &self.registry,
            };
            self.actor.on_deadline(due.task, due.timer, &mut cx);
        }
    }
}

/// The jobs in flight, each tied to its task.
struct Jobs<D> {
    set: JoinSet<D>,
    task_of: HashMap<tokio::task::Id, TaskId>,
    of_task: HashMap<TaskId, Vec<AbortHandle>>,
}

impl<D> Default for Jobs<D> {
    fn default() -> Self {
        Self {
            set: JoinSet::new(),
            task_of: HashMap::new(),
            of_task: HashMap::new(),
        }
    }
}

impl<D: Send + 'static> Jobs<D> {
    fn spawn(
        &mut self,
        task: &TaskId,
        job: impl Future<Output = D> + Send + 'static,
    ) -> AbortHandle {
        let handle = self.set.spawn(job);
        self.task_of.insert(handle.id(), task.clone());
        self.of_task
            .entry(task.clone())
            .or_default()
            .push(handle.clone());
        handle
    }

    fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// The next job to finish, with its task; aborted jobs are passed over.
    async fn next(&mut self) -> Option<(TaskId, D)> {
        loop {
            let (id, outcome) = match self.set.join_next_with_id().await? {
                Ok((id, done)) => (id, Some(done)),
                Err(e) => {
                    if e.is_panic() {
                        tracing::error!(error = %e, "a role's job panicked");
                    }
                    (e.id(), None)
                }
            };
            let Some(task) = self.forget(id) else {
                continue;
            };
            if let Some(done) = outcome {
                return Some((task, done));
            }
        }
    }

    fn forget(&mut self, id: tokio::task::Id) -> Option<TaskId> {
        let task = self.task_of.remove(&id)?;
        if let Some(handles) = self.of_task.get_mut(&task) {
            handles.retain(|h| h.id() != id);
            if handles.is_empty() {
                self.of_task.remove(&task);
            }
        }
        Some(task)
    }

    /// Aborts every job of `task`; a job that already finished is not reported.
    fn abort_task(&mut self, task: &TaskId) {
        for handle in self.of_task.remove(task).unwrap_or_default() {
            handle.abort();
            self.task_of.remove(&handle.id());
        }
    }
}

/// One set deadline: its task, what it carries back, when it falls, and — for a
/// deadline on the task's own time — the person time that `at` counts.
struct Due<T> {
    task: TaskId,
    timer: T,
    at: Instant,
    credited: Option<Duration>,
}

/// One heap of deadlines. A cancelled or forgotten deadline stays in the heap until it
/// reaches the top, where it is dropped, so cancelling costs no search.
struct Timers<T> {
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    set: HashMap<u64, Due<T>>,
    next: u64,
}

impl<T> Default for Timers<T> {
    fn default() -> Self {
        Self {
            heap: BinaryHeap::new(),
            set: HashMap::new(),
            next: 0,
        }
    }
}

impl<T> Timers<T> {
    fn set(
        &mut self,
        when: Instant,
        task: &TaskId,
        timer: T,
        credited: Option<Duration>,
    ) -> TimerId {
        let id = self.next;
        self.next += 1;
        self.put_back(
            id,
            when,
            Due {
                task: task.clone(),
                timer,
                at: when,
                credited,
            },
        );
        TimerId(id)
    }

    /// Looks at deadline `id` (again) at `look_at`; its [`TimerId`] still cancels it.
    fn put_back(&mut self, id: u64, look_at: Instant, due: Due<T>) {
        self.heap.push(Reverse((look_at, id)));
        self.set.insert(id, due);
    }

    fn cancel(&mut self, timer: TimerId) {
        self.set.remove(&timer.0);
    }

    fn forget_task(&mut self, task: &TaskId) {
        self.set.retain(|_, due| &due.task != task);
    }

    /// The soonest live deadline.
    fn next_due(&mut self) -> Option<Instant> {
        while let Some(Reverse((when, id))) = self.heap.peek() {
            if self.set.contains_key(id) {
                return Some(*when);
            }
            self.heap.pop();
        }
        None
    }

    /// The soonest live deadline at or before `now`, removed, with its id.
    fn pop_due(&mut self, now: Instant) -> Option<(u64, Due<T>)> {
        while self.next_due()? <= now {
            let Reverse((_, id)) = self.heap.pop()?;
            if let Some(due) = self.set.remove(&id) {
                return Some((id, due));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::bus::Bus;
    use crate::clock::SystemClock;
    use crate::contracts::{ClarificationAnswer, Role};

    /// Records what it hears; starts a job or a deadline on request.
    struct Probe {
        heard: tokio::sync::mpsc::UnboundedSender<String>,
    }

    enum Ask {
        Job(Duration),
        Timer(Duration),
        /// A deadline on the task's time.
        TaskTimer(Duration),
        TimerCancelled(Duration),
        /// A deadline and a reply, both as effects.
        Effects(Duration),
    }

    fn ask(answer: &str) -> Option<Ask> {
        let (kind, ms) = answer.split_once(' ')?;
        let after = Duration::from_millis(ms.parse().ok()?);
        Some(match kind {
            "job" => Ask::Job(after),
            "timer" => Ask::Timer(after),
            "task-timer" => Ask::TaskTimer(after),
            "cancelled" => Ask::TimerCancelled(after),
            "effects" => Ask::Effects(after),
            _ => return None,
        })
    }

    impl Actor for Probe {
        type Done = String;
        type Timer = String;

        fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
            let Message::ClarificationAnswer(a) = &env.message else {
                return;
            };
            let task = &a.task_id;
            match ask(&a.answer) {
                Some(Ask::Job(after)) => {
                    let label = a.answer.clone();
                    cx.spawn(task, async move {
                        tokio::time::sleep(after).await;
                        label
                    });
                }
                Some(Ask::Timer(after)) => {
                    cx.at(Instant::now() + after, task, a.answer.clone());
                }
                Some(Ask::TaskTimer(after)) => {
                    cx.at_task_time(Instant::now() + after, task, a.answer.clone());
                }
                Some(Ask::TimerCancelled(after)) => {
                    let id = cx.at(Instant::now() + after, task, a.answer.clone());
                    cx.cancel(id);
                }
                Some(Ask::Effects(after)) => {
                    cx.effects().after(after, task, a.answer.clone());
                    cx.publish(
                        Role::User,
                        crate::contracts::ChatReply {
                            task_id: task.clone(),
                            answer: a.answer.clone(),
                        },
                    );
                }
                None => {}
            }
        }

        fn on_done(&mut self, _task: TaskId, done: String, _cx: &mut Cx<'_, Self>) {
            let _ = self.heard.send(format!("done {done}"));
        }

        fn on_deadline(&mut self, _task: TaskId, timer: String, _cx: &mut Cx<'_, Self>) {
            let _ = self.heard.send(format!("due {timer}"));
        }

        fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
            let _ = self.heard.send(format!("closed {}", closed.task_id));
        }
    }

    struct Rig {
        bus: Bus,
        registry: Registry,
        heard: tokio::sync::mpsc::UnboundedReceiver<String>,
    }

    fn start() -> Rig {
        let bus = Bus::new(SystemClock::shared());
        let registry = Registry::new(tokio_util::sync::CancellationToken::new(), 16);
        let (tx, heard) = tokio::sync::mpsc::unbounded_channel();
        let runner = Runner::new(Probe { heard: tx }, &bus, Role::Perceiver, registry.clone());
        tokio::spawn(runner.run());
        Rig {
            bus,
            registry,
            heard,
        }
    }

    impl Rig {
        fn tell(&self, task: &TaskId, answer: &str) {
            self.bus.handle(Role::User).publish(
                Role::Perceiver,
                ClarificationAnswer {
                    task_id: task.clone(),
                    answer: answer.into(),
                },
            );
        }

        fn close(&self, task: &TaskId) {
            self.bus
                .handle(Role::User)
                .publish(Role::All, TaskClosed::cancelled(task.clone(), "test"));
        }

        async fn next(&mut self) -> String {
            tokio::time::timeout(Duration::from_secs(60), self.heard.recv())
                .await
                .expect("the actor heard something in time")
                .expect("the runner is alive")
        }
    }

    #[tokio::test(start_paused = true)]
    async fn jobs_and_deadlines_come_back_in_time_order() {
        let mut rig = start();
        let task = TaskId::mint();
        rig.tell(&task, "timer 300");
        rig.tell(&task, "job 100");
        rig.tell(&task, "cancelled 50");
        rig.tell(&task, "timer 200");
        assert_eq!(rig.next().await, "done job 100");
        assert_eq!(rig.next().await, "due timer 200");
        assert_eq!(rig.next().await, "due timer 300");
    }

    #[tokio::test(start_paused = true)]
    async fn a_closed_task_hears_no_job_end_and_no_deadline_and_the_registry_knows() {
        let mut rig = start();
        let (closing, other) = (TaskId::mint(), TaskId::mint());
        rig.tell(&closing, "job 100");
        rig.tell(&closing, "timer 100");
        rig.tell(&other, "job 200");
        rig.close(&closing);
        assert_eq!(rig.next().await, format!("closed {closing}"));
        assert!(rig.registry.is_closed(&closing));
        // The other task's job is untouched; nothing of the closed one comes back.
        assert_eq!(rig.next().await, "done job 200");
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(rig.heard.try_recv().is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_closed_in_the_registry_hears_nothing_more_before_its_close_arrives() {
        let mut rig = start();
        let (closing, other) = (TaskId::mint(), TaskId::mint());
        rig.tell(&closing, "job 100");
        rig.tell(&closing, "timer 150");
        rig.tell(&other, "job 200");
        // The runtime closes a task in the registry first; its `TaskClosed` comes later.
        tokio::time::sleep(Duration::from_millis(10)).await;
        rig.registry.close(&closing, true);
        assert_eq!(rig.next().await, "done job 200");
        rig.tell(&closing, "job 1");
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(
            rig.heard.try_recv().is_err(),
            "no job end, deadline or message"
        );
        rig.close(&closing);
        assert_eq!(rig.next().await, format!("closed {closing}"));
    }

    #[tokio::test(start_paused = true)]
    async fn what_a_handler_publishes_and_sets_as_effects_is_carried_out_after_it() {
        let mut rig = start();
        let mut user = rig.bus.subscribe(Role::User);
        let task = TaskId::mint();
        rig.tell(&task, "effects 100");
        let reply = tokio::time::timeout(Duration::from_secs(5), user.recv())
            .await
            .expect("the reply went out")
            .expect("the bus is open");
        assert_eq!(reply.from, Role::Perceiver, "published as the role");
        assert!(matches!(&reply.message, Message::ChatReply(r) if r.answer == "effects 100"));
        assert_eq!(rig.next().await, "due effects 100");
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_on_the_tasks_time_waits_out_the_persons_time_and_a_wall_one_does_not() {
        let mut rig = start();
        let task = TaskId::mint();
        let start = Instant::now();
        rig.tell(&task, "task-timer 1000");
        rig.tell(&task, "timer 2000");
        tokio::time::sleep(Duration::from_millis(500)).await;
        rig.registry.awaiting_person(&task, "q");
        tokio::time::sleep(Duration::from_secs(10)).await;
        rig.registry.person_answered(&task, "q");
        // The wall deadline fell at 2 s while the question was open.
        assert_eq!(rig.heard.try_recv().ok().as_deref(), Some("due timer 2000"));
        assert!(rig.heard.try_recv().is_err(), "the task's deadline waits");
        assert_eq!(rig.next().await, "due task-timer 1000");
        // One second of the task's own time: 10 s of person time later.
        assert_eq!(start.elapsed(), Duration::from_millis(11_000));
    }

    #[test]
    fn a_cancelled_or_forgotten_deadline_never_falls_due() {
        let now = Instant::now();
        let (a, b) = (TaskId::mint(), TaskId::mint());
        let mut timers = Timers::default();
        let first = timers.set(now, &a, 1, None);
        timers.set(now + Duration::from_secs(1), &b, 2, None);
        timers.set(now + Duration::from_secs(2), &a, 3, None);
        timers.cancel(first);
        assert_eq!(timers.next_due(), Some(now + Duration::from_secs(1)));
        timers.forget_task(&a);
        let later = now + Duration::from_secs(10);
        assert_eq!(timers.pop_due(later).map(|(_, d)| d.timer), Some(2));
        assert_eq!(timers.pop_due(later).map(|(_, d)| d.timer), None);
        assert_eq!(timers.next_due(), None);
    }
}
