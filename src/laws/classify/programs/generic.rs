//! The reading of a program no rule names: sub-command words that mean deletion,
//! stopping or sending, and `-o FILE` output options.
//!
//! **Invariant:** only adds effects; whether the program is understood at all is decided by
//! `known` after this reading, so an unknown program stays unproven.

use super::Call;
use crate::laws::classify::args::{Arg, parse};
use crate::laws::classify::assessment::{EffectKind, Target};
use crate::laws::classify::known;
use crate::laws::classify::walker::Walker;

/// Programs without a rule: dangerous sub-commands and `-o FILE` onto an existing
/// file.
pub(super) fn generic(w: &mut Walker<'_>, name: &str, rest: &[Arg], source: &str) {
    if known::known(name).is_some() {
        return;
    }
    let p = parse(
        rest,
        "",
        &["output", "output-file", "outfile", "out"],
        false,
    );
    for (i, op) in p.operands.iter().take(3).enumerate() {
        let Some(word) = op.fixed() else { continue };
        if word.contains('/') || (word.contains('.') && i > 0) {
            continue;
        }
        if let Some(kind) = subcommand_effect(&word.to_ascii_lowercase()) {
            let what = match kind {
                EffectKind::Delete => format!("what `{name} {word}` removes"),
                EffectKind::Overwrite => format!("what `{name} {word}` resets"),
                _ => String::new(),
            };
            let target = if what.is_empty() {
                Target::None
            } else {
                Target::Unknown(what)
            };
            w.push(kind, target, source.to_string(), None);
            break;
        }
    }
    // `-o FILE` and `--output FILE`: compilers and converters replace an existing
    // output (a rebuild overwrites the last build).
    let mut outputs: Vec<Arg> = ["output", "output-file", "outfile", "out"]
        .iter()
        .flat_map(|k| p.values_of(k))
        .cloned()
        .collect();
    for w in rest.windows(2) {
        if w[0].text() == "-o" {
            outputs.push(w[1].clone());
        }
    }
    for out in outputs {
        if out
            .fixed()
            .is_some_and(|s| !s.starts_with('-') && s != "/dev/null")
        {
            w.overwrite_if_exists(&out, source);
        }
    }
}

/// Sub-command words that mean deletion, stopping or sending in most command-line tools
/// (`aws s3 rm`, `gh repo delete`, `brew uninstall`, `kubectl delete`).
fn subcommand_effect(word: &str) -> Option<EffectKind> {
    // `apps:destroy`, `delete-keychain`, `remove-trusted-cert`.
    let word = word.rsplit(':').next().unwrap_or(word);
    let head = word.split('-').next().unwrap_or(word);
    if head != word
        && matches!(
            head,
            "delete" | "remove" | "rm" | "drop" | "destroy" | "purge" | "wipe" | "erase"
        )
    {
        return Some(EffectKind::Delete);
    }
    match word {
        "rm" | "delete" | "del" | "remove" | "destroy" | "purge" | "drop" | "erase" | "wipe"
        | "uninstall" | "prune" | "unlink" | "rmi" | "rmdir" | "nuke" | "truncate" | "flush"
        | "flushall" | "flushdb" | "deinit" | "autoremove" | "autopurge" | "rb" => {
            Some(EffectKind::Delete)
        }
        "kill" | "terminate" | "stop-instances" | "terminate-instances" => Some(EffectKind::Kill),
        "send" | "publish" | "upload" | "unpublish" | "deprecate" => Some(EffectKind::Send),
        "reset" => Some(EffectKind::Overwrite),
        _ => None,
    }
}

/// The handler of a program no rule names.
pub(super) fn unnamed(w: &mut Walker<'_>, c: &Call<'_>) {
    generic(w, c.name, c.rest, c.source);
}
