//! The LevelDB key schema of the MKCT store and the binary index entry.
//!
//! ```text
//! v|format                    → "1"                       format version of this schema
//! m|<id>                      → Megram JSON               the primary record, append-only
//! x|<space>|<entity>|<id>     → IndexEntry (binary)       group index, covering potentials
//! l|<level>|<id>              → ""                        level scan (M, K, C, T)
//! r|<id>                      → RFC3339                   last recall (query_c hits)
//! c|<id>                      → <C id>                    consolidation marker of a source
//! ```
//!
//! `<space>` and `<entity>` are percent-encoded: the bytes `%` and `|` become `%25` and
//! `%7C`, every other byte (any Unicode, as UTF-8) is kept. An encoded component never
//! contains `|`, so a group's keys are exactly the keys under its prefix
//! `x|<space>|<entity>|`, and `("a|b", "c")` and `("a", "b|c")` can never meet. `<id>` is
//! the hyphenated lowercase UUID; `<level>` is `M`, `K`, `C` or `T`.
//!
//! The `x|` value carries what the potentials need (level, f, σ, k, created_at, last
//! recall, consolidated flag), so a group's potentials are one prefix scan and never a
//! read of each record. It is derived data: the store rewrites it in the same atomic batch
//! whenever `r|`, `c|` or a record's level/k changes.
//!
//! **Invariant:** encoding is injective and order-preserving within a component, and a
//! decoded key always re-encodes to the same bytes.

use chrono::{DateTime, TimeZone, Utc};
use uuid::Uuid;

use crate::contracts::{Level, Megram, MegramId};

/// The format written by this build. Bump it (and add a migration in the store) when a
/// key or value layout changes.
pub const FORMAT_VERSION: u32 = 1;
pub(crate) const FORMAT_KEY: &[u8] = b"v|format";

pub(crate) const MEGRAM_PREFIX: &[u8] = b"m|";
pub(crate) const INDEX_PREFIX: &[u8] = b"x|";
pub(crate) const LEVEL_PREFIX: &[u8] = b"l|";
pub(crate) const RECALL_PREFIX: &[u8] = b"r|";
pub(crate) const CONSOLIDATED_PREFIX: &[u8] = b"c|";

/// Length of a hyphenated UUID.
const ID_LEN: usize = 36;

/// Appends the percent-encoded form of `component` to `out`.
pub fn encode_component(component: &str, out: &mut Vec<u8>) {
    for &b in component.as_bytes() {
        match b {
            b'%' => out.extend_from_slice(b"%25"),
            b'|' => out.extend_from_slice(b"%7C"),
            _ => out.push(b),
        }
    }
}

/// Reverses [`encode_component`]; `None` if `bytes` is not an encoding this module wrote.
pub fn decode_component(bytes: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                match bytes.get(i + 1..i + 3)? {
                    b"25" => out.push(b'%'),
                    b"7C" => out.push(b'|'),
                    _ => return None,
                }
                i += 3;
            }
            b'|' => return None,
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn id_key(prefix: &[u8], id: MegramId) -> Vec<u8> {
    let mut key = Vec::with_capacity(prefix.len() + ID_LEN);
    key.extend_from_slice(prefix);
    key.extend_from_slice(
        id.as_uuid()
            .hyphenated()
            .encode_lower(&mut [0; ID_LEN])
            .as_bytes(),
    );
    key
}

/// The key of a Megram's record.
pub fn megram_key(id: MegramId) -> Vec<u8> {
    id_key(MEGRAM_PREFIX, id)
}

pub(crate) fn recall_key(id: MegramId) -> Vec<u8> {
    id_key(RECALL_PREFIX, id)
}

pub(crate) fn consolidated_key(id: MegramId) -> Vec<u8> {
    id_key(CONSOLIDATED_PREFIX, id)
}

pub(crate) fn level_prefix(level: Level) -> Vec<u8> {
    let mut key = LEVEL_PREFIX.to_vec();
    key.extend_from_slice(level.as_str().as_bytes());
    key.push(b'|');
    key
}

/// The key of a Megram's entry in the per-level index.
pub fn level_key(level: Level, id: MegramId) -> Vec<u8> {
    id_key(&level_prefix(level), id)
}

/// `x|<space>|<entity>|`: every index key of one group and nothing else.
pub fn group_prefix(space: &str, entity: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(INDEX_PREFIX.len() + space.len() + entity.len() + 2);
    key.extend_from_slice(INDEX_PREFIX);
    encode_component(space, &mut key);
    key.push(b'|');
    encode_component(entity, &mut key);
    key.push(b'|');
    key
}

/// The key of a Megram's entry in its group's index.
pub fn index_key(space: &str, entity: &str, id: MegramId) -> Vec<u8> {
    id_key(&group_prefix(space, entity), id)
}

/// The smallest key greater than every key that starts with `prefix` (LevelDB compares
/// bytes, so incrementing the last byte that is not 0xFF does it).
pub fn prefix_successor(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return end;
        }
    }
    // Only reachable for an all-0xFF prefix, which this schema never builds.
    vec![u8::MAX; prefix.len() + 1]
}

/// Parses the id at the end of a key built by this module.
pub fn id_suffix(key: &[u8]) -> Option<MegramId> {
    let tail = key.get(key.len().checked_sub(ID_LEN)?..)?;
    let text = std::str::from_utf8(tail).ok()?;
    Uuid::parse_str(text).ok().map(MegramId::from)
}

/// Splits an `x|` key into its group prefix (`x|<space>|<entity>|`) and id.
pub fn split_index_key(key: &[u8]) -> Option<(&[u8], MegramId)> {
    let cut = key.len().checked_sub(ID_LEN)?;
    let (prefix, _) = key.split_at(cut);
    if !prefix.starts_with(INDEX_PREFIX) || prefix.last() != Some(&b'|') {
        return None;
    }
    Some((prefix, id_suffix(key)?))
}

/// Decodes a group prefix `x|<space>|<entity>|` back into `(space, entity)`.
pub fn decode_group_prefix(prefix: &[u8]) -> Option<(String, String)> {
    let inner = prefix.strip_prefix(INDEX_PREFIX)?.strip_suffix(b"|")?;
    let bar = inner.iter().position(|&b| b == b'|')?;
    let space = decode_component(&inner[..bar])?;
    let entity = decode_component(&inner[bar + 1..])?;
    Some((space, entity))
}

pub(crate) fn level_byte(level: Level) -> u8 {
    match level {
        Level::M => b'M',
        Level::K => b'K',
        Level::C => b'C',
        Level::T => b'T',
    }
}

pub(crate) fn level_from_byte(b: u8) -> Option<Level> {
    match b {
        b'M' => Some(Level::M),
        b'K' => Some(Level::K),
        b'C' => Some(Level::C),
        b'T' => Some(Level::T),
        _ => None,
    }
}

/// What an `x|` value holds: everything the potentials, GC and bankruptcy need.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexEntry {
    /// The entry's level.
    pub level: Level,
    /// The entry's evidence was distilled into a C Megram; it no longer counts.
    pub consolidated: bool,
    /// Stimulus magnitude in [0, 1].
    pub f: f64,
    /// Valence in [−1, +1].
    pub sigma: f64,
    /// Decay rate per day; 0 is timeless.
    pub k: f64,
    /// Creation time, in Unix milliseconds.
    pub created_ms: i64,
    /// Last recall, in Unix milliseconds; None until first recalled.
    pub recalled_ms: Option<i64>,
}

/// Layout version of [`IndexEntry`] (its first byte).
const ENTRY_LAYOUT: u8 = 1;
const ENTRY_LEN: usize = 1 + 1 + 1 + 8 * 3 + 8 + 8;
const FLAG_CONSOLIDATED: u8 = 1;
const FLAG_RECALLED: u8 = 2;

impl IndexEntry {
    /// The entry of a newly stored Megram.
    pub fn of(m: &Megram) -> IndexEntry {
        IndexEntry {
            level: m.level,
            consolidated: false,
            f: m.f,
            sigma: m.sigma,
            k: m.k,
            created_ms: to_ms(m.created_at),
            recalled_ms: m.last_recalled_at.map(to_ms),
        }
    }

    /// When decay starts counting: the later of creation and last recall.
    pub fn reference_ms(&self) -> i64 {
        self.recalled_ms
            .map_or(self.created_ms, |r| r.max(self.created_ms))
    }

    /// The fixed-size value stored under the index key.
    pub fn encode(&self) -> [u8; ENTRY_LEN] {
        let mut out = [0u8; ENTRY_LEN];
        out[0] = ENTRY_LAYOUT;
        out[1] = level_byte(self.level);
        let mut flags = 0;
        if self.consolidated {
            flags |= FLAG_CONSOLIDATED;
        }
        if self.recalled_ms.is_some() {
            flags |= FLAG_RECALLED;
        }
        out[2] = flags;
        out[3..11].copy_from_slice(&self.f.to_le_bytes());
        out[11..19].copy_from_slice(&self.sigma.to_le_bytes());
        out[19..27].copy_from_slice(&self.k.to_le_bytes());
        out[27..35].copy_from_slice(&self.created_ms.to_le_bytes());
        out[35..43].copy_from_slice(&self.recalled_ms.unwrap_or(0).to_le_bytes());
        out
    }

    /// Reads a stored value; None when its size or layout byte is not this version's.
    pub fn decode(bytes: &[u8]) -> Option<IndexEntry> {
        if bytes.len() != ENTRY_LEN || bytes[0] != ENTRY_LAYOUT {
            return None;
        }
        let f64_at =
            |i: usize| f64::from_le_bytes(bytes[i..i + 8].try_into().expect("slice of 8 bytes"));
        let i64_at =
            |i: usize| i64::from_le_bytes(bytes[i..i + 8].try_into().expect("slice of 8 bytes"));
        let flags = bytes[2];
        Some(IndexEntry {
            level: level_from_byte(bytes[1])?,
            consolidated: flags & FLAG_CONSOLIDATED != 0,
            f: f64_at(3),
            sigma: f64_at(11),
            k: f64_at(19),
            created_ms: i64_at(27),
            recalled_ms: (flags & FLAG_RECALLED != 0).then(|| i64_at(35)),
        })
    }
}

pub(crate) fn to_ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

pub(crate) fn from_ms(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms)
        .single()
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_and_percent_signs_in_components_cannot_collide() {
        let id = MegramId::mint();
        let a = index_key("a|b", "c", id);
        let b = index_key("a", "b|c", id);
        let c = index_key("a%7Cb", "c", id);
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_ne!(b, c);
        let (prefix, parsed) = split_index_key(&a).unwrap();
        assert_eq!(parsed, id);
        assert_eq!(
            decode_group_prefix(prefix).unwrap(),
            ("a|b".to_string(), "c".to_string())
        );
        let (prefix, _) = split_index_key(&c).unwrap();
        assert_eq!(decode_group_prefix(prefix).unwrap().0, "a%7Cb");
    }

    #[test]
    fn unicode_components_round_trip_and_keep_their_bytes() {
        for s in ["意图:整理桌面", "tool:rm|rf", "emoji 🤖|%|", "", "%%||"] {
            let mut enc = Vec::new();
            encode_component(s, &mut enc);
            assert!(!enc.contains(&b'|'));
            assert_eq!(decode_component(&enc).as_deref(), Some(s));
        }
        let mut enc = Vec::new();
        encode_component("意图", &mut enc);
        assert_eq!(enc, "意图".as_bytes());
    }

    #[test]
    fn a_group_prefix_never_covers_another_group() {
        let id = MegramId::mint();
        let prefix = group_prefix("intent:a", "env:local");
        assert!(index_key("intent:a", "env:local", id).starts_with(&prefix));
        assert!(!index_key("intent:a", "env:local2", id).starts_with(&prefix));
        assert!(!index_key("intent:a|env:local", "", id).starts_with(&prefix));
        let end = prefix_successor(&prefix);
        assert!(index_key("intent:a", "env:local", id) < end);
        assert!(index_key("intent:a", "env:localé", id) > end);
    }

    #[test]
    fn malformed_encodings_are_rejected() {
        assert_eq!(decode_component(b"a%7"), None);
        assert_eq!(decode_component(b"a%41"), None);
        assert_eq!(decode_component(b"a|b"), None);
    }

    #[test]
    fn index_entries_round_trip_with_and_without_recall() {
        let entry = IndexEntry {
            level: Level::C,
            consolidated: true,
            f: 0.95,
            sigma: -1.0,
            k: 0.05,
            created_ms: 1_767_225_600_000,
            recalled_ms: None,
        };
        assert_eq!(IndexEntry::decode(&entry.encode()), Some(entry));
        let recalled = IndexEntry {
            recalled_ms: Some(1_767_225_600_001),
            consolidated: false,
            ..entry
        };
        assert_eq!(IndexEntry::decode(&recalled.encode()), Some(recalled));
        assert_eq!(recalled.reference_ms(), 1_767_225_600_001);
        assert_eq!(IndexEntry::decode(&[1, 2, 3]), None);
    }
}
