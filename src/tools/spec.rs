//! How a tool is described to the model: its name, its place in the priority chain, a
//! summary and its parameters, and the numbered list the prompts show.
//!
//! Invariant: the list the model reads is built from the same specs the toolbox runs, so
//! a tool is never offered that cannot be called, nor called that was never offered.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::ToolRef;

/// Text of a spec: fixed for the built-in tools, owned for tools learned at run time
/// (an MCP server's).
pub type SpecText = Cow<'static, str>;

/// One parameter of a tool, for the executor's prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name in the call's JSON.
    pub name: SpecText,
    /// A JSON Schema type: `string`, `integer`, `number`, `boolean`, `array`, `object`.
    pub kind: SpecText,
    /// The call must give it.
    pub required: bool,
    /// What the parameter means, in one line for the model.
    pub about: SpecText,
    /// The values it may take beyond its JSON type; the step grammar holds the model to
    /// them.
    pub choices: Choices,
}

/// The values a parameter may take, beyond its JSON type. A small model under
/// constrained decoding can then only write a value the tool reads — never an op the
/// tool lacks, never a column the data does not have.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Choices {
    /// Any value of its type.
    #[default]
    Open,
    /// One of these words.
    Fixed(&'static [&'static str]),
    /// A column of a table the task has already read: before any, any name; after, one
    /// of the columns seen (the data, looked at, decides what a call can name).
    SeenColumns,
}

/// One form of a call: when `param` holds one of `values`, the call must also give
/// `requires` (e.g. a mean needs its column). The step grammar offers one branch per form,
/// so a call that lacks what its op needs cannot be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// The parameter that picks the form (an op).
    pub param: &'static str,
    /// Its values that select this form.
    pub values: &'static [&'static str],
    /// The parameters those values need, beyond the tool's required ones.
    pub requires: &'static [&'static str],
}

/// What the task has seen in its data so far, which narrows what later calls can name
/// ([`Choices::SeenColumns`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Column names of the tables read so far in the task, in first-seen order.
    pub columns: Vec<String>,
}

/// A tool as the model is told about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSpec {
    /// The name the model calls the tool by.
    pub name: ToolRef,
    /// Position in the chain (1 = try first); the built-in tools take 1–8 (the chain's
    /// order), MCP tools come after them.
    pub priority: u8,
    /// What the tool does, in one line for the model.
    pub summary: SpecText,
    /// Its parameters, in the order the model is shown them.
    pub params: Cow<'static, [Param]>,
    /// The forms a call takes (empty: one form, the required parameters).
    pub forms: &'static [Form],
}

impl ToolSpec {
    /// The names of the parameters a call must give, in the order the model is shown them.
    pub fn required_params(&self) -> Vec<&str> {
        self.params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name.as_ref())
            .collect()
    }
}

/// The tool list: name, what it is for, and its parameters.
pub fn tool_list(specs: &[ToolSpec]) -> String {
    let mut out = String::new();
    for (i, s) in specs.iter().enumerate() {
        let _ = writeln!(out, "{}. {} — {}", i + 1, s.name, s.summary);
        for p in s.params.iter() {
            let _ = writeln!(
                out,
                "   - {} ({}{}): {}",
                p.name,
                p.kind,
                if p.required { "" } else { ", optional" },
                p.about
            );
        }
    }
    out
}
