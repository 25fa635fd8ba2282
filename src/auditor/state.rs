//! The auditor's persisted state, `state.json` in the audit directory: the chain
//! checkpoint (the anchor `verify` compares the log's end against), the current window
//! statistics and the detectors (calibration included). Written atomically after the log
//! bytes it covers — at most every flush interval while traffic flows, and always with a
//! report and at shutdown — so a clean restart resumes exactly where the log ends.
//!
//! **Invariant:** the checkpoint is written only after the log bytes it covers, so the
//! log is never shorter than its checkpoint unless something removed events.

use std::io;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::detect::Detectors;
use super::log::Checkpoint;
use super::window::WindowStats;

pub(crate) const STATE_FILE: &str = "state.json";
/// Bumped when the format changes incompatibly.
pub const STATE_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub version: u32,
    pub checkpoint: Checkpoint,
    pub saved_at: DateTime<Utc>,
    pub window: WindowStats,
    pub detectors: Detectors,
}

/// Why a state file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("cannot read {STATE_FILE}: {0}")]
    Io(#[from] io::Error),
    #[error("{STATE_FILE} is unreadable: {0}")]
    Corrupt(String),
}

/// The saved state, or `None` when there is none yet.
pub fn load(dir: &Path) -> Result<Option<State>, StateError> {
    let bytes = match std::fs::read(dir.join(STATE_FILE)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut state: State =
        serde_json::from_slice(&bytes).map_err(|e| StateError::Corrupt(e.to_string()))?;
    if state.version != STATE_VERSION {
        return Err(StateError::Corrupt(format!(
            "format version {} (this build reads {STATE_VERSION})",
            state.version
        )));
    }
    // Task classes an older build named its own way count as the kinds they name now.
    state.detectors.calibration.regroup();
    Ok(Some(state))
}

/// Only the checkpoint of the saved state (what `verify` needs).
pub fn read_checkpoint(dir: &Path) -> Result<Option<Checkpoint>, StateError> {
    #[derive(Deserialize)]
    struct Head {
        checkpoint: Checkpoint,
    }
    let bytes = match std::fs::read(dir.join(STATE_FILE)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    serde_json::from_slice::<Head>(&bytes)
        .map(|h| Some(h.checkpoint))
        .map_err(|e| StateError::Corrupt(e.to_string()))
}

/// The same JSON as [`State`], serialised from borrowed parts (no copy of the window
/// and detectors per write).
#[derive(Serialize)]
pub struct StateRef<'a> {
    pub version: u32,
    pub checkpoint: &'a Checkpoint,
    pub saved_at: DateTime<Utc>,
    pub window: &'a WindowStats,
    pub detectors: &'a Detectors,
}

pub fn encode(state: &StateRef<'_>) -> Vec<u8> {
    serde_json::to_vec(state).expect("the auditor state serialises to JSON")
}

/// Replaces `state.json` atomically (temp file + rename).
pub fn write(dir: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = dir.join(format!("{STATE_FILE}.tmp"));
    {
        let mut options = std::fs::OpenOptions::new();
        options.create(true).write(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp)?;
        io::Write::write_all(&mut file, bytes)?;
    }
    std::fs::rename(&tmp, dir.join(STATE_FILE))
}

/// Moves an unusable state file aside so start-up can begin a fresh window; returns
/// the new name.
pub fn quarantine(dir: &Path, now: DateTime<Utc>) -> io::Result<String> {
    let name = format!("{STATE_FILE}.unreadable-{}", now.format("%Y%m%dT%H%M%SZ"));
    std::fs::rename(dir.join(STATE_FILE), dir.join(&name))?;
    Ok(name)
}
