//! The task registry: the one place that says whether a task is live, closed or
//! cancelled. Each task has one `CancellationToken`, a child of the runtime's shutdown
//! token; closing a task (by its result, a chat answer or the user's cancel) cancels the
//! token, so its model calls and tool processes stop, and roles check the registry before
//! starting any new work for a task, so nothing starts after it closed.
//!
//! **Invariant:** a closed task never becomes live again: asking for its token yields a
//! cancelled one. Only live tasks hold a token; closed ones are remembered, as ids, up to
//! the registry's window ([`crate::limits::Limits::closed_tasks_remembered`]), and every
//! id that leaves the window is handed back to the caller that closed the task, so the
//! runtime's other per-task records are let go at the same moment.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use crate::contracts::{TaskClosed, TaskId};
use crate::recent::Recent;

/// Where a task is in its life, as far as the registry knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskState {
    /// Running, or not seen yet (a task is live until something closes it).
    Live,
    /// Ended by its result or a chat answer.
    Closed,
    /// Ended by the user's cancel.
    Cancelled,
}

struct State {
    live: HashMap<TaskId, CancellationToken>,
    closed: Recent<TaskId>,
    /// The closed tasks (in `closed`) that the user cancelled.
    cancelled: HashSet<TaskId>,
}

/// The shared task registry. Cheap to clone.
#[derive(Clone)]
pub struct Registry {
    root: CancellationToken,
    state: Arc<Mutex<State>>,
}

impl Registry {
    /// A registry under `root` (the runtime's shutdown token) that remembers the last
    /// `remembered` closed tasks.
    pub fn new(root: CancellationToken, remembered: usize) -> Self {
        Self {
            root,
            state: Arc::new(Mutex::new(State {
                live: HashMap::new(),
                closed: Recent::new(remembered.max(1)),
                cancelled: HashSet::new(),
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        crate::sync::lock(&self.state)
    }

    /// The task's token, created on first use as a child of the root token; a closed
    /// task's is cancelled from the start.
    pub fn token(&self, task: &TaskId) -> CancellationToken {
        let mut st = self.lock();
        if st.closed.contains(task) {
            let t = CancellationToken::new();
            t.cancel();
            return t;
        }
        st.live
            .entry(task.clone())
            .or_insert_with(|| self.root.child_token())
            .clone()
    }

    /// Where the task is in its life.
    pub fn state(&self, task: &TaskId) -> TaskState {
        let st = self.lock();
        if st.cancelled.contains(task) {
            TaskState::Cancelled
        } else if st.closed.contains(task) {
            TaskState::Closed
        } else {
            TaskState::Live
        }
    }

    /// Whether nothing more may start for the task: it closed, or the runtime stops.
    pub fn is_closed(&self, task: &TaskId) -> bool {
        self.root.is_cancelled() || self.lock().closed.contains(task)
    }

    /// Closes the task (the first close wins; a later one changes nothing and returns
    /// `None`). Its token is cancelled, so work left over (a parallel sub-task of an
    /// abandoned plan, a model call in flight) stops. Returns the tasks that left the
    /// window of remembered closed tasks to make room.
    pub fn close(&self, task: &TaskId, cancelled: bool) -> Option<Vec<TaskId>> {
        let mut st = self.lock();
        let State {
            live,
            closed,
            cancelled: by_user,
        } = &mut *st;
        let mut forgotten = Vec::new();
        let fresh = closed.insert(task.clone(), |old| {
            by_user.remove(&old);
            forgotten.push(old);
        });
        if !fresh {
            return None;
        }
        if let Some(t) = live.remove(task) {
            t.cancel();
        }
        if cancelled {
            by_user.insert(task.clone());
        }
        Some(forgotten)
    }

    /// Records a `TaskClosed` a role heard. The runtime closes a task before it announces
    /// the close, so this changes nothing there; it makes a role that runs on its own (in
    /// a test, or fed by another publisher) behave the same.
    pub fn heard(&self, closed: &TaskClosed) {
        let _ = self.close(&closed.task_id, closed.end.is_cancelled());
    }

    /// Tasks holding a token (the live ones).
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
        let r = Registry::new(CancellationToken::new(), 16);
        let task = TaskId::mint();
        let t = r.token(&task);
        assert!(!t.is_cancelled());
        assert_eq!(r.state(&task), TaskState::Live);
        assert_eq!(r.close(&task, true), Some(vec![]));
        assert!(t.is_cancelled());
        assert!(
            r.token(&task).is_cancelled(),
            "nothing starts after a cancel"
        );
        assert!(r.is_closed(&task));
        assert_eq!(r.state(&task), TaskState::Cancelled);
        assert_eq!(r.close(&task, false), None, "the first close wins");
        assert_eq!(r.state(&task), TaskState::Cancelled);
    }

    #[test]
    fn closed_tasks_stop_their_leftover_work_and_stragglers_do_not_register_them_again() {
        let root = CancellationToken::new();
        let r = Registry::new(root.clone(), 8);
        let running = TaskId::mint();
        let live = r.token(&running);
        let mut forgotten = Vec::new();
        let mut closed = Vec::new();
        for _ in 0..100 {
            let task = TaskId::mint();
            let t = r.token(&task);
            forgotten.extend(r.close(&task, false).unwrap_or_default());
            closed.push(task.clone());
            assert!(t.is_cancelled(), "work still holding the token stops");
            assert!(
                r.token(&task).is_cancelled(),
                "nothing starts for a closed task"
            );
            assert_eq!(r.state(&task), TaskState::Closed, "closed is not cancelled");
        }
        assert_eq!(r.live_tasks(), 1, "only the running task keeps a token");
        assert!(!live.is_cancelled(), "other tasks are untouched");
        assert_eq!(
            forgotten,
            closed[..92].to_vec(),
            "the oldest leave the window first"
        );
        assert!(r.is_closed(&closed[99]) && !r.is_closed(&closed[91]));
        let late = r.token(&TaskId::mint());
        root.cancel();
        assert!(late.is_cancelled(), "shutdown still reaches every token");
        assert!(
            r.is_closed(&running),
            "nothing starts once the runtime stops"
        );
    }

    #[test]
    fn shutdown_cancels_every_task_and_other_tasks_are_independent() {
        let root = CancellationToken::new();
        let r = Registry::new(root.clone(), 16);
        let (a, b) = (TaskId::mint(), TaskId::mint());
        let (ta, tb) = (r.token(&a), r.token(&b));
        r.close(&a, true);
        assert!(ta.is_cancelled() && !tb.is_cancelled());
        root.cancel();
        assert!(tb.is_cancelled());
    }
}
