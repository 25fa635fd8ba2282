//! `/replay`: a logged run's trajectory without re-running it — the input and intent,
//! each round's memory, plan, sub-tasks, R4b's verdict and GGS's decision with its
//! arrow, the Law 1 exchanges, the result, and the cost.
//!
//! **Invariant:** only what the log holds is shown; anything missing is said to be
//! missing ("not logged", "log incomplete"), never filled in.

use artoo::text::one_line;
use artoo::tools::join_names;
use std::fmt::Write as _;

use super::result::cost_block;
use super::text::{arrow, f2, group, pct, plural, seconds, signed, snake, succeeded};
use artoo::config::GgsParams;
use artoo::contracts::{MemoryRecall, SubTaskStatus};
use artoo::ggs::decide::gradient_label;
use artoo::tasklog::{GgsDecision, Round, SubtaskTrace, Trajectory};

/// `/replay`: a run's trajectory without re-running it — rounds with memory, plan,
/// sub-tasks and verdicts, GGS's D/P/Ω/L/∇L with the arrow, directives, the result.
pub fn trajectory(t: &Trajectory, run_id: &str, ggs: &GgsParams) -> Vec<String> {
    let mut lines = vec![format!(
        "Run {run_id} · task {} · {}{}",
        t.task_id.as_ref().map_or("?", |id| id.as_str()),
        t.status.as_str(),
        t.elapsed_ms
            .map(|ms| format!(" · {} s", seconds(ms)))
            .unwrap_or_default()
    )];
    if let Some(input) = &t.raw_input {
        lines.push(format!("› {}", one_line(input, 100)));
    }
    if let Some(intent) = t.intent() {
        lines.push(format!("intent: {}", one_line(intent, 100)));
    }
    for c in &t.clarifications {
        lines.push(format!(
            "clarification {}: {} → {}",
            c.round,
            one_line(&c.question, 60),
            c.answer
                .as_deref()
                .map_or("(no answer)".to_string(), |a| if a.trim().is_empty() {
                    "(proceed)".to_string()
                } else {
                    one_line(a, 40)
                })
        ));
    }
    if let Some(reply) = &t.chat_reply {
        lines.push(format!("chat reply: {}", one_line(reply, 100)));
    }
    for round in &t.rounds {
        lines.extend(round_lines(round, ggs));
    }
    for law1 in &t.law1 {
        let what = law1.request.as_ref().map_or_else(
            || "(request not logged)".to_string(),
            |r| one_line(&r.command, 60),
        );
        let answer = law1.decision.as_ref().map_or_else(
            || "unanswered".to_string(),
            |d| format!("{} ({})", snake(&d.decision), snake(&d.source)),
        );
        lines.push(format!("Law 1: {what} → {answer}"));
    }
    if let Some(r) = &t.final_result {
        lines.push(format!(
            "result: {} {} — {}",
            if succeeded(r.directive) { "✅" } else { "❌" },
            snake(&r.directive),
            one_line(&r.summary, 100)
        ));
        for (i, m) in r.next_moves.iter().enumerate() {
            lines.push(format!("  {}. {}", i + 1, one_line(m, 100)));
        }
    }
    if let Some(reason) = &t.cancelled {
        lines.push(format!("cancelled: {}", one_line(reason, 100)));
    }
    if t.skipped_messages > 0 || t.unreadable_lines > 0 || t.truncated {
        lines.push(format!(
            "(log incomplete: {} messages lost, {} unreadable lines{})",
            t.skipped_messages,
            t.unreadable_lines,
            if t.truncated { ", cut off" } else { "" }
        ));
    }
    lines.push(String::new());
    lines.extend(cost_block(&t.usage));
    lines
}

/// One round: its plan, memory, sub-tasks, R4b's verdict, GGS's decision, the directive.
fn round_lines(round: &Round, ggs: &GgsParams) -> Vec<String> {
    let mut lines = Vec::new();
    let plan = round.plan.as_ref().map_or_else(
        || "no plan".to_string(),
        |p| {
            format!(
                "{} · {}",
                plural(p.subtasks.len(), "sub-task", "sub-tasks"),
                plural(p.task_criteria.len(), "task criterion", "task criteria")
            )
        },
    );
    lines.push(format!("round {}: {plan}", round.index));
    lines.extend(round.recalls.iter().map(|r| recall_line(&r.recall)));
    lines.extend(round.subtasks.iter().map(subtask_line));
    if !round.skipped.is_empty() {
        lines.push(format!(
            "  {} skipped after a failed group",
            round.skipped.len()
        ));
    }
    if let Some(a) = &round.accepted {
        lines.push(format!("  R4b accepted: {}", one_line(&a.summary, 80)));
    }
    if let Some(r) = &round.replan {
        lines.push(format!("  R4b replan: {}", one_line(&r.gap_summary, 80)));
    }
    if let Some(f) = &round.planning_failed {
        lines.push(format!("  planning failed: {}", one_line(&f.reason, 80)));
    }
    if let Some(d) = &round.decision {
        lines.push(decision_line(d, ggs));
    }
    if let Some(p) = &round.directive {
        lines.push(format!(
            "  directive {} · {} class · blocked tools [{}] · {} blocked targets",
            snake(&p.directive),
            snake(&p.failure_class),
            join_names(&p.blocked_tools, ", "),
            p.blocked_targets.len()
        ));
    }
    lines
}

fn recall_line(q: &MemoryRecall) -> String {
    format!(
        "  memory {} · {} · {}",
        group(&q.space, &q.entity, &q.potentials),
        plural(q.sops.len(), "SOP", "SOPs"),
        plural(q.constraints.len(), "constraint", "constraints")
    )
}

/// `✓`, `✗` (with the reason) or `…` (not closed), the intent, attempts and tool calls.
fn subtask_line(s: &SubtaskTrace) -> String {
    let intent = s.subtask.as_ref().map_or_else(
        || "(not logged)".to_string(),
        |b| format!("#{} {}", b.sequence, one_line(&b.intent, 60)),
    );
    let (mark, why) = match &s.outcome {
        Some(e) if e.status == SubTaskStatus::Matched => ("✓", String::new()),
        Some(e) => (
            "✗",
            e.failure_reason
                .as_deref()
                .map(|r| format!(" — {}", one_line(r, 60)))
                .unwrap_or_default(),
        ),
        None => ("…", String::new()),
    };
    format!(
        "  {mark} {intent} · {} · {}{why}",
        plural(s.executions.len(), "attempt", "attempts"),
        plural(s.tool_calls.len(), "tool call", "tool calls")
    )
}

/// GGS's decision: the arrow, D/P/Ω/L/∇L, the directive and its rationale.
fn decision_line(d: &GgsDecision, ggs: &GgsParams) -> String {
    let gradient = d
        .gradient
        .unwrap_or_else(|| gradient_label(d.grad_l, d.loss.d, ggs));
    let mut line = format!(
        "  R7 {} D={} P={} Ω={} L={} ∇L={} → {}",
        arrow(gradient),
        f2(d.loss.d),
        f2(d.loss.p),
        pct(d.loss.omega),
        f2(d.loss.l),
        signed(d.grad_l),
        d.directive.as_str()
    );
    if let Some(why) = &d.rationale {
        let _ = write!(line, " — {}", one_line(why, 80));
    }
    line
}
