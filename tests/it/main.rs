//! Core integration tests, compiled as one binary.

mod auditor;
mod bus;
mod contracts;
mod ggs;
mod law1;
mod llm;
mod memory;
mod no_tauri;
mod perceiver;
mod planner;
mod tasklog;
mod tools;
#[cfg(feature = "specta")]
mod ts_contracts;
