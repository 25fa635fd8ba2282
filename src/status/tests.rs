use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::config::GgsParams;
use crate::contracts::{MessageKind, Role};
use crate::describe::DescribedEnvelope;
use crate::testkit::samples::{SUB, TASK, envelope, message, samples};
use crate::text::tilde;

/// The kinds that never start a phase of their own.
const QUIET: [MessageKind; 8] = [
    MessageKind::MemoryResponse,
    MessageKind::SubTaskClosed,
    MessageKind::GracefulFailure,
    MessageKind::Megram,
    MessageKind::MemoryOperatorChange,
    MessageKind::AuditQuery,
    MessageKind::AuditReport,
    MessageKind::LlmCall,
];

/// Words that belong to the pipeline view, never to a status line.
const INTERNAL: [&str; 14] = [
    "R1",
    "R2",
    "R3",
    "R4",
    "R7",
    "[LAW1]",
    "accept",
    "abandon",
    "change_path",
    "tok",
    "D=",
    "∇L",
    "Ω",
    "null",
];

fn lines(lang: Lang) -> Vec<(MessageKind, Option<String>)> {
    let mut board = StatusBoard::new(lang, Some("/home/u".into()));
    samples()
        .iter()
        .map(|env| (env.message.kind(), board.line(env)))
        .collect()
}

#[test]
fn every_message_kind_has_a_line_or_is_one_of_the_quiet_kinds() {
    for lang in [Lang::En, Lang::ZhCn] {
        let all = lines(lang);
        let kinds: BTreeSet<MessageKind> = all.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            kinds.len(),
            MessageKind::ALL.len(),
            "a sample of every kind"
        );
        for (kind, line) in &all {
            assert_eq!(line.is_none(), QUIET.contains(kind), "{kind:?}: {line:?}");
        }
    }
}

#[test]
fn no_line_shows_an_internal_label() {
    for lang in [Lang::En, Lang::ZhCn] {
        for (kind, line) in lines(lang) {
            let Some(line) = line else { continue };
            for word in INTERNAL {
                assert!(!line.contains(word), "{kind:?} {lang:?}: {line}");
            }
            assert!(!line.trim().is_empty(), "{kind:?}");
        }
    }
}

#[test]
fn chinese_lines_are_chinese_and_english_lines_are_not() {
    let en = lines(Lang::En);
    let zh = lines(Lang::ZhCn);
    let cjk = |s: &str| s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    for ((kind, en), (_, zh)) in en.iter().zip(&zh) {
        if let (Some(en), Some(zh)) = (en, zh) {
            assert!(cjk(zh), "{kind:?}: {zh}");
            assert!(!cjk(en), "{kind:?}: {en}");
        }
    }
}

fn sub(n: u8) -> String {
    format!("0f8fad5b-d9cb-469f-a165-70867728950{n}")
}

/// Sub-task `n` as R2 plans it.
fn planned(n: u8) -> serde_json::Value {
    json!({"subtask_id": sub(n), "parent_task_id": TASK, "intent": format!("step {n}"),
           "context": "", "success_criteria": [], "sequence": n})
}

fn plan_of_two(board: &mut StatusBoard) -> String {
    let env = envelope(
        Role::Planner,
        Role::Dispatcher,
        message(
            "DispatchManifest",
            json!({"task_id": TASK, "subtasks": [planned(1), planned(2)], "task_spec": null,
                   "dispatched_at": "2026-02-27T10:00:00Z", "task_criteria": [], "round": 0}),
        ),
    );
    board.line(&env).expect("a plan is a phase")
}

fn released(n: u8, intent: &str) -> crate::bus::Envelope {
    envelope(
        Role::Dispatcher,
        Role::Executor,
        message(
            "SubTask",
            json!({"subtask_id": sub(n), "parent_task_id": TASK, "intent": intent, "context": "",
                   "success_criteria": ["listed"], "sequence": n}),
        ),
    )
}

#[test]
fn steps_are_numbered_by_the_plan_in_force_and_paths_use_the_tilde() {
    let mut board = StatusBoard::new(Lang::En, Some("/home/u".into()));
    assert_eq!(plan_of_two(&mut board), "Planning 2 steps…");
    assert_eq!(
        board.line(&released(2, "Count the files")).as_deref(),
        Some("Step 2 of 2: Count the files")
    );
    let call = envelope(
        Role::Executor,
        Role::Observer,
        message(
            "ToolCallEvent",
            json!({"task_id": TASK, "subtask_id": sub(1), "attempt": 1,
                   "record": {"tool": "glob", "input": {}, "target": "/home/u/Downloads/*",
                              "output_head": "", "status": "ok", "error": null, "duration_ms": 3}}),
        ),
    );
    assert_eq!(
        board.line(&call).as_deref(),
        Some("Step 1 of 2: listing ~/Downloads/*")
    );
}

#[test]
fn a_failed_step_says_why_and_a_correction_says_what_is_tried_next() {
    let mut board = StatusBoard::new(Lang::En, Some("/home/u".into()));
    plan_of_two(&mut board);
    let correction = envelope(
        Role::AgentValidator,
        Role::Executor,
        message(
            "CorrectionSignal",
            json!({"subtask_id": sub(2), "parent_task_id": TASK, "attempt_number": 1,
                   "failed_criterion": "files listed", "failure_class": "environmental",
                   "what_was_wrong": "the folder does not exist",
                   "what_to_do": "list the top of /home/u/Downloads"}),
        ),
    );
    assert_eq!(
        board.line(&correction).as_deref(),
        Some(
            "Step 2 of 2 fell short: the folder does not exist — trying again: list the top of ~/Downloads"
        )
    );
    board.set_lang(Lang::ZhCn);
    assert_eq!(
        board.line(&correction).as_deref(),
        Some("第 2/2 步未达成：the folder does not exist——再试一次：list the top of ~/Downloads")
    );
}

#[test]
fn an_ended_task_is_forgotten() {
    let mut board = StatusBoard::new(Lang::En, None);
    plan_of_two(&mut board);
    assert_eq!(board.tasks(), 1);
    let end = samples()
        .into_iter()
        .find(|e| e.message.kind() == MessageKind::FinalResult)
        .expect("a sample");
    assert_eq!(board.line(&end).as_deref(), Some("Could not finish."));
    assert_eq!(board.tasks(), 0);
    // Without the plan, a step is still described, only not numbered.
    assert_eq!(
        board.line(&released(1, "List")).as_deref(),
        Some("A step: List")
    );
}

#[test]
fn the_home_is_replaced_only_as_a_whole_path_component() {
    let home = Path::new("/home/u");
    assert_eq!(tilde("ls /home/u/x /home/u", home), "ls ~/x ~");
    assert_eq!(tilde("/home/user/x", home), "/home/user/x");
}

#[test]
fn a_law1_summary_reads_without_its_marker() {
    assert_eq!(
        plain_summary("[LAW1] Deleted 3 files."),
        ("Deleted 3 files.".to_string(), true)
    );
    assert_eq!(
        plain_summary(" Found it. "),
        ("Found it.".to_string(), false)
    );
}

/// The status line of every sample envelope in both languages, as the UI's tests read
/// them: `ui/src/features/status/lines.generated.json`, each envelope as the shell sends
/// it (with its summary line). `ARTOO_BLESS_TS=1` rewrites it; otherwise a stale file
/// fails here (run `npm run contracts`).
#[test]
fn the_ui_reads_the_same_lines_the_core_writes() {
    let mut en = StatusBoard::new(Lang::En, Some("/home/u".into()));
    let mut zh = StatusBoard::new(Lang::ZhCn, Some("/home/u".into()));
    let rows: Vec<Value> = samples()
        .iter()
        .enumerate()
        .map(|(i, env)| {
            let described = DescribedEnvelope::new(Arc::new(env.clone()), &GgsParams::default());
            let mut envelope = serde_json::to_value(described).expect("envelopes serialise");
            envelope["id"] = json!(format!("00000000-0000-4000-8000-{i:012}"));
            json!({
                "kind": env.message.kind().name(),
                "envelope": envelope,
                "en": en.line(env),
                "zh-CN": zh.line(env),
            })
        })
        .collect();
    let text = serde_json::to_string_pretty(&rows).expect("json") + "\n";
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/features/status/lines.generated.json");
    if std::env::var_os("ARTOO_BLESS_TS").is_some() {
        std::fs::write(&path, text).expect("write the generated lines");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "{} is stale: run `npm run contracts` and commit it",
        path.display()
    );
    assert!(text.contains(SUB) && text.contains(TASK));
}
