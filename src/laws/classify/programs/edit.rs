//! Text tools that can write files or run code: `sed` and `awk` (in-place edits and the
//! files their scripts write), `patch`, `sort -o`, `uniq`/`xxd` with an output file,
//! `shuf -o`, `yq -i`, `rg --pre`, and pagers told to run a command.
//!
//! **Invariant:** an in-place edit without a backup is an Overwrite of each file; a script the
//! rule cannot read is unproven.

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, parse};
use crate::laws::classify::assessment::EffectKind;
use crate::laws::classify::walker::Walker;
use crate::laws::classify::{known, scan};

pub(super) const RULES: &[Rule] = &[
    rule(&["sed", "gsed"], sed),
    rule(&["awk", "gawk", "mawk", "nawk"], awk),
    rule(&["patch"], patch),
    rule(&["sort"], sort),
    rule(&["less", "more", "man"], less),
    rule(&["uniq", "xxd"], uniq),
    rule(&["shuf"], shuf),
    rule(&["yq"], yq),
    rule(&["rg"], rg),
];

fn awk(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let p = parse(
        rest,
        "fvFiEl",
        &[
            "file",
            "assign",
            "field-separator",
            "include",
            "exec",
            "load",
        ],
        false,
    );
    let in_place = p.values_of("i").any(|v| v.text() == "inplace")
        || p.values_of("include").any(|v| v.text() == "inplace");
    let program_file = p.value("f").or_else(|| p.value("file")).is_some()
        || p.value("E").or_else(|| p.value("exec")).is_some();
    let files: &[&Arg] = if program_file {
        &p.operands
    } else {
        p.operands.get(1..).unwrap_or(&[])
    };
    if in_place {
        w.each_path(EffectKind::Overwrite, files, source, extra);
    }
    let known_opts = rest.iter().all(|a| {
        let t = a.text();
        !t.starts_with('-')
            || t == "--"
            || t.starts_with("-v")
            || t.starts_with("-F")
            || t.starts_with("--assign")
            || t.starts_with("--field-separator")
            || matches!(t, "-f" | "-i" | "--file" | "--include" | "-E" | "--exec")
    });
    if program_file {
        w.unproven(source, "the awk program is in a file");
    } else if p
        .values_of("i")
        .chain(p.values_of("include"))
        .any(|v| v.text() != "inplace")
        || p.value("l").or_else(|| p.value("load")).is_some()
    {
        w.unproven(source, "awk loads code from a file");
    } else if !known_opts {
        w.unproven(source, "awk was given an option artoo does not know");
    }
    match p.operands.first().and_then(|a| a.lit.as_deref()) {
        Some(program) if !program_file => {
            let scan = scan::scan_awk(program);
            for file in scan.writes {
                w.write_target(&Arg::literal(&file), "awk print >");
            }
            if let Some(why) = scan.unproven {
                w.unproven(source, why);
            }
        }
        Some(_) => {}
        None if program_file => {}
        None => w.unproven(source, "the awk program is only known when it runs"),
    }
}

fn patch(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(
        rest,
        "pdiorBDFVYz",
        &["directory", "input", "output", "reject-file"],
        false,
    );
    if !p.has('\0', "dry-run") && !p.has('C', "check") {
        w.unknown(EffectKind::Overwrite, "the files the patch changes", source);
    }
}

fn sort(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(
        rest,
        "otkSTz",
        &[
            "output",
            "key",
            "buffer-size",
            "temporary-directory",
            "field-separator",
            "files0-from",
            "parallel",
            "compress-program",
            "batch-size",
        ],
        false,
    );
    if let Some(out) = p.value("o").or_else(|| p.value("output")) {
        let out = out.clone();
        w.overwrite_if_exists(&out, source);
    }
}

fn less(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    let runs = rest.iter().any(|a| {
        let t = a.text();
        (t.starts_with('+') && name != "man")
            || (name == "man"
                && (matches!(t, "-P" | "-H" | "--pager" | "--html")
                    || t.starts_with("--pager=")
                    || t.starts_with("--html=")))
    });
    if runs {
        w.unproven(source, format!("`{name}` was told to run a command"));
    }
}

fn uniq(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { name, rest, .. } = *c;
    // `uniq IN OUT` and `xxd IN OUT` write OUT.
    let p = parse(
        rest,
        if name == "uniq" { "fsw" } else { "cglnosR" },
        &["skip-fields", "skip-chars", "check-chars"],
        false,
    );
    if let Some(out) = p.operands.get(1) {
        let out = (*out).clone();
        w.write_target(&out, name);
    }
}

fn shuf(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, .. } = *c;
    let p = parse(
        rest,
        "inos",
        &["input-range", "head-count", "output", "random-source"],
        false,
    );
    if let Some(out) = p.value("o").or_else(|| p.value("output")).cloned() {
        w.write_target(&out, "shuf -o");
    }
}

fn yq(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let in_place = rest.iter().any(|a| {
        let t = a.text();
        matches!(t, "-i" | "--inplace")
            || (t.starts_with('-') && !t.starts_with("--") && t.contains('i'))
    });
    let p = parse(
        rest,
        "oIpe",
        &[
            "output-format",
            "indent",
            "input-format",
            "expression",
            "split-exp",
            "front-matter",
        ],
        false,
    );
    if in_place {
        let files = p.operands.get(1..).unwrap_or(&[]);
        w.each_path(EffectKind::Overwrite, files, source, extra);
    }
    if rest
        .iter()
        .any(|a| a.text() == "-s" || a.text().starts_with("--split-exp"))
    {
        w.unproven(source, "yq writes files named by an expression");
    }
}

fn rg(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.iter().any(|a| {
        let t = a.text();
        t.starts_with("--pre") || t.starts_with("--hostname-bin")
    }) {
        w.unproven(source, "rg was told to run a program on each file");
    }
}

/// What sed's options say: whether it edits in place and keeps a backup, its scripts
/// (`None` for one only known at run time), and the words that are not options.
#[derive(Default)]
struct SedArgs<'a> {
    in_place: bool,
    backup: bool,
    scripts: Vec<Option<String>>,
    script_file: bool,
    unknown_option: Option<String>,
    operands: Vec<&'a Arg>,
}

impl<'a> SedArgs<'a> {
    // GNU: `-i`, `-i.bak`, `--in-place[=SUF]`, clusters like `-Ei`;
    // BSD/macOS: `-i ''` (no backup) or `-i .bak`.
    fn read(rest: &'a [Arg]) -> Self {
        let mut a = SedArgs::default();
        let mut i = 0;
        while i < rest.len() {
            let t = rest[i].text();
            if t == "--in-place" {
                a.in_place = true;
            } else if let Some(suffix) = t.strip_prefix("--in-place=") {
                a.in_place = true;
                a.backup |= !suffix.is_empty();
            } else if matches!(t, "-e" | "--expression") {
                a.scripts.push(rest.get(i + 1).and_then(|a| a.lit.clone()));
                i += 1;
            } else if let Some(e) = t.strip_prefix("--expression=") {
                a.scripts.push(Some(e.to_string()));
            } else if matches!(t, "-f" | "--file") || t.starts_with("--file=") {
                a.script_file = true;
                i += usize::from(!t.contains('='));
            } else if let Some(long) = t.strip_prefix("--") {
                let key = long.split('=').next().unwrap_or(long);
                if known::long_option(
                    key,
                    &[
                        "quiet",
                        "silent",
                        "debug",
                        "posix",
                        "sandbox",
                        "separate",
                        "null-data",
                        "zero-terminated",
                        "regexp-extended",
                        "unbuffered",
                        "line-length",
                        "follow-symlinks",
                        "help",
                        "version",
                    ],
                )
                .is_none()
                {
                    a.unknown_option = Some(t.to_string());
                }
            } else if let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) {
                a.cluster(flags, t, rest, &mut i);
            } else {
                a.operands.push(&rest[i]);
            }
            i += 1;
        }
        a
    }

    /// A cluster of short options (`-nE`, `-i.bak`, `-e SCRIPT`); `i` moves past the
    /// words the cluster takes as values.
    fn cluster(&mut self, flags: &str, t: &str, rest: &[Arg], i: &mut usize) {
        for (pos, c) in flags.char_indices() {
            match c {
                'n' | 'E' | 'r' | 's' | 'u' | 'z' => {}
                'i' => {
                    self.in_place = true;
                    let suffix = &flags[pos + 1..];
                    if !suffix.is_empty() {
                        self.backup = true;
                    } else if let Some(next) = rest.get(*i + 1).map(Arg::text) {
                        if next.is_empty() {
                            *i += 1; // BSD: explicit empty suffix
                        } else if next.starts_with('.') && !next.contains([' ', '/', ';']) {
                            self.backup = true;
                            *i += 1;
                        }
                    }
                    break;
                }
                'e' => {
                    let glued = &flags[pos + 1..];
                    if glued.is_empty() {
                        self.scripts
                            .push(rest.get(*i + 1).and_then(|a| a.lit.clone()));
                        *i += 1;
                    } else {
                        self.scripts.push(Some(glued.to_string()));
                    }
                    break;
                }
                'f' => {
                    self.script_file = true;
                    *i += usize::from(flags[pos + 1..].is_empty());
                    break;
                }
                'l' => {
                    *i += usize::from(flags[pos + 1..].is_empty());
                    break;
                }
                _ => {
                    self.unknown_option = Some(t.to_string());
                    break;
                }
            }
        }
    }
}

fn sed(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        extra,
        source,
        ..
    } = *c;
    let SedArgs {
        in_place,
        backup,
        mut scripts,
        script_file,
        unknown_option,
        operands,
    } = SedArgs::read(rest);
    let script_given = !scripts.is_empty() || script_file;
    if !script_given && let Some(first) = operands.first() {
        scripts.push(first.lit.clone());
    }
    let files: Vec<&Arg> = if script_given {
        operands
    } else {
        operands.into_iter().skip(1).collect()
    };
    if let Some(opt) = unknown_option {
        w.unproven(
            source,
            format!("sed was given an option artoo does not know ({opt})"),
        );
    }
    if script_file {
        w.unproven(source, "the sed script is in a file");
    }
    for script in scripts {
        match script {
            Some(text) => {
                let scan = scan::scan_sed(&text);
                for file in scan.writes {
                    w.write_target(&Arg::literal(&file), "sed w");
                }
                if let Some(why) = scan.unproven {
                    w.unproven(source, why);
                }
            }
            None => w.unproven(source, "the sed script is only known when it runs"),
        }
    }
    if in_place && !backup {
        w.each_path(EffectKind::Overwrite, &files, source, extra);
    }
}
