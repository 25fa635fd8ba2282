//! Core integration tests, compiled as one binary.

mod bus;
mod contracts;
mod memory;
mod no_tauri;
