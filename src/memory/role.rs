//! The R5 role on the bus: consumes everything addressed to `Role::Memory`.
//!
//! - `Megram` from GGS → [`Memory::write`] (fire-and-forget; a terminal state schedules
//!   the Dreamer's post-task pass). Writes from any other role are refused (GGS is the
//!   sole writer) and logged; the auditor sees them on its tap anyway. A
//!   write marked `against_rule` is GGS's negative feedback: it is recorded with
//!   [`Memory::record_negative_feedback`] against that rule, and only against a
//!   Dreamer-distilled Best Practice (C, σ > 0) — the operator's own rules and the T
//!   layer are not corrected by the controller.
//! - `MemoryQuery` → one `MemoryResponse` reply to R2 with the group's SOPs (their recall
//!   stamped), potentials and recent M/K entries; a store failure is reported in the
//!   reply's `error` field with Ignore potentials, never by silence.
//! - `MemoryOperatorChange` is an observability copy: nothing to do.
//!
//! **Invariant:** the role answers every `MemoryQuery` exactly once, and it ends when
//! the bus closes, leaving the store open for its owner to close.

use super::handle::Memory;
use super::potentials;
use crate::bus::{Bus, BusHandle, Envelope, Inbox};
use crate::contracts::{Level, MegramId, MegramOrigin, MemoryQuery, MemoryResponse, Message, Role};

/// R5: a [`Memory`] wired to the bus.
pub struct MemoryRole {
    memory: Memory,
    bus: BusHandle,
    inbox: Inbox,
}

impl MemoryRole {
    /// Subscribes now, so nothing published after this call is missed.
    pub fn new(memory: Memory, bus: &Bus) -> Self {
        Self {
            memory,
            bus: bus.handle(Role::Memory),
            inbox: bus.subscribe(Role::Memory),
        }
    }

    /// Serves until the bus closes.
    pub async fn run(mut self) {
        while let Some(env) = self.inbox.recv().await {
            self.handle(&env).await;
        }
    }

    async fn handle(&self, env: &Envelope) {
        match &env.message {
            Message::Megram(write) => {
                if let Some(rule) = write.against_rule {
                    self.feedback(rule, &write.megram.content).await;
                } else if let Err(e) = self.memory.write(write.megram.clone()) {
                    tracing::warn!(id = %write.megram.id, error = %e, "memory write refused");
                }
            }
            Message::MemoryQuery(query) => {
                let response = self.answer(query).await;
                self.bus.reply(Role::Planner, env.id, response);
            }
            Message::MemoryOperatorChange(_) => {}
            other => tracing::debug!(kind = other.kind().name(), "R5 ignores this message"),
        }
    }

    /// Records GGS's negative feedback against `rule` if it is a distilled Best Practice.
    async fn feedback(&self, rule: MegramId, content: &str) {
        let found = match self.memory.get(&[rule]).await {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!(%rule, error = %e, "negative feedback not recorded");
                return;
            }
        };
        let Some(stored) = found.first() else {
            tracing::debug!(%rule, "negative feedback against a rule no longer stored");
            return;
        };
        if stored.level != Level::C
            || stored.sigma <= 0.0
            || stored.state != MegramOrigin::BestPractice
        {
            tracing::warn!(%rule, level = stored.level.as_str(), state = %stored.state,
                "negative feedback refused: only a distilled Best Practice is corrected");
            return;
        }
        if let Err(e) = self.memory.record_negative_feedback(rule, content).await {
            tracing::warn!(%rule, error = %e, "negative feedback not recorded");
        }
    }

    async fn answer(&self, query: &MemoryQuery) -> MemoryResponse {
        match self.memory.recall(&query.space, &query.entity).await {
            Ok(recall) => MemoryResponse {
                task_id: query.task_id.clone(),
                space: query.space.clone(),
                entity: query.entity.clone(),
                sops: recall.sops,
                potentials: recall.potentials,
                recent: recall.recent,
                error: None,
            },
            Err(e) => {
                tracing::warn!(error = %e, space = %query.space, entity = %query.entity,
                    "memory query failed");
                MemoryResponse {
                    task_id: query.task_id.clone(),
                    space: query.space.clone(),
                    entity: query.entity.clone(),
                    sops: Vec::new(),
                    potentials: potentials::empty_potentials(self.memory.params()),
                    recent: Vec::new(),
                    error: Some(e.to_string()),
                }
            }
        }
    }
}
