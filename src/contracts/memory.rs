//! MKCT memory contracts: Megrams, queries, recalls and the operator's changes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::ids::{MegramId, TaskId};
use super::medium::MacroState;

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
    /// The level's one-letter name: `M`, `K`, `C` or `T`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::M => "M",
            Level::K => "K",
            Level::C => "C",
            Level::T => "T",
        }
    }
}

/// Where a Megram came from: the GGS macro-state of the round that wrote it, or the
/// origin of an entry GGS did not write. Serialised as the same strings the field held
/// when it was free text (macro-states in snake_case, other origins hyphenated), so
/// stored records and recorded messages keep parsing. Every value any build has written
/// is a variant; a string outside the set is rejected rather than guessed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum MegramOrigin {
    /// Written by GGS when a task was accepted.
    Accept,
    /// Written by GGS when a task succeeded.
    Success,
    /// Written by GGS on a refine round.
    Refine,
    /// Written by GGS on a change_path round.
    ChangePath,
    /// Written by GGS on a change_approach round.
    ChangeApproach,
    /// Written by GGS on a break_symmetry round.
    BreakSymmetry,
    /// Written by GGS when a task was abandoned.
    Abandon,
    /// One of the Four Laws' T entries.
    Law,
    /// An operator-injected T entry; no longer created, but older stores hold some.
    Persona,
    /// An operator-injected M/K/C entry.
    #[serde(rename = "user-injected")]
    UserInjected,
    /// Appended against a Best Practice that was followed in a failed round.
    #[serde(rename = "negative-feedback")]
    NegativeFeedback,
    /// A Dreamer-distilled C entry of positive valence.
    #[serde(rename = "best-practice")]
    BestPractice,
    /// A Dreamer-distilled C entry of negative valence.
    Constraint,
}

impl MegramOrigin {
    /// Every origin, macro-states first.
    pub const ALL: [MegramOrigin; 13] = [
        MegramOrigin::Accept,
        MegramOrigin::Success,
        MegramOrigin::Refine,
        MegramOrigin::ChangePath,
        MegramOrigin::ChangeApproach,
        MegramOrigin::BreakSymmetry,
        MegramOrigin::Abandon,
        MegramOrigin::Law,
        MegramOrigin::Persona,
        MegramOrigin::UserInjected,
        MegramOrigin::NegativeFeedback,
        MegramOrigin::BestPractice,
        MegramOrigin::Constraint,
    ];

    /// The wire name (the string the serialised form holds).
    pub fn as_str(self) -> &'static str {
        match self {
            MegramOrigin::Accept => "accept",
            MegramOrigin::Success => "success",
            MegramOrigin::Refine => "refine",
            MegramOrigin::ChangePath => "change_path",
            MegramOrigin::ChangeApproach => "change_approach",
            MegramOrigin::BreakSymmetry => "break_symmetry",
            MegramOrigin::Abandon => "abandon",
            MegramOrigin::Law => "law",
            MegramOrigin::Persona => "persona",
            MegramOrigin::UserInjected => "user-injected",
            MegramOrigin::NegativeFeedback => "negative-feedback",
            MegramOrigin::BestPractice => "best-practice",
            MegramOrigin::Constraint => "constraint",
        }
    }

    /// The GGS macro-state this entry was written in, if GGS wrote it.
    pub fn macro_state(self) -> Option<MacroState> {
        Some(match self {
            MegramOrigin::Accept => MacroState::Accept,
            MegramOrigin::Success => MacroState::Success,
            MegramOrigin::Refine => MacroState::Refine,
            MegramOrigin::ChangePath => MacroState::ChangePath,
            MegramOrigin::ChangeApproach => MacroState::ChangeApproach,
            MegramOrigin::BreakSymmetry => MacroState::BreakSymmetry,
            MegramOrigin::Abandon => MacroState::Abandon,
            MegramOrigin::Law
            | MegramOrigin::Persona
            | MegramOrigin::UserInjected
            | MegramOrigin::NegativeFeedback
            | MegramOrigin::BestPractice
            | MegramOrigin::Constraint => return None,
        })
    }

    /// Whether GGS wrote this entry at the end of a task (accept, success, abandon).
    pub fn is_terminal(self) -> bool {
        self.macro_state().is_some_and(MacroState::is_terminal)
    }
}

impl From<MacroState> for MegramOrigin {
    fn from(state: MacroState) -> Self {
        match state {
            MacroState::Accept => MegramOrigin::Accept,
            MacroState::Success => MegramOrigin::Success,
            MacroState::Refine => MegramOrigin::Refine,
            MacroState::ChangePath => MegramOrigin::ChangePath,
            MacroState::ChangeApproach => MegramOrigin::ChangeApproach,
            MacroState::BreakSymmetry => MegramOrigin::BreakSymmetry,
            MacroState::Abandon => MegramOrigin::Abandon,
        }
    }
}

impl std::fmt::Display for MegramOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The Megram 11-tuple ⟨ID, Level, created_at, last_recalled_at, space, entity, content,
/// state, f, σ, k⟩.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Megram {
    /// The record's key in the store.
    pub id: MegramId,
    /// Which layer of the pyramid it lives in.
    pub level: Level,
    /// When it was written; decay runs from here until the first recall.
    pub created_at: DateTime<Utc>,
    /// When it was last served to a planner; decay then runs from here. None until first recalled.
    pub last_recalled_at: Option<DateTime<Utc>>,
    /// The group's first half: `intent:<slug>` for a kind of task, `tool:<name>` for a tool.
    pub space: String,
    /// The group's second half: `env:local` for a task, `path:<target>` for a tool call.
    pub entity: String,
    /// What happened, in one or two sentences a planner can read.
    pub content: String,
    /// GGS macro-state at creation, or the origin of a non-GGS entry.
    pub state: MegramOrigin,
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
    /// The C entry's id.
    pub id: MegramId,
    /// The group it was distilled for.
    pub space: String,
    /// The group it was distilled for, second half.
    pub entity: String,
    /// The procedure or constraint, in plain words.
    pub content: String,
    /// Its valence in [−1, +1]: above 0 a practice to follow, below 0 one to avoid.
    pub sigma: f64,
}

/// Planner effect of a group's potentials.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum MemoryAction {
    /// Too little history (attention below the floor) to say anything.
    Ignore,
    /// The history is good: prefer what worked.
    Exploit,
    /// The history is bad: steer clear.
    Avoid,
    /// History exists but points neither way: proceed with care.
    Caution,
}

/// Live dual-channel potentials of one (space, entity) group.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Potentials {
    /// M_att = Σ |f|·e^(−kΔt): how much decayed history the group holds, ≥ 0.
    pub attention: f64,
    /// M_dec = Σ σ·f·e^(−kΔt): the signed preference, above 0 for good outcomes.
    pub decision: f64,
    /// What the planner should do with the group, from the two potentials.
    pub action: MemoryAction,
}

/// GGS → R5: one fire-and-forget write, published so observers see every write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MegramWrite {
    /// The task the write came from; None for writes no task caused (laws, the operator).
    pub task_id: Option<TaskId>,
    /// The record to store.
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
    /// The task asking.
    pub task_id: TaskId,
    /// The group asked about, first half.
    pub space: String,
    /// The group asked about, second half.
    pub entity: String,
}

/// R5 → R2, the reply to a [`MemoryQuery`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MemoryResponse {
    /// The task that asked.
    pub task_id: TaskId,
    /// The group asked about, first half.
    pub space: String,
    /// The group asked about, second half.
    pub entity: String,
    /// The C-level SOPs of the group.
    pub sops: Vec<SOPRecord>,
    /// The group's potentials at the time of the query.
    pub potentials: Potentials,
    /// The M/K Megrams behind the potentials, newest first (bounded), so R2 can quote
    /// fresh evidence and the UI can say why a constraint was injected.
    #[serde(default)]
    pub recent: Vec<Megram>,
    /// Why the store could not answer; None when it did (an answer with no SOPs is still an
    /// answer).
    #[serde(default)]
    pub error: Option<String>,
}

/// How a recalled memory constrains the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ConstraintKind {
    /// Do this when it fits.
    ShouldPrefer,
    /// Never do this.
    MustNot,
    /// Be careful here; the outcome has been mixed.
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
    /// A tool GGS blocked for the task after a logical failure.
    BlockedTool,
    /// A target (path, URL, command) that failed earlier in the task, blocked by GGS.
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
    /// How strongly it binds the plan.
    pub kind: ConstraintKind,
    /// The constraint as the planner was told it.
    pub text: String,
    /// What it came from.
    pub source: ConstraintSource,
    /// The memory records behind it; empty for laws and blocked tools or targets.
    #[serde(default)]
    pub megram_ids: Vec<MegramId>,
}

/// R2 → R7: what memory said before a plan and what R2 made of it (GGS learns from it
/// which Best Practices were in force for the round; observers show it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MemoryRecall {
    /// The task being planned.
    pub task_id: TaskId,
    /// The group that was consulted, first half.
    pub space: String,
    /// The group that was consulted, second half.
    pub entity: String,
    /// The SOPs the planner was shown.
    pub sops: Vec<SOPRecord>,
    /// The group's potentials at the time of the recall.
    pub potentials: Potentials,
    /// Every constraint the planner injected, with its source.
    pub constraints: Vec<RecalledConstraint>,
    /// The replan round the plan belongs to; 0 for the first plan.
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
    /// The user added a memory.
    Remember,
    /// The user deleted memories.
    Forget,
    /// The user made memories timeless (k = 0).
    Pin,
}

/// User → R5: a change made through the operator API.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MemoryOperatorChange {
    /// What the user did.
    pub operation: MemoryOperation,
    /// The records it touched.
    pub megram_ids: Vec<MegramId>,
    /// A plain account of the change, for the audit log.
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

    /// Every string a build has written into `Megram.state`, with its variant.
    const ORIGINS: [(&str, MegramOrigin); 13] = [
        ("accept", MegramOrigin::Accept),
        ("success", MegramOrigin::Success),
        ("refine", MegramOrigin::Refine),
        ("change_path", MegramOrigin::ChangePath),
        ("change_approach", MegramOrigin::ChangeApproach),
        ("break_symmetry", MegramOrigin::BreakSymmetry),
        ("abandon", MegramOrigin::Abandon),
        ("law", MegramOrigin::Law),
        ("persona", MegramOrigin::Persona),
        ("user-injected", MegramOrigin::UserInjected),
        ("negative-feedback", MegramOrigin::NegativeFeedback),
        ("best-practice", MegramOrigin::BestPractice),
        ("constraint", MegramOrigin::Constraint),
    ];

    #[test]
    fn megram_origins_parse_from_and_serialise_to_the_stored_strings() {
        for (wire, origin) in ORIGINS {
            let json = format!("\"{wire}\"");
            assert_eq!(
                serde_json::from_str::<MegramOrigin>(&json).unwrap(),
                origin,
                "{wire}"
            );
            assert_eq!(serde_json::to_string(&origin).unwrap(), json);
            assert_eq!(origin.as_str(), wire);
            assert_eq!(origin.to_string(), wire);
        }
        let listed: Vec<MegramOrigin> = ORIGINS.iter().map(|(_, o)| *o).collect();
        assert_eq!(listed, MegramOrigin::ALL);
    }

    #[test]
    fn a_state_outside_the_set_is_rejected_not_guessed() {
        for bad in ["Accept", "user_injected", "consolidated", ""] {
            assert!(
                serde_json::from_str::<MegramOrigin>(&format!("\"{bad}\"")).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn macro_state_origins_map_both_ways_and_others_have_none() {
        for (_, origin) in ORIGINS {
            match origin.macro_state() {
                Some(state) => {
                    assert_eq!(MegramOrigin::from(state), origin);
                    assert_eq!(state.as_str(), origin.as_str());
                }
                None => assert!(!origin.is_terminal(), "{origin}"),
            }
        }
        let terminal: Vec<MegramOrigin> = MegramOrigin::ALL
            .into_iter()
            .filter(|o| o.is_terminal())
            .collect();
        assert_eq!(
            terminal,
            [
                MegramOrigin::Accept,
                MegramOrigin::Success,
                MegramOrigin::Abandon
            ]
        );
    }

    #[test]
    fn a_megram_recorded_with_a_hyphenated_origin_round_trips_unchanged() {
        let text = r#"{"id":"6c617773-0000-4000-8000-000000000001","level":"C","created_at":"2026-01-01T00:00:00Z","last_recalled_at":null,"space":"global:user","entity":"env:local","content":"c","state":"user-injected","f":1.0,"sigma":1.0,"k":0.0}"#;
        let m: Megram = serde_json::from_str(text).unwrap();
        assert_eq!(m.state, MegramOrigin::UserInjected);
        assert_eq!(serde_json::to_string(&m).unwrap(), text);
    }
}
