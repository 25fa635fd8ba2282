//! Lines of memory traffic: a query, its response, the recall R2 publishes,
//! a Megram write, and an operator's change.
//!
//! **Invariant:** a recall line counts the constraints from the laws but quotes the first
//! one memory added, because the laws are in every plan and memory's addition is the news.

use std::fmt::Write as _;

use super::spell::{f2, group, snake};
use super::{DETAIL_CHARS, ITEM_CHARS, Summary};
use crate::contracts::{
    ConstraintSource, MegramWrite, MemoryOperatorChange, MemoryRecall, MemoryResponse,
};
use crate::text::{one_line, plural};

pub(super) fn memory_response(m: &MemoryResponse) -> String {
    let mut s = format!(
        "{} · {}",
        group(&m.space, &m.entity, &m.potentials),
        plural(m.sops.len(), "SOP", "SOPs")
    );
    if let Some(e) = &m.error {
        let _ = write!(s, " · error: {}", one_line(e, ITEM_CHARS));
    }
    s
}

pub(super) fn memory_recall(m: &MemoryRecall) -> String {
    let mut s = format!(
        "{} · {}",
        group(&m.space, &m.entity, &m.potentials),
        plural(m.constraints.len(), "constraint", "constraints")
    );
    let laws = m
        .constraints
        .iter()
        .filter(|c| c.source == ConstraintSource::Law)
        .count();
    if laws > 0 {
        let _ = write!(s, " ({laws} from the laws)");
    }
    // The laws are in every plan; what memory added is the news.
    if let Some(first) = m
        .constraints
        .iter()
        .find(|c| c.source != ConstraintSource::Law)
    {
        let _ = write!(
            s,
            ": {} {}",
            snake(&first.kind).to_uppercase().replace('_', " "),
            one_line(&first.text, ITEM_CHARS)
        );
    }
    if let Some(e) = &m.error {
        let _ = write!(s, " · memory unavailable: {}", one_line(e, ITEM_CHARS));
    }
    s
}

/// A write with its strength, valence and decay, and the macro-state it records.
pub(super) fn megram(m: &MegramWrite) -> Summary {
    let g = &m.megram;
    Summary {
        line: format!(
            "{} {} → [{} / {}] f={} σ={:+} k={}",
            g.level.as_str(),
            g.state,
            g.space,
            g.entity,
            f2(g.f),
            g.sigma,
            f2(g.k)
        ),
        more: Vec::new(),
        state: g.state.macro_state(),
    }
}

pub(super) fn operator_change(m: &MemoryOperatorChange) -> String {
    format!(
        "{} · {} · {}",
        snake(&m.operation),
        plural(m.megram_ids.len(), "megram", "megrams"),
        one_line(&m.detail, DETAIL_CHARS)
    )
}
