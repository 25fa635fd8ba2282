//! Starts the runs that are due: every [`TICK`], each schedule's due run (at most one per
//! schedule and look, however many fell due since the last) is claimed in the store and
//! then handed to `start` with its note. The wall clock is read on every look, so a
//! computer that slept through due times runs each such schedule once when it wakes.

use std::time::Duration;

use chrono::{DateTime, Local, TimeZone};

use super::ScheduleStore;
use crate::contracts::{ScheduledRun, TaskId};

/// How often the runner looks at the schedules.
pub const TICK: Duration = Duration::from_secs(20);

/// Starts a run: the task's words and its note; the task it became, or why not.
pub type Start<'a> = dyn FnMut(&str, ScheduledRun) -> Result<TaskId, String> + Send + 'a;

/// One run the runner started (or tried to).
#[derive(Debug)]
pub struct Started {
    /// The schedule.
    pub schedule_id: String,
    /// The task, or why it could not start.
    pub task: Result<TaskId, String>,
}

/// Starts every run due at `now` (local times read in its zone).
pub fn tick<Tz: TimeZone>(
    store: &ScheduleStore,
    now: &DateTime<Tz>,
    start: &mut Start<'_>,
) -> Vec<Started>
where
    Tz::Offset: std::fmt::Display,
{
    let schedules = match store.list() {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "the schedules could not be read");
            return Vec::new();
        }
    };
    let mut started = Vec::new();
    for schedule in schedules {
        let Some(due) = schedule.due(now) else {
            continue;
        };
        match store.claim_run(&schedule.id, due.at) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                tracing::warn!(error = %e, schedule = %schedule.id, "a due run could not be recorded; not started");
                continue;
            }
        }
        let note = schedule.run_note(&due, now);
        let task = start(&schedule.task, note);
        match &task {
            Ok(task) => {
                if let Err(e) = store.note_task(&schedule.id, task) {
                    tracing::warn!(error = %e, "the run's task could not be recorded");
                }
                tracing::info!(schedule = %schedule.id, task = %task, "scheduled run started");
            }
            Err(why) => {
                tracing::warn!(schedule = %schedule.id, %why, "a scheduled run could not start")
            }
        }
        started.push(Started {
            schedule_id: schedule.id,
            task,
        });
    }
    started
}

/// Looks at the schedules every [`TICK`], by the local clock, while `ready` says runs
/// can start (a run due meanwhile starts once it can), until `stop` completes.
pub async fn run(
    store: ScheduleStore,
    ready: Box<dyn Fn() -> bool + Send>,
    mut start: Box<Start<'static>>,
    stop: impl std::future::Future<Output = ()>,
) {
    let mut every = tokio::time::interval(TICK);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => return,
            _ = every.tick() => {
                if ready() {
                    tick(&store, &Local::now(), &mut *start);
                }
            }
        }
    }
}
