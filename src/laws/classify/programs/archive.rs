//! Archives and compressors: `tar`, `zip`, `unzip`, `7z`, and `gzip` with its kin.
//!
//! **Invariant:** unpacking into an existing folder is unproven (files there may be replaced);
//! a compressor that replaces its input records the input's deletion.

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, parse};
use crate::laws::classify::assessment::{EffectKind, Target};
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[
    rule(&["unzip"], unzip),
    rule(&["tar", "gtar", "bsdtar"], tar),
    rule(&["zip"], zip),
    rule(
        &[
            "gzip",
            "gunzip",
            "bzip2",
            "bunzip2",
            "xz",
            "unxz",
            "lzma",
            "unlzma",
            "zstd",
            "unzstd",
            "lz4",
            "compress",
            "uncompress",
        ],
        compressor,
    ),
    rule(&["7z", "7za", "7zz"], seven_zip),
];

fn zip(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(
        rest,
        "bnitxiO",
        &["temp-path", "suffixes", "unzip-command", "output-file"],
        false,
    );
    if rest.iter().any(|a| {
        a.text() == "-m"
            || a.text() == "--move"
            || (a.text().starts_with('-') && !a.text().starts_with("--") && a.text().contains('m'))
    }) {
        w.unknown(
            EffectKind::Delete,
            "the original files (moved into the archive)",
            source,
        );
    }
    if rest
        .iter()
        .any(|a| matches!(a.text(), "-TT" | "--unzip-command"))
    {
        w.unproven(source, "zip runs a command to test the archive");
    }
    let out = p.value("O").or_else(|| p.value("output-file")).cloned();
    match out.or_else(|| p.operands.first().map(|a| (*a).clone())) {
        // zip adds to an archive that exists: it is rewritten.
        Some(archive) if archive.text() != "-" => w.write_target(&archive, "zip"),
        _ => {}
    }
}

fn seven_zip(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let sub = rest.first().map(Arg::text).unwrap_or_default();
    match sub {
        "x" | "e" => {
            let out = rest
                .iter()
                .find_map(|a| a.text().strip_prefix("-o").map(str::to_string));
            let dir = out
                .map(|d| Arg::literal(&d))
                .unwrap_or_else(|| Arg::literal("."));
            w.extraction_into(&dir, source);
        }
        "a" | "u" | "d" | "rn" => {
            if rest.iter().any(|a| a.text() == "-sdel") {
                w.unknown(EffectKind::Delete, "the files added to the archive", source);
            }
            if let Some(archive) = rest.iter().skip(1).find(|a| !a.text().starts_with('-')) {
                let archive = archive.clone();
                w.write_target(&archive, "7z");
            }
        }
        _ => {}
    }
}

fn tar(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(
        rest,
        "fCTXbNIFL",
        &[
            "file",
            "directory",
            "files-from",
            "exclude-from",
            "blocking-factor",
            "newer",
            "use-compress-program",
            "to-command",
            "info-script",
            "new-volume-script",
            "rsh-command",
            "rmt-command",
            "checkpoint-action",
        ],
        false,
    );
    // Old-style bundled first argument: `tar czf out.tgz …`.
    let bundle = rest
        .first()
        .filter(|a| !a.text().starts_with('-'))
        .map(|a| a.text().to_string())
        .unwrap_or_default();
    let flag = |c: char, long: &str| p.has(c, long) || bundle.contains(c);
    if p.has('\0', "remove-files") {
        w.unknown(EffectKind::Delete, "the files added to the archive", source);
    }
    let runs = [
        "use-compress-program",
        "to-command",
        "info-script",
        "new-volume-script",
        "rsh-command",
        "rmt-command",
        "checkpoint-action",
    ]
    .iter()
    .any(|k| p.value(k).is_some() || p.has('\0', k))
        || p.value("I").is_some()
        || p.value("F").is_some();
    if runs {
        w.unproven(source, "tar was told to run another program");
    }
    let archive = p
        .value("f")
        .or_else(|| p.value("file"))
        .cloned()
        .or_else(|| {
            if bundle.contains('f') {
                p.operands.get(1).map(|a| (*a).clone())
            } else {
                None
            }
        });
    if archive
        .as_ref()
        .is_some_and(|a| a.text().contains(':') && !a.text().starts_with('/'))
    {
        w.unproven(source, "the archive is on another machine");
    }
    let extracting = flag('x', "extract") || p.has('\0', "get");
    // GNU tar replaces existing files when extracting unless told to keep them; a
    // folder that does not exist yet (`mkdir d && tar -x … -C d`) holds nothing.
    let keeps = flag('k', "keep-old-files")
        || p.has('\0', "skip-old-files")
        || p.has('\0', "keep-newer-files");
    if extracting && !flag('t', "list") {
        let into = p
            .value("C")
            .or_else(|| p.value("directory"))
            .cloned()
            .unwrap_or_else(|| Arg::literal("."));
        if keeps {
            w.fills_or_creates(&into, source);
        } else {
            w.extraction_into(&into, source);
        }
    }
    if (flag('c', "create") || flag('r', "append") || flag('u', "update"))
        && let Some(a) = archive.filter(|a| a.text() != "-")
    {
        w.write_target(&a, "tar -f");
    }
}

fn unzip(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, "dxP", &[], false);
    let listing = rest.iter().any(|a| {
        let t = a.text();
        t.starts_with('-') && !t.starts_with("--") && t.contains(['l', 't', 'v', 'p', 'Z', 'z'])
    });
    if listing {
        return;
    }
    let overwrite = rest.iter().any(|a| {
        let t = a.text();
        t.starts_with('-') && !t.starts_with("--") && t.contains(['o', 'f', 'u'])
    });
    let into = p.value("d").cloned().unwrap_or_else(|| Arg::literal("."));
    if overwrite {
        w.extraction_into(&into, source);
    } else {
        // Without -o, unzip leaves existing files alone (it cannot ask: no input).
        w.fills_or_creates(&into, source);
    }
}

/// gzip and kin: `gzip FILE` replaces FILE by FILE.gz (the original is removed)
/// unless kept (`-k`) or written to standard output (`-c`).
fn compressor(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    let mut keep = matches!(name, "zstd" | "unzstd" | "lz4");
    let mut stdout = false;
    let mut force = false;
    let mut files: Vec<&Arg> = Vec::new();
    for a in rest {
        let t = a.text();
        match t {
            "--keep" | "-k" => keep = true,
            "--stdout" | "--to-stdout" | "-c" | "--test" | "-t" | "--list" | "-l" => stdout = true,
            "--force" | "-f" => force = true,
            "--rm" => keep = false,
            _ if t.starts_with("--") => {}
            _ if t.starts_with('-') && t.len() > 1 => {
                keep |= t.contains('k');
                stdout |= t.contains(['c', 't', 'l']);
                force |= t.contains('f');
            }
            _ => files.push(a),
        }
    }
    if stdout || files.is_empty() {
        return;
    }
    if !keep {
        let what = files
            .iter()
            .map(|a| a.text())
            .collect::<Vec<_>>()
            .join(", ");
        w.push(
            EffectKind::Delete,
            Target::Unknown(format!(
                "{what} (replaced by its compressed or expanded copy)"
            )),
            source.to_string(),
            None,
        );
    }
    if force {
        w.unproven(
            source,
            "with -f it replaces output files that already exist",
        );
    }
    if let Some(cwd) = w.cwd.clone() {
        w.fills(cwd);
    }
}
