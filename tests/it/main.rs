//! Core integration tests, compiled as one binary.

mod bus;
mod contracts;
mod no_tauri;
#[cfg(feature = "specta")]
mod ts_contracts;
