//! Programs that run a command from their input, later or elsewhere: `env`, `xargs`,
//! `parallel`, `fd -x`, `watch`, and the schedulers `at`, `tmux`, `screen` and
//! `systemd-run`.
//!
//! **Invariant:** the command they run is classified too, with the words it only gets
//! at run time described in `extra`; a command that runs later or in a server is
//! walked as conditional code and stays unproven.

use super::rule::{Call, Rule, rule};
use super::wrappers::{fallback_verbs, wrapped};
use crate::laws::classify::args::{Arg, Stdin, joined, parse};
use crate::laws::classify::known;
use crate::laws::classify::walker::Walker;
use crate::laws::classify::words;

pub(super) const RULES: &[Rule] = &[
    rule(&["at", "batch"], at),
    rule(&["tmux", "screen", "systemd-run", "nohup-later"], tmux),
    rule(&["env"], env),
    rule(&["watch"], watch),
    rule(&["xargs", "gxargs"], xargs),
    rule(&["parallel"], parallel),
    rule(&["fd", "fdfind"], fd),
];

fn at(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        stdin,
        depth,
        source,
        ..
    } = *c;
    // The job runs later, outside any sandbox: what it would do is read now.
    if let Stdin::Literal(job) = stdin {
        let job = job.clone();
        w.conditional_script(&job, depth);
    }
    w.unproven(source, "it schedules commands to run later");
}

fn tmux(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name,
        rest,
        stdin,
        extra,
        depth,
        source,
    } = *c;
    // Commands they start run in a server or manager outside this call.
    let words: Vec<&Arg> = rest.iter().filter(|a| !a.text().starts_with('-')).collect();
    if let Some(last) = words.last()
        && let Some(text) = last.lit.as_deref()
        && words.len() >= 2
    {
        let text = text.to_string();
        w.conditional_script(&text, depth);
    }
    if name == "systemd-run" {
        let p = parse(
            rest,
            "pMEuUH",
            &[
                "property",
                "machine",
                "setenv",
                "unit",
                "uid",
                "gid",
                "working-directory",
                "description",
                "slice",
                "on-calendar",
                "on-active",
            ],
            true,
        );
        wrapped(w, rest, p.rest, stdin, extra, depth);
    }
    w.unproven(source, format!("`{name}` runs commands outside this call"));
}

fn watch(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "nd", &["interval", "differences"], true);
    // watch joins its arguments and runs them with `sh -c`.
    let cmd = rest.get(p.rest..).map(joined).unwrap_or_default();
    if rest[p.rest.min(rest.len())..]
        .iter()
        .all(|a| a.lit.is_some())
    {
        w.script(&cmd, depth + 1);
    } else {
        w.unproven(source, "the watched command is only known when it runs");
    }
}

fn parallel(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, depth, .. } = *c;
    let p = parse(rest, "jSjJ", &["jobs", "sshlogin", "profile"], true);
    let inner: Vec<Arg> = rest[p.rest.min(rest.len())..]
        .iter()
        .take_while(|a| !matches!(a.text(), ":::" | "::::" | ":::+"))
        .cloned()
        .collect();
    if inner.len() == 1 && inner[0].lit.is_some() {
        w.script(inner[0].text(), depth + 1);
    } else if !inner.is_empty() {
        w.argv(
            &inner,
            &Stdin::Closed,
            Some("the arguments parallel is given"),
            depth,
        );
    }
}

fn fd(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, depth, .. } = *c;
    if let Some(i) = rest
        .iter()
        .position(|a| matches!(a.text(), "-x" | "--exec" | "-X" | "--exec-batch"))
    {
        let inner: Vec<Arg> = rest[i + 1..]
            .iter()
            .take_while(|a| a.text() != ";")
            .cloned()
            .collect();
        w.argv(&inner, &Stdin::Closed, Some("each path fd finds"), depth);
    }
}

/// xargs's long options without a value.
const XARGS_FLAGS: &[&str] = &[
    "null",
    "interactive",
    "no-run-if-empty",
    "verbose",
    "exit",
    "open-tty",
    "show-limits",
    "replace",
    "help",
    "version",
];

/// xargs's long options that take a value.
const XARGS_VALUES: &[&str] = &[
    "arg-file",
    "delimiter",
    "eof",
    "max-lines",
    "max-args",
    "max-procs",
    "max-chars",
    "process-slot-var",
];

/// The options of `xargs`: where its command starts, the string `-I` (`-i`, `-J`)
/// replaces, and an option it does not know.
struct XargsOptions {
    start: usize,
    replace: Option<String>,
    unknown: Option<String>,
}

fn xargs_options(rest: &[Arg]) -> XargsOptions {
    let mut replace: Option<String> = None;
    let mut unknown: Option<String> = None;
    let mut i = 0;
    while i < rest.len() {
        let t = rest[i].text();
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (key, value) = match long.split_once('=') {
                Some((k, v)) => (k, Some(v.to_string())),
                None => (long, None),
            };
            let mut all: Vec<&'static str> = XARGS_FLAGS.to_vec();
            all.extend_from_slice(XARGS_VALUES);
            match known::long_option(key, &all) {
                Some("replace") => replace = Some(value.unwrap_or_else(|| "{}".into())),
                Some(full) if XARGS_VALUES.contains(&full) && value.is_none() => i += 1,
                Some(_) => {}
                None => unknown = Some(t.to_string()),
            }
            i += 1;
            continue;
        }
        let body: Vec<char> = t[1..].chars().collect();
        let mut j = 0;
        while j < body.len() {
            let c = body[j];
            let glued: String = body[j + 1..].iter().collect();
            match c {
                '0' | 'p' | 'r' | 't' | 'x' | 'o' => j += 1,
                'a' | 'd' | 'E' | 'I' | 'L' | 'n' | 'P' | 's' | 'J' | 'R' => {
                    let value = if glued.is_empty() {
                        i += 1;
                        rest.get(i)
                            .map(|a| a.text().to_string())
                            .unwrap_or_default()
                    } else {
                        glued
                    };
                    if matches!(c, 'I' | 'J') {
                        replace = Some(value);
                    }
                    break;
                }
                'i' => {
                    replace = Some(if glued.is_empty() { "{}".into() } else { glued });
                    break;
                }
                'e' | 'l' => break,
                _ => {
                    unknown = Some(t.to_string());
                    break;
                }
            }
        }
        i += 1;
    }
    XargsOptions {
        start: i,
        replace,
        unknown,
    }
}

/// `xargs [options] COMMAND…`: the command runs with names read from the input. `-I R`
/// (`-i`, `-J R`) puts them where `R` stands; an argument holding `R` is then only
/// known at run time.
fn xargs(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        depth,
        source,
        ..
    } = *c;
    let XargsOptions {
        start: i,
        replace,
        unknown,
    } = xargs_options(rest);
    if let Some(opt) = unknown {
        w.unproven(
            source,
            format!("xargs was given an option artoo does not know ({opt})"),
        );
    }
    let inner: Vec<Arg> = rest[i.min(rest.len())..]
        .iter()
        .filter(|a| replace.as_deref().is_none_or(|r| a.text() != r))
        .map(|a| match &replace {
            Some(r) if a.text().contains(r.as_str()) => Arg {
                lit: None,
                raw: a.raw.clone(),
                glob: false,
            },
            _ => a.clone(),
        })
        .collect();
    if inner.is_empty() {
        return; // defaults to echo
    }
    w.argv(
        &inner,
        &Stdin::Closed,
        Some("the names xargs reads from its input"),
        depth,
    );
    fallback_verbs(w, rest, i, stdin, depth);
}

fn env(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    let p = parse(
        rest,
        "uCSP",
        &[
            "unset",
            "chdir",
            "split-string",
            "default-signal",
            "ignore-signal",
            "block-signal",
        ],
        true,
    );
    if let Some(split) = p.value("S").or_else(|| p.value("split-string")) {
        // `env -S 'rm -rf x'`: the string is split into words and run with the rest.
        match &split.lit {
            Some(s) => {
                let tail = rest.get(p.rest..).map(joined).unwrap_or_default();
                let cmd = format!("{s} {tail}");
                w.script(&cmd, depth + 1);
            }
            None => w.unproven(source, "env -S runs a string only known when it runs"),
        }
        return;
    }
    let mut start = p.rest;
    // `env -` is `env -i`.
    if rest.get(start).is_some_and(|a| a.text() == "-") {
        start += 1;
    }
    while start < rest.len()
        && rest[start].text().contains('=')
        && !rest[start].text().starts_with('=')
    {
        let var = rest[start].text().split('=').next().unwrap_or_default();
        if words::is_code_variable(var) {
            w.unproven(
                source,
                format!("it sets {var}, which can make the program run something else"),
            );
        }
        start += 1;
    }
    let env_opts = &rest[..p.rest.min(rest.len())];
    let spec = known::Opts {
        short: "i0v",
        short_val: "uCSP",
        long: &[
            "ignore-environment",
            "null",
            "debug",
            "list-signal-handling",
        ],
        long_val: &[
            "unset",
            "chdir",
            "split-string",
            "default-signal",
            "ignore-signal",
            "block-signal",
        ],
        digits: false,
    };
    if let Some(opt) = known::unknown_options(&spec, env_opts) {
        w.unproven(
            source,
            format!("env was given an option artoo does not know ({opt})"),
        );
    }
    if p.value("C").is_some() || p.value("chdir").is_some() {
        let saved = w.cwd.clone();
        w.cwd = None;
        wrapped(w, rest, start, stdin, extra, depth);
        w.cwd = saved;
    } else {
        wrapped(w, rest, start, stdin, extra, depth);
    }
}
