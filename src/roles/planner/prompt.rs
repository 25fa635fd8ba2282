//! What R2 says to the model and what it asks back: the plan schema ([`PlanDraft`]), the
//! graceful-failure schema ([`GracefulDraft`]), when to use each of the executor's tools
//! (their names, [`ToolName`], belong to `crate::tools`), and the requests for a first
//! plan, a replan under a `PlanDirective`, a re-ask quoting the plan validator, and the
//! graceful failure.
//!
//! Schema property order is alphabetical (see docs/llm.md), so field names are chosen for
//! the order the model writes them in: each sub-task's `context` and `intent` come before
//! its `success_criteria` and `tools`, and `subtasks` before `task_criteria` — the criteria
//! about the merged output are written once the sub-tasks exist.
//!
//! **Invariant:** nothing the model writes here carries an id; sub-task ids and parent
//! ids are minted by the runtime after the plan validator accepted the plan.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use chrono::{DateTime, TimeZone, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::validator::Violation;
use crate::contracts::{
    GracefulFailureRequest, MixedFailureClass, PlanDirective, ReplanDirective, TaskSpec, Urgency,
};
use crate::llm::ChatRequest;

pub use crate::tools::ToolName;

/// When the plan should use a tool: the planner's own advice, beside the tools' names.
fn when_to_use(tool: ToolName) -> &'static str {
    match tool {
        ToolName::Mdfind => {
            "find the user's own files by name anywhere in their home folder (an index; \
             fast). Always first for files outside the workspace."
        }
        ToolName::Glob => {
            "list files whose name matches a pattern (like *.pdf) under one folder, \
             recursively."
        }
        ToolName::ReadFile => "read one text file.",
        ToolName::WriteFile => {
            "write a new file. Outputs go under the workspace unless the task names \
             another place; overwriting an existing file asks the user first."
        }
        ToolName::Applescript => "control macOS apps (Mail, Calendar, Reminders, Music, Finder).",
        ToolName::Shortcuts => "run a named Apple Shortcut.",
        ToolName::Shell => {
            "bash for counting, sizes, dates, sorting and aggregation with standard \
             commands (ls, wc, du, stat, sort, head, tail, awk, sed, grep, find, date). \
             Deleting, moving or overwriting asks the user first."
        }
        ToolName::Search => "web search: titles, snippets and links of the top results.",
    }
}

/// One sub-task as the model proposes it. No ids: the runtime mints them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DraftSubTask {
    /// Everything the executor needs beyond the intent: exact paths, names, patterns,
    /// formats and units. The executor sees nothing else (outputs of earlier sequence
    /// groups are added for it).
    pub context: String,
    /// One action for one executor, in one sentence.
    pub intent: String,
    /// Sub-tasks with the same number run in parallel; a larger number runs after the
    /// smaller ones and receives their outputs. Start at 1.
    pub sequence: i64,
    /// Falsifiable assertions about what this sub-task's tool output shows.
    pub success_criteria: Vec<String>,
    /// Every tool this sub-task will use, from the executor's tool list.
    pub tools: Vec<ToolName>,
}

/// R2's plan (seed 003 "R2 Output Contract", without ids).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanDraft {
    /// As few sub-tasks as the task allows; one when one executor can do it all.
    pub subtasks: Vec<DraftSubTask>,
    /// Assertions about the COMBINED output of all sub-tasks, as the user receives it.
    pub task_criteria: Vec<String>,
}

impl PlanDraft {
    /// Every tool the plan declares.
    pub fn tool_set(&self) -> BTreeSet<ToolName> {
        self.subtasks
            .iter()
            .flat_map(|s| s.tools.iter().copied())
            .collect()
    }
}

/// The model's part of a graceful failure: only what to try next. What was accomplished
/// is quoted by code from the matched outputs — a model's account of it could claim more
/// than happened (Law 0), and a small model does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GracefulDraft {
    /// Two or three concrete next moves for the user, each naming a specific file,
    /// folder, setting, permission or rewording of the request.
    #[schemars(length(min = 2, max = 3))]
    pub next_moves: Vec<String>,
}

/// `Today's date` in the user's time zone (the Go version used UTC and was a day off for
/// half of every day east of Greenwich).
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

/// The tool list for the prompt: the chain, without tools this platform lacks.
fn tool_list() -> String {
    ToolName::CHAIN
        .into_iter()
        .filter(|t| t.is_available())
        .enumerate()
        .map(|(i, t)| format!("{}. {} — {}", i + 1, t, when_to_use(t)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The criterion the system prompt shows as an example. Small models copy it verbatim
/// into unrelated plans, so the validator refuses it as a criterion.
pub const CRITERION_EXAMPLE: &str =
    "the output lists at most 3 paths, each ending in .pdf, each with a size in bytes";

/// R2's system prompt: the rules of a plan.
pub fn plan_system(workspace: &Path) -> String {
    format!(
        "You are R2, the Planner of artoo, an assistant that runs tasks on the user's own \
computer. You turn one task into the smallest plan of sub-tasks an executor can carry out \
with tools, and you write the checks a validator applies to the executor's tool output.

Tools of the executor (priority order: prefer the first that fits):
{tools}

Rules:
- As few sub-tasks as possible; one when one executor can do it all.
- Sub-tasks with the same sequence run in parallel. A larger sequence runs after the smaller \
ones and receives their outputs; use it only when a sub-task needs an earlier one's output.
- context holds everything the executor needs: exact paths, names, patterns, formats, units. \
The executor sees nothing else.
- tools lists only the tools this sub-task will use (usually one or two), from the list above.
- Use only those tools and standard commands every system has. Never rely on third-party \
programs (cloc, tokei, jq, rg, fd, bat, fzf, eza): they are usually not installed.
- New files go under the workspace {workspace} unless the task names another place.
- success_criteria are falsifiable assertions about what this sub-task's tool output shows: \
name the expected content, count, format or path of THIS task (the shape of \"{example}\"). A \
criterion that restates the intent or only says the work is done checks nothing.
- task_criteria are assertions about the COMBINED output of all sub-tasks, as the user will \
receive it.
- Resolve relative dates (today, tomorrow, last week) against today's date given with the \
task, in the user's time zone.
- Deleting, overwriting, moving or sending anything asks the user first (Law 1): give such an \
action its own sub-task.
- MUST NOT items are binding and checked in code: a plan that uses a blocked tool or mentions a \
blocked target anywhere is rejected. SHOULD PREFER items are advice from earlier tasks. \
CAUTION tools ask the user before each use.
- Never write ids; the runtime assigns them.",
        tools = tool_list(),
        workspace = workspace.display(),
        example = CRITERION_EXAMPLE
    )
}

fn task_json(spec: &TaskSpec) -> String {
    // The spec is plain data with string keys: serialisation cannot fail.
    serde_json::to_string_pretty(spec).unwrap_or_else(|_| spec.intent.clone())
}

/// The request for a task's first plan.
pub fn plan_request(
    spec: &TaskSpec,
    today: &str,
    constraints: &str,
    workspace: &Path,
) -> ChatRequest {
    let user = format!(
        "{today}\n\nTask:\n{task}\n\n{constraints}",
        task = task_json(spec)
    );
    ChatRequest::new(plan_system(workspace), user).temperature(0.0)
}

/// What R2 remembers of the plan it dispatched last for a task.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanSummary {
    pub round: u32,
    /// `(sequence, intent, tools)` per sub-task, in plan order.
    pub subtasks: Vec<(i64, String, Vec<ToolName>)>,
    pub tools: BTreeSet<ToolName>,
}

impl PlanSummary {
    pub fn of(draft: &PlanDraft, round: u32) -> Self {
        Self {
            round,
            subtasks: draft
                .subtasks
                .iter()
                .map(|s| (s.sequence, s.intent.clone(), s.tools.clone()))
                .collect(),
            tools: draft.tool_set(),
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

/// What each directive asks of the new plan (seed 003 "Directive Semantics").
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

/// How ∇L's sign changes the prompt (seed 003 "∇L Sign as Urgency Modulator").
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

/// Where to look for the fix, by failure class (digest #68: environment first when mixed).
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
    today: &str,
    constraints: &str,
    workspace: &Path,
) -> ChatRequest {
    let mut user = format!(
        "{today}\n\nREPLAN, round {round}. The previous plan did not meet the task's criteria. \
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
    user.push_str(&format!(
        "\nTask:\n{task}\n\n{constraints}",
        task = task_json(spec)
    ));
    ChatRequest::new(plan_system(workspace), user).temperature(0.0)
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
