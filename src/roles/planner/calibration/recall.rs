//! Which memory groups R2 asks R5 about, and what an answer (or none) comes to.
//!
//! **Invariant:** every group ends in an [`Answer`]: R5's reads, or
//! [`Answer::Unavailable`] saying why memory could not be consulted (a store error, or
//! no answer in time); a group is never left without one.

use std::time::Duration;

use crate::contracts::MemoryResponse;
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

/// What R5's answer to one group's query says: the group's reads, or, when the store
/// failed, why memory could not be consulted.
pub fn answer_of(response: &MemoryResponse) -> Answer {
    match &response.error {
        Some(e) => Answer::Unavailable(format!("memory error: {e}")),
        None => Answer::Answered(response.clone()),
    }
}

/// A group R5 did not answer within `timeout`.
pub fn overdue(timeout: Duration) -> Answer {
    Answer::Unavailable(format!(
        "memory did not answer within {} s",
        timeout.as_secs_f64()
    ))
}
