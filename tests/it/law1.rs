//! Law 1: the classifier corpus (tests/fixtures/law1) and the confirmation gate end to
//! end — ask, deny, approve exactly, move to Trash and put back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use artoo::laws::classify::{Action, Assessment, FsView, Scope, Verdict, classify};
use serde::Deserialize;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/law1");

#[derive(Deserialize)]
struct World {
    home: PathBuf,
    cwd: PathBuf,
    existing: Vec<PathBuf>,
    scripts: BTreeMap<PathBuf, String>,
}

/// The corpus's file system: existing paths and readable scripts, nothing on disk.
struct WorldFs {
    paths: BTreeSet<PathBuf>,
    scripts: BTreeMap<PathBuf, String>,
}

impl FsView for WorldFs {
    fn exists(&self, path: &Path) -> bool {
        self.paths.contains(path) || self.scripts.contains_key(path) || self.is_dir(path)
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.paths
            .iter()
            .chain(self.scripts.keys())
            .any(|p| p != path && p.starts_with(path))
    }

    fn read_script(&self, path: &Path) -> Option<String> {
        self.scripts.get(path).cloned()
    }
}

#[derive(Deserialize)]
struct Corpus {
    group: Vec<Group>,
}

#[derive(Deserialize)]
struct Group {
    why: String,
    #[serde(default = "shell")]
    kind: String,
    commands: Vec<String>,
}

fn shell() -> String {
    "shell".into()
}

fn load<T: for<'de> Deserialize<'de>>(name: &str) -> T {
    let path = Path::new(FIXTURES).join(name);
    let text = std::fs::read_to_string(&path).expect("corpus file is readable");
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn world() -> (World, WorldFs) {
    let w: World = load("world.toml");
    let fs = WorldFs {
        paths: w.existing.iter().cloned().collect(),
        scripts: w.scripts.clone(),
    };
    (w, fs)
}

fn assess(kind: &str, case: &str, w: &World, fs: &WorldFs) -> Assessment {
    let scope = Scope {
        cwd: &w.cwd,
        home: &w.home,
        fs,
    };
    let action = match kind {
        "shell" => Action::Shell(case),
        "write_file" => Action::WriteFile {
            path: Path::new(case),
            append: false,
        },
        "write_file_append" => Action::WriteFile {
            path: Path::new(case),
            append: true,
        },
        "applescript" => Action::AppleScript(case),
        "shortcut" => Action::Shortcut { name: case },
        other => panic!("unknown corpus kind {other}"),
    };
    classify(&action, &scope)
}

fn cases(corpus: &Corpus) -> Vec<(&Group, &str)> {
    corpus
        .group
        .iter()
        .flat_map(|g| g.commands.iter().map(move |c| (g, c.as_str())))
        .collect()
}

#[test]
fn no_destructive_case_in_the_corpus_is_proven_reversible() {
    let (w, fs) = world();
    let corpus: Corpus = load("destructive.toml");
    let all = cases(&corpus);
    assert!(all.len() >= 300, "only {} destructive cases", all.len());
    let mut missed = Vec::new();
    let mut asked = 0;
    for (group, case) in &all {
        assert!(!group.why.trim().is_empty(), "a group without a reason");
        let a = assess(&group.kind, case, &w, &fs);
        match a.verdict() {
            Verdict::Reversible => {
                missed.push(format!("[{}] {case:?} ({})", group.kind, group.why))
            }
            Verdict::Ask => {
                asked += 1;
                assert!(
                    !a.description().trim().is_empty(),
                    "{case:?} is gated without a description"
                );
            }
            Verdict::Sandbox => {
                assert!(
                    group.kind == "shell",
                    "[{}] {case:?}: only shell commands can be held by the sandbox",
                    group.kind
                );
                assert!(
                    !a.unproven().is_empty(),
                    "{case:?} is unproven without a reason"
                );
            }
        }
    }
    eprintln!(
        "destructive corpus: {} cases, {asked} ask, {} run in the sandbox",
        all.len(),
        all.len() - asked - missed.len()
    );
    assert!(
        missed.is_empty(),
        "{} of {} destructive cases were proven reversible:\n{}",
        missed.len(),
        all.len(),
        missed.join("\n")
    );
}

#[test]
fn read_only_cases_ask_at_most_five_percent_of_the_time() {
    let (w, fs) = world();
    let corpus: Corpus = load("read_only.toml");
    let all = cases(&corpus);
    assert!(all.len() >= 150, "only {} read-only cases", all.len());
    let mut asked = Vec::new();
    for (group, case) in &all {
        assert!(!group.why.trim().is_empty(), "a group without a reason");
        let a = assess(&group.kind, case, &w, &fs);
        if a.is_irreversible() {
            asked.push(format!("[{}] {case:?}: {}", group.kind, a.description()));
        }
    }
    let limit = all.len() * 5 / 100;
    eprintln!(
        "read-only corpus: {} of {} cases asked: {asked:#?}",
        asked.len(),
        all.len()
    );
    assert!(
        asked.len() <= limit,
        "{} of {} read-only cases asked (limit {limit}):\n{}",
        asked.len(),
        all.len(),
        asked.join("\n")
    );
}

#[test]
fn corpus_cases_are_unique_so_counts_are_honest() {
    for name in ["destructive.toml", "read_only.toml"] {
        let corpus: Corpus = load(name);
        let mut seen = BTreeSet::new();
        for (group, case) in cases(&corpus) {
            assert!(
                seen.insert((group.kind.clone(), case.to_string())),
                "{name}: {case:?} appears twice"
            );
        }
    }
}
