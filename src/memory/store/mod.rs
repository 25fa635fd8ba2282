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
//! Layout: this file holds the handle, the command enum, the thread's loop and the
//! write path; [`durable_env`] the fsync policy; [`records`] record-level IO; [`queries`]
//! the reads; [`ops`] the synchronous changes; [`dream`] the IO of the Dreamer's steps.
//!
//! **Invariant:** every change is one atomic batch that keeps `m|`, `x|`, `l|`, `r|` and
//! `c|` consistent; a record's content, tags, f, σ and times are never rewritten (only
//! its level and k move, through trust bankruptcy and pin); T entries are never demoted
//! or overwritten, and the Four Laws are never deleted (an operator persona entry an
//! older build stored can be forgotten).

mod dream;
mod durable_env;
mod ops;
mod queries;
mod records;
#[cfg(test)]
mod tests;

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::mpsc;
use std::sync::{Arc, RwLock};

use rusty_leveldb::{DB, LdbIterator, Options, StatusCode, WriteBatch};
use tokio::sync::oneshot;

use super::cache::{GroupCache, RecordCache};
use super::error::MemoryError;
use super::keys::{self, IndexEntry};
use super::megram as mg;
use super::types::{ForgetReport, ForgetTarget, GroupSummary, MegramView, Recall, StepResult};
use crate::clock::SharedClock;
use crate::config::MemoryParams;
use crate::contracts::{Level, Megram, MegramId, Potentials, SOPRecord};
use crate::recent::Recent;
use durable_env::DurableEnv;
use records::{already_stored, corrupt, put_new, scan_prefix, storage};

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
        let guard = crate::sync::read(&self.tx);
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
            let mut guard = crate::sync::write(&self.tx);
            let Some(tx) = guard.take() else {
                return Ok(());
            };
            if tx.send(Command::Close { reply }).is_err() {
                return Err(MemoryError::Closed);
            }
        }
        rx.await.map_err(|_| MemoryError::Closed)?
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
    recent_ids: Recent<MegramId>,
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

/// Whether the store thread keeps serving after a command.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

impl Store {
    fn open(dir: &Path, clock: SharedClock, params: MemoryParams) -> Result<Store, MemoryError> {
        let sync_log = Rc::new(Cell::new(false));
        let options = Options {
            env: Rc::new(Box::new(DurableEnv::new(Rc::clone(&sync_log)))),
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
            recent_ids: Recent::new(RECENT_IDS),
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
        self.answer(cmd);
        Flow::Continue
    }

    /// Serves a read or a change and sends its reply (a caller that gave up is no error).
    fn answer(&mut self, cmd: Command) {
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
                // Taken care of by `handle`, which never passes them here.
            }
        }
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
        if !self.recent_ids.insert(m.id, |_| {}) {
            return Err(already_stored(m.id));
        }
        Ok(())
    }

    fn now_ms(&self) -> i64 {
        keys::to_ms(self.clock.now())
    }
}
