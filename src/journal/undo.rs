//! Undo a whole task: its journaled changes taken back, newest first, every original
//! put back where it was.
//!
//! An undo first checks every change against the files as they are now, the way the
//! undo would meet them (a file the task created and later appended to is checked once,
//! as the task left it): each path must be as the task left it (same entry, size, time
//! and mode), each name an original goes back to must be free, and each original must
//! still be in artoo's trash. If anything differs — someone edited a file since, a
//! later task moved it — nothing is changed, and the refusal names the file and why.
//! Otherwise the changes are taken back in reverse order, and what the undo itself did
//! is journaled as a task of its own (`undo-…`, naming the task it undid), so undoing
//! that is a redo.
//!
//! Nothing is deleted: what an undo removes (a file the task created, the appended
//! version of a file) goes to artoo's trash like any original.
//!
//! **Invariant:** `apply` changes nothing unless the whole plan checks; after it, every
//! path the task changed is as it was before the task (byte for byte, with its mode).

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::{Change, Entry, Journal, copy_tree, keep_original, move_entry, stamp};

/// One task's changes, as the journal holds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskChanges {
    /// The task (or an undo's own id).
    pub task: String,
    /// When its last change was made.
    pub at: DateTime<Utc>,
    /// Its changes, in the order they were made.
    pub changes: Vec<Change>,
    /// For an undo: the task it took back.
    pub undoes: Option<String>,
    /// The undo that took this task back (and was not itself undone), if any.
    pub undone_by: Option<String>,
}

/// Every task with journaled changes, newest first.
pub fn tasks(journal: &Journal) -> io::Result<Vec<TaskChanges>> {
    let entries = journal.entries()?;
    let mut order: Vec<String> = Vec::new();
    let mut by_task: HashMap<String, TaskChanges> = HashMap::new();
    for e in entries {
        let t = by_task.entry(e.task.clone()).or_insert_with(|| {
            order.push(e.task.clone());
            TaskChanges {
                task: e.task.clone(),
                at: e.at,
                changes: Vec::new(),
                undoes: e.undoes.clone(),
                undone_by: None,
            }
        });
        t.at = t.at.max(e.at);
        t.changes.push(e.change);
    }
    // An undo counts only while it is not undone itself: walk from the newest.
    let mut list: Vec<TaskChanges> = order
        .into_iter()
        .filter_map(|t| by_task.remove(&t))
        .collect();
    // Newest first; changes made at the same instant, the later-written first.
    list.reverse();
    list.sort_by_key(|t| std::cmp::Reverse(t.at));
    for i in 0..list.len() {
        if list[i].undone_by.is_some() {
            continue;
        }
        if let Some(target) = list[i].undoes.clone() {
            let by = list[i].task.clone();
            if let Some(t) = list.iter_mut().find(|t| t.task == target) {
                t.undone_by = Some(by);
            }
        }
    }
    Ok(list)
}

/// The newest task whose changes stand (not undone, not an undo): what `artoo undo`
/// takes back when no task is named.
pub fn latest(journal: &Journal) -> io::Result<Option<TaskChanges>> {
    Ok(tasks(journal)?
        .into_iter()
        .find(|t| t.undone_by.is_none() && t.undoes.is_none()))
}

/// Why an undo did not happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The journal holds no change of this task.
    NoChanges(String),
    /// An undo already took it back.
    AlreadyUndone {
        /// The task.
        task: String,
        /// The undo that took it back.
        by: String,
    },
    /// A path is not as the task left it, or an original is missing.
    Changed {
        /// The path.
        path: PathBuf,
        /// Why, in words.
        why: String,
    },
    /// The files could not be read or changed.
    Io(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoChanges(task) => {
                write!(f, "artoo's journal holds no change to your files by {task}")
            }
            Refusal::AlreadyUndone { task, by } => {
                write!(
                    f,
                    "{task} was already undone (by {by}; undo that to redo it)"
                )
            }
            Refusal::Changed { path, why } => {
                write!(f, "{} {why}, so nothing was undone", path.display())
            }
            Refusal::Io(why) => write!(f, "the undo could not go on: {why}"),
        }
    }
}

impl From<io::Error> for Refusal {
    fn from(e: io::Error) -> Self {
        Refusal::Io(e.to_string())
    }
}

/// An undo that checked: the task's changes, newest first.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The task it takes back.
    pub task: String,
    entries: Vec<Entry>,
}

/// One step of an undo, for the user to read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UndoStep {
    /// A file or folder the task made is removed (into artoo's trash).
    Remove {
        /// It, from the home folder.
        path: String,
    },
    /// A file the task added to is cut back to its earlier length.
    Cut {
        /// The file.
        path: String,
        /// The length it goes back to.
        bytes: u64,
    },
    /// A file or folder the task deleted is put back.
    PutBack {
        /// Where it goes back.
        path: String,
    },
    /// A file the task replaced gets its earlier version back.
    Restore {
        /// The file.
        path: String,
    },
    /// What the task moved goes back where it was.
    MoveBack {
        /// Where it is now.
        path: String,
        /// Where it goes back to.
        to: String,
    },
    /// Permissions the task changed are set back.
    Permissions {
        /// The entry.
        path: String,
        /// The bits it gets back, in octal.
        mode: String,
    },
    /// An owner the task changed is given back.
    Owner {
        /// The entry.
        path: String,
    },
}

impl Plan {
    /// What the undo will do, newest first, paths written from the home folder (`~`).
    pub fn steps(&self, home: &Path) -> Vec<UndoStep> {
        let show = |p: &Path| crate::text::tilde(&p.display().to_string(), home);
        self.entries
            .iter()
            .map(|e| match &e.change {
                Change::Create { path } | Change::PutBack { path } => {
                    UndoStep::Remove { path: show(path) }
                }
                Change::Append { path, old_len } => UndoStep::Cut {
                    path: show(path),
                    bytes: *old_len,
                },
                Change::Delete { path, .. } => UndoStep::PutBack { path: show(path) },
                Change::Replace { path, .. } => UndoStep::Restore { path: show(path) },
                Change::Move { from, path } => UndoStep::MoveBack {
                    path: show(path),
                    to: show(from),
                },
                Change::Mode { path, old, .. } => UndoStep::Permissions {
                    path: show(path),
                    mode: format!("{old:o}"),
                },
                Change::Owner { path, .. } => UndoStep::Owner { path: show(path) },
            })
            .collect()
    }

    /// The same, one English line per step.
    pub fn lines(&self, home: &Path) -> Vec<String> {
        self.steps(home)
            .into_iter()
            .map(|step| match step {
                UndoStep::Remove { path } => format!("remove {path} (the task made it)"),
                UndoStep::Cut { path, bytes } => format!("cut {path} back to its {bytes} bytes"),
                UndoStep::PutBack { path } => format!("put back {path}"),
                UndoStep::Restore { path } => format!("put back the earlier {path}"),
                UndoStep::MoveBack { path, to } => format!("move {path} back to {to}"),
                UndoStep::Permissions { path, mode } => {
                    format!("set the permissions of {path} back to {mode}")
                }
                UndoStep::Owner { path } => format!("give {path} its owner back"),
            })
            .collect()
    }
}

/// An undo as the user sees it before saying yes.
#[derive(Clone, Debug)]
pub struct Preview {
    /// The checked plan (apply it to undo).
    pub plan: Plan,
    /// Each change it takes back, newest first.
    pub steps: Vec<UndoStep>,
    /// What the task did that no undo takes back (from its task log).
    pub lasting: Vec<String>,
}

/// The undo of `task` (the newest task whose changes stand when `None`), checked, with
/// what it takes back and what it cannot, for the user to confirm. `Ok(None)` when no
/// task's changes are left to undo.
pub fn preview(
    data_dir: &Path,
    home: &Path,
    task: Option<&str>,
) -> Result<Option<Preview>, Refusal> {
    let journal = Journal::in_data_dir(data_dir);
    let task = match task {
        Some(t) => t.to_string(),
        None => match latest(&journal)? {
            Some(t) => t.task,
            None => return Ok(None),
        },
    };
    let plan = plan(&journal, &task)?;
    let steps = plan.steps(home);
    let id = crate::contracts::TaskId::from_existing(&task);
    let lasting = match crate::tasklog::TaskLogDir::new(data_dir).latest_of(&id) {
        Ok(Some(run)) => run.lasting_effects(),
        _ => Vec::new(),
    };
    Ok(Some(Preview {
        plan,
        steps,
        lasting,
    }))
}

/// What a path is, in the undo's dry run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sim {
    Present,
    Absent,
}

/// Checks that `task`'s changes can all be taken back as the files are now.
pub fn plan(journal: &Journal, task: &str) -> Result<Plan, Refusal> {
    let all = tasks(journal)?;
    let Some(found) = all.iter().find(|t| t.task == task) else {
        return Err(Refusal::NoChanges(task.to_string()));
    };
    if let Some(by) = &found.undone_by {
        return Err(Refusal::AlreadyUndone {
            task: task.to_string(),
            by: by.clone(),
        });
    }
    let mut entries: Vec<Entry> = journal
        .entries()?
        .into_iter()
        .filter(|e| e.task == task)
        .collect();
    entries.reverse();
    check(&entries)?;
    Ok(Plan {
        task: task.to_string(),
        entries,
    })
}

/// The dry run: every step meets the files as the steps before it (newer changes,
/// already taken back) would leave them. A folder the task moved is, in the dry run,
/// back where it was while its entries are really still at the new place: each path is
/// looked up where it really is now.
fn check(steps: &[Entry]) -> Result<(), Refusal> {
    let mut dry = Dry::default();
    let changed = |path: &Path, why: &str| Refusal::Changed {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    for e in steps {
        let path = e.change.path();
        let first_touch = !dry.sim.contains_key(path);
        let as_left = |dry: &Dry| -> Result<(), Refusal> {
            if !dry.present(path) {
                return Err(changed(path, "is no longer there"));
            }
            if first_touch && stamp(&dry.real(path)) != e.after {
                return Err(changed(path, "changed after the task"));
            }
            Ok(())
        };
        let original_kept = |original: &Path| {
            if fs::symlink_metadata(original).is_ok() {
                Ok(())
            } else {
                Err(changed(path, "has no original left in artoo's trash"))
            }
        };
        let free = |dry: &Dry, p: &Path| {
            if dry.present(p) {
                return Err(changed(p, "exists again (something new took its name)"));
            }
            match p.parent() {
                Some(parent) if !dry.present(parent) => {
                    Err(changed(p, "has no folder to go back to"))
                }
                _ => Ok(()),
            }
        };
        match &e.change {
            Change::Create { .. } => {
                as_left(&dry)?;
                let real = dry.real(path);
                if fs::symlink_metadata(&real).is_ok_and(|m| m.is_dir()) {
                    for child in fs::read_dir(&real)? {
                        let child = path.join(child?.file_name());
                        if dry.sim.get(&child) != Some(&Sim::Absent) {
                            return Err(changed(
                                &child,
                                "was put in a folder the task made, after the task",
                            ));
                        }
                    }
                }
                dry.sim.insert(path.to_path_buf(), Sim::Absent);
            }
            Change::PutBack { .. } => {
                as_left(&dry)?;
                dry.sim.insert(path.to_path_buf(), Sim::Absent);
            }
            Change::Append { .. } | Change::Mode { .. } | Change::Owner { .. } => {
                as_left(&dry)?;
                dry.sim.insert(path.to_path_buf(), Sim::Present);
            }
            // What goes back is the kept original, with everything it holds: the dry run
            // finds entries under it where they really are now, in the trash.
            Change::Replace { original, .. } => {
                as_left(&dry)?;
                original_kept(original)?;
                dry.replace_subtree(path, original.clone());
            }
            Change::Delete { original, .. } => {
                free(&dry, path)?;
                original_kept(original)?;
                dry.replace_subtree(path, original.clone());
            }
            Change::Move { from, .. } => {
                as_left(&dry)?;
                free(&dry, from)?;
                // The entry goes back to `from` with what the dry run decided under it.
                let real = dry.real(path);
                let carried: Vec<(PathBuf, Sim)> = dry
                    .sim
                    .iter()
                    .filter_map(|(k, v)| {
                        let rest = k.strip_prefix(path).ok()?;
                        (!rest.as_os_str().is_empty()).then(|| (from.join(rest), *v))
                    })
                    .collect();
                dry.sim.retain(|k, _| !k.starts_with(path));
                dry.replace_subtree(from, real);
                dry.sim.insert(path.to_path_buf(), Sim::Absent);
                dry.sim.extend(carried);
            }
        }
    }
    Ok(())
}

/// The files as the dry run has them: paths it has decided, and moved subtrees.
#[derive(Default)]
struct Dry {
    sim: HashMap<PathBuf, Sim>,
    /// (where a subtree is in the dry run, where it really is), newest last.
    moved: Vec<(PathBuf, PathBuf)>,
}

impl Dry {
    /// Where the entry the dry run has at `p` really is now.
    fn real(&self, p: &Path) -> PathBuf {
        self.moved
            .iter()
            .rev()
            .find_map(|(at, real)| {
                p.strip_prefix(at).ok().map(|rest| {
                    if rest.as_os_str().is_empty() {
                        real.clone()
                    } else {
                        real.join(rest)
                    }
                })
            })
            .unwrap_or_else(|| p.to_path_buf())
    }

    /// Whether the dry run has an entry at `p`: as it decided, else absent under a folder
    /// it took away, else as the files really are.
    fn present(&self, p: &Path) -> bool {
        if let Some(s) = self.sim.get(p) {
            return *s == Sim::Present;
        }
        if p.ancestors()
            .skip(1)
            .any(|a| self.sim.get(a) == Some(&Sim::Absent))
        {
            return false;
        }
        fs::symlink_metadata(self.real(p)).is_ok()
    }

    /// `at` now holds, in the dry run, the entry really at `real`, with all it holds:
    /// what the dry run decided under `at` before was about the entry that left.
    fn replace_subtree(&mut self, at: &Path, real: PathBuf) {
        self.sim.retain(|p, _| !(p.starts_with(at) && p != at));
        self.moved.push((at.to_path_buf(), real));
        self.sim.insert(at.to_path_buf(), Sim::Present);
    }
}

/// What an undo did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undone {
    /// The undo's own id in the journal (undo it to redo).
    pub id: String,
    /// The changes taken back, newest first.
    pub count: usize,
    /// Where what the undo removed was kept.
    pub originals: Option<PathBuf>,
}

/// Takes `task`'s changes back, after checking them again as the files are now.
pub fn undo(journal: &Journal, task: &str) -> Result<Undone, Refusal> {
    let plan = plan(journal, task)?;
    apply(journal, &plan)
}

/// Applies a checked plan (checked once more first: the files may have changed since
/// the user saw it) and journals what it did as the undo's own task.
pub fn apply(journal: &Journal, plan: &Plan) -> Result<Undone, Refusal> {
    check(&plan.entries)?;
    let id = format!("undo-{}", uuid::Uuid::new_v4().simple());
    let originals = journal.originals(&id);
    let mut done: Vec<Change> = Vec::new();
    let mut kept_any = false;
    let result = (|| -> io::Result<()> {
        for (i, e) in plan.entries.iter().enumerate() {
            // A folder per step: one undo may keep two versions of one path.
            let originals = originals.join(i.to_string());
            let inverse = match &e.change {
                Change::Create { path } | Change::PutBack { path } => {
                    kept_any = true;
                    let original = keep_original(path, &originals)?;
                    Change::Delete {
                        path: path.clone(),
                        original,
                    }
                }
                Change::Append { path, old_len } => {
                    kept_any = true;
                    let original = super::kept_at(path, &originals);
                    if let Some(parent) = original.parent() {
                        fs::create_dir_all(parent)?;
                    }
                    copy_tree(path, &original, &|_| false)?;
                    fs::OpenOptions::new()
                        .write(true)
                        .open(path)?
                        .set_len(*old_len)?;
                    Change::Replace {
                        path: path.clone(),
                        original,
                    }
                }
                Change::Delete { path, original } => {
                    move_entry(original, path)?;
                    Change::PutBack { path: path.clone() }
                }
                Change::Replace { path, original } => {
                    kept_any = true;
                    let now = keep_original(path, &originals)?;
                    move_entry(original, path)?;
                    Change::Replace {
                        path: path.clone(),
                        original: now,
                    }
                }
                Change::Move { from, path } => {
                    move_entry(path, from)?;
                    Change::Move {
                        from: path.clone(),
                        path: from.clone(),
                    }
                }
                Change::Mode { path, old, new } => {
                    set_mode(path, *old)?;
                    Change::Mode {
                        path: path.clone(),
                        old: *new,
                        new: *old,
                    }
                }
                Change::Owner { path, old, new } => {
                    set_owner(path, *old)?;
                    Change::Owner {
                        path: path.clone(),
                        old: *new,
                        new: *old,
                    }
                }
            };
            done.push(inverse);
        }
        Ok(())
    })();
    // Whatever was taken back is journaled, also when a later step failed: the undo's
    // own entry can then be undone (redo) to return to where the task left things.
    journal.record_as(&id, Some(&plan.task), &done)?;
    result.map_err(|e| {
        Refusal::Io(format!(
            "{e} (after {} of {} changes were taken back; undo {id} to redo them)",
            done.len(),
            plan.entries.len()
        ))
    })?;
    Ok(Undone {
        id,
        count: done.len(),
        originals: kept_any.then_some(originals),
    })
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    let mut p = fs::metadata(path)?.permissions();
    p.set_readonly(mode & 0o222 == 0);
    fs::set_permissions(path, p)
}

#[cfg(unix)]
fn set_owner(path: &Path, (uid, gid): (u32, u32)) -> io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid))
}

#[cfg(not(unix))]
fn set_owner(_: &Path, _: (u32, u32)) -> io::Result<()> {
    Err(io::Error::other("owners cannot be set here"))
}
