//! API keys in the OS keychain (macOS Keychain, Secret Service on Linux, Windows
//! Credential Manager) through the `keyring` crate: one entry per model tier under the
//! service `artoo`.
//!
//! **Invariant:** a key goes from the settings form to the keychain and from the keychain
//! into the in-memory `Config`, nowhere else: never to settings.toml, a log line or an
//! IPC reply. Where no keychain answers, nothing is stored and callers are told why.

use artoo::config::{ApiKey, Config};
use keyring::{Entry, Error as KeyringError};

use crate::dto::{KeyChange, KeyStatus, KeychainInfo, TierKeys};
use crate::error::{IpcError, IpcErrorCode, IpcResult};

const SERVICE: &str = "artoo";
const TIERS: [&str; 2] = ["brain", "tool"];

#[cfg(target_os = "macos")]
const BACKEND: &str = "macOS Keychain";
#[cfg(target_os = "linux")]
const BACKEND: &str = "Secret Service";
#[cfg(target_os = "windows")]
const BACKEND: &str = "Windows Credential Manager";
#[cfg(not(any(target_os = "macos", target_os = "linux", target_os = "windows")))]
const BACKEND: &str = "OS keychain";

/// Where API keys are kept.
#[derive(Clone, Debug)]
pub enum Keychain {
    /// The platform's keychain (probed on every use: Secret Service may come and go).
    Os,
    /// Keys are not stored; the reason is shown in Settings. Tests use this so they
    /// never touch a real keychain.
    Disabled(String),
}

impl Keychain {
    /// Blocking: a keychain call may wait on D-Bus or a user prompt.
    pub fn info(&self) -> KeychainInfo {
        match self {
            Keychain::Disabled(reason) => KeychainInfo {
                available: false,
                backend: reason.clone(),
            },
            Keychain::Os => match read(TIERS[0]) {
                Ok(_) => KeychainInfo {
                    available: true,
                    backend: BACKEND.to_string(),
                },
                Err(reason) => KeychainInfo {
                    available: false,
                    backend: format!(
                        "no {BACKEND} ({reason}); keys come from BRAIN_API_KEY, TOOL_API_KEY or OPENAI_API_KEY"
                    ),
                },
            },
        }
    }

    /// Which tiers have a stored key (false everywhere without a keychain). Blocking.
    pub fn status(&self) -> TierKeys {
        let stored = |tier: &str| KeyStatus {
            stored: matches!(self, Keychain::Os) && matches!(read(tier), Ok(Some(_))),
        };
        TierKeys {
            brain: stored(TIERS[0]),
            tool: stored(TIERS[1]),
        }
    }

    /// Fills each tier's key from the keychain where the environment gave none. Blocking.
    pub fn fill(&self, config: &mut Config) {
        if !matches!(self, Keychain::Os) {
            return;
        }
        for (tier, cfg) in [
            (TIERS[0], &mut config.llm.brain),
            (TIERS[1], &mut config.llm.tool),
        ] {
            if cfg.api_key.is_some() {
                continue;
            }
            match read(tier) {
                Ok(Some(key)) => cfg.api_key = Some(ApiKey::new(key)),
                Ok(None) => {}
                Err(reason) => tracing::debug!(tier, %reason, "no key from the keychain"),
            }
        }
    }

    /// Checks that `changes` can be applied before anything is written.
    pub fn check(&self, changes: [&KeyChange; 2]) -> IpcResult<()> {
        if changes.iter().all(|c| matches!(c, KeyChange::Keep)) {
            return Ok(());
        }
        for change in changes {
            if let KeyChange::Set { key } = change
                && (key.trim().is_empty() || key.chars().any(char::is_control))
            {
                return Err(IpcError::invalid(
                    "an API key must be non-empty and on one line",
                ));
            }
        }
        let info = self.info();
        if info.available {
            Ok(())
        } else {
            Err(IpcError::new(
                IpcErrorCode::KeychainUnavailable,
                format!("API keys cannot be stored: {}", info.backend),
            ))
        }
    }

    /// Applies `changes` (brain, tool). Blocking.
    pub fn apply(&self, changes: [&KeyChange; 2]) -> IpcResult<()> {
        self.check(changes)?;
        for (tier, change) in TIERS.into_iter().zip(changes) {
            let entry = entry(tier).map_err(unavailable)?;
            match change {
                KeyChange::Keep => {}
                KeyChange::Set { key } => entry.set_password(key.trim()).map_err(unavailable)?,
                KeyChange::Clear => match entry.delete_credential() {
                    Ok(()) | Err(KeyringError::NoEntry) => {}
                    Err(e) => return Err(unavailable(e)),
                },
            }
        }
        Ok(())
    }
}

fn entry(tier: &str) -> Result<Entry, KeyringError> {
    Entry::new(SERVICE, tier)
}

/// The stored key of `tier`, `None` when there is none, or why the keychain did not answer.
fn read(tier: &str) -> Result<Option<String>, String> {
    match entry(tier).and_then(|e| e.get_password()) {
        Ok(key) => Ok(Some(key)),
        Err(KeyringError::NoEntry) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

fn unavailable(e: KeyringError) -> IpcError {
    IpcError::new(
        IpcErrorCode::KeychainUnavailable,
        format!("the {BACKEND} refused: {e}"),
    )
}
