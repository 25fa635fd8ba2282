//! The [`Walker`]: the state of one classification (working folder, effects, unproven
//! parts, paths created) and the effect API every rule records through — push an
//! effect, mark a part unproven, resolve a path, write or append to a file, create a
//! path.
//!
//! The walker sits below the rules that use it. Walking nested shell code (`bash -c`,
//! `eval`, `do shell script`) and dispatching a command to its program rule belong to
//! the layers above; they reach the walker as the two [`Hooks`] it is built with, so
//! `walker` imports neither `shell` nor `programs`.
//!
//! **Invariant:** the effects and unproven parts recorded here are the whole answer;
//! [`Walker::finish`] turns them into an [`Assessment`] without adding anything but the
//! credential-and-sender pairing.

use std::path::{Path, PathBuf};

use super::args::{Arg, Stdin};
use super::assessment::{Assessment, Effect, EffectKind, Existence, Scope, Target, Unproven};
use super::text;
use super::words::is_sensitive_path;
use crate::text::first_chars;

/// Characters of a command kept in an effect's `source`.
const SOURCE_CHARS: usize = 160;

/// The layers above the walker, given to it when it is built: how to walk a complete
/// shell script, and how to classify one simple command.
#[derive(Clone, Copy)]
pub(super) struct Hooks {
    pub script: fn(&mut Walker<'_>, &str, usize),
    pub argv: fn(&mut Walker<'_>, &[Arg], &Stdin, Option<&str>, usize),
}

pub(super) struct Walker<'a> {
    pub scope: &'a Scope<'a>,
    /// `None` once a `cd` made the working directory unknowable.
    pub cwd: Option<PathBuf>,
    pub effects: Vec<Effect>,
    /// Still true while every command seen is a plain deletion of named paths.
    pub trash_ok: bool,
    pub trash: Vec<PathBuf>,
    /// Inside `ssh HOST …`: paths live on another machine.
    pub remote: Option<String>,
    /// > 0 inside branches, loops and function bodies, where a `cd` may or may not run.
    pub conditional: u32,
    /// Why parts of the command could not be proven reversible.
    pub unproven: Vec<Unproven>,
    /// New paths the command provably creates.
    pub creates: Vec<PathBuf>,
    /// Existing folders the command puts new entries into (names not all known).
    pub fills: Vec<PathBuf>,
    /// A proven network read was seen (a download, a lookup).
    pub network: bool,
    /// PATH (or a hashed program name) was changed: names may run other programs.
    pub path_changed: bool,
    /// Credential files the command names.
    pub secrets: Vec<String>,
    /// Programs in the command that can send data off this computer.
    pub senders: Vec<String>,
    /// Variables set from `$(mktemp …)` earlier in the command: each stands for a new
    /// temporary file or folder of the command's own.
    pub temps: Vec<String>,
    /// Functions defined in the command (their bodies are walked where defined).
    pub functions: Vec<String>,
    hooks: Hooks,
}

impl<'a> Walker<'a> {
    pub(super) fn new(scope: &'a Scope<'a>, hooks: Hooks) -> Self {
        Walker {
            scope,
            cwd: Some(scope.cwd.to_path_buf()),
            effects: Vec::new(),
            trash_ok: true,
            trash: Vec::new(),
            remote: None,
            conditional: 0,
            unproven: Vec::new(),
            creates: Vec::new(),
            fills: Vec::new(),
            network: false,
            path_changed: false,
            secrets: Vec::new(),
            senders: Vec::new(),
            temps: Vec::new(),
            functions: Vec::new(),
            hooks,
        }
    }

    pub(super) fn finish(mut self) -> Assessment {
        // A credential file and a program that can send it, in one command.
        if let (Some(secret), Some(sender)) = (self.secrets.first(), self.senders.first()) {
            let (secret, sender) = (secret.clone(), sender.clone());
            self.push(
                EffectKind::Send,
                Target::None,
                sender.clone(),
                Some(format!(
                    "{secret} holds credentials and `{sender}` can send it off this computer"
                )),
            );
        }
        let all_known_deletes = self.effects.iter().all(|e| {
            e.kind == EffectKind::Delete
                && matches!(
                    e.target,
                    Target::Path {
                        exists: Existence::Exists | Existence::Missing,
                        ..
                    }
                )
        });
        let mut paths = self.trash;
        paths.sort();
        paths.dedup();
        let trash = (self.trash_ok && all_known_deletes).then_some(paths);
        let mut a = Assessment::from_effects(self.effects, trash);
        let mut seen = std::collections::HashSet::new();
        a.unproven = self
            .unproven
            .into_iter()
            .filter(|u| seen.insert(u.clone()))
            .collect();
        let mut creates = self.creates;
        creates.extend(self.fills);
        creates.sort();
        creates.dedup();
        a.creates = creates;
        a.network_read = self.network;
        a
    }

    /// Records a part of the command that cannot be proven reversible.
    pub fn unproven(&mut self, source: &str, reason: impl Into<String>) {
        let reason = match &self.remote {
            Some(host) => format!("on {host}: {}", reason.into()),
            None => reason.into(),
        };
        self.unproven.push(Unproven {
            source: first_chars(source, SOURCE_CHARS),
            reason,
        });
    }

    /// A path that does not exist yet, which the command creates: reversible, unless it
    /// configures the system (`/etc/sudoers.d/x`, `~/Library/LaunchAgents/x.plist`).
    pub fn new_path(&mut self, path: PathBuf, source: String) {
        if is_sensitive_path(&path, self.scope.home) {
            self.push(
                EffectKind::SystemConfig,
                Target::Path {
                    path,
                    exists: Existence::Missing,
                },
                source,
                None,
            );
        } else {
            self.create(path);
        }
    }

    /// Records a path the command creates (it does not exist now).
    pub fn create(&mut self, path: PathBuf) {
        if self.remote.is_none() {
            self.creates.push(path);
        }
    }

    /// Records an existing folder the command puts new entries into. Unlike
    /// [`Walker::create`], its content is not the command's own.
    pub fn fills(&mut self, dir: PathBuf) {
        if self.remote.is_none() && !is_sensitive_path(&dir, self.scope.home) {
            self.fills.push(dir);
        }
    }

    /// Whether `path` is a path this command creates earlier on (or lies inside one).
    pub fn created_here(&self, path: &Path) -> bool {
        self.creates.iter().any(|c| path.starts_with(c))
    }

    pub fn push(&mut self, kind: EffectKind, target: Target, source: String, note: Option<String>) {
        let note = match (&self.remote, note) {
            (Some(host), Some(n)) => Some(format!("on {host}; {n}")),
            (Some(host), None) => Some(format!("on {host}")),
            (None, n) => n,
        };
        if kind != EffectKind::Delete {
            self.trash_ok = false;
        }
        self.effects.push(Effect {
            kind,
            target,
            source: first_chars(&source, SOURCE_CHARS),
            note,
        });
    }

    pub fn opaque(&mut self, source: &str, reason: impl Into<String>) {
        self.push(
            EffectKind::Opaque,
            Target::None,
            source.to_string(),
            Some(reason.into()),
        );
    }

    /// Parses and walks `text`, a complete shell script, `depth` scripts deep.
    pub fn script(&mut self, text: &str, depth: usize) {
        let walk = self.hooks.script;
        walk(self, text, depth);
    }

    /// Classifies one simple command given as evaluated words. `extra` describes
    /// arguments a wrapper appends at run time (`xargs`, `find -exec`).
    pub fn argv(&mut self, args: &[Arg], stdin: &Stdin, extra: Option<&str>, depth: usize) {
        let run = self.hooks.argv;
        run(self, args, stdin, extra, depth);
    }

    /// `> file`: overwriting an existing file is irreversible; creating one is not (it is
    /// recorded as a path the command creates). A target only known at run time cannot
    /// be proven either way.
    pub fn write_target(&mut self, arg: &Arg, op: &str) {
        self.trash_ok = false;
        let source = format!("{op} {}", arg.text());
        match self.path_target(arg) {
            Target::Path { path, exists } => {
                if is_harmless_device(&path) {
                    return;
                }
                if path.starts_with("/dev/tcp") || path.starts_with("/dev/udp") {
                    // bash opens a network connection for these names.
                    self.push(EffectKind::Send, Target::None, source, None);
                    return;
                }
                match exists {
                    Existence::Missing => self.new_path(path, source),
                    Existence::Exists if self.created_here(&path) => {}
                    Existence::Exists => {
                        let note = text::lookalike_note(&path.to_string_lossy());
                        self.push(
                            EffectKind::Overwrite,
                            Target::Path { path, exists },
                            source,
                            note,
                        );
                    }
                    Existence::Unknown if self.remote.is_some() => self.push(
                        EffectKind::Overwrite,
                        Target::Path { path, exists },
                        source,
                        None,
                    ),
                    Existence::Unknown => self.unproven(
                        &source,
                        "the file it writes is only known when the command runs",
                    ),
                }
            }
            _ => self.unproven(
                &source,
                "the file it writes is only known when the command runs",
            ),
        }
    }

    /// `>> file`: appending keeps what was there, except that appending to a shell
    /// start-up file or system configuration changes how the computer behaves.
    pub fn append_target(&mut self, arg: &Arg, op: &str) {
        self.trash_ok = false;
        let source = format!("{op} {}", arg.text());
        match self.path_target(arg) {
            Target::Path { path, exists } => {
                if is_harmless_device(&path) {
                    return;
                }
                if exists == Existence::Missing {
                    self.new_path(path, source);
                } else if is_sensitive_path(&path, self.scope.home) {
                    self.push(
                        EffectKind::SystemConfig,
                        Target::Path { path, exists },
                        source,
                        None,
                    );
                } else if exists == Existence::Unknown && self.remote.is_none() {
                    self.unproven(
                        &source,
                        "the file it adds to is only known when the command runs",
                    );
                }
            }
            _ => self.unproven(
                &source,
                "the file it adds to is only known when the command runs",
            ),
        }
    }

    /// Resolves a word naming a path.
    pub fn path_target(&self, arg: &Arg) -> Target {
        let Some(lit) = arg.lit.as_deref() else {
            return Target::Unknown(format!("`{}` (named only when the command runs)", arg.raw));
        };
        if arg.glob {
            let place = match &self.cwd {
                Some(c) if !lit.starts_with('/') => format!(" in {}", c.display()),
                _ => String::new(),
            };
            return Target::Pattern(format!("{lit}{place}"));
        }
        if self.remote.is_some() {
            return Target::Path {
                path: PathBuf::from(lit),
                exists: Existence::Unknown,
            };
        }
        match text::resolve(lit, self.cwd.as_deref()) {
            Some(path) => {
                let exists = if self.scope.fs.exists(&path) {
                    Existence::Exists
                } else {
                    Existence::Missing
                };
                Target::Path { path, exists }
            }
            None => Target::Path {
                path: PathBuf::from(lit),
                exists: Existence::Unknown,
            },
        }
    }

    pub fn set_cwd(&mut self, dir: Option<&Arg>) {
        if self.conditional > 0 || self.remote.is_some() {
            self.cwd = None;
            return;
        }
        let next = match dir {
            None => Some(self.scope.home.to_path_buf()),
            Some(a) => match a.fixed() {
                Some("-") | None => None,
                Some(d) => text::resolve(d, self.cwd.as_deref()),
            },
        };
        self.cwd = next;
    }

    /// An effect on targets described in words.
    pub fn unknown(&mut self, kind: EffectKind, what: impl Into<String>, source: impl AsRef<str>) {
        self.push(
            kind,
            Target::Unknown(what.into()),
            source.as_ref().to_string(),
            None,
        );
    }

    /// A network read the program's own rule proved: the network stays open for it,
    /// unless one of its words is an address with a user's credentials
    /// (`https://bob:pw@host/`), which sends them — a send, asked about.
    pub fn network_read(&mut self, source: &str, args: &[Arg]) {
        if args
            .iter()
            .any(|a| a.fixed().is_some_and(carries_credentials))
        {
            self.plain(EffectKind::Send, source);
        } else {
            self.network = true;
        }
    }

    /// An effect without a path (processes, settings, messages).
    pub fn plain(&mut self, kind: EffectKind, source: impl AsRef<str>) {
        self.push(kind, Target::None, source.as_ref().to_string(), None);
    }

    /// Walks `text` as commands that may or may not run (a scheduled job, a command a
    /// server runs later): what they certainly destroy is asked about.
    pub fn conditional_script(&mut self, text: &str, depth: usize) {
        let saved = self.cwd.clone();
        self.cwd = None;
        self.script(text, depth + 1);
        self.cwd = saved;
    }

    pub fn delete(
        &mut self,
        operands: &[&Arg],
        source: &str,
        extra: Option<&str>,
        trashable: bool,
    ) {
        if operands.is_empty() && extra.is_none() {
            self.trash_ok = false;
            self.unknown(EffectKind::Delete, "whatever it is given", source);
            return;
        }
        for op in operands {
            let target = self.path_target(op);
            match &target {
                // Made earlier in this command: removing it again loses nothing.
                Target::Path { path, .. } if self.created_here(path) => continue,
                Target::Pattern(_)
                    if op.lit.as_deref().is_some_and(|l| {
                        let dir = l.split(['*', '?', '[', '{']).next().unwrap_or(l);
                        !dir.is_empty()
                            && text::resolve(dir, self.cwd.as_deref())
                                .is_some_and(|d| self.created_here(&d))
                    }) =>
                {
                    continue;
                }
                // Nothing there now. Should something appear before it runs, the
                // sandbox keeps it.
                Target::Path {
                    path,
                    exists: Existence::Missing,
                } => {
                    let shown = path.display().to_string();
                    self.unproven(source, format!("{shown} does not exist now"));
                    continue;
                }
                Target::Path {
                    path,
                    exists: Existence::Exists,
                } if trashable => self.trash.push(path.clone()),
                _ => self.trash_ok = false,
            }
            let note = text::lookalike_note(op.text());
            self.push(EffectKind::Delete, target, source.to_string(), note);
        }
        if let Some(what) = extra {
            self.trash_ok = false;
            self.push(
                EffectKind::Delete,
                Target::Unknown(what.to_string()),
                source.to_string(),
                None,
            );
        }
    }

    pub fn each_path(
        &mut self,
        kind: EffectKind,
        operands: &[&Arg],
        source: &str,
        extra: Option<&str>,
    ) {
        for op in operands {
            let target = self.path_target(op);
            let note = text::lookalike_note(op.text());
            self.push(kind, target, source.to_string(), note);
        }
        if let Some(what) = extra {
            self.push(
                kind,
                Target::Unknown(what.to_string()),
                source.to_string(),
                None,
            );
        }
        if operands.is_empty() && extra.is_none() {
            self.push(
                kind,
                Target::Unknown("whatever it is given".into()),
                source.to_string(),
                None,
            );
        }
    }

    /// An output file: overwriting an existing one asks, a new one is a path the
    /// command creates, one only known at run time is unproven.
    pub fn overwrite_if_exists(&mut self, arg: &Arg, source: &str) {
        let op = source.split_whitespace().next().unwrap_or("writes");
        self.write_target(arg, op);
    }

    /// An archive unpacked into `dir`: into a folder that does not exist yet it only
    /// creates; into an existing one it may replace files the archive also holds,
    /// which only the run can tell — unproven, and the sandbox keeps them.
    pub fn extraction_into(&mut self, dir: &Arg, source: &str) {
        match self.path_target(dir) {
            Target::Path {
                path,
                exists: Existence::Missing,
            } => self.create(path),
            Target::Path { path, .. } if self.created_here(&path) => {}
            Target::Path { path, .. } => {
                let shown = path.display().to_string();
                self.fills(path);
                self.unproven(
                    source,
                    format!("files in {shown} that the archive also holds would be replaced"),
                );
            }
            _ => self.unproven(source, "where it unpacks is only known when it runs"),
        }
    }

    /// New entries go into `dir`, which may exist.
    pub fn fills_or_creates(&mut self, dir: &Arg, source: &str) {
        match self.path_target(dir) {
            Target::Path {
                path,
                exists: Existence::Missing,
            } => self.create(path),
            Target::Path { path, .. } => self.fills(path),
            _ => self.unproven(source, "where it writes is only known when it runs"),
        }
    }

    pub fn shell_string(&mut self, cmd: &Arg, depth: usize, source: &str) {
        match &cmd.lit {
            Some(s) => self.script(s, depth + 1),
            None => self.unproven(source, "the shell command is only known when it runs"),
        }
    }
}

/// Writing to these never destroys data.
fn is_harmless_device(path: &Path) -> bool {
    let s = path.to_string_lossy();
    matches!(
        s.as_ref(),
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero"
    ) || s.starts_with("/dev/fd/")
}

/// Whether `text` holds an address with a user's credentials (`scheme://user:pw@host`),
/// anywhere in it (`--proxy=http://bob:pw@proxy`).
pub fn carries_credentials(text: &str) -> bool {
    text.match_indices("://").any(|(at, sep)| {
        let rest = &text[at + sep.len()..];
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        authority.contains('@')
    })
}
