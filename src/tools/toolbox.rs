//! The toolbox: the executor's tools by name, the specs it offers the model, and the entry
//! point of one call.
//!
//! Invariant: every call, whatever its outcome, yields exactly one record, published as a
//! tool-call event and kept in the sub-task's history.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::Value;

use super::{
    AppleScript, Calculate, ConvertFile, CopyFiles, DeleteFiles, EditFile, Glob, ListFiles, Mdfind,
    MoveFiles, ReadFile, ReadLines, ReadTable, Search, SetValue, Shell, Shortcuts, Tool,
    ToolContext, ToolName, ToolOutcome, ToolRef, ToolResult, ToolSpec, WriteFile, shell,
};

use crate::contracts::{EVIDENCE_HEAD_CHARS, Role, ToolCallEvent, ToolCallRecord, ToolCallStatus};
use crate::text::first_chars;
use crate::text::{Keep, elide_middle};

use super::gate::{Decided, target_of};

/// The tools of the executor, by name.
#[derive(Clone)]
pub struct Toolbox {
    pub(super) tools: BTreeMap<ToolRef, Arc<dyn Tool>>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.keys()).finish()
    }
}

impl Default for Toolbox {
    fn default() -> Self {
        Self::standard()
    }
}

impl Toolbox {
    /// The standard chain: mdfind, glob, read_file, write_file, then the typed tools
    /// (calculate, convert_file, copy_files, delete_files, edit_file, list_files, move_files,
    /// set_value,
    /// read_lines, read_table), applescript, shortcuts, shell, search.
    pub fn standard() -> Self {
        Self::with_tools(vec![
            Arc::new(ListFiles),
            Arc::new(ReadTable),
            Arc::new(ReadLines),
            Arc::new(Calculate),
            Arc::new(Mdfind::new()),
            Arc::new(Glob),
            Arc::new(CopyFiles),
            Arc::new(MoveFiles),
            Arc::new(DeleteFiles),
            Arc::new(ReadFile),
            Arc::new(WriteFile),
            Arc::new(EditFile),
            Arc::new(ConvertFile),
            Arc::new(SetValue),
            Arc::new(AppleScript),
            Arc::new(Shortcuts),
            Arc::new(Shell::new()),
            Arc::new(Search::new()),
        ])
    }

    /// A toolbox of exactly `tools`, looked up by their spec names.
    pub fn with_tools(tools: Vec<Arc<dyn Tool>>) -> Self {
        Self {
            tools: tools.into_iter().map(|t| (t.spec().name, t)).collect(),
        }
    }

    /// This toolbox with `more` tools after its own. A tool whose name is taken already
    /// is left out (a built-in tool is never replaced).
    pub fn extended(mut self, more: Vec<Arc<dyn Tool>>) -> Self {
        for tool in more {
            let name = tool.spec().name;
            if self.tools.contains_key(&name) {
                tracing::warn!(%name, "a tool of that name exists; the second one is left out");
                continue;
            }
            self.tools.insert(name, tool);
        }
        self
    }

    /// Whether the toolbox holds `tool`.
    pub fn has(&self, tool: &ToolRef) -> bool {
        self.tools.contains_key(tool)
    }

    /// Specs in priority order, for the executor's prompt.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = self.tools.values().map(|t| t.spec()).collect();
        specs.sort_by(|a, b| (a.priority, &a.name).cmp(&(b.priority, &b.name)));
        specs
    }

    /// The tools a model may be offered on this platform, in priority order: the built-in
    /// tools this platform has, then every tool learned at run time (MCP).
    pub fn offered_specs(&self) -> Vec<ToolSpec> {
        self.specs()
            .into_iter()
            .filter(|s| s.name.builtin().is_none_or(ToolName::is_available))
            .collect()
    }

    /// Runs one call through every guard. Never fails: the outcome is data.
    pub async fn call(&self, ctx: &ToolContext, tool: &ToolRef, input: Value) -> ToolResult {
        let started = tokio::time::Instant::now();
        let Decided {
            prepared,
            outcome,
            confirmation,
            granted,
        } = self.decide_and_run(ctx, tool, &input).await;
        let (record_tool, record_input, target, note) = match &prepared {
            Some(p) => (
                p.tool.clone(),
                p.input.clone(),
                p.target.clone(),
                p.note.clone(),
            ),
            None => (tool.clone(), input.clone(), target_of(&input), None),
        };
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (output, error, failure) = match &outcome {
            ToolOutcome::Ok { output } => (output.as_str(), None, None),
            ToolOutcome::Error {
                message,
                output,
                failure,
            } => (output.as_str(), Some(message.clone()), Some(*failure)),
            ToolOutcome::Denied { reason } | ToolOutcome::Refused { reason } => {
                ("", Some(reason.clone()), None)
            }
        };
        let failed_exit = match &outcome {
            ToolOutcome::Ok { output } if record_tool == ToolName::Shell => {
                shell::failed_exit(output)
            }
            _ => None,
        };
        let record = ToolCallRecord {
            tool: record_tool,
            input: record_input,
            target,
            output_head: first_chars(output, EVIDENCE_HEAD_CHARS),
            status: outcome.status(),
            error,
            failure,
            duration_ms,
            confirmation,
            failed_exit,
            effects: ctx.effects.take(),
            grant: granted.grant.as_ref().map(|class| class.words.clone()),
        };
        let limit = ctx.config.tools.output_limit_chars;
        let mut for_model = String::new();
        if let Some(note) = &note {
            let _ = writeln!(for_model, "({note})");
        }
        if let Some(note) = granted.note() {
            let _ = writeln!(for_model, "({note})");
        }
        match &outcome {
            ToolOutcome::Ok { output } => {
                for_model.push_str(&elide_middle(output, limit, Keep::MostlyEnd))
            }
            ToolOutcome::Error {
                message, output, ..
            } => {
                let _ = write!(for_model, "ERROR: {message}");
                if !output.is_empty() {
                    let _ = write!(
                        for_model,
                        "\nOutput before the error:\n{}",
                        elide_middle(output, limit, Keep::MostlyEnd)
                    );
                }
            }
            ToolOutcome::Denied { reason } | ToolOutcome::Refused { reason } => {
                for_model.push_str(reason)
            }
        }
        ctx.history.push(record.clone());
        ctx.task_calls.note(&record);
        let from_outside = record.tool.builtin().is_none_or(|t| t == ToolName::Search)
            || prepared
                .as_ref()
                .and_then(|p| p.sandbox.as_ref())
                .is_some_and(|plan| plan.network);
        if record.status == ToolCallStatus::Ok && from_outside {
            ctx.task_calls.note_untrusted();
        }
        ctx.broker.bus().publish(
            Role::Observer,
            ToolCallEvent {
                task_id: ctx.task_id.clone(),
                subtask_id: ctx.subtask_id,
                attempt: ctx.attempt,
                record: record.clone(),
                granted: granted.scope,
            },
        );
        ToolResult {
            outcome,
            record,
            for_model,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::ToolName;

    #[test]
    fn every_typed_tool_asks_for_what_it_acts_on() {
        let specs = Toolbox::standard().specs();
        let required = |tool: ToolName| -> Vec<String> {
            specs
                .iter()
                .find(|s| s.name == tool)
                .expect("a standard tool")
                .required_params()
                .into_iter()
                .map(str::to_string)
                .collect()
        };
        assert_eq!(required(ToolName::ListFiles), ["folder"]);
        assert_eq!(required(ToolName::ReadTable), ["path", "op"]);
        assert_eq!(required(ToolName::CopyFiles), ["from", "to"]);
    }

    #[test]
    fn the_standard_toolbox_registers_exactly_the_chain_in_order() {
        let specs = Toolbox::standard().specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        let chain: Vec<&str> = ToolName::CHAIN.iter().map(|t| t.as_str()).collect();
        assert_eq!(names, chain);
    }
}
