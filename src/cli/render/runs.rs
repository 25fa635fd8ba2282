//! `/replay` without a run: the newest runs, one numbered line each, for `/replay N`.
//!
//! **Invariant:** pure; one line per run, numbered from 1 in the order given, and a run
//! whose input was not logged still gets its line.

use super::text::plural;
use artoo::tasklog::RunSummary;
use artoo::text::one_line;

/// `/replay` without a run: the newest runs, numbered for `/replay N`.
pub fn run_list(runs: &[RunSummary]) -> Vec<String> {
    if runs.is_empty() {
        return vec!["No task logs yet.".into()];
    }
    runs.iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                "  {:>2}. {}  {:<10} {}  {}",
                i + 1,
                r.started_at.format("%Y-%m-%d %H:%M:%S"),
                r.status.as_str(),
                plural(r.rounds as usize, "round", "rounds"),
                one_line(
                    r.intent
                        .as_deref()
                        .or(r.raw_input.as_deref())
                        .unwrap_or("(input not logged)"),
                    70
                )
            )
        })
        .collect()
}
