//! The Law 1 confirmation broker: a gated tool call publishes a [`ConfirmationRequest`]
//! from the executor to the user and waits for the matching [`ConfirmationDecision`].
//!
//! Each request has its own one-shot reply ([`BusHandle::request`]), so concurrent
//! requests never share a receiver. The request and the decision are ordinary bus
//! traffic: the auditor, the task log and the UI see both.
//!
//! [`ConfirmationResponder`] answers requests by a fixed policy: the CLI's
//! non-interactive mode and tests use it.
//!
//! A denial by the user is final for its task: the broker remembers the signatures of
//! what was denied ([`crate::laws::classify::Effect::signature`]), and the tools refuse
//! the same effect again, in any wording, without asking ([`ConfirmationBroker::denied`]).
//!
//! **Invariant:** every request ends in exactly one [`Confirmation`], and anything but
//! an explicit answer from the user — a timeout, a closed bus, a cancelled task, a reply
//! that does not match the request, "Trash" where Trash was not offered — is a denial.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::bus::{Bus, BusHandle};
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{
    ConfirmationDecision, ConfirmationRequest, Decision, DecisionSource, Message, RequestId, Role,
    SubTaskId, TaskId,
};
use crate::laws::classify::Assessment;

/// The answer to one confirmation request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Confirmation {
    pub request_id: RequestId,
    pub decision: Decision,
    pub source: DecisionSource,
}

/// Tasks whose denials are remembered; older ones are forgotten (their tasks ended).
const REMEMBERED_TASKS: usize = 256;

/// What the user denied, per task.
#[derive(Debug, Default)]
struct Denials {
    tasks: VecDeque<(TaskId, Vec<String>)>,
}

impl Denials {
    fn add(&mut self, task: &TaskId, signatures: &[String]) {
        let entry = match self.tasks.iter().position(|(t, _)| t == task) {
            Some(i) => &mut self.tasks[i].1,
            None => {
                if self.tasks.len() == REMEMBERED_TASKS {
                    self.tasks.pop_front();
                }
                self.tasks.push_back((task.clone(), Vec::new()));
                &mut self.tasks.back_mut().expect("just pushed").1
            }
        };
        for s in signatures {
            if !entry.contains(s) {
                entry.push(s.clone());
            }
        }
    }

    fn find(&self, task: &TaskId, signatures: &[String]) -> Option<String> {
        let (_, denied) = self.tasks.iter().find(|(t, _)| t == task)?;
        signatures.iter().find(|s| denied.contains(s)).cloned()
    }
}

/// Asks the user to confirm irreversible actions. Cheap to clone; clones share what
/// the user denied.
#[derive(Clone)]
pub struct ConfirmationBroker {
    bus: BusHandle,
    clock: SharedClock,
    timeout: Duration,
    denials: Arc<Mutex<Denials>>,
}

impl fmt::Debug for ConfirmationBroker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConfirmationBroker")
            .field("role", &self.bus.role())
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// What a gated action is, for [`ConfirmationBroker::request_for`].
#[derive(Clone, Copy, Debug)]
pub struct GatedAction<'a> {
    pub task_id: &'a TaskId,
    pub subtask_id: Option<SubTaskId>,
    pub tool: &'a str,
    /// The exact command or action that runs if approved.
    pub command: &'a str,
    pub assessment: &'a Assessment,
}

impl ConfirmationBroker {
    /// `bus` publishes as the executor (the contract route is Executor → User).
    pub fn new(bus: BusHandle, clock: SharedClock, timeout: Duration) -> Self {
        Self {
            bus,
            clock,
            timeout,
            denials: Arc::default(),
        }
    }

    /// The first of `signatures` the user already denied in `task`, if any: that effect
    /// is not asked about again in the task.
    pub fn denied(&self, task: &TaskId, signatures: &[String]) -> Option<String> {
        self.denials
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .find(task, signatures)
    }

    /// Asks like [`ConfirmationBroker::confirm`] and, when the user says no, remembers
    /// `signatures` as denied for the task.
    pub async fn confirm_effects(
        &self,
        request: ConfirmationRequest,
        signatures: &[String],
        cancel: &CancellationToken,
    ) -> Confirmation {
        let task = request.task_id.clone();
        let answer = self.confirm(request, cancel).await;
        if answer.decision == Decision::Deny && answer.source == DecisionSource::User {
            self.denials
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .add(&task, signatures);
        }
        answer
    }

    /// A broker with the configured timeout (`laws.confirm_timeout_secs`).
    pub fn from_config(bus: BusHandle, clock: SharedClock, config: &Config) -> Self {
        Self::new(
            bus,
            clock,
            Duration::from_secs(config.laws.confirm_timeout_secs),
        )
    }

    /// The executor's publisher (tool-call events go out through it too).
    pub fn bus(&self) -> &BusHandle {
        &self.bus
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Builds the request for one gated action, with a fresh id.
    pub fn request_for(&self, action: GatedAction<'_>) -> ConfirmationRequest {
        let expires_at = self.clock.now()
            + chrono::Duration::from_std(self.timeout).unwrap_or(chrono::Duration::MAX);
        let a = action.assessment;
        ConfirmationRequest {
            request_id: RequestId::mint(),
            task_id: action.task_id.clone(),
            subtask_id: action.subtask_id,
            tool: action.tool.to_string(),
            description: a.description(),
            command: action.command.to_string(),
            paths: a.path_effects(),
            reversible: !a.is_irreversible(),
            reversible_alternative: a.reversible_alternative(),
            can_trash: a.trash_paths().is_some(),
            expires_at,
        }
    }

    /// Publishes `request` and waits for its decision, the timeout or `cancel`.
    pub async fn confirm(
        &self,
        request: ConfirmationRequest,
        cancel: &CancellationToken,
    ) -> Confirmation {
        let deny = |source| Confirmation {
            request_id: request.request_id,
            decision: Decision::Deny,
            source,
        };
        if cancel.is_cancelled() {
            return deny(DecisionSource::Dropped);
        }
        let pending = self.bus.request(Role::User, request.clone());
        tokio::select! {
            biased;
            _ = cancel.cancelled() => deny(DecisionSource::Dropped),
            reply = tokio::time::timeout(self.timeout, pending) => match reply {
                Err(_elapsed) => deny(DecisionSource::Timeout),
                Ok(Err(_closed)) => deny(DecisionSource::Dropped),
                Ok(Ok(envelope)) => match &envelope.message {
                    Message::ConfirmationDecision(d)
                        if envelope.from == Role::User
                            && d.request_id == request.request_id
                            && d.task_id == request.task_id =>
                    {
                        let decision = match d.decision {
                            // Trash is an answer only to deletions that offered it.
                            Decision::Trash if !request.can_trash => Decision::Deny,
                            other => other,
                        };
                        Confirmation { request_id: request.request_id, decision, source: d.source }
                    }
                    _ => deny(DecisionSource::Dropped),
                },
            },
        }
    }
}

/// How a [`ConfirmationResponder`] answers.
#[derive(Clone)]
pub enum ConfirmationPolicy {
    Approve,
    Deny,
    /// Trash where it is offered, deny otherwise.
    TrashOrDeny,
    /// These decisions in order; deny once they run out.
    Script(Arc<Mutex<VecDeque<Decision>>>),
    /// Never answers (requests run into their timeout).
    Silent,
}

impl ConfirmationPolicy {
    pub fn script(decisions: impl IntoIterator<Item = Decision>) -> Self {
        ConfirmationPolicy::Script(Arc::new(Mutex::new(decisions.into_iter().collect())))
    }

    fn decide(&self, request: &ConfirmationRequest) -> Option<Decision> {
        match self {
            ConfirmationPolicy::Approve => Some(Decision::Approve),
            ConfirmationPolicy::Deny => Some(Decision::Deny),
            ConfirmationPolicy::TrashOrDeny => Some(if request.can_trash {
                Decision::Trash
            } else {
                Decision::Deny
            }),
            ConfirmationPolicy::Script(queue) => Some(
                queue
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .pop_front()
                    .unwrap_or(Decision::Deny),
            ),
            ConfirmationPolicy::Silent => None,
        }
    }
}

/// Answers every [`ConfirmationRequest`] on the bus by a policy, as the user. Used by
/// the CLI without a terminal (policy [`ConfirmationPolicy::Deny`], source
/// [`DecisionSource::NonInteractive`]) and by tests. Stops when dropped.
pub struct ConfirmationResponder {
    seen: Arc<Mutex<Vec<ConfirmationRequest>>>,
    task: JoinHandle<()>,
}

impl ConfirmationResponder {
    /// Subscribes before returning, so no request published afterwards is missed.
    pub fn spawn(bus: &Bus, policy: ConfirmationPolicy, source: DecisionSource) -> Self {
        let mut inbox = bus.subscribe(Role::User);
        let user = bus.handle(Role::User);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let task = tokio::spawn(async move {
            while let Some(envelope) = inbox.recv().await {
                let Message::ConfirmationRequest(request) = &envelope.message else {
                    continue;
                };
                log.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(request.clone());
                if let Some(decision) = policy.decide(request) {
                    user.reply(
                        Role::Executor,
                        envelope.id,
                        ConfirmationDecision {
                            request_id: request.request_id,
                            task_id: request.task_id.clone(),
                            decision,
                            source,
                        },
                    );
                }
            }
        });
        Self { seen, task }
    }

    /// Every request answered (or ignored) so far.
    pub fn requests(&self) -> Vec<ConfirmationRequest> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for ConfirmationResponder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::clock::{Clock, FakeClock};
    use crate::laws::classify::testing::MemFs;
    use crate::laws::classify::{Action, Scope, classify};

    fn setup(timeout_secs: u64) -> (Bus, ConfirmationBroker) {
        let clock = FakeClock::at_epoch();
        let bus = Bus::new(clock.clone());
        let broker = ConfirmationBroker::new(
            bus.handle(Role::Executor),
            clock,
            Duration::from_secs(timeout_secs),
        );
        (bus, broker)
    }

    fn rm_request(broker: &ConfirmationBroker, task: &TaskId) -> ConfirmationRequest {
        let fs = MemFs::with(&["/h/ws/a.txt"]);
        let scope = Scope {
            cwd: Path::new("/h/ws"),
            home: Path::new("/h"),
            fs: &fs,
        };
        let a = classify(&Action::Shell("rm a.txt"), &scope);
        broker.request_for(GatedAction {
            task_id: task,
            subtask_id: None,
            tool: "shell",
            command: "rm a.txt",
            assessment: &a,
        })
    }

    #[tokio::test(start_paused = true)]
    async fn an_unanswered_request_is_denied_at_the_timeout() {
        let (bus, broker) = setup(120);
        let _user = bus.subscribe(Role::User);
        let task = TaskId::mint();
        let req = rm_request(&broker, &task);
        assert!(req.can_trash && !req.reversible);
        assert_eq!(
            req.expires_at
                .signed_duration_since(FakeClock::at_epoch().now()),
            chrono::Duration::seconds(120)
        );
        let c = broker.confirm(req, &CancellationToken::new()).await;
        assert_eq!(
            (c.decision, c.source),
            (Decision::Deny, DecisionSource::Timeout)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_closed_bus_or_a_cancelled_task_denies() {
        let (bus, broker) = setup(120);
        let task = TaskId::mint();
        let cancel = CancellationToken::new();
        let waiting = {
            let broker = broker.clone();
            let req = rm_request(&broker, &task);
            let cancel = cancel.clone();
            tokio::spawn(async move { broker.confirm(req, &cancel).await })
        };
        tokio::task::yield_now().await;
        cancel.cancel();
        let c = waiting.await.unwrap();
        assert_eq!(c.source, DecisionSource::Dropped);
        assert_eq!(c.decision, Decision::Deny);

        let req = rm_request(&broker, &task);
        let waiting = {
            let broker = broker.clone();
            tokio::spawn(async move { broker.confirm(req, &CancellationToken::new()).await })
        };
        tokio::task::yield_now().await;
        bus.close();
        let c = waiting.await.unwrap();
        assert_eq!(
            (c.decision, c.source),
            (Decision::Deny, DecisionSource::Dropped)
        );
    }

    #[tokio::test]
    async fn the_responder_answers_each_request_with_its_own_reply() {
        let (bus, broker) = setup(120);
        let responder = ConfirmationResponder::spawn(
            &bus,
            ConfirmationPolicy::script([Decision::Approve, Decision::Trash]),
            DecisionSource::User,
        );
        let task = TaskId::mint();
        let (a, b) = (rm_request(&broker, &task), rm_request(&broker, &task));
        let (ida, idb) = (a.request_id, b.request_id);
        let never = CancellationToken::new();
        let first = broker.confirm(a, &never).await;
        let second = broker.confirm(b, &never).await;
        assert_eq!((first.request_id, first.decision), (ida, Decision::Approve));
        assert_eq!((second.request_id, second.decision), (idb, Decision::Trash));
        assert_eq!(responder.requests().len(), 2);
    }

    #[tokio::test]
    async fn a_users_denial_is_remembered_for_its_task_only() {
        let (bus, broker) = setup(120);
        let _responder =
            ConfirmationResponder::spawn(&bus, ConfirmationPolicy::Deny, DecisionSource::User);
        let (task, other) = (TaskId::mint(), TaskId::mint());
        let sig = vec!["delete: /h/ws/a.txt".to_string()];
        assert_eq!(broker.denied(&task, &sig), None);
        let req = rm_request(&broker, &task);
        let c = broker
            .confirm_effects(req, &sig, &CancellationToken::new())
            .await;
        assert_eq!(c.decision, Decision::Deny);
        assert_eq!(broker.clone().denied(&task, &sig), Some(sig[0].clone()));
        assert_eq!(broker.denied(&other, &sig), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_timeout_is_not_remembered_as_the_users_denial() {
        let (bus, broker) = setup(5);
        let _user = bus.subscribe(Role::User);
        let task = TaskId::mint();
        let sig = vec!["delete: /h/ws/a.txt".to_string()];
        let req = rm_request(&broker, &task);
        let c = broker
            .confirm_effects(req, &sig, &CancellationToken::new())
            .await;
        assert_eq!(c.source, DecisionSource::Timeout);
        assert_eq!(broker.denied(&task, &sig), None);
    }

    #[tokio::test]
    async fn trash_is_a_denial_where_it_was_not_offered() {
        let (bus, broker) = setup(120);
        let _responder = ConfirmationResponder::spawn(
            &bus,
            ConfirmationPolicy::script([Decision::Trash]),
            DecisionSource::User,
        );
        let task = TaskId::mint();
        let mut req = rm_request(&broker, &task);
        req.can_trash = false;
        let c = broker.confirm(req, &CancellationToken::new()).await;
        assert_eq!(c.decision, Decision::Deny);
    }
}
