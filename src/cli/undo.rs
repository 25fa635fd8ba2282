//! `artoo undo [TASK]` and the REPL's `/undo`: take back what a task did to your files.
//!
//! Without a task, the newest task whose changes stand is taken back. The plan is shown
//! first — each change it takes back, and what it cannot (MCP calls, commands run
//! outside the sandbox, files moved to the system Trash) — and nothing happens until
//! the user says yes (`--yes` says it up front). An undo is itself undoable: undo its
//! `undo-…` id to redo.
//!
//! **Invariant:** files change only after the user's yes, and only through
//! `journal::undo::apply`, which changes nothing unless every change checks.

use std::io::{BufRead, Write as _};

use anyhow::Context;
use clap::Args;

use artoo::config::Config;
use artoo::journal::Journal;
use artoo::journal::undo::{self, Refusal, TaskChanges};

/// Tasks `--list` shows.
const LISTED: usize = 20;

#[derive(Args, Debug, Default)]
pub struct UndoArgs {
    /// The task to take back (its id, as `--list` shows it); the newest task whose
    /// changes stand when left out. An `undo-…` id redoes what that undo took back.
    pub task: Option<String>,
    /// List the tasks that changed files, newest first, and whether each was undone.
    #[arg(long)]
    pub list: bool,
    /// Do not ask before undoing.
    #[arg(long, short)]
    pub yes: bool,
}

pub fn run(config: &Config, args: UndoArgs) -> anyhow::Result<bool> {
    let journal = Journal::in_data_dir(&config.data_dir);
    let mut say = |line: String| println!("{line}");
    if args.list {
        list(&journal, config, &mut say)?;
        return Ok(true);
    }
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut ask = || {
        print!("Undo these changes? [y/N] ");
        let _ = std::io::stdout().flush();
        lines.next().and_then(Result::ok)
    };
    let confirm = if args.yes {
        Confirm::Yes
    } else {
        Confirm::Ask(&mut ask)
    };
    undo_task(config, &journal, args.task.as_deref(), confirm, &mut say)
}

/// How an undo is confirmed.
pub enum Confirm<'a> {
    /// Ask, and read the answer with this.
    Ask(&'a mut dyn FnMut() -> Option<String>),
    /// The user already said yes.
    Yes,
    /// Only show the plan, with how to go on.
    Show { hint: String },
}

/// Shows the plan for `task` (or the newest standing task), confirms, and undoes,
/// saying each line with `say`. Returns false when the undo was refused.
pub fn undo_task(
    config: &Config,
    journal: &Journal,
    task: Option<&str>,
    confirm: Confirm<'_>,
    say: &mut dyn FnMut(String),
) -> anyhow::Result<bool> {
    let preview = match undo::preview(&config.data_dir, &config.home, task) {
        Ok(Some(preview)) => preview,
        Ok(None) => {
            say("No task's changes to your files are left to undo.".into());
            return Ok(true);
        }
        Err(refusal) => {
            say(format!("Not undone: {refusal}."));
            return Ok(matches!(refusal, Refusal::NoChanges(_)));
        }
    };
    let lines = preview.plan.lines(&config.home);
    say(format!(
        "Undo {}: {}",
        preview.plan.task,
        artoo::text::plural(lines.len(), "change", "changes")
    ));
    for line in &lines {
        say(format!("  - {line}"));
    }
    if !preview.lasting.is_empty() {
        say("Cannot be undone (not in artoo's journal):".into());
        for line in &preview.lasting {
            say(format!("  - {line}"));
        }
    }
    match confirm {
        Confirm::Yes => {}
        Confirm::Show { hint } => {
            say(hint);
            return Ok(true);
        }
        Confirm::Ask(answer) => {
            let said = answer().unwrap_or_default();
            if !matches!(said.trim().to_lowercase().as_str(), "y" | "yes") {
                say("Nothing was changed.".into());
                return Ok(true);
            }
        }
    }
    match undo::apply(journal, &preview.plan) {
        Ok(done) => {
            say(format!(
                "Undone: {} taken back. To redo, undo {}.",
                artoo::text::plural(done.count, "change", "changes"),
                done.id
            ));
            if let Some(dir) = done.originals {
                say(format!(
                    "What the undo removed is kept in {}.",
                    dir.display()
                ));
            }
            Ok(true)
        }
        Err(refusal) => {
            say(format!("Not undone: {refusal}."));
            Ok(false)
        }
    }
}

/// The tasks that changed files, newest first.
pub fn list(journal: &Journal, config: &Config, say: &mut dyn FnMut(String)) -> anyhow::Result<()> {
    let tasks = undo::tasks(journal).context("reading artoo's journal")?;
    if tasks.is_empty() {
        say("No task has changed your files yet.".into());
        return Ok(());
    }
    for t in tasks.iter().take(LISTED) {
        say(list_line(t, &config.home));
    }
    if tasks.len() > LISTED {
        say(format!("… and {} older", tasks.len() - LISTED));
    }
    Ok(())
}

/// One task of `--list`: id, when, how many changes, first path, and its state.
pub fn list_line(t: &TaskChanges, home: &std::path::Path) -> String {
    let first = t
        .changes
        .first()
        .map(|c| artoo::text::tilde(&c.path().display().to_string(), home))
        .unwrap_or_default();
    let state = match (&t.undone_by, &t.undoes) {
        (Some(by), _) => format!(" — undone ({by})"),
        (None, Some(task)) => format!(" — the undo of {task}"),
        (None, None) => String::new(),
    };
    format!(
        "{}  {}  {} ({} {first}){state}",
        t.task,
        t.at.format("%Y-%m-%d %H:%M"),
        artoo::text::plural(t.changes.len(), "change", "changes"),
        t.changes.first().map_or("", |c| c.verb()),
    )
}
