use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::contracts::{EnvelopeId, Message, Role, TaskId};

/// One message on the bus, with who sent it to whom and when.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Envelope {
    /// Unique per envelope; replies name it in `in_reply_to`.
    pub id: EnvelopeId,
    /// Bus-wide publish order (monotonic per bus).
    pub seq: u64,
    /// When it was published, by the bus's clock.
    pub timestamp: DateTime<Utc>,
    /// The role that published it.
    pub from: Role,
    /// The role it is addressed to.
    pub to: Role,
    /// Set on replies to a [`super::BusHandle::request`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_reply_to: Option<EnvelopeId>,
    /// The task the message belongs to, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<TaskId>,
    /// What is said.
    pub message: Message,
}
