//! `list_files`: lists or finds files under a folder with typed parameters — sizes,
//! dates, sorting, limits, counts and counts per group — so a small model never has to
//! improvise `ls | sort | head` or `find | wc -l` pipelines and read the answer by eye.
//! The walking, filtering and formatting live in [`super::files`]; this wraps them as a
//! tool: the folder is resolved once by code (`~`, relative to the sub-task's folder), the
//! parameters are checked before anything runs, and the walk runs on the blocking pool.
//!
//! Read-only: it never needs Law 1.

use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::{Value, json};

use super::{
    Choices, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec, files,
};

/// Rows shown at most, whatever limit the call asks for (the rest are counted).
const MAX_SHOWN: usize = 200;

/// The list_files tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct ListFiles;

/// The folder parameter under the names a model writes it with.
const FOLDER_NAMES: &[&str] = &["folder", "path", "dir", "directory", "root"];

/// The folder a call names, under any of [`FOLDER_NAMES`].
pub(super) fn folder_param(input: &Value) -> Result<&str, ToolError> {
    FOLDER_NAMES
        .iter()
        .find_map(|name| input.get(*name).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ToolError::InvalidInput("`folder` is required".into()))
}

/// `path` as the user sees it: `~/…` under the home folder, else as it is.
pub(super) fn shown_path(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) if rest.as_os_str().is_empty() => "~".to_string(),
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => path.display().to_string(),
    }
}

/// The engine's parameter table as the model is shown it, with the values each
/// parameter of `choices` may take.
pub(super) fn params_of(
    table: &'static [(&'static str, &'static str, bool, &'static str)],
    choices: &[(&str, Choices)],
) -> Vec<Param> {
    table
        .iter()
        .map(|(name, kind, required, about)| Param {
            name: Cow::Borrowed(name),
            kind: Cow::Borrowed(kind),
            required: *required,
            about: Cow::Borrowed(about),
            choices: choices
                .iter()
                .find(|(n, _)| n == name)
                .map_or(Choices::Open, |(_, c)| *c),
        })
        .collect()
}

impl Tool for ListFiles {
    fn spec(&self) -> ToolSpec {
        static PARAMS: OnceLock<Vec<Param>> = OnceLock::new();
        ToolSpec {
            name: ToolName::ListFiles.into(),
            priority: 4,
            summary: Cow::Borrowed(files::SUMMARY),
            params: Cow::Owned(
                PARAMS
                    .get_or_init(|| {
                        let fixed: Vec<_> = files::CHOICES
                            .iter()
                            .map(|(n, v)| (*n, Choices::Fixed(v)))
                            .collect();
                        params_of(files::PARAMS, &fixed)
                    })
                    .clone(),
            ),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let folder = ctx.resolve_read_path(folder_param(input)?);
        files::Request::from_json(input).map_err(ToolError::InvalidInput)?;
        let shown = folder.to_string_lossy().into_owned();
        let mut executed = input.clone();
        if let Some(map) = executed.as_object_mut() {
            for name in FOLDER_NAMES {
                map.remove(*name);
            }
            map.insert("folder".into(), json!(shown));
        }
        Ok(Prepared::plain(ToolName::ListFiles, executed, shown))
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let folder = ctx.resolve_read_path(folder_param(&call.input)?);
            let request =
                files::Request::from_json(&call.input).map_err(ToolError::InvalidInput)?;
            let limits = files::Limits {
                max_entries: ctx.config.tools.walk_limit_entries,
                max_shown: MAX_SHOWN,
            };
            let shown = shown_path(&folder, &ctx.config.home);
            tokio::task::spawn_blocking(move || {
                files::run(
                    &folder,
                    &shown,
                    &request,
                    &limits,
                    std::time::SystemTime::now(),
                )
            })
            .await
            .map_err(|e| ToolError::Failed(format!("the listing did not complete: {e}")))?
            .map_err(|message| {
                if message.starts_with("no such folder") {
                    ToolError::NotFound(message)
                } else {
                    ToolError::Failed(message)
                }
            })
        })
    }
}
