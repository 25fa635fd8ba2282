//! What R3 asks the model for on each turn of its tool loop: one next step, either one
//! tool call or the finish, and what a reply means. The schema the model is held to is
//! written in `schema`.
//!
//! Parsing is lenient where the meaning is unambiguous (a bare string for a tool with
//! one required parameter, a number as output) and strict where it is not: an unknown
//! tool, a finish without a status, or a call without input is a problem the model layer
//! quotes back in its one re-ask.
//!
//! **Invariant:** a `NextStep` that passes `NextStep::action` names a tool of the
//! toolbox with a JSON object as input, or a finish with a status.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::contracts::ExecutionStatus;
use crate::tools::{ToolRef, ToolSpec};

/// The decision of one turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StepKind {
    CallTool,
    Finish,
}

/// How the model says an attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishStatus {
    /// The attempt did what the sub-task asked.
    Completed,
    /// It did something, but the results do not show whether it is enough.
    Uncertain,
    /// It could not do what was asked.
    Failed,
}

impl From<FinishStatus> for ExecutionStatus {
    fn from(value: FinishStatus) -> Self {
        match value {
            FinishStatus::Completed => ExecutionStatus::Completed,
            FinishStatus::Uncertain => ExecutionStatus::Uncertain,
            FinishStatus::Failed => ExecutionStatus::Failed,
        }
    }
}

/// One reply of the model, as sent. See [`NextStep::action`] for what it means.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct NextStep {
    #[serde(default)]
    pub evidence: String,
    pub next: StepKind,
    #[serde(default)]
    pub tool: Option<String>,
    #[serde(default)]
    pub tool_input: Option<Value>,
    #[serde(default)]
    pub output: Option<Value>,
    #[serde(default)]
    pub status: Option<FinishStatus>,
    #[serde(default)]
    pub summary: String,
}

/// What the executor does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Call one tool.
    CallTool {
        /// The tool to call.
        tool: ToolRef,
        /// Its arguments, as the tool's parameters describe them.
        input: Value,
    },
    /// End the attempt.
    Finish {
        /// How the model says the attempt ended.
        status: FinishStatus,
        /// The data the attempt produced, as text.
        output: String,
        /// One sentence: what was done, or why it could not be done.
        summary: String,
    },
}

/// A value as the text a result carries: strings verbatim, other JSON compact.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl NextStep {
    /// What the reply asks for, or the problem to quote back to the model.
    pub fn action(&self, specs: &[ToolSpec]) -> Result<Action, String> {
        match self.next {
            StepKind::CallTool => {
                let names = || {
                    specs
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let Some(name) = self.tool.as_deref().filter(|t| !t.trim().is_empty()) else {
                    return Err(format!(
                        "`next` is \"call_tool\" but `tool` is missing: name one of {}",
                        names()
                    ));
                };
                let Some(spec) = specs
                    .iter()
                    .find(|s| s.name.as_str().eq_ignore_ascii_case(name.trim()))
                else {
                    return Err(format!(
                        "there is no tool \"{name}\": `tool` must be one of {}",
                        names()
                    ));
                };
                let input = tool_input(spec, self.tool_input.as_ref())?;
                Ok(Action::CallTool {
                    tool: spec.name.clone(),
                    input,
                })
            }
            StepKind::Finish => {
                let Some(status) = self.status else {
                    return Err("`next` is \"finish\" but `status` is missing: give \
                                \"completed\", \"uncertain\" or \"failed\""
                        .into());
                };
                Ok(Action::Finish {
                    status,
                    output: self
                        .output
                        .as_ref()
                        .map(value_text)
                        .unwrap_or_default()
                        .trim()
                        .to_string(),
                    summary: self.summary.trim().to_string(),
                })
            }
        }
    }
}

/// A value that stands for no value: the text "null", "none", "nil" or "undefined" (any
/// case), or an empty text.
fn says_nothing(v: &Value) -> bool {
    v.as_str().is_some_and(|s| {
        let s = s.trim();
        s.is_empty()
            || ["null", "none", "nil", "undefined"]
                .iter()
                .any(|w| s.eq_ignore_ascii_case(w))
    })
}

/// The input object of a call. A bare string is accepted for a tool with exactly one
/// required parameter (small models write `"tool_input": "ls -l"`).
fn tool_input(spec: &ToolSpec, raw: Option<&Value>) -> Result<Value, String> {
    let required = spec.required_params();
    match raw {
        Some(Value::Object(map)) => {
            if let Some(missing) = required
                .iter()
                .find(|r| map.get(**r).is_none_or(Value::is_null))
            {
                return Err(format!("`tool_input` of {} needs \"{missing}\"", spec.name));
            }
            if let Some((name, _)) = map
                .iter()
                .find(|(k, v)| !LONG_TEXT.contains(&k.as_str()) && v.as_str().is_some_and(runaway))
            {
                return Err(format!(
                    "`{name}` of {} repeats the same few words over and over: write the \
                     value once, as short as it is",
                    spec.name
                ));
            }
            // A parameter written as null is one not given (the step grammar has the model
            // write every parameter of some tools, null where it wants none); so is an
            // optional one written as the *word* null, or empty: a small model quotes the
            // null it means (`"name_contains": "null"` filtered a listing down to nothing).
            Ok(Value::Object(
                map.iter()
                    .filter(|(k, v)| {
                        !v.is_null() && (required.contains(&k.as_str()) || !says_nothing(v))
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ))
        }
        Some(Value::String(s)) if required.len() == 1 && !s.trim().is_empty() => {
            Ok(json!({ required[0]: s }))
        }
        _ => Err(format!(
            "`tool_input` must be a JSON object with the parameters of {}: {}",
            spec.name,
            required
                .iter()
                .map(|r| format!("\"{r}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Parameters of built-in tools that hold long text (a command line, a file's content,
/// a script): never bounded.
pub(super) const LONG_TEXT: &[&str] = &["command", "content", "script", "input"];

/// Words (runs of letters, digits and dots, and each other mark alone) a string must
/// have before it can be a runaway.
const RUNAWAY_MIN_WORDS: usize = 30;

/// Whether a short parameter is a small model's runaway: a long run whose three-word
/// sequences are nearly all the same few (`(3831729 / 1024) * 1024 * 1024 * 1024 …`,
/// written until the token cap). The call would run on garbage; the step is asked again.
fn runaway(text: &str) -> bool {
    let mut words: Vec<&str> = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let in_word = c.is_alphanumeric() || c == '.';
        match (in_word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
        if !in_word && !c.is_whitespace() {
            words.push(&text[i..i + c.len_utf8()]);
        }
    }
    if let Some(s) = start {
        words.push(&text[s..]);
    }
    if words.len() < RUNAWAY_MIN_WORDS {
        return false;
    }
    let runs: Vec<&[&str]> = words.windows(3).collect();
    let distinct: std::collections::HashSet<&[&str]> = runs.iter().copied().collect();
    distinct.len() * 10 < runs.len()
}

/// A step that may only finish: asked for when the model repeats a call or makes no
/// progress, so the attempt ends with what the results show instead of looping.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct FinishStep {
    /// The data the attempt produced; None when the model gave none.
    #[serde(default)]
    pub output: Option<Value>,
    /// How the model says the attempt ended.
    pub status: FinishStatus,
    /// One sentence: what was done, or why it could not be done; empty when the model left it out.
    #[serde(default)]
    pub summary: String,
}

impl FinishStep {
    /// The step as an executor action.
    pub fn action(&self) -> Action {
        Action::Finish {
            status: self.status,
            output: self
                .output
                .as_ref()
                .map(value_text)
                .unwrap_or_default()
                .trim()
                .to_string(),
            summary: self.summary.trim().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_written_on_and_on_is_a_runaway_and_a_long_real_one_is_not() {
        let looped = format!("(3831729 / 1024){}", " * 1024".repeat(60));
        assert!(runaway(&looped));
        assert!(runaway(&"1024*".repeat(40)));
        assert!(!runaway("(120 + 45) * 3 / 7"));
        assert!(!runaway(
            "~/Documents/reports/2026/q1/summary-final-v2.pdf, ~/Documents/reports/2026/q2/summary.pdf, \
             ~/Documents/invoices/march.pdf, ~/Pictures/holiday/IMG_0409.jpg, ~/notes/todo.md"
        ));
        assert!(!runaway(
            &(1..=40)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(" + ")
        ));
    }
    use crate::tools::Toolbox;

    fn specs() -> Vec<ToolSpec> {
        Toolbox::standard().offered_specs()
    }

    fn step(v: Value) -> NextStep {
        serde_json::from_value(v).expect("a step")
    }

    fn shell_call(command: &str) -> Result<Action, String> {
        Ok(Action::CallTool {
            tool: crate::tools::ToolName::Shell.into(),
            input: json!({ "command": command }),
        })
    }

    #[test]
    fn a_tool_call_names_a_real_tool_with_an_object_input() {
        let a = step(
            json!({"evidence": "none yet", "next": "call_tool", "tool": "shell",
                            "tool_input": {"command": "ls -1 /tmp"}}),
        );
        assert_eq!(a.action(&specs()), shell_call("ls -1 /tmp"));
    }

    #[test]
    fn a_parameter_written_as_null_is_not_given_and_a_needed_one_cannot_be_null() {
        let a = step(json!({"next": "call_tool", "tool": "list_files",
                            "tool_input": {"folder": "/tmp", "sort": "size", "limit": null}}));
        assert_eq!(
            a.action(&specs()),
            Ok(Action::CallTool {
                tool: crate::tools::ToolName::ListFiles.into(),
                input: json!({ "folder": "/tmp", "sort": "size" }),
            })
        );
        // The word null, or nothing, in an optional parameter: not given either.
        let a = step(json!({"next": "call_tool", "tool": "list_files",
                            "tool_input": {"folder": "/tmp", "name_contains": "null",
                                           "pattern": "None", "extensions": ""}}));
        assert_eq!(
            a.action(&specs()),
            Ok(Action::CallTool {
                tool: crate::tools::ToolName::ListFiles.into(),
                input: json!({ "folder": "/tmp" }),
            })
        );
        let none = step(json!({"next": "call_tool", "tool": "list_files",
                               "tool_input": {"folder": null}}));
        let Err(why) = none.action(&specs()) else {
            panic!("a folder is needed");
        };
        assert!(why.contains("needs \"folder\""), "{why}");
    }

    #[test]
    fn a_bare_string_input_fills_the_only_required_parameter() {
        let a = step(json!({"next": "call_tool", "tool": "Shell", "tool_input": "ls"}));
        assert_eq!(a.action(&specs()), shell_call("ls"));
    }

    #[test]
    fn unknown_tools_missing_parameters_and_statusless_finishes_are_quoted_back() {
        let unknown = step(json!({"next": "call_tool", "tool": "cloc", "tool_input": {}}))
            .action(&specs())
            .unwrap_err();
        assert!(
            unknown.contains("no tool \"cloc\"") && unknown.contains("glob"),
            "{unknown}"
        );
        let missing = step(json!({"next": "call_tool", "tool": "read_file", "tool_input": {}}))
            .action(&specs())
            .unwrap_err();
        assert!(missing.contains("\"path\""), "{missing}");
        let ambiguous = step(json!({"next": "call_tool", "tool": "write_file",
                                    "tool_input": "hello"}))
        .action(&specs())
        .unwrap_err();
        assert!(ambiguous.contains("\"content\""), "{ambiguous}");
        let finish = step(json!({"next": "finish", "output": "3"}))
            .action(&specs())
            .unwrap_err();
        assert!(finish.contains("`status`"), "{finish}");
    }

    #[test]
    fn a_finish_carries_its_output_as_text() {
        let a = step(json!({"next": "finish", "output": 3, "status": "completed",
                            "summary": " counted "}))
        .action(&specs());
        assert_eq!(
            a,
            Ok(Action::Finish {
                status: FinishStatus::Completed,
                output: "3".into(),
                summary: "counted".into()
            })
        );
    }
}
