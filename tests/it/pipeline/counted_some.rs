//! A count of some items, through the whole runtime: asked how many guests of a list
//! have confirmed, the model reads the list and answers with its number of lines; code,
//! seeing the question count only some guests and the answer count every line, sends
//! the finish back once; the next call counts the lines that say yes.

use artoo::contracts::Role;
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, accepted, call, finish, next_moves, plan_for, task,
};
use super::{Stage, mentions};

const REQUEST: &str = "How many guests in ~/party/guests.txt have confirmed they are coming?";
const INTENT: &str = "Count the guests in ~/party/guests.txt who have confirmed they are coming";
const COUNTED: &str = "the output is the number of guests who confirmed";
const DONE: &str = "the user's request is done";
const GUESTS: &str = "Anna: yes\nBen: no\nCleo: yes\nDan: maybe\nEli: yes\nFay: no\n";

fn script() -> Script {
    let script = Script::new()
        .role(Role::Perceiver, [Step::reply(task(INTENT))])
        .role(
            Role::Planner,
            [
                Step::reply(next_moves(&["Count them by hand."])).when(GRACEFUL_FAILURE_REQUEST),
                Step::reply(plan_for(
                    "number",
                    &[DONE],
                    &[Sub::new(1, INTENT, &[COUNTED]).tools(&["read_file", "read_lines"])],
                )),
            ],
        )
        .role(
            Role::Executor,
            [
                // Once the lines that say yes are counted, their count.
                Step::reply(finish("completed", "3", "Counted.")).when("50% of the lines"),
                // Sent back: the lines that say yes, counted by code.
                Step::reply(call(
                    "read_lines",
                    json!({"path": "~/party/guests.txt", "op": "count", "text": "yes"}),
                ))
                .when("all of them counted"),
                Step::reply(call("read_file", json!({"path": "~/party/guests.txt"}))),
                // Every line of the list, as the count of those who confirmed.
                Step::reply(finish("completed", "6", "Counted.")),
            ],
        );
    accepted(script, COUNTED, DONE, "3", "read_lines counted them")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_line_given_as_the_count_of_some_is_sent_back_once() {
    let mut stage = Stage::new(script()).await;
    let party = stage.home.join("party");
    std::fs::create_dir_all(&party).expect("party");
    std::fs::write(party.join("guests.txt"), GUESTS).expect("guests");
    let (_, result) = stage.run_to_result(REQUEST).await;
    let transcript = stage.transcript().join("\n");
    // The wrong outcome this rejects: 6, every guest, delivered as the answer.
    assert_eq!(result.output, json!("3"), "{transcript}");
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 4, "{transcript}");
    assert!(
        mentions(&r3[2], "6 is the number of every line of"),
        "the push-back names the whole count"
    );
    stage.stop().await;
}
