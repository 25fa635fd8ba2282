//! `git`: global options that can make it run other programs, sub-commands that discard
//! work or rewrite history, commands it runs (`bisect run`, `rebase --exec`), and the
//! network reads `clone` and `ls-remote`.
//!
//! **Invariant:** a sub-command is proven only when it is listed as read-only; every other one
//! is an effect or unproven.

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, Parsed, Stdin, parse};
use crate::laws::classify::assessment::{EffectKind, Existence, Target};
use crate::laws::classify::known;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[rule(&["git"], git)];

/// git's own options that take a value.
const GIT_VALUE_OPTIONS: &[&str] = &[
    "git-dir",
    "work-tree",
    "namespace",
    "exec-path",
    "config-env",
    "super-prefix",
];

/// The long options of `git reset`.
const RESET_OPTIONS: &[&str] = &[
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
];

/// The long options of `git push`.
const PUSH_OPTIONS: &[&str] = &[
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
];

/// A git sub-command and the words after it.
struct Sub<'a> {
    name: String,
    args: &'a [Arg],
    parsed: Parsed<'a>,
}

impl Sub<'_> {
    /// The long options among `known` that the sub-command was given (abbreviations
    /// expanded).
    fn longs(&self, known: &[&'static str]) -> Vec<&'static str> {
        self.args
            .iter()
            .filter_map(|a| a.text().strip_prefix("--"))
            .filter_map(|l| known::long_option(l.split('=').next().unwrap_or(l), known))
            .collect()
    }

    fn has(&self, word: &str) -> bool {
        self.args.iter().any(|a| a.text() == word)
    }

    fn shorts(&self, c: char) -> bool {
        self.parsed.shorts.contains(c)
    }

    fn first(&self) -> Option<&str> {
        self.args.first().map(Arg::text)
    }

    fn forced(&self) -> bool {
        self.shorts('f') || self.has("--force")
    }

    fn new_branch(&self) -> bool {
        self.shorts('b') || self.shorts('B') || self.has("--orphan")
    }
}

fn git(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "Cc", GIT_VALUE_OPTIONS, true);
    global_options(w, &p, source);
    let args = &rest[p.rest.min(rest.len())..];
    let Some(name) = args.first().map(|a| a.text().to_string()) else {
        return;
    };
    let sub_args = &args[1..];
    let sub = Sub {
        name,
        args: sub_args,
        parsed: parse(sub_args, "", &[], false),
    };
    // (kind, what) of the one effect this sub-command has, if any.
    let effect = work_effect(w, &sub, source).or_else(|| history_effect(&sub));
    if let Some((kind, what)) = effect {
        let target = if what.is_empty() {
            Target::None
        } else {
            Target::Unknown(what.to_string())
        };
        w.push(kind, target, source.to_string(), None);
        return;
    }
    if runs_commands(w, &sub, stdin, depth, source) {
        return;
    }
    outputs(w, &sub);
    read_only(w, &sub, source);
}

/// `-c key=value` and the options that point git at other folders or programs.
fn global_options(w: &mut Walker<'_>, p: &Parsed<'_>, source: &str) {
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
}

/// The effect of a sub-command that discards work in the working copy or on a remote.
fn work_effect(
    w: &mut Walker<'_>,
    sub: &Sub<'_>,
    source: &str,
) -> Option<(EffectKind, &'static str)> {
    match sub.name.as_str() {
        "clean" => {
            let l = sub.longs(&["dry-run", "force", "interactive", "quiet", "exclude"]);
            (!(sub.shorts('n') || l.contains(&"dry-run")))
                .then_some((EffectKind::Delete, "untracked files in the repository"))
        }
        "reset" => {
            let l = sub.longs(RESET_OPTIONS);
            (l.iter().any(|o| matches!(*o, "hard" | "merge" | "keep")))
                .then_some((EffectKind::History, "uncommitted changes"))
        }
        // `git checkout <commit> <path>…` restores paths over the working copy.
        "checkout"
            if sub.has("--")
                || sub.has(".")
                || sub.forced()
                || sub.shorts('p')
                || sub.has("--patch")
                || sub.has("--theirs")
                || sub.has("--ours")
                || (!sub.new_branch() && sub.parsed.operands.len() >= 2) =>
        {
            Some((
                EffectKind::History,
                "uncommitted changes to the named files",
            ))
        }
        "restore"
            if !(sub.has("--staged") || sub.shorts('S'))
                || sub.has("--worktree")
                || sub.shorts('W') =>
        {
            Some((
                EffectKind::History,
                "uncommitted changes to the named files",
            ))
        }
        "switch" if sub.has("--discard-changes") || sub.forced() => {
            Some((EffectKind::History, "uncommitted changes"))
        }
        "push" => {
            let l = sub.longs(PUSH_OPTIONS);
            (sub.shorts('f')
                || sub.shorts('d')
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
                || sub.args.iter().any(|a| {
                    let t = a.text();
                    !t.starts_with('-') && (t.starts_with('+') || t.starts_with(':'))
                }))
            .then_some((EffectKind::History, "commits or branches on the remote"))
        }
        "branch"
            if sub.shorts('D')
                || sub.shorts('M')
                || sub.shorts('C')
                || ((sub.has("--delete") || sub.shorts('d')) && sub.forced()) =>
        {
            Some((EffectKind::History, "a branch"))
        }
        "stash" if matches!(sub.first(), Some("drop" | "clear")) => {
            Some((EffectKind::History, "stashed changes"))
        }
        "rm" if !sub.has("--cached") && !sub.shorts('n') && !sub.has("--dry-run") => {
            let ops: Vec<&Arg> = sub.parsed.operands.clone();
            w.each_path(EffectKind::Delete, &ops, source, None);
            None
        }
        _ => None,
    }
}

/// The effect of a sub-command that rewrites history, sends, or changes configuration.
fn history_effect(sub: &Sub<'_>) -> Option<(EffectKind, &'static str)> {
    match sub.name.as_str() {
        "gc" if sub.args.iter().any(|a| a.text().starts_with("--prune")) => {
            Some((EffectKind::History, "unreachable commits"))
        }
        "prune" | "filter-branch" | "filter-repo" => {
            Some((EffectKind::History, "repository history"))
        }
        "reflog" if matches!(sub.first(), Some("expire" | "delete")) => Some((
            EffectKind::History,
            "the reflog (the safety net for lost commits)",
        )),
        "update-ref" if sub.shorts('d') => Some((EffectKind::History, "a reference")),
        "worktree"
            if sub.first() == Some("prune") || (sub.first() == Some("remove") && sub.forced()) =>
        {
            Some((
                EffectKind::History,
                "a worktree and its uncommitted changes",
            ))
        }
        "tag" if sub.shorts('d') || sub.has("--delete") || sub.forced() => {
            Some((EffectKind::History, "a tag"))
        }
        "submodule" if sub.has("deinit") && sub.forced() => {
            Some((EffectKind::History, "submodule working trees"))
        }
        "send-email" | "imap-send" => Some((EffectKind::Send, "")),
        "config"
            if (sub.has("--global") || sub.has("--system"))
                && (sub.parsed.operands.len() >= 2
                    || sub.has("--unset")
                    || sub.has("--unset-all")
                    || sub.has("--replace-all")
                    || sub.has("--add")) =>
        {
            Some((EffectKind::SystemConfig, ""))
        }
        "config"
            if sub.parsed.operands.len() >= 2
                && sub.parsed.operands.first().is_some_and(|k| {
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
    }
}

/// Commands git runs for some sub-commands. `true` when nothing more is to be checked.
fn runs_commands(
    w: &mut Walker<'_>,
    sub: &Sub<'_>,
    stdin: &Stdin,
    depth: usize,
    source: &str,
) -> bool {
    match sub.name.as_str() {
        "bisect" if sub.first() == Some("run") => {
            w.unproven(source, "git bisect runs a command at each step");
            if sub.args.len() > 1 {
                w.argv(&sub.args[1..], stdin, None, depth);
            }
            return true;
        }
        "rebase" => {
            for (i, a) in sub.args.iter().enumerate() {
                if matches!(a.text(), "-x" | "--exec")
                    && let Some(cmd) = sub.args.get(i + 1)
                {
                    let cmd = cmd.clone();
                    w.shell_string(&cmd, depth, source);
                }
            }
        }
        "submodule" if sub.first() == Some("foreach") => {
            if let Some(cmd) = sub.args.iter().skip(1).find(|a| !a.text().starts_with('-')) {
                let cmd = cmd.clone();
                w.shell_string(&cmd, depth, source);
            }
        }
        _ => {}
    }
    false
}

/// Files `--output` and `archive -o` write.
fn outputs(w: &mut Walker<'_>, sub: &Sub<'_>) {
    for out in sub
        .args
        .iter()
        .filter_map(|a| a.text().strip_prefix("--output="))
    {
        w.write_target(&Arg::literal(out), "git --output");
    }
    if matches!(sub.name.as_str(), "archive" | "bundle")
        && let Some(i) = sub
            .args
            .iter()
            .position(|a| matches!(a.text(), "-o" | "--output"))
        && let Some(out) = sub.args.get(i + 1)
    {
        let out = out.clone();
        w.write_target(&out, "git archive -o");
    }
}

/// Whether the sub-command only reads; `clone` and `ls-remote` are network reads.
fn read_only(w: &mut Walker<'_>, sub: &Sub<'_>, source: &str) {
    let read_only = match sub.name.as_str() {
        "status" | "log" | "diff" | "show" | "blame" | "annotate" | "grep" | "describe"
        | "shortlog" | "rev-parse" | "rev-list" | "ls-files" | "ls-tree" | "cat-file"
        | "show-ref" | "for-each-ref" | "count-objects" | "merge-base" | "name-rev" | "var"
        | "check-ignore" | "check-attr" | "diff-tree" | "diff-files" | "diff-index"
        | "whatchanged" | "version" | "help" | "cherry" | "range-diff" | "show-branch"
        | "verify-commit" | "verify-tag" | "archive" => true,
        "branch" => {
            sub.parsed.operands.is_empty()
                || sub.args.iter().any(|a| {
                    matches!(
                        a.text(),
                        "--list" | "-l" | "--contains" | "--merged" | "--no-merged" | "--points-at"
                    )
                })
        }
        "tag" => sub.parsed.operands.is_empty() || sub.shorts('l') || sub.has("--list"),
        "remote" => {
            sub.parsed.operands.is_empty()
                || matches!(sub.first(), Some("-v" | "--verbose" | "get-url"))
        }
        "stash" => matches!(sub.first(), Some("list" | "show")),
        "reflog" => matches!(sub.first(), None | Some("show")),
        "worktree" => sub.first() == Some("list"),
        "submodule" => matches!(sub.first(), None | Some("status" | "summary")),
        "config" => {
            sub.args.iter().any(|a| {
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
            }) || sub.parsed.operands.len() == 1
        }
        "ls-remote" | "clone" => {
            git_network_read(w, &sub.name, sub.args, source);
            return;
        }
        _ => false,
    };
    if !read_only {
        w.unproven(
            source,
            format!(
                "`git {}` changes the repository or reaches a remote, which artoo does not check",
                sub.name
            ),
        );
    }
}

/// The long options of `git clone` and `git ls-remote` that keep them a plain read.
const CLONE_SAFE: &[&str] = &[
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

/// `git clone URL [DIR]` and `git ls-remote URL`: network reads; a clone creates its
/// folder.
fn git_network_read(w: &mut Walker<'_>, sub: &str, args: &[Arg], source: &str) {
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
            match known::long_option(key, CLONE_SAFE) {
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
    w.network_read(source, args);
}
