//! The Dispatcher: releases a plan's sub-tasks to the effector agents (R3 + R4a pairs)
//! one sequence group at a time.
//!
//! - Consumes `DispatchManifest` from R2 (its `Role::Dispatcher` inbox) — the whole plan
//!   of one round, its sub-tasks inside — and `TaskClosed`.
//! - Groups run in ascending `sequence` order — any `i64`, negatives and gaps included —
//!   and the sub-tasks of one group run in parallel. Each released sub-task goes to R4a
//!   first (so the validator knows its criteria before any result can reach it), then to
//!   R3, with the matched outputs of every earlier group appended to its `context`,
//!   bounded by [`MAX_INJECTED_CHARS`].
//! - Each released sub-task is one envelope addressed to R3 that R4a hears too (the bus
//!   delivers it to R4a first).
//! - It learns that a sub-task ended on the bus: it hears every `SubTaskClosed` R4a sends
//!   R3 (a reply to an `ExecutionResult`, or a close of its own when R3 went silent), and
//!   gets the failed close R3 sends when R4a gave no verdict at all. When a group has
//!   ended, a failed sub-task stops every later group and a `DispatchHalted` tells R4b
//!   which sub-tasks were not run; otherwise the next group is released.
//! - A newer manifest for the task (a replan round) supersedes the old one: its groups
//!   not yet released are dropped and late completions of the old round are ignored.
//!   `TaskClosed` drops everything the dispatcher keeps for the task, and the runner
//!   passes it nothing of a closed task afterwards, so nothing of it is released.
//!
//! **Invariant:** a plan never hangs in the dispatcher — every manifest either runs each
//! of its groups in ascending order until one fails, is halted with every unrun sub-task
//! named to R4b, is superseded by a newer round, or is cancelled — and no sub-task is
//! released after its task was cancelled or its group's predecessors failed.
//!
//! The decisions live in [`state`] as plain state; this module wires them to the bus.

mod state;

use std::sync::Arc;

use crate::actor::{Actor, Cx, Runner};
use crate::bus::{Bus, Envelope};
use crate::contracts::{Message, Role, TaskClosed};
use crate::lifecycle::Registry;

use state::Dispatch;
pub use state::{
    MAX_INJECTED_CHARS, PRIOR_OUTPUTS_HEADING, PriorOutput, inject_prior_outputs, sequence_groups,
};

/// The dispatcher wired to the bus.
pub struct Dispatcher(Runner<Dispatch>);

impl Dispatcher {
    /// Subscribes now, so nothing addressed to the dispatcher after this call is missed.
    pub fn new(bus: &Bus, registry: Registry) -> Self {
        Self(Runner::new(
            Dispatch::default(),
            bus,
            Role::Dispatcher,
            registry,
        ))
    }

    /// Runs [`Dispatcher::run`] on the current tokio runtime.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run())
    }

    /// Serves until the bus closes.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Dispatch {
    type Done = ();
    type Timer = ();

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        match &env.message {
            Message::DispatchManifest(m) => self.on_manifest(m, cx.effects()),
            Message::SubTaskClosed(c) => self.on_closed(c.clone(), cx.effects()),
            other => tracing::warn!(from = %env.from, kind = other.kind().name(),
                "the dispatcher ignores a message it has no contract for"),
        }
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        self.close(&closed.task_id);
    }
}
