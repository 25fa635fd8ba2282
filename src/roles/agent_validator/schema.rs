//! The shape of R4a's verdict as the model must return it: one judgement per criterion,
//! then a diagnosis and a remedy. The JSON schema derived from these types is what a
//! constrained model is held to.
//!
//! **Invariant:** the types carry only what the model decides; nothing here decides
//! whether a sub-task matched (the code does that from the aligned judgements).
//! Property order in the schema is alphabetical, so the fields the model must think
//! through (evidence) sort before the verdict (met).

use schemars::JsonSchema;
use serde::Deserialize;

use crate::contracts::FailureClass;

// Plain comments, not doc comments, on this enum and its variants: doc comments
// would become schema descriptions, and small models copy those into their answers as if
// they were criteria (the system prompt explains the two causes instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum UnmetCause {
    // The approach, the command or the output is wrong.
    Logical,
    // The environment blocked it: missing file or path, permission denied, network,
    // timeout, a missing program, or the user denied the action under Law 1.
    Environmental,
}

impl From<UnmetCause> for FailureClass {
    fn from(value: UnmetCause) -> Self {
        match value {
            UnmetCause::Logical => FailureClass::Logical,
            UnmetCause::Environmental => FailureClass::Environmental,
        }
    }
}

/// The longest evidence a verdict quotes for one criterion.
pub const MAX_EVIDENCE_CHARS: u32 = 200;

/// One criterion, judged once.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct CriterionJudgement {
    /// The criterion, copied verbatim.
    pub criterion: String,
    /// The call number and the few words of its output that decide it (like: [1]
    /// printed 2); one short line, never the whole call. Bounded, so that a verdict
    /// never spends its time copying a listing.
    #[schemars(length(max = MAX_EVIDENCE_CHARS))]
    pub evidence: String,
    /// True only when the evidence positively shows the criterion holds.
    pub met: bool,
    /// For an unmet criterion: "environmental" or "logical"; null when met.
    #[serde(default)]
    pub(crate) unmet_cause: Option<UnmetCause>,
}

/// R4a's answer about one attempt.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct Judgement {
    /// One entry per success criterion, in the order given.
    pub criteria: Vec<CriterionJudgement>,
    /// If any criterion is unmet: what was wrong, quoting the evidence. Empty otherwise.
    #[serde(default)]
    pub diagnosis: String,
    /// If any criterion is unmet: what the executor must do differently on its next
    /// attempt. Empty otherwise.
    #[serde(default)]
    pub remedy: String,
}
