//! Usage accounting: model calls, prompt/completion tokens and wall time, per role per
//! task — what the cost report and the UI show.
//!
//! **Invariant:** the per-task map lets a task go when the task registry forgets it
//! ([`UsageLedger::forget`]), so it holds the live tasks plus the registry's window of
//! closed ones and a process that runs for weeks does not grow with every task it ever
//! ran; the lifetime totals count every call.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::contracts::{Role, TaskId};

/// What one role spent. `wall_ms` includes retries and backoff: it is the time the role
/// waited on the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RoleUsage {
    /// Model calls made.
    pub calls: u64,
    /// Calls that ended in an error (timeout, cancellation, HTTP error, unusable output).
    pub failed_calls: u64,
    /// Prompt tokens over those calls.
    pub prompt_tokens: u64,
    /// Reply tokens over those calls.
    pub completion_tokens: u64,
    /// Summed wall time of those calls, in milliseconds.
    pub wall_ms: u64,
}

impl RoleUsage {
    /// Prompt and reply tokens together.
    pub fn total_tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    fn add(&mut self, other: &RoleUsage) {
        self.calls += other.calls;
        self.failed_calls += other.failed_calls;
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.wall_ms += other.wall_ms;
    }
}

/// One finished model call, as the client records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallUsage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Reply tokens.
    pub completion_tokens: u64,
    /// Wall time of the call.
    pub wall: Duration,
    /// Whether the call ended in an error.
    pub failed: bool,
}

impl From<CallUsage> for RoleUsage {
    fn from(c: CallUsage) -> Self {
        RoleUsage {
            calls: 1,
            failed_calls: u64::from(c.failed),
            prompt_tokens: c.prompt_tokens,
            completion_tokens: c.completion_tokens,
            wall_ms: u64::try_from(c.wall.as_millis()).unwrap_or(u64::MAX),
        }
    }
}

/// Usage of one task (or of background work), by role.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskUsage {
    /// Usage per role; roles that made no call are absent.
    pub roles: BTreeMap<Role, RoleUsage>,
}

impl TaskUsage {
    /// The role's usage; zero when it made no call.
    pub fn role(&self, role: Role) -> RoleUsage {
        self.roles.get(&role).copied().unwrap_or_default()
    }

    /// The usage of every role, summed.
    pub fn total(&self) -> RoleUsage {
        let mut total = RoleUsage::default();
        for usage in self.roles.values() {
            total.add(usage);
        }
        total
    }

    fn add(&mut self, role: Role, usage: &RoleUsage) {
        self.roles.entry(role).or_default().add(usage);
    }
}

#[derive(Default)]
struct Ledger {
    /// Live tasks and the closed ones the registry still remembers.
    tasks: HashMap<TaskId, TaskUsage>,
    /// Calls outside any task (the Dreamer's distillation).
    background: TaskUsage,
    /// Everything since start-up.
    lifetime: TaskUsage,
}

/// Shared, cheap to clone. The runtime calls [`UsageLedger::forget`] for every task the
/// registry forgets, so the per-task map is bounded by the registry's window.
#[derive(Clone, Default)]
pub struct UsageLedger {
    inner: Arc<Mutex<Ledger>>,
}

impl UsageLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Ledger> {
        // Every critical section is one map update: the data stays consistent even if a
        // holder panicked.
        crate::sync::lock(&self.inner)
    }

    /// Counts one finished call, for `task` or as background work when None.
    pub fn record(&self, task: Option<&TaskId>, role: Role, call: CallUsage) {
        let usage = RoleUsage::from(call);
        let mut ledger = self.lock();
        ledger.lifetime.add(role, &usage);
        match task {
            Some(task) => ledger
                .tasks
                .entry(task.clone())
                .or_default()
                .add(role, &usage),
            None => ledger.background.add(role, &usage),
        }
    }

    /// What the task has spent so far.
    pub fn task(&self, task: &TaskId) -> TaskUsage {
        self.lock().tasks.get(task).cloned().unwrap_or_default()
    }

    /// Lets the tasks' usage go (the lifetime totals keep it for good).
    pub fn forget(&self, forgotten: &[TaskId]) {
        let mut ledger = self.lock();
        for task in forgotten {
            ledger.tasks.remove(task);
        }
    }

    /// Tasks the ledger holds usage for (live and recently closed).
    pub fn tracked_tasks(&self) -> usize {
        self.lock().tasks.len()
    }

    /// What calls outside any task have spent.
    pub fn background(&self) -> TaskUsage {
        self.lock().background.clone()
    }

    /// Everything spent since start-up.
    pub fn lifetime(&self) -> TaskUsage {
        self.lock().lifetime.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(p: u64, c: u64, ms: u64, failed: bool) -> CallUsage {
        CallUsage {
            prompt_tokens: p,
            completion_tokens: c,
            wall: Duration::from_millis(ms),
            failed,
        }
    }

    #[test]
    fn usage_adds_up_per_role_per_task_and_in_total() {
        let ledger = UsageLedger::new();
        let a = TaskId::mint();
        let b = TaskId::mint();
        ledger.record(Some(&a), Role::Planner, call(100, 20, 300, false));
        ledger.record(Some(&a), Role::Planner, call(50, 10, 200, true));
        ledger.record(Some(&a), Role::Executor, call(7, 3, 10, false));
        ledger.record(Some(&b), Role::Perceiver, call(1, 1, 1, false));
        ledger.record(None, Role::Memory, call(9, 9, 9, false));

        let ua = ledger.task(&a);
        assert_eq!(
            ua.role(Role::Planner),
            RoleUsage {
                calls: 2,
                failed_calls: 1,
                prompt_tokens: 150,
                completion_tokens: 30,
                wall_ms: 500
            }
        );
        assert_eq!(ua.total().calls, 3);
        assert_eq!(ua.total().total_tokens(), 190);
        assert_eq!(ledger.background().role(Role::Memory).calls, 1);
        assert_eq!(ledger.lifetime().total().calls, 5);

        assert_eq!(ledger.task(&a), ua, "usage stays readable until forgotten");
        assert_eq!(ledger.lifetime().total().calls, 5);
    }

    #[test]
    fn forgotten_tasks_leave_the_map_but_stay_in_the_lifetime_totals() {
        let ledger = UsageLedger::new();
        let first = TaskId::mint();
        let running = TaskId::mint();
        ledger.record(Some(&first), Role::Planner, call(10, 1, 1, false));
        // A call that finishes after its task closed is still counted with it.
        ledger.record(Some(&first), Role::MetaValidator, call(5, 1, 1, true));
        ledger.record(Some(&running), Role::Executor, call(1, 1, 1, false));
        assert_eq!(ledger.task(&first).total().calls, 2);
        assert_eq!(ledger.tracked_tasks(), 2);

        ledger.forget(std::slice::from_ref(&first));
        ledger.forget(std::slice::from_ref(&first));
        assert_eq!(ledger.tracked_tasks(), 1, "only the running task is left");
        assert_eq!(ledger.task(&first), TaskUsage::default());
        assert_eq!(ledger.task(&running).total().calls, 1);
        assert_eq!(ledger.lifetime().total().calls, 3);
    }

    #[test]
    fn task_usage_serialises_with_the_seed_role_names() {
        let ledger = UsageLedger::new();
        let t = TaskId::mint();
        ledger.record(Some(&t), Role::AgentValidator, call(1, 2, 3, false));
        let json = serde_json::to_value(ledger.task(&t)).unwrap();
        assert_eq!(json["roles"]["R4a"]["completion_tokens"], 2);
    }
}
