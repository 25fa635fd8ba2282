//! Structured output: the JSON schema of a role's Rust type, how it is asked for
//! (`response_format` json_schema → json_object → prompt-only), and the re-ask text.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::extract::ExtractError;

/// Re-asks after an unusable reply, before the call fails with
/// [`super::LlmError::InvalidOutput`].
pub const STRUCTURED_REASKS: u32 = 1;

/// How much of an unusable reply is quoted back in the re-ask.
pub const REASK_ECHO_CHARS: usize = 4_000;

/// How a structured call asks the endpoint for JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// `response_format: {type: json_schema}` — the server constrains decoding to the
    /// schema (OpenAI, llama-server, Ollama, LM Studio).
    JsonSchema,
    /// `response_format: {type: json_object}` — any JSON object (DeepSeek).
    JsonObject,
    /// No `response_format`; the prompt carries the schema and extraction copes.
    PromptOnly,
}

impl OutputMode {
    /// The next mode to try when the endpoint rejects this one.
    pub fn weaker(self) -> Option<OutputMode> {
        match self {
            OutputMode::JsonSchema => Some(OutputMode::JsonObject),
            OutputMode::JsonObject => Some(OutputMode::PromptOnly),
            OutputMode::PromptOnly => None,
        }
    }
}

/// What each (base URL, model) accepted, learned from the first structured call: the
/// probe is a real call, so it costs nothing extra.
#[derive(Default)]
pub(crate) struct ModeMemory {
    modes: Mutex<HashMap<(String, String), OutputMode>>,
}

impl ModeMemory {
    fn lock(&self) -> MutexGuard<'_, HashMap<(String, String), OutputMode>> {
        crate::sync::lock(&self.modes)
    }

    pub(crate) fn get(&self, base_url: &str, model: &str) -> Option<OutputMode> {
        self.lock()
            .get(&(base_url.to_string(), model.to_string()))
            .copied()
    }

    pub(crate) fn set(&self, base_url: &str, model: &str, mode: OutputMode) {
        self.lock()
            .insert((base_url.to_string(), model.to_string()), mode);
    }
}

/// Whether an HTTP error body says the endpoint does not support the `response_format`
/// we sent (as opposed to any other bad request, which must not downgrade the mode).
pub(crate) fn rejects_response_format(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "response_format",
        "response format",
        "json_schema",
        "json_object",
        "structured output",
    ]
    .iter()
    .any(|needle| m.contains(needle))
}

/// The schema of one role type, ready for the request and the prompt. What every call
/// sends — the prompt's instruction and each mode's `response_format` — is rendered once
/// with the schema, not on every call (the step schema spells out every tool).
#[derive(Clone, Debug)]
pub struct OutputSchema {
    /// `[A-Za-z0-9_-]{1,64}`, as `json_schema.name` requires.
    pub name: String,
    /// The JSON Schema the reply must satisfy.
    pub schema: Value,
    instruction: String,
    constrained_instruction: String,
    /// The compact grammar llama-server is given instead of the schema, when the schema
    /// converts (`super::grammar`).
    gbnf: Option<String>,
    json_schema_format: Box<RawValue>,
    json_object_format: Box<RawValue>,
}

/// A schema transform for a field a model must always write though a reply without it
/// still reads (`#[serde(default)]`: older records, providers without a grammar):
/// `#[schemars(transform = require_field::<"name">)]` cannot take an argument, so each
/// such field gets a one-line function calling this.
pub fn require_field(schema: &mut schemars::Schema, field: &str) {
    if let Some(obj) = schema.as_object_mut() {
        let required = obj
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(list) = required.as_array_mut()
            && !list.iter().any(|v| v == field)
        {
            list.push(Value::String(field.to_string()));
        }
    }
}

impl OutputSchema {
    /// The schema of `T`, generated once per process: a type's schema never changes, and
    /// generating it (the step schema walks every tool's spec) is a measurable part of a
    /// model call.
    pub fn of<T: JsonSchema + 'static>() -> Arc<Self> {
        static CACHE: OnceLock<RwLock<HashMap<TypeId, Arc<OutputSchema>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let key = TypeId::of::<T>();
        if let Some(hit) = crate::sync::read(cache).get(&key) {
            return Arc::clone(hit);
        }
        let made = Arc::new(Self::generate::<T>());
        Arc::clone(crate::sync::write(cache).entry(key).or_insert(made))
    }

    /// Draft-07 with every sub-schema inlined: `$ref`s are where providers' schema
    /// support differs most.
    fn generate<T: JsonSchema>() -> Self {
        let settings = SchemaSettings::draft07().with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        });
        let schema = settings
            .into_generator()
            .into_root_schema_for::<T>()
            .to_value();
        Self::from_value(&T::schema_name(), schema)
    }

    /// A schema built at run time (the executor's step schema once the tools of MCP
    /// servers are known), named `name`.
    pub fn from_value(name: &str, schema: Value) -> Self {
        let mut name: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        if name.is_empty() {
            name.push_str("output");
        }
        let raw = |value: Value| {
            serde_json::value::to_raw_value(&value).expect("a JSON value always serialises")
        };
        Self {
            instruction: format!(
                "Reply with exactly one JSON object and nothing else: no prose, no Markdown \
                 fences. The object must match this JSON Schema:\n{schema}"
            ),
            constrained_instruction: constrained_instruction(&schema),
            gbnf: super::grammar::compact_gbnf(&schema),
            json_schema_format: raw(json!({
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": false},
            })),
            json_object_format: raw(json!({"type": "json_object"})),
            name,
            schema,
        }
    }

    /// The compact grammar, for a server that takes one (llama-server).
    pub fn gbnf(&self) -> Option<&str> {
        self.gbnf.as_deref()
    }

    /// The `response_format` member for `mode`, as JSON text.
    pub fn response_format(&self, mode: OutputMode) -> Option<&RawValue> {
        match mode {
            OutputMode::JsonSchema => Some(&self.json_schema_format),
            OutputMode::JsonObject => Some(&self.json_object_format),
            OutputMode::PromptOnly => None,
        }
    }

    /// Appended to the system prompt when the endpoint is not known to constrain its
    /// decoding to the schema: the whole schema, so a provider that silently ignores
    /// `response_format` still gets every field and its meaning.
    pub fn instruction(&self) -> &str {
        &self.instruction
    }

    /// What the system prompt carries in `mode`. Under constrained decoding the server
    /// already enforces the shape, so the prompt gets a compact list of the fields and
    /// what they mean instead of the schema's JSON (a small model reads the list better,
    /// and every prompt token costs time on a local model).
    pub fn instruction_for(&self, mode: OutputMode) -> &str {
        match mode {
            OutputMode::JsonSchema => &self.constrained_instruction,
            OutputMode::JsonObject | OutputMode::PromptOnly => &self.instruction,
        }
    }
}

/// The compact field guide: one line per property (nested objects indented), with its
/// type, allowed values and description. A schema without top-level properties (one
/// branch per alternative) gets only the one-object rule: its role describes the
/// alternatives in its own prompt.
fn constrained_instruction(schema: &Value) -> String {
    let mut out = String::from("Reply with exactly one JSON object and nothing else.");
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        out.push_str(" Fields:");
        field_lines(props, 1, &mut out);
    }
    out
}

fn field_lines(props: &serde_json::Map<String, Value>, depth: usize, out: &mut String) {
    for (name, prop) in props {
        let indent = "  ".repeat(depth);
        let (kind, items) = type_of(prop);
        out.push_str(&format!("\n{indent}- {name} ({kind})"));
        if let Some(about) = prop.get("description").and_then(Value::as_str) {
            out.push_str(": ");
            out.push_str(about.trim());
        }
        if let Some(nested) = items
            .and_then(|i| i.get("properties"))
            .and_then(Value::as_object)
        {
            field_lines(nested, depth + 1, out);
        }
    }
}

/// A short type name ("string", "one of a|b", "list of objects") and the item schema of
/// an array.
fn type_of(prop: &Value) -> (String, Option<&Value>) {
    let values = |v: &Value| {
        v.as_array().map(|vs| {
            vs.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("|")
        })
    };
    if let Some(choices) = prop.get("enum").and_then(values) {
        return (format!("one of {choices}"), None);
    }
    let ty = match prop.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .join("|"),
        _ => "value".to_string(),
    };
    if ty == "array"
        && let Some(items) = prop.get("items")
    {
        let (inner, _) = type_of(items);
        let inner = if inner == "object" {
            "objects".to_string()
        } else {
            inner
        };
        return (format!("list of {inner}"), Some(items));
    }
    (ty, None)
}

/// The user turn of the re-ask: what was wrong, and what to send instead.
pub fn reask_prompt(error: &ExtractError) -> String {
    format!(
        "Your previous reply could not be used: {error}. Reply again with exactly one JSON \
         object that matches the schema, and nothing else."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        criterion: String,
        met: bool,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Verdicts {
        verdicts: Vec<Inner>,
        note: Option<String>,
    }

    #[test]
    fn schemas_are_inlined_and_named_for_the_request() {
        let s = OutputSchema::of::<Verdicts>();
        assert_eq!(s.name, "Verdicts");
        let text = s.schema.to_string();
        assert!(!text.contains("$ref"), "{text}");
        assert!(!text.contains("$schema"), "{text}");
        assert_eq!(
            s.schema["properties"]["verdicts"]["items"]["required"][0],
            "criterion"
        );
        let rf: Value =
            serde_json::from_str(s.response_format(OutputMode::JsonSchema).unwrap().get()).unwrap();
        assert_eq!(rf["type"], "json_schema");
        assert_eq!(rf["json_schema"]["name"], "Verdicts");
        assert_eq!(rf["json_schema"]["schema"], s.schema);
        let rf: Value =
            serde_json::from_str(s.response_format(OutputMode::JsonObject).unwrap().get()).unwrap();
        assert_eq!(rf, json!({"type": "json_object"}));
        assert!(s.response_format(OutputMode::PromptOnly).is_none());
        assert!(s.instruction().contains("\"verdicts\""));
    }

    #[test]
    fn modes_degrade_in_order_and_stop() {
        assert_eq!(
            OutputMode::JsonSchema.weaker(),
            Some(OutputMode::JsonObject)
        );
        assert_eq!(
            OutputMode::JsonObject.weaker(),
            Some(OutputMode::PromptOnly)
        );
        assert_eq!(OutputMode::PromptOnly.weaker(), None);
    }

    #[test]
    fn only_errors_about_the_response_format_downgrade_the_mode() {
        assert!(rejects_response_format(
            "{\"error\":{\"message\":\"This response_format type is unavailable now\"}}"
        ));
        assert!(rejects_response_format(
            "'response_format.type' must be 'json_schema' or 'text'"
        ));
        assert!(!rejects_response_format(
            "This model's maximum context length is 4096 tokens"
        ));
    }
}
