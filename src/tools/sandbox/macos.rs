//! Running a command under `sandbox-exec` with the profile of [`super::seatbelt`].
//! Compiled on macOS only (the project's type-check covers it); its behaviour on a Mac
//! is not verified by the project's tests.
//!
//! **Invariant:** the profile is written for this call alone, from canonical paths, and
//! removed with the call's temp folder.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use super::seatbelt::{self, Profile};
use super::{Confinement, Outcome, Status};
use crate::contracts::PathEffect;
use crate::tools::ToolError;
use crate::tools::process::{self, BaseEnv, Input, Spec};

/// Entries of the workspace the profile names one by one; a larger workspace takes no
/// new entries in the sandbox (an unnamed one could be overwritten).
const MAX_LISTED: usize = 4000;

/// (`sandbox-exec` is always the system's own, at its absolute path.)
pub async fn probe(env: &BaseEnv, _programs: &std::ffi::OsStr) -> Status {
    let result = process::run(
        Spec {
            program: "/usr/bin/sandbox-exec",
            args: vec![
                "-p".into(),
                "(version 1)(allow default)".into(),
                "/usr/bin/true".into(),
            ],
            cwd: None,
            env,
            home: None,
            stdin: Input::Null,
            timeout: std::time::Duration::from_secs(10),
        },
        &CancellationToken::new(),
    )
    .await;
    match result {
        Ok(f) if f.status.success() => Status::On("Seatbelt (sandbox-exec)"),
        Ok(f) => Status::Off(format!("sandbox-exec failed: {}", f.stderr.trim())),
        Err(e) => Status::Off(format!("sandbox-exec cannot run: {e}")),
    }
}

/// `path` with its existing part resolved (`/tmp` → `/private/tmp`).
fn canonical(path: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(path) {
        return c;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => canonical(parent).join(name),
        _ => path.to_path_buf(),
    }
}

pub async fn run(
    env: &BaseEnv,
    _programs: &std::ffi::OsStr,
    command: &str,
    at: Confinement<'_>,
    cancel: &CancellationToken,
) -> Result<Outcome, ToolError> {
    let workspace = canonical(at.workspace);
    let tmp = canonical(&std::env::temp_dir())
        .join(format!("artoo-sandbox-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&tmp).map_err(|e| {
        ToolError::SandboxUnavailable(format!("cannot create {}: {e}", tmp.display()))
    })?;
    let listing = {
        let ws = workspace.clone();
        tokio::task::spawn_blocking(move || {
            let mut out = Vec::new();
            for entry in walkdir::WalkDir::new(&ws).min_depth(1).follow_links(false) {
                let Ok(entry) = entry else { return None };
                out.push(entry.into_path());
                if out.len() > MAX_LISTED {
                    return None;
                }
            }
            Some(out)
        })
        .await
        .ok()
        .flatten()
    };
    let creates: Vec<PathBuf> = at.plan.creates.iter().map(|c| canonical(c)).collect();
    let text = seatbelt::profile(&Profile {
        workspace: &workspace,
        tmp: &tmp,
        creates: &creates,
        existing: listing.as_deref().unwrap_or(&[]),
        workspace_listed: listing.is_some(),
        network: at.plan.network,
    });
    let profile_path = tmp.join("profile.sb");
    std::fs::write(&profile_path, text)
        .map_err(|e| ToolError::SandboxUnavailable(format!("cannot write its profile: {e}")))?;
    let mut tmpdir = OsString::from("TMPDIR=");
    tmpdir.push(&tmp);
    let result = process::run(
        Spec {
            program: "/usr/bin/sandbox-exec",
            args: vec![
                "-f".into(),
                profile_path.clone().into(),
                "/usr/bin/env".into(),
                tmpdir,
                "bash".into(),
                "-c".into(),
                command.into(),
            ],
            cwd: Some(at.workspace),
            env,
            home: Some(at.home),
            stdin: Input::Null,
            timeout: at.timeout,
        },
        cancel,
    )
    .await;
    let _ = std::fs::remove_dir_all(&tmp);
    let finished = result?;
    // Seatbelt refuses as it happens and says nothing about what; a command that failed
    // on "Operation not permitted" was stopped by it.
    let refused =
        if !finished.status.success() && finished.stderr.contains("Operation not permitted") {
            vec![PathEffect {
                path: workspace.clone(),
                exists: true,
                effect: "write (refused as it happened; see the command's error output)".into(),
            }]
        } else {
            Vec::new()
        };
    Ok(Outcome {
        finished,
        refused,
        held: None,
        not_kept: Vec::new(),
        kept: Vec::new(),
        journaled: Vec::new(),
    })
}
