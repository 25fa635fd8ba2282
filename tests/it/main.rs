//! Core integration tests, compiled as one binary.

mod auditor;
mod bus;
mod contracts;
mod no_tauri;
