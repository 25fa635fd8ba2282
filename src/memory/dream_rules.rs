//! The Dreamer's rules, as pure functions of a group's index entries, the time of the
//! step and the thresholds. The store thread calls them during a step or a
//! consolidation and applies what they decide; nothing here reads or writes the store.
//!
//! 1. **GC** — an M/K entry whose live attention is below `gc_below` is collected
//!    (hard-deleted with all its keys). Decay counts from the later of creation and last
//!    recall, so a recalled entry lives longer.
//! 2. **Trust bankruptcy** — a C entry that reality contradicts drops to K with
//!    k = [`BANKRUPT_K`]: the group's live decision (consolidated sources excluded,
//!    negative feedback and the rules themselves included) has the opposite sign of the
//!    entry's σ. A Best Practice in a group that now fails goes bankrupt, and so does a
//!    Constraint in a group that now succeeds; a Constraint (σ < 0) in a failing group is
//!    the evidence agreeing with it, so it keeps its authority.
//! 3. **Upward consolidation** — a group whose unconsolidated M/K entries that survive GC
//!    reach attention ≥ `consolidate_attention` and |decision| ≥ `consolidate_decision`
//!    qualifies; the sign of the decision picks a Best Practice or a Constraint. A
//!    consolidation marks only the sources still in the group, episodic and not yet
//!    consolidated, so no entry is ever promoted twice.
//!
//! **Invariant:** no IO and no clock reads: every function here is deterministic in its
//! arguments, so the rules are tested without a store.

use std::collections::HashMap;

use crate::config::MemoryParams;
use crate::contracts::{Level, Megram, MegramId};
use crate::memory::error::MemoryError;
use crate::memory::keys::IndexEntry;
use crate::memory::megram::{self as mg, BANKRUPT_K};
use crate::memory::potentials::{self, Accumulator};
use crate::memory::types::{Candidate, Distillation};

/// What a step does to one group.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct GroupPlan {
    /// Episodic entries to hard-delete, in index order.
    pub(crate) collect: Vec<(MegramId, IndexEntry)>,
    /// C entries to demote with [`demote`], in index order.
    pub(crate) bankrupt: Vec<(MegramId, IndexEntry)>,
    /// Set when the group qualifies for a distillation.
    pub(crate) qualified: Option<Qualified>,
}

/// A group's consolidation pool that passed both thresholds.
#[derive(Debug, PartialEq)]
pub(crate) struct Qualified {
    pub(crate) kind: Distillation,
    pub(crate) attention: f64,
    pub(crate) decision: f64,
    /// The unconsolidated M/K entries that survive GC, newest first.
    pub(crate) sources: Vec<MegramId>,
}

impl Qualified {
    /// The candidate the Dreamer is handed for the group `space` / `entity`.
    pub(crate) fn into_candidate(self, space: String, entity: String) -> Candidate {
        Candidate {
            space,
            entity,
            kind: self.kind,
            attention: self.attention,
            decision: self.decision,
            sources: self.sources,
        }
    }
}

/// Whether a C rule of valence `sigma` is contradicted by its group's live decision.
fn contradicted(sigma: f64, group_decision: f64) -> bool {
    sigma * group_decision < 0.0
}

/// GC, trust bankruptcy and consolidation for one whole group at `now_ms`.
pub(crate) fn plan_group(
    entries: &[(MegramId, IndexEntry)],
    now_ms: i64,
    params: &MemoryParams,
) -> GroupPlan {
    let group_decision = potentials::accumulate(entries, now_ms).decision;
    let mut plan = GroupPlan::default();
    let mut sources: Vec<(MegramId, i64)> = Vec::new();
    let mut pool = Accumulator::default();
    for (id, entry) in entries {
        if !mg::is_episodic(entry.level) {
            continue;
        }
        let c = potentials::live(entry, now_ms);
        if c.attention < params.gc_below {
            plan.collect.push((*id, *entry));
        } else if !entry.consolidated {
            pool.add(c);
            sources.push((*id, entry.created_ms));
        }
    }
    plan.bankrupt = entries
        .iter()
        .filter(|(_, e)| e.level == Level::C && contradicted(e.sigma, group_decision))
        .copied()
        .collect();
    plan.qualified = qualify(pool, sources, params);
    plan
}

/// The pool's distillation, if it passed both thresholds; sources newest first.
fn qualify(
    pool: Accumulator,
    mut sources: Vec<(MegramId, i64)>,
    params: &MemoryParams,
) -> Option<Qualified> {
    if pool.attention < params.consolidate_attention
        || pool.decision.abs() < params.consolidate_decision
    {
        return None;
    }
    sources.sort_by_key(|(id, created)| (std::cmp::Reverse(*created), *id));
    Some(Qualified {
        kind: if pool.decision > 0.0 {
            Distillation::BestPractice
        } else {
            Distillation::Constraint
        },
        attention: pool.attention,
        decision: pool.decision,
        sources: sources.into_iter().map(|(id, _)| id).collect(),
    })
}

/// A bankrupt rule as it is stored from now on: K with the episodic decay rate,
/// everything else kept.
pub(crate) fn demote(mut rule: Megram) -> Megram {
    rule.level = Level::K;
    rule.k = BANKRUPT_K;
    rule
}

/// Refuses a distilled rule that is invalid or is not a C entry of its own group.
pub(crate) fn check_rule(space: &str, entity: &str, rule: &Megram) -> Result<(), MemoryError> {
    mg::validate(rule)?;
    if rule.level != Level::C || rule.space != space || rule.entity != entity {
        return Err(MemoryError::Invalid(format!(
            "a consolidation writes a C entry into its own group ({space} / {entity})"
        )));
    }
    Ok(())
}

/// The sources a consolidation marks, in the order given: those still in the group
/// (`current`), episodic and not yet consolidated. Forgotten, collected or already
/// consolidated sources are skipped.
pub(crate) fn sources_to_mark(
    current: &HashMap<MegramId, IndexEntry>,
    sources: &[MegramId],
) -> Vec<(MegramId, IndexEntry)> {
    sources
        .iter()
        .filter_map(|id| current.get(id).map(|entry| (*id, *entry)))
        .filter(|(_, entry)| !entry.consolidated && mg::is_episodic(entry.level))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY_MS: i64 = 86_400_000;

    fn entry(level: Level, f: f64, sigma: f64, k: f64) -> IndexEntry {
        IndexEntry {
            level,
            f,
            sigma,
            k,
            created_ms: 0,
            recalled_ms: None,
            consolidated: false,
        }
    }

    #[test]
    fn a_faded_episodic_entry_is_collected_and_never_offered_for_distillation() {
        let faded = (MegramId::mint(), entry(Level::M, 0.1, 0.5, 0.5));
        let kept = (MegramId::mint(), entry(Level::M, 0.9, 1.0, 0.05));
        let plan = plan_group(&[faded, kept], DAY_MS, &MemoryParams::default());
        assert_eq!(plan.collect, vec![faded]);
        assert!(plan.bankrupt.is_empty());
    }

    #[test]
    fn a_constraint_in_a_failing_group_keeps_its_authority_and_a_best_practice_does_not() {
        let failure = (MegramId::mint(), entry(Level::M, 0.95, -1.0, 0.05));
        let constraint = (MegramId::mint(), entry(Level::C, 1.0, -1.0, 0.0));
        let best_practice = (MegramId::mint(), entry(Level::C, 0.1, 1.0, 0.0));
        let plan = plan_group(
            &[failure, constraint, best_practice],
            0,
            &MemoryParams::default(),
        );
        assert_eq!(plan.bankrupt, vec![best_practice]);
    }

    #[test]
    fn a_demoted_rule_keeps_its_content_and_takes_the_episodic_rate() {
        let rule = mg::remembered(
            Level::C,
            "intent:b",
            "env:local",
            "Prefer X.",
            1.0,
            chrono::DateTime::UNIX_EPOCH,
        );
        let demoted = demote(rule.clone());
        assert_eq!((demoted.level, demoted.k), (Level::K, BANKRUPT_K));
        assert_eq!(demoted.content, rule.content);
        assert_eq!(demoted.created_at, rule.created_at);
    }

    #[test]
    fn only_present_unconsolidated_episodic_sources_are_marked() {
        let fresh = MegramId::mint();
        let done = MegramId::mint();
        let rule = MegramId::mint();
        let gone = MegramId::mint();
        let current = HashMap::from([
            (fresh, entry(Level::M, 0.9, 1.0, 0.05)),
            (
                done,
                IndexEntry {
                    consolidated: true,
                    ..entry(Level::K, 0.9, 1.0, 0.05)
                },
            ),
            (rule, entry(Level::C, 1.0, 1.0, 0.0)),
        ]);
        let marked = sources_to_mark(&current, &[gone, done, fresh, rule]);
        assert_eq!(marked, vec![(fresh, current[&fresh])]);
    }
}
