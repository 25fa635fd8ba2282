//! The pipeline roles that talk to models: each is an actor with a bus handle and an
//! inbox, never a reference to another role.
//!
//! **Invariant:** roles never call each other; every exchange between them is a bus
//! message of the contract table.

pub mod agent_validator;
pub mod dispatcher;
pub mod executor;
pub mod meta_validator;
pub mod perceiver;
pub mod planner;
pub mod preamble;
