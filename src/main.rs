//! The `artoo` command line: parses the arguments and hands them to [`cli`].
//!
//! **Invariant:** the command line is compiled into this binary only; the `artoo`
//! library, which the desktop app links, has no CLI module.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

mod cli;

use artoo::Config;
use cli::{Exit, Options};

#[derive(Parser)]
#[command(
    name = "artoo",
    version,
    about = "artoo — a local multi-agent task runner",
    long_about = "artoo — a local multi-agent task runner.\n\n\
        `artoo` alone starts the REPL; `artoo run TEXT` (or `artoo TEXT`) runs one task.\n\
        Exit status of a task: 0 done, 1 abandoned, 2 could not run, 130 cancelled (Ctrl+C).",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// More output: -v a pipeline line per bus message instead of one status line per
    /// phase, -vv also every model call; on stderr -v info, -vv debug. The log file is
    /// always written.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Option<Command>,
    /// A task to run once (the same as `artoo run TEXT`).
    #[arg(value_name = "TEXT")]
    task: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Run one task and exit: 0 done, 1 abandoned, 2 could not run, 130 cancelled.
    Run {
        /// The task, in your own words (several words are joined with spaces).
        #[arg(required = true, value_name = "TEXT")]
        text: Vec<String>,
    },
    /// Show the effective configuration (API keys redacted) and where it came from.
    Config,
    /// Check what artoo depends on — the model, its speed, the sandbox, the data dir,
    /// MCP servers, API keys, versions — one line each, ✅ or ⚠ with the fix. Exit 0 when
    /// all is well, 1 when something needs a look.
    Doctor,
    /// Inspect the audit log: verify its hash chain, show reports, events, task
    /// timelines and the calibration view.
    Audit(cli::audit::AuditArgs),
    /// MCP servers: list them and their tools, import a Claude Desktop / Cursor config,
    /// list and revoke "always allow" grants.
    Mcp(cli::mcp::McpArgs),
    /// Take back what a task did to your files (the newest task when none is named):
    /// shows each change first and asks. Exit 0 when undone (or nothing to do), 1 when
    /// refused (a file changed since: it says which).
    Undo(cli::undo::UndoArgs),
    /// The standing "always allow" grants — kinds of change in a folder ("deleting .tmp
    /// files under ~/Downloads") and MCP tools — with how often each was used;
    /// `artoo grants revoke N` takes one back.
    Grants(cli::grants::GrantsArgs),
    /// Scheduled tasks: `add "every weekday at 9, summarize ~/Downloads"`, `list`,
    /// `rm ID`. The desktop app runs them while it runs; an action that needs your
    /// approval still asks.
    Schedule(cli::schedule::ScheduleArgs),
    /// How each kind of task went here: runs, answers delivered, pass^3, typical time
    /// and model calls, trend and last failure (kinds with three runs or more).
    History(cli::history::HistoryArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::from_process_env().context("configuration") {
        Ok(config) => config,
        Err(e) => {
            eprintln!("artoo: {e:#}");
            return Exit::CannotRun.into();
        }
    };
    let _guard = match artoo::telemetry::init(&config.data_dir, cli.verbose) {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!(
                "artoo: cannot write logs under {}: {e}",
                config.data_dir.display()
            );
            return Exit::CannotRun.into();
        }
    };
    let options = Options {
        verbose: cli.verbose,
    };
    let result = match (cli.command, cli.task) {
        (Some(Command::Config), _) => print_config(&config),
        (Some(Command::Doctor), _) => return tasks(cli::doctor(config)),
        (Some(Command::Audit(args)), _) => cli::audit::run(&config, args),
        (Some(Command::Mcp(args)), _) => cli::mcp::run(&config, args),
        (Some(Command::History(args)), _) => cli::history::run(&config, args),
        (Some(Command::Grants(args)), _) => cli::grants::run(&config, args),
        (Some(Command::Schedule(args)), _) => cli::schedule::run(&config, args),
        (Some(Command::Undo(args)), _) => match cli::undo::run(&config, args) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::FAILURE,
            Err(e) => Err(e),
        },
        (Some(Command::Run { text: words }), _) | (None, words) if !words.is_empty() => {
            // `artoo -v run TEXT`: a flag before the subcommand leaves `run` among the
            // words of a bare task; it names the subcommand, not part of the task.
            let words = match words.split_first() {
                Some((first, rest)) if first == "run" && !rest.is_empty() => rest.to_vec(),
                _ => words,
            };
            let text = words.join(" ");
            return tasks(cli::run_once(config, &text, options));
        }
        (_, _) => return tasks(cli::repl(config, options)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e:?}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a task-running entry point on a multi-threaded tokio runtime.
fn tasks(entry: impl std::future::Future<Output = Exit>) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => {
            let exit = rt.block_on(entry);
            // The stdin thread may be blocked in a read: do not wait for it.
            rt.shutdown_background();
            exit.into()
        }
        Err(e) => {
            eprintln!("artoo: cannot start the async runtime: {e}");
            Exit::CannotRun.into()
        }
    }
}

fn print_config(config: &Config) -> anyhow::Result<()> {
    println!("data dir:  {}", config.data_dir.display());
    println!("workspace: {}", config.workspace.display());
    println!("settings:  {}", config.settings_path().display());
    for (name, tier) in [("brain", &config.llm.brain), ("tool", &config.llm.tool)] {
        println!(
            "{name:5} tier: {} model {} key {}",
            tier.base_url.as_deref().unwrap_or("(no base URL)"),
            tier.model.as_deref().unwrap_or("(no model)"),
            if tier.api_key.is_some() {
                "set"
            } else {
                "not set"
            }
        );
    }
    println!(
        "model speed: {}",
        artoo::llm::pace::summary_of(config, artoo::status::Lang::En)
    );
    let settings = toml::to_string_pretty(&config.settings())?;
    println!("\n{settings}");
    Ok(())
}
