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

use crate::contracts::Role;
use crate::llm::{Instructions, OutputSchema};
use crate::tools::Toolbox;

/// Every fixed instruction the pipeline roles send (R3's with `toolbox`), for preparing
/// the model before the first task: whatever a role's call adds (the request, the
/// machine's facts, the task) comes after these words.
pub fn instructions(toolbox: &Toolbox) -> Vec<Instructions> {
    let general = preamble::preamble();
    let with_tools = preamble::tool_preamble();
    let mut all = vec![
        Instructions::structured(
            Role::Perceiver,
            perceiver::perceive_system(&general),
            OutputSchema::of::<perceiver::Perception>(),
        ),
        Instructions::plain(Role::Perceiver, perceiver::chat_system(&general)),
        Instructions::structured(
            Role::Planner,
            planner::prompt::plan_system(with_tools),
            OutputSchema::of::<planner::schema::PlanDraft>(),
        ),
        Instructions::structured(
            Role::Planner,
            planner::prompt::GRACEFUL_SYSTEM,
            OutputSchema::of::<planner::schema::GracefulDraft>(),
        ),
    ];
    all.extend(executor::instructions(toolbox));
    all.push(Instructions::structured(
        Role::AgentValidator,
        agent_validator::system_prompt(with_tools),
        OutputSchema::of::<agent_validator::Judgement>(),
    ));
    all.push(Instructions::structured(
        Role::MetaValidator,
        meta_validator::system_prompt(with_tools),
        OutputSchema::of::<meta_validator::MergeJudgement>(),
    ));
    all
}
