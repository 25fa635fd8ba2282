//! The Dispatcher: releases a plan's sub-tasks to the effector agents (R3 + R4a pairs)
//! one sequence group at a time.
//!
//! - Consumes `DispatchManifest` and `SubTask`s from R2 (its `Role::Dispatcher` inbox) and
//!   `TaskClosed`. A plan starts once every sub-task its manifest names has arrived;
//!   if some never arrive within the assembly timeout of [`crate::limits::Limits`]
//!   (R2 publishes them right after the manifest, so it fires only when the planner
//!   failed half-way), nothing of the plan runs and R4b
//!   is told so by a `DispatchHalted` naming them all.
//! - Groups run in ascending `sequence` order — any `i64`, negatives and gaps included —
//!   and the sub-tasks of one group run in parallel. Each released sub-task goes to R4a
//!   first (so the validator knows its criteria before any result can reach it), then to
//!   R3, with the matched outputs of every earlier group appended to its `context`,
//!   bounded by [`MAX_INJECTED_CHARS`].
//! - Each released sub-task is one envelope addressed to R3 that R4a hears too (the bus
//!   delivers it to R4a first).
//! - It learns that a sub-task ended on the bus: it hears every `SubTaskClosed` R4a sends
//!   R3 (a reply to an `ExecutionResult`, or a close of its own when R3 went silent), and
//!   gets the failed close R3 sends when R4a gave no verdict at all. When a group has
//!   ended, a failed sub-task stops every later group and a `DispatchHalted` tells R4b
//!   which sub-tasks were not run; otherwise the next group is released.
//! - A newer manifest for the task (a replan round) supersedes the old one: its groups
//!   not yet released are dropped and late completions of the old round are ignored.
//!   `TaskClosed` drops everything the dispatcher keeps for the task, and nothing of a
//!   task the [`Registry`] says is closed is released afterwards.
//!
//! **Invariant:** a plan never hangs in the dispatcher — every manifest either runs each
//! of its groups in ascending order until one fails, is halted with every unrun sub-task
//! named to R4b, is superseded by a newer round, or is cancelled — and no sub-task is
//! released after its task was cancelled or its group's predecessors failed.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::bus::{Bus, BusHandle, Envelope};
use crate::contracts::{
    DispatchHalted, DispatchManifest, Message, Role, SubTask, SubTaskClosed, SubTaskId,
    SubTaskStatus, TaskClosed, TaskId, UnrunSubTask,
};
use crate::lifecycle::Registry;
use crate::limits::Limits;
use crate::roles::runner::{Actor, Cx, Runner};
use crate::text::first_chars;
use crate::text::{Keep, elide_middle, output_text};

/// Total characters of earlier outputs appended to one sub-task's context; each earlier
/// output gets an equal share, cut in the middle so its start and its end stay visible.
pub const MAX_INJECTED_CHARS: usize = 12_000;

/// The heading of the block of earlier outputs in a sub-task's context.
pub const PRIOR_OUTPUTS_HEADING: &str =
    "Outputs of earlier steps (use them directly; do not re-run their discovery):";

/// One earlier group's output, kept for the context of later groups.
#[derive(Clone, Debug, PartialEq)]
pub struct PriorOutput {
    pub sequence: i64,
    pub intent: String,
    pub output: Value,
}

/// A manifest's sub-tasks in release order: ascending sequence, manifest order within one
/// sequence. Duplicate ids in the manifest are released once.
pub fn sequence_groups(
    manifest: &DispatchManifest,
    pool: &mut HashMap<SubTaskId, SubTask>,
) -> VecDeque<(i64, Vec<SubTask>)> {
    let mut groups: BTreeMap<i64, Vec<SubTask>> = BTreeMap::new();
    for id in &manifest.subtask_ids {
        if let Some(subtask) = pool.remove(id) {
            groups.entry(subtask.sequence).or_default().push(subtask);
        }
    }
    groups.into_iter().collect()
}

/// `context` with the earlier groups' outputs appended, bounded by [`MAX_INJECTED_CHARS`].
pub fn inject_prior_outputs(context: &str, prior: &[PriorOutput]) -> String {
    if prior.is_empty() {
        return context.to_string();
    }
    let share = MAX_INJECTED_CHARS / prior.len();
    let blocks: Vec<String> = prior
        .iter()
        .map(|p| {
            format!(
                "[step {} · {}]\n{}",
                p.sequence,
                first_chars(&p.intent, 120),
                elide_middle(&output_text(&p.output), share, Keep::Balanced)
            )
        })
        .collect();
    let mut out = context.trim_end().to_string();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(PRIOR_OUTPUTS_HEADING);
    out.push('\n');
    out.push_str(&blocks.join("\n---\n"));
    out
}

/// The sequence group being executed.
struct Running {
    sequence: i64,
    subtasks: Vec<SubTask>,
    ended: HashMap<SubTaskId, SubTaskClosed>,
}

/// One task's current plan.
struct Plan {
    manifest: DispatchManifest,
    /// Set while the manifest's sub-tasks are still arriving.
    assembling: bool,
    /// Groups not yet released, ascending.
    pending: VecDeque<(i64, Vec<SubTask>)>,
    running: Option<Running>,
    prior: Vec<PriorOutput>,
}

#[derive(Default)]
struct TaskState {
    /// Sub-tasks that arrived and are not running yet (their manifest may come later).
    waiting: HashMap<SubTaskId, SubTask>,
    plan: Option<Plan>,
}

/// The dispatcher wired to the bus.
pub struct Dispatcher(Runner<Dispatch>);

/// The dispatcher's state and reactions.
struct Dispatch {
    bus: BusHandle,
    registry: Registry,
    assembly_timeout: Duration,
    /// Sub-tasks held per task while they wait for their manifest.
    max_waiting: usize,
    tasks: HashMap<TaskId, TaskState>,
    /// The newest round whose plan finished (ran, halted or failed to assemble), per live
    /// task, so a stale manifest of that round or an older one is not run again.
    finished: HashMap<TaskId, u32>,
}

impl Dispatcher {
    /// Subscribes now, so nothing addressed to the dispatcher after this call is missed.
    pub fn new(bus: &Bus, registry: Registry, limits: &Limits) -> Self {
        let dispatch = Dispatch {
            bus: bus.handle(Role::Dispatcher),
            registry: registry.clone(),
            assembly_timeout: limits.assembly_timeout,
            max_waiting: limits.waiting_subtasks,
            tasks: HashMap::new(),
            finished: HashMap::new(),
        };
        Self(Runner::new(
            dispatch,
            bus.subscribe(Role::Dispatcher),
            registry,
        ))
    }

    /// Overrides how long a manifest waits for its sub-tasks.
    pub fn with_assembly_timeout(mut self, timeout: Duration) -> Self {
        self.0.actor_mut().assembly_timeout = timeout;
        self
    }

    /// Runs [`Dispatcher::run`] on the current tokio runtime.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run())
    }

    /// Serves until the bus closes.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Dispatch {
    type Done = ();
    /// The round whose manifest is still waiting for its sub-tasks.
    type Timer = u32;

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        match &env.message {
            Message::DispatchManifest(m) => self.on_manifest(m, cx),
            Message::SubTask(s) => self.on_subtask(s),
            Message::SubTaskClosed(c) => self.on_closed(c.clone()),
            other => tracing::warn!(from = %env.from, kind = other.kind().name(),
                "the dispatcher ignores a message it has no contract for"),
        }
    }

    fn on_deadline(&mut self, task: TaskId, round: u32, _cx: &mut Cx<'_, Self>) {
        self.assembly_expired(&task, round);
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        self.close(&closed.task_id);
    }
}

impl Dispatch {
    /// Drops what the dispatcher keeps for a task that closed.
    fn close(&mut self, task: &TaskId) {
        if self.tasks.remove(task).is_some() {
            tracing::info!(task = %task, "dispatch stopped: the task closed");
        }
        self.finished.remove(task);
    }

    fn on_manifest(&mut self, manifest: &DispatchManifest, cx: &mut Cx<'_, Self>) {
        let task = &manifest.task_id;
        let state = self.tasks.entry(task.clone()).or_default();
        let newest = match (&state.plan, self.finished.get(task)) {
            (Some(plan), _) => Some(plan.manifest.round),
            (None, round) => round.copied(),
        };
        if newest.is_some_and(|newest| manifest.round <= newest) {
            tracing::warn!(task = %task, round = manifest.round, ?newest,
                "stale or repeated manifest ignored");
            if state.plan.is_none() && state.waiting.is_empty() {
                self.tasks.remove(task);
            }
            return;
        }
        if let Some(old) = state.plan.take() {
            let unreleased: usize = old.pending.iter().map(|(_, g)| g.len()).sum();
            tracing::info!(task = %task, old_round = old.manifest.round, new_round = manifest.round,
                unreleased, "a replan supersedes the previous plan");
        }
        cx.at(Instant::now() + self.assembly_timeout, task, manifest.round);
        state.plan = Some(Plan {
            manifest: manifest.clone(),
            assembling: true,
            pending: VecDeque::new(),
            running: None,
            prior: Vec::new(),
        });
        self.try_start(task);
    }

    fn on_subtask(&mut self, subtask: &SubTask) {
        let task = &subtask.parent_task_id;
        let state = self.tasks.entry(task.clone()).or_default();
        if state.waiting.contains_key(&subtask.subtask_id) {
            tracing::warn!(task = %task, subtask = %subtask.subtask_id,
                "a sub-task arrived twice; the first copy is kept");
            return;
        }
        if state.waiting.len() >= self.max_waiting {
            tracing::warn!(task = %task, subtask = %subtask.subtask_id,
                "too many sub-tasks waiting for a manifest; this one is dropped");
            return;
        }
        state.waiting.insert(subtask.subtask_id, subtask.clone());
        self.try_start(task);
    }

    /// Starts the task's plan once every sub-task its manifest names has arrived.
    fn try_start(&mut self, task: &TaskId) {
        let Some(state) = self.tasks.get_mut(task) else {
            return;
        };
        let Some(plan) = state.plan.as_mut() else {
            return;
        };
        if !plan.assembling {
            return; // already running
        }
        if !plan
            .manifest
            .subtask_ids
            .iter()
            .all(|id| state.waiting.contains_key(id))
        {
            return;
        }
        plan.assembling = false;
        plan.pending = sequence_groups(&plan.manifest, &mut state.waiting);
        if !state.waiting.is_empty() {
            tracing::warn!(task = %task, stray = state.waiting.len(),
                "sub-tasks named by no manifest are dropped");
            state.waiting.clear();
        }
        self.release_next(task);
    }

    /// Releases the next group, or finishes the plan when none is left.
    fn release_next(&mut self, task: &TaskId) {
        if self.registry.is_closed(task) {
            return self.close(task);
        }
        let Some(plan) = self.tasks.get_mut(task).and_then(|s| s.plan.as_mut()) else {
            return;
        };
        let Some((sequence, group)) = plan.pending.pop_front() else {
            let round = plan.manifest.round;
            return self.finish(task, round);
        };
        let mut released = Vec::with_capacity(group.len());
        for mut subtask in group {
            subtask.context = inject_prior_outputs(&subtask.context, &plan.prior);
            // R4a hears it before R3 gets it: it holds the criteria before any result.
            self.bus.publish(Role::Executor, subtask.clone());
            released.push(subtask);
        }
        tracing::debug!(task = %task, sequence, n = released.len(), "sequence group released");
        plan.running = Some(Running {
            sequence,
            subtasks: released,
            ended: HashMap::new(),
        });
    }

    fn finish(&mut self, task: &TaskId, round: u32) {
        self.tasks.remove(task);
        self.finished.insert(task.clone(), round);
    }

    fn on_closed(&mut self, closed: SubTaskClosed) {
        let task = closed.parent_task_id.clone();
        let Some(plan) = self.tasks.get_mut(&task).and_then(|s| s.plan.as_mut()) else {
            tracing::debug!(task = %task, subtask = %closed.subtask_id,
                "completion for a task with no running plan ignored");
            return;
        };
        let Some(running) = plan.running.as_mut() else {
            return;
        };
        if !running
            .subtasks
            .iter()
            .any(|s| s.subtask_id == closed.subtask_id)
        {
            tracing::debug!(task = %task, subtask = %closed.subtask_id,
                "completion of a sub-task outside the running group (a superseded round) ignored");
            return;
        }
        running.ended.entry(closed.subtask_id).or_insert(closed);
        if running.ended.len() < running.subtasks.len() {
            return;
        }
        let Some(running) = plan.running.take() else {
            return;
        };
        let failed: Vec<SubTaskId> = running
            .subtasks
            .iter()
            .filter(|s| {
                running
                    .ended
                    .get(&s.subtask_id)
                    .is_none_or(|c| c.status == SubTaskStatus::Failed)
            })
            .map(|s| s.subtask_id)
            .collect();
        if failed.is_empty() {
            for subtask in &running.subtasks {
                let output = running
                    .ended
                    .get(&subtask.subtask_id)
                    .map(|c| c.output.clone())
                    .unwrap_or(Value::Null);
                plan.prior.push(PriorOutput {
                    sequence: running.sequence,
                    intent: subtask.intent.clone(),
                    output,
                });
            }
            return self.release_next(&task);
        }
        let skipped: Vec<UnrunSubTask> = plan
            .pending
            .iter()
            .flat_map(|(_, group)| group.iter().map(unrun_of))
            .collect();
        let round = plan.manifest.round;
        if !skipped.is_empty() {
            let reason = format!(
                "sequence group {} failed ({} of {} sub-task(s) failed: {}); the {} later \
                 sub-task(s) depend on it and were not run",
                running.sequence,
                failed.len(),
                running.subtasks.len(),
                failed
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                skipped.len()
            );
            self.halt(&task, skipped, reason);
        }
        self.finish(&task, round);
    }

    /// Tells R4b which sub-tasks of the plan will not run (with their criteria), and why.
    fn halt(&self, task: &TaskId, unrun: Vec<UnrunSubTask>, reason: String) {
        tracing::info!(task = %task, %reason, "dispatch halted");
        self.bus.publish(
            Role::MetaValidator,
            DispatchHalted {
                task_id: task.clone(),
                skipped: unrun.iter().map(|u| u.subtask_id).collect(),
                reason,
                unrun,
            },
        );
    }

    /// The round `round` of `task` did not arrive complete in time: nothing of it runs.
    fn assembly_expired(&mut self, task: &TaskId, round: u32) {
        let Some(state) = self.tasks.get(task) else {
            return;
        };
        let Some(plan) = state.plan.as_ref().filter(|p| p.assembling) else {
            return;
        };
        if plan.manifest.round != round {
            return; // a newer round superseded it
        }
        let missing: Vec<String> = plan
            .manifest
            .subtask_ids
            .iter()
            .filter(|id| !state.waiting.contains_key(id))
            .map(ToString::to_string)
            .collect();
        let mut skipped: Vec<UnrunSubTask> = Vec::new();
        for id in &plan.manifest.subtask_ids {
            if !skipped.iter().any(|u| u.subtask_id == *id) {
                skipped.push(state.waiting.get(id).map_or_else(
                    || UnrunSubTask {
                        subtask_id: *id,
                        success_criteria: Vec::new(),
                        reason: String::new(),
                    },
                    unrun_of,
                ));
            }
        }
        let reason = format!(
            "the plan never arrived complete: {} of its {} sub-task(s) ({}) did not reach \
             the dispatcher within {}s, so none of it was run",
            missing.len(),
            skipped.len(),
            missing.join(", "),
            self.assembly_timeout.as_secs_f64()
        );
        self.halt(task, skipped, reason);
        self.finish(task, round);
    }
}

/// A sub-task that will not run, as R4b is told of it (its reason is the halt's).
fn unrun_of(subtask: &SubTask) -> UnrunSubTask {
    UnrunSubTask {
        subtask_id: subtask.subtask_id,
        success_criteria: subtask.success_criteria.clone(),
        reason: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn subtask(task: &TaskId, sequence: i64, intent: &str) -> SubTask {
        SubTask {
            subtask_id: SubTaskId::mint(),
            parent_task_id: task.clone(),
            intent: intent.into(),
            context: String::new(),
            success_criteria: vec![],
            sequence,
            deadline: None,
            blocked_tools: vec![],
            blocked_targets: vec![],
            confirm_tools: vec![],
        }
    }

    fn manifest(task: &TaskId, subtasks: &[&SubTask]) -> DispatchManifest {
        DispatchManifest {
            task_id: task.clone(),
            subtask_ids: subtasks.iter().map(|s| s.subtask_id).collect(),
            task_spec: None,
            dispatched_at: Utc::now(),
            task_criteria: vec![],
            round: 0,
        }
    }

    #[test]
    fn groups_come_out_in_ascending_sequence_with_negatives_and_gaps() {
        let task = TaskId::mint();
        let a = subtask(&task, 7, "a");
        let b = subtask(&task, -3, "b");
        let c = subtask(&task, 7, "c");
        let d = subtask(&task, 0, "d");
        let m = manifest(&task, &[&a, &b, &c, &d]);
        let mut pool: HashMap<_, _> = [&a, &b, &c, &d]
            .iter()
            .map(|s| (s.subtask_id, (*s).clone()))
            .collect();
        let groups = sequence_groups(&m, &mut pool);
        let shape: Vec<(i64, Vec<&str>)> = groups
            .iter()
            .map(|(seq, g)| (*seq, g.iter().map(|s| s.intent.as_str()).collect()))
            .collect();
        assert_eq!(
            shape,
            vec![(-3, vec!["b"]), (0, vec!["d"]), (7, vec!["a", "c"])]
        );
        assert!(pool.is_empty());
    }

    #[test]
    fn a_repeated_id_in_the_manifest_is_released_once() {
        let task = TaskId::mint();
        let a = subtask(&task, 1, "a");
        let mut m = manifest(&task, &[&a]);
        m.subtask_ids.push(a.subtask_id);
        let mut pool = HashMap::from([(a.subtask_id, a.clone())]);
        let groups = sequence_groups(&m, &mut pool);
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].1.len(), 1);
    }

    #[test]
    fn prior_outputs_are_appended_after_the_context_with_their_step() {
        let prior = vec![
            PriorOutput {
                sequence: 1,
                intent: "list the files".into(),
                output: Value::String("a.txt\nb.txt".into()),
            },
            PriorOutput {
                sequence: 1,
                intent: "count lines".into(),
                output: serde_json::json!({"lines": 42}),
            },
        ];
        let ctx = inject_prior_outputs("Work in /tmp/x.", &prior);
        assert!(ctx.starts_with("Work in /tmp/x.\n\n"));
        assert!(ctx.contains(PRIOR_OUTPUTS_HEADING));
        assert!(ctx.contains("[step 1 · list the files]\na.txt\nb.txt"));
        assert!(ctx.contains("\"lines\": 42"));
        assert_eq!(inject_prior_outputs("same", &[]), "same");
    }

    #[test]
    fn injected_outputs_are_bounded_however_large_they_are() {
        let prior: Vec<PriorOutput> = (0..5)
            .map(|i| PriorOutput {
                sequence: i,
                intent: "dump".into(),
                output: Value::String("x".repeat(100_000)),
            })
            .collect();
        let ctx = inject_prior_outputs("", &prior);
        assert!(
            ctx.chars().count() < MAX_INJECTED_CHARS + 1_000,
            "{}",
            ctx.chars().count()
        );
    }
}
