//! What kind of server an endpoint is, learned once per endpoint from its `/props`
//! answer: a llama.cpp server (`llama-server`) says how many slots it has, and then each
//! call may ask it to keep its prompt cache (`cache_prompt`) in the slot of its role
//! (`id_slot`). Every other endpoint gets plain OpenAI requests.
//!
//! Why it matters: on a local model every prompt token not already in the server's cache
//! costs time (about 14 ms per token for a 1.5B model on two cores). A role's system
//! prompt is the same on every call, so with the cache kept per role it is evaluated
//! once, not on every call.
//!
//! **Invariant:** the llama-server fields are only ever sent to an endpoint whose
//! `/props` answer named its slots; a failed or foreign answer means a generic endpoint.

use std::time::Duration;

use serde::Deserialize;

use crate::contracts::Role;

use super::tier::MODEL_ROLES;

/// How long the one-time `/props` probe may take; a server that does not answer in
/// this time is treated as generic.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The kind of server behind an endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKind {
    /// Anything that did not say it is llama-server: hosted APIs, Ollama, LM Studio.
    Generic,
    /// llama.cpp's server with this many slots.
    LlamaServer { slots: u32 },
}

impl ServerKind {
    /// Whether requests should ask the server to keep and reuse its prompt cache.
    pub fn keeps_prompt_cache(self) -> bool {
        matches!(self, ServerKind::LlamaServer { .. })
    }

    /// The slot a role's calls go to, when the server has one for every role: each
    /// role's instructions then stay evaluated in its own slot across tasks, and a task
    /// on a warm server evaluates little more than its own words (measured on the 1.5B
    /// model: about 700 prompt tokens per task instead of 1,650).
    ///
    /// With fewer slots (llama-server's automatic count, or one) the server picks. A
    /// pinned role on a cold server evaluates its whole prompt in an empty slot, while
    /// the server's own choice puts the next role where the shared opening of every
    /// role's prompt is already evaluated: on a server started for one task, pinning
    /// cost about 4,600 evaluated tokens per task against 3,100 (docs/llm.md).
    pub fn slot_for(self, role: Role) -> Option<u32> {
        match self {
            ServerKind::LlamaServer { slots } if slots as usize >= MODEL_ROLES.len() => MODEL_ROLES
                .iter()
                .position(|r| *r == role)
                .map(|index| index as u32),
            _ => None,
        }
    }
}

/// What the one-time probe learned about an endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerInfo {
    pub kind: ServerKind,
    /// The weights and the server build, as `/props` names them: a saved prompt cache is
    /// only ever restored into the server that made it (see [`super::snapshots`]).
    pub identity: String,
}

/// What every endpoint that is not a llama-server is.
pub static GENERIC: ServerInfo = ServerInfo {
    kind: ServerKind::Generic,
    identity: String::new(),
};

#[derive(Deserialize)]
struct Props {
    total_slots: Option<u32>,
    #[serde(default)]
    model_path: String,
    #[serde(default)]
    build_info: String,
}

/// The server a `/props` body describes.
pub fn info_from_props(body: &str) -> ServerInfo {
    match serde_json::from_str::<Props>(body) {
        Ok(Props {
            total_slots: Some(slots),
            model_path,
            build_info,
        }) if slots >= 1 => ServerInfo {
            kind: ServerKind::LlamaServer { slots },
            identity: format!("{model_path}\n{build_info}"),
        },
        _ => GENERIC.clone(),
    }
}

/// Where the `/props` of an OpenAI-style base URL lives: llama-server serves it at the
/// root, beside `/v1`.
pub fn props_url(base_url: &str) -> String {
    format!("{}/props", server_root(base_url))
}

/// The server's root for its own endpoints (`/props`, `/slots`): the base URL without
/// its `/v1`.
pub fn server_root(base_url: &str) -> &str {
    let root = base_url.trim_end_matches('/');
    root.strip_suffix("/v1").unwrap_or(root)
}

/// Asks the endpoint what it is. Never fails: anything but a llama-server answer is
/// [`ServerKind::Generic`].
pub async fn probe(client: &reqwest::Client, base_url: &str) -> ServerInfo {
    let answer = async {
        let response = client
            .get(props_url(base_url))
            .timeout(PROBE_TIMEOUT)
            .send()
            .await
            .ok()?;
        if !response.status().is_success() {
            return None;
        }
        response.text().await.ok()
    };
    match answer.await {
        Some(body) => info_from_props(&body),
        None => GENERIC.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_answer_naming_slots_is_a_llama_server() {
        assert_eq!(
            info_from_props(r#"{"total_slots": 4, "model_path": "m.gguf"}"#).kind,
            ServerKind::LlamaServer { slots: 4 }
        );
        assert_eq!(
            info_from_props(r#"{"total_slots": 0}"#).kind,
            ServerKind::Generic
        );
        assert_eq!(
            info_from_props(r#"{"object": "list"}"#).kind,
            ServerKind::Generic
        );
        assert_eq!(info_from_props("not found").kind, ServerKind::Generic);
    }

    #[test]
    fn props_live_beside_v1() {
        assert_eq!(
            props_url("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/props"
        );
        assert_eq!(props_url("http://h/api/"), "http://h/api/props");
    }

    #[test]
    fn roles_get_their_own_slot_only_when_there_is_one_for_each() {
        let many = ServerKind::LlamaServer { slots: 8 };
        let slots: Vec<_> = MODEL_ROLES.iter().map(|r| many.slot_for(*r)).collect();
        let distinct: std::collections::BTreeSet<_> = slots.iter().collect();
        assert_eq!(distinct.len(), MODEL_ROLES.len(), "{slots:?}");
        let exact = ServerKind::LlamaServer {
            slots: MODEL_ROLES.len() as u32,
        };
        let slots: std::collections::BTreeSet<_> =
            MODEL_ROLES.iter().map(|r| exact.slot_for(*r)).collect();
        assert_eq!(slots.len(), MODEL_ROLES.len(), "{slots:?}");
        // Fewer slots than roles (llama-server's automatic 4): the server chooses.
        for n in [2, 4] {
            let few = ServerKind::LlamaServer { slots: n };
            assert!(MODEL_ROLES.iter().all(|r| few.slot_for(*r).is_none()));
        }
        assert_eq!(
            ServerKind::LlamaServer { slots: 1 }.slot_for(Role::Planner),
            None
        );
        assert_eq!(ServerKind::Generic.slot_for(Role::Planner), None);
        assert!(!ServerKind::Generic.keeps_prompt_cache());
        assert!(ServerKind::LlamaServer { slots: 1 }.keeps_prompt_cache());
    }
}
