//! The R5 role on the bus: consumes everything addressed to `Role::Memory`.
//!
//! - `Megram` from GGS → [`Memory::write`] (fire-and-forget; a terminal state schedules
//!   the Dreamer's post-task pass). Writes from any other role are refused (seed 003:
//!   GGS is the sole writer) and logged; the auditor sees them on its tap anyway.
//! - `MemoryQuery` → one `MemoryResponse` reply to R2 with the group's SOPs (their recall
//!   stamped), potentials and recent M/K entries; a store failure is reported in the
//!   reply's `error` field with Ignore potentials, never by silence.
//! - `MemoryRecall` and `MemoryOperatorChange` are observability copies: nothing to do.
//!
//! **Invariant:** the role answers every `MemoryQuery` exactly once, and it ends when
//! the bus closes, leaving the store open for its owner to close.

use super::{Memory, potentials};
use crate::bus::{Bus, BusHandle, Envelope, Inbox};
use crate::contracts::{MemoryQuery, MemoryResponse, Message, Role};

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
                if env.from != Role::Ggs {
                    tracing::warn!(from = %env.from, id = %write.megram.id,
                        "memory write refused: only GGS writes to R5");
                    return;
                }
                if let Err(e) = self.memory.write(write.megram.clone()) {
                    tracing::warn!(id = %write.megram.id, error = %e, "memory write refused");
                }
            }
            Message::MemoryQuery(query) => {
                let response = self.answer(query).await;
                self.bus.reply(Role::Planner, env.id, response);
            }
            Message::MemoryRecall(_) | Message::MemoryOperatorChange(_) => {}
            other => tracing::debug!(kind = other.kind().name(), "R5 ignores this message"),
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
