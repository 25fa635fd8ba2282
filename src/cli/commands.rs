//! The REPL's slash commands: parsed here (pure), run against the runtime's read and
//! operator APIs. Anything that is not a command is a task.

use uuid::Uuid;

use artoo::contracts::{Level, MegramId};
use artoo::memory::operator::T_REFUSED;
use artoo::memory::{ForgetTarget, Remember};
use artoo::runtime::Runtime;
use artoo::tasklog::{RunId, TaskLogDir};

use super::render;
use super::session::Console;

/// Runs `/replay list` shows.
pub const REPLAY_LIST: usize = 10;

/// The shortest id prefix `/forget` accepts: shorter ones match too much by accident.
pub const MIN_ID_PREFIX: usize = 4;

pub const HELP: &[&str] = &[
    "Type a task and press Enter; a line that is exactly \"\"\" starts and ends a multi-line task.",
    "  /audit                   an on-demand audit report of the current window",
    "  /memory [verbose]        memory groups with potentials and action; verbose lists Megrams",
    "  /remember [M|K|C] TEXT   store a memory (default: C, a lasting best practice)",
    "  /forget ID|PREFIX|SPACE/ENTITY   delete Megrams (the Four Laws are never deleted)",
    "  /replay [list|N|RUN]     replay a task log: rounds, D/P/Ω/L/∇L, directives",
    "  /undo [list|TASK] [yes]  take back what a task did to your files (shown first; yes does it)",
    "  /help                    this help",
    "  /quit                    leave (also Ctrl+D, or Ctrl+C twice at the prompt)",
    "Ctrl+C while a task runs cancels it.",
];

/// What to replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayTarget {
    Latest,
    List,
    /// 1 = the newest run.
    Nth(usize),
    /// A run file name, a prefix of one, or a task id.
    Named(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Help,
    Quit,
    Audit,
    Memory { verbose: bool },
    Remember(Remember),
    Forget(ForgetTarget),
    Replay(ReplayTarget),
    Undo(UndoTarget),
}

/// What `/undo` is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UndoTarget {
    List,
    /// A task (the newest standing one when `None`); `confirmed` when the user typed yes.
    Task {
        task: Option<String>,
        confirmed: bool,
    },
}

/// `None` when the line is a task; `Some(Err(usage))` for a command typed wrong.
pub fn parse(line: &str) -> Option<Result<Command, String>> {
    let line = line.trim();
    if matches!(line, "exit" | "quit") {
        return Some(Ok(Command::Quit));
    }
    let rest = line.strip_prefix('/')?;
    let (name, arg) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(n, a)| (n, a.trim()));
    Some(match name {
        "help" | "?" => Ok(Command::Help),
        "quit" | "exit" => Ok(Command::Quit),
        "audit" => Ok(Command::Audit),
        "memory" => match arg {
            "" => Ok(Command::Memory { verbose: false }),
            "verbose" | "-v" => Ok(Command::Memory { verbose: true }),
            _ => Err("usage: /memory [verbose]".into()),
        },
        "remember" => parse_remember(arg).map(Command::Remember),
        "forget" => parse_forget(arg).map(Command::Forget),
        "replay" => Ok(Command::Replay(parse_replay(arg))),
        "undo" => parse_undo(arg).map(Command::Undo),
        other => Err(format!("unknown command /{other} (type /help)")),
    })
}

fn parse_remember(arg: &str) -> Result<Remember, String> {
    let usage = || "usage: /remember [M|K|C] TEXT".to_string();
    let (first, rest) = arg
        .split_once(char::is_whitespace)
        .map_or((arg, ""), |(f, r)| (f, r.trim()));
    let level = match first.to_ascii_uppercase().as_str() {
        "M" => Some(Level::M),
        "K" => Some(Level::K),
        "C" => Some(Level::C),
        "T" => return Err(format!("not remembered: {T_REFUSED}")),
        _ => None,
    };
    match level {
        Some(_) if rest.is_empty() => Err(usage()),
        Some(level) => Ok(Remember::new(rest).level(level)),
        None if arg.is_empty() => Err(usage()),
        None => Ok(Remember::new(arg)),
    }
}

fn parse_forget(arg: &str) -> Result<ForgetTarget, String> {
    let usage =
        format!("usage: /forget ID | ID-PREFIX (≥ {MIN_ID_PREFIX} hex digits) | SPACE/ENTITY");
    if arg.is_empty() {
        return Err(usage);
    }
    if let Ok(uuid) = Uuid::parse_str(arg) {
        return Ok(ForgetTarget::Id(MegramId::from(uuid)));
    }
    // Spaces never contain '/', entities may (`path:/tmp/x`): split at the first one.
    if let Some((space, entity)) = arg.split_once('/') {
        let (space, entity) = (space.trim(), entity.trim());
        if space.is_empty() || entity.is_empty() {
            return Err(usage);
        }
        return Ok(ForgetTarget::Group {
            space: space.into(),
            entity: entity.into(),
        });
    }
    let hex = arg.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    if hex && arg.chars().filter(char::is_ascii_hexdigit).count() >= MIN_ID_PREFIX {
        Ok(ForgetTarget::IdPrefix(arg.to_ascii_lowercase()))
    } else {
        Err(usage)
    }
}

fn parse_undo(arg: &str) -> Result<UndoTarget, String> {
    let words: Vec<&str> = arg.split_whitespace().collect();
    match words.as_slice() {
        ["list"] => Ok(UndoTarget::List),
        [] => Ok(UndoTarget::Task {
            task: None,
            confirmed: false,
        }),
        ["yes"] => Ok(UndoTarget::Task {
            task: None,
            confirmed: true,
        }),
        [task] => Ok(UndoTarget::Task {
            task: Some((*task).to_string()),
            confirmed: false,
        }),
        [task, "yes"] => Ok(UndoTarget::Task {
            task: Some((*task).to_string()),
            confirmed: true,
        }),
        _ => Err("usage: /undo [list|TASK] [yes]".into()),
    }
}

fn parse_replay(arg: &str) -> ReplayTarget {
    match arg {
        "" => ReplayTarget::Latest,
        "list" => ReplayTarget::List,
        n => match n.parse::<usize>() {
            Ok(n) if (1..=REPLAY_LIST * 10).contains(&n) => ReplayTarget::Nth(n),
            _ => ReplayTarget::Named(n.to_string()),
        },
    }
}

/// Whether the REPL goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// Runs one command, printing its result.
pub async fn run(command: Command, rt: &Runtime, console: &Console) -> Flow {
    match command {
        Command::Help => console.print(&HELP.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
        Command::Quit => return Flow::Quit,
        Command::Audit => match rt.audit_now().await {
            Ok(report) => {
                let mut buf = Vec::new();
                match crate::cli::audit::print_report(&mut buf, &report, "the current window") {
                    Ok(()) => console.print(
                        &String::from_utf8_lossy(&buf)
                            .lines()
                            .map(str::to_string)
                            .collect::<Vec<_>>(),
                    ),
                    Err(e) => console.say(format!("(cannot show the report: {e})")),
                }
            }
            Err(e) => console.say(format!("(no audit report: {e})")),
        },
        Command::Memory { verbose } => memory(rt, console, verbose).await,
        Command::Remember(r) => match rt.memory().remember(r).await {
            Ok(m) => console.say(format!(
                "Remembered {} {} in [{} / {}] σ={:+}: {}",
                m.level.as_str(),
                m.id,
                m.space,
                m.entity,
                m.sigma,
                artoo::text::one_line(&m.content, 80)
            )),
            Err(e) => console.say(format!("(not remembered: {e})")),
        },
        Command::Forget(target) => match rt.memory().forget(target).await {
            Ok(report) => {
                let n = report.forgotten.len();
                let mut line = format!("Forgot {n} {}.", if n == 1 { "entry" } else { "entries" });
                if !report.kept_immutable.is_empty() {
                    line.push_str(&format!(
                        " Kept {} of the Four Laws (they are never deleted).",
                        report.kept_immutable.len()
                    ));
                }
                console.say(line);
            }
            Err(e) => console.say(format!("(nothing forgotten: {e})")),
        },
        Command::Replay(target) => replay(rt, console, target).await,
        Command::Undo(target) => undo(rt, console, target),
    }
    Flow::Continue
}

fn undo(rt: &Runtime, console: &Console, target: UndoTarget) {
    let config = rt.config();
    let journal = artoo::journal::Journal::in_data_dir(&config.data_dir);
    let mut say = |line: String| console.say(line);
    let done = match target {
        UndoTarget::List => super::undo::list(&journal, config, &mut say),
        UndoTarget::Task { task, confirmed } => {
            let confirm = if confirmed {
                super::undo::Confirm::Yes
            } else {
                let again = task.as_deref().map_or(String::new(), |t| format!(" {t}"));
                super::undo::Confirm::Show {
                    hint: format!("Type /undo{again} yes to take these back."),
                }
            };
            super::undo::undo_task(config, &journal, task.as_deref(), confirm, &mut say).map(|_| ())
        }
    };
    if let Err(e) = done {
        console.say(format!("(no undo: {e:#})"));
    }
}

async fn memory(rt: &Runtime, console: &Console, verbose: bool) {
    let groups = match rt.memory().groups().await {
        Ok(groups) => groups,
        Err(e) => return console.say(format!("(memory unavailable: {e})")),
    };
    let lines = render::memory_groups(&groups);
    if !verbose {
        return console.print(&lines);
    }
    // Header, then each group followed by its Megrams.
    console.print(&lines[..1]);
    let now = rt.clock().now();
    for (group, line) in groups.iter().zip(&lines[1..]) {
        console.say(line.clone());
        match rt.memory().group(&group.space, &group.entity).await {
            Ok(views) => console.print(&render::megram_rows(&views, now)),
            Err(e) => console.say(format!("      (unreadable: {e})")),
        }
    }
}

async fn replay(rt: &Runtime, console: &Console, target: ReplayTarget) {
    // A run that just ended may still be in the writer's buffer.
    if let Err(e) = rt.flush_task_log().await {
        console.say(format!("(the task log may be incomplete: {e})"));
    }
    let logs = rt.task_logs();
    match find_run(&logs, &target) {
        Ok(None) => {
            let runs = logs.list(REPLAY_LIST).unwrap_or_default();
            console.print(&render::run_list(&runs));
        }
        Ok(Some(id)) => match logs.load(&id) {
            Ok(run) => console.print(&render::trajectory(
                &run.trajectory(),
                id.as_str(),
                &rt.config().ggs,
            )),
            Err(e) => console.say(format!("(cannot read {id}: {e})")),
        },
        Err(e) => console.say(e),
    }
}

/// The run a target names; `None` for the list.
fn find_run(logs: &TaskLogDir, target: &ReplayTarget) -> Result<Option<RunId>, String> {
    let ids = logs.run_ids().map_err(|e| format!("(no task logs: {e})"))?;
    let missing = || "No task logs yet.".to_string();
    match target {
        ReplayTarget::List => Ok(None),
        ReplayTarget::Latest => ids.into_iter().next().map(Some).ok_or_else(missing),
        ReplayTarget::Nth(n) => ids
            .into_iter()
            .nth(n - 1)
            .map(Some)
            .ok_or_else(|| format!("There is no run {n} (see /replay list).")),
        ReplayTarget::Named(name) => {
            let by_name: Vec<&RunId> = ids
                .iter()
                .filter(|id| id.as_str().starts_with(name.as_str()))
                .collect();
            if let [one] = by_name.as_slice() {
                return Ok(Some((*one).clone()));
            }
            if by_name.len() > 1 {
                return Err(format!(
                    "{} runs start with {name}; be more precise.",
                    by_name.len()
                ));
            }
            let task = artoo::contracts::TaskId::from_existing(name);
            match logs.runs_of(&task) {
                Ok(runs) => runs
                    .into_iter()
                    .next()
                    .map(|r| Some(r.run_id))
                    .ok_or_else(|| format!("No run or task named {name} (see /replay list).")),
                Err(e) => Err(format!("(cannot read task logs: {e})")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(line: &str) -> Command {
        parse(line).expect("a command").expect("valid")
    }

    #[test]
    fn plain_text_is_a_task_not_a_command() {
        assert!(parse("count the files in ~/Downloads").is_none());
        assert!(parse("what is /memory?").is_none());
    }

    #[test]
    fn memory_takes_an_optional_verbose() {
        assert_eq!(cmd("/memory"), Command::Memory { verbose: false });
        assert_eq!(cmd(" /memory verbose "), Command::Memory { verbose: true });
        assert!(parse("/memory everything").unwrap().is_err());
    }

    #[test]
    fn remember_defaults_to_a_c_level_best_practice_and_takes_a_level_letter() {
        let Command::Remember(r) = cmd("/remember always answer in French") else {
            panic!()
        };
        assert_eq!(
            (r.level, r.content.as_str()),
            (Level::C, "always answer in French")
        );
        let Command::Remember(r) = cmd("/remember m the NAS is at 10.0.0.5") else {
            panic!()
        };
        assert_eq!(
            (r.level, r.content.as_str()),
            (Level::M, "the NAS is at 10.0.0.5")
        );
        assert!(parse("/remember").unwrap().is_err());
        assert!(parse("/remember K").unwrap().is_err());
    }

    #[test]
    fn remember_t_is_refused_with_the_reason() {
        let err = parse("/remember T always be terse").unwrap().unwrap_err();
        assert!(err.contains("Four Laws"), "{err}");
        assert!(parse("/remember t").unwrap().is_err());
    }

    #[test]
    fn forget_takes_an_id_a_long_enough_prefix_or_a_group() {
        let id = Uuid::new_v4();
        assert_eq!(
            cmd(&format!("/forget {id}")),
            Command::Forget(ForgetTarget::Id(MegramId::from(id)))
        );
        assert_eq!(
            cmd("/forget 3F9A"),
            Command::Forget(ForgetTarget::IdPrefix("3f9a".into()))
        );
        assert_eq!(
            cmd("/forget intent:tidy_downloads / path:/tmp/x"),
            Command::Forget(ForgetTarget::Group {
                space: "intent:tidy_downloads".into(),
                entity: "path:/tmp/x".into()
            })
        );
        assert!(parse("/forget ab").unwrap().is_err(), "too short a prefix");
        assert!(parse("/forget everything").unwrap().is_err());
        assert!(parse("/forget").unwrap().is_err());
    }

    #[test]
    fn replay_takes_nothing_list_a_number_or_a_name() {
        assert_eq!(cmd("/replay"), Command::Replay(ReplayTarget::Latest));
        assert_eq!(cmd("/replay list"), Command::Replay(ReplayTarget::List));
        assert_eq!(cmd("/replay 2"), Command::Replay(ReplayTarget::Nth(2)));
        assert_eq!(
            cmd("/replay 2026"),
            Command::Replay(ReplayTarget::Named("2026".into()))
        );
    }

    #[test]
    fn an_unknown_command_is_an_error_not_a_task() {
        assert!(parse("/frobnicate").unwrap().is_err());
        assert_eq!(cmd("quit"), Command::Quit);
        assert_eq!(cmd("/exit"), Command::Quit);
    }
}
