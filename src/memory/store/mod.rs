//! The MKCT store: the only code that opens LevelDB. One dedicated thread owns the
//! database; everyone else holds a [`StoreHandle`] and sends it commands over a channel,
//! with a oneshot for each reply. Writes are fire-and-forget and batched: every write
//! queued while the thread was busy goes into one atomic `WriteBatch`.
//!
//! Durability: after each batch the write-ahead log is handed to the OS (a killed
//! process loses nothing the thread applied); `flush` also fsyncs it. rusty-leveldb
//! itself never fsyncs, so the store opens LevelDB through [`DurableEnv`], which fsyncs
//! table and manifest files when they are finished and the log when asked.
//!
//! Append-only: a write never replaces a record. Synchronous appends (operator,
//! feedback, consolidation) look the id up; the fire-and-forget path refuses ids among
//! the last [`RECENT_IDS`] written (a replayed delivery) and otherwise relies on ids being
//! runtime-minted random UUIDs, since a lookup per write would halve its throughput.
//!
//! A second opener of the same directory fails with [`MemoryError::Locked`] naming the
//! directory: rusty-leveldb holds an exclusive `flock` on `<dir>/LOCK` while open.
//!
//! Older builds named a kind of task differently (`intent:find-3-largest-videos`); their
//! groups are read, never rewritten: a recall or potentials query of an `intent:` space
//! also reads every stored group whose space names the same kind now
//! ([`crate::tags::canonical_intent_space`]), so a store written before keeps finding
//! what it learned. The alias table is built on the first such query (one seek per
//! group) and kept current by every write.
//!
//! **Invariant:** every change is one atomic batch that keeps `m|`, `x|`, `l|`, `r|` and
//! `c|` consistent; a record's content, tags, f, σ and times are never rewritten (only
//! its level and k move, through trust bankruptcy and pin); T entries are never demoted
//! or overwritten, and the Four Laws are never deleted (an operator persona entry an
//! older build stored can be forgotten).

use std::cell::Cell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::mpsc;
use std::sync::{Arc, RwLock};

use chrono::{DateTime, SecondsFormat, Utc};
use rusty_leveldb::{
    DB, DBIterator, LdbIterator, Options, PosixDiskEnv, Status, StatusCode, WriteBatch,
};
use tokio::sync::oneshot;

use super::cache::{GroupCache, RecordCache};
use super::error::MemoryError;
use super::keys::{self, IndexEntry};
use super::megram::{self as mg, BANKRUPT_K};
use super::potentials::{self, Accumulator};
use super::types::{
    Candidate, Distillation, ForgetReport, ForgetTarget, GroupSummary, LevelCounts, MegramView,
    Recall, StepResult,
};
use crate::clock::SharedClock;
use crate::config::MemoryParams;
use crate::contracts::{Level, Megram, MegramId, Potentials, SOPRecord};
use crate::tags;

/// Most writes folded into one batch before it is committed.
const MAX_BATCH: usize = 4_096;
/// How many recently written ids the store remembers to refuse replays.
const RECENT_IDS: usize = 65_536;
/// LevelDB block cache: enough for the hot index blocks of a million-entry store.
const BLOCK_CACHE_BYTES: usize = 16 << 20;

type Reply<T> = oneshot::Sender<Result<T, MemoryError>>;

/// What the store thread can be asked to do.
pub(crate) enum Command {
    Write(Box<Megram>),
    Recall {
        space: String,
        entity: String,
        reply: Reply<Recall>,
    },
    QueryC {
        space: String,
        entity: String,
        reply: Reply<Vec<SOPRecord>>,
    },
    QueryMk {
        space: String,
        entity: String,
        reply: Reply<Potentials>,
    },
    NegativeFeedback {
        rule: MegramId,
        content: String,
        reply: Reply<Megram>,
    },
    Get {
        ids: Vec<MegramId>,
        reply: Reply<Vec<Megram>>,
    },
    Insert {
        megram: Box<Megram>,
        reply: Reply<Megram>,
    },
    Groups {
        reply: Reply<Vec<GroupSummary>>,
    },
    Group {
        space: String,
        entity: String,
        reply: Reply<Vec<MegramView>>,
    },
    Forget {
        target: ForgetTarget,
        reply: Reply<ForgetReport>,
    },
    Pin {
        id: MegramId,
        reply: Reply<Megram>,
    },
    DreamStep {
        cursor: Option<Vec<u8>>,
        budget: usize,
        reply: Reply<StepResult>,
    },
    Consolidate {
        space: String,
        entity: String,
        rule: Box<Megram>,
        sources: Vec<MegramId>,
        reply: Reply<usize>,
    },
    Flush {
        reply: Reply<()>,
    },
    Close {
        reply: Reply<()>,
    },
}

/// The async side of the store: cheap to clone, all clones talk to the same thread.
#[derive(Clone)]
pub(crate) struct StoreHandle {
    /// `None` once closed. Senders hold the read lock while sending, so `close` (write
    /// lock) knows no command can slip in behind its own.
    tx: Arc<RwLock<Option<mpsc::Sender<Command>>>>,
    dir: Arc<PathBuf>,
}

impl StoreHandle {
    /// Opens (or creates) the store at `dir` on a new thread.
    pub(crate) async fn open(
        dir: PathBuf,
        clock: SharedClock,
        params: MemoryParams,
    ) -> Result<StoreHandle, MemoryError> {
        let (tx, rx) = mpsc::channel();
        let (opened_tx, opened_rx) = oneshot::channel();
        let thread_dir = dir.clone();
        std::thread::Builder::new()
            .name("artoo-memory-store".into())
            .spawn(move || match Store::open(&thread_dir, clock, params) {
                Ok(store) => {
                    // The opener may have given up (cancelled); the store then closes as
                    // soon as the last sender drops.
                    let _ = opened_tx.send(Ok(()));
                    store.run(rx);
                }
                Err(e) => {
                    let _ = opened_tx.send(Err(e));
                }
            })
            .map_err(|e| MemoryError::Open {
                dir: dir.clone(),
                reason: format!("cannot start the store thread: {e}"),
            })?;
        opened_rx.await.map_err(|_| MemoryError::Open {
            dir: dir.clone(),
            reason: "the store thread stopped while opening".into(),
        })??;
        Ok(StoreHandle {
            tx: Arc::new(RwLock::new(Some(tx))),
            dir: Arc::new(dir),
        })
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn send(&self, cmd: Command) -> Result<(), MemoryError> {
        let guard = self.tx.read().unwrap_or_else(|e| e.into_inner());
        match guard.as_ref() {
            Some(tx) => tx.send(cmd).map_err(|_| MemoryError::Closed),
            None => Err(MemoryError::Closed),
        }
    }

    /// Queues a write; never blocks. Accepted writes are applied before any command
    /// sent after them, and drained on close.
    pub(crate) fn write(&self, megram: Megram) -> Result<(), MemoryError> {
        self.send(Command::Write(Box::new(megram)))
    }

    pub(crate) async fn call<T>(
        &self,
        make: impl FnOnce(Reply<T>) -> Command,
    ) -> Result<T, MemoryError> {
        let (reply, rx) = oneshot::channel();
        self.send(make(reply))?;
        rx.await.map_err(|_| MemoryError::Closed)?
    }

    /// Drains every queued write, fsyncs and releases the LevelDB lock. Idempotent.
    pub(crate) async fn close(&self) -> Result<(), MemoryError> {
        let (reply, rx) = oneshot::channel();
        {
            let mut guard = self.tx.write().unwrap_or_else(|e| e.into_inner());
            let Some(tx) = guard.take() else {
                return Ok(());
            };
            if tx.send(Command::Close { reply }).is_err() {
                return Err(MemoryError::Closed);
            }
        }
        rx.await.map_err(|_| MemoryError::Closed)?
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.tx.read().unwrap_or_else(|e| e.into_inner()).is_none()
    }
}

/// An `Env` that adds the fsyncs rusty-leveldb leaves out.
///
/// - write-ahead logs (`*.log`) fsync on `flush` only while `sync_log` is set (the
///   store's explicit flush); the per-batch flush just hands bytes to the OS;
/// - tables, manifests and the `CURRENT` temp file fsync on `flush` and when dropped
///   (that is, before rusty-leveldb renames or references them);
/// - the info log (`LOG`) is never synced.
struct DurableEnv {
    inner: PosixDiskEnv,
    sync_log: Rc<Cell<bool>>,
}

#[derive(Clone, Copy, PartialEq)]
enum SyncPolicy {
    WriteAheadLog,
    Always,
    Never,
}

struct DurableFile {
    file: File,
    policy: SyncPolicy,
    sync_log: Rc<Cell<bool>>,
}

impl Write for DurableFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.policy {
            SyncPolicy::WriteAheadLog if self.sync_log.get() => self.file.sync_data(),
            SyncPolicy::Always => self.file.sync_data(),
            _ => Ok(()),
        }
    }
}

impl Drop for DurableFile {
    fn drop(&mut self) {
        if self.policy == SyncPolicy::Always {
            // Nothing to report to: rusty-leveldb has already finished with the file.
            let _ = self.file.sync_data();
        }
    }
}

impl DurableEnv {
    fn policy(path: &Path) -> SyncPolicy {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("LOG") {
            SyncPolicy::Never
        } else if name.ends_with(".log") {
            SyncPolicy::WriteAheadLog
        } else {
            SyncPolicy::Always
        }
    }

    fn open(&self, path: &Path, opts: &OpenOptions) -> rusty_leveldb::Result<Box<dyn Write>> {
        let file = opts.open(path).map_err(|e| {
            Status::new(
                StatusCode::IOError,
                &format!("open {}: {e}", path.display()),
            )
        })?;
        Ok(Box::new(DurableFile {
            file,
            policy: Self::policy(path),
            sync_log: Rc::clone(&self.sync_log),
        }))
    }
}

impl rusty_leveldb::env::Env for DurableEnv {
    fn open_sequential_file(&self, p: &Path) -> rusty_leveldb::Result<Box<dyn Read>> {
        self.inner.open_sequential_file(p)
    }
    fn open_random_access_file(
        &self,
        p: &Path,
    ) -> rusty_leveldb::Result<Box<dyn rusty_leveldb::env::RandomAccess>> {
        self.inner.open_random_access_file(p)
    }
    fn open_writable_file(&self, p: &Path) -> rusty_leveldb::Result<Box<dyn Write>> {
        self.open(
            p,
            OpenOptions::new().create(true).truncate(true).write(true),
        )
    }
    fn open_appendable_file(&self, p: &Path) -> rusty_leveldb::Result<Box<dyn Write>> {
        self.open(p, OpenOptions::new().create(true).append(true))
    }
    fn exists(&self, p: &Path) -> rusty_leveldb::Result<bool> {
        self.inner.exists(p)
    }
    fn children(&self, p: &Path) -> rusty_leveldb::Result<Vec<PathBuf>> {
        self.inner.children(p)
    }
    fn size_of(&self, p: &Path) -> rusty_leveldb::Result<usize> {
        self.inner.size_of(p)
    }
    fn delete(&self, p: &Path) -> rusty_leveldb::Result<()> {
        self.inner.delete(p)
    }
    fn mkdir(&self, p: &Path) -> rusty_leveldb::Result<()> {
        self.inner.mkdir(p)
    }
    fn rmdir(&self, p: &Path) -> rusty_leveldb::Result<()> {
        self.inner.rmdir(p)
    }
    fn rename(&self, old: &Path, new: &Path) -> rusty_leveldb::Result<()> {
        self.inner.rename(old, new)
    }
    fn lock(&self, p: &Path) -> rusty_leveldb::Result<rusty_leveldb::env::FileLock> {
        self.inner.lock(p)
    }
    fn unlock(&self, l: rusty_leveldb::env::FileLock) -> rusty_leveldb::Result<()> {
        self.inner.unlock(l)
    }
    fn new_logger(&self, p: &Path) -> rusty_leveldb::Result<rusty_leveldb::env::Logger> {
        self.open_appendable_file(p)
            .map(rusty_leveldb::env::Logger::new)
    }
    fn micros(&self) -> u64 {
        self.inner.micros()
    }
    fn sleep_for(&self, micros: u32) {
        self.inner.sleep_for(micros)
    }
}

/// The thread-side store. Lives and dies on the store thread.
struct Store {
    db: DB,
    dir: PathBuf,
    clock: SharedClock,
    params: MemoryParams,
    sync_log: Rc<Cell<bool>>,
    /// Ids of every T entry, so no write can land on one.
    t_ids: HashSet<MegramId>,
    /// The last [`RECENT_IDS`] ids written, so a replayed delivery is refused.
    recent_ids: RecentIds,
    /// Recently queried groups' index entries.
    cache: GroupCache,
    records: RecordCache,
    /// Accepted writes not yet committed.
    pending: Vec<Megram>,
    /// Writes LevelDB refused since the last flush; the next flush reports them.
    write_failures: Vec<String>,
    /// Stored `intent:` spaces of older builds, by the space of the kind they name now;
    /// `None` until first needed.
    aliases: Option<HashMap<String, Vec<String>>>,
}

fn storage(context: &str) -> impl FnOnce(Status) -> MemoryError + '_ {
    move |s| MemoryError::Storage(format!("{context}: {s}"))
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Iterates the keys under `prefix` in order.
fn scan_prefix(
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

fn already_stored(id: MegramId) -> MemoryError {
    MemoryError::Invalid(format!(
        "megram {id} is already stored; the store is append-only"
    ))
}

/// A bounded set of the most recently written ids (oldest forgotten first).
#[derive(Default)]
struct RecentIds {
    order: VecDeque<MegramId>,
    set: HashSet<MegramId>,
}

impl RecentIds {
    fn contains(&self, id: &MegramId) -> bool {
        self.set.contains(id)
    }

    /// False if `id` is already in the window.
    fn insert(&mut self, id: MegramId) -> bool {
        if !self.set.insert(id) {
            return false;
        }
        self.order.push_back(id);
        if self.order.len() > RECENT_IDS
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        true
    }
}

fn corrupt(key: &[u8], reason: impl Into<String>) -> MemoryError {
    MemoryError::Corrupt {
        key: String::from_utf8_lossy(key).into_owned(),
        reason: reason.into(),
    }
}

fn decode_entry(key: &[u8], value: &[u8]) -> Result<IndexEntry, MemoryError> {
    IndexEntry::decode(value).ok_or_else(|| corrupt(key, "unreadable index entry"))
}

fn is_episodic(level: Level) -> bool {
    matches!(level, Level::M | Level::K)
}

/// The keys of one record, for hard deletes. `r|` and `c|` are only deleted where they
/// may exist: a tombstone for a key that never existed still costs LevelDB a write and
/// compaction work.
fn delete_keys(
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

fn put_new(batch: &mut WriteBatch, m: &Megram) -> Result<(), MemoryError> {
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

/// Whether a C rule of valence `sigma` is contradicted by its group's live decision.
fn contradicted(sigma: f64, group_decision: f64) -> bool {
    sigma * group_decision < 0.0
}

/// Whether the store thread keeps serving after a command.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

/// One group's entries during a Dreamer step.
struct GroupScan {
    prefix: Vec<u8>,
    entries: Vec<(MegramId, IndexEntry)>,
}

impl Store {
    fn open(dir: &Path, clock: SharedClock, params: MemoryParams) -> Result<Store, MemoryError> {
        let sync_log = Rc::new(Cell::new(false));
        let options = Options {
            env: Rc::new(Box::new(DurableEnv {
                inner: PosixDiskEnv::new(),
                sync_log: Rc::clone(&sync_log),
            })),
            create_if_missing: true,
            block_cache_capacity_bytes: BLOCK_CACHE_BYTES,
            ..Options::default()
        };
        std::fs::create_dir_all(dir).map_err(|e| MemoryError::Open {
            dir: dir.to_path_buf(),
            reason: e.to_string(),
        })?;
        let db = DB::open(dir, options).map_err(|s| match s.code {
            StatusCode::LockError => MemoryError::Locked {
                dir: dir.to_path_buf(),
            },
            _ => MemoryError::Open {
                dir: dir.to_path_buf(),
                reason: s.to_string(),
            },
        })?;
        let mut store = Store {
            db,
            dir: dir.to_path_buf(),
            clock,
            params,
            sync_log,
            t_ids: HashSet::new(),
            recent_ids: RecentIds::default(),
            cache: GroupCache::default(),
            records: RecordCache::default(),
            pending: Vec::new(),
            write_failures: Vec::new(),
            aliases: None,
        };
        store.check_format()?;
        store.seed_laws()?;
        store.load_t_ids()?;
        store.sync()?;
        Ok(store)
    }

    fn check_format(&mut self) -> Result<(), MemoryError> {
        let format_error = |found: String| MemoryError::Format {
            dir: self.dir.clone(),
            found,
            supported: keys::FORMAT_VERSION,
        };
        match self.db.get(keys::FORMAT_KEY) {
            Some(v) => {
                let found = String::from_utf8_lossy(&v).into_owned();
                if found.parse::<u32>().ok() != Some(keys::FORMAT_VERSION) {
                    return Err(format_error(found));
                }
            }
            None => {
                let mut it = self.db.new_iter().map_err(storage("iterate"))?;
                if it.advance() {
                    return Err(format_error("none (not an artoo memory store)".into()));
                }
                self.db
                    .put(
                        keys::FORMAT_KEY,
                        keys::FORMAT_VERSION.to_string().as_bytes(),
                    )
                    .map_err(storage("write format version"))?;
            }
        }
        Ok(())
    }

    /// Writes any missing law entry. Existing T entries are never touched.
    fn seed_laws(&mut self) -> Result<(), MemoryError> {
        let mut batch = WriteBatch::default();
        let mut added = 0;
        for law in mg::law_megrams(self.clock.now()) {
            match self.load(law.id)? {
                None => {
                    put_new(&mut batch, &law)?;
                    added += 1;
                }
                Some(stored) if stored.content != law.content => tracing::warn!(
                    id = %law.id,
                    "stored law text differs from this build's; the stored T entry is kept"
                ),
                Some(_) => {}
            }
        }
        if added > 0 {
            self.db
                .write(batch, false)
                .map_err(storage("seed the T layer"))?;
        }
        Ok(())
    }

    fn load_t_ids(&mut self) -> Result<(), MemoryError> {
        let mut ids = HashSet::new();
        scan_prefix(&mut self.db, &keys::level_prefix(Level::T), |k, _| {
            ids.insert(keys::id_suffix(k).ok_or_else(|| corrupt(k, "bad id"))?);
            Ok(())
        })?;
        self.t_ids = ids;
        Ok(())
    }

    /// Hands the log to the OS and fsyncs it and the directory.
    fn sync(&mut self) -> Result<(), MemoryError> {
        self.sync_log.set(true);
        let result = self.db.flush();
        self.sync_log.set(false);
        result.map_err(storage("flush"))?;
        // A new log or table is only durable once its directory entry is.
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn run(mut self, rx: mpsc::Receiver<Command>) {
        while let Ok(first) = rx.recv() {
            let mut next = Some(first);
            while let Some(cmd) = next.take() {
                if self.handle(cmd) == Flow::Stop {
                    return;
                }
                next = rx.try_recv().ok();
            }
            // The queue is empty: commit what it held as one batch.
            self.commit_pending();
        }
        // Every handle is gone without a close: still drain and release the lock.
        if let Err(e) = self.shutdown() {
            tracing::error!(error = %e, "memory store did not close cleanly");
        }
    }

    fn shutdown(&mut self) -> Result<(), MemoryError> {
        self.commit_pending();
        self.sync()?;
        self.db.close().map_err(storage("close"))?;
        self.report_write_failures()
    }

    fn report_write_failures(&mut self) -> Result<(), MemoryError> {
        if self.write_failures.is_empty() {
            return Ok(());
        }
        let failures = std::mem::take(&mut self.write_failures);
        Err(MemoryError::Storage(format!(
            "{} write batch(es) failed since the last flush; first: {}",
            failures.len(),
            failures[0]
        )))
    }

    fn handle(&mut self, cmd: Command) -> Flow {
        let cmd = match cmd {
            Command::Write(m) => {
                self.pending.push(*m);
                if self.pending.len() >= MAX_BATCH {
                    self.commit_pending();
                }
                return Flow::Continue;
            }
            Command::Close { reply } => {
                let _ = reply.send(self.shutdown());
                return Flow::Stop;
            }
            other => other,
        };
        // Reads and changes see every write queued before them.
        self.commit_pending();
        match cmd {
            Command::Recall {
                space,
                entity,
                reply,
            } => {
                let recent = self.params.max_constraints;
                let _ = reply.send(self.recall(&space, &entity, recent));
            }
            Command::QueryC {
                space,
                entity,
                reply,
            } => {
                let _ = reply.send(self.recall(&space, &entity, 0).map(|r| r.sops));
            }
            Command::QueryMk {
                space,
                entity,
                reply,
            } => {
                let _ = reply.send(self.query_mk(&space, &entity));
            }
            Command::NegativeFeedback {
                rule,
                content,
                reply,
            } => {
                let _ = reply.send(self.negative_feedback(rule, &content));
            }
            Command::Get { ids, reply } => {
                let _ = reply.send(self.get_many(&ids));
            }
            Command::Insert { megram, reply } => {
                let _ = reply.send(self.insert(*megram));
            }
            Command::Groups { reply } => {
                let _ = reply.send(self.groups());
            }
            Command::Group {
                space,
                entity,
                reply,
            } => {
                let _ = reply.send(self.group(&space, &entity));
            }
            Command::Forget { target, reply } => {
                let _ = reply.send(self.forget(target));
            }
            Command::Pin { id, reply } => {
                let _ = reply.send(self.pin(id));
            }
            Command::DreamStep {
                cursor,
                budget,
                reply,
            } => {
                let _ = reply.send(self.dream_step(cursor, budget));
            }
            Command::Consolidate {
                space,
                entity,
                rule,
                sources,
                reply,
            } => {
                let _ = reply.send(self.consolidate(&space, &entity, *rule, &sources));
            }
            Command::Flush { reply } => {
                let result = self.sync().and_then(|()| self.report_write_failures());
                let _ = reply.send(result);
            }
            Command::Write(_) | Command::Close { .. } => {
                // Taken care of above; the compiler cannot see it through the rebinding.
            }
        }
        Flow::Continue
    }

    /// [`Self::commit_appends`] for a batch that may rewrite or delete existing records:
    /// the decoded records cached for recalls are dropped with it.
    fn commit(&mut self, batch: WriteBatch) -> Result<(), MemoryError> {
        self.records.clear();
        self.commit_appends(batch)
    }

    /// Applies a batch and hands it to the OS, so a killed process keeps it. Only for a
    /// batch that writes no existing `m|` key (new records, recall stamps): the decoded
    /// records cached for recalls stay as they are.
    fn commit_appends(&mut self, batch: WriteBatch) -> Result<(), MemoryError> {
        let result = self
            .db
            .write(batch, false)
            .and_then(|()| self.db.flush())
            .map_err(storage("write"));
        if result.is_err() {
            // What LevelDB kept of the batch is unknown: nothing cached can be trusted.
            self.cache.clear();
            self.records.clear();
        }
        result
    }

    fn commit_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let megrams = std::mem::take(&mut self.pending);
        let mut batch = WriteBatch::default();
        let mut written = Vec::with_capacity(megrams.len());
        for m in &megrams {
            if let Err(e) = self.admit(m) {
                tracing::warn!(id = %m.id, error = %e, "memory write refused");
                continue;
            }
            match put_new(&mut batch, m) {
                Ok(()) => written.push(m),
                Err(e) => tracing::warn!(id = %m.id, error = %e, "memory write refused"),
            }
        }
        match self.commit_appends(batch) {
            Ok(()) => {
                for m in written {
                    self.note_space(&m.space);
                    if !self.cache.is_empty() {
                        let prefix = keys::group_prefix(&m.space, &m.entity);
                        self.cache.append(&prefix, m.id, IndexEntry::of(m));
                    }
                }
            }
            Err(e) => {
                tracing::error!(error = %e, lost = megrams.len(), "memory write batch failed");
                self.write_failures.push(e.to_string());
            }
        }
    }

    /// Whether a fire-and-forget write may be appended: valid, not T, and not an id
    /// written recently (a replayed delivery must not move or reset an entry).
    ///
    /// Older ids are not looked up: ids are minted by the runtime (random v4 UUIDs),
    /// and a LevelDB read per write would halve the write path (measured: the lookup
    /// was 40 % of the store thread's time on a 1 M-entry store).
    fn admit(&mut self, m: &Megram) -> Result<(), MemoryError> {
        mg::validate(m)?;
        if m.level == Level::T || self.t_ids.contains(&m.id) {
            return Err(MemoryError::Immutable(m.id));
        }
        if !self.recent_ids.insert(m.id) {
            return Err(already_stored(m.id));
        }
        Ok(())
    }

    fn now_ms(&self) -> i64 {
        keys::to_ms(self.clock.now())
    }

    /// The record under `m|<id>` with its effective last recall (`r|` wins if later).
    fn load(&mut self, id: MegramId) -> Result<Option<Megram>, MemoryError> {
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
    fn load_indexed(&mut self, id: MegramId, entry: &IndexEntry) -> Result<Megram, MemoryError> {
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
    fn scan_group(&mut self, prefix: &[u8]) -> Result<Vec<(MegramId, IndexEntry)>, MemoryError> {
        if let Some(entries) = self.cache.get(prefix) {
            return Ok(entries);
        }
        let entries = self.scan_group_uncached(prefix)?;
        self.cache.insert(prefix, entries.clone());
        Ok(entries)
    }

    fn scan_group_uncached(
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

    fn accumulate(entries: &[(MegramId, IndexEntry)], now_ms: i64) -> Accumulator {
        let mut acc = Accumulator::default();
        for (_, e) in entries.iter().filter(|(_, e)| !e.consolidated) {
            acc.add(live(e, now_ms));
        }
        acc
    }

    fn query_mk(&mut self, space: &str, entity: &str) -> Result<Potentials, MemoryError> {
        let entries: Vec<(MegramId, IndexEntry)> = self
            .read_group(space, entity)?
            .into_iter()
            .map(|(_, id, e)| (id, e))
            .collect();
        Ok(Self::accumulate(&entries, self.now_ms()).potentials(&self.params))
    }

    /// The entries of a group and of the older builds' groups that name the same kind of
    /// task, each with the space it is stored under.
    fn read_group(
        &mut self,
        space: &str,
        entity: &str,
    ) -> Result<Vec<(String, MegramId, IndexEntry)>, MemoryError> {
        let mut spaces = vec![space.to_string()];
        spaces.extend(self.aliases_of(space)?);
        let mut out = Vec::new();
        for s in spaces {
            for (id, entry) in self.scan_group(&keys::group_prefix(&s, entity))? {
                out.push((s.clone(), id, entry));
            }
        }
        Ok(out)
    }

    /// Older builds' spaces that name the kind `space` names (empty for other spaces).
    fn aliases_of(&mut self, space: &str) -> Result<Vec<String>, MemoryError> {
        if !space.starts_with(tags::INTENT_PREFIX) {
            return Ok(Vec::new());
        }
        if self.aliases.is_none() {
            self.aliases = Some(self.scan_aliases()?);
        }
        Ok(self
            .aliases
            .as_ref()
            .and_then(|a| a.get(space))
            .cloned()
            .unwrap_or_default())
    }

    /// Every stored `intent:` space that is not the space of the kind it names, by that
    /// kind's space: one seek per group, never a scan of a group's entries.
    fn scan_aliases(&mut self) -> Result<HashMap<String, Vec<String>>, MemoryError> {
        let mut start = keys::INDEX_PREFIX.to_vec();
        keys::encode_component(tags::INTENT_PREFIX, &mut start);
        let mut aliases: HashMap<String, Vec<String>> = HashMap::new();
        let mut it = self.db.new_iter().map_err(storage("iterate"))?;
        it.seek(&start);
        while it.valid() {
            let Some((k, _)) = it.current() else { break };
            if !k.starts_with(&start) {
                break;
            }
            let (prefix, _) = keys::split_index_key(&k).ok_or_else(|| corrupt(&k, "bad key"))?;
            let (space, _) = keys::decode_group_prefix(prefix)
                .ok_or_else(|| corrupt(prefix, "undecodable group"))?;
            if let Some(canonical) = tags::canonical_intent_space(&space)
                && canonical != space
            {
                let list = aliases.entry(canonical).or_default();
                if !list.contains(&space) {
                    list.push(space);
                }
            }
            it.seek(&keys::prefix_successor(prefix));
        }
        Ok(aliases)
    }

    /// Keeps the alias table current after a write to `space`.
    fn note_space(&mut self, space: &str) {
        let Some(aliases) = self.aliases.as_mut() else {
            return;
        };
        if let Some(canonical) = tags::canonical_intent_space(space)
            && canonical != space
        {
            let list = aliases.entry(canonical).or_default();
            if !list.iter().any(|s| s == space) {
                list.push(space.to_string());
            }
        }
    }

    /// query_c + query_mk + the `recent_limit` newest unconsolidated M/K entries, in one
    /// pass over the group. Every C hit gets its recall stamped now.
    fn recall(
        &mut self,
        space: &str,
        entity: &str,
        recent_limit: usize,
    ) -> Result<Recall, MemoryError> {
        let grouped = self.read_group(space, entity)?;
        let entries: Vec<(MegramId, IndexEntry)> =
            grouped.iter().map(|(_, id, e)| (*id, *e)).collect();
        let now = self.clock.now();
        let now_ms = keys::to_ms(now);
        let potentials = Self::accumulate(&entries, now_ms).potentials(&self.params);

        let mut rules: Vec<&(String, MegramId, IndexEntry)> = grouped
            .iter()
            .filter(|(_, _, e)| e.level == Level::C)
            .collect();
        rules.sort_by_key(|(_, id, e)| (std::cmp::Reverse(e.created_ms), *id));
        let mut sops = Vec::with_capacity(rules.len());
        let mut batch = WriteBatch::default();
        let mut stamps = Vec::with_capacity(rules.len());
        for (stored_in, id, entry) in rules {
            let m = self.load_indexed(*id, entry)?;
            sops.push(SOPRecord {
                id: m.id,
                space: m.space.clone(),
                entity: m.entity.clone(),
                content: m.content.clone(),
                sigma: m.sigma,
            });
            batch.put(&keys::recall_key(*id), rfc3339(now).as_bytes());
            let stamped = IndexEntry {
                recalled_ms: Some(now_ms),
                ..*entry
            };
            batch.put(&keys::index_key(stored_in, entity, *id), &stamped.encode());
            stamps.push((keys::group_prefix(stored_in, entity), *id, stamped));
        }
        if !sops.is_empty() {
            self.commit_appends(batch)?;
            for (prefix, id, stamped) in stamps {
                self.cache.update(&prefix, id, stamped);
            }
        }

        let mut episodic: Vec<&(MegramId, IndexEntry)> = entries
            .iter()
            .filter(|(_, e)| is_episodic(e.level) && !e.consolidated)
            .collect();
        episodic.sort_by_key(|(id, e)| (std::cmp::Reverse(e.created_ms), *id));
        let mut recent = Vec::new();
        for (id, entry) in episodic.into_iter().take(recent_limit) {
            recent.push(self.load_indexed(*id, entry)?);
        }
        Ok(Recall {
            sops,
            potentials,
            recent,
        })
    }

    fn negative_feedback(&mut self, rule: MegramId, content: &str) -> Result<Megram, MemoryError> {
        let rule = self.load(rule)?.ok_or(MemoryError::NotFound(rule))?;
        let m = mg::negative_feedback(&rule, content, self.clock.now());
        self.insert(m)
    }

    fn get_many(&mut self, ids: &[MegramId]) -> Result<Vec<Megram>, MemoryError> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(m) = self.load(*id)? {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// A synchronous append (operator remember, negative feedback). T is allowed here
    /// only as a new entry; it can never replace an existing one.
    fn insert(&mut self, m: Megram) -> Result<Megram, MemoryError> {
        mg::validate(&m)?;
        if self.t_ids.contains(&m.id) {
            return Err(MemoryError::Immutable(m.id));
        }
        if self.recent_ids.contains(&m.id) || self.db.get(&keys::megram_key(m.id)).is_some() {
            return Err(already_stored(m.id));
        }
        let mut batch = WriteBatch::default();
        put_new(&mut batch, &m)?;
        self.commit(batch)?;
        self.cache.append(
            &keys::group_prefix(&m.space, &m.entity),
            m.id,
            IndexEntry::of(&m),
        );
        self.recent_ids.insert(m.id);
        if m.level == Level::T {
            self.t_ids.insert(m.id);
        }
        self.note_space(&m.space);
        Ok(m)
    }

    fn groups(&mut self) -> Result<Vec<GroupSummary>, MemoryError> {
        let now_ms = self.now_ms();
        let params = self.params.clone();
        let mut out = Vec::new();
        let mut current: Option<(Vec<u8>, GroupTally)> = None;
        let finish = |prefix: Vec<u8>, tally: GroupTally, out: &mut Vec<GroupSummary>| {
            let (space, entity) = keys::decode_group_prefix(&prefix)
                .ok_or_else(|| corrupt(&prefix, "undecodable group"))?;
            out.push(GroupSummary {
                space,
                entity,
                potentials: tally.acc.potentials(&params),
                levels: tally.levels,
                consolidated: tally.consolidated,
                newest: keys::from_ms(tally.newest_ms.unwrap_or_default()),
            });
            Ok::<_, MemoryError>(())
        };
        scan_prefix(&mut self.db, keys::INDEX_PREFIX, |k, v| {
            let (prefix, _) = keys::split_index_key(k).ok_or_else(|| corrupt(k, "bad key"))?;
            let entry = decode_entry(k, v)?;
            if current.as_ref().is_none_or(|(p, _)| p.as_slice() != prefix) {
                if let Some((p, tally)) = current.take() {
                    finish(p, tally, &mut out)?;
                }
                current = Some((prefix.to_vec(), GroupTally::default()));
            }
            let (_, tally) = current.as_mut().expect("set just above");
            tally.add(&entry, now_ms);
            Ok(())
        })?;
        if let Some((p, tally)) = current {
            finish(p, tally, &mut out)?;
        }
        out.sort_by(|a, b| {
            b.potentials
                .attention
                .total_cmp(&a.potentials.attention)
                .then_with(|| (&a.space, &a.entity).cmp(&(&b.space, &b.entity)))
        });
        Ok(out)
    }

    fn group(&mut self, space: &str, entity: &str) -> Result<Vec<MegramView>, MemoryError> {
        let entries = self.scan_group(&keys::group_prefix(space, entity))?;
        let now_ms = self.now_ms();
        let mut views = Vec::with_capacity(entries.len());
        for (id, entry) in &entries {
            let megram = self.load_indexed(*id, entry)?;
            let consolidated_into = if entry.consolidated {
                let key = keys::consolidated_key(*id);
                let raw = self
                    .db
                    .get(&key)
                    .ok_or_else(|| corrupt(&key, "flagged consolidated without a marker"))?;
                let text = String::from_utf8_lossy(&raw);
                Some(MegramId::from(
                    uuid::Uuid::parse_str(&text).map_err(|e| corrupt(&key, e.to_string()))?,
                ))
            } else {
                None
            };
            let c = if entry.consolidated {
                potentials::Contribution::default()
            } else {
                live(entry, now_ms)
            };
            views.push(MegramView {
                megram,
                consolidated_into,
                counted: !entry.consolidated,
                attention: c.attention,
                decision: c.decision,
            });
        }
        views.sort_by_key(|v| std::cmp::Reverse(v.megram.created_at));
        Ok(views)
    }

    fn forget(&mut self, target: ForgetTarget) -> Result<ForgetReport, MemoryError> {
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

    fn pin(&mut self, id: MegramId) -> Result<Megram, MemoryError> {
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
    fn rewrite_level_and_k(&mut self, m: &Megram) -> Result<(), MemoryError> {
        let mut batch = WriteBatch::default();
        self.stage_level_and_k(&mut batch, m)?;
        self.commit(batch)
    }

    fn stage_level_and_k(&mut self, batch: &mut WriteBatch, m: &Megram) -> Result<(), MemoryError> {
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

    /// One bounded slice of a Dreamer pass: whole groups from `cursor` until `budget`
    /// entries were seen. GC and trust bankruptcy are applied in one batch; groups that
    /// qualify for consolidation are returned to the caller, which owns the LLM.
    fn dream_step(
        &mut self,
        cursor: Option<Vec<u8>>,
        budget: usize,
    ) -> Result<StepResult, MemoryError> {
        let now_ms = self.now_ms();
        let mut it: DBIterator = self.db.new_iter().map_err(storage("iterate"))?;
        it.seek(cursor.as_deref().unwrap_or(keys::INDEX_PREFIX));
        let mut result = StepResult::default();
        let mut batch = WriteBatch::default();
        let mut group: Option<GroupScan> = None;
        let mut seen = 0usize;
        loop {
            let item = if it.valid() { it.current() } else { None };
            let item = item.filter(|(k, _)| k.starts_with(keys::INDEX_PREFIX));
            let boundary = match (&item, &group) {
                (None, _) => true,
                (Some((k, _)), Some(g)) => !k.starts_with(&g.prefix),
                (Some(_), None) => false,
            };
            if boundary {
                if let Some(g) = group.take() {
                    let prefix = g.prefix.clone();
                    self.dream_group(g, now_ms, &mut batch, &mut result)?;
                    if seen >= budget && item.is_some() {
                        result.next = Some(keys::prefix_successor(&prefix));
                        break;
                    }
                }
                if item.is_none() {
                    break;
                }
            }
            let (k, v) = item.expect("checked above");
            let (prefix, id) = keys::split_index_key(&k).ok_or_else(|| corrupt(&k, "bad key"))?;
            let entry = decode_entry(&k, &v)?;
            group
                .get_or_insert_with(|| GroupScan {
                    prefix: prefix.to_vec(),
                    entries: Vec::new(),
                })
                .entries
                .push((id, entry));
            seen += 1;
            result.scanned += 1;
            // Past the last key the iterator turns invalid and the next turn closes the
            // group.
            it.advance();
        }
        drop(it);
        self.commit(batch)?;
        Ok(result)
    }

    fn dream_group(
        &mut self,
        g: GroupScan,
        now_ms: i64,
        batch: &mut WriteBatch,
        result: &mut StepResult,
    ) -> Result<(), MemoryError> {
        let (space, entity) = keys::decode_group_prefix(&g.prefix)
            .ok_or_else(|| corrupt(&g.prefix, "undecodable group"))?;
        result.groups += 1;
        let group_decision = Self::accumulate(&g.entries, now_ms).decision;

        let mut sources: Vec<(MegramId, i64)> = Vec::new();
        let mut pool = Accumulator::default();
        for (id, entry) in &g.entries {
            if !is_episodic(entry.level) {
                continue;
            }
            let c = live(entry, now_ms);
            if c.attention < self.params.gc_below {
                self.cache.invalidate(&g.prefix);
                delete_keys(batch, &space, &entity, *id, entry);
                result.gc_deleted += 1;
            } else if !entry.consolidated {
                pool.add(c);
                sources.push((*id, entry.created_ms));
            }
        }

        // Trust bankruptcy is for a rule that reality contradicts: the group's live
        // decision has the opposite sign of the rule's valence (a Best Practice in a
        // group that now fails, a Constraint in a group that now succeeds). A Constraint
        // in a failing group agrees with the evidence and keeps its authority.
        for (id, entry) in g
            .entries
            .iter()
            .filter(|(_, e)| e.level == Level::C && contradicted(e.sigma, group_decision))
        {
            let mut m = self.load_indexed(*id, entry)?;
            m.level = Level::K;
            m.k = BANKRUPT_K;
            self.stage_level_and_k(batch, &m)?;
            result.bankrupt.push(*id);
        }

        if pool.attention >= self.params.consolidate_attention
            && pool.decision.abs() >= self.params.consolidate_decision
        {
            sources.sort_by_key(|(id, created)| (std::cmp::Reverse(*created), *id));
            result.candidates.push(Candidate {
                space,
                entity,
                kind: if pool.decision > 0.0 {
                    Distillation::BestPractice
                } else {
                    Distillation::Constraint
                },
                attention: pool.attention,
                decision: pool.decision,
                sources: sources.into_iter().map(|(id, _)| id).collect(),
            });
        }
        Ok(())
    }

    /// Writes a distilled C entry and marks its sources, in one batch. Sources that were
    /// forgotten, collected or already consolidated since the scan are skipped; if none
    /// is left the rule is not written (it would be promoted from nothing).
    fn consolidate(
        &mut self,
        space: &str,
        entity: &str,
        rule: Megram,
        sources: &[MegramId],
    ) -> Result<usize, MemoryError> {
        mg::validate(&rule)?;
        if rule.level != Level::C || rule.space != space || rule.entity != entity {
            return Err(MemoryError::Invalid(format!(
                "a consolidation writes a C entry into its own group ({space} / {entity})"
            )));
        }
        // One scan of the group instead of a read per source: point reads on a large
        // store trigger LevelDB seek compactions on this thread.
        let prefix = keys::group_prefix(space, entity);
        let current: HashMap<MegramId, IndexEntry> =
            self.scan_group(&prefix)?.into_iter().collect();
        self.cache.invalidate(&prefix);
        let mut batch = WriteBatch::default();
        let mut marked = 0;
        for id in sources {
            let Some(entry) = current.get(id).copied() else {
                continue;
            };
            if entry.consolidated || !is_episodic(entry.level) {
                continue;
            }
            let key = keys::index_key(space, entity, *id);
            batch.put(&keys::consolidated_key(*id), rule.id.to_string().as_bytes());
            let marked_entry = IndexEntry {
                consolidated: true,
                ..entry
            };
            batch.put(&key, &marked_entry.encode());
            marked += 1;
        }
        if marked == 0 {
            return Ok(0);
        }
        if self.recent_ids.contains(&rule.id) || self.db.get(&keys::megram_key(rule.id)).is_some() {
            return Err(already_stored(rule.id));
        }
        self.recent_ids.insert(rule.id);
        put_new(&mut batch, &rule)?;
        self.commit(batch)?;
        Ok(marked)
    }
}

/// An entry's live contribution now.
fn live(entry: &IndexEntry, now_ms: i64) -> potentials::Contribution {
    potentials::contribution(
        entry.f,
        entry.sigma,
        entry.k,
        potentials::days_since(entry.reference_ms(), now_ms),
    )
}

#[derive(Default)]
struct GroupTally {
    acc: Accumulator,
    levels: LevelCounts,
    consolidated: usize,
    newest_ms: Option<i64>,
}

impl GroupTally {
    fn add(&mut self, e: &IndexEntry, now_ms: i64) {
        match e.level {
            Level::M => self.levels.m += 1,
            Level::K => self.levels.k += 1,
            Level::C => self.levels.c += 1,
            Level::T => self.levels.t += 1,
        }
        if e.consolidated {
            self.consolidated += 1;
        } else {
            self.acc.add(live(e, now_ms));
        }
        self.newest_ms = Some(self.newest_ms.map_or(e.created_ms, |n| n.max(e.created_ms)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, FakeClock};
    use chrono::Duration;

    fn open(dir: &Path, clock: &Arc<FakeClock>) -> Store {
        Store::open(dir, clock.clone(), MemoryParams::default()).expect("store opens")
    }

    fn megram(
        clock: &Arc<FakeClock>,
        space: &str,
        entity: &str,
        f: f64,
        sigma: f64,
        k: f64,
    ) -> Megram {
        Megram {
            id: MegramId::mint(),
            level: Level::M,
            created_at: clock.now(),
            last_recalled_at: None,
            space: space.into(),
            entity: entity.into(),
            content: format!("{space} / {entity}"),
            state: "accept".into(),
            f,
            sigma,
            k,
        }
    }

    /// Every key of the store, as (prefix char, whole key).
    fn all_keys(store: &mut Store) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        scan_prefix(&mut store.db, b"", |k, _| {
            out.push(k.to_vec());
            Ok(())
        })
        .unwrap();
        out
    }

    fn keys_mentioning(store: &mut Store, id: MegramId) -> Vec<String> {
        let needle = id.to_string();
        all_keys(store)
            .into_iter()
            .map(|k| String::from_utf8_lossy(&k).into_owned())
            .filter(|k| k.contains(&needle))
            .collect()
    }

    fn write_now(store: &mut Store, m: &Megram) {
        store.pending.push(m.clone());
        store.commit_pending();
        assert!(store.write_failures.is_empty());
    }

    #[test]
    fn a_new_store_has_the_format_key_and_the_four_laws() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        assert_eq!(store.db.get(keys::FORMAT_KEY).as_deref(), Some(&b"1"[..]));
        assert_eq!(store.t_ids.len(), 4);
        let law = store.load(mg::law_id(1)).unwrap().unwrap();
        assert_eq!(law.level, Level::T);
        assert_eq!(
            keys_mentioning(&mut store, law.id),
            vec![
                format!("l|T|{}", law.id),
                format!("m|{}", law.id),
                format!("x|laws|law:1|{}", law.id),
            ]
        );
    }

    #[test]
    fn a_persona_entry_an_older_build_stored_can_be_forgotten_but_no_law() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        // What `/remember T` used to store.
        let persona = store
            .insert(mg::remembered(
                Level::T,
                "global:user",
                "env:local",
                "Answr in Englsh.",
                1.0,
                clock.now(),
            ))
            .unwrap();
        let report = store.forget(ForgetTarget::Id(persona.id)).unwrap();
        assert_eq!(report.forgotten, vec![persona.id]);
        assert!(keys_mentioning(&mut store, persona.id).is_empty());
        assert!(!store.t_ids.contains(&persona.id));
        assert!(matches!(
            store.forget(ForgetTarget::Id(mg::law_id(0))),
            Err(MemoryError::Immutable(_))
        ));
        let report = store
            .forget(ForgetTarget::Group {
                space: mg::LAW_SPACE.into(),
                entity: "law:2".into(),
            })
            .unwrap();
        assert_eq!(report.kept_immutable, vec![mg::law_id(2)]);
        assert!(store.load(mg::law_id(2)).unwrap().is_some());
    }

    #[test]
    fn a_write_lays_down_record_index_and_level_keys_under_encoded_tags() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        let m = megram(&clock, "tool:sh|ell", "path:/tmp/100%", 0.9, 1.0, 0.05);
        write_now(&mut store, &m);
        assert_eq!(
            keys_mentioning(&mut store, m.id),
            vec![
                format!("l|M|{}", m.id),
                format!("m|{}", m.id),
                format!("x|tool:sh%7Cell|path:/tmp/100%25|{}", m.id),
            ]
        );
    }

    #[test]
    fn gc_hard_deletes_every_key_of_a_faded_entry() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        let faded = megram(&clock, "intent:a", "env:local", 0.1, 0.5, 0.5);
        let kept = megram(&clock, "intent:a", "env:local", 0.9, 1.0, 0.05);
        write_now(&mut store, &faded);
        write_now(&mut store, &kept);
        clock.advance(Duration::days(1));
        let step = store.dream_step(None, STEP_BUDGET_FOR_TESTS).unwrap();
        assert_eq!(step.gc_deleted, 1);
        assert_eq!(step.next, None);
        assert!(keys_mentioning(&mut store, faded.id).is_empty());
        assert_eq!(keys_mentioning(&mut store, kept.id).len(), 3);
    }

    const STEP_BUDGET_FOR_TESTS: usize = 1_000;

    #[test]
    fn a_step_never_splits_a_group_and_resumes_at_the_next_one() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        for g in 0..5 {
            for _ in 0..3 {
                write_now(
                    &mut store,
                    &megram(&clock, &format!("intent:{g}"), "env:local", 0.9, 1.0, 0.05),
                );
            }
        }
        let mut cursor = None;
        let mut steps = Vec::new();
        loop {
            let step = store.dream_step(cursor.take(), 2).unwrap();
            steps.push((step.groups, step.scanned));
            match step.next {
                Some(n) => cursor = Some(n),
                None => break,
            }
        }
        // Five groups of 3 sort before the four law groups of 1; a step closes at the
        // first group boundary at or past its budget of 2.
        assert_eq!(
            steps,
            vec![(1, 3), (1, 3), (1, 3), (1, 3), (1, 3), (2, 2), (2, 2)]
        );
    }

    #[test]
    fn consolidation_marks_sources_without_rewriting_their_records() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        let sources: Vec<Megram> = (0..6)
            .map(|_| megram(&clock, "intent:r", "env:local", 0.9, 1.0, 0.05))
            .collect();
        for m in &sources {
            write_now(&mut store, m);
        }
        let before: Vec<_> = sources
            .iter()
            .map(|m| store.db.get(&keys::megram_key(m.id)).unwrap())
            .collect();
        let step = store.dream_step(None, STEP_BUDGET_FOR_TESTS).unwrap();
        assert_eq!(step.candidates.len(), 1);
        let candidate = &step.candidates[0];
        assert_eq!(candidate.kind, Distillation::BestPractice);
        let rule = Megram {
            level: Level::C,
            k: 0.0,
            f: 1.0,
            state: mg::STATE_BEST_PRACTICE.into(),
            content: "Use the template.".into(),
            ..megram(&clock, "intent:r", "env:local", 1.0, 1.0, 0.0)
        };
        let marked = store
            .consolidate("intent:r", "env:local", rule.clone(), &candidate.sources)
            .unwrap();
        assert_eq!(marked, 6);
        for (m, bytes) in sources.iter().zip(&before) {
            assert_eq!(&store.db.get(&keys::megram_key(m.id)).unwrap(), bytes);
            assert_eq!(
                store.db.get(&keys::consolidated_key(m.id)).as_deref(),
                Some(rule.id.to_string().as_bytes())
            );
        }
        // Marked sources are not offered again, and a replay marks nothing.
        let again = store.dream_step(None, STEP_BUDGET_FOR_TESTS).unwrap();
        assert!(again.candidates.is_empty());
        let second_rule = Megram {
            id: MegramId::mint(),
            ..rule
        };
        assert_eq!(
            store
                .consolidate(
                    "intent:r",
                    "env:local",
                    second_rule.clone(),
                    &candidate.sources
                )
                .unwrap(),
            0
        );
        assert!(store.load(second_rule.id).unwrap().is_none());
    }

    #[test]
    fn bankruptcy_moves_the_level_key_and_keeps_content_and_recall() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        let rule = store
            .insert(mg::remembered(
                Level::C,
                "intent:b",
                "env:local",
                "Prefer X.",
                1.0,
                clock.now(),
            ))
            .unwrap();
        clock.advance(Duration::days(1));
        let recalled = store.recall("intent:b", "env:local", 10).unwrap();
        assert_eq!(recalled.sops.len(), 1);
        store.negative_feedback(rule.id, "X failed").unwrap();
        store.negative_feedback(rule.id, "X failed again").unwrap();
        let step = store.dream_step(None, STEP_BUDGET_FOR_TESTS).unwrap();
        assert_eq!(step.bankrupt, vec![rule.id]);
        let demoted = store.load(rule.id).unwrap().unwrap();
        assert_eq!((demoted.level, demoted.k), (Level::K, BANKRUPT_K));
        assert_eq!(demoted.content, "Prefer X.");
        assert_eq!(demoted.created_at, rule.created_at);
        assert_eq!(demoted.last_recalled_at, Some(clock.now()));
        let keys = keys_mentioning(&mut store, rule.id);
        assert!(keys.contains(&format!("l|K|{}", rule.id)), "{keys:?}");
        assert!(!keys.contains(&format!("l|C|{}", rule.id)), "{keys:?}");
        assert!(keys.contains(&format!("r|{}", rule.id)), "{keys:?}");
    }

    #[test]
    fn recalls_reuse_decoded_records_until_a_commit_rewrites_one() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        let m = megram(&clock, "intent:c", "env:local", 1.0, 0.5, 0.2);
        write_now(&mut store, &m);
        let first = store.recall("intent:c", "env:local", 10).unwrap();
        assert_eq!(first.recent.len(), 1);
        assert_eq!(
            store.records.len(),
            1,
            "the recalled record is kept decoded"
        );
        // A newer write to the group is an append: the decoded record stays.
        let newer = megram(&clock, "intent:c", "env:local", 1.0, 0.5, 0.2);
        write_now(&mut store, &newer);
        assert_eq!(store.records.len(), 1);
        let second = store.recall("intent:c", "env:local", 10).unwrap();
        assert_eq!(second.recent.len(), 2);
        assert!(second.recent.iter().any(|r| r == &first.recent[0]));
        // Pinning rewrites the record (k = 0): the next recall reads it as it is now.
        store.pin(m.id).unwrap();
        assert_eq!(store.records.len(), 0);
        let third = store.recall("intent:c", "env:local", 10).unwrap();
        let pinned = third.recent.iter().find(|r| r.id == m.id).unwrap();
        assert_eq!(pinned.k, 0.0);
        assert_eq!(pinned, &store.load(m.id).unwrap().unwrap());
    }

    #[test]
    fn a_replayed_id_is_refused_so_no_entry_moves_between_groups() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        let first = megram(&clock, "intent:a", "env:local", 0.9, 1.0, 0.05);
        write_now(&mut store, &first);
        let replay = Megram {
            space: "intent:b".into(),
            ..first.clone()
        };
        write_now(&mut store, &replay);
        assert_eq!(store.load(first.id).unwrap().unwrap().space, "intent:a");
        assert!(
            store
                .scan_group(&keys::group_prefix("intent:b", "env:local"))
                .unwrap()
                .is_empty()
        );
    }

    /// Sorted, for comparing a cached group with LevelDB.
    fn sorted(mut entries: Vec<(MegramId, IndexEntry)>) -> Vec<(MegramId, IndexEntry)> {
        entries.sort_by_key(|(id, _)| *id);
        entries
    }

    #[test]
    fn the_group_cache_matches_leveldb_after_every_kind_of_change() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let mut store = open(dir.path(), &clock);
        let spaces = ["intent:a", "intent:b|x", "意图:c"];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut rules: Vec<MegramId> = Vec::new();
        for round in 0..400 {
            let space = spaces[next(3) as usize];
            match next(9) {
                0..=2 => {
                    let (f, sigma, k) =
                        [(0.9, 1.0, 0.05), (0.95, -1.0, 0.05), (0.1, 0.5, 0.5)][next(3) as usize];
                    write_now(&mut store, &megram(&clock, space, "env:local", f, sigma, k));
                }
                3 => {
                    let content = format!("rule {round}");
                    let rule =
                        mg::remembered(Level::C, space, "env:local", &content, 1.0, clock.now());
                    rules.push(store.insert(rule).unwrap().id);
                }
                4 => {
                    store.recall(space, "env:local", 10).unwrap();
                }
                5 if !rules.is_empty() => {
                    let rule = rules[next(rules.len() as u64) as usize];
                    if store.load(rule).unwrap().is_some() {
                        store.negative_feedback(rule, "contradicted").unwrap();
                    }
                }
                6 => {
                    let step = store.dream_step(None, usize::MAX).unwrap();
                    if let Some(c) = step.candidates.first() {
                        let rule = mg::remembered(
                            Level::C,
                            &c.space,
                            &c.entity,
                            "distilled",
                            1.0,
                            clock.now(),
                        );
                        store
                            .consolidate(&c.space, &c.entity, rule, &c.sources)
                            .unwrap();
                    }
                }
                7 => {
                    let view = store.group(space, "env:local").unwrap();
                    if let Some(v) = view.iter().find(|v| v.megram.level != Level::T) {
                        if next(2) == 0 {
                            store.pin(v.megram.id).unwrap();
                        } else {
                            store.forget(ForgetTarget::Id(v.megram.id)).unwrap();
                        }
                    }
                }
                _ => clock.advance(Duration::hours(next(48) as i64)),
            }
            for space in spaces {
                let prefix = keys::group_prefix(space, "env:local");
                if let Some(cached) = store.cache.get(&prefix) {
                    assert_eq!(
                        sorted(cached),
                        sorted(store.scan_group_uncached(&prefix).unwrap()),
                        "round {round}, group {space}"
                    );
                }
            }
        }
        assert!(
            spaces
                .iter()
                .any(|s| store.cache.is_cached(&keys::group_prefix(s, "env:local")))
        );
    }

    #[test]
    fn logs_sync_on_request_while_tables_manifests_and_current_always_sync() {
        let policy =
            |name: &str| DurableEnv::policy(Path::new("/data/memory.leveldb").join(name).as_path());
        assert!(policy("000003.log") == SyncPolicy::WriteAheadLog);
        for name in [
            "000005.ldb",
            "000007.sst",
            "MANIFEST-000001",
            "000001.dbtmp",
            "CURRENT",
        ] {
            assert!(policy(name) == SyncPolicy::Always, "{name}");
        }
        for name in ["LOG", "LOG.old"] {
            assert!(policy(name) == SyncPolicy::Never, "{name}");
        }
    }

    #[test]
    fn the_replay_window_forgets_the_oldest_id_first() {
        let mut recent = RecentIds::default();
        let first = MegramId::mint();
        assert!(recent.insert(first));
        assert!(!recent.insert(first));
        for _ in 0..RECENT_IDS {
            recent.insert(MegramId::mint());
        }
        assert!(!recent.contains(&first));
        assert_eq!(recent.order.len(), RECENT_IDS);
        assert_eq!(recent.set.len(), RECENT_IDS);
    }

    #[test]
    fn a_store_with_another_format_version_is_refused_with_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        {
            let mut store = open(dir.path(), &clock);
            store.db.put(keys::FORMAT_KEY, b"2").unwrap();
            store.shutdown().unwrap();
        }
        let err = Store::open(dir.path(), clock.clone(), MemoryParams::default())
            .err()
            .expect("format 2 is refused");
        assert!(matches!(&err, MemoryError::Format { found, .. } if found == "2"));
        assert!(err.to_string().contains(&dir.path().display().to_string()));
    }

    #[test]
    fn a_leveldb_that_is_not_a_memory_store_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut db = DB::open(dir.path(), Options::default()).unwrap();
            db.put(b"foreign", b"data").unwrap();
            db.close().unwrap();
        }
        let err = Store::open(dir.path(), FakeClock::at_epoch(), MemoryParams::default())
            .err()
            .expect("a foreign database is refused");
        assert!(matches!(err, MemoryError::Format { .. }), "{err}");
    }

    #[test]
    fn a_second_opener_gets_a_lock_error_naming_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let _first = open(dir.path(), &clock);
        let err = Store::open(dir.path(), clock.clone(), MemoryParams::default())
            .err()
            .expect("the second open fails");
        assert!(matches!(&err, MemoryError::Locked { dir: d } if d == dir.path()));
        assert!(err.to_string().contains(&dir.path().display().to_string()));
    }
}
