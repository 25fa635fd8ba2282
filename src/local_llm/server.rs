//! llama-server as a child process of artoo: on a free loopback port, ready when its
//! `/health` answers, stopped with SIGTERM (then killed) when artoo is done with it.
//!
//! **Invariant:** a server started here never outlives its [`LocalServer`]: dropping the
//! handle kills the process, and [`LocalServer::stop`] waits until it has exited.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

use super::LocalError;
use crate::config::pins::ServerArgs;

/// How long loading the weights may take before start-up counts as failed.
pub const READY_TIMEOUT: Duration = Duration::from_secs(180);
/// How long a stopped server may take to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(200);

/// How many prompt snapshots a model's folder keeps, newest first: one per system prompt
/// in use (the roles and their variants: 14 in the real-model CI step, most of them a
/// few megabytes, about 250 MB in all for the 1.5B model). Older prompt versions (a new
/// release of artoo, other MCP tools) fall off the end.
pub const SNAPSHOTS_KEPT: usize = 16;

/// Deletes all but the `keep` newest snapshots artoo saved in `dir` (each is tens of
/// megabytes; an older one is only made again if its prompt comes back). Best effort.
pub fn prune_snapshots(dir: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut saved: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("artoo-") && name.ends_with(".bin")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    saved.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    for (_, path) in saved.into_iter().skip(keep) {
        if let Err(e) = std::fs::remove_file(&path) {
            tracing::debug!(path = %path.display(), error = %e, "could not delete an old prompt snapshot");
        }
    }
}

/// A running llama-server.
#[derive(Debug)]
pub struct LocalServer {
    child: Child,
    port: u16,
    model: String,
    log: PathBuf,
}

/// A port on 127.0.0.1 nobody listens on right now.
fn free_port() -> Result<u16, LocalError> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
        .map_err(|e| LocalError::io(Path::new("127.0.0.1:0"), e))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| LocalError::io(Path::new("127.0.0.1:0"), e))
}

impl LocalServer {
    /// Starts `binary` serving `weights` as `model` and waits until it is ready.
    /// Its prompt snapshots go to `snapshots` (created if missing).
    pub async fn start(
        binary: &Path,
        weights: &Path,
        model: &str,
        args: &ServerArgs,
        log: &Path,
        snapshots: &Path,
    ) -> Result<LocalServer, LocalError> {
        let port = free_port()?;
        std::fs::create_dir_all(snapshots).map_err(|e| LocalError::io(snapshots, e))?;
        let log_file = std::fs::File::create(log).map_err(|e| LocalError::io(log, e))?;
        let err_file = log_file.try_clone().map_err(|e| LocalError::io(log, e))?;
        let child = Command::new(binary)
            .args(args.argv(weights, model, port, snapshots))
            .stdin(Stdio::null())
            .stdout(log_file)
            .stderr(err_file)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| LocalError::io(binary, e))?;
        let mut server = LocalServer {
            child,
            port,
            model: model.to_string(),
            log: log.to_path_buf(),
        };
        server.wait_ready().await?;
        Ok(server)
    }

    async fn wait_ready(&mut self) -> Result<(), LocalError> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(2))
            .build()
            .map_err(|e| LocalError::NotReady {
                detail: e.to_string(),
            })?;
        let health = format!("http://127.0.0.1:{}/health", self.port);
        let deadline = tokio::time::Instant::now() + READY_TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(LocalError::NotReady {
                    detail: format!(
                        "llama-server exited ({status}) while starting:\n{}",
                        self.log_tail()
                    ),
                });
            }
            if let Ok(reply) = client.get(&health).send().await
                && reply.status().is_success()
            {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                let _ = self.child.kill().await;
                return Err(LocalError::NotReady {
                    detail: format!(
                        "not ready after {} s:\n{}",
                        READY_TIMEOUT.as_secs(),
                        self.log_tail()
                    ),
                });
            }
            tokio::time::sleep(POLL).await;
        }
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(15)..].join("\n")
    }

    /// The OpenAI-compatible endpoint, `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The model name the server answers to.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Asks the server to exit, kills it if it has not after a grace period, and waits.
    pub async fn stop(mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.child.id().and_then(|id| i32::try_from(id).ok()) {
            use nix::sys::signal::{Signal, kill};
            use nix::unistd::Pid;
            let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
            if tokio::time::timeout(STOP_GRACE, self.child.wait())
                .await
                .is_ok()
            {
                return;
            }
        }
        let _ = self.child.kill().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pruning_keeps_the_newest_snapshots_and_nothing_else_is_touched() {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = std::time::SystemTime::now() - Duration::from_secs(3600);
        for i in 0..5u64 {
            let path = dir.path().join(format!("artoo-{i:016x}.bin"));
            std::fs::write(&path, b"kv").expect("write");
            let file = std::fs::File::options()
                .write(true)
                .open(&path)
                .expect("open");
            file.set_modified(base + Duration::from_secs(60 * i))
                .expect("set mtime");
        }
        std::fs::write(dir.path().join("someone-else.bin"), b"x").expect("write");
        prune_snapshots(dir.path(), 2);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("read")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "artoo-0000000000000003.bin",
                "artoo-0000000000000004.bin",
                "someone-else.bin"
            ]
        );
        // A folder that does not exist yet is no error.
        prune_snapshots(&dir.path().join("missing"), 2);
    }
}
