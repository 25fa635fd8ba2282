//! `artoo history`: how each kind of task went on this machine — a table of the kinds
//! with enough recorded runs (three or more), newest first: runs, how many delivered an
//! answer, pass^3, the typical time and model calls, the trend and the last failure.
//! `--json` for scripts. Nothing is shown for a kind with fewer runs.

use clap::Args;

use artoo::config::Config;
use artoo::tasklog::TaskLogDir;
use artoo::tasklog::kinds::{self, DeliveryTrend, KindHistory};

#[derive(Args, Debug, Default)]
pub struct HistoryArgs {
    /// Print the kinds as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(config: &Config, args: HistoryArgs) -> anyhow::Result<()> {
    let history = kinds::by_kind(&TaskLogDir::new(&config.data_dir))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&history)?);
        return Ok(());
    }
    for line in table(&history) {
        println!("{line}");
    }
    Ok(())
}

/// A trend in words.
fn trend(t: Option<DeliveryTrend>) -> &'static str {
    match t {
        Some(DeliveryTrend::Better) => "better",
        Some(DeliveryTrend::Steady) => "steady",
        Some(DeliveryTrend::Worse) => "worse",
        None => "–",
    }
}

/// The table's lines: a header and one row per kind, or why there is none.
pub fn table(history: &[KindHistory]) -> Vec<String> {
    if history.is_empty() {
        return vec![format!(
            "No kind of task has run {} times here yet: nothing to show.",
            kinds::MIN_RUNS
        )];
    }
    let mut lines = vec![format!(
        "{:<28} {:>4} {:>9} {:>7} {:>8} {:>6} {:<7} last failure",
        "kind", "runs", "delivered", "pass^3", "time", "calls", "trend"
    )];
    for h in history {
        let time = kinds::duration_words(h.typical_ms, artoo::status::Lang::En);
        lines.push(format!(
            "{:<28} {:>4} {:>9} {:>6.0}% {:>8} {:>6} {:<7} {}",
            artoo::text::first_chars(&h.kind, 28),
            h.runs,
            h.delivered,
            h.pass_k * 100.0,
            time,
            h.typical_model_calls,
            trend(h.trend),
            h.last_failure.as_deref().unwrap_or("–")
        ));
    }
    lines
}
