//! The `artoo` command line on top of the runtime: one-shot tasks (`artoo run TEXT`) and
//! the REPL, with a live pipeline line per bus message, Law 1 and clarification prompts,
//! Ctrl+C as cancel, the result and cost block, and the slash commands (`/audit`,
//! `/memory`, `/remember`, `/forget`, `/replay`).
//!
//! [`render`] is pure (envelope → lines); [`session`] drives one task; [`commands`] parses
//! and runs the slash commands; [`input`] owns stdin.
//!
//! **Invariant:** nothing is approved by default — a Law 1 request is approved only by
//! an explicit `y` typed at a terminal; without a terminal it is denied as
//! non-interactive, and Enter, EOF or Ctrl+C never approve.

pub mod commands;
pub mod input;
pub mod render;
pub mod session;

use std::io::IsTerminal;
use std::process::ExitCode;

use crate::bus::Tap;
use crate::config::Config;
use crate::contracts::TerminalDirective;
use crate::runtime::{Runtime, RuntimeOptions, TaskEnd};

use commands::Flow;
use input::{Blocks, Input, Interrupts, Read};
use render::{LineStyle, Paint};
use session::{Console, Finished};

/// How a run ends, as an exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Accepted, delivered within the threshold, or answered by the chat fast path.
    Done,
    /// GGS abandoned the task.
    Abandoned,
    /// artoo could not run the task (configuration, endpoint settings, data dir).
    CannotRun,
    /// Ctrl+C (the shell convention 128 + SIGINT).
    Cancelled,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Done => 0,
            Exit::Abandoned => 1,
            Exit::CannotRun => 2,
            Exit::Cancelled => 130,
        }
    }

    pub fn of(end: &TaskEnd) -> Exit {
        match end {
            TaskEnd::Final(r) if r.directive == TerminalDirective::Abandon => Exit::Abandoned,
            TaskEnd::Final(_) | TaskEnd::Chat(_) => Exit::Done,
            TaskEnd::Cancelled => Exit::Cancelled,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(value: Exit) -> Self {
        ExitCode::from(value.code())
    }
}

/// Options shared by the one-shot and the REPL.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Show model-call records and background messages in the pipeline.
    pub verbose: bool,
}

fn fail(message: impl std::fmt::Display) -> Exit {
    eprintln!("artoo: {message}");
    Exit::CannotRun
}

/// Starts the runtime and the console (stdin thread, Ctrl+C listener).
async fn start(config: Config, options: Options) -> Result<(Runtime, Console), Exit> {
    config.require_llm().map_err(fail)?;
    let style = LineStyle {
        verbose: options.verbose,
        paint: Paint {
            enabled: std::io::stdout().is_terminal(),
        },
        ggs: config.ggs.clone(),
    };
    let interactive = std::io::stdin().is_terminal();
    let history = interactive.then(|| config.data_dir.join("history"));
    let interrupts =
        Interrupts::listen().map_err(|e| fail(format!("cannot listen for Ctrl+C: {e}")))?;
    let sandbox = crate::tools::sandbox_status(&config).await;
    let runtime = Runtime::start(config, RuntimeOptions::default())
        .await
        .map_err(|e| fail(format!("cannot start: {e}")))?;
    let console = Console {
        style,
        input: Input::start(interactive, history),
        interrupts,
        sink: session::Sink::Stdout,
    };
    if let Some(notice) = render::sandbox_notice(&sandbox, console.style.paint) {
        console.say(notice);
    }
    Ok((runtime, console))
}

/// Prints how a task ended and what it cost.
fn show_end(console: &Console, finished: &Finished, input: &str) {
    let mut lines = vec![String::new()];
    lines.extend(render::result_block(
        &finished.end,
        input,
        &finished.usage,
        console.style.paint,
    ));
    if finished.lost > 0 {
        lines.push(format!(
            "  (cost may be incomplete: the display lost {} bus messages)",
            finished.lost
        ));
    }
    console.print(&lines);
}

/// Stops the runtime while still drawing whatever reaches the bus, so nothing that
/// happens after a task's end is hidden.
async fn stop(runtime: &Runtime, console: &Console, tap: &mut Tap) {
    let draw = async {
        while let Some(event) = tap.recv().await {
            console.draw(&event);
        }
    };
    tokio::join!(runtime.shutdown(), draw);
}

/// `artoo run TEXT`: runs one task and exits with a status that says how it ended.
pub async fn run_once(config: Config, text: &str, options: Options) -> Exit {
    if text.trim().is_empty() {
        return fail("nothing to run: the task text is empty");
    }
    let (runtime, mut console) = match start(config, options).await {
        Ok(started) => started,
        Err(exit) => return exit,
    };
    let mut tap = runtime.tap("cli");
    let exit = match session::run_task(&runtime, &mut console, &mut tap, text).await {
        Ok(finished) => {
            show_end(&console, &finished, text);
            Exit::of(&finished.end)
        }
        Err(e) => fail(e),
    };
    stop(&runtime, &console, &mut tap).await;
    exit
}

/// `artoo` alone: the REPL. Returns when the user quits or input ends.
pub async fn repl(config: Config, options: Options) -> Exit {
    let (runtime, mut console) = match start(config, options).await {
        Ok(started) => started,
        Err(exit) => return exit,
    };
    let mut tap = runtime.tap("cli");
    console.say(format!(
        "artoo {} — type a task, /help for commands, Ctrl+D to leave.",
        env!("CARGO_PKG_VERSION")
    ));
    let mut blocks = Blocks::default();
    let mut warned = false;
    loop {
        // What reached the bus while idle (late messages of an ended task would show
        // here: nothing of a task is hidden).
        while let Some(event) = tap.try_recv() {
            console.draw(&event);
        }
        let prompt = if blocks.in_block() { "… " } else { "> " };
        console.input.ask(prompt, true);
        let read = tokio::select! {
            read = console.input.next() => read,
            () = console.interrupts.recv() => Read::Interrupted,
        };
        let line = match read {
            Read::Eof => break,
            Read::Interrupted => {
                if blocks.discard() {
                    console.say("(block discarded)");
                    continue;
                }
                if warned {
                    break;
                }
                warned = true;
                console.say("(press Ctrl+C again to leave, or type /quit)");
                continue;
            }
            Read::Line(line) => line,
        };
        warned = false;
        let Some(entry) = blocks.feed(&line) else {
            continue;
        };
        if entry.trim().is_empty() {
            continue;
        }
        match commands::parse(&entry) {
            Some(Ok(command)) => {
                if commands::run(command, &runtime, &console).await == Flow::Quit {
                    break;
                }
            }
            Some(Err(usage)) => console.say(usage),
            None => match session::run_task(&runtime, &mut console, &mut tap, &entry).await {
                Ok(finished) => show_end(&console, &finished, &entry),
                Err(e) => console.say(format!("(not run: {e})")),
            },
        }
    }
    stop(&runtime, &console, &mut tap).await;
    Exit::Done
}
