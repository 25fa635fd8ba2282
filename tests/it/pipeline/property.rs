//! A property of the whole hierarchy: whatever each role's model answers — valid JSON,
//! prose, HTTP 500 or nothing at all — a task ends in exactly one FinalResult (or one
//! ChatReply) within its time budget, and nothing of the task is published after it.

use std::time::{Duration, Instant};

use artoo::contracts::{MessageKind, Role};
use artoo::runtime::TaskEnd;
use artoo::testkit::{Script, Step};
use proptest::prelude::*;
use serde_json::json;

use super::Stage;
use super::replies::{Sub, call, finish, merge, next_moves, plan, task, verdicts};

/// Budgets small enough that a hang costs a second and a task a few.
const CALL_TIMEOUT_SECS: u64 = 1;
const TIME_BUDGET_MS: u64 = 6_000;
/// After the budget is spent GGS may still ask R2 for next moves (one call) and the end
/// must travel the bus; the rest is headroom for a loaded 2-core machine running the
/// other scenarios at the same time.
const END_SLACK: Duration = Duration::from_secs(2 * CALL_TIMEOUT_SECS + 12);

#[derive(Clone, Copy, Debug)]
enum Answer {
    Valid,
    Prose,
    ServerError,
    Hang,
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        6 => Just(Answer::Valid),
        2 => Just(Answer::Prose),
        2 => Just(Answer::ServerError),
        1 => Just(Answer::Hang),
    ]
}

const CRITERION: &str = "the output states the number of files";
const TASK_CRITERION: &str = "the answer gives the number of files";

/// What a role answers validly at its `i`-th call.
fn valid(role: Role, i: usize) -> String {
    match role {
        Role::Perceiver => task("Count the files in the workspace"),
        Role::Planner if i % 2 == 1 => next_moves(&["Try again later.", "Count by hand."]),
        Role::Planner => plan(
            &[TASK_CRITERION],
            &[Sub::new(1, "Count the files", &[CRITERION])],
        ),
        Role::Executor if i.is_multiple_of(2) => call("shell", json!({"command": "ls -1 | wc -l"})),
        Role::Executor => finish("completed", "1", "1 file."),
        Role::AgentValidator => verdicts(&[(CRITERION, true, "wc -l printed 1")]),
        _ => merge(
            json!({"files": 1}),
            &[(TASK_CRITERION, true, "files: 1")],
            "1 file.",
        ),
    }
}

fn script(per_role: &[(Role, Vec<Answer>)]) -> Script {
    per_role
        .iter()
        .fold(Script::new(), |script, (role, answers)| {
            script.role(
                *role,
                answers.iter().enumerate().map(|(i, a)| match a {
                    Answer::Valid => Step::reply(valid(*role, i)),
                    Answer::Prose => Step::reply("I would rather just chat about it."),
                    Answer::ServerError => Step::http_error(500),
                    Answer::Hang => Step::hang(),
                }),
            )
        })
}

async fn one_task(per_role: Vec<(Role, Vec<Answer>)>) -> Result<(), TestCaseError> {
    let mut stage = Stage::configured(script(&per_role), |c| {
        c.llm.call_timeout_secs = Some(CALL_TIMEOUT_SECS);
        c.llm.max_attempts = 1;
        c.budgets.time_budget_ms = Some(TIME_BUDGET_MS);
        c.budgets.executor_max_steps = 4;
    })
    .await;
    std::fs::write(stage.workspace.join("a.txt"), "x").expect("write");
    let started = Instant::now();
    let (task, end) = stage.run("how many files are in my workspace?").await;
    let took = started.elapsed();
    stage.settle().await;
    let transcript = stage.transcript().join("\n");
    prop_assert!(
        took <= Duration::from_millis(TIME_BUDGET_MS) + END_SLACK,
        "took {took:?}\n{transcript}"
    );
    prop_assert!(!matches!(end, TaskEnd::Cancelled), "{end:?}");
    let endings =
        stage.count(&task, MessageKind::FinalResult) + stage.count(&task, MessageKind::ChatReply);
    prop_assert_eq!(endings, 1, "{}", transcript);
    let kinds = stage.kinds(&task);
    let end_at = kinds
        .iter()
        .position(|k| matches!(k, MessageKind::FinalResult | MessageKind::ChatReply))
        .expect("the ending is on the bus");
    prop_assert!(
        kinds[end_at + 1..]
            .iter()
            .all(|k| matches!(k, MessageKind::Megram | MessageKind::TaskClosed)),
        "after the end: {:?}\n{}",
        &kinds[end_at + 1..],
        transcript
    );
    prop_assert_eq!(
        stage.count(&task, MessageKind::TaskClosed),
        1,
        "one close\n{}",
        transcript
    );
    stage.stop().await;
    Ok(())
}

fn per_role() -> impl Strategy<Value = Vec<(Role, Vec<Answer>)>> {
    let answers = || prop::collection::vec(answer(), 1..=4);
    (answers(), answers(), answers(), answers(), answers()).prop_map(|(r1, r2, r3, r4a, r4b)| {
        vec![
            (Role::Perceiver, r1),
            (Role::Planner, r2),
            (Role::Executor, r3),
            (Role::AgentValidator, r4a),
            (Role::MetaValidator, r4b),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 16,
        max_shrink_iters: 8,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_sequence_of_model_answers_ends_in_exactly_one_result_within_the_budget(
        per_role in per_role()
    ) {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(one_task(per_role))?;
    }
}
