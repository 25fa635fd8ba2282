//! The user's desk: everything addressed to `Role::User`, kept so an entry point (the CLI,
//! the desktop shell) can answer it — open Law 1 requests, open clarifying questions —
//! and so a task's end reaches whoever waits for it. It also keeps the rolling session
//! history R1 uses to resolve references. A task's end happens here: the desk closes it
//! in the task registry (its token stops leftover work) and announces it to every role
//! with one `TaskClosed`.
//!
//! While a Law 1 request or a clarifying question is open, its task waits for a person:
//! the desk says so to the task registry, whose person time stops the task's own clock
//! ([`crate::lifecycle`]). A request waits the task's answer window (a schedule's own,
//! else the settings'); a question waits the clarification timeout and then has "go on
//! as understood" for its answer.
//!
//! **Invariant:** every Law 1 request gets exactly one answer on the bus — the user's,
//! or `deny` when it expires, when its task is cancelled, or when the runtime stops — and
//! a request that was answered can never be answered again. A task waits for a person
//! exactly while one of its requests or questions is open here. Every task that ends gets
//! exactly one `TaskClosed`. The desk holds the running tasks plus the closed ones the
//! registry still remembers, and lets a task go (with its usage) when the registry does.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use crate::bus::{BusHandle, Envelope, Inbox};
use crate::clock::sleep_until;
use crate::contracts::{
    ApprovalScope, ClarificationAnswer, ClarificationRequest, ConfirmationDecision,
    ConfirmationRequest, Decision, DecisionSource, EnvelopeId, FinalResult, Message, RequestId,
    Role, SessionTurn, TaskClosed, TaskClosure, TaskId,
};
use crate::lifecycle::Registry;
use crate::llm::UsageLedger;
use crate::text::clip;

/// Turns of session history sent with each task: the last five, enough to resolve "it"
/// and "the same folder" without crowding the perceiver's prompt.
pub const SESSION_TURNS: usize = 5;

/// The longest result summary kept in one history turn.
const TURN_SUMMARY_CHARS: usize = 400;

/// How a task ended, as its submitter sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskEnd {
    /// GGS's terminal decision (accept, success or abandon).
    Final(Box<FinalResult>),
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
    /// No Law 1 request with this id is open.
    #[error("no open Law 1 request {0}: it was answered, expired or never existed")]
    NoSuchConfirmation(RequestId),
    /// The task has no clarifying question open.
    #[error("task {0} has no open clarifying question")]
    NoSuchClarification(TaskId),
    /// Move to Trash was chosen for a request that is not a deletion.
    #[error("Move to Trash is offered only for deletions")]
    TrashNotOffered,
}

struct OpenConfirmation {
    envelope: EnvelopeId,
    from: Role,
    request: ConfirmationRequest,
}

/// What the desk's loop expires: a Law 1 request, or a task's question of one round.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Expiry {
    Confirmation(TaskId, RequestId),
    Clarification(TaskId, u32),
}

/// The name a task's open question waits under in the registry's person time (a task
/// has at most one open).
const CLARIFICATION_WAIT: &str = "clarification";

/// The name a Law 1 request waits under in the registry's person time.
fn wait_key(id: RequestId) -> String {
    format!("law1 {id}")
}

struct OpenClarification {
    envelope: EnvelopeId,
    from: Role,
    request: ClarificationRequest,
}

struct TaskEntry {
    /// The user's text, until the task ends (then it lives on in the history).
    input: String,
    /// Whether the task is a turn of the user's session (a schedule's run is not).
    in_session: bool,
    end: watch::Sender<Option<TaskEnd>>,
}

#[derive(Default)]
struct State {
    /// Running tasks and the closed ones the registry still remembers.
    tasks: HashMap<TaskId, TaskEntry>,
    confirmations: HashMap<RequestId, OpenConfirmation>,
    clarifications: HashMap<TaskId, OpenClarification>,
    history: VecDeque<SessionTurn>,
}

/// Shared between the runtime's methods and the task reading the user inbox.
#[derive(Clone)]
pub struct Desk {
    state: Arc<Mutex<State>>,
    /// Wakes callers waiting for a request the inbox task has not registered yet.
    seen: Arc<Notify>,
    user: BusHandle,
    /// Where a task is closed; it says which closed tasks to let go.
    tasks: Registry,
    /// Told which tasks the registry forgot, so per-task usage is bounded by its window.
    usage: UsageLedger,
}

impl Desk {
    /// A desk with nothing open, whose answers go out through `user`.
    pub fn new(user: BusHandle, tasks: Registry, usage: UsageLedger) -> Self {
        Self {
            state: Arc::new(Mutex::new(State::default())),
            seen: Arc::new(Notify::new()),
            user,
            tasks,
            usage,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        crate::sync::lock(&self.state)
    }

    /// Registers a task before its `TaskSubmitted` is published; returns the history to
    /// send with it and the receiver of its end.
    pub fn open_task(
        &self,
        task: &TaskId,
        input: &str,
    ) -> (Vec<SessionTurn>, watch::Receiver<Option<TaskEnd>>) {
        self.open(task, input, true)
    }

    /// Opens a task that is no turn of the user's session (a schedule's run): it gets no
    /// history and leaves none.
    pub fn open_unattended(&self, task: &TaskId, input: &str) -> watch::Receiver<Option<TaskEnd>> {
        self.open(task, input, false).1
    }

    fn open(
        &self,
        task: &TaskId,
        input: &str,
        in_session: bool,
    ) -> (Vec<SessionTurn>, watch::Receiver<Option<TaskEnd>>) {
        let (tx, rx) = watch::channel(None);
        let mut st = self.lock();
        st.tasks.insert(
            task.clone(),
            TaskEntry {
                input: input.to_string(),
                in_session,
                end: tx,
            },
        );
        let history = if in_session {
            st.history.iter().cloned().collect()
        } else {
            Vec::new()
        };
        (history, rx)
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

    /// The session's finished turns, oldest first; at most [`SESSION_TURNS`].
    pub fn history(&self) -> Vec<SessionTurn> {
        self.lock().history.iter().cloned().collect()
    }

    /// The Law 1 requests still waiting for an answer.
    pub fn open_confirmations(&self) -> Vec<ConfirmationRequest> {
        self.lock()
            .confirmations
            .values()
            .map(|c| c.request.clone())
            .collect()
    }

    /// The clarifying questions still waiting for an answer.
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

    /// Ends a task by its result or a chat answer; see [`Self::close`].
    pub fn end_task(&self, task: &TaskId, end: TaskEnd) -> bool {
        let closure = match &end {
            TaskEnd::Final(_) => TaskClosure::Finished,
            TaskEnd::Chat(_) => TaskClosure::Answered,
            TaskEnd::Cancelled => TaskClosure::Cancelled {
                reason: String::new(),
            },
        };
        self.close(task, end, closure)
    }

    /// Ends a task because the user cancelled it; see [`Self::close`].
    pub fn cancel_task(&self, task: &TaskId, reason: &str) -> bool {
        let closure = TaskClosure::Cancelled {
            reason: reason.to_string(),
        };
        self.close(task, TaskEnd::Cancelled, closure)
    }

    /// Ends a task (the first end wins; returns false for a later one): records the
    /// history turn, closes the task in the registry (its token stops what is still
    /// running), announces `TaskClosed` to every role, then denies the Law 1 requests it
    /// left open. Tasks the registry forgets to make room are let go here and in the
    /// usage ledger.
    fn close(&self, task: &TaskId, end: TaskEnd, closure: TaskClosure) -> bool {
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
        // Closed and announced before the waiter wakes: whoever waits for the end finds
        // the close on the bus already. (The registry and the bus never call back into
        // the desk, so both are safe under its lock.)
        let forgotten = self
            .tasks
            .close(task, closure.is_cancelled())
            .unwrap_or_default();
        self.user.publish(
            Role::All,
            TaskClosed {
                task_id: task.clone(),
                end: closure,
            },
        );
        entry.end.send_replace(Some(end));
        if entry.in_session {
            st.history.push_back(turn);
        }
        while st.history.len() > SESSION_TURNS {
            st.history.pop_front();
        }
        for old in &forgotten {
            st.tasks.remove(old);
        }
        let ids: Vec<RequestId> = st
            .confirmations
            .values()
            .filter(|c| &c.request.task_id == task)
            .map(|c| c.request.request_id)
            .collect();
        st.clarifications.remove(task);
        let dropped: Vec<OpenConfirmation> = ids
            .into_iter()
            .filter_map(|id| st.confirmations.remove(&id))
            .collect();
        drop(st);
        self.usage.forget(&forgotten);
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
        self.answer_question(open, answer);
        Ok(())
    }

    /// Sends the answer to a question taken off the desk; its task waits no more.
    fn answer_question(&self, open: OpenClarification, answer: &str) {
        let task = open.request.task_id.clone();
        self.tasks.person_answered(&task, CLARIFICATION_WAIT);
        self.user.reply(
            open.from,
            open.envelope,
            ClarificationAnswer {
                task_id: task,
                answer: answer.to_string(),
            },
        );
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
        self.tasks
            .person_answered(&open.request.task_id, &wait_key(open.request.request_id));
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
    /// denied on the bus after its task's answer window (`confirm_timeout` unless the
    /// task has its own), so every observer sees it close; a clarifying question nobody
    /// answers within `clarification_timeout` is answered "go on as understood".
    pub async fn run(
        self,
        mut inbox: Inbox,
        confirm_timeout: Duration,
        clarification_timeout: Duration,
    ) {
        // Expiries of what this loop registered, soonest first. An entry answered
        // meanwhile finds nothing to expire.
        let mut expiries: BinaryHeap<Reverse<(Instant, Expiry)>> = BinaryHeap::new();
        loop {
            let next = expiries.peek().map(|Reverse((at, _))| *at);
            tokio::select! {
                env = inbox.recv() => match env {
                    Some(env) => {
                        if let Some(opened) = self.on_envelope(&env) {
                            let wait = match &opened {
                                Expiry::Confirmation(task, _) => {
                                    self.tasks.answer_window(task).unwrap_or(confirm_timeout)
                                }
                                Expiry::Clarification(..) => clarification_timeout,
                            };
                            expiries.push(Reverse((Instant::now() + wait, opened)));
                        }
                        self.seen.notify_waiters();
                    }
                    None => break,
                },
                () = sleep_until(next), if next.is_some() => {
                    while let Some(Reverse((at, _))) = expiries.peek()
                        && *at <= Instant::now()
                    {
                        if let Some(Reverse((_, due))) = expiries.pop() {
                            self.expire(due);
                        }
                    }
                }
            }
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

    /// Denies a Law 1 request nobody answered in time; answers a question nobody
    /// answered in time with "go on as understood".
    fn expire(&self, due: Expiry) {
        match due {
            Expiry::Confirmation(_, id) => {
                let expired = self.lock().confirmations.remove(&id);
                if let Some(open) = expired {
                    self.publish_decision(
                        &open,
                        Decision::Deny,
                        DecisionSource::Timeout,
                        ApprovalScope::Once,
                    );
                }
            }
            Expiry::Clarification(task, round) => {
                let mut st = self.lock();
                if st
                    .clarifications
                    .get(&task)
                    .is_some_and(|c| c.request.round == round)
                    && let Some(open) = st.clarifications.remove(&task)
                {
                    drop(st);
                    self.answer_question(open, "");
                }
            }
        }
    }

    /// Handles one envelope addressed to the user; returns the Law 1 request or the
    /// question it opened, whose expiry the loop now owns.
    fn on_envelope(&self, env: &Arc<Envelope>) -> Option<Expiry> {
        match &env.message {
            Message::ConfirmationRequest(request) => {
                if self.tasks.is_closed(&request.task_id) {
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
                    return None;
                }
                self.tasks
                    .awaiting_person(&request.task_id, &wait_key(request.request_id));
                self.lock().confirmations.insert(
                    request.request_id,
                    OpenConfirmation {
                        envelope: env.id,
                        from: env.from,
                        request: request.clone(),
                    },
                );
                return Some(Expiry::Confirmation(
                    request.task_id.clone(),
                    request.request_id,
                ));
            }
            Message::ClarificationRequest(request) => {
                if self.tasks.is_closed(&request.task_id) {
                    return None;
                }
                self.tasks
                    .awaiting_person(&request.task_id, CLARIFICATION_WAIT);
                self.lock().clarifications.insert(
                    request.task_id.clone(),
                    OpenClarification {
                        envelope: env.id,
                        from: env.from,
                        request: request.clone(),
                    },
                );
                return Some(Expiry::Clarification(
                    request.task_id.clone(),
                    request.round,
                ));
            }
            Message::ChatReply(reply) => {
                self.end_task(&reply.task_id, TaskEnd::Chat(reply.answer.clone()));
            }
            Message::FinalResult(result) => {
                self.end_task(&result.task_id, TaskEnd::Final(Box::new(result.clone())));
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::Bus;
    use crate::clock::SystemClock;
    use crate::lifecycle::TaskState;
    use crate::llm::CallUsage;
    use crate::tools::ToolName;
    use tokio_util::sync::CancellationToken;

    /// Closed tasks the rig's registry remembers.
    const WINDOW: usize = 16;

    struct Rig {
        bus: Bus,
        desk: Desk,
        tasks: Registry,
        usage: UsageLedger,
    }

    fn rig() -> Rig {
        let bus = Bus::new(SystemClock::shared());
        let tasks = Registry::new(CancellationToken::new(), WINDOW);
        let usage = UsageLedger::new();
        let desk = Desk::new(bus.handle(Role::User), tasks.clone(), usage.clone());
        Rig {
            bus,
            desk,
            tasks,
            usage,
        }
    }

    /// What the runtime does for one task: register it, hand out its token, spend.
    fn run_one(rig: &Rig, end: TaskEnd) -> TaskId {
        let task = TaskId::mint();
        rig.desk.open_task(&task, "what does the note say?");
        let _ = rig.tasks.token(&task);
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
    fn closed_tasks_release_their_desk_entry_token_and_usage_when_the_registry_forgets_them() {
        let rig = rig();
        let running = TaskId::mint();
        rig.desk.open_task(&running, "still working");
        let _ = rig.tasks.token(&running);
        let first = run_one(&rig, TaskEnd::Chat("hello".into()));
        for i in 0..WINDOW * 3 {
            run_one(&rig, TaskEnd::Chat(format!("answer {i}")));
        }
        assert_eq!(
            rig.desk.tracked_tasks(),
            WINDOW + 1,
            "the running task and the last ended ones, not every task ever run"
        );
        assert_eq!(rig.tasks.live_tasks(), 1);
        assert_eq!(rig.usage.tracked_tasks(), WINDOW);
        assert!(
            rig.desk.watch(&first).is_none(),
            "the oldest end is forgotten"
        );
        assert_eq!(rig.desk.running(), vec![running]);
        assert_eq!(rig.desk.history().len(), SESSION_TURNS);
    }

    /// Runs the desk's loop on the rig's user inbox, with these timeouts in seconds.
    fn serve(rig: &Rig, confirm_secs: u64, clarify_secs: u64) {
        let user_inbox = rig.bus.subscribe(Role::User);
        tokio::spawn(rig.desk.clone().run(
            user_inbox,
            Duration::from_secs(confirm_secs),
            Duration::from_secs(clarify_secs),
        ));
    }

    /// A Law 1 request of `task` for an irreversible delete.
    fn request(request_id: RequestId, task: &TaskId) -> ConfirmationRequest {
        ConfirmationRequest {
            request_id,
            task_id: task.clone(),
            subtask_id: None,
            tool: ToolName::Shell.into(),
            description: "deletes note.txt".into(),
            command: "rm note.txt".into(),
            paths: vec![],
            reversible: false,
            reversible_alternative: None,
            can_trash: true,
            expires_at: chrono::Utc::now() + chrono::Duration::minutes(10),
            scopes: vec![ApprovalScope::Once],
            grant: None,
            effect_grant: None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_unanswered_request_is_denied_when_it_expires_and_an_answered_one_never_is() {
        let rig = rig();
        serve(&rig, 120, 120);
        let mut executor = rig.bus.subscribe(Role::Executor);
        let task = TaskId::mint();
        rig.desk.open_task(&task, "delete the note");
        let r3 = rig.bus.handle(Role::Executor);
        let (answered, ignored) = (RequestId::mint(), RequestId::mint());
        r3.publish(Role::User, request(answered, &task));
        tokio::time::sleep(Duration::from_secs(60)).await;
        r3.publish(Role::User, request(ignored, &task));
        rig.desk
            .answer_confirmation(
                answered,
                Decision::Approve,
                DecisionSource::User,
                ApprovalScope::Once,
                Duration::from_secs(1),
            )
            .await
            .expect("open");
        let mut decisions = Vec::new();
        let started = tokio::time::Instant::now();
        while decisions.len() < 2 {
            let env = executor.recv().await.expect("the bus is open");
            if let Message::ConfirmationDecision(d) = &env.message {
                decisions.push((d.request_id, d.source, started.elapsed()));
            }
        }
        assert_eq!(decisions[0].0, answered);
        assert_eq!(decisions[0].1, DecisionSource::User);
        assert_eq!(decisions[1].0, ignored);
        assert_eq!(decisions[1].1, DecisionSource::Timeout);
        assert_eq!(
            decisions[1].2,
            Duration::from_secs(120),
            "120 s after it was asked"
        );
        tokio::time::sleep(Duration::from_secs(600)).await;
        assert!(
            executor.try_recv().is_none(),
            "the answered request is never denied"
        );
        assert!(rig.desk.open_confirmations().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_waits_for_a_person_while_its_request_is_open_and_its_own_window_sets_the_expiry()
     {
        let rig = rig();
        serve(&rig, 120, 120);
        let mut executor = rig.bus.subscribe(Role::Executor);
        let (scheduled, typed) = (TaskId::mint(), TaskId::mint());
        for task in [&scheduled, &typed] {
            rig.desk.open_task(task, "delete the note");
            let _ = rig.tasks.token(task);
        }
        rig.tasks
            .set_answer_window(&scheduled, Duration::from_secs(3600));
        let r3 = rig.bus.handle(Role::Executor);
        let (long, short) = (RequestId::mint(), RequestId::mint());
        r3.publish(Role::User, request(long, &scheduled));
        r3.publish(Role::User, request(short, &typed));
        tokio::time::sleep(Duration::from_secs(10)).await;
        assert!(rig.tasks.person_time(&scheduled).open);
        assert_eq!(
            rig.tasks.person_time(&typed).waited,
            Duration::from_secs(10)
        );
        let started = tokio::time::Instant::now() - Duration::from_secs(10);
        let mut decisions = Vec::new();
        while decisions.len() < 2 {
            let env = executor.recv().await.expect("the bus is open");
            if let Message::ConfirmationDecision(d) = &env.message {
                decisions.push((d.request_id, d.source, started.elapsed()));
            }
        }
        assert_eq!(
            decisions,
            [
                (short, DecisionSource::Timeout, Duration::from_secs(120)),
                (long, DecisionSource::Timeout, Duration::from_secs(3600)),
            ],
            "the settings' timeout for a typed task, the schedule's window for its run"
        );
        for task in [&scheduled, &typed] {
            let waited = rig.tasks.person_time(task);
            assert!(!waited.open, "no question is open any more");
            tokio::time::sleep(Duration::from_secs(30)).await;
            assert_eq!(
                rig.tasks.person_time(task),
                waited,
                "and nothing more counts"
            );
        }
        assert_eq!(
            rig.tasks.person_time(&typed).waited,
            Duration::from_secs(120)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_question_nobody_answers_is_answered_go_on_and_the_wait_ends() {
        let rig = rig();
        serve(&rig, 120, 90);
        let mut r1 = rig.bus.subscribe(Role::Perceiver);
        let task = TaskId::mint();
        rig.desk.open_task(&task, "tidy the folder");
        let _ = rig.tasks.token(&task);
        rig.bus.handle(Role::Perceiver).publish(
            Role::User,
            ClarificationRequest {
                task_id: task.clone(),
                question: "Which folder?".into(),
                round: 1,
            },
        );
        let started = tokio::time::Instant::now();
        let answer = loop {
            let env = r1.recv().await.expect("the bus is open");
            if let Message::ClarificationAnswer(a) = &env.message {
                break a.clone();
            }
        };
        assert_eq!(started.elapsed(), Duration::from_secs(90));
        assert_eq!(answer.answer, "", "go on as understood");
        assert!(rig.desk.open_clarifications().is_empty());
        assert_eq!(
            rig.tasks.person_time(&task),
            crate::lifecycle::PersonTime {
                waited: Duration::from_secs(90),
                open: false
            }
        );
    }

    #[tokio::test]
    async fn a_recently_ended_task_still_reports_its_end_and_denies_a_late_law1_request() {
        let rig = rig();
        serve(&rig, 600, 600);
        let mut executor = rig.bus.subscribe(Role::Executor);
        let task = run_one(&rig, TaskEnd::Chat("done".into()));
        for _ in 0..WINDOW - 1 {
            let other = TaskId::mint();
            rig.desk.open_task(&other, "never mind");
            assert!(rig.desk.cancel_task(&other, "the user changed their mind"));
            assert_eq!(rig.tasks.state(&other), TaskState::Cancelled);
        }
        let end = rig.desk.watch(&task).expect("still remembered");
        assert_eq!(*end.borrow(), Some(TaskEnd::Chat("done".into())));
        assert!(!rig.desk.is_running(&task));
        assert!(
            !rig.desk.end_task(&task, TaskEnd::Cancelled),
            "first end wins"
        );

        let request_id = RequestId::mint();
        rig.bus
            .handle(Role::Executor)
            .publish(Role::User, request(request_id, &task));
        // Every role heard each end once, then the denial.
        let mut closes = Vec::new();
        let reply = loop {
            let env = tokio::time::timeout(Duration::from_secs(5), executor.recv())
                .await
                .expect("denied at once, not after the timeout")
                .expect("the bus is open");
            match &env.message {
                Message::TaskClosed(c) => closes.push(c.clone()),
                _ => break env,
            }
        };
        assert_eq!(closes.len(), WINDOW);
        assert_eq!(closes[0].task_id, task);
        assert_eq!(closes[0].end, TaskClosure::Answered);
        assert!(closes[1..].iter().all(|c| c.end
            == TaskClosure::Cancelled {
                reason: "the user changed their mind".into()
            }));
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
