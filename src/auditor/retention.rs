//! Pruning the audit log without breaking its verification: whole sealed segments are
//! removed, oldest first, once they are older than `retention.audit_days` or the log is
//! larger than `retention.audit_mb`; the segment being written is never removed.
//!
//! The chain then starts mid-way, so the start is vouched for twice:
//! - `pruned.json` ([`PruneCheckpoint`]) records where the kept log begins: the first kept
//!   segment, the number of its first event and the hash that event links to;
//! - before anything is removed, the auditor appends a `Retention` event to the chain
//!   whose digest is the checkpoint's ([`PruneCheckpoint::digest`]).
//!
//! `verify` starts its walk at the checkpoint and accepts it only if the chain recorded
//! it: cutting more events off the start, or editing the checkpoint, needs rewriting every
//! later hash and the end checkpoint too, as editing any event does. Reports whose
//! events were pruned leave the report history with them.
//!
//! A prune is three steps — record in the chain, write the checkpoint, remove segments
//! and their reports — each safe to stop after: [`finish`] (run at every start) completes
//! the last one, and `verify` reads segments older than the checkpoint as already gone.
//!
//! **Invariant:** only segments before the writer's current one are removed, and only
//! after a checkpoint naming the first kept event is durable and recorded in the chain.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::REPORTS_FILE;
use super::canonical::digest_of;
use super::event::report_line_digest;
use super::log::{for_each_line, list_segments, segment_name};
use crate::retention::{self, Candidate, Keep};

/// The checkpoint of the pruned start, in the audit directory.
pub const PRUNED_FILE: &str = "pruned.json";

/// Where the kept log begins. Fields in byte order of their names (canonical JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PruneCheckpoint {
    /// The first segment kept.
    pub first_segment: u32,
    /// Number of the first event kept (= events pruned so far).
    pub first_seq: u64,
    /// The hash the first kept event links to (the last pruned event's hash).
    pub prev: String,
    /// When the prune that wrote this checkpoint ran.
    pub pruned_at: DateTime<Utc>,
}

impl PruneCheckpoint {
    /// The digest the chain's `Retention` event records.
    pub fn digest(&self) -> String {
        digest_of(self)
    }
}

/// The checkpoint, or `None` when nothing was ever pruned.
pub fn read(dir: &Path) -> io::Result<Option<PruneCheckpoint>> {
    match std::fs::read(dir.join(PRUNED_FILE)) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{PRUNED_FILE}: {e}"))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes the checkpoint durably (temp file, fsync, rename).
pub fn write(dir: &Path, checkpoint: &PruneCheckpoint) -> io::Result<()> {
    let tmp = dir.join(format!("{PRUNED_FILE}.tmp"));
    {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&serde_json::to_vec(checkpoint).map_err(io::Error::other)?)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, dir.join(PRUNED_FILE))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The first segment to keep when the sealed segments before `current` exceed the
/// limits; `None` when nothing is to go.
pub fn plan(dir: &Path, current: u32, now: DateTime<Utc>, limits: Keep) -> io::Result<Option<u32>> {
    let segments = list_segments(dir)?;
    let mut files = Vec::new();
    let mut current_bytes = 0;
    for (n, path) in &segments {
        let meta = std::fs::metadata(path)?;
        if *n >= current {
            current_bytes += meta.len();
            continue;
        }
        files.push((
            *n,
            Candidate {
                path: path.clone(),
                modified: meta.modified().map(DateTime::<Utc>::from)?,
                bytes: meta.len(),
            },
        ));
    }
    let candidates: Vec<Candidate> = files.iter().map(|(_, c)| c.clone()).collect();
    // The current segment counts towards the size but can never go.
    let limits = Keep {
        max_bytes: limits.max_bytes.saturating_sub(current_bytes),
        ..limits
    };
    let chosen: HashSet<u32> = retention::select(&candidates, now, limits)
        .into_iter()
        .map(|i| files[i].0)
        .collect();
    // Only a run of the oldest segments can go: the chain must stay contiguous.
    let mut first_kept = None;
    for (n, _) in &files {
        if chosen.contains(n) {
            first_kept = Some(n + 1);
        } else {
            break;
        }
    }
    Ok(first_kept)
}

/// The number of the first event of `segment` and the hash it links to.
pub fn start_of(dir: &Path, segment: u32) -> io::Result<(u64, String)> {
    let mut found = None;
    for_each_line(dir, |raw| {
        if raw.segment < segment {
            return true;
        }
        if raw.segment == segment && raw.terminated {
            found = serde_json::from_slice::<Value>(raw.bytes)
                .ok()
                .and_then(|v| {
                    Some((
                        v.get("seq")?.as_u64()?,
                        v.get("prev")?.as_str()?.to_string(),
                    ))
                });
        }
        false
    })?;
    found.ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} has no readable first event", segment_name(segment)),
        )
    })
}

/// Completes a prune: removes the segments before the checkpoint and the reports whose
/// events were in them. Returns the segments removed; nothing when there is no
/// checkpoint or nothing is left to remove.
pub fn finish(dir: &Path) -> io::Result<usize> {
    let Some(checkpoint) = read(dir)? else {
        return Ok(0);
    };
    let stale: Vec<_> = list_segments(dir)?
        .into_iter()
        .filter(|(n, _)| *n < checkpoint.first_segment)
        .collect();
    if stale.is_empty() {
        return Ok(0);
    }
    let digests = pruned_report_digests(dir, checkpoint.first_segment)?;
    if !digests.is_empty() {
        drop_reports(dir, &digests)?;
    }
    for (_, path) in &stale {
        std::fs::remove_file(path)?;
    }
    Ok(stale.len())
}

/// Digests of the reports recorded by events of the segments before `first_kept`.
pub fn pruned_report_digests(dir: &Path, first_kept: u32) -> io::Result<HashSet<String>> {
    let mut digests = HashSet::new();
    for_each_line(dir, |raw| {
        if raw.segment >= first_kept {
            return false;
        }
        if let Ok(v) = serde_json::from_slice::<Value>(raw.bytes)
            && v.get("kind").and_then(Value::as_str) == Some("AuditReport")
            && let Some(d) = v.get("digest").and_then(Value::as_str)
        {
            digests.insert(d.to_string());
        }
        true
    })?;
    Ok(digests)
}

/// Rewrites the report history without the reports whose digests are given.
fn drop_reports(dir: &Path, digests: &HashSet<String>) -> io::Result<()> {
    let path = dir.join(REPORTS_FILE);
    let text = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let mut kept = Vec::with_capacity(text.len());
    for line in text.split_inclusive(|b| *b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        if body.is_empty() || !digests.contains(&report_line_digest(body)) {
            kept.extend_from_slice(line);
        }
    }
    let tmp = dir.join(format!("{REPORTS_FILE}.tmp"));
    {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&kept)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}
