//! `artoo schedule`: scheduled tasks. `add` keeps one ("every weekday at 9, summarize
//! ~/Downloads", or `--when "every weekday at 9"` and the task; `--window 2h` for how
//! long a run's question waits for the user), `list` shows them with their next run,
//! `rm ID` removes one. A task typed at the REPL or given to `artoo run`
//! that says when it should run is kept the same way ([`made_from`]). The desktop app
//! runs them while it runs.
//!
//! **Invariant:** `list` only reads; `add` and `rm` change exactly the schedule named.

use std::path::Path;

use anyhow::{Context, bail};
use chrono::Local;
use clap::{Args, Subcommand};

use artoo::config::Config;
use artoo::schedule::{self, Rule, Schedule, ScheduleStore, ScheduleView};

#[derive(Args, Debug)]
pub struct ScheduleArgs {
    #[command(subcommand)]
    pub command: ScheduleCommand,
}

#[derive(Subcommand, Debug)]
pub enum ScheduleCommand {
    /// Keep a task to run on a schedule: "every weekday at 9, summarize ~/Downloads".
    Add {
        /// When it runs ("every weekday at 9", "every 2 hours", "每天 9 点"); without
        /// it, the task's own words say when.
        #[arg(long)]
        when: Option<String>,
        /// How long a run's question (an action needing your approval) waits for your
        /// answer: "90" minutes, "2h", "1 day" (default 1 h; no answer is a no).
        #[arg(long)]
        window: Option<String>,
        /// The task (several words are joined with spaces).
        #[arg(required = true, value_name = "TEXT")]
        text: Vec<String>,
    },
    /// The schedules, with when each runs next.
    List,
    /// Set how long a schedule's question waits for your answer: `window sch_1a2b3c 2h`.
    Window {
        /// The schedule's id, as `artoo schedule list` shows it.
        id: String,
        /// "90" (minutes), "2h", "1 day" (a minute at least).
        window: String,
    },
    /// Remove a schedule by its id (or the start of it).
    Rm {
        /// The schedule's id, as `artoo schedule list` shows it.
        id: String,
    },
}

/// When `text` says when it should run, keeps it as a schedule: the message to show, or
/// why it could not be kept. `None` for a task to run now.
pub fn made_from(data_dir: &Path, text: &str) -> Option<anyhow::Result<String>> {
    let store = ScheduleStore::in_dir(data_dir);
    let now = Local::now();
    let made = schedule::add_from_request(&store, text, &now)?;
    Some(
        made.map(|view| cli_message(&view, &now))
            .context("keeping the schedule"),
    )
}

/// [`schedule::made_message`] with how to list and remove it from here.
fn cli_message(view: &ScheduleView, now: &chrono::DateTime<Local>) -> String {
    format!(
        "{} `artoo schedule list` shows your schedules; `artoo schedule rm {}` removes this one.",
        schedule::made_message(view, now),
        view.schedule.id
    )
}

/// The list's lines.
fn table(views: &[ScheduleView]) -> Vec<String> {
    if views.is_empty() {
        return vec![
            "No schedules. Start a task with when it should run — \"every weekday at 9, summarize ~/Downloads\" — to keep one.".to_string(),
        ];
    }
    let mut lines = Vec::new();
    for v in views {
        let next = v.next_run.with_timezone(&Local).format("%a %-d %b %H:%M");
        let runs = match v.schedule.runs {
            0 => "not run yet".to_string(),
            1 => "ran once".to_string(),
            n => format!("ran {n} times"),
        };
        lines.push(format!(
            "{}  {} — {}  (next: {next}; {runs}; {})",
            v.schedule.id, v.when, v.schedule.task, v.window
        ));
    }
    lines.push("Scheduled tasks run while the artoo app is running.".to_string());
    lines
}

/// An answer window as the user wrote it, or why it is not one.
fn read_window(text: &str) -> anyhow::Result<std::time::Duration> {
    match schedule::parse_window(text) {
        Some(window) => Ok(window),
        None => bail!(
            "\"{text}\" is not a window artoo reads: say it like \"90\" (minutes), \"2h\" or \"1 day\""
        ),
    }
}

pub fn run(config: &Config, args: ScheduleArgs) -> anyhow::Result<()> {
    let store = ScheduleStore::in_dir(&config.data_dir);
    let now = Local::now();
    match args.command {
        ScheduleCommand::List => {
            let views: Vec<ScheduleView> = store
                .list()?
                .into_iter()
                .map(|s| ScheduleView::of(s, &now))
                .collect();
            for line in table(&views) {
                println!("{line}");
            }
        }
        ScheduleCommand::Add { when, window, text } => {
            let text = text.join(" ");
            let window = window.as_deref().map(read_window).transpose()?;
            let (rule, task) = match when {
                Some(when) => {
                    let Some(rule) = Rule::parse(&when) else {
                        bail!(
                            "\"{when}\" is not a schedule artoo reads: say it like \"every weekday at 9\", \"every monday and thursday at 8pm\", \"every 2 hours\" or \"每天 9 点\""
                        );
                    };
                    (rule, text)
                }
                None => match schedule::parse_request(&text) {
                    Some(made) => made,
                    None => bail!(
                        "the task does not say when it should run: start it with, say, \"every weekday at 9,\" or give --when"
                    ),
                },
            };
            let mut made = Schedule::new(&task, rule, now.to_utc());
            if let Some(window) = window {
                made = made.with_answer_window(window);
            }
            let view = ScheduleView::of(store.add(made)?, &now);
            println!("{}", cli_message(&view, &now));
        }
        ScheduleCommand::Window { id, window } => {
            let kept = store.set_answer_window(&id, read_window(&window)?)?;
            let view = ScheduleView::of(kept, &now);
            println!(
                "{} ({} — {}): {}.",
                view.schedule.id, view.when, view.schedule.task, view.window
            );
        }
        ScheduleCommand::Rm { id } => {
            let gone = store.remove(&id)?;
            println!("Removed {}: {} — {}", gone.id, gone.rule.words(), gone.task);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_list_and_remove_a_schedule() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::with_dirs(dir.path().join("data"), dir.path());
        let store = ScheduleStore::in_dir(&config.data_dir);
        run(
            &config,
            ScheduleArgs {
                command: ScheduleCommand::Add {
                    when: Some("every weekday at 9".into()),
                    window: Some("2h".into()),
                    text: vec!["summarize".into(), "~/Downloads".into()],
                },
            },
        )
        .unwrap();
        let kept = store.list().unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].task, "summarize ~/Downloads");
        assert_eq!(kept[0].answer_window_secs, 2 * 3600);
        let unread = run(
            &config,
            ScheduleArgs {
                command: ScheduleCommand::Add {
                    when: Some("every day at 8".into()),
                    window: Some("a while".into()),
                    text: vec!["x".into()],
                },
            },
        );
        assert!(
            unread
                .unwrap_err()
                .to_string()
                .contains("not a window artoo reads")
        );
        assert_eq!(
            store.list().unwrap().len(),
            1,
            "nothing kept with a bad window"
        );
        let bad = run(
            &config,
            ScheduleArgs {
                command: ScheduleCommand::Add {
                    when: Some("sometimes".into()),
                    window: None,
                    text: vec!["x".into()],
                },
            },
        );
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("not a schedule artoo reads")
        );
        let made = made_from(&config.data_dir, "every 2 hours, check ~/inbox")
            .unwrap()
            .unwrap();
        assert!(
            made.starts_with("Scheduled every 2 hours: check ~/inbox. Next run: "),
            "{made}"
        );
        assert!(made.ends_with(" removes this one."), "{made}");
        assert!(made_from(&config.data_dir, "check ~/inbox").is_none());
        let views: Vec<ScheduleView> = store
            .list()
            .unwrap()
            .into_iter()
            .map(|s| ScheduleView::of(s, &Local::now()))
            .collect();
        let lines = table(&views);
        assert!(
            lines[0].contains("every weekday at 09:00 — summarize ~/Downloads  (next: "),
            "{lines:?}"
        );
        assert!(
            lines[0].ends_with("not run yet; a question waits up to 2 h for your answer)"),
            "{lines:?}"
        );
        run(
            &config,
            ScheduleArgs {
                command: ScheduleCommand::Rm {
                    id: kept[0].id.clone(),
                },
            },
        )
        .unwrap();
        assert_eq!(store.list().unwrap().len(), 1);
        assert!(table(&[])[0].starts_with("No schedules."));
    }
}
