//! What R2 says to the model: the system prompt with its worked example, when to use
//! each of the executor's tools, and the requests for a first plan, a replan under a
//! `PlanDirective`, a re-ask quoting the plan validator, and the graceful failure. The
//! shapes the model answers with live in [`super::schema`] (the plan and graceful-failure
//! schemas are re-exported here).
//!
//! Schema property order is alphabetical (see docs/llm.md), so field names are chosen for
//! the order the model writes them in: each sub-task's `context` and `intent` come before
//! its `success_criteria` and `tools`, and `subtasks` before `task_criteria` — the criteria
//! about the merged output are written once the sub-tasks exist.
//!
//! **Invariant:** a system prompt never depends on the task (it is a stable prefix the
//! model server keeps cached); everything about the task goes in the user message.

use std::collections::BTreeSet;
use std::fmt;

use chrono::{DateTime, TimeZone, Utc};

use super::schema::{CRITERION_EXAMPLE, DraftSubTask, EXAMPLE_FOLDER};
use super::validator::Violation;
use crate::contracts::{
    GracefulFailureRequest, MixedFailureClass, PlanDirective, ReplanDirective, TaskSpec, Urgency,
};
use crate::llm::ChatRequest;
use crate::tools::ToolName;

/// The shapes the model answers with, where callers of the prompt have always found them.
pub use super::schema::{GracefulDraft, PlanDraft};

/// `Today's date` in the user's time zone: a UTC date is a day off for half of every day
/// east of Greenwich.
pub fn today_line<Tz: TimeZone>(now: DateTime<Utc>, tz: &Tz) -> String
where
    Tz::Offset: fmt::Display,
{
    let local = now.with_timezone(tz);
    format!(
        "Today's date: {} ({}), time zone UTC{}.",
        local.format("%Y-%m-%d"),
        local.format("%A"),
        local.format("%:z")
    )
}

/// R2's system prompt: the shared preamble with the executor's tools
/// (`roles::preamble::tool_preamble`), then the rules of a plan. Nothing in it depends
/// on the task, so it is a stable prefix the model server keeps cached.
pub fn plan_system(preamble: &str) -> String {
    format!(
        "{preamble}
You are R2, the Planner. You turn the user's task into the fewest sub-tasks an executor can \
carry out with the tools above, and you write what a correct result must show.

Rules:
- One sub-task when one executor can do it all: the usual case. An executor runs several \
commands, so listing and counting, finding and reading, reading and summarising are ONE \
sub-task. Use several only for independent parts (equal sequences run in parallel) or for \
an action the user must confirm (a larger sequence runs later and receives the earlier \
outputs).
- context: everything the executor needs, with the exact absolute paths from Places, names, \
patterns and units. The executor sees nothing else.
- success_criteria: what the tool output must show for THIS task, concretely: the number \
counted, the file's name or size, the text found, that a file now exists at a path with the \
right content. Never only \"the task is done\". mode: \"verifiable\" when a tool result can \
show it, \"plausible\" when it is a judgement (the quality of a summary). check, where \
code can check a criterion when the work ends, with only paths and words the task gives: \
{{\"kind\":\"file_exists\",\"path\":<absolute path>}} for a file the task writes (with \
\"contains\": a text the user gave it must hold), {{\"kind\":\"file_gone\",\"path\":…}} for \
one it deletes or moves away, {{\"kind\":\"quotes_line\",\"path\":…,\"text\":<the user's \
word>}} when the answer is a line of that file holding that word, {{\"kind\":\"answer_states\",\
\"text\":…}} for a value computed above. Leave it out otherwise.
- task_criteria: [] with one sub-task; with several, what the combined answer must contain.
- answer: the kind of answer the task asks for: \"item\" (which one: its name), \"number\" \
(one count, total or value), \"per_group\" (a value for each kind or group), \"list\", \
\"date\", \"yes_no\", \"new_file\" (a file the task writes or creates), \"text\" (a summary or a quote), or \
\"action\" (an action to carry out: the answer is what was done). The last sub-task's output must be that answer itself, \
not a tool's whole output.
- Deleting, moving, renaming or overwriting asks the user first: give it its own sub-task.
- Only standard commands every system has; never third-party programs (jq, rg, fd, tree).
- Relative dates (today, last week) are relative to Today in the request.
- MUST NOT items given with the task are enforced in code; SHOULD PREFER items are advice \
from earlier tasks.

Example. Task: how big is my Music folder? Places: - Music → {folder} (folder)
{{\"answer\":\"number\",\"subtasks\":[{{\"context\":\"Folder: {folder}\",\"intent\":\"Measure the total size of \
{folder}\",\"sequence\":1,\"success_criteria\":[{{\"criterion\":\"{example}\",\"mode\":\
\"verifiable\"}}],\"tools\":[\"shell\"]}}],\"task_criteria\":[]}}",
        folder = EXAMPLE_FOLDER,
        example = CRITERION_EXAMPLE,
    )
}

/// The task part of a planning request: the intent, the user's own words when they
/// differ, the places they name, and the memory constraints.
fn task_block(spec: &TaskSpec, places: Option<&str>, constraints: &str) -> String {
    let mut out = format!("Task: {}\n", spec.intent.trim());
    let raw = spec.raw_input.trim();
    if !raw.is_empty() && raw != spec.intent.trim() {
        out.push_str(&format!("The user's words: {raw}\n"));
    }
    if let Some(words) = spec.answer.words() {
        out.push_str(&format!("The answer asked for: {words}\n"));
    }
    // Facts of arithmetic and the calendar the request states, so the plan's context and
    // criteria carry computed values, never guessed ones.
    for line in crate::calc::computed_lines(&format!("{}\n{raw}", spec.intent)) {
        out.push_str(&format!("{line}\n"));
    }
    if let Some(scope) = spec
        .constraints
        .scope
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        out.push_str(&format!("Scope: {}\n", scope.trim()));
    }
    if let Some(deadline) = spec
        .constraints
        .deadline
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        out.push_str(&format!("Deadline: {}\n", deadline.trim()));
    }
    match places {
        Some(p) => out.push_str(&format!("Places:\n{p}\n")),
        None => out.push_str("Places: none named\n"),
    }
    if !constraints.trim().is_empty() {
        out.push_str(constraints.trim_end());
        out.push('\n');
    }
    out
}

/// A plan reply's generation cap: a few sub-tasks with short fields fit easily, and a
/// small model that starts repeating itself is stopped before it holds the server.
pub const PLAN_MAX_TOKENS: u32 = 700;

/// The request for a task's first plan.
pub fn plan_request(
    spec: &TaskSpec,
    preamble: &str,
    places: Option<&str>,
    constraints: &str,
) -> ChatRequest {
    ChatRequest::new(plan_system(preamble), task_block(spec, places, constraints))
        .temperature(0.0)
        .max_tokens(PLAN_MAX_TOKENS)
}

/// What R2 remembers of the plan it dispatched last for a task.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanSummary {
    /// The round of the plan: 0 for the first, then one more per replan.
    pub round: u32,
    /// `(sequence, intent, tools)` per sub-task, in plan order.
    pub subtasks: Vec<(i64, String, Vec<ToolName>)>,
    /// Every tool the plan's sub-tasks use.
    pub tools: BTreeSet<ToolName>,
    /// The sub-tasks as drafted, which a replan must not repeat.
    pub drafted: Vec<DraftSubTask>,
}

impl PlanSummary {
    /// The summary of `draft`, dispatched in round `round`.
    pub fn of(draft: &PlanDraft, round: u32) -> Self {
        Self {
            round,
            subtasks: draft
                .subtasks
                .iter()
                .map(|s| (s.sequence, s.intent.clone(), s.tools.clone()))
                .collect(),
            tools: draft.tool_set(),
            drafted: draft.subtasks.clone(),
        }
    }
}

fn join_tools<'a>(tools: impl IntoIterator<Item = &'a ToolName>) -> String {
    let names: Vec<&str> = tools.into_iter().map(|t| t.as_str()).collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// What each directive asks of the new plan: refine keeps approach and tools, change_path
/// keeps the kind of tools and changes the target, change_approach and break_symmetry
/// change the method.
pub fn directive_semantics(directive: ReplanDirective) -> &'static str {
    match directive {
        ReplanDirective::Refine => {
            "refine — the approach is right and the loss is moving: keep the same approach \
             and tools, and tighten the parameters (patterns, filters, limits, formats) so \
             the failed criterion is met."
        }
        ReplanDirective::ChangePath => {
            "change_path — the approach is right but the environment blocked it and the \
             loss is stuck: keep the same kind of tools and use a different target (another \
             path, query or source). Never a blocked target."
        }
        ReplanDirective::ChangeApproach => {
            "change_approach — the method is wrong: do the failed part with a different \
             method and another class of tool. Never a blocked tool."
        }
        ReplanDirective::BreakSymmetry => {
            "break_symmetry — the plan is stuck on a wrong method: use a novel approach \
             whose tool set differs from the previous plan's. Never a blocked tool."
        }
    }
}

/// How ∇L's sign changes the prompt: a falling loss leaves latitude, a growing one asks
/// for aggressive change.
pub fn urgency_line(urgency: Urgency) -> &'static str {
    match urgency {
        Urgency::Low => {
            "Urgency: low. The last change helped (the loss is falling): keep what worked \
             and apply the directive with latitude."
        }
        Urgency::Normal => "Urgency: normal. Apply the directive.",
        Urgency::High => {
            "Urgency: HIGH. The gap is growing: apply the directive aggressively. Change \
             every sub-task that failed and reuse nothing that did not work."
        }
    }
}

/// Where to look for the fix, by failure class; when mixed, the environment comes first.
pub fn failure_class_guidance(class: MixedFailureClass) -> &'static str {
    match class {
        MixedFailureClass::Environmental => {
            "environmental — the environment blocked the plan (missing path, permission, \
             network, empty source): change the target or source, not the method."
        }
        MixedFailureClass::Logical => {
            "logical — the method was wrong: change how the work is done (tools, commands, \
             the way results are computed)."
        }
        MixedFailureClass::Mixed => {
            "mixed — fix the environment first (other targets or sources), then the method."
        }
    }
}

/// The request for a replan under a `PlanDirective`.
pub fn replan_request(
    spec: &TaskSpec,
    directive: &PlanDirective,
    previous: Option<&PlanSummary>,
    preamble: &str,
    places: Option<&str>,
    constraints: &str,
) -> ChatRequest {
    let mut user = format!(
        "REPLAN, round {round}. The previous plan did not meet the task's criteria. \
The controller (GGS) directs: {semantics}\n{urgency}\nFailure class: {class}\n",
        round = directive.round,
        semantics = directive_semantics(directive.directive),
        urgency = urgency_line(directive.urgency),
        class = failure_class_guidance(directive.failure_class),
    );
    if !directive.failed_criterion.trim().is_empty() {
        user.push_str(&format!(
            "Failed criterion: \"{}\"\n",
            directive.failed_criterion.trim()
        ));
    }
    if !directive.rationale.trim().is_empty() {
        user.push_str(&format!(
            "Controller's rationale: {}\n",
            directive.rationale.trim()
        ));
    }
    user.push_str(
        "You MUST follow the directive. Blocked tools and targets are enforced in code: a \
plan that uses or mentions them is rejected.\n",
    );
    if let Some(prev) = previous {
        user.push_str(&format!("\nPrevious plan (round {}):\n", prev.round));
        for (i, (sequence, intent, tools)) in prev.subtasks.iter().enumerate() {
            user.push_str(&format!(
                "{}. [sequence {sequence}] {intent} — tools: {}\n",
                i + 1,
                join_tools(tools)
            ));
        }
        if directive.directive == ReplanDirective::BreakSymmetry {
            user.push_str(&format!(
                "The new plan's tool set must differ from the previous one ({}).\n",
                join_tools(&prev.tools)
            ));
        }
    }
    user.push('\n');
    user.push_str(&task_block(spec, places, constraints));
    ChatRequest::new(plan_system(preamble), user)
        .temperature(0.0)
        .max_tokens(PLAN_MAX_TOKENS)
}

/// The conversation extended with the rejected plan and the validator's findings.
pub fn reask(request: ChatRequest, rejected: &str, violations: &[Violation]) -> ChatRequest {
    let list = violations
        .iter()
        .map(|v| format!("- {v}"))
        .collect::<Vec<_>>()
        .join("\n");
    request.assistant(rejected).user(format!(
        "The plan validator rejected this plan:\n{list}\nReply with the whole corrected plan: \
fix every point above and keep every rule."
    ))
}

/// R2's system prompt for the graceful failure.
pub const GRACEFUL_SYSTEM: &str = "You are R2, the Planner of artoo, an assistant that runs \
tasks on the user's own computer. The task below was abandoned: it could not be achieved \
within its budget. What was completed is shown to the user verbatim; your part is what to do \
next. Write next_moves: two or three concrete moves the user can take now, in the language of \
the task, each naming a specific file, folder, setting, permission or rewording of the \
request. No generic advice, and never claim that anything was done.";

/// The request for the graceful failure of an abandoned task.
pub fn graceful_request(request: &GracefulFailureRequest, spec: Option<&TaskSpec>) -> ChatRequest {
    let mut user = format!("Task: {}\n", request.intent.trim());
    if let Some(spec) = spec {
        user.push_str(&format!("The user's words: {}\n", spec.raw_input.trim()));
    }
    user.push_str(&format!(
        "Why it was abandoned: {}\n",
        request.reason.trim()
    ));
    if !request.failures.is_empty() {
        user.push_str("What failed:\n");
        for f in &request.failures {
            user.push_str(&format!("- {}\n", f.trim()));
        }
    }
    if request.matched_outputs.is_empty() {
        user.push_str("Completed sub-task outputs: none.\n");
    } else {
        user.push_str("Completed sub-task outputs (verbatim):\n");
        for (i, m) in request.matched_outputs.iter().enumerate() {
            let shown = match &m.output {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            user.push_str(&format!("{}. {shown}\n", i + 1));
        }
    }
    // A bound on a runaway reply; three moves fit easily.
    ChatRequest::new(GRACEFUL_SYSTEM, user)
        .temperature(0.0)
        .max_tokens(600)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;

    #[test]
    fn today_is_the_users_local_date_not_utc() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T20:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let shanghai = FixedOffset::east_opt(8 * 3600).unwrap();
        assert_eq!(
            today_line(now, &shanghai),
            "Today's date: 2026-01-02 (Friday), time zone UTC+08:00."
        );
        let new_york = FixedOffset::west_opt(5 * 3600).unwrap();
        assert_eq!(
            today_line(now, &new_york),
            "Today's date: 2026-01-01 (Thursday), time zone UTC-05:00."
        );
    }

    #[test]
    fn tool_names_round_trip_and_unknown_names_are_none() {
        for tool in ToolName::CHAIN {
            assert_eq!(ToolName::parse(tool.as_str()), Some(tool));
            let json = serde_json::to_string(&tool).unwrap();
            assert_eq!(json, format!("\"{}\"", tool.as_str()));
            let back = serde_json::from_str::<ToolName>(&json).ok();
            assert_eq!(back.is_some(), tool.is_available(), "{tool}");
        }
        assert_eq!(ToolName::parse(" Shell "), Some(ToolName::Shell));
        assert_eq!(ToolName::parse("cloc"), None);
    }

    #[test]
    fn the_plan_schema_has_no_id_fields_and_names_the_tools() {
        let schema = crate::llm::OutputSchema::of::<PlanDraft>()
            .schema
            .to_string();
        assert!(!schema.contains("subtask_id"), "{schema}");
        assert!(!schema.contains("parent_task_id"), "{schema}");
        assert!(schema.contains("\"read_file\""), "{schema}");
        assert_eq!(
            schema.contains("\"applescript\""),
            cfg!(target_os = "macos"),
            "only tools this platform has are offered: {schema}"
        );
    }

    #[test]
    fn the_plan_must_name_a_shape_and_cannot_name_none() {
        let schema = &crate::llm::OutputSchema::of::<PlanDraft>().schema;
        let required: Vec<&str> = schema["required"]
            .as_array()
            .expect("required fields")
            .iter()
            .filter_map(serde_json::Value::as_str)
            .collect();
        assert!(required.contains(&"answer"), "{schema}");
        let shapes = &schema["properties"]["answer"]["enum"];
        assert!(
            shapes
                .as_array()
                .is_some_and(|s| s.contains(&serde_json::json!("action")))
        );
        assert!(
            !shapes
                .as_array()
                .is_some_and(|s| s.contains(&serde_json::json!("any")))
        );
        // The grammar a local server is held to writes it too.
        let gbnf = crate::llm::OutputSchema::of::<PlanDraft>()
            .gbnf()
            .expect("a grammar")
            .to_string();
        assert!(
            gbnf.contains(r#""{" "\"answer\":" ("\"item\"""#),
            "the plan opens with its shape, not as an option: {gbnf}"
        );
        // A reply without it (a provider without a grammar, an old record) still reads.
        let bare: PlanDraft = serde_json::from_str(r#"{"subtasks": []}"#).expect("reads");
        assert_eq!(bare.answer, crate::contracts::AnswerShape::Any);
    }

    #[test]
    fn every_directive_urgency_and_failure_class_has_its_own_guidance() {
        let directives = [
            ReplanDirective::Refine,
            ReplanDirective::ChangePath,
            ReplanDirective::ChangeApproach,
            ReplanDirective::BreakSymmetry,
        ];
        let texts: BTreeSet<&str> = directives.into_iter().map(directive_semantics).collect();
        assert_eq!(texts.len(), 4);
        assert!(directive_semantics(ReplanDirective::ChangePath).contains("different target"));
        assert!(urgency_line(Urgency::High).contains("aggressively"));
        assert!(urgency_line(Urgency::Low).contains("latitude"));
        assert!(failure_class_guidance(MixedFailureClass::Mixed).contains("environment first"));
    }
}
