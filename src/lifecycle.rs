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
//!
//! It also keeps each task's **person time**: while a Law 1 question or a clarifying
//! question of the task waits for the user, the task's own clock stands still. Every
//! deadline measured on the task's time (its budget, the validators' backstops, the
//! executor's bound on an attempt) is pushed back by the person time that passed since
//! it was set ([`Registry::postpone`]) — a person thinking over a dialog spends none of
//! the task's budget — while the questions themselves wait by the wall clock, for the
//! task's answer window ([`Registry::answer_window`]: a schedule's own, or the settings').

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
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

/// While a deadline on the task's time is postponed for a question still open, it is
/// looked at again no sooner than this: the answer ends the wait, and the deadline then
/// falls exactly the person time later.
pub const RECHECK: Duration = Duration::from_secs(1);

struct State {
    live: HashMap<TaskId, CancellationToken>,
    closed: Recent<TaskId>,
    /// The closed tasks (in `closed`) that the user cancelled.
    cancelled: HashSet<TaskId>,
    /// Person time of the live tasks that ever waited for someone.
    waits: HashMap<TaskId, Waits>,
    /// Answer windows of live tasks that have their own (a schedule's run).
    windows: HashMap<TaskId, Duration>,
}

/// One task's person time: the questions open now, since when one has been, and the
/// time all earlier waits took (overlapping questions count once).
#[derive(Default)]
struct Waits {
    open: HashSet<String>,
    since: Option<Instant>,
    before: Duration,
}

impl Waits {
    fn total(&self, now: Instant) -> Duration {
        self.before
            + self
                .since
                .map_or(Duration::ZERO, |s| now.saturating_duration_since(s))
    }
}

/// A deadline on a task's time, moved by the person time since it was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Postponed {
    /// When it falls as far as is known now.
    pub due: Instant,
    /// The person time this counts.
    pub credited: Duration,
    /// When to look at it again: `due`, or later while a question is open.
    pub look_at: Instant,
}

/// How long a task has waited for a person, and whether it still does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PersonTime {
    /// The time at least one question of the task was open, up to now.
    pub waited: Duration,
    /// Whether a question is open now.
    pub open: bool,
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
                waits: HashMap::new(),
                windows: HashMap::new(),
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
            waits,
            windows,
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
        waits.remove(task);
        windows.remove(task);
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

    /// A question of `task` named `key` now waits for the user: the task's own clock
    /// stands still until every open one is answered. Nothing is kept for a closed task.
    pub fn awaiting_person(&self, task: &TaskId, key: &str) {
        if self.is_closed(task) {
            return;
        }
        let mut st = self.lock();
        let waits = st.waits.entry(task.clone()).or_default();
        if waits.open.insert(key.to_string()) && waits.since.is_none() {
            waits.since = Some(Instant::now());
        }
    }

    /// The question `key` of `task` was answered, expired or withdrawn.
    pub fn person_answered(&self, task: &TaskId, key: &str) {
        let mut st = self.lock();
        let Some(waits) = st.waits.get_mut(task) else {
            return;
        };
        if waits.open.remove(key)
            && waits.open.is_empty()
            && let Some(since) = waits.since.take()
        {
            waits.before += since.elapsed();
        }
    }

    /// How long `task` has waited for the user so far.
    pub fn person_time(&self, task: &TaskId) -> PersonTime {
        let st = self.lock();
        st.waits
            .get(task)
            .map_or_else(PersonTime::default, |w| PersonTime {
                waited: w.total(Instant::now()),
                open: !w.open.is_empty(),
            })
    }

    /// The one rule for deadlines on a task's time: a deadline `due` set when the task
    /// had waited `credited` for a person falls that much later as it has waited since.
    /// `None` when the deadline is due as set. While a question is still open the wait's
    /// end is unknown, so the deadline is looked at again [`RECHECK`] from `now` at the
    /// soonest.
    pub fn postpone(
        &self,
        task: &TaskId,
        due: Instant,
        credited: Duration,
        now: Instant,
    ) -> Option<Postponed> {
        let PersonTime { waited, open } = self.person_time(task);
        if waited <= credited && !open {
            return None;
        }
        let due = due + waited.saturating_sub(credited);
        let look_at = if open { due.max(now + RECHECK) } else { due };
        (look_at > now).then_some(Postponed {
            due,
            credited: waited,
            look_at,
        })
    }

    /// When a deadline `due` on `task`'s time, set when the task had waited `credited`
    /// for a person, falls as far as is known now: later by the person time since.
    pub fn due_now(&self, task: &TaskId, due: Instant, credited: Duration) -> Instant {
        due + self.person_time(task).waited.saturating_sub(credited)
    }

    /// Sleeps until `due` on `task`'s time, set when the task had waited `credited` for
    /// a person: [`Registry::postpone`]d by every wait since.
    pub async fn sleep_task_time(&self, task: &TaskId, due: Instant, credited: Duration) {
        let (mut due, mut credited, mut look_at) = (due, credited, due);
        loop {
            tokio::time::sleep_until(look_at).await;
            match self.postpone(task, due, credited, Instant::now()) {
                Some(p) => (due, credited, look_at) = (p.due, p.credited, p.look_at),
                None => return,
            }
        }
    }

    /// Gives `task` its own answer window: its questions wait this long for the user
    /// (a schedule's run, whose user may be away) instead of the settings' timeout.
    pub fn set_answer_window(&self, task: &TaskId, window: Duration) {
        if !self.is_closed(task) {
            self.lock().windows.insert(task.clone(), window);
        }
    }

    /// The task's own answer window, when it has one.
    pub fn answer_window(&self, task: &TaskId) -> Option<Duration> {
        self.lock().windows.get(task).copied()
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

    #[tokio::test(start_paused = true)]
    async fn person_time_counts_overlapping_questions_once_and_only_while_one_is_open() {
        let r = Registry::new(CancellationToken::new(), 16);
        let (task, other) = (TaskId::mint(), TaskId::mint());
        r.awaiting_person(&task, "a");
        tokio::time::advance(Duration::from_secs(5)).await;
        r.awaiting_person(&task, "b");
        tokio::time::advance(Duration::from_secs(5)).await;
        r.person_answered(&task, "a");
        assert_eq!(
            r.person_time(&task),
            PersonTime {
                waited: Duration::from_secs(10),
                open: true
            }
        );
        tokio::time::advance(Duration::from_secs(2)).await;
        r.person_answered(&task, "b");
        r.person_answered(&task, "b");
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(
            r.person_time(&task),
            PersonTime {
                waited: Duration::from_secs(12),
                open: false
            },
            "nothing counts once every question is answered"
        );
        assert_eq!(r.person_time(&other), PersonTime::default());
        r.close(&task, false);
        assert_eq!(r.person_time(&task), PersonTime::default());
        r.awaiting_person(&task, "late");
        assert_eq!(
            r.person_time(&task),
            PersonTime::default(),
            "a closed task waits for no one"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_on_the_tasks_time_falls_the_person_time_later() {
        let r = Registry::new(CancellationToken::new(), 16);
        let task = TaskId::mint();
        let start = Instant::now();
        let due = start + Duration::from_secs(10);
        assert_eq!(r.postpone(&task, due, Duration::ZERO, due), None);
        tokio::time::advance(Duration::from_secs(4)).await;
        r.awaiting_person(&task, "q");
        tokio::time::advance(Duration::from_secs(6)).await;
        // Due as set, but six seconds of it were the person's, and the question is open.
        let p = r
            .postpone(&task, due, Duration::ZERO, Instant::now())
            .expect("postponed");
        assert_eq!(p.credited, Duration::from_secs(6));
        assert_eq!((p.due, p.look_at), (due + Duration::from_secs(6), p.due));
        tokio::time::advance(Duration::from_secs(20)).await;
        r.person_answered(&task, "q");
        // 26 s of person time in all: the task's 10 s end at 36 s, not before.
        let last = r
            .postpone(&task, p.due, p.credited, Instant::now())
            .expect("postponed");
        assert_eq!(last.due, start + Duration::from_secs(36));
        assert_eq!(last.look_at, last.due);
        assert_eq!(last.credited, Duration::from_secs(26));
        assert_eq!(r.postpone(&task, last.due, last.credited, last.due), None);
    }

    #[tokio::test(start_paused = true)]
    async fn an_open_question_is_looked_at_again_no_sooner_than_the_recheck() {
        let r = Registry::new(CancellationToken::new(), 16);
        let task = TaskId::mint();
        let due = Instant::now() + Duration::from_millis(10);
        r.awaiting_person(&task, "q");
        tokio::time::advance(Duration::from_millis(10)).await;
        let now = Instant::now();
        let p = r
            .postpone(&task, due, Duration::ZERO, now)
            .expect("postponed");
        assert_eq!(p.due, due + Duration::from_millis(10));
        assert_eq!(
            p.look_at,
            now + RECHECK,
            "the deadline itself is not moved by the look"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn sleeping_on_the_tasks_time_outlasts_a_wait_for_a_person() {
        let r = Registry::new(CancellationToken::new(), 16);
        let task = TaskId::mint();
        let start = Instant::now();
        let asker = {
            let r = r.clone();
            let task = task.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                r.awaiting_person(&task, "q");
                tokio::time::sleep(Duration::from_secs(30)).await;
                r.person_answered(&task, "q");
            })
        };
        r.sleep_task_time(&task, start + Duration::from_secs(3), Duration::ZERO)
            .await;
        assert_eq!(start.elapsed(), Duration::from_secs(33));
        asker.await.expect("asker");
    }

    #[test]
    fn a_tasks_own_answer_window_is_kept_while_it_lives() {
        let r = Registry::new(CancellationToken::new(), 16);
        let task = TaskId::mint();
        assert_eq!(r.answer_window(&task), None);
        r.set_answer_window(&task, Duration::from_secs(3600));
        assert_eq!(r.answer_window(&task), Some(Duration::from_secs(3600)));
        r.close(&task, false);
        assert_eq!(r.answer_window(&task), None);
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
