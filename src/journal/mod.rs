//! The effect journal: every change a task makes to the user's files, with what it
//! replaced, so the whole task can be taken back ([`undo`]).
//!
//! Each change is one line of `<data>/trash/journal.jsonl` ([`Entry`]): the task, when,
//! the change ([`Change`]), and a stamp of the path right after it ([`Stamp`]), by which
//! an undo sees that someone changed the path since. What a change removed or replaced
//! is never deleted: it is moved (or, for a file replaced in place, linked or copied)
//! into artoo's private trash, `<data>/trash/<task>/<n>/<its absolute path>`, and the
//! line names where it went.
//!
//! Who writes here: the sandbox's kept changes (new files, appends, moves), a held layer
//! the user approved (deletions, overwrites, permission and owner changes), and
//! `write_file`. An undo is journaled as a task of its own (`undo-…`), so it can be
//! undone in turn (redo).
//!
//! **Invariant:** a change is journaled only after it was made, and a line names every
//! original the change displaced; nothing here deletes a user's file.

pub mod undo;

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One change to the user's files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Change {
    /// A new file, folder or link.
    Create {
        /// Where it was made.
        path: PathBuf,
    },
    /// An entry put back whole, with all it holds (an undo of a deletion); taking it
    /// back removes it whole again.
    PutBack {
        /// Where it was put back.
        path: PathBuf,
    },
    /// Bytes added to the end of an existing file.
    Append {
        /// The file.
        path: PathBuf,
        /// Its length before.
        old_len: u64,
    },
    /// An entry removed, kept in artoo's trash.
    Delete {
        /// Where it was.
        path: PathBuf,
        /// Where it is kept.
        original: PathBuf,
    },
    /// An entry replaced (overwritten, truncated, a folder replaced); the one it
    /// replaced is kept in artoo's trash.
    Replace {
        /// The entry replaced.
        path: PathBuf,
        /// Where what it replaced is kept.
        original: PathBuf,
    },
    /// An entry renamed to a name that did not exist.
    Move {
        /// Where it was.
        from: PathBuf,
        /// Where it is now.
        path: PathBuf,
    },
    /// Permission bits changed.
    Mode {
        /// The entry.
        path: PathBuf,
        /// The bits before.
        old: u32,
        /// The bits after.
        new: u32,
    },
    /// The owner changed.
    Owner {
        /// The entry.
        path: PathBuf,
        /// (uid, gid) before.
        old: (u32, u32),
        /// (uid, gid) after.
        new: (u32, u32),
    },
}

impl Change {
    /// The path the change leaves changed.
    pub fn path(&self) -> &Path {
        match self {
            Change::Create { path }
            | Change::PutBack { path }
            | Change::Append { path, .. }
            | Change::Delete { path, .. }
            | Change::Replace { path, .. }
            | Change::Move { path, .. }
            | Change::Mode { path, .. }
            | Change::Owner { path, .. } => path,
        }
    }

    /// The change's verb, as effect records and the dialog say it.
    pub fn verb(&self) -> &'static str {
        match self {
            Change::Create { .. } | Change::PutBack { .. } => "create",
            Change::Append { .. } => "append",
            Change::Delete { .. } => "delete",
            Change::Replace { .. } => "overwrite",
            Change::Move { .. } => "move",
            Change::Mode { .. } => "change permissions",
            Change::Owner { .. } => "change owner",
        }
    }
}

/// What a path was right after a change: enough to see that it changed since. A
/// folder's size and time change whenever what it holds changes, so a folder is stamped
/// by what it is, not by those.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// File, folder, link or other.
    pub kind: EntryKind,
    /// The inode: a replaced file is another one.
    pub ino: u64,
    /// Permission bits.
    pub mode: u32,
    /// Bytes (0 for folders).
    pub len: u64,
    /// Modification time, nanoseconds since the epoch (0 for folders).
    pub mtime_ns: i128,
}

/// What kind of entry a path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link.
    Link,
    /// A pipe, socket or device.
    Other,
}

/// The stamp of `path` now, or `None` when nothing is there.
pub fn stamp(path: &Path) -> Option<Stamp> {
    let m = fs::symlink_metadata(path).ok()?;
    let ft = m.file_type();
    let kind = if ft.is_dir() {
        EntryKind::Dir
    } else if ft.is_symlink() {
        EntryKind::Link
    } else if ft.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    };
    let folder = kind == EntryKind::Dir;
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX));
    Some(Stamp {
        kind,
        ino: inode(&m),
        mode: permission_bits(&m),
        len: if folder { 0 } else { m.len() },
        mtime_ns: if folder { 0 } else { mtime_ns },
    })
}

#[cfg(unix)]
fn inode(m: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(m)
}

#[cfg(not(unix))]
fn inode(_: &fs::Metadata) -> u64 {
    0
}

/// The permission bits of an entry (`0o7777` of its mode).
#[cfg(unix)]
pub fn permission_bits(m: &fs::Metadata) -> u32 {
    std::os::unix::fs::MetadataExt::mode(m) & 0o7777
}

#[cfg(not(unix))]
pub fn permission_bits(m: &fs::Metadata) -> u32 {
    if m.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

/// One line of the journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The task that made the change (an undo's own id for the changes an undo made).
    pub task: String,
    /// When it was journaled (right after the change).
    pub at: DateTime<Utc>,
    /// What changed.
    #[serde(flatten)]
    pub change: Change,
    /// The path right after the change (`None` when the change left nothing there).
    pub after: Option<Stamp>,
    /// For the changes of an undo: the task it took back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
}

/// artoo's private trash and its journal, in the data dir.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Journal {
    root: PathBuf,
}

impl Journal {
    /// The journal of the data dir `data_dir` (`<data>/trash`).
    pub fn in_data_dir(data_dir: &Path) -> Self {
        Self {
            root: data_dir.join("trash"),
        }
    }

    /// The folder holding the journal and the originals.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The journal file.
    pub fn file(&self) -> PathBuf {
        self.root.join("journal.jsonl")
    }

    /// A folder not used yet for the originals one commit of `task` displaces
    /// (`trash/<task>/1`, `trash/<task>/2`, …), made when the first original goes in.
    pub fn originals(&self, task: &str) -> PathBuf {
        let task_dir = self.root.join(safe_name(task));
        (1..)
            .map(|k: u32| task_dir.join(k.to_string()))
            .find(|d| !d.exists())
            .unwrap_or(task_dir)
    }

    /// Appends the changes of `task`, each stamped as its path is now. One write for
    /// the whole batch, so lines of tasks that write at once never interleave.
    pub fn record(&self, task: &str, changes: &[Change]) -> io::Result<()> {
        self.record_as(task, None, changes)
    }

    fn record_as(&self, task: &str, undoes: Option<&str>, changes: &[Change]) -> io::Result<()> {
        if changes.is_empty() {
            return Ok(());
        }
        let at = Utc::now();
        let mut text = String::new();
        for change in changes {
            let entry = Entry {
                task: task.to_string(),
                at,
                change: change.clone(),
                after: match change {
                    Change::Delete { .. } => None,
                    _ => stamp(change.path()),
                },
                undoes: undoes.map(str::to_string),
            };
            text.push_str(&serde_json::to_string(&entry).map_err(io::Error::other)?);
            text.push('\n');
        }
        fs::create_dir_all(&self.root)?;
        let mut f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.file())?;
        f.write_all(text.as_bytes())?;
        f.flush()
    }

    /// Every readable line, oldest first. Lines written by an older version that no
    /// longer read are left out.
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        let text = match fs::read_to_string(self.file()) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }
}

/// Prunes artoo's private trash by whole commits (`trash/<task>/<n>`): those older than
/// the age limit, then the oldest until the rest fits the size limit (never one made
/// within [`retention::KEEP_RECENT`]). Emptied task folders go too; the journal stays,
/// and an undo that needs a pruned original says it is gone.
pub fn prune(
    journal: &Journal,
    now: DateTime<Utc>,
    keep: crate::retention::Keep,
) -> io::Result<crate::retention::Pruned> {
    use crate::retention::{self, Candidate, Pruned};
    let mut commits: Vec<Candidate> = Vec::new();
    let tasks = match fs::read_dir(&journal.root) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Pruned::default()),
        Err(e) => return Err(e),
    };
    for task in tasks {
        let task = task?;
        if !task.file_type()?.is_dir() {
            continue;
        }
        for commit in fs::read_dir(task.path())? {
            let commit = commit?;
            let bytes = walkdir::WalkDir::new(commit.path())
                .into_iter()
                .filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .filter(fs::Metadata::is_file)
                .map(|m| m.len())
                .sum();
            commits.push(Candidate {
                path: commit.path(),
                modified: commit.metadata()?.modified().map(DateTime::<Utc>::from)?,
                bytes,
            });
        }
    }
    let mut pruned = Pruned {
        kept_bytes: commits.iter().map(|c| c.bytes).sum(),
        ..Pruned::default()
    };
    for i in retention::select(&commits, now, keep) {
        let c = &commits[i];
        make_removable(&c.path);
        fs::remove_dir_all(&c.path)?;
        pruned.files += 1;
        pruned.bytes += c.bytes;
        pruned.kept_bytes = pruned.kept_bytes.saturating_sub(c.bytes);
        if let Some(task_dir) = c.path.parent() {
            // Only when empty: a newer commit of the task may still be there.
            let _ = fs::remove_dir(task_dir);
        }
    }
    Ok(pruned)
}

/// Folders kept read-only (an original's own mode) are made writable so they can go.
fn make_removable(root: &Path) {
    #[cfg(unix)]
    for e in walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
    {
        if e.file_type().is_dir() {
            use std::os::unix::fs::PermissionsExt as _;
            let _ = fs::set_permissions(e.path(), fs::Permissions::from_mode(0o700));
        }
    }
    #[cfg(not(unix))]
    let _ = root;
}

/// A task id as a folder name: no separators, no leading dots.
fn safe_name(task: &str) -> String {
    let name: String = task
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() { "_".into() } else { name }
}

/// Moves the entry at `path` under `originals`, at its whole path, and says where.
pub fn keep_original(path: &Path, originals: &Path) -> io::Result<PathBuf> {
    let dest = kept_at(path, originals);
    if let Some(parent) = dest.parent() {
        fs::create_dir_all(parent)?;
    }
    move_entry(path, &dest)?;
    Ok(dest)
}

/// Keeps a copy of the file at `path` under `originals` (a hard link when the trash is
/// on the same file system: the original's bytes stay when `path` is replaced by a
/// rename), and says where.
pub fn keep_copy(path: &Path, originals: &Path) -> io::Result<PathBuf> {
    let dest = kept_at(path, originals);
    if let Some(parent) = dest.parent() {
        fs::create_dir_all(parent)?;
    }
    if fs::hard_link(path, &dest).is_err() {
        copy_tree(path, &dest, &|_| false)?;
    }
    Ok(dest)
}

fn kept_at(path: &Path, originals: &Path) -> PathBuf {
    let rel: PathBuf = path
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .collect();
    originals.join(rel)
}

/// Renames `from` to `to`, which must not exist; across file systems, copies then
/// removes the original.
pub fn move_entry(from: &Path, to: &Path) -> io::Result<()> {
    match rename_new(from, to) {
        Err(e) if is_cross_device(&e) => {
            copy_tree(from, to, &|_| false)?;
            if fs::symlink_metadata(from)?.is_dir() {
                fs::remove_dir_all(from)
            } else {
                fs::remove_file(from)
            }
        }
        other => other,
    }
}

#[cfg(target_os = "linux")]
fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE).map_err(io::Error::from)
}

/// Without an atomic no-replace rename, the name is checked first (a name that appears
/// between the check and the rename is the one race left).
#[cfg(not(target_os = "linux"))]
fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    if fs::symlink_metadata(to).is_ok() {
        return Err(io::Error::from(io::ErrorKind::AlreadyExists));
    }
    fs::rename(from, to)
}

#[cfg(unix)]
fn is_cross_device(e: &io::Error) -> bool {
    // EXDEV is 18 on Linux and on macOS.
    e.raw_os_error() == Some(18)
}

#[cfg(not(unix))]
fn is_cross_device(_: &io::Error) -> bool {
    false
}

/// Copies the entry at `src` (a file, a link or a whole folder) to `dst`, a name that
/// must not exist, keeping permissions; entries `skip` says are not there are left out.
pub fn copy_tree(src: &Path, dst: &Path, skip: &dyn Fn(&fs::Metadata) -> bool) -> io::Result<()> {
    let m = fs::symlink_metadata(src)?;
    let ft = m.file_type();
    if ft.is_dir() {
        fs::create_dir(dst)?;
        let mut entries: Vec<fs::DirEntry> = fs::read_dir(src)?.collect::<io::Result<_>>()?;
        entries.sort_by_key(fs::DirEntry::file_name);
        for e in entries {
            let child = e.path();
            if !skip(&fs::symlink_metadata(&child)?) {
                copy_tree(&child, &dst.join(e.file_name()), skip)?;
            }
        }
        fs::set_permissions(dst, m.permissions())
    } else if ft.is_symlink() {
        symlink(&fs::read_link(src)?, dst)
    } else if ft.is_file() {
        let mut from = fs::File::open(src)?;
        let mut to = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dst)?;
        io::copy(&mut from, &mut to)?;
        to.set_permissions(m.permissions())
    } else {
        Err(io::Error::other(
            "pipes, sockets and devices are not copied",
        ))
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::other("links are not copied here"))
}

#[cfg(test)]
mod tests;
