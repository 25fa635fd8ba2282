//! Asking R5 about one memory group, and which groups R2 asks about.
//!
//! **Invariant:** [`recall`] never waits longer than its timeout and never fails: a
//! memory that cannot answer is an [`Answer::Unavailable`] saying why.

use std::time::Duration;

use crate::bus::BusHandle;
use crate::contracts::{MemoryQuery, MemoryResponse, Message, Role, TaskId};
use crate::tags;

/// The operator's memory space ("remember …" from the CLI or the memory panel).
pub const USER_SPACE: &str = "global:user";

/// One (space, entity) group of memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The memory space, such as an intent group or the user's space.
    pub space: String,
    /// The entity within the space, such as the local machine.
    pub entity: String,
}

/// The groups R2 consults for a task: its intent group first, then the operator's.
pub fn groups(intent: &str) -> [Group; 2] {
    [
        Group {
            space: tags::intent_space(intent),
            entity: tags::ENV_LOCAL.to_string(),
        },
        Group {
            space: USER_SPACE.to_string(),
            entity: tags::ENV_LOCAL.to_string(),
        },
    ]
}

/// What one group's query came back with.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// R5 answered the query.
    Answered(MemoryResponse),
    /// Why memory could not be consulted.
    Unavailable(String),
}

/// Asks R5 about one group and waits at most `timeout`.
pub async fn recall(bus: &BusHandle, task_id: &TaskId, group: &Group, timeout: Duration) -> Answer {
    let pending = bus.request(
        Role::Memory,
        MemoryQuery {
            task_id: task_id.clone(),
            space: group.space.clone(),
            entity: group.entity.clone(),
        },
    );
    match tokio::time::timeout(timeout, pending).await {
        Ok(Ok(env)) => match &env.message {
            Message::MemoryResponse(r) => match &r.error {
                Some(e) => Answer::Unavailable(format!("memory error: {e}")),
                None => Answer::Answered(r.clone()),
            },
            other => Answer::Unavailable(format!(
                "memory answered with {} instead of a MemoryResponse",
                other.kind().name()
            )),
        },
        Ok(Err(closed)) => Answer::Unavailable(closed.to_string()),
        Err(_) => Answer::Unavailable(format!(
            "memory did not answer within {} s",
            timeout.as_secs_f64()
        )),
    }
}
