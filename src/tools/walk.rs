//! A bounded, cancellable walk of a folder tree, shared by glob and the mdfind
//! fallback: symlinks are not followed, skipped folders are not entered, and no more
//! than a set number of entries is visited.

use std::path::Path;

use tokio_util::sync::CancellationToken;
use walkdir::DirEntry;

use super::ToolError;

/// How a walk ended.
pub struct Walked {
    pub visited: usize,
    /// False when the entry limit stopped the walk early.
    pub complete: bool,
}

/// Visits every entry below `root` (not `root` itself), at most `limit` of them.
/// Blocking: call it from `spawn_blocking`.
pub fn bounded(
    root: &Path,
    limit: usize,
    cancel: &CancellationToken,
    skip_dir: impl Fn(&DirEntry) -> bool,
    mut visit: impl FnMut(DirEntry),
) -> Result<Walked, ToolError> {
    let mut visited = 0usize;
    let entries = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !(e.file_type().is_dir() && skip_dir(e)));
    for entry in entries {
        if cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        visited += 1;
        if visited > limit {
            return Ok(Walked {
                visited: limit,
                complete: false,
            });
        }
        let Ok(entry) = entry else { continue };
        if entry.depth() > 0 {
            visit(entry);
        }
    }
    Ok(Walked {
        visited,
        complete: true,
    })
}
