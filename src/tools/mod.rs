//! The executor's tools, in priority order: mdfind, glob, read_file, write_file,
//! calculate, copy_files, list_files, read_table, applescript, shortcuts, shell and
//! search, each behind one [`Tool`] trait, and the [`Toolbox`] that runs a call through the guards.
//!
//! One call, in order: refuse if the task was cancelled; look up the tool; refuse a
//! blocked tool; `prepare` (validate, apply code-side rewrites: the personal-path `find`
//! redirect and the `-maxdepth` strip); refuse a blocked tool or target after the
//! rewrite; refuse a call identical to an earlier one of the sub-task; classify with
//! Law 1 and, when irreversible — or when the tool is one of the sub-task's
//! `confirm_tools` (a memory Caution approach) — ask through the broker; run; cut the output for the
//! model (head + tail) and write one [`ToolCallRecord`], published as a
//! [`ToolCallEvent`] and appended to the sub-task's [`CallHistory`].
//!
//! **Invariant:** this is the only code in the core that spawns processes or writes
//! files, and it runs nothing Law 1 calls irreversible unless the user approved that
//! exact action. Every call, whatever its outcome, yields exactly one record; outcomes
//! are data ([`ToolOutcome`]), never errors that end the task.

mod applescript;
mod asked;
mod calculate;
mod context;
mod convert_file;
mod copy_files;
mod edit_file;
mod file_ops;
mod files;
mod gate;
mod glob;
pub mod guards;
mod list_files;
mod mdfind;
mod observed;
mod offer;
mod outcome;
pub(crate) mod places;
mod process;
mod read_file;
mod read_lines;
mod read_table;
pub mod sandbox;
mod search;
mod set_value;
mod shell;
mod shortcuts;
mod spec;
mod table;
mod toolbox;
pub mod trash;
mod walk;
mod write_file;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use serde_json::Value;

pub use crate::contracts::{McpToolName, ToolName, ToolRef, join_names};
pub use applescript::AppleScript;
pub use asked::{
    Asked, Fit, NAME_SELECTORS, columns_shown, file_names_stated, fit, nth_listed, ordinal_number,
};
pub use calculate::Calculate;
pub(crate) use context::resolve_user_path;
pub use context::{
    CallHistory, EarlierFailure, Effects, RealFs, TaskCalls, ToolContext, canonical,
};
pub use convert_file::ConvertFile;
pub use copy_files::CopyFiles;
pub use edit_file::EditFile;
pub use file_ops::{DeleteFiles, MoveFiles};
pub use files::kinds as file_kinds;
pub(crate) use files::text_instead;
pub use glob::Glob;
pub use list_files::ListFiles;
pub use mdfind::{Locate, Mdfind};
pub use offer::{changes_files, changing_specs, offered_specs};
pub use outcome::{ToolError, ToolOutcome, ToolResult};
pub(crate) use process::scrub_env;
pub use read_file::ReadFile;
pub use read_lines::{ReadLines, sole_line};
pub use read_table::ReadTable;
pub use search::Search;
pub use set_value::SetValue;
pub use shell::Shell;
pub use shortcuts::Shortcuts;
pub use spec::{Choices, Form, Param, Seen, SpecText, ToolSpec, tool_list};
pub use table::{Facts as TableFacts, facts as table_facts};
pub use toolbox::Toolbox;
pub use write_file::WriteFile;

use crate::config::Config;
use crate::config::SandboxSetting;
use crate::contracts::EVIDENCE_HEAD_CHARS;
use crate::laws::classify::{self, Action, Assessment, Scope};
use crate::laws::mcp::McpGate;
use crate::text::first_chars;

/// A Law 1 action a prepared call would take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Law1Action {
    /// A shell command line.
    Shell(String),
    /// A file write.
    WriteFile {
        /// The file, absolute.
        path: PathBuf,
        /// Whether it appends rather than replaces.
        append: bool,
    },
    /// An AppleScript program.
    AppleScript(String),
    /// A Shortcut, by name.
    Shortcut(String),
    /// A call of a tool of an MCP server, with what Law 1 knows of that tool.
    Mcp(McpGate),
}

impl Law1Action {
    /// The assessment of the action: the classifier's, or the MCP gate rule's.
    fn assess(&self, scope: &Scope<'_>) -> Assessment {
        let action = match self {
            Law1Action::Shell(c) => Action::Shell(c),
            Law1Action::WriteFile { path, append } => Action::WriteFile {
                path,
                append: *append,
            },
            Law1Action::AppleScript(s) => Action::AppleScript(s),
            Law1Action::Shortcut(n) => Action::Shortcut { name: n },
            Law1Action::Mcp(gate) => return gate.assess(),
        };
        classify::classify(&action, scope)
    }

    /// The exact action, as shown in the confirmation dialog.
    fn command(&self) -> String {
        match self {
            Law1Action::Shell(c) | Law1Action::AppleScript(c) => c.clone(),
            Law1Action::WriteFile { path, append } => format!(
                "{} {}",
                if *append { "append to" } else { "write" },
                path.display()
            ),
            Law1Action::Shortcut(n) => format!("shortcuts run \"{n}\""),
            Law1Action::Mcp(gate) => gate.call.clone(),
        }
    }
}

/// A validated call, after code-side rewrites, ready to run exactly as recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// The tool that runs (the personal-path `find` redirect turns `shell` into
    /// `mdfind`).
    pub tool: ToolRef,
    /// The parameters as executed, a JSON object.
    pub input: Value,
    /// The primary target: path, query or command.
    pub target: String,
    /// What Law 1 must judge before it runs, if anything.
    pub action: Option<Law1Action>,
    /// Said to the model ahead of the output (e.g. why a command was rewritten).
    pub note: Option<String>,
    /// Set by the toolbox only when the user approved this exact call under Law 1.
    /// Tools that could destroy data if the world changed since classification (a file
    /// appearing before `write_file` creates it) check it again.
    pub approved: bool,
    /// Set by the toolbox: run inside the OS sandbox with this plan. `None` runs the
    /// call as it is (approved, proven reversible where there is no sandbox, or a tool
    /// that runs no program).
    pub sandbox: Option<sandbox::Plan>,
}

impl Prepared {
    /// A call no Law 1 question concerns (a read, a listing, a copy into new files), run
    /// as given: no rewrite note, no sandbox.
    pub(crate) fn plain(tool: ToolName, input: Value, target: String) -> Self {
        Self {
            tool: tool.into(),
            input,
            target,
            action: None,
            note: None,
            approved: false,
            sandbox: None,
        }
    }
}

/// What a tool's call returns: its output text, or why it failed.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send + 'a>>;

/// One tool of the chain.
pub trait Tool: Send + Sync {
    /// The tool's name, description and parameters, as offered to the model.
    fn spec(&self) -> ToolSpec;

    /// Validates `input`, applies rewrites and names the target and the Law 1 action.
    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError>;

    /// Runs a prepared call. The toolbox calls this only after every guard and the
    /// Law 1 gate passed. Dropping the future stops the work (processes are killed).
    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a>;

    /// The OS sandbox this tool runs its programs in, if it has one. A tool with one
    /// runs every call the user did not confirm inside it.
    fn sandbox(&self) -> Option<&sandbox::Sandbox> {
        None
    }
}

/// Whether the shell tool's sandbox is on for `config`: off when settings turn it off,
/// or when it cannot start here (the reason says why). The CLI and the desktop app show
/// it; while it is off, every command artoo cannot prove harmless asks first.
pub async fn sandbox_status(config: &Config) -> sandbox::Status {
    if config.tools.sandbox == SandboxSetting::Off {
        return sandbox::Status::Off(
            "it is turned off in settings (tools.sandbox = \"off\")".into(),
        );
    }
    sandbox::Sandbox::standard().status().await.clone()
}

/// The first line of a script, for a record's target.
pub(crate) fn first_line(s: &str) -> String {
    first_chars(
        s.lines().find(|l| !l.trim().is_empty()).unwrap_or(s).trim(),
        EVIDENCE_HEAD_CHARS,
    )
}

/// The parameter of `obj` that one of `names` means, its key compared without case and
/// without anything but letters and digits (`groupBy`, `group_by` and `group-by` are one):
/// a small model writes the names it knows, not always the ones offered.
pub(crate) fn lenient_param<'a>(
    obj: &'a serde_json::Map<String, Value>,
    names: &[&str],
) -> Option<&'a Value> {
    obj.iter()
        .find_map(|(k, v)| names.contains(&lenient_key(k).as_str()).then_some(v))
}

/// A name as [`lenient_param`] compares it: lowercase letters and digits only.
pub(crate) fn lenient_key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Required string parameter.
pub(crate) fn str_param<'a>(input: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    match input.get(name) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
        Some(Value::String(_)) => Err(ToolError::InvalidInput(format!("`{name}` is empty"))),
        Some(other) => Err(ToolError::InvalidInput(format!(
            "`{name}` must be a string, got {other}"
        ))),
        None => Err(ToolError::InvalidInput(format!("`{name}` is required"))),
    }
}

/// Optional string parameter (absent, null or empty → `None`).
pub(crate) fn opt_str_param<'a>(
    input: &'a Value,
    name: &str,
) -> Result<Option<&'a str>, ToolError> {
    match input.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(ToolError::InvalidInput(format!(
            "`{name}` must be a string, got {other}"
        ))),
    }
}
