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

    /// The slot a role's calls go to: roles share nothing of their prompts past the
    /// first lines, so with a slot each their caches do not evict one another. With
    /// fewer slots than roles, roles share slots in pipeline order; with one slot the
    /// server picks (its own cache of idle prompts still serves returning roles).
    pub fn slot_for(self, role: Role) -> Option<u32> {
        match self {
            ServerKind::LlamaServer { slots } if slots >= 2 => {
                let index = MODEL_ROLES.iter().position(|r| *r == role)? as u32;
                Some(index % slots)
            }
            _ => None,
        }
    }
}

#[derive(Deserialize)]
struct Props {
    total_slots: Option<u32>,
}

/// The server kind a `/props` body describes.
pub fn kind_from_props(body: &str) -> ServerKind {
    match serde_json::from_str::<Props>(body) {
        Ok(Props {
            total_slots: Some(slots),
        }) if slots >= 1 => ServerKind::LlamaServer { slots },
        _ => ServerKind::Generic,
    }
}

/// Where the `/props` of an OpenAI-style base URL lives: llama-server serves it at the
/// root, beside `/v1`.
pub fn props_url(base_url: &str) -> String {
    let root = base_url.trim_end_matches('/');
    let root = root.strip_suffix("/v1").unwrap_or(root);
    format!("{root}/props")
}

/// Asks the endpoint what it is. Never fails: anything but a llama-server answer is
/// [`ServerKind::Generic`].
pub async fn probe(client: &reqwest::Client, base_url: &str) -> ServerKind {
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
        Some(body) => kind_from_props(&body),
        None => ServerKind::Generic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_answer_naming_slots_is_a_llama_server() {
        assert_eq!(
            kind_from_props(r#"{"total_slots": 4, "model_path": "m.gguf"}"#),
            ServerKind::LlamaServer { slots: 4 }
        );
        assert_eq!(
            kind_from_props(r#"{"total_slots": 0}"#),
            ServerKind::Generic
        );
        assert_eq!(
            kind_from_props(r#"{"object": "list"}"#),
            ServerKind::Generic
        );
        assert_eq!(kind_from_props("not found"), ServerKind::Generic);
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
    fn roles_get_their_own_slot_when_there_are_enough() {
        let many = ServerKind::LlamaServer { slots: 8 };
        let slots: Vec<_> = MODEL_ROLES.iter().map(|r| many.slot_for(*r)).collect();
        let distinct: std::collections::BTreeSet<_> = slots.iter().collect();
        assert_eq!(distinct.len(), MODEL_ROLES.len(), "{slots:?}");
        let two = ServerKind::LlamaServer { slots: 2 };
        assert!(
            MODEL_ROLES
                .iter()
                .all(|r| two.slot_for(*r).is_some_and(|s| s < 2))
        );
        assert_eq!(
            ServerKind::LlamaServer { slots: 1 }.slot_for(Role::Planner),
            None
        );
        assert_eq!(ServerKind::Generic.slot_for(Role::Planner), None);
        assert!(!ServerKind::Generic.keeps_prompt_cache());
        assert!(ServerKind::LlamaServer { slots: 1 }.keeps_prompt_cache());
    }
}
