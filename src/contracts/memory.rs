//! MKCT memory contracts: Megrams, queries, recalls and the operator's changes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::ids::{MegramId, TaskId};

/// The four layers of the pyramid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Level {
    /// Megram: atomic episodic fact.
    M,
    /// Knowledge: task-scoped cache.
    K,
    /// Common sense: promoted SOP or constraint, timeless until trust bankruptcy.
    C,
    /// Thinking: the Four Laws and persona; immutable.
    T,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::M => "M",
            Level::K => "K",
            Level::C => "C",
            Level::T => "T",
        }
    }
}

/// The Megram 11-tuple ⟨ID, Level, created_at, last_recalled_at, space, entity, content,
/// state, f, σ, k⟩.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Megram {
    pub id: MegramId,
    pub level: Level,
    pub created_at: DateTime<Utc>,
    pub last_recalled_at: Option<DateTime<Utc>>,
    pub space: String,
    pub entity: String,
    pub content: String,
    /// GGS macro-state at creation, or the origin of a non-GGS entry
    /// (`user-injected`, `persona`, `law`, `negative-feedback`, …).
    pub state: String,
    /// Stimulus magnitude in [0, 1].
    pub f: f64,
    /// Valence in [−1, +1].
    pub sigma: f64,
    /// Decay rate per day; 0 = timeless.
    pub k: f64,
}

/// A C-level SOP as served to R2.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SOPRecord {
    pub id: MegramId,
    pub space: String,
    pub entity: String,
    pub content: String,
    pub sigma: f64,
}

/// Planner effect of a group's potentials.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum MemoryAction {
    Ignore,
    Exploit,
    Avoid,
    Caution,
}

/// Live dual-channel potentials of one (space, entity) group.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Potentials {
    pub attention: f64,
    pub decision: f64,
    pub action: MemoryAction,
}

/// GGS → R5: one fire-and-forget write, published so observers see every write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MegramWrite {
    pub task_id: Option<TaskId>,
    pub megram: Megram,
    /// Set when the write is negative feedback against this C rule (a recalled Best
    /// Practice was followed and the round failed): R5 records it with
    /// `record_negative_feedback`, which takes f and the tags from the stored rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against_rule: Option<MegramId>,
}

/// R2 → R5: the calibration reads for one (space, entity) group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MemoryQuery {
    pub task_id: TaskId,
    pub space: String,
    pub entity: String,
}

/// R5 → R2, the reply to a [`MemoryQuery`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MemoryResponse {
    pub task_id: TaskId,
    pub space: String,
    pub entity: String,
    pub sops: Vec<SOPRecord>,
    pub potentials: Potentials,
    /// The M/K Megrams behind the potentials, newest first (bounded), so R2 can quote
    /// fresh evidence and the UI can say why a constraint was injected.
    #[serde(default)]
    pub recent: Vec<Megram>,
    #[serde(default)]
    pub error: Option<String>,
}

/// How a recalled memory constrains the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ConstraintKind {
    ShouldPrefer,
    MustNot,
    Caution,
}

/// What a recalled constraint came from. The wire names are the snake_case variant
/// names, as they were when this was a free string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ConstraintSource {
    /// One of the Four Laws, injected into every plan.
    Law,
    /// A tool the configuration blocks outright.
    BlockedTool,
    /// A target (path, host) the configuration blocks.
    BlockedTarget,
    /// The potentials of a memory group (Exploit, Avoid, Caution).
    Memory,
    /// A C-level SOP served by memory.
    Sop,
    /// Fresh M/K evidence that contradicts an SOP and overrides it.
    FreshEvidence,
}

/// One constraint R2 injected, with what it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RecalledConstraint {
    pub kind: ConstraintKind,
    pub text: String,
    pub source: ConstraintSource,
    #[serde(default)]
    pub megram_ids: Vec<MegramId>,
}

/// R2 → R7: what memory said before a plan and what R2 made of it (GGS learns from it
/// which Best Practices were in force for the round; observers show it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MemoryRecall {
    pub task_id: TaskId,
    pub space: String,
    pub entity: String,
    pub sops: Vec<SOPRecord>,
    pub potentials: Potentials,
    pub constraints: Vec<RecalledConstraint>,
    #[serde(default)]
    pub round: u32,
    /// Why memory could not be consulted for this group (no answer in time, a store
    /// error); the plan was made without it. `None` when memory answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Operator action on memory (UI / CLI), published for the auditor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum MemoryOperation {
    Remember,
    Forget,
    Pin,
}

/// User → R5: a change made through the operator API.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MemoryOperatorChange {
    pub operation: MemoryOperation,
    pub megram_ids: Vec<MegramId>,
    pub detail: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraint_sources_keep_their_wire_names() {
        let cases = [
            ("law", ConstraintSource::Law),
            ("blocked_tool", ConstraintSource::BlockedTool),
            ("blocked_target", ConstraintSource::BlockedTarget),
            ("memory", ConstraintSource::Memory),
            ("sop", ConstraintSource::Sop),
            ("fresh_evidence", ConstraintSource::FreshEvidence),
        ];
        for (wire, source) in cases {
            let json = format!("\"{wire}\"");
            assert_eq!(
                serde_json::from_str::<ConstraintSource>(&json).unwrap(),
                source
            );
            assert_eq!(serde_json::to_string(&source).unwrap(), json);
        }
        assert!(serde_json::from_str::<ConstraintSource>("\"Law\"").is_err());
    }

    #[test]
    fn a_recorded_constraint_parses_with_its_source() {
        let c: RecalledConstraint = serde_json::from_str(
            r#"{"kind": "must_not", "text": "t", "source": "blocked_target"}"#,
        )
        .unwrap();
        assert_eq!(c.source, ConstraintSource::BlockedTarget);
        assert!(c.megram_ids.is_empty());
    }
}
