//! The model's measured speed, and the time a task and a call may take derived from it.
//!
//! A fixed wall-clock budget is tuned to one machine: the same small model reads and
//! writes 2–3× slower on another machine of the same kind, and there every task would
//! run out of time. So budgets are stated in *model work* (tokens read and written) and
//! turned into time with the speed measured on this machine:
//!
//! - every call that reports its own timings (llama-server's `timings`: tokens evaluated
//!   and generated, and the milliseconds each took) updates the endpoint's prompt and
//!   generation speed; a call without them (hosted APIs) updates the generation speed
//!   with its reply tokens over its wall time, which folds the reading into the writing
//!   and so errs on the slow side;
//! - the built-in model's preparation (its roles' instructions evaluated once) measures
//!   both before the first task;
//! - the speeds are kept per model in the data dir, so a new process starts from what
//!   the last one measured, and a moving average follows a machine that changes.
//!
//! From them: a task's expected time (a typical task's work split between the two tiers)
//! and its budget (three times that, so a longer task or a replan fits, within a floor
//! and a ceiling), and a
//! call's timeout (its own prompt and reply cap at the measured speed, with room).
//! `budgets.time_budget_ms` and `llm.call_timeout_secs` in the settings override them.
//!
//! **Invariant:** the derived budget and timeout are monotone in the measured speed — a
//! machine k× slower gets k× the time, clamped only by the floor and the ceiling — and a
//! speed that was never measured gives the generous fallbacks, never a short limit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::status::Lang;

/// What a typical task asks of the model on each tier: R1 and R2 (and R4b) on the brain,
/// a few executor turns and a verdict on the tool tier. Tokens *evaluated* — a role's
/// instructions come from their snapshot and are not read again — and tokens generated.
/// Measured on the real-model suites (docs/real-model.md): a file task of 5 to 8 model
/// calls evaluates 1,500 to 3,800 prompt tokens and writes 600 to 1,000 (the checks
/// added since the first measurement — a finish sent back, a verdict with evidence —
/// made tasks longer than the 760 evaluated tokens once measured); these are a typical
/// task's.
pub const TYPICAL_TASK_BRAIN: Work = Work {
    prompt_tokens: 600.0,
    gen_tokens: 200.0,
};
/// See [`TYPICAL_TASK_BRAIN`].
pub const TYPICAL_TASK_TOOL: Work = Work {
    prompt_tokens: 1400.0,
    gen_tokens: 400.0,
};
/// A task's budget is this many typical tasks: a task that needs more turns than the
/// typical one, or a replan, still fits.
pub const BUDGET_TASKS: f64 = 3.0;
/// No derived budget is shorter: a fast endpoint still gets the time a person expects
/// to wait for a short task.
pub const BUDGET_FLOOR: Duration = Duration::from_secs(120);
/// No derived budget is longer: past this a task is looping, whatever the machine.
pub const BUDGET_CEILING: Duration = Duration::from_secs(30 * 60);
/// The budget while no speed was ever measured for the endpoints (a configured
/// endpoint's first task; the built-in model is measured while it is prepared).
pub const BUDGET_UNMEASURED: Duration = Duration::from_secs(300);
/// A call may take this many times its expected time…
const CALL_ROOM: f64 = 2.0;
/// …plus this, for connection and queueing.
const CALL_SLACK: Duration = Duration::from_secs(15);
/// No derived call timeout is shorter.
pub const CALL_FLOOR: Duration = Duration::from_secs(30);
/// No derived call timeout is longer.
pub const CALL_CEILING: Duration = Duration::from_secs(15 * 60);
/// The timeout of a call to an endpoint whose speed was never measured.
pub const CALL_UNMEASURED: Duration = Duration::from_secs(300);
/// A prompt is counted as one token per this many characters: fewer than most text has
/// per token, so the estimate errs long.
const CHARS_PER_TOKEN: usize = 3;
/// Fewer tokens than this say more about a call's overhead than about the speed.
const MIN_PROMPT_SAMPLE: u64 = 64;
/// See [`MIN_PROMPT_SAMPLE`].
const MIN_GEN_SAMPLE: u64 = 16;
/// The moving average gives a new sample at least this weight.
const NEWEST_WEIGHT: f64 = 0.2;

/// Model work: tokens read (evaluated) and written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    /// Prompt tokens evaluated.
    pub prompt_tokens: f64,
    /// Tokens generated.
    pub gen_tokens: f64,
}

/// One call's measured work and time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Prompt tokens evaluated and the milliseconds that took; `None` when the endpoint
    /// does not say (the reading is then folded into `output`).
    pub prompt: Option<(u64, f64)>,
    /// Tokens generated and the milliseconds that took.
    pub output: (u64, f64),
}

/// A speed in tokens per second, averaged over the samples that measured it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Tokens per second.
    pub per_sec: f64,
    /// Samples averaged in.
    pub samples: u32,
}

impl Rate {
    fn add(&mut self, tokens: u64, ms: f64, min_tokens: u64) {
        if tokens < min_tokens || !(ms.is_finite() && ms > 0.0) {
            return;
        }
        let observed = tokens as f64 / (ms / 1000.0);
        self.samples = self.samples.saturating_add(1);
        let weight = (1.0 / f64::from(self.samples)).max(NEWEST_WEIGHT);
        self.per_sec += weight * (observed - self.per_sec);
    }

    fn known(&self) -> Option<f64> {
        (self.samples > 0 && self.per_sec > 0.0).then_some(self.per_sec)
    }
}

/// An endpoint's measured speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// Prompt tokens evaluated per second (unknown on endpoints that do not report it).
    pub prompt: Rate,
    /// Tokens generated per second.
    pub output: Rate,
}

impl Speed {
    /// Whether generation was measured at all (the prompt speed is optional).
    pub fn is_measured(&self) -> bool {
        self.output.known().is_some()
    }

    /// How long `work` takes at this speed; `None` while generation was never measured.
    pub fn time_for(&self, work: Work) -> Option<Duration> {
        let write = self.output.known()?;
        // An endpoint that does not report prompt speed folded reading into writing.
        let read = self.prompt.known().map_or(0.0, |p| work.prompt_tokens / p);
        Some(Duration::from_secs_f64(read + work.gen_tokens / write))
    }

    fn add(&mut self, sample: &Sample) {
        if let Some((tokens, ms)) = sample.prompt {
            self.prompt.add(tokens, ms, MIN_PROMPT_SAMPLE);
        }
        self.output
            .add(sample.output.0, sample.output.1, MIN_GEN_SAMPLE);
    }

    /// "≈10 tokens/s written, ≈50 read" for a person.
    pub fn describe(&self, lang: Lang) -> String {
        match (lang, self.output.known(), self.prompt.known()) {
            (Lang::En, Some(w), Some(r)) => {
                format!("≈{} tokens/s written, ≈{} read", round(w), round(r))
            }
            (Lang::En, Some(w), None) => format!("≈{} tokens/s", round(w)),
            (Lang::En, None, _) => "speed not measured yet".to_string(),
            (Lang::ZhCn, Some(w), Some(r)) => {
                format!("每秒约生成 {} 个词元、读取 {} 个", round(w), round(r))
            }
            (Lang::ZhCn, Some(w), None) => format!("每秒约 {} 个词元", round(w)),
            (Lang::ZhCn, None, _) => "速度尚未测量".to_string(),
        }
    }
}

/// The model's speed here and what it means for a task, in one line for a person:
/// "≈10 tokens/s written, ≈50 read here; a typical task takes about 2 min (time budget
/// 5 min)".
pub fn summary(speed: &Speed, estimate: Option<Duration>, budget: Duration, lang: Lang) -> String {
    let minutes = |d: Duration| {
        let m = d.as_secs_f64() / 60.0;
        if m < 1.0 {
            "<1".to_string()
        } else {
            format!("{}", m.round())
        }
    };
    let speed_words = speed.describe(lang);
    match (lang, estimate) {
        (Lang::En, Some(t)) => format!(
            "{speed_words} here; a typical task takes about {} min (time budget {} min)",
            minutes(t),
            minutes(budget)
        ),
        (Lang::En, None) => format!("{speed_words}; time budget {} min", minutes(budget)),
        (Lang::ZhCn, Some(t)) => format!(
            "本机{speed_words}；一般任务约需 {} 分钟（时间预算 {} 分钟）",
            minutes(t),
            minutes(budget)
        ),
        (Lang::ZhCn, None) => format!("{speed_words}；时间预算 {} 分钟", minutes(budget)),
    }
}

fn round(x: f64) -> String {
    if x < 10.0 {
        format!("{x:.1}")
    } else {
        format!("{}", x.round())
    }
}

/// The expected time of a typical task with these tier speeds; `None` until both tiers
/// were measured.
pub fn task_estimate(brain: &Speed, tool: &Speed) -> Option<Duration> {
    Some(brain.time_for(TYPICAL_TASK_BRAIN)? + tool.time_for(TYPICAL_TASK_TOOL)?)
}

/// A task's time budget for this expected time (see the module doc).
pub fn task_budget(estimate: Option<Duration>) -> Duration {
    match estimate {
        Some(t) => t.mul_f64(BUDGET_TASKS).clamp(BUDGET_FLOOR, BUDGET_CEILING),
        None => BUDGET_UNMEASURED,
    }
}

/// A call's timeout: its prompt (counted generously, as if nothing were cached) and its
/// reply cap at this speed, with room.
pub fn call_timeout(speed: &Speed, prompt_chars: usize, max_tokens: u32) -> Duration {
    let work = Work {
        prompt_tokens: prompt_chars.div_ceil(CHARS_PER_TOKEN) as f64,
        gen_tokens: f64::from(max_tokens),
    };
    match speed.time_for(work) {
        Some(t) => (t.mul_f64(CALL_ROOM) + CALL_SLACK).clamp(CALL_FLOOR, CALL_CEILING),
        None => CALL_UNMEASURED,
    }
}

/// [`summary`] for the models `config` names (the built-in one when it names none),
/// from the speeds kept in its data dir: what `artoo config` shows.
pub fn summary_of(config: &crate::config::Config, lang: Lang) -> String {
    let pace = Pace::load(&config.model_speed_file());
    let speed = |tier: &crate::config::TierConfig| match (&tier.model, &tier.base_url) {
        (Some(model), Some(url)) => pace.speed(&key(model, url)),
        _ => pace.speed(&key(&config.llm.local.model, "http://127.0.0.1/v1")),
    };
    let (brain, tool) = (speed(&config.llm.brain), speed(&config.llm.tool));
    let estimate = task_estimate(&brain, &tool);
    let budget = config
        .fixed_task_budget()
        .unwrap_or_else(|| task_budget(estimate));
    summary(&tool, estimate, budget, lang)
}

/// The name a model's speed is kept under: the model, and where it runs (any loopback
/// port is one place: the built-in server gets a new port at every start).
pub fn key(model: &str, base_url: &str) -> String {
    let rest = base_url.split_once("://").map_or(base_url, |(_, r)| r);
    let host_port = rest.split('/').next().unwrap_or(rest);
    let host = host_port
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(host_port, |(h, _)| h);
    let place = match host {
        "127.0.0.1" | "localhost" | "[::1]" | "::1" => "this computer",
        _ => host_port,
    };
    format!("{model} @ {place}")
}

/// The measured speeds of every model this data dir has used, shared by the client's
/// tiers. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Pace {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Where the speeds are kept; `None` keeps them in memory only.
    path: Option<PathBuf>,
    speeds: Mutex<BTreeMap<String, Speed>>,
}

impl Pace {
    /// Speeds kept in memory only (tests, tools that must not write).
    pub fn in_memory() -> Pace {
        Pace::default()
    }

    /// The speeds kept in `path` (JSON), written back after each measurement. A missing
    /// or unreadable file starts empty: the speeds are measured again.
    pub fn load(path: &Path) -> Pace {
        let speeds = match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(path = %path.display(), error = %e,
                    "the kept model speeds cannot be read; measuring them again");
                BTreeMap::new()
            }),
            Err(_) => BTreeMap::new(),
        };
        Pace {
            inner: Arc::new(Inner {
                path: Some(path.to_path_buf()),
                speeds: Mutex::new(speeds),
            }),
        }
    }

    /// The speed measured for `key` (see [`key`]); the default (unmeasured) when none.
    pub fn speed(&self, key: &str) -> Speed {
        crate::sync::lock(&self.inner.speeds)
            .get(key)
            .copied()
            .unwrap_or_default()
    }

    /// Adds one call's measurement to `key`'s speed and keeps the result.
    pub fn record(&self, key: &str, sample: &Sample) {
        let snapshot = {
            let mut speeds = crate::sync::lock(&self.inner.speeds);
            let speed = speeds.entry(key.to_string()).or_default();
            let before = *speed;
            speed.add(sample);
            if *speed == before {
                return;
            }
            speeds.clone()
        };
        if let Some(path) = &self.inner.path
            && let Err(e) = save(path, &snapshot)
        {
            tracing::warn!(path = %path.display(), error = %e, "cannot keep the model speeds");
        }
    }
}

fn save(path: &Path, speeds: &BTreeMap<String, Speed>) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(speeds)?)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speed(prompt_tps: f64, gen_tps: f64) -> Speed {
        let mut s = Speed::default();
        s.add(&Sample {
            prompt: Some((1000, 1000.0 * 1000.0 / prompt_tps)),
            output: (100, 100.0 * 1000.0 / gen_tps),
        });
        s
    }

    #[test]
    fn a_machine_three_times_slower_gets_three_times_the_budget() {
        let here = speed(50.0, 10.0);
        let slow = speed(50.0 / 3.0, 10.0 / 3.0);
        let fast_budget = task_budget(task_estimate(&here, &here));
        let slow_budget = task_budget(task_estimate(&slow, &slow));
        let ratio = slow_budget.as_secs_f64() / fast_budget.as_secs_f64();
        assert!(
            (ratio - 3.0).abs() < 0.01,
            "{fast_budget:?} vs {slow_budget:?}"
        );
        // 2000 read at 50/s + 600 written at 10/s = 100 s, three times over.
        assert_eq!(fast_budget.as_secs(), 300);
    }

    #[test]
    fn budgets_stay_within_the_floor_and_the_ceiling() {
        let hosted = speed(5000.0, 200.0);
        assert_eq!(task_budget(task_estimate(&hosted, &hosted)), BUDGET_FLOOR);
        let crawling = speed(1.0, 0.1);
        assert_eq!(
            task_budget(task_estimate(&crawling, &crawling)),
            BUDGET_CEILING
        );
        assert_eq!(task_budget(None), BUDGET_UNMEASURED);
        assert_eq!(
            task_estimate(&Speed::default(), &speed(50.0, 10.0)),
            None,
            "both tiers must be measured"
        );
    }

    #[test]
    fn a_call_gets_its_own_work_at_the_measured_speed_with_room() {
        let here = speed(50.0, 10.0);
        // 3000 chars ≈ 1000 tokens → 20 s; 200 tokens → 20 s; ×2 + 15 s.
        assert_eq!(call_timeout(&here, 3000, 200), Duration::from_secs(95));
        let slow = speed(50.0 / 3.0, 10.0 / 3.0);
        assert_eq!(call_timeout(&slow, 3000, 200), Duration::from_secs(255));
        assert_eq!(call_timeout(&Speed::default(), 3000, 200), CALL_UNMEASURED);
        assert_eq!(call_timeout(&speed(1e6, 1e6), 10, 1), CALL_FLOOR);
    }

    #[test]
    fn without_prompt_timings_the_reading_is_folded_into_the_writing() {
        let mut s = Speed::default();
        s.add(&Sample {
            prompt: None,
            output: (100, 4000.0),
        });
        assert_eq!(s.prompt.known(), None);
        assert_eq!(
            s.time_for(Work {
                prompt_tokens: 5000.0,
                gen_tokens: 100.0
            }),
            Some(Duration::from_secs(4))
        );
        assert_eq!(s.describe(Lang::En), "≈25 tokens/s");
    }

    #[test]
    fn tiny_samples_say_nothing_and_the_average_follows_a_change() {
        let mut s = Speed::default();
        s.add(&Sample {
            prompt: Some((10, 1.0)),
            output: (3, 1.0),
        });
        assert!(!s.is_measured(), "overhead, not speed");
        for _ in 0..5 {
            s.add(&Sample {
                prompt: Some((500, 10_000.0)),
                output: (100, 10_000.0),
            });
        }
        assert!((s.output.per_sec - 10.0).abs() < 1e-9);
        assert!((s.prompt.per_sec - 50.0).abs() < 1e-9);
        // The machine becomes three times slower: the average moves most of the way
        // within ten calls.
        for _ in 0..10 {
            s.add(&Sample {
                prompt: Some((500, 30_000.0)),
                output: (100, 30_000.0),
            });
        }
        assert!(s.output.per_sec < 4.5, "{}", s.output.per_sec);
    }

    #[test]
    fn the_summary_says_the_speed_and_the_time_a_task_takes_in_both_languages() {
        let here = speed(50.0, 9.6);
        let estimate = task_estimate(&here, &here);
        let budget = task_budget(estimate);
        assert_eq!(
            summary(&here, estimate, budget, Lang::En),
            "≈9.6 tokens/s written, ≈50 read here; a typical task takes about 2 min \
             (time budget 5 min)"
        );
        assert_eq!(
            summary(&here, estimate, budget, Lang::ZhCn),
            "本机每秒约生成 9.6 个词元、读取 50 个；一般任务约需 2 分钟（时间预算 5 分钟）"
        );
        assert_eq!(
            summary(&Speed::default(), None, BUDGET_UNMEASURED, Lang::En),
            "speed not measured yet; time budget 5 min"
        );
    }

    #[test]
    fn the_built_in_server_is_one_place_whatever_its_port() {
        assert_eq!(
            key("qwen", "http://127.0.0.1:41234/v1"),
            key("qwen", "http://127.0.0.1:5555/v1")
        );
        assert_eq!(
            key("qwen", "http://localhost:80/v1"),
            "qwen @ this computer"
        );
        assert_eq!(
            key("gpt", "https://api.example.com/v1"),
            "gpt @ api.example.com"
        );
        assert_ne!(
            key("gpt", "https://a.example.com/v1"),
            key("gpt", "https://b.example.com/v1")
        );
    }

    #[test]
    fn speeds_are_kept_in_the_data_dir_for_the_next_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model-speed.json");
        let pace = Pace::load(&path);
        assert!(!pace.speed("m @ here").is_measured());
        pace.record(
            "m @ here",
            &Sample {
                prompt: Some((1000, 20_000.0)),
                output: (100, 10_000.0),
            },
        );
        let again = Pace::load(&path);
        assert_eq!(again.speed("m @ here"), pace.speed("m @ here"));
        assert!((again.speed("m @ here").output.per_sec - 10.0).abs() < 1e-9);
        // A damaged file starts over instead of failing.
        std::fs::write(&path, b"{not json").unwrap();
        assert!(!Pace::load(&path).speed("m @ here").is_measured());
    }
}
