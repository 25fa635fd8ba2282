//! `/memory`: one line per memory group with its live potentials and entry counts, and
//! with `verbose` each Megram with its live contribution and age.
//!
//! **Invariant:** pure; ages are measured from the `now` passed in, never the clock.

use artoo::text::one_line;
use std::fmt::Write as _;

use super::text::{f2, group, plural, signed};
use artoo::memory::{GroupSummary, MegramView};

/// `/memory`: one line per (space, entity) group with its live potentials and action.
pub fn memory_groups(groups: &[GroupSummary]) -> Vec<String> {
    if groups.is_empty() {
        return vec!["Memory is empty.".into()];
    }
    let mut lines = vec![format!(
        "{} · action, attention, decision, entries M/K/C/T",
        plural(groups.len(), "group", "groups")
    )];
    for g in groups {
        let l = g.levels;
        let mut line = format!(
            "  {}  M{} K{} C{} T{}",
            group(&g.space, &g.entity, &g.potentials),
            l.m,
            l.k,
            l.c,
            l.t
        );
        if g.consolidated > 0 {
            let _ = write!(line, "  ({} consolidated)", g.consolidated);
        }
        lines.push(line);
    }
    lines
}

/// `/memory verbose`: a group's Megrams, each with its live contribution.
pub fn megram_rows(views: &[MegramView], now: chrono::DateTime<chrono::Utc>) -> Vec<String> {
    views
        .iter()
        .map(|v| {
            let m = &v.megram;
            let age = now.signed_duration_since(m.created_at);
            let mut line = format!(
                "      {} {} {:<16} σ={:+} f={} k={} att {} dec {} {}  {}",
                m.id,
                m.level.as_str(),
                m.state,
                m.sigma,
                f2(m.f),
                m.k,
                f2(v.attention),
                signed(v.decision),
                age_text(age),
                one_line(&m.content, 120)
            );
            if let Some(into) = v.consolidated_into {
                let _ = write!(line, "  (consolidated into C {into})");
            }
            line
        })
        .collect()
}

fn age_text(age: chrono::TimeDelta) -> String {
    let secs = age.num_seconds().max(0);
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}
