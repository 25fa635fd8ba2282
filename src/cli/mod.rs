//! The `artoo` command line on top of the runtime: one-shot tasks (`artoo run TEXT`) and
//! the REPL, with a live pipeline line per bus message, Law 1 and clarification prompts,
//! Ctrl+C as cancel, the result and cost block, and the slash commands (`/audit`,
//! `/memory`, `/remember`, `/forget`, `/replay`).
//!
//! [`render`] is pure (envelope → lines); [`session`] drives one task; [`commands`] parses
//! and runs the slash commands; [`input`] owns stdin; [`audit`] and [`mcp`] are the
//! `artoo audit` and `artoo mcp` subcommands. These modules belong to the `artoo` binary
//! and reach the core through `artoo::…`, so the library the desktop app links carries
//! no clap, rustyline or anyhow code. A slash command is the same
//! command in the REPL and as `artoo run /audit` (or `artoo /memory`): one parser decides
//! what is a command, and a command never reaches a model as a task.
//!
//! **Invariant:** nothing is approved by default — a Law 1 request is approved only by
//! an explicit `y` typed at a terminal; without a terminal it is denied as
//! non-interactive, and Enter, EOF or Ctrl+C never approve.

pub mod audit;
pub mod commands;
pub mod grants;
pub mod history;
pub mod input;
#[cfg(test)]
mod law1_prompt;
pub mod mcp;
pub mod progress;
pub mod render;
pub mod schedule;
pub mod session;
pub mod undo;

use std::io::IsTerminal;
use std::process::ExitCode;

use artoo::bus::Tap;
use artoo::config::{Config, ModelSource};
use artoo::contracts::TerminalDirective;
use artoo::local_llm::{LocalModel, LocalServer, Progress, Stage};
use artoo::runtime::{Runtime, RuntimeOptions, TaskEnd};
use artoo::status::Lang;

use commands::Flow;
use input::{Blocks, Input, Interrupts, Read};
use render::{LineStyle, Paint};
use session::{Console, Finished, StatusLines};

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
    /// `artoo doctor` found something that needs a look.
    Attention,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Done => 0,
            Exit::Abandoned | Exit::Attention => 1,
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
    /// 0: one plain status line per phase; 1: a pipeline line per bus message; 2: also
    /// model-call records and background messages.
    pub verbose: u8,
}

fn fail(message: impl std::fmt::Display) -> Exit {
    eprintln!("artoo: {message}");
    Exit::CannotRun
}

/// What runs for the CLI: the runtime and, when no provider is configured, the built-in
/// model it talks to (stopped after the runtime).
struct Started {
    runtime: Runtime,
    console: Console,
    model: Option<LocalServer>,
}

impl Started {
    async fn stop(self, tap: &mut Tap) {
        stop(&self.runtime, &self.console, tap).await;
        if let Some(model) = self.model {
            model.stop().await;
        }
    }
}

/// Starts the built-in model with a progress bar on stderr and points both tiers at it.
async fn start_local_model(config: &mut Config) -> Result<LocalServer, Exit> {
    let model = LocalModel::from_config(config);
    let lang = Lang::from_tag(&config.ui.language);
    let bar = progress::Bar::new(std::io::stderr().is_terminal());
    let name = model.spec.name;
    let report = move |p: Progress| bar.show(&p, &p.describe(name, lang));
    let server = model.start(&report).await.map_err(|e| {
        fail(format!(
            "the built-in model could not start: {e}\n       (or set OPENAI_BASE_URL and OPENAI_MODEL to use another model; see README: Models)"
        ))
    })?;
    config.use_local_endpoint(&server.base_url(), server.model());
    Ok(server)
}

/// Makes the roles' instructions ready on the built-in model (evaluated once per model
/// and saved, restored at later starts) and measures its speed, with the same progress
/// bar as its start, so the first task costs no more model time than the second.
async fn prepare_local_model(runtime: &Runtime, name: &str, lang: Lang) {
    let bar = progress::Bar::new(std::io::stderr().is_terminal());
    let report = |done: usize, total: usize| {
        let p = Progress::new(Stage::Prepare, done as u64, total as u64);
        bar.show(&p, &p.describe(name, lang));
    };
    runtime.prepare_model(&report).await;
    let ready = Progress::new(Stage::Ready, 1, 1);
    bar.show(&ready, &ready.describe(name, lang));
}

/// What the runtime is started for: tasks need a model endpoint (the built-in one when no
/// provider is configured), slash commands (memory, audit, replay) do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    Tasks,
    Command,
}

/// Starts the runtime and the console (stdin thread, Ctrl+C listener).
async fn start(mut config: Config, options: Options, purpose: Purpose) -> Result<Started, Exit> {
    let model = match (purpose, config.model_source().map_err(fail)?) {
        (Purpose::Command, _) | (Purpose::Tasks, ModelSource::Configured) => None,
        (Purpose::Tasks, ModelSource::BuiltIn) => Some(start_local_model(&mut config).await?),
    };
    let style = LineStyle {
        pipeline: options.verbose > 0,
        verbose: options.verbose > 1,
        paint: Paint {
            enabled: std::io::stdout().is_terminal(),
        },
        ggs: config.ggs.clone(),
    };
    let status = StatusLines::new(
        Lang::from_tag(&config.ui.language),
        Some(config.home.clone()),
    );
    let interactive = std::io::stdin().is_terminal();
    let history = interactive.then(|| config.data_dir.join("history"));
    let interrupts =
        Interrupts::listen().map_err(|e| fail(format!("cannot listen for Ctrl+C: {e}")))?;
    let sandbox = artoo::tools::sandbox_status(&config).await;
    let lang = Lang::from_tag(&config.ui.language);
    let runtime = Runtime::start(config, RuntimeOptions::default())
        .await
        .map_err(|e| fail(format!("cannot start: {e}")))?;
    if let Some(server) = &model {
        prepare_local_model(&runtime, server.model(), lang).await;
    }
    let console = Console {
        style,
        input: Input::start(interactive, history),
        interrupts,
        sink: session::Sink::Stdout,
        status,
    };
    if let Some(server) = &model {
        console.say(format!(
            "built-in model {}: {}",
            server.model(),
            runtime.pace_summary(lang)
        ));
    }
    if let Some(notice) = render::sandbox_notice(&sandbox, console.style.paint) {
        console.say(notice);
    }
    Ok(Started {
        runtime,
        console,
        model,
    })
}

/// Prints how a task ended and what it cost.
fn show_end(console: &Console, finished: &Finished, input: &str, home: &std::path::Path) {
    let mut lines = vec![String::new()];
    lines.extend(render::result_block(
        &finished.end,
        input,
        &finished.usage,
        console.style.paint,
        home,
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

/// `artoo doctor`: one line per part artoo depends on, ✅ or ⚠ with the fix.
pub async fn doctor(config: Config) -> Exit {
    let found = artoo::doctor::check(&config).await;
    for finding in &found {
        println!("{}", finding.line());
    }
    if found.iter().all(|f| f.ok) {
        Exit::Done
    } else {
        Exit::Attention
    }
}

/// `artoo run TEXT`: runs one task and exits with a status that says how it ended. A
/// slash command (`/audit`, `/memory verbose`, …) is run as the REPL runs it: exit 0, or
/// 2 when it is typed wrong.
pub async fn run_once(config: Config, text: &str, options: Options) -> Exit {
    if text.trim().is_empty() {
        return fail("nothing to run: the task text is empty");
    }
    match commands::parse(text) {
        Some(Ok(command)) => return run_command(config, command, options).await,
        Some(Err(usage)) => return fail(usage),
        None => {}
    }
    // A task that says when it should run is kept as a schedule, not run now.
    if let Some(made) = schedule::made_from(&config.data_dir, text) {
        return match made {
            Ok(message) => {
                println!("{message}");
                Exit::Done
            }
            Err(e) => fail(e),
        };
    }
    let mut started = match start(config, options, Purpose::Tasks).await {
        Ok(started) => started,
        Err(exit) => return exit,
    };
    let mut tap = started.runtime.tap("cli");
    let exit = match session::run_task(&started.runtime, &mut started.console, &mut tap, text).await
    {
        Ok(finished) => {
            show_end(
                &started.console,
                &finished,
                text,
                &started.runtime.config().home,
            );
            Exit::of(&finished.end)
        }
        Err(e) => fail(e),
    };
    started.stop(&mut tap).await;
    exit
}

/// One slash command outside the REPL.
async fn run_command(config: Config, command: commands::Command, options: Options) -> Exit {
    let started = match start(config, options, Purpose::Command).await {
        Ok(started) => started,
        Err(exit) => return exit,
    };
    let mut tap = started.runtime.tap("cli");
    commands::run(command, &started.runtime, &started.console).await;
    started.stop(&mut tap).await;
    Exit::Done
}

/// `artoo` alone: the REPL. Returns when the user quits or input ends.
pub async fn repl(config: Config, options: Options) -> Exit {
    let data_dir = config.data_dir.clone();
    let started = match start(config, options, Purpose::Tasks).await {
        Ok(started) => started,
        Err(exit) => return exit,
    };
    let Started {
        runtime,
        mut console,
        model,
    } = started;
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
            None => match schedule::made_from(&data_dir, &entry) {
                Some(Ok(message)) => console.say(message),
                Some(Err(e)) => console.say(format!("(not scheduled: {e})")),
                None => match session::run_task(&runtime, &mut console, &mut tap, &entry).await {
                    Ok(finished) => show_end(&console, &finished, &entry, &runtime.config().home),
                    Err(e) => console.say(format!("(not run: {e})")),
                },
            },
        }
    }
    Started {
        runtime,
        console,
        model,
    }
    .stop(&mut tap)
    .await;
    Exit::Done
}
