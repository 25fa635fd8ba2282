//! A layer held for the user's answer: what a sandboxed command did that Law 1 cares
//! about (deletions, overwrites, permission and owner changes, new entries where new
//! entries may not go), measured, and nothing of it applied yet. Approving applies
//! exactly this layer — the command does not run again — keeping every original it
//! replaces or removes in artoo's private trash and journaling each change; denying
//! discards it.
//!
//! **Invariant:** a commit applies nothing unless every path it touches is as it was when
//! the command ran (same file, size, time and mode; a name to create still free): a
//! change someone made while the dialog waited is never clobbered.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::changes::{self, Kept, Refusal, Refused};
use super::linux::Layout;
use super::measured::Measured;
use super::{Committed, Deletions};
use crate::journal::{self, Change};

/// Folder entries counted when a deleted folder's size is measured.
const MAX_MEASURED: usize = 100_000;

/// What a path was when the command ran: enough to see that it changed since.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    mode: u32,
}

fn stamp(path: &Path) -> Option<Stamp> {
    fs::symlink_metadata(path).ok().map(|m| Stamp {
        dev: m.dev(),
        ino: m.ino(),
        len: m.len(),
        mtime: (m.mtime(), m.mtime_nsec()),
        mode: m.mode(),
    })
}

/// A sandboxed call's layer, held.
#[derive(Debug)]
pub struct Held {
    layout: Layout,
    kept: Vec<Kept>,
    refused: Vec<Refusal>,
    stamps: Vec<(PathBuf, Option<Stamp>)>,
    effects: Vec<Measured>,
}

impl Held {
    /// Holds `layout` with the changes read from it.
    pub(super) fn new(layout: Layout, kept: Vec<Kept>, refused: Vec<Refusal>) -> Self {
        let mut stamps: Vec<(PathBuf, Option<Stamp>)> = Vec::new();
        for path in refused
            .iter()
            .map(|r| r.path.as_path())
            .chain(kept.iter().map(Kept::real))
            .chain(kept.iter().filter_map(|k| match k {
                Kept::Move { from, .. } => Some(from.as_path()),
                _ => None,
            }))
        {
            if !stamps.iter().any(|(p, _)| p == path) {
                stamps.push((path.to_path_buf(), stamp(path)));
            }
        }
        let effects = refused.iter().map(measure).collect();
        Self {
            layout,
            kept,
            refused,
            stamps,
            effects,
        }
    }

    /// The changes Law 1 cares about, measured.
    pub fn effects(&self) -> &[Measured] {
        &self.effects
    }

    /// Whether every path the layer touches is as it was when the command ran.
    pub fn unchanged(&self) -> io::Result<()> {
        self.check(&|_| false)
    }

    fn check(&self, skip: &dyn Fn(&Path) -> bool) -> io::Result<()> {
        match self.stamps.iter().find(|(p, s)| !skip(p) && stamp(p) != *s) {
            Some((path, _)) => Err(io::Error::other(format!(
                "{} changed after the command ran in the sandbox, so nothing of it was applied",
                path.display()
            ))),
            None => Ok(()),
        }
    }

    /// Applies the layer: the held changes, then what would have been kept anyway.
    /// Originals go to `originals` (a folder of artoo's private trash, made when first
    /// needed); what was done comes back as effect records and as the journal's changes,
    /// for the caller to journal.
    pub fn commit(self, originals: &Path, deletions: Deletions) -> io::Result<Committed> {
        // Deletions already moved to the system Trash were checked before they went.
        let trashed = |p: &Path| {
            deletions == Deletions::AlreadyTrashed
                && self
                    .refused
                    .iter()
                    .any(|r| r.what == Refused::Delete && r.path == p)
        };
        self.check(&trashed)?;
        let mut done = Committed::default();
        for r in &self.refused {
            let path = r.path.clone();
            let change = match r.what {
                Refused::Delete if deletions == Deletions::AlreadyTrashed => None,
                Refused::Delete => Some(Change::Delete {
                    original: journal::keep_original(&r.path, originals)?,
                    path,
                }),
                Refused::ReplaceFolder | Refused::Overwrite | Refused::Truncate => {
                    let original = journal::keep_original(&r.path, originals)?;
                    changes::copy_new(&r.upper, &r.path)?;
                    Some(Change::Replace { path, original })
                }
                Refused::Permissions => {
                    let old = fs::symlink_metadata(&r.path)?.mode() & 0o7777;
                    let new = fs::symlink_metadata(&r.upper)?.mode() & 0o7777;
                    fs::set_permissions(&r.path, fs::Permissions::from_mode(new))?;
                    Some(Change::Mode { path, old, new })
                }
                Refused::Owner => {
                    let was = fs::symlink_metadata(&r.path)?;
                    let m = fs::symlink_metadata(&r.upper)?;
                    std::os::unix::fs::lchown(&r.path, Some(m.uid()), Some(m.gid()))?;
                    Some(Change::Owner {
                        path,
                        old: (was.uid(), was.gid()),
                        new: (m.uid(), m.gid()),
                    })
                }
                Refused::CreateOutside => {
                    if fs::symlink_metadata(&r.upper)?.is_dir() {
                        fs::create_dir(&r.path)?;
                    } else {
                        changes::copy_new(&r.upper, &r.path)?;
                    }
                    Some(Change::Create { path })
                }
            };
            if matches!(change, Some(Change::Delete { .. } | Change::Replace { .. })) {
                done.originals = Some(originals.to_path_buf());
            }
            done.journaled.extend(change);
            done.applied.push(crate::contracts::PathEffect {
                path: r.path.clone(),
                exists: r.what.existed(),
                effect: r.what.verb().to_string(),
            });
        }
        let applied = changes::apply(&self.kept);
        if let Some((path, why)) = applied.failed.first() {
            return Err(io::Error::other(format!(
                "{} could not be kept: {why}",
                path.display()
            )));
        }
        let (effects, journaled) = super::kept_effects(applied);
        done.applied.extend(effects);
        done.journaled.extend(journaled);
        drop(self.layout);
        Ok(done)
    }
}

use std::os::unix::fs::PermissionsExt as _;

/// One held change, measured for the dialog.
fn measure(r: &Refusal) -> Measured {
    let (at, is_dir) = match r.what {
        Refused::CreateOutside => (&r.upper, r.upper.is_dir()),
        _ => (&r.path, r.path.is_dir()),
    };
    Measured {
        path: r.path.clone(),
        verb: r.what.verb(),
        existed: r.what.existed(),
        bytes: match r.what {
            Refused::Permissions | Refused::Owner => 0,
            Refused::CreateOutside if is_dir => 0,
            _ => size_of(at),
        },
        is_dir,
    }
}

/// The bytes a file or a whole folder holds (bounded).
fn size_of(path: &Path) -> u64 {
    walkdir::WalkDir::new(path)
        .into_iter()
        .take(MAX_MEASURED)
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::sandbox::changes::tests::whiteout;
    use crate::tools::sandbox::changes::{Place, scan};
    use crate::tools::sandbox::linux::Layout;

    /// A layout over `real` whose upper folder the test fills as a command would.
    fn held_over(real: &Path, tmp: &Path, fill: impl FnOnce(&Path)) -> Held {
        let layout = Layout::create(tmp, &[real.to_path_buf()]).unwrap();
        let upper = layout.layers[0].0.upper.clone();
        fill(&upper);
        let layers = vec![layout.layers[0].0.clone()];
        let c = scan(&layers, &|_| Place::Refuse, &|_| false).unwrap();
        Held::new(layout, c.kept, c.refused)
    }

    #[test]
    fn approving_applies_exactly_the_layer_and_keeps_every_original() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("home");
        fs::create_dir_all(&real).unwrap();
        fs::write(real.join("old.txt"), "old").unwrap();
        fs::write(real.join("gone.txt"), "gone").unwrap();
        let held = held_over(&real, tmp.path(), |upper| {
            fs::write(upper.join("old.txt"), "new").unwrap();
            whiteout(&upper.join("gone.txt"));
            fs::write(upper.join("made.txt"), "made").unwrap();
        });
        let verbs: Vec<&str> = held.effects().iter().map(|m| m.verb).collect();
        assert_eq!(
            verbs,
            vec!["delete", "create (outside the workspace)", "overwrite"]
        );
        let originals = tmp.path().join("trash/t1");
        let done = held.commit(&originals, Deletions::PrivateTrash).unwrap();
        assert_eq!(done.applied.len(), 3);
        assert_eq!(fs::read_to_string(real.join("old.txt")).unwrap(), "new");
        assert_eq!(fs::read_to_string(real.join("made.txt")).unwrap(), "made");
        assert!(!real.join("gone.txt").exists());
        let kept = |name: &str| originals.join(real.join(name).strip_prefix("/").unwrap());
        assert_eq!(fs::read_to_string(kept("old.txt")).unwrap(), "old");
        assert_eq!(fs::read_to_string(kept("gone.txt")).unwrap(), "gone");
        // Each change as the journal keeps it, with the original it displaced.
        assert_eq!(
            done.journaled,
            vec![
                Change::Delete {
                    path: real.join("gone.txt"),
                    original: kept("gone.txt")
                },
                Change::Create {
                    path: real.join("made.txt")
                },
                Change::Replace {
                    path: real.join("old.txt"),
                    original: kept("old.txt")
                },
            ]
        );
    }

    #[test]
    fn a_path_changed_while_the_dialog_waited_is_not_clobbered() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("home");
        fs::create_dir_all(&real).unwrap();
        fs::write(real.join("doc.txt"), "v1").unwrap();
        let held = held_over(&real, tmp.path(), |upper| {
            fs::write(upper.join("doc.txt"), "sandbox").unwrap();
        });
        // The user edits the file while the dialog is open.
        fs::write(real.join("doc.txt"), "user's v2").unwrap();
        let err = held
            .commit(&tmp.path().join("trash/t"), Deletions::PrivateTrash)
            .unwrap_err();
        assert!(err.to_string().contains("changed after"), "{err}");
        assert_eq!(
            fs::read_to_string(real.join("doc.txt")).unwrap(),
            "user's v2"
        );
    }
}
