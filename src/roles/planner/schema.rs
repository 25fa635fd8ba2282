//! What the model writes back to R2: the plan ([`PlanDraft`] of [`DraftSubTask`]s with
//! their [`DraftCriterion`]s), the graceful-failure moves ([`GracefulDraft`]), and the
//! worked example the plan prompt shows. The prompt builds requests from these shapes and
//! the plan validator judges them; both import them from here, so neither depends on the
//! other for the schema.
//!
//! **Invariant:** nothing the model writes here carries an id; sub-task ids and parent
//! ids are minted by the runtime after the plan validator accepted the plan.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contracts::{AnswerShape, Check, Criterion, CriterionMode};
use crate::tools::ToolName;

/// How a criterion can be judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DraftMode {
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
    pub(crate) mode: DraftMode,
    /// What code can check when the work ends, with paths and words the task gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) check: Option<Check>,
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
                #[serde(default)]
                check: Option<Check>,
            },
        }
        Ok(match Form::deserialize(deserializer)? {
            Form::Text(criterion) => DraftCriterion::verifiable(criterion),
            Form::Object {
                criterion,
                mode,
                check,
            } => DraftCriterion {
                criterion,
                mode: mode.unwrap_or(DraftMode::Verifiable),
                check,
            },
        })
    }
}

impl DraftCriterion {
    /// A criterion a tool result can show.
    pub fn verifiable(text: impl Into<String>) -> Self {
        Self {
            criterion: text.into(),
            mode: DraftMode::Verifiable,
            check: None,
        }
    }

    /// The criterion, its check kept only where `keep` holds for it (a check a model
    /// wrote must stand on the task's own words).
    pub(crate) fn to_criterion(&self, keep: impl Fn(&Check) -> bool) -> Criterion {
        let mut criterion = Criterion::with_mode(self.criterion.trim(), self.mode.into());
        criterion.check = self.check.clone().filter(|c| {
            let kept = keep(c);
            if !kept {
                tracing::info!(check = ?c, "a check the plan wrote names what the task does not; dropped");
            }
            kept
        });
        criterion
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
    #[schemars(length(min = 1, max = MAX_TOOLS))]
    pub tools: Vec<ToolName>,
}

/// The most sub-tasks a plan may have: an everyday task needs one to three, and a small
/// model that starts listing every step it can think of (one plan ran to its token cap
/// with sub-task after sub-task) is stopped by the grammar here.
pub const MAX_SUBTASKS: usize = 4;
/// The most criteria a sub-task or the task may have.
pub const MAX_CRITERIA: usize = 4;
/// The most tools a sub-task may declare. One action needs one to three; a small model
/// that falls into repeating `"shell","shell",…` (one plan ran to its token cap so) is
/// stopped by the grammar here.
pub const MAX_TOOLS: usize = 4;

/// R2's plan: the sub-tasks and the criteria of their merged output, without ids.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = answer_required)]
pub struct PlanDraft {
    /// The kind of answer the task asks for; the last group's sub-tasks deliver it and
    /// code checks it. Required by the schema (a grammar that lets a small model leave a
    /// field out sees it left out), read as "not said" when a reply lacks it.
    #[serde(default)]
    pub answer: AnswerShape,
    /// As few as the task allows; usually one.
    #[schemars(length(max = MAX_SUBTASKS))]
    pub subtasks: Vec<DraftSubTask>,
    /// With several sub-tasks: what the combined answer must contain. Empty with one.
    #[serde(default)]
    #[schemars(length(max = MAX_CRITERIA))]
    pub task_criteria: Vec<DraftCriterion>,
}

fn answer_required(schema: &mut schemars::Schema) {
    crate::llm::require_field(schema, "answer");
}

impl PlanDraft {
    /// The plan with each sub-task that a later one repeats left out: the same intent and
    /// context (up to case and spacing) with the same tools does the same work twice (a
    /// small model planned "read the fourth line", "list the lines", "read the fourth
    /// line"; the repeat ran out the time budget). The last one is kept, where the plan
    /// put the work last.
    pub fn without_repeats(&self) -> PlanDraft {
        let fold = |s: &str| crate::text::fold(s);
        let key = |s: &DraftSubTask| {
            (
                fold(&s.intent),
                fold(&s.context),
                s.tools.iter().copied().collect::<BTreeSet<_>>(),
            )
        };
        let keys: Vec<_> = self.subtasks.iter().map(key).collect();
        let subtasks = self
            .subtasks
            .iter()
            .enumerate()
            .filter(|(i, _)| !keys[i + 1..].contains(&keys[*i]))
            .map(|(_, s)| s.clone())
            .collect();
        PlanDraft {
            subtasks,
            ..self.clone()
        }
    }

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

/// The worked example of the system prompt. It is about one folder of one made-up user,
/// so a model that pastes it into another task is caught by the plan validator (a
/// criterion naming that folder while the task does not).
pub const EXAMPLE_FOLDER: &str = "/home/ana/Music";

/// The criterion of the worked example.
pub const CRITERION_EXAMPLE: &str = "the output gives the total size of /home/ana/Music";
