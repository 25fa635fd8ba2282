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
