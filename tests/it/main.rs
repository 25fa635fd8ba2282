//! Core integration tests, compiled as one binary.
#![allow(clippy::unwrap_used)] // a test may unwrap: a panic is its failure report

mod agent_validator;
mod auditor;
mod bus;
mod cli;
mod contracts;
mod dispatcher;
mod executor;
mod ggs;
mod golden;
mod grants;
mod law1;
#[cfg(target_os = "linux")]
mod law1_effect;
#[cfg(target_os = "linux")]
mod law1_witness;
mod layers;
mod llm;
mod mcp;
mod memory;
mod meta_validator;
mod no_tauri;
mod perceiver;
mod pipeline;
mod planner;
mod private_trash;
#[cfg(target_os = "linux")]
mod sandbox;
mod tags;
mod tasklog;
mod tools;
#[cfg(feature = "specta")]
mod ts_contracts;
