//! [`DurableEnv`]: the rusty-leveldb `Env` the store opens LevelDB through, adding the
//! fsyncs rusty-leveldb itself never issues. Everything but writable files is passed
//! through to the POSIX env.
//!
//! **Invariant:** a table, manifest or `CURRENT` temp file is on disk before LevelDB
//! renames or references it; the write-ahead log is fsynced exactly when the store asks
//! (its `flush`), and merely handed to the OS otherwise.

use std::cell::Cell;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use rusty_leveldb::{PosixDiskEnv, Status, StatusCode};

/// An `Env` that adds the fsyncs rusty-leveldb leaves out.
///
/// - write-ahead logs (`*.log`) fsync on `flush` only while `sync_log` is set (the
///   store's explicit flush); the per-batch flush just hands bytes to the OS;
/// - tables, manifests and the `CURRENT` temp file fsync on `flush` and when dropped
///   (that is, before rusty-leveldb renames or references them);
/// - the info log (`LOG`) is never synced.
pub(super) struct DurableEnv {
    inner: PosixDiskEnv,
    sync_log: Rc<Cell<bool>>,
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum SyncPolicy {
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
    pub(super) fn new(sync_log: Rc<Cell<bool>>) -> Self {
        Self {
            inner: PosixDiskEnv::new(),
            sync_log,
        }
    }

    pub(super) fn policy(path: &Path) -> SyncPolicy {
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
