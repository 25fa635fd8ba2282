//! `copy_files`: copies files into a folder by code — the bytes of the files, never a
//! model's retyping of them — one item at a time, so a missing item does not stop the
//! others, and says per item what happened: copied, missing, or left alone because a
//! file of that name is already there (nothing is ever overwritten).
//!
//! A small model asked to copy files otherwise chains `cp a x && cp b x && cp c x` (the
//! first missing file stops the rest) or writes a file with `write_file` holding its own
//! version of the text. Creating new files loses nothing, so no Law 1 dialog is needed;
//! the destination must be under the home folder or the workspace and not a sensitive
//! place (credentials, the app's data), and an existing file is never replaced.
//!
//! **Invariant:** only new files are created (`create_new`), each reported as an effect
//! of the call; a file that exists is never written.

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use globset::GlobBuilder;
use serde_json::{Value, json};

use super::list_files::shown_path;
use super::{Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec};
use crate::contracts::PathEffect;

/// Files copied by one call at most.
const MAX_FILES: usize = 1000;

/// The copy_files tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct CopyFiles;

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("from"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("the folder the files are in (or one file), as the user wrote it"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("names"),
        kind: Cow::Borrowed("string"),
        required: false,
        about: Cow::Borrowed(
            "the files to copy, separated by commas: exact names, or patterns with * and ? (default: every file of the folder)",
        ),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("to"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed(
            "the folder to copy into (made if missing), as the user wrote it; to copy one file under a new name, the new file's path (`from` that file)",
        ),
        choices: super::Choices::Open,
    },
    MIN_SIZE,
    MAX_SIZE,
    MODIFIED_WITHIN,
    OLDER_THAN,
    CONTAINING,
];

/// The names a call gives: a string split at commas, semicolons and new lines, or an
/// array of strings.
pub(super) fn names_of(input: &Value) -> Vec<String> {
    let split = |s: &str| -> Vec<String> {
        s.split([',', ';', '\n'])
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect()
    };
    match input.get("names").or_else(|| input.get("pattern")) {
        Some(Value::String(s)) => split(s),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .flat_map(split)
            .collect(),
        _ => Vec::new(),
    }
}

pub(super) fn param<'a>(input: &'a Value, names: &[&str]) -> Result<&'a str, ToolError> {
    names
        .iter()
        .find_map(|n| input.get(*n).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ToolError::InvalidInput(format!("`{}` is required", names[0])))
}

/// The folder a call puts files into: under the home folder or the workspace, and not a
/// sensitive place (credentials, start-up files, the app's data). `does` names the tool
/// and its verb for the refusal ("copy_files copies").
pub(super) fn destination(
    input: &Value,
    ctx: &ToolContext,
    does: &str,
) -> Result<PathBuf, ToolError> {
    let to = ctx.resolve_path(param(input, &["to", "destination", "target"])?);
    allowed_destination(to, ctx, does)
}

/// `to` when files may be put there: under the home folder or the workspace, and not a
/// sensitive place; else the refusal, naming it.
pub(super) fn allowed_destination(
    to: PathBuf,
    ctx: &ToolContext,
    does: &str,
) -> Result<PathBuf, ToolError> {
    let home = &ctx.config.home;
    let allowed = to.starts_with(home) || to.starts_with(&ctx.config.workspace);
    if !allowed || crate::laws::classify::is_sensitive_path(&to, home) {
        return Err(ToolError::InvalidInput(format!(
            "{does} only into folders under the home folder or the workspace, and not into {}",
            to.display()
        )));
    }
    Ok(to)
}

/// Bounds on the files a call selects: their size, from `min_size` and `max_size` (sizes
/// with units: `0`, `500KB`, `2 GB`), and when they last changed, from `modified_within`
/// and `older_than` (ages: `7 days`, `1 year`), as `list_files` reads them. Asked to
/// delete the files older than 30 days, a small model selected the whole folder; the
/// window is a parameter it can fill, and one the request states is set by code.
///
/// `containing` selects by what a file says, not by its name: only the files whose text
/// holds that word or phrase, case ignored ("the letters that mention an invoice"; a
/// small model asked for those copied `invoice*` and found none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Bounds {
    pub(super) min: Option<u64>,
    pub(super) max: Option<u64>,
    pub(super) within: Option<Duration>,
    pub(super) older: Option<Duration>,
    pub(super) containing: Option<String>,
}

impl Bounds {
    /// The bounds a call gives; a size or an age that cannot be read is an error naming
    /// it.
    pub(super) fn of(input: &Value) -> Result<Self, ToolError> {
        let bound = |key: &str| -> Result<Option<u64>, ToolError> {
            match input.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Number(n)) => Ok(n.as_u64()),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::String(s)) => super::files::parse_size(s).map(Some).ok_or_else(|| {
                    ToolError::InvalidInput(format!(
                        "`{key}` must be a size like 0, 500KB or 2 GB, got {s:?}"
                    ))
                }),
                Some(other) => Err(ToolError::InvalidInput(format!(
                    "`{key}` must be a size like 0, 500KB or 2 GB, got {other}"
                ))),
            }
        };
        let age = |key: &str| -> Result<Option<Duration>, ToolError> {
            let bad = |got: &dyn std::fmt::Display| {
                ToolError::InvalidInput(format!(
                    "`{key}` must be an age like 7 days, 2 weeks or 1 year, got {got}"
                ))
            };
            match input.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::String(s)) => super::files::parse_age(s)
                    .map(Some)
                    .ok_or_else(|| bad(&format!("{s:?}"))),
                Some(Value::Number(n)) => super::files::parse_age(&n.to_string())
                    .map(Some)
                    .ok_or_else(|| bad(n)),
                Some(other) => Err(bad(other)),
            }
        };
        let containing = match super::lenient_param(
            input.as_object().unwrap_or(&serde_json::Map::new()),
            &["containing", "mentioning"],
        ) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
            Some(other) => {
                return Err(ToolError::InvalidInput(format!(
                    "`containing` must be a word or phrase, got {other}"
                )));
            }
        };
        Ok(Self {
            min: bound("min_size")?,
            max: bound("max_size")?,
            within: age("modified_within")?,
            older: age("older_than")?,
            containing,
        })
    }

    /// Whether the file at `path` holds the phrase `containing` gives (case ignored);
    /// every file does when none is given.
    fn holds(&self, path: &Path) -> bool {
        self.containing
            .as_deref()
            .is_none_or(|phrase| super::files::holds_text(path, phrase))
    }

    /// Whether a file of these metadata is selected, at `now`.
    fn admits(&self, meta: &std::fs::Metadata, now: SystemTime) -> bool {
        let len = meta.len();
        let sized = self.min.is_none_or(|m| len >= m) && self.max.is_none_or(|m| len <= m);
        if !sized {
            return false;
        }
        if self.within.is_none() && self.older.is_none() {
            return true;
        }
        let Ok(modified) = meta.modified() else {
            return false;
        };
        let since = self.within.and_then(|d| now.checked_sub(d));
        let until = self.older.and_then(|d| now.checked_sub(d));
        since.is_none_or(|s| modified >= s) && until.is_none_or(|u| modified < u)
    }

    /// The bounds as the call's input writes them back.
    pub(super) fn write(&self, input: &mut Value) {
        if let Some(m) = self.min {
            input["min_size"] = json!(m);
        }
        if let Some(m) = self.max {
            input["max_size"] = json!(m);
        }
        if let Some(d) = self.within {
            input["modified_within"] = json!(super::files::age_words(d));
        }
        if let Some(d) = self.older {
            input["older_than"] = json!(super::files::age_words(d));
        }
        if let Some(phrase) = &self.containing {
            input["containing"] = json!(phrase);
        }
    }

    /// Whether the call bounds the files at all.
    pub(super) fn any(&self) -> bool {
        *self != Self::default()
    }

    /// Why these bounds select none of `files`, which the names pick: each file's size
    /// and age beside the bounds as given, so the next call can see which bound kept
    /// nothing (a small model's invented `older_than` "30 days" on a file made today).
    pub(super) fn left_out(&self, files: &[PathBuf]) -> String {
        const SHOWN: usize = 5;
        let now = SystemTime::now();
        let mut written = json!({});
        self.write(&mut written);
        let bounds: Vec<String> = written
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| format!("`{k}` {v}"))
            .collect();
        let mut about: Vec<String> = files
            .iter()
            .take(SHOWN)
            .map(|f| {
                let name = f.file_name().map_or_else(
                    || f.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                let Ok(meta) = std::fs::metadata(f) else {
                    return name;
                };
                let age = meta
                    .modified()
                    .ok()
                    .and_then(|m| now.duration_since(m).ok())
                    .map_or_else(String::new, |d| format!(", changed {}", rough_age(d)));
                format!("{name} ({}{age})", crate::text::human_size(meta.len()))
            })
            .collect();
        if files.len() > SHOWN {
            about.push(format!("and {} more", files.len() - SHOWN));
        }
        format!(
            "{} file(s) match the names given — {} — and {} leave out every one; leave \
             out a bound the request does not state",
            files.len(),
            about.join(", "),
            bounds.join(", ")
        )
    }
}

/// How long ago a file changed, in the largest whole unit: "under an hour ago", "5 hours
/// ago", "40 days ago".
fn rough_age(age: Duration) -> String {
    let secs = age.as_secs();
    let (n, unit) = match secs {
        0..3_600 => return "under an hour ago".into(),
        3_600..86_400 => (secs / 3_600, "hour"),
        _ => (secs / 86_400, "day"),
    };
    format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" })
}

/// The lower size bound of the tools that select files by name.
pub(super) const MIN_SIZE: Param = Param {
    name: Cow::Borrowed("min_size"),
    kind: Cow::Borrowed("string"),
    required: false,
    about: Cow::Borrowed("only files of at least this size, like 500KB or 2 GB"),
    choices: super::Choices::Open,
};

/// The upper size bound of the tools that select files by name.
pub(super) const MAX_SIZE: Param = Param {
    name: Cow::Borrowed("max_size"),
    kind: Cow::Borrowed("string"),
    required: false,
    about: Cow::Borrowed("only files of at most this size, like 500KB or 2 GB"),
    choices: super::Choices::Open,
};

/// The window of the newest files, for the tools that select files by name.
pub(super) const MODIFIED_WITHIN: Param = Param {
    name: Cow::Borrowed("modified_within"),
    kind: Cow::Borrowed("string"),
    required: false,
    about: Cow::Borrowed("only files changed within this time, like 7 days"),
    choices: super::Choices::Open,
};

/// The window of the oldest files, for the tools that select files by name.
pub(super) const OLDER_THAN: Param = Param {
    name: Cow::Borrowed("older_than"),
    kind: Cow::Borrowed("string"),
    required: false,
    about: Cow::Borrowed("only files not changed for this time, like 30 days"),
    choices: super::Choices::Open,
};

/// The phrase a file's text holds, for the tools that select files by name.
pub(super) const CONTAINING: Param = Param {
    name: Cow::Borrowed("containing"),
    kind: Cow::Borrowed("string"),
    required: false,
    about: Cow::Borrowed(
        "only files whose text holds this word or phrase (case ignored), as the request says it",
    ),
    choices: super::Choices::Open,
};

/// What happened to one item.
#[derive(Debug, PartialEq, Eq)]
enum Item {
    Copied(PathBuf),
    Missing(String),
    Exists(PathBuf),
    /// The copy is there already: the target holds the source's very bytes.
    Same(PathBuf),
    Failed(String, String),
}

/// The files of `from` that `names` select, in name order, and the names that selected
/// nothing.
pub(super) fn select(
    from: &Path,
    names: &[String],
    bounds: &Bounds,
) -> io::Result<(Vec<PathBuf>, Vec<String>)> {
    if from.is_file() {
        let fits =
            bounds.admits(&std::fs::metadata(from)?, SystemTime::now()) && bounds.holds(from);
        return Ok((
            fits.then(|| from.to_path_buf()).into_iter().collect(),
            Vec::new(),
        ));
    }
    let now = SystemTime::now();
    let mut files: Vec<PathBuf> = std::fs::read_dir(from)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| e.metadata().is_ok_and(|m| bounds.admits(&m, now)))
        .map(|e| e.path())
        .filter(|p| bounds.holds(p))
        .collect();
    files.sort();
    if names.is_empty() {
        return Ok((files, Vec::new()));
    }
    let mut chosen: Vec<PathBuf> = Vec::new();
    let mut missing = Vec::new();
    for name in names {
        let picker = Picker::new(name);
        let hits: Vec<&PathBuf> = files.iter().filter(|f| picker.picks(f)).collect();
        if hits.is_empty() {
            missing.push(name.clone());
        }
        for hit in hits {
            if !chosen.contains(hit) {
                chosen.push(hit.clone());
            }
        }
    }
    Ok((chosen, missing))
}

/// What a name of a call picks: a file name, or a pattern like `*.jpg`, case ignored (a
/// folder part is ignored). Built once per name, then asked of each file.
pub(super) struct Picker {
    base: String,
    glob: Option<globset::GlobMatcher>,
}

impl Picker {
    pub(super) fn new(name: &str) -> Self {
        let base = Path::new(name)
            .file_name()
            .map_or_else(|| name.to_string(), |b| b.to_string_lossy().into_owned());
        let glob = GlobBuilder::new(&base)
            .case_insensitive(true)
            .literal_separator(true)
            .build()
            .ok()
            .map(|g| g.compile_matcher());
        Self { base, glob }
    }

    /// Whether the name picks the file at `path`.
    pub(super) fn picks(&self, path: &Path) -> bool {
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        file == self.base.as_str()
            || self
                .glob
                .as_ref()
                .is_some_and(|m| m.is_match(file.as_ref()))
    }
}

/// Copies `file` into `to` under its own name, never over an existing file.
fn copy_one(file: &Path, to: &Path) -> Item {
    let name = file.file_name().map(PathBuf::from).unwrap_or_default();
    copy_as(file, &to.join(&name), name.display().to_string())
}

/// Copies `file` to `target`, which must not exist yet.
fn copy_as(file: &Path, target: &Path, shown: String) -> Item {
    let target = target.to_path_buf();
    let result = std::fs::File::open(file).and_then(|mut src| {
        let mut dst = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)?;
        io::copy(&mut src, &mut dst).map(|_| ())
    });
    match result {
        Ok(()) => Item::Copied(target),
        // A target with the source's very bytes is the copy, made before (an earlier
        // step of the task): done, not a conflict.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if super::files::identical_files(file, &target) {
                Item::Same(target)
            } else {
                Item::Exists(target)
            }
        }
        Err(e) => {
            // A half-written copy is not left behind.
            if target.exists() {
                let _ = std::fs::remove_file(&target);
            }
            Item::Failed(shown, e.to_string())
        }
    }
}

/// A path whose last part ends with a letters-only extension (`list.txt`, not `v2.0`).
fn named_like_a_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| !e.is_empty() && e.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Copies what `names` select from `from` into `to`; `Err` only when nothing at all
/// could be looked at.
fn copy_all(
    from: &Path,
    names: &[String],
    bounds: Bounds,
    to: &Path,
) -> Result<Vec<Item>, ToolError> {
    if !from.exists() {
        return Err(ToolError::NotFound(format!(
            "no such folder or file: {}",
            from.display()
        )));
    }
    let (files, missing) = select(from, names, &bounds)
        .map_err(|e| ToolError::io(format!("cannot read {}", from.display()), e))?;
    if files.len() > MAX_FILES {
        return Err(ToolError::InvalidInput(format!(
            "{} files match; copy_files copies at most {MAX_FILES} at a time: name fewer",
            files.len()
        )));
    }
    // One file to a new name (`notes/final.txt`): a copy under that name, not a folder
    // of that name holding the file.
    if from.is_file() && !to.exists() && named_like_a_file(to) {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                ToolError::io(format!("cannot make the folder {}", parent.display()), e)
            })?;
        }
        let shown = from
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        return Ok(vec![copy_as(from, to, shown)]);
    }
    let mut items: Vec<Item> = missing.into_iter().map(Item::Missing).collect();
    if !files.is_empty() {
        std::fs::create_dir_all(to)
            .map_err(|e| ToolError::io(format!("cannot make the folder {}", to.display()), e))?;
    }
    items.extend(files.iter().map(|f| copy_one(f, to)));
    Ok(items)
}

/// The account of a call, item by item, paths as the user sees them.
fn report(items: &[Item], from: &str, to: &str, home: &Path) -> String {
    let copied: Vec<String> = items
        .iter()
        .filter_map(|i| match i {
            Item::Copied(p) => p.file_name().map(|n| n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let mut out = format!(
        "copied {} of {} into {to}{}{}",
        copied.len(),
        items.len(),
        if copied.is_empty() { "" } else { ": " },
        copied.join(", ")
    );
    for item in items {
        match item {
            Item::Copied(_) => {}
            Item::Missing(name) => out.push_str(&format!("\nmissing: {name} (not in {from})")),
            Item::Exists(p) => out.push_str(&format!(
                "\nnot copied: {} already exists (nothing is overwritten)",
                shown_path(p, home)
            )),
            Item::Same(p) => out.push_str(&format!(
                "\nalready copied: {} holds the same bytes",
                shown_path(p, home)
            )),
            Item::Failed(name, why) => out.push_str(&format!("\nnot copied: {name}: {why}")),
        }
    }
    out
}

impl Tool for CopyFiles {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::CopyFiles.into(),
            priority: 4,
            summary: Cow::Borrowed(
                "Copy files into a folder, each on its own (a missing one does not stop the others); never overwrites.",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let from = ctx.resolve_read_path(param(input, &["from", "source", "folder"])?);
        let to = destination(input, ctx, "copy_files copies")?;
        // A new destination named like a file (`pdf-list.txt`) for files taken from a
        // folder would become a folder of that name: a small model asked to write the
        // names of some files into a list copied the files there instead.
        if from.is_dir() && !to.exists() && named_like_a_file(&to) {
            return Err(ToolError::InvalidInput(format!(
                "{} does not exist and is named like a file, not a folder: copy_files copies \
                 files into a folder. To put text (a list of names, a summary) into a file, \
                 use write_file; to copy one file under a new name, give that file as `from`",
                crate::text::tilde(&to.to_string_lossy(), &ctx.config.home)
            )));
        }
        let names = names_of(input);
        let mut executed = json!({
            "from": from.to_string_lossy(),
            "to": to.to_string_lossy(),
        });
        if !names.is_empty() {
            executed["names"] = json!(names.join(", "));
        }
        Bounds::of(input)?.write(&mut executed);
        Ok(Prepared::plain(
            ToolName::CopyFiles,
            executed,
            to.to_string_lossy().into_owned(),
        ))
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let from = ctx.resolve_read_path(param(&call.input, &["from"])?);
            let to = ctx.resolve_path(param(&call.input, &["to"])?);
            let names = names_of(&call.input);
            let bounds = Bounds::of(&call.input)?;
            let (items, by_text) = {
                let (from, to) = (from.clone(), to.clone());
                tokio::task::spawn_blocking(move || {
                    let by_text = bounds.containing.is_none();
                    let items = copy_all(&from, &names, bounds, &to)?;
                    // Names that picked nothing may be words the files hold in their text.
                    let missed: Vec<String> = items
                        .iter()
                        .filter_map(|i| match i {
                            Item::Missing(name) => Some(name.clone()),
                            _ => None,
                        })
                        .collect();
                    let hint = (by_text && !missed.is_empty())
                        .then(|| {
                            super::files::by_text_hint(
                                &from,
                                &missed,
                                "give containing: \"{word}\"",
                            )
                        })
                        .flatten();
                    Ok::<_, ToolError>((items, hint))
                })
                .await
                .map_err(|e| ToolError::Failed(format!("the copy did not complete: {e}")))??
            };
            let home = &ctx.config.home;
            for item in &items {
                if let Item::Copied(path) = item {
                    ctx.broker.note_made(&ctx.task_id, path, &ctx.cancel);
                    ctx.effects.note(PathEffect {
                        path: path.clone(),
                        exists: false,
                        effect: "create".into(),
                    });
                }
            }
            let mut text = report(
                &items,
                &shown_path(&from, home),
                &shown_path(&to, home),
                home,
            );
            if let Some(hint) = by_text {
                text.push('\n');
                text.push_str(&hint);
            }
            if items
                .iter()
                .any(|i| matches!(i, Item::Copied(_) | Item::Same(_)))
            {
                Ok(text)
            } else if items.iter().all(|i| matches!(i, Item::Missing(_))) {
                Err(ToolError::NotFound(text))
            } else {
                Err(ToolError::Failed(text))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_bound_what_a_call_selects() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("empty.log"), "").unwrap();
        std::fs::write(dir.path().join("small.log"), "x").unwrap();
        std::fs::write(dir.path().join("big.log"), vec![b'x'; 2_000]).unwrap();
        let names = |bounds: Bounds| -> Vec<String> {
            select(dir.path(), &["*.log".to_string()], &bounds)
                .unwrap()
                .0
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        let of = |input: serde_json::Value| Bounds::of(&input).unwrap();
        assert_eq!(names(of(json!({"max_size": "0"}))), ["empty.log"]);
        assert_eq!(names(of(json!({"min_size": "1KB"}))), ["big.log"]);
        assert_eq!(
            names(of(json!({"min_size": null, "max_size": null}))),
            ["big.log", "empty.log", "small.log"]
        );
        assert!(Bounds::of(&json!({"max_size": "a lot"})).is_err());
        // Ages: the files not changed for 30 days, or changed within a week.
        let aged = |name: &str, days: u64| {
            let f = std::fs::File::options()
                .write(true)
                .open(dir.path().join(name))
                .unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(days * 86_400))
                .unwrap();
        };
        aged("empty.log", 45);
        aged("small.log", 6);
        assert_eq!(names(of(json!({"older_than": "30 days"}))), ["empty.log"]);
        assert_eq!(
            names(of(json!({"modified_within": "7 days"}))),
            ["big.log", "small.log"]
        );
        assert!(Bounds::of(&json!({"older_than": "ages"})).is_err());
        let mut written = json!({});
        of(json!({"older_than": "30"})).write(&mut written);
        assert_eq!(written, json!({"older_than": "30 days"}));
    }

    #[test]
    fn containing_selects_the_files_whose_text_holds_the_phrase() {
        let dir = tempfile::tempdir().expect("dir");
        let from = dir.path().join("letters");
        std::fs::create_dir_all(&from).expect("letters");
        for (name, text) in [
            ("march.txt", "Invoice 42 for March\n"),
            ("dinner.txt", "Dinner on Friday?\n"),
            ("reminder.txt", "please pay the INVOICE by May\n"),
        ] {
            std::fs::write(from.join(name), text).expect("letter");
        }
        let bounds = Bounds::of(&json!({"containing": "invoice"})).expect("bounds");
        let to = dir.path().join("invoices");
        let items = copy_all(&from, &[], bounds.clone(), &to).expect("copied");
        assert_eq!(
            items,
            vec![
                Item::Copied(to.join("march.txt")),
                Item::Copied(to.join("reminder.txt")),
            ]
        );
        // The phrase travels with the call as it runs; a blank one selects by nothing.
        let mut written = json!({});
        bounds.write(&mut written);
        assert_eq!(written, json!({"containing": "invoice"}));
        assert!(
            !Bounds::of(&json!({"containing": " "}))
                .expect("blank")
                .any()
        );
        assert!(Bounds::of(&json!({"containing": 3})).is_err());
    }

    #[test]
    fn each_item_is_copied_on_its_own_and_a_missing_one_is_named() {
        let dir = tempfile::tempdir().expect("dir");
        let from = dir.path().join("docs");
        let to = dir.path().join("to-print");
        std::fs::create_dir_all(&from).expect("docs");
        std::fs::write(from.join("lease.pdf"), b"%PDF lease").expect("lease");
        std::fs::write(from.join("insurance.pdf"), b"%PDF insurance").expect("insurance");
        let names: Vec<String> = ["lease.pdf", "warranty.pdf", "insurance.pdf"]
            .map(String::from)
            .to_vec();
        let items = copy_all(&from, &names, Bounds::default(), &to).expect("copied");
        assert_eq!(
            items,
            vec![
                Item::Missing("warranty.pdf".into()),
                Item::Copied(to.join("lease.pdf")),
                Item::Copied(to.join("insurance.pdf")),
            ]
        );
        assert_eq!(
            std::fs::read(to.join("lease.pdf")).expect("copy"),
            b"%PDF lease"
        );
        let text = report(&items, "~/docs", "~/to-print", dir.path());
        assert!(
            text.starts_with("copied 2 of 3 into ~/to-print: lease.pdf, insurance.pdf"),
            "{text}"
        );
        assert!(
            text.contains("missing: warranty.pdf (not in ~/docs)"),
            "{text}"
        );
    }

    #[test]
    fn patterns_select_files_and_an_existing_file_is_never_overwritten() {
        let dir = tempfile::tempdir().expect("dir");
        let from = dir.path().join("notes");
        let to = dir.path().join("backup");
        std::fs::create_dir_all(&from).expect("notes");
        std::fs::create_dir_all(&to).expect("backup");
        std::fs::write(from.join("a.md"), "new a").expect("a");
        std::fs::write(from.join("b.MD"), "b").expect("b");
        std::fs::write(from.join("c.txt"), "c").expect("c");
        std::fs::write(to.join("a.md"), "the user's a").expect("old a");
        let items = copy_all(&from, &["*.md".to_string()], Bounds::default(), &to).expect("copied");
        assert_eq!(
            items,
            vec![Item::Exists(to.join("a.md")), Item::Copied(to.join("b.MD"))]
        );
        assert_eq!(
            std::fs::read_to_string(to.join("a.md")).expect("a"),
            "the user's a"
        );
        assert!(!to.join("c.txt").exists());
        // Copied again: the copy with the source's very bytes is there already, done; the
        // user's own file of that name is still not overwritten.
        let again = copy_all(&from, &["*.md".to_string()], Bounds::default(), &to).expect("again");
        assert_eq!(
            again,
            vec![Item::Exists(to.join("a.md")), Item::Same(to.join("b.MD"))]
        );
        let text = report(&again, "~/notes", "~/backup", dir.path());
        assert!(
            text.contains("already copied: ~/backup/b.MD holds the same bytes"),
            "{text}"
        );
        // Every file when no names are given; a missing source folder is an error.
        let all = copy_all(&from, &[], Bounds::default(), &dir.path().join("all")).expect("all");
        assert_eq!(all.len(), 3);
        assert!(matches!(
            copy_all(&dir.path().join("nope"), &[], Bounds::default(), &to),
            Err(ToolError::NotFound(_))
        ));
    }

    #[test]
    fn names_come_as_a_list_in_a_string_or_an_array() {
        assert_eq!(
            names_of(&json!({"names": "a.pdf, b.pdf;c.pdf"})),
            ["a.pdf", "b.pdf", "c.pdf"]
        );
        assert_eq!(
            names_of(&json!({"names": ["a.pdf", "b.pdf"]})),
            ["a.pdf", "b.pdf"]
        );
        assert!(names_of(&json!({})).is_empty());
    }
}
