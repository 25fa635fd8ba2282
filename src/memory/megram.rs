//! Megram helpers: validation, the T layer's law entries, and the constructors for the
//! entries R5 itself creates (operator `remember`, negative feedback, Dreamer
//! distillations). GGS quantises its own writes; nothing here second-guesses its f/σ/k.
//!
//! **Invariant:** every Megram that reaches the store passed [`validate`]: finite f in
//! [0, 1], σ in [−1, 1], k ≥ 0, and a non-empty space and entity.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::error::MemoryError;
use crate::contracts::{Level, Megram, MegramId, MegramOrigin};
use crate::laws::{FOUR_LAWS, Law};

/// The space of the Four Laws' T entries; each law is its own entity (`law:<n>`).
pub const LAW_SPACE: &str = "laws";
/// Default tags of an operator `remember` given no tags.
pub const DEFAULT_SPACE: &str = "global:user";
pub(crate) const DEFAULT_ENTITY: &str = "env:local";

/// The decay rate a C entry reverts to when it goes bankrupt: the episodic rate, so a
/// demoted rule fades like any other K entry.
pub const BANKRUPT_K: f64 = 0.05;
/// Decay rate of operator-injected M/K entries and of negative feedback.
pub const EPISODIC_K: f64 = 0.05;
/// Longest SOP text kept from a distillation: a runaway answer must not crowd the
/// planner's prompt.
pub const MAX_SOP_CHARS: usize = 400;

/// Whether entries of `level` are episodic (M and K): those GC may collect and a
/// consolidation may distil.
pub fn is_episodic(level: Level) -> bool {
    matches!(level, Level::M | Level::K)
}

/// Checks a Megram's numbers and tags before it may be stored.
pub fn validate(m: &Megram) -> Result<(), MemoryError> {
    let bad = |why: String| Err(MemoryError::Invalid(format!("megram {}: {why}", m.id)));
    if !(m.f.is_finite() && (0.0..=1.0).contains(&m.f)) {
        return bad(format!("f = {} is not in [0, 1]", m.f));
    }
    if !(m.sigma.is_finite() && (-1.0..=1.0).contains(&m.sigma)) {
        return bad(format!("σ = {} is not in [−1, 1]", m.sigma));
    }
    if !(m.k.is_finite() && m.k >= 0.0) {
        return bad(format!("k = {} is not a finite rate ≥ 0", m.k));
    }
    if m.space.trim().is_empty() || m.entity.trim().is_empty() {
        return bad("space and entity must both be non-empty".into());
    }
    Ok(())
}

/// The fixed id of law `number`'s T entry, so seeding on every open is idempotent.
pub fn law_id(number: u8) -> MegramId {
    // "laws" in ASCII, then the law number: stable across builds and machines.
    MegramId::from(Uuid::from_u128(
        0x6c61_7773_0000_4000_8000_0000_0000_0000 | u128::from(number),
    ))
}

/// Whether `id` is one of the Four Laws' T entries (the part of the T layer no API may
/// delete, demote or overwrite).
pub fn is_law(id: MegramId) -> bool {
    FOUR_LAWS.iter().any(|law| law_id(law.number) == id)
}

fn law_megram(law: &Law, now: DateTime<Utc>) -> Megram {
    Megram {
        id: law_id(law.number),
        level: Level::T,
        created_at: now,
        last_recalled_at: None,
        space: LAW_SPACE.into(),
        entity: format!("law:{}", law.number),
        content: format!("Law {} — {}: {}", law.number, law.title, law.text),
        state: MegramOrigin::Law,
        f: 1.0,
        sigma: 1.0,
        k: 0.0,
    }
}

/// The Four Laws as timeless T entries.
pub fn law_megrams(now: DateTime<Utc>) -> Vec<Megram> {
    FOUR_LAWS.iter().map(|law| law_megram(law, now)).collect()
}

/// An operator-injected entry with the `/remember` magnitudes: T = (1.0, σ, 0,
/// persona), C = (1.0, σ, 0, user-injected), K/M = (0.9, σ, 0.05, user-injected).
pub fn remembered(
    level: Level,
    space: &str,
    entity: &str,
    content: &str,
    sigma: f64,
    now: DateTime<Utc>,
) -> Megram {
    let (f, k, state) = match level {
        Level::T => (1.0, 0.0, MegramOrigin::Persona),
        Level::C => (1.0, 0.0, MegramOrigin::UserInjected),
        Level::K | Level::M => (0.9, EPISODIC_K, MegramOrigin::UserInjected),
    };
    Megram {
        id: MegramId::mint(),
        level,
        created_at: now,
        last_recalled_at: None,
        space: space.into(),
        entity: entity.into(),
        content: content.into(),
        state,
        f,
        sigma,
        k,
    }
}

/// The entry `record_negative_feedback` appends against `rule`: same group, the rule's
/// full magnitude with σ = −1, decaying like an episodic fact. It cancels a positive
/// rule of equal magnitude; a second one drives the group's decision below zero.
pub fn negative_feedback(rule: &Megram, content: &str, now: DateTime<Utc>) -> Megram {
    Megram {
        id: MegramId::mint(),
        level: Level::M,
        created_at: now,
        last_recalled_at: None,
        space: rule.space.clone(),
        entity: rule.entity.clone(),
        content: content.into(),
        state: MegramOrigin::NegativeFeedback,
        f: rule.f,
        sigma: -1.0,
        k: EPISODIC_K,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, FakeClock};

    fn sample() -> Megram {
        remembered(
            Level::M,
            "intent:x",
            "env:local",
            "c",
            1.0,
            FakeClock::at_epoch().now(),
        )
    }

    #[test]
    fn out_of_range_numbers_and_empty_tags_are_rejected() {
        assert!(validate(&sample()).is_ok());
        for bad in [
            Megram { f: 1.5, ..sample() },
            Megram {
                f: f64::NAN,
                ..sample()
            },
            Megram {
                sigma: -1.1,
                ..sample()
            },
            Megram {
                k: -0.1,
                ..sample()
            },
            Megram {
                k: f64::INFINITY,
                ..sample()
            },
            Megram {
                space: " ".into(),
                ..sample()
            },
            Megram {
                entity: String::new(),
                ..sample()
            },
        ] {
            assert!(
                matches!(validate(&bad), Err(MemoryError::Invalid(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn law_ids_are_stable_and_distinct() {
        let ids: Vec<_> = (0..4).map(law_id).collect();
        assert_eq!(ids[0], law_id(0));
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                assert_ne!(a, b);
            }
        }
        let laws = law_megrams(FakeClock::at_epoch().now());
        assert_eq!(laws.len(), 4);
        assert!(laws.iter().all(|m| m.level == Level::T && m.k == 0.0));
        assert!(laws[0].content.starts_with("Law 0 — Never deceive"));
    }

    #[test]
    fn remembered_entries_use_the_go_magnitudes_per_level() {
        let now = FakeClock::at_epoch().now();
        let t = remembered(Level::T, "s", "e", "c", 1.0, now);
        assert_eq!((t.f, t.k, t.state), (1.0, 0.0, MegramOrigin::Persona));
        let c = remembered(Level::C, "s", "e", "c", -1.0, now);
        assert_eq!((c.f, c.sigma, c.k), (1.0, -1.0, 0.0));
        let m = remembered(Level::M, "s", "e", "c", 1.0, now);
        assert_eq!((m.f, m.k, m.state), (0.9, 0.05, MegramOrigin::UserInjected));
    }
}
