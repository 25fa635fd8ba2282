//! R5 Shared Memory: the MKCT pyramid (M episodes, K knowledge, C rules, T laws) on
//! LevelDB.
//!
//! - [`Memory`] ([`handle`]) — the async handle: `write` (fire-and-forget, never blocks,
//!   never loses an accepted write), `query_c`, `query_mk`, `recall`,
//!   `record_negative_feedback`, `flush` (durable on return), `close` (drains, stops the
//!   Dreamer).
//! - [`store`] — the only code that opens LevelDB; one thread behind a command channel.
//!   Key schema and encoding in [`keys`].
//! - [`types`] — the values the store hands to its callers; [`MemoryError`] in [`error`].
//! - [`potentials`] — the dual-channel convolution and the action, pure.
//! - [`dreamer`] — the background pass: GC, trust bankruptcy and upward consolidation
//!   through [`Distiller`]; the decisions themselves are pure functions in
//!   [`dream_rules`], which the store thread applies.
//! - [`role`] — the R5 bus role: GGS writes in, R2 queries answered.
//! - [`operator`] — the panel/CLI API: groups, a group's entries, remember, forget, pin.
//!
//! Dependencies point one way: `handle`, `operator`, `role` and `dreamer` talk to the
//! store; the store uses `dream_rules`, `cache`, `keys`, `megram` and `potentials`;
//! all of them share `types` and `error`, which import no other memory module.
//!
//! **Invariant:** the Four Laws (the T layer, seeded on every open) are never deleted,
//! demoted or overwritten through any API, and no API creates other T entries (persona
//! entries an older build stored can only be forgotten); and every accepted write is in
//! the store once `flush` or `close` returns.

mod cache;
mod dream_rules;
pub mod dreamer;
mod error;
mod handle;
pub mod keys;
pub mod megram;
pub mod operator;
pub mod potentials;
pub mod role;
mod store;
mod types;

pub use dreamer::{
    DistillError, DistillFuture, DistillRequest, Distillation, Distiller, DreamReport,
    DreamerStatus,
};
pub use error::MemoryError;
pub use handle::{Memory, STORE_DIR_NAME};
pub use operator::{
    ForgetReport, ForgetTarget, GroupSummary, LevelCounts, MegramView, MemoryOperator, Remember,
};
pub use role::MemoryRole;
pub use types::Recall;
