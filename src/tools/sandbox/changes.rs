//! What a sandboxed command did, read from the upper directories of its overlays after
//! it ended, and the part of it that is kept.
//!
//! An overlay's upper directory holds every change made through it: a new entry is a
//! name the real folder lacks; a deletion is a whiteout (a character device 0/0); a
//! folder whose old content was dropped carries the opaque mark; a changed file is a
//! copy of the real one, changed. Compared against the real folders (the overlay's
//! lower layer, untouched), each change is one of:
//!
//! - kept: a new file, folder or link where new entries may go (see [`Place`]), and
//!   additions at the end of an existing workspace file (appending keeps what was
//!   there);
//! - refused: deleting, emptying, overwriting, re-permissioning or re-owning an existing
//!   entry anywhere, and creating one where new entries may not go;
//! - dropped quietly: new cache and history files programs leave in the home folder.
//!
//! A copy of an existing file with the same content, permissions and owner is no change
//! (a file opened for writing and left alone, or only its times touched).
//!
//! **Invariant:** nothing is kept unless every change was read (a walk that hits its
//! bound refuses the whole call), and keeping never replaces or changes an entry that
//! exists in the real folder: files are linked or copied under names that must not exist.

use std::fs::{self, File, Metadata};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Entries read from upper directories before a call counts as too large to check.
const MAX_ENTRIES: usize = 200_000;
/// Bytes compared per read when a copied file is checked against its original.
const CHUNK: usize = 64 * 1024;

/// Where a new entry at a real path may be kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The workspace, a path the classifier proved the command creates, or below one.
    Keep,
    /// Cache and history files programs write on their own: not kept, not reported as
    /// the command's doing.
    DropQuietly,
    /// Anywhere else: not kept, and reported.
    Refuse,
}

/// One thing the sandbox did not let through: held until the user answers, then
/// applied from `upper` or discarded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub path: PathBuf,
    pub what: Refused,
    /// The entry in the upper folder that holds the change (a whiteout for a deletion).
    pub upper: PathBuf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    Delete,
    /// A folder emptied and made anew (its old content would be gone).
    ReplaceFolder,
    Overwrite,
    Truncate,
    Permissions,
    Owner,
    /// A new entry outside the places new entries may go.
    CreateOutside,
}

impl Refused {
    /// The plain verb, as in a Law 1 dialog's path list.
    pub fn verb(self) -> &'static str {
        match self {
            Refused::Delete => "delete",
            Refused::ReplaceFolder => "delete the contents of",
            Refused::Overwrite => "overwrite",
            Refused::Truncate => "truncate",
            Refused::Permissions => "change permissions",
            Refused::Owner => "change owner",
            Refused::CreateOutside => "create (outside the workspace)",
        }
    }

    /// Whether the entry existed before: everything but a creation.
    pub fn existed(self) -> bool {
        self != Refused::CreateOutside
    }
}

/// A change that is applied to the real folders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kept {
    Dir {
        real: PathBuf,
        mode: u32,
        /// The new folder in the upper folder.
        upper: PathBuf,
    },
    File {
        upper: PathBuf,
        real: PathBuf,
    },
    Symlink {
        target: PathBuf,
        real: PathBuf,
    },
    /// Bytes from `from` on of `upper` go to the end of `real`, whose length was `from`.
    Append {
        upper: PathBuf,
        real: PathBuf,
        from: u64,
    },
    /// An existing entry renamed to a name that did not exist (see `moves`).
    Move {
        from: PathBuf,
        to: PathBuf,
    },
}

impl Kept {
    /// The real path this change makes or changes.
    pub fn real(&self) -> &Path {
        match self {
            Kept::Dir { real, .. }
            | Kept::File { real, .. }
            | Kept::Symlink { real, .. }
            | Kept::Append { real, .. } => real,
            Kept::Move { to, .. } => to,
        }
    }
}

/// Everything read from the upper directories of one call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub kept: Vec<Kept>,
    pub refused: Vec<Refusal>,
    pub dropped: Vec<PathBuf>,
}

/// One overlay: the real folder (its lower layer) and where its changes went.
#[derive(Clone, Debug)]
pub struct Layer {
    pub real: PathBuf,
    pub upper: PathBuf,
}

/// Reads the changes of every layer. `place` says where a new entry may be kept;
/// `appendable` whether additions to the end of an existing file there are kept.
pub fn scan(
    layers: &[Layer],
    place: &dyn Fn(&Path) -> Place,
    appendable: &dyn Fn(&Path) -> bool,
) -> io::Result<Changes> {
    let mut s = Scanner {
        changes: Changes::default(),
        seen: 0,
        place,
        appendable,
    };
    for layer in layers {
        s.dir(&layer.upper, &layer.real)?;
    }
    Ok(s.changes)
}

struct Scanner<'a> {
    changes: Changes,
    seen: usize,
    place: &'a dyn Fn(&Path) -> Place,
    appendable: &'a dyn Fn(&Path) -> bool,
}

impl Scanner<'_> {
    fn refuse(&mut self, path: &Path, what: Refused, upper: &Path) {
        self.changes.refused.push(Refusal {
            path: path.to_path_buf(),
            what,
            upper: upper.to_path_buf(),
        });
    }

    fn count(&mut self) -> io::Result<()> {
        self.seen += 1;
        if self.seen > MAX_ENTRIES {
            return Err(io::Error::other(format!(
                "the command changed more than {MAX_ENTRIES} entries, too many to check"
            )));
        }
        Ok(())
    }

    /// The children of an upper folder whose real twin is a folder too.
    fn dir(&mut self, upper: &Path, real: &Path) -> io::Result<()> {
        let mut entries: Vec<fs::DirEntry> = fs::read_dir(upper)?.collect::<io::Result<_>>()?;
        entries.sort_by_key(fs::DirEntry::file_name);
        for entry in entries {
            self.count()?;
            let name = entry.file_name();
            self.entry(&upper.join(&name), &real.join(&name))?;
        }
        Ok(())
    }

    fn entry(&mut self, upper: &Path, real: &Path) -> io::Result<()> {
        let u = fs::symlink_metadata(upper)?;
        let lower = fs::symlink_metadata(real).ok();
        if is_whiteout(&u) {
            if lower.is_some() {
                self.refuse(real, Refused::Delete, upper);
            }
            return Ok(());
        }
        let Some(lower) = lower else {
            return self.new_entry(upper, real, &u);
        };
        let ft = u.file_type();
        if ft.is_dir() {
            if !lower.file_type().is_dir() {
                self.refuse(real, Refused::Overwrite, upper);
                return Ok(());
            }
            if is_opaque(upper) {
                self.refuse(real, Refused::ReplaceFolder, upper);
                return Ok(());
            }
            self.attributes(real, upper, &u, &lower);
            return self.dir(upper, real);
        }
        if ft.is_file() && lower.file_type().is_file() {
            self.attributes(real, upper, &u, &lower);
            return self.changed_file(upper, real, &u, &lower);
        }
        if ft.is_symlink()
            && lower.file_type().is_symlink()
            && fs::read_link(upper)? == fs::read_link(real)?
        {
            return Ok(());
        }
        self.refuse(real, Refused::Overwrite, upper);
        Ok(())
    }

    /// Permission and owner changes of a copied-up entry.
    fn attributes(&mut self, real: &Path, upper: &Path, u: &Metadata, lower: &Metadata) {
        if u.mode() & 0o7777 != lower.mode() & 0o7777 {
            self.refuse(real, Refused::Permissions, upper);
        }
        if u.uid() != lower.uid() || u.gid() != lower.gid() {
            self.refuse(real, Refused::Owner, upper);
        }
    }

    fn changed_file(
        &mut self,
        upper: &Path,
        real: &Path,
        u: &Metadata,
        lower: &Metadata,
    ) -> io::Result<()> {
        match compare(upper, real, u.len(), lower.len())? {
            Comparison::Same => {}
            Comparison::Appended if (self.appendable)(real) => {
                self.changes.kept.push(Kept::Append {
                    upper: upper.to_path_buf(),
                    real: real.to_path_buf(),
                    from: lower.len(),
                });
            }
            Comparison::Appended | Comparison::Different => {
                self.refuse(real, Refused::Overwrite, upper);
            }
            Comparison::Shorter => self.refuse(real, Refused::Truncate, upper),
        }
        Ok(())
    }

    fn new_entry(&mut self, upper: &Path, real: &Path, u: &Metadata) -> io::Result<()> {
        let ft = u.file_type();
        match (self.place)(real) {
            Place::Refuse => {
                self.refuse(real, Refused::CreateOutside, upper);
                // What a refused folder holds is read too: a move may go there, and the
                // user is asked about each new file by name.
                if ft.is_dir() {
                    self.children(upper, real)?;
                }
                return Ok(());
            }
            Place::DropQuietly => {
                self.changes.dropped.push(real.to_path_buf());
                return Ok(());
            }
            Place::Keep => {}
        }
        if ft.is_dir() {
            self.changes.kept.push(Kept::Dir {
                real: real.to_path_buf(),
                mode: u.mode() & 0o777,
                upper: upper.to_path_buf(),
            });
            // Everything below a new folder is new too; `place` still decides (a folder
            // the workspace may hold can hold a `.git/hooks` that must not be kept).
            self.children(upper, real)?;
        } else if ft.is_file() {
            self.changes.kept.push(Kept::File {
                upper: upper.to_path_buf(),
                real: real.to_path_buf(),
            });
        } else if ft.is_symlink() {
            self.changes.kept.push(Kept::Symlink {
                target: fs::read_link(upper)?,
                real: real.to_path_buf(),
            });
        } else {
            // Pipes, sockets and devices are never kept.
            self.changes.dropped.push(real.to_path_buf());
        }
        Ok(())
    }

    /// The entries of a new folder, each new too.
    fn children(&mut self, upper: &Path, real: &Path) -> io::Result<()> {
        let mut entries: Vec<fs::DirEntry> = fs::read_dir(upper)?.collect::<io::Result<_>>()?;
        entries.sort_by_key(fs::DirEntry::file_name);
        for entry in entries {
            self.count()?;
            let name = entry.file_name();
            let (up, re) = (upper.join(&name), real.join(&name));
            let m = fs::symlink_metadata(&up)?;
            if !is_whiteout(&m) {
                self.new_entry(&up, &re, &m)?;
            }
        }
        Ok(())
    }
}

/// A deletion mark of overlayfs: a character device with device number 0/0.
pub(super) fn is_whiteout(m: &Metadata) -> bool {
    m.file_type().is_char_device() && m.rdev() == 0
}

/// Whether overlayfs marked an upper folder as hiding the real folder's content. Set
/// as a `user.` attribute (the sandbox mounts its overlays with `userxattr`); the
/// `trusted.` form is read too, for a kernel that used it.
#[cfg(target_os = "linux")]
fn is_opaque(upper: &Path) -> bool {
    let mut buf = [0u8; 4];
    ["user.overlay.opaque", "trusted.overlay.opaque"]
        .iter()
        .any(|name| {
            rustix::fs::lgetxattr(upper, *name, &mut buf[..])
                .is_ok_and(|n| n >= 1 && buf[0] == b'y')
        })
}

#[cfg(not(target_os = "linux"))]
fn is_opaque(_upper: &Path) -> bool {
    false
}

enum Comparison {
    Same,
    /// The copy starts with the whole original and goes on.
    Appended,
    /// The copy is a strict beginning of the original.
    Shorter,
    Different,
}

/// Whether two files hold the same bytes.
pub(super) fn same_content(a: &Path, b: &Path) -> io::Result<bool> {
    let (la, lb) = (fs::metadata(a)?.len(), fs::metadata(b)?.len());
    Ok(la == lb && matches!(compare(a, b, la, lb)?, Comparison::Same))
}

fn compare(upper: &Path, real: &Path, u_len: u64, r_len: u64) -> io::Result<Comparison> {
    let mut a = File::open(upper)?;
    let mut b = File::open(real)?;
    let common = u_len.min(r_len);
    let mut left = common;
    let mut ba = vec![0u8; CHUNK];
    let mut bb = vec![0u8; CHUNK];
    while left > 0 {
        let n = usize::try_from(left.min(CHUNK as u64)).unwrap_or(CHUNK);
        a.read_exact(&mut ba[..n])?;
        b.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(Comparison::Different);
        }
        left -= n as u64;
    }
    Ok(match u_len.cmp(&r_len) {
        std::cmp::Ordering::Equal => Comparison::Same,
        std::cmp::Ordering::Greater => Comparison::Appended,
        std::cmp::Ordering::Less => Comparison::Shorter,
    })
}

/// What applying kept changes achieved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub created: Vec<PathBuf>,
    /// Files added to, with the length each had before.
    pub appended: Vec<(PathBuf, u64)>,
    /// Existing entries renamed: from, to.
    pub moved: Vec<(PathBuf, PathBuf)>,
    /// Entries that could not be kept, with why (one appeared meanwhile, a disk error).
    pub failed: Vec<(PathBuf, String)>,
}

/// Applies kept changes: folders first, in order (parents before what they hold), then
/// the rest. An entry whose name exists by now is left alone and reported.
pub fn apply(kept: &[Kept]) -> Applied {
    let mut out = Applied::default();
    let (dirs, rest): (Vec<&Kept>, Vec<&Kept>) =
        kept.iter().partition(|k| matches!(k, Kept::Dir { .. }));
    for k in dirs.into_iter().chain(rest) {
        let result = match k {
            Kept::Dir { real, mode, .. } => match fs::create_dir(real) {
                Ok(()) => fs::set_permissions(real, fs::Permissions::from_mode(*mode))
                    .map(|()| out.created.push(real.clone())),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && real.is_dir() => Ok(()),
                Err(e) => Err(e),
            },
            Kept::File { upper, real } => {
                keep_file(upper, real).map(|()| out.created.push(real.clone()))
            }
            Kept::Symlink { target, real } => {
                std::os::unix::fs::symlink(target, real).map(|()| out.created.push(real.clone()))
            }
            Kept::Append { upper, real, from } => {
                append(upper, real, *from).map(|()| out.appended.push((real.clone(), *from)))
            }
            Kept::Move { from, to } => {
                move_entry(from, to).map(|()| out.moved.push((from.clone(), to.clone())))
            }
        };
        if let Err(e) = result {
            out.failed.push((k.real().to_path_buf(), e.to_string()));
        }
    }
    out
}

/// Renames `from` to `to`, which must not exist (the journal's move: across file
/// systems, a copy then the original removed).
pub use crate::journal::move_entry;

/// Copies the entry at `src` (a file, a link or a whole folder of an upper folder) to
/// `dst`, a name that must not exist, keeping permissions; overlay whiteouts inside are
/// what the command removed, and are not copied.
pub fn copy_new(src: &Path, dst: &Path) -> io::Result<()> {
    crate::journal::copy_tree(src, dst, &is_whiteout)
}

/// A new file: a hard link to the sandbox's copy when both are on one file system (it
/// fails rather than replace an existing name), else a copy into a name created anew.
fn keep_file(upper: &Path, real: &Path) -> io::Result<()> {
    match fs::hard_link(upper, real) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
        Err(_) => {}
    }
    let mut src = File::open(upper)?;
    let mode = src.metadata()?.mode() & 0o777;
    let mut dst = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(real)?;
    io::copy(&mut src, &mut dst)?;
    dst.set_permissions(fs::Permissions::from_mode(mode))?;
    Ok(())
}

/// Adds the new tail of `upper` to `real`, if `real` still has the length it had.
fn append(upper: &Path, real: &Path, from: u64) -> io::Result<()> {
    let mut dst = fs::OpenOptions::new().append(true).open(real)?;
    if dst.metadata()?.len() != from {
        return Err(io::Error::other(
            "it changed while the command ran, so the addition was not made",
        ));
    }
    let mut src = File::open(upper)?;
    src.seek(SeekFrom::Start(from))?;
    io::copy(&mut src, &mut dst)?;
    dst.flush()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A real folder and its upper folder, as overlayfs leaves them after a command.
    pub(in crate::tools::sandbox) fn layer(root: &Path) -> (Layer, PathBuf, PathBuf) {
        let real = root.join("real");
        let upper = root.join("upper");
        fs::create_dir_all(&real).unwrap();
        fs::create_dir_all(&upper).unwrap();
        (
            Layer {
                real: real.clone(),
                upper: upper.clone(),
            },
            real,
            upper,
        )
    }

    /// What overlayfs writes for a deletion: a 0/0 character device (`mknod` needs root
    /// or a user namespace; the tests run as root).
    pub(in crate::tools::sandbox) fn whiteout(path: &Path) {
        let status = std::process::Command::new("mknod")
            .arg(path)
            .args(["c", "0", "0"])
            .status()
            .expect("mknod runs");
        assert!(status.success(), "mknod {}", path.display());
    }

    #[test]
    fn new_entries_are_kept_only_where_new_entries_may_go() {
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        fs::create_dir_all(upper.join("ws/out")).unwrap();
        fs::create_dir_all(real.join("ws")).unwrap();
        fs::write(upper.join("ws/out/a.txt"), "a").unwrap();
        fs::write(upper.join("elsewhere.txt"), "b").unwrap();
        fs::create_dir_all(upper.join(".cache/pip")).unwrap();
        let ws = real.join("ws");
        let cache = real.join(".cache");
        let place = |p: &Path| {
            if p.starts_with(&ws) {
                Place::Keep
            } else if p.starts_with(&cache) {
                Place::DropQuietly
            } else {
                Place::Refuse
            }
        };
        let c = scan(&[l], &place, &|_| true).unwrap();
        assert_eq!(
            c.refused,
            vec![Refusal {
                path: real.join("elsewhere.txt"),
                what: Refused::CreateOutside,
                upper: upper.join("elsewhere.txt"),
            }]
        );
        assert_eq!(c.dropped, vec![real.join(".cache")]);
        let applied = apply(&c.kept);
        assert_eq!(
            applied.created,
            vec![real.join("ws/out"), real.join("ws/out/a.txt")]
        );
        assert_eq!(fs::read_to_string(real.join("ws/out/a.txt")).unwrap(), "a");
        assert!(!real.join("elsewhere.txt").exists());
    }

    #[test]
    fn copies_of_existing_files_are_refused_unless_unchanged_or_appended() {
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        for (name, old, new) in [
            ("same.txt", "abc", "abc"),
            ("grown.log", "abc", "abcdef"),
            ("changed.txt", "abc", "xyz"),
            ("cut.txt", "abcdef", "abc"),
            ("emptied.txt", "abc", ""),
        ] {
            fs::write(real.join(name), old).unwrap();
            fs::write(upper.join(name), new).unwrap();
        }
        fs::write(real.join("mode.sh"), "x").unwrap();
        fs::write(upper.join("mode.sh"), "x").unwrap();
        fs::set_permissions(upper.join("mode.sh"), fs::Permissions::from_mode(0o777)).unwrap();
        fs::set_permissions(real.join("mode.sh"), fs::Permissions::from_mode(0o644)).unwrap();
        let c = scan(&[l], &|_| Place::Keep, &|_| true).unwrap();
        let refused: Vec<(String, Refused)> = c
            .refused
            .iter()
            .map(|r| {
                (
                    r.path.file_name().unwrap().to_string_lossy().into_owned(),
                    r.what,
                )
            })
            .collect();
        assert_eq!(
            refused,
            vec![
                ("changed.txt".into(), Refused::Overwrite),
                ("cut.txt".into(), Refused::Truncate),
                ("emptied.txt".into(), Refused::Truncate),
                ("mode.sh".into(), Refused::Permissions),
            ]
        );
        let applied = apply(&c.kept);
        assert_eq!(applied.appended, vec![(real.join("grown.log"), 3)]);
        assert_eq!(
            fs::read_to_string(real.join("grown.log")).unwrap(),
            "abcdef"
        );
        assert_eq!(fs::read_to_string(real.join("changed.txt")).unwrap(), "abc");
    }

    #[test]
    fn an_addition_where_appending_is_not_allowed_is_an_overwrite() {
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        fs::write(real.join(".bashrc"), "a").unwrap();
        fs::write(upper.join(".bashrc"), "a\nalias ls=rm").unwrap();
        let c = scan(&[l], &|_| Place::Refuse, &|_| false).unwrap();
        assert_eq!(c.refused[0].what, Refused::Overwrite);
        assert!(c.kept.is_empty());
    }

    #[test]
    fn a_new_file_never_replaces_one_that_appeared_meanwhile() {
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        fs::write(upper.join("n.txt"), "sandbox").unwrap();
        let c = scan(&[l], &|_| Place::Keep, &|_| true).unwrap();
        fs::write(real.join("n.txt"), "user").unwrap();
        let applied = apply(&c.kept);
        assert_eq!(applied.failed.len(), 1);
        assert_eq!(fs::read_to_string(real.join("n.txt")).unwrap(), "user");
    }

    #[test]
    fn a_symlink_replacing_a_real_folder_is_refused_and_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        fs::create_dir_all(real.join("docs")).unwrap();
        std::os::unix::fs::symlink("/etc", upper.join("docs")).unwrap();
        let c = scan(&[l], &|_| Place::Keep, &|_| true).unwrap();
        assert_eq!(c.refused[0].what, Refused::Overwrite);
        assert!(c.kept.is_empty());
    }
}
