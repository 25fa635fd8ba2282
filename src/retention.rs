//! Retention of the app's own records, which otherwise grow for as long as it runs: the
//! task logs (`tasks/`, every envelope of each run, full prompts included) and the
//! audit log's segments. Each has an age limit and a size limit in `[retention]` of
//! `settings.toml` (see [`crate::config::RetentionConfig`] for the defaults).
//!
//! [`select`] decides, [`prune_dir`] acts: files older than the age limit go, then the
//! oldest go until the rest fits the size limit — except files written within
//! [`KEEP_RECENT`], which a writer may still be appending to. The audit log is pruned by
//! its owner, the auditor, whole sealed segments at a time, behind a checkpoint its
//! verification accepts (`auditor::retention`).
//!
//! **Invariant:** [`select`] is pure; only whole files of the given kind are deleted, the
//! newest first kept, and nothing written within [`KEEP_RECENT`] is ever selected.

use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};

/// Files modified this recently are never deleted: a writer may still hold them.
pub const KEEP_RECENT: Duration = Duration::hours(1);
/// How often the runtime prunes while it runs (it also prunes at start).
pub const PRUNE_PERIOD: std::time::Duration = std::time::Duration::from_secs(6 * 60 * 60);

/// How much of one kind of record is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keep {
    /// Files older than this are deleted.
    pub max_age: Duration,
    /// The most bytes the kind may take; the oldest files go first until the rest fits.
    pub max_bytes: u64,
}

impl Keep {
    /// From whole days and mebibytes, as the settings give them.
    pub fn from_days_and_mb(days: u32, mb: u64) -> Self {
        Self {
            max_age: Duration::days(i64::from(days)),
            max_bytes: mb.saturating_mul(1024 * 1024),
        }
    }
}

/// One file that retention may delete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The file's path.
    pub path: PathBuf,
    /// When it was last written.
    pub modified: DateTime<Utc>,
    /// Its size in bytes.
    pub bytes: u64,
}

/// What one pruning did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Files deleted.
    pub files: usize,
    /// Bytes those files took.
    pub bytes: u64,
    /// Bytes kept after pruning.
    pub kept_bytes: u64,
}

/// The indices of `files` to delete, oldest first: everything older than the age limit,
/// then the oldest of the rest until the total fits the size limit; never a file
/// modified within [`KEEP_RECENT`] of `now`.
pub fn select(files: &[Candidate], now: DateTime<Utc>, limits: Keep) -> Vec<usize> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| (files[i].modified, files[i].path.clone()));
    let deletable = |i: usize| files[i].modified < now - KEEP_RECENT;
    let mut total: u64 = files.iter().map(|f| f.bytes).sum();
    let mut out = Vec::new();
    for i in order {
        let too_old = files[i].modified < now - limits.max_age;
        let too_big = total > limits.max_bytes;
        if (too_old || too_big) && deletable(i) {
            total = total.saturating_sub(files[i].bytes);
            out.push(i);
        }
    }
    out
}

/// The files of `dir` whose name ends in `suffix`, with their times and sizes.
pub fn candidates(dir: &Path, suffix: &str) -> io::Result<Vec<Candidate>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry?;
        let meta = entry.metadata()?;
        let name = entry.file_name();
        if !meta.is_file() || !name.to_string_lossy().ends_with(suffix) {
            continue;
        }
        out.push(Candidate {
            path: entry.path(),
            modified: meta.modified().map(DateTime::<Utc>::from)?,
            bytes: meta.len(),
        });
    }
    Ok(out)
}

/// Deletes what [`select`] picks among the `suffix` files of `dir`.
pub fn prune_dir(dir: &Path, suffix: &str, now: DateTime<Utc>, limits: Keep) -> io::Result<Pruned> {
    let files = candidates(dir, suffix)?;
    let mut pruned = Pruned {
        kept_bytes: files.iter().map(|f| f.bytes).sum(),
        ..Pruned::default()
    };
    for i in select(&files, now, limits) {
        match std::fs::remove_file(&files[i].path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        pruned.files += 1;
        pruned.bytes += files[i].bytes;
        pruned.kept_bytes = pruned.kept_bytes.saturating_sub(files[i].bytes);
    }
    Ok(pruned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, days_ago: i64, bytes: u64, now: DateTime<Utc>) -> Candidate {
        Candidate {
            path: PathBuf::from(name),
            modified: now - Duration::days(days_ago),
            bytes,
        }
    }

    #[test]
    fn old_files_go_then_the_oldest_until_the_rest_fits() {
        let now = DateTime::UNIX_EPOCH + Duration::days(1000);
        let files = [
            file("c", 3, 40, now),
            file("a", 100, 10, now),
            file("b", 10, 30, now),
            file("d", 1, 50, now),
        ];
        let limits = Keep {
            max_age: Duration::days(90),
            max_bytes: 100,
        };
        // "a" is too old; then 120 bytes > 100: "b" (oldest) goes, 90 fit.
        let picked: Vec<&str> = select(&files, now, limits)
            .into_iter()
            .map(|i| files[i].path.to_str().unwrap())
            .collect();
        assert_eq!(picked, ["a", "b"]);
    }

    #[test]
    fn a_file_written_within_the_last_hour_is_never_selected() {
        let now = DateTime::UNIX_EPOCH + Duration::days(10);
        let fresh = Candidate {
            path: PathBuf::from("fresh"),
            modified: now - Duration::minutes(5),
            bytes: 10_000,
        };
        let limits = Keep {
            max_age: Duration::days(1),
            max_bytes: 1,
        };
        assert!(select(&[fresh], now, limits).is_empty());
    }

    #[test]
    fn limits_come_from_days_and_mebibytes() {
        let l = Keep::from_days_and_mb(90, 512);
        assert_eq!(l.max_age, Duration::days(90));
        assert_eq!(l.max_bytes, 512 * 1024 * 1024);
    }
}
