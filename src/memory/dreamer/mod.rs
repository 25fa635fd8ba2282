//! The Dreamer: R5's background pass over the whole store.
//!
//! A pass walks every (space, entity) group in bounded steps on the store thread, so
//! queries interleave with it. Each step applies GC and trust bankruptcy as the pure
//! rules in [`super::dream_rules`] decide; the groups that qualify for upward consolidation come back
//! here, where each gets one [`Distiller`] call (at most [`MAX_DISTILLATIONS_PER_PASS`]
//! per pass) whose answer the store writes as a C entry (k = 0) while marking the
//! sources consolidated, so they are never promoted twice and no longer count in the
//! potentials (the C entry speaks for them).
//!
//! The pass runs every `dreamer_period_secs` and once `dreamer_after_task_secs` after a
//! terminal write (debounced: a later task end pushes it back).
//!
//! **Invariant:** every step and every consolidation is one atomic batch, so a failed or
//! cancelled pass leaves a consistent store; it is logged and simply runs again next
//! period. At most one C entry per group per pass.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::error::MemoryError;
use super::megram::MAX_SOP_CHARS;
use super::store::{Command, StoreHandle};
pub use super::types::{Candidate, Distillation, StepResult};
use crate::clock::SharedClock;
use crate::contracts::{Level, Megram, MegramId};

/// Index entries one Dreamer step may visit before yielding the store thread (whole
/// groups are never split).
pub const STEP_BUDGET: usize = 20_000;
/// LLM distillations per pass; groups beyond this wait for the next pass.
pub const MAX_DISTILLATIONS_PER_PASS: usize = 8;
/// Source contents shown to the distiller (newest first).
pub const DISTILL_SOURCES: usize = 10;
/// A distillation that takes longer is a failure (retried next pass), so a stuck model
/// call can never stall the Dreamer.
pub const DISTILL_TIMEOUT: Duration = Duration::from_secs(120);

/// One distillation asked of the LLM layer.
#[derive(Clone, Debug, PartialEq)]
pub struct DistillRequest {
    /// What to distil: a practice to follow or a constraint.
    pub kind: Distillation,
    /// The group's space.
    pub space: String,
    /// The group's entity.
    pub entity: String,
    /// The group's unconsolidated M/K potentials that qualified it.
    pub attention: f64,
    /// The group's decision potential that qualified it.
    pub decision: f64,
    /// Up to [`DISTILL_SOURCES`] source Megrams, newest first.
    pub sources: Vec<Megram>,
}

/// Why a distillation produced nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("distillation failed: {0}")]
pub struct DistillError(pub String);

/// The boxed future a [`Distiller`] returns (keeps the trait object-safe).
pub type DistillFuture<'a> =
    Pin<Box<dyn Future<Output = Result<String, DistillError>> + Send + 'a>>;

/// Turns a cluster of Megrams into one actionable rule (one or two sentences). The LLM
/// layer implements it; the Dreamer never runs it on a hot path.
pub trait Distiller: Send + Sync + 'static {
    /// Writes the rule for `request`, in one or two sentences.
    fn distil<'a>(&'a self, request: &'a DistillRequest) -> DistillFuture<'a>;
}

/// What one Dreamer pass did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DreamReport {
    /// Entries read in the pass.
    pub scanned: usize,
    /// Groups the pass went through.
    pub groups: usize,
    /// Decayed entries deleted.
    pub gc_deleted: usize,
    /// C entries demoted to K.
    pub bankrupt: Vec<MegramId>,
    /// New C entries.
    pub consolidated: Vec<MegramId>,
    /// Qualifying groups whose distillation failed (retried next pass).
    pub distill_failures: usize,
    /// Qualifying groups left for a later pass (no distiller, or over the per-pass cap).
    pub deferred: usize,
}

/// The Dreamer's progress, for the UI and tests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DreamerStatus {
    /// Passes finished, successful or not.
    pub passes: u64,
    /// The report of the last successful pass; None before one.
    pub last_report: Option<DreamReport>,
    /// The error of the last pass, if it failed.
    pub last_error: Option<String>,
}

/// When the next pass is due: periodically, and `after_task` after the latest task end.
#[derive(Clone, Debug)]
pub(crate) struct Schedule {
    period: Duration,
    after_task: Duration,
    next_periodic: Instant,
    post_task: Option<Instant>,
}

impl Schedule {
    pub(crate) fn new(now: Instant, period: Duration, after_task: Duration) -> Self {
        Self {
            period,
            after_task,
            next_periodic: now + period,
            post_task: None,
        }
    }

    pub(crate) fn due(&self) -> Instant {
        self.post_task
            .map_or(self.next_periodic, |t| t.min(self.next_periodic))
    }

    /// A task ended at `now`: pass `after_task` from now (a later end pushes it back).
    pub(crate) fn task_ended(&mut self, now: Instant) {
        self.post_task = Some(now + self.after_task);
    }

    /// A pass just finished at `now`.
    pub(crate) fn ran(&mut self, now: Instant) {
        self.next_periodic = now + self.period;
        self.post_task = None;
    }
}

/// State shared by the Dreamer task and the [`crate::memory::Memory`] handle.
pub(crate) struct DreamerShared {
    pub(crate) task_ended: Notify,
    /// One pass at a time (the periodic task and `Memory::dream`).
    pub(crate) pass_lock: tokio::sync::Mutex<()>,
    pub(crate) status: watch::Sender<DreamerStatus>,
}

impl DreamerShared {
    pub(crate) fn new() -> Self {
        Self {
            task_ended: Notify::new(),
            pass_lock: tokio::sync::Mutex::new(()),
            status: watch::channel(DreamerStatus::default()).0,
        }
    }
}

/// Everything a pass needs.
#[derive(Clone)]
pub(crate) struct Dreamer {
    pub(crate) store: StoreHandle,
    pub(crate) clock: SharedClock,
    pub(crate) distiller: Option<Arc<dyn Distiller>>,
    pub(crate) shared: Arc<DreamerShared>,
}

impl Dreamer {
    /// Runs one full pass (waiting for any pass in progress) and records its outcome.
    pub(crate) async fn pass(&self) -> Result<DreamReport, MemoryError> {
        let _one_at_a_time = self.shared.pass_lock.lock().await;
        let result = self.pass_inner().await;
        self.shared.status.send_modify(|s| {
            s.passes += 1;
            match &result {
                Ok(report) => {
                    s.last_report = Some(report.clone());
                    s.last_error = None;
                }
                Err(e) => s.last_error = Some(e.to_string()),
            }
        });
        result
    }

    async fn pass_inner(&self) -> Result<DreamReport, MemoryError> {
        let mut report = DreamReport::default();
        let mut candidates = Vec::new();
        let mut cursor = None;
        loop {
            let step = self
                .store
                .call(|reply| Command::DreamStep {
                    cursor: cursor.take(),
                    budget: STEP_BUDGET,
                    reply,
                })
                .await?;
            report.scanned += step.scanned;
            report.groups += step.groups;
            report.gc_deleted += step.gc_deleted;
            report.bankrupt.extend(step.bankrupt);
            candidates.extend(step.candidates);
            match step.next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let Some(distiller) = self.distiller.as_deref() else {
            report.deferred = candidates.len();
            return Ok(report);
        };
        report.deferred = candidates.len().saturating_sub(MAX_DISTILLATIONS_PER_PASS);
        for candidate in candidates.into_iter().take(MAX_DISTILLATIONS_PER_PASS) {
            match self.consolidate(distiller, candidate).await {
                Ok(Some(id)) => report.consolidated.push(id),
                Ok(None) => {}
                Err(ConsolidationError::Distill(e)) => {
                    tracing::warn!(error = %e, "distillation failed; the group is retried next pass");
                    report.distill_failures += 1;
                }
                Err(ConsolidationError::Store(e)) => return Err(e),
            }
        }
        Ok(report)
    }

    async fn consolidate(
        &self,
        distiller: &dyn Distiller,
        candidate: Candidate,
    ) -> Result<Option<MegramId>, ConsolidationError> {
        let sample: Vec<MegramId> = candidate
            .sources
            .iter()
            .take(DISTILL_SOURCES)
            .copied()
            .collect();
        let sources = self
            .store
            .call(|reply| Command::Get { ids: sample, reply })
            .await?;
        let request = DistillRequest {
            kind: candidate.kind,
            space: candidate.space.clone(),
            entity: candidate.entity.clone(),
            attention: candidate.attention,
            decision: candidate.decision,
            sources,
        };
        let text = tokio::time::timeout(DISTILL_TIMEOUT, distiller.distil(&request))
            .await
            .map_err(|_| DistillError(format!("no answer within {DISTILL_TIMEOUT:?}")))??;
        let text = text.trim();
        if text.is_empty() {
            return Err(DistillError("the distiller returned an empty rule".into()).into());
        }
        let rule = Megram {
            id: MegramId::mint(),
            level: Level::C,
            created_at: self.clock.now(),
            last_recalled_at: None,
            space: candidate.space.clone(),
            entity: candidate.entity.clone(),
            content: crate::text::first_chars(text, MAX_SOP_CHARS),
            state: candidate.kind.state(),
            f: 1.0,
            sigma: candidate.kind.sigma(),
            k: 0.0,
        };
        let id = rule.id;
        let marked = self
            .store
            .call(|reply| Command::Consolidate {
                space: candidate.space,
                entity: candidate.entity,
                rule: Box::new(rule),
                sources: candidate.sources,
                reply,
            })
            .await?;
        Ok((marked > 0).then_some(id))
    }

    /// The background loop: periodic and post-task passes until `cancel`.
    pub(crate) async fn run(
        self,
        period: Duration,
        after_task: Duration,
        cancel: CancellationToken,
    ) {
        let mut schedule = Schedule::new(Instant::now(), period, after_task);
        loop {
            tokio::select! {
                () = cancel.cancelled() => break,
                () = self.shared.task_ended.notified() => schedule.task_ended(Instant::now()),
                () = tokio::time::sleep_until(schedule.due()) => {
                    let outcome = tokio::select! {
                        () = cancel.cancelled() => break,
                        outcome = self.pass() => outcome,
                    };
                    match outcome {
                        Ok(report) => tracing::debug!(?report, "dreamer pass"),
                        Err(e) => tracing::warn!(error = %e, "dreamer pass failed; retrying next period"),
                    }
                    schedule.ran(Instant::now());
                }
            }
        }
    }
}

enum ConsolidationError {
    Distill(DistillError),
    Store(MemoryError),
}

impl From<DistillError> for ConsolidationError {
    fn from(e: DistillError) -> Self {
        ConsolidationError::Distill(e)
    }
}

impl From<MemoryError> for ConsolidationError {
    fn from(e: MemoryError) -> Self {
        ConsolidationError::Store(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::MegramOrigin;

    #[test]
    fn the_periodic_pass_is_due_one_period_after_start_and_after_each_pass() {
        let t0 = Instant::now();
        let mut s = Schedule::new(t0, Duration::from_secs(300), Duration::from_secs(5));
        assert_eq!(s.due(), t0 + Duration::from_secs(300));
        s.ran(t0 + Duration::from_secs(300));
        assert_eq!(s.due(), t0 + Duration::from_secs(600));
    }

    #[test]
    fn a_task_end_brings_the_pass_forward_and_a_later_end_pushes_it_back() {
        let t0 = Instant::now();
        let mut s = Schedule::new(t0, Duration::from_secs(300), Duration::from_secs(5));
        s.task_ended(t0 + Duration::from_secs(10));
        assert_eq!(s.due(), t0 + Duration::from_secs(15));
        s.task_ended(t0 + Duration::from_secs(13));
        assert_eq!(s.due(), t0 + Duration::from_secs(18));
        s.ran(t0 + Duration::from_secs(18));
        assert_eq!(s.due(), t0 + Duration::from_secs(318));
    }

    #[test]
    fn a_task_end_never_delays_a_periodic_pass_that_is_due_sooner() {
        let t0 = Instant::now();
        let mut s = Schedule::new(t0, Duration::from_secs(300), Duration::from_secs(5));
        s.task_ended(t0 + Duration::from_secs(298));
        assert_eq!(s.due(), t0 + Duration::from_secs(300));
    }

    #[test]
    fn distillations_carry_the_valence_of_their_group() {
        assert_eq!(Distillation::BestPractice.sigma(), 1.0);
        assert_eq!(Distillation::Constraint.sigma(), -1.0);
        assert_eq!(Distillation::Constraint.state(), MegramOrigin::Constraint);
    }
}
