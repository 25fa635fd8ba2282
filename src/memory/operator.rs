//! The operator API: what the desktop memory panel and the CLI use to see and edit
//! memory. Agents never get it; they reach memory only through the bus.
//!
//! - [`MemoryOperator::groups`]: every (space, entity) group with its live potentials
//!   and action;
//! - [`MemoryOperator::group`]: a group's Megrams, each with its live contribution to
//!   both channels (zero for a source already consolidated into a C entry, and why);
//! - [`MemoryOperator::remember`], [`MemoryOperator::forget`], [`MemoryOperator::pin`].
//!
//! The operator cannot create T entries: the T layer is the Four Laws, which every prompt
//! carries from code, and nothing reads an operator-made T entry. Persona entries an
//! older build stored can be forgotten, so a typo is never permanent.
//!
//! **Invariant:** every change made here is published on the bus as a
//! `MemoryOperatorChange` from `Role::User`, after it is stored, so the auditor sees it;
//! and no operation here can delete, demote or overwrite one of the Four Laws.

use serde::{Deserialize, Serialize};

use super::error::MemoryError;
use super::handle::Memory;
use super::megram::{self as mg, DEFAULT_ENTITY, DEFAULT_SPACE};
use super::store::Command;
pub use super::types::{ForgetReport, ForgetTarget, GroupSummary, LevelCounts, MegramView};
use crate::bus::{Bus, BusHandle};
use crate::contracts::{Level, Megram, MegramId, MemoryOperation, MemoryOperatorChange, Role};

/// An operator-injected entry. f, k and state follow the level (see
/// [`mg::remembered`]); `sigma` is +1 for "prefer this", −1 for "never do this".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Remember {
    /// The level to store it at (M, K or C; never T).
    pub level: Level,
    /// The group's space.
    pub space: String,
    /// The group's entity.
    pub entity: String,
    /// What to remember, in plain words.
    pub content: String,
    /// Its valence in [−1, +1].
    pub sigma: f64,
}

impl Remember {
    /// A C-level best practice in `global:user` / `env:local`: what `/remember` stores
    /// when told nothing else.
    pub fn new(content: impl Into<String>) -> Self {
        Self {
            level: Level::C,
            space: DEFAULT_SPACE.into(),
            entity: DEFAULT_ENTITY.into(),
            content: content.into(),
            sigma: 1.0,
        }
    }

    /// Sets the level.
    pub fn level(mut self, level: Level) -> Self {
        self.level = level;
        self
    }

    /// Sets the group.
    pub fn tags(mut self, space: impl Into<String>, entity: impl Into<String>) -> Self {
        self.space = space.into();
        self.entity = entity.into();
        self
    }

    /// Sets the valence.
    pub fn sigma(mut self, sigma: f64) -> Self {
        self.sigma = sigma;
        self
    }
}

/// How much of a content the audit detail quotes.
const DETAIL_CHARS: usize = 80;

/// Why the operator cannot create a T entry.
pub const T_REFUSED: &str = "the T layer holds the Four Laws, fixed in code; no prompt reads \
     other T entries, so remember a C rule instead (it reaches the planner as SHOULD PREFER, \
     or MUST NOT with σ −1)";

/// The operator's view of memory, publishing every change as `Role::User`.
#[derive(Clone)]
pub struct MemoryOperator {
    memory: Memory,
    bus: BusHandle,
}

impl MemoryOperator {
    /// An operator over `memory` that reports its changes on `bus`.
    pub fn new(memory: Memory, bus: &Bus) -> Self {
        Self {
            memory,
            bus: bus.handle(Role::User),
        }
    }

    /// Every group in the store, with its counts and live potentials.
    pub async fn groups(&self) -> Result<Vec<GroupSummary>, MemoryError> {
        self.memory
            .store()
            .call(|reply| Command::Groups { reply })
            .await
    }

    /// Every entry of one group.
    pub async fn group(&self, space: &str, entity: &str) -> Result<Vec<MegramView>, MemoryError> {
        let (space, entity) = (space.to_string(), entity.to_string());
        self.memory
            .store()
            .call(|reply| Command::Group {
                space,
                entity,
                reply,
            })
            .await
    }

    /// Stores a user-injected entry now (not fire-and-forget: the panel shows it). The T
    /// layer is refused: it is the Four Laws, and no prompt reads an operator T entry, so
    /// one would be stored, shown and never used.
    pub async fn remember(&self, r: Remember) -> Result<Megram, MemoryError> {
        if r.content.trim().is_empty() {
            return Err(MemoryError::Invalid("nothing to remember".into()));
        }
        if r.level == Level::T {
            return Err(MemoryError::Invalid(T_REFUSED.into()));
        }
        let megram = mg::remembered(
            r.level,
            r.space.trim(),
            r.entity.trim(),
            r.content.trim(),
            r.sigma,
            self.memory.now(),
        );
        let stored = self
            .memory
            .store()
            .call(|reply| Command::Insert {
                megram: Box::new(megram),
                reply,
            })
            .await?;
        self.publish(
            MemoryOperation::Remember,
            vec![stored.id],
            format!(
                "remember {} [{} / {}] σ={:+}: {}",
                stored.level.as_str(),
                stored.space,
                stored.entity,
                stored.sigma,
                crate::text::prefix(&stored.content, DETAIL_CHARS)
            ),
        );
        Ok(stored)
    }

    /// Hard-deletes the target's entries with all their keys. The Four Laws are never
    /// deleted: a law's id is an error, a prefix or group keeps them and says so. A
    /// persona T entry an older build stored is deleted like any other entry.
    pub async fn forget(&self, target: ForgetTarget) -> Result<ForgetReport, MemoryError> {
        let what = match &target {
            ForgetTarget::Id(id) => format!("id {id}"),
            ForgetTarget::IdPrefix(p) => format!("id prefix {p}"),
            ForgetTarget::Group { space, entity } => format!("group [{space} / {entity}]"),
        };
        let report = self
            .memory
            .store()
            .call(|reply| Command::Forget { target, reply })
            .await?;
        if !report.forgotten.is_empty() {
            let mut detail = format!("forget {what}: {} entries", report.forgotten.len());
            if !report.kept_immutable.is_empty() {
                detail.push_str(&format!(", {} T entries kept", report.kept_immutable.len()));
            }
            self.publish(MemoryOperation::Forget, report.forgotten.clone(), detail);
        }
        Ok(report)
    }

    /// Makes an entry timeless (k = 0). T entries are already timeless and immutable.
    pub async fn pin(&self, id: MegramId) -> Result<Megram, MemoryError> {
        let pinned = self
            .memory
            .store()
            .call(|reply| Command::Pin { id, reply })
            .await?;
        self.publish(
            MemoryOperation::Pin,
            vec![id],
            format!(
                "pin {} [{} / {}]: {}",
                pinned.level.as_str(),
                pinned.space,
                pinned.entity,
                crate::text::prefix(&pinned.content, DETAIL_CHARS)
            ),
        );
        Ok(pinned)
    }

    fn publish(&self, operation: MemoryOperation, megram_ids: Vec<MegramId>, detail: String) {
        self.bus.publish(
            Role::Memory,
            MemoryOperatorChange {
                operation,
                megram_ids,
                detail,
            },
        );
    }
}
