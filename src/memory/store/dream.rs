//! The store thread's half of a Dreamer pass: the IO of a bounded step over whole groups
//! and of a consolidation.
//!
//! **Invariant:** a step never splits a group and applies everything it decided in one
//! batch; a consolidation writes its C entry and marks its sources in one batch, or
//! writes nothing.

use std::collections::HashMap;

use rusty_leveldb::{DBIterator, LdbIterator, WriteBatch};

use super::Store;
use super::records::{already_stored, corrupt, decode_entry, delete_keys, put_new, storage};
use crate::contracts::{Level, Megram, MegramId};
use crate::memory::error::MemoryError;
use crate::memory::keys::{self, IndexEntry};
use crate::memory::megram::{self as mg, BANKRUPT_K};
use crate::memory::potentials::{self, Accumulator};
use crate::memory::types::{Candidate, Distillation, StepResult};

/// Whether a C rule of valence `sigma` is contradicted by its group's live decision.
fn contradicted(sigma: f64, group_decision: f64) -> bool {
    sigma * group_decision < 0.0
}

/// One group's entries during a Dreamer step.
struct GroupScan {
    prefix: Vec<u8>,
    entries: Vec<(MegramId, IndexEntry)>,
}

impl Store {
    /// One bounded slice of a Dreamer pass: whole groups from `cursor` until `budget`
    /// entries were seen. GC and trust bankruptcy are applied in one batch; groups that
    /// qualify for consolidation are returned to the caller, which owns the LLM.
    pub(super) fn dream_step(
        &mut self,
        cursor: Option<Vec<u8>>,
        budget: usize,
    ) -> Result<StepResult, MemoryError> {
        let now_ms = self.now_ms();
        let mut it: DBIterator = self.db.new_iter().map_err(storage("iterate"))?;
        it.seek(cursor.as_deref().unwrap_or(keys::INDEX_PREFIX));
        let mut result = StepResult::default();
        let mut batch = WriteBatch::default();
        let mut group: Option<GroupScan> = None;
        let mut seen = 0usize;
        loop {
            let item = if it.valid() { it.current() } else { None };
            let item = item.filter(|(k, _)| k.starts_with(keys::INDEX_PREFIX));
            let boundary = match (&item, &group) {
                (None, _) => true,
                (Some((k, _)), Some(g)) => !k.starts_with(&g.prefix),
                (Some(_), None) => false,
            };
            if boundary {
                if let Some(g) = group.take() {
                    let prefix = g.prefix.clone();
                    self.dream_group(g, now_ms, &mut batch, &mut result)?;
                    if seen >= budget && item.is_some() {
                        result.next = Some(keys::prefix_successor(&prefix));
                        break;
                    }
                }
                if item.is_none() {
                    break;
                }
            }
            let (k, v) = item.expect("checked above");
            let (prefix, id) = keys::split_index_key(&k).ok_or_else(|| corrupt(&k, "bad key"))?;
            let entry = decode_entry(&k, &v)?;
            group
                .get_or_insert_with(|| GroupScan {
                    prefix: prefix.to_vec(),
                    entries: Vec::new(),
                })
                .entries
                .push((id, entry));
            seen += 1;
            result.scanned += 1;
            // Past the last key the iterator turns invalid and the next turn closes the
            // group.
            it.advance();
        }
        drop(it);
        self.commit(batch)?;
        Ok(result)
    }

    fn dream_group(
        &mut self,
        g: GroupScan,
        now_ms: i64,
        batch: &mut WriteBatch,
        result: &mut StepResult,
    ) -> Result<(), MemoryError> {
        let (space, entity) = keys::decode_group_prefix(&g.prefix)
            .ok_or_else(|| corrupt(&g.prefix, "undecodable group"))?;
        result.groups += 1;
        let group_decision = potentials::accumulate(&g.entries, now_ms).decision;

        let mut sources: Vec<(MegramId, i64)> = Vec::new();
        let mut pool = Accumulator::default();
        for (id, entry) in &g.entries {
            if !mg::is_episodic(entry.level) {
                continue;
            }
            let c = potentials::live(entry, now_ms);
            if c.attention < self.params.gc_below {
                self.cache.invalidate(&g.prefix);
                delete_keys(batch, &space, &entity, *id, entry);
                result.gc_deleted += 1;
            } else if !entry.consolidated {
                pool.add(c);
                sources.push((*id, entry.created_ms));
            }
        }

        // Trust bankruptcy is for a rule that reality contradicts: the group's live
        // decision has the opposite sign of the rule's valence (a Best Practice in a
        // group that now fails, a Constraint in a group that now succeeds). A Constraint
        // in a failing group agrees with the evidence and keeps its authority.
        for (id, entry) in g
            .entries
            .iter()
            .filter(|(_, e)| e.level == Level::C && contradicted(e.sigma, group_decision))
        {
            let mut m = self.load_indexed(*id, entry)?;
            m.level = Level::K;
            m.k = BANKRUPT_K;
            self.stage_level_and_k(batch, &m)?;
            result.bankrupt.push(*id);
        }

        if pool.attention >= self.params.consolidate_attention
            && pool.decision.abs() >= self.params.consolidate_decision
        {
            sources.sort_by_key(|(id, created)| (std::cmp::Reverse(*created), *id));
            result.candidates.push(Candidate {
                space,
                entity,
                kind: if pool.decision > 0.0 {
                    Distillation::BestPractice
                } else {
                    Distillation::Constraint
                },
                attention: pool.attention,
                decision: pool.decision,
                sources: sources.into_iter().map(|(id, _)| id).collect(),
            });
        }
        Ok(())
    }

    /// Writes a distilled C entry and marks its sources, in one batch. Sources that were
    /// forgotten, collected or already consolidated since the scan are skipped; if none
    /// is left the rule is not written (it would be promoted from nothing).
    pub(super) fn consolidate(
        &mut self,
        space: &str,
        entity: &str,
        rule: Megram,
        sources: &[MegramId],
    ) -> Result<usize, MemoryError> {
        mg::validate(&rule)?;
        if rule.level != Level::C || rule.space != space || rule.entity != entity {
            return Err(MemoryError::Invalid(format!(
                "a consolidation writes a C entry into its own group ({space} / {entity})"
            )));
        }
        // One scan of the group instead of a read per source: point reads on a large
        // store trigger LevelDB seek compactions on this thread.
        let prefix = keys::group_prefix(space, entity);
        let current: HashMap<MegramId, IndexEntry> =
            self.scan_group(&prefix)?.into_iter().collect();
        self.cache.invalidate(&prefix);
        let mut batch = WriteBatch::default();
        let mut marked = 0;
        for id in sources {
            let Some(entry) = current.get(id).copied() else {
                continue;
            };
            if entry.consolidated || !mg::is_episodic(entry.level) {
                continue;
            }
            let key = keys::index_key(space, entity, *id);
            batch.put(&keys::consolidated_key(*id), rule.id.to_string().as_bytes());
            let marked_entry = IndexEntry {
                consolidated: true,
                ..entry
            };
            batch.put(&key, &marked_entry.encode());
            marked += 1;
        }
        if marked == 0 {
            return Ok(0);
        }
        if self.recent_ids.contains(&rule.id) || self.db.get(&keys::megram_key(rule.id)).is_some() {
            return Err(already_stored(rule.id));
        }
        self.recent_ids.insert(rule.id);
        put_new(&mut batch, &rule)?;
        self.commit(batch)?;
        Ok(marked)
    }
}
