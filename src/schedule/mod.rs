//! Scheduled tasks: "every weekday at 9, summarize what landed in ~/Downloads".
//!
//! A schedule is made from the popup or the REPL by starting (or ending) a task with
//! when it should run ([`parse_request`]), or with `artoo schedule add`; it is kept in
//! `<data dir>/schedules.json` ([`ScheduleStore`]) and run by the desktop app while it
//! runs ([`runner`]).
//!
//! The rules, stated once here:
//! - **When**: a closed grammar read by code ([`Rule`]): a day rule needs its time, a
//!   repeat its unit, so a task that merely says "every day" is never taken for one.
//! - **Missed runs**: a run that fell due while the computer slept or the app was closed
//!   runs once, as soon as the app sees it, and its result says so: when it was due, and
//!   how many earlier runs were missed (they are not made up one by one).
//! - **Unattended, Law 1 still holds**: a scheduled run is a task like any other. An
//!   action that needs the user's approval asks as always — the popup comes back with
//!   the question, with a system notification — and waits for the schedule's answer
//!   window (an hour unless set; the run's own clock, its budget, stands still
//!   meanwhile); no answer within it is a denial, and the run ends saying what it did
//!   and what it could not. Only
//!   a standing grant ([`crate::laws::effect_grants`]) lets such an action run without
//!   the user, exactly as it would for a task the user typed.
//!
//! **Invariant:** one due time starts at most one run: the store records a run before
//! the task is submitted.

pub mod rule;
pub mod runner;
pub mod store;

use chrono::{DateTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};

pub use rule::{Day, Rule};
pub use store::{ScheduleError, ScheduleStore};

use crate::contracts::{ScheduledRun, TaskId};

/// One scheduled task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Schedule {
    /// A short id, `sch_` and six hex digits.
    pub id: String,
    /// The task, as the user wrote it.
    pub task: String,
    /// When it runs.
    pub rule: Rule,
    /// When it was made: a repeat counts from here, and no run falls before it.
    pub created_at: DateTime<Utc>,
    /// The due time of the last run started, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<DateTime<Utc>>,
    /// The task of the last run started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_task: Option<TaskId>,
    /// How many runs started.
    #[serde(default)]
    pub runs: u32,
    /// How long a run's question needing the user's approval waits for an answer, in
    /// seconds ([`DEFAULT_ANSWER_WINDOW_SECS`] unless set). The run's own clock stands
    /// still meanwhile, so the window may be far longer than a task's budget; no answer
    /// within it is a denial, and the run ends saying what it did and what it could not.
    #[serde(default = "default_answer_window")]
    pub answer_window_secs: u64,
}

/// A schedule's answer window when none is set: an hour, time enough to come back to
/// the computer.
pub const DEFAULT_ANSWER_WINDOW_SECS: u64 = 3600;

/// The shortest answer window a schedule takes.
pub const SHORTEST_ANSWER_WINDOW_SECS: u64 = 60;

fn default_answer_window() -> u64 {
    DEFAULT_ANSWER_WINDOW_SECS
}

/// A schedule as the lists show it: with its rule in words and its next run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ScheduleView {
    /// The schedule.
    pub schedule: Schedule,
    /// Its rule in words: "every weekday at 09:00".
    pub when: String,
    /// When it runs next.
    pub next_run: DateTime<Utc>,
    /// How long a run's question waits for the user, in words: "a question waits up to
    /// 1 h for your answer".
    pub window: String,
}

impl ScheduleView {
    /// `schedule` as seen at `now`.
    pub fn of<Tz: TimeZone>(schedule: Schedule, now: &DateTime<Tz>) -> Self {
        Self {
            when: schedule.rule.words(),
            next_run: schedule.next_run(now).with_timezone(&Utc),
            window: schedule.window_words(),
            schedule,
        }
    }
}

/// Makes a schedule of `text` when it says when it should run ([`parse_request`]) and
/// keeps it; `None` when it does not (it is a task to run now).
pub fn add_from_request(
    store: &ScheduleStore,
    text: &str,
    now: &DateTime<chrono::Local>,
) -> Option<Result<ScheduleView, ScheduleError>> {
    let (rule, task) = parse_request(text)?;
    let schedule = Schedule::new(&task, rule, now.with_timezone(&Utc));
    Some(store.add(schedule).map(|s| ScheduleView::of(s, now)))
}

/// What is said when a schedule was made: when it runs, the task, its next run, and
/// that the app runs it with Law 1 as ever.
pub fn made_message(view: &ScheduleView, now: &DateTime<chrono::Local>) -> String {
    let next = view.next_run.with_timezone(&now.timezone());
    format!(
        "Scheduled {}: {}. Next run: {}. It runs while the artoo app is running, and anything that needs your approval still asks: {} (no answer is a no).",
        view.when,
        view.schedule.task,
        next.format("%a %-d %b %H:%M"),
        view.window,
    )
}

/// A run that is due.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Due {
    /// The latest due time not after now.
    pub at: DateTime<Utc>,
    /// Due times before it since the last run, which are not run.
    pub missed: u32,
}

/// Due times counted at most, when many passed (a repeat of a minute over a year asleep).
const COUNT_LIMIT: u32 = 100_000;

impl Schedule {
    /// A new schedule of `task` by `rule`, made at `now`.
    pub fn new(task: &str, rule: Rule, now: DateTime<Utc>) -> Self {
        let id = format!("sch_{}", &uuid::Uuid::new_v4().simple().to_string()[..6]);
        Self {
            id,
            task: task.trim().to_string(),
            rule,
            created_at: now,
            last_run: None,
            last_task: None,
            runs: 0,
            answer_window_secs: DEFAULT_ANSWER_WINDOW_SECS,
        }
    }

    /// The schedule with questions of its runs waiting `window` for an answer (at least
    /// [`SHORTEST_ANSWER_WINDOW_SECS`]).
    pub fn with_answer_window(mut self, window: std::time::Duration) -> Self {
        self.answer_window_secs = window.as_secs().max(SHORTEST_ANSWER_WINDOW_SECS);
        self
    }

    /// The answer window in words: "waits up to 1 h for your answer".
    pub fn window_words(&self) -> String {
        format!(
            "a question waits up to {} for your answer",
            length_words(self.answer_window_secs)
        )
    }

    /// The next due time after `now`, in `tz`.
    pub fn next_run<Tz: TimeZone>(&self, now: &DateTime<Tz>) -> DateTime<Tz> {
        let tz = now.timezone();
        let anchor = self.created_at.with_timezone(&tz);
        let from = self.since().with_timezone(&tz);
        let after = if from > *now { from } else { now.clone() };
        self.rule.next_after(&after, &anchor)
    }

    /// Since when runs count: the last run's due time, or when it was made.
    fn since(&self) -> DateTime<Utc> {
        self.last_run.unwrap_or(self.created_at)
    }

    /// The run due at `now` (local times read in `now`'s zone), if one is.
    pub fn due<Tz: TimeZone>(&self, now: &DateTime<Tz>) -> Option<Due> {
        let tz = now.timezone();
        let anchor = self.created_at.with_timezone(&tz);
        let mut at = self
            .rule
            .next_after(&self.since().with_timezone(&tz), &anchor);
        if at > *now {
            return None;
        }
        let mut missed = 0;
        loop {
            let next = self.rule.next_after(&at, &anchor);
            if next > *now || missed >= COUNT_LIMIT {
                return Some(Due {
                    at: at.with_timezone(&Utc),
                    missed,
                });
            }
            at = next;
            missed += 1;
        }
    }

    /// What a run due `due` and started at `now` tells its result.
    pub fn run_note<Tz: TimeZone>(&self, due: &Due, now: &DateTime<Tz>) -> ScheduledRun
    where
        Tz::Offset: std::fmt::Display,
    {
        let tz = now.timezone();
        let due_local = due.at.with_timezone(&tz);
        let late =
            now.clone().signed_duration_since(due_local.clone()) > chrono::Duration::minutes(2);
        let mut note = format!("Scheduled: {}.", self.rule.words());
        if late {
            note.push_str(&format!(
                " This run was due at {} and started at {}, when artoo could run it (the computer was asleep or artoo was not running).",
                due_local.format("%a %-d %b %H:%M"),
                now.format("%H:%M")
            ));
        }
        match due.missed {
            0 => {}
            1 => note.push_str(" 1 earlier run was missed and is not made up."),
            n => note.push_str(&format!(
                " {n} earlier runs were missed and are not made up."
            )),
        }
        ScheduledRun {
            schedule_id: self.id.clone(),
            due_at: due.at,
            missed: due.missed,
            note,
            answer_window_secs: self.answer_window_secs,
        }
    }
}

/// An answer window's length as a person says it: "45 min", "1 h", "1 h 30 min",
/// "2 days".
fn length_words(secs: u64) -> String {
    let mins = secs.div_ceil(60);
    match (mins / 60, mins % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) if h % 24 == 0 => match h / 24 {
            1 => "1 day".to_string(),
            d => format!("{d} days"),
        },
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

/// Reads an answer window as a person writes it: "90" (minutes), "90m", "45 min",
/// "2h", "1h30m", "1 day", "2d". `None` for anything else.
pub fn parse_window(text: &str) -> Option<std::time::Duration> {
    let text = text.trim().to_lowercase();
    if let Ok(mins) = text.parse::<u64>() {
        return Some(std::time::Duration::from_secs(mins.checked_mul(60)?));
    }
    let mut total: u64 = 0;
    let mut rest = text.as_str();
    let mut any = false;
    while !rest.is_empty() {
        rest = rest.trim_start();
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n: u64 = rest[..digits].parse().ok()?;
        rest = rest[digits..].trim_start();
        let unit_len = rest
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "d" | "day" | "days" => 86_400,
            other => u64::from(rule::minutes_per(other)?) * 60,
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
        rest = &rest[unit_len..];
        any = true;
    }
    any.then(|| std::time::Duration::from_secs(total))
}

/// Separators between a schedule's when and its task.
const SEPARATORS: &[char] = &[',', '，', ':', '：', ';', '；', '-', '—'];

/// A request that says when it should run: "every weekday at 9, summarize ~/Downloads"
/// or "summarize ~/Downloads every weekday at 9". The rule and the task; `None` for a
/// request with no rule at its start or end (it runs now, as any task).
pub fn parse_request(text: &str) -> Option<(Rule, String)> {
    let text = text.trim();
    let cuts: Vec<usize> = text
        .char_indices()
        .filter(|(_, c)| c.is_whitespace() || SEPARATORS.contains(c))
        .map(|(i, _)| i)
        .collect();
    let task = |t: &str| {
        let t = t.trim().trim_matches(SEPARATORS).trim();
        (!t.is_empty()).then(|| t.to_string())
    };
    // The longest rule at the start, then the longest at the end.
    for &cut in cuts.iter().rev() {
        if let (Some(rule), Some(task)) = (Rule::parse(&text[..cut]), task(&text[cut..])) {
            return Some((rule, task));
        }
    }
    for &cut in &cuts {
        if let (Some(rule), Some(task)) = (Rule::parse(&text[cut..]), task(&text[..cut])) {
            return Some((rule, task));
        }
    }
    // Chinese writes no blank between the rule and the task.
    let (rule_end, _) = text.char_indices().find(|(_, c)| SEPARATORS.contains(c))?;
    let rule = Rule::parse(&text[..rule_end])?;
    Some((rule, task(&text[rule_end..])?))
}

#[cfg(test)]
mod tests;
