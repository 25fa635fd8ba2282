//! artoo's headless core: a control-theoretic multi-agent system that runs a user's task
//! on the local machine.
//!
//! Code map:
//! - [`contracts`] — the seed's JSON contracts and the closed [`contracts::Message`] list.
//! - [`bus`] — the observable message bus: role inboxes (lossless), taps (bounded, with
//!   gap markers), request/reply.
//! - [`config`] — one validated [`Config`] (defaults → settings.toml → environment).
//! - [`clock`] — [`Clock`]: real and fake time, passed down like the config.
//! - [`telemetry`] — tracing to a rolling file in the data dir.
//! - [`laws`] — the Four Laws (T layer).
//! - [`auditor`] — R6: tap reader, hash-chained audit log, detectors, reports, history.
//!
//! Nothing in this crate depends on the desktop shell.

#![forbid(unsafe_code)]

pub mod auditor;
pub mod bus;
pub mod clock;
pub mod config;
pub mod contracts;
pub mod laws;
pub mod telemetry;

pub use bus::Bus;
pub use clock::{Clock, FakeClock, SharedClock, SystemClock};
pub use config::Config;
