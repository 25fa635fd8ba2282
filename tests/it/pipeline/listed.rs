//! A list asked for through the whole runtime: a count given in its place twice is
//! replaced by the listing's entries, stated by code (R4b), never accepted on the
//! model's word.

use artoo::contracts::{Role, TerminalDirective};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, call, finish, merge, next_moves, plan, task, verdicts,
};
use super::{Stage, final_result};

const INTENT: &str = "List the hidden files in ~/project";
const LISTED: &str = "the hidden files are listed";
const DONE: &str = "the user's request is done";

/// Every round: one listing of ~/project with hidden entries, then a count as the
/// answer (and a merge that says the same).
fn counting_instead_of_listing() -> Script {
    Script::new()
        .role(Role::Perceiver, [Step::reply(task(INTENT))])
        .role(
            Role::Planner,
            [
                Step::reply(next_moves(&["List ~/project by hand."]))
                    .when(GRACEFUL_FAILURE_REQUEST),
                Step::reply(plan(
                    &[DONE],
                    &[Sub::new(1, INTENT, &[LISTED]).tools(&["list_files"])],
                )),
            ],
        )
        .role(
            Role::Executor,
            [
                Step::reply(finish("completed", "2 hidden files", "Listed them.")).when("2 found"),
                Step::reply(call(
                    "list_files",
                    json!({"folder": "~/project", "hidden": true}),
                )),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(LISTED, true, "the listing ran")]))],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                json!("2 hidden files"),
                &[(DONE, true, "2 hidden files")],
                "2 hidden files",
            ))],
        )
        .cycle()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_count_given_twice_for_a_list_is_replaced_by_the_listing_stated_by_code() {
    let mut stage = Stage::new(counting_instead_of_listing()).await;
    let project = stage.home.join("project");
    std::fs::create_dir_all(&project).expect("project");
    for (name, text) in [
        (".env", "PORT=1\n"),
        (".gitignore", "target/\n"),
        ("README.md", "# x\n"),
    ] {
        std::fs::write(project.join(name), text).expect("file");
    }
    let (_, end) = stage.run("Which hidden files are in ~/project?").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_ne!(
        result.directive,
        TerminalDirective::Abandon,
        "{result:?}\n{}",
        stage.transcript().join("\n")
    );
    // The wrong outcome this rejects: "2 hidden files" delivered as the answer.
    assert!(
        result.summary.starts_with("~/project: ")
            && result.summary.contains(".env")
            && result.summary.contains(".gitignore")
            && !result.summary.contains("README.md"),
        "{}\n{}",
        result.summary,
        stage.transcript().join("\n")
    );
    stage.stop().await;
}
