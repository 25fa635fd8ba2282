//! R3's decisions as plain state: which sub-tasks have a worker, and for which task.
//! Sub-tasks, R4a's own closes, the ends of workers and task closes in; whether to start
//! a worker, which one to stop and the close the dispatcher must hear out, the last
//! through the handler's [`Effects`]. No runtime, no bus: the wiring in `mod.rs` keeps the
//! workers' abort handles and spawns them.
//!
//! **Invariant:** a sub-task has at most one worker; a worker leaves the state exactly
//! once — when it ends, when R4a closes its sub-task, or when its task closes — and only
//! a worker that ended without a verdict, with its task still open, is closed toward the
//! dispatcher, so the dispatcher hears of each sub-task once.

use std::collections::HashMap;

use super::worker::End;
use crate::actor::Effects;
use crate::contracts::{Role, SubTask, SubTaskClosed, SubTaskId, TaskId};

/// The effects of one reaction; R3 sets no deadline.
pub(super) type Fx = Effects<()>;

/// The sub-tasks that have a running worker, each with its task.
#[derive(Default)]
pub(super) struct Workers {
    running: HashMap<SubTaskId, TaskId>,
}

impl Workers {
    /// Whether a worker starts for `subtask`: not when one already runs for it. A
    /// started one counts as running from now on.
    pub(super) fn start(&mut self, subtask: &SubTask) -> bool {
        if self.running.contains_key(&subtask.subtask_id) {
            tracing::warn!(subtask = %subtask.subtask_id, "a sub-task arrived twice; the first keeps running");
            return false;
        }
        self.running
            .insert(subtask.subtask_id, subtask.parent_task_id.clone());
        true
    }

    /// R4a closed a sub-task without being asked (the worker was silent too long): the
    /// worker to stop, if one runs. The dispatcher heard the close itself.
    pub(super) fn closed_by_validator(&mut self, closed: &SubTaskClosed) -> Option<SubTaskId> {
        if self.running.remove(&closed.subtask_id).is_none() {
            tracing::debug!(subtask = %closed.subtask_id, "close for no running worker ignored");
            return None;
        }
        tracing::info!(subtask = %closed.subtask_id, status = ?closed.status,
            "the validator closed the sub-task on its own");
        Some(closed.subtask_id)
    }

    /// The worker of `id` ended as `end` (the runner reports no end of a closed task).
    /// Without a verdict nobody else closes the sub-task, so the worker's own failed
    /// close goes to the dispatcher, whose group would otherwise never end.
    pub(super) fn ended(&mut self, id: SubTaskId, end: End, fx: &mut Fx) {
        if self.running.remove(&id).is_none() {
            return; // closed by R4a on its own, or its task closed
        }
        match end {
            End::Unjudged(closed) => fx.publish(Role::Dispatcher, closed),
            End::Closed => {}
            _ => tracing::debug!(subtask = %id, "worker ended cancelled"),
        }
    }

    /// Forgets the workers of a task that closed (the runner stopped them) and names them.
    pub(super) fn close(&mut self, task: &TaskId) -> Vec<SubTaskId> {
        let mut stopped = Vec::new();
        self.running.retain(|id, t| {
            if t != task {
                return true;
            }
            tracing::info!(subtask = %id, "worker stopped: the task closed");
            stopped.push(*id);
            false
        });
        stopped
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::contracts::{Message, SubTaskStatus};

    fn subtask(task: &TaskId) -> SubTask {
        SubTask {
            subtask_id: SubTaskId::mint(),
            parent_task_id: task.clone(),
            intent: "list the folder".into(),
            context: String::new(),
            success_criteria: vec![],
            sequence: 1,
            deadline: None,
            blocked_tools: vec![],
            blocked_targets: vec![],
            confirm_tools: vec![],
            answer: Default::default(),
            request: None,
        }
    }

    fn closed(sub: &SubTask) -> SubTaskClosed {
        SubTaskClosed {
            subtask_id: sub.subtask_id,
            parent_task_id: sub.parent_task_id.clone(),
            status: SubTaskStatus::Failed,
            output: Value::Null,
        }
    }

    #[test]
    fn a_sub_task_that_arrives_twice_starts_one_worker() {
        let mut workers = Workers::default();
        let sub = subtask(&TaskId::mint());
        assert!(workers.start(&sub));
        assert!(!workers.start(&sub), "the first keeps running");
        // Once its worker ended, the same sub-task may start again.
        let mut fx = Fx::default();
        workers.ended(sub.subtask_id, End::Closed, &mut fx);
        assert!(workers.start(&sub));
    }

    #[test]
    fn a_close_of_r4a_stops_that_worker_once_and_its_end_is_then_silent() {
        let mut workers = Workers::default();
        let task = TaskId::mint();
        let (sub, other) = (subtask(&task), subtask(&task));
        workers.start(&sub);
        workers.start(&other);
        assert_eq!(
            workers.closed_by_validator(&closed(&sub)),
            Some(sub.subtask_id)
        );
        assert_eq!(workers.closed_by_validator(&closed(&sub)), None);
        // The stopped worker's end, should it come, reports nothing to the dispatcher.
        let mut fx = Fx::default();
        workers.ended(sub.subtask_id, End::Unjudged(closed(&sub)), &mut fx);
        assert!(fx.published().is_empty());
        assert_eq!(workers.close(&task), vec![other.subtask_id]);
    }

    #[test]
    fn an_unjudged_worker_is_closed_toward_the_dispatcher_while_its_task_is_open() {
        let mut workers = Workers::default();
        let task = TaskId::mint();
        let sub = subtask(&task);
        workers.start(&sub);
        let mut fx = Fx::default();
        workers.ended(sub.subtask_id, End::Unjudged(closed(&sub)), &mut fx);
        assert_eq!(fx.published().len(), 1);
        let out = &fx.published()[0];
        assert_eq!(out.to, Role::Dispatcher);
        assert_eq!(out.in_reply_to, None);
        assert!(matches!(&out.message, Message::SubTaskClosed(c) if *c == closed(&sub)));
        // Its end is reported once.
        workers.ended(sub.subtask_id, End::Unjudged(closed(&sub)), &mut fx);
        assert_eq!(fx.published().len(), 1);
    }

    #[test]
    fn a_worker_that_ended_judged_or_cancelled_reports_nothing() {
        let mut workers = Workers::default();
        let task = TaskId::mint();
        let (judged, cancelled) = (subtask(&task), subtask(&task));
        for sub in [&judged, &cancelled] {
            workers.start(sub);
        }
        let mut fx = Fx::default();
        workers.ended(judged.subtask_id, End::Closed, &mut fx);
        workers.ended(cancelled.subtask_id, End::Cancelled, &mut fx);
        assert!(fx.published().is_empty());
        assert!(workers.close(&task).is_empty(), "every worker left once");
    }

    #[test]
    fn a_closed_task_forgets_its_workers_and_only_its_own() {
        let mut workers = Workers::default();
        let (closing, other) = (TaskId::mint(), TaskId::mint());
        let (a, b, c) = (subtask(&closing), subtask(&closing), subtask(&other));
        for sub in [&a, &b, &c] {
            workers.start(sub);
        }
        let mut stopped = workers.close(&closing);
        stopped.sort_by_key(ToString::to_string);
        let mut expected = vec![a.subtask_id, b.subtask_id];
        expected.sort_by_key(ToString::to_string);
        assert_eq!(stopped, expected);
        // A late end of a forgotten worker publishes nothing.
        let mut fx = Fx::default();
        workers.ended(a.subtask_id, End::Unjudged(closed(&a)), &mut fx);
        assert!(fx.published().is_empty());
        assert_eq!(workers.close(&other), vec![c.subtask_id]);
    }
}
