//! Core integration tests, compiled as one binary.

mod auditor;
mod bus;
mod contracts;
mod ggs;
mod llm;
mod memory;
mod no_tauri;
mod tasklog;
#[cfg(feature = "specta")]
mod ts_contracts;
