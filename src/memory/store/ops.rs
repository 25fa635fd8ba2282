//! The store thread's synchronous changes: inserts (operator remember, negative
//! feedback), forget, pin, and the level-and-k rewrite that pin and trust bankruptcy
//! share.
//!
//! **Invariant:** an insert never replaces a stored id; a rewrite changes only a record's
//! level and k (never its content, tags, f, σ or times); no change here touches one of
//! the Four Laws or demotes a T entry.

use rusty_leveldb::WriteBatch;

use super::Store;
use super::records::{corrupt, decode_entry, delete_keys, put_new, scan_prefix};
use crate::contracts::{Level, Megram, MegramId};
use crate::memory::error::MemoryError;
use crate::memory::keys::{self, IndexEntry};
use crate::memory::megram as mg;
use crate::memory::types::{ForgetReport, ForgetTarget};

impl Store {
    pub(super) fn negative_feedback(
        &mut self,
        rule: MegramId,
        content: &str,
    ) -> Result<Megram, MemoryError> {
        let rule = self.load(rule)?.ok_or(MemoryError::NotFound(rule))?;
        let m = mg::negative_feedback(&rule, content, self.clock.now());
        self.insert(m)
    }

    /// A synchronous append (operator remember, negative feedback). T is allowed here
    /// only as a new entry; it can never replace an existing one.
    pub(super) fn insert(&mut self, m: Megram) -> Result<Megram, MemoryError> {
        mg::validate(&m)?;
        if self.t_ids.contains(&m.id) {
            return Err(MemoryError::Immutable(m.id));
        }
        self.refuse_stored(m.id)?;
        let mut batch = WriteBatch::default();
        put_new(&mut batch, &m)?;
        self.commit(batch)?;
        self.cache.append(
            &keys::group_prefix(&m.space, &m.entity),
            m.id,
            IndexEntry::of(&m),
        );
        self.recent_ids.insert(m.id, |_| {});
        if m.level == Level::T {
            self.t_ids.insert(m.id);
        }
        self.note_space(&m.space);
        Ok(m)
    }

    pub(super) fn forget(&mut self, target: ForgetTarget) -> Result<ForgetReport, MemoryError> {
        let mut matched: Vec<(MegramId, String, String)> = Vec::new();
        match &target {
            ForgetTarget::Id(id) => {
                let m = self.load(*id)?.ok_or(MemoryError::NotFound(*id))?;
                if m.level == Level::T && mg::is_law(m.id) {
                    return Err(MemoryError::Immutable(*id));
                }
                matched.push((m.id, m.space, m.entity));
            }
            ForgetTarget::IdPrefix(prefix) => {
                let prefix = prefix.trim().to_ascii_lowercase();
                if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
                    return Err(MemoryError::Invalid(format!(
                        "{prefix:?} is not a megram id prefix (hex digits and '-')"
                    )));
                }
                let mut key_prefix = keys::MEGRAM_PREFIX.to_vec();
                key_prefix.extend_from_slice(prefix.as_bytes());
                let mut ids = Vec::new();
                scan_prefix(&mut self.db, &key_prefix, |k, _| {
                    ids.push(keys::id_suffix(k).ok_or_else(|| corrupt(k, "bad id"))?);
                    Ok(())
                })?;
                for id in ids {
                    if let Some(m) = self.load(id)? {
                        matched.push((m.id, m.space, m.entity));
                    }
                }
            }
            ForgetTarget::Group { space, entity } => {
                for (id, _) in self.scan_group(&keys::group_prefix(space, entity))? {
                    matched.push((id, space.clone(), entity.clone()));
                }
            }
        }
        let mut report = ForgetReport::default();
        let mut batch = WriteBatch::default();
        for (id, space, entity) in matched {
            let index_key = keys::index_key(&space, &entity, id);
            let raw = self
                .db
                .get(&index_key)
                .ok_or_else(|| corrupt(&index_key, "record without index entry"))?;
            let entry = decode_entry(&index_key, &raw)?;
            if mg::is_law(id) {
                report.kept_immutable.push(id);
                continue;
            }
            self.cache.invalidate(&keys::group_prefix(&space, &entity));
            delete_keys(&mut batch, &space, &entity, id, &entry);
            report.forgotten.push(id);
        }
        if !report.forgotten.is_empty() {
            self.commit(batch)?;
            // A persona T entry an older build let the operator create is removable (a
            // typo must not be permanent); its id is no longer a T id once it is gone.
            for id in &report.forgotten {
                self.t_ids.remove(id);
            }
        }
        Ok(report)
    }

    pub(super) fn pin(&mut self, id: MegramId) -> Result<Megram, MemoryError> {
        let mut m = self.load(id)?.ok_or(MemoryError::NotFound(id))?;
        if m.level == Level::T || self.t_ids.contains(&id) {
            return Err(MemoryError::Immutable(id));
        }
        if m.k == 0.0 {
            return Ok(m);
        }
        m.k = 0.0;
        self.rewrite_level_and_k(&m)?;
        Ok(m)
    }

    /// Moves a record to `m.level` with `m.k`, keeping every other field and flag.
    pub(super) fn rewrite_level_and_k(&mut self, m: &Megram) -> Result<(), MemoryError> {
        let mut batch = WriteBatch::default();
        self.stage_level_and_k(&mut batch, m)?;
        self.commit(batch)
    }

    pub(super) fn stage_level_and_k(
        &mut self,
        batch: &mut WriteBatch,
        m: &Megram,
    ) -> Result<(), MemoryError> {
        self.cache
            .invalidate(&keys::group_prefix(&m.space, &m.entity));
        let index_key = keys::index_key(&m.space, &m.entity, m.id);
        let raw = self
            .db
            .get(&index_key)
            .ok_or_else(|| corrupt(&index_key, "record without index entry"))?;
        let old = decode_entry(&index_key, &raw)?;
        let mut stored = m.clone();
        // The record keeps its own recall field; `r|` stays the recall of record.
        stored.last_recalled_at = self
            .db
            .get(&keys::megram_key(m.id))
            .and_then(|raw| serde_json::from_slice::<Megram>(&raw).ok())
            .and_then(|orig| orig.last_recalled_at);
        let json = serde_json::to_vec(&stored).map_err(|e| {
            MemoryError::Invalid(format!("megram {} does not serialise: {e}", m.id))
        })?;
        batch.put(&keys::megram_key(m.id), &json);
        let entry = IndexEntry {
            level: m.level,
            k: m.k,
            ..old
        };
        batch.put(&index_key, &entry.encode());
        if old.level != m.level {
            batch.delete(&keys::level_key(old.level, m.id));
            batch.put(&keys::level_key(m.level, m.id), b"");
        }
        Ok(())
    }
}
