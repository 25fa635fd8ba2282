//! `find` and its kin: `-delete`, the commands `-exec` and `-ok` run, and the files
//! `-fprint` writes.
//!
//! **Invariant:** a test or action this file does not list is unproven, and the command `-exec`
//! runs is classified with the matched files as its run-time arguments.

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, Stdin};
use crate::laws::classify::assessment::{EffectKind, Target};
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[rule(&["find", "gfind"], find)];

fn find(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        depth,
        source,
        ..
    } = *c;
    // Leading -H/-L/-P/-O/-D options, then start paths, then the expression.
    let mut i = 0;
    while i < rest.len()
        && matches!(
            rest[i].text(),
            "-H" | "-L" | "-P" | "-E" | "-X" | "-d" | "-s" | "-x"
        )
    {
        i += 1;
    }
    let start = i;
    while i < rest.len()
        && !rest[i].text().starts_with('-')
        && !matches!(rest[i].text(), "(" | "!" | ")")
    {
        i += 1;
    }
    let roots: Vec<String> = rest[start..i]
        .iter()
        .map(|a| a.text().to_string())
        .collect();
    let place = if roots.is_empty() {
        ".".to_string()
    } else {
        roots.join(", ")
    };
    let matched = format!("every file find matches under {place}");
    while i < rest.len() {
        let t = rest[i].text();
        match t {
            "-delete" => {
                w.push(
                    EffectKind::Delete,
                    Target::Unknown(matched.clone()),
                    source.to_string(),
                    None,
                );
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = rest[i + 1..]
                    .iter()
                    .position(|a| matches!(a.text(), ";" | "+"))
                    .map(|p| i + 1 + p)
                    .unwrap_or(rest.len());
                let inner: Vec<Arg> = rest[i + 1..end]
                    .iter()
                    .filter(|a| a.text() != "{}")
                    .map(|a| {
                        if a.text().contains("{}") {
                            Arg {
                                lit: None,
                                raw: a.raw.clone(),
                                glob: false,
                            }
                        } else {
                            a.clone()
                        }
                    })
                    .collect();
                let saved = w.cwd.clone();
                if t.ends_with("dir") {
                    w.cwd = None;
                }
                if inner.is_empty() {
                    w.unproven(source, "find runs a command it does not name");
                } else {
                    w.argv(&inner, &Stdin::Closed, Some(&matched), depth);
                }
                w.cwd = saved;
                i = end;
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(f) = rest.get(i + 1) {
                    let f = f.clone();
                    w.write_target(&f, t);
                }
                i += 1 + usize::from(t == "-fprintf");
            }
            _ if find_takes_value(t) => i += 1,
            _ if find_flag(t) || !t.starts_with('-') => {}
            _ => w.unproven(
                source,
                format!("find was given {t}, which artoo does not know"),
            ),
        }
        i += 1;
    }
}

/// `find` tests and options that take one value.
fn find_takes_value(t: &str) -> bool {
    matches!(
        t,
        "-name"
            | "-iname"
            | "-path"
            | "-ipath"
            | "-wholename"
            | "-iwholename"
            | "-regex"
            | "-iregex"
            | "-regextype"
            | "-type"
            | "-xtype"
            | "-size"
            | "-mtime"
            | "-mmin"
            | "-atime"
            | "-amin"
            | "-ctime"
            | "-cmin"
            | "-newer"
            | "-anewer"
            | "-cnewer"
            | "-perm"
            | "-user"
            | "-group"
            | "-uid"
            | "-gid"
            | "-links"
            | "-inum"
            | "-samefile"
            | "-maxdepth"
            | "-mindepth"
            | "-fstype"
            | "-lname"
            | "-ilname"
            | "-used"
            | "-printf"
            | "-context"
            | "-files0-from"
            | "-Bmin"
            | "-Btime"
            | "-Bnewer"
    ) || (t.starts_with("-newer") && t.len() == 8)
}

/// `find` tests, actions and operators without a value that change nothing.
fn find_flag(t: &str) -> bool {
    matches!(
        t,
        "-print"
            | "-print0"
            | "-ls"
            | "-prune"
            | "-quit"
            | "-depth"
            | "-follow"
            | "-xdev"
            | "-mount"
            | "-daystart"
            | "-empty"
            | "-readable"
            | "-writable"
            | "-executable"
            | "-nouser"
            | "-nogroup"
            | "-true"
            | "-false"
            | "-not"
            | "-and"
            | "-a"
            | "-or"
            | "-o"
            | "!"
            | "("
            | ")"
            | ","
            | "-noleaf"
            | "-ignore_readdir_race"
            | "-noignore_readdir_race"
            | "-d"
            | "-s"
            | "-x"
            | "-E"
            | "-L"
            | "-H"
            | "-P"
            | "-help"
            | "--help"
            | "-version"
            | "--version"
    )
}
