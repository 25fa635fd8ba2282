//! [`Limits`]: every timeout and every bound on remembered per-task state, in one place.
//! Two come from the settings (the Law 1 confirmation window and the task's time
//! budget); the rest are fixed here. The runtime and the roles read them from
//! [`crate::config::Config::limits`], so no role keeps its own copy of a number another
//! role must agree with.
//!
//! **Invariant:** a [`Limits`] that [`Limits::check`] accepts has no zero timeout or
//! window, lets an answer's grace end before the request it answers expires, ends R2's
//! graceful-failure work before GGS stops waiting for it, and
//! remembers closed tasks at least as long as a validator follows live ones, so a
//! straggler of a task a validator still tracks is never mistaken for a new task.

use std::time::Duration;

/// The runtime's timeouts and the sizes of its per-task memories.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Closed tasks the task registry remembers (oldest forgotten first): a late message
    /// about one of them is ignored, a late `wait` still gets its end, and a Law 1 request
    /// raised after its task closed is denied at once.
    pub closed_tasks_remembered: usize,
    /// An unanswered Law 1 request is denied after this long (settings: `laws`), unless
    /// its task has its own answer window (a schedule's run).
    pub confirm_timeout: Duration,
    /// An unanswered clarifying question is answered "go on as understood" after this
    /// long. Like a Law 1 request, it waits by the wall clock while the task's own clock
    /// stands still ([`crate::lifecycle`]).
    pub clarification_timeout: Duration,
    /// The longest wall-clock budget a task can get (the settings' fixed
    /// `budgets.time_budget_ms`, or the ceiling of the budgets derived from the model's
    /// speed); R4a closes an attempt that R3 never reports on after this long.
    pub task_budget: Duration,
    /// How long an answer waits for the desk to register a request the caller already
    /// saw on a tap (the tap and the user's inbox receive the same publish).
    pub answer_grace: Duration,
    /// The on-demand audit report must come back within this.
    pub audit_query_timeout: Duration,
    /// How long shutdown waits for the roles to drain after the bus closes.
    pub shutdown_grace: Duration,
    /// How long GGS waits for R2's graceful-failure reply before using its own.
    pub graceful_failure_timeout: Duration,
    /// How long R2 may spend on that reply; it ends first, so GGS gets R2's version.
    pub graceful_reply_budget: Duration,
    /// How long R2 waits for memory's answer before planning without it.
    pub memory_query_timeout: Duration,
    /// How long R4b waits for a round's last outcome before judging what it has.
    pub round_grace: Duration,
    /// Live tasks one validator or the auditor's detectors follow at once.
    pub live_tasks_tracked: usize,
    /// Outcomes R4b keeps for a round whose manifest has not arrived yet.
    pub early_outcomes: usize,
    /// Ended runs the task log keeps in memory after writing them.
    pub task_runs_kept: usize,
    /// Law 1 approvals for the rest of a task, and files a task made, the confirmation
    /// broker keeps per live task (each kind; a task's denials are all kept).
    pub law1_effects_per_task: usize,
}

/// Why a [`Limits`] cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("limit `{field}`: {reason}")]
pub struct LimitsError {
    /// The setting that is out of range, as named in the settings file.
    pub field: &'static str,
    /// What is wrong with its value.
    pub reason: String,
}

impl Limits {
    /// The fixed values with the two settings-driven ones given.
    pub fn new(confirm_timeout: Duration, task_budget: Duration) -> Self {
        Self {
            closed_tasks_remembered: 4096,
            confirm_timeout,
            clarification_timeout: Duration::from_secs(120),
            task_budget,
            answer_grace: Duration::from_secs(2),
            audit_query_timeout: Duration::from_secs(3),
            shutdown_grace: Duration::from_secs(5),
            graceful_failure_timeout: Duration::from_secs(30),
            graceful_reply_budget: Duration::from_secs(25),
            memory_query_timeout: Duration::from_secs(3),
            round_grace: Duration::from_secs(60),
            live_tasks_tracked: 1024,
            early_outcomes: 256,
            task_runs_kept: 256,
            law1_effects_per_task: 256,
        }
    }

    /// Checks the rules in the module doc, naming the first limit that breaks one.
    pub fn check(&self) -> Result<(), LimitsError> {
        let durations = [
            ("confirm_timeout", self.confirm_timeout),
            ("clarification_timeout", self.clarification_timeout),
            ("task_budget", self.task_budget),
            ("answer_grace", self.answer_grace),
            ("audit_query_timeout", self.audit_query_timeout),
            ("shutdown_grace", self.shutdown_grace),
            ("graceful_failure_timeout", self.graceful_failure_timeout),
            ("graceful_reply_budget", self.graceful_reply_budget),
            ("memory_query_timeout", self.memory_query_timeout),
            ("round_grace", self.round_grace),
        ];
        for (field, value) in durations {
            if value.is_zero() {
                return Err(bad(field, "must be longer than zero"));
            }
        }
        let windows = [
            ("closed_tasks_remembered", self.closed_tasks_remembered),
            ("live_tasks_tracked", self.live_tasks_tracked),
            ("early_outcomes", self.early_outcomes),
            ("task_runs_kept", self.task_runs_kept),
            ("law1_effects_per_task", self.law1_effects_per_task),
        ];
        for (field, value) in windows {
            if value == 0 {
                return Err(bad(field, "must be at least 1"));
            }
        }
        if self.answer_grace >= self.confirm_timeout {
            return Err(bad(
                "answer_grace",
                format!(
                    "{:?} must be shorter than the confirmation window {:?}",
                    self.answer_grace, self.confirm_timeout
                ),
            ));
        }
        if self.graceful_reply_budget >= self.graceful_failure_timeout {
            return Err(bad(
                "graceful_reply_budget",
                format!(
                    "{:?} must be shorter than GGS's wait {:?}",
                    self.graceful_reply_budget, self.graceful_failure_timeout
                ),
            ));
        }
        if self.closed_tasks_remembered < self.live_tasks_tracked {
            return Err(bad(
                "closed_tasks_remembered",
                format!(
                    "{} must be at least live_tasks_tracked ({})",
                    self.closed_tasks_remembered, self.live_tasks_tracked
                ),
            ));
        }
        Ok(())
    }
}

fn bad(field: &'static str, reason: impl Into<String>) -> LimitsError {
    LimitsError {
        field,
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Limits {
        Limits::new(Duration::from_secs(120), Duration::from_secs(120))
    }

    #[test]
    fn the_defaults_hold_every_rule() {
        assert_eq!(defaults().check(), Ok(()));
    }

    #[test]
    fn a_zero_timeout_or_window_is_named() {
        let mut l = defaults();
        l.round_grace = Duration::ZERO;
        assert_eq!(l.check().map_err(|e| e.field), Err("round_grace"));
        let mut l = defaults();
        l.task_runs_kept = 0;
        assert_eq!(l.check().map_err(|e| e.field), Err("task_runs_kept"));
    }

    #[test]
    fn the_grace_must_end_before_the_confirmation_window() {
        let l = Limits::new(Duration::from_secs(2), Duration::from_secs(120));
        let err = l.check().unwrap_err();
        assert_eq!(err.field, "answer_grace");
        assert!(err.to_string().contains("confirmation window"), "{err}");
        assert_eq!(
            Limits::new(Duration::from_secs(3), Duration::from_secs(120)).check(),
            Ok(())
        );
    }

    #[test]
    fn r2_finishes_its_graceful_failure_before_ggs_stops_waiting() {
        let mut l = defaults();
        l.graceful_reply_budget = l.graceful_failure_timeout;
        assert_eq!(l.check().map_err(|e| e.field), Err("graceful_reply_budget"));
    }

    #[test]
    fn closed_tasks_are_remembered_at_least_as_long_as_live_ones_are_tracked() {
        let mut l = defaults();
        l.closed_tasks_remembered = l.live_tasks_tracked - 1;
        assert_eq!(
            l.check().map_err(|e| e.field),
            Err("closed_tasks_remembered")
        );
    }
}
