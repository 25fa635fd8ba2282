//! The opening every role's system prompt shares (what artoo is, the Four Laws in brief,
//! the executor's tools and the rules of using them well), and the machine's facts (home, workspace,
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

/// How tools are used well, for the planner, the executor and the validators. These are
/// rules of method that hold for any request — look before computing, let code compute,
/// keep the user's paths, never retry a failure unchanged — not a command per kind of
/// request: a recipe per kind makes a small model copy
/// the recipe where it does not fit (the wrong column, the wrong file type).
const WORKING_RULES: &str = "How the tools are used well:
- Look before computing: when the structure of the data is not known yet (a file's \
columns or keys, what a folder holds), the first call shows it (read_table with op \
\"schema\", list_files), and the next call, in the same sub-task, uses the names it \
showed.
- Values come from a tool that computes them (list_files sorts, counts and groups files; \
read_table counts, sums, averages and finds rows by column name; read_lines counts and \
picks a text's lines by what they contain and where they are; a command), never from \
reading a listing or a text by eye.
- A path the user wrote is used exactly as written, spaces and accents included; quote \
it in a shell command.
- A call that failed is never repeated unchanged: read its error, then change the call \
to fit what is really there.
Write commands without backslashes where you can: a backslash must be written \\\\ in JSON.";

/// The shared opening of every role's system prompt that deals with tools (planner,
/// executor, validators): the machine and the laws, then the executor's tools and the
/// working rules. The longer the shared part, the more of every later role's prompt
/// the model server already holds.
pub fn preamble_with_tools(tools: &str) -> String {
    format!(
        "{}Tools of the executor (prefer the first that fits):\n{}{WORKING_RULES}\n",
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
