//! The hash-chained audit log on disk: `events-NNNNNN.jsonl` segment files in the audit
//! directory, one [`AuditEvent`] per line, rotated by size.
//!
//! The writer is split in two so the auditor never blocks its async task on IO:
//! [`ChainWriter`] (memory only) numbers, links and serialises events into pending
//! chunks; [`LogFiles`] (owned by a blocking task during a flush) appends the chunks to
//! their segment files and holds the directory's exclusive lock.
//!
//! **Invariant:** each event's `prev` is the `hash` of the event before it, across
//! segment files and restarts, and `seq` counts up by one; a line is only ever appended,
//! never rewritten (start-up trims a torn last line and logs that it did).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use fs2::FileExt;

use super::canonical::{GENESIS, sha256_hex};
use super::event::AuditEvent;

const SEGMENT_PREFIX: &str = "events-";
const SEGMENT_SUFFIX: &str = ".jsonl";
const LOCK_FILE: &str = "LOCK";
/// Initial buffer of a pending chunk: a flush's worth, so appends rarely reallocate.
const CHUNK_CAPACITY: usize = 1024 * 1024 + 64 * 1024;

/// File name of segment `n` (1-based).
pub fn segment_name(n: u32) -> String {
    format!("{SEGMENT_PREFIX}{n:06}{SEGMENT_SUFFIX}")
}

/// The segment files of `dir`, oldest first.
pub fn list_segments(dir: &Path) -> io::Result<Vec<(u32, PathBuf)>> {
    let mut segments = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(segments),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let number = name
            .strip_prefix(SEGMENT_PREFIX)
            .and_then(|rest| rest.strip_suffix(SEGMENT_SUFFIX))
            .and_then(|n| n.parse::<u32>().ok());
        if let Some(n) = number {
            segments.push((n, entry.path()));
        }
    }
    segments.sort_unstable_by_key(|(n, _)| *n);
    Ok(segments)
}

/// Creates `dir` readable by the owner only (on Unix).
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Opens `path` for appending, creating it owner-only (on Unix).
pub fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Whether another process holds the audit directory's writer lock.
pub fn writer_is_live(dir: &Path) -> bool {
    let Ok(file) = OpenOptions::new().read(true).open(dir.join(LOCK_FILE)) else {
        return false;
    };
    // Fully qualified: std's `File` has inherent lock methods of the same names on newer
    // toolchains than the crate's minimum.
    match FileExt::try_lock_shared(&file) {
        Ok(()) => {
            // Dropping the handle releases the probe lock.
            false
        }
        Err(_) => true,
    }
}

/// Bytes waiting to be appended to one segment.
#[derive(Debug)]
pub struct Chunk {
    /// The segment the bytes go to.
    pub segment: u32,
    /// Whole event lines, each ending in a newline.
    pub bytes: Vec<u8>,
}

/// Where the chain stands: the next event's number and the last event's hash.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Checkpoint {
    /// Number of events in the log (= `seq` of the next event).
    pub next_seq: u64,
    /// Hash of the last event; [`GENESIS`] for an empty log.
    pub hash: String,
}

impl Checkpoint {
    pub(crate) fn genesis() -> Self {
        Self {
            next_seq: 0,
            hash: GENESIS.to_string(),
        }
    }
}

/// Numbers, links and serialises events; no IO.
#[derive(Debug)]
pub struct ChainWriter {
    head: Checkpoint,
    segment: u32,
    segment_bytes: u64,
    max_segment_bytes: u64,
    pending: Vec<Chunk>,
    pending_bytes: usize,
}

impl ChainWriter {
    /// Continues the chain after `tail`.
    pub fn new(tail: &Tail, max_segment_bytes: u64) -> Self {
        Self {
            head: tail.head.clone(),
            segment: tail.segment,
            segment_bytes: tail.segment_bytes,
            max_segment_bytes: max_segment_bytes.max(1),
            pending: Vec::new(),
            pending_bytes: 0,
        }
    }

    /// The last event numbered so far, pending or written.
    pub fn head(&self) -> &Checkpoint {
        &self.head
    }

    /// The segment new events go to (the one never pruned).
    pub fn segment(&self) -> u32 {
        self.segment
    }

    pub(crate) fn pending_bytes(&self) -> usize {
        self.pending_bytes
    }

    /// Links `event` to the chain and queues its line; returns it with `seq`, `prev` and
    /// `hash` filled.
    pub fn append(&mut self, mut event: AuditEvent) -> AuditEvent {
        event.seq = self.head.next_seq;
        event.prev = std::mem::take(&mut self.head.hash);
        event.hash.clear();
        if self
            .pending
            .last()
            .is_none_or(|c| c.segment != self.segment)
        {
            self.pending.push(Chunk {
                segment: self.segment,
                bytes: Vec::with_capacity(CHUNK_CAPACITY),
            });
        }
        let chunk = self.pending.last_mut().expect("a chunk was just ensured");
        let start = chunk.bytes.len();
        // The struct's field order is its canonical order (see `event`), so these bytes
        // are exactly what a verifier recomputes from the parsed line.
        serde_json::to_writer(&mut chunk.bytes, &event)
            .expect("audit events serialise to JSON without fail");
        let hash = sha256_hex(&chunk.bytes[start..]);
        debug_assert_eq!(chunk.bytes.last(), Some(&b'}'));
        chunk.bytes.pop();
        chunk.bytes.extend_from_slice(b",\"hash\":\"");
        chunk.bytes.extend_from_slice(hash.as_bytes());
        chunk.bytes.extend_from_slice(b"\"}\n");

        let len = (chunk.bytes.len() - start) as u64;
        if self.segment_bytes > 0 && self.segment_bytes + len > self.max_segment_bytes {
            // Rotate: this line opens the next segment file.
            let line = chunk.bytes.split_off(start);
            self.segment += 1;
            self.segment_bytes = 0;
            self.pending.push(Chunk {
                segment: self.segment,
                bytes: line,
            });
        }
        self.segment_bytes += len;
        self.pending_bytes += len as usize;

        self.head.next_seq += 1;
        self.head.hash.clone_from(&hash);
        event.hash = hash;
        event
    }

    /// Takes the queued chunks for writing.
    pub fn take_pending(&mut self) -> Vec<Chunk> {
        self.pending_bytes = 0;
        std::mem::take(&mut self.pending)
    }
}

/// The open segment file and the directory lock; moved into a blocking task per flush.
#[derive(Debug)]
pub struct LogFiles {
    dir: PathBuf,
    segment: u32,
    file: File,
    _lock: File,
}

impl LogFiles {
    /// Takes the directory's exclusive lock; `Ok(None)` when another process holds it.
    pub fn lock(dir: &Path) -> io::Result<Option<File>> {
        create_private_dir(dir)?;
        let lock = open_append(&dir.join(LOCK_FILE))?;
        match FileExt::try_lock_exclusive(&lock) {
            Ok(()) => Ok(Some(lock)),
            Err(e) if e.kind() == fs2::lock_contended_error().kind() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Opens segment `segment` of `dir` for appending; `lock` is the directory lock from
    /// [`LogFiles::lock`], held until this is dropped.
    pub fn open(dir: &Path, segment: u32, lock: File) -> io::Result<Self> {
        let file = open_append(&dir.join(segment_name(segment)))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            segment,
            file,
            _lock: lock,
        })
    }

    /// Appends the chunks in order, opening new segment files as the chain rotates.
    pub fn write(&mut self, chunks: &[Chunk]) -> io::Result<()> {
        for chunk in chunks {
            if chunk.segment != self.segment {
                self.file.flush()?;
                self.file = open_append(&self.dir.join(segment_name(chunk.segment)))?;
                self.segment = chunk.segment;
            }
            self.file.write_all(&chunk.bytes)?;
        }
        Ok(())
    }

    /// Forces the current segment to disk (shutdown).
    pub fn sync(&self) -> io::Result<()> {
        self.file.sync_all()
    }
}

/// What start-up found at the end of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// The last event the log holds, or the start checkpoint when it holds none.
    pub head: Checkpoint,
    /// Segment the next event goes to, and its current size.
    pub segment: u32,
    /// Bytes already in that segment.
    pub segment_bytes: u64,
    /// Bytes of an unterminated last line that were cut off (a write torn by a crash).
    pub torn_bytes: Option<(u64, String)>,
    /// The last line could not be read as an event; the chain continues from the hash
    /// of its raw bytes.
    pub unreadable_last_line: bool,
}

/// Reads the end of the log and trims an unterminated last line (a torn write).
pub fn recover_tail(dir: &Path) -> io::Result<Tail> {
    let segments = list_segments(dir)?;
    let Some((last_segment, _)) = segments.last() else {
        return Ok(Tail {
            head: Checkpoint::genesis(),
            segment: 1,
            segment_bytes: 0,
            torn_bytes: None,
            unreadable_last_line: false,
        });
    };
    let mut torn_bytes = None;
    for (n, path) in segments.iter().rev() {
        let mut file = OpenOptions::new().read(true).write(true).open(path)?;
        let len = file.metadata()?.len();
        let (last_line, complete_len) = last_line(&mut file, len)?;
        if complete_len < len {
            // A crash tore the final write: keep a digest of what is removed as evidence.
            let mut torn = vec![0; usize::try_from(len - complete_len).unwrap_or(0)];
            file.seek(SeekFrom::Start(complete_len))?;
            file.read_exact(&mut torn)?;
            file.set_len(complete_len)?;
            torn_bytes.get_or_insert((len - complete_len, sha256_hex(&torn)));
        }
        let Some(line) = last_line else { continue };
        let parsed = serde_json::from_slice::<serde_json::Value>(&line).ok();
        let fields = parsed.as_ref().and_then(|v| {
            Some((
                v.get("seq")?.as_u64()?,
                v.get("hash")?.as_str()?.to_string(),
            ))
        });
        let size_of_last = if *n == *last_segment { complete_len } else { 0 };
        let segment = *last_segment;
        return Ok(match fields {
            Some((seq, hash)) => Tail {
                head: Checkpoint {
                    next_seq: seq + 1,
                    hash,
                },
                segment,
                segment_bytes: size_of_last,
                torn_bytes,
                unreadable_last_line: false,
            },
            None => Tail {
                head: Checkpoint {
                    next_seq: count_lines(&segments)?,
                    hash: sha256_hex(&line),
                },
                segment,
                segment_bytes: size_of_last,
                torn_bytes,
                unreadable_last_line: true,
            },
        });
    }
    Ok(Tail {
        head: Checkpoint::genesis(),
        segment: *last_segment,
        segment_bytes: 0,
        torn_bytes,
        unreadable_last_line: false,
    })
}

/// The last complete line of a file (without its newline) and the length of the file
/// up to and including the last newline.
fn last_line(file: &mut File, len: u64) -> io::Result<(Option<Vec<u8>>, u64)> {
    let mut window: u64 = 64 * 1024;
    loop {
        let start = len.saturating_sub(window);
        let mut buf = vec![0; usize::try_from(len - start).unwrap_or(0)];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf)?;
        let Some(last_nl) = memchr::memrchr(b'\n', &buf) else {
            if start == 0 {
                return Ok((None, 0));
            }
            window *= 2;
            continue;
        };
        let complete_len = start + last_nl as u64 + 1;
        match memchr::memrchr(b'\n', &buf[..last_nl]) {
            Some(prev_nl) => {
                return Ok((Some(buf[prev_nl + 1..last_nl].to_vec()), complete_len));
            }
            None if start == 0 => return Ok((Some(buf[..last_nl].to_vec()), complete_len)),
            None => window *= 2,
        }
    }
}

fn count_lines(segments: &[(u32, PathBuf)]) -> io::Result<u64> {
    let mut n = 0;
    for (_, path) in segments {
        let bytes = std::fs::read(path)?;
        n += memchr::memchr_iter(b'\n', &bytes).count() as u64;
    }
    Ok(n)
}

/// One line of a segment file, as read back.
#[derive(Debug)]
pub struct RawLine<'a> {
    /// The segment file the line is in.
    pub segment: u32,
    /// 1-based line number within the segment.
    pub line: u64,
    /// The line without its newline.
    pub bytes: &'a [u8],
    /// False for a final line without its newline (being written, or torn).
    pub terminated: bool,
}

/// Calls `f` on every line of every segment, oldest first, until it returns `false`.
pub fn for_each_line(dir: &Path, mut f: impl FnMut(RawLine<'_>) -> bool) -> io::Result<()> {
    for (segment, path) in list_segments(dir)? {
        let bytes = std::fs::read(&path)?;
        let mut start = 0;
        let mut line = 0;
        while start < bytes.len() {
            line += 1;
            let (end, next, terminated) = match memchr::memchr(b'\n', &bytes[start..]) {
                Some(i) => (start + i, start + i + 1, true),
                None => (bytes.len(), bytes.len(), false),
            };
            if !f(RawLine {
                segment,
                line,
                bytes: &bytes[start..end],
                terminated,
            }) {
                return Ok(());
            }
            start = next;
        }
    }
    Ok(())
}

/// Calls `f` on every terminated line, newest first, until it returns `false`.
pub fn for_each_line_rev(dir: &Path, mut f: impl FnMut(&[u8]) -> bool) -> io::Result<()> {
    for (_, path) in list_segments(dir)?.into_iter().rev() {
        let bytes = std::fs::read(&path)?;
        // An unterminated tail is a line being written: skip it.
        let end = match memchr::memrchr(b'\n', &bytes) {
            Some(i) => i,
            None => continue,
        };
        let mut stop = end;
        loop {
            let start = memchr::memrchr(b'\n', &bytes[..stop]).map_or(0, |i| i + 1);
            if start < stop && !f(&bytes[start..stop]) {
                return Ok(());
            }
            if start == 0 {
                break;
            }
            stop = start - 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auditor::event::EventKind;
    use chrono::TimeZone;

    fn event(i: u64) -> AuditEvent {
        AuditEvent::internal(
            EventKind::AuditorStarted,
            chrono::Utc
                .timestamp_opt(1_700_000_000 + i as i64, 0)
                .unwrap(),
            format!("event {i}"),
            vec![],
        )
    }

    fn write_all(dir: &Path, n: u64, max_segment_bytes: u64) -> Checkpoint {
        let tail = recover_tail(dir).unwrap();
        let lock = LogFiles::lock(dir).unwrap().unwrap();
        let mut files = LogFiles::open(dir, tail.segment, lock).unwrap();
        let mut chain = ChainWriter::new(&tail, max_segment_bytes);
        for i in 0..n {
            chain.append(event(i));
        }
        files.write(&chain.take_pending()).unwrap();
        chain.head().clone()
    }

    #[test]
    fn serialised_events_are_their_own_canonical_form() {
        let mut chain = ChainWriter::new(&recover_tail(Path::new("/nonexistent")).unwrap(), 1);
        let e = chain.append(event(1));
        let mut unhashed = e.clone();
        unhashed.hash.clear();
        let bytes = serde_json::to_vec(&unhashed).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(super::super::canonical::canonical_bytes(&value), bytes);
        assert_eq!(sha256_hex(&bytes), e.hash);
        assert_eq!(e.prev, GENESIS);
    }

    proptest::proptest! {
        #[test]
        fn any_event_serialises_to_the_bytes_its_hash_covers(
            detail in proptest::prelude::any::<String>(),
            descriptions in proptest::collection::vec(proptest::prelude::any::<String>(), 0..3),
            task in proptest::option::of("[a-z_0-9]{1,20}"),
            bus_seq in proptest::option::of(proptest::prelude::any::<u64>()),
            nanos in 0u32..1_000_000_000,
        ) {
            let kinds = crate::auditor::event::AnomalyKind::ALL;
            let mut e = AuditEvent::internal(
                EventKind::TapGap,
                chrono::Utc.timestamp_opt(1_700_000_000, nanos).unwrap(),
                detail,
                descriptions
                    .into_iter()
                    .enumerate()
                    .map(|(i, d)| crate::auditor::event::Finding::new(kinds[i % kinds.len()], d))
                    .collect(),
            );
            e.task_id = task.map(crate::contracts::TaskId::from_existing);
            e.bus_seq = bus_seq;
            e.from = Some(crate::contracts::Role::Executor);
            let mut chain = ChainWriter::new(&recover_tail(Path::new("/nonexistent")).unwrap(), u64::MAX);
            let logged = chain.append(e);
            let bytes = chain.take_pending().remove(0).bytes;
            let mut value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            let hash = value.as_object_mut().unwrap().remove("hash").unwrap();
            proptest::prop_assert_eq!(hash.as_str(), Some(logged.hash.as_str()));
            let canonical = super::super::canonical::canonical_bytes(&value);
            proptest::prop_assert_eq!(sha256_hex(&canonical), logged.hash.clone());
            let back: AuditEvent = serde_json::from_slice(&bytes).unwrap();
            proptest::prop_assert_eq!(back, logged);
        }
    }

    #[test]
    fn the_chain_continues_across_rotation_and_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let head = write_all(dir.path(), 10, 400);
        let segments = list_segments(dir.path()).unwrap();
        assert!(segments.len() > 2, "{segments:?}");

        let tail = recover_tail(dir.path()).unwrap();
        assert_eq!(tail.head, head);
        assert_eq!(tail.segment, segments.last().unwrap().0);
        write_all(dir.path(), 5, 400);

        let mut prev = GENESIS.to_string();
        let mut seq = 0;
        for_each_line(dir.path(), |line| {
            let e: AuditEvent = serde_json::from_slice(line.bytes).unwrap();
            assert_eq!(e.seq, seq);
            assert_eq!(e.prev, prev);
            prev = e.hash;
            seq += 1;
            true
        })
        .unwrap();
        assert_eq!(seq, 15);
    }

    #[test]
    fn a_torn_last_line_is_trimmed_and_its_digest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let head = write_all(dir.path(), 3, u64::MAX);
        let path = dir.path().join(segment_name(1));
        let mut f = open_append(&path).unwrap();
        f.write_all(b"{\"anomalies\":[],\"at\"").unwrap();
        let tail = recover_tail(dir.path()).unwrap();
        assert_eq!(tail.head, head);
        assert_eq!(tail.torn_bytes.as_ref().unwrap().0, 20);
        assert!(std::fs::read(&path).unwrap().ends_with(b"}\n"));
    }

    #[test]
    fn a_second_writer_cannot_take_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let first = LogFiles::lock(dir.path()).unwrap();
        assert!(first.is_some());
        assert!(writer_is_live(dir.path()));
        assert!(LogFiles::lock(dir.path()).unwrap().is_none());
        drop(first);
        assert!(!writer_is_live(dir.path()));
        assert!(LogFiles::lock(dir.path()).unwrap().is_some());
    }

    #[test]
    fn lines_read_newest_first_skip_an_unterminated_tail() {
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), 6, 500);
        let mut f = open_append(&dir.path().join(segment_name(
            list_segments(dir.path()).unwrap().last().unwrap().0,
        )))
        .unwrap();
        f.write_all(b"{partial").unwrap();
        let mut seqs = Vec::new();
        for_each_line_rev(dir.path(), |line| {
            let e: AuditEvent = serde_json::from_slice(line).unwrap();
            seqs.push(e.seq);
            true
        })
        .unwrap();
        assert_eq!(seqs, vec![5, 4, 3, 2, 1, 0]);
    }
}
