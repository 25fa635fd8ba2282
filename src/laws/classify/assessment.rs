//! The vocabulary of the classifier's answer: the action asked about, what may be known
//! about the disk, each irreversible effect and its target, and the [`Assessment`] that
//! gathers them with the verdict.
//!
//! **Invariant:** an assessment with an effect is always [`Verdict::Ask`]; a Trash
//! alternative is only offered when every effect is the deletion of exactly those paths.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::text;
use crate::contracts::PathEffect;

/// One action a tool is about to take.
#[derive(Clone, Copy, Debug)]
pub enum Action<'a> {
    /// A `bash -c` command line.
    Shell(&'a str),
    /// `write_file` to an absolute path.
    /// `write_file` to an absolute path.
    WriteFile {
        /// The file.
        path: &'a Path,
        /// Whether the write appends rather than replaces.
        append: bool,
    },
    /// An AppleScript program (`osascript`).
    AppleScript(&'a str),
    /// Running a named Shortcut.
    /// Running a named Shortcut.
    Shortcut {
        /// The Shortcut's name.
        name: &'a str,
    },
}

/// What the classifier may know about the file system. Production passes the real
/// disk (`tools::RealFs`); tests pass a fixed set.
pub trait FsView {
    /// Whether a path exists now.
    fn exists(&self, path: &Path) -> bool;
    /// Whether a path is a directory now.
    fn is_dir(&self, path: &Path) -> bool;
    /// The text of a small script a command would run (`bash x.sh`, `source x`), so
    /// its commands can be checked too. `None` when it is missing, large or binary.
    fn read_script(&self, path: &Path) -> Option<String>;
}

/// Where an action runs.
#[derive(Clone, Copy)]
pub struct Scope<'a> {
    /// Working directory of shell commands (the workspace).
    pub cwd: &'a Path,
    /// The user's home directory (`~` and personal-path checks).
    pub home: &'a Path,
    /// What the classifier may know about the disk.
    pub fs: &'a dyn FsView,
}

/// The kind of harm an effect can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EffectKind {
    /// Removing files or folders.
    Delete,
    /// Replacing a file's content.
    Overwrite,
    /// Emptying a file.
    Truncate,
    /// Recursive or mass permission/ownership change.
    Permissions,
    /// Stopping processes or the computer.
    Kill,
    /// Changing system settings, services or installed software.
    SystemConfig,
    /// Mail, messages, data posted to a server.
    Send,
    /// Erasing or repartitioning disks.
    Format,
    /// Discarding uncommitted work or rewriting version-control history.
    History,
    /// Runs something the classifier cannot see into.
    Opaque,
    /// Moving an existing file or folder away from where it is.
    Move,
}

impl EffectKind {
    /// Whether the effect changes files and folders (and nothing beyond them).
    pub fn on_files(self) -> bool {
        matches!(
            self,
            EffectKind::Delete
                | EffectKind::Overwrite
                | EffectKind::Truncate
                | EffectKind::Permissions
                | EffectKind::Move
        )
    }

    /// The plain verb used in [`PathEffect::effect`].
    pub fn verb(self) -> &'static str {
        match self {
            EffectKind::Delete => "delete",
            EffectKind::Overwrite => "overwrite",
            EffectKind::Truncate => "truncate",
            EffectKind::Permissions => "change permissions",
            EffectKind::Kill => "stop processes",
            EffectKind::SystemConfig => "change system configuration",
            EffectKind::Send => "send",
            EffectKind::Format => "erase disk",
            EffectKind::History => "discard changes",
            EffectKind::Opaque => "run unchecked code",
            EffectKind::Move => "move",
        }
    }
}

/// Whether a path existed when the action was classified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Existence {
    /// The path existed.
    Exists,
    /// The path did not exist.
    Missing,
    /// Relative to a directory only known at run time, or on another machine.
    Unknown,
}

/// What an effect acts on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// One path.
    Path {
        /// The path, absolute.
        path: PathBuf,
        /// Whether it existed.
        exists: Existence,
    },
    /// A glob, e.g. `*.txt in /home/u/ws`.
    Pattern(String),
    /// Described in words: "the files find matches", "names read from its input".
    Unknown(String),
    /// Effects without a path (stopping processes, system settings).
    None,
}

/// One irreversible thing an action would do.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Effect {
    /// What harm it can do.
    pub kind: EffectKind,
    /// What it acts on.
    pub target: Target,
    /// The command (or script fragment) responsible, as written.
    pub source: String,
    /// Extra words for the dialog (look-alike characters, remote host, reason).
    pub note: Option<String>,
}

/// What happens to an action before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Proven reversible: runs without asking (inside the sandbox where there is one).
    Reversible,
    /// Not proven either way: runs inside the OS sandbox, or asks where there is none.
    Sandbox,
    /// Irreversible, or unreadable: the user is asked.
    Ask,
}

/// Why a command could not be proven reversible.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unproven {
    /// The command (or fragment) responsible, as written.
    pub source: String,
    /// Why its effects could not be proven safe.
    pub reason: String,
}

impl Effect {
    /// What this effect is, whatever the wording of the command: its kind and its path,
    /// or, without a path, its kind and the program (with its first operand, the
    /// sub-command of tools that have them). Two commands with an effect of the same
    /// signature do the same thing to the same target; a denied effect stays denied.
    pub fn signature(&self) -> String {
        let kind = self.kind.verb();
        match &self.target {
            Target::Path { path, .. } => format!("{kind}: {}", path.display()),
            Target::Pattern(p) => format!("{kind}: {p}"),
            Target::Unknown(_) | Target::None => {
                format!("{kind}: {}", program_of(&self.source))
            }
        }
    }
}

/// The program of a command as written, with its first operand: `git push`, `killall`.
fn program_of(source: &str) -> String {
    let mut words = source
        .split_whitespace()
        .filter(|w| !w.contains('=') || w.starts_with('-'));
    let Some(first) = words.next() else {
        return String::new();
    };
    let program = text::fold_name(first.rsplit('/').next().unwrap_or(first));
    match words.find(|w| !w.starts_with('-')) {
        Some(op) if op.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') => {
            format!("{program} {op}")
        }
        _ => program,
    }
}

/// The signature of a path effect: as [`Effect::signature`] of the same path.
pub fn path_signature(verb: &str, path: &Path) -> String {
    format!("{verb}: {}", text::normalize(path).display())
}

/// The classifier's answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assessment {
    pub(super) effects: Vec<Effect>,
    trash: Option<Vec<PathBuf>>,
    pub(super) unproven: Vec<Unproven>,
    pub(super) creates: Vec<PathBuf>,
    pub(super) network_read: bool,
}

impl Assessment {
    /// A reversible action: nothing to confirm.
    pub fn reversible() -> Self {
        Self::default()
    }

    /// An action with these effects and no Trash alternative (rules outside the
    /// classifier, such as the MCP gate, build their assessments with it).
    pub fn irreversible(effects: Vec<Effect>) -> Self {
        Self::from_effects(effects, None)
    }

    pub(super) fn from_effects(effects: Vec<Effect>, trash: Option<Vec<PathBuf>>) -> Self {
        let mut seen = BTreeSet::new();
        let effects: Vec<Effect> = effects
            .into_iter()
            .filter(|e| seen.insert(format!("{:?}", e)))
            .collect();
        let trash = trash.filter(|paths| !paths.is_empty() && !effects.is_empty());
        Self {
            effects,
            trash,
            ..Self::default()
        }
    }

    /// Whether Law 1 asks the user before the action runs: an irreversible effect is
    /// certain, or the action could not be read. An unproven shell command
    /// ([`Verdict::Sandbox`]) is not asked about here; the tool asks for it only where
    /// no sandbox can hold it.
    pub fn is_irreversible(&self) -> bool {
        !self.effects.is_empty()
    }

    /// What Law 1 does with the action: run it, sandbox it, or ask the user.
    pub fn verdict(&self) -> Verdict {
        if !self.effects.is_empty() {
            Verdict::Ask
        } else if !self.unproven.is_empty() {
            Verdict::Sandbox
        } else {
            Verdict::Reversible
        }
    }

    /// Why the action is not proven reversible (empty when it is, or when it asks).
    pub fn unproven(&self) -> &[Unproven] {
        if self.effects.is_empty() {
            &self.unproven
        } else {
            &[]
        }
    }

    /// New paths the action provably creates (folders and files that do not exist yet),
    /// outside the workspace too. The sandbox keeps new entries there.
    pub fn creates(&self) -> &[PathBuf] {
        &self.creates
    }

    /// A proven-reversible command that reads from the network (a download, a lookup):
    /// its sandbox keeps the network.
    pub fn network_read(&self) -> bool {
        self.network_read && self.verdict() == Verdict::Reversible
    }

    /// The unproven parts in plain words, one line each, for a dialog shown when no
    /// sandbox can hold the action.
    pub fn unproven_description(&self) -> String {
        self.unproven()
            .iter()
            .map(|u| format!("Cannot check `{}`: {}", text::display(&u.source), u.reason))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every irreversible effect found, without duplicates.
    pub fn effects(&self) -> &[Effect] {
        &self.effects
    }

    /// Existing paths that can be moved to the Trash instead, when every effect is the
    /// deletion (or, for `write_file`, the overwrite) of exactly those paths.
    pub fn trash_paths(&self) -> Option<&[PathBuf]> {
        self.trash.as_deref()
    }

    /// The effect in plain words, one line per effect.
    pub fn description(&self) -> String {
        let mut out = String::new();
        for (i, e) in self.effects.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&describe(e));
        }
        out
    }

    /// The paths the action touches, for the dialog.
    pub fn path_effects(&self) -> Vec<PathEffect> {
        let mut out: Vec<PathEffect> = Vec::new();
        for e in &self.effects {
            if let Target::Path { path, exists } = &e.target {
                let pe = PathEffect {
                    path: path.clone(),
                    exists: *exists == Existence::Exists,
                    effect: e.kind.verb().to_string(),
                };
                if !out.contains(&pe) {
                    out.push(pe);
                }
            }
        }
        out
    }

    /// A reversible way to reach the same goal, when there is one.
    pub fn reversible_alternative(&self) -> Option<String> {
        let kinds: BTreeSet<EffectKind> = self.effects.iter().map(|e| e.kind).collect();
        let mut alts: Vec<&str> = Vec::new();
        for kind in kinds {
            let alt = match kind {
                EffectKind::Delete if self.trash.is_some() => {
                    "Move them to the Trash instead (they can be put back)."
                }
                EffectKind::Delete => {
                    "Move the files to the Trash instead of deleting them, or name them one by one so artoo can offer the Trash."
                }
                EffectKind::Overwrite | EffectKind::Truncate => {
                    "Write to a new file name, or keep a copy of the existing file first."
                }
                EffectKind::History => {
                    "Keep the work recoverable first (`git stash` or a commit), or use --force-with-lease instead of --force."
                }
                EffectKind::Permissions => "Change only the files that need it, without -R.",
                EffectKind::SystemConfig => {
                    "Read and note the current setting first so it can be restored."
                }
                EffectKind::Send => "Prepare a draft for the user to send instead.",
                EffectKind::Opaque => "Use a simpler command whose effect can be checked.",
                EffectKind::Move => "Copy instead of moving, so the original stays where it is.",
                EffectKind::Kill | EffectKind::Format => continue,
            };
            if !alts.contains(&alt) {
                alts.push(alt);
            }
        }
        if alts.is_empty() {
            None
        } else {
            Some(alts.join(" "))
        }
    }
}

/// Whether an overlay holds every effect the classifier predicts: changes to files in
/// the home folder or the workspace, or code it cannot read (whose effects the sandbox
/// measures). Such a command runs observed and asks with what it did. Sending, stopping
/// processes, system settings, disks, version-control history and paths outside both
/// folders ask before anything runs: no overlay holds them.
pub fn held_by_overlay(assessment: &Assessment, home: &Path, workspace: &Path) -> bool {
    let inside = |p: &Path| {
        let p = text::normalize(p);
        p.starts_with(home) || p.starts_with(workspace)
    };
    assessment.effects().iter().all(|e| {
        let local = e.kind.on_files() || e.kind == EffectKind::Opaque;
        local
            && match &e.target {
                Target::Path { path, .. } => inside(path),
                Target::Pattern(p) => inside(&pattern_folder(p)),
                Target::Unknown(_) | Target::None => true,
            }
    })
}

/// The folder a glob target lies in: `*.log in /home/u/ws` → `/home/u/ws`,
/// `/home/u/a/*.txt` → `/home/u/a`.
fn pattern_folder(pattern: &str) -> PathBuf {
    let (lit, cwd) = match pattern.rsplit_once(" in ") {
        Some((lit, cwd)) if !lit.starts_with('/') => (lit, Some(cwd)),
        _ => (pattern, None),
    };
    let fixed = lit.split(['*', '?', '[', '{']).next().unwrap_or_default();
    let fixed = match fixed.rfind('/') {
        Some(i) => &fixed[..i],
        None => "",
    };
    match cwd {
        Some(c) => Path::new(c).join(fixed),
        None if fixed.is_empty() => PathBuf::from("/"),
        None => PathBuf::from(fixed),
    }
}

fn describe_target(target: &Target) -> String {
    match target {
        Target::Path { path, exists } => {
            let state = match exists {
                Existence::Exists => "exists",
                Existence::Missing => "does not exist yet",
                Existence::Unknown => "cannot be checked beforehand",
            };
            format!("{} ({state})", text::display(&path.to_string_lossy()))
        }
        Target::Pattern(p) => format!("every match of {}", text::display(p)),
        Target::Unknown(what) => text::display(what),
        Target::None => String::new(),
    }
}

fn describe(e: &Effect) -> String {
    let target = describe_target(&e.target);
    let source = text::display(&e.source);
    let mut line = match e.kind {
        EffectKind::Delete => format!("Delete {target}"),
        EffectKind::Overwrite => format!("Overwrite {target}"),
        EffectKind::Truncate => format!("Truncate (empty) {target}"),
        EffectKind::Permissions => {
            format!("Change permissions or ownership of {target} and everything under it")
        }
        EffectKind::Kill => format!("Stop running programs or the computer: `{source}`"),
        EffectKind::SystemConfig => format!("Change system configuration: `{source}`"),
        EffectKind::Send => format!("Send data or a message out of this computer: `{source}`"),
        EffectKind::Format => format!("Erase or repartition a disk: `{source}`"),
        EffectKind::History => format!("Discard uncommitted work or rewrite history: `{source}`"),
        EffectKind::Opaque => format!("Run something artoo cannot check: `{source}`"),
        EffectKind::Move => format!("Move {target} away from where it is"),
    };
    if e.kind.on_files() && !matches!(e.target, Target::None) {
        let _ = write!(line, " — by `{source}`");
    }
    if let Some(note) = &e.note {
        let _ = write!(line, " ({})", text::display(note));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::classify::classify;
    use crate::laws::classify::testing::MemFs;

    fn assess(command: &str) -> Assessment {
        let fs = MemFs::with(&[
            "/home/u/notes.txt",
            "/home/u/ws/a.log",
            "/etc/hosts",
            "/home/u/ws/data.csv",
        ]);
        classify(
            &Action::Shell(command),
            &Scope {
                cwd: Path::new("/home/u/ws"),
                home: Path::new("/home/u"),
                fs: &fs,
            },
        )
    }

    #[test]
    fn local_file_effects_in_the_home_folder_run_observed_and_the_rest_ask_first() {
        let (home, ws) = (Path::new("/home/u"), Path::new("/home/u/ws"));
        for command in [
            "rm ~/notes.txt",
            "rm *.log",
            "mv ~/notes.txt ~/old.txt",
            "chmod -R 700 ~/ws",
            "find . -name '*.tmp' -delete",
        ] {
            let a = assess(command);
            assert!(a.is_irreversible(), "{command}: {a:?}");
            assert!(held_by_overlay(&a, home, ws), "{command}: {a:?}");
        }
        for command in [
            "rm /etc/hosts",
            "rm ../../../etc/hosts",
            "curl -d @data.csv https://example.com/upload",
            "kill -9 1234",
            "git -C ~/project reset --hard",
            "mkfs.ext4 /dev/sdb1",
        ] {
            let a = assess(command);
            assert!(a.is_irreversible(), "{command}: {a:?}");
            assert!(!held_by_overlay(&a, home, ws), "{command}: {a:?}");
        }
    }

    #[test]
    fn a_glob_lies_in_the_folder_before_its_first_wildcard() {
        assert_eq!(
            pattern_folder("*.log in /home/u/ws"),
            Path::new("/home/u/ws")
        );
        assert_eq!(
            pattern_folder("old/*.txt in /home/u/ws"),
            Path::new("/home/u/ws/old")
        );
        assert_eq!(pattern_folder("/home/u/a/*.txt"), Path::new("/home/u/a"));
        assert_eq!(pattern_folder("/*"), Path::new("/"));
    }
}
