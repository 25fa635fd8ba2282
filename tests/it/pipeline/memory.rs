//! Memory across tasks through the whole hierarchy: what GGS wrote at the end of one task
//! is what R2's calibration recalls before planning the next similar one — after a
//! success an Exploit (SHOULD PREFER), after a failure an Avoid (MUST NOT) whose tools the
//! plan validator then refuses.

use artoo::tools::ToolName;
use std::collections::HashSet;

use artoo::contracts::{
    ConstraintKind, ConstraintSource, Megram, MegramOrigin, MemoryAction, MemoryRecall, Message,
    MessageKind, Role, TaskId, TerminalDirective,
};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, call, finish, merge, next_moves, plan, task, verdicts,
};
use super::{Stage, final_result, pick};

const INTENT: &str = "Count the files in the workspace";
const CRITERION: &str = "the output states the number of files";
const TASK_CRITERION: &str = "the answer gives the number of files";
const COMMAND: &str = "ls -1 | wc -l";

fn count_script() -> Script {
    Script::new()
        .role(Role::Perceiver, [Step::reply(task(INTENT))])
        .role(
            Role::Planner,
            [Step::reply(plan(
                &[TASK_CRITERION],
                &[Sub::new(1, INTENT, &[CRITERION])],
            ))],
        )
        .role(
            Role::Executor,
            [
                Step::reply(finish("completed", "1", "1 file.")).when(COMMAND),
                Step::reply(call("shell", json!({ "command": COMMAND }))),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                CRITERION,
                true,
                "wc -l printed 1",
            )]))],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                json!({"files": 1}),
                &[(TASK_CRITERION, true, "files: 1")],
                "1 file.",
            ))],
        )
        .cycle()
}

fn recalls(stage: &Stage, task: &TaskId) -> Vec<MemoryRecall> {
    stage
        .of(task, MessageKind::MemoryRecall)
        .iter()
        .filter_map(|e| match &e.message {
            Message::MemoryRecall(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_similar_task_recalls_the_megram_the_first_task_wrote() {
    let mut stage = Stage::new(count_script()).await;
    std::fs::write(stage.workspace.join("a.txt"), "x").expect("write");

    let (first, end) = stage.run("how many files are in my workspace?").await;
    assert_ne!(final_result(&end).directive, TerminalDirective::Abandon);
    stage.settle().await;
    let written: HashSet<_> = stage
        .of(&first, MessageKind::Megram)
        .iter()
        .filter_map(|e| match &e.message {
            Message::Megram(w) => Some(w.megram.id),
            _ => None,
        })
        .collect();
    assert!(!written.is_empty(), "GGS wrote the first task's outcome");
    let before = recalls(&stage, &first);
    assert!(
        before
            .iter()
            .flat_map(|r| &r.constraints)
            .all(|c| c.megram_ids.iter().all(|id| !written.contains(id))),
        "nothing of the first task existed before it ran"
    );

    let (second, end) = stage.run("count the files in my workspace again").await;
    assert_ne!(final_result(&end).directive, TerminalDirective::Abandon);
    stage.settle().await;
    let after = recalls(&stage, &second);
    assert!(!after.is_empty());
    let recalled: HashSet<_> = after
        .iter()
        .flat_map(|r| r.constraints.iter().flat_map(|c| c.megram_ids.clone()))
        .chain(after.iter().flat_map(|r| r.sops.iter().map(|s| s.id)))
        .collect();
    assert!(
        recalled.iter().any(|id| written.contains(id)),
        "the second task's recall names a Megram of the first: recalled {recalled:?}, written {written:?}\n{after:#?}"
    );
    let attention = |rs: &[MemoryRecall]| {
        rs.iter()
            .map(|r| r.potentials.attention)
            .fold(0.0_f64, f64::max)
    };
    assert!(
        attention(&after) > attention(&before),
        "the first task's trace raised attention: {} → {}",
        attention(&before),
        attention(&after)
    );
    stage.stop().await;
}

/// The recall of the task's intent group (R2's first calibration of the task).
fn intent_recall(stage: &Stage, task: &TaskId) -> MemoryRecall {
    stage
        .all(task, pick!(Message::MemoryRecall))
        .into_iter()
        .find(|r| r.space.starts_with("intent:"))
        .expect("R2 recalled the intent group")
}

/// The terminal Megram GGS wrote for the task.
fn terminal_megram(stage: &Stage, task: &TaskId) -> Megram {
    stage
        .all(task, pick!(Message::Megram))
        .into_iter()
        .map(|w| w.megram)
        .find(|m| m.space.starts_with("intent:"))
        .expect("a terminal Megram")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_success_the_next_similar_task_recalls_exploit_and_r2_is_told_to_prefer_it() {
    let mut stage = Stage::new(count_script()).await;
    std::fs::write(stage.workspace.join("a.txt"), "x").expect("write");

    let (first, end) = stage.run("how many files are in my workspace?").await;
    assert_eq!(final_result(&end).directive, TerminalDirective::Accept);
    stage.settle().await;
    assert_eq!(
        intent_recall(&stage, &first).potentials.action,
        MemoryAction::Ignore,
        "a fresh store has no history"
    );
    let written = terminal_megram(&stage, &first);
    assert_eq!(written.state, MegramOrigin::Accept);

    let (second, end) = stage.run("count the files in my workspace").await;
    assert_eq!(final_result(&end).directive, TerminalDirective::Accept);
    stage.settle().await;
    let recall = intent_recall(&stage, &second);
    assert_eq!(recall.space, written.space);
    assert_eq!(
        recall.potentials.action,
        MemoryAction::Exploit,
        "{recall:?}"
    );
    let prefer = recall
        .constraints
        .iter()
        .find(|c| c.kind == ConstraintKind::ShouldPrefer && c.source == ConstraintSource::Memory)
        .expect("a SHOULD PREFER from memory");
    assert_eq!(
        prefer.megram_ids,
        vec![written.id],
        "it cites the first task's Megram"
    );
    let plans = stage.server.requests_from(Role::Planner);
    assert_eq!(plans.len(), 2, "one plan per task");
    assert!(
        !super::mentions(&plans[0], "SHOULD PREFER the approach that worked"),
        "nothing to prefer before the first task"
    );
    assert!(
        super::mentions(&plans[1], "SHOULD PREFER the approach that worked"),
        "the constraint reached R2's prompt"
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_failed_task_the_next_similar_task_recalls_avoid_and_its_tools_are_refused() {
    const INTENT: &str = "Show the first line of the notes";
    const TASK_CRITERION: &str = "the answer quotes the first line of the notes";
    const CRITERION: &str = "the output quotes the first line of the notes file";
    let plan_with = |tool: &'static [&'static str], place: &'static str| {
        Step::reply(plan(
            &[TASK_CRITERION],
            &[Sub::new(1, INTENT, &[CRITERION]).tools(tool).context(place)],
        ))
    };
    let missing = |path: &str| {
        [
            Step::reply(call("read_file", json!({ "path": path }))),
            Step::reply(finish("failed", "", "The file is not there.")),
        ]
    };
    let script = Script::new()
        .role(
            Role::Perceiver,
            [Step::reply(task(INTENT)), Step::reply(task(INTENT))],
        )
        .role(
            Role::Planner,
            [
                Step::reply(next_moves(&[
                    "Tell me where the notes are",
                    "Create notes.txt first",
                ]))
                .when(GRACEFUL_FAILURE_REQUEST),
                plan_with(&["read_file"], "File: notes/notes.txt"),
                // The replan looks in another place (a replan that repeated the plan it
                // replaces would be refused).
                plan_with(&["read_file"], "File: Documents/notes.txt"),
                // The second task: read_file is MUST NOT now, so this plan is refused …
                plan_with(&["read_file"], "File: notes.txt"),
                // … and the re-asked one uses another tool.
                plan_with(&["shell"], "File: notes.txt"),
            ],
        )
        .role(Role::Executor, missing("notes/notes.txt"))
        .role(Role::Executor, missing("Documents/notes.txt"))
        .role(
            Role::Executor,
            [
                Step::reply(call("shell", json!({ "command": "head -n 1 notes.txt" }))),
                Step::reply(finish("completed", "buy milk", "First line.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                CRITERION,
                true,
                "head printed buy milk",
            )]))],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                json!("buy milk"),
                &[(TASK_CRITERION, true, "buy milk")],
                "The first line is: buy milk.",
            ))],
        );
    let mut stage = Stage::configured(script, |c| c.budgets.max_replans = 1).await;
    std::fs::write(stage.workspace.join("notes.txt"), "buy milk\n").expect("write");

    let (first, end) = stage.run("show me the first line of my notes").await;
    assert_eq!(final_result(&end).directive, TerminalDirective::Abandon);
    stage.settle().await;
    let written = terminal_megram(&stage, &first);
    assert_eq!(written.state, MegramOrigin::Abandon);
    assert!(written.content.contains("read_file"), "{}", written.content);

    let (second, end) = stage.run("what is the first line of my notes?").await;
    let result = final_result(&end).clone();
    stage.settle().await;
    let recall = intent_recall(&stage, &second);
    assert_eq!(recall.potentials.action, MemoryAction::Avoid, "{recall:?}");
    let must_not = recall
        .constraints
        .iter()
        .find(|c| c.kind == ConstraintKind::MustNot && c.source == ConstraintSource::Memory)
        .expect("a MUST NOT from memory");
    assert_eq!(
        must_not.megram_ids,
        vec![written.id],
        "it cites the first task's Megram"
    );
    assert!(must_not.text.contains("read_file"), "{}", must_not.text);
    // The plan validator enforces it: the plan with read_file was re-asked once.
    let reasked = stage.requests_containing(Role::Planner, "The plan validator rejected this plan");
    assert_eq!(reasked.len(), 1);
    let (_, text) = reasked[0].messages().last().cloned().expect("a user turn");
    assert!(text.contains("uses the blocked tool `read_file`"), "{text}");
    let subtasks = stage.all(&second, pick!(Message::SubTask));
    let distinct: HashSet<_> = subtasks.iter().map(|s| s.subtask_id).collect();
    assert_eq!(distinct.len(), 1, "only the corrected plan was dispatched");
    assert!(
        subtasks[0]
            .blocked_tools
            .iter()
            .any(|t| *t == ToolName::ReadFile),
        "{:?}",
        subtasks[0]
    );
    assert_eq!(result.directive, TerminalDirective::Accept);
    assert_eq!(stage.count(&second, MessageKind::PlanningFailed), 0);
    stage.stop().await;
}
