//! Dual-channel convolution potentials: pure functions of an entry's f, σ, k, its decay
//! reference time and the clock's now.
//!
//! - attention M_att = Σ |fᵢ|·e^(−kᵢ·Δtᵢ) — unsigned energy: is there history here?
//! - decision  M_dec = Σ σᵢ·fᵢ·e^(−kᵢ·Δtᵢ) — signed preference: prefer or avoid?
//!
//! Δt is in days from the later of `created_at` and the last recall, so a recall
//! refreshes decay. The action is Ignore below the attention floor, else Exploit above
//! `exploit_above`, Avoid below `avoid_below`, Caution between (thresholds from
//! [`MemoryParams`]).
//!
//! **Invariant:** no I/O and no clock reads here; every function is deterministic in its
//! arguments.

use super::keys::IndexEntry;
use crate::config::MemoryParams;
use crate::contracts::{MegramId, MemoryAction, Potentials};

const MS_PER_DAY: f64 = 86_400_000.0;

/// Days from `reference_ms` to `now_ms`; an entry stamped in the future (clock skew) has
/// not decayed rather than grown.
pub fn days_since(reference_ms: i64, now_ms: i64) -> f64 {
    (now_ms.saturating_sub(reference_ms)).max(0) as f64 / MS_PER_DAY
}

/// The decay factor e^(−k·Δt).
pub fn decay(k: f64, days: f64) -> f64 {
    (-k * days).exp()
}

/// One entry's live contribution to both channels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contribution {
    /// How much the entry draws notice: |f| times its decay, never negative.
    pub attention: f64,
    /// Which way it pushes: σ times f times its decay; positive favours the approach.
    pub decision: f64,
}

/// One entry's contribution `days` days after its reference time, from its stimulus magnitude `f`
/// (0 to 1), valence `sigma` (−1 to +1) and decay rate `k` per day.
pub fn contribution(f: f64, sigma: f64, k: f64, days: f64) -> Contribution {
    let g = decay(k, days);
    Contribution {
        attention: f.abs() * g,
        decision: sigma * f * g,
    }
}

/// The planner effect of a pair of potentials.
pub fn action(attention: f64, decision: f64, params: &MemoryParams) -> MemoryAction {
    if attention < params.attention_floor {
        MemoryAction::Ignore
    } else if decision > params.exploit_above {
        MemoryAction::Exploit
    } else if decision < params.avoid_below {
        MemoryAction::Avoid
    } else {
        MemoryAction::Caution
    }
}

/// Sums contributions of one group.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Accumulator {
    /// The summed attention of the group's live entries.
    pub attention: f64,
    /// The summed decision of the group's live entries.
    pub decision: f64,
}

impl Accumulator {
    /// Adds one entry's contribution.
    pub fn add(&mut self, c: Contribution) {
        self.attention += c.attention;
        self.decision += c.decision;
    }

    /// The group's potentials, with the planner action `params` set for them.
    pub fn potentials(&self, params: &MemoryParams) -> Potentials {
        Potentials {
            attention: self.attention,
            decision: self.decision,
            action: action(self.attention, self.decision, params),
        }
    }
}

/// A stored entry's live contribution at `now_ms`, from its index entry alone.
pub fn live(entry: &IndexEntry, now_ms: i64) -> Contribution {
    contribution(
        entry.f,
        entry.sigma,
        entry.k,
        days_since(entry.reference_ms(), now_ms),
    )
}

/// A group's live sums at `now_ms`. Consolidated sources are left out: the C entry
/// distilled from them speaks for them.
pub fn accumulate(entries: &[(MegramId, IndexEntry)], now_ms: i64) -> Accumulator {
    let mut acc = Accumulator::default();
    for (_, e) in entries.iter().filter(|(_, e)| !e.consolidated) {
        acc.add(live(e, now_ms));
    }
    acc
}

/// The potentials of a group with no entries.
pub fn empty_potentials(params: &MemoryParams) -> Potentials {
    Accumulator::default().potentials(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> MemoryParams {
        MemoryParams::default()
    }

    #[test]
    fn attention_below_the_floor_is_ignore_whatever_the_decision() {
        let p = params();
        assert_eq!(action(0.499_999, 10.0, &p), MemoryAction::Ignore);
        assert_eq!(action(0.499_999, -10.0, &p), MemoryAction::Ignore);
        assert_eq!(action(0.0, 0.0, &p), MemoryAction::Ignore);
    }

    #[test]
    fn attention_exactly_at_the_floor_is_not_ignored() {
        let p = params();
        assert_eq!(action(0.5, 0.0, &p), MemoryAction::Caution);
        assert_eq!(action(0.5, 0.3, &p), MemoryAction::Exploit);
    }

    #[test]
    fn decision_thresholds_are_strict_and_the_band_between_is_caution() {
        let p = params();
        assert_eq!(action(1.0, 0.2, &p), MemoryAction::Caution);
        assert_eq!(action(1.0, 0.200_001, &p), MemoryAction::Exploit);
        assert_eq!(action(1.0, -0.2, &p), MemoryAction::Caution);
        assert_eq!(action(1.0, -0.200_001, &p), MemoryAction::Avoid);
        assert_eq!(action(1.0, 0.0, &p), MemoryAction::Caution);
    }

    #[test]
    fn thresholds_come_from_the_config() {
        let p = MemoryParams {
            attention_floor: 2.0,
            exploit_above: 1.0,
            avoid_below: -1.0,
            ..params()
        };
        assert_eq!(action(1.9, 5.0, &p), MemoryAction::Ignore);
        assert_eq!(action(2.0, 0.9, &p), MemoryAction::Caution);
        assert_eq!(action(2.0, 1.1, &p), MemoryAction::Exploit);
        assert_eq!(action(2.0, -1.1, &p), MemoryAction::Avoid);
    }

    #[test]
    fn half_lives_match_the_seed_for_each_decay_class() {
        // Half-life ln 2 / k: k = 0.05 → ~14 d, k = 0.2 → ~3.5 d, k = 0.5 → ~1.4 d.
        for (k, half_life_days) in [(0.05, 13.86), (0.2, 3.466), (0.5, 1.386)] {
            let g = decay(k, half_life_days);
            assert!((g - 0.5).abs() < 1e-3, "k={k}: e^(-kΔt) = {g}");
        }
        assert_eq!(decay(0.0, 10_000.0), 1.0);
    }

    #[test]
    fn days_count_from_the_reference_and_never_go_negative() {
        assert_eq!(days_since(0, 86_400_000), 1.0);
        assert_eq!(days_since(0, 43_200_000), 0.5);
        assert_eq!(days_since(86_400_000, 0), 0.0);
    }

    #[test]
    fn contributions_sum_into_both_channels_with_sign_only_in_decision() {
        let mut acc = Accumulator::default();
        acc.add(contribution(0.9, 1.0, 0.05, 0.0));
        acc.add(contribution(0.95, -1.0, 0.05, 0.0));
        let p = acc.potentials(&params());
        assert!((p.attention - 1.85).abs() < 1e-12);
        assert!((p.decision - (-0.05)).abs() < 1e-12);
        assert_eq!(p.action, MemoryAction::Caution);
    }

    #[test]
    fn a_neutral_valence_adds_attention_but_no_decision() {
        let c = contribution(0.3, 0.0, 0.2, 0.0);
        assert_eq!(c.attention, 0.3);
        assert_eq!(c.decision, 0.0);
    }
}
