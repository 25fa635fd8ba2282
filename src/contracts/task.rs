//! Perception and planning contracts: what the user asked (R1) and how it was cut up (R2).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ids::{SubTaskId, TaskId};
use super::tool::ToolRef;

/// One earlier exchange of the session, given to R1 to resolve references ("do it again",
/// "wrong", "answer in Chinese"). The entry point keeps the last five; R1 keeps no state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SessionTurn {
    /// What the user typed in that turn.
    pub input: String,
    /// The summary of what the turn's task did.
    pub summary: String,
}

/// User → R1 (and R7, which listens): free text as typed, plus the session history the
/// entry point keeps and the task's time budget. The budget bounds the whole task, from
/// submit to its `FinalResult`: GGS measures Ω's elapsed term from `submitted_at` and,
/// when the budget runs out, delivers the graceful result at once. Riding on the
/// submission itself, the budget reaches GGS before anything a role does for the task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskSubmitted {
    /// The id the runtime minted for the task.
    pub task_id: TaskId,
    /// The user's input, verbatim.
    pub raw_input: String,
    /// When the user submitted it.
    pub submitted_at: DateTime<Utc>,
    /// Earlier turns of the same session, oldest first; empty for a fresh session.
    #[serde(default)]
    pub session_history: Vec<SessionTurn>,
    /// The whole task's time budget, in milliseconds (0 only in records written before
    /// the submission carried it).
    #[serde(default)]
    pub time_budget_ms: u64,
    /// Set when a schedule started the task, not the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled: Option<ScheduledRun>,
}

/// A run of a scheduled task: which schedule, when it was due, and what its result must
/// say about it (a run that started late, runs missed while the computer slept).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ScheduledRun {
    /// The schedule's id.
    pub schedule_id: String,
    /// When the run was due.
    pub due_at: DateTime<Utc>,
    /// Due times before it that were missed and are not run.
    pub missed: u32,
    /// The run in words, for the result.
    pub note: String,
    /// How long a question of the run waits for the user (its Law 1 requests), in
    /// seconds: the schedule's own window, which may outlast the task's budget (time a
    /// person is awaited is not the task's). 0: the settings' confirmation timeout.
    #[serde(default)]
    pub answer_window_secs: u64,
}

/// Limits the user set on a task. Every field is optional; the default has none.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Constraints {
    /// Free text; `null` when the user set no scope.
    pub scope: Option<String>,
    /// ISO 8601 when the user gave an absolute deadline. Relative words stay in the intent
    /// (R2 owns dates), so this is kept as text rather than parsed.
    pub deadline: Option<String>,
}

/// The kind of answer a request asks for, written by R1 from the user's words, so code
/// can check that the delivered answer has that shape: asked *which* file, an answer
/// that is only a size has the wrong shape, whatever the numbers say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum AnswerShape {
    /// Not said: a model that wrote none, a provider that ignored the schema, or a record
    /// written before the shape was kept. Never offered to a model as a choice.
    #[default]
    Any,
    /// Which one: an item by its name (a file, a row, a person), not only its value.
    Item,
    /// One number: a count, a total, an average.
    Number,
    /// A value for each group: counts or totals per kind, per folder, per category.
    PerGroup,
    /// A list of items.
    List,
    /// A calendar date.
    Date,
    /// Yes or no.
    YesNo,
    /// A file the task writes. Offered to a model as `new_file`: a small model read
    /// "file" in "the heaviest item in the CSV file" and asked for a file to be written.
    #[serde(alias = "new_file")]
    File,
    /// Free text: a summary, a quote, an explanation.
    Text,
    /// An action carried out (delete, move, rename, run): the answer is what was done.
    Action,
}

/// A model fills the shape as one word of a closed list: the schema is a plain string
/// enum (the variants' docs stay out of the grammar) of the shapes a model may choose —
/// never `any`: a small model takes the word that commits to nothing, and an answer whose
/// shape was never said cannot be checked.
impl schemars::JsonSchema for AnswerShape {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AnswerShape".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = AnswerShape::CHOSEN
            .iter()
            .map(|s| match s {
                AnswerShape::File => "new_file",
                other => other.name(),
            })
            .collect();
        schemars::Schema::try_from(serde_json::json!({ "type": "string", "enum": names }))
            .expect("a string enum is a schema")
    }
}

impl AnswerShape {
    /// The shapes a model chooses from, in the order the prompts list them.
    pub const CHOSEN: [AnswerShape; 9] = [
        AnswerShape::Item,
        AnswerShape::Number,
        AnswerShape::PerGroup,
        AnswerShape::List,
        AnswerShape::Date,
        AnswerShape::YesNo,
        AnswerShape::File,
        AnswerShape::Text,
        AnswerShape::Action,
    ];

    /// The shape's name as serialised.
    pub const fn name(self) -> &'static str {
        match self {
            AnswerShape::Any => "any",
            AnswerShape::Item => "item",
            AnswerShape::Number => "number",
            AnswerShape::PerGroup => "per_group",
            AnswerShape::List => "list",
            AnswerShape::Date => "date",
            AnswerShape::YesNo => "yes_no",
            AnswerShape::File => "file",
            AnswerShape::Text => "text",
            AnswerShape::Action => "action",
        }
    }

    /// Whether nothing was said about the answer (the field is left out when written).
    pub fn is_any(&self) -> bool {
        *self == AnswerShape::Any
    }

    /// What the answer must hold, in words for a model; `None` when nothing was said.
    pub fn words(self) -> Option<&'static str> {
        Some(match self {
            AnswerShape::Any => return None,
            AnswerShape::Item => "which one: the item's name, with its value as evidence",
            AnswerShape::Number => "one number",
            AnswerShape::PerGroup => "a value for each group, every group named",
            AnswerShape::List => "a list of the items",
            AnswerShape::Date => "a calendar date (YYYY-MM-DD)",
            AnswerShape::YesNo => "yes or no, with the evidence",
            AnswerShape::File => "a file written where the user said",
            AnswerShape::Text => "text (a summary or a quote)",
            AnswerShape::Action => "what was done",
        })
    }
}

/// R1 → R2: the task as understood, with its constraints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskSpec {
    /// The task being specified.
    pub task_id: TaskId,
    /// What the user wants, stated as one outcome.
    pub intent: String,
    /// Limits the user set.
    #[serde(default)]
    pub constraints: Constraints,
    /// Verbatim user input, set by code — never by the model.
    pub raw_input: String,
    /// The kind of answer the user asked for; the delivered answer is checked against it.
    #[serde(default, skip_serializing_if = "AnswerShape::is_any")]
    pub answer: AnswerShape,
}

/// How a failed criterion weighs in D.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum CriterionMode {
    /// Checkable against tool output; a failure counts 1.0.
    Verifiable,
    /// A judgement call; a failure counts k/N over the attempts.
    Plausible,
}

/// What code checks of a criterion, in a closed vocabulary: each kind is evaluated
/// against the end state of the files and the delivered answer, never by a model
/// (`checks::criteria`). The seed's *verifiable* criteria are the ones code can check;
/// a criterion with a check is judged by its check, whatever a model says.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Check {
    /// When the work ends a file is at `path`; with `contains`, its text holds that text
    /// (case ignored).
    FileExists {
        /// An absolute path, or one under the home folder (`~/…`).
        path: String,
        /// Text the file must hold.
        #[serde(default)]
        contains: Option<String>,
    },
    /// When the work ends nothing is at `path` (deleted, or moved away).
    FileGone {
        /// An absolute path, or one under the home folder (`~/…`).
        path: String,
    },
    /// The answer states `text` (case and spacing ignored; a number as any number equal
    /// to it).
    AnswerStates {
        /// What the answer must state.
        text: String,
    },
    /// The answer quotes a whole line of the file at `path`, and that line holds `text`
    /// (case ignored).
    QuotesLine {
        /// The file whose line is quoted.
        path: String,
        /// What the quoted line holds.
        text: String,
    },
}

/// A success criterion: a plain string or a `{criterion, mode, check}` object. Both
/// forms are accepted, and a criterion with neither a mode nor a check serialises back
/// as a plain string, so plain-string JSON round-trips unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "specta", derive(specta::Type), specta(type = CriterionShape))]
pub struct Criterion {
    /// The assertion, in plain words.
    pub criterion: String,
    /// How it can be checked; None counts as verifiable.
    pub mode: Option<CriterionMode>,
    /// What code checks of it, where code can.
    pub check: Option<Check>,
}

impl Criterion {
    /// A criterion without a mode.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            criterion: text.into(),
            mode: None,
            check: None,
        }
    }

    /// A criterion with a mode.
    pub fn with_mode(text: impl Into<String>, mode: CriterionMode) -> Self {
        Self {
            criterion: text.into(),
            mode: Some(mode),
            check: None,
        }
    }

    /// A verifiable criterion code checks by `check`.
    pub fn checked(text: impl Into<String>, check: Check) -> Self {
        Self {
            criterion: text.into(),
            mode: Some(CriterionMode::Verifiable),
            check: Some(check),
        }
    }

    /// A criterion without a mode counts as verifiable (issue: GGS D computation).
    pub fn effective_mode(&self) -> CriterionMode {
        self.mode.unwrap_or(CriterionMode::Verifiable)
    }
}

/// The exported TypeScript shape of a serialised [`Criterion`] (what its `Serialize` impl
/// writes): a plain string without a mode, an object with one.
#[cfg(feature = "specta")]
#[derive(Serialize, specta::Type)]
#[serde(untagged)]
#[allow(dead_code)] // only its type shape is used
enum CriterionShape {
    Plain(String),
    Structured {
        criterion: String,
        #[specta(optional)]
        mode: Option<CriterionMode>,
        #[specta(optional)]
        check: Option<Check>,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum CriterionRepr {
    Plain(String),
    Structured {
        criterion: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<CriterionMode>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        check: Option<Check>,
    },
}

impl Serialize for Criterion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self.mode, &self.check) {
            (None, None) => serializer.serialize_str(&self.criterion),
            (mode, check) => CriterionRepr::Structured {
                criterion: self.criterion.clone(),
                mode,
                check: check.clone(),
            }
            .serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Criterion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match CriterionRepr::deserialize(deserializer)? {
            CriterionRepr::Plain(criterion) => Criterion::new(criterion),
            CriterionRepr::Structured {
                criterion,
                mode,
                check,
            } => Criterion {
                criterion,
                mode,
                check,
            },
        })
    }
}

/// One step of a plan. R2 plans it inside the [`DispatchManifest`]; the dispatcher
/// releases it to R3 as its own envelope, with earlier groups' outputs appended to its
/// `context`. Ids are minted by the runtime, never by the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SubTask {
    /// The id the runtime minted for the sub-task.
    pub subtask_id: SubTaskId,
    /// The task it belongs to.
    pub parent_task_id: TaskId,
    /// What this sub-task must achieve.
    pub intent: String,
    /// Everything the executor needs beyond the intent; earlier groups' outputs are
    /// appended here by the dispatcher.
    pub context: String,
    /// Assertions R4a checks against the tool calls.
    pub success_criteria: Vec<Criterion>,
    /// Same number = parallel; groups run in ascending order.
    pub sequence: i64,
    /// A deadline the plan names for the sub-task, as written; `null` unless it names one.
    #[serde(default)]
    pub deadline: Option<String>,
    /// The task's MUST NOT tools (GGS blocked_tools ∪ memory Avoid). The plan validator
    /// is the first line; the executor refuses these in code as the second.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked_tools: Vec<ToolRef>,
    /// The task's accumulated blocked targets (paths, queries, commands): refused in code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked_targets: Vec<String>,
    /// Tools of a memory `Caution` approach: every call of them asks for confirmation in
    /// this task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub confirm_tools: Vec<ToolRef>,
    /// The shape of the task's answer, on the sub-tasks whose output is the answer (the
    /// plan's last group); `any` on the others. The executor checks its finish against it.
    #[serde(default, skip_serializing_if = "AnswerShape::is_any")]
    pub answer: AnswerShape,
    /// The user's own words, verbatim, on the sub-tasks whose output is the answer (the
    /// plan's last group); `None` on the others. The intent paraphrases them and can
    /// lose a part of them (a qualifier, "subfolders included"); the executor reads both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
}

impl SubTask {
    /// Sub-task `sequence` of the task `parent`, asking for `intent`, with nothing else
    /// set: no context, no criteria (its intent is judged), no deadline, no blocked tools
    /// or targets, an answer of any shape and none of the user's words.
    pub fn new(parent: TaskId, sequence: i64, intent: impl Into<String>) -> Self {
        Self {
            subtask_id: SubTaskId::mint(),
            parent_task_id: parent,
            intent: intent.into(),
            context: String::new(),
            success_criteria: Vec::new(),
            sequence,
            deadline: None,
            blocked_tools: Vec::new(),
            blocked_targets: Vec::new(),
            confirm_tools: Vec::new(),
            answer: AnswerShape::default(),
            request: None,
        }
    }

    /// What the sub-task states, in the planner's and the user's words: its intent, the
    /// user's own words, its criteria, and its context up to the first block code added
    /// ([`CODE_MADE_CONTEXT`]: memory of earlier tasks, earlier steps' outputs, a note that
    /// the step failed before). A rule that reads a statement from the request — "older
    /// than 30 days", "bigger than 2 MB" — reads it here: a quoted earlier result or a
    /// note that a step "failed before" states no bound.
    pub fn stated(&self) -> String {
        let planned = CODE_MADE_CONTEXT
            .iter()
            .filter_map(|m| self.context.find(m))
            .min()
            .map_or(self.context.as_str(), |at| &self.context[..at]);
        [self.intent.as_str(), planned.trim_end()]
            .into_iter()
            .chain(self.request.as_deref())
            .chain(self.success_criteria.iter().map(|c| c.criterion.as_str()))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The criteria a validator judges: the plan's, or, when the planner gave none, the
    /// intent itself, so that nothing passes vacuously.
    pub fn criteria_to_judge(&self) -> Vec<Criterion> {
        if self.success_criteria.is_empty() {
            vec![Criterion::new(format!(
                "The tool calls show that this was done: {}",
                self.intent
            ))]
        } else {
            self.success_criteria.clone()
        }
    }
}

/// The openings of the blocks code appends to a sub-task's context, after what the
/// planner wrote: R2's memory of earlier tasks, the dispatcher's outputs of earlier steps,
/// and the plan validator's note on a step planned again after it failed.
pub const CODE_MADE_CONTEXT: [&str; 3] = [
    MEMORY_CONTEXT_HEADING,
    PRIOR_OUTPUTS_HEADING,
    FAILED_BEFORE_NOTE,
];

/// The heading of R2's memory block in a sub-task's context.
pub const MEMORY_CONTEXT_HEADING: &str = "Memory from earlier tasks (code-derived):";

/// The heading of the block of earlier outputs in a sub-task's context.
pub const PRIOR_OUTPUTS_HEADING: &str =
    "Outputs of earlier steps (use them directly; do not re-run their discovery):";

/// The opening of the plan validator's note on a step that failed before.
pub const FAILED_BEFORE_NOTE: &str = "The same step failed before";

/// R2 → dispatcher, heard by R4b: one planning round's sub-tasks, and the fan-in gate's
/// expectation for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DispatchManifest {
    /// The task being dispatched.
    pub task_id: TaskId,
    /// Every sub-task of the round, in plan order, as R2 planned it: the plan travels
    /// once, here, and each sub-task once more only when it is released to R3.
    pub subtasks: Vec<SubTask>,
    /// Embedded for R4b's context.
    pub task_spec: Option<TaskSpec>,
    /// When the round was dispatched.
    pub dispatched_at: DateTime<Utc>,
    /// Assertions about the COMBINED output; R4b judges these.
    pub task_criteria: Vec<Criterion>,
    /// 0 for the first plan, n for the n-th replan.
    #[serde(default)]
    pub round: u32,
}

impl DispatchManifest {
    /// The round's sub-task ids, in plan order.
    pub fn subtask_ids(&self) -> impl Iterator<Item = SubTaskId> + '_ {
        self.subtasks.iter().map(|s| s.subtask_id)
    }
}
