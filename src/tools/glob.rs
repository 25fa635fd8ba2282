//! `glob`: project file search by pattern, recursive. `~` expands to home; directory
//! parts of a pattern are honoured (`src/**/*.rs`, `~/Documents/*.pdf`), so `**/*.go`
//! finds Go files at any depth. A pattern
//! without a `/` matches file names at any depth.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde_json::{Value, json};

use super::{Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec, walk};

/// Paths listed at most; the rest are counted.
const MAX_RESULTS: usize = 1000;

/// The glob tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct Glob;

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("pattern"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("e.g. \"*.md\" (any depth), \"src/**/*.rs\", \"~/Documents/*.pdf\""),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("root"),
        kind: Cow::Borrowed("string"),
        required: false,
        about: Cow::Borrowed(
            "folder to search from (default: the sub-task's folder, else the workspace); ignored for absolute patterns",
        ),
        choices: super::Choices::Open,
    },
];

/// A pattern split into the folder to walk and what to match below it.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    root: PathBuf,
    /// Relative to `root`, `/`-separated; `None` = match names at any depth.
    pattern: String,
    by_name: bool,
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

fn plan(pattern: &str, root: Option<&str>, ctx: &ToolContext) -> Result<Plan, ToolError> {
    let home = &ctx.config.home;
    let pattern = pattern.trim();
    let expanded = if pattern == "~" || pattern.starts_with("~/") {
        format!("{}{}", home.display(), &pattern[1..])
    } else {
        pattern.to_string()
    };
    if Path::new(&expanded).is_absolute() {
        // The literal leading folders become the root.
        let mut root = PathBuf::from("/");
        let mut rest: Vec<String> = Vec::new();
        for comp in Path::new(&expanded).components() {
            match comp {
                Component::RootDir | Component::Prefix(_) => {}
                Component::Normal(part) => {
                    let part = part.to_string_lossy();
                    if rest.is_empty() && !has_glob(&part) {
                        root.push(part.as_ref());
                    } else {
                        rest.push(part.into_owned());
                    }
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if rest.is_empty() {
                        root.pop();
                    } else {
                        rest.push("..".into());
                    }
                }
            }
        }
        if rest.is_empty() {
            // A plain path: match exactly that name in its folder.
            let name = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            root.pop();
            return Ok(Plan {
                root,
                pattern: name,
                by_name: false,
            });
        }
        return Ok(Plan {
            root,
            pattern: rest.join("/"),
            by_name: false,
        });
    }
    let root = match root {
        Some(r) => super::resolve_user_path(r, home, ctx.base_dir()),
        None => ctx.base_dir().to_path_buf(),
    };
    let rel = expanded.strip_prefix("./").unwrap_or(&expanded).to_string();
    let by_name = !rel.contains('/');
    Ok(Plan {
        root,
        pattern: rel,
        by_name,
    })
}

fn matcher(pattern: &str) -> Result<GlobMatcher, ToolError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| ToolError::InvalidInput(format!("bad pattern {pattern:?}: {e}")))
}

impl Tool for Glob {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::Glob.into(),
            priority: 2,
            summary: Cow::Borrowed("File search by name pattern, recursive under a folder."),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let pattern = super::str_param(input, "pattern")?;
        let root = super::opt_str_param(input, "root")?;
        let p = plan(pattern, root, ctx)?;
        matcher(&p.pattern)?;
        Ok(Prepared {
            tool: ToolName::Glob.into(),
            input: json!({ "pattern": pattern.trim(), "root": p.root.to_string_lossy() }),
            target: pattern.trim().to_string(),
            action: None,
            note: None,
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let pattern = super::str_param(&call.input, "pattern")?.to_string();
            let root = super::opt_str_param(&call.input, "root")?.map(str::to_string);
            let p = plan(&pattern, root.as_deref(), ctx)?;
            let m = matcher(&p.pattern)?;
            if !p.root.is_dir() {
                return Err(ToolError::NotFound(format!(
                    "the folder {} does not exist",
                    p.root.display()
                )));
            }
            let limit = ctx.config.tools.walk_limit_entries;
            let cancel = ctx.cancel.clone();
            let wants_hidden_tool_dirs =
                pattern.contains(".git") || pattern.contains("node_modules");
            let found = tokio::task::spawn_blocking(move || {
                let mut found: Vec<PathBuf> = Vec::new();
                let walked = walk::bounded(
                    &p.root,
                    limit,
                    &cancel,
                    |e| {
                        !wants_hidden_tool_dirs
                            && matches!(e.file_name().to_str(), Some(".git" | "node_modules"))
                    },
                    |entry| {
                        let hit = if p.by_name {
                            m.is_match(entry.file_name())
                        } else {
                            entry
                                .path()
                                .strip_prefix(&p.root)
                                .is_ok_and(|rel| m.is_match(rel))
                        };
                        if hit {
                            found.push(entry.into_path());
                        }
                    },
                )?;
                Ok((p, found, walked.complete))
            })
            .await
            .map_err(|e| ToolError::Failed(format!("the file walk stopped: {e}")))??;
            let (p, mut found, complete) = found;
            found.sort();
            if found.is_empty() {
                return Ok(format!(
                    "(no files matched pattern {pattern} under {})",
                    p.root.display()
                ));
            }
            let total = found.len();
            let mut lines: Vec<String> = found
                .iter()
                .take(MAX_RESULTS)
                .map(|f| f.to_string_lossy().into_owned())
                .collect();
            if total > MAX_RESULTS {
                lines.push(format!("(… and {} more)", total - MAX_RESULTS));
            }
            if complete {
                // Counted here, not left to a small model reading the list.
                lines.push(format!(
                    "({total} {} matched {pattern})",
                    if total == 1 { "file" } else { "files" }
                ));
            } else {
                lines.push(format!(
                    "(stopped after {limit} entries; results may be incomplete — give a narrower root)"
                ));
            }
            Ok(lines.join("\n"))
        })
    }
}
