//! A file asked for at a path, through the whole runtime: the model writes it under
//! another name and every model check passes it; code holds the sub-task to the file at
//! the path the request names (a check code derived from the request), R4a fails the
//! attempt with what code read (the model is not asked about that criterion), and the
//! next attempt writes it where it was asked for.

use artoo::contracts::{Message, Role, TerminalDirective};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, call, finish, merge, next_moves, plan_for, task, verdicts,
};
use super::{Stage, final_result};

const REQUEST: &str =
    "count the lines of ~/notes/todo.txt and save the number to ~/notes/count.txt";
const INTENT: &str = "Count the lines of ~/notes/todo.txt and save the number to a file";
const SAVED: &str = "the number of lines is saved";
const AT_PATH: &str = "A file is at ~/notes/count.txt when the work ends";
const DONE: &str = "the user's request is done";

/// The executor's steps: the first attempt saves under a name of its own, the second,
/// told what code found, where it was asked.
fn executor(notes: &std::path::Path) -> Vec<Step> {
    let path = |name: &str| notes.join(name).display().to_string();
    vec![
        Step::reply(call(
            "write_file",
            json!({"path": path("count.txt"), "content": "3\n"}),
        ))
        .when("nothing is at ~/notes/count.txt"),
        Step::reply(finish(
            "completed",
            "Saved 3 to ~/notes/count.txt.",
            "Saved.",
        ))
        .when("wrote 2 bytes"),
        Step::reply(call(
            "read_lines",
            json!({"path": path("todo.txt"), "op": "count"}),
        )),
        Step::reply(call(
            "write_file",
            json!({"path": path("lines.txt"), "content": "3"}),
        )),
        Step::reply(finish(
            "completed",
            "Saved 3 to ~/notes/lines.txt.",
            "Saved.",
        )),
        Step::reply(finish(
            "completed",
            "Saved 3 to ~/notes/lines.txt.",
            "Saved.",
        )),
    ]
}

fn saved_elsewhere_first() -> Script {
    Script::new()
        .role(Role::Perceiver, [Step::reply(task(INTENT))])
        .role(
            Role::Planner,
            [
                Step::reply(next_moves(&["Save the count by hand."]))
                    .when(GRACEFUL_FAILURE_REQUEST),
                Step::reply(plan_for(
                    "new_file",
                    &[],
                    &[Sub::new(1, INTENT, &[SAVED]).tools(&["read_lines", "write_file"])],
                )),
            ],
        )
        .role(
            Role::AgentValidator,
            [
                Step::reply(verdicts(&[(SAVED, true, "the count was written")])),
                Step::reply(verdicts(&[(SAVED, true, "the count was written")])),
            ],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                json!("Saved 3 to ~/notes/count.txt."),
                &[(DONE, true, "saved")],
                "Saved 3 to ~/notes/count.txt.",
            ))],
        )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_asked_for_at_a_path_is_held_to_that_path_by_code() {
    let mut stage = Stage::new(saved_elsewhere_first()).await;
    let notes = stage.home.join("notes");
    std::fs::create_dir_all(&notes).expect("notes");
    stage.server.push(Role::Executor, executor(&notes));
    std::fs::write(notes.join("todo.txt"), "a\nb\nc\n").expect("todo");
    let (_, end) = stage.run(REQUEST).await;
    let result = final_result(&end);
    stage.settle().await;
    let transcript = stage.transcript().join("\n");
    assert_ne!(
        result.directive,
        TerminalDirective::Abandon,
        "{result:?}\n{transcript}"
    );
    // The wrong outcome this rejects: done, with the count in lines.txt and nothing at
    // the path the user gave.
    assert_eq!(
        std::fs::read_to_string(notes.join("count.txt"))
            .ok()
            .as_deref(),
        Some("3\n"),
        "{transcript}"
    );
    // The first attempt was failed by code, with what it read, though the model passed it.
    let corrections: Vec<String> = stage
        .seen
        .iter()
        .filter(|e| matches!(e.message, Message::CorrectionSignal(_)))
        .map(|e| serde_json::to_string(&e.message).expect("json"))
        .collect();
    assert!(
        corrections.len() == 1
            && corrections[0].contains("checked by code: nothing is at ~/notes/count.txt"),
        "{corrections:?}\n{transcript}"
    );
    // The criterion code derived is code's alone: the model judged only the plan's own.
    let judged = stage.server.requests_from(Role::AgentValidator);
    assert_eq!(judged.len(), 2);
    for request in &judged {
        let body = request.body.to_string();
        assert!(
            body.contains(&format!("1. {SAVED}")) && !body.contains(&format!("2. {AT_PATH}")),
            "{body}"
        );
    }
    stage.stop().await;
}
