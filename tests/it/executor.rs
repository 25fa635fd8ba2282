//! R3 over a real bus with the real dispatcher, the real R4a and the real toolbox on
//! temp dirs; both models are scripted over real HTTP. The test plays R2 (publishes the
//! plan) and the user (confirmations, cancellation), and reads R4b's inbox and a tap.

use artoo::tools::ToolName;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use artoo::bus::{Envelope, Inbox, Tap, TapEvent};
use artoo::config::Config;
use artoo::contracts::*;
use artoo::laws::{ConfirmationPolicy, ConfirmationResponder};
use artoo::roles::agent_validator::AgentValidator;
use artoo::roles::dispatcher::PRIOR_OUTPUTS_HEADING;
use artoo::roles::executor::Executor;
use artoo::roles::executor::worker::UNBACKED_PREFIX;
use artoo::testkit::{Script, Step};
use serde_json::{Value, json};

use super::dispatcher::{Rig, fail_for, manifest, pass_for, r4b_next, subtask};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// R3's reply calling one tool.
fn tool(name: &str, input: Value) -> Step {
    Step::reply(
        json!({"evidence": "as shown", "next": "call_tool", "tool": name, "tool_input": input})
            .to_string(),
    )
}

fn shell(command: &str) -> Step {
    tool("shell", json!({ "command": command }))
}

/// R3's reply finishing the attempt.
fn finish(status: &str, output: &str, summary: &str) -> Step {
    Step::reply(
        json!({"evidence": "[1] as shown", "next": "finish", "output": output,
               "status": status, "summary": summary})
        .to_string(),
    )
}

/// The roles of the effectors side, running: dispatcher, R4a and R3.
struct Effectors {
    rig: Rig,
    r4b: Inbox,
    tap: Tap,
    /// A folder inside the temp dirs for the tools to work on.
    dir: PathBuf,
}

async fn effectors(script: Script, tweak: impl FnOnce(&mut Config)) -> Effectors {
    let rig = Rig::with(script, tweak).await;
    std::fs::create_dir_all(&rig.config.workspace).expect("workspace");
    let dir = rig.config.workspace.join("files");
    std::fs::create_dir_all(&dir).expect("files dir");
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(dir.join(name), name).expect("file");
    }
    let r4b = rig.bus.subscribe(Role::MetaValidator);
    let tap = rig.bus.tap("executor-test", 10_000);
    spawn_roles(&rig, rig.agent_validator());
    Effectors { rig, r4b, tap, dir }
}

/// The effectors with an R4a that passes the sub-task (`intent`, its one `criterion`).
async fn passing(intent: &str, criterion: &str) -> Effectors {
    effectors(
        Script::new().role(Role::AgentValidator, [pass_for(intent, criterion)]),
        |_| {},
    )
    .await
}

/// Starts the dispatcher, `r4a` and R3 on the rig's bus.
fn spawn_roles(rig: &Rig, r4a: AgentValidator) {
    spawn_roles_with(rig, r4a, |r3| r3);
}

fn spawn_roles_with(rig: &Rig, r4a: AgentValidator, tweak: impl FnOnce(Executor) -> Executor) {
    let dispatcher = rig.dispatcher();
    dispatcher.spawn();
    r4a.spawn();
    let r3 = Executor::new(
        Arc::new(rig.config.clone()),
        &rig.bus,
        &rig.llm,
        rig.registry.clone(),
        rig.clock.clone(),
    )
    .expect("R3 runs on the tool tier");
    tweak(r3).spawn();
}

impl Effectors {
    fn plan(&self, subtasks: &[&SubTask]) {
        let task = &subtasks[0].parent_task_id;
        let r2 = self.rig.bus.handle(Role::Planner);
        r2.publish(Role::Dispatcher, manifest(task, 0, subtasks, &["done"]));
        for s in subtasks {
            r2.publish(Role::Dispatcher, (*s).clone());
        }
    }

    /// The next `SubTaskOutcome` R4b receives.
    async fn outcome(&mut self) -> SubTaskOutcome {
        loop {
            let env = r4b_next(&mut self.r4b).await;
            if let Message::SubTaskOutcome(o) = &env.message {
                return o.clone();
            }
        }
    }

    /// Every envelope on the bus so far.
    fn seen(&mut self) -> Vec<Arc<Envelope>> {
        let mut out = Vec::new();
        while let Some(event) = self.tap.try_recv() {
            if let TapEvent::Message(env) = event {
                out.push(env);
            }
        }
        out
    }

    /// The user prompt of every R3 model request, in order.
    fn r3_prompts(&self) -> Vec<String> {
        self.rig
            .server
            .requests_from(Role::Executor)
            .iter()
            .map(|r| {
                r.messages()
                    .into_iter()
                    .filter(|(role, _)| role == "user")
                    .map(|(_, content)| content)
                    .next_back()
                    .unwrap_or_default()
            })
            .collect()
    }
}

fn results(seen: &[Arc<Envelope>]) -> Vec<ExecutionResult> {
    seen.iter()
        .filter_map(|e| match &e.message {
            Message::ExecutionResult(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// R4a's replies to a sub-task (`intent`, its one `criterion`): a logical failure with
/// `evidence`, what was wrong and what to do, then a pass.
fn corrected_once(
    (intent, criterion): (&str, &str),
    evidence: &str,
    wrong: &str,
    to_do: &str,
) -> Script {
    Script::new().role(
        Role::AgentValidator,
        [
            Step::reply(super::dispatcher::verdict(
                vec![super::dispatcher::judged(
                    criterion,
                    false,
                    evidence,
                    Some("logical"),
                )],
                wrong,
                to_do,
            )),
            pass_for(intent, criterion),
        ],
    )
}

fn task_subtask(dir: &Path, intent: &str, criterion: &str) -> SubTask {
    let mut s = subtask(&TaskId::mint(), 1, intent, &[criterion]);
    s.context = format!("The folder is {}.", dir.display());
    s
}

// ---------------------------------------------------------------------------------------
// The tool loop
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn one_tool_call_then_a_finish_reaches_the_validator_with_its_record() {
    let intent = "list the files";
    let criterion = "the output names a.txt, b.txt and c.txt";
    let mut fx = passing(intent, criterion).await;
    let ls = format!("ls -1 {}", fx.dir.display());
    fx.rig.server.push(
        Role::Executor,
        [
            shell(&ls),
            finish("completed", "a.txt\nb.txt\nc.txt", "Listed 3 files."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched);
    assert_eq!(outcome.output, json!("a.txt\nb.txt\nc.txt"));
    let sent = results(&fx.seen());
    assert_eq!(sent.len(), 1);
    let r = &sent[0];
    assert_eq!((r.attempt, r.status), (1, ExecutionStatus::Completed));
    assert_eq!(r.tool_calls.len(), 1);
    let call = &r.tool_calls[0];
    assert_eq!(
        (call.tool.as_str(), call.status),
        ("shell", ToolCallStatus::Ok)
    );
    assert_eq!(call.input, json!({ "command": ls }));
    assert!(call.output_head.contains("b.txt"), "{call:?}");
    // Exactly one model turn per tool step plus the finish; the second saw the result.
    let prompts = fx.r3_prompts();
    assert_eq!(prompts.len(), 2);
    assert!(prompts[0].contains("(none yet"), "{}", prompts[0]);
    assert!(
        prompts[1].contains("[1] shell") && prompts[1].contains("c.txt"),
        "{}",
        prompts[1]
    );
    let messages = fx.rig.server.requests_from(Role::Executor)[0].messages();
    let system = &messages[0].1;
    assert!(system.contains("0. Never deceive: "), "{system}");
    // The machine's facts reach the model with the request.
    let workspace = fx.rig.config.workspace.display().to_string();
    assert!(
        messages.iter().any(|(_, text)| text.contains(&workspace)),
        "{messages:?}"
    );
}

#[tokio::test]
async fn malformed_model_output_is_re_asked_once_then_the_attempt_fails_honestly() {
    let mut fx = effectors(Script::new(), |_| {}).await;
    fx.rig.server.push(
        Role::Executor,
        [
            Step::reply("I will now list the files for you."),
            Step::reply("{\"next\": \"call_tool\", \"tool\": \"cloc\", \"tool_input\": {}}"),
        ],
    );
    let s = task_subtask(&fx.dir, "count the files", "the output is 3");
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Failed);
    let sent = results(&fx.seen());
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].status, ExecutionStatus::Failed);
    assert!(sent[0].tool_calls.is_empty());
    assert!(
        sent[0].output.contains("model call failed") && sent[0].output.contains("no tool \"cloc\""),
        "{}",
        sent[0].output
    );
    // The bad reply was re-asked once, and nothing was judged by a model.
    assert_eq!(fx.rig.calls_from(Role::Executor), 2);
    assert_eq!(fx.rig.calls_from(Role::AgentValidator), 0);
}

/// The schema an R3 request asked for, as text.
fn asked_schema(request: &artoo::testkit::RecordedRequest) -> String {
    request
        .body
        .pointer("/response_format/json_schema/schema")
        .map(Value::to_string)
        .unwrap_or_default()
}

#[tokio::test]
async fn the_step_cap_ends_the_attempt_with_what_was_done() {
    let intent = "find the largest file";
    let criterion = "the output names the largest file";
    let mut fx = effectors(
        Script::new().role(Role::AgentValidator, [fail_for(intent, criterion)]),
        |c| {
            c.budgets.executor_max_steps = 3;
            c.budgets.max_retries = 0;
        },
    )
    .await;
    let d = fx.dir.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            shell(&format!("ls {d}")),
            shell(&format!("ls -a {d}")),
            // The last turn may only finish: the model says what the results show.
            finish(
                "uncertain",
                "a.txt b.txt c.txt",
                "Listed the files; sizes unseen.",
            ),
            // Never asked for: the cap comes first.
            shell(&format!("ls -l {d}")),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Failed);
    let sent = results(&fx.seen());
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].status, ExecutionStatus::Uncertain);
    assert_eq!(sent[0].tool_calls.len(), 2);
    assert!(
        sent[0].output.contains("a.txt b.txt c.txt") && sent[0].output.contains("sizes unseen"),
        "{}",
        sent[0].output
    );
    assert_eq!(fx.rig.calls_from(Role::Executor), 3);
    assert!(fx.r3_prompts()[2].contains("This is your last step"));
    // The turns before the cap offer the tools; the last one only the finish.
    let requests = fx.rig.server.requests_from(Role::Executor);
    assert!(asked_schema(&requests[1]).contains("call_tool"));
    let last = asked_schema(&requests[2]);
    assert!(
        last.contains("status") && !last.contains("call_tool"),
        "{last}"
    );
}

#[tokio::test]
async fn a_name_pattern_of_a_word_the_request_says_selects_by_the_text_the_files_hold() {
    // "invoice*" names no file; two files mention an invoice in their text: the copy runs
    // selecting by the text, and the model is told why.
    let intent = "copy the files that mention an invoice into the folder sent";
    let criterion = "sent holds a.txt and c.txt";
    let mut fx = passing(intent, criterion).await;
    std::fs::write(fx.dir.join("a.txt"), "Invoice 12, due in March").expect("a");
    std::fs::write(fx.dir.join("c.txt"), "the invoice is paid").expect("c");
    let d = fx.dir.display().to_string();
    let sent_to = fx.dir.join("sent");
    fx.rig.server.push(
        Role::Executor,
        [
            tool(
                "copy_files",
                json!({"from": d, "names": "invoice*", "to": sent_to.display().to_string()}),
            ),
            finish(
                "completed",
                "Copied a.txt and c.txt into sent.",
                "Copied 2 files.",
            ),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);
    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched);
    let sent = results(&fx.seen());
    let call = &sent[0].tool_calls[0];
    assert_eq!(call.input["containing"], json!("invoice"), "{call:?}");
    assert!(call.input.get("names").is_none(), "{call:?}");
    let mut names: Vec<String> = std::fs::read_dir(&sent_to)
        .expect("sent")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.txt", "c.txt"]);
    assert!(
        fx.r3_prompts()[1].contains("instead of `names`"),
        "{}",
        fx.r3_prompts()[1]
    );
}

#[tokio::test]
async fn a_sub_task_is_offered_only_the_changes_its_words_ask_for() {
    // A rename asks for no copy: the grammar has no copy_files, and a model that names
    // it anyway (an endpoint that ignores the grammar) is re-asked, not obeyed.
    let intent = "change the extension of every .txt file to .md";
    let criterion = "a.md, b.md and c.md exist";
    let mut fx = effectors(
        Script::new().role(Role::AgentValidator, [fail_for(intent, criterion)]),
        |c| c.budgets.max_retries = 0,
    )
    .await;
    let d = fx.dir.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            tool("copy_files", json!({"from": d, "names": "*.txt", "to": d})),
            tool("copy_files", json!({"from": d, "names": "*.txt", "to": d})),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);
    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Failed);
    let sent = results(&fx.seen());
    assert!(sent[0].tool_calls.is_empty(), "{:?}", sent[0].tool_calls);
    assert!(sent[0].output.contains("copy_files"), "{}", sent[0].output);
    let first = asked_schema(&fx.rig.server.requests_from(Role::Executor)[0]);
    assert!(
        first.contains("\"move_files\"") && !first.contains("\"copy_files\""),
        "{first}"
    );
    // Nothing was copied.
    let mut names: Vec<String> = std::fs::read_dir(&fx.dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.txt", "b.txt", "c.txt"]);

    // A copy asked for is offered the copy.
    let intent = "copy a.txt into the backup folder";
    let criterion = "backup/a.txt exists";
    let mut fx = passing(intent, criterion).await;
    fx.rig
        .server
        .push(Role::Executor, [finish("completed", "nothing", "nothing")]);
    fx.plan(&[&task_subtask(&fx.dir, intent, criterion)]);
    fx.outcome().await;
    let first = asked_schema(&fx.rig.server.requests_from(Role::Executor)[0]);
    assert!(first.contains("\"copy_files\""), "{first}");
}

#[tokio::test]
async fn a_tool_asked_twice_for_calls_that_failed_is_no_longer_offered_to_the_sub_task() {
    let intent = "read the notes";
    let criterion = "the output quotes the notes";
    let mut fx = effectors(
        Script::new().role(
            Role::AgentValidator,
            [fail_for(intent, criterion), pass_for(intent, criterion)],
        ),
        |c| c.budgets.max_retries = 1,
    )
    .await;
    let missing = fx.dir.join("notes.txt").display().to_string();
    let read = || tool("read_file", json!({ "path": missing }));
    fx.rig.server.push(
        Role::Executor,
        [
            // Attempt 1: the read fails, is asked again (refused), then a finish.
            read(),
            read(),
            finish("uncertain", "no notes.txt", "The notes are not there."),
            // Attempt 2 opens with the same read: refused a second time, and read_file
            // is offered no more.
            read(),
            tool(
                "list_files",
                json!({ "folder": fx.dir.display().to_string() }),
            ),
            finish("completed", "a.txt\nb.txt\nc.txt", "Listed 3 files."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);
    fx.outcome().await;
    let requests = fx.rig.server.requests_from(Role::Executor);
    assert_eq!(requests.len(), 6);
    // After one refused repeat the tool is still offered: the model may mend the call.
    assert!(asked_schema(&requests[3]).contains("\"read_file\""));
    let after = asked_schema(&requests[4]);
    assert!(
        !after.contains("\"read_file\"") && after.contains("\"list_files\""),
        "{after}"
    );
    let prompts = fx.r3_prompts();
    assert!(
        prompts[4].contains("read_file is no longer offered to this sub-task"),
        "{}",
        prompts[4]
    );
    let sent = results(&fx.seen());
    assert_eq!(
        sent[1]
            .tool_calls
            .iter()
            .map(|c| (c.tool.as_str(), c.status))
            .collect::<Vec<_>>(),
        [
            ("read_file", ToolCallStatus::Refused),
            ("list_files", ToolCallStatus::Ok),
        ]
    );
}

/// A change asked of a file, and what shows it made.
const SHOPPING: (&str, &str) = (
    "insert '# Shopping' at the top of list.txt",
    "list.txt starts with # Shopping",
);

/// A sub-task R4a passes, whose user approves every Law 1 question, with `name` in its
/// folder holding two lines: the fixture, the user and the file's path.
async fn approving_with_file(
    intent: &str,
    criterion: &str,
    name: &str,
) -> (Effectors, ConfirmationResponder, PathBuf) {
    let fx = passing(intent, criterion).await;
    let user = ConfirmationResponder::spawn(
        &fx.rig.bus,
        ConfirmationPolicy::Approve,
        DecisionSource::User,
    );
    let file = fx.dir.join(name);
    std::fs::write(&file, "eggs\nbread\n").expect("file");
    (fx, user, file)
}

#[tokio::test]
async fn a_change_in_place_answered_with_how_things_are_is_sent_back_and_the_next_step_makes_it() {
    // Asked to replace a word, the model reads the file and tells a state. No call
    // changed anything: the finish is sent back, and the next step may only call a tool
    // that changes files (no read, no finish).
    let intent = "replace colour with color in notes.txt";
    let criterion = "notes.txt says color";
    let mut fx = passing(intent, criterion).await;
    let user = ConfirmationResponder::spawn(
        &fx.rig.bus,
        ConfirmationPolicy::Approve,
        DecisionSource::User,
    );
    let notes = fx.dir.join("notes.txt");
    std::fs::write(&notes, "one colour\n").expect("notes");
    let path = notes.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            tool("read_file", json!({ "path": path })),
            finish(
                "completed",
                "notes.txt contains color instead of colour",
                "Checked the file.",
            ),
            tool(
                "edit_file",
                json!({ "path": path, "find": "colour", "replace": "color" }),
            ),
            finish(
                "completed",
                "Replaced colour with color in notes.txt.",
                "Done.",
            ),
        ],
    );
    fx.plan(&[&task_subtask(&fx.dir, intent, criterion)]);
    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched);
    let prompts = fx.r3_prompts();
    assert_eq!(prompts.len(), 4);
    assert!(
        prompts[2].contains("no call changed anything") && prompts[2].contains("edit_file"),
        "{}",
        prompts[2]
    );
    assert!(
        prompts[2].contains("Call the tool that makes it"),
        "{}",
        prompts[2]
    );
    let owed = asked_schema(&fx.rig.server.requests_from(Role::Executor)[2]);
    assert!(
        owed.contains("\"edit_file\"")
            && owed.contains("\"write_file\"")
            && !owed.contains("\"read_file\"")
            && !owed.contains("\"finish\""),
        "{owed}"
    );
    assert_eq!(user.requests().len(), 1);
    assert_eq!(
        std::fs::read_to_string(&notes).expect("notes"),
        "one color\n"
    );
}

#[tokio::test]
async fn a_read_asked_again_while_a_change_is_owed_asks_for_the_change() {
    // A small model that does not know how to make the change asks for the same read
    // again: the attempt does not end on that read's text; the change is asked for.
    let (intent, criterion) = SHOPPING;
    let (mut fx, _user, list) = approving_with_file(intent, criterion, "list.txt").await;
    let path = list.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            tool("read_file", json!({ "path": path })),
            tool("read_file", json!({ "path": path })),
            tool(
                "write_file",
                json!({ "path": path, "content": "# Shopping", "prepend": true }),
            ),
            finish("completed", "Put '# Shopping' first in list.txt.", "Done."),
        ],
    );
    fx.plan(&[&task_subtask(&fx.dir, intent, criterion)]);
    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched);
    let prompts = fx.r3_prompts();
    assert_eq!(prompts.len(), 4);
    assert!(
        prompts[2].contains("was asked for again") && prompts[2].contains("asks for a change"),
        "{}",
        prompts[2]
    );
    let owed = asked_schema(&fx.rig.server.requests_from(Role::Executor)[2]);
    assert!(
        owed.contains("\"write_file\"") && !owed.contains("\"read_file\""),
        "{owed}"
    );
    assert_eq!(
        std::fs::read_to_string(&list).expect("list"),
        "# Shopping\neggs\nbread\n"
    );
}

#[tokio::test]
async fn a_read_asked_again_after_a_change_to_its_file_is_a_new_look() {
    // The same read before and after a change is two observations: the second runs and
    // shows the file as it is now; the attempt does not end on the first one's text.
    let (intent, criterion) = SHOPPING;
    let (mut fx, _user, list) = approving_with_file(intent, criterion, "list.txt").await;
    let path = list.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            tool("read_file", json!({ "path": path })),
            tool(
                "write_file",
                json!({ "path": path, "content": "# Shopping", "prepend": true }),
            ),
            tool("read_file", json!({ "path": path })),
            finish("completed", "list.txt now starts with # Shopping.", "Done."),
        ],
    );
    fx.plan(&[&task_subtask(&fx.dir, intent, criterion)]);
    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched);
    assert_eq!(fx.r3_prompts().len(), 4);
    let sent = results(&fx.seen());
    let calls = &sent[0].tool_calls;
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[2].status, ToolCallStatus::Ok, "{:?}", calls[2]);
    assert!(
        calls[2].output_head.starts_with("# Shopping\neggs"),
        "{}",
        calls[2].output_head
    );
    assert!(
        sent[0].output.contains("now starts with"),
        "{}",
        sent[0].output
    );
}

#[tokio::test]
async fn a_file_the_sub_task_asks_to_make_is_owed_until_a_call_writes_it() {
    // Asked to combine two lists into a new file, a small model read both and finished
    // saying the new file was written. The finish goes back, and the next step may only
    // call a tool that changes files.
    let intent = "combine a.txt and b.txt into a new file all.txt";
    let criterion = "all.txt holds the lines of a.txt, then those of b.txt";
    let mut fx = passing(intent, criterion).await;
    let (a, b, all) = (
        fx.dir.join("a.txt"),
        fx.dir.join("b.txt"),
        fx.dir.join("all.txt"),
    );
    std::fs::write(&a, "apples\npears\n").expect("a");
    std::fs::write(&b, "milk\n").expect("b");
    let path = |p: &Path| p.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            tool("read_file", json!({ "path": path(&a) })),
            tool("read_file", json!({ "path": path(&b) })),
            finish("completed", "The lines are in all.txt.", "Combined."),
            tool(
                "write_file",
                json!({ "path": path(&all), "content": "apples\npears\nmilk\n" }),
            ),
            finish(
                "completed",
                "Wrote all.txt: apples, pears, milk.",
                "Combined.",
            ),
        ],
    );
    let mut s = task_subtask(&fx.dir, intent, criterion);
    s.context = format!("Files: {}, {}, {}", path(&a), path(&b), path(&all));
    fx.plan(&[&s]);
    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let prompts = fx.r3_prompts();
    assert_eq!(prompts.len(), 5);
    assert!(
        prompts[3].contains("asks for all.txt to be made"),
        "{}",
        prompts[3]
    );
    let owed = asked_schema(&fx.rig.server.requests_from(Role::Executor)[3]);
    assert!(
        owed.contains("\"write_file\"") && !owed.contains("\"read_file\""),
        "{owed}"
    );
    assert_eq!(
        std::fs::read_to_string(&all).expect("all"),
        "apples\npears\nmilk\n"
    );
    // The inputs are as they were.
    assert_eq!(std::fs::read_to_string(&a).expect("a"), "apples\npears\n");
}

#[tokio::test]
async fn a_file_the_sub_task_asks_to_move_is_owed_while_it_is_where_it_was() {
    // Asked for two moves, a small model made the first and finished: the second is
    // owed, and the next step makes it.
    let mut fx = effectors(Script::new(), |_| {}).await;
    for name in ["a.log", "b.tmp"] {
        std::fs::write(fx.dir.join(name), "x\n").expect("file");
    }
    let path = |p: &Path| p.display().to_string();
    let (dir, archive, bin) = (
        path(&fx.dir),
        path(&fx.dir.join("archive")),
        path(&fx.dir.join("bin")),
    );
    let intent = format!("move {dir}/a.log into {archive}, then move {dir}/b.tmp into {bin}");
    fx.rig.server.push(
        Role::AgentValidator,
        [pass_for(&intent, "both files are moved")],
    );
    fx.rig.server.push(
        Role::Executor,
        [
            tool(
                "move_files",
                json!({ "from": dir, "names": "a.log", "to": archive }),
            ),
            finish("completed", "Moved the files.", "Moved."),
            tool(
                "move_files",
                json!({ "from": dir, "names": "b.tmp", "to": bin }),
            ),
            finish("completed", "Moved a.log and b.tmp.", "Moved."),
        ],
    );
    let s = task_subtask(&fx.dir, &intent, "both files are moved");
    fx.plan(&[&s]);
    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let prompts = fx.r3_prompts();
    assert_eq!(prompts.len(), 4);
    assert!(
        prompts[2].contains(&format!("asks to move {dir}/b.tmp, and no call did")),
        "{}",
        prompts[2]
    );
    assert!(fx.dir.join("archive/a.log").exists() && fx.dir.join("bin/b.tmp").exists());
    assert!(!fx.dir.join("b.tmp").exists());
}

#[tokio::test]
async fn a_question_whether_a_file_is_there_is_answered_by_its_absence() {
    // The model read the file asked about, found it missing and reported a failure: the
    // absence is the answer to "is there …?", stated by code.
    let intent = "Is there a file called budget.xlsx in the folder?";
    let criterion = "the output says whether budget.xlsx exists";
    // For a question of another shape the missing file stays the failure reported.
    for (shape, status) in [
        (AnswerShape::YesNo, ExecutionStatus::Completed),
        (AnswerShape::Number, ExecutionStatus::Failed),
    ] {
        let mut fx = passing(intent, criterion).await;
        std::fs::write(fx.dir.join("budget.xls"), "PK").expect("xls");
        let budget = fx.dir.join("budget.xlsx");
        fx.rig.server.push(
            Role::Executor,
            [
                tool("read_file", json!({ "path": budget.display().to_string() })),
                finish("failed", "The file does not exist.", "Could not read it."),
            ],
        );
        let mut s = task_subtask(&fx.dir, intent, criterion);
        s.answer = shape;
        s.context = format!("File: {}", budget.display());
        fx.plan(&[&s]);
        fx.outcome().await;
        let sent = results(&fx.seen());
        assert_eq!(sent[0].status, status, "{shape:?}: {}", sent[0].output);
        if shape == AnswerShape::YesNo {
            assert!(
                sent[0].output.starts_with("No: ")
                    && sent[0].output.contains("budget.xlsx does not exist"),
                "{}",
                sent[0].output
            );
        }
    }
}

#[tokio::test]
async fn a_change_in_place_found_not_needed_stands_as_said() {
    // Asked to replace a word that is not there: the honest account is no misfit, and
    // nothing is forced.
    let intent = "replace colour with color in notes.txt";
    let criterion = "notes.txt says color";
    let mut fx = passing(intent, criterion).await;
    let notes = fx.dir.join("notes.txt");
    std::fs::write(&notes, "one color\n").expect("notes");
    fx.rig.server.push(
        Role::Executor,
        [
            tool("read_file", json!({ "path": notes.display().to_string() })),
            finish(
                "completed",
                "notes.txt already says color; nothing was replaced.",
                "No change needed.",
            ),
        ],
    );
    fx.plan(&[&task_subtask(&fx.dir, intent, criterion)]);
    fx.outcome().await;
    assert_eq!(fx.r3_prompts().len(), 2);
    let sent = results(&fx.seen());
    assert!(
        sent[0].output.contains("already says color"),
        "{}",
        sent[0].output
    );
}

#[tokio::test]
async fn a_finish_that_names_none_of_the_changes_made_is_told_them_once() {
    let intent = "copy a.txt into the backup folder";
    let criterion = "backup/a.txt exists";
    let mut fx = passing(intent, criterion).await;
    let d = fx.dir.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            tool(
                "copy_files",
                json!({"from": d, "names": "a.txt", "to": format!("{d}/backup")}),
            ),
            finish("uncertain", "No file could be copied.", "Nothing was done."),
            finish("completed", "copied a.txt into backup", "Copied a.txt."),
        ],
    );
    fx.plan(&[&task_subtask(&fx.dir, intent, criterion)]);
    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched);
    let prompts = fx.r3_prompts();
    assert_eq!(prompts.len(), 3);
    assert!(
        prompts[2].contains("the calls did change files") && prompts[2].contains("backup/a.txt"),
        "{}",
        prompts[2]
    );
    assert!(fx.dir.join("backup/a.txt").exists());
}

#[tokio::test]
async fn a_model_that_will_not_finish_at_the_last_step_leaves_what_the_calls_showed() {
    let intent = "find the largest file";
    let criterion = "the output names the largest file";
    let mut fx = effectors(
        Script::new().role(Role::AgentValidator, [fail_for(intent, criterion)]),
        |c| {
            c.budgets.executor_max_steps = 2;
            c.budgets.max_retries = 0;
        },
    )
    .await;
    let d = fx.dir.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            shell(&format!("ls {d}")),
            // The last turn may only finish; a tool call there is unusable, twice.
            shell(&format!("ls -l {d}")),
            shell(&format!("ls -la {d}")),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    fx.outcome().await;
    let sent = results(&fx.seen());
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].status,
        ExecutionStatus::Uncertain,
        "{}",
        sent[0].output
    );
    assert_eq!(sent[0].tool_calls.len(), 1);
    assert!(
        sent[0].output.contains("model call failed at step 2") && sent[0].output.contains("a.txt"),
        "{}",
        sent[0].output
    );
}

#[tokio::test]
async fn a_completed_claim_without_a_successful_call_is_pushed_back_then_sent_as_uncertain() {
    let intent = "count the files";
    let criterion = "the output is 3";
    let mut fx = effectors(
        Script::new().role(Role::AgentValidator, [fail_for(intent, criterion)]),
        |c| c.budgets.max_retries = 0,
    )
    .await;
    fx.rig.server.push(
        Role::Executor,
        [
            finish("completed", "3", "There are 3 files."),
            finish("completed", "3", "There are 3 files."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Failed);
    let sent = results(&fx.seen());
    assert_eq!(sent[0].status, ExecutionStatus::Uncertain);
    assert!(
        sent[0].output.starts_with(UNBACKED_PREFIX),
        "{}",
        sent[0].output
    );
    let prompts = fx.r3_prompts();
    assert_eq!(prompts.len(), 2);
    assert!(
        prompts[1].contains("Your finish was not accepted"),
        "{}",
        prompts[1]
    );
}

#[tokio::test]
async fn a_correction_is_honoured_on_the_next_attempt() {
    let intent = "list the files with their sizes";
    let criterion = "each file is listed with its size";
    let remedy = "run ls -l so each line carries the size";
    let mut fx = effectors(
        corrected_once(
            (intent, criterion),
            "[1] names only",
            "[1] printed names without sizes",
            remedy,
        ),
        |_| {},
    )
    .await;
    let d = fx.dir.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            shell(&format!("ls {d}")),
            finish("completed", "a.txt b.txt c.txt", "listed"),
            shell(&format!("ls -l {d}")),
            finish(
                "completed",
                "a.txt 5\nb.txt 5\nc.txt 5",
                "listed with sizes",
            ),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched);
    let prompts = fx.r3_prompts();
    assert_eq!(prompts.len(), 4);
    assert!(!prompts[0].contains("What to do now"));
    assert!(
        prompts[2].contains(&format!("What to do now: {remedy}")),
        "{}",
        prompts[2]
    );
    assert!(
        prompts[2].contains(&format!("- shell: ls {d}")),
        "{}",
        prompts[2]
    );
    let sent = results(&fx.seen());
    assert_eq!(
        sent.iter().map(|r| r.attempt).collect::<Vec<_>>(),
        vec![1, 2]
    );
    // Each result carries the calls of its own attempt only.
    assert_eq!(sent[1].tool_calls.len(), 1);
    assert_eq!(sent[1].tool_calls[0].target, format!("ls -l {d}"));
}

/// The effectors over a folder holding `scores.csv` (two students, 70 and 80), with R4a
/// passing `criterion`; and the table's path.
async fn scores_table(intent: &str, criterion: &str) -> (Effectors, String) {
    let fx = passing(intent, criterion).await;
    let table = fx.dir.join("scores.csv");
    std::fs::write(&table, "student,score\nana,70\nbo,80\n").expect("table");
    (fx, table.display().to_string())
}

#[tokio::test]
async fn a_failed_call_asked_again_is_told_again_and_the_columns_it_showed_narrow_the_next_call() {
    let (intent, criterion) = ("the average score", "the output is 75");
    let (mut fx, path) = scores_table(intent, criterion).await;
    // A model without a grammar can leave the column out; it then asks for the same
    // failing call again before it reads the error.
    let lacking = json!({ "op": "mean", "path": path });
    fx.rig.server.push(
        Role::Executor,
        [
            tool("read_table", lacking.clone()),
            tool("read_table", lacking),
            tool(
                "read_table",
                json!({ "op": "mean", "path": path, "column": "score" }),
            ),
            finish("completed", "75", "The average score is 75."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let sent = results(&fx.seen());
    assert_eq!(sent.len(), 1, "one attempt: the repeat did not end it");
    let statuses: Vec<_> = sent[0].tool_calls.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [
            ToolCallStatus::Error,
            ToolCallStatus::Refused,
            ToolCallStatus::Ok
        ]
    );
    let prompts = fx.r3_prompts();
    assert!(
        prompts[2].contains("REFUSED")
            && prompts[2].contains("it failed: mean needs column")
            && prompts[2].contains("student, score"),
        "the repeat is refused with the error that names the columns: {}",
        prompts[2]
    );
    // Before the table was read, a column was open text; after its columns were shown
    // (by the error), a call could name only them.
    let requests = fx.rig.server.requests_from(Role::Executor);
    assert!(!asked_schema(&requests[0]).contains(r#"["student","score"]"#));
    // The first step is a call: a finish is offered only once a tool has answered.
    assert!(!asked_schema(&requests[0]).contains(r#""const":"finish""#));
    assert!(asked_schema(&requests[1]).contains(r#""const":"finish""#));
    for later in &requests[1..3] {
        assert!(
            asked_schema(later).contains(r#""enum":["student","score"]"#),
            "{}",
            asked_schema(later)
        );
    }
}

#[tokio::test]
async fn a_call_narrowed_by_what_nobody_asked_is_sent_back_once_and_runs_if_asked_again() {
    let intent = "list the files in the folder";
    let criterion = "the output names a.txt, b.txt and c.txt";
    let mut fx = passing(intent, criterion).await;
    let folder = fx.dir.display().to_string();
    // Only markdown files: the sub-task names none.
    let invented = json!({"folder": folder, "extensions": "md"});
    fx.rig.server.push(
        Role::Executor,
        [
            tool("list_files", invented.clone()),
            tool("list_files", json!({"folder": folder})),
            // Asked for again after the push-back, the same narrowed call runs.
            tool("list_files", invented),
            finish("completed", "a.txt\nb.txt\nc.txt", "Listed 3 files."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let sent = results(&fx.seen());
    let inputs: Vec<_> = sent[0]
        .tool_calls
        .iter()
        .map(|c| c.input.get("extensions").cloned())
        .collect();
    assert_eq!(
        inputs,
        [None, Some(json!("md"))],
        "the first narrowed call did not run; the plain one and the repeat did"
    );
    let prompts = fx.r3_prompts();
    assert!(
        prompts[1].contains("The list_files call was not run")
            && prompts[1].contains("names no md"),
        "{}",
        prompts[1]
    );
    assert!(!prompts[2].contains("was not run"), "{}", prompts[2]);
}

#[tokio::test]
async fn a_listing_cut_short_in_another_order_than_asked_runs_in_the_order_asked() {
    let intent = "which file in the folder is the largest";
    let criterion = "the output names big.txt";
    let mut fx = passing(intent, criterion).await;
    std::fs::write(fx.dir.join("big.txt"), vec![b'x'; 5_000]).expect("a larger file");
    let folder = fx.dir.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            // The first row by name is a.txt: not the largest.
            tool(
                "list_files",
                json!({"folder": folder, "limit": 1, "sort": "name"}),
            ),
            finish("completed", "big.txt", "big.txt is the largest."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let sent = results(&fx.seen());
    let call = &sent[0].tool_calls[0];
    assert_eq!(call.input["sort"], json!("largest"), "{call:?}");
    assert!(call.output_head.contains("big.txt"), "{call:?}");
    let prompts = fx.r3_prompts();
    assert!(
        prompts[1].contains("asks for the largest ones, so it ran with `sort` \"largest\""),
        "the model is told what ran: {}",
        prompts[1]
    );
}

/// A folder with big.txt (the largest) and mid.txt (the second largest), a sub-task
/// asking for the second largest, and R3's model listing the two in that order and then
/// finishing with `finishes`; what R3 sent on, and the prompts its model saw.
async fn second_largest_with(finishes: Vec<Step>) -> (ExecutionResult, Vec<String>) {
    let intent = "which file in the folder is the second largest";
    let criterion = "the output names mid.txt";
    let mut fx = passing(intent, criterion).await;
    std::fs::write(fx.dir.join("big.txt"), vec![b'x'; 5_000]).expect("the largest");
    std::fs::write(fx.dir.join("mid.txt"), vec![b'x'; 3_000]).expect("the second");
    let folder = fx.dir.display().to_string();
    let listing = tool(
        "list_files",
        json!({"folder": folder, "limit": 2, "sort": "largest"}),
    );
    fx.rig
        .server
        .push(Role::Executor, std::iter::once(listing).chain(finishes));
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);
    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let sent = results(&fx.seen());
    (sent[0].clone(), fx.r3_prompts())
}

#[tokio::test]
async fn a_finish_naming_another_row_than_the_nth_asked_is_sent_back_with_that_row() {
    let (sent, prompts) = second_largest_with(vec![
        // The first row of the right listing.
        finish("completed", "big.txt", "big.txt is the second largest."),
        finish("completed", "mid.txt", "mid.txt is the second largest."),
    ])
    .await;
    assert!(sent.output.contains("mid.txt"), "{:?}", sent.output);
    assert!(
        prompts[2].contains("second largest") && prompts[2].contains("reads mid.txt"),
        "the push-back names the row: {}",
        prompts[2]
    );
}

#[tokio::test]
async fn where_the_nth_row_cannot_be_sent_back_again_code_states_it() {
    // The first row, as often as the model is asked.
    let wrong = || finish("completed", "big.txt", "big.txt is the second largest.");
    let (sent, prompts) = second_largest_with(vec![wrong(), wrong(), wrong()]).await;
    assert!(
        sent.output.starts_with("mid.txt is the second largest (")
            && !sent.output.contains("big.txt"),
        "{:?}",
        sent.output
    );
    // Sent back as often as pushes allow, then stated: no fifth model turn.
    assert_eq!(prompts.len(), 4, "one call and three finishes");
}

#[tokio::test]
async fn a_filter_the_request_names_is_kept_by_a_later_call_that_leaves_it_out() {
    let intent = "list the md files in the folder";
    let criterion = "the output names notes.md";
    let mut fx = passing(intent, criterion).await;
    std::fs::write(fx.dir.join("notes.md"), "# notes").expect("a markdown file");
    let folder = fx.dir.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            tool("list_files", json!({"folder": folder, "extensions": "md"})),
            // Called again without the filter, sorted by size.
            tool("list_files", json!({"folder": folder, "sort": "size"})),
            finish("completed", "notes.md", "One markdown file."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let sent = results(&fx.seen());
    let second = &sent[0].tool_calls[1];
    assert_eq!(second.input["extensions"], json!("md"), "{second:?}");
    assert!(!second.output_head.contains("a.txt"), "{second:?}");
    assert!(
        fx.r3_prompts()[2].contains("it ran with `extensions` \"md\" as the call before it did"),
        "{}",
        fx.r3_prompts()[2]
    );
}

#[tokio::test]
async fn a_failed_call_asked_again_after_a_result_makes_the_attempt_finish_now() {
    let (intent, criterion) = ("the average score", "the output is 75");
    let (mut fx, path) = scores_table(intent, criterion).await;
    let folder = fx.dir.display().to_string();
    let on_a_folder = json!({ "op": "mean", "path": folder, "column": "score" });
    fx.rig.server.push(
        Role::Executor,
        [
            tool(
                "read_table",
                json!({ "op": "mean", "path": path, "column": "score" }),
            ),
            tool("read_table", on_a_folder.clone()),
            tool("read_table", on_a_folder),
            finish("completed", "75", "The average score is 75."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let requests = fx.rig.server.requests_from(Role::Executor);
    assert_eq!(requests.len(), 4, "three calls, then the finish");
    assert!(asked_schema(&requests[2]).contains(r#""const":"call_tool""#));
    let last = &requests[3];
    assert!(
        !asked_schema(last).contains(r#""const":"call_tool""#),
        "only a finish is offered: {}",
        asked_schema(last)
    );
    assert!(
        fx.r3_prompts()[3].contains("A call that failed was asked for again. Finish now"),
        "{}",
        fx.r3_prompts()[3]
    );
}

#[tokio::test]
async fn a_call_asked_for_again_whose_result_is_not_the_shape_asked_gets_one_finish_turn() {
    let intent = "how many txt files are in the folder";
    let criterion = "the output is 3";
    let mut fx = passing(intent, criterion).await;
    let listing = json!({"folder": fx.dir.display().to_string(), "extensions": "txt"});
    fx.rig.server.push(
        Role::Executor,
        [
            tool("list_files", listing.clone()),
            tool("list_files", listing),
            finish("completed", "3", "There are 3 txt files."),
        ],
    );
    let mut s = task_subtask(&fx.dir, intent, criterion);
    s.answer = AnswerShape::Number;
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    assert_eq!(
        outcome.output,
        json!("3"),
        "the count stated, not the listing repeated"
    );
    let requests = fx.rig.server.requests_from(Role::Executor);
    assert_eq!(requests.len(), 3);
    assert!(!asked_schema(&requests[2]).contains(r#""const":"call_tool""#));
    assert!(
        fx.r3_prompts()[2].contains("Call [1] was asked for again"),
        "{}",
        fx.r3_prompts()[2]
    );
}

#[tokio::test]
async fn which_line_answered_by_its_number_alone_is_stated_from_the_line_the_read_selected() {
    let intent = "Which line of trip.txt mentions the deadline?";
    let criterion = "the output is the line that mentions the deadline";
    let mut fx = passing(intent, criterion).await;
    let trip = fx.dir.join("trip.txt");
    std::fs::write(
        &trip,
        "pack bags\nbook hotel by the deadline of 12 May\nwater plants\n",
    )
    .expect("trip");
    let count = json!({"op": "count", "path": trip.display().to_string(), "text": "deadline"});
    fx.rig.server.push(
        Role::Executor,
        [
            tool("read_lines", count),
            finish("completed", "line 2", "Found it."),
            finish("completed", "line 2", "Found it."),
            finish("completed", "line 2", "Found it."),
        ],
    );
    let mut s = task_subtask(&fx.dir, intent, criterion);
    s.answer = AnswerShape::Item;
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let prompts = fx.r3_prompts();
    assert_eq!(
        prompts.len(),
        4,
        "two push-backs, then code states the line"
    );
    assert!(prompts[2].contains("names no item"), "{}", prompts[2]);
    assert_eq!(
        outcome.output,
        json!("Line 2: book hotel by the deadline of 12 May")
    );
}

#[tokio::test]
async fn after_only_a_look_at_a_table_the_next_step_computes_before_a_finish_is_offered() {
    let (intent, criterion) = ("the average score", "the output is 75");
    let (mut fx, path) = scores_table(intent, criterion).await;
    fx.rig.server.push(
        Role::Executor,
        [
            tool("read_table", json!({ "op": "schema", "path": path })),
            tool(
                "read_table",
                json!({ "op": "mean", "path": path, "column": "score" }),
            ),
            finish("completed", "75", "The average score is 75."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let requests = fx.rig.server.requests_from(Role::Executor);
    assert_eq!(requests.len(), 3);
    // The look answered: its examples and row count are the data's shape, so the step
    // after it is a call (no finish in its grammar), and the prompt says why.
    assert!(!asked_schema(&requests[1]).contains(r#""const":"finish""#));
    let prompts = fx.r3_prompts();
    assert!(
        prompts[1].contains("show only the data's structure"),
        "{}",
        prompts[1]
    );
    // Once a call computed something, the finish is offered again.
    assert!(asked_schema(&requests[2]).contains(r#""const":"finish""#));
    assert!(!prompts[2].contains("show only the data's structure"));
}

#[tokio::test]
async fn a_result_shown_again_from_an_earlier_attempt_backs_the_finish() {
    let intent = "list the files";
    let criterion = "the output names a.txt, b.txt and c.txt";
    let mut fx = effectors(
        corrected_once(
            (intent, criterion),
            "[1] names only a.txt",
            "the output names one file",
            "name every file the listing shows",
        ),
        |_| {},
    )
    .await;
    let ls = format!("ls -1 {}", fx.dir.display());
    fx.rig.server.push(
        Role::Executor,
        [
            shell(&ls),
            finish("completed", "a.txt", "Listed."),
            // The second attempt asks for the same listing: it is shown again, not run.
            shell(&ls),
            finish("completed", "a.txt\nb.txt\nc.txt", "Listed 3 files."),
        ],
    );
    let s = task_subtask(&fx.dir, intent, criterion);
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Matched, "{outcome:?}");
    let sent = results(&fx.seen());
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].status, ExecutionStatus::Completed, "{:?}", sent[1]);
    assert!(
        !sent[1].output.starts_with(UNBACKED_PREFIX),
        "{}",
        sent[1].output
    );
    // The second attempt's answer rests on the recalled record, which R4a saw.
    assert_eq!(sent[1].tool_calls.len(), 1);
    assert!(sent[1].tool_calls[0].output_head.contains("c.txt"));
    let prompts = fx.r3_prompts();
    assert!(
        prompts[3].contains("the same call ran in an earlier attempt"),
        "{}",
        prompts[3]
    );
}

// ---------------------------------------------------------------------------------------
// MUST NOT and Law 1
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn blocked_tools_and_targets_are_refused_in_code() {
    let mut fx = effectors(Script::new(), |_| {}).await;
    let secret = fx.dir.join("a.txt");
    fx.rig.server.push(
        Role::Executor,
        [
            shell("ls"),
            tool("read_file", json!({ "path": secret.display().to_string() })),
            finish("failed", "", "both ways are forbidden"),
        ],
    );
    let mut s = task_subtask(&fx.dir, "read a.txt", "the output holds the text of a.txt");
    s.blocked_tools = vec![ToolName::Shell.into()];
    s.blocked_targets = vec![secret.display().to_string()];
    fx.plan(&[&s]);

    assert_eq!(fx.outcome().await.status, SubTaskStatus::Failed);
    let sent = results(&fx.seen());
    let calls = &sent[0].tool_calls;
    assert_eq!(
        calls.iter().map(|c| c.status).collect::<Vec<_>>(),
        vec![ToolCallStatus::Refused, ToolCallStatus::Refused]
    );
    assert!(
        calls[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("MUST NOT"),
        "{calls:?}"
    );
    // The model was shown why.
    assert!(fx.r3_prompts()[1].contains("REFUSED"));
}

#[tokio::test]
async fn a_confirm_tools_tool_asks_the_user_and_a_denial_fails_honestly() {
    let mut fx = effectors(Script::new(), |_| {}).await;
    let user =
        ConfirmationResponder::spawn(&fx.rig.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let root = fx.dir.display().to_string();
    fx.rig.server.push(
        Role::Executor,
        [
            tool("glob", json!({ "pattern": "*.txt", "root": root })),
            // A model that claims success anyway.
            finish("completed", "a.txt b.txt c.txt", "found them"),
        ],
    );
    let mut s = task_subtask(
        &fx.dir,
        "find the text files",
        "the output names the .txt files",
    );
    s.confirm_tools = vec![ToolName::Glob.into()];
    fx.plan(&[&s]);

    let outcome = fx.outcome().await;
    assert_eq!(outcome.status, SubTaskStatus::Failed);
    let asked = user.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool, ToolName::Glob);
    assert!(asked[0].reversible, "{:?}", asked[0]);
    assert!(asked[0].description.contains("Caution"), "{:?}", asked[0]);
    let sent = results(&fx.seen());
    assert_eq!(sent[0].status, ExecutionStatus::Failed);
    assert!(sent[0].output.starts_with("[LAW1]"), "{}", sent[0].output);
    assert_eq!(sent[0].tool_calls[0].status, ToolCallStatus::Denied);
    assert_eq!(sent[0].tool_calls[0].confirmation, Some(Decision::Deny));
    // Failed at once, without a judgement and without a retry.
    assert_eq!(fx.rig.calls_from(Role::AgentValidator), 0);
    assert_eq!(fx.rig.calls_from(Role::Executor), 2);
}

// ---------------------------------------------------------------------------------------
// Ends: cancellation, closes, the next group
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn cancelling_mid_attempt_stops_the_tool_and_nothing_follows() {
    let mut fx = effectors(Script::new(), |_| {}).await;
    let marker = fx.dir.join("marker");
    fx.rig.server.push(
        Role::Executor,
        [
            shell(&format!("sleep 2 && touch {}", marker.display())),
            finish("completed", "done", "done"),
        ],
    );
    let s = task_subtask(&fx.dir, "touch the marker", "the marker exists");
    fx.plan(&[&s]);
    fx.rig.server.wait_for_requests(1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    fx.rig.cancel(&s.parent_task_id);
    let cancelled_seq = loop {
        match fx.tap.recv().await {
            Some(TapEvent::Message(env)) if matches!(env.message, Message::TaskClosed(_)) => {
                break env.seq;
            }
            Some(_) => {}
            None => panic!("the bus closed"),
        }
    };
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        !marker.exists(),
        "the command was stopped before it finished"
    );
    let after: Vec<_> = fx
        .seen()
        .into_iter()
        .filter(|e| e.seq > cancelled_seq && e.from == Role::Executor)
        .map(|e| e.message.kind())
        .collect();
    assert!(after.is_empty(), "R3 published after the cancel: {after:?}");
    assert_eq!(fx.rig.calls_from(Role::Executor), 1);
    while let Some(env) = fx.r4b.try_recv() {
        assert!(
            matches!(env.message, Message::TaskClosed(_))
                || matches!(env.message, Message::DispatchManifest(_) if env.seq < cancelled_seq),
            "R4b got {:?} for a cancelled task",
            env.message.kind()
        );
    }
}

#[tokio::test]
async fn a_closed_sub_task_reaches_the_dispatcher_which_releases_the_next_group() {
    let (first, second) = ("print the first word", "repeat the first word");
    let criterion = "the output holds the word";
    let mut fx = effectors(
        Script::new().role(
            Role::AgentValidator,
            [pass_for(first, criterion), pass_for(second, criterion)],
        ),
        |_| {},
    )
    .await;
    fx.rig.server.push(
        Role::Executor,
        [
            shell("echo pelican"),
            finish("completed", "pelican", "printed it"),
            shell("echo pelican again"),
            finish("completed", "pelican again", "repeated it"),
        ],
    );
    let task = TaskId::mint();
    let a = subtask(&task, 1, first, &[criterion]);
    let b = subtask(&task, 2, second, &[criterion]);
    fx.plan(&[&a, &b]);

    assert_eq!(fx.outcome().await.status, SubTaskStatus::Matched);
    let later = fx.outcome().await;
    assert_eq!(
        (later.subtask_id, later.status),
        (b.subtask_id, SubTaskStatus::Matched)
    );
    // The second group saw the first group's output in its context.
    let prompts = fx.r3_prompts();
    assert_eq!(prompts.len(), 4);
    assert!(
        prompts[2].contains(PRIOR_OUTPUTS_HEADING) && prompts[2].contains("pelican"),
        "{}",
        prompts[2]
    );
}

#[tokio::test]
async fn a_close_published_by_the_validator_stops_the_worker_and_ends_the_group() {
    let rig = Rig::with(Script::new().role(Role::Executor, [Step::hang()]), |_| {}).await;
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    spawn_roles(
        &rig,
        rig.agent_validator()
            .with_attempt_timeout(Duration::from_millis(500)),
    );
    let task = TaskId::mint();
    let a = subtask(&task, 1, "wait for the model", &["c"]);
    let b = subtask(&task, 2, "never runs", &["c"]);
    let r2 = rig.bus.handle(Role::Planner);
    r2.publish(Role::Dispatcher, manifest(&task, 0, &[&a, &b], &["done"]));
    r2.publish(Role::Dispatcher, a.clone());
    r2.publish(Role::Dispatcher, b.clone());

    let outcome = match &r4b_next(&mut r4b).await.message {
        Message::SubTaskOutcome(o) => o.clone(),
        other => panic!("expected an outcome, got {:?}", other.kind()),
    };
    assert_eq!(
        (outcome.subtask_id, outcome.status),
        (a.subtask_id, SubTaskStatus::Failed)
    );
    // The dispatcher heard R4a's close on the bus and halted the later group.
    match &r4b_next(&mut r4b).await.message {
        Message::DispatchHalted(h) => assert_eq!(h.skipped, vec![b.subtask_id]),
        other => panic!("expected a halt, got {:?}", other.kind()),
    }
    assert_eq!(rig.calls_from(Role::Executor), 1);
}

#[tokio::test]
async fn the_time_budget_stops_a_hanging_attempt_and_the_sub_task_fails_as_timed_out() {
    let rig = Rig::with(Script::new().role(Role::Executor, [Step::hang()]), |_| {}).await;
    let mut r4b = rig.bus.subscribe(Role::MetaValidator);
    spawn_roles_with(&rig, rig.agent_validator(), |r3| {
        r3.with_time_budget(Duration::from_millis(800))
    });
    let task = TaskId::mint();
    let a = subtask(&task, 1, "wait for the model", &["c"]);
    let r2 = rig.bus.handle(Role::Planner);
    r2.publish(Role::Dispatcher, manifest(&task, 0, &[&a], &["done"]));
    r2.publish(Role::Dispatcher, a.clone());

    let outcome = match &r4b_next(&mut r4b).await.message {
        Message::SubTaskOutcome(o) => o.clone(),
        other => panic!("expected an outcome, got {:?}", other.kind()),
    };
    assert_eq!(outcome.status, SubTaskStatus::Failed);
    let reason = outcome.failure_reason.unwrap_or_default();
    assert!(reason.contains("timed out"), "{reason}");
    assert_eq!(
        outcome.gap_trajectory[0].failure_class,
        Some(MixedFailureClass::Environmental)
    );
}
