//! What the scripted server keeps of each request: the record tests read back, and the
//! parts of a chat request the server answers from (model, reply format, messages).

use serde_json::Value;

/// One request as the server received it.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRequest {
    /// The role header's value (`R1` …), if any.
    pub role: Option<String>,
    /// The HTTP method, such as `POST`.
    pub method: String,
    /// The request path, such as `/v1/chat/completions`.
    pub path: String,
    /// The JSON body (`null` for GET or an unparseable body).
    pub body: Value,
    /// Index of the script step that answered it, per role.
    pub step: Option<usize>,
}

impl RecordedRequest {
    /// The `model` field of the body; None when the body has none.
    pub fn model(&self) -> Option<&str> {
        model_of(&self.body)
    }

    /// `response_format.type`, when one was sent.
    pub fn response_format(&self) -> Option<&str> {
        format_of(&self.body)
    }

    /// The `content` of every message, in order.
    pub fn messages(&self) -> Vec<(String, String)> {
        messages_of(&self.body)
            .map(|(role, content)| (role.to_string(), content.to_string()))
            .collect()
    }
}

/// A chat body's `model`, read leniently (absent or not a string: `None`).
fn model_of(body: &Value) -> Option<&str> {
    body.get("model").and_then(Value::as_str)
}

/// A chat body's `response_format.type`, read leniently.
fn format_of(body: &Value) -> Option<&str> {
    body.get("response_format")
        .and_then(|f| f.get("type"))
        .and_then(Value::as_str)
}

/// A chat body's messages as (role, content), read leniently: a field that is absent or
/// not a string reads as empty.
fn messages_of(body: &Value) -> impl Iterator<Item = (&str, &str)> {
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|m| {
            let field = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or_default();
            (field("role"), field("content"))
        })
}

/// What the handler reads of a request body, parsed once per request: a typed parse
/// that skips what it does not need, or — for a body of another shape — the same fields
/// read leniently from a generic JSON value, as [`RecordedRequest`]'s accessors read them.
pub(super) struct ChatBody {
    pub(super) model: Option<String>,
    pub(super) format: Option<String>,
    pub(super) contents: Vec<String>,
    pub(super) max_tokens: Option<u64>,
}

#[derive(serde::Deserialize)]
struct WireBody {
    model: Option<String>,
    #[serde(default)]
    messages: Vec<WireMessage>,
    response_format: Option<WireFormat>,
    max_tokens: Option<u64>,
}

#[derive(serde::Deserialize)]
struct WireMessage {
    content: Option<String>,
}

#[derive(serde::Deserialize)]
struct WireFormat {
    #[serde(rename = "type")]
    kind: Option<String>,
}

impl ChatBody {
    /// `None` when the body is not JSON at all.
    pub(super) fn parse(body: &[u8]) -> Option<ChatBody> {
        if let Ok(wire) = serde_json::from_slice::<WireBody>(body) {
            return Some(ChatBody {
                model: wire.model,
                format: wire.response_format.and_then(|f| f.kind),
                contents: wire
                    .messages
                    .into_iter()
                    .map(|m| m.content.unwrap_or_default())
                    .collect(),
                max_tokens: wire.max_tokens,
            });
        }
        let value: Value = serde_json::from_slice(body).ok()?;
        Some(ChatBody {
            model: model_of(&value).map(str::to_string),
            format: format_of(&value).map(str::to_string),
            contents: messages_of(&value)
                .map(|(_, content)| content.to_string())
                .collect(),
            max_tokens: value.get("max_tokens").and_then(Value::as_u64),
        })
    }

    pub(super) fn contains(&self, text: &str) -> bool {
        self.contents.iter().any(|c| c.contains(text))
    }

    pub(super) fn prompt_chars(&self) -> usize {
        self.contents.iter().map(|c| c.chars().count()).sum()
    }
}
