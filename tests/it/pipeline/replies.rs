//! What each role's model answers in the scenarios, as the JSON the roles' schemas ask for.

use artoo::contracts::Role;
use artoo::testkit::{Script, Step};
use serde_json::{Value, json};

/// R1's perception: `kind` is task, chat or clarify.
pub fn perception(kind: &str, intent: &str, question: Option<&str>, reply: Option<&str>) -> String {
    json!({
        "constraints": {"deadline": null, "scope": null},
        "intent": intent,
        "kind": kind,
        "question": question,
        "reply": reply,
    })
    .to_string()
}

/// R1 reading the input as a task with this intent.
pub fn task(intent: &str) -> String {
    perception("task", intent, None, None)
}

/// One sub-task of R2's plan.
#[derive(Clone, Debug)]
pub struct Sub<'a> {
    pub sequence: i64,
    pub intent: &'a str,
    pub criteria: &'a [&'a str],
    pub context: &'a str,
    pub tools: &'a [&'a str],
}

impl<'a> Sub<'a> {
    /// A sub-task with no context that plans to use the shell.
    pub fn new(sequence: i64, intent: &'a str, criteria: &'a [&'a str]) -> Self {
        Self {
            sequence,
            intent,
            criteria,
            context: "",
            tools: &["shell"],
        }
    }

    pub fn context(mut self, context: &'a str) -> Self {
        self.context = context;
        self
    }

    pub fn tools(mut self, tools: &'a [&'a str]) -> Self {
        self.tools = tools;
        self
    }
}

/// R2's plan.
pub fn plan(task_criteria: &[&str], subtasks: &[Sub<'_>]) -> String {
    json!({
        "subtasks": subtasks.iter().map(|s| json!({
            "context": s.context,
            "intent": s.intent,
            "sequence": s.sequence,
            "success_criteria": s.criteria,
            "tools": s.tools,
        })).collect::<Vec<_>>(),
        "task_criteria": task_criteria,
    })
    .to_string()
}

/// `plan` naming the shape of the answer the task asks for (`"number"`, `"item"`…).
pub fn plan_for(answer: &str, task_criteria: &[&str], subtasks: &[Sub<'_>]) -> String {
    let mut planned: Value = serde_json::from_str(&plan(task_criteria, subtasks)).expect("a plan");
    planned["answer"] = json!(answer);
    planned.to_string()
}

/// R2's answer to GGS's graceful-failure request.
pub fn next_moves(moves: &[&str]) -> String {
    json!({ "next_moves": moves }).to_string()
}

/// The text of GGS's graceful-failure request to R2, to `match` it in a script.
pub const GRACEFUL_FAILURE_REQUEST: &str = "Why it was abandoned";

/// R3's next action: call a tool.
pub fn call(tool: &str, input: Value) -> String {
    json!({"evidence": "", "next": "call_tool", "tool": tool, "tool_input": input}).to_string()
}

/// R3's next action: finish the attempt.
pub fn finish(status: &str, output: &str, summary: &str) -> String {
    json!({"evidence": "the tool output above", "next": "finish", "status": status,
        "output": output, "summary": summary})
    .to_string()
}

/// R4a's judgement: per criterion (criterion, met, evidence), no diagnosis.
pub fn verdicts(criteria: &[(&str, bool, &str)]) -> String {
    judgement(criteria, "", "")
}

/// R4a's judgement with a diagnosis and a remedy (the correction R3 gets).
pub fn judgement(criteria: &[(&str, bool, &str)], diagnosis: &str, remedy: &str) -> String {
    judged(criteria, "logical", diagnosis, remedy)
}

/// A judgement whose unmet criteria have the cause `unmet_cause` (logical|environmental).
pub fn judged(
    criteria: &[(&str, bool, &str)],
    unmet_cause: &str,
    diagnosis: &str,
    remedy: &str,
) -> String {
    json!({
        "criteria": criteria.iter().map(|(c, met, evidence)| json!({
            "criterion": c, "evidence": evidence, "met": met,
            "unmet_cause": if *met { Value::Null } else { unmet_cause.into() },
        })).collect::<Vec<_>>(),
        "diagnosis": diagnosis, "remedy": remedy,
    })
    .to_string()
}

/// R4b's merge and verdicts on the task criteria.
pub fn merge(output: Value, criteria: &[(&str, bool, &str)], summary: &str) -> String {
    let mut v: Value = serde_json::from_str(&verdicts(criteria)).expect("json");
    v["combined_output"] = output;
    v["summary"] = summary.into();
    v.to_string()
}

/// R4a's and R4b's acceptance of one sub-task's `answer`, added to `script`: R4a passes
/// `criterion`, R4b passes the task's `done` and merges `answer`, both saying `why`.
pub fn accepted(script: Script, criterion: &str, done: &str, answer: &str, why: &str) -> Script {
    script
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(criterion, true, why)]))],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                answer.into(),
                &[(done, true, why)],
                answer,
            ))],
        )
}

/// The one-sub-task happy path of counting the workspace's three files, added to
/// `script`: R2's plan, R3's call and finish, R4a's and R4b's verdicts.
pub fn counting_three_files(script: Script) -> Script {
    script
        .role(
            Role::Planner,
            [Step::reply(plan(
                &["the answer states how many files the workspace holds"],
                &[Sub::new(
                    1,
                    "Count the files in the workspace",
                    &["the output states the number of files"],
                )],
            ))],
        )
        .role(
            Role::Executor,
            [
                Step::reply(call(
                    "shell",
                    serde_json::json!({"command": "ls -1 | wc -l"}),
                )),
                Step::reply(finish("completed", "3", "The workspace holds 3 files.")),
            ],
        )
        .role(
            Role::AgentValidator,
            [Step::reply(verdicts(&[(
                "the output states the number of files",
                true,
                "wc -l printed 3",
            )]))],
        )
        .role(
            Role::MetaValidator,
            [Step::reply(merge(
                serde_json::json!({"files": 3}),
                &[(
                    "the answer states how many files the workspace holds",
                    true,
                    "files: 3",
                )],
                "The workspace holds 3 files.",
            ))],
        )
}
