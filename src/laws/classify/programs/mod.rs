//! What each program does with its arguments: the verb table of Law 1.
//!
//! The table is made of small uniform units: each file of this folder covers one family
//! of programs (files, disks, system settings, packages, network, version control,
//! wrappers, shells…) and lists its [`Rule`]s, each a set of program names and the
//! handler that reads their arguments. [`run`] looks a command's program up in the table
//! and falls back, for a program no rule names, to the generic reading of sub-commands
//! and output options.
//!
//! Wrappers (`sudo`, `env`, `nohup`, `time`, `nice`, `command`, `timeout`, `xargs`,
//! `find -exec`, `ssh`, …) are seen through to the command they run; shells and `eval`
//! have their strings walked again; interpreters have their inline code scanned.
//!
//! **Invariant:** fail-closed. A program is proven only when its rule found nothing
//! irreversible and `known` understands every option it was given; an unknown program
//! is always unproven, whatever its rule or the generic reading found. A program name
//! appears in at most one rule.

mod archive;
mod data;
mod disk;
mod edit;
mod find;
mod fs;
mod generic;
mod interp;
mod media;
mod net;
mod pkg;
mod rule;
mod runners;
mod shells;
mod system;
mod vcs;
mod wrappers;

use self::rule::{Call, Handler, Rule};
use super::args::{Arg, Stdin, joined};
use super::known::{self, Known};
use super::text;
use super::walker::Walker;
use super::words::{
    SYSTEM_BIN_DIRS, is_disk_tool, is_interpreter, is_secret_path, is_sender, is_shell,
};

/// Every family's rules. Names are unique across them, so their order does not matter.
const TABLES: &[&[Rule]] = &[
    fs::RULES,
    disk::RULES,
    edit::RULES,
    system::RULES,
    pkg::RULES,
    net::RULES,
    data::RULES,
    vcs::RULES,
    archive::RULES,
    media::RULES,
    wrappers::RULES,
    runners::RULES,
    find::RULES,
    shells::RULES,
    interp::RULES,
];

/// Whether a program name belongs to a family.
type IsFamily = fn(&str) -> bool;

/// Families of programs known by the shape of their name (`mkfs.ext4`, `python3.12`),
/// consulted when no rule names the program.
const FAMILIES: &[(IsFamily, Handler)] = &[
    (is_disk_tool, disk::format),
    (is_shell, shells::shell),
    (is_interpreter, interp::interpreter),
];

/// The handler for a program: the rule naming it, else its family's, else the generic
/// reading.
fn handler(name: &str) -> Handler {
    TABLES
        .iter()
        .flat_map(|rules| rules.iter())
        .find(|r| r.names.contains(&name))
        .map(|r| r.run)
        .or_else(|| {
            FAMILIES
                .iter()
                .find(|(is_family, _)| is_family(name))
                .map(|(_, run)| *run)
        })
        .unwrap_or(generic::unnamed)
}

/// Classifies one simple command given as evaluated words. `extra` describes
/// arguments a wrapper appends at run time (`xargs`, `find -exec`).
pub(super) fn run(
    w: &mut Walker<'_>,
    args: &[Arg],
    stdin: &Stdin,
    extra: Option<&str>,
    depth: usize,
) {
    let Some(first) = args.first() else { return };
    let source = joined(args);
    let Some(name_lit) = first.fixed() else {
        w.trash_ok = false;
        w.unproven(
            &source,
            "the program to run is only known when the command runs",
        );
        return;
    };
    let base = name_lit.rsplit('/').next().unwrap_or(name_lit);
    let name = text::fold_name(base);
    if name.is_empty() {
        return;
    }
    let rest = &args[1..];
    if !before_rule(w, base, &name, rest, &source) {
        return;
    }
    // `./tool`, `~/bin/x`: a local file, whatever its name; its content decides.
    if name_lit.contains('/') && !SYSTEM_BIN_DIRS.iter().any(|d| name_lit.starts_with(d)) {
        interp::local_program(w, name_lit, &name, rest, &source, depth);
        return;
    }
    if w.functions.contains(&name) {
        // A function defined earlier in this command: its body was walked there.
        return;
    }
    if w.path_changed {
        w.unproven(
            &source,
            "the command changed PATH, a program name or a variable programs obey, so this name may run something else",
        );
    }
    let call = Call {
        name: &name,
        rest,
        stdin,
        extra,
        depth,
        source: &source,
    };
    handler(&name)(w, &call);
    understood(w, &name, rest, &source);
}

/// What holds for every command before its rule: look-alike names, the Trash offer,
/// help probes, senders and the credential files it names. `false` when nothing more
/// is to be checked (`--help`).
fn before_rule(w: &mut Walker<'_>, base: &str, name: &str, rest: &[Arg], source: &str) -> bool {
    if text::has_lookalikes(base) {
        w.opaque(
            source,
            format!(
                "the program name `{}` only looks like `{name}`",
                text::display(base)
            ),
        );
    }
    if !matches!(name, "rm" | "rmdir" | "unlink" | "cd" | "true" | ":") {
        w.trash_ok = false;
    }
    if known::is_help_probe(name, rest) {
        return false;
    }
    if is_sender(name) {
        w.senders.push(name.to_string());
    }
    for (i, a) in rest.iter().enumerate() {
        let t = a.text();
        // A key ssh and its kin authenticate with is not sent.
        let identity = i > 0 && rest[i - 1].text() == "-i" || t.contains("IdentityFile");
        if identity {
            continue;
        }
        // `-d @FILE`, `--data=@FILE`, `-T FILE`: the file name after any prefix.
        let named = t.rsplit(['@', '=']).next().unwrap_or(t);
        if let Some(path) = text::resolve(named, w.cwd.as_deref())
            && is_secret_path(&path, w.scope.home)
        {
            w.secrets.push(path.display().to_string());
        }
    }
    true
}

/// After its rule: a program is proven only when `known` understands it and every
/// option it was given.
fn understood(w: &mut Walker<'_>, name: &str, rest: &[Arg], source: &str) {
    match known::known(name) {
        None if is_shell(name) || is_interpreter(name) => {}
        None => w.unproven(
            source,
            format!("`{name}` is not a program artoo knows, so what it does cannot be checked"),
        ),
        Some(Known::Rule) => {}
        Some(Known::Reader) => network_lookup(w, name, rest, source),
        Some(Known::Options(o)) => {
            if let Some(opt) = known::unknown_options(&o, rest) {
                w.unproven(
                    source,
                    format!("`{name}` was given an option artoo does not know ({opt})"),
                );
            } else {
                network_lookup(w, name, rest, source);
            }
        }
    }
}

/// `ping`, `dig`, `whois`…: a lookup that needs the network, proven when its words
/// are all known before it runs.
fn network_lookup(w: &mut Walker<'_>, name: &str, rest: &[Arg], source: &str) {
    if known::NETWORK_READERS.contains(&name)
        && !matches!(name, "curl" | "wget")
        && rest.iter().all(|a| a.lit.is_some())
    {
        w.network_read(source, rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_name_has_exactly_one_rule_and_no_family_claims_it() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in TABLES.iter().flat_map(|rules| rules.iter()) {
            for name in rule.names {
                assert!(seen.insert(*name), "{name} is named by two rules");
                assert!(
                    !FAMILIES.iter().any(|(is_family, _)| is_family(name)),
                    "{name} is also claimed by a family of names"
                );
            }
        }
    }
}
