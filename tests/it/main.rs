//! Core integration tests, compiled as one binary.

mod bus;
mod contracts;
mod law1;
mod no_tauri;
mod tools;
