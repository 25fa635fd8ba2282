//! Wrappers: programs that run another command (`sudo`, `env`, `nohup`, `time`, `nice`,
//! `timeout`, `xargs`, `parallel`, `flock`, `chroot`, `su`, `script`…) or schedule one
//! (`at`, `tmux`, `systemd-run`).
//!
//! **Invariant:** the wrapped command is classified as if it ran alone, and a wrapper's own
//! options must all be known; when option parsing may have gone wrong, a destructive
//! program among the wrapper's words is taken as the command (fail closed).

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, Stdin, parse};
use crate::laws::classify::assessment::EffectKind;
use crate::laws::classify::walker::Walker;
use crate::laws::classify::{known, text, words};

pub(super) const RULES: &[Rule] = &[
    rule(&["sudo", "doas", "run0", "pkexec"], sudo),
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
    rule(&["su", "runuser", "sg"], su),
    rule(&["script"], script),
    rule(&["busybox", "toybox"], busybox),
    rule(&["npx", "bunx", "pnpx", "uvx"], npx),
];

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

/// A wrapper's own options (those before the command it runs) must all be known.
pub(super) fn wrapper_options(
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
pub(super) fn wrapped(
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
pub(super) fn fallback_verbs(
    w: &mut Walker<'_>,
    rest: &[Arg],
    start: usize,
    stdin: &Stdin,
    depth: usize,
) {
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
