//! Per-task cancellation: one `CancellationToken` per task, children of the runtime's
//! shutdown token. Cancelling a task cancels its model calls and tool processes; roles
//! check the token before starting any new work for the task, so nothing starts after a
//! cancel.
//!
//! **Invariant:** a cancelled task's token stays cancelled; asking for the token of a
//! task that was cancelled (or forgotten after cancel) never yields a live one. Only
//! running tasks hold a registered token: an ended task's is dropped, so the registry
//! does not grow with every task the process ever ran.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use crate::contracts::TaskId;
use crate::recent::Recent;

/// Upper bound on remembered cancelled task ids (oldest are dropped first).
const REMEMBERED_CANCELLED: usize = 4096;
/// Upper bound on remembered finished task ids (oldest are dropped first).
const REMEMBERED_FINISHED: usize = 4096;

struct State {
    live: HashMap<TaskId, CancellationToken>,
    cancelled: Recent<TaskId>,
    /// Tasks that ended normally: a straggler asking for one's token gets a fresh,
    /// unregistered one instead of registering the task again.
    finished: Recent<TaskId>,
}

impl Default for State {
    fn default() -> Self {
        Self {
            live: HashMap::new(),
            cancelled: Recent::new(REMEMBERED_CANCELLED),
            finished: Recent::new(REMEMBERED_FINISHED),
        }
    }
}

/// Shared registry of task tokens. Cheap to clone.
#[derive(Clone)]
pub struct Cancellations {
    root: CancellationToken,
    state: Arc<Mutex<State>>,
}

impl Cancellations {
    pub fn new(root: CancellationToken) -> Self {
        Self {
            root,
            state: Arc::new(Mutex::new(State::default())),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The task's token, created on first use as a child of the root token.
    pub fn token(&self, task: &TaskId) -> CancellationToken {
        let mut st = self.lock();
        if st.cancelled.contains(task) {
            let t = CancellationToken::new();
            t.cancel();
            return t;
        }
        if st.finished.contains(task) {
            let t = CancellationToken::new();
            t.cancel();
            return t;
        }
        st.live
            .entry(task.clone())
            .or_insert_with(|| self.root.child_token())
            .clone()
    }

    /// Cancels the task; returns false if it was already cancelled.
    pub fn cancel(&self, task: &TaskId) -> bool {
        let mut st = self.lock();
        if let Some(t) = st.live.remove(task) {
            t.cancel();
        }
        st.cancelled.insert(task.clone(), drop)
    }

    pub fn is_cancelled(&self, task: &TaskId) -> bool {
        self.root.is_cancelled() || self.lock().cancelled.contains(task)
    }

    /// Ends a task that got its result: its token is cancelled, so work left over (a
    /// parallel sub-task of an abandoned plan, a model call in flight) stops instead of
    /// holding the model server or asking the user about a task that is over. A token
    /// asked for afterwards is cancelled too: nothing starts for an ended task. Unlike
    /// [`Self::cancel`], the task does not count as cancelled by the user.
    pub fn finish(&self, task: &TaskId) {
        let mut st = self.lock();
        if let Some(t) = st.live.remove(task) {
            t.cancel();
        }
        if !st.cancelled.contains(task) {
            st.finished.insert(task.clone(), drop);
        }
    }

    /// Tasks holding a registered token (running ones).
    pub fn live_tasks(&self) -> usize {
        self.lock().live.len()
    }

    /// The root (shutdown) token.
    pub fn root(&self) -> &CancellationToken {
        &self.root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancelling_a_task_cancels_its_token_and_every_later_one() {
        let c = Cancellations::new(CancellationToken::new());
        let task = TaskId::mint();
        let t = c.token(&task);
        assert!(!t.is_cancelled());
        assert!(c.cancel(&task));
        assert!(t.is_cancelled());
        assert!(
            c.token(&task).is_cancelled(),
            "nothing starts after a cancel"
        );
        assert!(c.is_cancelled(&task));
        assert!(!c.cancel(&task));
    }

    #[test]
    fn finished_tasks_stop_their_leftover_work_and_stragglers_do_not_register_them_again() {
        let root = CancellationToken::new();
        let c = Cancellations::new(root.clone());
        let running = TaskId::mint();
        let live = c.token(&running);
        for _ in 0..1000 {
            let task = TaskId::mint();
            let t = c.token(&task);
            c.finish(&task);
            assert!(t.is_cancelled(), "work still holding the token stops");
            let late = c.token(&task);
            assert!(late.is_cancelled(), "nothing starts for an ended task");
            assert!(!c.is_cancelled(&task), "ended is not cancelled by the user");
        }
        assert_eq!(c.live_tasks(), 1, "only the running task keeps a token");
        assert!(!live.is_cancelled(), "other tasks are untouched");
        let late = c.token(&TaskId::mint());
        root.cancel();
        assert!(late.is_cancelled(), "shutdown still reaches every token");
    }

    #[test]
    fn finishing_a_cancelled_task_keeps_it_cancelled() {
        let c = Cancellations::new(CancellationToken::new());
        let task = TaskId::mint();
        c.cancel(&task);
        c.finish(&task);
        assert!(c.token(&task).is_cancelled());
    }

    #[test]
    fn shutdown_cancels_every_task_and_other_tasks_are_independent() {
        let root = CancellationToken::new();
        let c = Cancellations::new(root.clone());
        let (a, b) = (TaskId::mint(), TaskId::mint());
        let (ta, tb) = (c.token(&a), c.token(&b));
        c.cancel(&a);
        assert!(ta.is_cancelled() && !tb.is_cancelled());
        root.cancel();
        assert!(tb.is_cancelled());
    }
}
