//! Drives one task from the terminal: submits it, draws a pipeline line per bus
//! message, asks the Law 1 and clarification questions, turns Ctrl+C into a cancel, and
//! hands back how the task ended with what it cost.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Mutex;

use artoo::bus::{Envelope, Tap, TapEvent};
use artoo::contracts::{
    ApprovalScope, ClarificationRequest, ConfirmationRequest, Decision, Message, RequestId, TaskId,
};
use artoo::runtime::{Runtime, RuntimeError, TaskEnd};
use artoo::status::{Lang, StatusBoard};
use artoo::tasklog::Usage;

use super::input::{Input, Interrupts, Read};
use super::render::{self, LineStyle};

/// What the cancel says on the bus when the user pressed Ctrl+C.
pub const CANCEL_REASON: &str = "cancelled by the user (Ctrl+C)";

/// Where the console's lines go.
#[derive(Clone, Debug, Default)]
pub enum Sink {
    #[default]
    Stdout,
    /// Kept in memory (tests).
    #[cfg(test)]
    Lines(std::sync::Arc<Mutex<Vec<String>>>),
}

#[cfg(test)]
impl Sink {
    pub fn lines() -> Sink {
        Sink::Lines(std::sync::Arc::default())
    }

    /// What a [`Sink::Lines`] holds so far (empty for stdout).
    pub fn taken(&self) -> Vec<String> {
        match self {
            Sink::Stdout => Vec::new(),
            Sink::Lines(lines) => artoo::sync::lock(lines).clone(),
        }
    }
}

/// The status lines of the tasks on screen, each printed once when its phase begins.
#[derive(Debug, Default)]
pub struct StatusLines {
    state: Mutex<(StatusBoard, Option<String>)>,
}

impl StatusLines {
    pub fn new(lang: Lang, home: Option<std::path::PathBuf>) -> Self {
        Self {
            state: Mutex::new((StatusBoard::new(lang, home), None)),
        }
    }

    /// The line `env` begins, unless it repeats the line before.
    fn next(&self, env: &Envelope) -> Option<String> {
        let mut state = artoo::sync::lock(&self.state);
        let (board, last) = &mut *state;
        let line = board.line(env)?;
        if last.as_deref() == Some(line.as_str()) {
            return None;
        }
        *last = Some(line.clone());
        Some(line)
    }
}

/// The terminal: where lines go, where answers come from, and Ctrl+C.
pub struct Console {
    pub style: LineStyle,
    pub input: Input,
    pub interrupts: Interrupts,
    pub sink: Sink,
    /// Used when the style draws status lines rather than the pipeline.
    pub status: StatusLines,
}

impl Console {
    /// Prints lines. A closed stdout (`| head`) is not an error worth dying for
    /// mid-task: the task still runs to its end.
    pub fn print(&self, lines: &[String]) {
        match &self.sink {
            Sink::Stdout => {
                let stdout = std::io::stdout();
                let mut out = stdout.lock();
                for line in lines {
                    let _ = writeln!(out, "{line}");
                }
                let _ = out.flush();
            }
            #[cfg(test)]
            Sink::Lines(kept) => artoo::sync::lock(kept).extend_from_slice(lines),
        }
    }

    pub fn say(&self, line: impl Into<String>) {
        self.print(&[line.into()]);
    }

    /// Draws one tap event; returns whether it was a gap.
    pub fn draw(&self, event: &TapEvent) {
        match event {
            TapEvent::Message(env) if self.style.pipeline => {
                self.print(&render::pipeline_lines(env, &self.style))
            }
            TapEvent::Message(env) => {
                if render::shown(env, &self.style)
                    && let Some(line) = self.status.next(env)
                {
                    self.say(format!("{} {line}", self.style.paint.dim("  ·")));
                }
            }
            TapEvent::Gap { skipped } => self.say(self.style.paint.yellow(&format!(
                "  ({skipped} bus messages not shown: the display fell behind)"
            ))),
        }
    }
}

/// How a task ended, with its cost as seen on the bus.
#[derive(Debug)]
pub struct Finished {
    pub end: TaskEnd,
    /// Model calls per role and tool calls, from the task's `LlmCall`/`ToolCallEvent`
    /// records (the same figures the usage ledger counts).
    pub usage: Usage,
    /// Messages the display lost; the cost may be short by what they carried.
    pub lost: u64,
}

/// A question waiting for the user.
#[derive(Clone, Debug)]
enum Ask {
    Confirm(Box<ConfirmationRequest>),
    Clarify(ClarificationRequest),
}

/// The answer typed at a Law 1 prompt. Enter alone, or anything unclear, is no answer:
/// nothing is ever approved by default.
pub fn parse_decision(
    line: &str,
    can_trash: bool,
    scopes: &[ApprovalScope],
) -> Option<(Decision, ApprovalScope)> {
    let offered = |scope| scopes.contains(&scope);
    match line.trim().to_lowercase().as_str() {
        "y" | "yes" => Some((Decision::Approve, ApprovalScope::Once)),
        "s" | "same" if offered(ApprovalScope::Task) => {
            Some((Decision::Approve, ApprovalScope::Task))
        }
        "a" | "always" if offered(ApprovalScope::Always) => {
            Some((Decision::Approve, ApprovalScope::Always))
        }
        "n" | "no" => Some((Decision::Deny, ApprovalScope::Once)),
        "t" | "trash" if can_trash => Some((Decision::Trash, ApprovalScope::Once)),
        _ => None,
    }
}

struct Driver<'a> {
    rt: &'a Runtime,
    console: &'a mut Console,
    task: TaskId,
    usage: Usage,
    lost: u64,
    queue: VecDeque<Ask>,
    current: Option<Ask>,
    cancelled: bool,
}

/// Submits `text` and drives it to its end. `tap` must have been opened before, so no
/// message of the task escapes the display.
pub async fn run_task(
    rt: &Runtime,
    console: &mut Console,
    tap: &mut Tap,
    text: &str,
) -> Result<Finished, RuntimeError> {
    // How tasks like this went here, before it runs (only with enough history).
    match artoo::tasklog::kinds::like(&rt.task_logs(), text) {
        Ok(Some(history)) => console.say(format!(
            "{} {}",
            console.style.paint.dim("  ·"),
            history.line(artoo::status::Lang::from_tag(&rt.config().ui.language))
        )),
        Ok(None) => {}
        Err(e) => tracing::warn!(%e, "the history of tasks like this could not be read"),
    }
    let task = rt.submit(text)?;
    let mut driver = Driver {
        rt,
        console,
        task,
        usage: Usage::default(),
        lost: 0,
        queue: VecDeque::new(),
        current: None,
        cancelled: false,
    };
    loop {
        let reading = driver.current.is_some() && driver.console.input.reading();
        tokio::select! {
            event = tap.recv() => match event {
                None => break,
                Some(event) => {
                    driver.console.draw(&event);
                    if driver.on_event(event).await {
                        break;
                    }
                }
            },
            read = driver.console.input.next(), if reading => driver.on_read(read).await,
            () = driver.console.interrupts.recv() => driver.cancel(),
        }
        driver.next_question();
    }
    // Whatever question is still open belongs to a task that has ended.
    driver.console.input.abandon();
    let end = driver.rt.wait(&driver.task).await?;
    // What the end set off (GGS's terminal Megram) is on the tap already: show it with
    // the task rather than after its result.
    while let Some(event) = tap.try_recv() {
        driver.console.draw(&event);
        driver.on_event(event).await;
    }
    Ok(Finished {
        end,
        usage: driver.usage,
        lost: driver.lost,
    })
}

impl Driver<'_> {
    /// Folds one tap event; true when it ended the task.
    async fn on_event(&mut self, event: TapEvent) -> bool {
        let env = match event {
            TapEvent::Message(env) => env,
            TapEvent::Gap { skipped } => {
                self.lost += skipped;
                // The end itself may have been lost: ask the runtime.
                return !self.rt.running_tasks().contains(&self.task);
            }
        };
        if env.task_id.as_ref() != Some(&self.task) {
            return false;
        }
        match &env.message {
            Message::LlmCall(call) => self.usage.record_llm_call(call),
            Message::ToolCallEvent(e) => self.usage.record_tool_call(e.record.duration_ms),
            Message::ConfirmationRequest(request) => {
                if self.console.input.interactive() {
                    self.queue
                        .push_back(Ask::Confirm(Box::new(request.clone())));
                } else {
                    self.console.say(format!(
                        "  Law 1: denied `{}` — nobody can confirm it (not an interactive terminal)",
                        artoo::text::one_line(&request.command, 80)
                    ));
                    if let Err(e) = self.rt.deny_non_interactive(request.request_id).await {
                        tracing::debug!(error = %e, "the request closed before the denial");
                    }
                }
            }
            Message::ConfirmationDecision(decision) => self.closed(&decision.request_id),
            Message::ClarificationRequest(request) => {
                self.queue.push_back(Ask::Clarify(request.clone()));
            }
            Message::ClarificationAnswer(_) => {
                if matches!(self.current, Some(Ask::Clarify(_))) {
                    self.drop_current();
                }
                self.queue.retain(|a| !matches!(a, Ask::Clarify(_)));
            }
            Message::ChatReply(_) | Message::FinalResult(_) | Message::TaskClosed(_) => {
                return true;
            }
            _ => {}
        }
        false
    }

    /// A Law 1 request was answered on the bus (by us, by its timeout, by a cancel).
    fn closed(&mut self, request_id: &RequestId) {
        self.queue
            .retain(|a| !matches!(a, Ask::Confirm(r) if &r.request_id == request_id));
        if matches!(&self.current, Some(Ask::Confirm(r)) if &r.request_id == request_id) {
            self.drop_current();
            self.console
                .say("  (that request was closed before you answered; it was denied)");
        }
    }

    fn drop_current(&mut self) {
        self.current = None;
        self.console.input.abandon();
    }

    /// Shows the next question when none is open.
    fn next_question(&mut self) {
        if self.current.is_some() || self.cancelled {
            return;
        }
        let Some(ask) = self.queue.pop_front() else {
            return;
        };
        let prompt = match &ask {
            Ask::Confirm(request) => {
                self.console.print(&render::confirmation_prompt(
                    request,
                    self.console.style.paint,
                ));
                render::confirmation_question(request)
            }
            Ask::Clarify(request) => {
                self.console.say(format!("? {}", request.question.trim()));
                "answer (Enter = proceed as understood)> ".to_string()
            }
        };
        self.console.input.ask(&prompt, false);
        self.current = Some(ask);
    }

    async fn on_read(&mut self, read: Read) {
        let Some(ask) = self.current.clone() else {
            return;
        };
        match (read, &ask) {
            (Read::Interrupted, _) => self.cancel(),
            (Read::Eof, Ask::Confirm(request)) => {
                self.current = None;
                self.console.say("  (no more input: denied)");
                self.decide(request, Decision::Deny, ApprovalScope::Once)
                    .await;
            }
            (Read::Line(line), Ask::Confirm(request)) => {
                match parse_decision(&line, request.can_trash, &request.scopes) {
                    Some((decision, scope)) => {
                        self.current = None;
                        self.decide(request, decision, scope).await;
                    }
                    None => {
                        // Enter alone never approves: ask again.
                        let keys = render::confirmation_keys(request);
                        let (last, rest) = keys.split_last().unwrap_or((&"n", &[]));
                        self.console.say(if rest.is_empty() {
                            format!("  Type {last}.")
                        } else {
                            format!("  Type {} or {last}.", rest.join(", "))
                        });
                        self.console
                            .input
                            .ask(&render::confirmation_question(request), false);
                    }
                }
            }
            (read, Ask::Clarify(request)) => {
                self.current = None;
                let answer = match read {
                    Read::Line(line) => line.trim().to_string(),
                    _ => String::new(),
                };
                if let Err(e) = self
                    .rt
                    .answer_clarification(&request.task_id, &answer)
                    .await
                {
                    self.console.say(format!("  (answer not sent: {e})"));
                }
            }
        }
    }

    async fn decide(
        &mut self,
        request: &ConfirmationRequest,
        decision: Decision,
        scope: ApprovalScope,
    ) {
        if let Err(e) = self
            .rt
            .answer_confirmation_scoped(request.request_id, decision, scope)
            .await
        {
            self.console.say(format!("  (answer not sent: {e})"));
        }
    }

    /// Ctrl+C: cancel the task; its open questions close with it.
    fn cancel(&mut self) {
        if self.cancelled {
            return;
        }
        self.cancelled = true;
        self.queue.clear();
        if self.current.take().is_some() {
            self.console.input.abandon();
        }
        self.console.say(
            self.console
                .style
                .paint
                .yellow("⚠ Ctrl+C: cancelling the task…"),
        );
        match self.rt.cancel(&self.task, CANCEL_REASON) {
            Ok(true) => {}
            Ok(false) => self.console.say("  (it had already ended)"),
            Err(e) => self.console.say(format!("  (cannot cancel: {e})")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [ApprovalScope; 3] = [
        ApprovalScope::Once,
        ApprovalScope::Task,
        ApprovalScope::Always,
    ];

    fn decision(line: &str, can_trash: bool) -> Option<Decision> {
        parse_decision(line, can_trash, &ALL).map(|(d, _)| d)
    }

    #[test]
    fn enter_alone_or_an_unclear_word_never_approves() {
        for line in ["", "  ", "ok", "sure", "approve?", "yess", "al"] {
            assert_eq!(parse_decision(line, true, &ALL), None, "{line:?}");
        }
    }

    #[test]
    fn y_n_and_t_answer_a_law1_prompt() {
        assert_eq!(decision("y", false), Some(Decision::Approve));
        assert_eq!(decision(" YES ", false), Some(Decision::Approve));
        assert_eq!(decision("n", false), Some(Decision::Deny));
        assert_eq!(decision("No", true), Some(Decision::Deny));
        assert_eq!(decision("t", true), Some(Decision::Trash));
        assert_eq!(decision("trash", true), Some(Decision::Trash));
    }

    #[test]
    fn trash_is_no_answer_when_it_is_not_offered() {
        assert_eq!(decision("t", false), None);
    }

    #[test]
    fn s_and_a_widen_an_approval_only_as_far_as_offered() {
        assert_eq!(
            parse_decision("y", false, &ALL),
            Some((Decision::Approve, ApprovalScope::Once))
        );
        assert_eq!(
            parse_decision("s", false, &ALL),
            Some((Decision::Approve, ApprovalScope::Task))
        );
        assert_eq!(
            parse_decision("always", false, &ALL),
            Some((Decision::Approve, ApprovalScope::Always))
        );
        let no_always = [ApprovalScope::Once, ApprovalScope::Task];
        assert_eq!(parse_decision("a", false, &no_always), None);
        assert_eq!(parse_decision("s", false, &[ApprovalScope::Once]), None);
    }
}
