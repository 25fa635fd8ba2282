//! Standard input, owned by one thread: a line editor with history on a terminal, plain
//! lines otherwise. Callers ask for one line at a time; nothing is read ahead, so piped
//! commands are consumed in order, only when the REPL or a prompt wants them.

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::mpsc;

use tokio::sync::oneshot;

/// What one read produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Read {
    Line(String),
    /// Ctrl+C while the line editor had the terminal.
    Interrupted,
    /// Ctrl+D, or the end of piped input.
    Eof,
}

struct Request {
    prompt: String,
    /// Whether the line goes into the editor's history (REPL input, not answers).
    remember: bool,
    reply: oneshot::Sender<Read>,
}

/// The async side of the stdin thread. At most one read is outstanding; a read that
/// its asker no longer wants is marked stale, and its line is discarded when it comes.
pub struct Input {
    requests: mpsc::Sender<Request>,
    pending: Option<oneshot::Receiver<Read>>,
    stale: bool,
    /// A prompt asked for while a stale read was still outstanding.
    queued: Option<(String, bool)>,
    /// stdin is a terminal: the user can answer prompts.
    interactive: bool,
}

impl Input {
    /// Starts the stdin thread. `history` is the editor's history file (terminal only).
    pub fn start(interactive: bool, history: Option<PathBuf>) -> Input {
        Self::serve(interactive, move |rx| {
            if interactive {
                serve_terminal(rx, history);
            } else {
                serve_pipe(rx, std::io::stdin().lock());
            }
        })
    }

    /// Lines from `reader` instead of stdin, answering as a terminal would when
    /// `interactive` (tests).
    #[cfg(test)]
    pub fn from_reader(reader: impl BufRead + Send + 'static, interactive: bool) -> Input {
        Self::serve(interactive, move |rx| serve_pipe(rx, reader))
    }

    fn serve(
        interactive: bool,
        serve: impl FnOnce(mpsc::Receiver<Request>) + Send + 'static,
    ) -> Input {
        let (tx, rx) = mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("artoo-stdin".into())
            .spawn(move || serve(rx))
            .expect("the stdin thread starts");
        Input {
            requests: tx,
            pending: None,
            stale: false,
            queued: None,
            interactive,
        }
    }

    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// Whether a read is outstanding for a current asker.
    pub fn reading(&self) -> bool {
        self.pending.is_some() && !self.stale || self.queued.is_some()
    }

    /// Asks for a line. While the previous read is still wanted this is a no-op; while it
    /// is stale, this prompt follows it (the editor cannot take a prompt back).
    pub fn ask(&mut self, prompt: &str, remember: bool) {
        match (&self.pending, self.stale) {
            (None, _) => self.send(prompt, remember),
            (Some(_), true) => self.queued = Some((prompt.to_string(), remember)),
            (Some(_), false) => {}
        }
    }

    fn send(&mut self, prompt: &str, remember: bool) {
        let (reply, rx) = oneshot::channel();
        let request = Request {
            prompt: prompt.to_string(),
            remember,
            reply,
        };
        if self.requests.send(request).is_ok() {
            self.pending = Some(rx);
            self.stale = false;
        }
    }

    /// The outstanding read is no longer wanted: its line will be discarded.
    pub fn abandon(&mut self) {
        if self.pending.is_some() {
            self.stale = true;
        }
        self.queued = None;
    }

    /// The next line for the current asker. Cancel-safe: dropping the future keeps the
    /// read. Pends forever when nothing is asked (use it in `select!` behind a guard).
    pub async fn next(&mut self) -> Read {
        loop {
            let Some(rx) = self.pending.as_mut() else {
                return std::future::pending().await;
            };
            // The thread is gone only when stdin is: that is the end of input.
            let read = rx.await.unwrap_or(Read::Eof);
            self.pending = None;
            if !std::mem::take(&mut self.stale) {
                return read;
            }
            if read == Read::Eof {
                return read;
            }
            tracing::warn!(
                "that line answered a question that had already closed; it was not used"
            );
            match self.queued.take() {
                Some((prompt, remember)) => self.send(&prompt, remember),
                None => return std::future::pending().await,
            }
        }
    }
}

fn serve_terminal(rx: mpsc::Receiver<Request>, history: Option<PathBuf>) {
    use rustyline::error::ReadlineError;
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(editor) => editor,
        Err(e) => {
            tracing::warn!(error = %e, "no line editor; reading plain lines");
            return serve_pipe(rx, std::io::stdin().lock());
        }
    };
    if let Some(path) = &history {
        // A missing history file is the first run.
        let _ = editor.load_history(path);
    }
    for request in rx {
        let read = match editor.readline(&request.prompt) {
            Ok(line) => {
                if request.remember && !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                    if let Some(path) = &history
                        && let Err(e) = editor.append_history(path)
                    {
                        tracing::debug!(error = %e, "history not saved");
                    }
                }
                Read::Line(line)
            }
            Err(ReadlineError::Interrupted) => Read::Interrupted,
            Err(ReadlineError::Eof) => Read::Eof,
            Err(e) => {
                tracing::warn!(error = %e, "reading the terminal failed");
                Read::Eof
            }
        };
        let eof = read == Read::Eof;
        let _ = request.reply.send(read);
        if eof {
            return;
        }
    }
}

fn serve_pipe(rx: mpsc::Receiver<Request>, mut lines: impl BufRead) {
    let mut buf = String::new();
    for request in rx {
        buf.clear();
        let read = match lines.read_line(&mut buf) {
            Ok(0) | Err(_) => Read::Eof,
            Ok(_) => Read::Line(buf.trim_end_matches(['\n', '\r']).to_string()),
        };
        let eof = read == Read::Eof;
        let _ = request.reply.send(read);
        if eof {
            return;
        }
    }
}

/// The multi-line block marker: a line that is exactly this opens or closes a block.
pub const BLOCK_MARKER: &str = "\"\"\"";

/// Assembles REPL input: single lines pass through; lines between two `"""` lines
/// become one entry joined with newlines.
#[derive(Debug, Default)]
pub struct Blocks {
    open: Option<Vec<String>>,
}

impl Blocks {
    /// Feeds one line; returns an entry when one is complete.
    pub fn feed(&mut self, line: &str) -> Option<String> {
        let marker = line.trim() == BLOCK_MARKER;
        match (&mut self.open, marker) {
            (None, true) => {
                self.open = Some(Vec::new());
                None
            }
            (None, false) => Some(line.to_string()),
            (Some(_), true) => self.open.take().map(|lines| lines.join("\n")),
            (Some(lines), false) => {
                lines.push(line.to_string());
                None
            }
        }
    }

    /// Whether a block is open (the prompt shows a continuation marker).
    pub fn in_block(&self) -> bool {
        self.open.is_some()
    }

    /// Drops an open block (Ctrl+C inside it).
    pub fn discard(&mut self) -> bool {
        self.open.take().is_some()
    }
}

/// Ctrl+C as a stream of presses (SIGINT on Unix). Listening starts when this is built:
/// from then on SIGINT no longer ends the process by itself.
pub struct Interrupts {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl Interrupts {
    pub fn listen() -> std::io::Result<Interrupts> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Interrupts {
                signal: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Interrupts {})
        }
    }

    /// The next press.
    pub async fn recv(&mut self) {
        #[cfg(unix)]
        {
            if self.signal.recv().await.is_none() {
                std::future::pending::<()>().await;
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_between_triple_quotes_become_one_entry() {
        let mut b = Blocks::default();
        assert_eq!(b.feed("hello"), Some("hello".into()));
        assert_eq!(b.feed("\"\"\""), None);
        assert!(b.in_block());
        assert_eq!(b.feed("first line"), None);
        assert_eq!(b.feed("  indented second"), None);
        assert_eq!(
            b.feed("  \"\"\"  "),
            Some("first line\n  indented second".into())
        );
        assert!(!b.in_block());
    }

    #[test]
    fn a_discarded_block_leaves_nothing_behind() {
        let mut b = Blocks::default();
        b.feed("\"\"\"");
        b.feed("half a thought");
        assert!(b.discard());
        assert!(!b.discard());
        assert_eq!(b.feed("next"), Some("next".into()));
    }
}
