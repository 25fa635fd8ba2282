//! The anomaly detectors, fed one envelope at a time: boundary violations (the contract
//! table), convergence failure, GGS thrashing, role drift, Law 0, Law 1 and Law 3. They
//! also keep the calibration counters, which need the same per-task history.
//!
//! Only GGS's own PlanDirective/FinalResult count as GGS decisions: the same message from
//! another role is a boundary violation, not a decision.
//!
//! **Invariant:** detectors are pure state machines over what crossed the bus — no IO,
//! no clock (times come from envelopes) — and their whole state serialises, so a restart
//! resumes them exactly.

use std::collections::{HashMap, VecDeque};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::Config;
use crate::bus::Envelope;
use crate::contracts::{
    ConfirmationDecision, ConfirmationRequest, Decision, DecisionSource, ExecutionStatus,
    FinalResult, Loss, MacroState, MegramWrite, Message, PlanDirective, ReplanDirective, RequestId,
    Role, TaskId, TerminalDirective, is_allowed,
};

use super::calibration::{Calibration, UNCLASSIFIED, task_class};
use super::event::{AnomalyKind, Finding};

/// Prefix GGS puts on a summary when a Law 1 gate fired during the task.
pub use crate::laws::LAW1_PREFIX;

/// Confirmation requests remembered per task.
const MAX_OPEN_REQUESTS: usize = 64;
/// Consecutive worsening rounds that make a convergence failure ("across rounds").
const WORSENING_ROUNDS: u32 = 2;
/// D differences below this are noise.
const D_TOLERANCE: f64 = 1e-9;
/// A rate must rise by at least this much (absolute) between the halves of the drift
/// window to raise an alert…
pub const DRIFT_MIN_RISE: f64 = 0.25;
/// …and reach at least this level…
pub const DRIFT_MIN_RATE: f64 = 0.3;
/// …with at least this many opportunities (calls, executions) in each half.
pub const DRIFT_MIN_OPPORTUNITIES: u64 = 3;

const AFTER_GAP_NOTE: &str =
    " (the auditor's tap lost messages during this task; a missed message may explain this)";

/// The thresholds the detectors use, from [`Config`].
#[derive(Clone, Debug, PartialEq)]
pub struct DetectorParams {
    /// GGS δ: D at or below this is success.
    pub delta: f64,
    /// GGS ε: |∇L| below this is no trend.
    pub epsilon: f64,
    /// Law 2: worsening replans after which GGS must stop.
    pub kill_after_worsening: u32,
    /// Finished tasks in the drift window.
    pub drift_window_tasks: usize,
    /// Tasks whose history the detectors keep (`Limits::live_tasks_tracked`); past it,
    /// finished tasks are forgotten first, least recently seen first.
    pub tracked_tasks: usize,
}

impl DetectorParams {
    /// The thresholds as `config` sets them.
    pub fn from_config(config: &Config) -> Self {
        Self {
            delta: config.ggs.delta,
            epsilon: config.ggs.epsilon,
            kill_after_worsening: config.ggs.kill_after_worsening,
            drift_window_tasks: config.auditor.drift_window_tasks,
            tracked_tasks: config.limits().live_tasks_tracked,
        }
    }
}

/// A rate a role could drift on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriftMetric {
    /// Model calls that ended in an error (transport, timeout, unparseable output).
    ModelCallFailures,
    /// Executions that ended `failed`.
    ExecutionFailures,
    /// Corrections per execution: how often the fast loop had to retry.
    Retries,
}

impl DriftMetric {
    fn label(self) -> &'static str {
        match self {
            DriftMetric::ModelCallFailures => "model-call failure rate",
            DriftMetric::ExecutionFailures => "execution failure rate",
            DriftMetric::Retries => "retry rate",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Ratio {
    hits: u64,
    total: u64,
}

impl Ratio {
    fn rate(self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.hits as f64 / self.total as f64
        }
    }
}

/// Per-role counts of one task.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Sample(Vec<(Role, DriftMetric, Ratio)>);

impl Sample {
    fn count(&mut self, role: Role, metric: DriftMetric, hits: u64, total: u64) {
        match self
            .0
            .iter_mut()
            .find(|(r, m, _)| *r == role && *m == metric)
        {
            Some((_, _, ratio)) => {
                ratio.hits += hits;
                ratio.total += total;
            }
            None => self.0.push((role, metric, Ratio { hits, total })),
        }
    }
}

/// The last `drift_window_tasks` finished tasks, compared half against half.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct DriftWindow {
    samples: VecDeque<Sample>,
    /// Rates currently alerted on; re-armed once the rise has settled.
    alerting: Vec<(Role, DriftMetric)>,
}

impl DriftWindow {
    fn push(&mut self, sample: Sample, window: usize, findings: &mut Vec<Finding>) {
        self.samples.push_back(sample);
        while self.samples.len() > window {
            self.samples.pop_front();
        }
        if window < 2 || self.samples.len() < window {
            return;
        }
        let split = window / 2;
        let mut halves: Vec<(Role, DriftMetric, Ratio, Ratio)> = Vec::new();
        for (i, sample) in self.samples.iter().enumerate() {
            for (role, metric, ratio) in &sample.0 {
                let slot = match halves
                    .iter_mut()
                    .position(|(r, m, _, _)| r == role && m == metric)
                {
                    Some(p) => p,
                    None => {
                        halves.push((*role, *metric, Ratio::default(), Ratio::default()));
                        halves.len() - 1
                    }
                };
                let half = if i < split {
                    &mut halves[slot].2
                } else {
                    &mut halves[slot].3
                };
                half.hits += ratio.hits;
                half.total += ratio.total;
            }
        }
        halves.sort_by_key(|(r, m, _, _)| (*r, *m));
        for (role, metric, older, newer) in halves {
            let enough =
                older.total >= DRIFT_MIN_OPPORTUNITIES && newer.total >= DRIFT_MIN_OPPORTUNITIES;
            let rise = newer.rate() - older.rate();
            let key = (role, metric);
            let alerting = self.alerting.contains(&key);
            if enough && rise >= DRIFT_MIN_RISE && newer.rate() >= DRIFT_MIN_RATE {
                if !alerting {
                    self.alerting.push(key);
                    findings.push(Finding::new(
                        AnomalyKind::Drift,
                        format!(
                            "{role} {} rose from {:.0}% ({}/{}) to {:.0}% ({}/{}) over the last {window} tasks",
                            metric.label(),
                            older.rate() * 100.0,
                            older.hits,
                            older.total,
                            newer.rate() * 100.0,
                            newer.hits,
                            newer.total,
                        ),
                    ));
                }
            } else if alerting && rise < DRIFT_MIN_RISE / 2.0 {
                self.alerting.retain(|k| *k != key);
            }
        }
    }
}

/// A GGS decision as the detectors remember it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct DecisionPoint {
    state: MacroState,
    d: f64,
}

/// What the detectors know about one task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct TaskTrack {
    class: Option<String>,
    last_seen: DateTime<Utc>,
    decision: Option<DecisionPoint>,
    /// Repeats in the current run of break_symmetry decisions without D decreasing.
    break_streak: u32,
    /// Consecutive GGS decisions with ∇L > ε.
    worsening_streak: u32,
    law1_gate: bool,
    open_requests: Vec<(RequestId, DateTime<Utc>)>,
    sample: Sample,
    /// The last replan directive and the D it was issued at, awaiting the next round.
    pending_directive: Option<(ReplanDirective, f64)>,
    finished: bool,
    after_gap: bool,
}

impl TaskTrack {
    fn new(now: DateTime<Utc>) -> Self {
        Self {
            class: None,
            last_seen: now,
            decision: None,
            break_streak: 0,
            worsening_streak: 0,
            law1_gate: false,
            open_requests: Vec::new(),
            sample: Sample::default(),
            pending_directive: None,
            finished: false,
            after_gap: false,
        }
    }

    fn note(&self) -> &'static str {
        if self.after_gap { AFTER_GAP_NOTE } else { "" }
    }

    /// A Law 1 gate fired: the request stays open (the oldest dropped past the bound)
    /// until its decision arrives.
    fn open_request(&mut self, request: &ConfirmationRequest) {
        self.law1_gate = true;
        if self.open_requests.len() == MAX_OPEN_REQUESTS {
            self.open_requests.remove(0);
        }
        self.open_requests
            .push((request.request_id, request.expires_at));
    }
}

/// All detector state, persisted with the window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Detectors {
    tasks: HashMap<TaskId, TaskTrack>,
    drift: DriftWindow,
    pub calibration: Calibration,
}

impl Detectors {
    /// Anomalies on one envelope; updates every detector and the calibration counters.
    pub fn observe(&mut self, env: &Envelope, params: &DetectorParams) -> Vec<Finding> {
        let mut findings = Vec::new();
        boundary(env, &mut findings);

        let Some(task) = env.task_id.as_ref() else {
            untasked_write(env, &mut findings);
            return findings;
        };
        self.make_room_for(task, params.tracked_tasks);
        let track = self
            .tasks
            .entry(task.clone())
            .or_insert_with(|| TaskTrack::new(env.timestamp));
        track.last_seen = env.timestamp;

        match &env.message {
            Message::TaskSpec(spec) => track.class = Some(task_class(&spec.intent)),
            Message::LlmCall(call) => track.sample.count(
                env.from,
                DriftMetric::ModelCallFailures,
                u64::from(call.error.is_some()),
                1,
            ),
            Message::ExecutionResult(result) => {
                let failed = result.status == ExecutionStatus::Failed;
                let sample = &mut track.sample;
                sample.count(
                    env.from,
                    DriftMetric::ExecutionFailures,
                    u64::from(failed),
                    1,
                );
                sample.count(env.from, DriftMetric::Retries, 0, 1);
            }
            Message::CorrectionSignal(_) => {
                track.sample.count(env.to, DriftMetric::Retries, 1, 0);
            }
            Message::ConfirmationRequest(request) => track.open_request(request),
            Message::ConfirmationDecision(decision) => {
                law1(track, task, env.timestamp, decision, &mut findings);
            }
            Message::PlanDirective(directive) if env.from == Role::Ggs => {
                decide_replan(
                    track,
                    &mut self.calibration,
                    task,
                    directive,
                    params,
                    &mut findings,
                );
            }
            Message::FinalResult(result) => {
                law0(track, task, result, params, &mut findings);
                if env.from == Role::Ggs {
                    let state = MacroState::from(result.directive);
                    decided(
                        track,
                        &mut self.calibration,
                        task,
                        state,
                        result.loss,
                        result.grad_l,
                        params,
                        &mut findings,
                    );
                    finish(
                        track,
                        &mut self.calibration,
                        &mut self.drift,
                        result,
                        params,
                        &mut findings,
                    );
                }
            }
            Message::Megram(write) if env.from == Role::Ggs => {
                law3(track, task, write, &mut findings);
            }
            Message::TaskClosed(_) => {
                track.finished = true;
                track.pending_directive = None;
            }
            _ => {}
        }
        findings
    }

    /// The tap lost messages: every task in flight may have missed some.
    pub fn gap(&mut self) {
        for track in self.tasks.values_mut() {
            if !track.finished {
                track.after_gap = true;
            }
        }
    }

    /// Tasks currently tracked (for start-up messages and tests).
    pub fn tracked_tasks(&self) -> usize {
        self.tasks.len()
    }

    fn make_room_for(&mut self, task: &TaskId, max: usize) {
        if self.tasks.len() < max || self.tasks.contains_key(task) {
            return;
        }
        // Forget an eighth at once — finished tasks first, least recently seen first —
        // so the scan is paid once per many new tasks.
        let mut order: Vec<(bool, DateTime<Utc>, TaskId)> = self
            .tasks
            .iter()
            .map(|(id, t)| (!t.finished, t.last_seen, id.clone()))
            .collect();
        let forget = (max / 8).max(1);
        order.select_nth_unstable(forget - 1);
        for (_, _, id) in order.into_iter().take(forget) {
            self.tasks.remove(&id);
        }
    }
}

fn boundary(env: &Envelope, findings: &mut Vec<Finding>) {
    let kind = env.message.kind();
    if !is_allowed(kind, env.from, env.to) {
        findings.push(Finding::new(
            AnomalyKind::BoundaryViolation,
            format!(
                "{} sent {} to {}: not a flow of the contract table",
                env.from,
                kind.name(),
                env.to
            ),
        ));
    }
    let claimed = match &env.message {
        Message::LlmCall(call) => Some(call.role),
        _ => None,
    };
    if let Some(role) = claimed.filter(|role| *role != env.from) {
        findings.push(Finding::new(
            AnomalyKind::BoundaryViolation,
            format!("{} published a model call attributed to {role}", env.from),
        ));
    }
}

fn law1(
    track: &mut TaskTrack,
    task: &TaskId,
    at: DateTime<Utc>,
    decision: &ConfirmationDecision,
    findings: &mut Vec<Finding>,
) {
    let request = track
        .open_requests
        .iter()
        .position(|(id, _)| *id == decision.request_id)
        .map(|i| track.open_requests.remove(i));
    if decision.decision == Decision::Deny {
        return;
    }
    let what = match decision.decision {
        Decision::Trash => "move to Trash",
        _ => "approval",
    };
    if decision.source != DecisionSource::User {
        let source = match decision.source {
            DecisionSource::Timeout => "the timeout",
            DecisionSource::Dropped => "a dropped request",
            DecisionSource::NonInteractive => "a non-interactive session",
            DecisionSource::User => "the user",
        };
        findings.push(Finding::new(
            AnomalyKind::Law1,
            format!(
                "{task}: {what} of request {} came from {source}, not from the user",
                decision.request_id
            ),
        ));
    } else if let Some((_, expires_at)) = request {
        if at > expires_at {
            findings.push(Finding::new(
                AnomalyKind::Law1,
                format!(
                    "{task}: {what} of request {} arrived after it expired at {expires_at}; an expired request is denied",
                    decision.request_id
                ),
            ));
        }
    } else {
        findings.push(Finding::new(
            AnomalyKind::Law1,
            format!(
                "{task}: {what} of request {}, which was never asked on the bus{}",
                decision.request_id,
                track.note()
            ),
        ));
    }
}

fn law0(
    track: &TaskTrack,
    task: &TaskId,
    result: &FinalResult,
    params: &DetectorParams,
    findings: &mut Vec<Finding>,
) {
    let claims_success = matches!(
        result.directive,
        TerminalDirective::Accept | TerminalDirective::Success
    );
    if claims_success && result.loss.d > params.delta + D_TOLERANCE {
        findings.push(Finding::new(
            AnomalyKind::Law0,
            format!(
                "{task}: FinalResult claims {} with D={:.3} > δ={}",
                MacroState::from(result.directive).as_str(),
                result.loss.d,
                params.delta
            ),
        ));
    }
    if track.law1_gate && !result.summary.trim_start().starts_with(LAW1_PREFIX) {
        findings.push(Finding::new(
            AnomalyKind::Law0,
            format!(
                "{task}: a Law 1 confirmation gate fired but the summary does not start with {LAW1_PREFIX}"
            ),
        ));
    }
}

fn law3(track: &TaskTrack, task: &TaskId, write: &MegramWrite, findings: &mut Vec<Finding>) {
    let m = &write.megram;
    let problem = match (track.decision, m.state.macro_state()) {
        (None, _) => Some("was written before any GGS decision for the task".to_string()),
        (Some(_), None) => Some("records a state that is not a GGS macro-state".to_string()),
        (Some(decision), Some(state)) if state != decision.state => Some(format!(
            "contradicts GGS's last decision for the task ({})",
            decision.state.as_str()
        )),
        _ => None,
    };
    if let Some(problem) = problem {
        findings.push(Finding::new(
            AnomalyKind::Law3,
            format!(
                "{task}: Megram {}/{} (state={}) {problem}{}",
                m.space,
                m.entity,
                m.state,
                track.note()
            ),
        ));
    }
}

fn decide_replan(
    track: &mut TaskTrack,
    calibration: &mut Calibration,
    task: &TaskId,
    directive: &PlanDirective,
    params: &DetectorParams,
    findings: &mut Vec<Finding>,
) {
    let state = MacroState::from(directive.directive);
    decided(
        track,
        calibration,
        task,
        state,
        directive.loss,
        directive.grad_l,
        params,
        findings,
    );
    calibration.issued(directive.directive);
    track.pending_directive = Some((directive.directive, directive.loss.d));
}

/// Convergence, thrashing and calibration bookkeeping common to every GGS decision.
#[allow(clippy::too_many_arguments)]
fn decided(
    track: &mut TaskTrack,
    calibration: &mut Calibration,
    task: &TaskId,
    state: MacroState,
    loss: Loss,
    grad_l: f64,
    params: &DetectorParams,
    findings: &mut Vec<Finding>,
) {
    if let Some((directive, d)) = track.pending_directive.take() {
        calibration.followed(directive, d, loss.d);
    }

    if grad_l > params.epsilon {
        track.worsening_streak += 1;
    } else {
        track.worsening_streak = 0;
    }
    if track.worsening_streak >= WORSENING_ROUNDS {
        let law2 = if !state.is_terminal() && track.worsening_streak >= params.kill_after_worsening
        {
            format!(
                "; GGS issued {} instead of stopping (Law 2: stop after {} worsening replans)",
                state.as_str(),
                params.kill_after_worsening
            )
        } else {
            String::new()
        };
        findings.push(Finding::new(
            AnomalyKind::ConvergenceFailure,
            format!(
                "{task}: loss worsened for {} consecutive rounds (L={:.3}, ∇L={:+.3}){law2}{}",
                track.worsening_streak,
                loss.l,
                grad_l,
                track.note()
            ),
        ));
    }

    match track.decision {
        Some(prev)
            if state == MacroState::BreakSymmetry
                && prev.state == MacroState::BreakSymmetry
                && loss.d >= prev.d - D_TOLERANCE =>
        {
            track.break_streak += 1;
            findings.push(Finding::new(
                AnomalyKind::GgsThrashing,
                format!(
                    "{task}: {} consecutive break_symmetry directives without D decreasing (D {:.3} → {:.3}){}",
                    track.break_streak + 1,
                    prev.d,
                    loss.d,
                    track.note()
                ),
            ));
        }
        _ => track.break_streak = 0,
    }
    track.decision = Some(DecisionPoint { state, d: loss.d });
}

fn finish(
    track: &mut TaskTrack,
    calibration: &mut Calibration,
    drift: &mut DriftWindow,
    result: &FinalResult,
    params: &DetectorParams,
    findings: &mut Vec<Finding>,
) {
    if track.finished {
        return;
    }
    track.finished = true;
    let class = track.class.as_deref().unwrap_or(UNCLASSIFIED);
    calibration.finished(class, result.directive, result.replans);
    drift.push(
        std::mem::take(&mut track.sample),
        params.drift_window_tasks,
        findings,
    );
}

/// A Megram GGS wrote outside any task: no decision backs it (Law 3).
fn untasked_write(env: &Envelope, findings: &mut Vec<Finding>) {
    if let (Message::Megram(write), Role::Ggs) = (&env.message, env.from) {
        findings.push(Finding::new(
            AnomalyKind::Law3,
            format!(
                "GGS wrote Megram {}/{} (state={}) without a task: no decision backs it",
                write.megram.space, write.megram.entity, write.megram.state
            ),
        ));
    }
}

#[cfg(test)]
mod tests;
