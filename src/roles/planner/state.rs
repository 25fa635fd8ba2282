//! What R2 keeps between the messages of a task: its spec and the last plan it
//! dispatched, for the replans GGS asks for. Plain state, bounded; a task's entry goes
//! when the task closes or R2 answers its graceful-failure request.

use std::collections::HashMap;
use std::sync::Arc;

use super::prompt::PlanSummary;
use crate::contracts::{TaskId, TaskSpec};

/// The last plan dispatched for a task; its lock also keeps a task's rounds in order.
pub(super) type PlanSlot = Arc<tokio::sync::Mutex<Option<PlanSummary>>>;

/// One live task: its spec, the slot of its last plan, and when it was last used.
pub(super) struct TaskEntry {
    pub(super) spec: Arc<TaskSpec>,
    plan: PlanSlot,
    last_used: u64,
}

/// Per-task state of live tasks (a task's goes when it closes), bounded: past `max`
/// the least recently used is forgotten first.
pub(super) struct Tasks {
    map: HashMap<TaskId, TaskEntry>,
    tick: u64,
    max: usize,
}

impl Tasks {
    pub(super) fn new(max: usize) -> Self {
        Self {
            map: HashMap::new(),
            tick: 0,
            max,
        }
    }

    pub(super) fn start(&mut self, spec: TaskSpec) -> (Arc<TaskSpec>, PlanSlot) {
        self.tick += 1;
        if !self.map.contains_key(&spec.task_id) && self.map.len() >= self.max {
            let oldest = self
                .map
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(id, _)| id.clone());
            if let Some(id) = oldest {
                self.map.remove(&id);
            }
        }
        let entry = TaskEntry {
            spec: Arc::new(spec),
            plan: Arc::new(tokio::sync::Mutex::new(None)),
            last_used: self.tick,
        };
        let out = (Arc::clone(&entry.spec), Arc::clone(&entry.plan));
        self.map.insert(entry.spec.task_id.clone(), entry);
        out
    }

    pub(super) fn get(&mut self, task_id: &TaskId) -> Option<(Arc<TaskSpec>, PlanSlot)> {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(task_id).map(|e| {
            e.last_used = tick;
            (Arc::clone(&e.spec), Arc::clone(&e.plan))
        })
    }

    pub(super) fn remove(&mut self, task_id: &TaskId) -> Option<TaskEntry> {
        self.map.remove(task_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::Constraints;

    fn spec(task: &TaskId, intent: &str) -> TaskSpec {
        TaskSpec {
            task_id: task.clone(),
            intent: intent.into(),
            constraints: Constraints::default(),
            raw_input: intent.into(),
        }
    }

    #[test]
    fn task_state_is_per_task_and_bounded_by_least_recent_use() {
        const MAX: usize = 32;
        let mut tasks = Tasks::new(MAX);
        tasks.start(spec_of("task_first"));
        for i in 0..MAX - 1 {
            tasks.start(spec_of(&format!("task_{i}")));
        }
        // Touch the first, so the next start evicts task_0 instead.
        let (first, _) = tasks.get(&TaskId::from_existing("task_first")).unwrap();
        assert_eq!(first.intent, "intent of task_first");
        tasks.start(spec_of("task_new"));
        assert_eq!(tasks.map.len(), MAX);
        assert!(tasks.get(&TaskId::from_existing("task_0")).is_none());
        assert!(tasks.get(&TaskId::from_existing("task_first")).is_some());
        let (other, _) = tasks.get(&TaskId::from_existing("task_5")).unwrap();
        assert_eq!(other.intent, "intent of task_5");
    }

    fn spec_of(id: &str) -> TaskSpec {
        spec(&TaskId::from_existing(id), &format!("intent of {id}"))
    }

    #[test]
    fn a_replan_sees_the_spec_and_the_plan_slot_its_first_round_left() {
        let mut tasks = Tasks::new(4);
        let a = TaskId::mint();
        let (_, slot) = tasks.start(spec(&a, "find the largest file"));
        let (spec_again, slot_again) = tasks.get(&a).expect("still kept");
        assert_eq!(spec_again.intent, "find the largest file");
        assert!(Arc::ptr_eq(&slot, &slot_again), "one slot per task");
        assert!(tasks.remove(&a).is_some());
        assert!(tasks.get(&a).is_none());
    }
}
