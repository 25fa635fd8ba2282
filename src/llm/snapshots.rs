//! Saved prompt caches ("snapshots") on a local llama-server, so that a role's
//! instructions are evaluated once per machine rather than once per server start.
//!
//! A llama-server started with `--slot-save-path` can write what a slot has evaluated
//! (its tokens and their KV cache) to a file there and read it back into a slot later,
//! in milliseconds. Every role's system prompt is fixed text, so the evaluated prompt
//! of a role is the same on every call and across tasks: once saved, a server started
//! for the next task restores it instead of evaluating 1,000–1,600 tokens again (about
//! 20 s each on two cores for the 1.5B model).
//!
//! Per call, on a slot artoo addresses (the only slot, or the role's own slot):
//! 1. If the slot already holds this system prompt (as far as this client knows: it
//!    sent the last call there), nothing happens.
//! 2. Otherwise the snapshot named after the prompt and the server's identity is
//!    restored into the slot.
//! 3. If there is none yet (or it does not fit this server), the system prompt alone is
//!    evaluated in the slot (a call that generates nothing) and saved under that name.
//!    Only the instructions are saved, never the user's words.
//!
//! The slot is held for the whole exchange, restore and call together, so that no other
//! call of this process replaces its contents in between (a one-slot server runs one
//! call at a time anyway).
//!
//! **Invariant:** a snapshot only ever saves time. The call always carries its whole
//! prompt and the server reuses only the cached tokens that equal it, so a stale,
//! foreign or missing snapshot costs evaluation, never correctness; and every failure
//! here is logged and the call goes ahead.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;

use crate::contracts::Role;

use super::pace::Pace;
use super::server::{ServerInfo, ServerKind, server_root};
use super::wire::{ROLE_HEADER, WireResponse};

/// The slots of one endpoint, as far as snapshots go.
#[derive(Debug, Default)]
pub(super) struct Snapshots {
    /// Set once the server says it keeps no snapshots (started without
    /// `--slot-save-path`), and nothing is tried again.
    unsupported: AtomicBool,
    /// Per slot: the key of the system prompt it holds, when this client knows it.
    slots: tokio::sync::OnceCell<Vec<tokio::sync::Mutex<Option<u64>>>>,
    /// Snapshots that could not be made (the server refused to save them): not retried.
    failed: Mutex<HashSet<u64>>,
}

/// One endpoint's way to the server, for the snapshot requests.
pub(super) struct Server<'a> {
    pub http: &'a reqwest::Client,
    pub base_url: &'a str,
    pub api_key: Option<&'a str>,
    pub model: &'a str,
    pub info: &'a ServerInfo,
    /// Where the evaluation's measured speed goes, and under which name.
    pub pace: &'a Pace,
    pub pace_key: &'a str,
}

/// A slot held for one exchange; tell it what the slot holds afterwards.
pub(super) struct HeldSlot<'a> {
    key: u64,
    held: tokio::sync::MutexGuard<'a, Option<u64>>,
}

impl HeldSlot<'_> {
    /// The call went through: the slot now starts with this system prompt.
    pub fn called(mut self, ok: bool) {
        *self.held = ok.then_some(self.key);
    }
}

/// The slot a role's calls are addressed to when snapshots apply: the only slot of a
/// one-slot server, or the role's own slot when there is one per role. Servers with a
/// few shared slots choose for themselves, and snapshots stay out of their way.
pub(super) fn slot_for(kind: ServerKind, role: Role) -> Option<u32> {
    match kind {
        ServerKind::LlamaServer { slots: 1 } => Some(0),
        ServerKind::LlamaServer { .. } => kind.slot_for(role),
        ServerKind::Generic => None,
    }
}

/// A stable 64-bit FNV-1a hash: snapshot names must not change between builds of artoo
/// for the same prompt.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain([0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// The key of a system prompt on a server: the same instructions on other weights or
/// another server build are another snapshot.
pub(super) fn key_of(identity: &str, system: &str) -> u64 {
    fnv1a(&[identity, system])
}

/// The file a snapshot is saved as, inside the server's `--slot-save-path`.
pub(super) fn file_name(key: u64) -> String {
    format!("artoo-{key:016x}.bin")
}

/// How a slot request ended.
enum SlotAnswer {
    Done,
    /// 501: the server keeps no snapshots.
    Unsupported,
    /// Anything else: no such file, one that does not fit, a busy server.
    Refused(String),
}

impl Snapshots {
    fn unsupported(&self) -> bool {
        self.unsupported.load(Ordering::Relaxed)
    }

    /// Holds `slot` for an exchange whose system prompt is `system`, restoring or making
    /// its snapshot first when the slot holds something else. `None` when snapshots do
    /// not apply (the server keeps none, or the slot does not exist).
    pub async fn hold<'a>(
        &'a self,
        server: &Server<'_>,
        role: Role,
        slot: u32,
        system: &str,
    ) -> Option<HeldSlot<'a>> {
        if self.unsupported() {
            return None;
        }
        let ServerKind::LlamaServer { slots } = server.info.kind else {
            return None;
        };
        let table = self
            .slots
            .get_or_init(|| async {
                (0..slots)
                    .map(|_| tokio::sync::Mutex::new(None))
                    .collect::<Vec<_>>()
            })
            .await;
        let mut held = table.get(slot as usize)?.lock().await;
        let key = key_of(&server.info.identity, system);
        if *held != Some(key) {
            *held = self
                .fill(server, role, slot, system, key)
                .await
                .then_some(key);
        }
        Some(HeldSlot { key, held })
    }

    /// Puts the evaluated `system` prompt into `slot`: from its snapshot, or evaluated
    /// and then saved. Whether the slot now holds it.
    async fn fill(
        &self,
        server: &Server<'_>,
        role: Role,
        slot: u32,
        system: &str,
        key: u64,
    ) -> bool {
        let name = file_name(key);
        match action(server, slot, "restore", &name).await {
            SlotAnswer::Done => {
                tracing::debug!(%role, slot, snapshot = %name, "prompt snapshot restored");
                return true;
            }
            SlotAnswer::Unsupported => {
                tracing::info!(
                    "the model server keeps no prompt snapshots (no --slot-save-path): \
                     each server start evaluates the roles' instructions again"
                );
                self.unsupported.store(true, Ordering::Relaxed);
                return false;
            }
            SlotAnswer::Refused(_) => {}
        }
        if crate::sync::lock(&self.failed).contains(&key) {
            return false;
        }
        if let Err(why) = evaluate_only(server, role, slot, system).await {
            tracing::warn!(%role, slot, error = %why, "could not evaluate the instructions for a prompt snapshot");
            return false;
        }
        match action(server, slot, "save", &name).await {
            SlotAnswer::Done => {
                tracing::info!(%role, slot, snapshot = %name, "prompt snapshot saved");
            }
            SlotAnswer::Unsupported => self.unsupported.store(true, Ordering::Relaxed),
            SlotAnswer::Refused(why) => {
                tracing::warn!(%role, slot, snapshot = %name, error = %why, "the server did not save a prompt snapshot");
                crate::sync::lock(&self.failed).insert(key);
            }
        }
        // Evaluated either way: the call that follows reuses it.
        true
    }
}

fn authorised(request: reqwest::RequestBuilder, server: &Server<'_>) -> reqwest::RequestBuilder {
    match server.api_key.filter(|k| !k.is_empty()) {
        Some(key) => request.bearer_auth(key),
        None => request,
    }
}

/// `POST /slots/{slot}?action=…` with a file name.
async fn action(server: &Server<'_>, slot: u32, action: &str, name: &str) -> SlotAnswer {
    let url = format!(
        "{}/slots/{slot}?action={action}",
        server_root(server.base_url)
    );
    let sent = authorised(server.http.post(url), server)
        .json(&json!({ "filename": name }))
        .send()
        .await;
    match sent {
        Ok(r) if r.status().is_success() => SlotAnswer::Done,
        Ok(r) if r.status() == reqwest::StatusCode::NOT_IMPLEMENTED => SlotAnswer::Unsupported,
        Ok(r) => {
            let status = r.status();
            let body = r.text().await.unwrap_or_default();
            SlotAnswer::Refused(format!("{status}: {}", body.trim()))
        }
        Err(e) => SlotAnswer::Refused(e.to_string()),
    }
}

/// Evaluates `system` (with an empty user turn) in `slot` without generating: the
/// instructions alone, ready to be saved.
async fn evaluate_only(
    server: &Server<'_>,
    role: Role,
    slot: u32,
    system: &str,
) -> Result<(), String> {
    let url = format!("{}/chat/completions", server.base_url.trim_end_matches('/'));
    let body = json!({
        "model": server.model,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": ""},
        ],
        "max_tokens": 0,
        "cache_prompt": true,
        "id_slot": slot,
    });
    let response = authorised(server.http.post(url), server)
        .header(ROLE_HEADER, role.short())
        .json(&body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("HTTP {}", response.status()));
    }
    // The evaluation of a whole prompt is the best measure of the reading speed there is.
    if let Ok(answer) = response.json::<WireResponse>().await
        && let Some(timings) = answer.timings
    {
        server.pace.record(server.pace_key, &timings.sample());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_stable_and_depend_on_the_prompt_and_the_server() {
        // A fixed value (FNV-1a, computed independently): a snapshot saved by one build
        // of artoo is found by the next.
        assert_eq!(
            file_name(key_of("m.gguf\nb1", "You are R2.")),
            "artoo-d7bb961f66b6294b.bin"
        );
        let base = key_of("m.gguf\nb1", "You are R2.");
        assert_ne!(
            base,
            key_of("m.gguf\nb2", "You are R2."),
            "another server build"
        );
        assert_ne!(base, key_of("n.gguf\nb1", "You are R2."), "other weights");
        assert_ne!(base, key_of("m.gguf\nb1", "You are R3."), "another prompt");
        // The parts are delimited: moving text across the boundary is another key.
        assert_ne!(key_of("ab", "c"), key_of("a", "bc"));
        assert!(file_name(base).starts_with("artoo-") && file_name(base).ends_with(".bin"));
        assert_eq!(file_name(base).len(), "artoo-".len() + 16 + ".bin".len());
    }

    #[test]
    fn snapshots_address_the_only_slot_or_the_role_s_own() {
        use crate::llm::MODEL_ROLES;
        let one = ServerKind::LlamaServer { slots: 1 };
        assert!(MODEL_ROLES.iter().all(|r| slot_for(one, *r) == Some(0)));
        let few = ServerKind::LlamaServer { slots: 4 };
        assert!(MODEL_ROLES.iter().all(|r| slot_for(few, *r).is_none()));
        let many = ServerKind::LlamaServer {
            slots: MODEL_ROLES.len() as u32,
        };
        for role in MODEL_ROLES {
            assert_eq!(slot_for(many, role), many.slot_for(role));
            assert!(slot_for(many, role).is_some());
        }
        assert_eq!(slot_for(ServerKind::Generic, Role::Planner), None);
    }
}
