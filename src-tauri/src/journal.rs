//! The envelope journal: every envelope of every task, appended as JSON lines to
//! `<data dir>/desktop/envelopes/<task id>.jsonl` from a tap of its own, so the Tasks
//! panel can replay a run through the same reducer the popup used live, and the popup can
//! rebuild a task after its own tap fell behind. While it records, it prunes itself to
//! `[retention]`'s `journal_days` and `journal_mb` (whole task files, oldest first; see
//! `artoo::retention`), at start and every `artoo::retention::PRUNE_PERIOD`.
//!
//! **Invariant:** the journal reads a tap separate from the UI stream, so a slow webview
//! never costs the journal an envelope; a line that cannot be read back is skipped, never
//! fatal, and a file name is always derived from a checked task id. Writing never blocks
//! the async workers: the queued envelopes go to the blocking pool as one batch, into task
//! files the recorder keeps open between batches (and closes before every prune).

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use artoo::SharedClock;
use artoo::bus::{Envelope, Tap, TapEvent};
use artoo::contracts::TaskId;
use artoo::retention::{self, Keep, Pruned};

/// The most task files the recorder keeps open; writing to another closes the one
/// written least recently.
const OPEN_FILES: usize = 8;

/// The most envelopes one trip to the blocking pool writes.
const BATCH: usize = 256;

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
        limits: Keep,
    ) -> std::io::Result<Pruned> {
        retention::prune_dir(&self.dir, ".jsonl", now, limits)
    }

    /// Appends everything `tap` yields until the bus closes, pruning to `limits` at start
    /// and every [`retention::PRUNE_PERIOD`].
    pub async fn record(self, mut tap: Tap, limits: Keep, clock: SharedClock) {
        let mut prune = tokio::time::interval(retention::PRUNE_PERIOD);
        let mut writer = Writer::new(self.clone());
        loop {
            tokio::select! {
                _ = prune.tick() => {
                    // A handle kept open on a file the prune deletes would write into
                    // nothing: the next envelope of that task opens its file again.
                    writer.close_all();
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
                        let mut batch = vec![envelope];
                        while batch.len() < BATCH {
                            match tap.try_recv() {
                                Some(TapEvent::Message(envelope)) => batch.push(envelope),
                                Some(TapEvent::Gap { skipped }) => fell_behind(skipped),
                                None => break,
                            }
                        }
                        writer = writer.write_on_blocking_pool(batch).await;
                    }
                    Some(TapEvent::Gap { skipped }) => fell_behind(skipped),
                    None => return,
                },
            }
        }
    }
}

fn fell_behind(skipped: u64) {
    tracing::warn!(skipped, "the envelope journal fell behind the bus");
}

/// The recorder's open task files, lent to the blocking pool for each batch.
struct Writer {
    journal: Journal,
    /// Least recently written first.
    open: Vec<(PathBuf, File)>,
}

impl Writer {
    fn new(journal: Journal) -> Self {
        Self {
            journal,
            open: Vec::new(),
        }
    }

    fn close_all(&mut self) {
        self.open.clear();
    }

    /// Writes `batch` on the blocking pool and hands the writer back.
    async fn write_on_blocking_pool(mut self, batch: Vec<Arc<Envelope>>) -> Self {
        let journal = self.journal.clone();
        match tokio::task::spawn_blocking(move || {
            self.write(&batch);
            self
        })
        .await
        {
            Ok(writer) => writer,
            Err(e) => {
                tracing::warn!(error = %e, "the journal writer failed; its batch is lost");
                Writer::new(journal)
            }
        }
    }

    /// Appends `batch` as JSON lines, one write per task file, in bus order within each.
    fn write(&mut self, batch: &[Arc<Envelope>]) {
        let mut lines: Vec<(PathBuf, Vec<u8>)> = Vec::new();
        for envelope in batch {
            let Some(path) = envelope.task_id.as_ref().and_then(|t| self.journal.path(t)) else {
                continue;
            };
            let line = match serde_json::to_vec(envelope.as_ref()) {
                Ok(line) => line,
                Err(e) => {
                    self.failed(&e.to_string());
                    continue;
                }
            };
            let at = match lines.iter().position(|(p, _)| *p == path) {
                Some(at) => at,
                None => {
                    lines.push((path, Vec::new()));
                    lines.len() - 1
                }
            };
            lines[at].1.extend_from_slice(&line);
            lines[at].1.push(b'\n');
        }
        for (path, bytes) in lines {
            if let Err(e) = self.append(path, &bytes) {
                self.failed(&e.to_string());
            }
        }
    }

    fn append(&mut self, path: PathBuf, bytes: &[u8]) -> std::io::Result<()> {
        let mut file = match self.open.iter().position(|(p, _)| *p == path) {
            Some(at) => self.open.remove(at).1,
            None => {
                std::fs::create_dir_all(&self.journal.dir)?;
                OpenOptions::new().create(true).append(true).open(&path)?
            }
        };
        // A failed write drops the handle: the next batch opens the file afresh.
        file.write_all(bytes)?;
        if self.open.len() >= OPEN_FILES {
            self.open.remove(0);
        }
        self.open.push((path, file));
        Ok(())
    }

    fn failed(&self, error: &str) {
        tracing::warn!(%error, dir = %self.journal.dir.display(), "cannot journal an envelope");
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
            .prune(chrono::Utc::now(), Keep::from_days_and_mb(30, 256))
            .unwrap();
        assert_eq!(pruned.files, 1);
        assert!(!old.exists() && kept.exists());
        assert!(other.exists(), "only the journal's own files are pruned");
    }

    /// `count` envelopes of `task`, numbered from `first`.
    fn of_task(task: &str, first: u64, count: u64) -> Vec<Arc<Envelope>> {
        use artoo::testkit::samples::samples;
        let template = samples()
            .into_iter()
            .find(|e| e.task_id.is_some())
            .expect("a sample names a task");
        (first..first + count)
            .map(|seq| {
                let mut envelope = template.clone();
                envelope.seq = seq;
                envelope.task_id = Some(TaskId::from_existing(task));
                Arc::new(envelope)
            })
            .collect()
    }

    fn seqs(journal: &Journal, task: &str) -> Vec<u64> {
        let loaded = journal.load(&TaskId::from_existing(task)).unwrap();
        loaded.unwrap_or_default().iter().map(|e| e.seq).collect()
    }

    #[tokio::test]
    async fn batches_land_in_their_task_files_in_bus_order_across_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::new(dir.path());
        let mut writer = Writer::new(journal.clone());
        let tasks: Vec<String> = (0..OPEN_FILES + 2).map(|i| format!("task_{i}")).collect();
        // Interleaved tasks, more of them than files kept open.
        let mut batch = Vec::new();
        for (i, task) in tasks.iter().enumerate() {
            batch.extend(of_task(task, 1, 2));
            batch.extend(of_task(&tasks[(i + 1) % tasks.len()], 10 + i as u64, 1));
        }
        writer = writer.write_on_blocking_pool(batch).await;
        writer.close_all();
        writer = writer
            .write_on_blocking_pool(of_task(&tasks[0], 100, 1))
            .await;
        drop(writer);
        let last = tasks.len() as u64 - 1;
        assert_eq!(seqs(&journal, &tasks[0]), vec![1, 2, 10 + last, 100]);
        assert_eq!(seqs(&journal, &tasks[1]), vec![1, 2, 10]);
        assert_eq!(seqs(&journal, "task_none"), Vec::<u64>::new());
    }
}
