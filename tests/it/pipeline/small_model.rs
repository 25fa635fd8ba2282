//! The rules that keep a small real model from looping or stalling, each as a scripted
//! scenario through the whole runtime: the whole-task budget, no repeated calls, an
//! attempt that stops when it makes no progress, blocked targets that are only missing
//! resources, places resolved for the planner and the executor, a plan mended rather
//! than thrown away, the one-call answer, capped replies, the local server's prompt cache,
//! and a single sub-task's result accepted without a merge call.

use std::time::{Duration, Instant};

use artoo::contracts::{Message, MessageKind, Role, TerminalDirective};
use artoo::runtime::TaskEnd;
use artoo::testkit::{Script, Step};
use serde_json::json;

use super::replies::{Sub, call, finish, merge, perception, plan_for, verdicts};
use super::{Stage, final_result, mentions, pick};

const COUNT: &str = "the output gives the number of .txt files";

fn one_sub_plan(intent: &str, context: &str) -> String {
    plan_for(
        "number",
        &[],
        &[Sub::new(1, intent, &[COUNT]).context(context)],
    )
}

/// The script of a one-sub-task count of the `.txt` files in ~/notes whose validator
/// passes the count `2`; `executor` is what R3's model answers, turn by turn.
fn counting_notes(executor: impl IntoIterator<Item = Step>) -> Script {
    Script::new()
        .role(
            Role::Planner,
            [Step::reply(one_sub_plan(
                "Count the .txt files",
                "Folder: ~/notes",
            ))],
        )
        .role(Role::Executor, executor)
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(COUNT, true, "wc -l printed 2")]))],
        )
}

fn write_notes(stage: &Stage) {
    let notes = stage.home.join("notes");
    std::fs::create_dir_all(&notes).expect("notes");
    for f in ["a.txt", "b.txt", "c.md"] {
        std::fs::write(notes.join(f), "x\n").expect("write");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_budget_bounds_the_whole_task_from_submit_and_stops_its_work() {
    // The planner's model never answers: without a whole-task budget the task would wait
    // for the call timeout (and then replan).
    let script = Script::new().role(Role::Planner, [Step::hang()]);
    let mut stage = Stage::configured(script, |c| {
        c.budgets.time_budget_ms = Some(1_500);
        c.llm.call_timeout_secs = Some(60);
    })
    .await;
    let started = Instant::now();
    let (task, end) = stage.run("count the files in ~/notes").await;
    let took = started.elapsed();
    let result = final_result(&end);
    assert_eq!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert!(
        took >= Duration::from_millis(1_400) && took < Duration::from_secs(10),
        "the result comes at the budget, not later: {took:?}"
    );
    assert!(result.summary.contains("time budget"), "{}", result.summary);
    assert!(!result.next_moves.is_empty(), "{result:?}");
    stage.settle().await;
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    assert_eq!(
        stage.count(&task, MessageKind::DispatchManifest),
        0,
        "nothing of the task is planned after its end"
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_call_is_not_run_twice_and_its_result_ends_the_attempt() {
    let script = counting_notes([
        Step::reply(call(
            "shell",
            json!({"command": "ls ~/notes/*.txt | wc -l"}),
        )),
        // The same call again, with other spacing: it is not run, and the
        // attempt ends with the result the model already has.
        Step::reply(call(
            "shell",
            json!({"command": "ls  ~/notes/*.txt | wc -l "}),
        )),
    ]);
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let (task, end) = stage.run("how many .txt files are in ~/notes?").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_eq!(result.directive, TerminalDirective::Accept, "{result:?}");
    let calls = stage.all(&task, pick!(Message::ToolCallEvent));
    assert_eq!(calls.len(), 1, "the repeat never ran: {calls:?}");
    assert_eq!(stage.server.requests_from(Role::Executor).len(), 2);
    let results = stage.all(&task, pick!(Message::ExecutionResult));
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].output, "2", "the tool's own output, verbatim");
    assert_eq!(
        results[0].status,
        artoo::contracts::ExecutionStatus::Completed
    );
    assert_eq!(result.output, json!("2"));
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finish_that_misreads_the_number_a_tool_printed_gets_one_turn_to_correct_it() {
    let script = counting_notes([
        Step::reply(call(
            "shell",
            json!({"command": "ls ~/notes/*.txt | wc -l"}),
        )),
        // wc printed 2; a small model writes the result's index instead.
        Step::reply(finish("completed", "1", "Counted the files.")),
        Step::reply(finish("completed", "2", "Counted the files.")),
    ]);
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let (task, end) = stage.run("how many .txt files are in ~/notes?").await;
    let result = final_result(&end);
    stage.settle().await;
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 3, "one more turn, no more");
    assert!(
        mentions(&r3[2], "it states 1, which none of the TOOL RESULTS"),
        "the turn names the misread number"
    );
    assert!(
        !mentions(&r3[1], "which none of the TOOL RESULTS"),
        "no push-back before the finish"
    );
    let results = stage.all(&task, pick!(Message::ExecutionResult));
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].output, "2");
    assert_eq!(result.output, json!("2"));
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_worked_out_by_the_model_gets_a_step_for_code_to_work_it_out() {
    let script = counting_notes([
        Step::reply(call(
            "shell",
            json!({"command": "ls ~/notes/*.txt | wc -l"}),
        )),
        Step::reply(call("shell", json!({"command": "ls ~/old/*.txt | wc -l"}))),
        // 2 and 3 printed; the model adds them up itself.
        Step::reply(finish("completed", "5", "Counted the files.")),
        Step::reply(call("calculate", json!({"expression": "2 + 3"}))),
        Step::reply(finish("completed", "5", "Counted the files.")),
    ]);
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let old = stage.home.join("old");
    std::fs::create_dir_all(&old).expect("old");
    for f in ["d.txt", "e.txt", "f.txt"] {
        std::fs::write(old.join(f), "x\n").expect("write");
    }
    let (task, end) = stage
        .run("how many .txt files are in ~/notes and ~/old together?")
        .await;
    let result = final_result(&end);
    stage.settle().await;
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 5, "one more step for the calculation, no more");
    assert!(
        mentions(&r3[3], "it states 5, which none of the TOOL RESULTS")
            && mentions(&r3[3], "call calculate with that expression"),
        "the turn offers code's arithmetic"
    );
    let calls = stage.all(&task, pick!(Message::ToolCallEvent));
    assert_eq!(
        calls.last().map(|c| c.record.output_head.trim()),
        Some("2 + 3 = 5"),
        "{calls:?}"
    );
    let results = stage.all(&task, pick!(Message::ExecutionResult));
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].output, "5");
    assert_eq!(result.directive, TerminalDirective::Accept, "{result:?}");
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finish_that_copies_a_result_a_later_call_superseded_gets_one_turn_to_correct_it() {
    let script = counting_notes([
        // A first try that finds nothing, in words.
        Step::reply(call(
            "shell",
            json!({"command": "ls ~/notes/*.text 2>/dev/null || echo 'no files match *.text in notes'"}),
        )),
        Step::reply(call(
            "shell",
            json!({"command": "ls ~/notes/*.txt | wc -l"}),
        )),
        // A small model copies the first result it saw, not the count.
        Step::reply(finish(
            "completed",
            "no files match *.text in notes",
            "Counted the files.",
        )),
        Step::reply(finish("completed", "2", "Counted the files.")),
    ]);
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let (task, end) = stage.run("how many .txt files are in ~/notes?").await;
    let result = final_result(&end);
    stage.settle().await;
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 4, "one more turn, no more");
    assert!(
        mentions(
            &r3[3],
            "it repeats TOOL RESULT [1], but a later call, [2], returned:\n2\n"
        ),
        "the turn names the superseded result: {:?}",
        r3[3].messages().last()
    );
    assert!(
        !mentions(&r3[2], "Your finish was not accepted"),
        "no push-back before the finish"
    );
    let results = stage.all(&task, pick!(Message::ExecutionResult));
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].output, "2");
    assert_eq!(result.output, json!("2"));
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finish_that_never_wrote_the_file_the_sub_task_names_gets_one_more_turn_to_write_it() {
    const WRITTEN: &str = "summary.txt holds a summary of the note";
    let script = Script::new()
        .role(
            Role::Planner,
            [Step::reply(plan_for(
                "file",
                &[],
                &[Sub::new(
                    1,
                    "Write a short summary of ~/notes/a.txt into summary.txt in the workspace",
                    &[WRITTEN],
                )],
            ))],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                WRITTEN,
                true,
                "write_file wrote summary.txt",
            )]))],
        );
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let note = stage.home.join("notes/a.txt").display().to_string();
    let summary = stage.workspace.join("summary.txt");
    stage.server.push(
        Role::Executor,
        [
            Step::reply(call("read_file", json!({"path": note}))),
            // A small model reads the note and finishes with its text.
            Step::reply(finish("completed", "x", "Read the note.")),
            Step::reply(call(
                "write_file",
                json!({"path": summary.display().to_string(), "content": "The note says x."}),
            )),
            Step::reply(finish(
                "completed",
                "wrote summary.txt",
                "Wrote the summary.",
            )),
        ],
    );
    let (_task, end) = stage
        .run("write a short summary of ~/notes/a.txt into a new file summary.txt in my workspace")
        .await;
    let result = final_result(&end);
    stage.settle().await;
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 4, "one more turn, then the write and the finish");
    assert!(
        mentions(
            &r3[2],
            "the sub-task names summary.txt, and no call of this attempt looked"
        ),
        "the turn names the untouched file"
    );
    assert_eq!(
        std::fs::read_to_string(&summary).expect("the summary was written"),
        "The note says x."
    );
    assert_eq!(result.directive, TerminalDirective::Accept, "{result:?}");
    // The result accounts for the file the task made, measured from the call.
    assert_eq!(
        result
            .effects
            .iter()
            .map(|e| (e.effect.as_str(), e.path.clone(), e.exists))
            .collect::<Vec<_>>(),
        [("create", summary.clone(), false)]
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attempt_whose_calls_keep_failing_is_made_to_finish_early() {
    let script = Script::new()
        .role(
            Role::Planner,
            [Step::reply(one_sub_plan(
                "Read the notes",
                "Folder: ~/notes",
            ))],
        )
        .role(
            Role::Executor,
            [
                Step::reply(call("read_file", json!({"path": "~/notes/x1.txt"}))),
                Step::reply(call("read_file", json!({"path": "~/notes/x2.txt"}))),
                Step::reply(call("read_file", json!({"path": "~/notes/x3.txt"}))),
                Step::reply(finish("failed", "", "None of the files exist.")),
            ],
        );
    let mut stage = Stage::configured(script, |c| c.budgets.max_retries = 0).await;
    write_notes(&stage);
    let (task, end) = stage.run("read the x files in ~/notes").await;
    stage.settle().await;
    let _ = final_result(&end);
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 4, "three failed calls, then the forced finish");
    assert_eq!(
        r3[3].body["response_format"]["json_schema"]["name"],
        "FinishStep"
    );
    assert!(super::mentions(&r3[3], "The last 3 calls failed"));
    let results = stage.all(&task, pick!(Message::ExecutionResult));
    assert_eq!(results.len(), 1);
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_and_the_executor_see_the_places_a_request_names() {
    let script = Script::new()
        .role(
            Role::Planner,
            [Step::reply(one_sub_plan(
                "Count the .txt files in the notes folder",
                "the notes folder",
            ))],
        )
        .role(
            Role::Executor,
            [
                // No root: the glob is rooted in the sub-task's folder, not the workspace.
                Step::reply(call("glob", json!({"pattern": "*.txt"}))),
                // A guessed home reads as the real one.
                Step::reply(call("read_file", json!({"path": "/home/user/notes/a.txt"}))),
                Step::reply(finish("completed", "2", "2 .txt files.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                COUNT,
                true,
                "glob listed a.txt and b.txt",
            )]))],
        );
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let notes = stage.home.join("notes");
    let (task, end) = stage
        .run("how many .txt files are in the notes folder in my home directory?")
        .await;
    let _ = final_result(&end);
    stage.settle().await;
    let place = format!("- notes → {} (folder)", notes.display());
    assert!(
        !stage.requests_containing(Role::Planner, &place).is_empty(),
        "R2 is told where the notes folder is"
    );
    assert!(!stage.requests_containing(Role::Executor, &place).is_empty());
    let calls = stage.all(&task, pick!(Message::ToolCallEvent));
    assert_eq!(
        calls[0].record.status,
        artoo::contracts::ToolCallStatus::Ok,
        "{calls:?}"
    );
    assert!(calls[0].record.output_head.contains("a.txt"), "{calls:?}");
    assert_eq!(
        calls[1].record.status,
        artoo::contracts::ToolCallStatus::Ok,
        "{calls:?}"
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_the_validator_still_rejects_after_the_re_ask_is_mended_not_abandoned() {
    let pasted = plan_for(
        "number",
        &[],
        &[Sub::new(
            1,
            "Count the .txt files",
            &["the output gives the total size of /home/ana/Music"],
        )],
    );
    let script = Script::new()
        .role(
            Role::Planner,
            [Step::reply(pasted.clone()), Step::reply(pasted)],
        )
        .role(
            Role::Executor,
            [
                Step::reply(call(
                    "shell",
                    json!({"command": "ls ~/notes/*.txt | wc -l"}),
                )),
                Step::reply(finish("completed", "2", "2 files.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                "the output answers: Count the .txt files",
                true,
                "wc printed 2",
            )]))],
        );
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let (task, end) = stage.run("count the .txt files in ~/notes").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_eq!(
        stage.server.requests_from(Role::Planner).len(),
        2,
        "one re-ask"
    );
    let subtasks = stage.all(&task, pick!(Message::SubTask));
    let criteria: Vec<&str> = subtasks[0]
        .success_criteria
        .iter()
        .map(|c| c.criterion.as_str())
        .collect();
    assert_eq!(criteria, ["the output answers: Count the .txt files"]);
    assert_eq!(result.directive, TerminalDirective::Accept, "{result:?}");
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_no_tool_needs_is_answered_in_one_call_with_code_computed_numbers() {
    let script = Script::new().role(
        Role::Perceiver,
        [Step::reply(perception(
            "chat",
            "Compute 37 * 41",
            None,
            Some("37 * 41 = 1517"),
        ))],
    );
    let mut stage = Stage::new(script).await;
    let (task, end) = stage.run("what is 37 * 41?").await;
    assert!(
        matches!(&end, TaskEnd::Chat(a) if a.contains("1517")),
        "{end:?}"
    );
    stage.settle().await;
    assert_eq!(stage.llm_calls(&task, Role::Perceiver), 1);
    assert_eq!(stage.count(&task, MessageKind::TaskSpec), 0);
    assert!(
        !stage
            .requests_containing(Role::Perceiver, "Computed by code: 37 * 41 = 1517")
            .is_empty()
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_naming_what_to_act_on_needs_no_perception_call() {
    let script = Script::new()
        .role(
            Role::Planner,
            [Step::reply(one_sub_plan("Count", "Folder: ~/notes"))],
        )
        .role(
            Role::Executor,
            [
                Step::reply(call(
                    "shell",
                    json!({"command": "ls ~/notes/*.txt | wc -l"}),
                )),
                Step::reply(finish("completed", "2", "2 files.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(COUNT, true, "2")]))],
        );
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let (task, end) = stage.run("count the  .txt files in ~/notes").await;
    let _ = final_result(&end);
    stage.settle().await;
    assert_eq!(stage.llm_calls(&task, Role::Perceiver), 0);
    let specs = stage.all(&task, pick!(Message::TaskSpec));
    assert_eq!(
        specs[0].intent, "count the .txt files in ~/notes",
        "the user's own words"
    );
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_cut_at_its_cap_is_re_asked_once_and_then_fails_in_plain_words() {
    let cut = r#"{"subtasks":[{"context":"Folder: ~/notes","intent":"Count the files and count them and count"#;
    let script = Script::new().role(
        Role::Planner,
        [
            Step::reply(cut).finish_reason("length"),
            Step::reply(cut).finish_reason("length"),
        ],
    );
    let mut stage = Stage::new(script).await;
    let (_task, end) = stage.run("count the files in ~/notes").await;
    let result = final_result(&end);
    stage.settle().await;
    let r2 = stage.server.requests_from(Role::Planner);
    // The plan's calls; R2's graceful-failure call for the abandon comes after them.
    let plans: Vec<_> = r2
        .iter()
        .filter(|r| !super::mentions(r, "Why it was abandoned"))
        .collect();
    assert_eq!(plans.len(), 2, "one re-ask");
    assert!(
        super::mentions(plans[1], "cut off"),
        "{:?}",
        plans[1].messages()
    );
    for r in &r2 {
        let cap = r.body["max_tokens"].as_u64().expect("every call is capped");
        assert!(cap > 0 && cap <= 1_000, "{cap}");
    }
    assert_eq!(result.directive, TerminalDirective::Abandon);
    assert!(
        result.summary.contains("ran on too long"),
        "{}",
        result.summary
    );
    assert!(!result.summary.contains("HTTP"), "{}", result.summary);
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_llama_server_is_asked_to_keep_each_roles_prompt_cache_in_its_own_slot() {
    let script = Script::new()
        .llama_server(8)
        .role(
            Role::Planner,
            [Step::reply(one_sub_plan("Count", "Folder: ~/notes"))],
        )
        .role(
            Role::Executor,
            [
                Step::reply(call(
                    "shell",
                    json!({"command": "ls ~/notes/*.txt | wc -l"}),
                )),
                Step::reply(finish("completed", "2", "2 files.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(COUNT, true, "2")]))],
        );
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let (_task, end) = stage.run("count the .txt files in ~/notes").await;
    let _ = final_result(&end);
    let slot = |role: Role| {
        let reqs = stage.server.requests_from(role);
        assert!(
            reqs.iter().all(|r| r.body["cache_prompt"] == true),
            "{role}"
        );
        reqs[0].body["id_slot"].as_u64().expect("a slot")
    };
    let (r2, r3, r4a) = (
        slot(Role::Planner),
        slot(Role::Executor),
        slot(Role::AgentValidator),
    );
    assert!(r2 != r3 && r3 != r4a && r2 != r4a, "{r2} {r3} {r4a}");
    let r3_slots: Vec<_> = stage
        .server
        .requests_from(Role::Executor)
        .iter()
        .map(|r| r.body["id_slot"].clone())
        .collect();
    assert!(
        r3_slots.windows(2).all(|w| w[0] == w[1]),
        "a role keeps its slot"
    );
    stage.stop().await;

    // Any other server gets plain requests.
    let script = Script::new()
        .role(
            Role::Planner,
            [Step::reply(one_sub_plan("Count", "Folder: ~/notes"))],
        )
        .role(
            Role::Executor,
            [
                Step::reply(call(
                    "shell",
                    json!({"command": "ls ~/notes/*.txt | wc -l"}),
                )),
                Step::reply(finish("completed", "2", "2 files.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(COUNT, true, "2")]))],
        );
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let (_task, end) = stage.run("count the .txt files in ~/notes").await;
    let _ = final_result(&end);
    for r in stage.server.requests_from(Role::Planner) {
        assert!(r.body.get("cache_prompt").is_none() && r.body.get("id_slot").is_none());
    }
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_matched_sub_task_whose_answer_code_verified_is_the_result_without_a_merge_call() {
    // The plan asks for a number and the finish is one: code verified the task's answer.
    let mut planned: serde_json::Value =
        serde_json::from_str(&one_sub_plan("Count", "Folder: ~/notes")).expect("a plan");
    planned["answer"] = json!("number");
    let script = Script::new()
        .role(Role::Planner, [Step::reply(planned.to_string())])
        .role(
            Role::Executor,
            [
                Step::reply(call(
                    "shell",
                    json!({"command": "ls ~/notes/*.txt | wc -l"}),
                )),
                Step::reply(finish("completed", "2", "2 files.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(COUNT, true, "wc printed 2")]))],
        )
        // Never used: a merge call would take this and fail the assertion below.
        .role(
            Role::MetaValidator,
            [Step::reply(merge(json!("3"), &[("x", true, "y")], "wrong"))],
        );
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let (task, end) = stage.run("count the .txt files in ~/notes").await;
    let result = final_result(&end);
    stage.settle().await;
    assert_eq!(stage.llm_calls(&task, Role::MetaValidator), 0);
    assert_eq!(result.output, json!("2"));
    assert_eq!(result.directive, TerminalDirective::Accept);
    stage.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finish_that_copies_a_listing_where_the_plan_asks_for_a_number_gets_one_more_turn() {
    let mut planned: serde_json::Value =
        serde_json::from_str(&one_sub_plan("Count the .txt files", "Folder: ~/notes"))
            .expect("a plan");
    planned["answer"] = json!("number");
    let script = Script::new()
        .role(Role::Planner, [Step::reply(planned.to_string())])
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                COUNT,
                true,
                "the listing shows 2 .txt files",
            )]))],
        );
    let mut stage = Stage::new(script).await;
    write_notes(&stage);
    let notes = stage.home.join("notes").display().to_string();
    stage.server.push(
        Role::Executor,
        [
            Step::reply(call(
                "list_files",
                json!({"folder": notes, "pattern": "*.txt"}),
            )),
            // A small model copies the tool's whole output as its answer.
            Step::reply(finish(
                "completed",
                "~/notes (not recursive), files matching *.txt: 2 found\na.txt\t2 B\nb.txt\t2 B\ntotal: 2 files, 4 bytes (4 B)",
                "Listed the notes.",
            )),
            Step::reply(finish("completed", "2", "2 .txt files in ~/notes.")),
        ],
    );
    let (task, end) = stage.run("how many .txt files are in ~/notes?").await;
    let result = final_result(&end);
    stage.settle().await;
    let r3 = stage.server.requests_from(Role::Executor);
    assert_eq!(r3.len(), 3, "the listing, the copied finish, the answer");
    assert!(
        mentions(&r3[0], "THE ANSWER IN output: one number"),
        "the executor is told the answer's shape"
    );
    assert!(
        mentions(&r3[2], "is a copy of a tool's output"),
        "the turn says the finish copied a listing"
    );
    let results = stage.all(&task, pick!(Message::ExecutionResult));
    assert_eq!(results[0].output, "2");
    assert_eq!(result.output, json!("2"));
    stage.stop().await;
}
