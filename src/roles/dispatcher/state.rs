//! The dispatcher's decisions as plain state: manifests and sub-task closes in, released
//! sub-tasks and halts out, through the handler's [`Effects`]. No bus, no runtime, no
//! clock.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde_json::Value;

use crate::actor::Effects;
use crate::contracts::{
    DispatchHalted, DispatchManifest, Role, SubTask, SubTaskClosed, SubTaskId, SubTaskStatus,
    TaskId, UnrunSubTask,
};
use crate::text::first_chars;
use crate::text::{Keep, elide_middle, output_text};

/// Total characters of earlier outputs appended to one sub-task's context; each earlier
/// output gets an equal share, cut in the middle so its start and its end stay visible.
pub const MAX_INJECTED_CHARS: usize = 12_000;

pub use crate::contracts::PRIOR_OUTPUTS_HEADING;

/// One earlier group's output, kept for the context of later groups.
#[derive(Clone, Debug, PartialEq)]
pub struct PriorOutput {
    /// The sequence group the output came from.
    pub sequence: i64,
    /// The intent of the sub-task that produced it.
    pub intent: String,
    /// What the sub-task produced.
    pub output: Value,
}

/// A manifest's sub-tasks in release order: ascending sequence, manifest order within one
/// sequence. A sub-task listed twice is released once.
pub fn sequence_groups(manifest: &DispatchManifest) -> VecDeque<(i64, Vec<SubTask>)> {
    let mut seen = HashSet::new();
    let mut groups: BTreeMap<i64, Vec<SubTask>> = BTreeMap::new();
    for subtask in &manifest.subtasks {
        if seen.insert(subtask.subtask_id) {
            groups
                .entry(subtask.sequence)
                .or_default()
                .push(subtask.clone());
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
    round: u32,
    /// Groups not yet released, ascending.
    pending: VecDeque<(i64, Vec<SubTask>)>,
    running: Option<Running>,
    prior: Vec<PriorOutput>,
}

/// What the dispatcher keeps and decides: plain state, no bus and no clock. Every
/// reaction takes the handler's [`Effects`] and leaves in it what goes out: released
/// sub-tasks and halts.
#[derive(Default)]
pub(super) struct Dispatch {
    /// The plan running per task.
    plans: HashMap<TaskId, Plan>,
    /// The newest round whose plan finished (ran or halted), per live task, so a stale
    /// manifest of that round or an older one is not run again.
    finished: HashMap<TaskId, u32>,
}

/// The effects of one reaction; the dispatcher sets no deadlines.
pub(super) type Fx = Effects<()>;

impl Dispatch {
    /// Drops what the dispatcher keeps for a task that closed.
    pub(super) fn close(&mut self, task: &TaskId) {
        if self.plans.remove(task).is_some() {
            tracing::info!(task = %task, "dispatch stopped: the task closed");
        }
        self.finished.remove(task);
    }

    pub(super) fn on_manifest(&mut self, manifest: &DispatchManifest, fx: &mut Fx) {
        let task = &manifest.task_id;
        let newest = match (self.plans.get(task), self.finished.get(task)) {
            (Some(plan), _) => Some(plan.round),
            (None, round) => round.copied(),
        };
        if newest.is_some_and(|newest| manifest.round <= newest) {
            tracing::warn!(task = %task, round = manifest.round, ?newest,
                "stale or repeated manifest ignored");
            return;
        }
        if let Some(old) = self.plans.remove(task) {
            let unreleased: usize = old.pending.iter().map(|(_, g)| g.len()).sum();
            tracing::info!(task = %task, old_round = old.round, new_round = manifest.round,
                unreleased, "a replan supersedes the previous plan");
        }
        self.plans.insert(
            task.clone(),
            Plan {
                round: manifest.round,
                pending: sequence_groups(manifest),
                running: None,
                prior: Vec::new(),
            },
        );
        self.release_next(task, fx);
    }

    /// Releases the next group, or finishes the plan when none is left.
    fn release_next(&mut self, task: &TaskId, fx: &mut Fx) {
        let Some(plan) = self.plans.get_mut(task) else {
            return;
        };
        let Some((sequence, group)) = plan.pending.pop_front() else {
            let round = plan.round;
            return self.finish(task, round);
        };
        let mut released = Vec::with_capacity(group.len());
        for mut subtask in group {
            subtask.context = inject_prior_outputs(&subtask.context, &plan.prior);
            // R4a hears it before R3 gets it: it holds the criteria before any result.
            fx.publish(Role::Executor, subtask.clone());
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
        self.plans.remove(task);
        self.finished.insert(task.clone(), round);
    }

    pub(super) fn on_closed(&mut self, closed: SubTaskClosed, fx: &mut Fx) {
        let task = closed.parent_task_id.clone();
        let Some(plan) = self.plans.get_mut(&task) else {
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
            return self.release_next(&task, fx);
        }
        let skipped: Vec<UnrunSubTask> = plan
            .pending
            .iter()
            .flat_map(|(_, group)| group.iter().map(unrun_of))
            .collect();
        let round = plan.round;
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
            halt(&task, skipped, reason, fx);
        }
        self.finish(&task, round);
    }
}

/// Tells R4b which sub-tasks of the plan will not run (with their criteria), and why.
fn halt(task: &TaskId, unrun: Vec<UnrunSubTask>, reason: String, fx: &mut Fx) {
    tracing::info!(task = %task, %reason, "dispatch halted");
    fx.publish(
        Role::MetaValidator,
        DispatchHalted {
            task_id: task.clone(),
            skipped: unrun.iter().map(|u| u.subtask_id).collect(),
            reason,
            unrun,
        },
    );
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
            answer: Default::default(),
            request: None,
        }
    }

    fn manifest(task: &TaskId, subtasks: &[&SubTask]) -> DispatchManifest {
        DispatchManifest {
            task_id: task.clone(),
            subtasks: subtasks.iter().map(|s| (*s).clone()).collect(),
            task_spec: None,
            dispatched_at: Utc::now(),
            task_criteria: vec![],
            round: 0,
        }
    }

    // ---- the decisions, without a bus or a runtime ----

    use crate::contracts::Message;

    fn dispatch() -> Dispatch {
        Dispatch::default()
    }

    fn closed(sub: &SubTask, status: SubTaskStatus, output: &str) -> SubTaskClosed {
        SubTaskClosed {
            subtask_id: sub.subtask_id,
            parent_task_id: sub.parent_task_id.clone(),
            status,
            output: Value::String(output.into()),
        }
    }

    /// The intents of the sub-tasks released to R3, in order.
    fn released(fx: &Fx) -> Vec<String> {
        fx.published()
            .iter()
            .filter_map(|o| match &o.message {
                Message::SubTask(s) if o.to == Role::Executor => Some(s.intent.clone()),
                _ => None,
            })
            .collect()
    }

    fn halts(fx: &Fx) -> Vec<&DispatchHalted> {
        fx.published()
            .iter()
            .filter_map(|o| match &o.message {
                Message::DispatchHalted(h) if o.to == Role::MetaValidator => Some(h),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn groups_are_released_one_at_a_time_each_with_the_outputs_before_it() {
        let task = TaskId::mint();
        let (a, b) = (subtask(&task, 1, "a"), subtask(&task, 1, "b"));
        let c = subtask(&task, 2, "c");
        let mut d = dispatch();
        let mut fx = Fx::default();
        d.on_manifest(&manifest(&task, &[&c, &a, &b]), &mut fx);
        assert_eq!(
            released(&fx),
            ["a", "b"],
            "the lowest group first, in plan order"
        );
        assert!(fx.deadlines().is_empty());

        let mut fx = Fx::default();
        d.on_closed(closed(&a, SubTaskStatus::Matched, "out of a"), &mut fx);
        assert!(released(&fx).is_empty(), "b is still running");
        d.on_closed(closed(&b, SubTaskStatus::Matched, "out of b"), &mut fx);
        assert_eq!(released(&fx), ["c"]);
        let Message::SubTask(sent) = &fx.published()[0].message else {
            panic!("a sub-task");
        };
        assert!(
            sent.context.contains("[step 1 · a]\nout of a"),
            "{}",
            sent.context
        );
        assert!(sent.context.contains("out of b"));
        assert!(halts(&fx).is_empty());
    }

    #[test]
    fn a_failed_group_stops_every_later_one_and_r4b_hears_which() {
        let task = TaskId::mint();
        let a = subtask(&task, 1, "a");
        let (b, c) = (subtask(&task, 2, "b"), subtask(&task, 3, "c"));
        let mut d = dispatch();
        let mut fx = Fx::default();
        d.on_manifest(&manifest(&task, &[&a, &b, &c]), &mut fx);
        let mut fx = Fx::default();
        d.on_closed(closed(&a, SubTaskStatus::Failed, ""), &mut fx);
        assert!(released(&fx).is_empty());
        let halted = halts(&fx);
        assert_eq!(halted.len(), 1);
        assert_eq!(halted[0].skipped, vec![b.subtask_id, c.subtask_id]);
        // The plan is over: a late close changes nothing.
        let mut fx = Fx::default();
        d.on_closed(closed(&a, SubTaskStatus::Matched, ""), &mut fx);
        assert!(fx.published().is_empty());
    }

    #[test]
    fn a_replan_supersedes_the_round_before_and_a_stale_manifest_is_ignored() {
        let task = TaskId::mint();
        let (a, b) = (subtask(&task, 1, "a"), subtask(&task, 2, "b"));
        let mut d = dispatch();
        let mut fx = Fx::default();
        d.on_manifest(&manifest(&task, &[&a, &b]), &mut fx);
        assert_eq!(released(&fx), ["a"]);

        let retry = subtask(&task, 1, "retry");
        let mut next = manifest(&task, &[&retry]);
        next.round = 1;
        let mut fx = Fx::default();
        d.on_manifest(&next, &mut fx);
        assert_eq!(released(&fx), ["retry"]);
        // Round 0's late close and its manifest, repeated, change nothing now.
        let mut fx = Fx::default();
        d.on_closed(closed(&a, SubTaskStatus::Matched, ""), &mut fx);
        d.on_manifest(&manifest(&task, &[&a]), &mut fx);
        assert!(fx.published().is_empty(), "{:?}", fx.published());
        // Nor does round 1's once it finished.
        d.on_closed(closed(&retry, SubTaskStatus::Matched, ""), &mut fx);
        d.on_manifest(&next, &mut fx);
        assert!(fx.published().is_empty(), "{:?}", fx.published());
    }

    #[test]
    fn groups_come_out_in_ascending_sequence_with_negatives_and_gaps() {
        let task = TaskId::mint();
        let a = subtask(&task, 7, "a");
        let b = subtask(&task, -3, "b");
        let c = subtask(&task, 7, "c");
        let d = subtask(&task, 0, "d");
        let m = manifest(&task, &[&a, &b, &c, &d]);
        let groups = sequence_groups(&m);
        let shape: Vec<(i64, Vec<&str>)> = groups
            .iter()
            .map(|(seq, g)| (*seq, g.iter().map(|s| s.intent.as_str()).collect()))
            .collect();
        assert_eq!(
            shape,
            vec![(-3, vec!["b"]), (0, vec!["d"]), (7, vec!["a", "c"])]
        );
    }

    #[test]
    fn a_repeated_sub_task_in_the_manifest_is_released_once() {
        let task = TaskId::mint();
        let a = subtask(&task, 1, "a");
        let m = manifest(&task, &[&a, &a]);
        let groups = sequence_groups(&m);
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
