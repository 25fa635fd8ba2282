//! One memory group's answer turned into constraints: potentials Exploit/Avoid/Caution
//! into SHOULD PREFER/MUST NOT/CAUTION, each SOP into a rule unless fresh evidence
//! contradicts it, and the Caution gate those constraints add up to.
//!
//! **Invariant:** pure; every constraint derived here quotes at most
//! [`QUOTES_PER_CONSTRAINT`] Megrams and lists the ids of the Megrams behind it.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::contracts::{
    ConstraintKind, ConstraintSource, Level, Megram, MegramId, MemoryAction, MemoryResponse,
    Potentials, RecalledConstraint, SOPRecord,
};
use crate::text::{clip_words, first_chars};
use crate::tools::{ToolName, ToolRef, join_names};

/// Characters of one Megram's content quoted in a constraint.
pub const QUOTE_CHARS: usize = 240;
/// Megrams quoted per potentials constraint.
pub const QUOTES_PER_CONSTRAINT: usize = 2;

/// The tools a Caution group gates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CautionGate {
    /// No Caution group.
    None,
    /// The tools named in the Caution groups' Megrams.
    Tools(Vec<ToolName>),
    /// A Caution group whose Megrams name no tool: the plan's own tools are gated.
    PlanTools,
}

/// A memory-derived constraint before the cap.
pub(super) struct Derived {
    pub(super) group: usize,
    pub(super) constraint: RecalledConstraint,
    /// Tools this constraint makes MUST NOT (Avoid).
    pub(super) blocks: Vec<ToolName>,
    /// Tools this constraint gates (Caution); `Some(empty)` = the plan's tools.
    pub(super) gates: Option<Vec<ToolName>>,
}

pub(super) fn rank(kind: ConstraintKind) -> u8 {
    match kind {
        ConstraintKind::MustNot => 0,
        ConstraintKind::Caution => 1,
        ConstraintKind::ShouldPrefer => 2,
    }
}

pub(super) fn constraint(
    kind: ConstraintKind,
    text: String,
    source: ConstraintSource,
    megram_ids: Vec<MegramId>,
) -> RecalledConstraint {
    RecalledConstraint {
        kind,
        text,
        source,
        megram_ids,
    }
}

pub(super) fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|x| x.eq_ignore_ascii_case(item)) {
        list.push(item.to_string());
    }
}

pub(super) fn push_unique_tool<T: PartialEq>(list: &mut Vec<T>, tool: T) {
    if !list.contains(&tool) {
        list.push(tool);
    }
}

/// The Caution gate of the derived constraints. A Caution approach whose tools are
/// unknown gates the whole plan: the stricter reading wins over another group's named
/// tools. Tools already MUST NOT are not gated (they are refused outright).
pub(super) fn caution_gate(derived: &[Derived], must_not_tools: &[ToolRef]) -> CautionGate {
    let mut gated: Option<Vec<ToolName>> = None;
    let mut gate_plan_tools = false;
    for d in derived {
        if let Some(tools) = &d.gates {
            gate_plan_tools |= tools.is_empty();
            let all = gated.get_or_insert_with(Vec::new);
            for t in tools {
                push_unique_tool(all, *t);
            }
        }
    }
    match gated {
        None => CautionGate::None,
        Some(_) if gate_plan_tools => CautionGate::PlanTools,
        Some(tools) => {
            let tools: Vec<ToolName> = tools
                .into_iter()
                .filter(|t| !must_not_tools.iter().any(|b| b == t))
                .collect();
            if tools.is_empty() {
                CautionGate::PlanTools
            } else {
                CautionGate::Tools(tools)
            }
        }
    }
}

/// Whether a Megram still has at least half its strength: fresh evidence.
fn is_fresh(m: &Megram, now: DateTime<Utc>) -> bool {
    if m.level != Level::M {
        return false;
    }
    if m.k <= 0.0 {
        return true;
    }
    let age_days = (now - m.created_at).num_milliseconds().max(0) as f64 / 86_400_000.0;
    (-m.k * age_days).exp() >= 0.5
}

fn quote(megrams: &[&Megram]) -> String {
    megrams
        .iter()
        .take(QUOTES_PER_CONSTRAINT)
        .map(|m| format!("«{}»", clip_words(m.content.trim(), QUOTE_CHARS)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Executor tools named in Megram content as `tool: target`, or by a `tool:` space.
pub fn tools_named(megram: &Megram) -> BTreeSet<ToolName> {
    let mut out = BTreeSet::new();
    if let Some(name) = megram.space.strip_prefix("tool:")
        && let Some(tool) = ToolName::parse(name)
    {
        out.insert(tool);
    }
    let text = megram.content.to_lowercase();
    for tool in ToolName::CHAIN {
        let name = tool.as_str();
        let mut from = 0;
        while let Some(pos) = text[from..].find(name) {
            let at = from + pos;
            let end = at + name.len();
            let before_ok = text[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            if before_ok && text[end..].starts_with(':') {
                out.insert(tool);
                break;
            }
            from = end;
        }
    }
    out
}

fn potentials_note(p: &Potentials) -> String {
    format!("M_att={:.2}, M_dec={:+.2}", p.attention, p.decision)
}

/// Every constraint one group's answer yields: its potentials' constraint, then one per
/// SOP.
pub(super) fn derive_group(
    group: usize,
    r: &MemoryResponse,
    now: DateTime<Utc>,
    out: &mut Vec<Derived>,
) {
    let derived = match r.potentials.action {
        MemoryAction::Ignore => None,
        MemoryAction::Exploit => Some(derive_exploit(r)),
        MemoryAction::Avoid => Some(derive_avoid(r)),
        MemoryAction::Caution => Some(derive_caution(r)),
    };
    if let Some((constraint, blocks, gates)) = derived {
        out.push(Derived {
            group,
            constraint,
            blocks,
            gates,
        });
    }
    for sop in &r.sops {
        out.push(derive_sop(group, sop, &r.recent, now));
    }
}

/// What a potentials constraint adds besides itself: tools it blocks, tools it gates.
type PotentialsConstraint = (RecalledConstraint, Vec<ToolName>, Option<Vec<ToolName>>);

fn positive(r: &MemoryResponse) -> Vec<&Megram> {
    r.recent.iter().filter(|m| m.sigma > 0.0).collect()
}

fn negative(r: &MemoryResponse) -> Vec<&Megram> {
    r.recent.iter().filter(|m| m.sigma < 0.0).collect()
}

fn tools_of(ms: &[&Megram]) -> BTreeSet<ToolName> {
    ms.iter().flat_map(|m| tools_named(m)).collect()
}

fn ids(ms: &[&Megram]) -> Vec<MegramId> {
    ms.iter().map(|m| m.id).collect()
}

/// `space / entity, M_att=…, M_dec=…`: where a potentials constraint comes from.
fn provenance(r: &MemoryResponse) -> String {
    format!(
        "{} / {}, {}",
        r.space,
        r.entity,
        potentials_note(&r.potentials)
    )
}

fn derive_exploit(r: &MemoryResponse) -> PotentialsConstraint {
    let positive = positive(r);
    let mut text = format!(
        "SHOULD PREFER the approach that worked for this kind of task ({})",
        provenance(r)
    );
    if !positive.is_empty() {
        text.push_str(&format!(": {}", quote(&positive)));
    }
    let constraint = constraint(
        ConstraintKind::ShouldPrefer,
        text,
        ConstraintSource::Memory,
        ids(&positive),
    );
    (constraint, Vec::new(), None)
}

fn derive_avoid(r: &MemoryResponse) -> PotentialsConstraint {
    let (positive, negative) = (positive(r), negative(r));
    let blocked: BTreeSet<ToolName> = tools_of(&negative)
        .difference(&tools_of(&positive))
        .copied()
        .collect();
    let mut text = format!(
        "MUST NOT repeat the approach that failed for this kind of task ({})",
        provenance(r)
    );
    if !negative.is_empty() {
        text.push_str(&format!(": {}", quote(&negative)));
    }
    if !blocked.is_empty() {
        text.push_str(&format!(
            " — blocked tools for this task: {}",
            join_names(&blocked, ", ")
        ));
    }
    let constraint = constraint(
        ConstraintKind::MustNot,
        text,
        ConstraintSource::Memory,
        ids(&negative),
    );
    (constraint, blocked.into_iter().collect(), None)
}

fn derive_caution(r: &MemoryResponse) -> PotentialsConstraint {
    let all: Vec<&Megram> = r.recent.iter().collect();
    let tools = tools_of(&all);
    let gate = if tools.is_empty() {
        "each tool of the plan".to_string()
    } else {
        join_names(&tools, ", ")
    };
    let mut text = format!(
        "CAUTION: this kind of task has both succeeded and failed ({})",
        provenance(r)
    );
    if !all.is_empty() {
        text.push_str(&format!(": {}", quote(&all)));
    }
    text.push_str(&format!(
        " — every use of {gate} asks the user for confirmation in this task."
    ));
    let constraint = constraint(
        ConstraintKind::Caution,
        text,
        ConstraintSource::Memory,
        ids(&all),
    );
    (constraint, Vec::new(), Some(tools.into_iter().collect()))
}

fn derive_sop(group: usize, sop: &SOPRecord, recent: &[Megram], now: DateTime<Utc>) -> Derived {
    let contradicting: Vec<&Megram> = recent
        .iter()
        .filter(|m| is_fresh(m, now))
        .filter(|m| {
            if sop.sigma > 0.0 {
                m.sigma < 0.0
            } else {
                m.sigma > 0.0
            }
        })
        .collect();
    let rule = first_chars(sop.content.trim(), QUOTE_CHARS);
    let constraint = if contradicting.is_empty() {
        let kind = if sop.sigma > 0.0 {
            ConstraintKind::ShouldPrefer
        } else {
            ConstraintKind::MustNot
        };
        let lead = if sop.sigma > 0.0 {
            "SHOULD PREFER (proven practice)"
        } else {
            "MUST NOT (proven constraint)"
        };
        constraint(
            kind,
            format!("{lead}: {rule}"),
            ConstraintSource::Sop,
            vec![sop.id],
        )
    } else {
        // The latest objective evidence wins over an older consolidated rule for this task.
        let kind = if sop.sigma > 0.0 {
            ConstraintKind::MustNot
        } else {
            ConstraintKind::ShouldPrefer
        };
        let mut ids: Vec<MegramId> = contradicting.iter().map(|m| m.id).collect();
        ids.push(sop.id);
        constraint(
            kind,
            format!(
                "Recent evidence overrides the older rule «{rule}» for this task: {}",
                quote(&contradicting)
            ),
            ConstraintSource::FreshEvidence,
            ids,
        )
    };
    Derived {
        group,
        constraint,
        blocks: Vec::new(),
        gates: None,
    }
}
