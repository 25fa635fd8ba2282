//! `mdfind`: personal file search by name. macOS asks Spotlight; Linux asks the locate
//! index (`plocate`/`locate`) and, when that is missing, unbuilt or finds nothing (the
//! index may be stale), walks the home folder within `tools.walk_limit_entries`. Every
//! path answers with the same shape: one existing absolute path per line.
//!
//! **Invariant:** every answer is checked against the disk (a stale index entry is
//! dropped), and those per-hit `stat`s run on the blocking pool, not on the async workers.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use globset::{GlobBuilder, GlobMatcher};
use serde_json::{Value, json};

use super::process::{self, BaseEnv, Spec};
use super::{Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec, walk};

/// Paths listed at most; the rest are counted.
const MAX_RESULTS: usize = 500;
/// Bound on one index query.
const INDEX_TIMEOUT: Duration = Duration::from_secs(20);

/// Which locate index the Linux fallback asks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Locate {
    /// `plocate`, then `locate`, with the system database.
    #[default]
    System,
    /// `plocate -d DB` (tests build their own database with `updatedb`).
    Database(PathBuf),
    /// Skip the index and walk.
    Disabled,
}

/// The mdfind tool.
#[derive(Clone, Debug, Default)]
pub struct Mdfind {
    locate: Locate,
}

impl Mdfind {
    /// The tool with the system's locate index as its Linux fallback.
    pub fn new() -> Self {
        Self::default()
    }

    /// The tool with `locate` as its Linux fallback.
    pub fn with_locate(locate: Locate) -> Self {
        Self { locate }
    }
}

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("query"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed(
            "a file name or part of one; * and ? work as wildcards (e.g. \"*.pdf\", \"invoice\")",
        ),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("onlyin"),
        kind: Cow::Borrowed("string"),
        required: false,
        about: Cow::Borrowed("folder to search in (default: the home folder)"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("type"),
        kind: Cow::Borrowed("string"),
        required: false,
        about: Cow::Borrowed("\"f\" for files only, \"d\" for folders only"),
        choices: super::Choices::Open,
    },
];

/// A name query: a glob when it has wildcards, else a case-insensitive substring.
#[derive(Clone, Debug)]
enum NameQuery {
    Glob(GlobMatcher),
    Substring(String),
}

impl NameQuery {
    fn new(query: &str) -> Result<Self, ToolError> {
        if query.contains(['*', '?', '[']) {
            let glob = GlobBuilder::new(query)
                .case_insensitive(true)
                .literal_separator(true)
                .build()
                .map_err(|e| ToolError::InvalidInput(format!("bad pattern {query:?}: {e}")))?;
            Ok(NameQuery::Glob(glob.compile_matcher()))
        } else {
            Ok(NameQuery::Substring(query.to_lowercase()))
        }
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            NameQuery::Glob(g) => g.is_match(name),
            NameQuery::Substring(s) => name.to_lowercase().contains(s.as_str()),
        }
    }
}

/// What to look for, validated.
#[derive(Clone, Debug)]
struct Search {
    query: String,
    root: PathBuf,
    kind: Option<char>,
    name: NameQuery,
}

impl Search {
    fn from_input(input: &Value, ctx: &ToolContext) -> Result<Self, ToolError> {
        let query = super::str_param(input, "query")?.trim().to_string();
        if query.contains('/') {
            return Err(ToolError::InvalidInput(
                "`query` is a file name, not a path: put the folder in `onlyin` (or use glob for path patterns)".into(),
            ));
        }
        let root = match super::opt_str_param(input, "onlyin")? {
            Some(dir) => super::resolve_user_path(dir, &ctx.config.home, &ctx.config.home),
            None => ctx.config.home.clone(),
        };
        let kind = match super::opt_str_param(input, "type")? {
            None => None,
            Some("f" | "file") => Some('f'),
            Some("d" | "dir" | "folder" | "directory") => Some('d'),
            Some(other) => {
                return Err(ToolError::InvalidInput(format!(
                    "`type` must be \"f\" or \"d\", got {other:?}"
                )));
            }
        };
        let name = NameQuery::new(&query)?;
        Ok(Search {
            query,
            root,
            kind,
            name,
        })
    }

    /// The lines of an index's answer that [`Search::keep`] accepts.
    fn kept(&self, stdout: &str) -> Vec<PathBuf> {
        stdout
            .lines()
            .map(PathBuf::from)
            .filter(|p| self.keep(p))
            .collect()
    }

    /// [`Search::kept`] on the blocking pool: it `stat`s every hit, and an index can
    /// answer thousands, which must not stall the async workers.
    async fn kept_off_runtime(&self, stdout: String) -> Vec<PathBuf> {
        let search = self.clone();
        match tokio::task::spawn_blocking(move || search.kept(&stdout)).await {
            Ok(kept) => kept,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            // The runtime is shutting down: nobody waits for the answer.
            Err(_) => Vec::new(),
        }
    }

    /// Keeps existing paths under the root, of the right kind, whose name matches.
    fn keep(&self, path: &Path) -> bool {
        if !path.starts_with(&self.root) {
            return false;
        }
        let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else {
            return false;
        };
        if !self.name.matches(&name) {
            return false;
        }
        match std::fs::metadata(path) {
            Ok(m) => match self.kind {
                Some('f') => m.is_file(),
                Some('d') => m.is_dir(),
                _ => true,
            },
            Err(_) => false, // stale index entry
        }
    }
}

fn render(search: &Search, mut found: Vec<PathBuf>, source: &str) -> String {
    found.sort();
    found.dedup();
    if found.is_empty() {
        let mut answer = format!(
            "(no files found with name matching \"{}\" under {}; searched {source})",
            search.query,
            search.root.display()
        );
        // Words rather than a name pattern: the model may be after files whose text
        // mentions them, which a name search never finds.
        if matches!(search.name, NameQuery::Substring(_)) {
            let quoted = search.query.replace('\'', "'\\''");
            let _ = write!(
                answer,
                "\nmdfind matches names only. For files whose text mentions it, call shell with: grep -ril '{quoted}' '{}'",
                search.root.display()
            );
        }
        return answer;
    }
    let total = found.len();
    let mut out: Vec<String> = found
        .iter()
        .take(MAX_RESULTS)
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if total > MAX_RESULTS {
        out.push(format!("(… and {} more)", total - MAX_RESULTS));
    }
    out.push(format!("({total} found; searched {source})"));
    // A query that is a whole file name, found only inside longer names: said, so no
    // one takes `budget.xlsx.bak` for `budget.xlsx`.
    let query = search.query.to_lowercase();
    let exact = found.iter().any(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().to_lowercase() == query)
    });
    if crate::text::is_file_name(&query) && !query.contains(['*', '?']) && !exact {
        out.push(format!(
            "(none of them is named exactly \"{}\": these names only contain it)",
            search.query
        ));
    }
    out.join("\n")
}

impl Tool for Mdfind {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::Mdfind.into(),
            priority: 1,
            summary: Cow::Borrowed(
                "Personal file search by name (Spotlight on macOS, the file index elsewhere), for files outside the project. Names only: for the text inside files use grep in shell.",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let s = Search::from_input(input, ctx)?;
        let mut executed = json!({ "query": s.query, "onlyin": s.root.to_string_lossy() });
        if let Some(k) = s.kind {
            executed["type"] = json!(k.to_string());
        }
        if let Some(orig) = input.get("redirected_from") {
            executed["redirected_from"] = orig.clone();
        }
        Ok(Prepared {
            tool: ToolName::Mdfind.into(),
            input: executed,
            target: s.query,
            action: None,
            note: None,
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let search = Search::from_input(&call.input, ctx)?;
            if !search.root.is_dir() {
                return Err(ToolError::NotFound(format!(
                    "the folder {} does not exist",
                    search.root.display()
                )));
            }
            if cfg!(target_os = "macos") && self.locate == Locate::System {
                return spotlight(&search, ctx).await;
            }
            if let Some(found) = self.locate_index(&search, ctx).await?
                && !found.is_empty()
            {
                return Ok(render(&search, found, "the locate index"));
            }
            walk(search, ctx).await
        })
    }
}

impl Mdfind {
    /// `Some(paths)` when an index answered, `None` when there is none to ask.
    async fn locate_index(
        &self,
        search: &Search,
        ctx: &ToolContext,
    ) -> Result<Option<Vec<PathBuf>>, ToolError> {
        let (programs, db): (&[&str], Option<&Path>) = match &self.locate {
            Locate::Disabled => return Ok(None),
            Locate::System => (&["plocate", "locate"], None),
            Locate::Database(db) => (&["plocate"], Some(db.as_path())),
        };
        let env = BaseEnv::Inherit;
        for program in programs {
            let mut args: Vec<std::ffi::OsString> = vec!["-i".into(), "-b".into()];
            if let Some(db) = db {
                args.push("-d".into());
                args.push(db.into());
            }
            args.push("--".into());
            args.push(search.query.clone().into());
            let result = process::run(
                Spec {
                    program,
                    args,
                    cwd: None,
                    env: &env,
                    home: Some(&ctx.config.home),
                    stdin: process::Input::Null,
                    timeout: INDEX_TIMEOUT,
                },
                &ctx.cancel,
            )
            .await;
            match result {
                Ok(done) => {
                    // Exit 1 with a message on stderr: no database or unreadable.
                    if !done.status.success() && !done.stderr.trim().is_empty() {
                        tracing::debug!(program, stderr = %done.stderr.trim(), "locate index unusable");
                        continue;
                    }
                    return Ok(Some(search.kept_off_runtime(done.stdout).await));
                }
                Err(ToolError::NotFound(_)) => continue,
                Err(ToolError::Cancelled) => return Err(ToolError::Cancelled),
                Err(e) => {
                    tracing::debug!(program, error = %e, "locate index failed");
                    continue;
                }
            }
        }
        Ok(None)
    }
}

/// macOS Spotlight.
async fn spotlight(search: &Search, ctx: &ToolContext) -> Result<String, ToolError> {
    let query = match &search.name {
        // Spotlight's -name does not understand wildcards; its query language does.
        NameQuery::Glob(_) => format!(
            "kMDItemFSName == \"{}\"c",
            search.query.replace('\\', "\\\\").replace('"', "\\\"")
        ),
        NameQuery::Substring(_) => format!(
            "kMDItemFSName == \"*{}*\"c",
            search.query.replace('\\', "\\\\").replace('"', "\\\"")
        ),
    };
    let done = process::run(
        Spec {
            program: "mdfind",
            args: vec!["-onlyin".into(), search.root.clone().into(), query.into()],
            cwd: None,
            env: &BaseEnv::Inherit,
            home: Some(&ctx.config.home),
            stdin: process::Input::Null,
            timeout: INDEX_TIMEOUT,
        },
        &ctx.cancel,
    )
    .await?;
    if !done.status.success() {
        return Err(ToolError::Failed(format!(
            "Spotlight failed: {}",
            done.stderr.trim()
        )));
    }
    let found = search.kept_off_runtime(done.stdout).await;
    Ok(render(search, found, "Spotlight"))
}

/// A bounded walk of the root: hidden folders and dependency caches are skipped.
async fn walk(search: Search, ctx: &ToolContext) -> Result<String, ToolError> {
    let limit = ctx.config.tools.walk_limit_entries;
    let cancel = ctx.cancel.clone();
    tokio::task::spawn_blocking(move || {
        let mut found = Vec::new();
        let walked = walk::bounded(
            &search.root,
            limit,
            &cancel,
            |e| {
                let n = e.file_name().to_string_lossy();
                n.starts_with('.') || n == "node_modules" || n == "Library"
            },
            |entry| {
                let kind_ok = match search.kind {
                    Some('f') => entry.file_type().is_file(),
                    Some('d') => entry.file_type().is_dir(),
                    _ => true,
                };
                if kind_ok && search.name.matches(&entry.file_name().to_string_lossy()) {
                    found.push(entry.into_path());
                }
            },
        )?;
        let source = if walked.complete {
            format!("a walk of {} entries", walked.visited)
        } else {
            format!("the first {limit} entries only — results may be incomplete; narrow `onlyin`")
        };
        Ok(render(&search, found, &source))
    })
    .await
    .map_err(|e| ToolError::Failed(format!("the file walk stopped: {e}")))?
}
