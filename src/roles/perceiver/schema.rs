//! The `Perception` R1's model fills in its one structured call, and the constraints it
//! carries; the rules the schema cannot express are checked in `route`.
//!
//! **Invariant:** the schema never holds `task_id` or `raw_input`: code sets both, so the
//! model cannot rewrite what the user asked or which task it is.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contracts::AnswerShape;

/// What the input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Something to do or find out.
    Task,
    /// Greetings, small talk, questions about artoo, and questions general knowledge
    /// answers without a tool (arithmetic, a definition, rewording given text).
    Chat,
    /// No reasonable interpretation exists without asking.
    Clarify,
}

/// Scope and deadline, as the user gave them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PerceivedConstraints {
    /// An absolute date or time the user gave, in ISO 8601; otherwise null.
    #[serde(default)]
    pub deadline: Option<String>,
    /// Where the task applies, only if the user said so; otherwise null.
    #[serde(default)]
    pub scope: Option<String>,
}

/// R1's one structured call. Properties are written in alphabetical order (see
/// docs/llm.md), so the model restates the goal (`constraints`, `intent`) before it
/// decides what the input is (`kind`), and only then writes a `question` or a `reply`, and
/// last the `shape` of the answer asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = shape_required)]
pub struct Perception {
    #[serde(default)]
    pub(crate) constraints: PerceivedConstraints,
    /// Always: the user's goal, faithfully restated in one sentence.
    pub intent: String,
    /// task, chat or clarify.
    pub kind: Kind,
    /// Only with kind clarify: one short question; otherwise null.
    #[serde(default)]
    pub question: Option<String>,
    /// Only with kind chat: the short answer to the user; otherwise null.
    #[serde(default)]
    pub reply: Option<String>,
    /// The kind of answer the user asks for (checked by code against the answer).
    #[serde(default)]
    pub shape: AnswerShape,
}

/// The shape is required by the schema (a grammar lets a small model skip an optional
/// field, and it does), and read as "not said" when a reply lacks it.
fn shape_required(schema: &mut schemars::Schema) {
    crate::llm::require_field(schema, "shape");
}
