//! The calibration's cases: each potentials action, SOPs against fresh evidence, the
//! cap, the directive's blocks and an unavailable group.

use super::*;
use crate::contracts::{
    Level, Loss, Megram, MegramId, MegramOrigin, MemoryResponse, MixedFailureClass, PrevDirective,
    ReplanDirective, SOPRecord, Urgency,
};
use crate::tools::{ToolName, ToolRef};
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
        state: MegramOrigin::Success,
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

fn run(answers: &[(Group, Answer)], directive: Option<&PlanDirective>, cap: usize) -> Calibration {
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
        .filter(|c| c.source != ConstraintSource::Law)
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
        .filter(|c| c.source == ConstraintSource::Law)
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
    assert_eq!(c.must_not_tools, vec![ToolRef::from(ToolName::Shell)]);
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
    assert_eq!(c.caution, CautionGate::Tools(vec![ToolName::Shell]));
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
    assert_eq!(m[0].source, ConstraintSource::FreshEvidence);
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
        (m[0].kind, m[0].source),
        (ConstraintKind::ShouldPrefer, ConstraintSource::Sop)
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
        blocked_tools: vec![ToolName::Search.into()],
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
    let from_memory = m
        .iter()
        .filter(|c| c.source == ConstraintSource::Sop)
        .count();
    assert_eq!(from_memory, 5);
    // The seven MUST NOT rules come first, so the five kept are all MUST NOT.
    assert!(
        m.iter()
            .filter(|c| c.source == ConstraintSource::Sop)
            .all(|c| c.kind == ConstraintKind::MustNot)
    );
    assert_eq!(
        m.iter()
            .filter(|c| c.source == ConstraintSource::BlockedTarget)
            .count(),
        2
    );
    assert_eq!(c.must_not_tools, vec![ToolRef::from(ToolName::Search)]);
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
