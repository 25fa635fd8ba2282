//! The roles that publish and receive on the bus.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A bus address, serialised with the roles' short names (`R1` … `R7`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Role {
    /// The human: CLI or desktop UI.
    User,
    /// R1: turns the user's input into a task spec, a question or a chat reply.
    #[serde(rename = "R1")]
    Perceiver,
    /// R2: plans sub-tasks, consulting memory, and replans on GGS's directives.
    #[serde(rename = "R2")]
    Planner,
    /// Sequence groups between R2 and the effector agents.
    Dispatcher,
    /// R3: runs one sub-task with tools.
    #[serde(rename = "R3")]
    Executor,
    /// R4a: judges each attempt of a sub-task against its criteria.
    #[serde(rename = "R4a")]
    AgentValidator,
    /// R4b: judges the merged output of a round against the task.
    #[serde(rename = "R4b")]
    MetaValidator,
    /// R5: the MKCT store.
    #[serde(rename = "R5")]
    Memory,
    /// R6: reads a tap of the bus and reports on it.
    #[serde(rename = "R6")]
    Auditor,
    /// R7: the Goal Gradient Solver that decides each round's macro-state.
    #[serde(rename = "R7")]
    Ggs,
    /// Observability records (model calls, tool calls) that no role acts on; taps see them.
    Observer,
    /// Every subscribed role (cancellation).
    All,
}

impl Role {
    /// Every role that sends or receives, in pipeline order; the `Observer` and `All` addresses are
    /// left out.
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

    /// The short label used in logs and on the wire (`R1` … `R7`, `User`, …).
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

    /// The role's lowercase name, as written in settings and the task log.
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
