//! "Tasks like this": how the runs of one kind of task went on this machine — how many
//! delivered an answer, how long they usually took and how many model calls, why the
//! last one that did not deliver failed, the chance that the next few in a row all
//! deliver, and whether that is getting better — read from the recorded runs, never
//! estimated from anything else.
//!
//! A run's kind is the task-kind slug of the user's words ([`crate::tags::task_class`]),
//! so a new request is matched before anything runs. A run counts when it ended by
//! delivering (accepted, or within the convergence threshold) or by failing (abandoned,
//! or cut off before its end); a cancel is the user's choice and a chat reply no task, so
//! neither counts.
//!
//! **Invariant:** nothing is said about a kind with fewer than [`MIN_RUNS`] counted runs,
//! and every figure is computed from those runs alone.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::TaskLogError;
use super::reader::{RunId, TaskLogDir};
use super::trajectory::{RunStatus, Trajectory};
use crate::status::Lang;

/// Fewer counted runs than this and a kind has no history to show.
pub const MIN_RUNS: usize = 3;

/// The `k` of pass^k: the chance that this many runs in a row all deliver.
pub const PASS_K: usize = 3;

/// The newest runs read at most: enough for a person's history, bounded in time.
pub const SCANNED_RUNS: usize = 1000;

/// A change in the delivery rate between the older and the newer half of a kind's runs
/// that counts as a trend; smaller changes are steady.
const TREND_STEP: f64 = 0.2;

/// Runs a kind needs before a trend is shown (two halves of three).
const TREND_RUNS: usize = 6;

/// Whether a kind's newer runs deliver more often than its older ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum DeliveryTrend {
    /// The newer half delivered at least 20 points more often.
    Better,
    /// Within 20 points.
    Steady,
    /// The newer half delivered at least 20 points less often.
    Worse,
}

/// How the counted runs of one kind of task went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct KindHistory {
    /// The kind, as the task-kind slug.
    pub kind: String,
    /// The newest run's words, to show what the kind is.
    pub example: String,
    /// Counted runs.
    pub runs: u32,
    /// Runs that delivered an answer.
    pub delivered: u32,
    /// The median run's time from submission to close.
    pub typical_ms: u64,
    /// The median run's model calls.
    pub typical_model_calls: u32,
    /// pass^k for k = [`PASS_K`]: the chance that k runs drawn from these, in a row, all
    /// delivered (`C(delivered, k) / C(runs, k)`).
    pub pass_k: f64,
    /// `None` with fewer than six runs.
    pub trend: Option<DeliveryTrend>,
    /// Why the newest run that did not deliver ended, in its own words.
    pub last_failure: Option<String>,
    /// When the newest run started.
    pub last_run_at: DateTime<Utc>,
}

/// One counted run, as the history reads it.
#[derive(Clone, Debug, PartialEq)]
struct Counted {
    kind: String,
    words: String,
    started_at: DateTime<Utc>,
    delivered: bool,
    ms: u64,
    model_calls: u32,
    failure: Option<String>,
}

/// Characters of a failure's reason kept.
const MAX_REASON_CHARS: usize = 160;

impl Counted {
    /// The run as the history counts it; `None` for a run that does not count.
    fn of(t: &Trajectory) -> Option<Counted> {
        let delivered = match t.status {
            RunStatus::Accepted | RunStatus::Success => true,
            RunStatus::Abandoned | RunStatus::Unfinished => false,
            RunStatus::Open | RunStatus::Cancelled | RunStatus::Answered => return None,
        };
        let words = t
            .raw_input
            .clone()
            .or_else(|| t.intent().map(str::to_owned))?;
        let failure = (!delivered).then(|| match &t.final_result {
            Some(r) => {
                let line = r.summary.lines().next().unwrap_or_default();
                let line = line.trim_start_matches(crate::laws::LAW1_PREFIX).trim();
                crate::text::first_chars(line, MAX_REASON_CHARS)
            }
            None => "the recording stopped before the task ended".to_owned(),
        });
        Some(Counted {
            kind: crate::tags::task_class(&words),
            words,
            started_at: t.started_at?,
            delivered,
            ms: t.elapsed_ms.unwrap_or(0),
            model_calls: u32::try_from(t.usage.llm_calls()).unwrap_or(u32::MAX),
            failure,
        })
    }
}

/// The median of `values` (the lower middle of an even count); 0 for none.
fn median<T: Copy + Ord + Default>(mut values: Vec<T>) -> T {
    values.sort_unstable();
    values
        .get(values.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or_default()
}

/// `C(n, k)` as a float (exact for the sizes a history has).
fn choose(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The delivery rate's trend from the older half of `runs` (oldest first) to the newer.
fn trend(runs: &[&Counted]) -> Option<DeliveryTrend> {
    if runs.len() < TREND_RUNS {
        return None;
    }
    let half = runs.len() / 2;
    let rate =
        |part: &[&Counted]| part.iter().filter(|r| r.delivered).count() as f64 / part.len() as f64;
    let change = rate(&runs[runs.len() - half..]) - rate(&runs[..half]);
    Some(if change >= TREND_STEP {
        DeliveryTrend::Better
    } else if change <= -TREND_STEP {
        DeliveryTrend::Worse
    } else {
        DeliveryTrend::Steady
    })
}

/// The history of the runs in `counted` (any order), all of one kind; `None` with fewer
/// than [`MIN_RUNS`].
fn history(mut counted: Vec<&Counted>) -> Option<KindHistory> {
    if counted.len() < MIN_RUNS {
        return None;
    }
    counted.sort_by_key(|r| r.started_at);
    let newest = counted.last()?;
    let runs = counted.len();
    let delivered = counted.iter().filter(|r| r.delivered).count();
    Some(KindHistory {
        kind: newest.kind.clone(),
        example: newest.words.clone(),
        runs: u32::try_from(runs).unwrap_or(u32::MAX),
        delivered: u32::try_from(delivered).unwrap_or(u32::MAX),
        typical_ms: median(counted.iter().map(|r| r.ms).collect()),
        typical_model_calls: median(counted.iter().map(|r| r.model_calls).collect()),
        pass_k: choose(delivered, PASS_K) / choose(runs, PASS_K),
        trend: trend(&counted),
        last_failure: counted.iter().rev().find_map(|r| r.failure.clone()),
        last_run_at: newest.started_at,
    })
}

/// What the history made of each ended run file, by directory and run: an ended run's
/// file only ever grows by late traffic that changes nothing counted, so a run is read
/// once per process, and asking while a task is typed reads only the runs since.
type Read = std::collections::HashMap<(std::path::PathBuf, RunId), Option<Counted>>;

fn read_runs() -> &'static std::sync::Mutex<Read> {
    static READ: std::sync::OnceLock<std::sync::Mutex<Read>> = std::sync::OnceLock::new();
    READ.get_or_init(Default::default)
}

/// Every counted run among the newest [`SCANNED_RUNS`] of `dir`.
fn counted_runs(dir: &TaskLogDir) -> Result<Vec<Counted>, TaskLogError> {
    let ids = dir.run_ids()?;
    let mut out = Vec::new();
    for id in ids.into_iter().take(SCANNED_RUNS) {
        let key = (dir.path().to_path_buf(), id);
        if let Some(known) = crate::sync::lock(read_runs()).get(&key) {
            out.extend(known.clone());
            continue;
        }
        let (_, id) = &key;
        match dir.slim(id) {
            Ok(t) => {
                let counted = t.as_ref().and_then(Counted::of);
                // A run still open may yet end: read it again next time.
                if t.is_some_and(|t| t.status != RunStatus::Open) {
                    crate::sync::lock(read_runs()).insert(key.clone(), counted.clone());
                }
                out.extend(counted);
            }
            Err(err) => {
                tracing::warn!(run = %id, %err, "unreadable task log left out of the history");
            }
        }
    }
    Ok(out)
}

/// How tasks of the kind `request` asks for went, before it runs; `None` when this
/// machine has fewer than [`MIN_RUNS`] of them.
pub fn like(dir: &TaskLogDir, request: &str) -> Result<Option<KindHistory>, TaskLogError> {
    let kind = crate::tags::task_class(request);
    let runs = counted_runs(dir)?;
    Ok(history(runs.iter().filter(|r| r.kind == kind).collect()))
}

/// Every kind with enough history, the most recently run first.
pub fn by_kind(dir: &TaskLogDir) -> Result<Vec<KindHistory>, TaskLogError> {
    let runs = counted_runs(dir)?;
    let mut kinds: std::collections::BTreeMap<&str, Vec<&Counted>> = Default::default();
    for r in &runs {
        kinds.entry(r.kind.as_str()).or_default().push(r);
    }
    let mut out: Vec<KindHistory> = kinds.into_values().filter_map(history).collect();
    out.sort_by_key(|h| std::cmp::Reverse(h.last_run_at));
    Ok(out)
}

/// A duration as a person reads it: "40 s", "3 min" (`40 秒`, `3 分钟`).
pub fn duration_words(ms: u64, lang: Lang) -> String {
    let s = ms.div_ceil(1000);
    let (n, minutes) = if s < 90 {
        (s, false)
    } else {
        ((s + 30) / 60, true)
    };
    match (lang, minutes) {
        (Lang::En, false) => format!("{n} s"),
        (Lang::En, true) => format!("{n} min"),
        (Lang::ZhCn, false) => format!("{n} 秒"),
        (Lang::ZhCn, true) => format!("{n} 分钟"),
    }
}

impl KindHistory {
    /// The one line shown before a task of this kind runs.
    pub fn line(&self, lang: Lang) -> String {
        let time = duration_words(self.typical_ms, lang);
        match lang {
            Lang::En => {
                let mut line = format!(
                    "Tasks like this here: {} of {} delivered an answer, usually in about {time} \
                     and {} model calls",
                    self.delivered, self.runs, self.typical_model_calls
                );
                if let Some(why) = &self.last_failure {
                    line.push_str(&format!("; the last failure: {why}"));
                }
                line
            }
            Lang::ZhCn => {
                let mut line = format!(
                    "本机同类任务：{} 次中 {} 次给出了答案，通常约 {time}、{} 次模型调用",
                    self.runs, self.delivered, self.typical_model_calls
                );
                if let Some(why) = &self.last_failure {
                    line.push_str(&format!("；上次失败：{why}"));
                }
                line
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: &str, day: i64, delivered: bool, ms: u64, calls: u32) -> Counted {
        Counted {
            kind: kind.into(),
            words: format!("{kind} on day {day}"),
            started_at: DateTime::<Utc>::from_timestamp(1_700_000_000 + day * 86_400, 0)
                .expect("a time"),
            delivered,
            ms,
            model_calls: calls,
            failure: (!delivered).then(|| format!("failed on day {day}")),
        }
    }

    #[test]
    fn fewer_than_three_runs_say_nothing() {
        let a = run("find", 1, true, 1000, 5);
        let b = run("find", 2, true, 1000, 5);
        assert_eq!(history(vec![&a, &b]), None);
    }

    #[test]
    fn the_figures_come_from_the_runs_alone() {
        let runs = [
            run("count_pdf", 1, true, 40_000, 6),
            run("count_pdf", 3, false, 200_000, 14),
            run("count_pdf", 2, true, 60_000, 8),
            run("count_pdf", 4, true, 50_000, 7),
        ];
        let h = history(runs.iter().collect()).expect("four runs");
        assert_eq!((h.runs, h.delivered), (4, 3));
        // Medians: the lower middle of 40, 50, 60, 200 s and of 6, 7, 8, 14 calls.
        assert_eq!((h.typical_ms, h.typical_model_calls), (50_000, 7));
        // C(3,3) / C(4,3) = 1/4: three in a row, drawn from three of four.
        assert!((h.pass_k - 0.25).abs() < 1e-9, "{}", h.pass_k);
        assert_eq!(h.last_failure.as_deref(), Some("failed on day 3"));
        assert_eq!(h.example, "count_pdf on day 4");
        assert_eq!(h.trend, None, "four runs are too few for a trend");
        assert_eq!(
            h.line(Lang::En),
            "Tasks like this here: 3 of 4 delivered an answer, usually in about 50 s and 7 \
             model calls; the last failure: failed on day 3"
        );
        assert!(
            h.line(Lang::ZhCn)
                .starts_with("本机同类任务：4 次中 3 次给出了答案")
        );
    }

    #[test]
    fn the_trend_compares_the_newer_half_with_the_older() {
        let outcomes = |pattern: &[bool]| -> Vec<Counted> {
            pattern
                .iter()
                .enumerate()
                .map(|(i, ok)| run("k", i as i64, *ok, 1000, 1))
                .collect()
        };
        let of = |runs: &[Counted]| history(runs.iter().collect()).and_then(|h| h.trend);
        assert_eq!(
            of(&outcomes(&[false, false, true, true, true, true])),
            Some(DeliveryTrend::Better)
        );
        assert_eq!(
            of(&outcomes(&[true, true, true, false, false, true])),
            Some(DeliveryTrend::Worse)
        );
        assert_eq!(
            of(&outcomes(&[true, false, true, true, false, true])),
            Some(DeliveryTrend::Steady)
        );
        // Every run delivered: pass^3 is 1, and no failure is named.
        let all = outcomes(&[true; 5]);
        let h = history(all.iter().collect()).expect("five runs");
        assert!((h.pass_k - 1.0).abs() < 1e-9);
        assert_eq!(h.last_failure, None);
        // None delivered: pass^3 is 0.
        let none = outcomes(&[false; 3]);
        assert_eq!(history(none.iter().collect()).map(|h| h.pass_k), Some(0.0));
    }

    #[test]
    fn durations_read_as_seconds_then_minutes() {
        assert_eq!(duration_words(40_000, Lang::En), "40 s");
        assert_eq!(duration_words(89_000, Lang::En), "89 s");
        assert_eq!(duration_words(150_000, Lang::En), "3 min");
        assert_eq!(duration_words(150_000, Lang::ZhCn), "3 分钟");
    }
}
