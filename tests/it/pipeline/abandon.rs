//! Abandons GGS reaches from real traffic, each an honest graceful failure: the Law 2
//! kill-switch when the loss worsens on consecutive rounds, and budget pressure (Ω ≥ θ).

use artoo::contracts::{MegramOrigin, Message, MessageKind, Role, TerminalDirective};
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{
    GRACEFUL_FAILURE_REQUEST, Sub, call, finish, judged, merge, next_moves, plan, task,
};
use super::{Stage, final_result};

const FOUND: &str = "the output names the file";
const QUOTED: &str = "the output quotes the Q3 revenue";
const TASK_CRITERION: &str = "the answer gives the Q3 revenue";
const ROUND: [&str; 3] = [
    "Read the first Q3 notes",
    "Read the second Q3 notes",
    "Read the third Q3 notes",
];
const MOVES: [&str; 2] = ["Tell me where the figure is.", "Open notes.txt yourself."];

/// Round k reads notes{k}.txt (read_file, shell, read_file) and R4a judges it as
/// `verdicts[k]` says (whether the file was found; the cause of the unmet criteria); the
/// figure is never quoted. R3's finish of round k waits `latency_ms[k]`.
fn rounds(verdicts: [(bool, &str); 3], latency_ms: [u64; 3]) -> Script {
    rounds_quoting(verdicts, latency_ms, None)
}

/// Like [`rounds`]; in round `quoted` (if any) the figure is quoted, the sub-task
/// matches and R4b accepts the merged answer.
fn rounds_quoting(
    verdicts: [(bool, &str); 3],
    latency_ms: [u64; 3],
    quoted: Option<usize>,
) -> Script {
    let mut script = Script::new()
        .role(Role::Perceiver, [Step::reply(task("Give the Q3 revenue"))])
        .role(
            Role::Planner,
            [Step::reply(next_moves(&MOVES)).when(GRACEFUL_FAILURE_REQUEST)],
        )
        .role(
            Role::Planner,
            // Tools alternate: a logical failure blocks the tool it used.
            ROUND.map(|intent| {
                let tool = if intent == ROUND[1] {
                    "shell"
                } else {
                    "read_file"
                };
                Step::reply(plan(
                    &[TASK_CRITERION],
                    &[Sub::new(1, intent, &[FOUND, QUOTED]).tools(&[tool])],
                ))
            }),
        );
    for (k, intent) in ROUND.into_iter().enumerate() {
        let file = format!("notes{k}.txt");
        // How R3's next turn lists the call it made (the path resolved in the workspace).
        let (read, called) = if k == 1 {
            let command = format!("cat {file}");
            (
                call("shell", json!({ "command": command })),
                format!("{command}\"}}"),
            )
        } else {
            (
                call("read_file", json!({ "path": file })),
                format!("{file}\"}}"),
            )
        };
        let (found_met, cause) = verdicts[k];
        script = script
            .role(
                Role::Executor,
                [
                    Step::reply(finish(
                        "completed",
                        "Q3: see the archive",
                        "Read the notes.",
                    ))
                    .when(called)
                    .latency_ms(latency_ms[k]),
                    Step::reply(read).when(intent),
                ],
            )
            .role(
                Role::AgentValidator,
                [Step::reply(judged(
                    &[
                        (FOUND, found_met, "read_file returned notes.txt"),
                        (QUOTED, quoted == Some(k), "the notes' figure"),
                    ],
                    cause,
                    "No figure in the notes.",
                    "Look elsewhere.",
                ))
                .when(intent)],
            );
    }
    script.role(
        Role::MetaValidator,
        [Step::reply(merge(
            json!(REVENUE),
            &[(TASK_CRITERION, true, "the merged answer gives it")],
            "The Q3 revenue was found in the notes.",
        ))],
    )
}

const REVENUE: &str = "Q3 revenue: 4.2M";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loss_that_worsens_on_two_rounds_in_a_row_trips_the_law2_kill_switch() {
    // D: ½ (environmental) → ½ (logical: P jumps) → 1 (logical): ∇L > ε twice.
    let script = rounds(
        [
            (true, "environmental"),
            (true, "logical"),
            (false, "logical"),
        ],
        [0; 3],
    );
    let mut stage = Stage::configured(script, |c| {
        c.budgets.max_retries = 0;
    })
    .await;
    for k in 0..3 {
        std::fs::write(
            stage.workspace.join(format!("notes{k}.txt")),
            "Q3: see the archive",
        )
        .expect("notes");
    }
    let (task, end) = stage.run("what was the Q3 revenue?").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_eq!(
        result.directive,
        TerminalDirective::Abandon,
        "{result:?}\n{}",
        stage.transcript().join("\n")
    );
    assert!(
        result.summary.contains("Law 2"),
        "the kill-switch, not a budget, ended it: {}",
        result.summary
    );
    assert!(result.grad_l > 0.1, "{result:?}");
    assert!(result.loss.omega < 0.8, "not budget pressure: {result:?}");
    assert_eq!(result.replans, 2);
    assert!(result.output.is_null());
    assert_eq!(result.next_moves, MOVES);
    let grads: Vec<f64> = stage
        .of(&task, MessageKind::PlanDirective)
        .iter()
        .filter_map(|e| match &e.message {
            Message::PlanDirective(d) => Some(d.grad_l),
            _ => None,
        })
        .collect();
    assert_eq!(grads.len(), 2, "two replans before the stop");
    assert!(
        grads[1] > 0.1,
        "the second round already worsened: {grads:?}"
    );
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_budget_abandons_on_budget_pressure_before_another_replan() {
    // Ω = w1·replans/maxReplans + w2·elapsed/budget: after one replan of one, with more
    // than half the time budget spent, Ω ≥ θ = 0.8.
    let script = rounds(
        [(true, "logical"), (true, "logical"), (true, "logical")],
        [1_200, 0, 0],
    );
    let mut stage = Stage::configured(script, |c| {
        c.budgets.max_retries = 0;
        c.budgets.max_replans = 1;
        c.budgets.time_budget_ms = Some(2_000);
    })
    .await;
    for k in 0..3 {
        std::fs::write(
            stage.workspace.join(format!("notes{k}.txt")),
            "Q3: see the archive",
        )
        .expect("notes");
    }
    let (task, end) = stage.run("what was the Q3 revenue?").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_eq!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert!(result.loss.omega >= 0.8, "{result:?}");
    assert!(
        result.summary.contains("budget ran out"),
        "budget pressure ended it: {}",
        result.summary
    );
    assert!(result.output.is_null());
    assert_eq!(result.next_moves, MOVES);
    assert_eq!(result.replans, 1);
    assert_eq!(stage.count(&task, MessageKind::PlanDirective), 1);
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_within_delta_is_delivered_even_after_two_worsening_rounds() {
    // Ω dominates the loss (λ = 1, small α and β) and each replan adds 0.3 to it, so L
    // rises on every round — also on the third, where the figure is quoted and D = 0.
    // Success within δ (with Ω < θ) is decided before the kill-switch is consulted.
    let script = rounds_quoting(
        [(true, "logical"), (true, "logical"), (true, "logical")],
        [0; 3],
        Some(2),
    );
    let mut stage = Stage::configured(script, |c| {
        c.budgets.max_retries = 0;
        c.budgets.max_replans = 2;
        c.ggs.alpha = 0.05;
        c.ggs.beta = 0.05;
        c.ggs.lambda = 1.0;
    })
    .await;
    for k in 0..2 {
        std::fs::write(
            stage.workspace.join(format!("notes{k}.txt")),
            "Q3: see the archive",
        )
        .expect("notes");
    }
    std::fs::write(stage.workspace.join("notes2.txt"), REVENUE).expect("notes");
    let (task, end) = stage.run("what was the Q3 revenue?").await;
    let result = final_result(&end);
    stage.settle().await;

    let grads: Vec<f64> = stage
        .all(&task, super::pick!(Message::PlanDirective))
        .iter()
        .map(|d| d.grad_l)
        .collect();
    assert_eq!(grads.len(), 2, "{}", stage.transcript().join("\n"));
    assert!(grads[1] > 0.1, "the second round worsened: {grads:?}");
    assert!(
        result.grad_l > 0.1,
        "and the third: a kill-switch streak of two ({result:?})"
    );
    assert!(result.loss.omega < 0.8, "{result:?}");
    assert_ne!(
        result.directive,
        TerminalDirective::Abandon,
        "D = 0 ≤ δ delivers, whatever ∇L: {result:?}"
    );
    assert!(!result.summary.contains("Law 2"), "{}", result.summary);
    // The last round's lone sub-task's own output (R4b judged it; its retelling is not
    // delivered).
    assert_eq!(result.output, json!("Q3: see the archive"));
    let writes = stage.all(&task, super::pick!(Message::Megram));
    assert!(
        writes
            .iter()
            .all(|w| w.megram.state != MegramOrigin::Abandon),
        "no abandon Megram for a round within δ: {writes:?}"
    );
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}
