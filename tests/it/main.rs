//! Core integration tests, compiled as one binary.

mod bus;
mod contracts;
mod ggs;
mod llm;
mod no_tauri;
mod perceiver;
mod planner;
mod tasklog;
#[cfg(feature = "specta")]
mod ts_contracts;
