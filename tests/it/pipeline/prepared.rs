//! A prepared model: every role's instructions are in a snapshot before the first task,
//! so no call of a task evaluates them again, and the task's budget follows the speed
//! the preparation measured.

use std::time::Duration;

use artoo::contracts::Role;
use artoo::runtime::TaskEnd;
use artoo::testkit::{RecordedRequest, Script, Step};

use super::Stage;
use super::replies::{counting_three_files, perception};

/// Requests that evaluate instructions (a llama-server call that generates nothing).
fn evaluations(requests: &[RecordedRequest]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions") && r.body["max_tokens"] == 0)
        .map(|r| r.messages()[0].1.chars().take(80).collect())
        .collect()
}

/// The one-sub-task happy path, a perception and a greeting, on a llama-server of this
/// speed that keeps snapshots.
fn script(prompt_per_sec: f64, output_per_sec: f64) -> Script {
    let script = Script::new()
        .llama_server(1)
        .slot_save()
        .speed(prompt_per_sec, output_per_sec)
        .role(
            Role::Perceiver,
            [
                Step::reply("Hello! I'm artoo.").when("User: hello"),
                Step::reply(perception(
                    "task",
                    "Count the files in the workspace",
                    None,
                    None,
                )),
            ],
        );
    counting_three_files(script)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_preparing_no_call_of_a_task_evaluates_a_role_s_instructions_again() {
    let mut stage = Stage::new(script(50.0, 10.0)).await;
    for f in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(stage.workspace.join(f), "x").expect("write");
    }
    let steps = std::sync::Mutex::new(Vec::new());
    let readiness = stage
        .runtime
        .prepare_model(&|done, total| steps.lock().unwrap().push((done, total)))
        .await;
    let prepared = evaluations(&stage.server.requests());
    assert_eq!(
        readiness.snapshots,
        prepared.len(),
        "each instruction evaluated once: {prepared:#?}"
    );
    let total = readiness.snapshots;
    assert!(total >= 8, "every model role's instructions: {total}");
    assert_eq!(readiness.not_applicable, 0);
    let steps = steps.into_inner().unwrap();
    assert_eq!(steps.first(), Some(&(0, total)));
    assert_eq!(steps.last(), Some(&(total, total)));
    let seen = stage.server.requests().len();

    let (_, greeting) = stage.run("hello").await;
    assert!(matches!(greeting, TaskEnd::Chat(_)), "{greeting:?}");
    let (task, _) = stage.run_to_result("count the files in my workspace").await;
    for role in [
        Role::Perceiver,
        Role::Planner,
        Role::AgentValidator,
        Role::MetaValidator,
    ] {
        assert_eq!(stage.llm_calls(&task, role), 1, "{role} was called");
    }
    assert_eq!(
        stage.llm_calls(&task, Role::Executor),
        2,
        "a step and a finish"
    );
    assert_eq!(
        evaluations(&stage.server.requests()[seen..]),
        Vec::<String>::new(),
        "every call found its instructions prepared"
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_follows_the_speed_the_preparation_measured() {
    let budget_at = |prompt_per_sec: f64, output_per_sec: f64| async move {
        let stage = Stage::new(script(prompt_per_sec, output_per_sec)).await;
        let unmeasured = stage.runtime.task_budget();
        stage.runtime.prepare_model(&|_, _| {}).await;
        let budget = stage.runtime.task_budget();
        stage.stop().await;
        (unmeasured, budget)
    };
    let (unmeasured, here) = budget_at(50.0, 10.0).await;
    let (_, slow) = budget_at(50.0 / 3.0, 10.0 / 3.0).await;
    assert_eq!(unmeasured, artoo::llm::pace::BUDGET_UNMEASURED);
    let ratio = slow.as_secs_f64() / here.as_secs_f64();
    assert!(
        (ratio - 3.0).abs() < 0.05,
        "three times slower, three times the budget: {here:?} vs {slow:?}"
    );
    // A fixed budget in the settings wins over the measured speed.
    let fixed = Stage::configured(script(50.0 / 3.0, 10.0 / 3.0), |c| {
        c.budgets.time_budget_ms = Some(90_000);
    })
    .await;
    fixed.runtime.prepare_model(&|_, _| {}).await;
    assert_eq!(fixed.runtime.task_budget(), Duration::from_secs(90));
    fixed.stop().await;
}
