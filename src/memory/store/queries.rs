//! The store thread's reads: a group's potentials and recall for R2 (including the
//! groups older builds stored under another name for the same kind of task), entries by
//! id, and the operator's group list and group view.
//!
//! **Invariant:** a read changes nothing but recall stamps (`r|` and the index entry's
//! recall time), which it commits as appends; the alias table, once built, lists every
//! stored older-build space of each kind.

use std::collections::HashMap;

use rusty_leveldb::{LdbIterator, WriteBatch};

use super::Store;
use super::records::{corrupt, decode_entry, rfc3339, scan_prefix, storage};
use crate::contracts::{Level, Megram, MegramId, Potentials, SOPRecord};
use crate::memory::error::MemoryError;
use crate::memory::keys::{self, IndexEntry};
use crate::memory::megram as mg;
use crate::memory::potentials::{self, Accumulator};
use crate::memory::types::{GroupSummary, LevelCounts, MegramView, Recall};
use crate::tags;

impl Store {
    pub(super) fn query_mk(
        &mut self,
        space: &str,
        entity: &str,
    ) -> Result<Potentials, MemoryError> {
        let entries: Vec<(MegramId, IndexEntry)> = self
            .read_group(space, entity)?
            .into_iter()
            .map(|(_, id, e)| (id, e))
            .collect();
        Ok(potentials::accumulate(&entries, self.now_ms()).potentials(&self.params))
    }

    /// The entries of a group and of the older builds' groups that name the same kind of
    /// task, each with the space it is stored under.
    pub(super) fn read_group(
        &mut self,
        space: &str,
        entity: &str,
    ) -> Result<Vec<(String, MegramId, IndexEntry)>, MemoryError> {
        let mut spaces = vec![space.to_string()];
        spaces.extend(self.aliases_of(space)?);
        let mut out = Vec::new();
        for s in spaces {
            for (id, entry) in self.scan_group(&keys::group_prefix(&s, entity))? {
                out.push((s.clone(), id, entry));
            }
        }
        Ok(out)
    }

    /// Older builds' spaces that name the kind `space` names (empty for other spaces).
    pub(super) fn aliases_of(&mut self, space: &str) -> Result<Vec<String>, MemoryError> {
        if !space.starts_with(tags::INTENT_PREFIX) {
            return Ok(Vec::new());
        }
        if self.aliases.is_none() {
            self.aliases = Some(self.scan_aliases()?);
        }
        Ok(self
            .aliases
            .as_ref()
            .and_then(|a| a.get(space))
            .cloned()
            .unwrap_or_default())
    }

    /// Every stored `intent:` space that is not the space of the kind it names, by that
    /// kind's space: one seek per group, never a scan of a group's entries.
    pub(super) fn scan_aliases(&mut self) -> Result<HashMap<String, Vec<String>>, MemoryError> {
        let mut start = keys::INDEX_PREFIX.to_vec();
        keys::encode_component(tags::INTENT_PREFIX, &mut start);
        let mut aliases: HashMap<String, Vec<String>> = HashMap::new();
        let mut it = self.db.new_iter().map_err(storage("iterate"))?;
        it.seek(&start);
        while it.valid() {
            let Some((k, _)) = it.current() else { break };
            if !k.starts_with(&start) {
                break;
            }
            let (prefix, _) = keys::split_index_key(&k).ok_or_else(|| corrupt(&k, "bad key"))?;
            let (space, _) = keys::decode_group_prefix(prefix)
                .ok_or_else(|| corrupt(prefix, "undecodable group"))?;
            if let Some(canonical) = tags::canonical_intent_space(&space)
                && canonical != space
            {
                let list = aliases.entry(canonical).or_default();
                if !list.contains(&space) {
                    list.push(space);
                }
            }
            it.seek(&keys::prefix_successor(prefix));
        }
        Ok(aliases)
    }

    /// Keeps the alias table current after a write to `space`.
    pub(super) fn note_space(&mut self, space: &str) {
        let Some(aliases) = self.aliases.as_mut() else {
            return;
        };
        if let Some(canonical) = tags::canonical_intent_space(space)
            && canonical != space
        {
            let list = aliases.entry(canonical).or_default();
            if !list.iter().any(|s| s == space) {
                list.push(space.to_string());
            }
        }
    }

    /// query_c + query_mk + the `recent_limit` newest unconsolidated M/K entries, in one
    /// pass over the group. Every C hit gets its recall stamped now.
    pub(super) fn recall(
        &mut self,
        space: &str,
        entity: &str,
        recent_limit: usize,
    ) -> Result<Recall, MemoryError> {
        let grouped = self.read_group(space, entity)?;
        let entries: Vec<(MegramId, IndexEntry)> =
            grouped.iter().map(|(_, id, e)| (*id, *e)).collect();
        let now = self.clock.now();
        let now_ms = keys::to_ms(now);
        let potentials = potentials::accumulate(&entries, now_ms).potentials(&self.params);

        let mut rules: Vec<&(String, MegramId, IndexEntry)> = grouped
            .iter()
            .filter(|(_, _, e)| e.level == Level::C)
            .collect();
        rules.sort_by_key(|(_, id, e)| (std::cmp::Reverse(e.created_ms), *id));
        let mut sops = Vec::with_capacity(rules.len());
        let mut batch = WriteBatch::default();
        let mut stamps = Vec::with_capacity(rules.len());
        for (stored_in, id, entry) in rules {
            let m = self.load_indexed(*id, entry)?;
            sops.push(SOPRecord {
                id: m.id,
                space: m.space.clone(),
                entity: m.entity.clone(),
                content: m.content.clone(),
                sigma: m.sigma,
            });
            batch.put(&keys::recall_key(*id), rfc3339(now).as_bytes());
            let stamped = IndexEntry {
                recalled_ms: Some(now_ms),
                ..*entry
            };
            batch.put(&keys::index_key(stored_in, entity, *id), &stamped.encode());
            stamps.push((keys::group_prefix(stored_in, entity), *id, stamped));
        }
        if !sops.is_empty() {
            self.commit_appends(batch)?;
            for (prefix, id, stamped) in stamps {
                self.cache.update(&prefix, id, stamped);
            }
        }

        let mut episodic: Vec<&(MegramId, IndexEntry)> = entries
            .iter()
            .filter(|(_, e)| mg::is_episodic(e.level) && !e.consolidated)
            .collect();
        episodic.sort_by_key(|(id, e)| (std::cmp::Reverse(e.created_ms), *id));
        let mut recent = Vec::new();
        for (id, entry) in episodic.into_iter().take(recent_limit) {
            recent.push(self.load_indexed(*id, entry)?);
        }
        Ok(Recall {
            sops,
            potentials,
            recent,
        })
    }

    pub(super) fn get_many(&mut self, ids: &[MegramId]) -> Result<Vec<Megram>, MemoryError> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(m) = self.load(*id)? {
                out.push(m);
            }
        }
        Ok(out)
    }

    pub(super) fn groups(&mut self) -> Result<Vec<GroupSummary>, MemoryError> {
        let now_ms = self.now_ms();
        let params = self.params.clone();
        let mut out = Vec::new();
        let mut current: Option<(Vec<u8>, GroupTally)> = None;
        let finish = |prefix: Vec<u8>, tally: GroupTally, out: &mut Vec<GroupSummary>| {
            let (space, entity) = keys::decode_group_prefix(&prefix)
                .ok_or_else(|| corrupt(&prefix, "undecodable group"))?;
            out.push(GroupSummary {
                space,
                entity,
                potentials: tally.acc.potentials(&params),
                levels: tally.levels,
                consolidated: tally.consolidated,
                newest: keys::from_ms(tally.newest_ms.unwrap_or_default()),
            });
            Ok::<_, MemoryError>(())
        };
        scan_prefix(&mut self.db, keys::INDEX_PREFIX, |k, v| {
            let (prefix, _) = keys::split_index_key(k).ok_or_else(|| corrupt(k, "bad key"))?;
            let entry = decode_entry(k, v)?;
            if current.as_ref().is_none_or(|(p, _)| p.as_slice() != prefix) {
                if let Some((p, tally)) = current.take() {
                    finish(p, tally, &mut out)?;
                }
                current = Some((prefix.to_vec(), GroupTally::default()));
            }
            let (_, tally) = current.as_mut().expect("set just above");
            tally.add(&entry, now_ms);
            Ok(())
        })?;
        if let Some((p, tally)) = current {
            finish(p, tally, &mut out)?;
        }
        out.sort_by(|a, b| {
            b.potentials
                .attention
                .total_cmp(&a.potentials.attention)
                .then_with(|| (&a.space, &a.entity).cmp(&(&b.space, &b.entity)))
        });
        Ok(out)
    }

    pub(super) fn group(
        &mut self,
        space: &str,
        entity: &str,
    ) -> Result<Vec<MegramView>, MemoryError> {
        let entries = self.scan_group(&keys::group_prefix(space, entity))?;
        let now_ms = self.now_ms();
        let mut views = Vec::with_capacity(entries.len());
        for (id, entry) in &entries {
            let megram = self.load_indexed(*id, entry)?;
            let consolidated_into = if entry.consolidated {
                let key = keys::consolidated_key(*id);
                let raw = self
                    .db
                    .get(&key)
                    .ok_or_else(|| corrupt(&key, "flagged consolidated without a marker"))?;
                let text = String::from_utf8_lossy(&raw);
                Some(MegramId::from(
                    uuid::Uuid::parse_str(&text).map_err(|e| corrupt(&key, e.to_string()))?,
                ))
            } else {
                None
            };
            let c = if entry.consolidated {
                potentials::Contribution::default()
            } else {
                potentials::live(entry, now_ms)
            };
            views.push(MegramView {
                megram,
                consolidated_into,
                counted: !entry.consolidated,
                attention: c.attention,
                decision: c.decision,
            });
        }
        views.sort_by_key(|v| std::cmp::Reverse(v.megram.created_at));
        Ok(views)
    }
}

#[derive(Default)]
struct GroupTally {
    acc: Accumulator,
    levels: LevelCounts,
    consolidated: usize,
    newest_ms: Option<i64>,
}

impl GroupTally {
    fn add(&mut self, e: &IndexEntry, now_ms: i64) {
        match e.level {
            Level::M => self.levels.m += 1,
            Level::K => self.levels.k += 1,
            Level::C => self.levels.c += 1,
            Level::T => self.levels.t += 1,
        }
        if e.consolidated {
            self.consolidated += 1;
        } else {
            self.acc.add(potentials::live(e, now_ms));
        }
        self.newest_ms = Some(self.newest_ms.map_or(e.created_ms, |n| n.max(e.created_ms)));
    }
}
