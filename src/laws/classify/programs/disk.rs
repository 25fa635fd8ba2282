//! Disks and backups: `dd`, the tools that format or repartition (`mkfs*`, `fdisk`,
//! `diskutil erase…`), secure erase and encryption tools, and Time Machine (`tmutil`).
//!
//! **Invariant:** anything that can erase a disk is a Format effect unless its sub-command is
//! one of the listed read-only ones.

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, first_operand, parse};
use crate::laws::classify::assessment::EffectKind;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[
    rule(&["dd"], dd),
    rule(&["diskutil"], diskutil),
    rule(&["tmutil"], tmutil),
    rule(&["blkdiscard", "nvme", "hdparm", "badblocks"], blkdiscard),
    rule(&["cryptsetup"], cryptsetup),
];

fn dd(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let of = rest
        .iter()
        .find_map(|a| a.text().strip_prefix("of=").map(|v| (a, v.to_string())));
    if let Some((arg, path)) = of {
        let target_arg = Arg {
            lit: arg.lit.as_ref().map(|_| path.clone()),
            raw: path,
            glob: arg.glob,
        };
        if target_arg.fixed().is_some_and(|t| {
            t.starts_with("/dev/") && !matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr")
        }) {
            w.plain(EffectKind::Format, source);
        } else {
            w.write_target(&target_arg, "dd of=");
        }
    }
    let understood = rest.iter().all(|a| {
        a.fixed()
            .and_then(|t| t.split_once('='))
            .is_some_and(|(k, _)| {
                matches!(
                    k,
                    "if" | "of"
                        | "bs"
                        | "ibs"
                        | "obs"
                        | "cbs"
                        | "count"
                        | "skip"
                        | "seek"
                        | "iseek"
                        | "oseek"
                        | "conv"
                        | "status"
                        | "iflag"
                        | "oflag"
                )
            })
    });
    if !understood {
        w.unproven(source, "dd was given an operand artoo does not know");
    }
}

fn diskutil(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, "", &[], false);
    let sub = p.operands.first().map(|a| a.text().to_ascii_lowercase());
    let safe = matches!(
        sub.as_deref(),
        None | Some(
            "list"
                | "info"
                | "activity"
                | "listfilesystems"
                | "verifyvolume"
                | "verifydisk"
                | "mount"
                | "mountdisk"
                | "unmount"
                | "unmountdisk"
                | "eject"
                | "apfs"
        )
    );
    let apfs_destructive = sub.as_deref() == Some("apfs")
        && p.operands.get(1).is_some_and(|a| {
            let s = a.text().to_ascii_lowercase();
            s.starts_with("delete") || s.starts_with("erase") || s.contains("resize")
        });
    if !safe || apfs_destructive {
        w.plain(EffectKind::Format, source);
    } else if rest.iter().any(|a| a.text().eq_ignore_ascii_case("force")) {
        // A forced unmount or eject drops what programs had not saved.
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn tmutil(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let sub = rest
        .first()
        .map(|a| a.text().to_ascii_lowercase())
        .unwrap_or_default();
    if sub.starts_with("delete")
        || matches!(
            sub.as_str(),
            "disable" | "removedestination" | "setdestination" | "thinlocalsnapshots" | "restore"
        )
    {
        w.unknown(
            EffectKind::Delete,
            "Time Machine backups or settings",
            source,
        );
    } else if !matches!(
        sub.as_str(),
        "listbackups"
            | "latestbackup"
            | "destinationinfo"
            | "status"
            | "isexcluded"
            | "compare"
            | "listlocalsnapshots"
            | "listlocalsnapshotdates"
            | "machinedirectory"
            | "version"
            | "help"
    ) {
        w.unproven(source, format!("`tmutil {sub}` changes Time Machine"));
    }
}

fn blkdiscard(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    if name != "hdparm"
        || rest
            .iter()
            .any(|a| a.text().starts_with("--security") || a.text() == "--trim-sector-ranges")
    {
        w.plain(EffectKind::Format, source);
    }
}

fn cryptsetup(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let sub = first_operand(rest);
    if !matches!(
        sub,
        "status" | "isLuks" | "luksDump" | "luksUUID" | "benchmark" | "tcryptDump" | ""
    ) {
        w.plain(EffectKind::Format, source);
    }
}

/// The tools that make a file system or a partition table (`mkfs.*`, `fdisk`, `wipefs`…).
pub(super) fn format(w: &mut Walker<'_>, c: &Call<'_>) {
    w.plain(EffectKind::Format, c.source);
}
