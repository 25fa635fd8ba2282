//! Child processes for the tools: each runs in its own process group with stdin closed
//! (or fed a script), a scrubbed environment, bounded output capture, a timeout and
//! cancellation. When the call ends — finished, timed out, cancelled or dropped — the
//! whole group is killed, so nothing a tool started outlives its call.
//!
//! The environment is the one place the tools look at the process environment: to copy
//! it for children without the app's secrets.
//!
//! **Invariant:** a process group spawned here never outlives the future that spawned
//! it (a `Drop` guard kills it); a child can only escape by creating its own session.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use super::ToolError;

/// Bytes kept from each end of a stream; the middle of a huge output is dropped here
/// already (the model sees head + tail anyway).
const CAPTURE_END_BYTES: usize = 512 * 1024;
/// How long pipes may stay open after the group was killed (a process that escaped
/// into its own session could hold them forever).
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// Whether an environment variable holds a secret the children must not see: the
/// app's model keys (`OPENAI_*`, `BRAIN_*`, `TOOL_*`) and anything named like a key,
/// token, secret or password.
pub fn is_secret_var(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    n.starts_with("OPENAI_")
        || n.starts_with("BRAIN_")
        || n.starts_with("TOOL_")
        || n.starts_with("ARTOO_")
            && (n.contains("KEY") || n.contains("TOKEN") || n.contains("SECRET"))
        || n.contains("API_KEY")
        || n.contains("APIKEY")
        || n.ends_with("_TOKEN")
        || n.ends_with("_SECRET")
        || n.contains("SECRET_KEY")
        || n.contains("ACCESS_KEY")
        || n.contains("PASSWORD")
        || n.ends_with("_PASSWD")
}

/// `vars` without secrets.
pub fn scrub_env(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(k, _)| !is_secret_var(&k.to_string_lossy()))
        .collect()
}

/// Where a child's environment comes from.
#[derive(Clone, Debug, Default)]
pub enum BaseEnv {
    /// This process's environment, scrubbed.
    #[default]
    Inherit,
    /// Exactly these variables, scrubbed (tests).
    Fixed(Vec<(OsString, OsString)>),
}

impl BaseEnv {
    pub fn vars(&self) -> Vec<(OsString, OsString)> {
        match self {
            BaseEnv::Inherit => scrub_env(std::env::vars_os()),
            BaseEnv::Fixed(v) => scrub_env(v.clone()),
        }
    }
}

/// A stream captured as its first and last [`CAPTURE_END_BYTES`].
#[derive(Default)]
struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl Capture {
    fn push(&mut self, data: &[u8]) {
        let room = CAPTURE_END_BYTES.saturating_sub(self.head.len());
        let (to_head, rest) = data.split_at(room.min(data.len()));
        self.head.extend_from_slice(to_head);
        for b in rest {
            if self.tail.len() == CAPTURE_END_BYTES {
                self.tail.pop_front();
                self.dropped += 1;
            }
            self.tail.push_back(*b);
        }
    }

    fn into_text(self) -> String {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            s.push_str(&format!("\n…[{} bytes of output dropped]…\n", self.dropped));
        }
        let tail: Vec<u8> = self.tail.into_iter().collect();
        s.push_str(&String::from_utf8_lossy(&tail));
        s
    }
}

async fn capture<R: AsyncRead + Unpin>(mut r: R) -> Capture {
    let mut c = Capture::default();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => c.push(&buf[..n]),
        }
    }
    c
}

/// What a finished child produced.
#[derive(Debug)]
pub struct Finished {
    pub stdout: String,
    pub stderr: String,
    pub status: ExitStatus,
}

/// Kills the child's whole process group when dropped.
struct GroupGuard {
    pgid: Option<i32>,
}

impl GroupGuard {
    fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_group(pgid);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(unix)]
fn kill_group(pgid: i32) {
    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;
    // ESRCH (already gone) is fine.
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
}

#[cfg(not(unix))]
fn kill_group(_pgid: i32) {}

/// What a child reads on standard input.
#[derive(Debug, Default)]
pub enum Input {
    /// Nothing (`/dev/null`).
    #[default]
    Null,
    /// This text, then end of input.
    Text(String),
    /// This open file (the Linux sandbox's socket filter).
    #[cfg(target_os = "linux")]
    File(std::fs::File),
}

/// One program to run.
pub struct Spec<'a> {
    pub program: &'a str,
    pub args: Vec<OsString>,
    pub cwd: Option<&'a Path>,
    pub env: &'a BaseEnv,
    /// `HOME` for the child: the configured home, so `~` means what it means to artoo.
    pub home: Option<&'a Path>,
    pub stdin: Input,
    pub timeout: Duration,
}

/// Runs `spec` to completion, its timeout or `cancel`, and kills its process group in
/// every case.
pub async fn run(spec: Spec<'_>, cancel: &CancellationToken) -> Result<Finished, ToolError> {
    let mut cmd = Command::new(spec.program);
    let (stdin, text) = match spec.stdin {
        Input::Null => (Stdio::null(), None),
        Input::Text(t) => (Stdio::piped(), Some(t)),
        #[cfg(target_os = "linux")]
        Input::File(f) => (Stdio::from(f), None),
    };
    cmd.args(&spec.args)
        .env_clear()
        .envs(spec.env.vars())
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    if let Some(dir) = spec.cwd {
        cmd.current_dir(dir);
    }
    if let Some(home) = spec.home {
        cmd.env("HOME", home);
    }
    let mut child = cmd.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ToolError::NotFound(format!(
                "`{}` is not installed or not on PATH",
                spec.program
            ))
        } else {
            ToolError::io(format!("cannot start `{}`", spec.program), e)
        }
    })?;
    let mut guard = GroupGuard {
        pgid: child.id().and_then(|id| i32::try_from(id).ok()),
    };
    // The input is fed beside the wait (a large one fills the pipe until the child
    // reads it) and stopped with the child, so the writer never outlives the call.
    let feed = match (text, child.stdin.take()) {
        (Some(text), Some(mut stdin)) => Some(tokio::spawn(async move {
            // A child that exits without reading its input is not an error here.
            let _ = stdin.write_all(text.as_bytes()).await;
        })),
        _ => None,
    };
    let out = child.stdout.take().map(|s| tokio::spawn(capture(s)));
    let err = child.stderr.take().map(|s| tokio::spawn(capture(s)));

    enum End {
        Exited(std::io::Result<ExitStatus>),
        TimedOut,
        Cancelled,
    }
    let end = tokio::select! {
        biased;
        _ = cancel.cancelled() => End::Cancelled,
        status = child.wait() => End::Exited(status),
        _ = tokio::time::sleep(spec.timeout) => End::TimedOut,
    };
    // Leave nothing behind: background jobs and grandchildren go with the group.
    guard.kill();
    if let Some(feed) = feed {
        feed.abort();
    }
    let cancelled = matches!(end, End::Cancelled);
    let status = match end {
        End::Exited(s) => Some(s),
        End::TimedOut | End::Cancelled => {
            let _ = child.start_kill();
            let _ = child.wait().await;
            None
        }
    };
    let stdout = drain(out).await;
    let stderr = drain(err).await;
    match status {
        Some(Ok(status)) => Ok(Finished {
            stdout,
            stderr,
            status,
        }),
        Some(Err(e)) => Err(ToolError::io(format!("waiting for `{}`", spec.program), e)),
        None if cancelled => Err(ToolError::Cancelled),
        None => {
            let mut partial = stdout;
            if !stderr.is_empty() {
                partial.push_str("\n[stderr]\n");
                partial.push_str(&stderr);
            }
            Err(ToolError::Timeout {
                secs: spec.timeout.as_secs(),
                partial,
            })
        }
    }
}

/// The captured text of a stream, waiting at most [`DRAIN_GRACE`] for its end.
async fn drain(handle: Option<tokio::task::JoinHandle<Capture>>) -> String {
    let Some(handle) = handle else {
        return String::new();
    };
    let abort = handle.abort_handle();
    match tokio::time::timeout(DRAIN_GRACE, handle).await {
        Ok(Ok(c)) => c.into_text(),
        _ => {
            abort.abort();
            String::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apps_keys_and_anything_secret_are_scrubbed() {
        for secret in [
            "OPENAI_API_KEY",
            "BRAIN_API_KEY",
            "TOOL_API_KEY",
            "TOOL_BASE_URL",
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
        ] {
            assert!(is_secret_var(secret), "{secret}");
        }
        for plain in ["PATH", "HOME", "LANG", "TERM", "USER", "TMPDIR", "SHELL"] {
            assert!(!is_secret_var(plain), "{plain}");
        }
    }

    #[test]
    fn capture_keeps_both_ends_of_a_huge_stream() {
        let mut c = Capture::default();
        c.push(b"start");
        c.push(&vec![b'x'; 3 * CAPTURE_END_BYTES]);
        c.push(b"end");
        let text = c.into_text();
        assert!(text.starts_with("start"));
        assert!(text.ends_with("end"));
        assert!(text.contains("bytes of output dropped"));
    }
}
