//! A whole task through the runtime whose executor uses a tool of a real MCP server
//! (`@modelcontextprotocol/server-filesystem` over stdio, rooted in the workspace): the
//! tool is in R3's prompt and step schema, its call and result are tool-call records on
//! the bus, R4a judges them; a destructive MCP call asks and, denied, changes nothing.

use artoo::contracts::{
    ConfirmationRequest, Decision, Message, MessageKind, Role, TaskId, TerminalDirective,
    ToolCallStatus,
};
use artoo::laws::LAW1_PREFIX;
use artoo::testkit::{Script, Step};
use artoo::tools::ToolRef;
use serde_json::json;

use super::replies::{Sub, call, finish, merge, plan, task, verdicts};
use super::{Stage, final_result, mentions};
use crate::mcp::filesystem_server;
use artoo::runtime::TaskEnd;

const CRITERION: &str = "the listing names groceries.txt";
const TASK_CRITERION: &str = "the user learns which files are in the workspace";

fn list_script(path: &str) -> Script {
    Script::new()
        .role(
            Role::Perceiver,
            [Step::reply(task("List the files in the workspace"))],
        )
        .role(
            Role::Planner,
            [Step::reply(plan(
                &[TASK_CRITERION],
                &[Sub::new(
                    1,
                    "List the files in the workspace folder",
                    &[CRITERION],
                )],
            ))],
        )
        .role(
            Role::Executor,
            [
                Step::reply(call("files.list_directory", json!({ "path": path }))),
                Step::reply(finish(
                    "completed",
                    "groceries.txt",
                    "Listed the workspace.",
                )),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                CRITERION,
                true,
                "files.list_directory printed [FILE] groceries.txt",
            )]))],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                json!({"files": ["groceries.txt"]}),
                &[(TASK_CRITERION, true, "files: groceries.txt")],
                "The workspace holds groceries.txt.",
            ))],
        )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_task_uses_a_tool_of_a_real_mcp_server() {
    let root = tempfile::tempdir().expect("temp dir");
    let workspace = root.path().canonicalize().expect("real path");
    std::fs::write(workspace.join("groceries.txt"), "milk").expect("file");
    let path = workspace.to_string_lossy().to_string();
    let mut stage = Stage::configured(list_script(&path), |c| {
        c.mcp
            .servers
            .insert("files".into(), filesystem_server(&workspace));
    })
    .await;
    let status = stage.runtime.mcp_status();
    assert!(status[0].connected, "{status:?}");

    // The tool's first call asks (what the server says is a hint until approved).
    let (task, end, asked) = run_answering(
        &mut stage,
        "which files are in my workspace?",
        Decision::Approve,
    )
    .await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].description.contains("has not run this tool"),
        "{}",
        asked[0].description
    );
    let result = final_result(&end);
    assert_ne!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert_eq!(result.output, json!("groceries.txt"));

    // The call is a tool-call record like any other, with the server's real output.
    let calls = stage.of(&task, MessageKind::ToolCallEvent);
    assert_eq!(calls.len(), 1, "{}", stage.transcript().join("\n"));
    let Message::ToolCallEvent(event) = &calls[0].message else {
        unreachable!()
    };
    assert_eq!(event.record.tool, ToolRef::parse("files.list_directory"));
    assert_eq!(event.record.status, ToolCallStatus::Ok);
    assert!(
        event.record.output_head.contains("[FILE] groceries.txt"),
        "{}",
        event.record.output_head
    );
    assert_eq!(event.record.confirmation, Some(Decision::Approve));
    // R4a judged that record (grounding like every other tool).
    let results = stage.all(&task, super::pick!(Message::ExecutionResult));
    assert_eq!(results[0].tool_calls, std::slice::from_ref(&event.record));

    // R3's prompt lists the tool and its step schema offers it.
    let requests = stage.server.requests();
    let executor = requests
        .iter()
        .find(|r| r.role.as_deref() == Some(Role::Executor.short()))
        .expect("an executor call");
    assert!(mentions(executor, "files.list_directory"), "in the prompt");
    assert!(
        executor
            .body
            .to_string()
            .contains("\"const\":\"files.list_directory\""),
        "in the step schema"
    );
    stage.stop().await;
}

const WRITE_CRITERION: &str = "notes.txt now says gone";

fn overwrite_script(path: &str) -> Script {
    Script::new()
        .role(Role::Perceiver, [Step::reply(task("Overwrite notes.txt"))])
        .role(
            Role::Planner,
            [Step::reply(plan(
                &["notes.txt was overwritten"],
                &[Sub::new(
                    1,
                    "Overwrite notes.txt in the workspace",
                    &[WRITE_CRITERION],
                )],
            ))],
        )
        .role(
            Role::Executor,
            [
                Step::reply(finish("failed", "", "The user did not allow it."))
                    .when("The user denied it"),
                Step::reply(call(
                    "files.write_file",
                    json!({ "path": path, "content": "gone" }),
                )),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(WRITE_CRITERION, false, "denied")]))],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(json!(null), &[], "Nothing was done."))],
        )
        .cycle()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_mcp_call_in_a_task_asks_and_denied_changes_nothing() {
    let root = tempfile::tempdir().expect("temp dir");
    let workspace = root.path().canonicalize().expect("real path");
    let notes = workspace.join("notes.txt");
    std::fs::write(&notes, "keep me").expect("file");
    let mut stage = Stage::configured(overwrite_script(&notes.to_string_lossy()), |c| {
        c.mcp
            .servers
            .insert("files".into(), filesystem_server(&workspace));
    })
    .await;
    let (task, end, answered) =
        run_answering(&mut stage, "overwrite notes.txt", Decision::Deny).await;
    for request in &answered {
        assert_eq!(request.tool, ToolRef::parse("files.write_file"));
        assert!(request.grant.is_some(), "always is offered for an MCP tool");
    }
    let result = final_result(&end);
    assert!(!answered.is_empty(), "the destructive call asked");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me");
    assert_eq!(result.directive, TerminalDirective::Abandon);
    assert!(
        result.summary.starts_with(LAW1_PREFIX),
        "{}",
        result.summary
    );
    // The first call was asked and denied; the replans' repeats are refused in code
    // (the denied target is blocked for the task). None ran.
    let events = stage.all(&task, super::pick!(Message::ToolCallEvent));
    assert_eq!(events[0].record.tool, ToolRef::parse("files.write_file"));
    assert_eq!(events[0].record.status, ToolCallStatus::Denied);
    assert!(
        events.iter().all(|e| e.record.status != ToolCallStatus::Ok),
        "{events:?}"
    );
    stage.stop().await;
}

/// Runs `text` to its end, answering every confirmation it asks with `decision`; the
/// task, its end and what was asked.
async fn run_answering(
    stage: &mut Stage,
    text: &str,
    decision: Decision,
) -> (TaskId, TaskEnd, Vec<ConfirmationRequest>) {
    let task = stage.runtime.submit(text).expect("submitted");
    let deadline = tokio::time::Instant::now() + super::SCENARIO_TIMEOUT;
    let mut answered: Vec<ConfirmationRequest> = Vec::new();
    while stage.runtime.running_tasks().contains(&task) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task did not end"
        );
        for request in stage.runtime.open_confirmations() {
            if answered.iter().any(|a| a.request_id == request.request_id) {
                continue;
            }
            stage
                .runtime
                .answer_confirmation(request.request_id, decision)
                .await
                .expect("open");
            answered.push(request);
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let end = stage.finish(&task).await;
    (task, end, answered)
}
