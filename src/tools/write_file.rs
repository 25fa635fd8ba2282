//! `write_file`: writes text to a file. Bare and relative names land in the workspace
//! (never the current directory, which may be someone's repository); `~` is home. Creating a file is
//! reversible; overwriting an existing one is gated by Law 1 before `run` is reached.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::contracts::PathEffect;
use crate::journal::Change;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use super::{
    Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// The write_file tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteFile;

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("path"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("file name (saved in the workspace), ~/…, or an absolute path"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("content"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("the text to write"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("append"),
        kind: Cow::Borrowed("boolean"),
        required: false,
        about: Cow::Borrowed("add to the end instead of creating/replacing (default false)"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("prepend"),
        kind: Cow::Borrowed("boolean"),
        required: false,
        about: Cow::Borrowed("add to the start instead, before the file's text (default false)"),
        choices: super::Choices::Open,
    },
];

fn append_of(input: &Value) -> Result<bool, ToolError> {
    flag(input, "append")
}

fn flag(input: &Value, name: &str) -> Result<bool, ToolError> {
    match input.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(ToolError::InvalidInput(format!(
            "`{name}` must be true or false, got {other}"
        ))),
    }
}

/// The whole text of a file that `first` is put before: `first`, on a line of its own
/// when the file has text, then the file's text. A file that does not exist is just
/// `first`.
fn prepended(path: &Path, first: &str) -> Result<String, ToolError> {
    let old = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            ToolError::InvalidInput(format!(
                "{} is not UTF-8 text; nothing can be put before it",
                path.display()
            ))
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(ToolError::io(format!("cannot read {}", path.display()), e)),
    };
    let mut text = first.to_string();
    if !old.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&old);
    Ok(text)
}

/// The largest existing file held against its re-typed replacement.
const MAX_COMPARED_BYTES: u64 = 256 * 1024;

/// The text of the file at `path`, when it is a UTF-8 text file of at most
/// [`MAX_COMPARED_BYTES`]: what a new text is held against before it is written.
fn existing_text(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_COMPARED_BYTES {
        return None;
    }
    String::from_utf8(std::fs::read(path).ok()?).ok()
}

/// Why `content` is no change in place of the file at `path`, whose text is `old`: it
/// keeps whole fewer than half of its non-blank lines, so it replaces the file rather
/// than changing a part of it.
fn retyped(path: &Path, old: &str, content: &str) -> Option<String> {
    let new: std::collections::HashSet<&str> = content.lines().map(str::trim_end).collect();
    let lines: Vec<&str> = old
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let kept = lines.iter().filter(|l| new.contains(*l)).count();
    (!lines.is_empty() && kept * 2 < lines.len()).then(|| {
        format!(
            "{} exists, and this text keeps {kept} of its {} lines: the request asks to change \
             a part of it, so change that part with edit_file (find the text as the file \
             has it, and its replacement; the rest stays as it is, by code)",
            path.display(),
            lines.len()
        )
    })
}

/// Why `content` should not replace the file at `path`, whose text is `old`: it is that
/// text whole with something typed before or after it — an addition the file's own bytes
/// need not be typed again for. Re-typing a file to put a heading first, a small model
/// added a blank line nobody asked for.
fn wrapped(path: &Path, old: &str, content: &str) -> Option<String> {
    let kept = old.trim_end();
    (!kept.trim().is_empty() && content.trim_end() != kept && content.contains(kept)).then(|| {
        format!(
            "{} exists, and this text is all of it with text added before or after: write \
             only the new text, with prepend: true to put it first or append: true to put it \
             last; the file's own text stays as it is, by code",
            path.display()
        )
    })
}

/// Why adding `content` to the file at `path`, whose text is `old`, would put the file in
/// twice: the text holds all of it. Refused a re-typed file with a heading before it, a
/// small model appended the same text, the file's own lines and all.
fn holds_it_all(path: &Path, old: &str, content: &str) -> Option<String> {
    // Whole lines, in a row: a one-line file "a" is not in "banana".
    let lines =
        |t: &str| -> Vec<String> { t.trim().lines().map(|l| l.trim_end().to_string()).collect() };
    let (kept, added) = (lines(old), lines(content));
    let holds = !kept.is_empty()
        && kept.iter().any(|l| !l.is_empty())
        && added.windows(kept.len()).any(|w| w == kept.as_slice());
    holds.then(|| {
        format!(
            "this text holds all of {} already: adding it would put the file's text in \
             twice; write only the new text",
            path.display()
        )
    })
}

/// Why `content`, to be written at `path`, is a re-typed copy: it is, line for line, the
/// text of another file this sub-task read. Asked for a sorted copy of a list, a small
/// model wrote the list as it was and said it was sorted. A copy is made by code
/// (copy_files), and a sorted, de-duplicated or filtered one by convert_file.
fn copy_of_a_read_file(ctx: &ToolContext, path: &Path, content: &str) -> Option<String> {
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    };
    let written = lines(content);
    if written.len() < 2 {
        return None;
    }
    ctx.history
        .records()
        .iter()
        .filter(|r| {
            r.status == crate::contracts::ToolCallStatus::Ok
                && matches!(
                    r.tool.builtin(),
                    Some(ToolName::ReadFile | ToolName::ReadLines)
                )
        })
        .map(|r| PathBuf::from(&r.target))
        .filter(|read| read != path)
        .find(|read| existing_text(read).is_some_and(|t| lines(&t) == written))
        .map(|read| {
            format!(
                "this text is {}, line for line, as it is: a copy is made by code — \
                 copy_files copies a file, and convert_file writes one from it sorted, \
                 de-duplicated or with lines kept or left out",
                read.display()
            )
        })
}

/// Why `content` is not the text of lines but read_lines' display of them: every line
/// starts `line <n>: `, the number read_lines shows beside each line. Told to write a
/// file's lines without repeats, a small model wrote what read_lines had shown, numbers
/// and repeats included.
fn numbered_lines(content: &str) -> Option<String> {
    let numbered = |l: &str| {
        l.strip_prefix("line ")
            .and_then(|rest| rest.split_once(": "))
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let lines: Vec<&str> = content.lines().filter(|l| !l.trim().is_empty()).collect();
    (lines.len() >= 2 && lines.iter().all(|l| numbered(l))).then(|| {
        "every line of this text starts with \"line <n>: \", the number read_lines shows \
         beside a line, which is not part of the line: write the lines' own text, or make \
         the file from the original with convert_file (it keeps, drops, sorts or \
         de-duplicates lines by code)"
            .to_string()
    })
}

/// Why appending `content` to the file at `path`, whose text is `old`, would repeat it:
/// the file already ends with that text. A small model that had just written a file
/// whole appended the same text to it again.
fn appended_again(path: &Path, old: &str, content: &str) -> Option<String> {
    (!content.trim().is_empty() && old.trim_end().ends_with(content.trim_end())).then(|| {
        format!(
            "{} already ends with this text; appending it would write it twice",
            path.display()
        )
    })
}

fn content_of(input: &Value) -> Result<&str, ToolError> {
    match input.get("content") {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ToolError::InvalidInput(format!(
            "`content` must be a string, got {other}"
        ))),
        None => Err(ToolError::InvalidInput("`content` is required".into())),
    }
}

/// A sibling temporary name for an atomic replace.
fn temp_sibling(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(
        ".{name}.artoo-{}.tmp",
        uuid::Uuid::new_v4().simple()
    ))
}

impl Tool for WriteFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::WriteFile.into(),
            priority: 3,
            summary: Cow::Borrowed(
                "Write generated text to a file; bare names go to the workspace folder. Replacing an existing file asks the user.",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let raw = super::str_param(input, "path")?;
        let content = content_of(input)?;
        let append = append_of(input)?;
        let path = ctx.resolve_path(raw);
        if raw.trim().ends_with('/') {
            return Err(ToolError::InvalidInput(format!(
                "{raw} names a folder; give a file name"
            )));
        }
        // The workspace is a folder even before anything is saved in it.
        if path == ctx.config.workspace || path == ctx.config.home {
            return Err(ToolError::InvalidInput(format!(
                "{raw} is the {} folder; give a file name in it",
                if path == ctx.config.home {
                    "home"
                } else {
                    "workspace"
                }
            )));
        }
        let shown = path.to_string_lossy().into_owned();
        // Put first: the file's whole new text, made by code now, is what is written
        // (and what Law 1 asks about); the model types only the new part.
        let prepend = flag(input, "prepend")?;
        if prepend && append {
            return Err(ToolError::InvalidInput(
                "give `append` or `prepend`, not both".into(),
            ));
        }
        let old = existing_text(&path);
        // A change in place keeps the rest of the file by code: re-typed whole, a small
        // model's JSON file lost two of its three fields to a version bump.
        if !append
            && !prepend
            && let Some(old) = old.as_deref()
            && let Some(request) = ctx.request.as_deref()
            && crate::laws::requested::in_place_change(request).is_some()
            && !ctx.broker.task_owns(&ctx.task_id, &path)
            && let Some(why) = retyped(&path, old, content).or_else(|| wrapped(&path, old, content))
        {
            return Err(ToolError::InvalidInput(why));
        }
        if append
            && let Some(why) = old
                .as_deref()
                .and_then(|old| appended_again(&path, old, content))
        {
            return Err(ToolError::InvalidInput(why));
        }
        if (append || prepend)
            && let Some(why) = old
                .as_deref()
                .and_then(|old| holds_it_all(&path, old, content))
        {
            return Err(ToolError::InvalidInput(why));
        }
        if let Some(why) = numbered_lines(content) {
            return Err(ToolError::InvalidInput(why));
        }
        if !append
            && !prepend
            && let Some(why) = copy_of_a_read_file(ctx, &path, content)
        {
            return Err(ToolError::InvalidInput(why));
        }
        let (content, note) = if prepend && path.exists() {
            let whole = prepended(&path, content)?;
            let note = "the text was put before the file's own text, by code".to_string();
            (whole, Some(note))
        } else if !append
            && old.as_deref().is_some_and(|old| old.ends_with('\n'))
            && !content.is_empty()
            && !content.ends_with('\n')
        {
            // A text file that ends its last line keeps doing so when replaced: a model
            // re-typing a file drops the final line break more often than not.
            (format!("{content}\n"), None)
        } else {
            (content.to_string(), None)
        };
        let mut executed = json!({ "path": shown, "content": content });
        if append {
            executed["append"] = json!(true);
        }
        Ok(Prepared {
            tool: ToolName::WriteFile.into(),
            input: executed,
            target: shown,
            action: Some(Law1Action::WriteFile { path, append }),
            note,
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let path = ctx.resolve_path(super::str_param(&call.input, "path")?);
            let content = content_of(&call.input)?;
            let append = append_of(&call.input)?;
            write_text(call, ctx, &path, content, append).await
        })
    }
}

/// Writes `content` to `path` for a call the Law 1 gate passed (appends when `append`):
/// the folders it needs made, the original of a replaced file kept, the effect noted and
/// journaled. An existing file is replaced only when the user approved it or the task
/// made it and it is unchanged since.
pub(super) async fn write_text(
    call: &Prepared,
    ctx: &ToolContext,
    path: &Path,
    content: &str,
    append: bool,
) -> Result<String, ToolError> {
    let path = path.to_path_buf();
    let io = |what: &str| {
        let what = format!("cannot {what} {}", path.display());
        move |e| ToolError::io(what, e)
    };
    // The folders this call makes, outermost first, journaled with the file.
    let mut made: Vec<PathBuf> = path
        .ancestors()
        .skip(1)
        .take_while(|a| !a.as_os_str().is_empty() && std::fs::symlink_metadata(a).is_err())
        .map(Path::to_path_buf)
        .collect();
    made.reverse();
    if let Some(parent) = path.parent() {
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(io("create the folder for"))?;
    }
    if tokio::fs::metadata(&path).await.is_ok_and(|m| m.is_dir()) {
        return Err(ToolError::InvalidInput(format!(
            "{} is a folder; give a file name",
            path.display()
        )));
    }
    // Created by this call, or made earlier in the task and untouched since: the
    // task's own file, whose replacement asks nobody (the Law 1 gate checked).
    let new = matches!(
        tokio::fs::symlink_metadata(&path).await,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound
    );
    let owned = !new && ctx.broker.task_owns(&ctx.task_id, &path);
    let old_len = if append && !new {
        tokio::fs::metadata(&path).await.ok().map(|m| m.len())
    } else {
        None
    };
    // What a replacement displaces is kept first (a link to the same bytes, which
    // the rename below leaves in artoo's trash).
    let original = if !new && !append && (call.approved || owned) {
        let originals = ctx.journal().originals(ctx.task_id.as_ref());
        Some(crate::journal::keep_copy(&path, &originals).map_err(io("keep the original of"))?)
    } else {
        None
    };
    let written = WriteFile.write(call, &path, content, append, owned).await;
    if written.is_ok() && (new || owned) {
        ctx.broker.note_made(&ctx.task_id, &path, &ctx.cancel);
    }
    if written.is_ok() {
        let effect = match (new, append) {
            (true, _) => "create",
            (false, true) => "append",
            (false, false) => "overwrite",
        };
        ctx.effects.note(PathEffect {
            path: path.clone(),
            exists: !new,
            effect: effect.into(),
        });
        let mut changes: Vec<Change> = made
            .into_iter()
            .map(|path| Change::Create { path })
            .collect();
        changes.push(match (original, old_len) {
            (Some(original), _) => Change::Replace {
                path: path.clone(),
                original,
            },
            (None, Some(old_len)) => Change::Append {
                path: path.clone(),
                old_len,
            },
            (None, None) => Change::Create { path: path.clone() },
        });
        if let Some(line) = ctx.journal_changes(&changes) {
            return written.map(|text| format!("{text}\n{line}"));
        }
    }
    written
}

impl WriteFile {
    /// Writes; an existing file is replaced only when the user approved it or `owned`
    /// (the task made it and it is unchanged since).
    async fn write(
        &self,
        call: &Prepared,
        path: &Path,
        content: &str,
        append: bool,
        owned: bool,
    ) -> Result<String, ToolError> {
        let io = |what: &str| {
            let what = format!("cannot {what} {}", path.display());
            move |e| ToolError::io(what, e)
        };
        let bytes = content.len();
        if append {
            let mut f = tokio::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&path)
                .await
                .map_err(io("open"))?;
            f.write_all(content.as_bytes())
                .await
                .map_err(io("append to"))?;
            f.flush().await.map_err(io("append to"))?;
            return Ok(format!("appended {bytes} bytes to {}", path.display()));
        }
        if (call.approved || owned) && tokio::fs::symlink_metadata(path).await.is_ok() {
            // The user approved overwriting exactly this file, or the task made it:
            // replace atomically.
            let tmp = temp_sibling(path);
            tokio::fs::write(&tmp, content.as_bytes())
                .await
                .map_err(io("write next to"))?;
            if let Err(e) = tokio::fs::rename(&tmp, &path).await {
                let _ = tokio::fs::remove_file(&tmp).await;
                return Err(ToolError::io(
                    format!("cannot replace {}", path.display()),
                    e,
                ));
            }
            return Ok(format!("replaced {} ({bytes} bytes)", path.display()));
        }
        // A new file: refuse to clobber one that appeared since it was checked.
        let mut f = match tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .await
        {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(ToolError::Failed(format!(
                    "{} appeared while writing; it was not overwritten. Call write_file again to be asked.",
                    path.display()
                )));
            }
            Err(e) => {
                return Err(ToolError::io(
                    format!("cannot create {}", path.display()),
                    e,
                ));
            }
        };
        f.write_all(content.as_bytes()).await.map_err(io("write"))?;
        f.flush().await.map_err(io("write"))?;
        Ok(format!("wrote {bytes} bytes to {}", path.display()))
    }
}
