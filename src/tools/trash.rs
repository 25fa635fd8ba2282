//! The Trash: the reversible alternative to deletion that a Law 1 dialog may offer, and
//! putting items back. Uses the `trash` crate (Finder on macOS, the freedesktop.org
//! trash under `$XDG_DATA_HOME` elsewhere).

use std::path::{Path, PathBuf};

use super::ToolError;

/// Moves `paths` to the Trash; says what moved and that it can be put back.
pub async fn move_to_trash(paths: &[PathBuf]) -> Result<String, ToolError> {
    let owned = paths.to_vec();
    tokio::task::spawn_blocking(move || trash::delete_all(&owned))
        .await
        .map_err(|e| ToolError::Failed(format!("moving to the Trash stopped: {e}")))?
        .map_err(|e| ToolError::Failed(format!("could not move to the Trash: {e}")))?;
    let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Ok(format!(
        "Moved to the Trash (can be put back): {}",
        list.join(", ")
    ))
}

/// Puts the most recently trashed item that came from `original` back where it was.
#[cfg(all(unix, not(target_os = "macos")))]
pub async fn restore(original: &Path) -> Result<PathBuf, ToolError> {
    let original = original.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let items = trash::os_limited::list()
            .map_err(|e| ToolError::Failed(format!("cannot read the Trash: {e}")))?;
        let item = items
            .into_iter()
            .filter(|i| i.original_path() == original)
            .max_by_key(|i| i.time_deleted)
            .ok_or_else(|| {
                ToolError::NotFound(format!("{} is not in the Trash", original.display()))
            })?;
        trash::os_limited::restore_all([item])
            .map_err(|e| ToolError::Failed(format!("could not put it back: {e}")))?;
        Ok(original)
    })
    .await
    .map_err(|e| ToolError::Failed(format!("restoring from the Trash stopped: {e}")))?
}

/// On macOS, Finder's "Put Back" restores; the `trash` crate cannot.
#[cfg(not(all(unix, not(target_os = "macos"))))]
pub async fn restore(original: &Path) -> Result<PathBuf, ToolError> {
    Err(ToolError::Failed(format!(
        "restore {} with Finder's Put Back",
        original.display()
    )))
}
