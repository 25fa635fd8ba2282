//! The values that cross between the store thread and its callers: what a recall
//! returns, what the operator API lists and forgets, and what a Dreamer step hands back.
//! The store produces them; the handle, the operator API and the Dreamer consume them.
//!
//! **Invariant:** plain data with no behaviour beyond small derived facts (a level
//! total, a distillation's valence and state), and no import of the store, the operator
//! API or the Dreamer, so those modules depend on this one and never on each other's
//! internals.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::contracts::{Megram, MegramId, MegramOrigin, Potentials, SOPRecord};

/// What R2 gets for one group: the C-level SOPs (recall stamped), the live potentials,
/// and the newest unconsolidated M/K entries behind them.
#[derive(Clone, Debug, PartialEq)]
pub struct Recall {
    /// The group's C-level SOPs.
    pub sops: Vec<SOPRecord>,
    /// The group's live potentials.
    pub potentials: Potentials,
    /// Newest first, at most `memory.max_constraints`.
    pub recent: Vec<Megram>,
}

/// Megrams of each level in a group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LevelCounts {
    /// M entries: episodic facts.
    pub m: usize,
    /// K entries: task-scoped knowledge.
    pub k: usize,
    /// C entries: SOPs and constraints.
    pub c: usize,
    /// T entries: the laws.
    pub t: usize,
}

impl LevelCounts {
    /// All levels together.
    pub fn total(&self) -> usize {
        self.m + self.k + self.c + self.t
    }
}

/// One (space, entity) group as the memory panel lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GroupSummary {
    /// The group's space.
    pub space: String,
    /// The group's entity.
    pub entity: String,
    /// Live potentials now (consolidated sources excluded: their C entry speaks for them).
    pub potentials: Potentials,
    /// Its entries per level.
    pub levels: LevelCounts,
    /// How many of the group's entries were distilled into a C entry.
    pub consolidated: usize,
    /// Creation time of the group's newest entry.
    pub newest: DateTime<Utc>,
}

/// One Megram with its live contribution to the group's potentials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MegramView {
    /// The record, with its effective last recall.
    pub megram: Megram,
    /// The C entry this Megram was distilled into, if any.
    pub consolidated_into: Option<MegramId>,
    /// False for a consolidated source: it no longer adds to the potentials.
    pub counted: bool,
    /// |f|·e^(−kΔt) now (0 when not counted).
    pub attention: f64,
    /// σ·f·e^(−kΔt) now (0 when not counted).
    pub decision: f64,
}

/// What to forget.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ForgetTarget {
    /// One entry; an error if it is a T entry.
    Id(MegramId),
    /// Every entry whose id starts with these hex digits (what `/forget <prefix>` takes).
    IdPrefix(String),
    /// A whole group.
    Group {
        /// The group's space.
        space: String,
        /// The group's entity.
        entity: String,
    },
}

/// What a forget did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ForgetReport {
    /// The entries deleted.
    pub forgotten: Vec<MegramId>,
    /// T entries the target matched and that were kept.
    pub kept_immutable: Vec<MegramId>,
}

/// What a consolidation distils.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Distillation {
    /// Decision ≥ threshold: a rule to prefer.
    BestPractice,
    /// Decision ≤ −threshold: an absolute constraint.
    Constraint,
}

impl Distillation {
    /// The valence the distilled C entry gets: +1 or −1.
    pub fn sigma(self) -> f64 {
        match self {
            Distillation::BestPractice => 1.0,
            Distillation::Constraint => -1.0,
        }
    }

    /// The origin the distilled C entry records.
    pub fn state(self) -> MegramOrigin {
        match self {
            Distillation::BestPractice => MegramOrigin::BestPractice,
            Distillation::Constraint => MegramOrigin::Constraint,
        }
    }
}

/// A group that qualified for consolidation during a scan.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The group's space.
    pub space: String,
    /// The group's entity.
    pub entity: String,
    /// What it would distil into.
    pub kind: Distillation,
    /// The group's attention potential at the scan.
    pub attention: f64,
    /// The group's decision potential at the scan.
    pub decision: f64,
    /// Its unconsolidated M/K entries, newest first.
    pub sources: Vec<MegramId>,
}

/// What one store-side step of a pass did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepResult {
    /// Entries read in this step.
    pub scanned: usize,
    /// Groups completed in this step.
    pub groups: usize,
    /// Decayed entries deleted.
    pub gc_deleted: usize,
    /// C entries deleted because their trust went bankrupt.
    pub bankrupt: Vec<MegramId>,
    /// Groups that qualified for consolidation.
    pub candidates: Vec<Candidate>,
    /// Where the next step starts; `None` when the pass has seen every group.
    pub next: Option<Vec<u8>>,
}
