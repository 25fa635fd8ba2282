//! Scripts for the scripted server: per role, the answers to give in order.
//!
//! ```json
//! {
//!   "response_formats": ["json_schema", "json_object"],
//!   "roles": {
//!     "R1": [{"reply": {"content": "{\"intent\": \"list files\"}"}, "latency_ms": 40}],
//!     "R3": [
//!       {"http_error": {"status": 429, "retry_after": "1"}},
//!       {"reply": {"content": "{\"action\": \"result\"}", "prompt_tokens": 12, "completion_tokens": 5}}
//!     ],
//!     "R4a": [{"hang": {}}, {"malformed": "<html>bad gateway</html>"}]
//!   }
//! }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::contracts::Role;
use crate::llm::tier::MODEL_ROLES;

/// Why a script could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The file could not be read.
    #[error("cannot read script {path}: {source}")]
    Io {
        /// The script file.
        path: PathBuf,
        /// The read error.
        #[source]
        source: std::io::Error,
    },
    /// The text is not a valid script.
    #[error("invalid script: {0}")]
    Parse(#[from] serde_json::Error),
    /// A role name is not one of the model roles.
    #[error("unknown role {0:?} in script (use R1, R2, R3, R4a, R4b or R5)")]
    UnknownRole(String),
}

/// The roles that call models, by the short name the client sends.
pub fn calling_role(short: &str) -> Option<Role> {
    MODEL_ROLES.into_iter().find(|r| r.short() == short)
}

fn default_models() -> Vec<String> {
    vec!["scripted-brain".into(), "scripted-tool".into()]
}

fn default_formats() -> Vec<String> {
    vec!["json_schema".into(), "json_object".into()]
}

/// What the scripted server answers, step by step for each role.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// What `/v1/models` lists.
    #[serde(default = "default_models")]
    pub models: Vec<String>,
    /// `response_format` types accepted; any other gets a 400 naming `response_format`,
    /// as real providers answer.
    #[serde(default = "default_formats")]
    pub response_formats: Vec<String>,
    /// Start a role's steps over when they run out (for demos); otherwise the server
    /// answers 500 "script exhausted".
    #[serde(default)]
    pub cycle: bool,
    /// Answer `GET /props` as a llama-server with this many slots; `None` answers 404,
    /// as every other provider does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llama_slots: Option<u32>,
    /// As a llama-server started with `--slot-save-path`: `POST /slots/N?action=save`
    /// keeps a snapshot's name and `restore` finds it; otherwise both answer 501.
    #[serde(default)]
    pub slot_save: bool,
    /// As a llama-server of this speed: every reply carries llama-server's `timings`
    /// (the tokens it counts at these speeds; no time is actually spent), and the
    /// client's speed measurement (role `measure`) is answered with its reply cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<ScriptedSpeed>,
    /// Steps per role short name (`R1` … `R5`).
    #[serde(default)]
    pub roles: BTreeMap<String, Vec<Step>>,
}

impl Default for Script {
    fn default() -> Self {
        Self {
            models: default_models(),
            response_formats: default_formats(),
            cycle: false,
            llama_slots: None,
            slot_save: false,
            speed: None,
            roles: BTreeMap::new(),
        }
    }
}

impl Script {
    /// An empty script with the default models and response formats.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads a script from JSON text and checks its role names.
    pub fn from_json(text: &str) -> Result<Self, ScriptError> {
        let script: Script = serde_json::from_str(text)?;
        script.check()?;
        Ok(script)
    }

    /// Reads a script from a JSON file and checks its role names.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ScriptError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(&text)
    }

    fn check(&self) -> Result<(), ScriptError> {
        for name in self.roles.keys() {
            if calling_role(name).is_none() {
                return Err(ScriptError::UnknownRole(name.clone()));
            }
        }
        Ok(())
    }

    /// Appends steps for `role`.
    pub fn role(mut self, role: Role, steps: impl IntoIterator<Item = Step>) -> Self {
        self.roles
            .entry(role.short().to_string())
            .or_default()
            .extend(steps);
        self
    }

    /// Accepts only these `response_format` types.
    pub fn response_formats(mut self, formats: &[&str]) -> Self {
        self.response_formats = formats.iter().map(|f| f.to_string()).collect();
        self
    }

    /// Starts each role's steps over when they run out.
    pub fn cycle(mut self) -> Self {
        self.cycle = true;
        self
    }

    /// Serves as a llama-server with `slots` slots (see [`Script::llama_slots`]).
    pub fn llama_server(mut self, slots: u32) -> Self {
        self.llama_slots = Some(slots);
        self
    }

    /// Reports llama-server timings at these speeds (see [`Script::speed`]).
    pub fn speed(mut self, prompt_per_sec: f64, output_per_sec: f64) -> Self {
        self.speed = Some(ScriptedSpeed {
            prompt_per_sec,
            output_per_sec,
        });
        self
    }

    /// Serves as a llama-server that saves and restores slots (see [`Script::slot_save`]).
    pub fn slot_save(mut self) -> Self {
        self.slot_save = true;
        self
    }
}

/// The speed a scripted llama-server reports (see [`Script::speed`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptedSpeed {
    /// Prompt tokens evaluated per second.
    pub prompt_per_sec: f64,
    /// Tokens generated per second.
    pub output_per_sec: f64,
}

/// One scripted answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Wait this long before answering.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub latency_ms: u64,
    /// Only answer a request whose messages contain this text (for roles that run in
    /// parallel, such as executors of one sequence group).
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// What the server answers.
    #[serde(flatten)]
    pub action: Action,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// How the server answers one request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// 200 with a chat completion.
    Reply(ScriptedReply),
    /// A non-2xx answer.
    HttpError(ScriptedHttpError),
    /// Accept the request and never answer (until the server shuts down).
    Hang {},
    /// 200 with this body verbatim (not a chat completion).
    Malformed(String),
}

/// A chat completion the server sends back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptedReply {
    /// The assistant message's text.
    pub content: String,
    /// Sent as the message's `reasoning_content`; None sends none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// Defaults to a character estimate when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Defaults to a character estimate of `content` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
    /// The choice's `finish_reason`; defaults to `stop` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
}

/// An error answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptedHttpError {
    /// The HTTP status, such as 429 or 500.
    pub status: u16,
    /// Sent verbatim as the Retry-After header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<String>,
    /// Defaults to an OpenAI-style error object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

impl Step {
    fn of(action: Action) -> Self {
        Self {
            latency_ms: 0,
            when: None,
            action,
        }
    }

    /// A step that answers with `content`.
    pub fn reply(content: impl Into<String>) -> Self {
        Self::of(Action::Reply(ScriptedReply {
            content: content.into(),
            reasoning_content: None,
            prompt_tokens: None,
            completion_tokens: None,
            finish_reason: None,
        }))
    }

    /// A step that answers with HTTP status `status`.
    pub fn http_error(status: u16) -> Self {
        Self::of(Action::HttpError(ScriptedHttpError {
            status,
            retry_after: None,
            body: None,
        }))
    }

    /// A step that accepts the request and never answers.
    pub fn hang() -> Self {
        Self::of(Action::Hang {})
    }

    /// A step that answers 200 with `body` verbatim.
    pub fn malformed(body: impl Into<String>) -> Self {
        Self::of(Action::Malformed(body.into()))
    }

    /// Waits `ms` milliseconds before answering.
    pub fn latency_ms(mut self, ms: u64) -> Self {
        self.latency_ms = ms;
        self
    }

    /// Answers only a request whose messages contain `text`.
    pub fn when(mut self, text: impl Into<String>) -> Self {
        self.when = Some(text.into());
        self
    }

    /// Sets the usage a reply reports.
    pub fn tokens(mut self, prompt: u64, completion: u64) -> Self {
        if let Action::Reply(r) = &mut self.action {
            r.prompt_tokens = Some(prompt);
            r.completion_tokens = Some(completion);
        }
        self
    }

    /// Sets the reply's `finish_reason` (`"length"`: cut at the token cap).
    pub fn finish_reason(mut self, reason: impl Into<String>) -> Self {
        if let Action::Reply(r) = &mut self.action {
            r.finish_reason = Some(reason.into());
        }
        self
    }

    /// Adds `reasoning_content` to a reply; other steps are unchanged.
    pub fn reasoning(mut self, text: impl Into<String>) -> Self {
        if let Action::Reply(r) = &mut self.action {
            r.reasoning_content = Some(text.into());
        }
        self
    }

    /// Sets the Retry-After header of an error; other steps are unchanged.
    pub fn retry_after(mut self, value: impl Into<String>) -> Self {
        if let Action::HttpError(e) = &mut self.action {
            e.retry_after = Some(value.into());
        }
        self
    }

    /// Sets the body of an error; other steps are unchanged.
    pub fn body(mut self, body: impl Into<String>) -> Self {
        if let Action::HttpError(e) = &mut self.action {
            e.body = Some(body.into());
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_script_shape_parses() {
        let script = Script::from_json(
            r#"{"roles": {
                "R1": [{"reply": {"content": "{}"}, "latency_ms": 40}],
                "R3": [{"http_error": {"status": 429, "retry_after": "1"}}, {"hang": {}}],
                "R4a": [{"malformed": "<html>", "match": "criterion A"}]
            }}"#,
        )
        .unwrap();
        assert_eq!(script.roles["R1"][0].latency_ms, 40);
        assert_eq!(script.roles["R3"][1].action, Action::Hang {});
        assert_eq!(script.roles["R4a"][0].when.as_deref(), Some("criterion A"));
        assert_eq!(script.response_formats, default_formats());
    }

    #[test]
    fn a_script_for_a_role_that_never_calls_a_model_is_rejected() {
        let err = Script::from_json(r#"{"roles": {"R7": []}}"#).unwrap_err();
        assert!(matches!(err, ScriptError::UnknownRole(r) if r == "R7"));
    }

    #[test]
    fn built_scripts_round_trip_through_json() {
        let script = Script::new().role(
            Role::Executor,
            [
                Step::http_error(500).retry_after("2"),
                Step::reply("x").tokens(3, 4).when("a"),
            ],
        );
        let text = serde_json::to_string(&script).unwrap();
        assert_eq!(Script::from_json(&text).unwrap(), script);
    }
}
