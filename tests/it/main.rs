//! Core integration tests, compiled as one binary.

mod bus;
mod contracts;
mod llm;
mod no_tauri;
