//! `git`: global options that can make it run other programs, sub-commands that discard
//! work or rewrite history, commands it runs (`bisect run`, `rebase --exec`), and the
//! network reads `clone` and `ls-remote`.
//!
//! **Invariant:** a sub-command is proven only when it is listed as read-only; every other one
//! is an effect or unproven.

use super::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, parse};
use crate::laws::classify::assessment::{EffectKind, Existence, Target};
use crate::laws::classify::known;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[rule(&["git"], git)];

fn git(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        depth,
        source,
        ..
    } = *c;
    let p = parse(
        rest,
        "Cc",
        &[
            "git-dir",
            "work-tree",
            "namespace",
            "exec-path",
            "config-env",
            "super-prefix",
        ],
        true,
    );
    // `-c key=value` can make git run any command (aliases, editors, hooks, pagers,
    // ssh): only a few harmless namespaces are understood.
    for v in p.values_of("c") {
        let key = v
            .text()
            .split('=')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let harmless = [
            "color.",
            "user.",
            "log.",
            "format.",
            "advice.",
            "i18n.",
            "column.",
            "init.",
            "safe.",
            "pull.rebase",
            "core.quotepath",
            "diff.renames",
            "status.",
        ]
        .iter()
        .any(|ns| key.starts_with(ns));
        if !harmless || v.lit.is_none() {
            w.unproven(
                source,
                format!("`-c {}` can make git run other programs", v.text()),
            );
        }
    }
    for k in [
        "git-dir",
        "work-tree",
        "exec-path",
        "config-env",
        "namespace",
        "super-prefix",
    ] {
        if p.value(k).is_some() {
            w.unproven(source, format!("git was pointed elsewhere (--{k})"));
        }
    }
    if let Some(dir) = p.value("C").cloned() {
        w.set_cwd(Some(&dir));
    }
    let args = &rest[p.rest.min(rest.len())..];
    let Some(sub) = args.first().map(|a| a.text().to_string()) else {
        return;
    };
    let sub_args = &args[1..];
    let sp = parse(sub_args, "", &[], false);
    let longs = |known: &[&'static str]| -> Vec<&'static str> {
        sub_args
            .iter()
            .filter_map(|a| a.text().strip_prefix("--"))
            .filter_map(|l| known::long_option(l.split('=').next().unwrap_or(l), known))
            .collect()
    };
    let has = |s: &str| sub_args.iter().any(|a| a.text() == s);
    let shorts = |c: char| sp.shorts.contains(c);
    let first = sub_args.first().map(Arg::text);
    let forced = shorts('f') || has("--force");
    let new_branch = shorts('b') || shorts('B') || has("--orphan");
    let no_operands = sp.operands.is_empty();
    // (kind, what) of the one effect this sub-command has, if any.
    let effect: Option<(EffectKind, &str)> = match sub.as_str() {
        "clean" => {
            let l = longs(&["dry-run", "force", "interactive", "quiet", "exclude"]);
            (!(shorts('n') || l.contains(&"dry-run")))
                .then_some((EffectKind::Delete, "untracked files in the repository"))
        }
        "reset" => {
            let l = longs(&[
                "hard",
                "soft",
                "mixed",
                "merge",
                "keep",
                "patch",
                "quiet",
                "pathspec-from-file",
                "recurse-submodules",
                "no-refresh",
                "refresh",
            ]);
            (l.iter().any(|o| matches!(*o, "hard" | "merge" | "keep")))
                .then_some((EffectKind::History, "uncommitted changes"))
        }
        // `git checkout <commit> <path>…` restores paths over the working copy.
        "checkout"
            if has("--")
                || has(".")
                || forced
                || shorts('p')
                || has("--patch")
                || has("--theirs")
                || has("--ours")
                || (!new_branch && sp.operands.len() >= 2) =>
        {
            Some((
                EffectKind::History,
                "uncommitted changes to the named files",
            ))
        }
        "restore" if !(has("--staged") || shorts('S')) || has("--worktree") || shorts('W') => {
            Some((
                EffectKind::History,
                "uncommitted changes to the named files",
            ))
        }
        "switch" if has("--discard-changes") || forced => {
            Some((EffectKind::History, "uncommitted changes"))
        }
        "push" => {
            let l = longs(&[
                "force",
                "force-with-lease",
                "force-if-includes",
                "mirror",
                "delete",
                "prune",
                "all",
                "tags",
                "dry-run",
                "set-upstream",
                "verbose",
                "quiet",
                "follow-tags",
                "atomic",
                "no-verify",
                "porcelain",
                "progress",
                "recurse-submodules",
                "signed",
                "push-option",
                "repo",
                "receive-pack",
                "exec",
                "thin",
                "no-thin",
                "ipv4",
                "ipv6",
            ]);
            (shorts('f')
                || shorts('d')
                || l.iter().any(|o| {
                    matches!(
                        *o,
                        "force"
                            | "force-with-lease"
                            | "force-if-includes"
                            | "mirror"
                            | "delete"
                            | "prune"
                    )
                })
                || sub_args.iter().any(|a| {
                    let t = a.text();
                    !t.starts_with('-') && (t.starts_with('+') || t.starts_with(':'))
                }))
            .then_some((EffectKind::History, "commits or branches on the remote"))
        }
        "branch"
            if shorts('D')
                || shorts('M')
                || shorts('C')
                || ((has("--delete") || shorts('d')) && forced) =>
        {
            Some((EffectKind::History, "a branch"))
        }
        "stash" if matches!(first, Some("drop" | "clear")) => {
            Some((EffectKind::History, "stashed changes"))
        }
        "rm" if !has("--cached") && !shorts('n') && !has("--dry-run") => {
            let ops: Vec<&Arg> = sp.operands.clone();
            w.each_path(EffectKind::Delete, &ops, source, None);
            None
        }
        "gc" if sub_args.iter().any(|a| a.text().starts_with("--prune")) => {
            Some((EffectKind::History, "unreachable commits"))
        }
        "prune" | "filter-branch" | "filter-repo" => {
            Some((EffectKind::History, "repository history"))
        }
        "reflog" if matches!(first, Some("expire" | "delete")) => Some((
            EffectKind::History,
            "the reflog (the safety net for lost commits)",
        )),
        "update-ref" if shorts('d') => Some((EffectKind::History, "a reference")),
        "worktree" if first == Some("prune") || (first == Some("remove") && forced) => Some((
            EffectKind::History,
            "a worktree and its uncommitted changes",
        )),
        "tag" if shorts('d') || has("--delete") || forced => Some((EffectKind::History, "a tag")),
        "submodule" if has("deinit") && forced => {
            Some((EffectKind::History, "submodule working trees"))
        }
        "send-email" | "imap-send" => Some((EffectKind::Send, "")),
        "config"
            if (has("--global") || has("--system"))
                && (sp.operands.len() >= 2
                    || has("--unset")
                    || has("--unset-all")
                    || has("--replace-all")
                    || has("--add")) =>
        {
            Some((EffectKind::SystemConfig, ""))
        }
        "config"
            if sp.operands.len() >= 2
                && sp.operands.first().is_some_and(|k| {
                    let k = k.text().to_ascii_lowercase();
                    k.starts_with("alias.")
                        || k.starts_with("core.")
                        || k.contains("command")
                        || k.contains("hook")
                        || k.starts_with("filter.")
                        || k.ends_with(".textconv")
                        || k.starts_with("credential.")
                        || k.starts_with("include")
                        || k.ends_with("editor")
                }) =>
        {
            Some((EffectKind::SystemConfig, ""))
        }
        _ => None,
    };
    if let Some((kind, what)) = effect {
        let target = if what.is_empty() {
            Target::None
        } else {
            Target::Unknown(what.to_string())
        };
        w.push(kind, target, source.to_string(), None);
        return;
    }
    // Commands git runs for some sub-commands.
    match sub.as_str() {
        "bisect" if first == Some("run") => {
            w.unproven(source, "git bisect runs a command at each step");
            if sub_args.len() > 1 {
                w.argv(&sub_args[1..], stdin, None, depth);
            }
            return;
        }
        "rebase" => {
            for (i, a) in sub_args.iter().enumerate() {
                if matches!(a.text(), "-x" | "--exec")
                    && let Some(cmd) = sub_args.get(i + 1)
                {
                    let cmd = cmd.clone();
                    w.shell_string(&cmd, depth, source);
                }
            }
        }
        "submodule" if first == Some("foreach") => {
            if let Some(cmd) = sub_args.iter().skip(1).find(|a| !a.text().starts_with('-')) {
                let cmd = cmd.clone();
                w.shell_string(&cmd, depth, source);
            }
        }
        _ => {}
    }
    for out in sub_args
        .iter()
        .filter_map(|a| a.text().strip_prefix("--output="))
    {
        w.write_target(&Arg::literal(out), "git --output");
    }
    if matches!(sub.as_str(), "archive" | "bundle")
        && let Some(i) = sub_args
            .iter()
            .position(|a| matches!(a.text(), "-o" | "--output"))
        && let Some(out) = sub_args.get(i + 1)
    {
        let out = out.clone();
        w.write_target(&out, "git archive -o");
    }
    let read_only = match sub.as_str() {
        "status" | "log" | "diff" | "show" | "blame" | "annotate" | "grep" | "describe"
        | "shortlog" | "rev-parse" | "rev-list" | "ls-files" | "ls-tree" | "cat-file"
        | "show-ref" | "for-each-ref" | "count-objects" | "merge-base" | "name-rev" | "var"
        | "check-ignore" | "check-attr" | "diff-tree" | "diff-files" | "diff-index"
        | "whatchanged" | "version" | "help" | "cherry" | "range-diff" | "show-branch"
        | "verify-commit" | "verify-tag" | "archive" => true,
        "branch" => {
            no_operands
                || sub_args.iter().any(|a| {
                    matches!(
                        a.text(),
                        "--list" | "-l" | "--contains" | "--merged" | "--no-merged" | "--points-at"
                    )
                })
        }
        "tag" => no_operands || shorts('l') || has("--list"),
        "remote" => no_operands || matches!(first, Some("-v" | "--verbose" | "get-url")),
        "stash" => matches!(first, Some("list" | "show")),
        "reflog" => matches!(first, None | Some("show")),
        "worktree" => first == Some("list"),
        "submodule" => matches!(first, None | Some("status" | "summary")),
        "config" => {
            sub_args.iter().any(|a| {
                matches!(
                    a.text(),
                    "--get"
                        | "--get-all"
                        | "--get-regexp"
                        | "--list"
                        | "-l"
                        | "get"
                        | "list"
                        | "--show-origin"
                )
            }) || sp.operands.len() == 1
        }
        "ls-remote" | "clone" => {
            git_network_read(w, &sub, sub_args, source);
            return;
        }
        _ => false,
    };
    if !read_only {
        w.unproven(
            source,
            format!(
                "`git {sub}` changes the repository or reaches a remote, which artoo does not check"
            ),
        );
    }
}

/// `git clone URL [DIR]` and `git ls-remote URL`: network reads; a clone creates its
/// folder.
fn git_network_read(w: &mut Walker<'_>, sub: &str, args: &[Arg], source: &str) {
    const SAFE: &[&str] = &[
        "depth",
        "branch",
        "single-branch",
        "no-single-branch",
        "quiet",
        "verbose",
        "progress",
        "no-tags",
        "tags",
        "heads",
        "refs",
        "shallow-since",
        "shallow-exclude",
        "filter",
        "bare",
        "mirror",
        "origin",
        "no-checkout",
        "sparse",
        "jobs",
        "recurse-submodules",
        "shallow-submodules",
        "get-url",
        "exit-code",
        "symref",
        "sort",
    ];
    let mut operands: Vec<&Arg> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let Some(t) = a.lit.as_deref() else {
            w.unproven(source, "its address is only known when it runs");
            return;
        };
        if let Some(l) = t.strip_prefix("--") {
            let key = l.split('=').next().unwrap_or(l);
            match known::long_option(key, SAFE) {
                Some(full) => {
                    if !l.contains('=')
                        && matches!(
                            full,
                            "depth"
                                | "branch"
                                | "shallow-since"
                                | "shallow-exclude"
                                | "filter"
                                | "origin"
                                | "jobs"
                                | "sort"
                        )
                    {
                        i += 1;
                    }
                }
                None => {
                    w.unproven(
                        source,
                        format!("`git {sub}` was given {t}, which artoo does not check"),
                    );
                    return;
                }
            }
        } else if t.starts_with('-') && t.len() > 1 {
            match t {
                "-q" | "-v" | "-n" | "-t" | "-h" => {}
                "-b" | "-o" | "-j" => i += 1,
                _ => {
                    w.unproven(
                        source,
                        format!("`git {sub}` was given {t}, which artoo does not check"),
                    );
                    return;
                }
            }
        } else {
            operands.push(a);
        }
        i += 1;
    }
    if sub == "clone" {
        let dir = match (operands.get(1), operands.first()) {
            (Some(dir), _) => (*dir).clone(),
            (None, Some(url)) => {
                let name = url
                    .text()
                    .trim_end_matches('/')
                    .rsplit(['/', ':'])
                    .next()
                    .unwrap_or_default()
                    .trim_end_matches(".git")
                    .to_string();
                Arg::literal(&name)
            }
            (None, None) => return,
        };
        if let Target::Path {
            path,
            exists: Existence::Missing,
        } = w.path_target(&dir)
        {
            w.create(path);
        } else {
            w.unproven(source, "it clones into a folder that exists");
            return;
        }
    }
    w.network = true;
}
