//! The Megrams GGS writes and their (f, σ, k) per macro-state. GGS is
//! the sole writer to R5: a write is a `Megram` message published to the memory role,
//! which is both the fire-and-forget write and the record every tap observes.
//!
//! - Action states: one Megram per failed input of the round, space `tool:<name>`,
//!   entity `path:<target>`.
//! - Terminal states: one Megram, space `intent:<slug>`, entity `env:local`.
//! - Negative feedback against a followed Best Practice of a failed round
//!   ([`super::feedback`]): one Megram in the rule's group, with the magnitudes R5 gives
//!   feedback (`record_negative_feedback` rebuilds it from the stored rule).
//!
//! **Invariant:** every Megram is level M; a macro-state's Megram carries exactly the f,
//! σ, k of its row in the quantization matrix, and a feedback Megram has σ = −1.

use chrono::{DateTime, Utc};

use super::evidence::FailedInput;
use crate::contracts::{Level, MacroState, Megram, MegramId, MegramOrigin};
use crate::memory::megram::EPISODIC_K;
use crate::tags;
use crate::text::first_chars;

/// Longest content of a Megram GGS writes: enough for an intent and its outcome, small
/// enough that a memory group's recall stays a short prompt.
pub const MAX_CONTENT_CHARS: usize = 400;

/// One row of the quantization matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantum {
    /// Stimulus magnitude.
    pub f: f64,
    /// Valence.
    pub sigma: f64,
    /// Decay rate per day.
    pub k: f64,
}

/// The quantization matrix: macro-state → (f, σ, k).
pub fn quantize(state: MacroState) -> Quantum {
    let (f, sigma, k) = match state {
        MacroState::Abandon => (0.95, -1.0, 0.05),
        MacroState::Accept => (0.90, 1.0, 0.05),
        MacroState::ChangeApproach => (0.85, -1.0, 0.05),
        MacroState::Success => (0.80, 1.0, 0.05),
        MacroState::BreakSymmetry => (0.75, 1.0, 0.05),
        MacroState::ChangePath => (0.30, 0.0, 0.2),
        MacroState::Refine => (0.10, 0.5, 0.5),
    };
    Quantum { f, sigma, k }
}

fn megram(
    state: MacroState,
    space: String,
    entity: String,
    content: &str,
    now: DateTime<Utc>,
) -> Megram {
    let q = quantize(state);
    Megram {
        id: MegramId::mint(),
        level: Level::M,
        created_at: now,
        last_recalled_at: None,
        space,
        entity,
        content: first_chars(content, MAX_CONTENT_CHARS),
        state: MegramOrigin::from(state),
        f: q.f,
        sigma: q.sigma,
        k: q.k,
    }
}

/// One action Megram per failed input (`state` is an action state).
pub fn action_megrams(
    state: MacroState,
    intent: &str,
    inputs: &[FailedInput],
    now: DateTime<Utc>,
) -> Vec<Megram> {
    inputs
        .iter()
        .map(|input| {
            let content = format!(
                "{}: {} on \"{}\" failed ({}) while working on \"{}\"",
                state.as_str(),
                input.tool,
                input.target,
                input.why,
                intent
            );
            megram(
                state,
                tags::tool_space(&input.tool),
                tags::path_entity(&input.target),
                &content,
                now,
            )
        })
        .collect()
}

/// The one terminal Megram of a task (`state` is accept, success or abandon).
pub fn terminal_megram(
    state: MacroState,
    intent: &str,
    content: &str,
    now: DateTime<Utc>,
) -> Megram {
    megram(
        state,
        tags::intent_space(intent),
        tags::ENV_LOCAL.to_string(),
        content,
        now,
    )
}

/// The feedback Megram against a rule of the group (`space`, `entity`).
pub fn negative_feedback(space: &str, entity: &str, content: &str, now: DateTime<Utc>) -> Megram {
    Megram {
        id: MegramId::mint(),
        level: Level::M,
        created_at: now,
        last_recalled_at: None,
        space: space.to_string(),
        entity: entity.to_string(),
        content: first_chars(content, MAX_CONTENT_CHARS),
        state: MegramOrigin::NegativeFeedback,
        f: 1.0,
        sigma: -1.0,
        k: EPISODIC_K,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matrix_has_the_seeds_numbers() {
        let rows = [
            (MacroState::Abandon, 0.95, -1.0, 0.05),
            (MacroState::Accept, 0.90, 1.0, 0.05),
            (MacroState::ChangeApproach, 0.85, -1.0, 0.05),
            (MacroState::Success, 0.80, 1.0, 0.05),
            (MacroState::BreakSymmetry, 0.75, 1.0, 0.05),
            (MacroState::ChangePath, 0.30, 0.0, 0.2),
            (MacroState::Refine, 0.10, 0.5, 0.5),
        ];
        for (state, f, sigma, k) in rows {
            assert_eq!(quantize(state), Quantum { f, sigma, k }, "{state:?}");
        }
    }

    #[test]
    fn contents_are_bounded_on_character_boundaries() {
        let intent = "视".repeat(1000);
        let m = terminal_megram(MacroState::Success, &intent, &intent, DateTime::UNIX_EPOCH);
        assert_eq!(m.content.chars().count(), MAX_CONTENT_CHARS);
        assert_eq!(m.level, Level::M);
        assert_eq!(m.entity, "env:local");
        assert!(m.space.starts_with("intent:") && m.space.contains('视'));
    }
}
