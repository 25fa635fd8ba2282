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
use crate::tools::{Choices, Param, Seen, ToolName, ToolSpec, Toolbox};

/// The step schema for exactly these tools, ready for a structured call, before the
/// task has seen any data.
pub fn output_schema(specs: &[ToolSpec]) -> OutputSchema {
    output_schema_seen(specs, &Seen::default())
}

/// The step schema once the task has seen `seen` of its data: a parameter that names a
/// column can then name only a column seen ([`Choices::SeenColumns`]).
pub fn output_schema_seen(specs: &[ToolSpec], seen: &Seen) -> OutputSchema {
    OutputSchema::from_value(&NextStep::schema_name(), schema_seen(specs, seen))
}

/// The schema of an attempt's first step: a tool call only. A sub-task is carried out with
/// tools, and a small model offered the finish first took it, with an answer no tool had
/// shown.
pub fn first_step_schema(specs: &[ToolSpec], seen: &Seen) -> OutputSchema {
    let branches: Vec<Value> = specs.iter().map(|s| tool_branch(s, seen)).collect();
    OutputSchema::from_value(
        &NextStep::schema_name(),
        json!({ "type": "object", "anyOf": branches }),
    )
}

/// The whole schema for the tools offered on this platform.
pub fn schema_for(specs: &[ToolSpec]) -> Value {
    schema_seen(specs, &Seen::default())
}

fn schema_seen(specs: &[ToolSpec], seen: &Seen) -> Value {
    let mut branches: Vec<Value> = specs.iter().map(|s| tool_branch(s, seen)).collect();
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

/// Columns a grammar lists at most; past it a column parameter stays open text (the
/// tool's error names the real ones).
pub const MAX_COLUMN_CHOICES: usize = 200;

fn param_schema(p: &Param, bounded: bool, seen: &Seen) -> Value {
    let ty = match p.kind.as_ref() {
        "integer" | "boolean" | "number" | "array" | "object" => p.kind.as_ref(),
        _ => "string",
    };
    let about = p.about.as_ref();
    let columns = &seen.columns;
    match p.choices {
        Choices::Fixed(values) if ty == "string" => {
            json!({ "type": ty, "description": about, "enum": values })
        }
        Choices::SeenColumns
            if ty == "string" && !columns.is_empty() && columns.len() <= MAX_COLUMN_CHOICES =>
        {
            json!({ "type": ty, "description": about, "enum": columns })
        }
        _ if ty == "string" && bounded => {
            json!({ "type": ty, "description": about, "maxLength": SHORT_STRING_CHARS })
        }
        _ => json!({ "type": ty, "description": about }),
    }
}

/// Optional parameters of typed tools that carry the method and that a small model must
/// meet on every call: which files, in what order, how many, how deep. Under a grammar a
/// small model writes the required properties and hardly ever an optional one: it listed a
/// whole folder where a sort and a limit answered the question. These are written on every
/// call, `null` when not wanted (a null is dropped before the tool reads the call). Not
/// every optional parameter: asked to write all of read_table's, the model filled a row
/// filter nobody wanted and averaged over no rows.
///
/// Not the size bounds of the tools that act on files either: written on every call, the
/// model filled bounds nobody asked for (a move of every `.log` file with "at least 100KB")
/// and selected nothing. Nor list_files' extensions: written on every call, the model
/// filled in an extension nobody named ("pdf" for the newest report, "txt,md" to count
/// every kind of file) and the listing found none of the files asked about. The rule: a
/// parameter that narrows what is selected is never forced; only the method is (how
/// deep, in what order, how many, grouped how), whose null is the whole answer. Left
/// optional, the grouping was never written, and counts per kind came back as a listing.
///
/// read_lines' text filter is the exception that proves the rule: choosing lines by what
/// they contain *is* its method (the last line of a kind, how many carry a mark), and its
/// null is the whole file.
const ALWAYS_WRITTEN: &[(ToolName, &[&str])] = &[
    (
        ToolName::ListFiles,
        &["group_by", "limit", "order", "recursive", "sort"],
    ),
    (ToolName::ReadLines, &["take", "text"]),
];

/// `schema`, also accepting `null`.
fn nullable(schema: &Value) -> Value {
    let mut out = schema.clone();
    if let Some(values) = out.get_mut("enum").and_then(Value::as_array_mut) {
        values.push(Value::Null);
    } else if let Some(ty) = schema.get("type").and_then(Value::as_str) {
        out["type"] = json!([ty, "null"]);
    }
    out
}

/// One input object: `params` with `needed` required as they are, and `always` required
/// too but nullable.
fn input_object(params: &Map<String, Value>, needed: &[&str], always: &[&str]) -> Value {
    let props: Map<String, Value> = params
        .iter()
        .map(|(name, schema)| {
            let name = name.as_str();
            let value = if always.contains(&name) && !needed.contains(&name) {
                nullable(schema)
            } else {
                schema.clone()
            };
            (name.to_string(), value)
        })
        .collect();
    let mut required: Vec<&str> = needed.to_vec();
    required.extend(
        always
            .iter()
            .filter(|a| !needed.contains(a) && params.contains_key(**a)),
    );
    json!({ "type": "object", "properties": props, "required": required })
}

/// The schema of one tool's branch: `next` fixed to `call_tool`, `tool` to its name. A
/// tool with forms gets one input object per form, its picking parameter narrowed to the
/// form's values and the form's needs required.
fn tool_branch(spec: &ToolSpec, seen: &Seen) -> Value {
    let mut params = Map::new();
    // An MCP tool's parameters are its server's: only the built-in tools' short strings
    // are bounded.
    let builtin = spec.name.builtin();
    for p in spec.params.iter() {
        let bounded = builtin.is_some() && !super::step::LONG_TEXT.contains(&p.name.as_ref());
        params.insert(p.name.to_string(), param_schema(p, bounded, seen));
    }
    let always: &[&str] = ALWAYS_WRITTEN
        .iter()
        .find(|(tool, _)| Some(*tool) == builtin)
        .map_or(&[], |(_, names)| names);
    let required = spec.required_params();
    let input = if spec.forms.is_empty() {
        input_object(&params, &required, always)
    } else {
        let forms: Vec<Value> = spec
            .forms
            .iter()
            .map(|form| {
                let mut props = params.clone();
                if let Some(picker) = props.get_mut(form.param) {
                    picker["enum"] = json!(form.values);
                }
                let mut needs: Vec<&str> = required.clone();
                needs.extend(form.requires.iter().filter(|r| !required.contains(r)));
                input_object(&props, &needs, always)
            })
            .collect();
        json!({ "anyOf": forms })
    };
    json!({
        "type": "object",
        "properties": {
            "next": { "const": "call_tool" },
            "tool": { "const": spec.name },
            "tool_input": input,
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
        for form in table["properties"]["tool_input"]["anyOf"]
            .as_array()
            .expect("forms")
        {
            assert_eq!(
                form["properties"]["column"]["maxLength"],
                json!(SHORT_STRING_CHARS)
            );
        }
        // Closed values are an enum in the grammar.
        let files = branches
            .iter()
            .find(|b| b["properties"]["tool"]["const"] == "list_files")
            .expect("a list_files branch");
        let sort = &files["properties"]["tool_input"]["properties"]["sort"];
        assert!(
            sort["enum"]
                .as_array()
                .is_some_and(|v| v.contains(&json!("size"))),
            "{sort}"
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

    /// The branch of tool `name` in the step schema `schema`.
    fn branch_of<'a>(schema: &'a Value, name: &str) -> &'a Value {
        schema["anyOf"]
            .as_array()
            .and_then(|b| b.iter().find(|b| b["properties"]["tool"]["const"] == name))
            .unwrap_or_else(|| panic!("a {name} branch"))
    }

    /// The read_table branch's forms in `schema`, as (ops, required) pairs.
    fn table_forms(schema: &Value) -> Vec<(Vec<String>, Vec<String>, Value)> {
        let branch = branch_of(schema, "read_table");
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .expect("a list")
                .iter()
                .map(|s| s.as_str().expect("a string").to_string())
                .collect()
        };
        // What a form needs: the parameters it requires that may not be null.
        let takes_null = |p: &Value| {
            p["enum"]
                .as_array()
                .is_some_and(|v| v.contains(&Value::Null))
                || p["type"]
                    .as_array()
                    .is_some_and(|t| t.contains(&json!("null")))
        };
        branch["properties"]["tool_input"]["anyOf"]
            .as_array()
            .expect("forms")
            .iter()
            .map(|f| {
                let needs = strings(&f["required"])
                    .into_iter()
                    .filter(|name| !takes_null(&f["properties"][name.as_str()]))
                    .collect();
                let ops = f["properties"]["op"]["enum"]
                    .as_array()
                    .expect("ops")
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect();
                (ops, needs, f["properties"]["column"].clone())
            })
            .collect()
    }

    #[test]
    fn a_table_op_cannot_be_written_without_what_it_needs() {
        let forms = table_forms(&schema_for(&specs()));
        let form_of = |op: &str| {
            forms
                .iter()
                .find(|(ops, ..)| ops.iter().any(|o| o == op))
                .unwrap_or_else(|| panic!("a form offers {op}"))
        };
        assert!(form_of("mean").1.contains(&"column".to_string()));
        assert!(!form_of("schema").1.contains(&"column".to_string()));
        let group_sum = &form_of("group_sum").1;
        assert!(group_sum.contains(&"by".to_string()) && group_sum.contains(&"column".to_string()));
        // Every form needs the file; no op is offered twice.
        assert!(
            forms
                .iter()
                .all(|(_, required, _)| required.contains(&"path".to_string()))
        );
        let offered: usize = forms.iter().map(|(ops, ..)| ops.len()).sum();
        let ops = specs()
            .iter()
            .find(|s| s.name.as_str() == "read_table")
            .and_then(|s| s.params.iter().find(|p| p.name == "op"))
            .map(|p| p.choices);
        let Some(Choices::Fixed(ops)) = ops else {
            panic!("read_table's op is a closed list: {ops:?}");
        };
        assert_eq!(offered, ops.len());
    }

    #[test]
    fn read_lines_is_written_op_first_and_only_at_needs_a_position() {
        let schema = schema_for(&specs());
        let forms = branch_of(&schema, "read_lines")["properties"]["tool_input"]["anyOf"]
            .as_array()
            .expect("forms")
            .clone();
        assert_eq!(forms.len(), 2);
        for form in &forms {
            // Properties are written in name order: the op is chosen before anything
            // that would narrow it.
            let names: Vec<&String> = form["properties"]
                .as_object()
                .expect("properties")
                .keys()
                .collect();
            assert_eq!(names.first().map(|n| n.as_str()), Some("op"), "{names:?}");
            let required: Vec<&str> = form["required"]
                .as_array()
                .expect("required")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            for p in ["take", "text", "path", "op"] {
                assert!(required.contains(&p), "{p} is written: {required:?}");
            }
            let at = form["properties"]["op"]["enum"] == json!(["at"]);
            assert_eq!(required.contains(&"position"), at, "{form}");
        }
    }

    #[test]
    fn the_method_parameters_of_a_typed_tool_are_written_null_where_not_wanted() {
        let schema = schema_for(&specs());
        let files = branch_of(&schema, "list_files");
        let input = &files["properties"]["tool_input"];
        let required: Vec<&str> = input["required"]
            .as_array()
            .expect("required")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for p in ["folder", "sort", "order", "limit", "recursive", "group_by"] {
            assert!(required.contains(&p), "{p} is written: {required:?}");
        }
        // Filters that narrow what is counted stay optional.
        for p in ["extensions", "pattern", "min_size", "name_contains"] {
            assert!(!required.contains(&p), "{p} is not forced: {required:?}");
        }
        // read_table's row filter is never forced on a call.
        for (ops, needs, _) in table_forms(&schema) {
            assert!(!needs.contains(&"where_column".to_string()), "{ops:?}");
        }
        // The folder is needed; a sort may be none.
        assert_eq!(input["properties"]["folder"]["type"], json!("string"));
        assert!(
            input["properties"]["sort"]["enum"]
                .as_array()
                .is_some_and(|v| v.contains(&Value::Null) && v.contains(&json!("size")))
        );
        assert_eq!(
            input["properties"]["limit"]["type"],
            json!(["integer", "null"])
        );
        // The local server's grammar can be made from it, before and after a look.
        assert!(output_schema(&specs()).gbnf().is_some());
        let seen = Seen {
            columns: vec!["a \"quoted\" name".into(), "über".into()],
        };
        let gbnf = output_schema_seen(&specs(), &seen);
        assert!(gbnf.gbnf().is_some_and(|g| g.contains("über")));
        // Other tools keep their optional parameters optional.
        let shell = branch_of(&schema, "shell");
        assert_eq!(
            shell["properties"]["tool_input"]["required"],
            json!(["command"])
        );
    }

    #[test]
    fn once_columns_are_seen_a_call_can_name_only_them() {
        let seen = Seen {
            columns: vec!["student".into(), "score".into()],
        };
        for (ops, _, column) in table_forms(&schema_seen(&specs(), &seen)) {
            assert_eq!(
                column["enum"],
                json!(["student", "score"]),
                "{ops:?}: {column}"
            );
        }
        // Too many to list: the parameter stays open text.
        let wide = Seen {
            columns: (0..=MAX_COLUMN_CHOICES).map(|i| format!("c{i}")).collect(),
        };
        for (_, _, column) in table_forms(&schema_seen(&specs(), &wide)) {
            assert!(column["enum"].is_null(), "{column}");
        }
        // Tools without seen-column parameters are unchanged.
        let plain = schema_for(&specs());
        let narrowed = schema_seen(&specs(), &seen);
        let branch = |s: &Value, name: &str| {
            s["anyOf"]
                .as_array()
                .and_then(|b| b.iter().find(|b| b["properties"]["tool"]["const"] == name))
                .cloned()
        };
        assert_eq!(branch(&plain, "shell"), branch(&narrowed, "shell"));
        assert_ne!(
            branch(&plain, "read_table"),
            branch(&narrowed, "read_table")
        );
    }
}
