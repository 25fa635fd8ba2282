//! A line asked for in other words than the file's, through the whole runtime: asked
//! for the second warning of a build log whose lines say `warn`, the model reads the
//! file and asks for the same read again, so the whole file is the answer it has; code,
//! reading the file, sees that "warning" selects the lines that say `warn`, and sends
//! that answer back once with those lines; read_lines selects by "warning" in the form
//! the file writes it, and the model names the second.

use artoo::contracts::Role;
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, accepted, call, finish, next_moves, plan_for, task,
};
use super::{Stage, mentions};

const REQUEST: &str = "What is the second warning in ~/logs/build.log?";
const INTENT: &str = "Find the second warning in the file";
const QUOTED: &str = "the output is the second warning of build.log";
const DONE: &str = "the user's request is done";
const LOG: &str =
    "ok compile\nwarn unused import\nok link\nwarn deprecated call\nok test\nwarn slow test\n";

fn script() -> Script {
    let script = Script::new()
        .role(Role::Perceiver, [Step::reply(task(INTENT))])
        .role(
            Role::Planner,
            [
                Step::reply(next_moves(&["Read the log by hand."])).when(GRACEFUL_FAILURE_REQUEST),
                Step::reply(plan_for(
                    "text",
                    &[DONE],
                    &[Sub::new(1, INTENT, &[QUOTED])
                        .context("File: ~/logs/build.log")
                        .tools(&["read_file", "read_lines"])],
                )),
            ],
        )
        .role(
            Role::Executor,
            [
                // The warn lines read by code: the second of them.
                Step::reply(finish("completed", "Line 4: warn deprecated call", "Found it."))
                    .when("a form of"),
                // Sent back: the lines that hold the word, by code.
                Step::reply(call(
                    "read_lines",
                    json!({"path": "~/logs/build.log", "op": "first", "text": "warning", "take": 2}),
                ))
                .when("does not hold"),
                Step::reply(call("read_file", json!({"path": "~/logs/build.log"}))),
                // The same read again: its result, the whole file, is the answer it has.
                Step::reply(call("read_file", json!({"path": "~/logs/build.log"}))),
            ],
        );
    accepted(
        script,
        QUOTED,
        DONE,
        "Line 4: warn deprecated call",
        "read_file printed it",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_log_given_for_a_warning_is_sent_back_with_the_warn_lines() {
    let mut stage = Stage::new(script()).await;
    let logs = stage.home.join("logs");
    std::fs::create_dir_all(&logs).expect("logs");
    std::fs::write(logs.join("build.log"), LOG).expect("log");
    let (_, result) = stage.run_to_result(REQUEST).await;
    let transcript = stage.transcript().join("\n");
    // The wrong outcome this rejects: the whole log delivered as the answer.
    assert_eq!(
        result.output,
        json!("Line 4: warn deprecated call"),
        "{transcript}"
    );
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 4, "{transcript}");
    assert!(
        mentions(&r3[2], "line 4: warn deprecated call"),
        "the push-back shows the warn lines"
    );
    stage.stop().await;
}
