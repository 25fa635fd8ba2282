//! artoo's headless core: a control-theoretic multi-agent system that runs a user's task
//! on the local machine.
//!
//! Code map:
//! - [`contracts`] — the JSON contracts and the closed [`contracts::Message`] list.
//! - [`bus`] — the observable message bus: role inboxes (lossless), taps (bounded, with
//!   gap markers), request/reply.
//! - [`config`] — one validated [`Config`] (defaults → settings.toml → environment).
//! - [`lifecycle`] — the task registry: live, closed or cancelled, with each task's
//!   cancellation token (nothing starts after a task closed).
//! - [`calc`] — calculations by code: the arithmetic and date facts a request states.
//! - [`checks`] — checks code makes of a delivered answer (its shape), below the roles.
//! - [`limits`] — every timeout and per-task memory bound, checked together.
//! - [`clock`] — [`Clock`]: real and fake time, passed down like the config.
//! - [`telemetry`] — tracing to a rolling file in the data dir.
//! - [`laws`] — the Four Laws (T layer).
//! - [`tasklog`] — the recording of each run (its envelopes, from a bus tap) and the one
//!   fold that reads it back as a trajectory.
//! - [`retention`] — age and size limits for task logs and audit segments.
//! - [`ggs`] — R7 Goal Gradient Solver: loss, gradient, macro-state, directives, Megram writes.
//! - [`actor`] — the one way a role runs on the bus: an [`actor::Actor`]'s handlers
//!   leave [`actor::Effects`]; its [`actor::Runner`] owns the inbox, jobs and deadlines.
//! - [`roles`] — the pipeline roles as bus actors: R1 Perceiver (TaskSpec or a chat
//!   reply), R2 Planner (memory calibration, plans, replans, graceful failure), the
//!   dispatcher (sequence groups), R4a Agent-Validator and R4b Meta-Validator.
//! - [`runtime`] — the whole hierarchy in one process behind one API (submit, cancel,
//!   answer Law 1 and clarifications, wait, memory/audit/task-log reads) for the CLI and
//!   the desktop shell; the user's desk; the Dreamer's distiller over the brain tier.
//! - [`roles::executor`] — R3: per-sub-task tool loops whose tool results are the evidence.
//! - [`tags`] — memory tags (`intent:<kind>`, `tool:<name>`, `path:<target>`, `env:local`)
//!   and the one definition of "the same kind of task".
//! - [`llm`] — model tiers, calls with timeouts/retries/cancellation, structured output,
//!   usage accounting; [`testkit`] (feature `testkit`) is its scripted server.
//! - [`local_llm`] — the built-in model: llama-server and its weights from package
//!   registries, run as a child process when no provider is configured.
//! - [`sync`] — locks that recover from a panicking holder.
//! - [`status`] — one plain-language status line per phase of a task, in the UI language.
//! - [`describe`] — one line of data per bus message, for the CLI's pipeline, the audit
//!   log and the desktop's message flow.
//! - [`memory`] — R5: the MKCT store on LevelDB, potentials, the Dreamer, operator API.
//! - [`auditor`] — R6: tap reader, hash-chained audit log, detectors, reports, history.
//! - [`laws`] — the Four Laws (T layer); the Law 1 classifier and confirmation broker.
//! - [`tools`] — the executor's tools behind the Law 1 gate; the only code that spawns
//!   processes or writes files.
//!
//! Nothing in this crate depends on the desktop shell.

#![forbid(unsafe_code)]

pub mod actor;
pub mod auditor;
pub mod bus;
pub(crate) mod calc;
pub mod checks;
pub mod clock;
pub mod config;
pub mod contracts;
pub mod describe;
pub mod doctor;
pub mod ggs;
pub mod journal;
pub mod laws;
pub mod lifecycle;
pub mod limits;
pub mod llm;
pub mod local_llm;
pub mod mcp;
pub mod memory;
mod recent;
pub mod retention;
pub mod roles;
pub mod runtime;
pub mod schedule;
pub mod status;
pub mod sync;
pub mod tags;
pub mod tasklog;
pub mod telemetry;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod text;
pub mod tools;

pub use bus::Bus;
pub use clock::{Clock, FakeClock, SharedClock, SystemClock};
pub use config::Config;
