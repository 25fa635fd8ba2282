//! Files and folders: deleting (`rm`, `shred`, `truncate`), copying, moving and linking
//! (`cp`, `mv`, `ln`, `rsync`, `scp`), writing through `tee`, creating (`mkdir`, `touch`),
//! permissions (`chmod` and kin) and the Trash.
//!
//! **Invariant:** deleting or replacing an existing file is always an effect; a path that does
//! not exist yet is recorded as created, and one only known at run time as unproven.

use std::path::Path;

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, parse};
use crate::laws::classify::assessment::{EffectKind, Existence, Target};
use crate::laws::classify::text;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[
    rule(&["rm", "rmdir", "unlink", "rimraf"], rm),
    rule(&["shred", "srm", "wipe"], shred),
    rule(&["truncate"], truncate),
    rule(&["fallocate"], fallocate),
    rule(&["cp", "install", "ditto", "gcp"], cp),
    rule(&["mv", "gmv"], mv),
    rule(&["ln"], ln),
    rule(&["rsync"], rsync),
    rule(&["scp"], scp),
    rule(&["tee"], tee),
    rule(
        &["chmod", "chown", "chgrp", "chflags", "setfacl", "chattr"],
        chmod,
    ),
    rule(&["gio"], gio),
    rule(&["trash-empty", "empty-trash"], trash_empty),
    rule(&["trash", "trash-put", "trash-cli"], trash),
    rule(&["mkdir", "touch"], mkdir),
];

fn rm(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name,
        rest,
        extra,
        source,
        ..
    } = *c;
    let p = parse(rest, "", &[], false);
    w.delete(&p.operands, source, extra, name != "rimraf");
}

fn shred(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let p = parse(rest, "nsx", &["iterations", "size", "random-source"], false);
    w.delete(&p.operands, source, extra, false);
}

fn truncate(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let p = parse(rest, "sr", &["size", "reference"], false);
    w.each_path(EffectKind::Truncate, &p.operands, source, extra);
}

fn fallocate(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let p = parse(rest, "lo", &["length", "offset"], false);
    if p.has('p', "punch-hole") || p.has('c', "collapse-range") || p.has('z', "zero-range") {
        w.each_path(EffectKind::Overwrite, &p.operands, source, extra);
    }
}

fn cp(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    copy_like(w, rest, source, extra, Transfer::Copy)
}

fn mv(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    copy_like(w, rest, source, extra, Transfer::Move);
}

fn ln(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let p = parse(rest, "tS", &["target-directory", "suffix"], false);
    let how = if p.has('f', "force") || p.has('\0', "remove-destination") {
        Transfer::Copy
    } else {
        Transfer::LinkNoForce
    };
    copy_like(w, rest, source, extra, how);
}

fn scp(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, "cFiJlPoS", &[], false);
    if let Some(dest) = p.operands.last().filter(|_| p.operands.len() >= 2) {
        if dest.text().contains(':') && !dest.text().starts_with('/') {
            w.unproven(
                source,
                format!("it copies to {}, another computer", dest.text()),
            );
        } else {
            w.overwrite_if_exists(dest, source);
        }
    }
}

fn tee(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, .. } = *c;
    let p = parse(rest, "", &["output-error"], false);
    let append = p.has('a', "append");
    for op in &p.operands {
        if append {
            w.append_target(op, "tee -a");
        } else {
            w.write_target(op, "tee");
        }
    }
}

fn chmod(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name,
        rest,
        extra,
        source,
        ..
    } = *c;
    let p = parse(rest, "", &["reference", "from"], false);
    let recursive = p.has('R', "recursive") || (name == "setfacl" && p.has('R', "recursive"));
    if recursive || extra.is_some() {
        let targets = p.operands.get(1..).unwrap_or(&[]);
        if targets.is_empty() {
            w.push(
                EffectKind::Permissions,
                Target::Unknown(extra.unwrap_or("the files it is given").to_string()),
                source.to_string(),
                None,
            );
        } else {
            w.each_path(EffectKind::Permissions, targets, source, extra);
        }
    } else if p.operands.iter().skip(1).any(|a| {
        a.fixed().is_some_and(|s| s == "/" || s == "~")
            || a.fixed()
                .and_then(|s| text::resolve(s, w.cwd.as_deref()))
                .is_some_and(|r| r == w.scope.home)
    }) {
        w.unknown(
            EffectKind::Permissions,
            "the home folder or the whole disk",
            source,
        );
    } else {
        // One file's permissions can be set back, but the sandbox keeps every
        // existing file's as it is: not proven (a file made by this command
        // is its own).
        for op in p.operands.iter().skip(1) {
            match w.path_target(op) {
                Target::Path { path, .. } if w.created_here(&path) => {}
                Target::Path {
                    exists: Existence::Missing,
                    ..
                } => {}
                _ => {
                    w.unproven(source, format!("it changes who may use {}", op.text()));
                    break;
                }
            }
        }
    }
}

fn gio(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let sub = rest.first().map(|a| a.text()).unwrap_or_default();
    if sub == "remove" || sub == "rm" {
        let p = parse(&rest[1..], "", &[], false);
        w.delete(&p.operands, source, extra, false);
    } else if sub == "trash" && rest.iter().any(|a| a.text() == "--empty") {
        w.unknown(EffectKind::Delete, "everything in the Trash", source);
    }
}

fn trash_empty(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { source, .. } = *c;
    w.unknown(EffectKind::Delete, "everything in the Trash", source)
}

fn trash(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest
        .iter()
        .any(|a| matches!(a.text(), "-e" | "--empty" | "empty"))
    {
        w.unknown(EffectKind::Delete, "everything in the Trash", source);
    }
}

fn mkdir(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    // New folders and files: free, and kept by the sandbox where they are.
    let p = parse(
        rest,
        if name == "mkdir" { "m" } else { "drt" },
        &["mode", "date", "reference", "time"],
        false,
    );
    for op in &p.operands {
        match w.path_target(op) {
            Target::Path {
                path,
                exists: Existence::Missing,
            } => w.new_path(path, source.to_string()),
            Target::Path { .. } => {}
            _ => w.unproven(
                source,
                "what it creates is only known when the command runs",
            ),
        }
    }
}

/// `cp a b DIR/`: each source lands at DIR/its name. A name already there is
/// overwritten unless the command keeps old files.
fn copy_into_folder(
    w: &mut Walker<'_>,
    path: &Path,
    sources: &[&Arg],
    source: &str,
    extra: Option<&str>,
    keeps_old: bool,
) {
    w.fills(path.to_path_buf());
    for src in sources {
        match src.fixed() {
            Some(s) => {
                let base = s.trim_end_matches('/').rsplit('/').next().unwrap_or(s);
                let landing = path.join(base);
                if !w.scope.fs.exists(&landing) {
                    w.new_path(landing, source.to_string());
                } else if !keeps_old && !w.created_here(&landing) {
                    let note = text::lookalike_note(&landing.to_string_lossy());
                    w.push(
                        EffectKind::Overwrite,
                        Target::Path {
                            path: landing,
                            exists: Existence::Exists,
                        },
                        source.to_string(),
                        note,
                    );
                }
            }
            None if keeps_old => {}
            None => w.unproven(
                source,
                format!(
                    "files in {} with the same names may exist; the sandbox keeps them",
                    path.display()
                ),
            ),
        }
    }
    if extra.is_some() && !keeps_old {
        w.unproven(
            source,
            format!(
                "files in {} with the same names may exist; the sandbox keeps them",
                path.display()
            ),
        );
    }
}

/// `cp`/`mv`/`install`/`ln`: overwriting an existing destination is irreversible, and
/// so (as the user sees it) is moving an existing file away; a destination that does
/// not exist yet is a path the command creates.
fn copy_like(w: &mut Walker<'_>, rest: &[Arg], source: &str, extra: Option<&str>, how: Transfer) {
    let p = parse(
        rest,
        "tSbm",
        &[
            "target-directory",
            "suffix",
            "backup",
            "mode",
            "owner",
            "group",
            "reply",
        ],
        false,
    );
    let keeps_old = p.has('n', "no-clobber")
        || p.value("update")
            .is_some_and(|v| v.text().starts_with("none"))
        // `--backup`/`-b` keeps the old file: reversible.
        || p.has('b', "backup")
        || how == Transfer::LinkNoForce;
    let target_dir = p
        .value("t")
        .or_else(|| p.value("target-directory"))
        .cloned();
    let (sources, dest): (Vec<&Arg>, Option<Arg>) = match target_dir {
        Some(dir) => (p.operands.clone(), Some(dir)),
        None if p.operands.len() >= 2 => (
            p.operands[..p.operands.len() - 1].to_vec(),
            p.operands.last().map(|a| (*a).clone()),
        ),
        None if p.operands.len() == 1 && extra.is_some() => {
            (Vec::new(), p.operands.first().map(|a| (*a).clone()))
        }
        None => (Vec::new(), None),
    };
    if how == Transfer::Move {
        moved_away(w, &sources, source, extra);
    }
    let Some(dest) = dest else {
        if extra.is_some() {
            w.unproven(source, "it writes where the names it is given say");
        }
        return;
    };
    match w.path_target(&dest) {
        Target::Path {
            path,
            exists: Existence::Exists,
        } if w.scope.fs.is_dir(&path) => {
            // Into an existing folder: each source lands at folder/basename.
            copy_into_folder(w, &path, &sources, source, extra, keeps_old);
        }
        Target::Path {
            path,
            exists: Existence::Missing,
        } => w.new_path(path, source.to_string()),
        Target::Path { path, .. } if keeps_old || w.created_here(&path) => {}
        target @ Target::Path {
            exists: Existence::Exists,
            ..
        } => {
            let note = text::lookalike_note(dest.text());
            w.push(EffectKind::Overwrite, target, source.to_string(), note);
        }
        _ => w.unproven(
            source,
            "where it writes is only known when the command runs",
        ),
    }
}

/// `mv` takes its sources away from where they are.
fn moved_away(w: &mut Walker<'_>, sources: &[&Arg], source: &str, extra: Option<&str>) {
    for src in sources {
        match w.path_target(src) {
            Target::Path { path, .. } if w.created_here(&path) => {}
            Target::Path {
                path,
                exists: Existence::Missing,
            } => {
                let shown = path.display().to_string();
                w.unproven(source, format!("{shown} does not exist now"));
            }
            target => w.push(EffectKind::Move, target, source.to_string(), None),
        }
    }
    if let Some(what) = extra {
        w.push(
            EffectKind::Move,
            Target::Unknown(what.to_string()),
            source.to_string(),
            None,
        );
    }
}

fn rsync(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(
        rest,
        "eBfTM",
        &[
            "rsh",
            "filter",
            "exclude",
            "include",
            "temp-dir",
            "backup-dir",
            "suffix",
            "rsync-path",
            "files-from",
            "exclude-from",
            "include-from",
            "link-dest",
            "compare-dest",
            "copy-dest",
            "chmod",
            "chown",
            "log-file",
            "password-file",
            "partial-dir",
        ],
        false,
    );
    if p.has('n', "dry-run") {
        return;
    }
    if p.has_long_prefix("delete") || p.has('\0', "del") || p.has('\0', "remove-source-files") {
        w.unknown(
            EffectKind::Delete,
            "files rsync removes (--delete / --remove-source-files)",
            source,
        );
    }
    if p.value("e")
        .or_else(|| p.value("rsh"))
        .or_else(|| p.value("rsync-path"))
        .is_some()
    {
        w.unproven(source, "rsync was told which program to run");
    }
    let remote = |t: &str| t.contains(':') && !t.starts_with('/') && !t.starts_with('.');
    if p.operands.iter().any(|a| remote(a.text())) {
        w.unproven(source, "rsync reaches another computer");
    }
    if p.operands.len() >= 2
        && let Some(dest) = p.operands.last()
        && !remote(dest.text())
    {
        let dest = (*dest).clone();
        let keeps_old = p.has('\0', "ignore-existing") || p.has('b', "backup");
        match w.path_target(&dest) {
            Target::Path {
                path,
                exists: Existence::Exists,
            } if w.scope.fs.is_dir(&path) => {
                w.fills(path.clone());
                if !keeps_old {
                    w.unproven(
                        source,
                        format!(
                            "files in {} with the same names may exist; the sandbox keeps them",
                            path.display()
                        ),
                    );
                }
            }
            _ if keeps_old => {}
            _ => w.write_target(&dest, "rsync"),
        }
    }
}

/// How `copy_like` treats its sources and an existing destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transfer {
    Copy,
    Move,
    /// `ln` without `-f`: an existing destination makes it fail, never replaced.
    LinkNoForce,
}
