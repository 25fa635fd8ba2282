//! The answer comes first and alone: what the tools did (a partial copy: two copied, one
//! missing) travels beside the answer as data, line by line from the tool's record, and
//! the files it made as measured effects — never glued into the summary or the output.
//! (The Law 1 tally and the names no tool showed: `pipeline::law1` and `ggs`.)

use artoo::contracts::{Law1Tally, Role, TerminalDirective};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, call, finish, merge, next_moves, plan, task, verdicts,
};
use super::{Stage, final_result};

const REQUEST: &str =
    "copy lease.pdf, insurance.pdf and warranty.pdf from ~/contracts to ~/to-print";
const INTENT: &str = "Copy three named files from ~/contracts to ~/to-print";
const COPIED: &str = "the files that exist are copied to ~/to-print";
const DONE: &str = "the user's request is done";
/// What R3 says: the lone sub-task's own line is the answer.
const SUMMARY: &str = "Copied the two files that exist.";

fn partial_copy() -> Script {
    Script::new()
        .role(Role::Perceiver, [Step::reply(task(INTENT))])
        .role(
            Role::Planner,
            [
                Step::reply(next_moves(&["Copy the files by hand."]))
                    .when(GRACEFUL_FAILURE_REQUEST),
                Step::reply(plan(
                    &[DONE],
                    &[Sub::new(1, INTENT, &[COPIED]).tools(&["copy_files"])],
                )),
            ],
        )
        .role(
            Role::Executor,
            [
                Step::reply(finish("completed", SUMMARY, "Copied.")).when("copied 2 of 3"),
                Step::reply(call(
                    "copy_files",
                    json!({
                        "from": "~/contracts",
                        "names": ["lease.pdf", "insurance.pdf", "warranty.pdf"],
                        "to": "~/to-print",
                    }),
                )),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(COPIED, true, "copied 2 of 3")]))],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                json!(SUMMARY),
                &[(DONE, true, "copied 2 of 3")],
                "All three files were copied.",
            ))],
        )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_stands_alone_and_the_tools_account_of_a_partial_copy_is_data() {
    let mut stage = Stage::new(partial_copy()).await;
    let contracts = stage.home.join("contracts");
    let to = stage.home.join("to-print");
    std::fs::create_dir_all(&contracts).expect("contracts");
    std::fs::write(contracts.join("lease.pdf"), b"%PDF lease").expect("lease");
    std::fs::write(contracts.join("insurance.pdf"), b"%PDF insurance").expect("insurance");

    let (_, end) = stage.run(REQUEST).await;
    let result = final_result(&end).clone();
    stage.settle().await;
    let transcript = stage.transcript().join("\n");
    assert_eq!(
        result.directive,
        TerminalDirective::Accept,
        "{result:?}\n{transcript}"
    );
    assert_eq!(
        std::fs::read(to.join("lease.pdf")).expect("copied"),
        b"%PDF lease"
    );
    assert!(!to.join("warranty.pdf").exists());

    // The answer alone: no tool lines glued to it.
    assert_eq!(result.summary, SUMMARY);
    assert_eq!(result.output, json!(SUMMARY));
    // What the copy tool reported, line by line from its record, paths from home.
    assert_eq!(
        result.account,
        [
            "copied 2 of 3 into ~/to-print: lease.pdf, insurance.pdf",
            "missing: warranty.pdf (not in ~/contracts)",
        ]
    );
    assert!(result.unverified.is_empty(), "{result:?}");
    assert_eq!(result.law1, Law1Tally::default());
    let mut made: Vec<_> = result
        .effects
        .iter()
        .map(|e| (e.effect.as_str(), e.path.clone()))
        .collect();
    made.sort();
    assert_eq!(
        made,
        [
            ("create", to.join("insurance.pdf")),
            ("create", to.join("lease.pdf")),
        ]
    );
    stage.stop().await;
}
