//! Interpreters and automation: `python`, `perl`, `node`… with inline code or a script,
//! `osascript`, Shortcuts, `open` of a runnable file, Automator, and local programs
//! named by a path.
//!
//! **Invariant:** interpreter code is never proven; a deletion it plainly makes is an effect,
//! and everything else it does is unproven.

use super::generic::generic;
use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, Stdin, parse};
use crate::laws::classify::assessment::{EffectKind, Target};
use crate::laws::classify::walker::Walker;
use crate::laws::classify::{applescript, scan, text};

pub(super) const RULES: &[Rule] = &[
    rule(&["osascript"], osascript),
    rule(&["shortcuts"], shortcuts),
    rule(&["open"], open),
    rule(&["automator"], automator),
];

fn shortcuts(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.first().is_some_and(|a| a.text() == "run") {
        match rest.get(1).and_then(|a| a.lit.as_deref()) {
            Some(sc) => {
                let a = applescript::classify_shortcut(sc);
                for e in a.effects {
                    w.push(e.kind, e.target, source.to_string(), e.note);
                }
            }
            None => w.opaque(
                source,
                "the Shortcut's name is only known when the command runs",
            ),
        }
    }
}

fn open(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    // Opening a .command or .tool file runs it in Terminal.
    if rest.iter().any(|a| {
        let t = a.text().to_ascii_lowercase();
        t.ends_with(".command") || t.ends_with(".tool") || t.ends_with(".workflow")
    }) {
        w.opaque(source, "opening it runs a script that cannot be checked");
    }
}

fn automator(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { source, .. } = *c;
    w.opaque(source, "an Automator workflow's steps cannot be checked");
}

/// `./tool.sh`, `~/bin/x`: a local program. Its content can change before it runs
/// (an earlier part of the command may even write it), so it is never proven; a
/// shell script that can be read is walked so that what it certainly destroys is
/// asked about, and other code is scanned for deletions.
pub(super) fn local_program(
    w: &mut Walker<'_>,
    path: &str,
    name: &str,
    rest: &[Arg],
    source: &str,
    depth: usize,
) {
    w.unproven(
        source,
        format!("it runs the local program {path}, whose content can change before it runs"),
    );
    let script = text::resolve(path, w.cwd.as_deref()).and_then(|p| w.scope.fs.read_script(&p));
    let Some(code) = script else {
        // A binary or an unreadable file: its arguments may still say what it does.
        generic(w, name, rest, source);
        return;
    };
    let first = code.lines().next().unwrap_or_default();
    let shell_script = !first.starts_with("#!")
        || ["sh", "bash", "zsh", "dash", "ksh"]
            .iter()
            .any(|s| first.ends_with(&format!("/{s}")) || first.ends_with(&format!(" {s}")));
    if shell_script {
        let saved = w.cwd.clone();
        w.script(&code, depth + 1);
        w.cwd = saved;
    } else {
        scanned_code(w, &code, source, &format!("the script {path}"));
    }
}

/// Interpreter code (a script file or `-c CODE`): never proven; a deletion it
/// plainly makes is asked about.
fn scanned_code(w: &mut Walker<'_>, code: &str, source: &str, what: &str) {
    match scan::scan_code(code) {
        Some(scan::CodeMarker::Deletes(found)) => w.push(
            EffectKind::Delete,
            Target::Unknown(format!("files {what} deletes (it uses `{found}`)")),
            source.to_string(),
            None,
        ),
        Some(scan::CodeMarker::Other(found)) => {
            w.unproven(source, format!("{what} uses `{found}`"))
        }
        None => w.unproven(
            source,
            format!("{what} is program code whose effects cannot be checked"),
        ),
    }
}

fn osascript(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "els", &[], false);
    if p.value("l")
        .is_some_and(|l| !l.text().eq_ignore_ascii_case("applescript"))
    {
        w.opaque(source, "JavaScript for Automation cannot be checked");
        return;
    }
    let mut scripts: Vec<String> = Vec::new();
    for e in p.values_of("e") {
        match &e.lit {
            Some(s) => scripts.push(s.clone()),
            None => {
                w.opaque(
                    source,
                    "the AppleScript is only known when the command runs",
                );
                return;
            }
        }
    }
    if scripts.is_empty() {
        match p.operands.first() {
            Some(file) => match file
                .fixed()
                .and_then(|f| text::resolve(f, w.cwd.as_deref()))
            {
                Some(path) => match w.scope.fs.read_script(&path) {
                    Some(s) => scripts.push(s),
                    None => {
                        w.opaque(source, "the AppleScript file cannot be read");
                        return;
                    }
                },
                None => {
                    w.opaque(
                        source,
                        "the AppleScript file is only known when the command runs",
                    );
                    return;
                }
            },
            None => match stdin {
                Stdin::Literal(s) => scripts.push(s.clone()),
                Stdin::Unknown => {
                    w.opaque(
                        source,
                        "it runs AppleScript from its input, which cannot be checked",
                    );
                    return;
                }
                Stdin::Closed => {}
            },
        }
    }
    let code = scripts.join("\n");
    applescript::applescript_effects(w, &code, depth + 1);
}

/// The options that take inline code: `python -c`, `perl -e`/`-E`, `ruby -e`,
/// `node -e`/`-p`, `php -r`.
fn code_flags(name: &str) -> &'static [&'static str] {
    match name {
        n if n.starts_with("python") => &["-c"],
        "perl" => &["-e", "-E"],
        "ruby" => &["-e"],
        "node" | "nodejs" | "deno" | "bun" => &["-e", "-p", "--eval", "--print", "eval"],
        "php" => &["-r"],
        "lua" => &["-e"],
        "rscript" => &["-e"],
        _ => &[],
    }
}

/// `perl -i` and `ruby -i` edit the files they are given in place; other interpreters
/// have no such option.
fn in_place_edit(w: &mut Walker<'_>, name: &str, rest: &[Arg], source: &str, extra: Option<&str>) {
    if name == "perl" || name == "ruby" {
        // `-i` in a flag cluster (`-pi`, `-i -pe`), without a backup suffix (`-i.bak`).
        let in_place = rest.iter().any(|a| {
            let t = a.text();
            let Some(flags) = t.strip_prefix('-') else {
                return false;
            };
            !flags.starts_with(['-', 'M', 'm', 'I'])
                && flags.contains('i')
                && flags.chars().all(|c| "lnpaisweEcdtTuUvW0".contains(c))
                && !flags.ends_with("i.")
        });
        if in_place {
            let files: Vec<&Arg> = rest
                .iter()
                .filter(|a| !a.text().starts_with('-'))
                .skip(1)
                .collect();
            w.each_path(EffectKind::Overwrite, &files, source, extra);
        }
    }
}

pub(super) fn interpreter(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name,
        rest,
        stdin,
        extra,
        depth,
        source,
    } = *c;
    let code_flags = code_flags(name);
    in_place_edit(w, name, rest, source, extra);
    let mut i = 0;
    let mut saw_code = false;
    while i < rest.len() {
        let t = rest[i].text();
        // Bundled flags such as `perl -pe CODE` or `python -Bc CODE`.
        let takes_code = code_flags.contains(&t)
            || (t.starts_with('-')
                && !t.starts_with("--")
                && code_flags
                    .iter()
                    .any(|f| f.len() == 2 && t.ends_with(&f[1..]))
                && t.len() <= 5);
        if takes_code {
            saw_code = true;
            match rest.get(i + 1).map(|c| c.lit.clone()) {
                Some(Some(c)) => scanned_code(w, &c, source, &format!("the {name} code")),
                _ => w.unproven(
                    source,
                    format!("the {name} code is only known when it runs"),
                ),
            }
            i += 2;
            continue;
        }
        if name.starts_with("python") && matches!(t, "-W" | "-X" | "-Q") {
            i += 2;
            continue;
        }
        if name.starts_with("python") && t == "-m" {
            // `python -m pip uninstall x`: the module runs with the rest.
            w.unproven(
                source,
                format!("{name} runs a module whose code cannot be checked"),
            );
            if i + 1 < rest.len() {
                w.argv(&rest[i + 1..], stdin, extra, depth);
            }
            return;
        }
        if !t.starts_with('-') {
            if saw_code {
                return; // remaining words are the code's arguments
            }
            let file = rest[i].clone();
            let path = file
                .fixed()
                .and_then(|f| text::resolve(f, w.cwd.as_deref()));
            match path.and_then(|p| w.scope.fs.read_script(&p)) {
                Some(code) => {
                    scanned_code(w, &code, source, &format!("the script {}", file.text()))
                }
                None => w.unproven(
                    source,
                    format!("it runs the script {}, which cannot be read", file.text()),
                ),
            }
            return;
        }
        i += 1;
    }
    if let Some(what) = extra {
        w.unproven(source, format!("{name} runs code from {what}"));
    }
    if !saw_code {
        match stdin {
            Stdin::Literal(code) => {
                let code = code.clone();
                scanned_code(w, &code, source, &format!("the {name} code"))
            }
            Stdin::Unknown => {
                w.unproven(source, format!("{name} runs code it reads from its input"))
            }
            Stdin::Closed if rest.is_empty() => {}
            Stdin::Closed => w.unproven(
                source,
                format!("{name} was given options artoo does not check"),
            ),
        }
    }
}
