//! The envelope journal: every envelope of every task, appended as JSON lines to
//! `<data dir>/desktop/envelopes/<task id>.jsonl` from a tap of its own, so the Tasks
//! panel can replay a run through the same reducer the popup used live, and the popup can
//! rebuild a task after its own tap fell behind. While it records, it prunes itself to
//! `[retention]`'s `journal_days` and `journal_mb` (whole task files, oldest first; see
//! `artoo::retention`), at start and every `artoo::retention::PRUNE_PERIOD`.
//!
//! **Invariant:** the journal reads a tap separate from the UI stream, so a slow webview
//! never costs the journal an envelope; a line that cannot be read back is skipped, never
//! fatal, and a file name is always derived from a checked task id.

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use artoo::SharedClock;
use artoo::bus::{Envelope, Tap, TapEvent};
use artoo::contracts::TaskId;
use artoo::retention::{self, Limits, Pruned};

#[derive(Clone, Debug)]
pub struct Journal {
    dir: PathBuf,
}

impl Journal {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            dir: data_dir.join("desktop").join("envelopes"),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Task ids are minted as `task_<hex>`; anything else (a hand-edited log) gets no file.
    fn path(&self, task: &TaskId) -> Option<PathBuf> {
        let id = task.as_str();
        let plain = !id.is_empty()
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        plain.then(|| self.dir.join(format!("{id}.jsonl")))
    }

    pub fn append(&self, envelope: &Envelope) -> std::io::Result<()> {
        let Some(path) = envelope.task_id.as_ref().and_then(|t| self.path(t)) else {
            return Ok(());
        };
        let mut line = serde_json::to_vec(envelope).map_err(std::io::Error::other)?;
        line.push(b'\n');
        std::fs::create_dir_all(&self.dir)?;
        let mut file = OpenOptions::new().create(true).append(true).open(path)?;
        file.write_all(&line)
    }

    /// Every envelope recorded for `task`, in bus order; `None` when nothing was recorded.
    pub fn load(&self, task: &TaskId) -> std::io::Result<Option<Vec<Arc<Envelope>>>> {
        let Some(path) = self.path(task) else {
            return Ok(None);
        };
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut envelopes = Vec::new();
        for line in BufReader::new(file).lines() {
            match serde_json::from_str::<Envelope>(&line?) {
                Ok(envelope) => envelopes.push(Arc::new(envelope)),
                // A line cut off by a crash, or a message of a newer version.
                Err(e) => {
                    tracing::debug!(path = %path.display(), error = %e, "skipped a journal line")
                }
            }
        }
        envelopes.sort_by_key(|e| e.seq);
        Ok(Some(envelopes))
    }

    /// Deletes task files past `limits` (whole files; none written in the last hour).
    pub fn prune(
        &self,
        now: chrono::DateTime<chrono::Utc>,
        limits: Limits,
    ) -> std::io::Result<Pruned> {
        retention::prune_dir(&self.dir, ".jsonl", now, limits)
    }

    /// Appends everything `tap` yields until the bus closes, pruning to `limits` at start
    /// and every [`retention::PRUNE_PERIOD`].
    pub async fn record(self, mut tap: Tap, limits: Limits, clock: SharedClock) {
        let mut prune = tokio::time::interval(retention::PRUNE_PERIOD);
        loop {
            tokio::select! {
                _ = prune.tick() => {
                    let journal = self.clone();
                    let now = clock.now();
                    match tokio::task::spawn_blocking(move || journal.prune(now, limits)).await {
                        Ok(Ok(p)) if p.files > 0 => tracing::info!(files = p.files,
                            bytes = p.bytes, "envelope journal pruned"),
                        Ok(Ok(_)) => {}
                        Ok(Err(e)) => tracing::warn!(error = %e, "cannot prune the envelope journal"),
                        Err(e) => tracing::warn!(error = %e, "the journal pruning task failed"),
                    }
                }
                event = tap.recv() => match event {
                    Some(TapEvent::Message(envelope)) => {
                        if let Err(e) = self.append(&envelope) {
                            tracing::warn!(error = %e, dir = %self.dir.display(), "cannot journal an envelope");
                        }
                    }
                    Some(TapEvent::Gap { skipped }) => {
                        tracing::warn!(skipped, "the envelope journal fell behind the bus");
                    }
                    None => return,
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    fn aged(path: &Path, days: u64) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(days * 86_400))
            .unwrap();
    }

    #[test]
    fn the_journal_keeps_recent_tasks_and_drops_old_ones_past_its_limits() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::new(dir.path());
        std::fs::create_dir_all(journal.dir()).unwrap();
        let old = journal.dir().join("task_old.jsonl");
        let kept = journal.dir().join("task_kept.jsonl");
        let other = journal.dir().join("notes.txt");
        for path in [&old, &kept, &other] {
            std::fs::write(path, b"{}\n").unwrap();
        }
        aged(&old, 40);
        aged(&kept, 2);
        aged(&other, 400);
        let pruned = journal
            .prune(chrono::Utc::now(), Limits::from_days_and_mb(30, 256))
            .unwrap();
        assert_eq!(pruned.files, 1);
        assert!(!old.exists() && kept.exists());
        assert!(other.exists(), "only the journal's own files are pruned");
    }
}
