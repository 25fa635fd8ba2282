//! GGS directives reached from real traffic: a missing file is an environmental failure
//! on the first round, so GGS directs change_path with the path as a blocked target; the
//! replan that names it again is re-asked by the plan validator, and R3 reaching for it
//! anyway is refused by the toolbox. Four rounds then walk change_path → change_approach
//! → refine as the loss moves. (break_symmetry is reached in rejection.rs.)

use artoo::contracts::{
    Message, MessageKind, ReplanDirective, Role, TerminalDirective, ToolCallStatus,
};
use artoo::testkit::{Script, Step};
use artoo::tools::ToolName;
use serde_json::json;

use super::replies::{Sub, call, finish, merge, plan, task, verdicts};
use super::{Stage, final_result, mentions};

const READ: &str = "the output quotes the Q3 figures";
const TASK_READ: &str = "the answer gives the Q3 figures";
const FIRST: &str = "Read the Q3 report from the reports folder";
const SECOND: &str = "Read the archived Q3 report instead";

/// R3's call of `read_file` on `path`, and how its next turns list that call.
fn read_call(path: &str) -> (String, String) {
    let reply = call("read_file", json!({ "path": path }));
    let seen = json!({ "path": path }).to_string();
    (reply, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_file_directs_change_path_and_its_target_is_refused_by_validator_and_toolbox() {
    let mut stage = Stage::configured(Script::new(), |c| {
        c.budgets.max_retries = 0;
    })
    .await;
    let reports = stage.workspace.join("reports/q3.csv");
    let archive = stage.workspace.join("archive/q3.csv");
    std::fs::create_dir_all(archive.parent().expect("parent")).expect("archive dir");
    std::fs::write(&archive, "revenue,42").expect("archive");
    let (reports, archive) = (reports.display().to_string(), archive.display().to_string());
    let (read_reports, reports_seen) = read_call(&reports);
    let (read_archive, archive_seen) = read_call(&archive);

    let server = &stage.server;
    server.push(Role::Perceiver, [Step::reply(task("Give the Q3 figures"))]);
    server.push(
        Role::Planner,
        [
            Step::reply(plan(
                &[TASK_READ],
                &[Sub::new(1, FIRST, &[READ])
                    .context(&format!("The report is {reports}"))
                    .tools(&["read_file"])],
            )),
            // The replan first names the blocked path again, then heeds the re-ask.
            Step::reply(plan(
                &[TASK_READ],
                &[Sub::new(1, SECOND, &[READ])
                    .context(&format!("Try {reports} once more"))
                    .tools(&["read_file"])],
            )),
            Step::reply(plan(
                &[TASK_READ],
                &[Sub::new(1, SECOND, &[READ])
                    .context(&format!("The archived copy is {archive}"))
                    .tools(&["read_file"])],
            )),
        ],
    );
    // Each step is answered once; the first unused step whose text matches answers.
    server.push(
        Role::Executor,
        [
            Step::reply(finish("failed", "", "The report is missing.")).when(&reports_seen),
            Step::reply(read_reports.clone()).when(FIRST),
            Step::reply(finish("completed", "revenue,42", "Read the archive.")).when(&archive_seen),
            Step::reply(read_archive).when(&reports_seen),
            Step::reply(read_reports).when(SECOND),
        ],
    );
    server.push(
        Role::AgentValidator,
        [Step::reply(verdicts(&[(
            READ,
            true,
            "read_file returned revenue,42",
        )]))],
    );
    server.push(
        Role::MetaValidator,
        [Step::reply(merge(
            json!({"revenue": 42}),
            &[(TASK_READ, true, "revenue 42")],
            "Q3 revenue was 42.",
        ))],
    );

    let (task, end) = stage.run("what were the Q3 figures?").await;
    let result = final_result(&end);
    stage.settle().await;

    let directives = stage.of(&task, MessageKind::PlanDirective);
    assert_eq!(directives.len(), 1, "{}", stage.transcript().join("\n"));
    let Message::PlanDirective(d) = &directives[0].message else {
        unreachable!()
    };
    assert_eq!(d.directive, ReplanDirective::ChangePath, "{d:?}");
    assert_eq!(d.blocked_targets, std::slice::from_ref(&reports), "{d:?}");
    assert!(d.blocked_tools.is_empty(), "the method was fine: {d:?}");

    let r2 = stage.server.requests_from(Role::Planner);
    assert_eq!(r2.len(), 3, "one plan, a replan, one re-ask");
    assert!(
        mentions(&r2[1], &reports),
        "the replan request names the blocked target as MUST NOT"
    );
    assert!(
        mentions(&r2[2], "blocked target"),
        "the plan validator re-asked the plan that named it"
    );
    let second_round: Vec<_> = stage
        .of(&task, MessageKind::SubTask)
        .into_iter()
        .filter(|e| e.to == Role::Executor)
        .filter_map(|e| match &e.message {
            Message::SubTask(s) if s.intent == SECOND => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(second_round.len(), 1);
    assert!(!second_round[0].context.contains(&reports));
    assert_eq!(
        second_round[0].blocked_targets,
        std::slice::from_ref(&reports)
    );

    let calls: Vec<_> = stage
        .of(&task, MessageKind::ToolCallEvent)
        .into_iter()
        .filter_map(|e| match &e.message {
            Message::ToolCallEvent(c) => Some(c.record.clone()),
            _ => None,
        })
        .collect();
    let statuses: Vec<_> = calls
        .iter()
        .map(|c| (c.target.as_str(), c.status))
        .collect();
    assert_eq!(
        statuses,
        [
            (reports.as_str(), ToolCallStatus::Error),
            (reports.as_str(), ToolCallStatus::Refused),
            (archive.as_str(), ToolCallStatus::Ok),
        ],
        "missing, then refused as blocked, then read"
    );
    assert!(!calls[1].error.clone().unwrap_or_default().is_empty());

    assert_ne!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert_eq!(result.output, json!("revenue,42"));
    assert_eq!(result.replans, 1);
    assert_eq!(
        result.prev_directive,
        artoo::contracts::PrevDirective::ChangePath
    );
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}

const WALK: &str = "the output quotes the Q3 revenue";
const TASK_WALK: &str = "the answer gives the Q3 revenue";
const ROUND: [&str; 4] = [
    "Read the Q3 revenue from the reports folder",
    "Look the Q3 revenue up in the notes",
    "Read the Q3 revenue from the old folder",
    "Read the Q3 revenue from the archive",
];

/// The loss moves as seed 000's grid expects: an environmental first round (∇L = 0,
/// P = 0) → change_path; a logical second round (L rises by β·(1 − Ω), P = 1) →
/// change_approach; an environmental third round (L falls, P = 0) → refine; the fourth
/// round delivers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loss_walks_change_path_change_approach_refine_then_delivers() {
    let mut stage = Stage::configured(Script::new(), |c| {
        c.budgets.max_retries = 0;
    })
    .await;
    let ws = stage.workspace.clone();
    std::fs::write(ws.join("notes.txt"), "Q3: see the archive").expect("notes");
    std::fs::create_dir_all(ws.join("archive")).expect("archive dir");
    std::fs::write(ws.join("archive/q3.csv"), "revenue,42").expect("archive");
    let path = |p: &str| ws.join(p).display().to_string();
    let (reports, old, archive) = (
        path("reports/q3.csv"),
        path("old/q3.csv"),
        path("archive/q3.csv"),
    );
    let (read_reports, reports_seen) = read_call(&reports);
    let (read_old, old_seen) = read_call(&old);
    let (read_archive, archive_seen) = read_call(&archive);
    let notes_seen = json!({"command": "cat notes.txt"}).to_string();

    let server = &stage.server;
    server.push(Role::Perceiver, [Step::reply(task("Give the Q3 revenue"))]);
    server.push(
        Role::Planner,
        [
            (ROUND[0], "read_file"),
            (ROUND[1], "shell"),
            (ROUND[2], "read_file"),
            (ROUND[3], "read_file"),
        ]
        .map(|(intent, tool)| {
            Step::reply(plan(
                &[TASK_WALK],
                &[Sub::new(1, intent, &[WALK]).tools(&[tool])],
            ))
        }),
    );
    server.push(
        Role::Executor,
        [
            Step::reply(finish("failed", "", "No such file.")).when(&reports_seen),
            Step::reply(read_reports).when(ROUND[0]),
            Step::reply(finish("completed", "see the archive", "Read the notes."))
                .when(&notes_seen),
            Step::reply(call("shell", json!({"command": "cat notes.txt"}))).when(ROUND[1]),
            Step::reply(finish("failed", "", "No such file.")).when(&old_seen),
            Step::reply(read_old).when(ROUND[2]),
            Step::reply(finish("completed", "revenue,42", "Read it.")).when(&archive_seen),
            Step::reply(read_archive).when(ROUND[3]),
        ],
    );
    server.push(
        Role::AgentValidator,
        [
            Step::reply(verdicts(&[(WALK, false, "the notes give no figure")])).when(ROUND[1]),
            Step::reply(verdicts(&[(WALK, true, "revenue,42")])).when(ROUND[3]),
        ],
    );
    server.push(
        Role::MetaValidator,
        [Step::reply(merge(
            json!({"revenue": 42}),
            &[(TASK_WALK, true, "revenue 42")],
            "Q3 revenue was 42.",
        ))],
    );

    let (task, end) = stage.run("what was the Q3 revenue?").await;
    let result = final_result(&end);
    stage.settle().await;
    let directives: Vec<_> = stage
        .of(&task, MessageKind::PlanDirective)
        .iter()
        .filter_map(|e| match &e.message {
            Message::PlanDirective(d) => Some(d.clone()),
            _ => None,
        })
        .collect();
    let walked: Vec<_> = directives.iter().map(|d| d.directive).collect();
    assert_eq!(
        walked,
        [
            ReplanDirective::ChangePath,
            ReplanDirective::ChangeApproach,
            ReplanDirective::Refine
        ],
        "{directives:#?}\n{}",
        stage.transcript().join("\n")
    );
    assert!(directives[1].grad_l > 0.0, "the logical round raised L");
    assert!(
        directives[2].grad_l < 0.0,
        "the environmental round lowered L"
    );
    assert!(directives[0].blocked_targets.contains(&reports));
    assert!(
        directives[2].blocked_targets.contains(&reports)
            && directives[2].blocked_targets.contains(&old),
        "blocked targets accumulate: {:?}",
        directives[2].blocked_targets
    );
    assert!(
        directives[1]
            .blocked_tools
            .iter()
            .any(|t| *t == ToolName::Shell),
        "the tool of the logical failure is blocked: {:?}",
        directives[1]
    );
    assert_ne!(result.directive, TerminalDirective::Abandon, "{result:?}");
    assert_eq!(result.output, json!("revenue,42"));
    assert_eq!(result.replans, 3);
    assert_eq!(
        result.prev_directive,
        artoo::contracts::PrevDirective::Refine
    );
    assert_eq!(stage.count(&task, MessageKind::FinalResult), 1);
    stage.stop().await;
}
