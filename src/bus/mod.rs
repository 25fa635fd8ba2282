//! The observable message bus. Every inter-role message is an [`Envelope`] published
//! here, so what the roles said to each other is always all there is to audit.
//!
//! - `publish` is synchronous: it never blocks and never awaits.
//! - Role subscribers ([`Inbox`]) receive **every** message addressed to their role, in
//!   publish order. Control traffic is never dropped, however far a role falls behind.
//! - Taps ([`Tap`]) see every message. A tap is bounded; one that falls behind loses the
//!   oldest messages and then reads an explicit [`TapEvent::Gap`] with the exact count,
//!   and the bus counts drops per tap. A stalled tap costs publishers O(1).
//! - Request/reply: [`BusHandle::request`] publishes and waits for the envelope whose
//!   `in_reply_to` names it; the reply is still seen by every tap.
//! - The route check lives here and nowhere else: an envelope whose (kind, sender,
//!   addressee) is not a flow of [`crate::contracts::ROUTES`] reaches every tap (the
//!   auditor reports it as a boundary violation) but no role, and is counted once in
//!   [`BusStats::unrouted`]. A role therefore only ever reads routed traffic.
//! - One envelope per fact: the roles [`crate::contracts::LISTENERS`] names for a
//!   (kind, sender) hear an envelope besides its addressee, before it, in the same publish
//!   (a reply too).
//!
//! **Invariant:** roles receive a [`BusHandle`] (publish as their own role) and an
//! [`Inbox`], never a reference to another role; observers receive a [`Tap`], which has
//! no way to publish.

mod envelope;
mod tap;

use crate::sync::lock;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::task::{Context, Poll};

use tokio::sync::{mpsc, oneshot};

pub use envelope::Envelope;
pub use tap::{Tap, TapEvent};

use crate::clock::SharedClock;
use crate::contracts::{AuditReport, EnvelopeId, Message, Role, is_allowed, listeners};

/// Default buffer of a tap: enough for any realistic burst of one task.
pub const DEFAULT_TAP_CAPACITY: usize = 16_384;

type RoleSender = mpsc::UnboundedSender<Arc<Envelope>>;

pub(crate) struct Inner {
    clock: SharedClock,
    seq: AtomicU64,
    routes: RwLock<HashMap<Role, Vec<RoleSender>>>,
    taps: RwLock<Vec<Arc<tap::TapShared>>>,
    pending: Mutex<HashMap<EnvelopeId, oneshot::Sender<Arc<Envelope>>>>,
    closed: AtomicBool,
    published: AtomicU64,
    undelivered: AtomicU64,
    unrouted: AtomicU64,
}

/// The bus. Cheap to clone; all clones are the same bus.
#[derive(Clone)]
pub struct Bus {
    inner: Arc<Inner>,
}

/// Counters for the UI, the auditor and benchmarks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusStats {
    /// Envelopes published since start.
    pub published: u64,
    /// Messages addressed to a role nobody subscribed to (observability records,
    /// for instance); taps still saw them.
    pub undelivered: u64,
    /// Envelopes outside the route table: taps saw them, no role did.
    pub unrouted: u64,
    /// One entry per open tap.
    pub taps: Vec<TapStats>,
}

/// Counters of one tap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TapStats {
    /// The tap's name, e.g. `auditor`.
    pub name: String,
    /// How many envelopes it holds before it drops.
    pub capacity: usize,
    /// Envelopes waiting to be read.
    pub queued: usize,
    /// Envelopes dropped because it was full (each drop run becomes a gap marker).
    pub dropped: u64,
}

impl Bus {
    /// A bus that stamps envelopes with `clock`.
    pub fn new(clock: SharedClock) -> Self {
        Self {
            inner: Arc::new(Inner {
                clock,
                seq: AtomicU64::new(0),
                routes: RwLock::new(HashMap::new()),
                taps: RwLock::new(Vec::new()),
                pending: Mutex::new(HashMap::new()),
                closed: AtomicBool::new(false),
                published: AtomicU64::new(0),
                undelivered: AtomicU64::new(0),
                unrouted: AtomicU64::new(0),
            }),
        }
    }

    /// A publisher that signs every envelope as `role`.
    pub fn handle(&self, role: Role) -> BusHandle {
        BusHandle {
            role,
            bus: self.clone(),
        }
    }

    /// Every message addressed to `role` (or to [`Role::All`]) from now on, in order.
    pub fn subscribe(&self, role: Role) -> Inbox {
        let (tx, rx) = mpsc::unbounded_channel();
        if !self.inner.closed.load(Ordering::Acquire) {
            let mut routes = crate::sync::write(&self.inner.routes);
            routes.entry(role).or_default().push(tx);
        }
        Inbox { role, rx }
    }

    /// A bounded read-only view of every message published from now on.
    pub fn tap(&self, name: impl Into<String>, capacity: usize) -> Tap {
        let shared = Arc::new(tap::TapShared::new(name.into(), capacity));
        if self.inner.closed.load(Ordering::Acquire) {
            shared.close();
        } else {
            let mut taps = crate::sync::write(&self.inner.taps);
            taps.push(Arc::clone(&shared));
        }
        Tap {
            shared,
            bus: Arc::downgrade(&self.inner),
        }
    }

    /// The auditor's only way out: it can publish audit reports to the user and nothing
    /// else.
    pub fn audit_outbox(&self) -> AuditOutbox {
        AuditOutbox {
            handle: self.handle(Role::Auditor),
        }
    }

    /// Counters as of now.
    pub fn stats(&self) -> BusStats {
        let taps = crate::sync::read(&self.inner.taps);
        BusStats {
            published: self.inner.published.load(Ordering::Relaxed),
            undelivered: self.inner.undelivered.load(Ordering::Relaxed),
            unrouted: self.inner.unrouted.load(Ordering::Relaxed),
            taps: taps
                .iter()
                .map(|t| TapStats {
                    name: t.name.clone(),
                    capacity: t.capacity,
                    queued: t.queued(),
                    dropped: t.dropped.load(Ordering::Relaxed),
                })
                .collect(),
        }
    }

    /// Stops delivery: inboxes end after draining, taps end after draining, pending
    /// requests fail. Publishing afterwards is a no-op.
    pub fn close(&self) {
        self.inner.closed.store(true, Ordering::Release);
        crate::sync::write(&self.inner.routes).clear();
        for t in crate::sync::read(&self.inner.taps).iter() {
            t.close();
        }
        lock(&self.inner.pending).clear();
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }

    fn envelope(
        &self,
        from: Role,
        to: Role,
        in_reply_to: Option<EnvelopeId>,
        message: Message,
    ) -> Envelope {
        Envelope {
            id: EnvelopeId::mint(),
            seq: self.inner.seq.fetch_add(1, Ordering::Relaxed),
            timestamp: self.inner.clock.now(),
            from,
            to,
            in_reply_to,
            task_id: message.task_id().cloned(),
            message,
        }
    }

    fn dispatch(&self, env: Envelope) -> EnvelopeId {
        let id = env.id;
        if self.inner.closed.load(Ordering::Acquire) {
            return id;
        }
        let env = Arc::new(env);
        self.inner.published.fetch_add(1, Ordering::Relaxed);

        // Taps first: an observer never learns of a message after its consequences.
        for t in crate::sync::read(&self.inner.taps).iter() {
            t.push(&env);
        }

        let kind = env.message.kind();
        if !is_allowed(kind, env.from, env.to) {
            self.inner.unrouted.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(kind = kind.name(), from = %env.from, to = %env.to,
                "an envelope outside the route table reached only the taps");
            return id;
        }
        let routes = crate::sync::read(&self.inner.routes);
        let mut delivered = false;
        let mut deliver = |senders: &Vec<RoleSender>| {
            for tx in senders {
                delivered |= tx.send(Arc::clone(&env)).is_ok();
            }
        };
        // Listeners before the addressee: none of them can see a reply to the envelope
        // before the envelope itself.
        for role in listeners(env.message.kind(), env.from).filter(|r| *r != env.to) {
            if let Some(senders) = routes.get(&role) {
                deliver(senders);
            }
        }

        if let Some(reply_to) = env.in_reply_to {
            let waiter = lock(&self.inner.pending).remove(&reply_to);
            if let Some(tx) = waiter {
                // If the requester gave up, fall through so the reply is not lost.
                if tx.send(Arc::clone(&env)).is_ok() {
                    return id;
                }
            }
        }

        if env.to == Role::All {
            for senders in routes.values() {
                deliver(senders);
            }
        } else if let Some(senders) = routes.get(&env.to) {
            deliver(senders);
        }
        if !delivered {
            self.inner.undelivered.fetch_add(1, Ordering::Relaxed);
        }
        id
    }
}

/// Publishes as one role. This is all a role gets of the bus besides its [`Inbox`].
#[derive(Clone)]
pub struct BusHandle {
    role: Role,
    bus: Bus,
}

impl BusHandle {
    /// The role this handle publishes as.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Publishes `message` to `to`. Never blocks, never awaits.
    pub fn publish(&self, to: Role, message: impl Into<Message>) -> EnvelopeId {
        let env = self.bus.envelope(self.role, to, None, message.into());
        self.bus.dispatch(env)
    }

    /// Publishes the answer to the envelope `in_reply_to`.
    pub fn reply(
        &self,
        to: Role,
        in_reply_to: EnvelopeId,
        message: impl Into<Message>,
    ) -> EnvelopeId {
        let env = self
            .bus
            .envelope(self.role, to, Some(in_reply_to), message.into());
        self.bus.dispatch(env)
    }

    /// Publishes `message` and returns a future for the reply. The waiter is registered
    /// before publishing, so an immediate reply is never missed; dropping the future
    /// unregisters it. Callers bound the wait with their own timeout/cancellation.
    pub fn request(&self, to: Role, message: impl Into<Message>) -> PendingReply {
        let env = self.bus.envelope(self.role, to, None, message.into());
        let id = env.id;
        let (tx, rx) = oneshot::channel();
        if !self.bus.is_closed() {
            lock(&self.bus.inner.pending).insert(id, tx);
        }
        self.bus.dispatch(env);
        PendingReply {
            id,
            rx,
            bus: Arc::downgrade(&self.bus.inner),
        }
    }
}

/// The reply to a [`BusHandle::request`].
pub struct PendingReply {
    id: EnvelopeId,
    rx: oneshot::Receiver<Arc<Envelope>>,
    bus: Weak<Inner>,
}

/// The bus closed before a reply arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the bus closed before a reply arrived")]
pub struct BusClosed;

impl PendingReply {
    /// Id of the request envelope.
    pub fn request_id(&self) -> EnvelopeId {
        self.id
    }
}

impl Future for PendingReply {
    type Output = Result<Arc<Envelope>, BusClosed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.rx)
            .poll(cx)
            .map(|r| r.map_err(|_| BusClosed))
    }
}

impl Drop for PendingReply {
    fn drop(&mut self) {
        if let Some(bus) = self.bus.upgrade() {
            lock(&bus.pending).remove(&self.id);
        }
    }
}

/// Everything addressed to one role.
pub struct Inbox {
    role: Role,
    rx: mpsc::UnboundedReceiver<Arc<Envelope>>,
}

impl Inbox {
    /// The role whose inbox this is.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Next message, or `None` once the bus is closed and the queue drained.
    pub async fn recv(&mut self) -> Option<Arc<Envelope>> {
        self.rx.recv().await
    }

    /// The next envelope if one is waiting, without waiting.
    pub fn try_recv(&mut self) -> Option<Arc<Envelope>> {
        self.rx.try_recv().ok()
    }

    /// Messages waiting to be read.
    pub fn len(&self) -> usize {
        self.rx.len()
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.rx.is_empty()
    }
}

/// The auditor's publisher: audit reports to the user, nothing else.
#[derive(Clone)]
pub struct AuditOutbox {
    handle: BusHandle,
}

impl AuditOutbox {
    /// Publishes a report to the user; returns its envelope id.
    pub fn publish(&self, report: AuditReport) -> EnvelopeId {
        self.handle.publish(Role::User, report)
    }

    /// Publishes `report` to the user as the reply to the query envelope `query`, so a
    /// [`BusHandle::request`] for an on-demand report resolves with it.
    pub fn reply(&self, query: EnvelopeId, report: AuditReport) -> EnvelopeId {
        self.handle.reply(Role::User, query, report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::contracts::{
        AuditQuery, ClarificationAnswer, ClarificationRequest, ExecutionResult, ExecutionStatus,
        QueryId, SubTaskId, TaskClosed, TaskId,
    };

    fn cancel(task: &TaskId) -> TaskClosed {
        TaskClosed::cancelled(task.clone(), "test")
    }

    fn question(task: &TaskId) -> ClarificationRequest {
        ClarificationRequest {
            task_id: task.clone(),
            question: "which folder?".into(),
            round: 1,
        }
    }

    fn answer(task: &TaskId) -> ClarificationAnswer {
        ClarificationAnswer {
            task_id: task.clone(),
            answer: "Downloads".into(),
        }
    }

    fn attempt(task: &TaskId) -> ExecutionResult {
        ExecutionResult {
            subtask_id: SubTaskId::mint(),
            parent_task_id: task.clone(),
            status: ExecutionStatus::Completed,
            output: String::new(),
            tool_calls: vec![],
            attempt: 1,
            interrupted: None,
        }
    }

    #[tokio::test]
    async fn a_message_reaches_its_role_and_every_tap_but_not_other_roles() {
        let bus = Bus::new(SystemClock::shared());
        let mut auditor = bus.subscribe(Role::Auditor);
        let mut planner = bus.subscribe(Role::Planner);
        let mut tap = bus.tap("t", 8);
        let user = bus.handle(Role::User);
        user.publish(
            Role::Auditor,
            AuditQuery {
                query_id: QueryId::mint(),
            },
        );

        let got = auditor.recv().await.unwrap();
        assert_eq!(got.from, Role::User);
        assert_eq!(got.to, Role::Auditor);
        assert!(planner.try_recv().is_none());
        assert!(matches!(tap.try_recv(), Some(TapEvent::Message(e)) if e.id == got.id));
    }

    #[tokio::test]
    async fn broadcast_reaches_every_subscribed_role_and_carries_the_task() {
        let bus = Bus::new(SystemClock::shared());
        let mut a = bus.subscribe(Role::Planner);
        let mut b = bus.subscribe(Role::Ggs);
        let task = TaskId::mint();
        bus.handle(Role::User).publish(Role::All, cancel(&task));
        assert_eq!(a.recv().await.unwrap().task_id.as_ref(), Some(&task));
        assert_eq!(b.recv().await.unwrap().task_id.as_ref(), Some(&task));
    }

    #[tokio::test]
    async fn request_receives_the_matching_reply_and_taps_see_both() {
        let bus = Bus::new(SystemClock::shared());
        let mut tap = bus.tap("t", 8);
        let mut user_inbox = bus.subscribe(Role::User);
        let perceiver = bus.handle(Role::Perceiver);
        let user = bus.handle(Role::User);
        let task = TaskId::mint();

        let pending = perceiver.request(Role::User, question(&task));
        let req = user_inbox.recv().await.unwrap();
        user.reply(Role::Perceiver, req.id, answer(&task));
        let reply = pending.await.unwrap();
        assert_eq!(reply.in_reply_to, Some(req.id));

        let mut seen = 0;
        while let Some(TapEvent::Message(_)) = tap.try_recv() {
            seen += 1;
        }
        assert_eq!(seen, 2);
    }

    fn closed(task: &TaskId) -> crate::contracts::SubTaskClosed {
        crate::contracts::SubTaskClosed {
            subtask_id: crate::contracts::SubTaskId::mint(),
            parent_task_id: task.clone(),
            status: crate::contracts::SubTaskStatus::Matched,
            output: serde_json::Value::Null,
        }
    }

    #[tokio::test]
    async fn a_listener_hears_one_envelope_with_its_addressee_and_taps_see_it_once() {
        let bus = Bus::new(SystemClock::shared());
        let mut tap = bus.tap("t", 8);
        let mut executor = bus.subscribe(Role::Executor);
        let mut dispatcher = bus.subscribe(Role::Dispatcher);
        let mut planner = bus.subscribe(Role::Planner);
        let task = TaskId::mint();
        let id = bus
            .handle(Role::AgentValidator)
            .publish(Role::Executor, closed(&task));

        let heard = dispatcher
            .try_recv()
            .expect("the dispatcher hears the close");
        assert_eq!(heard.id, id);
        assert_eq!(heard.to, Role::Executor, "the addressee stays the executor");
        assert_eq!(executor.try_recv().map(|e| e.id), Some(id));
        assert!(dispatcher.try_recv().is_none(), "heard once");
        assert!(planner.try_recv().is_none());
        assert!(matches!(tap.try_recv(), Some(TapEvent::Message(e)) if e.id == id));
        assert!(tap.try_recv().is_none(), "one fact, one envelope");
    }

    #[tokio::test]
    async fn a_listener_hears_a_reply_its_requester_takes() {
        let bus = Bus::new(SystemClock::shared());
        let mut validator_inbox = bus.subscribe(Role::AgentValidator);
        let mut executor_inbox = bus.subscribe(Role::Executor);
        let mut dispatcher = bus.subscribe(Role::Dispatcher);
        let task = TaskId::mint();
        let pending = bus
            .handle(Role::Executor)
            .request(Role::AgentValidator, attempt(&task));
        let request = validator_inbox.recv().await.unwrap();
        bus.handle(Role::AgentValidator)
            .reply(Role::Executor, request.id, closed(&task));
        let reply = pending.await.unwrap();
        assert_eq!(dispatcher.try_recv().map(|e| e.id), Some(reply.id));
        assert!(
            executor_inbox.try_recv().is_none(),
            "the requester took the reply; its inbox does not get a second copy"
        );
    }

    #[tokio::test]
    async fn a_reply_nobody_waits_for_still_reaches_the_addressed_role() {
        let bus = Bus::new(SystemClock::shared());
        let mut perceiver_inbox = bus.subscribe(Role::Perceiver);
        let task = TaskId::mint();
        let pending = bus
            .handle(Role::Perceiver)
            .request(Role::User, question(&task));
        let request_id = pending.request_id();
        drop(pending);
        bus.handle(Role::User)
            .reply(Role::Perceiver, request_id, answer(&task));
        let late = perceiver_inbox.recv().await.unwrap();
        assert_eq!(late.in_reply_to, Some(request_id));
    }

    #[tokio::test]
    async fn an_envelope_outside_the_route_table_reaches_the_taps_and_no_role() {
        let bus = Bus::new(SystemClock::shared());
        let mut tap = bus.tap("t", 8);
        let mut ggs = bus.subscribe(Role::Ggs);
        let mut validator = bus.subscribe(Role::AgentValidator);
        let task = TaskId::mint();
        // The executor may not report a round to GGS, nor reply to R4a with a close.
        let stray = bus.handle(Role::Executor).publish(Role::Ggs, cancel(&task));
        let pending = bus
            .handle(Role::Executor)
            .request(Role::AgentValidator, cancel(&task));
        assert!(ggs.try_recv().is_none());
        assert!(validator.try_recv().is_none());
        assert!(matches!(tap.try_recv(), Some(TapEvent::Message(e)) if e.id == stray));
        assert!(
            matches!(tap.try_recv(), Some(TapEvent::Message(e)) if e.id == pending.request_id())
        );
        let stats = bus.stats();
        assert_eq!((stats.unrouted, stats.published), (2, 2));

        // A routed envelope after them is delivered and not counted as unrouted.
        bus.handle(Role::User).publish(Role::All, cancel(&task));
        assert!(ggs.try_recv().is_some());
        assert_eq!(bus.stats().unrouted, 2);
    }

    #[tokio::test]
    async fn close_ends_inboxes_taps_and_pending_requests() {
        let bus = Bus::new(SystemClock::shared());
        let mut inbox = bus.subscribe(Role::Planner);
        let mut tap = bus.tap("t", 4);
        let pending = bus.handle(Role::User).request(
            Role::Auditor,
            AuditQuery {
                query_id: QueryId::mint(),
            },
        );
        bus.close();
        assert!(inbox.recv().await.is_none());
        // The request itself was tapped before the close.
        assert!(matches!(tap.recv().await, Some(TapEvent::Message(_))));
        assert!(tap.recv().await.is_none());
        assert_eq!(pending.await.unwrap_err(), BusClosed);
    }

    #[tokio::test]
    async fn the_audit_outbox_addresses_reports_to_the_user_only() {
        use crate::contracts::{AuditReport, AuditTrigger, ReportId, ToolHealth};
        let bus = Bus::new(SystemClock::shared());
        let mut user = bus.subscribe(Role::User);
        let now = chrono::Utc::now();
        bus.audit_outbox().publish(AuditReport {
            report_id: ReportId::mint(),
            trigger: AuditTrigger::OnDemand,
            window_start: now,
            window_end: now,
            tasks_observed: 0,
            total_corrections: 0,
            gap_trends: vec![],
            boundary_violations: vec![],
            drift_alerts: vec![],
            anomalies: vec![],
            tool_health: ToolHealth::default(),
            law1: Default::default(),
            query_id: None,
        });
        let env = user.recv().await.unwrap();
        assert_eq!((env.from, env.to), (Role::Auditor, Role::User));
    }
}
