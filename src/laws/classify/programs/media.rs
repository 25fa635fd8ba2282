//! Programs that rewrite files by their content: images and video (`ffmpeg`, ImageMagick,
//! `sips`), metadata (`exiv2`, `exiftool`), property lists (`plutil`, `PlistBuddy`), and
//! key files (`openssl`, `ssh-keygen`).
//!
//! **Invariant:** a file rewritten in place is an Overwrite of it; an output file goes through
//! the walker's write rule (new: created; existing: overwritten).

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, parse};
use crate::laws::classify::assessment::EffectKind;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[
    rule(&["ffmpeg"], ffmpeg),
    rule(&["convert", "magick"], convert),
    rule(&["openssl"], openssl),
    rule(&["ssh-keygen"], ssh_keygen),
    rule(&["exiv2"], exiv2),
    rule(&["plutil"], plutil),
    rule(&["plistbuddy"], plistbuddy),
    rule(&["sips"], sips),
    rule(&["mogrify"], mogrify),
    rule(&["exiftool"], exiftool),
];

fn ffmpeg(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.iter().any(|a| a.text() == "-y")
        && let Some(out) = rest.last()
    {
        w.overwrite_if_exists(out, source);
    }
}

fn convert(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, "", &[], false);
    if p.operands.len() >= 2
        && let Some(out) = p.operands.last()
    {
        w.overwrite_if_exists(out, source);
    }
}

fn openssl(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, .. } = *c;
    // `-out FILE` (and `-keyout`, `-signkey` writes for `req`) write files.
    for (i, a) in rest.iter().enumerate() {
        if matches!(a.text(), "-out" | "-keyout")
            && let Some(out) = rest.get(i + 1)
        {
            let out = out.clone();
            w.write_target(&out, "openssl -out");
        }
    }
}

fn ssh_keygen(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let reads = rest.iter().any(|a| {
        matches!(
            a.text(),
            "-l" | "-y" | "-F" | "-H" | "-Q" | "-L" | "-lf" | "-B"
        )
    });
    if rest.iter().any(|a| a.text() == "-R") {
        w.unknown(EffectKind::SystemConfig, "known_hosts", source);
    } else if !reads {
        let p = parse(rest, "fbtCNnIVzsOPDZaMGKrwY", &[], false);
        match p.value("f").cloned() {
            Some(key) => {
                w.write_target(&key, "ssh-keygen -f");
                let public = Arg {
                    lit: key.lit.as_ref().map(|k| format!("{k}.pub")),
                    raw: format!("{}.pub", key.raw),
                    glob: key.glob,
                };
                w.write_target(&public, "ssh-keygen -f");
            }
            None => w.unproven(source, "ssh-keygen writes a key where it asks"),
        }
    }
}

fn exiv2(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let p = parse(rest, "aceiklMmnPprSt", &[], false);
    let modifies = p.operands.first().is_some_and(|op| {
        matches!(
            op.text(),
            "rm" | "delete"
                | "mv"
                | "rename"
                | "in"
                | "insert"
                | "ad"
                | "adjust"
                | "mo"
                | "modify"
                | "fi"
                | "fixiso"
                | "fc"
                | "fixcom"
        )
    });
    if modifies {
        let files = p.operands.get(1..).unwrap_or(&[]);
        w.each_path(EffectKind::Overwrite, files, source, extra);
    }
}

fn plutil(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    // Single-dash long options: `-convert FMT FILE…`, `-replace KEY -TYPE V
    // FILE`, `-o OUT`, `-e EXT` (outputs beside the input).
    let edits = rest.iter().any(|a| {
        matches!(
            a.text(),
            "-convert" | "-insert" | "-replace" | "-remove" | "-create" | "-append"
        )
    });
    let out = rest
        .iter()
        .position(|a| a.text() == "-o")
        .and_then(|i| rest.get(i + 1))
        .cloned();
    if edits {
        if let Some(out) = out {
            w.write_target(&out, "plutil -o");
        } else if rest.iter().any(|a| a.text() == "-e") {
            w.fills_or_creates(&Arg::literal("."), source);
        } else if let Some(file) = rest.last().filter(|a| !a.text().starts_with('-')) {
            w.each_path(EffectKind::Overwrite, &[file], source, extra);
        }
    }
}

fn plistbuddy(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let edits = rest.iter().any(|a| {
        let t = a.text().trim_start().to_ascii_lowercase();
        [
            "set", "add", "delete", "merge", "import", "clear", "save", "copy",
        ]
        .iter()
        .any(|w| t.starts_with(w))
    });
    let file = rest
        .iter()
        .rev()
        .find(|a| !a.text().starts_with('-'))
        .cloned();
    if edits {
        match file {
            Some(f) => w.each_path(EffectKind::Overwrite, &[&f], source, extra),
            None => w.unknown(EffectKind::Overwrite, "a property list", source),
        }
    }
}

fn sips(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let p = parse(
        rest,
        "sgzZrfcpmoi",
        &[
            "out",
            "setProperty",
            "getProperty",
            "deleteProperty",
            "resampleHeight",
            "resampleWidth",
            "resampleHeightWidth",
            "resampleHeightWidthMax",
            "rotate",
            "flip",
            "cropToHeightWidth",
            "padToHeightWidth",
            "padColor",
            "setProfile",
            "embedProfile",
            "matchTo",
            "matchToWithIntent",
        ],
        false,
    );
    let only_reads = rest.iter().all(|a| {
        let t = a.text();
        !t.starts_with('-')
            || matches!(
                t,
                "-g" | "--getProperty" | "-1" | "--oneLine" | "-h" | "--help" | "-v"
            )
    });
    if !only_reads {
        match p.value("o").or_else(|| p.value("out")).cloned() {
            Some(out) => w.fills_or_creates(&out, source),
            None => {
                let files: Vec<&Arg> = p
                    .operands
                    .iter()
                    .copied()
                    .filter(|a| a.text().contains('.'))
                    .collect();
                w.each_path(EffectKind::Overwrite, &files, source, extra);
            }
        }
    }
}

fn mogrify(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    // mogrify rewrites every image it is given, in place.
    let files: Vec<&Arg> = rest
        .iter()
        .filter(|a| !a.text().starts_with(['-', '+']))
        .filter(|a| a.text().contains('.'))
        .collect();
    w.each_path(EffectKind::Overwrite, &files, source, extra);
}

fn exiftool(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let writes = rest.iter().any(|a| {
        let t = a.text();
        t.starts_with('-')
            && (t.contains('=')
                || t.starts_with("-overwrite_original")
                || t == "-delete_original"
                || t == "-delete_original!"
                || t == "-geotag"
                || t.starts_with("-tagsFromFile")
                || t.starts_with("-tagsfromfile"))
    });
    if writes {
        let files: Vec<&Arg> = rest.iter().filter(|a| !a.text().starts_with('-')).collect();
        w.each_path(EffectKind::Overwrite, &files, source, extra);
    }
    if let Some(i) = rest.iter().position(|a| matches!(a.text(), "-o" | "-out"))
        && let Some(out) = rest.get(i + 1)
    {
        let out = out.clone();
        w.write_target(&out, "exiftool -o");
    }
    if rest.iter().any(|a| {
        matches!(
            a.text(),
            "-@" | "-execute" | "-stay_open" | "-config" | "-if" | "-api"
        )
    }) {
        w.unproven(
            source,
            "exiftool reads more arguments or code than its words show",
        );
    }
}
