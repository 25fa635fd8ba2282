//! Record-level IO of the store thread: encoding a new record's keys, deleting a
//! record's keys, reading a record back (with its effective last recall) and reading a
//! group's index entries through the group cache; plus the error helpers every store
//! file uses.
//!
//! **Invariant:** a record's keys are written and deleted together (`m|`, `x|`, `l|`, and
//! `r|`/`c|` where they exist), and a group read through [`Store::scan_group`] is exactly
//! what LevelDB holds for it.

use chrono::{DateTime, SecondsFormat, Utc};
use rusty_leveldb::{DB, LdbIterator, Status, WriteBatch};

use super::Store;
use crate::contracts::{Megram, MegramId};
use crate::memory::error::MemoryError;
use crate::memory::keys::{self, IndexEntry};

pub(super) fn storage(context: &str) -> impl FnOnce(Status) -> MemoryError + '_ {
    move |s| MemoryError::Storage(format!("{context}: {s}"))
}

pub(super) fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Iterates the keys under `prefix` in order.
pub(super) fn scan_prefix(
    db: &mut DB,
    prefix: &[u8],
    mut visit: impl FnMut(&[u8], &[u8]) -> Result<(), MemoryError>,
) -> Result<(), MemoryError> {
    let mut it = db.new_iter().map_err(storage("iterate"))?;
    it.seek(prefix);
    while it.valid() {
        let Some((k, v)) = it.current() else { break };
        if !k.starts_with(prefix) {
            break;
        }
        visit(&k, &v)?;
        if !it.advance() {
            break;
        }
    }
    Ok(())
}

pub(super) fn already_stored(id: MegramId) -> MemoryError {
    MemoryError::Invalid(format!(
        "megram {id} is already stored; the store is append-only"
    ))
}

pub(super) fn corrupt(key: &[u8], reason: impl Into<String>) -> MemoryError {
    MemoryError::Corrupt {
        key: String::from_utf8_lossy(key).into_owned(),
        reason: reason.into(),
    }
}

pub(super) fn decode_entry(key: &[u8], value: &[u8]) -> Result<IndexEntry, MemoryError> {
    IndexEntry::decode(value).ok_or_else(|| corrupt(key, "unreadable index entry"))
}

/// The keys of one record, for hard deletes. `r|` and `c|` are only deleted where they
/// may exist: a tombstone for a key that never existed still costs LevelDB a write and
/// compaction work.
pub(super) fn delete_keys(
    batch: &mut WriteBatch,
    space: &str,
    entity: &str,
    id: MegramId,
    entry: &IndexEntry,
) {
    batch.delete(&keys::megram_key(id));
    batch.delete(&keys::index_key(space, entity, id));
    batch.delete(&keys::level_key(entry.level, id));
    if entry.recalled_ms.is_some() {
        batch.delete(&keys::recall_key(id));
    }
    if entry.consolidated {
        batch.delete(&keys::consolidated_key(id));
    }
}

pub(super) fn put_new(batch: &mut WriteBatch, m: &Megram) -> Result<(), MemoryError> {
    let json = serde_json::to_vec(m)
        .map_err(|e| MemoryError::Invalid(format!("megram {} does not serialise: {e}", m.id)))?;
    batch.put(&keys::megram_key(m.id), &json);
    batch.put(
        &keys::index_key(&m.space, &m.entity, m.id),
        &IndexEntry::of(m).encode(),
    );
    batch.put(&keys::level_key(m.level, m.id), b"");
    if let Some(t) = m.last_recalled_at {
        batch.put(&keys::recall_key(m.id), rfc3339(t).as_bytes());
    }
    Ok(())
}

impl Store {
    /// Refuses an id written recently or stored: the store is append-only, and a
    /// synchronous append can afford the lookup.
    pub(super) fn refuse_stored(&mut self, id: MegramId) -> Result<(), MemoryError> {
        if self.recent_ids.contains(&id) || self.db.get(&keys::megram_key(id)).is_some() {
            return Err(already_stored(id));
        }
        Ok(())
    }

    /// The record under `m|<id>` with its effective last recall (`r|` wins if later).
    pub(super) fn load(&mut self, id: MegramId) -> Result<Option<Megram>, MemoryError> {
        let key = keys::megram_key(id);
        let Some(raw) = self.db.get(&key) else {
            return Ok(None);
        };
        let mut m: Megram =
            serde_json::from_slice(&raw).map_err(|e| corrupt(&key, e.to_string()))?;
        if let Some(raw) = self.db.get(&keys::recall_key(id)) {
            let text = String::from_utf8_lossy(&raw);
            let t = DateTime::parse_from_rfc3339(&text)
                .map_err(|e| corrupt(&keys::recall_key(id), e.to_string()))?
                .with_timezone(&Utc);
            m.last_recalled_at = Some(m.last_recalled_at.map_or(t, |old| old.max(t)));
        }
        Ok(Some(m))
    }

    /// The record behind an index entry, with the entry's recall stamp.
    pub(super) fn load_indexed(
        &mut self,
        id: MegramId,
        entry: &IndexEntry,
    ) -> Result<Megram, MemoryError> {
        let mut m = match self.records.get(id) {
            Some(m) => m.clone(),
            None => {
                let key = keys::megram_key(id);
                let raw = self
                    .db
                    .get(&key)
                    .ok_or_else(|| corrupt(&key, "indexed but missing"))?;
                let m: Megram =
                    serde_json::from_slice(&raw).map_err(|e| corrupt(&key, e.to_string()))?;
                self.records.insert(m.clone());
                m
            }
        };
        m.last_recalled_at = entry.recalled_ms.map(keys::from_ms);
        Ok(m)
    }

    /// A group's index entries, from the cache or one prefix scan (then cached).
    pub(super) fn scan_group(
        &mut self,
        prefix: &[u8],
    ) -> Result<Vec<(MegramId, IndexEntry)>, MemoryError> {
        if let Some(entries) = self.cache.get(prefix) {
            return Ok(entries);
        }
        let entries = self.scan_group_uncached(prefix)?;
        self.cache.insert(prefix, entries.clone());
        Ok(entries)
    }

    pub(super) fn scan_group_uncached(
        &mut self,
        prefix: &[u8],
    ) -> Result<Vec<(MegramId, IndexEntry)>, MemoryError> {
        let mut entries = Vec::new();
        scan_prefix(&mut self.db, prefix, |k, v| {
            let id = keys::id_suffix(k).ok_or_else(|| corrupt(k, "bad id"))?;
            entries.push((id, decode_entry(k, v)?));
            Ok(())
        })?;
        Ok(entries)
    }
}
