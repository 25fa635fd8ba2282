//! Package managers: system ones (`apt`, `brew`, `dpkg`…), language ones (`pip`, `npm`,
//! `uv`, `yarn`…) and `cargo uninstall`.
//!
//! **Invariant:** removing software is a SystemConfig effect; any sub-command that is not a
//! listed query (installing, updating, fetching) is unproven.

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, parse};
use crate::laws::classify::assessment::EffectKind;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[
    rule(
        &[
            "apt", "apt-get", "aptitude", "yum", "dnf", "zypper", "apk", "snap", "flatpak", "brew",
            "port", "gem", "conda", "mamba",
        ],
        apt,
    ),
    rule(&["apt-cache"], apt_cache),
    rule(&["dpkg", "rpm", "pacman"], dpkg),
    rule(
        &["pip", "pip3", "pipx", "uv", "npm", "pnpm", "yarn"],
        package_tool,
    ),
    rule(&["cargo"], cargo),
];

fn apt(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    let p = parse(rest, "", &[], false);
    let sub = p
        .operands
        .first()
        .map(|a| a.text().to_ascii_lowercase())
        .unwrap_or_default();
    if matches!(
        sub.as_str(),
        "remove"
            | "purge"
            | "autoremove"
            | "autopurge"
            | "erase"
            | "uninstall"
            | "rm"
            | "untap"
            | "del"
            | "delete"
            | "zap"
    ) || (matches!(sub.as_str(), "env" | "environment")
        && p.operands
            .get(1)
            .is_some_and(|a| matches!(a.text(), "remove" | "delete" | "rm")))
    {
        w.unknown(EffectKind::SystemConfig, "installed software", source);
    } else if !package_query(name, &sub) {
        w.unproven(
            source,
            format!("`{name} {sub}` changes or fetches software, which artoo does not check"),
        );
    }
}

fn apt_cache(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let sub = rest.iter().map(Arg::text).find(|t| !t.starts_with('-'));
    if !matches!(
        sub,
        Some(
            "search"
                | "show"
                | "showpkg"
                | "policy"
                | "depends"
                | "rdepends"
                | "stats"
                | "pkgnames"
                | "madison"
                | "showsrc"
        )
    ) {
        w.unproven(source, "an `apt-cache` command artoo does not know");
    }
}

fn dpkg(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    let removes = rest.iter().any(|a| {
        let t = a.text();
        matches!(t, "-r" | "-P" | "--remove" | "--purge" | "-e" | "--erase")
            || (name == "pacman" && t.starts_with("-R"))
    });
    let query = rest.first().is_some_and(|a| {
        let t = a.text();
        match name {
            "dpkg" => matches!(
                t,
                "-l" | "-L"
                    | "-s"
                    | "-S"
                    | "-c"
                    | "-I"
                    | "-p"
                    | "--list"
                    | "--listfiles"
                    | "--status"
                    | "--search"
                    | "--contents"
                    | "--info"
                    | "--print-avail"
                    | "--get-selections"
                    | "--print-architecture"
                    | "--audit"
                    | "-C"
            ),
            "rpm" => t.starts_with("-q") || t == "--query",
            _ => t.starts_with("-Q"),
        }
    });
    if removes {
        w.unknown(EffectKind::SystemConfig, "installed software", source);
    } else if !query {
        w.unproven(source, format!("a `{name}` command artoo does not know"));
    }
}

fn cargo(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.first().is_some_and(|a| a.text() == "uninstall") {
        w.unknown(EffectKind::SystemConfig, "installed software", source);
    }
}

fn package_tool(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name,
        rest,
        stdin,
        extra,
        depth,
        source,
    } = *c;
    let p = parse(rest, "", &[], false);
    let ops: Vec<&str> = p.operands.iter().map(|a| a.text()).collect();
    let removes = |w: &str| {
        matches!(
            w,
            "uninstall" | "remove" | "rm" | "un" | "r" | "uninstall-all"
        )
    };
    let global = p.has('g', "global");
    let uninstall = match (name, ops.as_slice()) {
        ("pip" | "pip3" | "pipx", [first, ..]) => removes(first),
        ("uv", ["pip" | "tool", second, ..]) => removes(second),
        ("yarn", ["global", second, ..]) => removes(second),
        ("npm" | "pnpm" | "yarn", [first, ..]) => removes(first) && global,
        _ => false,
    };
    if uninstall {
        w.unknown(EffectKind::SystemConfig, "installed software", source);
        return;
    }
    let sub = ops.first().copied().unwrap_or_default();
    if matches!(sub, "publish" | "unpublish" | "deprecate" | "upload") {
        w.plain(EffectKind::Send, source);
        return;
    }
    if !package_query(name, sub) {
        w.unproven(
            source,
            format!("`{name} {sub}` changes or fetches software, which artoo does not check"),
        );
    }
    // `pipx run tool …`, `uv run cmd …`, `npm exec tool …`: the tool runs with the rest.
    let runner = match (name, ops.first().copied()) {
        ("pipx" | "uv", Some("run"))
        | ("npm" | "pnpm", Some("exec" | "x" | "dlx"))
        | ("yarn", Some("dlx")) => ops[0],
        _ => return,
    };
    if let Some(pos) = rest.iter().position(|a| a.text() == runner) {
        let mut start = pos + 1;
        while start < rest.len() && rest[start].text().starts_with('-') {
            start += 1;
        }
        if start < rest.len() {
            w.argv(&rest[start..], stdin, extra, depth);
        }
    }
}

/// Sub-commands of package managers that only report on what is installed.
fn package_query(tool: &str, sub: &str) -> bool {
    match tool {
        "apt" | "apt-get" => matches!(
            sub,
            "list" | "show" | "search" | "policy" | "depends" | "rdepends" | "showpkg"
        ),
        "brew" => matches!(
            sub,
            "list"
                | "ls"
                | "info"
                | "deps"
                | "leaves"
                | "config"
                | "--prefix"
                | "--cellar"
                | "--repository"
                | "desc"
                | "uses"
                | "--version"
                | "commands"
        ),
        "pip" | "pip3" => matches!(sub, "list" | "show" | "freeze" | "check" | "help" | "debug"),
        "npm" | "pnpm" | "yarn" => matches!(
            sub,
            "ls" | "list" | "ll" | "la" | "root" | "prefix" | "bin" | "help"
        ),
        "gem" => matches!(
            sub,
            "list" | "specification" | "contents" | "which" | "env" | "help"
        ),
        "conda" | "mamba" => matches!(sub, "list" | "info" | "help"),
        _ => false,
    }
}
