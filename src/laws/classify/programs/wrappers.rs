//! Wrappers: programs that run another command (`sudo`, `env`, `nohup`, `time`, `nice`,
//! `timeout`, `xargs`, `parallel`, `flock`, `chroot`, `su`, `script`…) or schedule one
//! (`at`, `tmux`, `systemd-run`).
//!
//! **Invariant:** the wrapped command is classified as if it ran alone, and a wrapper's own
//! options must all be known; when option parsing may have gone wrong, a destructive
//! program among the wrapper's words is taken as the command (fail closed).

use super::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, Stdin, joined, parse};
use crate::laws::classify::assessment::EffectKind;
use crate::laws::classify::walker::Walker;
use crate::laws::classify::{known, text, words};

pub(super) const RULES: &[Rule] = &[
    rule(&["at", "batch"], at),
    rule(&["tmux", "screen", "systemd-run", "nohup-later"], tmux),
    rule(&["sudo", "doas", "run0", "pkexec"], sudo),
    rule(&["env"], env),
    rule(
        &[
            "nohup",
            "setsid",
            "unbuffer",
            "nocorrect",
            "noglob",
            "builtin",
            "catchsegv",
            "torsocks",
            "proxychains",
            "proxychains4",
            "tsocks",
            "firejail",
            "exec",
        ],
        nohup,
    ),
    rule(&["command"], command),
    rule(&["time"], time),
    rule(&["nice", "renice-run"], nice),
    rule(&["ionice"], ionice),
    rule(&["timeout", "gtimeout"], timeout),
    rule(&["stdbuf", "gstdbuf"], stdbuf),
    rule(&["caffeinate"], caffeinate),
    rule(&["chrt", "taskset"], chrt),
    rule(&["strace", "ltrace"], strace),
    rule(&["flock"], flock),
    rule(&["chroot"], chroot),
    rule(&["arch"], arch),
    rule(&["watch"], watch),
    rule(&["xargs", "gxargs"], xargs),
    rule(&["parallel"], parallel),
    rule(&["fd", "fdfind"], fd),
    rule(&["su", "runuser", "sg"], su),
    rule(&["script"], script),
    rule(&["busybox", "toybox"], busybox),
    rule(&["npx", "bunx", "pnpx", "uvx"], npx),
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

/// ---- wrappers: the real command follows ----
fn sudo(w: &mut Walker<'_>, c: &Call<'_>) {
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
        "ughprtCDTUcR",
        &[
            "user",
            "group",
            "host",
            "prompt",
            "role",
            "type",
            "close-from",
            "chdir",
            "command-timeout",
            "other-user",
            "chroot",
        ],
        true,
    );
    if p.has('e', "edit") {
        w.unknown(
            EffectKind::SystemConfig,
            "files edited as the administrator",
            source,
        );
    }
    w.unproven(
        source,
        "it runs a command as the administrator, which the sandbox does not allow",
    );
    wrapped(w, rest, p.rest, stdin, extra, depth);
}

fn nohup(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "a", &[], true);
    wrapper_options(w, source, &rest[..p.rest.min(rest.len())], "cl", "a", &[]);
    wrapped(w, rest, p.rest, stdin, extra, depth);
}

fn command(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "", &[], true);
    wrapper_options(w, source, &rest[..p.rest.min(rest.len())], "pvV", "", &[]);
    if !(p.has('v', "") || p.has('V', "")) {
        wrapped(w, rest, p.rest, stdin, extra, depth);
    }
}

fn time(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "fo", &["format", "output"], true);
    wrapper_options(
        w,
        source,
        &rest[..p.rest.min(rest.len())],
        "pavq",
        "fo",
        &[
            "portability",
            "append",
            "verbose",
            "quiet",
            "format",
            "output",
        ],
    );
    if let Some(out) = p.value("o").or_else(|| p.value("output")) {
        let out = out.clone();
        w.write_target(&out, "time -o");
    }
    wrapped(w, rest, p.rest, stdin, extra, depth);
}

fn nice(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "n", &["adjustment"], true);
    let opts = &rest[..p.rest.min(rest.len())];
    let digits = opts.iter().all(|a| {
        let t = a.text();
        t.starts_with('-') && t[1..].chars().all(|c| c.is_ascii_digit()) && t.len() > 1
    });
    if !digits {
        wrapper_options(w, source, opts, "", "n", &["adjustment"]);
    }
    wrapped(w, rest, p.rest, stdin, extra, depth);
}

fn ionice(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        ..
    } = *c;
    let p = parse(
        rest,
        "cnp",
        &["class", "classdata", "pid", "pgid", "uid"],
        true,
    );
    wrapped(w, rest, p.rest, stdin, extra, depth);
}

fn timeout(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "sk", &["signal", "kill-after"], true);
    wrapper_options(
        w,
        source,
        &rest[..p.rest.min(rest.len())],
        "v",
        "sk",
        &[
            "signal",
            "kill-after",
            "preserve-status",
            "foreground",
            "verbose",
        ],
    );
    // The duration comes first.
    wrapped(w, rest, p.rest + 1, stdin, extra, depth);
}

fn stdbuf(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "ioe", &["input", "output", "error"], true);
    wrapper_options(
        w,
        source,
        &rest[..p.rest.min(rest.len())],
        "",
        "ioe",
        &["input", "output", "error"],
    );
    wrapped(w, rest, p.rest, stdin, extra, depth);
}

fn caffeinate(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "tw", &[], true);
    wrapper_options(
        w,
        source,
        &rest[..p.rest.min(rest.len())],
        "dimsu",
        "tw",
        &[],
    );
    wrapped(w, rest, p.rest, stdin, extra, depth);
}

fn chrt(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        ..
    } = *c;
    let p = parse(rest, "", &[], true);
    wrapped(w, rest, p.rest + 1, stdin, extra, depth);
}

fn strace(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        ..
    } = *c;
    let p = parse(rest, "oepsuEaIXPb", &["output", "expr"], true);
    if let Some(out) = p.value("o").or_else(|| p.value("output")) {
        let out = out.clone();
        w.write_target(&out, "-o");
    }
    wrapped(w, rest, p.rest, stdin, extra, depth);
}

fn flock(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "wE", &["timeout", "conflict-exit-code"], true);
    // `flock [opts] FILE -c CMD` or `flock [opts] FILE CMD…`.
    let c = rest
        .iter()
        .position(|a| matches!(a.text(), "-c" | "--command"));
    if let Some(cmd) = c.and_then(|i| rest.get(i + 1)) {
        let cmd = cmd.clone();
        w.shell_string(&cmd, depth, source);
    } else {
        // `flock FILE CMD…`
        wrapped(w, rest, p.rest + 1, stdin, extra, depth);
    }
}

fn chroot(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        ..
    } = *c;
    let p = parse(rest, "", &["userspec", "groups"], true);
    let saved = (w.cwd.clone(), w.remote.clone());
    w.cwd = None;
    w.remote = Some(format!(
        "inside {}",
        rest.get(p.rest).map(Arg::text).unwrap_or("another root")
    ));
    wrapped(w, rest, p.rest + 1, stdin, extra, depth);
    (w.cwd, w.remote) = saved;
}

fn arch(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        ..
    } = *c;
    let p = parse(rest, "de", &[], true);
    wrapped(w, rest, p.rest, stdin, extra, depth);
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

fn su(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name,
        rest,
        stdin,
        extra,
        depth,
        source,
    } = *c;
    let p = parse(
        rest,
        "cgGsl",
        &["command", "group", "supp-group", "shell", "login"],
        false,
    );
    if let Some(cmd) = p.value("c").or_else(|| p.value("command")) {
        let cmd = cmd.clone();
        w.shell_string(&cmd, depth, source);
    } else if name == "sg"
        && let Some(cmd) = p.operands.get(1)
    {
        let cmd = (*cmd).clone();
        w.shell_string(&cmd, depth, source);
    } else if let Some(i) = rest.iter().position(|a| a.text() == "--") {
        // `runuser -u USER -- COMMAND…`
        wrapped(w, rest, i + 1, stdin, extra, depth);
    }
    w.unproven(source, "it runs a command as another user");
}

fn script(w: &mut Walker<'_>, c: &Call<'_>) {
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
        "cEIOBTm",
        &[
            "command",
            "log-out",
            "log-in",
            "log-io",
            "log-timing",
            "logging-format",
            "echo",
        ],
        false,
    );
    if let Some(cmd) = p.value("c").or_else(|| p.value("command")) {
        let cmd = cmd.clone();
        w.shell_string(&cmd, depth, source);
    } else if p.operands.len() >= 2 {
        // BSD and macOS: `script [-q] FILE COMMAND…` runs the command.
        let start = rest
            .iter()
            .position(|a| std::ptr::eq(a, p.operands[1]))
            .unwrap_or(rest.len());
        wrapped(w, rest, start, stdin, extra, depth);
    }
}

fn busybox(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        ..
    } = *c;
    if !rest.is_empty() {
        w.argv(rest, stdin, extra, depth);
    }
}

fn npx(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        ..
    } = *c;
    let p = parse(rest, "p", &["package"], true);
    wrapped(w, rest, p.rest, stdin, extra, depth);
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
            const FLAGS: &[&str] = &[
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
            const VALUES: &[&str] = &[
                "arg-file",
                "delimiter",
                "eof",
                "max-lines",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
            ];
            let mut all: Vec<&'static str> = FLAGS.to_vec();
            all.extend_from_slice(VALUES);
            match known::long_option(key, &all) {
                Some("replace") => replace = Some(value.unwrap_or_else(|| "{}".into())),
                Some(full) if VALUES.contains(&full) && value.is_none() => i += 1,
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

/// A wrapper's own options (those before the command it runs) must all be known.
fn wrapper_options(
    w: &mut Walker<'_>,
    source: &str,
    opts: &[Arg],
    short: &'static str,
    short_val: &'static str,
    long: &'static [&'static str],
) {
    let spec = known::Opts {
        short,
        short_val,
        long,
        long_val: long,
        digits: false,
    };
    if let Some(opt) = known::unknown_options(&spec, opts) {
        w.unproven(
            source,
            format!("the wrapper was given an option artoo does not know ({opt})"),
        );
    }
}

/// The command a wrapper runs starts at `rest[start]`.
fn wrapped(
    w: &mut Walker<'_>,
    rest: &[Arg],
    start: usize,
    stdin: &Stdin,
    extra: Option<&str>,
    depth: usize,
) {
    if start < rest.len() {
        w.argv(&rest[start..], stdin, extra, depth);
    }
    fallback_verbs(w, rest, start, stdin, depth);
}

/// Option parsing of a wrapper may be wrong for options it does not know; if a
/// word among the wrapper's options is a destructive program, treat it as the
/// command too (fail closed).
fn fallback_verbs(w: &mut Walker<'_>, rest: &[Arg], start: usize, stdin: &Stdin, depth: usize) {
    for i in 0..start.min(rest.len()) {
        if let Some(word) = rest[i].fixed() {
            let base = word.rsplit('/').next().unwrap_or(word);
            if words::is_verb_always_gated(&text::fold_name(base)) {
                w.argv(&rest[i..], stdin, None, depth);
                return;
            }
        }
    }
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
