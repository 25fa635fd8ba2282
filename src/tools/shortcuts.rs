//! `shortcuts`: runs a named Shortcut (`shortcuts run NAME`). macOS only; elsewhere an
//! explicit environmental failure.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::applescript::{require_macos, run_app_program};
use super::{
    Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// The shortcuts tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shortcuts;

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("name"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("the Shortcut's name exactly as in the Shortcuts app"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("input"),
        kind: Cow::Borrowed("string"),
        required: false,
        about: Cow::Borrowed("a file path to pass as the Shortcut's input"),
        choices: super::Choices::Open,
    },
];

impl Tool for Shortcuts {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::Shortcuts.into(),
            priority: 5,
            summary: Cow::Borrowed("Run a named Apple Shortcut (iCloud-synced)."),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let name = super::str_param(input, "name")?;
        let file = super::opt_str_param(input, "input")?;
        require_macos(ToolName::Shortcuts)?;
        let mut executed = json!({ "name": name });
        if let Some(f) = file {
            executed["input"] = json!(ctx.resolve_path(f).to_string_lossy());
        }
        Ok(Prepared {
            tool: ToolName::Shortcuts.into(),
            input: executed,
            target: name.to_string(),
            action: Some(Law1Action::Shortcut(name.to_string())),
            note: None,
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let name = super::str_param(&call.input, "name")?;
            let mut args: Vec<std::ffi::OsString> = vec!["run".into(), name.into()];
            if let Some(f) = super::opt_str_param(&call.input, "input")? {
                args.push("--input-path".into());
                args.push(f.into());
            }
            let out = run_app_program(
                "shortcuts",
                args,
                None,
                ctx,
                &format!("the Shortcut \"{name}\" failed"),
            )
            .await?;
            Ok(if out.is_empty() {
                format!("Shortcut \"{name}\" ran (no output)")
            } else {
                out
            })
        })
    }
}
