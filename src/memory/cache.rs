//! The store thread's cache of recently queried groups: a group's `x|` entries, so a
//! repeated `query_mk`/`recall` (R2 asks again on every replan, and for the next task of
//! the same intent) costs no LevelDB scan.
//!
//! It is kept exact rather than merely fresh: appends (the common write) and recall
//! stamps are applied to a cached group in place; every other change to a group's index
//! entries (GC, bankruptcy, pin, consolidation, forget) drops the group before the
//! change is committed, and a failed commit clears the whole cache. The store thread is
//! the only writer, so nothing can change a group behind the cache's back.
//!
//! **Invariant:** a cached group holds exactly the `x|` entries LevelDB holds for it.

use std::collections::HashMap;

use super::keys::IndexEntry;
use crate::contracts::{Megram, MegramId};
use crate::recent::Recent;

/// Entries kept across all cached groups (about 64 bytes each).
pub(crate) const CACHE_ENTRIES: usize = 100_000;

struct Cached {
    last_used: u64,
    entries: Vec<(MegramId, IndexEntry)>,
}

/// Least-recently-used groups, bounded by their total entry count.
#[derive(Default)]
pub(crate) struct GroupCache {
    groups: HashMap<Vec<u8>, Cached>,
    entries: usize,
    tick: u64,
}

impl GroupCache {
    fn touch(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// A copy of the cached entries of the group under `prefix`.
    pub(crate) fn get(&mut self, prefix: &[u8]) -> Option<Vec<(MegramId, IndexEntry)>> {
        let now = self.touch();
        let cached = self.groups.get_mut(prefix)?;
        cached.last_used = now;
        Some(cached.entries.clone())
    }

    /// Caches a group just read from LevelDB.
    pub(crate) fn insert(&mut self, prefix: &[u8], entries: Vec<(MegramId, IndexEntry)>) {
        // A group larger than half the budget would evict everything else.
        if entries.len() > CACHE_ENTRIES / 2 {
            return;
        }
        self.invalidate(prefix);
        let now = self.touch();
        self.entries += entries.len();
        self.groups.insert(
            prefix.to_vec(),
            Cached {
                last_used: now,
                entries,
            },
        );
        self.evict();
    }

    /// A new entry was committed under `prefix`.
    pub(crate) fn append(&mut self, prefix: &[u8], id: MegramId, entry: IndexEntry) {
        if let Some(cached) = self.groups.get_mut(prefix) {
            cached.entries.push((id, entry));
            self.entries += 1;
            self.evict();
        }
    }

    /// An entry of the group under `prefix` was rewritten in place (a recall stamp).
    pub(crate) fn update(&mut self, prefix: &[u8], id: MegramId, entry: IndexEntry) {
        if let Some(cached) = self.groups.get_mut(prefix) {
            match cached.entries.iter_mut().find(|(e_id, _)| *e_id == id) {
                Some(slot) => slot.1 = entry,
                // Cannot happen while the invariant holds; dropping the group restores it.
                None => self.invalidate(prefix),
            }
        }
    }

    /// The group under `prefix` is about to change in a way not mirrored here.
    pub(crate) fn invalidate(&mut self, prefix: &[u8]) {
        if let Some(old) = self.groups.remove(prefix) {
            self.entries -= old.entries.len();
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.groups.clear();
        self.entries = 0;
    }

    fn evict(&mut self) {
        while self.entries > CACHE_ENTRIES {
            let Some(oldest) = self
                .groups
                .iter()
                .min_by_key(|(_, c)| c.last_used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            self.invalidate(&oldest);
        }
    }

    #[cfg(test)]
    pub(crate) fn is_cached(&self, prefix: &[u8]) -> bool {
        self.groups.contains_key(prefix)
    }
}

/// Records kept decoded by [`RecordCache`]: the recent M/K entries a recall returns (ten
/// per group) for the groups in use, about 1 KB each.
pub(crate) const CACHE_RECORDS: usize = 256;

/// The store thread's decoded `m|` records, so the recent entries a recall returns are
/// not read and decoded from LevelDB again on every plan of the same intent.
///
/// Filled only by reads, so a cached record is exactly what LevelDB holds decoded. A
/// record's `m|` value changes only through a rewrite (bankruptcy, pin) or a delete (GC,
/// forget, consolidation); the store drops the whole cache on every commit other than an
/// append of new records or a recall stamp, which write no existing `m|` key.
///
/// **Invariant:** every cached record equals the decoded `m|` value LevelDB holds for it.
pub(crate) struct RecordCache {
    records: HashMap<MegramId, Megram>,
    /// Which records to keep, oldest forgotten first.
    kept: Recent<MegramId>,
}

impl Default for RecordCache {
    fn default() -> Self {
        Self {
            records: HashMap::new(),
            kept: Recent::new(CACHE_RECORDS),
        }
    }
}

impl RecordCache {
    pub(crate) fn get(&self, id: MegramId) -> Option<&Megram> {
        self.records.get(&id)
    }

    /// Keeps a record just decoded from LevelDB, forgetting the oldest past the bound.
    pub(crate) fn insert(&mut self, m: Megram) {
        let records = &mut self.records;
        self.kept.insert(m.id, |old| {
            records.remove(&old);
        });
        records.insert(m.id, m);
    }

    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.kept.clear();
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.records.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::Level;

    fn entry() -> IndexEntry {
        IndexEntry {
            level: Level::M,
            consolidated: false,
            f: 0.9,
            sigma: 1.0,
            k: 0.05,
            created_ms: 0,
            recalled_ms: None,
        }
    }

    fn group(n: usize) -> Vec<(MegramId, IndexEntry)> {
        (0..n).map(|_| (MegramId::mint(), entry())).collect()
    }

    #[test]
    fn the_least_recently_used_group_is_evicted_first() {
        let mut cache = GroupCache::default();
        let third = CACHE_ENTRIES / 3;
        cache.insert(b"a", group(third));
        cache.insert(b"b", group(third));
        cache.insert(b"c", group(third));
        assert!(cache.get(b"a").is_some());
        cache.insert(b"d", group(third));
        assert!(cache.is_cached(b"a") && cache.is_cached(b"c") && cache.is_cached(b"d"));
        assert!(!cache.is_cached(b"b"));
        assert!(cache.entries <= CACHE_ENTRIES);
    }

    #[test]
    fn appends_and_stamps_reach_only_cached_groups() {
        let mut cache = GroupCache::default();
        cache.insert(b"a", group(2));
        let id = MegramId::mint();
        cache.append(b"a", id, entry());
        cache.append(b"b", MegramId::mint(), entry());
        assert!(!cache.is_cached(b"b"));
        let stamped = IndexEntry {
            recalled_ms: Some(5),
            ..entry()
        };
        cache.update(b"a", id, stamped);
        let got = cache.get(b"a").unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[2], (id, stamped));
        cache.update(b"a", MegramId::mint(), stamped);
        assert!(!cache.is_cached(b"a"), "an unknown id drops the group");
        assert_eq!(cache.entries, 0);
    }

    #[test]
    fn a_group_over_half_the_budget_is_not_cached() {
        let mut cache = GroupCache::default();
        cache.insert(b"huge", group(CACHE_ENTRIES / 2 + 1));
        assert!(!cache.is_cached(b"huge"));
    }
}
