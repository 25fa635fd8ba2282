//! The chat-completions wire format as artoo sends and reads it. Our own types rather
//! than async-openai's: they carry the provider extensions real endpoints use
//! (`enable_thinking`, `reasoning_content`) and read answers leniently (llama-server,
//! Ollama and LM Studio omit fields OpenAI always sends).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// Header that carries the calling role (`R1` … `R5`), for the scripted server and for
/// proxies that account per role.
pub const ROLE_HEADER: &str = "x-artoo-role";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireMessage {
    pub role: String,
    pub content: String,
}

impl WireMessage {
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        Self {
            role: role.to_string(),
            content: content.into(),
        }
    }
}

/// A request as sent: it borrows what the caller already holds, so a call copies none
/// of its (often 10 KB) prompt before serialising it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct WireRequest<'a> {
    pub model: &'a str,
    pub messages: &'a [WireMessage],
    pub stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Qwen3-style reasoning switch; only sent when the tier asks for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_thinking: Option<bool>,
    /// llama-server: reuse the cached prefix of this slot's last prompt. Only sent to a
    /// server that said it is llama-server (other providers reject unknown fields).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_prompt: Option<bool>,
    /// llama-server: the slot (and so the prompt cache) this role's calls go to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_slot: Option<u32>,
    /// llama-server: a GBNF grammar the reply must match (sent instead of
    /// `response_format`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grammar: Option<&'a str>,
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct WireResponse {
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub choices: Vec<WireChoice>,
    #[serde(default)]
    pub usage: Option<WireUsage>,
    /// Some servers answer 200 with an error object.
    #[serde(default)]
    pub error: Option<Value>,
    /// llama-server's own account of the call: tokens evaluated and generated, and the
    /// time each took (the model's measured speed, [`super::pace`]).
    #[serde(default)]
    pub timings: Option<WireTimings>,
}

/// llama-server's `timings` object (the fields artoo reads).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
pub struct WireTimings {
    /// Prompt tokens evaluated (those found in the cache are not counted).
    #[serde(default)]
    pub prompt_n: u64,
    /// Milliseconds the evaluation took.
    #[serde(default)]
    pub prompt_ms: f64,
    /// Tokens generated.
    #[serde(default)]
    pub predicted_n: u64,
    /// Milliseconds the generation took.
    #[serde(default)]
    pub predicted_ms: f64,
}

impl WireTimings {
    /// The call as a speed measurement.
    pub fn sample(&self) -> super::pace::Sample {
        super::pace::Sample {
            prompt: Some((self.prompt_n, self.prompt_ms)),
            output: (self.predicted_n, self.predicted_ms),
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct WireChoice {
    #[serde(default)]
    pub message: WireAnswer,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct WireAnswer {
    /// A string, or (some providers) a list of `{type: "text", text}` parts.
    #[serde(default)]
    pub content: Option<Value>,
    /// DeepSeek, llama-server (`--reasoning-format`), vLLM.
    #[serde(default)]
    pub reasoning_content: Option<String>,
    /// OpenRouter and others.
    #[serde(default)]
    pub reasoning: Option<String>,
}

impl WireAnswer {
    pub fn text(&self) -> String {
        match &self.content {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
            _ => String::new(),
        }
    }

    pub fn reasoning(&self) -> Option<String> {
        self.reasoning_content
            .clone()
            .or_else(|| self.reasoning.clone())
            .filter(|r| !r.trim().is_empty())
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub struct WireUsage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_server_timings_are_read_and_other_servers_have_none() {
        let r: WireResponse = serde_json::from_str(
            r#"{"choices":[],"timings":{"cache_n":0,"prompt_n":38,"prompt_ms":728.2,
                "prompt_per_second":52.1,"predicted_n":40,"predicted_ms":3849.4}}"#,
        )
        .unwrap();
        let t = r.timings.unwrap();
        assert_eq!((t.prompt_n, t.predicted_n), (38, 40));
        assert_eq!(t.sample().output, (40, 3849.4));
        let plain: WireResponse = serde_json::from_str(r#"{"choices":[]}"#).unwrap();
        assert_eq!(plain.timings, None);
    }

    #[test]
    fn a_minimal_llama_server_answer_parses() {
        let r: WireResponse = serde_json::from_str(
            r#"{"choices":[{"message":{"content":"{}"}}],"usage":{"prompt_tokens":3}}"#,
        )
        .unwrap();
        assert_eq!(r.choices[0].message.text(), "{}");
        assert_eq!(r.usage.unwrap().prompt_tokens, 3);
    }

    #[test]
    fn content_parts_are_joined_and_reasoning_is_read_from_either_field() {
        let r: WireResponse = serde_json::from_str(
            r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"reasoning":"hm"}}]}"#,
        )
        .unwrap();
        assert_eq!(r.choices[0].message.text(), "ab");
        assert_eq!(r.choices[0].message.reasoning().as_deref(), Some("hm"));
    }
}
