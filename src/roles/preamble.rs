//! The opening every role's system prompt shares (what artoo is, the Four Laws in brief,
//! the executor's tools and common commands), and the machine's facts (home, workspace,
//! today's date) that open every request's user turn instead.
//!
//! Why: a local model server keeps the prompts it evaluated, and a new prompt that starts
//! with the same tokens reuses them. A system prompt made only of fixed text is the same
//! for a role on every call, every task and every day, so the server evaluates each
//! role's instructions once for as long as it runs; the few lines that depend on the
//! machine and the date cost a few dozen tokens per call in the user turn, where they
//! cannot invalidate anything behind them.
//!
//! **Invariant:** every system prompt text here is a constant of the build (it depends on
//! nothing of the machine, the task, the role or the time); [`machine_facts`] depends
//! only on the home, the workspace and the local date.

use std::path::Path;

use chrono::{DateTime, Utc};

/// Commands that answer the requests people make most, for the planner and the
/// executor: a small model picks a wrong pipeline for "largest" or "sum a column" more
/// often than not, and these are standard on every system.
const COMMON_COMMANDS: &str = "Commands for common requests (standard on every system; \
quote paths):
- count files of a type: ls -1 DIR/*.txt | wc -l (several types at once: ls -1 DIR/*.jpg DIR/*.png | wc -l; recursive: find DIR -name '*.txt' | wc -l)
- largest / newest file: ls -S DIR | head -1 / ls -t DIR | head -1 (sizes: ls -lS DIR)
- lines of a file: wc -l < FILE
- files mentioning a text: grep -ril 'text' DIR
- sum a CSV column: awk -F, 'NR>1 {s+=$2} END {print s}' FILE
- folders only: ls -d DIR/*/
- copy into a new folder: mkdir -p NEW && cp DIR/*.md NEW/
- move files of a type into a folder: mkdir -p DEST && mv DIR/*.log DEST/
Write commands without backslashes where you can: a backslash must be written \\\\ in JSON.";

/// The shared opening of every role's system prompt that deals with tools (planner,
/// executor, validators): the machine and the laws, then the executor's tools and the
/// common commands. The longer the shared part, the more of every later role's prompt
/// the model server already holds.
pub fn preamble_with_tools(tools: &str) -> String {
    format!(
        "{}Tools of the executor (prefer the first that fits):\n{}{COMMON_COMMANDS}\n",
        preamble(),
        tools
    )
}

/// The standard toolbox's tool list as prompt text, built once.
pub fn standard_tools() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| crate::tools::tool_list(&crate::tools::Toolbox::standard().offered_specs()))
}

/// [`preamble_with_tools`] with the standard toolbox's tools, built once.
pub fn tool_preamble() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| preamble_with_tools(standard_tools()))
}

/// The shared opening of every role's system prompt.
pub fn preamble() -> String {
    format!(
        "artoo is an assistant that works on the user's own computer ({os}) with tools, \
through roles that talk over a message bus. Each request opens with the machine's facts: \
the home folder (~), the workspace (where new files go unless the user names a place) and \
today's date.
The Four Laws, highest first:
0. Never deceive: claim only what tool results show; say plainly what failed.
1. Nothing irreversible without the user's click: deleting, overwriting, moving or \
renaming, sending, changing settings. Reading and creating new files are free.
2. Pursue the user's goal as hard as the laws allow; stop when the gap keeps growing.
3. Keep within the time and token budgets.
",
        os = std::env::consts::OS,
    )
}

/// The machine's facts that open a request's user turn: home, workspace and the local
/// date (never the time of day, so a role's requests within a day share this too).
pub fn machine_facts(home: &Path, workspace: &Path, now: DateTime<Utc>) -> String {
    let local = now.with_timezone(&chrono::Local);
    format!(
        "Home folder (~): {home}\nWorkspace: {workspace}\nToday: {date} ({weekday}), time zone UTC{tz}.\n\n",
        home = home.display(),
        workspace = workspace.display(),
        date = local.format("%Y-%m-%d"),
        weekday = local.format("%A"),
        tz = local.format("%:z"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock as _, FakeClock};

    #[test]
    fn the_preamble_names_every_law_and_no_machine_fact() {
        let p = preamble();
        for n in ["0. Never deceive", "1. Nothing irreversible", "2. ", "3. "] {
            assert!(p.contains(n), "{n}: {p}");
        }
        assert!(!p.contains("Home folder (~):"), "{p}");
        let t = tool_preamble();
        assert!(t.starts_with(&p), "{t}");
        assert!(t.contains("shell"), "{t}");
    }

    #[test]
    fn the_facts_name_the_folders_and_the_date_and_do_not_change_within_a_day() {
        let clock = FakeClock::at_epoch();
        let morning = clock.now() + chrono::Duration::hours(12);
        let later = morning + chrono::Duration::minutes(7);
        let facts = machine_facts(Path::new("/h/u"), Path::new("/h/u/ws"), morning);
        assert!(facts.contains("Home folder (~): /h/u\n"), "{facts}");
        assert!(facts.contains("Workspace: /h/u/ws\n"), "{facts}");
        assert!(facts.contains("Today: "), "{facts}");
        assert_eq!(
            facts,
            machine_facts(Path::new("/h/u"), Path::new("/h/u/ws"), later)
        );
        let tomorrow = morning + chrono::Duration::days(1);
        assert_ne!(
            facts,
            machine_facts(Path::new("/h/u"), Path::new("/h/u/ws"), tomorrow)
        );
    }
}
