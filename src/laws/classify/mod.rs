//! The Law 1 classifier: decides whether a tool action is irreversible and says what it
//! would do in plain words (verb, paths, whether they exist, a reversible alternative).
//!
//! Shell commands are parsed with `brush-parser` (a maintained POSIX/bash parser, MIT) and
//! walked through every wrapper and compound form (`sudo`, `env`, `xargs`, `find -exec`,
//! `bash -c`, `eval`, `$(…)`, backticks, subshells, loops, functions, pipes, `&&`, `||`,
//! `;`). Writes, AppleScript and Shortcuts have their own rules.
//!
//! The answer is one of three [`Verdict`]s. **Reversible** only when every program of the
//! action is known, with its options and operands understood, and nothing it does
//! destroys, sends or reconfigures anything. **Ask** when the classifier is sure of an
//! irreversible effect (a named existing file deleted, a process stopped, a message
//! sent…), when it cannot even read the action, and for AppleScript and Shortcuts it
//! cannot prove (their effects happen inside other apps, where no sandbox reaches).
//! **Sandbox** for every other shell command it cannot prove: an unknown program or
//! option, a script or interpreter code, remote or deferred execution, a target only
//! known at run time. Such a command runs inside the OS sandbox (`tools::sandbox`) or,
//! where there is none, asks.
//!
//! **Invariant:** pure and fail-closed. The only outside knowledge comes through the
//! injected [`FsView`] (does a path exist, the text of a script a command would run);
//! nothing is Reversible that the classifier did not positively understand, and nothing
//! it cannot parse is less than Ask.

mod applescript;
mod args;
mod assessment;
mod known;
mod known_readers;
mod known_table;
mod parse;
mod programs;
mod scan;
mod shell;
pub mod text;
mod walker;
mod words;

pub use assessment::{
    Action, Assessment, Effect, EffectKind, Existence, FsView, Scope, Target, Unproven, Verdict,
    held_by_overlay, path_signature,
};
pub use parse::{parse_bounded, parse_word};
pub use words::{is_sensitive_path, runs_later};

use std::path::Path;

/// Classifies one action. Pure: the same action and file-system answers always give the
/// same assessment.
pub fn classify(action: &Action<'_>, scope: &Scope<'_>) -> Assessment {
    match *action {
        Action::Shell(command) => shell::classify_shell(command, scope),
        Action::WriteFile { path, append } => classify_write(path, append, scope),
        Action::AppleScript(source) => classify_applescript(source, scope),
        Action::Shortcut { name } => applescript::classify_shortcut(name),
    }
}

/// An AppleScript program, walked with the same walker as shell commands so that the
/// commands its `do shell script` strings run are classified too.
fn classify_applescript(source: &str, scope: &Scope<'_>) -> Assessment {
    let mut w = shell::walker(scope);
    applescript::applescript_effects(&mut w, source, 0);
    w.finish()
}

fn classify_write(path: &Path, append: bool, scope: &Scope<'_>) -> Assessment {
    let path = text::normalize(path);
    let exists = scope.fs.exists(&path);
    let source = format!(
        "write_file {}{}",
        path.display(),
        if append { " (append)" } else { "" }
    );
    let note = text::lookalike_note(&path.to_string_lossy());
    if append || !exists {
        if words::is_sensitive_path(&path, scope.home) {
            let effect = Effect {
                kind: EffectKind::SystemConfig,
                target: Target::Path {
                    path,
                    exists: if exists {
                        Existence::Exists
                    } else {
                        Existence::Missing
                    },
                },
                source,
                note,
            };
            return Assessment::from_effects(vec![effect], None);
        }
        return Assessment::reversible();
    }
    let trash = if scope.fs.is_dir(&path) {
        None
    } else {
        Some(vec![path.clone()])
    };
    let effect = Effect {
        kind: EffectKind::Overwrite,
        target: Target::Path {
            path,
            exists: Existence::Exists,
        },
        source,
        note,
    };
    Assessment::from_effects(vec![effect], trash)
}

#[cfg(test)]
pub(crate) mod testing {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;

    /// An in-memory file system for classifier tests.
    #[derive(Default)]
    pub struct MemFs {
        pub entries: BTreeMap<PathBuf, Option<String>>,
    }

    impl MemFs {
        pub fn with(paths: &[&str]) -> Self {
            let mut fs = Self::default();
            for p in paths {
                fs.entries.insert(PathBuf::from(p), None);
            }
            fs
        }

        pub fn script(mut self, path: &str, text: &str) -> Self {
            self.entries
                .insert(PathBuf::from(path), Some(text.to_string()));
            self
        }
    }

    impl FsView for MemFs {
        fn exists(&self, path: &Path) -> bool {
            self.entries.contains_key(path) || self.is_dir(path)
        }

        fn is_dir(&self, path: &Path) -> bool {
            self.entries
                .keys()
                .any(|k| k != path && k.starts_with(path))
        }

        fn read_script(&self, path: &Path) -> Option<String> {
            self.entries.get(path).cloned().flatten()
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::testing::MemFs;
    use super::*;

    fn scope(fs: &MemFs) -> Scope<'_> {
        Scope {
            cwd: Path::new("/home/u/ws"),
            home: Path::new("/home/u"),
            fs,
        }
    }

    #[test]
    fn writing_a_new_file_is_reversible_and_overwriting_one_is_not() {
        let fs = MemFs::with(&["/home/u/ws/old.txt"]);
        let new = classify(
            &Action::WriteFile {
                path: Path::new("/home/u/ws/new.txt"),
                append: false,
            },
            &scope(&fs),
        );
        assert!(!new.is_irreversible());
        let old = classify(
            &Action::WriteFile {
                path: Path::new("/home/u/ws/old.txt"),
                append: false,
            },
            &scope(&fs),
        );
        assert!(old.is_irreversible());
        assert_eq!(
            old.trash_paths(),
            Some(&[PathBuf::from("/home/u/ws/old.txt")][..])
        );
        assert!(
            old.description()
                .starts_with("Overwrite /home/u/ws/old.txt (exists)")
        );
        assert_eq!(old.path_effects()[0].effect, "overwrite");
        assert!(old.path_effects()[0].exists);
    }

    #[test]
    fn appending_to_a_shell_startup_file_counts_as_system_configuration() {
        let fs = MemFs::with(&["/home/u/.zshrc"]);
        let a = classify(
            &Action::WriteFile {
                path: Path::new("/home/u/.zshrc"),
                append: true,
            },
            &scope(&fs),
        );
        assert_eq!(a.effects()[0].kind, EffectKind::SystemConfig);
        let log = classify(
            &Action::WriteFile {
                path: Path::new("/home/u/ws/log.txt"),
                append: true,
            },
            &scope(&fs),
        );
        assert!(!log.is_irreversible());
    }

    #[test]
    fn a_script_a_command_runs_is_read_and_judged_by_its_content() {
        let mut fs = MemFs::default()
            .script("/home/u/ws/clean.sh", "rm -rf ~/Downloads")
            .script("/home/u/ws/list.sh", "ls ~ | wc -l");
        fs.entries
            .insert(PathBuf::from("/home/u/Downloads/a.zip"), None);
        assert!(classify(&Action::Shell("bash clean.sh"), &scope(&fs)).is_irreversible());
        assert!(classify(&Action::Shell("./clean.sh"), &scope(&fs)).is_irreversible());
        // A script can change before it runs: never proven, so it runs in the sandbox.
        let list = classify(&Action::Shell("sh list.sh"), &scope(&fs));
        assert_eq!(list.verdict(), Verdict::Sandbox);
        assert!(!list.is_irreversible());
        assert_eq!(
            classify(&Action::Shell("sh gone.sh"), &scope(&fs)).verdict(),
            Verdict::Sandbox
        );
    }

    #[test]
    fn a_description_names_the_verb_the_path_and_whether_it_exists() {
        let fs = MemFs::with(&["/home/u/ws/a.txt"]);
        let a = classify(&Action::Shell("rm a.txt b.txt"), &scope(&fs));
        let d = a.description();
        assert!(d.contains("Delete /home/u/ws/a.txt (exists)"), "{d}");
        // Nothing to delete at b.txt now; should it appear, the sandbox keeps it.
        assert!(!d.contains("Delete /home/u/ws/b.txt"), "{d}");
        assert!(a.reversible_alternative().is_some());
    }
}
