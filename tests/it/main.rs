//! Core integration tests, compiled as one binary.

mod agent_validator;
mod bus;
mod contracts;
mod dispatcher;
mod ggs;
mod llm;
mod meta_validator;
mod no_tauri;
mod tasklog;
#[cfg(feature = "specta")]
mod ts_contracts;
