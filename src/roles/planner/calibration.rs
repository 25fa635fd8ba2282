//! The Memory Calibration Protocol (seed 000 §6.5, seed 003 "R2"): what memory says about
//! this kind of task, turned into prompt constraints and code-enforced sets, before every
//! plan and replan, with no model call.
//!
//! 1. Tags ([`groups`]): the intent group `intent:<slug>` / `env:local` (where GGS writes
//!    a task's terminal Megram) and the operator's group `global:user` / `env:local`
//!    (what the user told memory with "remember": preferences such as "answer in
//!    Chinese" apply to every task). Action Megrams (`tool:<name>` / `path:<target>`) are
//!    not queried: within a task GGS already turns the failed inputs into blocked targets,
//!    and before a plan exists there is no target to look up.
//! 2. One `MemoryQuery` per group ([`recall`]: QueryC + QueryMK + the recent M/K
//!    Megrams behind the potentials), bounded by a timeout. No answer or a store error →
//!    the group is *unavailable*: the plan is made without it and the recall says so.
//! 3. [`calibrate`] maps each group (pure):
//!    - potentials Exploit → SHOULD PREFER, quoting the successful Megrams;
//!    - Avoid → MUST NOT, quoting the failed Megrams; the tools named in them (and not in
//!      a success of the group) join the task's MUST NOT tools;
//!    - Caution → CAUTION: the approach's tools (named in the group's Megrams) go into
//!      every sub-task's `confirm_tools`, a gate the executor enforces; if the Megrams
//!      name no tool, the plan's own tools are gated;
//!    - Ignore → nothing;
//!    - each C SOP: σ > 0 → SHOULD PREFER, σ ≤ 0 → MUST NOT — unless fresh M evidence in
//!      the group contradicts it (opposite valence, still at ≥ half its strength): then
//!      the evidence speaks for this task instead (seed 000 §7.3 "M > C");
//!    - the T layer (the Four Laws) is always recalled (the prompt carries them in every
//!      role's system preamble, not in this block), and the directive's
//!      `blocked_tools` / `blocked_targets` are MUST NOT.
//!
//! Memory entries are capped at `memory.max_constraints` (MUST NOT first, then CAUTION,
//! then SHOULD PREFER; the intent group before the operator's). The laws and the
//! directive's blocks are not memory entries and are never cut. Tools are read from
//! Megram content by the `tool: target` listing GGS writes ("Used: shell: du -sh …"),
//! matched against the executor's tool names.
//!
//! **Invariant:** [`calibrate`] is pure and every constraint it emits names its source and
//! the Megrams behind it; a cut constraint enforces nothing.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::bus::BusHandle;
use crate::contracts::{
    ConstraintKind, Level, Megram, MegramId, MemoryAction, MemoryQuery, MemoryRecall,
    MemoryResponse, Message, PlanDirective, Potentials, RecalledConstraint, Role, SOPRecord,
    TaskId, first_chars,
};
use crate::laws::FOUR_LAWS;
use crate::tags;
use crate::tools::ToolName;

/// The operator's memory space ("remember …" from the CLI or the memory panel).
pub const USER_SPACE: &str = "global:user";

/// Characters of one Megram's content quoted in a constraint.
pub const QUOTE_CHARS: usize = 240;
/// Megrams quoted per potentials constraint.
pub const QUOTES_PER_CONSTRAINT: usize = 2;

/// Constraint sources, as `RecalledConstraint::source` names them.
pub mod source {
    pub const LAW: &str = "law";
    pub const BLOCKED_TOOL: &str = "blocked_tool";
    pub const BLOCKED_TARGET: &str = "blocked_target";
    pub const MEMORY: &str = "memory";
    pub const SOP: &str = "sop";
    pub const FRESH_EVIDENCE: &str = "fresh_evidence";
}

/// One (space, entity) group of memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub space: String,
    pub entity: String,
}

/// The groups R2 consults for a task: its intent group first, then the operator's.
pub fn groups(intent: &str) -> [Group; 2] {
    [
        Group {
            space: tags::intent_space(intent),
            entity: tags::ENV_LOCAL.to_string(),
        },
        Group {
            space: USER_SPACE.to_string(),
            entity: tags::ENV_LOCAL.to_string(),
        },
    ]
}

/// What one group's query came back with.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Answered(MemoryResponse),
    /// Why memory could not be consulted.
    Unavailable(String),
}

/// Asks R5 about one group and waits at most `timeout`.
pub async fn recall(bus: &BusHandle, task_id: &TaskId, group: &Group, timeout: Duration) -> Answer {
    let pending = bus.request(
        Role::Memory,
        MemoryQuery {
            task_id: task_id.clone(),
            space: group.space.clone(),
            entity: group.entity.clone(),
        },
    );
    match tokio::time::timeout(timeout, pending).await {
        Ok(Ok(env)) => match &env.message {
            Message::MemoryResponse(r) => match &r.error {
                Some(e) => Answer::Unavailable(format!("memory error: {e}")),
                None => Answer::Answered(r.clone()),
            },
            other => Answer::Unavailable(format!(
                "memory answered with {} instead of a MemoryResponse",
                other.kind().name()
            )),
        },
        Ok(Err(closed)) => Answer::Unavailable(closed.to_string()),
        Err(_) => Answer::Unavailable(format!(
            "memory did not answer within {} s",
            timeout.as_secs_f64()
        )),
    }
}

/// The tools a Caution group gates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CautionGate {
    /// No Caution group.
    None,
    /// The tools named in the Caution groups' Megrams.
    Tools(Vec<String>),
    /// A Caution group whose Megrams name no tool: the plan's own tools are gated.
    PlanTools,
}

/// Everything the calibration feeds into the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// One recall per group, in [`groups`] order; the first carries the laws and the
    /// directive's blocks.
    pub recalls: Vec<MemoryRecall>,
    /// GGS `blocked_tools` ∪ memory Avoid tools.
    pub must_not_tools: Vec<String>,
    /// GGS `blocked_targets`.
    pub must_not_targets: Vec<String>,
    pub caution: CautionGate,
    /// The constraint block of the planning prompt.
    pub prompt_block: String,
    /// Memory constraints for each sub-task's context (seed 003: effectors learn memory
    /// only through R2); empty when memory said nothing.
    pub subtask_context: String,
}

/// What [`calibrate`] works from.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub task_id: &'a TaskId,
    pub round: u32,
    /// Each group with its answer, intent group first.
    pub answers: &'a [(Group, Answer)],
    pub directive: Option<&'a PlanDirective>,
    pub max_constraints: usize,
    pub now: DateTime<Utc>,
}

/// A memory-derived constraint before the cap.
struct Derived {
    group: usize,
    constraint: RecalledConstraint,
    /// Tools this constraint makes MUST NOT (Avoid).
    blocks: Vec<String>,
    /// Tools this constraint gates (Caution); `Some(empty)` = the plan's tools.
    gates: Option<Vec<String>>,
}

fn rank(kind: ConstraintKind) -> u8 {
    match kind {
        ConstraintKind::MustNot => 0,
        ConstraintKind::Caution => 1,
        ConstraintKind::ShouldPrefer => 2,
    }
}

fn constraint(
    kind: ConstraintKind,
    text: String,
    source: &str,
    megram_ids: Vec<MegramId>,
) -> RecalledConstraint {
    RecalledConstraint {
        kind,
        text,
        source: source.to_string(),
        megram_ids,
    }
}

/// The protocol's steps 3–6 (see the module docs).
pub fn calibrate(input: Input<'_>) -> Calibration {
    let mut derived = Vec::new();
    for (idx, (_, answer)) in input.answers.iter().enumerate() {
        if let Answer::Answered(response) = answer {
            derive_group(idx, response, input.now, &mut derived);
        }
    }
    // Stable: within a kind, the intent group and derivation order are kept.
    derived.sort_by_key(|d| (rank(d.constraint.kind), d.group));
    derived.truncate(input.max_constraints);

    let mut must_not_tools: Vec<String> = Vec::new();
    let mut must_not_targets: Vec<String> = Vec::new();
    let mut fixed: Vec<RecalledConstraint> = FOUR_LAWS
        .iter()
        .map(|l| {
            constraint(
                ConstraintKind::MustNot,
                format!("Law {} — {}: {}", l.number, l.title, l.text),
                source::LAW,
                Vec::new(),
            )
        })
        .collect();
    if let Some(d) = input.directive {
        let blocks = [
            (
                &d.blocked_tools,
                &mut must_not_tools,
                source::BLOCKED_TOOL,
                "MUST NOT use the tool `{}`: the controller blocked it after a logical failure (code-enforced).",
            ),
            (
                &d.blocked_targets,
                &mut must_not_targets,
                source::BLOCKED_TARGET,
                "MUST NOT use or mention the target `{}`: it failed before in this task (code-enforced).",
            ),
        ];
        for (items, set, source, template) in blocks {
            for item in items.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
                push_unique(set, item);
                fixed.push(constraint(
                    ConstraintKind::MustNot,
                    template.replace("{}", item),
                    source,
                    Vec::new(),
                ));
            }
        }
    }

    let mut gated: Option<Vec<String>> = None;
    let mut gate_plan_tools = false;
    for d in &derived {
        for tool in &d.blocks {
            push_unique(&mut must_not_tools, tool);
        }
        if let Some(tools) = &d.gates {
            // A Caution approach whose tools are unknown gates the whole plan: the
            // stricter reading wins over another group's named tools.
            gate_plan_tools |= tools.is_empty();
            let all = gated.get_or_insert_with(Vec::new);
            for t in tools {
                push_unique(all, t);
            }
        }
    }
    let caution = match gated {
        None => CautionGate::None,
        Some(_) if gate_plan_tools => CautionGate::PlanTools,
        Some(tools) => {
            let tools: Vec<String> = tools
                .into_iter()
                .filter(|t| !must_not_tools.iter().any(|b| b.eq_ignore_ascii_case(t)))
                .collect();
            if tools.is_empty() {
                CautionGate::PlanTools
            } else {
                CautionGate::Tools(tools)
            }
        }
    };

    let recalls = input
        .answers
        .iter()
        .enumerate()
        .map(|(idx, (group, answer))| {
            let mut constraints = if idx == 0 { fixed.clone() } else { Vec::new() };
            constraints.extend(
                derived
                    .iter()
                    .filter(|d| d.group == idx)
                    .map(|d| d.constraint.clone()),
            );
            let (sops, potentials, error) = match answer {
                Answer::Answered(r) => (r.sops.clone(), r.potentials, None),
                Answer::Unavailable(why) => (Vec::new(), no_potentials(), Some(why.clone())),
            };
            MemoryRecall {
                task_id: input.task_id.clone(),
                space: group.space.clone(),
                entity: group.entity.clone(),
                sops,
                potentials,
                constraints,
                round: input.round,
                error,
            }
        })
        .collect();

    let memory: Vec<&RecalledConstraint> = derived.iter().map(|d| &d.constraint).collect();
    Calibration {
        prompt_block: prompt_block(&fixed, &memory, &caution, input.answers),
        subtask_context: subtask_context(&memory),
        recalls,
        must_not_tools,
        must_not_targets,
        caution,
    }
}

fn no_potentials() -> Potentials {
    Potentials {
        attention: 0.0,
        decision: 0.0,
        action: MemoryAction::Ignore,
    }
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|x| x.eq_ignore_ascii_case(item)) {
        list.push(item.to_string());
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
        .map(|m| format!("«{}»", first_chars(m.content.trim(), QUOTE_CHARS)))
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

fn names(tools: &BTreeSet<ToolName>) -> Vec<String> {
    tools.iter().map(|t| t.as_str().to_string()).collect()
}

fn potentials_note(p: &Potentials) -> String {
    format!("M_att={:.2}, M_dec={:+.2}", p.attention, p.decision)
}

fn derive_group(group: usize, r: &MemoryResponse, now: DateTime<Utc>, out: &mut Vec<Derived>) {
    let positive: Vec<&Megram> = r.recent.iter().filter(|m| m.sigma > 0.0).collect();
    let negative: Vec<&Megram> = r.recent.iter().filter(|m| m.sigma < 0.0).collect();
    let tools_of =
        |ms: &[&Megram]| -> BTreeSet<ToolName> { ms.iter().flat_map(|m| tools_named(m)).collect() };
    let ids = |ms: &[&Megram]| -> Vec<MegramId> { ms.iter().map(|m| m.id).collect() };
    let note = potentials_note(&r.potentials);
    let at = format!("{} / {}", r.space, r.entity);

    match r.potentials.action {
        MemoryAction::Ignore => {}
        MemoryAction::Exploit => {
            let mut text = format!(
                "SHOULD PREFER the approach that worked for this kind of task ({at}, {note})"
            );
            if !positive.is_empty() {
                text.push_str(&format!(": {}", quote(&positive)));
            }
            out.push(Derived {
                group,
                constraint: constraint(
                    ConstraintKind::ShouldPrefer,
                    text,
                    source::MEMORY,
                    ids(&positive),
                ),
                blocks: Vec::new(),
                gates: None,
            });
        }
        MemoryAction::Avoid => {
            let blocked: BTreeSet<ToolName> = tools_of(&negative)
                .difference(&tools_of(&positive))
                .copied()
                .collect();
            let mut text = format!(
                "MUST NOT repeat the approach that failed for this kind of task ({at}, {note})"
            );
            if !negative.is_empty() {
                text.push_str(&format!(": {}", quote(&negative)));
            }
            if !blocked.is_empty() {
                text.push_str(&format!(
                    " — blocked tools for this task: {}",
                    names(&blocked).join(", ")
                ));
            }
            out.push(Derived {
                group,
                constraint: constraint(
                    ConstraintKind::MustNot,
                    text,
                    source::MEMORY,
                    ids(&negative),
                ),
                blocks: names(&blocked),
                gates: None,
            });
        }
        MemoryAction::Caution => {
            let all: Vec<&Megram> = r.recent.iter().collect();
            let tools = tools_of(&all);
            let gate = if tools.is_empty() {
                "each tool of the plan".to_string()
            } else {
                names(&tools).join(", ")
            };
            let mut text =
                format!("CAUTION: this kind of task has both succeeded and failed ({at}, {note})");
            if !all.is_empty() {
                text.push_str(&format!(": {}", quote(&all)));
            }
            text.push_str(&format!(
                " — every use of {gate} asks the user for confirmation in this task."
            ));
            out.push(Derived {
                group,
                constraint: constraint(ConstraintKind::Caution, text, source::MEMORY, ids(&all)),
                blocks: Vec::new(),
                gates: Some(names(&tools)),
            });
        }
    }

    for sop in &r.sops {
        out.push(derive_sop(group, sop, &r.recent, now));
    }
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
        constraint(kind, format!("{lead}: {rule}"), source::SOP, vec![sop.id])
    } else {
        // Seed 000 §7.3: the latest objective evidence wins over an old rule for this task.
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
            source::FRESH_EVIDENCE,
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

fn bullet_list(items: &[&RecalledConstraint], kind: ConstraintKind) -> Vec<String> {
    items
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| format!("- {}", c.text))
        .collect()
}

/// The constraints for the plan request: MUST NOT, CAUTION and SHOULD PREFER items and
/// any memory group that could not be read. Empty when there is nothing to say. The
/// laws are recalled (and published with the recall) but not repeated here: every
/// role's system prompt opens with them (`roles::preamble`).
fn prompt_block(
    fixed: &[RecalledConstraint],
    memory: &[&RecalledConstraint],
    caution: &CautionGate,
    answers: &[(Group, Answer)],
) -> String {
    let mut out = String::new();
    let blocks: Vec<&RecalledConstraint> =
        fixed.iter().filter(|c| c.source != source::LAW).collect();
    let mut must_not = bullet_list(&blocks, ConstraintKind::MustNot);
    must_not.extend(bullet_list(memory, ConstraintKind::MustNot));
    if !must_not.is_empty() {
        out.push_str("MUST NOT:\n");
        out.push_str(&(must_not.join("\n") + "\n"));
    }
    let cautions = bullet_list(memory, ConstraintKind::Caution);
    if !cautions.is_empty() {
        out.push_str("CAUTION:\n");
        out.push_str(&(cautions.join("\n") + "\n"));
        if let CautionGate::Tools(tools) = caution {
            out.push_str(&format!(
                "(The executor will ask the user before each use of: {}.)\n",
                tools.join(", ")
            ));
        }
    }
    let prefer = bullet_list(memory, ConstraintKind::ShouldPrefer);
    if !prefer.is_empty() {
        out.push_str("SHOULD PREFER:\n");
        out.push_str(&(prefer.join("\n") + "\n"));
    }
    for (group, answer) in answers {
        if let Answer::Unavailable(why) = answer {
            out.push_str(&format!(
                "Memory for {} / {} is unavailable ({why}): this plan is made without it.\n",
                group.space, group.entity
            ));
        }
    }
    out
}

fn subtask_context(memory: &[&RecalledConstraint]) -> String {
    if memory.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = memory.iter().map(|c| format!("- {}", c.text)).collect();
    format!(
        "Memory from earlier tasks (code-derived):\n{}",
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::{Loss, MixedFailureClass, PrevDirective, ReplanDirective, Urgency};
    use chrono::Duration as ChronoDuration;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-01-10T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn megram(content: &str, sigma: f64, days_old: i64, level: Level) -> Megram {
        Megram {
            id: MegramId::mint(),
            level,
            created_at: now() - ChronoDuration::days(days_old),
            last_recalled_at: None,
            space: "intent:find-videos".into(),
            entity: "env:local".into(),
            content: content.into(),
            state: "success".into(),
            f: 0.8,
            sigma,
            k: 0.05,
        }
    }

    fn response(action: MemoryAction, recent: Vec<Megram>, sops: Vec<SOPRecord>) -> MemoryResponse {
        MemoryResponse {
            task_id: TaskId::from_existing("task_a"),
            space: "intent:find-videos".into(),
            entity: "env:local".into(),
            sops,
            potentials: Potentials {
                attention: 1.7,
                decision: match action {
                    MemoryAction::Exploit => 0.8,
                    MemoryAction::Avoid => -0.9,
                    _ => 0.0,
                },
                action,
            },
            recent,
            error: None,
        }
    }

    fn sop(content: &str, sigma: f64) -> SOPRecord {
        SOPRecord {
            id: MegramId::mint(),
            space: "intent:find-videos".into(),
            entity: "env:local".into(),
            content: content.into(),
            sigma,
        }
    }

    fn answers(intent: Answer) -> Vec<(Group, Answer)> {
        let [g0, g1] = groups("find videos");
        vec![(g0, intent), (g1, Answer::Answered(empty_user()))]
    }

    fn empty_user() -> MemoryResponse {
        MemoryResponse {
            task_id: TaskId::from_existing("task_a"),
            space: USER_SPACE.into(),
            entity: "env:local".into(),
            sops: vec![],
            potentials: no_potentials(),
            recent: vec![],
            error: None,
        }
    }

    fn run(
        answers: &[(Group, Answer)],
        directive: Option<&PlanDirective>,
        cap: usize,
    ) -> Calibration {
        calibrate(Input {
            task_id: &TaskId::from_existing("task_a"),
            round: directive.map_or(0, |d| d.round),
            answers,
            directive,
            max_constraints: cap,
            now: now(),
        })
    }

    fn memory_constraints(c: &Calibration) -> Vec<&RecalledConstraint> {
        c.recalls
            .iter()
            .flat_map(|r| r.constraints.iter())
            .filter(|c| c.source != source::LAW)
            .collect()
    }

    #[test]
    fn the_intent_group_and_the_operators_group_are_consulted() {
        let [intent, user] = groups("Find the largest videos");
        assert_eq!(intent.space, "intent:find_largest_video");
        assert_eq!(intent.entity, "env:local");
        assert_eq!(user.space, "global:user");
    }

    #[test]
    fn the_four_laws_are_always_present_even_with_empty_memory() {
        let c = run(
            &answers(Answer::Answered(response(
                MemoryAction::Ignore,
                vec![],
                vec![],
            ))),
            None,
            10,
        );
        let laws: Vec<_> = c.recalls[0]
            .constraints
            .iter()
            .filter(|c| c.source == source::LAW)
            .collect();
        assert_eq!(laws.len(), 4);
        // The laws open every role's system prompt; the plan request does not repeat
        // them, and with nothing else to say the block is empty.
        assert_eq!(c.prompt_block, "");
        assert!(memory_constraints(&c).is_empty());
        assert_eq!(c.subtask_context, "");
    }

    #[test]
    fn exploit_becomes_should_prefer_with_the_successful_megrams_behind_it() {
        let good = megram(
            "Succeeded. Used: mdfind: vacation.mp4. Result: 3 videos",
            1.0,
            1,
            Level::M,
        );
        let bad = megram("Failed. Tried: shell: find ~ -name x", -1.0, 2, Level::M);
        let c = run(
            &answers(Answer::Answered(response(
                MemoryAction::Exploit,
                vec![good.clone(), bad],
                vec![],
            ))),
            None,
            10,
        );
        let m = memory_constraints(&c);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].kind, ConstraintKind::ShouldPrefer);
        assert_eq!(m[0].megram_ids, vec![good.id]);
        assert!(m[0].text.contains("vacation.mp4"));
        assert!(c.must_not_tools.is_empty());
        assert_eq!(c.caution, CautionGate::None);
        assert!(c.subtask_context.contains("SHOULD PREFER"));
    }

    #[test]
    fn avoid_becomes_must_not_and_blocks_the_tools_only_failures_used() {
        let bad = megram(
            "Failed (abandon). Tried: shell: find ~ -name '*.mp4'; glob: *.mp4",
            -1.0,
            1,
            Level::M,
        );
        let good = megram("Succeeded. Used: glob: ~/Movies/*.mp4", 1.0, 30, Level::M);
        let c = run(
            &answers(Answer::Answered(response(
                MemoryAction::Avoid,
                vec![bad.clone(), good],
                vec![],
            ))),
            None,
            10,
        );
        let m = memory_constraints(&c);
        assert_eq!(m[0].kind, ConstraintKind::MustNot);
        assert_eq!(m[0].megram_ids, vec![bad.id]);
        assert_eq!(c.must_not_tools, vec!["shell".to_string()]);
        assert!(
            c.prompt_block
                .contains("blocked tools for this task: shell")
        );
    }

    #[test]
    fn caution_gates_the_approachs_tools_or_the_plans_own_when_none_are_named() {
        let a = megram("Succeeded. Used: shell: du -sh ~/Movies", 1.0, 1, Level::M);
        let b = megram("Failed. Tried: shell: du -sh /", -1.0, 1, Level::M);
        let c = run(
            &answers(Answer::Answered(response(
                MemoryAction::Caution,
                vec![a, b],
                vec![],
            ))),
            None,
            10,
        );
        assert_eq!(c.caution, CautionGate::Tools(vec!["shell".into()]));
        let m = memory_constraints(&c);
        assert_eq!(m[0].kind, ConstraintKind::Caution);
        assert_eq!(m[0].megram_ids.len(), 2);

        let vague = megram("It went both ways", 1.0, 1, Level::M);
        let c = run(
            &answers(Answer::Answered(response(
                MemoryAction::Caution,
                vec![vague],
                vec![],
            ))),
            None,
            10,
        );
        assert_eq!(c.caution, CautionGate::PlanTools);
    }

    #[test]
    fn sops_map_by_valence() {
        let good = sop("Use mdfind for personal files.", 1.0);
        let bad = sop("Never search the whole disk with find.", -1.0);
        let c = run(
            &answers(Answer::Answered(response(
                MemoryAction::Ignore,
                vec![],
                vec![good.clone(), bad.clone()],
            ))),
            None,
            10,
        );
        let m = memory_constraints(&c);
        assert_eq!(m.len(), 2);
        // MUST NOT sorts first.
        assert_eq!(
            (m[0].kind, m[0].megram_ids.clone()),
            (ConstraintKind::MustNot, vec![bad.id])
        );
        assert_eq!(
            (m[1].kind, m[1].megram_ids.clone()),
            (ConstraintKind::ShouldPrefer, vec![good.id])
        );
        assert!(m[1].text.contains("Use mdfind"));
    }

    #[test]
    fn fresh_m_evidence_overrides_a_contradicted_sop_for_this_task() {
        let rule = sop("Use mdfind for personal files.", 1.0);
        let fresh_failure = megram(
            "Failed. Tried: mdfind: report.pdf — index disabled",
            -1.0,
            2,
            Level::M,
        );
        let c = run(
            &answers(Answer::Answered(response(
                MemoryAction::Ignore,
                vec![fresh_failure.clone()],
                vec![rule.clone()],
            ))),
            None,
            10,
        );
        let m = memory_constraints(&c);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].kind, ConstraintKind::MustNot);
        assert_eq!(m[0].source, source::FRESH_EVIDENCE);
        assert_eq!(m[0].megram_ids, vec![fresh_failure.id, rule.id]);
        assert!(!c.prompt_block.contains("SHOULD PREFER (proven practice)"));

        // Stale evidence (past half its strength: k = 0.05 → 13.9 days) does not override.
        let stale = megram("Failed. Tried: mdfind: report.pdf", -1.0, 20, Level::M);
        let c = run(
            &answers(Answer::Answered(response(
                MemoryAction::Ignore,
                vec![stale],
                vec![rule],
            ))),
            None,
            10,
        );
        let m = memory_constraints(&c);
        assert_eq!(
            (m[0].kind, m[0].source.as_str()),
            (ConstraintKind::ShouldPrefer, source::SOP)
        );
    }

    #[test]
    fn memory_entries_are_capped_but_laws_and_directive_blocks_are_not() {
        let sops: Vec<SOPRecord> = (0..14)
            .map(|i| sop(&format!("rule {i}"), if i % 2 == 0 { 1.0 } else { -1.0 }))
            .collect();
        let directive = PlanDirective {
            task_id: TaskId::from_existing("task_a"),
            loss: Loss::default(),
            prev_directive: PrevDirective::Init,
            directive: ReplanDirective::ChangePath,
            blocked_tools: vec!["search".into()],
            blocked_targets: vec!["~/Old".into(), "~/Older".into()],
            failed_criterion: String::new(),
            failure_class: MixedFailureClass::Environmental,
            budget_pressure: 0.2,
            grad_l: 0.0,
            rationale: String::new(),
            urgency: Urgency::Normal,
            gradient: None,
            round: 1,
        };
        let c = run(
            &answers(Answer::Answered(response(
                MemoryAction::Ignore,
                vec![],
                sops,
            ))),
            Some(&directive),
            5,
        );
        let m = memory_constraints(&c);
        let from_memory = m.iter().filter(|c| c.source == source::SOP).count();
        assert_eq!(from_memory, 5);
        // The seven MUST NOT rules come first, so the five kept are all MUST NOT.
        assert!(
            m.iter()
                .filter(|c| c.source == source::SOP)
                .all(|c| c.kind == ConstraintKind::MustNot)
        );
        assert_eq!(
            m.iter()
                .filter(|c| c.source == source::BLOCKED_TARGET)
                .count(),
            2
        );
        assert_eq!(c.must_not_tools, vec!["search".to_string()]);
        assert_eq!(
            c.must_not_targets,
            vec!["~/Old".to_string(), "~/Older".to_string()]
        );
        assert_eq!(c.recalls[0].round, 1);
    }

    #[test]
    fn an_unavailable_group_is_reported_and_planned_without() {
        let [g0, g1] = groups("find videos");
        let a = vec![
            (
                g0,
                Answer::Unavailable("memory did not answer within 3 s".into()),
            ),
            (g1, Answer::Answered(empty_user())),
        ];
        let c = run(&a, None, 10);
        assert_eq!(
            c.recalls[0].error.as_deref(),
            Some("memory did not answer within 3 s")
        );
        assert_eq!(c.recalls[0].potentials.action, MemoryAction::Ignore);
        assert_eq!(c.recalls[1].error, None);
        assert!(
            c.prompt_block
                .contains("is unavailable (memory did not answer within 3 s)")
        );
        assert_eq!(c.recalls[0].constraints.len(), 4, "the laws stay");
    }

    #[test]
    fn tools_are_read_from_the_tool_target_listing_only() {
        let m = megram(
            "Failed on \"search the web for shell scripts\". Tried: read_file: ~/a.txt; glob: *.sh",
            -1.0,
            1,
            Level::M,
        );
        let tools: Vec<_> = tools_named(&m).into_iter().collect();
        assert_eq!(tools, vec![ToolName::Glob, ToolName::ReadFile]);
        let mut action = megram("refine: x on y failed", -1.0, 1, Level::M);
        action.space = "tool:shell".into();
        assert_eq!(
            tools_named(&action).into_iter().collect::<Vec<_>>(),
            vec![ToolName::Shell]
        );
    }
}
