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
//! - [`laws`] — the Four Laws (T layer); the Law 1 classifier and confirmation broker.
//! - [`tools`] — the executor's tools behind the Law 1 gate; the only code that spawns
//!   processes or writes files.
//!
//! Nothing in this crate depends on the desktop shell.

#![forbid(unsafe_code)]

pub mod bus;
pub mod clock;
pub mod config;
pub mod contracts;
pub mod laws;
pub mod telemetry;
pub mod tools;

pub use bus::Bus;
pub use clock::{Clock, FakeClock, SharedClock, SystemClock};
pub use config::Config;
