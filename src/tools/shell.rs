//! `shell`: `bash -c COMMAND` in the workspace, with a per-call timeout, the app's keys
//! scrubbed from the environment and the whole process tree killed when the call ends.
//! The `find` guards rewrite the command first (see `guards`).

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Value, json};

use super::guards::{self, FindRewrite};
use super::process::{self, BaseEnv, Spec};
use super::{
    Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// Longest per-call timeout a model may ask for.
const MAX_TIMEOUT_SECS: u64 = 600;

/// The shell tool.
#[derive(Clone, Debug, Default)]
pub struct Shell {
    env: BaseEnv,
}

impl Shell {
    pub fn new() -> Self {
        Self::default()
    }

    /// A shell whose children see exactly `vars` (still scrubbed). For tests.
    pub fn with_env(vars: Vec<(std::ffi::OsString, std::ffi::OsString)>) -> Self {
        Self {
            env: BaseEnv::Fixed(vars),
        }
    }
}

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("command"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("a bash command line; runs in the workspace folder"),
    },
    Param {
        name: Cow::Borrowed("timeout_secs"),
        kind: Cow::Borrowed("integer"),
        required: false,
        about: Cow::Borrowed(
            "seconds before the command is stopped (default from settings, at most 600)",
        ),
    },
];

fn timeout_of(input: &Value, ctx: &ToolContext) -> Result<u64, ToolError> {
    match input.get("timeout_secs") {
        None | Some(Value::Null) => Ok(ctx.config.tools.shell_timeout_secs),
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => Ok(n.min(MAX_TIMEOUT_SECS)),
            _ => Err(ToolError::InvalidInput(format!(
                "`timeout_secs` must be a whole number of seconds ≥ 1, got {v}"
            ))),
        },
    }
}

impl Tool for Shell {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: Cow::Borrowed(ToolName::Shell.as_str()),
            priority: 7,
            summary: Cow::Borrowed(
                "General bash for counting, aggregation or anything the tools above do not cover. Never use find on personal folders (use mdfind).",
            ),
            params: Cow::Borrowed(PARAMS),
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let command = super::str_param(input, "command")?;
        let timeout = timeout_of(input, ctx)?;
        let with_timeout = |command: &str| {
            let mut v = json!({ "command": command });
            if input.get("timeout_secs").is_some_and(|t| !t.is_null()) {
                v["timeout_secs"] = json!(timeout);
            }
            v
        };
        match guards::rewrite_find(command, &ctx.config.home) {
            FindRewrite::Unchanged => Ok(Prepared {
                tool: Cow::Borrowed("shell"),
                input: with_timeout(command),
                target: command.to_string(),
                action: Some(Law1Action::Shell(command.to_string())),
                note: None,
                approved: false,
            }),
            FindRewrite::Stripped(stripped) => Ok(Prepared {
                tool: Cow::Borrowed("shell"),
                input: with_timeout(&stripped),
                target: stripped.clone(),
                action: Some(Law1Action::Shell(stripped)),
                note: Some("-maxdepth was removed so the search covers every level".into()),
                approved: false,
            }),
            FindRewrite::Mdfind {
                query,
                onlyin,
                kind,
                original,
            } => {
                let mut input = json!({
                    "query": query,
                    "onlyin": onlyin.to_string_lossy(),
                    "redirected_from": original,
                });
                if let Some(k) = kind {
                    input["type"] = json!(k.to_string());
                }
                Ok(Prepared {
                    tool: Cow::Borrowed("mdfind"),
                    input,
                    target: query,
                    action: None,
                    note: Some(format!(
                        "find on a personal folder was answered from the file index (mdfind) instead: `{original}`"
                    )),
                    approved: false,
                })
            }
        }
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let command = super::str_param(&call.input, "command")?;
            let timeout = timeout_of(&call.input, ctx)?;
            let workspace = &ctx.config.workspace;
            tokio::fs::create_dir_all(workspace).await.map_err(|e| {
                ToolError::io(
                    format!("cannot create the workspace {}", workspace.display()),
                    e,
                )
            })?;
            let finished = process::run(
                Spec {
                    program: "bash",
                    args: vec!["-c".into(), command.into()],
                    cwd: Some(workspace),
                    env: &self.env,
                    home: Some(&ctx.config.home),
                    stdin: None,
                    timeout: Duration::from_secs(timeout),
                },
                &ctx.cancel,
            )
            .await?;
            if let Some(failure) =
                command_failure(&finished.stdout, &finished.stderr, finished.status)
            {
                return Err(ToolError::Failed(failure));
            }
            Ok(format_output(
                &finished.stdout,
                &finished.stderr,
                finished.status,
            ))
        })
    }
}

/// A command that exited non-zero, printed nothing on stdout and complained on stderr
/// failed: there is no result, only an error (`cat missing.txt`, `ls /nope`). Recording
/// it as an ok call let a validator take "No such file" for work done. A non-zero exit
/// with a quiet stderr stays a result — `grep` finding nothing is a valid empty answer —
/// and so does one with stdout: the partial output is evidence, judged with its status.
fn command_failure(stdout: &str, stderr: &str, status: std::process::ExitStatus) -> Option<String> {
    if status.success() || !stdout.trim().is_empty() || stderr.trim().is_empty() {
        return None;
    }
    let how = match status.code() {
        Some(code) => format!("the command failed with exit status {code}"),
        None => "the command was stopped by a signal".to_string(),
    };
    Some(format!("{how}: {}", stderr.trim()))
}

/// stdout, then stderr and the exit status when they say something.
fn format_output(stdout: &str, stderr: &str, status: std::process::ExitStatus) -> String {
    let mut out = stdout.trim_end_matches('\n').to_string();
    if !stderr.trim().is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("[stderr]\n");
        out.push_str(stderr.trim_end_matches('\n'));
    }
    if !status.success() {
        if !out.is_empty() {
            out.push('\n');
        }
        match status.code() {
            Some(code) => out.push_str(&format!("[exit status {code}]")),
            None => out.push_str("[stopped by a signal]"),
        }
    }
    if out.is_empty() {
        out.push_str("(no output)");
    }
    out
}
