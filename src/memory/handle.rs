//! [`Memory`]: the async handle the runtime, the bus role and the operator API share.
//! It validates and queues writes, forwards queries to the store thread and owns the
//! Dreamer task's lifetime.
//!
//! **Invariant:** no write of a T entry gets past [`Memory::write`], and `close` stops
//! the Dreamer before it drains the store, so no pass runs against a closed store.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::dreamer::{Distiller, DreamReport, Dreamer, DreamerShared, DreamerStatus};
use super::error::MemoryError;
use super::megram;
use super::store::{Command, StoreHandle};
use super::types::Recall;
use crate::clock::SharedClock;
use crate::config::{Config, MemoryParams};
use crate::contracts::{Level, Megram, MegramId, Potentials, SOPRecord};

/// The store's directory under the data dir.
pub const STORE_DIR_NAME: &str = "memory.leveldb";

/// The R5 handle. Cheap to clone; all clones share one store and one Dreamer.
#[derive(Clone)]
pub struct Memory {
    inner: Arc<Inner>,
}

struct Inner {
    store: StoreHandle,
    clock: SharedClock,
    params: MemoryParams,
    dreamer: Dreamer,
    cancel: CancellationToken,
    dreamer_task: Mutex<Option<JoinHandle<()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Stops the Dreamer, whose store handle is then the last to go: the store thread
        // drains and releases the lock.
        self.cancel.cancel();
    }
}

impl Memory {
    /// Opens `<data dir>/memory.leveldb` and starts the Dreamer. Must run inside a tokio
    /// runtime. `distiller` is the LLM layer's; without one the Dreamer only forgets and
    /// demotes.
    pub async fn open(
        config: &Config,
        clock: SharedClock,
        distiller: Option<Arc<dyn Distiller>>,
    ) -> Result<Memory, MemoryError> {
        Self::open_at(
            config.data_dir.join(STORE_DIR_NAME),
            config.memory.clone(),
            clock,
            distiller,
        )
        .await
    }

    /// Opens the store in `dir` itself.
    pub async fn open_at(
        dir: impl Into<PathBuf>,
        params: MemoryParams,
        clock: SharedClock,
        distiller: Option<Arc<dyn Distiller>>,
    ) -> Result<Memory, MemoryError> {
        let store = StoreHandle::open(dir.into(), clock.clone(), params.clone()).await?;
        let dreamer = Dreamer {
            store: store.clone(),
            clock: clock.clone(),
            distiller,
            shared: Arc::new(DreamerShared::new()),
        };
        let cancel = CancellationToken::new();
        let task = tokio::spawn(dreamer.clone().run(
            Duration::from_secs(params.dreamer_period_secs),
            Duration::from_secs(params.dreamer_after_task_secs),
            cancel.clone(),
        ));
        let params = params.clone();
        Ok(Memory {
            inner: Arc::new(Inner {
                store,
                clock,
                params,
                dreamer,
                cancel,
                dreamer_task: Mutex::new(Some(task)),
            }),
        })
    }

    /// The store directory.
    pub fn dir(&self) -> &Path {
        self.inner.store.dir()
    }

    /// The thresholds this memory runs with.
    pub fn params(&self) -> &MemoryParams {
        &self.inner.params
    }

    pub(crate) fn store(&self) -> &StoreHandle {
        &self.inner.store
    }

    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.inner.clock.now()
    }

    /// Queues `megram` for the store and returns at once. An `Ok` write is never lost:
    /// it is applied before any later query and durable after the next `flush`/`close`.
    /// A terminal macro-state (accept, success, abandon) schedules the Dreamer's
    /// post-task pass. T entries cannot be written.
    pub fn write(&self, megram: Megram) -> Result<(), MemoryError> {
        megram::validate(&megram)?;
        if megram.level == Level::T {
            return Err(MemoryError::Immutable(megram.id));
        }
        let terminal = megram.state.is_terminal();
        self.inner.store.write(megram)?;
        if terminal {
            self.inner.dreamer.shared.task_ended.notify_one();
        }
        Ok(())
    }

    /// C-level SOPs of the group, newest first; stamps each hit's last recall.
    pub async fn query_c(&self, space: &str, entity: &str) -> Result<Vec<SOPRecord>, MemoryError> {
        let (space, entity) = (space.to_string(), entity.to_string());
        self.inner
            .store
            .call(|reply| Command::QueryC {
                space,
                entity,
                reply,
            })
            .await
    }

    /// Live potentials of the group.
    pub async fn query_mk(&self, space: &str, entity: &str) -> Result<Potentials, MemoryError> {
        let (space, entity) = (space.to_string(), entity.to_string());
        self.inner
            .store
            .call(|reply| Command::QueryMk {
                space,
                entity,
                reply,
            })
            .await
    }

    /// `query_c`, `query_mk` and the recent episodic entries in one store round trip.
    pub async fn recall(&self, space: &str, entity: &str) -> Result<Recall, MemoryError> {
        let (space, entity) = (space.to_string(), entity.to_string());
        self.inner
            .store
            .call(|reply| Command::Recall {
                space,
                entity,
                reply,
            })
            .await
    }

    /// Appends a negative-σ Megram against `rule` in the rule's group. History is never
    /// edited: the rule loses standing through the potentials (and trust bankruptcy).
    pub async fn record_negative_feedback(
        &self,
        rule: MegramId,
        content: &str,
    ) -> Result<Megram, MemoryError> {
        let content = content.to_string();
        self.inner
            .store
            .call(|reply| Command::NegativeFeedback {
                rule,
                content,
                reply,
            })
            .await
    }

    /// Entries by id (missing ids are skipped), with their effective last recall.
    pub async fn get(&self, ids: &[MegramId]) -> Result<Vec<Megram>, MemoryError> {
        let ids = ids.to_vec();
        self.inner
            .store
            .call(|reply| Command::Get { ids, reply })
            .await
    }

    /// Returns once every write accepted before the call is fsynced. Reports write
    /// batches LevelDB refused since the previous flush.
    pub async fn flush(&self) -> Result<(), MemoryError> {
        self.inner
            .store
            .call(|reply| Command::Flush { reply })
            .await
    }

    /// Runs one Dreamer pass now (after any pass in progress).
    pub async fn dream(&self) -> Result<DreamReport, MemoryError> {
        self.inner.dreamer.pass().await
    }

    /// The Dreamer's pass count and last outcome; changes after every pass.
    pub fn dreamer_status(&self) -> watch::Receiver<DreamerStatus> {
        self.inner.dreamer.shared.status.subscribe()
    }

    /// Stops the Dreamer, drains every accepted write, fsyncs and releases the store.
    /// Later calls return [`MemoryError::Closed`]; closing twice is fine.
    pub async fn close(&self) -> Result<(), MemoryError> {
        self.inner.cancel.cancel();
        let task = crate::sync::lock(&self.inner.dreamer_task).take();
        if let Some(task) = task
            && let Err(e) = task.await
        {
            tracing::error!(error = %e, "the dreamer task ended abnormally");
        }
        self.inner.store.close().await
    }
}
