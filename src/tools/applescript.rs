//! `applescript`: controls macOS apps through `osascript` (the script goes in on stdin).
//! Elsewhere it is an explicit environmental failure, never a silent no-op.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Value, json};

use super::process::{self, BaseEnv, Input, Spec};
use super::{
    Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// The applescript tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct AppleScript;

const PARAMS: &[Param] = &[Param {
    name: Cow::Borrowed("script"),
    kind: Cow::Borrowed("string"),
    required: true,
    about: Cow::Borrowed(
        "AppleScript source, e.g. tell application \"Calendar\" to get name of every calendar",
    ),
    choices: super::Choices::Open,
}];

/// Off macOS, the explicit environmental failure the model and R4a can read.
pub(super) fn require_macos(tool: ToolName) -> Result<(), ToolError> {
    if cfg!(target_os = "macos") {
        Ok(())
    } else {
        Err(ToolError::Unavailable {
            tool,
            platform: std::env::consts::OS,
        })
    }
}

/// Runs one of macOS's app-automation programs in the workspace; a non-zero exit is a
/// failure carrying its stderr. Returns the trimmed stdout (maybe empty).
pub(super) async fn run_app_program(
    program: &'static str,
    args: Vec<std::ffi::OsString>,
    stdin: Option<String>,
    ctx: &ToolContext,
    failed: &str,
) -> Result<String, ToolError> {
    let done = process::run(
        Spec {
            program,
            args,
            cwd: Some(&ctx.config.workspace),
            env: &BaseEnv::Inherit,
            home: Some(&ctx.config.home),
            stdin: stdin.map_or(Input::Null, Input::Text),
            timeout: Duration::from_secs(ctx.config.tools.shell_timeout_secs),
        },
        &ctx.cancel,
    )
    .await?;
    if done.status.success() {
        Ok(done.stdout.trim_end().to_string())
    } else {
        Err(ToolError::Failed(format!(
            "{failed}: {}",
            done.stderr.trim()
        )))
    }
}

impl Tool for AppleScript {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::Applescript.into(),
            priority: 5,
            summary: Cow::Borrowed(
                "Control macOS apps (Mail, Calendar, Reminders, Music, Finder…) with AppleScript.",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let script = super::str_param(input, "script")?;
        require_macos(ToolName::Applescript)?;
        Ok(Prepared {
            tool: ToolName::Applescript.into(),
            input: json!({ "script": script }),
            target: super::first_line(script),
            action: Some(Law1Action::AppleScript(script.to_string())),
            note: None,
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let script = super::str_param(&call.input, "script")?;
            let out = run_app_program(
                "osascript",
                vec!["-".into()],
                Some(script.to_string()),
                ctx,
                "osascript failed",
            )
            .await?;
            Ok(if out.is_empty() {
                "(no output)".into()
            } else {
                out
            })
        })
    }
}
