//! Law 1: the classifier corpus (tests/fixtures/law1) and the confirmation gate end to
//! end — ask, deny, approve exactly, move to Trash and put back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use artoo::laws::classify::{
    Action, Assessment, FsView, Scope, Verdict, classify, held_by_overlay,
};
use serde::Deserialize;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/law1");

#[derive(Deserialize)]
pub(crate) struct World {
    pub(crate) home: PathBuf,
    pub(crate) cwd: PathBuf,
    pub(crate) existing: Vec<PathBuf>,
    pub(crate) scripts: BTreeMap<PathBuf, String>,
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
pub(crate) struct Corpus {
    group: Vec<Group>,
}

#[derive(Deserialize)]
pub(crate) struct Group {
    why: String,
    #[serde(default = "shell")]
    pub(crate) kind: String,
    commands: Vec<String>,
}

fn shell() -> String {
    "shell".into()
}

pub(crate) fn load<T: for<'de> Deserialize<'de>>(name: &str) -> T {
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

pub(crate) fn cases(corpus: &Corpus) -> Vec<(&Group, &str)> {
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
fn read_only_cases_ask_before_they_run_at_most_two_percent_of_the_time() {
    let (w, fs) = world();
    let corpus: Corpus = load("read_only.toml");
    let all = cases(&corpus);
    assert!(all.len() >= 150, "only {} read-only cases", all.len());
    // Predicted effects on local files run observed in the sandbox (Linux) and ask only
    // with what they did, which for these is nothing; the rest ask before they run.
    let mut predicted = Vec::new();
    let mut asked = Vec::new();
    for (group, case) in &all {
        assert!(!group.why.trim().is_empty(), "a group without a reason");
        let a = assess(&group.kind, case, &w, &fs);
        if a.is_irreversible() {
            let line = format!("[{}] {case:?}: {}", group.kind, a.description());
            if group.kind != "shell" || !held_by_overlay(&a, &w.home, &w.cwd) {
                asked.push(line.clone());
            }
            predicted.push(line);
        }
    }
    let limit = all.len() * 2 / 100;
    eprintln!(
        "read-only corpus: {} of {} cases predicted an effect, {} ask before they run: {asked:#?}",
        predicted.len(),
        all.len(),
        asked.len()
    );
    assert!(
        asked.len() <= limit,
        "{} of {} read-only cases ask before they run (limit {limit}):\n{}",
        asked.len(),
        all.len(),
        asked.join("\n")
    );
    assert!(
        predicted.len() <= all.len() * 5 / 100,
        "{} of {} read-only cases predicted an effect:\n{}",
        predicted.len(),
        all.len(),
        predicted.join("\n")
    );
}

#[test]
fn unprovable_actions_ask_by_design() {
    let (w, fs) = world();
    let corpus: Corpus = load("fails_closed.toml");
    for (group, case) in cases(&corpus) {
        assert!(!group.why.trim().is_empty(), "a group without a reason");
        let a = assess(&group.kind, case, &w, &fs);
        assert_eq!(
            a.verdict(),
            Verdict::Ask,
            "[{}] {case:?} should ask ({})",
            group.kind,
            group.why
        );
        assert!(!a.description().trim().is_empty());
    }
}

#[test]
fn corpus_cases_are_unique_so_counts_are_honest() {
    for name in ["destructive.toml", "read_only.toml", "fails_closed.toml"] {
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

/// Every kind of line the Law 1 dialog and the sandbox note show, written by the real
/// classifier, MCP gate and sandbox: the popup translates them into Chinese from a closed
/// set of shapes (ui/src/features/approvals/law1-text.ts), and its test reads this file
/// (`ui/src/features/approvals/law1-lines.json`) to prove every line has a translation.
/// `ARTOO_BLESS_TS=1` writes it again after the English changed.
#[test]
fn the_dialog_s_english_lines_are_the_ones_the_ui_translates() {
    use artoo::laws::mcp::{McpGate, McpTrust};
    use artoo::tools::sandbox::Status;

    let (w, fs) = world();
    // One command per kind of effect, on files that exist, do not exist yet, a pattern,
    // a remote machine and a name with look-alike letters.
    let commands = [
        "rm ~/notes.txt",
        "rm -r ~/Downloads/*.tmp",
        "rm ~/not-there.txt",
        "cp ~/todo.md ~/notes.txt",
        "truncate -s 0 ~/notes.txt",
        "chmod -R 777 ~/Documents",
        "mv ~/notes.txt ~/Documents/",
        "kill -9 1234",
        "defaults write com.apple.dock autohide -bool true",
        "curl -d @data.csv https://example.com/upload",
        "mkfs.ext4 /dev/sdb1",
        "git -C ~/project reset --hard",
        "eval \"$(cat ~/notes.txt)\"",
        "ssh backup-host rm -rf /srv/old",
        "mv ~/todo.md ~/nоtes.md",
        "rm ~/artoo_workspace/résumé.pdf",
    ];
    let mut lines = BTreeSet::new();
    let mut alternatives = BTreeSet::new();
    let mut verbs = BTreeSet::new();
    let mut add = |a: &Assessment| {
        for line in a.description().lines() {
            lines.insert(line.to_string());
        }
        if let Some(alt) = a.reversible_alternative() {
            alternatives.insert(alt);
        }
        for p in a.path_effects() {
            verbs.insert(p.effect);
        }
    };
    for command in commands {
        add(&assess("shell", command, &w, &fs));
    }
    add(&assess("shortcut", "Clean Up Downloads", &w, &fs));
    for (trust, read_only, destructive) in [
        (McpTrust::Changed, None, None),
        (McpTrust::Trusted, None, None),
        (McpTrust::Trusted, None, Some(false)),
        (McpTrust::New, Some(true), None),
        (McpTrust::New, None, Some(false)),
        (McpTrust::New, None, None),
    ] {
        add(&McpGate {
            server: "files".into(),
            origin: "npx server-filesystem".into(),
            tool: "write_file".into(),
            fingerprint: "f".into(),
            read_only_hint: read_only,
            destructive_hint: destructive,
            trust,
            description: "Create a new file or completely overwrite an existing file".into(),
            call: "files.write_file {\"path\":\"a.txt\"}".into(),
        }
        .assess());
    }
    // A held layer's dialog: every verb, files, folders and both, and more groups than
    // are shown.
    {
        use artoo::tools::sandbox::{HELD_VERBS, Measured, held_dialog};
        let mut measured: Vec<Measured> = Vec::new();
        for (i, verb) in HELD_VERBS.iter().enumerate() {
            for (name, is_dir) in [("a.txt", false), ("b.txt", false), ("sub", true)] {
                measured.push(Measured {
                    path: w.home.join(format!("d{i}/{name}")),
                    verb,
                    existed: true,
                    bytes: 1500,
                    is_dir,
                });
            }
            verbs.insert((*verb).to_string());
        }
        for i in 0..7 {
            measured.push(Measured {
                path: w.home.join(format!("notes/n{i}.txt")),
                verb: "delete",
                existed: true,
                bytes: 10,
                is_dir: false,
            });
            measured.push(Measured {
                path: w.home.join(format!("more{i}/x")),
                verb: "overwrite",
                existed: true,
                bytes: 10,
                is_dir: false,
            });
        }
        measured.push(Measured {
            path: w.home.join("one/only.txt"),
            verb: "truncate",
            existed: true,
            bytes: 0,
            is_dir: false,
        });
        for line in held_dialog(&measured, &w.home).lines() {
            lines.insert(line.to_string());
        }
        for line in held_dialog(&measured[..3], &w.home).lines() {
            lines.insert(line.to_string());
        }
    }
    let sandbox: BTreeSet<String> = [
        Status::On("bubblewrap with overlays of the home folder and the workspace"),
        Status::On("Seatbelt (sandbox-exec)"),
        Status::Off("it is turned off in settings (tools.sandbox = \"off\")".into()),
        Status::Off("bubblewrap is not installed".into()),
    ]
    .iter()
    .map(Status::describe)
    .collect();
    let found = serde_json::json!({
        "lines": lines,
        "alternatives": alternatives,
        "verbs": verbs,
        "sandbox": sandbox,
    });
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/features/approvals/law1-lines.json");
    let text = format!("{}\n", serde_json::to_string_pretty(&found).expect("json"));
    if std::env::var_os("ARTOO_BLESS_TS").is_some() {
        std::fs::write(&path, &text).expect("written");
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        kept,
        text,
        "{} is out of date with the dialog's English (ARTOO_BLESS_TS=1 writes it; then give every new shape its Chinese in law1-text.ts)",
        path.display()
    );
    for kind in [
        "Delete",
        "Overwrite",
        "Truncate",
        "Move",
        "permissions",
        "Stop",
        "system",
        "Send",
        "Erase",
        "Discard",
        "cannot check",
    ] {
        assert!(
            found["lines"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l.as_str().unwrap().contains(kind)),
            "no line of the kind {kind}: {found:#}"
        );
    }
}
