//! `artoo audit verify`: walks the hash chain from the first event and reports the first
//! broken link — an edited byte, a deleted, reordered or inserted event, a missing
//! segment file, events appended after the auditor's last checkpoint, a cut-off tail —
//! then checks every stored report against the digest the chain recorded for it.
//!
//! What this proves, and what not: anyone who edits an event must recompute the hash of
//! every later event *and* rewrite the checkpoint in `state.json` to go unnoticed. The
//! chain is unkeyed so it can be verified without any secret; it makes tampering
//! evident, it does not make it impossible for someone with full write access to the
//! data directory.
//!
//! A pruned log ([`super::retention`]) is walked from its checkpoint, `pruned.json`: the
//! walk expects the checkpoint's first event and link, and the checkpoint must be the one
//! a `Retention` event of the chain recorded. Segments older than the checkpoint that are
//! still present (a prune stopped before removing them) are not walked; the reports they
//! recorded still count as recorded.
//!
//! **Invariant:** verification only reads; it never repairs or rewrites anything.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::canonical::{GENESIS, canonical_bytes, sha256_hex};
use super::event::EventKind;
use super::event::report_line_digest;
use super::log::{Checkpoint, for_each_line, list_segments, segment_name, writer_is_live};
use super::retention::{self, PRUNED_FILE};
use super::state::{STATE_FILE, read_checkpoint};
use super::{AuditError, REPORTS_FILE};

/// What kind of break was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakKind {
    /// Not a JSON event at all.
    Unreadable,
    /// The content does not match the event's own hash.
    Edited,
    /// `seq` jumps forward: events were deleted.
    Missing,
    /// `seq` goes backwards or repeats: events were reordered or inserted.
    OutOfOrder,
    /// `prev` is not the previous event's hash.
    LinkBroken,
    /// A whole segment file is gone.
    SegmentMissing,
    /// Events after the auditor's last checkpoint (appended by someone else).
    Unanchored,
    /// The log ends before the checkpoint does (events cut off the end).
    Truncated,
    /// The last event is not the one the checkpoint recorded (the tail was rewritten).
    Rewritten,
    /// Events exist but the checkpoint file does not.
    CheckpointMissing,
    /// An unterminated last line while no auditor is writing (a torn write).
    Torn,
    /// A stored report differs from every report the chain recorded.
    ReportEdited,
    /// The prune checkpoint is unreadable or matches no prune the chain recorded.
    PruneUnrecorded,
    /// The chain recorded a report the history no longer has.
    ReportMissing,
}

/// Where verification stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BrokenLink {
    /// What kind of break it is.
    pub kind: BreakKind,
    /// The file the break is in (segment, `reports.jsonl` or `state.json`).
    pub file: String,
    /// 1-based line in that file, when the break is on a line.
    pub line: Option<u64>,
    /// The event number the chain expected at that point.
    pub seq: Option<u64>,
    /// What was found there, in one sentence.
    pub message: String,
}

impl fmt::Display for BrokenLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, " line {line}")?;
        }
        if let Some(seq) = self.seq {
            write!(f, " (event #{seq})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The outcome of one verification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// Events read before the first break (all of them on a clean log).
    pub events: u64,
    /// Segment files in the log directory.
    pub segments: usize,
    /// Stored reports checked against the digests the chain recorded.
    pub reports: u64,
    /// The chain's end as read.
    pub head: Checkpoint,
    /// An auditor process held the log while it was read.
    pub live_writer: bool,
    /// The first break; None when the whole log verified.
    pub broken: Option<BrokenLink>,
}

impl VerifyReport {
    /// True when no break was found.
    pub fn is_clean(&self) -> bool {
        self.broken.is_none()
    }
}

struct Walk {
    expected_seq: u64,
    prev: String,
    last_segment: Option<u32>,
    /// (segment, seq of its first event) for locating events by number.
    segment_starts: Vec<(u32, u64)>,
    /// Digest → report id text, for reports the auditor published.
    report_digests: HashMap<String, String>,
    /// Digests of the prune checkpoints the chain recorded.
    prune_digests: Vec<String>,
    broken: Option<BrokenLink>,
}

impl Walk {
    fn line(&mut self, segment: u32, line: u64, bytes: &[u8]) -> Option<BrokenLink> {
        let file = segment_name(segment);
        let at = |kind, message: String| BrokenLink {
            kind,
            file: file.clone(),
            line: Some(line),
            seq: Some(self.expected_seq),
            message,
        };
        if self.last_segment != Some(segment) {
            let expected = self.last_segment.map_or(1, |s| s + 1);
            if segment != expected {
                return Some(BrokenLink {
                    kind: BreakKind::SegmentMissing,
                    file: segment_name(expected),
                    line: None,
                    seq: Some(self.expected_seq),
                    message: format!(
                        "segment file {} is missing (the log continues in {file})",
                        segment_name(expected)
                    ),
                });
            }
            self.last_segment = Some(segment);
            self.segment_starts.push((segment, self.expected_seq));
        }

        let Ok(Value::Object(mut event)) = serde_json::from_slice::<Value>(bytes) else {
            return Some(at(
                BreakKind::Unreadable,
                "not a JSON event (edited or corrupted)".into(),
            ));
        };
        let Some(Value::String(hash)) = event.remove("hash") else {
            return Some(at(BreakKind::Edited, "the event has no hash".into()));
        };
        let value = Value::Object(event);
        if sha256_hex(&canonical_bytes(&value)) != hash {
            return Some(at(
                BreakKind::Edited,
                "the content does not match the event's hash: it was edited".into(),
            ));
        }
        let seq = value.get("seq").and_then(Value::as_u64);
        match seq {
            Some(seq) if seq > self.expected_seq => {
                return Some(at(
                    BreakKind::Missing,
                    format!(
                        "found event #{seq} where #{} belongs: {} event(s) deleted or moved",
                        self.expected_seq,
                        seq - self.expected_seq
                    ),
                ));
            }
            Some(seq) if seq < self.expected_seq => {
                return Some(at(
                    BreakKind::OutOfOrder,
                    format!(
                        "found event #{seq} where #{} belongs: events were reordered or inserted",
                        self.expected_seq
                    ),
                ));
            }
            Some(_) => {}
            None => return Some(at(BreakKind::Edited, "the event has no number".into())),
        }
        if value.get("prev").and_then(Value::as_str) != Some(self.prev.as_str()) {
            return Some(at(
                BreakKind::LinkBroken,
                "its link does not match the previous event's hash: an event before it was removed, replaced or inserted".into(),
            ));
        }
        if value.get("kind").and_then(Value::as_str) == Some("AuditReport")
            && value.get("from").and_then(Value::as_str) == Some("R6")
            && let Some(digest) = value.get("digest").and_then(Value::as_str)
        {
            let detail = value.get("detail").and_then(Value::as_str).unwrap_or("");
            let id = detail.split_whitespace().nth(1).unwrap_or("?").to_string();
            self.report_digests.insert(digest.to_string(), id);
        }
        if value.get("kind").and_then(Value::as_str) == Some(EventKind::Retention.name())
            && let Some(digest) = value.get("digest").and_then(Value::as_str)
        {
            self.prune_digests.push(digest.to_string());
        }
        self.prev = hash;
        self.expected_seq += 1;
        None
    }

    /// Segment file and line of event `seq` (valid once the chain up to it checked out).
    fn locate(&self, seq: u64) -> (String, Option<u64>) {
        match self
            .segment_starts
            .iter()
            .rev()
            .find(|(_, first)| *first <= seq)
        {
            Some((segment, first)) => (segment_name(*segment), Some(seq - first + 1)),
            None => (segment_name(1), Some(1)),
        }
    }
}

impl Walk {
    /// A walk that starts where the prune checkpoint says the log now starts (at the
    /// genesis when nothing was pruned).
    fn after(pruned: Option<&retention::PruneCheckpoint>) -> Walk {
        Walk {
            expected_seq: pruned.map_or(0, |p| p.first_seq),
            prev: pruned.map_or_else(|| GENESIS.to_string(), |p| p.prev.clone()),
            last_segment: pruned.map(|p| p.first_segment.saturating_sub(1)),
            segment_starts: Vec::new(),
            report_digests: HashMap::new(),
            prune_digests: Vec::new(),
            broken: None,
        }
    }
}

/// Verifies the audit log in `dir` (see the module documentation).
pub fn verify(dir: &Path) -> Result<VerifyReport, AuditError> {
    let io = |e| AuditError::io(dir, e);
    let live = writer_is_live(dir);
    // The checkpoint first: the log is written before it, so every event it covers is
    // already in the segment files listed next.
    let anchor =
        read_checkpoint(dir).map_err(|e| AuditError::State(format!("{}: {e}", dir.display())))?;
    let segments = list_segments(dir).map_err(io)?.len();
    let pruned = match retention::read(dir) {
        Ok(pruned) => pruned,
        Err(e) => {
            return Ok(VerifyReport {
                events: 0,
                segments,
                reports: 0,
                head: Checkpoint::genesis(),
                live_writer: live,
                broken: Some(BrokenLink {
                    kind: BreakKind::PruneUnrecorded,
                    file: PRUNED_FILE.into(),
                    line: None,
                    seq: None,
                    message: format!("the prune checkpoint is unreadable: {e}"),
                }),
            });
        }
    };
    let mut walk = Walk::after(pruned.as_ref());
    let first_kept = pruned.as_ref().map_or(0, |p| p.first_segment);
    if first_kept > 0 {
        // Reports recorded in segments a stopped prune did not remove yet.
        for digest in retention::pruned_report_digests(dir, first_kept).map_err(io)? {
            walk.report_digests.insert(digest, "(pruned)".into());
        }
    }
    for_each_line(dir, |raw| {
        if raw.segment < first_kept {
            return true;
        }
        if !raw.terminated {
            if !live {
                walk.broken = Some(BrokenLink {
                    kind: BreakKind::Torn,
                    file: segment_name(raw.segment),
                    line: Some(raw.line),
                    seq: Some(walk.expected_seq),
                    message: "the last line is unterminated: a write was torn (the auditor trims it at its next start)".into(),
                });
            }
            return false;
        }
        walk.broken = walk.line(raw.segment, raw.line, raw.bytes);
        walk.broken.is_none()
    })
    .map_err(io)?;

    let head = Checkpoint {
        next_seq: walk.expected_seq,
        hash: walk.prev.clone(),
    };
    let mut report = VerifyReport {
        events: walk.expected_seq,
        segments,
        reports: 0,
        head,
        live_writer: live,
        broken: walk.broken.take(),
    };
    if report.broken.is_some() {
        return Ok(report);
    }
    if let Some(p) = &pruned
        && !walk.prune_digests.contains(&p.digest())
    {
        report.broken = Some(BrokenLink {
            kind: BreakKind::PruneUnrecorded,
            file: PRUNED_FILE.into(),
            line: None,
            seq: Some(p.first_seq),
            message: format!(
                "the log starts at event #{} by its prune checkpoint, but no prune the log recorded says so: events were cut off its start or the checkpoint was edited",
                p.first_seq
            ),
        });
        return Ok(report);
    }
    report.broken = check_anchor(dir, &walk, &report.head, anchor, live)?;
    if report.broken.is_some() {
        return Ok(report);
    }
    let (reports, broken) = check_reports(dir, &mut walk.report_digests, live)?;
    report.reports = reports;
    report.broken = broken;
    Ok(report)
}

fn check_anchor(
    dir: &Path,
    walk: &Walk,
    head: &Checkpoint,
    anchor: Option<Checkpoint>,
    live: bool,
) -> Result<Option<BrokenLink>, AuditError> {
    let anchor = match anchor {
        // A live auditor may have checkpointed what it wrote during the scan.
        Some(before) if live && head.next_seq > before.next_seq => read_checkpoint(dir)
            .map_err(|e| AuditError::State(format!("{}: {e}", dir.display())))?
            .or(Some(before)),
        other => other,
    };
    if let Some(a) = &anchor
        && live
        && a.next_seq > head.next_seq
    {
        // Checkpointed past the end we read: it kept writing after our scan, and
        // everything we read is covered (a gap would have broken the chain).
        return Ok(None);
    }
    let Some(anchor) = anchor else {
        return Ok((head.next_seq > 0).then(|| BrokenLink {
            kind: BreakKind::CheckpointMissing,
            file: STATE_FILE.into(),
            line: None,
            seq: None,
            message: format!(
                "the log holds {} events but the auditor's checkpoint is missing: its end cannot be vouched for",
                head.next_seq
            ),
        }));
    };
    if head.next_seq > anchor.next_seq {
        let (file, line) = walk.locate(anchor.next_seq);
        return Ok(Some(BrokenLink {
            kind: BreakKind::Unanchored,
            file,
            line,
            seq: Some(anchor.next_seq),
            message: format!(
                "{} event(s) from here on were appended after the auditor's last checkpoint (forged, or written by an auditor that crashed before checkpointing)",
                head.next_seq - anchor.next_seq
            ),
        }));
    }
    if head.next_seq < anchor.next_seq {
        let (file, _) = walk.locate(head.next_seq.saturating_sub(1));
        return Ok(Some(BrokenLink {
            kind: BreakKind::Truncated,
            file,
            line: None,
            seq: Some(head.next_seq),
            message: format!(
                "the log ends after {} events but the checkpoint records {}: the last {} were removed",
                head.next_seq,
                anchor.next_seq,
                anchor.next_seq - head.next_seq
            ),
        }));
    }
    if head.hash != anchor.hash {
        let (file, line) = walk.locate(head.next_seq.saturating_sub(1));
        return Ok(Some(BrokenLink {
            kind: BreakKind::Rewritten,
            file,
            line,
            seq: head.next_seq.checked_sub(1),
            message: "the last event is not the one the checkpoint recorded: the log's tail was rewritten".into(),
        }));
    }
    Ok(None)
}

/// Every stored report must match a report the chain recorded, and the other way round.
/// With a live auditor, reports stored after the chain was read (the history's last
/// lines) may not be chained yet.
fn check_reports(
    dir: &Path,
    recorded: &mut HashMap<String, String>,
    live: bool,
) -> Result<(u64, Option<BrokenLink>), AuditError> {
    let text = match std::fs::read(dir.join(REPORTS_FILE)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(AuditError::io(dir, e)),
    };
    let edited = |line: usize| {
        BrokenLink {
        kind: BreakKind::ReportEdited,
        file: REPORTS_FILE.into(),
        line: Some(line as u64 + 1),
        seq: None,
        message: "this report matches no report the log recorded: it was edited (or stored just before a crash, unpublished)".into(),
    }
    };
    let mut reports = 0;
    let mut first_unmatched = None;
    for (i, line) in text.split(|b| *b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        if recorded.remove(&report_line_digest(line)).is_some() {
            reports += 1;
            if let Some(unmatched) = first_unmatched {
                return Ok((reports, Some(edited(unmatched))));
            }
        } else if first_unmatched.is_none() {
            first_unmatched = Some(i);
        }
    }
    if let Some(unmatched) = first_unmatched.filter(|_| !live) {
        return Ok((reports, Some(edited(unmatched))));
    }
    let missing = recorded.values().next().cloned();
    Ok((
        reports,
        missing.map(|id| BrokenLink {
            kind: BreakKind::ReportMissing,
            file: REPORTS_FILE.into(),
            line: None,
            seq: None,
            message: format!(
                "report {id} was published and logged but is missing from the history ({} missing)",
                recorded.len()
            ),
        }),
    ))
}
