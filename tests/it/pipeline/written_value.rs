//! A value written to a file, through the whole runtime: the model reads five numbers and
//! writes one none of them is as "the largest"; code, seeing that no result of the task
//! shows that number, does not run the write and says why; the next write holds the
//! number the read showed.

use artoo::contracts::Role;
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, accepted, call, finish, next_moves, plan_for, task,
};
use super::{Stage, mentions};

const REQUEST: &str =
    "Write the largest number in ~/data/readings.txt into a new file ~/data/max.txt";
const WRITTEN: &str = "~/data/max.txt holds the largest number of readings.txt";
const DONE: &str = "the user's request is done";

fn script() -> Script {
    let script = Script::new()
        .role(Role::Perceiver, [Step::reply(task(REQUEST))])
        .role(
            Role::Planner,
            [
                Step::reply(next_moves(&["Write the number by hand."]))
                    .when(GRACEFUL_FAILURE_REQUEST),
                Step::reply(plan_for(
                    "file",
                    &[DONE],
                    &[Sub::new(1, REQUEST, &[WRITTEN]).tools(&["read_file", "write_file"])],
                )),
            ],
        )
        .role(
            Role::Executor,
            [
                Step::reply(finish("completed", "Saved 31 to ~/data/max.txt.", "Done."))
                    .when("wrote 2 bytes"),
                // Told the number is in no result: the number the read showed.
                Step::reply(call(
                    "write_file",
                    json!({"path": "~/data/max.txt", "content": "31"}),
                ))
                .when("holds 51,"),
                Step::reply(call("read_file", json!({"path": "~/data/readings.txt"}))),
                // A number worked out by the model, and wrong.
                Step::reply(call(
                    "write_file",
                    json!({"path": "~/data/max.txt", "content": "51"}),
                )),
            ],
        );
    accepted(
        script,
        WRITTEN,
        DONE,
        "Saved 31 to ~/data/max.txt.",
        "write_file wrote it",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_no_result_shows_is_not_written_and_the_model_is_told_why() {
    let mut stage = Stage::new(script()).await;
    let data = stage.home.join("data");
    std::fs::create_dir_all(&data).expect("data");
    std::fs::write(data.join("readings.txt"), "12\n7\n31\n5\n19\n").expect("readings");
    let (_, result) = stage.run_to_result(REQUEST).await;
    let transcript = stage.transcript().join("\n");
    assert_eq!(
        result.output,
        json!("Saved 31 to ~/data/max.txt."),
        "{transcript}"
    );
    // The wrong outcome this rejects: 51 in max.txt.
    assert_eq!(
        std::fs::read_to_string(data.join("max.txt"))
            .ok()
            .as_deref(),
        Some("31"),
        "{transcript}"
    );
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 4, "{transcript}");
    assert!(
        mentions(
            &r3[2],
            "holds 51, which neither the sub-task nor any result"
        ),
        "the model is told why the write did not run"
    );
    stage.stop().await;
}
