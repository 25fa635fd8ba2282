//! The Memory Calibration Protocol: what memory says about this kind of task, turned into
//! prompt constraints and code-enforced sets, before every plan and replan, with no model
//! call.
//!
//! 1. Tags ([`groups`]): the intent group `intent:<slug>` / `env:local` (where GGS writes
//!    a task's terminal Megram) and the operator's group `global:user` / `env:local`
//!    (what the user told memory with "remember": preferences such as "answer in
//!    Chinese" apply to every task). Action Megrams (`tool:<name>` / `path:<target>`) are
//!    not queried: within a task GGS already turns the failed inputs into blocked targets,
//!    and before a plan exists there is no target to look up.
//! 2. One `MemoryQuery` per group (R5 answers with QueryC + QueryMK + the recent M/K
//!    Megrams behind the potentials), all of a round bounded by one timeout. No answer
//!    in time ([`overdue`]) or a store error ([`answer_of`]) → the group is
//!    *unavailable*: the plan is made without it and the recall says so.
//! 3. [`calibrate`] maps each group (pure):
//!    - potentials Exploit → SHOULD PREFER, quoting the successful Megrams;
//!    - Avoid → MUST NOT, quoting the failed Megrams; the tools named in them (and not in
//!      a success of the group) join the task's MUST NOT tools;
//!    - Caution → CAUTION: the approach's tools (named in the group's Megrams) go into
//!      every sub-task's `confirm_tools`, a gate the executor enforces; if the Megrams
//!      name no tool, the plan's own tools are gated;
//!    - Ignore → nothing;
//!    - each C SOP: σ > 0 → SHOULD PREFER, σ ≤ 0 → MUST NOT — unless fresh M evidence in
//!      the group contradicts it (opposite valence, still at ≥ half its strength): then
//!      the evidence speaks for this task instead, because recent objective evidence
//!      outranks a consolidated rule;
//!    - the T layer (the Four Laws) is always recalled (the prompt carries them in every
//!      role's system preamble, not in this block), and the directive's
//!      `blocked_tools` / `blocked_targets` are MUST NOT.
//!
//! Memory entries are capped at `memory.max_constraints` (MUST NOT first, then CAUTION,
//! then SHOULD PREFER; the intent group before the operator's). The laws and the
//! directive's blocks are not memory entries and are never cut. Tools are read from
//! Megram content by the `tool: target` listing GGS writes ("Used: shell: du -sh …"),
//! matched against the executor's tool names.
//!
//! The parts: the groups and what their answers come to (`recall`), deriving one
//! group's constraints (`derive`), and writing the prompt block and the sub-task context
//! (`block`); this file puts them together, and none of them imports it.
//!
//! **Invariant:** [`calibrate`] is pure and every constraint it emits names its source and
//! the Megrams behind it; a cut constraint enforces nothing.

mod block;
mod derive;
mod recall;
#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};

use self::block::{prompt_block, subtask_context};
use self::derive::{
    Derived, caution_gate, constraint, derive_group, push_unique, push_unique_tool, rank,
};
use crate::contracts::{
    ConstraintKind, ConstraintSource, MemoryAction, MemoryRecall, PlanDirective, Potentials,
    RecalledConstraint, TaskId,
};
use crate::laws::FOUR_LAWS;
use crate::tools::ToolRef;

pub use self::derive::{CautionGate, QUOTE_CHARS, QUOTES_PER_CONSTRAINT, tools_named};
pub use self::recall::{Answer, Group, USER_SPACE, answer_of, groups, overdue};

/// Everything the calibration feeds into the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// One recall per group, in [`groups`] order; the first carries the laws and the
    /// directive's blocks.
    pub recalls: Vec<MemoryRecall>,
    /// GGS `blocked_tools` ∪ memory Avoid tools.
    pub must_not_tools: Vec<ToolRef>,
    /// GGS `blocked_targets`.
    pub must_not_targets: Vec<String>,
    /// The tools a Caution group in memory gates behind confirmation.
    pub caution: CautionGate,
    /// The constraint block of the planning prompt.
    pub prompt_block: String,
    /// Memory constraints for each sub-task's context (effectors learn memory only
    /// through R2); empty when memory said nothing.
    pub subtask_context: String,
}

/// What [`calibrate`] works from.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The task being planned.
    pub task_id: &'a TaskId,
    /// The planning round: 0 for the first plan, else the replan directive's round.
    pub round: u32,
    /// Each group with its answer, intent group first.
    pub answers: &'a [(Group, Answer)],
    /// GGS's replan directive; None for the first plan.
    pub directive: Option<&'a PlanDirective>,
    /// The most memory constraints kept (`memory.max_constraints`).
    pub max_constraints: usize,
    /// The time memory's decay is read at.
    pub now: DateTime<Utc>,
}

/// The protocol's steps 3–6 (see the module docs).
pub fn calibrate(input: Input<'_>) -> Calibration {
    let mut derived = Vec::new();
    for (idx, (_, answer)) in input.answers.iter().enumerate() {
        if let Answer::Answered(response) = answer {
            derive_group(idx, response, input.now, &mut derived);
        }
    }
    // Stable: within a kind, the intent group and derivation order are kept.
    derived.sort_by_key(|d| (rank(d.constraint.kind), d.group));
    derived.truncate(input.max_constraints);

    let Fixed {
        constraints: fixed,
        mut must_not_tools,
        must_not_targets,
    } = fixed_constraints(input.directive);
    for d in &derived {
        for tool in &d.blocks {
            push_unique_tool(&mut must_not_tools, ToolRef::from(*tool));
        }
    }
    let caution = caution_gate(&derived, &must_not_tools);
    let recalls = recalls(&input, &fixed, &derived);

    let memory: Vec<&RecalledConstraint> = derived.iter().map(|d| &d.constraint).collect();
    Calibration {
        prompt_block: prompt_block(&fixed, &memory, &caution, input.answers),
        subtask_context: subtask_context(&memory),
        recalls,
        must_not_tools,
        must_not_targets,
        caution,
    }
}

/// The constraints no cap cuts: the laws, then the directive's blocked tools and targets.
struct Fixed {
    constraints: Vec<RecalledConstraint>,
    /// GGS `blocked_tools`, before memory's Avoid tools join them.
    must_not_tools: Vec<ToolRef>,
    must_not_targets: Vec<String>,
}

fn fixed_constraints(directive: Option<&PlanDirective>) -> Fixed {
    let mut must_not_tools: Vec<ToolRef> = Vec::new();
    let mut must_not_targets: Vec<String> = Vec::new();
    let mut fixed: Vec<RecalledConstraint> = FOUR_LAWS
        .iter()
        .map(|l| {
            constraint(
                ConstraintKind::MustNot,
                format!("Law {} — {}: {}", l.number, l.title, l.text),
                ConstraintSource::Law,
                Vec::new(),
            )
        })
        .collect();
    if let Some(d) = directive {
        let mut must_not = |source, text: String| {
            fixed.push(constraint(
                ConstraintKind::MustNot,
                text,
                source,
                Vec::new(),
            ));
        };
        for tool in d
            .blocked_tools
            .iter()
            .filter(|t| !t.as_str().trim().is_empty())
        {
            push_unique_tool(&mut must_not_tools, tool.clone());
            must_not(
                ConstraintSource::BlockedTool,
                format!(
                    "MUST NOT use the tool `{}`: the controller blocked it after a logical failure (code-enforced).",
                    tool.as_str().trim()
                ),
            );
        }
        for target in d
            .blocked_targets
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
        {
            push_unique(&mut must_not_targets, target);
            must_not(
                ConstraintSource::BlockedTarget,
                format!(
                    "MUST NOT use or mention the target `{target}`: it failed before in this task (code-enforced)."
                ),
            );
        }
    }
    Fixed {
        constraints: fixed,
        must_not_tools,
        must_not_targets,
    }
}

/// One recall per group, in the order of the answers: the first carries the fixed
/// constraints, each carries the memory constraints derived from its own answer.
fn recalls(
    input: &Input<'_>,
    fixed: &[RecalledConstraint],
    derived: &[Derived],
) -> Vec<MemoryRecall> {
    input
        .answers
        .iter()
        .enumerate()
        .map(|(idx, (group, answer))| {
            let mut constraints = if idx == 0 { fixed.to_vec() } else { Vec::new() };
            constraints.extend(
                derived
                    .iter()
                    .filter(|d| d.group == idx)
                    .map(|d| d.constraint.clone()),
            );
            let (sops, potentials, error) = match answer {
                Answer::Answered(r) => (r.sops.clone(), r.potentials, None),
                Answer::Unavailable(why) => (Vec::new(), no_potentials(), Some(why.clone())),
            };
            MemoryRecall {
                task_id: input.task_id.clone(),
                space: group.space.clone(),
                entity: group.entity.clone(),
                sops,
                potentials,
                constraints,
                round: input.round,
                error,
            }
        })
        .collect()
}

fn no_potentials() -> Potentials {
    Potentials {
        attention: 0.0,
        decision: 0.0,
        action: MemoryAction::Ignore,
    }
}
