//! A line asked for by a word, through the whole runtime: the model reads the file's
//! first line with no word to select by and finishes with it; code, reading the file,
//! sees that the line lacks the word the request names while some of the file's lines
//! hold it, and sends the finish back once; the next call selects by the word, and its
//! line is the answer.

use artoo::contracts::{Role, TerminalDirective};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, accepted, call, finish, next_moves, plan_for, task,
};
use super::{Stage, final_result, mentions};

const REQUEST: &str = "What is the first line of ~/logs/server.log that mentions disk?";
const INTENT: &str = "Find the first line of ~/logs/server.log that mentions disk";
const QUOTED: &str = "the output is the first line of server.log that mentions disk";
const DONE: &str = "the user's request is done";
const LOG: &str = "10:00 INFO up\n10:02 WARN slow disk\n10:03 INFO request\n\
                   10:04 WARN disk 91% full\n10:05 ERROR disk full\n10:06 INFO down\n";

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
                    &[Sub::new(1, INTENT, &[QUOTED]).tools(&["read_lines"])],
                )),
            ],
        )
        .role(
            Role::Executor,
            [
                // Once a read selected by the word, its line.
                Step::reply(finish("completed", "10:02 WARN slow disk", "Found it."))
                    .when("that contain \"disk\" (case ignored)"),
                // Sent back: the read again, by the word.
                Step::reply(call(
                    "read_lines",
                    json!({"path": "~/logs/server.log", "op": "first", "text": "disk"}),
                ))
                .when("does not hold"),
                // First: the file's first line, no word to select by.
                Step::reply(call(
                    "read_lines",
                    json!({"path": "~/logs/server.log", "op": "first"}),
                )),
                Step::reply(finish("completed", "10:00 INFO up", "Found it.")),
            ],
        );
    accepted(
        script,
        QUOTED,
        DONE,
        "10:02 WARN slow disk",
        "read_lines printed it",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_quoted_without_the_word_the_request_selects_by_is_sent_back_once() {
    let mut stage = Stage::new(script()).await;
    let logs = stage.home.join("logs");
    std::fs::create_dir_all(&logs).expect("logs");
    std::fs::write(logs.join("server.log"), LOG).expect("log");
    let (_, end) = stage.run(REQUEST).await;
    let result = final_result(&end).clone();
    stage.settle().await;
    let transcript = stage.transcript().join("\n");
    assert_ne!(
        result.directive,
        TerminalDirective::Abandon,
        "{result:?}\n{transcript}"
    );
    // The wrong outcome this rejects: the file's first line, delivered as the answer.
    assert_eq!(result.output, json!("10:02 WARN slow disk"), "{transcript}");
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 4, "{transcript}");
    assert!(
        mentions(&r3[2], "which does not hold «disk»"),
        "the push-back names the word"
    );
    stage.stop().await;
}
