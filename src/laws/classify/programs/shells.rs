//! Shells and their builtins: `bash -c`, scripts run by a shell or `source`, `eval`,
//! `trap`, `alias`, `cd`, `hash`, and `ssh`, whose command runs in a remote shell.
//!
//! **Invariant:** text that becomes shell code is walked as commands when it is literal, and is
//! unproven when it is only known at run time; a script file is never proven, since it
//! can change before it runs.

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, Stdin, joined, parse};
use crate::laws::classify::text;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[
    rule(&["cd"], cd),
    rule(&["pushd", "popd"], pushd),
    rule(&["hash"], hash),
    rule(&["trap"], trap),
    rule(&["alias"], alias),
    rule(&["ssh"], ssh),
    rule(&["eval"], eval),
    rule(&["source", "."], source_file),
];

fn cd(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, .. } = *c;
    w.set_cwd(
        rest.iter()
            .find(|a| !a.text().starts_with('-') || a.text() == "-"),
    );
}

fn pushd(w: &mut Walker<'_>, _: &Call<'_>) {
    w.cwd = None;
}

fn hash(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest
        .iter()
        .any(|a| a.text().starts_with("-p") || a.text() == "-t" && rest.len() > 2)
    {
        w.path_changed = true;
        w.unproven(source, "`hash -p` makes a program name run another program");
    }
}

fn trap(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        depth,
        source,
        ..
    } = *c;
    if let Some(code) = rest.first() {
        match code.lit.as_deref() {
            Some(s) if !s.starts_with('-') => w.script(s, depth + 1),
            Some(_) => {}
            None => w.unproven(source, "the trap's command is only known when it runs"),
        }
    }
}

fn alias(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, depth, .. } = *c;
    for a in rest {
        if let Some((_, body)) = a.text().split_once('=') {
            let body = body.to_string();
            w.script(&body, depth + 1);
        }
    }
}

fn eval(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        depth,
        source,
        ..
    } = *c;
    if rest.iter().all(|a| a.lit.is_some()) {
        let code = joined(rest);
        w.script(&code, depth + 1);
    } else {
        w.unproven(
            source,
            "eval runs text that is only known when the command runs",
        );
    }
}

fn source_file(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        depth,
        source,
        ..
    } = *c;
    if let Some(file) = rest.first() {
        run_script_file(w, file, source, depth);
    }
}

pub(super) fn shell(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        stdin,
        extra,
        depth,
        source,
        ..
    } = *c;
    if let Some(what) = extra {
        // `xargs bash`, `find -exec sh {}`: it runs scripts named only at run time.
        w.unproven(source, format!("it runs scripts from {what}"));
    }
    let p = parse(rest, "oO", &["rcfile", "init-file"], true);
    if p.value("rcfile").or_else(|| p.value("init-file")).is_some() {
        w.unproven(source, "the shell reads a start-up file first");
    }
    if p.shorts.contains('c') {
        match rest.get(p.rest) {
            Some(cmd) => {
                let cmd = cmd.clone();
                w.shell_string(&cmd, depth, source);
            }
            None => w.unproven(source, "a shell with -c but no command"),
        }
        return;
    }
    if let Some(file) = rest.get(p.rest)
        && !p.shorts.contains('s')
    {
        let file = file.clone();
        run_script_file(w, &file, source, depth);
        return;
    }
    match stdin {
        Stdin::Literal(s) => {
            let s = s.clone();
            w.script(&s, depth + 1);
        }
        Stdin::Unknown => w.unproven(source, "a shell runs commands it reads from its input"),
        Stdin::Closed => {}
    }
}

/// `bash FILE`, `source FILE`: a script's content can change before it runs, so it is
/// never proven; when it can be read it is walked, so what it certainly destroys is
/// asked about.
fn run_script_file(w: &mut Walker<'_>, file: &Arg, source: &str, depth: usize) {
    let path = file
        .fixed()
        .and_then(|f| text::resolve(f, w.cwd.as_deref()));
    match path.and_then(|p| w.scope.fs.read_script(&p)) {
        Some(text) => {
            w.unproven(
                source,
                format!(
                    "it runs the script {}, whose content can change before it runs",
                    file.text()
                ),
            );
            let saved = w.cwd.clone();
            w.script(&text, depth + 1);
            w.cwd = saved;
        }
        None => w.unproven(
            source,
            format!("it runs the script {}, which cannot be read", file.text()),
        ),
    }
}

fn ssh(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        depth,
        source,
        ..
    } = *c;
    let p = parse(rest, "bcDEeFIiJLlmOopQRSWwB", &[], true);
    if p.value("E").is_some() {
        // A log file only; harmless enough to ignore here.
    }
    let Some(host) = rest.get(p.rest).map(|a| a.text().to_string()) else {
        return;
    };
    w.unproven(
        source,
        format!("it runs commands on {host}, another computer"),
    );
    let cmd_args = rest.get(p.rest + 1..).unwrap_or(&[]);
    if cmd_args.is_empty() {
        return;
    }
    if cmd_args.iter().any(|a| a.lit.is_none()) {
        w.unproven(
            source,
            format!("the command for {host} is only known when it runs"),
        );
        return;
    }
    let cmd = joined(cmd_args);
    let saved = (w.cwd.clone(), w.remote.clone());
    w.cwd = None;
    w.remote = Some(host);
    w.script(&cmd, depth + 1);
    (w.cwd, w.remote) = saved;
}
