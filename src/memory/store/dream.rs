//! The store thread's half of a Dreamer pass: the IO of a bounded step over whole groups
//! and of a consolidation. What to collect, demote, offer or mark is decided by the pure
//! rules in [`crate::memory::dream_rules`]; this file only reads and writes.
//!
//! **Invariant:** a step never splits a group and applies everything it decided in one
//! batch; a consolidation writes its C entry and marks its sources in one batch, or
//! writes nothing.

use std::collections::HashMap;

use rusty_leveldb::{DBIterator, LdbIterator, WriteBatch};

use super::Store;
use super::records::{corrupt, decode_entry, delete_keys, put_new, storage};
use crate::contracts::{Megram, MegramId};
use crate::memory::dream_rules;
use crate::memory::error::MemoryError;
use crate::memory::keys::{self, IndexEntry};
use crate::memory::types::StepResult;

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

    /// Applies the Dreamer's plan for one group: its collections and demotions join the
    /// step's batch, and a qualifying group becomes a candidate.
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
        let group_plan = dream_rules::plan_group(&g.entries, now_ms, &self.params);
        for (id, entry) in &group_plan.collect {
            self.cache.invalidate(&g.prefix);
            delete_keys(batch, &space, &entity, *id, entry);
            result.gc_deleted += 1;
        }
        for (id, entry) in &group_plan.bankrupt {
            let demoted = dream_rules::demote(self.load_indexed(*id, entry)?);
            self.stage_level_and_k(batch, &demoted)?;
            result.bankrupt.push(*id);
        }
        if let Some(qualified) = group_plan.qualified {
            result
                .candidates
                .push(qualified.into_candidate(space, entity));
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
        dream_rules::check_rule(space, entity, &rule)?;
        // One scan of the group instead of a read per source: point reads on a large
        // store trigger LevelDB seek compactions on this thread.
        let prefix = keys::group_prefix(space, entity);
        let current: HashMap<MegramId, IndexEntry> =
            self.scan_group(&prefix)?.into_iter().collect();
        self.cache.invalidate(&prefix);
        let marks = dream_rules::sources_to_mark(&current, sources);
        if marks.is_empty() {
            return Ok(0);
        }
        let mut batch = WriteBatch::default();
        for (id, entry) in &marks {
            batch.put(&keys::consolidated_key(*id), rule.id.to_string().as_bytes());
            let marked_entry = IndexEntry {
                consolidated: true,
                ..*entry
            };
            batch.put(&keys::index_key(space, entity, *id), &marked_entry.encode());
        }
        self.refuse_stored(rule.id)?;
        self.recent_ids.insert(rule.id, |_| {});
        put_new(&mut batch, &rule)?;
        self.commit(batch)?;
        Ok(marks.len())
    }
}
