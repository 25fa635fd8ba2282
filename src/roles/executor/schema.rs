//! The schema R3's model is held to on each turn of its tool loop: one next step
//! ([`NextStep`]), or, once the model repeats itself or makes no progress, only the finish
//! ([`FinishStep`]); what a reply means is read in `step`.
//!
//! The schema is written from the toolbox's own specs, one branch per tool, so a model
//! under constrained decoding can only name a tool this platform has and, once it named
//! it, is led to that tool's parameter names. Property order is alphabetical (docs/llm.md):
//! `next` — the decision — comes first, then either `tool` and `tool_input`, or
//! `output`, `status` and `summary`. (No free-text reasoning field: on a local model every
//! generated token costs about 80 ms, and the results are quoted in the prompt anyway.)
//!
//! **Invariant:** the step schema offers exactly the tools it was written from, plus the
//! finish, and every branch fixes `next` (a tool's branch its `tool` too) to a constant,
//! so no reply fits two branches.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::step::{FinishStep, NextStep};
use crate::llm::OutputSchema;
use crate::tools::{ToolSpec, Toolbox};

/// The step schema for exactly these tools, ready for a structured call.
pub fn output_schema(specs: &[ToolSpec]) -> OutputSchema {
    OutputSchema::from_value(&NextStep::schema_name(), schema_for(specs))
}

/// The whole schema for the tools offered on this platform.
pub fn schema_for(specs: &[ToolSpec]) -> Value {
    let mut branches: Vec<Value> = specs.iter().map(tool_branch).collect();
    branches.push(finish_branch());
    // `anyOf`, not `oneOf`: the branches exclude each other by their constants anyway,
    // and more providers accept `anyOf` in a response format.
    json!({ "type": "object", "anyOf": branches })
}

impl JsonSchema for NextStep {
    fn schema_name() -> Cow<'static, str> {
        "NextStep".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let specs = Toolbox::standard().offered_specs();
        Schema::try_from(schema_for(&specs)).expect("the step schema is a JSON object")
    }
}

/// Characters a short string parameter of a built-in tool may hold (a path, a pattern, a
/// column name): a small model's string that runs on is cut here, not at the reply's
/// token cap, which would throw the whole step away.
pub const SHORT_STRING_CHARS: u64 = 300;

/// Parameters of built-in tools that hold long text (a command line, a file's content,
/// a script): never bounded.
const LONG_TEXT: &[&str] = &["command", "content", "script", "input"];

fn param_schema(kind: &str, about: &str, bounded: bool) -> Value {
    let ty = match kind {
        "integer" | "boolean" | "number" | "array" | "object" => kind,
        _ => "string",
    };
    if ty == "string" && bounded {
        json!({ "type": ty, "description": about, "maxLength": SHORT_STRING_CHARS })
    } else {
        json!({ "type": ty, "description": about })
    }
}

/// The schema of one tool's branch: `next` fixed to `call_tool`, `tool` to its name.
fn tool_branch(spec: &ToolSpec) -> Value {
    let mut params = Map::new();
    // An MCP tool's parameters are its server's: only the built-in tools' short strings
    // are bounded.
    let builtin = spec.name.builtin().is_some();
    for p in spec.params.iter() {
        let bounded = builtin && !LONG_TEXT.contains(&p.name.as_ref());
        params.insert(p.name.to_string(), param_schema(&p.kind, &p.about, bounded));
    }
    let required = spec.required_params();
    json!({
        "type": "object",
        "properties": {
            "next": { "const": "call_tool" },
            "tool": { "const": spec.name },
            "tool_input": {
                "type": "object",
                "properties": params,
                "required": required,
            },
        },
        "required": ["next", "tool", "tool_input"],
    })
}

fn finish_branch() -> Value {
    json!({
        "type": "object",
        "properties": {
            "next": { "const": "finish" },
            "output": {
                "type": "string",
                "description": "The answer as data copied or computed from the tool results (names, numbers, paths, text). Empty when nothing was found out.",
            },
            "status": { "enum": ["completed", "uncertain", "failed"] },
            "summary": {
                "type": "string",
                "description": "One sentence: what was done, or why it could not be done.",
            },
        },
        "required": ["next", "output", "status", "summary"],
    })
}

impl JsonSchema for FinishStep {
    fn schema_name() -> Cow<'static, str> {
        "FinishStep".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::try_from(finish_branch()).expect("the finish schema is a JSON object")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<ToolSpec> {
        Toolbox::standard().offered_specs()
    }

    #[test]
    fn the_schema_has_one_branch_per_offered_tool_and_the_finish() {
        let schema = crate::llm::OutputSchema::of::<NextStep>().schema.clone();
        let branches = schema["anyOf"].as_array().expect("branches");
        assert_eq!(branches.len(), specs().len() + 1);
        let text = schema.to_string();
        assert!(text.contains("\"const\":\"read_file\""), "{text}");
        assert_eq!(
            text.contains("\"applescript\""),
            cfg!(target_os = "macos"),
            "only tools this platform has are offered"
        );
        let shell = branches
            .iter()
            .find(|b| b["properties"]["tool"]["const"] == "shell")
            .expect("a shell branch");
        assert_eq!(
            shell["properties"]["tool_input"]["required"],
            json!(["command"])
        );
        // A command line is long text; a column name is not.
        assert!(shell["properties"]["tool_input"]["properties"]["command"]["maxLength"].is_null());
        let table = branches
            .iter()
            .find(|b| b["properties"]["tool"]["const"] == "read_table")
            .expect("a read_table branch");
        assert_eq!(
            table["properties"]["tool_input"]["properties"]["column"]["maxLength"],
            json!(SHORT_STRING_CHARS)
        );
        // Alphabetical order puts the decision first, then the finish's fields (docs/llm.md).
        let keys: Vec<&String> = branches
            .last()
            .and_then(|b| b["properties"].as_object())
            .expect("finish properties")
            .keys()
            .collect();
        assert_eq!(
            keys,
            ["next", "output", "status", "summary"]
                .iter()
                .collect::<Vec<_>>()
        );
    }
}
