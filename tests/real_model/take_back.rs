//! Undo and grants on the real model, end to end through the product's own entry points:
//! a task that moves files and deletes one (the deletion approved), then the `artoo undo`
//! command restores every file byte for byte; the same request again, approved with
//! "always" when offered; and the same request a third time asks nothing and names the
//! grant that allowed it.
//!
//! `cargo test -p artoo --features real-model --test real_model -- take_back --nocapture`
//! (the model from `LOCAL_LLM_*` as for the suites). The judges are exact: the bytes of
//! every file, the grant's words, the number of questions asked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use artoo::Config;
use artoo::contracts::{ApprovalScope, Decision, Message, TaskId, TerminalDirective};
use artoo::runtime::{Runtime, RuntimeOptions, TaskEnd};

use super::harness::{HARD_MARGIN, follow, log_line};
use super::llm_config;

const REQUEST: &str = "move the .log files from ~/inbox into ~/archive, and delete ~/inbox/old.tmp";

/// Every file under `home` but artoo's data, with its bytes.
fn files(home: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(home)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".artoo")
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(home)
                .expect("under home")
                .to_path_buf();
            (rel, std::fs::read(e.path()).expect("readable"))
        })
        .collect()
}

/// What one run of the request did: its end, the questions it asked (with whether
/// "always" was offered), and its task.
struct Ran {
    end: TaskEnd,
    asked: Vec<bool>,
    task: TaskId,
}

async fn run(runtime: &Runtime, scope: ApprovalScope) -> Ran {
    let mut asked = Vec::new();
    let limit = runtime.task_budget() + HARD_MARGIN;
    let followed = follow(runtime, "take_back", REQUEST, |message| {
        match message {
            Message::ConfirmationRequest(r) => {
                let always = r.scopes.contains(&ApprovalScope::Always);
                println!(
                    "law1 request: {} | always offered: {always}",
                    r.description.replace('\n', " | ")
                );
                asked.push(always);
                let scope = if r.scopes.contains(&scope) {
                    scope
                } else {
                    ApprovalScope::Once
                };
                return Some((Decision::Approve, scope));
            }
            other => {
                if let Some(line) = log_line(other) {
                    println!("{line}");
                }
            }
        }
        None
    });
    let (end, task) = tokio::time::timeout(limit, followed)
        .await
        .unwrap_or_else(|_| panic!("still running after {limit:?}"));
    if let TaskEnd::Final(r) = &end {
        println!(
            "result: {:?} | {} | grants {:?}",
            r.directive, r.summary, r.grants
        );
    }
    Ran { end, asked, task }
}

/// `artoo undo --yes` as a user runs it, on this home and data dir.
fn undo(home: &Path, data: &Path, workspace: &Path) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_artoo"))
        .args(["undo", "--yes"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ARTOO_DATA_DIR", data)
        .env("ARTOO_WORKSPACE", workspace)
        .output()
        .expect("artoo runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "artoo undo failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn done(end: &TaskEnd) -> bool {
    matches!(end, TaskEnd::Final(r) if r.directive != TerminalDirective::Abandon)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn take_back_a_move_and_an_approved_deletion_then_a_grant_asks_nothing() {
    let dirs = tempfile::tempdir().expect("temp dir");
    let home = std::fs::canonicalize(dirs.path())
        .expect("real path")
        .join("home");
    let workspace = home.join("artoo_workspace");
    let data = home.join(".artoo");
    std::fs::create_dir_all(home.join("inbox")).expect("inbox");
    std::fs::create_dir_all(&workspace).expect("workspace");
    std::fs::write(home.join("inbox/build.log"), "build ok\nlinked 3 crates\n").expect("write");
    std::fs::write(home.join("inbox/test.log"), "412 passed\n").expect("write");
    std::fs::write(home.join("inbox/old.tmp"), "scratch\n").expect("write");
    std::fs::write(home.join("inbox/notes.txt"), "keep me where I am\n").expect("write");
    let start = files(&home);

    let mut config = Config::with_dirs(&data, &workspace);
    config.home = home.clone();
    config.llm = llm_config();
    config.llm.call_timeout_secs = None;
    config.laws.offer_always_after = 1;
    config.tools.search_url = "http://127.0.0.1:9/html/".into();
    let runtime = Runtime::start(config, RuntimeOptions::default())
        .await
        .expect("runtime starts");

    // 1. Moved and deleted, the deletion approved once.
    let first = run(&runtime, ApprovalScope::Once).await;
    let after_first = files(&home);
    println!(
        "after the first run: {:?}",
        after_first.keys().collect::<Vec<_>>()
    );
    assert!(
        done(&first.end),
        "the first run did not finish: {:?}",
        first.end
    );
    assert_eq!(first.asked, [false], "one question, without \"always\" yet");
    for (moved, bytes) in [
        ("build.log", "build ok\nlinked 3 crates\n"),
        ("test.log", "412 passed\n"),
    ] {
        assert_eq!(
            after_first
                .get(&PathBuf::from("archive").join(moved))
                .map(Vec::as_slice),
            Some(bytes.as_bytes()),
            "{moved} moved into ~/archive"
        );
    }
    assert!(!home.join("inbox/old.tmp").exists() && home.join("inbox/notes.txt").exists());

    // 2. `artoo undo`: every file as it was, byte for byte.
    let said = undo(&home, &data, &workspace);
    println!("artoo undo: {said}");
    assert_eq!(
        files(&home),
        start,
        "the undo restored every file byte for byte"
    );

    // 3. The same request: asked, now with "always", which the user takes.
    let second = run(&runtime, ApprovalScope::Always).await;
    assert!(
        done(&second.end),
        "the second run did not finish: {:?}",
        second.end
    );
    assert_eq!(second.asked, [true], "asked once, \"always\" offered");
    undo(&home, &data, &workspace);
    assert_eq!(files(&home), start);

    // 4. The same request a third time: nobody is asked, and the result names the grant.
    let third = run(&runtime, ApprovalScope::Once).await;
    assert!(third.asked.is_empty(), "asked {:?}", third.asked);
    let TaskEnd::Final(result) = &third.end else {
        panic!("no result: {:?}", third.end)
    };
    assert_ne!(
        result.directive,
        TerminalDirective::Abandon,
        "{}",
        result.summary
    );
    assert_eq!(result.grants, ["deleting .tmp files under ~/inbox"]);
    assert!(
        result
            .summary
            .contains("ran without asking under your standing grants"),
        "{}",
        result.summary
    );
    assert!(!home.join("inbox/old.tmp").exists());
    println!(
        "take_back: tasks {} / {} / {}: moved + deleted (asked once), undone byte for byte twice, third run asked nothing under \"{}\"",
        first.task, second.task, third.task, result.grants[0]
    );
    runtime.shutdown().await;
}
