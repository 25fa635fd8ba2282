//! The roles that publish and receive on the bus.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A bus address, serialised with the roles' short names (`R1` … `R7`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Role {
    /// The human: CLI or desktop UI.
    User,
    #[serde(rename = "R1")]
    Perceiver,
    #[serde(rename = "R2")]
    Planner,
    /// Sequence groups between R2 and the effector agents.
    Dispatcher,
    #[serde(rename = "R3")]
    Executor,
    #[serde(rename = "R4a")]
    AgentValidator,
    #[serde(rename = "R4b")]
    MetaValidator,
    #[serde(rename = "R5")]
    Memory,
    #[serde(rename = "R6")]
    Auditor,
    #[serde(rename = "R7")]
    Ggs,
    /// Observability records (model calls, tool calls) that no role acts on; taps see them.
    Observer,
    /// Every subscribed role (cancellation).
    All,
}

impl Role {
    pub const ALL_ROLES: [Role; 10] = [
        Role::User,
        Role::Perceiver,
        Role::Planner,
        Role::Dispatcher,
        Role::Executor,
        Role::AgentValidator,
        Role::MetaValidator,
        Role::Memory,
        Role::Auditor,
        Role::Ggs,
    ];

    pub fn short(self) -> &'static str {
        match self {
            Role::User => "User",
            Role::Perceiver => "R1",
            Role::Planner => "R2",
            Role::Dispatcher => "Dispatcher",
            Role::Executor => "R3",
            Role::AgentValidator => "R4a",
            Role::MetaValidator => "R4b",
            Role::Memory => "R5",
            Role::Auditor => "R6",
            Role::Ggs => "R7",
            Role::Observer => "Observer",
            Role::All => "All",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Perceiver => "perceiver",
            Role::Planner => "planner",
            Role::Dispatcher => "dispatcher",
            Role::Executor => "executor",
            Role::AgentValidator => "agent-validator",
            Role::MetaValidator => "meta-validator",
            Role::Memory => "memory",
            Role::Auditor => "auditor",
            Role::Ggs => "ggs",
            Role::Observer => "observer",
            Role::All => "all",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short())
    }
}
