//! The user's desk: everything addressed to `Role::User`, kept so an entry point (the CLI,
//! the desktop shell) can answer it — open Law 1 requests, open clarifying questions —
//! and so a task's end reaches whoever waits for it. It also keeps the rolling session
//! history R1 uses to resolve references. A task's end is where its per-task state in
//! the runtime is let go: its cancellation token and its running usage.
//!
//! **Invariant:** every Law 1 request gets exactly one answer on the bus — the user's,
//! or `deny` when it expires, when its task is cancelled, or when the runtime stops — and
//! a request that was answered can never be answered again. The desk holds the running
//! tasks plus at most [`ENDED_TASKS_REMEMBERED`] ended ones.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Notify, watch};

use crate::bus::{BusHandle, Envelope, Inbox};
use crate::cancel::Cancellations;
use crate::contracts::{
    ApprovalScope, ClarificationAnswer, ClarificationRequest, ConfirmationDecision,
    ConfirmationRequest, Decision, DecisionSource, EnvelopeId, FinalResult, Message, RequestId,
    Role, SessionTurn, TaskId,
};
use crate::llm::UsageLedger;
use crate::recent::Recent;
use crate::text::clip;

/// Turns of session history sent with each task: the last five, enough to resolve "it"
/// and "the same folder" without crowding the perceiver's prompt.
pub const SESSION_TURNS: usize = 5;

/// The longest result summary kept in one history turn.
const TURN_SUMMARY_CHARS: usize = 400;

/// Ended tasks the desk still knows (oldest forgotten first), so a late `wait` still
/// gets the end, a late `cancel` is told the task had ended, and a Law 1 request that
/// arrives after its task ended is denied at once — the same window the usage ledger
/// keeps, since the desk ends a task in both.
pub use crate::llm::ENDED_TASKS_REMEMBERED;

/// How a task ended, as its submitter sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskEnd {
    /// GGS's terminal decision (accept, success or abandon).
    Final(FinalResult),
    /// R1's conversational fast path answered without a plan.
    Chat(String),
    /// The user cancelled it; nothing of it runs any more.
    Cancelled,
}

impl TaskEnd {
    /// One line for the session history.
    pub fn summary(&self) -> String {
        match self {
            TaskEnd::Final(r) => r.summary.clone(),
            TaskEnd::Chat(answer) => answer.clone(),
            TaskEnd::Cancelled => "(cancelled by the user)".to_string(),
        }
    }
}

/// Why an answer could not be delivered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("no open Law 1 request {0}: it was answered, expired or never existed")]
    NoSuchConfirmation(RequestId),
    #[error("task {0} has no open clarifying question")]
    NoSuchClarification(TaskId),
    #[error("Move to Trash is offered only for deletions")]
    TrashNotOffered,
}

struct OpenConfirmation {
    envelope: EnvelopeId,
    from: Role,
    request: ConfirmationRequest,
}

struct OpenClarification {
    envelope: EnvelopeId,
    from: Role,
    request: ClarificationRequest,
}

struct TaskEntry {
    /// The user's text, until the task ends (then it lives on in the history).
    input: String,
    end: watch::Sender<Option<TaskEnd>>,
}

struct State {
    /// Running tasks and the ended ones in `ended`.
    tasks: HashMap<TaskId, TaskEntry>,
    /// Ended tasks still in `tasks`.
    ended: Recent<TaskId>,
    confirmations: HashMap<RequestId, OpenConfirmation>,
    clarifications: HashMap<TaskId, OpenClarification>,
    history: VecDeque<SessionTurn>,
}

impl Default for State {
    fn default() -> Self {
        Self {
            tasks: HashMap::new(),
            ended: Recent::new(ENDED_TASKS_REMEMBERED),
            confirmations: HashMap::new(),
            clarifications: HashMap::new(),
            history: VecDeque::new(),
        }
    }
}

/// Shared between the runtime's methods and the task reading the user inbox.
#[derive(Clone)]
pub struct Desk {
    state: Arc<Mutex<State>>,
    /// Wakes callers waiting for a request the inbox task has not registered yet.
    seen: Arc<Notify>,
    user: BusHandle,
    /// Released when a task ends: the registry must not keep ended tasks' tokens.
    cancellations: Cancellations,
    /// Told when a task ends, so its per-task usage is bounded too.
    usage: UsageLedger,
}

impl Desk {
    pub fn new(user: BusHandle, cancellations: Cancellations, usage: UsageLedger) -> Self {
        Self {
            state: Arc::new(Mutex::new(State::default())),
            seen: Arc::new(Notify::new()),
            user,
            cancellations,
            usage,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a task before its `TaskSubmitted` is published; returns the history to
    /// send with it and the receiver of its end.
    pub fn open_task(
        &self,
        task: &TaskId,
        input: &str,
    ) -> (Vec<SessionTurn>, watch::Receiver<Option<TaskEnd>>) {
        let (tx, rx) = watch::channel(None);
        let mut st = self.lock();
        st.tasks.insert(
            task.clone(),
            TaskEntry {
                input: input.to_string(),
                end: tx,
            },
        );
        (st.history.iter().cloned().collect(), rx)
    }

    /// The end receiver of a task this desk knows.
    pub fn watch(&self, task: &TaskId) -> Option<watch::Receiver<Option<TaskEnd>>> {
        self.lock().tasks.get(task).map(|t| t.end.subscribe())
    }

    /// Whether the task has neither ended nor been cancelled.
    pub fn is_running(&self, task: &TaskId) -> bool {
        self.lock()
            .tasks
            .get(task)
            .is_some_and(|t| t.end.borrow().is_none())
    }

    /// Tasks still running, oldest first is not guaranteed.
    pub fn running(&self) -> Vec<TaskId> {
        self.lock()
            .tasks
            .iter()
            .filter(|(_, t)| t.end.borrow().is_none())
            .map(|(id, _)| id.clone())
            .collect()
    }

    pub fn history(&self) -> Vec<SessionTurn> {
        self.lock().history.iter().cloned().collect()
    }

    pub fn open_confirmations(&self) -> Vec<ConfirmationRequest> {
        self.lock()
            .confirmations
            .values()
            .map(|c| c.request.clone())
            .collect()
    }

    pub fn open_clarifications(&self) -> Vec<ClarificationRequest> {
        self.lock()
            .clarifications
            .values()
            .map(|c| c.request.clone())
            .collect()
    }

    /// Tasks the desk holds (running and recently ended).
    pub fn tracked_tasks(&self) -> usize {
        self.lock().tasks.len()
    }

    /// Ends a task (first end wins), records the history turn and answers what it left
    /// open with `deny`/`Dropped` and an empty clarification. The task's token and
    /// usage are released; the desk forgets the oldest ended task beyond
    /// [`ENDED_TASKS_REMEMBERED`].
    pub fn end_task(&self, task: &TaskId, end: TaskEnd) -> bool {
        let dropped = {
            let mut st = self.lock();
            let Some(entry) = st.tasks.get_mut(task) else {
                return false;
            };
            if entry.end.borrow().is_some() {
                return false;
            }
            let turn = SessionTurn {
                input: std::mem::take(&mut entry.input),
                summary: clip(&end.summary(), TURN_SUMMARY_CHARS),
            };
            entry.end.send_replace(Some(end));
            let State { tasks, ended, .. } = &mut *st;
            ended.insert(task.clone(), |old| {
                tasks.remove(&old);
            });
            st.history.push_back(turn);
            while st.history.len() > SESSION_TURNS {
                st.history.pop_front();
            }
            let ids: Vec<RequestId> = st
                .confirmations
                .values()
                .filter(|c| &c.request.task_id == task)
                .map(|c| c.request.request_id)
                .collect();
            st.clarifications.remove(task);
            ids.into_iter()
                .filter_map(|id| st.confirmations.remove(&id))
                .collect::<Vec<_>>()
        };
        self.cancellations.finish(task);
        self.usage.finish_task(task);
        for open in dropped {
            self.publish_decision(
                &open,
                Decision::Deny,
                DecisionSource::Dropped,
                ApprovalScope::Once,
            );
        }
        true
    }

    /// Answers an open Law 1 request. Waits up to `grace` for a request the caller saw
    /// on a tap before the desk registered it.
    pub async fn answer_confirmation(
        &self,
        request_id: RequestId,
        decision: Decision,
        source: DecisionSource,
        scope: ApprovalScope,
        grace: Duration,
    ) -> Result<(), AnswerError> {
        let open = self
            .take_when_seen(grace, |st| {
                let can_trash = st.confirmations.get(&request_id)?.request.can_trash;
                if decision == Decision::Trash && !can_trash {
                    return Some(Err(AnswerError::TrashNotOffered));
                }
                st.confirmations.remove(&request_id).map(Ok)
            })
            .await
            .ok_or(AnswerError::NoSuchConfirmation(request_id))??;
        self.publish_decision(&open, decision, source, scope);
        Ok(())
    }

    /// Answers a task's open clarifying question (empty = proceed as understood).
    pub async fn answer_clarification(
        &self,
        task: &TaskId,
        answer: &str,
        grace: Duration,
    ) -> Result<(), AnswerError> {
        let open = self
            .take_when_seen(grace, |st| st.clarifications.remove(task))
            .await
            .ok_or_else(|| AnswerError::NoSuchClarification(task.clone()))?;
        self.user.reply(
            open.from,
            open.envelope,
            ClarificationAnswer {
                task_id: task.clone(),
                answer: answer.to_string(),
            },
        );
        Ok(())
    }

    async fn take_when_seen<T>(
        &self,
        grace: Duration,
        mut take: impl FnMut(&mut State) -> Option<T>,
    ) -> Option<T> {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let notified = self.seen.notified();
            if let Some(found) = take(&mut self.lock()) {
                return Some(found);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return None;
            }
        }
    }

    fn publish_decision(
        &self,
        open: &OpenConfirmation,
        decision: Decision,
        source: DecisionSource,
        scope: ApprovalScope,
    ) {
        self.user.reply(
            open.from,
            open.envelope,
            ConfirmationDecision {
                request_id: open.request.request_id,
                task_id: open.request.task_id.clone(),
                decision,
                source,
                scope,
            },
        );
    }

    /// Serves the user inbox until the bus closes. A Law 1 request nobody answers is
    /// denied on the bus after `confirm_timeout`, so every observer sees it close.
    pub async fn run(self, mut inbox: Inbox, confirm_timeout: Duration) {
        while let Some(env) = inbox.recv().await {
            self.on_envelope(&env, confirm_timeout);
            self.seen.notify_waiters();
        }
        // The runtime is stopping: nothing open may stay unanswered.
        let open: Vec<OpenConfirmation> =
            self.lock().confirmations.drain().map(|(_, c)| c).collect();
        for c in open {
            self.publish_decision(
                &c,
                Decision::Deny,
                DecisionSource::Dropped,
                ApprovalScope::Once,
            );
        }
    }

    fn on_envelope(&self, env: &Arc<Envelope>, confirm_timeout: Duration) {
        match &env.message {
            Message::ConfirmationRequest(request) => {
                if !self.is_running(&request.task_id)
                    && self.lock().tasks.contains_key(&request.task_id)
                {
                    // Its task already ended: the asking side must not wait.
                    let open = OpenConfirmation {
                        envelope: env.id,
                        from: env.from,
                        request: request.clone(),
                    };
                    self.publish_decision(
                        &open,
                        Decision::Deny,
                        DecisionSource::Dropped,
                        ApprovalScope::Once,
                    );
                    return;
                }
                self.lock().confirmations.insert(
                    request.request_id,
                    OpenConfirmation {
                        envelope: env.id,
                        from: env.from,
                        request: request.clone(),
                    },
                );
                let desk = self.clone();
                let id = request.request_id;
                tokio::spawn(async move {
                    tokio::time::sleep(confirm_timeout).await;
                    let expired = desk.lock().confirmations.remove(&id);
                    if let Some(open) = expired {
                        desk.publish_decision(
                            &open,
                            Decision::Deny,
                            DecisionSource::Timeout,
                            ApprovalScope::Once,
                        );
                    }
                });
            }
            Message::ClarificationRequest(request) => {
                self.lock().clarifications.insert(
                    request.task_id.clone(),
                    OpenClarification {
                        envelope: env.id,
                        from: env.from,
                        request: request.clone(),
                    },
                );
            }
            Message::ChatReply(reply) => {
                self.end_task(&reply.task_id, TaskEnd::Chat(reply.answer.clone()));
            }
            Message::FinalResult(result) => {
                self.end_task(&result.task_id, TaskEnd::Final(result.clone()));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::Bus;
    use crate::clock::SystemClock;
    use crate::llm::CallUsage;
    use tokio_util::sync::CancellationToken;

    struct Rig {
        bus: Bus,
        desk: Desk,
        cancellations: Cancellations,
        usage: UsageLedger,
    }

    fn rig() -> Rig {
        let bus = Bus::new(SystemClock::shared());
        let cancellations = Cancellations::new(CancellationToken::new());
        let usage = UsageLedger::new();
        let desk = Desk::new(bus.handle(Role::User), cancellations.clone(), usage.clone());
        Rig {
            bus,
            desk,
            cancellations,
            usage,
        }
    }

    /// What the runtime does for one task: register it, hand out its token, spend.
    fn run_one(rig: &Rig, end: TaskEnd) -> TaskId {
        let task = TaskId::mint();
        rig.desk.open_task(&task, "what does the note say?");
        let _ = rig.cancellations.token(&task);
        rig.usage.record(
            Some(&task),
            Role::Planner,
            CallUsage {
                prompt_tokens: 10,
                completion_tokens: 2,
                wall: Duration::from_millis(5),
                failed: false,
            },
        );
        assert!(rig.desk.end_task(&task, end));
        task
    }

    #[test]
    fn ended_tasks_release_their_desk_entry_token_and_usage_beyond_the_window() {
        let rig = rig();
        let running = TaskId::mint();
        rig.desk.open_task(&running, "still working");
        let _ = rig.cancellations.token(&running);
        let first = run_one(&rig, TaskEnd::Chat("hello".into()));
        for i in 0..ENDED_TASKS_REMEMBERED * 3 {
            run_one(&rig, TaskEnd::Chat(format!("answer {i}")));
        }
        assert_eq!(
            rig.desk.tracked_tasks(),
            ENDED_TASKS_REMEMBERED + 1,
            "the running task and the last ended ones, not every task ever run"
        );
        assert_eq!(rig.cancellations.live_tasks(), 1);
        assert_eq!(rig.usage.tracked_tasks(), ENDED_TASKS_REMEMBERED);
        assert!(
            rig.desk.watch(&first).is_none(),
            "the oldest end is forgotten"
        );
        assert_eq!(rig.desk.running(), vec![running]);
        assert_eq!(rig.desk.history().len(), SESSION_TURNS);
    }

    #[tokio::test]
    async fn a_recently_ended_task_still_reports_its_end_and_denies_a_late_law1_request() {
        let rig = rig();
        let user_inbox = rig.bus.subscribe(Role::User);
        let mut executor = rig.bus.subscribe(Role::Executor);
        tokio::spawn(rig.desk.clone().run(user_inbox, Duration::from_secs(600)));
        let task = run_one(&rig, TaskEnd::Chat("done".into()));
        for _ in 0..ENDED_TASKS_REMEMBERED - 1 {
            run_one(&rig, TaskEnd::Cancelled);
        }
        let end = rig.desk.watch(&task).expect("still remembered");
        assert_eq!(*end.borrow(), Some(TaskEnd::Chat("done".into())));
        assert!(!rig.desk.is_running(&task));
        assert!(
            !rig.desk.end_task(&task, TaskEnd::Cancelled),
            "first end wins"
        );

        let request_id = RequestId::mint();
        rig.bus.handle(Role::Executor).publish(
            Role::User,
            ConfirmationRequest {
                request_id,
                task_id: task.clone(),
                subtask_id: None,
                tool: "shell".into(),
                description: "deletes note.txt".into(),
                command: "rm note.txt".into(),
                paths: vec![],
                reversible: false,
                reversible_alternative: None,
                can_trash: true,
                expires_at: chrono::Utc::now() + chrono::Duration::minutes(10),
                scopes: vec![ApprovalScope::Once],
                grant: None,
            },
        );
        let reply = tokio::time::timeout(Duration::from_secs(5), executor.recv())
            .await
            .expect("denied at once, not after the timeout")
            .expect("the bus is open");
        match &reply.message {
            Message::ConfirmationDecision(d) => {
                assert_eq!(d.request_id, request_id);
                assert_eq!(d.decision, Decision::Deny);
                assert_eq!(d.source, DecisionSource::Dropped);
            }
            other => panic!("expected a decision, got {other:?}"),
        }
        assert!(rig.desk.open_confirmations().is_empty());
    }
}
