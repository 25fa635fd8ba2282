//! Memory across tasks through the whole hierarchy: what GGS wrote at the end of one task
//! is what R2's calibration recalls before planning the next similar one.

use std::collections::HashSet;

use artoo::contracts::{MemoryRecall, Message, MessageKind, Role, TaskId, TerminalDirective};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{Sub, call, finish, merge, plan, task, verdicts};
use super::{Stage, final_result};

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
