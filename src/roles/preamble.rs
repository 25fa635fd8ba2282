//! The opening every role's system prompt shares: what artoo is, the machine it works on
//! (home, workspace, today's date) and the Four Laws in brief.
//!
//! Why one text for all roles: a local model server keeps the prompts it evaluated, and a
//! new prompt that starts with the same tokens reuses them. With every role's system
//! prompt starting with these lines, the machine facts and the laws are evaluated once
//! per task instead of once per role, and each role's own instructions follow as a
//! stable block (nothing in a system prompt changes within a day; what changes per call
//! goes in the user turn).
//!
//! **Invariant:** the preamble depends only on the home, the workspace and the local
//! date — never on the task, the role or the time of day.

use std::path::Path;

use chrono::{DateTime, Utc};

/// Commands that answer the requests people make most, for the planner and the
/// executor: a small model picks a wrong pipeline for "largest" or "sum a column" more
/// often than not, and these are standard on every system.
const COMMON_COMMANDS: &str = "Commands for common requests (standard on every system; \
quote paths):
- count files of a type: ls -1 DIR/*.txt | wc -l (recursive: find DIR -name '*.txt' | wc -l)
- largest / newest file: ls -S DIR | head -1 / ls -t DIR | head -1 (sizes: ls -lS DIR)
- lines of a file: wc -l < FILE
- files mentioning a text: grep -ril 'text' DIR
- sum a CSV column: awk -F, 'NR>1 {s+=$2} END {print s}' FILE
- folders only: ls -d DIR/*/
- copy into a new folder: mkdir -p NEW && cp DIR/*.md NEW/
Write commands without backslashes where you can: a backslash must be written \\\\ in JSON.";

/// The shared opening of every role's system prompt that deals with tools (planner,
/// executor, validators): the machine and the laws, then the executor's tools and the
/// common commands. The longer the shared part, the more of every later role's prompt
/// the model server already holds.
pub fn preamble_with_tools(
    home: &Path,
    workspace: &Path,
    now: DateTime<Utc>,
    tools: &str,
) -> String {
    format!(
        "{}Tools of the executor (prefer the first that fits):\n{}{COMMON_COMMANDS}\n",
        preamble(home, workspace, now),
        tools
    )
}

/// The standard toolbox's tool list as prompt text, built once.
pub fn standard_tools() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let specs = crate::roles::executor::step::offered_specs(&crate::tools::Toolbox::standard());
        crate::roles::executor::prompt::tool_list(&specs)
    })
}

/// [`preamble_with_tools`] with the standard toolbox's tools.
pub fn tool_preamble(home: &Path, workspace: &Path, now: DateTime<Utc>) -> String {
    preamble_with_tools(home, workspace, now, standard_tools())
}

/// The shared opening of every role's system prompt.
pub fn preamble(home: &Path, workspace: &Path, now: DateTime<Utc>) -> String {
    let local = now.with_timezone(&chrono::Local);
    format!(
        "artoo is an assistant that works on the user's own computer ({os}) with tools, \
through roles that talk over a message bus.
Home folder (~): {home}
Workspace (new files go here unless the user names a place): {workspace}
Today: {date} ({weekday}), time zone UTC{tz}.
The Four Laws, highest first:
0. Never deceive: claim only what tool results show; say plainly what failed.
1. Nothing irreversible without the user's click: deleting, overwriting, moving or \
renaming, sending, changing settings. Reading and creating new files are free.
2. Pursue the user's goal as hard as the laws allow; stop when the gap keeps growing.
3. Keep within the time and token budgets.
",
        os = std::env::consts::OS,
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
    fn the_preamble_names_the_folders_the_date_and_every_law() {
        let now = FakeClock::at_epoch().now();
        let p = preamble(Path::new("/h/u"), Path::new("/h/u/ws"), now);
        assert!(p.contains("Home folder (~): /h/u\n"), "{p}");
        assert!(p.contains("Workspace (new files go here"), "{p}");
        assert!(p.contains("Today: "), "{p}");
        for n in ["0. Never deceive", "1. Nothing irreversible", "2. ", "3. "] {
            assert!(p.contains(n), "{n}: {p}");
        }
    }

    #[test]
    fn the_preamble_does_not_change_within_a_day() {
        let clock = FakeClock::at_epoch();
        let morning = clock.now() + chrono::Duration::hours(12);
        let later = morning + chrono::Duration::minutes(7);
        assert_eq!(
            preamble(Path::new("/h"), Path::new("/w"), morning),
            preamble(Path::new("/h"), Path::new("/w"), later)
        );
    }
}
