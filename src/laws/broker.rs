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
//! Approval scopes: an approval covers this call (`once`), this exact effect for the
//! rest of the task (`task`: same tool, command, description and paths), or from now on
//! (`always`, kept in the [`GrantStore`]): for a tool of an MCP server, that exact tool;
//! for changes to files, their class ([`crate::laws::effect_grants`]), offered only once
//! the user approved that class `laws.offer_always_after` times and never denied it
//! since. A later request that a grant covers is approved without being published, and
//! the grant by effect that covered it is named in the answer.
//!
//! What the broker keeps about a task (denials, `task` approvals, files it made) lives
//! as long as the task: the executor calls [`ConfirmationBroker::forget`] when the task
//! closes, and nothing is added for a task whose token is cancelled.
//!
//! Files the task made: a file `write_file` created in a task (it did not exist before)
//! is the task's own while it stays as the task left it. Replacing it loses nothing of
//! the user's, so it is not asked about ([`ConfirmationBroker::task_owns`]); a change by
//! anything else since (its modification time moved) makes it the user's again.
//!
//! **Invariant:** every request ends in exactly one [`Confirmation`], and anything but
//! an explicit answer from the user — a timeout, a closed bus, a cancelled task, a reply
//! that does not match the request, "Trash" where Trash was not offered — is a denial;
//! a grant never covers more than the request the user answered showed (a scope that
//! was not offered counts as `once`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::bus::{Bus, BusHandle};
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::ToolRef;
use crate::contracts::{
    ApprovalScope, ConfirmationDecision, ConfirmationRequest, Decision, DecisionSource,
    EffectClass, GrantSubject, Message, RequestId, Role, SubTaskId, TaskId,
};
use crate::laws::classify::Assessment;
use crate::laws::effect_grants;
use crate::laws::grants::GrantStore;
use crate::lifecycle::Registry;
use crate::limits::Limits;

/// The answer to one confirmation request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirmation {
    /// The request answered.
    pub request_id: RequestId,
    /// What was decided.
    pub decision: Decision,
    /// Who or what decided.
    pub source: DecisionSource,
    /// Set when an earlier approval of this scope answered without asking.
    pub granted: Option<ApprovalScope>,
    /// The standing grant by effect that answered without asking, if one did.
    pub grant: Option<EffectClass>,
}

/// The effect a request shows, as the key of a `task`-scope approval: everything the
/// user saw except the ids and the expiry.
fn effect_key(request: &ConfirmationRequest) -> String {
    // Not the description: its words may change with what artoo learnt meanwhile (a
    // tool trusted by the approval itself), while the action and its paths do not.
    serde_json::json!([
        request.tool,
        request.command,
        request.paths,
        request.reversible,
        request.can_trash,
        request.grant,
        request
            .effect_grant
            .as_ref()
            .map(|c| (c.effect, &c.place, &c.extension)),
    ])
    .to_string()
}

/// What the broker keeps about one live task. It goes when the task closes
/// ([`ConfirmationBroker::forget`]).
#[derive(Debug, Default)]
struct TaskLaw1 {
    /// Signatures of the effects the user denied. Not bounded: each took a user's click.
    denied: Vec<String>,
    /// The exact effects approved for the rest of the task (`task` scope).
    approved: HashSet<String>,
    /// Files the task made, with their modification time when it last wrote them.
    made: HashMap<PathBuf, SystemTime>,
}

/// The Law 1 memory of the live tasks.
#[derive(Debug, Default)]
struct Memory {
    tasks: HashMap<TaskId, TaskLaw1>,
}

impl Memory {
    /// The task's record to add to; none once the task is over (`live` cancelled), so a
    /// worker that outlives its task's close cannot bring the record back after
    /// [`ConfirmationBroker::forget`].
    fn record(&mut self, task: &TaskId, live: &CancellationToken) -> Option<&mut TaskLaw1> {
        (!live.is_cancelled()).then(|| self.tasks.entry(task.clone()).or_default())
    }

    fn task(&self, task: &TaskId) -> Option<&TaskLaw1> {
        self.tasks.get(task)
    }
}

/// The modification time of `path`, not following a final symlink.
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .and_then(|m| m.modified().ok())
}

/// Asks the user to confirm irreversible actions. Cheap to clone; clones share what
/// the user denied.
#[derive(Clone)]
pub struct ConfirmationBroker {
    bus: BusHandle,
    clock: SharedClock,
    timeout: Duration,
    /// Approvals and files made kept per task, at most.
    per_task: usize,
    memory: Arc<Mutex<Memory>>,
    /// Where `always` approvals live; without it, `always` is never offered.
    always: Option<GrantStore>,
    /// What grants by effect are held against.
    places: GrantPlaces,
    /// Where a task's own answer window is kept (a schedule's run); without it, or for
    /// a task with none, a request waits `timeout`.
    windows: Option<Registry>,
}

/// What grants by effect are held against: the home folder and the workspace (the
/// floors), and how many approvals of a class come before "always" is offered (0:
/// never).
#[derive(Clone, Debug, Default)]
pub struct GrantPlaces {
    /// The user's home folder.
    pub home: PathBuf,
    /// The workspace.
    pub workspace: PathBuf,
    /// Approvals of one class before "always" is offered for it; 0 never offers it.
    pub offer_after: u32,
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
    /// The task asking.
    pub task_id: &'a TaskId,
    /// The sub-task asking; None when no sub-task is.
    pub subtask_id: Option<SubTaskId>,
    /// The tool that would run.
    pub tool: &'a ToolRef,
    /// The exact command or action that runs if approved.
    pub command: &'a str,
    /// What Law 1's classifier found.
    pub assessment: &'a Assessment,
}

impl ConfirmationBroker {
    /// `bus` publishes as the executor (the contract route is Executor → User). Requests
    /// wait `limits.confirm_timeout`; each task keeps at most
    /// `limits.law1_effects_per_task` approvals and files made.
    pub fn new(bus: BusHandle, clock: SharedClock, limits: &Limits) -> Self {
        Self {
            bus,
            clock,
            timeout: limits.confirm_timeout,
            per_task: limits.law1_effects_per_task,
            memory: Arc::default(),
            always: None,
            places: GrantPlaces::default(),
            windows: None,
        }
    }

    /// Lets a task's own answer window ([`Registry::answer_window`]) set how long its
    /// requests wait.
    pub fn with_answer_windows(mut self, registry: Registry) -> Self {
        self.windows = Some(registry);
        self
    }

    /// How long a request of `task` waits before it is denied.
    pub fn window(&self, task: &TaskId) -> Duration {
        self.windows
            .as_ref()
            .and_then(|r| r.answer_window(task))
            .unwrap_or(self.timeout)
    }

    /// Lets go of everything kept about `task`: its denials, its `task`-scope
    /// approvals and the files it made. The executor calls it when the task closes.
    pub fn forget(&self, task: &TaskId) {
        crate::sync::lock(&self.memory).tasks.remove(task);
    }

    /// Records that `task` wrote the file at `path` and owns it: it created it, or it
    /// owned it already. Its current modification time is what "unchanged" means.
    /// Nothing is recorded once `live` (the task's token) is cancelled.
    pub fn note_made(&self, task: &TaskId, path: &Path, live: &CancellationToken) {
        let Some(at) = modified(path) else {
            return;
        };
        let mut memory = crate::sync::lock(&self.memory);
        if let Some(record) = memory.record(task, live)
            && (record.made.len() < self.per_task || record.made.contains_key(path))
        {
            record.made.insert(path.to_path_buf(), at);
        }
    }

    /// Whether `path` is a file `task` created and nothing has changed since it last
    /// wrote it: replacing it takes nothing from the user.
    pub fn task_owns(&self, task: &TaskId, path: &Path) -> bool {
        let noted = crate::sync::lock(&self.memory)
            .task(task)
            .and_then(|t| t.made.get(path).copied());
        noted.is_some_and(|at| modified(path) == Some(at))
    }

    /// The first of `signatures` the user already denied in `task`, if any: that effect
    /// is not asked about again in the task.
    pub fn denied(&self, task: &TaskId, signatures: &[String]) -> Option<String> {
        let memory = crate::sync::lock(&self.memory);
        let denied = &memory.task(task)?.denied;
        signatures.iter().find(|s| denied.contains(s)).cloned()
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
        let class = request.effect_grant.clone();
        let answer = self.confirm(request, cancel).await;
        if answer.decision != Decision::Approve
            && answer.source == DecisionSource::User
            && let (Some(store), Some(class)) = (&self.always, &class)
            && let Err(e) = store.note_denial(class)
        {
            tracing::warn!(error = %e, "a denial could not be counted");
        }
        if answer.decision == Decision::Deny && answer.source == DecisionSource::User {
            let mut memory = crate::sync::lock(&self.memory);
            if let Some(record) = memory.record(&task, cancel) {
                for s in signatures {
                    if !record.denied.contains(s) {
                        record.denied.push(s.clone());
                    }
                }
            }
        }
        answer
    }

    /// A broker with the configured limits (the timeout is `laws.confirm_timeout_secs`)
    /// and the data dir's standing grants.
    pub fn from_config(bus: BusHandle, clock: SharedClock, config: &Config) -> Self {
        let places = GrantPlaces {
            home: config.home.clone(),
            workspace: config.workspace.clone(),
            offer_after: config.laws.offer_always_after,
        };
        Self::new(bus, clock, &config.limits())
            .with_grants(GrantStore::in_dir(&config.data_dir), places)
    }

    /// Keeps `always` approvals in `store` (and offers them); grants by effect are held
    /// against `places`.
    pub fn with_grants(mut self, store: GrantStore, places: GrantPlaces) -> Self {
        self.always = Some(store);
        self.places = places;
        self
    }

    /// Names the class of file changes `request` belongs to, so an approval counts
    /// towards it and a standing grant of it may answer; offers `always` for it once the
    /// user approved it `offer_after` times. The caller vouches that `request.paths` is
    /// every effect of the action and that no task-level floor holds; the class's own
    /// floors are checked here ([`effect_grants::class_of`]).
    pub fn offer_effect_grant(&self, request: &mut ConfirmationRequest) {
        let Some(store) = &self.always else {
            return;
        };
        let class = match effect_grants::class_of(
            &request.paths,
            &self.places.home,
            &self.places.workspace,
        ) {
            Ok(class) => class,
            Err(floor) => {
                tracing::debug!(?floor, "no grant by effect can cover this request");
                return;
            }
        };
        let offer =
            self.places.offer_after > 0 && store.approvals(&class) >= self.places.offer_after;
        if offer && !request.scopes.contains(&ApprovalScope::Always) {
            request.scopes.push(ApprovalScope::Always);
        }
        request.effect_grant = Some(class);
    }

    /// Offers `always` for this request, naming exactly what it would allow.
    pub fn offer_always(&self, request: &mut ConfirmationRequest, subject: GrantSubject) {
        if self.always.is_some() && !request.scopes.contains(&ApprovalScope::Always) {
            request.scopes.push(ApprovalScope::Always);
            request.grant = Some(subject);
        }
    }

    /// The standing approval that covers `request`, if any, with the grant by effect
    /// that does.
    fn standing(
        &self,
        request: &ConfirmationRequest,
    ) -> Option<(ApprovalScope, Option<EffectClass>)> {
        let approved = crate::sync::lock(&self.memory)
            .task(&request.task_id)
            .is_some_and(|t| t.approved.contains(&effect_key(request)));
        if approved {
            return Some((ApprovalScope::Task, None));
        }
        let store = self.always.as_ref()?;
        if let Some(subject) = &request.grant
            && store.allows(subject)
        {
            return Some((ApprovalScope::Always, None));
        }
        if request.effect_grant.is_some() {
            let class = store.covering(
                &request.paths,
                &self.places.home,
                &self.places.workspace,
                self.clock.now(),
            )?;
            return Some((ApprovalScope::Always, Some(class)));
        }
        None
    }

    /// Records the user's approval at the scope they chose, if the request offered it
    /// (a `task` approval only while `live`, the task's token, is not cancelled).
    fn remember(
        &self,
        request: &ConfirmationRequest,
        scope: ApprovalScope,
        live: &CancellationToken,
    ) -> ApprovalScope {
        let scope = if request.scopes.contains(&scope) {
            scope
        } else {
            ApprovalScope::Once
        };
        if let (Some(store), Some(class)) = (&self.always, &request.effect_grant) {
            let saved = if scope == ApprovalScope::Always {
                store.add_effect(class.clone(), self.clock.now())
            } else {
                store.note_approval(class).map(|_| ())
            };
            if let Err(e) = saved {
                tracing::warn!(error = %e, "the grants file could not be written");
            }
        }
        match (scope, &self.always, &request.grant) {
            (ApprovalScope::Task, _, _) => {
                let mut memory = crate::sync::lock(&self.memory);
                if let Some(record) = memory.record(&request.task_id, live)
                    && record.approved.len() < self.per_task
                {
                    record.approved.insert(effect_key(request));
                }
            }
            (ApprovalScope::Always, Some(store), Some(subject)) => {
                if let Err(e) = store.add(subject.clone(), self.clock.now()) {
                    tracing::warn!(error = %e, "the standing grant could not be saved; it covers this call only");
                }
            }
            _ => {}
        }
        scope
    }

    /// The executor's publisher (tool-call events go out through it too).
    pub fn bus(&self) -> &BusHandle {
        &self.bus
    }

    /// How long a request of a task without its own window waits before it is denied.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Builds the request for one gated action, with a fresh id.
    pub fn request_for(&self, action: GatedAction<'_>) -> ConfirmationRequest {
        let expires_at = self.clock.now()
            + chrono::Duration::from_std(self.window(action.task_id))
                .unwrap_or(chrono::Duration::MAX);
        let a = action.assessment;
        ConfirmationRequest {
            request_id: RequestId::mint(),
            task_id: action.task_id.clone(),
            subtask_id: action.subtask_id,
            tool: action.tool.clone(),
            description: a.description(),
            command: action.command.to_string(),
            paths: a.path_effects(),
            reversible: !a.is_irreversible(),
            reversible_alternative: a.reversible_alternative(),
            can_trash: a.trash_paths().is_some(),
            expires_at,
            scopes: vec![ApprovalScope::Once, ApprovalScope::Task],
            grant: None,
            effect_grant: None,
        }
    }

    /// Approves at once when a standing approval covers `request`; otherwise publishes
    /// it and waits for its decision, the timeout or `cancel`.
    pub async fn confirm(
        &self,
        request: ConfirmationRequest,
        cancel: &CancellationToken,
    ) -> Confirmation {
        let deny = |source| Confirmation {
            request_id: request.request_id,
            decision: Decision::Deny,
            source,
            granted: None,
            grant: None,
        };
        if cancel.is_cancelled() {
            return deny(DecisionSource::Dropped);
        }
        if let Some((scope, grant)) = self.standing(&request) {
            return Confirmation {
                request_id: request.request_id,
                decision: Decision::Approve,
                source: DecisionSource::User,
                granted: Some(scope),
                grant,
            };
        }
        let pending = self.bus.request(Role::User, request.clone());
        tokio::select! {
            biased;
            _ = cancel.cancelled() => deny(DecisionSource::Dropped),
            reply = tokio::time::timeout(self.window(&request.task_id), pending) => match reply {
                Err(_elapsed) => deny(DecisionSource::Timeout),
                Ok(Err(_closed)) => deny(DecisionSource::Dropped),
                Ok(Ok(envelope)) => match &envelope.message {
                    Message::ConfirmationDecision(d)
                        if d.request_id == request.request_id && d.task_id == request.task_id =>
                    {
                        let decision = match d.decision {
                            // Trash is an answer only to deletions that offered it.
                            Decision::Trash if !request.can_trash => Decision::Deny,
                            other => other,
                        };
                        if decision == Decision::Approve && d.source == DecisionSource::User {
                            self.remember(&request, d.scope, cancel);
                        }
                        Confirmation {
                            request_id: request.request_id,
                            decision,
                            source: d.source,
                            granted: None,
                            grant: None,
                        }
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
    /// Approve everything, once.
    Approve,
    /// Deny everything.
    Deny,
    /// Trash where it is offered, deny otherwise.
    TrashOrDeny,
    /// These decisions (each with the scope of an approval) in order; deny once they
    /// run out.
    Script(Arc<Mutex<VecDeque<(Decision, ApprovalScope)>>>),
    /// Never answers (requests run into their timeout).
    Silent,
}

impl ConfirmationPolicy {
    /// Answers with `decisions` in order, each for one call only.
    pub fn script(decisions: impl IntoIterator<Item = Decision>) -> Self {
        Self::scoped_script(decisions.into_iter().map(|d| (d, ApprovalScope::Once)))
    }

    /// Answers with `decisions` in order, each with its scope.
    pub fn scoped_script(decisions: impl IntoIterator<Item = (Decision, ApprovalScope)>) -> Self {
        ConfirmationPolicy::Script(Arc::new(Mutex::new(decisions.into_iter().collect())))
    }

    fn decide(&self, request: &ConfirmationRequest) -> Option<(Decision, ApprovalScope)> {
        let once = |d| Some((d, ApprovalScope::Once));
        match self {
            ConfirmationPolicy::Approve => once(Decision::Approve),
            ConfirmationPolicy::Deny => once(Decision::Deny),
            ConfirmationPolicy::TrashOrDeny => once(if request.can_trash {
                Decision::Trash
            } else {
                Decision::Deny
            }),
            ConfirmationPolicy::Script(queue) => Some(
                crate::sync::lock(queue)
                    .pop_front()
                    .unwrap_or((Decision::Deny, ApprovalScope::Once)),
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
                crate::sync::lock(&log).push(request.clone());
                if let Some((decision, scope)) = policy.decide(request) {
                    user.reply(
                        Role::Executor,
                        envelope.id,
                        ConfirmationDecision {
                            request_id: request.request_id,
                            task_id: request.task_id.clone(),
                            decision,
                            source,
                            scope,
                        },
                    );
                }
            }
        });
        Self { seen, task }
    }

    /// Every request answered (or ignored) so far.
    pub fn requests(&self) -> Vec<ConfirmationRequest> {
        crate::sync::lock(&self.seen).clone()
    }
}

impl Drop for ConfirmationResponder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests;
