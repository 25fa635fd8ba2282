//! Moves, read back from a layer. overlayfs records the rename of an existing entry as
//! a deletion at the old name and a new entry at the new one (a file is copied up and
//! renamed; a folder is copied whole by `mv`, which cannot rename it across layers). A
//! move that replaces nothing loses nothing: the same bytes are still there, under
//! another name. So each deletion whose entry reappears, identical, as a new entry
//! becomes a [`Kept::Move`] when both ends are places a move may touch, and the new
//! folders on the way to it are kept with it. An overwrite whose original reappears as a
//! new file (a backup: `cp --backup`, `sed -i.bak`) is that move followed by a new file
//! under the old name. Everything else stays as it was read.
//!
//! **Invariant:** a deletion is turned into a move only when a new entry holds exactly
//! what the deleted one held (every byte, every name below a folder); a move never lands
//! on a name that existed (a move onto an existing file is an overwrite and stays one).

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::changes::{Changes, Kept, Refused, is_whiteout, same_content};

/// Bytes compared before the rest of the deletions are left as they are (asked about).
const MAX_COMPARED: u64 = 1 << 30;

/// A new entry of the layer that a deletion may have moved to.
struct Arrival {
    real: PathBuf,
    upper: PathBuf,
    is_dir: bool,
    len: u64,
    taken: bool,
}

/// Turns deletions whose content reappears as a new entry into moves, where `movable`
/// allows both the old and the new path.
pub fn pair(changes: &mut Changes, movable: &dyn Fn(&Path) -> bool) -> io::Result<()> {
    let mut arrivals = arrivals(changes)?;
    let mut budget = MAX_COMPARED;
    let mut moves: Vec<(PathBuf, usize)> = Vec::new();
    // A file overwritten after its original was kept under a new name (`cp --backup`,
    // `sed -i.bak`) lost nothing either: the original moved, and new bytes took its name.
    let mut replaced: Vec<PathBuf> = Vec::new();
    for r in changes.refused.iter().filter(|r| {
        matches!(
            r.what,
            Refused::Delete | Refused::Overwrite | Refused::Truncate
        )
    }) {
        let from = &r.path;
        if !movable(from) || budget == 0 {
            continue;
        }
        let overwritten = r.what != Refused::Delete;
        if overwritten && !fs::symlink_metadata(&r.upper).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let Ok(meta) = fs::symlink_metadata(from) else {
            continue;
        };
        let is_dir = meta.is_dir();
        // The same name first: `mv a dir/` keeps it.
        let mut order: Vec<usize> = (0..arrivals.len())
            .filter(|&i| {
                let a = &arrivals[i];
                !a.taken
                    && a.is_dir == is_dir
                    && (is_dir || a.len == meta.len())
                    && movable(&a.real)
            })
            .collect();
        order.sort_by_key(|&i| arrivals[i].real.file_name() != from.file_name());
        for i in order {
            let a = &arrivals[i];
            let same = if is_dir {
                same_tree(from, &a.upper, &mut budget)?
            } else {
                budget = budget.saturating_sub(meta.len());
                meta.file_type().is_file() && same_content(from, &a.upper)?
            };
            if same {
                arrivals[i].taken = true;
                moves.push((from.clone(), i));
                if overwritten {
                    replaced.push(from.clone());
                }
                break;
            }
        }
    }
    if moves.is_empty() {
        return Ok(());
    }
    let moved_to: Vec<PathBuf> = moves
        .iter()
        .map(|(_, i)| arrivals[*i].real.clone())
        .collect();
    let moved_from: Vec<&PathBuf> = moves.iter().map(|(from, _)| from).collect();
    let under_a_move = |p: &Path| moved_to.iter().any(|to| p.starts_with(to));
    let on_the_way = |p: &Path| moved_to.iter().any(|to| to.starts_with(p) && to != p);
    changes.kept.retain(|k| !under_a_move(k.real()));
    let mut refused = Vec::with_capacity(changes.refused.len());
    let mut new_contents: Vec<Kept> = Vec::new();
    for r in std::mem::take(&mut changes.refused) {
        if matches!(r.what, Refused::Overwrite | Refused::Truncate) && replaced.contains(&r.path) {
            new_contents.push(Kept::File {
                upper: r.upper,
                real: r.path,
            });
            continue;
        }
        if r.what == Refused::Delete && moved_from.contains(&&r.path) || under_a_move(&r.path) {
            continue;
        }
        if r.what == Refused::CreateOutside && on_the_way(&r.path) && movable(&r.path) {
            changes.kept.push(Kept::Dir {
                mode: fs::symlink_metadata(&r.upper)?.mode() & 0o777,
                real: r.path,
                upper: r.upper,
            });
            continue;
        }
        refused.push(r);
    }
    changes.refused = refused;
    for (from, i) in moves {
        changes.kept.push(Kept::Move {
            from,
            to: std::mem::take(&mut arrivals[i].real),
        });
    }
    // After the moves: the new bytes under the name the original left.
    changes.kept.extend(new_contents);
    Ok(())
}

/// Every new entry of the layer, kept or not, that is a file or a folder.
fn arrivals(changes: &Changes) -> io::Result<Vec<Arrival>> {
    let mut out = Vec::new();
    for k in &changes.kept {
        match k {
            Kept::File { upper, real } => out.push(Arrival {
                real: real.clone(),
                upper: upper.clone(),
                is_dir: false,
                len: fs::metadata(upper)?.len(),
                taken: false,
            }),
            Kept::Dir { real, upper, .. } => out.push(Arrival {
                real: real.clone(),
                upper: upper.clone(),
                is_dir: true,
                len: 0,
                taken: false,
            }),
            _ => {}
        }
    }
    for r in changes
        .refused
        .iter()
        .filter(|r| r.what == Refused::CreateOutside)
    {
        let m = fs::symlink_metadata(&r.upper)?;
        if m.is_dir() || m.is_file() {
            out.push(Arrival {
                real: r.path.clone(),
                upper: r.upper.clone(),
                is_dir: m.is_dir(),
                len: m.len(),
                taken: false,
            });
        }
    }
    Ok(out)
}

/// Whether the folder `upper` holds exactly what the real folder `real` holds: the same
/// names, the same bytes, the same link targets, all the way down.
fn same_tree(real: &Path, upper: &Path, budget: &mut u64) -> io::Result<bool> {
    let names = |dir: &Path| -> io::Result<Vec<std::ffi::OsString>> {
        let mut v = Vec::new();
        for e in fs::read_dir(dir)? {
            let e = e?;
            if !is_whiteout(&fs::symlink_metadata(e.path())?) {
                v.push(e.file_name());
            }
        }
        v.sort();
        Ok(v)
    };
    let (a, b) = (names(real)?, names(upper)?);
    if a != b {
        return Ok(false);
    }
    for name in a {
        let (r, u) = (real.join(&name), upper.join(&name));
        let (mr, mu) = (fs::symlink_metadata(&r)?, fs::symlink_metadata(&u)?);
        let same = if mr.is_dir() && mu.is_dir() {
            same_tree(&r, &u, budget)?
        } else if mr.file_type().is_symlink() && mu.file_type().is_symlink() {
            fs::read_link(&r)? == fs::read_link(&u)?
        } else if mr.is_file() && mu.is_file() {
            if *budget < mr.len() {
                return Ok(false);
            }
            *budget -= mr.len();
            same_content(&r, &u)?
        } else {
            false
        };
        if !same {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::sandbox::changes::tests::{layer, whiteout};
    use crate::tools::sandbox::changes::{Place, apply, scan};

    #[test]
    fn a_file_renamed_into_a_new_folder_is_a_move_that_asks_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        fs::write(real.join("a.log"), "log a").unwrap();
        fs::write(real.join("keep.txt"), "k").unwrap();
        whiteout(&upper.join("a.log"));
        fs::create_dir(upper.join("logs")).unwrap();
        fs::write(upper.join("logs/a.log"), "log a").unwrap();
        let mut c = scan(&[l], &|_| Place::Refuse, &|_| false).unwrap();
        assert_eq!(c.refused.len(), 3, "{c:?}");
        pair(&mut c, &|_| true).unwrap();
        assert!(c.refused.is_empty(), "{:?}", c.refused);
        let applied = apply(&c.kept);
        assert_eq!(
            applied.moved,
            vec![(real.join("a.log"), real.join("logs/a.log"))]
        );
        assert!(applied.failed.is_empty(), "{:?}", applied.failed);
        assert_eq!(
            fs::read_to_string(real.join("logs/a.log")).unwrap(),
            "log a"
        );
        assert!(!real.join("a.log").exists());
    }

    #[test]
    fn an_overwrite_whose_original_was_kept_under_a_new_name_loses_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        fs::write(real.join("report.md"), "old text").unwrap();
        fs::write(upper.join("report.md"), "new text").unwrap();
        fs::write(upper.join("report.md.bak"), "old text").unwrap();
        let mut c = scan(&[l], &|_| Place::Keep, &|_| false).unwrap();
        assert_eq!(c.refused.len(), 1, "{c:?}");
        pair(&mut c, &|_| true).unwrap();
        assert!(c.refused.is_empty(), "{:?}", c.refused);
        let applied = apply(&c.kept);
        assert!(applied.failed.is_empty(), "{:?}", applied.failed);
        assert_eq!(
            fs::read_to_string(real.join("report.md")).unwrap(),
            "new text"
        );
        assert_eq!(
            fs::read_to_string(real.join("report.md.bak")).unwrap(),
            "old text"
        );
        // Without the kept original, the same overwrite stays one.
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        fs::write(real.join("report.md"), "old text").unwrap();
        fs::write(upper.join("report.md"), "new text").unwrap();
        fs::write(upper.join("other.md"), "OLD TEXT").unwrap();
        let mut c = scan(&[l], &|_| Place::Keep, &|_| false).unwrap();
        pair(&mut c, &|_| true).unwrap();
        assert_eq!(c.refused.len(), 1);
        assert_eq!(c.refused[0].what, Refused::Overwrite);
    }

    #[test]
    fn a_whole_folder_copied_then_deleted_is_a_move() {
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        fs::create_dir_all(real.join("old/sub")).unwrap();
        fs::write(real.join("old/sub/x.txt"), "x").unwrap();
        fs::write(real.join("old/y.txt"), "y").unwrap();
        whiteout(&upper.join("old"));
        fs::create_dir_all(upper.join("new/sub")).unwrap();
        fs::write(upper.join("new/sub/x.txt"), "x").unwrap();
        fs::write(upper.join("new/y.txt"), "y").unwrap();
        let mut c = scan(&[l], &|_| Place::Refuse, &|_| false).unwrap();
        pair(&mut c, &|_| true).unwrap();
        assert!(c.refused.is_empty(), "{:?}", c.refused);
        let applied = apply(&c.kept);
        assert_eq!(applied.moved, vec![(real.join("old"), real.join("new"))]);
        assert_eq!(fs::read_to_string(real.join("new/sub/x.txt")).unwrap(), "x");
    }

    #[test]
    fn a_deletion_with_no_identical_arrival_or_into_a_forbidden_place_stays_a_deletion() {
        let tmp = tempfile::tempdir().unwrap();
        let (l, real, upper) = layer(tmp.path());
        fs::write(real.join("a.txt"), "original").unwrap();
        fs::write(real.join("b.txt"), "bee").unwrap();
        whiteout(&upper.join("a.txt"));
        whiteout(&upper.join("b.txt"));
        // Same size, other bytes: not a move of a.txt.
        fs::write(upper.join("c.txt"), "ORIGINAL").unwrap();
        fs::create_dir(upper.join("secret")).unwrap();
        fs::write(upper.join("secret/b.txt"), "bee").unwrap();
        let mut c = scan(&[l], &|_| Place::Refuse, &|_| false).unwrap();
        let secret = real.join("secret");
        pair(&mut c, &|p: &Path| !p.starts_with(&secret)).unwrap();
        let deleted: Vec<&Path> = c
            .refused
            .iter()
            .filter(|r| r.what == Refused::Delete)
            .map(|r| r.path.as_path())
            .collect();
        assert_eq!(deleted, vec![real.join("a.txt"), real.join("b.txt")]);
        assert!(!c.kept.iter().any(|k| matches!(k, Kept::Move { .. })));
    }
}
