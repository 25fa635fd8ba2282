//! R7 Goal Gradient Solver: the 24 cells of seed 000 Appendix A, both sides of every
//! threshold, the Law 2 kill-switch, the replan budget, accept vs success, loss arithmetic
//! with hand-computed numbers, properties, and multi-round runs of the role over a real bus.

use artoo::tools::{ToolName, ToolRef};
use std::time::Duration;

use artoo::bus::{Bus, Envelope, Inbox};
use artoo::config::{Budgets, GgsParams};
use artoo::contracts::*;
use artoo::ggs::decide::{self, Inputs, Reason};
use artoo::ggs::loss;
use artoo::ggs::{Ggs, Observation, Settings, Step, TaskState};
use artoo::lifecycle::Registry;
use artoo::{Clock, Config, FakeClock, tags};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------

/// How long GGS waits for R2's graceful failure with the default settings.
fn graceful_timeout() -> Duration {
    Config::with_dirs("/unused", "/unused")
        .limits()
        .graceful_failure_timeout
}

fn params() -> GgsParams {
    GgsParams::default()
}

/// The time budget of the tasks these tests submit.
const TASK_BUDGET_MS: u64 = 120_000;

/// A task of the default budgets after `replans` replans and `elapsed_ms`.
fn spent(replans: u32, elapsed_ms: u64) -> loss::Spent {
    loss::Spent {
        replans,
        max_replans: Budgets::default().max_replans,
        elapsed_ms,
        budget_ms: TASK_BUDGET_MS,
    }
}

fn settings() -> Settings {
    Settings {
        params: GgsParams::default(),
        budgets: Budgets::default(),
        longest_budget_ms: TASK_BUDGET_MS,
    }
}

fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc)
}

fn loss_of(d: f64, p: f64, omega: f64) -> Loss {
    Loss {
        d,
        p,
        omega,
        l: 0.0,
    }
}

fn inputs(d: f64, p: f64, omega: f64, grad_l: f64) -> Inputs {
    Inputs {
        loss: loss_of(d, p, omega),
        grad_l,
        accepted: false,
        worsening_streak: 0,
        replans: 0,
        sensor_abandon: false,
    }
}

fn state_of(i: &Inputs) -> MacroState {
    decide::decide(i, &params(), 3).state
}

fn verdict(c: &str, v: Verdict, class: Option<FailureClass>) -> CriterionVerdict {
    CriterionVerdict {
        criterion: c.into(),
        mode: None,
        verdict: v,
        failure_class: class,
        evidence: String::new(),
    }
}

fn plausible(c: &str, v: Verdict, class: Option<FailureClass>) -> CriterionVerdict {
    CriterionVerdict {
        mode: Some(CriterionMode::Plausible),
        ..verdict(c, v, class)
    }
}

/// The path a call's target names (its last `/…` or `~/…` word), cut before the first
/// wildcard component: what an error about that call would name as missing.
fn path_named_by(target: &str) -> Option<String> {
    let word = target
        .split_whitespace()
        .rev()
        .find(|w| w.starts_with('/') || w.starts_with("~/"))?;
    let kept: Vec<&str> = word
        .split('/')
        .take_while(|c| !c.contains(['*', '?']))
        .collect();
    Some(kept.join("/")).filter(|p| !p.is_empty() && p != "~")
}

/// A tool call as the executor records it. An errored call failed as not-found, and its
/// message names the path its target refers to, the way `ls` or `cat` does; a target
/// without a path gets an error that names nothing.
fn call(tool: &str, target: &str, status: ToolCallStatus) -> ToolCallRecord {
    ToolCallRecord {
        tool: ToolRef::parse(tool),
        input: serde_json::json!({ "target": target }),
        target: target.into(),
        output_head: if status == ToolCallStatus::Ok {
            "ok".into()
        } else {
            String::new()
        },
        status,
        error: (status == ToolCallStatus::Error).then(|| match path_named_by(target) {
            Some(path) => format!("cannot access '{path}': No such file or directory"),
            None => "No such file or directory".into(),
        }),
        duration_ms: 5,
        confirmation: None,
        failure: (status == ToolCallStatus::Error).then_some(ToolFailure::NotFound),
        failed_exit: None,
        effects: Vec::new(),
        grant: None,
    }
}

fn outcome(
    task: &TaskId,
    status: SubTaskStatus,
    verdicts: Vec<CriterionVerdict>,
    calls: Vec<ToolCallRecord>,
    output: serde_json::Value,
) -> SubTaskOutcome {
    let unmet: Vec<String> = verdicts
        .iter()
        .filter(|v| v.failed())
        .map(|v| v.criterion.clone())
        .collect();
    SubTaskOutcome {
        subtask_id: SubTaskId::mint(),
        parent_task_id: task.clone(),
        status,
        output,
        failure_reason: (status == SubTaskStatus::Failed).then(|| "criteria unmet".into()),
        gap_trajectory: vec![GapPoint {
            attempt: 1,
            score: 0.0,
            unmet_criteria: unmet,
            failure_class: None,
        }],
        criteria_verdicts: verdicts,
        tool_calls: calls,
    }
}

/// A failed sub-task whose one criterion failed environmentally on `target` (the call
/// errored): D = 1, P = 0.
fn env_failure(task: &TaskId, tool: &str, target: &str) -> SubTaskOutcome {
    outcome(
        task,
        SubTaskStatus::Failed,
        vec![verdict(
            "the file was read",
            Verdict::Fail,
            Some(FailureClass::Environmental),
        )],
        vec![call(tool, target, ToolCallStatus::Error)],
        serde_json::Value::Null,
    )
}

/// A matched sub-task whose one call printed what it delivers (so the answer is grounded
/// in tool output).
fn matched(task: &TaskId, criterion: &str, output: serde_json::Value) -> SubTaskOutcome {
    let mut found = call("glob", "*.mp4", ToolCallStatus::Ok);
    found.output_head = match &output {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    outcome(
        task,
        SubTaskStatus::Matched,
        vec![verdict(criterion, Verdict::Pass, None)],
        vec![found],
        output,
    )
}

fn replan_request(task: &TaskId, outcomes: Vec<SubTaskOutcome>, elapsed_ms: u64) -> ReplanRequest {
    let (failed, matched): (Vec<_>, Vec<_>) = outcomes
        .into_iter()
        .partition(|o| o.status == SubTaskStatus::Failed);
    ReplanRequest {
        task_id: task.clone(),
        intent: "Find the largest videos in Downloads".into(),
        gap_summary: format!("{} sub-task(s) failed", failed.len()),
        failed_subtasks: failed.iter().map(|o| o.subtask_id).collect(),
        failed_outcomes: failed,
        matched_outcomes: matched,
        task_criteria_verdicts: vec![],
        unrun_subtasks: vec![],
        unjudged_task_criteria: vec![],
        correction_count: 1,
        elapsed_ms,
        recommendation: Recommendation::Replan,
    }
}

fn outcome_summary(
    task: &TaskId,
    outcomes: Vec<SubTaskOutcome>,
    elapsed_ms: u64,
) -> OutcomeSummary {
    OutcomeSummary {
        task_id: task.clone(),
        intent: "Find the largest videos in Downloads".into(),
        merged_output: serde_json::json!({ "largest": "/home/u/Downloads/a.mp4" }),
        summary: "The largest video is a.mp4.".into(),
        task_criteria_verdicts: vec![verdict("one path is named", Verdict::Pass, None)],
        outcomes,
        elapsed_ms,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

// ---------------------------------------------------------------------------------------
// Seed 000 Appendix A: the 24 cells
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum G {
    Improving,
    Flat,
    Worsening,
}

const APPENDIX_A: [(u8, G, bool, bool, bool, MacroState); 24] = {
    use G::*;
    use MacroState::*;
    // (#, ∇L, D > δ, P > ρ, Ω ≥ θ, macro-state)
    [
        (1, Improving, false, false, false, Success),
        (2, Improving, false, true, false, Success),
        (3, Improving, false, false, true, Abandon),
        (4, Improving, false, true, true, Abandon),
        (5, Improving, true, false, false, Refine),
        (6, Improving, true, true, false, ChangeApproach),
        (7, Improving, true, false, true, Abandon),
        (8, Improving, true, true, true, Abandon),
        (9, Flat, false, false, false, Success),
        (10, Flat, false, true, false, Success),
        (11, Flat, false, false, true, Abandon),
        (12, Flat, false, true, true, Abandon),
        (13, Flat, true, false, false, ChangePath),
        (14, Flat, true, true, false, BreakSymmetry),
        (15, Flat, true, false, true, Abandon),
        (16, Flat, true, true, true, Abandon),
        (17, Worsening, false, false, false, Success),
        (18, Worsening, false, true, false, Success),
        (19, Worsening, false, false, true, Abandon),
        (20, Worsening, false, true, true, Abandon),
        (21, Worsening, true, false, false, Refine),
        (22, Worsening, true, true, false, ChangeApproach),
        (23, Worsening, true, false, true, Abandon),
        (24, Worsening, true, true, true, Abandon),
    ]
};

/// Representative values on each side, interior and on the boundary that belongs to it.
fn sides(g: G, d_high: bool, p_high: bool, o_high: bool) -> Vec<(f64, f64, f64, f64)> {
    let p = params();
    let grads: &[f64] = match g {
        G::Improving => &[-0.35, -(p.epsilon + 1e-6)],
        G::Flat => &[0.0, 0.05, -0.05, p.epsilon - 1e-6, -(p.epsilon - 1e-6)],
        G::Worsening => &[0.35, p.epsilon + 1e-6],
    };
    let ds: &[f64] = if d_high {
        &[0.9, p.delta + 1e-6]
    } else {
        &[0.0, 0.1, p.delta]
    };
    let ps: &[f64] = if p_high {
        &[1.0, p.rho + 1e-6]
    } else {
        &[0.0, 0.25, p.rho]
    };
    let os: &[f64] = if o_high {
        &[1.0, p.theta]
    } else {
        &[0.0, 0.5, p.theta - 1e-6]
    };
    let mut out = Vec::new();
    for &g in grads {
        for &d in ds {
            for &pp in ps {
                for &o in os {
                    out.push((d, pp, o, g));
                }
            }
        }
    }
    out
}

#[test]
fn every_cell_of_appendix_a_yields_its_macro_state_on_both_sides_and_on_its_boundaries() {
    for (n, g, d_high, p_high, o_high, expected) in APPENDIX_A {
        for (d, p, omega, grad) in sides(g, d_high, p_high, o_high) {
            let got = state_of(&inputs(d, p, omega, grad));
            assert_eq!(
                got, expected,
                "cell #{n}: D={d} P={p} Ω={omega} ∇L={grad} gave {got:?}"
            );
        }
    }
}

#[test]
fn the_24_cells_collapse_into_the_seeds_counts() {
    let count = |s: MacroState| APPENDIX_A.iter().filter(|c| c.5 == s).count();
    assert_eq!(count(MacroState::Abandon), 12);
    assert_eq!(count(MacroState::Success), 6);
    assert_eq!(count(MacroState::BreakSymmetry), 1);
    assert_eq!(count(MacroState::ChangeApproach), 2);
    assert_eq!(count(MacroState::ChangePath), 1);
    assert_eq!(count(MacroState::Refine), 2);
}

// ---------------------------------------------------------------------------------------
// Both sides of every threshold
// ---------------------------------------------------------------------------------------

#[test]
fn omega_at_theta_abandons_and_just_below_it_does_not() {
    let theta = params().theta;
    assert_eq!(state_of(&inputs(0.9, 0.0, theta, 0.0)), MacroState::Abandon);
    assert_eq!(
        state_of(&inputs(0.9, 0.0, theta - 1e-6, 0.0)),
        MacroState::ChangePath
    );
    // Priority 1 even for a result within the threshold (cells 3, 11, 19).
    assert_eq!(state_of(&inputs(0.0, 0.0, theta, 0.0)), MacroState::Abandon);
}

#[test]
fn d_at_delta_is_success_and_just_above_it_is_an_action() {
    let delta = params().delta;
    assert_eq!(state_of(&inputs(delta, 1.0, 0.2, 0.5)), MacroState::Success);
    assert_eq!(
        state_of(&inputs(delta + 1e-6, 1.0, 0.2, 0.5)),
        MacroState::ChangeApproach
    );
}

#[test]
fn p_at_rho_is_environmental_and_just_above_it_is_logical() {
    let rho = params().rho;
    assert_eq!(
        state_of(&inputs(0.9, rho, 0.2, 0.0)),
        MacroState::ChangePath
    );
    assert_eq!(
        state_of(&inputs(0.9, rho + 1e-6, 0.2, 0.0)),
        MacroState::BreakSymmetry
    );
    assert_eq!(state_of(&inputs(0.9, rho, 0.2, 0.3)), MacroState::Refine);
    assert_eq!(
        state_of(&inputs(0.9, rho + 1e-6, 0.2, 0.3)),
        MacroState::ChangeApproach
    );
}

#[test]
fn a_gradient_magnitude_of_exactly_epsilon_is_a_signal_and_just_below_it_is_a_plateau() {
    let eps = params().epsilon;
    for sign in [1.0, -1.0] {
        assert_eq!(
            state_of(&inputs(0.9, 0.0, 0.2, sign * eps)),
            MacroState::Refine
        );
        assert_eq!(
            state_of(&inputs(0.9, 0.0, 0.2, sign * (eps - 1e-6))),
            MacroState::ChangePath
        );
        assert_eq!(
            state_of(&inputs(0.9, 1.0, 0.2, sign * eps)),
            MacroState::ChangeApproach
        );
        assert_eq!(
            state_of(&inputs(0.9, 1.0, 0.2, sign * (eps - 1e-6))),
            MacroState::BreakSymmetry
        );
    }
}

#[test]
fn urgency_and_the_gradient_label_follow_the_sign_of_the_gradient_beyond_epsilon() {
    let p = params();
    let eps = p.epsilon;
    let cases = [
        (-(eps + 1e-6), Urgency::Low, Gradient::Improving),
        (-eps, Urgency::Normal, Gradient::Plateau),
        (0.0, Urgency::Normal, Gradient::Plateau),
        (eps, Urgency::Normal, Gradient::Plateau),
        (eps + 1e-6, Urgency::High, Gradient::Worsening),
    ];
    for (g, urgency, label) in cases {
        let d = decide::decide(&inputs(0.9, 0.0, 0.2, g), &p, 3);
        assert_eq!((d.urgency, d.gradient), (urgency, label), "∇L={g}");
    }
    assert_eq!(decide::gradient_label(0.0, 0.2, &p), Gradient::Stable);
    assert!(!decide::is_worsening(eps, &p));
    assert!(decide::is_worsening(eps + 1e-6, &p));
}

#[test]
fn the_kill_switch_fires_on_the_second_consecutive_worsening_round_not_the_first() {
    let p = params();
    let mut i = inputs(0.9, 0.0, 0.2, 0.3);
    i.worsening_streak = p.kill_after_worsening - 1;
    assert_eq!(state_of(&i), MacroState::Refine);
    i.worsening_streak = p.kill_after_worsening;
    let d = decide::decide(&i, &p, 3);
    assert_eq!(
        (d.state, d.reason),
        (MacroState::Abandon, Reason::KillSwitch)
    );
    assert_eq!(d.grid, Some(MacroState::Refine));
    // Regardless of Ω: far from θ.
    i.loss.omega = 0.0;
    assert_eq!(state_of(&i), MacroState::Abandon);
    // But not regardless of D: Ω < θ and D ≤ δ is success whatever P and ∇L are (the
    // seed's invariant). A round that reached the goal is not diverging from it.
    i.loss.d = p.delta;
    let d = decide::decide(&i, &p, 3);
    assert_eq!(
        (d.state, d.reason),
        (MacroState::Success, Reason::WithinThreshold)
    );
    i.loss.d = 0.0;
    i.accepted = true;
    assert_eq!(state_of(&i), MacroState::Accept);
}

#[test]
fn the_replan_budget_abandons_only_when_one_more_replan_would_exceed_it() {
    let p = params();
    let max = Budgets::default().max_replans;
    let mut i = inputs(0.9, 1.0, 0.2, 0.0);
    i.replans = max - 1;
    assert_eq!(decide::decide(&i, &p, max).state, MacroState::BreakSymmetry);
    i.replans = max;
    let d = decide::decide(&i, &p, max);
    assert_eq!(
        (d.state, d.reason),
        (MacroState::Abandon, Reason::ReplanBudget)
    );
    i.loss.d = 0.1;
    assert_eq!(decide::decide(&i, &p, max).state, MacroState::Success);
}

#[test]
fn the_sensors_abandon_recommendation_stops_continuation_but_not_delivery() {
    let p = params();
    let mut i = inputs(0.9, 0.0, 0.2, 0.0);
    i.sensor_abandon = true;
    let d = decide::decide(&i, &p, 3);
    assert_eq!(
        (d.state, d.reason),
        (MacroState::Abandon, Reason::SensorAbandon)
    );
    i.loss.d = 0.2;
    assert_eq!(decide::decide(&i, &p, 3).state, MacroState::Success);
}

#[test]
fn accept_needs_r4b_acceptance_and_zero_distance_otherwise_it_is_success() {
    let p = params();
    let mut i = inputs(0.0, 0.0, 0.3, -0.2);
    assert_eq!(
        state_of(&i),
        MacroState::Success,
        "D = 0 without R4b's acceptance"
    );
    i.accepted = true;
    assert_eq!(state_of(&i), MacroState::Accept);
    i.loss.d = 0.1;
    assert_eq!(state_of(&i), MacroState::Success, "accepted but D > 0");
    i.loss.d = 0.0;
    i.loss.omega = p.theta;
    assert_eq!(
        state_of(&i),
        MacroState::Abandon,
        "Ω ≥ θ abandons on every path, accept included (cascade priority 1)"
    );
    i.loss.d = 0.5;
    assert_eq!(state_of(&i), MacroState::Abandon);
}

#[test]
fn float_noise_at_a_threshold_does_not_flip_the_decision() {
    let omega = 0.6 * 4.0 / 3.0;
    assert!(omega < 0.8, "the noise this guards against: {omega}");
    assert_eq!(
        decide::cascade(&loss_of(1.0, 1.0, omega), 0.0, &params()),
        MacroState::Abandon
    );
}

#[test]
fn every_rationale_names_the_numbers_that_drove_it() {
    let p = params();
    let mut i = inputs(0.75, 0.25, 0.4, 0.0);
    let d = decide::decide(&i, &p, 3);
    let text = decide::rationale(&d, &i, &p, 3);
    assert_eq!(d.state, MacroState::ChangePath);
    for needle in [
        "D=0.750",
        "P=0.250",
        "ε=0.1",
        "ρ=0.5",
        "δ=0.3",
        "|∇L|=0.000",
    ] {
        assert!(text.contains(needle), "{needle} missing in {text}");
    }

    i.worsening_streak = 2;
    i.grad_l = 0.2;
    let d = decide::decide(&i, &p, 3);
    let text = decide::rationale(&d, &i, &p, 3);
    assert_eq!(d.state, MacroState::Abandon);
    assert!(text.contains("Law 2") && text.contains("2 consecutive") && text.contains("+0.200"));
    assert!(text.contains("refine"), "{text}");

    i.worsening_streak = 0;
    i.loss.omega = 0.85;
    let d = decide::decide(&i, &p, 3);
    let text = decide::rationale(&d, &i, &p, 3);
    assert!(text.contains("Ω=0.850 ≥ θ=0.8"), "{text}");
}

// ---------------------------------------------------------------------------------------
// Loss arithmetic, computed by hand
// ---------------------------------------------------------------------------------------

#[test]
fn loss_over_sub_task_and_task_criteria_matches_the_hand_computation() {
    let task = TaskId::from_existing("t");
    // Sub-task A failed after 2 attempts:
    //   c1 verifiable, failed (environmental)                      → 1.0
    //   c2 plausible, failed (logical), unmet in 1 of 2 attempts   → k/N = 1/2 = 0.5
    let mut a = outcome(
        &task,
        SubTaskStatus::Failed,
        vec![
            verdict("c1", Verdict::Fail, Some(FailureClass::Environmental)),
            plausible("c2", Verdict::Fail, Some(FailureClass::Logical)),
        ],
        vec![],
        serde_json::Value::Null,
    );
    a.gap_trajectory = vec![
        GapPoint {
            attempt: 1,
            score: 0.0,
            unmet_criteria: vec!["c1".into(), "c2".into()],
            failure_class: None,
        },
        GapPoint {
            attempt: 2,
            score: 0.5,
            unmet_criteria: vec!["c1".into()],
            failure_class: None,
        },
    ];
    // Sub-task B matched: c3, c4 pass → 0, 0.
    let b = outcome(
        &task,
        SubTaskStatus::Matched,
        vec![
            verdict("c3", Verdict::Pass, None),
            verdict("c4", Verdict::Pass, None),
        ],
        vec![],
        serde_json::json!("ok"),
    );
    // Task criteria (R4b): t1 failed (logical) → 1.0; t2 passed → 0.
    let task_verdicts = vec![
        verdict("t1", Verdict::Fail, Some(FailureClass::Logical)),
        verdict("t2", Verdict::Pass, None),
    ];
    let assessment = loss::assess([&a, &b], &task_verdicts, Some("gap"));

    // D = (1.0 + 0.5 + 1.0) / 6 criteria = 2.5 / 6 = 0.416666…
    assert!(close(assessment.d, 2.5 / 6.0), "D = {}", assessment.d);
    // P = logical / (logical + environmental) = 2 (c2, t1) / 3 = 0.666666…
    assert!(close(assessment.p, 2.0 / 3.0), "P = {}", assessment.p);
    assert_eq!(assessment.failure_class(), MixedFailureClass::Logical);
    assert_eq!(assessment.primary_criterion(), "c1");

    // Ω = w₁·replans/maxReplans + w₂·elapsed/budget, with the default budget of 120 s:
    //   0.6·1/3 + 0.4·60 000/120 000 = 0.2 + 0.2 = 0.4
    let omega = loss::resource_cost(spent(1, 60_000), &params());
    assert!(close(omega, 0.4), "Ω = {omega}");

    // β_eff = 0.3·(1 − 0.4) = 0.18
    // L = 0.6·0.416667 + 0.18·0.666667 + 0.4·0.4 = 0.25 + 0.12 + 0.16 = 0.53
    let l = loss::total_loss(assessment.d, assessment.p, omega, &params());
    assert!(close(l.l, 0.53), "L = {}", l.l);
}

#[test]
fn the_first_round_has_zero_gradient_and_later_rounds_the_difference_of_losses() {
    let task = TaskId::from_existing("t");
    let mut state = TaskState::new(task.clone(), "intent", now());
    // Round 1: D = 1, P = 0, replans 0, elapsed 12 850 ms of the 120 s budget:
    //   Ω = 0.4·12 850/120 000 = 0.0428333…;  L₁ = 0.6·1 + 0 + 0.4·0.0428333 = 0.6171333…
    let r1 = replan_request(&task, vec![env_failure(&task, "shell", "ls ~/A")], 12_850);
    let Step::Replan { directive, .. } =
        state.observe(Observation::Rejected(&r1), &settings(), now())
    else {
        panic!("round 1 replans");
    };
    assert!(close(directive.loss.omega, 0.4 * 12_850.0 / 120_000.0));
    assert!(close(
        directive.loss.l,
        0.6 + 0.4 * 0.4 * 12_850.0 / 120_000.0
    ));
    assert_eq!(directive.grad_l, 0.0);
    assert_eq!(directive.directive, ReplanDirective::ChangePath);

    // Round 2: D = 1/2 (one failed, one matched), P = 0, replans 1, elapsed 30 000 ms:
    //   Ω = 0.6·1/3 + 0.4·30 000/120 000 = 0.2 + 0.1 = 0.3
    //   L₂ = 0.6·0.5 + 0 + 0.4·0.3 = 0.3 + 0.12 = 0.42
    //   ∇L = 0.42 − 0.6171333 = −0.1971333 → |∇L| ≥ ε, P ≤ ρ → refine, urgency low
    let r2 = replan_request(
        &task,
        vec![
            env_failure(&task, "shell", "ls ~/B"),
            matched(&task, "listed", serde_json::json!("a.mp4")),
        ],
        30_000,
    );
    let Step::Replan { directive, .. } =
        state.observe(Observation::Rejected(&r2), &settings(), now())
    else {
        panic!("round 2 replans");
    };
    assert!(close(directive.loss.l, 0.42), "L₂ = {}", directive.loss.l);
    let l1 = 0.6 + 0.4 * 0.4 * 12_850.0 / 120_000.0;
    assert!(
        close(directive.grad_l, 0.42 - l1),
        "∇L = {}",
        directive.grad_l
    );
    assert_eq!(directive.directive, ReplanDirective::Refine);
    assert_eq!(directive.urgency, Urgency::Low);
    assert_eq!(directive.gradient, Some(Gradient::Improving));
    assert_eq!(directive.prev_directive, PrevDirective::ChangePath);
    assert_eq!(directive.round, 2);
    assert_eq!(state.l_prev(), Some(directive.loss.l));
}

#[test]
fn an_r4b_rejection_with_every_sub_task_matched_is_never_success() {
    // The Go version computed D over sub-task verdicts only: this round read as D = 0.
    let task = TaskId::from_existing("t");
    let mut state = TaskState::new(task.clone(), "intent", now());
    let mut r = replan_request(
        &task,
        vec![matched(&task, "listed", serde_json::json!("a.mp4"))],
        1_000,
    );
    r.task_criteria_verdicts = vec![verdict(
        "sizes are shown",
        Verdict::Fail,
        Some(FailureClass::Logical),
    )];
    let Step::Replan { directive, .. } =
        state.observe(Observation::Rejected(&r), &settings(), now())
    else {
        panic!("a rejected round is replanned");
    };
    // D = 1 failed of 2 criteria = 0.5 > δ; P = 1 → break_symmetry on the first round.
    assert!(close(directive.loss.d, 0.5));
    assert_eq!(directive.directive, ReplanDirective::BreakSymmetry);
    assert_eq!(directive.failed_criterion, "sizes are shown");
    // No sub-task failed: every sub-task produced the rejected output. Its one tool
    // only reads by parameters (glob), so it is not the wrong method: nothing is blocked.
    assert!(directive.blocked_tools.is_empty(), "{directive:?}");
    assert!(directive.blocked_targets.is_empty());
    // The same rejection of a round whose sub-task programmed a command that ran blocks
    // that tool.
    let mut programmed = matched(&task, "listed", serde_json::json!("a.mp4"));
    programmed.tool_calls = vec![call("shell", "ls ~/Downloads", ToolCallStatus::Ok)];
    let mut r = replan_request(&task, vec![programmed], 1_000);
    r.task_criteria_verdicts = vec![verdict(
        "sizes are shown",
        Verdict::Fail,
        Some(FailureClass::Logical),
    )];
    let mut fresh = TaskState::new(task.clone(), "intent", now());
    let Step::Replan { directive, .. } =
        fresh.observe(Observation::Rejected(&r), &settings(), now())
    else {
        panic!("a rejected round is replanned");
    };
    assert_eq!(
        directive.blocked_tools,
        vec![ToolRef::from(ToolName::Shell)]
    );

    // Even with no verdict at all, a rejection is a failure.
    let mut bare = replan_request(&task, vec![], 2_000);
    bare.gap_summary = "meta-validator reply did not parse".into();
    let mut fresh = TaskState::new(task.clone(), "intent", now());
    match fresh.observe(Observation::Rejected(&bare), &settings(), now()) {
        Step::Replan { directive, .. } => {
            assert_eq!(directive.loss.d, 1.0);
            assert_eq!(
                directive.failed_criterion,
                "meta-validator reply did not parse"
            );
        }
        other => panic!("expected a replan, got {other:?}"),
    }
}

#[test]
fn blocked_targets_come_from_structured_records_only_and_logical_failures_block_tools() {
    let task = TaskId::from_existing("t");
    let mut state = TaskState::new(task.clone(), "read ~/Notes/plan.txt and find videos", now());
    // An environmental failure: an ok call on a pattern that held nothing, a read whose
    // error names a missing file, a command whose error names a missing folder, and a
    // read of the very file the task names; plus a matched sub-task with a refused call.
    let mut env = outcome(
        &task,
        SubTaskStatus::Failed,
        vec![verdict(
            "found a video",
            Verdict::Fail,
            Some(FailureClass::Environmental),
        )],
        vec![
            call("glob", "~/Movies/*.mp4", ToolCallStatus::Ok),
            call("read_file", "~/Movies/index.txt", ToolCallStatus::Error),
            call("shell", "ls -S /Volumes/Ext", ToolCallStatus::Error),
            call("read_file", "~/Notes/plan.txt", ToolCallStatus::Error),
        ],
        serde_json::Value::Null,
    );
    // Prose that looks like a path must never become a target.
    env.failure_reason = Some("shell: ls /prose/only → nothing".into());
    let mut ok = matched(&task, "listed", serde_json::json!("a.mp4"));
    ok.tool_calls.push(call(
        "shell",
        "rm ~/Downloads/a.mp4",
        ToolCallStatus::Refused,
    ));
    let r = replan_request(&task, vec![env, ok], 1_000);
    let Step::Replan {
        directive, megrams, ..
    } = state.observe(Observation::Rejected(&r), &settings(), now())
    else {
        panic!("replan expected");
    };
    assert_eq!(directive.directive, ReplanDirective::ChangePath);
    // Only the concrete paths the errors name as missing: not the pattern that matched
    // nothing, not the command line, not the refused call, not what the task names.
    assert_eq!(
        directive.blocked_targets,
        vec!["~/Movies/index.txt", "/Volumes/Ext"]
    );
    assert!(directive.blocked_tools.is_empty());
    assert_eq!(megrams.len(), 2);
    assert_eq!(megrams[0].space, "tool:read_file");
    assert_eq!(megrams[0].entity, "path:~/Movies/index.txt");
    assert_eq!(megrams[1].space, "tool:shell");
    assert_eq!(megrams[1].entity, "path:/Volumes/Ext");

    // A logical failure: the method is at fault, so its ok calls' targets are not
    // blocked, and its tools are.
    let logical = outcome(
        &task,
        SubTaskStatus::Failed,
        vec![verdict(
            "sizes shown",
            Verdict::Fail,
            Some(FailureClass::Logical),
        )],
        vec![call("shell", "du -sh ~/Downloads", ToolCallStatus::Ok)],
        serde_json::Value::Null,
    );
    let mut state = TaskState::new(task.clone(), "intent", now());
    let r = replan_request(&task, vec![logical], 1_000);
    let Step::Replan {
        directive, megrams, ..
    } = state.observe(Observation::Rejected(&r), &settings(), now())
    else {
        panic!("replan expected");
    };
    assert_eq!(directive.directive, ReplanDirective::BreakSymmetry);
    assert_eq!(
        directive.blocked_tools,
        vec![ToolRef::from(ToolName::Shell)]
    );
    assert!(directive.blocked_targets.is_empty());
    assert!(state.blocked_targets().is_empty());
    assert!(megrams.is_empty());
}

#[test]
fn a_logical_failure_blocks_only_tools_that_ran_a_program_the_model_wrote() {
    // The failing sub-task looked with two reading tools (one call of read_table failed
    // for a missing column, then the same tool answered), misused write_file (refused),
    // ran typed tools whose parameters code checks (a copy under the old name, an edit,
    // a move: a wrong parameter is corrected call by call, and taking the tool away
    // leaves the next plan without the right one) and ran a shell command that exited
    // with an error, then one that ran.
    let task = TaskId::from_existing("t");
    let mut failing_exit = call("shell", "awk -F, '{s+=$9}' a.csv", ToolCallStatus::Ok);
    failing_exit.failed_exit = Some(2);
    let calls = vec![
        call("list_files", "~/Documents", ToolCallStatus::Ok),
        call("read_table", "~/Documents/a.csv", ToolCallStatus::Error),
        call("read_table", "~/Documents/a.csv", ToolCallStatus::Ok),
        call("write_file", "~/Documents/out.txt", ToolCallStatus::Refused),
        call("copy_files", "~/notes", ToolCallStatus::Ok),
        call("edit_file", "~/notes/a.md", ToolCallStatus::Ok),
        call("move_files", "~/notes", ToolCallStatus::Ok),
        failing_exit,
    ];
    let logical = |calls: Vec<ToolCallRecord>| {
        outcome(
            &task,
            SubTaskStatus::Failed,
            vec![verdict(
                "the average is shown",
                Verdict::Fail,
                Some(FailureClass::Logical),
            )],
            calls,
            serde_json::Value::Null,
        )
    };
    let directive_for = |calls: Vec<ToolCallRecord>| {
        let mut state = TaskState::new(task.clone(), "intent", now());
        let r = replan_request(&task, vec![logical(calls)], 1_000);
        match state.observe(Observation::Rejected(&r), &settings(), now()) {
            Step::Replan { directive, .. } => directive,
            other => panic!("replan expected, got {other:?}"),
        }
    };
    let only_misuse = directive_for(calls.clone());
    assert!(
        only_misuse.blocked_tools.is_empty(),
        "readers and misused tools stay usable: {only_misuse:?}"
    );
    let mut with_program = calls;
    with_program.push(call("shell", "awk -F, '{s+=$2}' a.csv", ToolCallStatus::Ok));
    with_program.push(call(
        "write_file",
        "~/Documents/out.txt",
        ToolCallStatus::Ok,
    ));
    let programmed = directive_for(with_program);
    assert_eq!(
        programmed.blocked_tools,
        vec![
            ToolRef::from(ToolName::Shell),
            ToolRef::from(ToolName::WriteFile)
        ],
        "the command and the text the model wrote that ran and gave the wrong result are \
         the methods to change"
    );
}

#[test]
fn a_denial_blocks_the_approach_for_the_task_instead_of_moving_to_another_target() {
    let task = TaskId::from_existing("t");
    let mut state = TaskState::new(task.clone(), "intent", now());
    // The same environmental round as a change_path one, but the user denied a call.
    let env = env_failure(&task, "glob", "~/Movies/*.mp4");
    let mut ok = matched(&task, "listed", serde_json::json!("a.mp4"));
    let mut denied = call("shell", "rm ~/Downloads/a.mp4", ToolCallStatus::Denied);
    denied.confirmation = Some(Decision::Deny);
    ok.tool_calls.push(denied);
    let r = replan_request(&task, vec![env.clone(), ok], 1_000);
    let Step::Replan { directive, .. } =
        state.observe(Observation::Rejected(&r), &settings(), now())
    else {
        panic!("replan expected");
    };
    assert_eq!(directive.directive, ReplanDirective::ChangeApproach);
    assert!(
        directive.rationale.contains("denial is final"),
        "{}",
        directive.rationale
    );
    assert!(
        directive
            .blocked_targets
            .contains(&"rm ~/Downloads/a.mp4".to_string()),
        "{:?}",
        directive.blocked_targets
    );
    // A later round without a new denial keeps the denied target blocked.
    let r = replan_request(
        &task,
        vec![env_failure(&task, "glob", "~/Videos/*.mp4")],
        2_000,
    );
    if let Step::Replan { directive, .. } =
        state.observe(Observation::Rejected(&r), &settings(), now())
    {
        assert!(
            directive
                .blocked_targets
                .contains(&"rm ~/Downloads/a.mp4".to_string()),
            "{:?}",
            directive.blocked_targets
        );
    }
}

#[test]
fn a_planning_failure_abandons_with_full_distance_and_a_graceful_request() {
    let task = TaskId::from_existing("t");
    let mut state = TaskState::new(task.clone(), "", now());
    let failure = PlanningFailed {
        task_id: task.clone(),
        intent: "把视频转成mp3".into(),
        reason: "the plan used a blocked tool twice".into(),
        round: 0,
    };
    let pending = state.planning_failed(&failure, &settings(), now());
    assert_eq!(pending.request.intent, "把视频转成mp3");
    assert!(
        pending
            .request
            .reason
            .contains("the plan used a blocked tool twice")
    );
    let finish = pending.complete(None, now());
    let r = &finish.result;
    assert_eq!(r.directive, TerminalDirective::Abandon);
    assert_eq!((r.loss.d, r.loss.p, r.replans), (1.0, 1.0, 0));
    // L = 0.6·1 + 0.3·(1 − 0)·1 + 0.4·0 = 0.9
    assert!(close(r.loss.l, 0.9));
    assert!(r.summary.contains("no valid plan could be produced"));
    assert!(r.summary.contains("Nothing was completed"));
    assert!((2..=3).contains(&r.next_moves.len()));
    let megram = finish.megram.expect("a planning failure is a real failure");
    assert_eq!(megram.space, tags::intent_space("把视频转成mp3"));
    assert_eq!(megram.sigma, -1.0);
}

#[test]
fn a_budget_abandon_of_a_round_within_delta_writes_no_abandon_megram() {
    let task = TaskId::from_existing("t");
    let mut state = TaskState::new(task.clone(), "Find the largest videos", now());
    // Three of four criteria met (D = 0.25 ≤ δ), but twice the time budget is spent:
    // Ω = 0.4·2 = 0.8 = θ, so the cascade abandons (cell 11/12).
    let outcomes = vec![
        matched(&task, "a", serde_json::json!("a.mp4")),
        matched(&task, "b", serde_json::json!("b.mp4")),
        matched(&task, "c", serde_json::json!("c.mp4")),
        env_failure(&task, "read_file", "/nope/d.mp4"),
    ];
    let elapsed = 2 * TASK_BUDGET_MS;
    let request = replan_request(&task, outcomes, elapsed);
    let Step::Abandon(pending) = state.observe(Observation::Rejected(&request), &settings(), now())
    else {
        panic!("Ω ≥ θ abandons");
    };
    let finish = pending.complete(None, now());
    assert_eq!(finish.result.directive, TerminalDirective::Abandon);
    assert!(close(finish.result.loss.d, 0.25));
    assert_eq!(
        finish.megram, None,
        "the budget, not the approach, ended a round within δ: no σ −1 for this kind of task"
    );

    // The same budget with the result far off is a real failure and is remembered.
    let mut far = TaskState::new(task.clone(), "Find the largest videos", now());
    let request = replan_request(
        &task,
        vec![env_failure(&task, "read_file", "/nope/d.mp4")],
        elapsed,
    );
    let Step::Abandon(pending) = far.observe(Observation::Rejected(&request), &settings(), now())
    else {
        panic!("Ω ≥ θ abandons");
    };
    let megram = pending
        .complete(None, now())
        .megram
        .expect("an abandon Megram");
    assert_eq!((megram.state, megram.sigma), (MegramOrigin::Abandon, -1.0));
}

#[test]
fn sub_tasks_named_failed_without_an_outcome_count_against_distance() {
    let task = TaskId::from_existing("t");
    let mut state = TaskState::new(task.clone(), "Find the largest videos", now());
    let mut request = replan_request(
        &task,
        vec![
            matched(&task, "a", serde_json::json!("a.mp4")),
            matched(&task, "b", serde_json::json!("b.mp4")),
            matched(&task, "c", serde_json::json!("c.mp4")),
        ],
        1_000,
    );
    // R4b gave the round up: one sub-task never reported and the task criterion was
    // never judged.
    request.failed_subtasks.push(SubTaskId::mint());
    request
        .unjudged_task_criteria
        .push(Criterion::new("the answer names the largest video"));
    let Step::Replan { directive, .. } =
        state.observe(Observation::Rejected(&request), &settings(), now())
    else {
        panic!("D = 2/5 > δ needs a replan");
    };
    assert!(close(directive.loss.d, 2.0 / 5.0), "{:?}", directive.loss);
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

/// Values in [0, 1] that hit the thresholds often.
fn unit_value(threshold: f64) -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(threshold),
        Just(threshold - 1e-6),
        Just(threshold + 1e-6),
        Just(0.0),
        Just(1.0),
        0.0..=1.0f64,
    ]
}

fn gradient_value() -> impl Strategy<Value = f64> {
    let eps = params().epsilon;
    prop_oneof![
        Just(eps),
        Just(-eps),
        Just(eps + 1e-6),
        Just(-eps - 1e-6),
        Just(0.0),
        -1.5..=1.5f64,
    ]
}

fn decision_inputs() -> impl Strategy<Value = Inputs> {
    let p = params();
    (
        unit_value(p.delta),
        unit_value(p.rho),
        unit_value(p.theta),
        gradient_value(),
        any::<bool>(),
        0u32..4,
        0u32..5,
        any::<bool>(),
    )
        .prop_map(
            |(d, pp, omega, grad_l, accepted, streak, replans, sensor)| Inputs {
                loss: loss_of(d, pp, omega),
                grad_l,
                accepted,
                worsening_streak: streak,
                replans,
                sensor_abandon: sensor,
            },
        )
}

proptest! {
    #[test]
    fn exactly_one_macro_state_results_and_abandon_has_exactly_its_causes(i in decision_inputs()) {
        let p = params();
        let max = 3;
        let d = decide::decide(&i, &p, max);
        let tol = decide::BOUNDARY_TOLERANCE;
        let over_theta = i.loss.omega >= p.theta - tol;
        let within = i.loss.d <= p.delta + tol;
        let accept_path = i.accepted && i.loss.d <= tol;
        let kill = i.worsening_streak >= p.kill_after_worsening;
        let budget = i.replans >= max;

        // Exactly one of the seven states, and the one the cascade names.
        let expected = if over_theta {
            MacroState::Abandon
        } else if within && accept_path {
            MacroState::Accept
        } else if within {
            MacroState::Success
        } else if kill || budget || i.sensor_abandon {
            MacroState::Abandon
        } else {
            decide::grid(i.grad_l, i.loss.p, &p)
        };
        prop_assert_eq!(d.state, expected);

        // abandon ⇔ Ω ≥ θ, or one more replan is needed and not allowed: the kill-switch,
        // or the replan budget (R4b's plan-count advice is the same budget).
        let abandon = d.state == MacroState::Abandon;
        prop_assert_eq!(
            abandon,
            over_theta || (!within && (kill || budget || i.sensor_abandon))
        );
        // The seed's invariant: Ω < θ and D ≤ δ → success (or accept) regardless of P, ∇L
        // and every guard.
        if !over_theta && within {
            prop_assert!(matches!(d.state, MacroState::Success | MacroState::Accept));
        }
        // success/accept ⇒ D ≤ δ; accept ⇒ D = 0 and R4b accepted.
        if matches!(d.state, MacroState::Success | MacroState::Accept) {
            prop_assert!(within);
        }
        if d.state == MacroState::Accept {
            prop_assert!(i.accepted && i.loss.d <= tol);
        }
        // A replan directive only when continuing is allowed.
        if !d.state.is_terminal() {
            prop_assert!(!over_theta && !within && !kill && !budget && !i.sensor_abandon);
        }
        prop_assert!(!decide::rationale(&d, &i, &p, max).is_empty());
    }

    #[test]
    fn without_guards_the_decision_is_the_appendix_a_cell(i in decision_inputs()) {
        let p = params();
        let plain = Inputs { accepted: false, worsening_streak: 0, replans: 0, sensor_abandon: false, ..i };
        let tol = decide::BOUNDARY_TOLERANCE;
        let g = if plain.grad_l.abs() < p.epsilon - tol {
            G::Flat
        } else if plain.grad_l < 0.0 {
            G::Improving
        } else {
            G::Worsening
        };
        let cell = APPENDIX_A.iter().find(|c| {
            matches!((c.1, g), (G::Improving, G::Improving) | (G::Flat, G::Flat) | (G::Worsening, G::Worsening))
                && c.2 == (plain.loss.d > p.delta + tol)
                && c.3 == (plain.loss.p > p.rho + tol)
                && c.4 == (plain.loss.omega >= p.theta - tol)
        });
        let cell = cell.expect("every input falls in exactly one cell");
        prop_assert_eq!(decide::decide(&plain, &p, 3).state, cell.5, "cell #{}", cell.0);
    }
}

fn arb_outcome() -> impl Strategy<Value = SubTaskOutcome> {
    let verdict_s = (
        any::<bool>(),
        any::<bool>(),
        prop_oneof![
            Just(None),
            Just(Some(FailureClass::Logical)),
            Just(Some(FailureClass::Environmental))
        ],
        0usize..4,
    );
    let call_s = (
        prop_oneof![Just("shell"), Just("glob"), Just("read_file")],
        prop_oneof![
            Just("/a"),
            Just("~/b"),
            Just("ls /c"),
            Just("c"),
            Just(""),
            Just("d e")
        ],
        prop_oneof![
            Just(ToolCallStatus::Ok),
            Just(ToolCallStatus::Error),
            Just(ToolCallStatus::Denied),
            Just(ToolCallStatus::Refused)
        ],
    );
    (
        any::<bool>(),
        prop::collection::vec(verdict_s, 0..4),
        prop::collection::vec(call_s, 0..4),
        0usize..4,
    )
        .prop_map(|(failed, verdicts, calls, attempts)| {
            let task = TaskId::from_existing("t");
            let verdicts: Vec<CriterionVerdict> = verdicts
                .into_iter()
                .enumerate()
                .map(|(i, (fail, plaus, class, _))| CriterionVerdict {
                    criterion: format!("c{i}"),
                    mode: plaus.then_some(CriterionMode::Plausible),
                    verdict: if fail { Verdict::Fail } else { Verdict::Pass },
                    failure_class: class,
                    evidence: String::new(),
                })
                .collect();
            SubTaskOutcome {
                subtask_id: SubTaskId::mint(),
                parent_task_id: task,
                status: if failed {
                    SubTaskStatus::Failed
                } else {
                    SubTaskStatus::Matched
                },
                output: serde_json::json!("out"),
                failure_reason: None,
                gap_trajectory: (0..attempts)
                    .map(|a| GapPoint {
                        attempt: a as u32 + 1,
                        score: 0.0,
                        unmet_criteria: verdicts
                            .iter()
                            .filter(|v| v.failed() && a % 2 == 0)
                            .map(|v| v.criterion.clone())
                            .collect(),
                        failure_class: None,
                    })
                    .collect(),
                criteria_verdicts: verdicts,
                tool_calls: calls
                    .into_iter()
                    .map(|(tool, target, status)| call(tool, target, status))
                    .collect(),
            }
        })
}

proptest! {
    #[test]
    fn the_loss_stays_in_range_and_a_rejection_is_never_zero_distance(
        outcomes in prop::collection::vec(arb_outcome(), 0..5),
        task_fails in prop::collection::vec(any::<bool>(), 0..3),
        rejected in any::<bool>(),
        replans in 0u32..6,
        elapsed in 0u64..1_000_000,
    ) {
        let p = params();
        let task_verdicts: Vec<CriterionVerdict> = task_fails
            .iter()
            .enumerate()
            .map(|(i, f)| verdict(&format!("t{i}"), if *f { Verdict::Fail } else { Verdict::Pass }, None))
            .collect();
        let a = loss::assess(outcomes.iter(), &task_verdicts, rejected.then_some("gap"));
        prop_assert!((0.0..=1.0).contains(&a.d));
        prop_assert!((0.0..=1.0).contains(&a.p));
        if rejected {
            prop_assert!(a.d > 0.0, "a rejected round must never read as D = 0");
        }
        if a.failed.is_empty() {
            prop_assert_eq!(a.p, 0.0);
        }
        let any_failed_sub_task = outcomes.iter().any(|o| o.status == SubTaskStatus::Failed);
        if any_failed_sub_task || task_fails.iter().any(|f| *f) {
            prop_assert!(a.d > 0.0);
        }
        let omega = loss::resource_cost(spent(replans, elapsed), &p);
        prop_assert!((0.0..=1.0).contains(&omega));
        let l = loss::total_loss(a.d, a.p, omega, &p);
        prop_assert!(l.l >= 0.0 && l.l <= p.alpha + p.beta + p.lambda + 1e-12);
    }

    #[test]
    fn blocked_targets_only_grow_stay_unique_and_keep_first_seen_order(
        rounds in prop::collection::vec(prop::collection::vec(arb_outcome(), 1..4), 1..4),
    ) {
        let task = TaskId::from_existing("t");
        let mut state = TaskState::new(task.clone(), "intent", now());
        let mut before: Vec<String> = Vec::new();
        let mut denied: Vec<String> = Vec::new();
        for outcomes in rounds {
            for c in outcomes.iter().flat_map(|o| o.tool_calls.iter()) {
                if c.status == ToolCallStatus::Denied && !denied.contains(&c.target.trim().to_string()) {
                    denied.push(c.target.trim().to_string());
                }
            }
            let r = replan_request(&task, outcomes, 1_000);
            let step = state.observe(Observation::Rejected(&r), &settings(), now());
            let after = state.blocked_targets();
            prop_assert!(after.starts_with(&before), "{before:?} then {after:?}");
            let mut unique = after.clone();
            unique.sort();
            unique.dedup();
            prop_assert_eq!(unique.len(), after.len());
            prop_assert!(after.iter().all(|t| !t.trim().is_empty()));
            if let Step::Replan { directive, .. } = &step {
                if matches!(directive.directive, ReplanDirective::Refine | ReplanDirective::ChangePath) {
                    prop_assert_eq!(&directive.blocked_targets, &after);
                } else {
                    // Only what Law 1 denied stays blocked under other directives.
                    let mut blocked = directive.blocked_targets.clone();
                    blocked.sort();
                    let mut expected = denied.clone();
                    expected.sort();
                    prop_assert_eq!(blocked, expected);
                }
            }
            if !matches!(step, Step::Replan { .. }) {
                break;
            }
            before = after;
        }
    }

    #[test]
    fn an_intent_slug_is_never_empty_stable_and_free_of_separators(intent in "\\PC{0,60}") {
        let slug = tags::intent_slug(&intent);
        prop_assert!(!slug.is_empty());
        prop_assert_eq!(&slug, &tags::intent_slug(&intent));
        prop_assert!(!slug.chars().any(|c| c.is_whitespace() || c == '|' || c == ':'));
        prop_assert_eq!(&slug, &tags::intent_slug(&format!(" \t{intent}\n ")));
    }
}

// ---------------------------------------------------------------------------------------
// The role over a real bus
// ---------------------------------------------------------------------------------------

struct Rig {
    bus: Bus,
    clock: std::sync::Arc<FakeClock>,
    planner: Inbox,
    user: Inbox,
    memory: Inbox,
    _dir: tempfile::TempDir,
}

impl Rig {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::with_dirs(dir.path().join("data"), dir.path().join("ws"));
        let clock = FakeClock::at_epoch();
        let bus = Bus::new(clock.clone());
        let planner = bus.subscribe(Role::Planner);
        let user = bus.subscribe(Role::User);
        let memory = bus.subscribe(Role::Memory);
        let registry = Registry::new(tokio_util::sync::CancellationToken::new(), 4096);
        let ggs = Ggs::new(&config, &bus, clock.clone(), registry);
        tokio::spawn(ggs.run());
        Rig {
            bus,
            clock,
            planner,
            user,
            memory,
            _dir: dir,
        }
    }

    /// What the runtime publishes on a submit; GGS hears it and arms the task's time
    /// budget, from now.
    fn submit(&self, task: &TaskId) {
        self.bus.handle(Role::User).publish(
            Role::Perceiver,
            TaskSubmitted {
                task_id: task.clone(),
                raw_input: "find the largest videos in my downloads".into(),
                submitted_at: self.clock.now(),
                session_history: vec![],
                time_budget_ms: TASK_BUDGET_MS,
                scheduled: None,
            },
        );
    }

    fn r4b(&self, msg: impl Into<Message>) {
        self.bus.handle(Role::MetaValidator).publish(Role::Ggs, msg);
    }
}

async fn next(inbox: &mut Inbox) -> std::sync::Arc<Envelope> {
    // Virtual time (paused clock): long enough for GGS's graceful-failure timeout.
    tokio::time::timeout(graceful_timeout() * 4, inbox.recv())
        .await
        .expect("a message in time")
        .expect("bus open")
}

async fn directive(rig: &mut Rig) -> PlanDirective {
    let env = next(&mut rig.planner).await;
    assert_eq!((env.from, env.to), (Role::Ggs, Role::Planner));
    match &env.message {
        Message::PlanDirective(d) => d.clone(),
        other => panic!("expected a PlanDirective, got {other:?}"),
    }
}

async fn final_result(rig: &mut Rig) -> FinalResult {
    let env = next(&mut rig.user).await;
    assert_eq!((env.from, env.to), (Role::Ggs, Role::User));
    match &env.message {
        Message::FinalResult(r) => r.clone(),
        other => panic!("expected a FinalResult, got {other:?}"),
    }
}

fn drain_megrams(inbox: &mut Inbox) -> Vec<Megram> {
    let mut out = Vec::new();
    while let Some(env) = inbox.try_recv() {
        assert_eq!((env.from, env.to), (Role::Ggs, Role::Memory));
        match &env.message {
            Message::Megram(w) => out.push(w.megram.clone()),
            other => panic!("R5 got {other:?}"),
        }
    }
    out
}

fn assert_quantum(m: &Megram, state: MegramOrigin, f: f64, sigma: f64, k: f64) {
    assert_eq!(m.state, state);
    assert_eq!((m.f, m.sigma, m.k), (f, sigma, k), "{state}");
    assert_eq!(m.level, Level::M);
}

#[tokio::test(start_paused = true)]
async fn three_rounds_accumulate_blocked_targets_then_the_replan_budget_abandons_with_r2s_account()
{
    let mut rig = Rig::start();
    let task = TaskId::mint();
    rig.submit(&task);
    for (round, target) in ["ls ~/A", "ls ~/B", "ls ~/C"].iter().enumerate() {
        rig.clock.advance(chrono::Duration::seconds(10));
        rig.r4b(replan_request(
            &task,
            vec![env_failure(&task, "shell", target)],
            10_000 * (round as u64 + 1),
        ));
        let d = directive(&mut rig).await;
        // D = 1, P = 0; Ω grows by 0.2 + 0.4·10 000/120 000 per round (R4b's elapsed and
        // the time since the submit agree), so ∇L = 0.4·0.2333 = 0.0933 < ε: a plateau
        // with environmental failures.
        assert_eq!(
            d.directive,
            ReplanDirective::ChangePath,
            "round {}",
            round + 1
        );
        assert_eq!(d.round, round as u32 + 1);
        assert_eq!(d.failure_class, MixedFailureClass::Environmental);
        assert_eq!(d.failed_criterion, "the file was read");
        assert!(d.blocked_tools.is_empty());
        // The folders the errors name, not the command lines.
        let expected: Vec<String> = ["~/A", "~/B", "~/C"][..=round]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(d.blocked_targets, expected);
        let prev = if round == 0 {
            PrevDirective::Init
        } else {
            PrevDirective::ChangePath
        };
        assert_eq!(d.prev_directive, prev);
        let omega = 0.6 * round as f64 / 3.0 + 0.4 * 10_000.0 * (round as f64 + 1.0) / 120_000.0;
        assert!(close(d.loss.omega, omega), "Ω = {}", d.loss.omega);
        assert!(close(d.budget_pressure, d.loss.omega));
        assert!(d.rationale.contains("Plateau") && d.rationale.contains("P=0.000"));

        let megrams = drain_megrams(&mut rig.memory);
        assert_eq!(megrams.len(), 1, "one Megram per failed input of the round");
        assert_eq!(megrams[0].space, "tool:shell");
        assert_eq!(megrams[0].entity, format!("path:{}", &target[3..]));
        assert_quantum(&megrams[0], MegramOrigin::ChangePath, 0.30, 0.0, 0.2);
    }

    // Round 4: three replans spent; one more would exceed maxReplans = 3.
    let matched_out = serde_json::json!("a.mp4\t734003200");
    rig.r4b(replan_request(
        &task,
        vec![
            env_failure(&task, "shell", "ls ~/D"),
            matched(&task, "listed", matched_out.clone()),
        ],
        40_000,
    ));
    let request = next(&mut rig.planner).await;
    let Message::GracefulFailureRequest(req) = &request.message else {
        panic!(
            "expected a GracefulFailureRequest, got {:?}",
            request.message
        );
    };
    assert_eq!(req.task_id, task);
    assert_eq!(req.intent, "Find the largest videos in Downloads");
    assert_eq!(req.matched_outputs.len(), 1);
    assert_eq!(req.matched_outputs[0].output, matched_out);
    assert!(
        req.reason.contains("Replan budget exhausted"),
        "{}",
        req.reason
    );
    assert!(
        req.failures.iter().any(|f| f.contains("\"~/A\"")),
        "{:?}",
        req.failures
    );

    // A test R2 answers.
    rig.bus.handle(Role::Planner).reply(
        Role::Ggs,
        request.id,
        GracefulFailure {
            task_id: task.clone(),
            accomplished: "Found a.mp4 (734003200 bytes).".into(),
            next_moves: vec![
                "Look in /home/not-this-machine/Videos for a.mp4.".into(),
                "Mount the external drive and ask again.".into(),
                "Point me at the folder that holds the videos.".into(),
            ],
        },
    );
    let result = final_result(&mut rig).await;
    // R2's move naming a home that is not on this machine is dropped.
    assert_eq!(
        result.next_moves,
        [
            "Mount the external drive and ask again.",
            "Point me at the folder that holds the videos."
        ]
    );
    assert_eq!(result.directive, TerminalDirective::Abandon);
    assert_eq!(result.replans, 3);
    assert_eq!(result.prev_directive, PrevDirective::ChangePath);
    assert!(
        result
            .summary
            .starts_with("Abandoned after 3 replan(s): all 3 replans were used")
    );
    assert!(result.summary.contains("Found a.mp4 (734003200 bytes)."));
    assert_eq!(result.next_moves.len(), 2);
    assert_eq!(result.output, serde_json::Value::Null);
    // D = 1 failed of 2 units = 0.5; Ω = 0.6·3/3 + 0.4·40 000/120 000 = 0.7333…
    assert!(close(result.loss.d, 0.5));
    assert!(close(result.loss.omega, 0.6 + 0.4 * 40_000.0 / 120_000.0));

    let megrams = drain_megrams(&mut rig.memory);
    assert_eq!(
        megrams.len(),
        1,
        "one terminal Megram, no action Megram on abandon"
    );
    assert_eq!(
        megrams[0].space,
        tags::intent_space("Find the largest videos in Downloads")
    );
    assert_eq!(megrams[0].entity, "env:local");
    assert_quantum(&megrams[0], MegramOrigin::Abandon, 0.95, -1.0, 0.05);
    assert!(
        megrams[0].content.contains("shell: ~/A"),
        "{}",
        megrams[0].content
    );
    assert!(rig.user.try_recv().is_none(), "exactly one FinalResult");
}

#[tokio::test(start_paused = true)]
async fn a_converging_run_is_accepted_with_its_loss_fields_and_one_terminal_megram() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    rig.submit(&task);
    rig.r4b(replan_request(
        &task,
        vec![env_failure(&task, "read_file", "~/Downloads/list.txt")],
        20_000,
    ));
    let d = directive(&mut rig).await;
    assert_eq!(d.directive, ReplanDirective::ChangePath);
    let l1 = d.loss.l;
    assert_eq!(drain_megrams(&mut rig.memory).len(), 1);

    rig.r4b(outcome_summary(
        &task,
        vec![matched(&task, "listed", serde_json::json!("a.mp4"))],
        45_000,
    ));
    let r = final_result(&mut rig).await;
    assert_eq!(r.directive, TerminalDirective::Accept);
    assert_eq!(r.summary, "The largest video is a.mp4.");
    assert_eq!(
        r.output,
        serde_json::json!({ "largest": "/home/u/Downloads/a.mp4" })
    );
    assert_eq!((r.loss.d, r.loss.p), (0.0, 0.0));
    // Ω = 0.6·1/3 + 0.4·45 000/120 000 = 0.35; L = 0.4·0.35 = 0.14
    assert!(close(r.loss.omega, 0.35), "Ω = {}", r.loss.omega);
    assert!(close(r.loss.l, 0.14));
    assert!(close(r.grad_l, 0.14 - l1));
    assert_eq!(r.replans, 1);
    assert_eq!(r.prev_directive, PrevDirective::ChangePath);
    assert!(r.next_moves.is_empty());

    let megrams = drain_megrams(&mut rig.memory);
    assert_eq!(megrams.len(), 1);
    assert_quantum(&megrams[0], MegramOrigin::Accept, 0.90, 1.0, 0.05);
    assert_eq!(
        megrams[0].space,
        tags::intent_space("Find the largest videos in Downloads")
    );

    // Late traffic of an ended task is ignored.
    rig.r4b(replan_request(
        &task,
        vec![env_failure(&task, "shell", "x")],
        50_000,
    ));
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(rig.planner.try_recv().is_none() && rig.user.try_recv().is_none());
}

#[tokio::test(start_paused = true)]
async fn a_round_within_the_convergence_threshold_is_delivered_as_success_with_matched_outputs() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    // 4 matched sub-tasks and one failed criterion of 5: D = 0.2 ≤ δ.
    let mut outcomes: Vec<SubTaskOutcome> = (0..4)
        .map(|i| {
            matched(
                &task,
                &format!("c{i}"),
                serde_json::json!(format!("out{i}")),
            )
        })
        .collect();
    outcomes.push(outcome(
        &task,
        SubTaskStatus::Failed,
        vec![verdict(
            "thumbnails made",
            Verdict::Fail,
            Some(FailureClass::Environmental),
        )],
        vec![],
        serde_json::Value::Null,
    ));
    rig.r4b(replan_request(&task, outcomes, 5_000));
    let r = final_result(&mut rig).await;
    assert_eq!(r.directive, TerminalDirective::Success);
    assert!(close(r.loss.d, 0.2));
    assert_eq!(r.replans, 0);
    assert_eq!(r.prev_directive, PrevDirective::Init);
    assert_eq!(r.grad_l, 0.0);
    assert_eq!(
        r.output,
        serde_json::json!(["out0", "out1", "out2", "out3"]),
        "only what matched is delivered"
    );
    // What matched is the answer; the criterion it did not meet is data beside it.
    assert_eq!(
        r.summary,
        "Done in part: 4 of 5 sub-task(s) met their criteria."
    );
    assert_eq!(r.not_met, ["thumbnails made"]);
    let megrams = drain_megrams(&mut rig.memory);
    assert_eq!(megrams.len(), 1);
    assert_quantum(&megrams[0], MegramOrigin::Success, 0.80, 1.0, 0.05);
}

#[tokio::test(start_paused = true)]
async fn a_diverging_run_is_killed_after_two_worsening_rounds_and_falls_back_when_r2_is_silent() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    rig.submit(&task);
    // Round 1: 2 of 5 criteria failed (environmental): D = 0.4, P = 0, Ω = 0
    //   L₁ = 0.6·0.4 = 0.24 → change_path.
    let mut r1: Vec<SubTaskOutcome> = (0..3)
        .map(|i| {
            matched(
                &task,
                &format!("ok{i}"),
                serde_json::json!(format!("file{i}.mp4")),
            )
        })
        .collect();
    r1.push(env_failure(&task, "shell", "ls /Volumes/X"));
    r1.push(env_failure(&task, "shell", "ls /Volumes/Y"));
    rig.r4b(replan_request(&task, r1, 0));
    let d1 = directive(&mut rig).await;
    assert_eq!(d1.directive, ReplanDirective::ChangePath);
    assert!(close(d1.loss.l, 0.24));

    // Round 2: 2 of 3 failed (environmental): D = 2/3, P = 0, Ω = 0.2
    //   L₂ = 0.4 + 0.08 = 0.48; ∇L = +0.24 > ε → worsening #1 → refine, urgency high.
    let r2 = vec![
        matched(&task, "ok", serde_json::json!("file0.mp4")),
        env_failure(&task, "shell", "ls /Volumes/Z"),
        env_failure(&task, "glob", "/Volumes/**/*.mp4"),
    ];
    rig.r4b(replan_request(&task, r2, 0));
    let d2 = directive(&mut rig).await;
    assert_eq!(d2.directive, ReplanDirective::Refine);
    assert!(close(d2.loss.l, 0.48));
    assert!(close(d2.grad_l, 0.24));
    assert_eq!(d2.urgency, Urgency::High);
    assert_eq!(d2.gradient, Some(Gradient::Worsening));
    // The glob's error names the folder before the pattern, /Volumes.
    assert_eq!(
        drain_megrams(&mut rig.memory)
            .iter()
            .map(|m| m.entity.as_str())
            .collect::<Vec<_>>(),
        [
            "path:/Volumes/X",
            "path:/Volumes/Y",
            "path:/Volumes/Z",
            "path:/Volumes"
        ],
        "2 + 2 failed inputs"
    );

    // Round 3: everything failed logically: D = 1, P = 1, Ω = 0.4
    //   L₃ = 0.6 + 0.3·0.6 + 0.16 = 0.94; ∇L = +0.46 > ε → worsening #2 → Law 2 abandon.
    let r3 = vec![outcome(
        &task,
        SubTaskStatus::Failed,
        vec![verdict(
            "videos listed",
            Verdict::Fail,
            Some(FailureClass::Logical),
        )],
        vec![call("shell", "ls -R /", ToolCallStatus::Ok)],
        serde_json::Value::Null,
    )];
    rig.r4b(replan_request(&task, r3, 0));
    let request = next(&mut rig.planner).await;
    let Message::GracefulFailureRequest(req) = &request.message else {
        panic!(
            "expected a GracefulFailureRequest, got {:?}",
            request.message
        );
    };
    assert!(req.reason.contains("Law 2 kill-switch"), "{}", req.reason);
    assert_eq!(
        req.matched_outputs.len(),
        3,
        "file0..2, deduplicated across rounds"
    );

    // Nobody answers: after the timeout GGS delivers its own graceful failure.
    let r = final_result(&mut rig).await;
    assert_eq!(r.directive, TerminalDirective::Abandon);
    assert!(close(r.loss.l, 0.94));
    assert!(close(r.grad_l, 0.46));
    assert_eq!(r.replans, 2);
    assert_eq!(r.prev_directive, PrevDirective::Refine);
    assert!(
        r.summary
            .contains("the loss worsened on 2 consecutive rounds"),
        "{}",
        r.summary
    );
    assert!(r.summary.contains("1. file0.mp4") && r.summary.contains("3. file2.mp4"));
    assert!((2..=3).contains(&r.next_moves.len()));
    assert!(
        r.next_moves[0].contains("\"/Volumes/X\""),
        "{:?}",
        r.next_moves
    );
    let megrams = drain_megrams(&mut rig.memory);
    assert_eq!(megrams.len(), 1);
    assert_quantum(&megrams[0], MegramOrigin::Abandon, 0.95, -1.0, 0.05);
}

#[tokio::test(start_paused = true)]
async fn the_fallback_waits_for_the_graceful_failure_timeout_and_no_longer() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    rig.submit(&task);
    // Close to the 120 s budget but under it (Ω = 0.4·110/120 < θ): R4b's advice, not
    // the budget, ends the task.
    let mut r = replan_request(&task, vec![env_failure(&task, "shell", "ls ~/A")], 110_000);
    r.recommendation = Recommendation::Abandon;
    r.gap_summary = "what the task names does not exist or cannot be reached: ~/A".into();
    let start = tokio::time::Instant::now();
    rig.r4b(r);
    let _request = next(&mut rig.planner).await;
    let result = final_result(&mut rig).await;
    assert_eq!(start.elapsed(), graceful_timeout());
    assert_eq!(result.directive, TerminalDirective::Abandon);
    assert!(
        result.summary.contains(
            "the meta-validator advised stopping (D=1.000 > δ=0.3): what the task names does \
             not exist or cannot be reached: ~/A"
        ),
        "{}",
        result.summary
    );
    assert!(result.summary.contains("Nothing was completed"));
}

#[tokio::test(start_paused = true)]
async fn a_law1_gate_in_any_round_prefixes_the_final_summary() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    rig.submit(&task);
    let mut failing = env_failure(&task, "shell", "rm ~/Downloads/old.mp4");
    failing.tool_calls[0].status = ToolCallStatus::Denied;
    failing.tool_calls[0].confirmation = Some(Decision::Deny);
    rig.r4b(replan_request(&task, vec![failing], 1_000));
    let _ = directive(&mut rig).await;
    rig.r4b(outcome_summary(
        &task,
        vec![matched(&task, "listed", serde_json::json!("a.mp4"))],
        2_000,
    ));
    let r = final_result(&mut rig).await;
    assert_eq!(r.directive, TerminalDirective::Accept);
    // The seed's marker, then the answer alone; the denial is counted as data.
    assert_eq!(r.summary, "[LAW1] The largest video is a.mp4.");
    assert_eq!(
        r.law1,
        Law1Tally {
            denied: 1,
            ..Law1Tally::default()
        }
    );
}

#[tokio::test(start_paused = true)]
async fn a_name_no_tool_showed_is_named_beside_the_answer_never_glued_into_it() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    rig.submit(&task);
    let mut s = outcome_summary(
        &task,
        vec![matched(&task, "listed", serde_json::json!("a.mp4"))],
        1_000,
    );
    s.summary = "The largest video is a.mp4; b.mp4 is smaller.".into();
    rig.r4b(s);
    let r = final_result(&mut rig).await;
    assert_eq!(r.directive, TerminalDirective::Accept);
    assert_eq!(r.summary, "The largest video is a.mp4; b.mp4 is smaller.");
    assert_eq!(r.unverified, ["b.mp4"]);
    assert!(r.law1.is_empty() && r.account.is_empty() && r.not_met.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_spent_time_budget_abandons_at_once_with_the_code_built_result() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    let start = tokio::time::Instant::now();
    rig.submit(&task);
    rig.r4b(replan_request(
        &task,
        vec![env_failure(&task, "shell", "ls ~/A")],
        10_000,
    ));
    let d = directive(&mut rig).await;
    assert_eq!(d.directive, ReplanDirective::ChangePath);
    drain_megrams(&mut rig.memory);

    // The next round never comes: when the task's budget (counted from the submit) is
    // spent, GGS ends the task itself, without asking R2 for anything.
    let budget = Duration::from_millis(TASK_BUDGET_MS);
    let env = tokio::time::timeout(budget * 2, rig.user.recv())
        .await
        .expect("a result once the budget is spent")
        .expect("bus open");
    assert_eq!(start.elapsed(), budget);
    let Message::FinalResult(r) = &env.message else {
        panic!("expected a FinalResult, got {:?}", env.message);
    };
    assert_eq!(r.directive, TerminalDirective::Abandon);
    assert_eq!(r.replans, 1);
    assert!(
        r.summary
            .starts_with("Abandoned after 1 replan(s): the time budget of 120 s ran out."),
        "{}",
        r.summary
    );
    assert!(r.summary.contains("Nothing was completed"), "{}", r.summary);
    // The last round's D and P; the whole budget counted as spent.
    assert_eq!((r.loss.d, r.loss.p), (1.0, 0.0));
    assert!(
        close(r.loss.omega, 0.6 * 1.0 / 3.0 + 0.4),
        "Ω = {}",
        r.loss.omega
    );
    assert!(
        r.next_moves
            .iter()
            .any(|m| m.contains("The time budget ran out after 120 s")),
        "{:?}",
        r.next_moves
    );
    assert!(rig.planner.try_recv().is_none(), "no request to R2");
    let megrams = drain_megrams(&mut rig.memory);
    assert_eq!(megrams.len(), 1);
    assert_quantum(&megrams[0], MegramOrigin::Abandon, 0.95, -1.0, 0.05);

    // A round that arrives after the end is ignored.
    rig.r4b(outcome_summary(
        &task,
        vec![matched(&task, "listed", serde_json::json!("a.mp4"))],
        130_000,
    ));
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(rig.user.try_recv().is_none() && rig.planner.try_recv().is_none());
}

#[tokio::test(start_paused = true)]
async fn a_planning_failure_is_abandoned_honestly_with_r2s_graceful_failure() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    rig.bus.handle(Role::Planner).publish(
        Role::Ggs,
        PlanningFailed {
            task_id: task.clone(),
            intent: "整理桌面上的截图".into(),
            reason: "no plan parsed after one re-ask".into(),
            round: 0,
        },
    );
    let request = next(&mut rig.planner).await;
    let Message::GracefulFailureRequest(req) = &request.message else {
        panic!("expected a GracefulFailureRequest");
    };
    assert!(req.matched_outputs.is_empty());
    rig.bus.handle(Role::Planner).reply(
        Role::Ggs,
        request.id,
        GracefulFailure {
            task_id: task.clone(),
            accomplished: "Nothing was done: no plan could be made.".into(),
            next_moves: vec!["Name the folder the screenshots are in.".into()],
        },
    );
    let r = final_result(&mut rig).await;
    assert_eq!(r.directive, TerminalDirective::Abandon);
    assert_eq!((r.loss.d, r.replans), (1.0, 0));
    assert!(
        r.summary
            .contains("no valid plan could be produced (no plan parsed after one re-ask)")
    );
    assert_eq!(r.next_moves[0], "Name the folder the screenshots are in.");
    assert!(
        r.next_moves.len() >= 2,
        "topped up to two moves: {:?}",
        r.next_moves
    );
    let megrams = drain_megrams(&mut rig.memory);
    assert_eq!(megrams.len(), 1);
    assert_eq!(megrams[0].space, tags::intent_space("整理桌面上的截图"));
}

#[tokio::test(start_paused = true)]
async fn a_task_cancelled_while_its_abandon_waits_gets_no_final_result_and_no_megram() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    rig.submit(&task);
    let mut r = replan_request(&task, vec![env_failure(&task, "shell", "ls ~/A")], 1_000);
    r.recommendation = Recommendation::Abandon;
    rig.r4b(r);
    let _request = next(&mut rig.planner).await;
    rig.bus.handle(Role::User).publish(
        Role::All,
        TaskClosed::cancelled(task.clone(), "user pressed stop"),
    );
    tokio::time::sleep(graceful_timeout() * 3).await;
    // The cancellation itself reaches every subscribed role; nothing else may follow.
    while let Some(env) = rig.user.try_recv() {
        assert!(
            matches!(env.message, Message::TaskClosed(_)),
            "{:?}",
            env.message
        );
    }
    while let Some(env) = rig.memory.try_recv() {
        assert!(
            matches!(env.message, Message::TaskClosed(_)),
            "{:?}",
            env.message
        );
    }

    // A cancelled task's late rounds are ignored too.
    let other = TaskId::mint();
    rig.bus
        .handle(Role::User)
        .publish(Role::All, TaskClosed::cancelled(other.clone(), "stop"));
    rig.r4b(replan_request(
        &other,
        vec![env_failure(&other, "shell", "x")],
        1_000,
    ));
    tokio::time::sleep(Duration::from_secs(1)).await;
    while let Some(env) = rig.planner.try_recv() {
        assert!(
            matches!(env.message, Message::TaskClosed(_)),
            "{:?}",
            env.message
        );
    }
}

#[tokio::test(start_paused = true)]
async fn interleaved_tasks_keep_separate_state_and_only_r4b_may_report_rounds() {
    let mut rig = Rig::start();
    let a = TaskId::mint();
    let b = TaskId::mint();
    rig.submit(&a);
    rig.submit(&b);
    rig.r4b(replan_request(
        &a,
        vec![env_failure(&a, "shell", "ls ~/A")],
        1_000,
    ));
    let da = directive(&mut rig).await;
    rig.r4b(replan_request(
        &b,
        vec![env_failure(&b, "shell", "ls ~/B")],
        1_000,
    ));
    let db = directive(&mut rig).await;
    assert_eq!((da.task_id.clone(), da.round), (a.clone(), 1));
    assert_eq!((db.task_id.clone(), db.round), (b.clone(), 1));
    assert_eq!(db.blocked_targets, vec!["~/B".to_string()]);

    // A ReplanRequest from a role that may not send one is refused.
    rig.bus
        .handle(Role::Executor)
        .publish(Role::Ggs, replan_request(&a, vec![], 2_000));
    rig.r4b(replan_request(
        &a,
        vec![env_failure(&a, "shell", "ls ~/C")],
        2_000,
    ));
    let da2 = directive(&mut rig).await;
    assert_eq!(da2.round, 2, "the refused message did not count as a round");
    assert_eq!(
        da2.blocked_targets,
        vec!["~/A".to_string(), "~/C".to_string()]
    );
}

/// R2's recall of an intent group that put `rules` in force as SHOULD PREFER.
fn recall_preferring(task: &TaskId, round: u32, rules: &[&SOPRecord]) -> MemoryRecall {
    MemoryRecall {
        task_id: task.clone(),
        space: rules[0].space.clone(),
        entity: "env:local".into(),
        sops: rules.iter().map(|r| (*r).clone()).collect(),
        potentials: Potentials {
            attention: 1.0,
            decision: 1.0,
            action: MemoryAction::Exploit,
        },
        constraints: rules
            .iter()
            .map(|r| RecalledConstraint {
                kind: ConstraintKind::ShouldPrefer,
                text: format!("SHOULD PREFER (SOP): {}", r.content),
                source: ConstraintSource::Sop,
                megram_ids: vec![r.id],
            })
            .collect(),
        round,
        error: None,
    }
}

fn drain_writes(inbox: &mut Inbox) -> Vec<MegramWrite> {
    let mut out = Vec::new();
    while let Some(env) = inbox.try_recv() {
        if let Message::Megram(w) = &env.message {
            out.push(w.clone());
        }
    }
    out
}

#[tokio::test(start_paused = true)]
async fn a_followed_best_practice_of_a_failed_round_gets_negative_feedback_and_nothing_else_does() {
    let mut rig = Rig::start();
    let task = TaskId::mint();
    let space = tags::intent_space("Find the largest videos in Downloads");
    let sop = |content: &str| SOPRecord {
        id: MegramId::mint(),
        space: space.clone(),
        entity: "env:local".into(),
        content: content.into(),
        sigma: 1.0,
    };
    let followed = sop("Read the video index with read_file first.");
    let not_followed = sop("Use mdfind with kind:movie.");
    rig.bus.handle(Role::Planner).publish(
        Role::Ggs,
        recall_preferring(&task, 0, &[&followed, &not_followed]),
    );
    rig.r4b(replan_request(
        &task,
        vec![env_failure(&task, "read_file", "/nope/index")],
        1_000,
    ));
    directive(&mut rig).await;
    tokio::time::sleep(Duration::from_millis(10)).await;
    let feedback: Vec<MegramWrite> = drain_writes(&mut rig.memory)
        .into_iter()
        .filter(|w| w.against_rule.is_some())
        .collect();
    assert_eq!(feedback.len(), 1, "{feedback:?}");
    assert_eq!(feedback[0].against_rule, Some(followed.id));
    assert_eq!(feedback[0].task_id, Some(task.clone()));
    let m = &feedback[0].megram;
    assert_eq!(
        (m.space.as_str(), m.sigma, m.state),
        (space.as_str(), -1.0, MegramOrigin::NegativeFeedback)
    );
    assert!(
        m.content.contains(&followed.id.to_string()),
        "{}",
        m.content
    );

    // The next round succeeds: a success corrects nothing, even with the rule in force.
    rig.bus
        .handle(Role::Planner)
        .publish(Role::Ggs, recall_preferring(&task, 1, &[&followed]));
    rig.r4b(outcome_summary(
        &task,
        vec![matched(
            &task,
            "one path is named",
            serde_json::json!("a.mp4"),
        )],
        2_000,
    ));
    assert_eq!(
        final_result(&mut rig).await.directive,
        TerminalDirective::Accept
    );
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(
        drain_writes(&mut rig.memory)
            .iter()
            .all(|w| w.against_rule.is_none())
    );

    // A rule recalled for another round than the one that failed is not blamed.
    let other = TaskId::mint();
    rig.bus
        .handle(Role::Planner)
        .publish(Role::Ggs, recall_preferring(&other, 3, &[&followed]));
    rig.r4b(replan_request(
        &other,
        vec![env_failure(&other, "read_file", "/nope/index")],
        1_000,
    ));
    directive(&mut rig).await;
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(
        drain_writes(&mut rig.memory)
            .iter()
            .all(|w| w.against_rule.is_none())
    );
}
