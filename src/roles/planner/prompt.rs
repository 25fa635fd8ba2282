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

use chrono::{DateTime, TimeZone, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::validator::Violation;
use crate::contracts::{
    Criterion, CriterionMode, GracefulFailureRequest, MixedFailureClass, PlanDirective,
    ReplanDirective, TaskSpec, Urgency,
};
use crate::llm::ChatRequest;

pub use crate::tools::ToolName;

/// How a criterion can be judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DraftMode {
    Verifiable,
    Plausible,
}

impl From<DraftMode> for CriterionMode {
    fn from(value: DraftMode) -> Self {
        match value {
            DraftMode::Verifiable => CriterionMode::Verifiable,
            DraftMode::Plausible => CriterionMode::Plausible,
        }
    }
}

/// One success criterion as the model writes it: `{criterion, mode}`. A plain string is
/// read too (a verifiable criterion): models that drop the object still say what to check.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DraftCriterion {
    /// What a correct result shows, concretely (a number, a name, a path, a file's state).
    pub criterion: String,
    /// verifiable: a tool result can show it; plausible: a judgement (a summary's quality).
    pub mode: DraftMode,
}

impl<'de> Deserialize<'de> for DraftCriterion {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Text(String),
            Object {
                criterion: String,
                #[serde(default)]
                mode: Option<DraftMode>,
            },
        }
        Ok(match Form::deserialize(deserializer)? {
            Form::Text(criterion) => DraftCriterion::verifiable(criterion),
            Form::Object { criterion, mode } => DraftCriterion {
                criterion,
                mode: mode.unwrap_or(DraftMode::Verifiable),
            },
        })
    }
}

impl DraftCriterion {
    pub fn verifiable(text: impl Into<String>) -> Self {
        Self {
            criterion: text.into(),
            mode: DraftMode::Verifiable,
        }
    }

    pub fn to_criterion(&self) -> Criterion {
        Criterion::with_mode(self.criterion.trim(), self.mode.into())
    }
}

/// One sub-task as the model proposes it. No ids: the runtime mints them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DraftSubTask {
    /// Everything the executor needs: exact absolute paths, names, patterns, units.
    pub context: String,
    /// One action for one executor, in one sentence.
    pub intent: String,
    /// Equal numbers run in parallel; a larger one runs later with the earlier outputs.
    pub sequence: i64,
    /// What the tool output must show for this sub-task to be done.
    #[schemars(length(max = MAX_CRITERIA))]
    pub success_criteria: Vec<DraftCriterion>,
    /// The tools this sub-task uses.
    pub tools: Vec<ToolName>,
}

/// The most sub-tasks a plan may have: an everyday task needs one to three, and a small
/// model that starts listing every step it can think of (one plan ran to its token cap
/// with sub-task after sub-task) is stopped by the grammar here.
pub const MAX_SUBTASKS: usize = 4;
/// The most criteria a sub-task or the task may have.
pub const MAX_CRITERIA: usize = 4;

/// R2's plan (seed 003 "R2 Output Contract", without ids).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanDraft {
    /// As few as the task allows; usually one.
    #[schemars(length(max = MAX_SUBTASKS))]
    pub subtasks: Vec<DraftSubTask>,
    /// With several sub-tasks: what the combined answer must contain. Empty with one.
    #[serde(default)]
    #[schemars(length(max = MAX_CRITERIA))]
    pub task_criteria: Vec<DraftCriterion>,
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

/// The worked example of the system prompt. It is about one folder of one made-up user,
/// so a model that pastes it into another task is caught by the plan validator (a
/// criterion naming that folder while the task does not).
pub const EXAMPLE_FOLDER: &str = "/home/ana/Music";

/// The criterion of the worked example.
pub const CRITERION_EXAMPLE: &str = "the output gives the total size of /home/ana/Music";

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
show it, \"plausible\" when it is a judgement (the quality of a summary).
- task_criteria: [] with one sub-task; with several, what the combined answer must contain.
- Deleting, moving, renaming or overwriting asks the user first: give it its own sub-task.
- Only standard commands every system has; never third-party programs (jq, rg, fd, tree).
- Relative dates (today, last week) are relative to Today in the request.
- MUST NOT items given with the task are enforced in code; SHOULD PREFER items are advice \
from earlier tasks.

Example. Task: how big is my Music folder? Places: - Music → {folder} (folder)
{{\"subtasks\":[{{\"context\":\"Folder: {folder}\",\"intent\":\"Measure the total size of \
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
