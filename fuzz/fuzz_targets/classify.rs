//! Fuzzes the Law 1 classifier.
//!
//! 1. Any text — shell, AppleScript, a Shortcut name — classifies without panicking, and
//!    the same input always gives the same assessment (the classifier is pure). The
//!    classifier contains panics of the third-party shell parser itself (it answers
//!    "irreversible"), so the target lets those unwind and only a panic that escapes
//!    `classify` — or a failed check — aborts the run.
//! 2. The oracle: a command built with a known destructive verb in command position —
//!    spelled plainly, quoted, escaped or by path, under any chain of wrappers and
//!    compound forms (pipes, lists, subshells, loops, functions, substitutions,
//!    `bash -c`, `eval`, `find -exec`) — is never proven reversible: it asks, or runs
//!    only inside the sandbox (a deletion of a path that does not exist). Verbs that act
//!    on no path (stopping processes or the computer, erasing disks) always ask.

#![no_main]

use std::path::Path;
use std::sync::Once;

use arbitrary::Arbitrary;
use artoo::laws::classify::{Action, FsView, Scope, Verdict, classify};
use libfuzzer_sys::fuzz_target;

/// Programs that are irreversible whatever their arguments.
const VERBS: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "shred",
    "srm",
    "truncate",
    "mkfs",
    "mkfs.ext4",
    "mke2fs",
    "wipefs",
    "fdisk",
    "parted",
    "killall",
    "pkill",
    "shutdown",
    "reboot",
    "halt",
    "poweroff",
];

/// Verbs whose effect depends on the paths they are given: with a path that does not
/// exist they may run in the sandbox instead of asking.
const PATH_VERBS: &[&str] = &["rm", "rmdir", "unlink", "shred", "srm", "truncate"];

/// Wrappers that run the command after them.
const WRAPPERS: &[&str] = &[
    "sudo ",
    "sudo -u root ",
    "sudo -- ",
    "doas ",
    "env ",
    "env -i ",
    "env FOO=1 ",
    "nohup ",
    "time ",
    "nice ",
    "nice -n 5 ",
    "command ",
    "command -p ",
    "exec ",
    "builtin command ",
    "timeout 5 ",
    "timeout -s KILL 5 ",
    "stdbuf -o0 ",
    "ionice -c3 ",
    "setsid ",
    "caffeinate -i ",
    "busybox ",
    "xargs ",
    "xargs -0 ",
    "xargs -I{} ",
    "/usr/bin/env ",
];

#[derive(Arbitrary, Debug)]
enum Context {
    Subshell,
    Group,
    AndAfter,
    OrAfter,
    SeqAfter,
    PipeAfter,
    Background,
    Not,
    If,
    Else,
    While,
    For,
    Case,
    Function,
    DollarParen,
    Backticks,
    Assign,
    ProcessSubstitution,
    BashC,
    ShCDoubleQuoted,
    Eval,
    FindExec,
    HereDocToBash,
}

#[derive(Arbitrary, Debug)]
struct Built {
    verb: u8,
    spelling: u8,
    wrappers: Vec<u8>,
    args: Vec<String>,
    contexts: Vec<Context>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    raw: String,
    built: Built,
}

struct Fs;

impl FsView for Fs {
    fn exists(&self, path: &Path) -> bool {
        path == Path::new("/h/ws/a.txt") || path == Path::new("/h/ws")
    }
    fn is_dir(&self, path: &Path) -> bool {
        path == Path::new("/h/ws")
    }
    fn read_script(&self, _: &Path) -> Option<String> {
        None
    }
}

/// `'…'` with embedded quotes escaped the POSIX way.
fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `"…"` with `\ " $ `` ` `` escaped.
fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn spell(verb: &str, how: u8) -> String {
    let mut chars = verb.chars();
    let first = chars.next().unwrap_or('r');
    let rest: String = chars.collect();
    match how % 10 {
        0 => verb.to_string(),
        1 => format!("'{verb}'"),
        2 => format!("\"{verb}\""),
        3 => format!("\\{verb}"),
        4 => format!("{first}''{rest}"),
        5 => format!("$'{verb}'"),
        6 => format!("/bin/{verb}"),
        7 => format!("/usr/bin/{verb}"),
        8 => format!("{first}\"\"{rest}"),
        _ => verb.to_ascii_uppercase(),
    }
}

fn build(b: &Built) -> String {
    let verb = VERBS[usize::from(b.verb) % VERBS.len()];
    let mut cmd = spell(verb, b.spelling);
    for a in b.args.iter().take(6) {
        let a: String = a.chars().filter(|c| *c != '\0').take(40).collect();
        cmd.push(' ');
        cmd.push_str(&single_quoted(&a));
    }
    for w in b.wrappers.iter().take(4) {
        cmd = format!("{}{cmd}", WRAPPERS[usize::from(*w) % WRAPPERS.len()]);
    }
    for (i, c) in b.contexts.iter().take(6).enumerate() {
        cmd = match c {
            // Spaces matter: `((cmd))` is arithmetic in bash, not two subshells.
            Context::Subshell => format!("( {cmd} )"),
            Context::Group => format!("{{ {cmd}; }}"),
            Context::AndAfter => format!("true && {cmd}"),
            Context::OrAfter => format!("false || {cmd}"),
            Context::SeqAfter => format!("ls; {cmd}"),
            Context::PipeAfter => format!("ls | {cmd}"),
            Context::Background => format!("{cmd} &"),
            Context::Not => format!("! {cmd}"),
            Context::If => format!("if true; then {cmd}; fi"),
            Context::Else => format!("if false; then :; else {cmd}; fi"),
            Context::While => format!("while true; do {cmd}; break; done"),
            Context::For => format!("for f in a b; do {cmd}; done"),
            Context::Case => format!("case x in *) {cmd};; esac"),
            Context::Function => format!("f() {{ {cmd}; }}; f"),
            // `$((` would start arithmetic: keep a space after `$(`.
            Context::DollarParen => format!("echo $( {cmd} )"),
            Context::Backticks if !cmd.contains('`') => format!("echo `{cmd}`"),
            Context::Backticks => format!("echo $( {cmd} )"),
            Context::Assign => format!("x=$( {cmd} )"),
            Context::ProcessSubstitution => format!("cat <( {cmd} )"),
            Context::BashC => format!("bash -c {}", single_quoted(&cmd)),
            Context::ShCDoubleQuoted => format!("sh -c {}", double_quoted(&cmd)),
            Context::Eval => format!("eval {}", single_quoted(&cmd)),
            // find -exec takes a simple command: only as the innermost form.
            Context::FindExec if i == 0 && b.wrappers.is_empty() => {
                format!("find . -exec {cmd} {{}} \\;")
            }
            Context::FindExec => format!("sh -c {}", single_quoted(&cmd)),
            Context::HereDocToBash => format!("bash <<'EOF_FUZZ'\n{cmd}\nEOF_FUZZ"),
        };
    }
    cmd
}

static HOOK: Once = Once::new();

fuzz_target!(|input: Input| {
    // libFuzzer's hook aborts on any panic, even one `classify` catches; keep the
    // printing but let contained panics unwind. Escaping panics still abort (the
    // fuzz_target wrapper aborts on an unwound panic).
    HOOK.call_once(|| {
        let _ = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| eprintln!("{info}")));
    });

    let scope = Scope {
        cwd: Path::new("/h/ws"),
        home: Path::new("/h"),
        fs: &Fs,
    };

    // 1. No panic, and pure.
    for action in [
        Action::Shell(&input.raw),
        Action::AppleScript(&input.raw),
        Action::Shortcut { name: &input.raw },
    ] {
        let first = classify(&action, &scope);
        let again = classify(&action, &scope);
        assert_eq!(
            first, again,
            "classification is not deterministic: {action:?}"
        );
        if first.is_irreversible() {
            assert!(!first.description().is_empty());
        }
    }

    // 2. The oracle. A help or version probe (`rm --help`) only prints: not destructive.
    let args: Vec<String> = input
        .built
        .args
        .iter()
        .take(6)
        .map(|a| a.chars().filter(|c| *c != '\0').take(40).collect())
        .collect();
    let probe = !args.is_empty()
        && args.len() <= 2
        && args.iter().all(|a| {
            matches!(
                a.as_str(),
                "--help" | "--version" | "-help" | "-version" | "--usage" | "-?" | "-h" | "-V"
            )
        });
    if probe {
        return;
    }
    let cmd = build(&input.built);
    let a = classify(&Action::Shell(&cmd), &scope);
    assert!(
        a.verdict() != Verdict::Reversible,
        "a destructive verb in command position was proven reversible: {cmd:?}"
    );
    let verb = VERBS[usize::from(input.built.verb) % VERBS.len()];
    if !PATH_VERBS.contains(&verb) {
        // Seen, such a verb asks. Where the parser reads the command differently from a
        // shell (a here-document inside parentheses that reuses its delimiter), the
        // classifier sees another command; it must then still not prove it, so the
        // call runs in the sandbox, which holds a verb that acts on no path.
        assert!(
            a.is_irreversible()
                || (a.verdict() == Verdict::Sandbox && !a.unproven_description().is_empty()),
            "a verb that acts on no path was neither asked about nor left to the sandbox: {cmd:?}"
        );
    }
});
