//! Pipeline details of memory traffic: a query, its response, the recall R2 publishes,
//! a Megram write, and an operator's change.
//!
//! **Invariant:** a recall line counts the constraints from the laws but quotes the first
//! one memory added, because the laws are in every plan and memory's addition is the news.

use artoo::text::one_line;
use std::fmt::Write as _;

use super::{DETAIL_CHARS, ITEM_CHARS};
use crate::cli::render::text::{group, plural, snake};
use artoo::contracts::{
    ConstraintSource, MegramWrite, MemoryOperatorChange, MemoryRecall, MemoryResponse,
};

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

pub(super) fn megram(m: &MegramWrite) -> String {
    format!(
        "{} {} → [{} / {}] σ={:+}",
        m.megram.level.as_str(),
        m.megram.state,
        m.megram.space,
        m.megram.entity,
        m.megram.sigma
    )
}

pub(super) fn operator_change(m: &MemoryOperatorChange) -> String {
    format!(
        "{} · {}",
        snake(&m.operation),
        one_line(&m.detail, DETAIL_CHARS)
    )
}
