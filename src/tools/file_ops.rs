//! `move_files` and `delete_files`: moving and deleting by parameters a small model
//! fills — a folder and the names or patterns in it, like `copy_files` — instead of a
//! shell command it has to compose. Asked to move files, a small model otherwise reaches
//! for the typed tool it has (`copy_files`, which leaves the originals) and reports them
//! moved; asked to delete one, it reads it.
//!
//! Both become one exact shell command over the files selected now (each path quoted),
//! and run as that command: Law 1 treats them like any command — observed in the
//! sandbox, a move that replaces nothing kept without asking, a deletion asked about with
//! what it removes and its original kept on approval.
//!
//! A `to` with a `*` in its name renames every file selected: the `*` stands for each
//! file's name without its extension (`*.jpg` turns `dawn.jpeg` into `dawn.jpg`), in the
//! file's own folder unless `to` names another.
//!
//! **Invariant:** the command names only files that exist when the call is prepared, by
//! their absolute paths; a move never replaces a file (`mv -n`), and a rename by pattern
//! never gives two files one name.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::copy_files::{
    Bounds, CONTAINING, MAX_SIZE, MIN_SIZE, MODIFIED_WITHIN, OLDER_THAN, Picker,
    allowed_destination, destination, names_of, param, select,
};
use super::{
    Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// Files one call moves or deletes at most.
const MAX_FILES: usize = 1000;

const FROM: Param = Param {
    name: Cow::Borrowed("from"),
    kind: Cow::Borrowed("string"),
    required: true,
    about: Cow::Borrowed("the folder the files are in (or one file), as the user wrote it"),
    choices: super::Choices::Open,
};

const NAMES: Param = Param {
    name: Cow::Borrowed("names"),
    kind: Cow::Borrowed("string"),
    required: false,
    about: Cow::Borrowed(
        "the files, separated by commas: exact names, or patterns with * and ? (default: every file of the folder)",
    ),
    choices: super::Choices::Open,
};

/// The parameters that select a folder's files, then `rest`: the move and the deletion
/// select alike.
macro_rules! selecting {
    ($($rest:expr),* $(,)?) => {
        &[FROM, NAMES, MIN_SIZE, MAX_SIZE, MODIFIED_WITHIN, OLDER_THAN, CONTAINING, $($rest),*]
    };
}

const MOVE_PARAMS: &[Param] = selecting![Param {
    name: Cow::Borrowed("to"),
    kind: Cow::Borrowed("string"),
    required: true,
    about: Cow::Borrowed(
        "the folder to move them into (made if missing), the new file name when renaming one file, or a name with * to rename each file (*.jpg: each file's name without its extension, then .jpg), as the user wrote it",
    ),
    choices: super::Choices::Open,
}];

const DELETE_PARAMS: &[Param] = selecting![];

/// A path as one shell word.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', r"'\''"))
}

/// Why a call of `tool` from the file `from`, with `names` that do not name it, is not
/// what its caller means: the names select files in a folder, and a file has none, so
/// they stand for something inside it. Asked to delete the lines holding "TODO" from a
/// file, a small model gave the file as `from` and "TODO" as `names`.
fn inside_a_file(from: &Path, names: &[String], tool: ToolName) -> Option<String> {
    let file = from.file_name()?.to_string_lossy();
    let names_it = |n: &String| n == file.as_ref() || n.contains(['*', '?']);
    (from.is_file() && !names.is_empty() && !names.iter().any(names_it)).then(|| {
        format!(
            "{} is a file, and {tool} works on whole files (`names` picks files in a \
             folder; {} names no file here): to change the lines inside a file, convert_file \
             leaves out or keeps the lines that hold a text (drop_lines_containing, \
             keep_lines_containing, drop_blank_lines) and edit_file replaces a text",
            from.display(),
            names.join(", ")
        )
    })
}

/// What a call selects.
enum Selection {
    /// The files it selects, existing now, and the names that selected nothing.
    Files(Vec<PathBuf>, Vec<String>),
    /// Nothing is left, because the task already moved or deleted what it names.
    Done,
}

/// The files a call selects, existing now, and the names that selected nothing.
fn selected(input: &Value, ctx: &ToolContext, tool: ToolName) -> Result<Selection, ToolError> {
    let from = ctx.resolve_read_path(param(input, &["from", "source", "folder", "path"])?);
    if !from.exists() {
        return Err(ToolError::NotFound(format!(
            "no such folder or file: {}",
            from.display()
        )));
    }
    let names = names_of(input);
    if let Some(why) = inside_a_file(&from, &names, tool) {
        return Err(ToolError::InvalidInput(why));
    }
    let bounds = Bounds::of(input)?;
    let (files, missing) = select(&from, &names, &bounds)
        .map_err(|e| ToolError::io(format!("cannot read {}", from.display()), e))?;
    // What the names pick, bounds aside: where the bounds left every one out, the error
    // says which files and why, so the next call can drop a bound nobody asked for.
    let unbounded = || {
        (files.is_empty() && bounds.any())
            .then(|| select(&from, &names, &Bounds::default()).ok())
            .flatten()
            .map(|(all, _)| all)
            .filter(|all| !all.is_empty())
    };
    if files.is_empty() && from.is_file() {
        // The file is there; the bounds left it out.
        return Err(ToolError::Failed(format!(
            "the file {} exists, and is outside the sizes, ages or text given, so {tool} leaves \
             it alone{}",
            from.display(),
            unbounded().map_or_else(String::new, |all| format!(": {}", bounds.left_out(&all)))
        )));
    }
    if files.is_empty() && done_before(ctx, tool, &from, input).is_some() {
        return Ok(Selection::Done);
    }
    if files.is_empty() {
        let why = format!(
            "no file of {} matches {}{}",
            from.display(),
            if names.is_empty() {
                "(the folder has no files)".to_string()
            } else {
                names.join(", ")
            },
            match unbounded() {
                Some(all) => format!(
                    " within the sizes and ages given: {}",
                    bounds.left_out(&all)
                ),
                None if bounds.any() => " within the sizes and ages given".to_string(),
                None => String::new(),
            }
        );
        // Names that pick nothing may be words the files hold in their text.
        let why = match (bounds.containing.is_none())
            .then(|| super::files::by_text_hint(&from, &names, "give containing: \"{word}\""))
            .flatten()
        {
            Some(hint) => format!("{why}; {hint}"),
            None => why,
        };
        // Files named one by one that are not there are missing; a folder where a
        // pattern or a bound matches nothing is there, and so is every file in it.
        let named = !names.is_empty() && names.iter().all(|n| !n.contains(['*', '?', '[']));
        return Err(if named && !bounds.any() {
            // The path that is missing is said first: the folder is there.
            ToolError::NotFound(format!(
                "no such file: {} ({why})",
                from.join(&names[0]).display()
            ))
        } else {
            ToolError::Failed(why)
        });
    }
    if files.len() > MAX_FILES {
        return Err(ToolError::InvalidInput(format!(
            "{} files match; {tool} takes at most {MAX_FILES} at a time: name fewer",
            files.len()
        )));
    }
    Ok(Selection::Files(files, missing))
}

/// What earlier calls of this task — of any of its sub-tasks — already did of what a
/// `tool` call with `input` asks: deleted from `from`, or moved to where it says, of the
/// files its names pick (all, when it names none), in words, when any did. A later call
/// that finds nothing left is that call's success, not a missing folder, and a replan
/// that asks for the same move again is told it is done.
fn done_before(ctx: &ToolContext, tool: ToolName, from: &Path, input: &Value) -> Option<String> {
    let names = names_of(input);
    let pickers: Vec<Picker> = names.iter().map(|n| Picker::new(n)).collect();
    // A move is done where it went: into the folder (or to the name) this call gives.
    let to = param(input, &["to", "destination", "target"])
        .ok()
        .filter(|t| !t.contains('*'))
        .map(|t| ctx.resolve_read_path(t));
    let mut gone: Vec<String> = Vec::new();
    for e in &ctx.task_calls.effects() {
        let left = tool == ToolName::DeleteFiles
            && matches!(e.effect.as_str(), "delete" | "delete the contents of")
            && e.path.starts_with(from);
        let arrived = tool == ToolName::MoveFiles
            && e.effect == "move"
            && to.as_ref().is_none_or(|to| e.path.starts_with(to));
        let named = names.is_empty() || pickers.iter().any(|p| p.picks(&e.path));
        if (left || arrived) && named {
            let name = e
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let verb = if left { "deleted" } else { "moved" };
            gone.push(format!("{verb} {name}"));
        }
    }
    (!gone.is_empty()).then(|| gone.join(", "))
}

/// The call that finds its work already done by the task: it runs as itself (no shell
/// command, nothing to ask about) and says what was done ([`already_done`]).
fn done_call(tool: ToolName, input: &Value, ctx: &ToolContext) -> Prepared {
    let from = param(input, &["from", "source", "folder", "path"]).unwrap_or_default();
    let target = ctx.resolve_read_path(from).display().to_string();
    Prepared::plain(tool, input.clone(), target)
}

/// The output of a move or deletion prepared as already done: what the task did earlier,
/// and that this call changed nothing. A typed call that is not that never runs as
/// itself (it runs as the shell command it prepared).
fn already_done(tool: ToolName, call: &Prepared, ctx: &ToolContext) -> Result<String, ToolError> {
    let from = ctx.resolve_read_path(param(&call.input, &["from", "source", "folder", "path"])?);
    match done_before(ctx, tool, &from, &call.input) {
        Some(done) => Ok(format!(
            "already done: earlier in this task {done}, and nothing else matches. This call \
             changed nothing; what it asks for is done"
        )),
        None => Err(ToolError::Failed(format!(
            "{tool} runs as the shell command it prepared"
        ))),
    }
}

/// The prepared shell call a typed call becomes, with a note of what it is.
fn as_shell(tool: ToolName, command: String, missing: &[String], home: &Path) -> Prepared {
    let mut note = format!("{tool} runs as: {}", crate::text::tilde(&command, home));
    if !missing.is_empty() {
        note.push_str(&format!(" (nothing matched {})", missing.join(", ")));
    }
    Prepared {
        tool: ToolName::Shell.into(),
        input: json!({ "command": command }),
        target: command.clone(),
        action: Some(Law1Action::Shell(command)),
        note: Some(note),
        approved: false,
        sandbox: None,
    }
}

/// The move_files tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveFiles;

impl Tool for MoveFiles {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::MoveFiles.into(),
            priority: 4,
            summary: Cow::Borrowed(
                "Move files into a folder, or rename them (one by its new name, many by a pattern like *.jpg): the originals leave where they were; never overwrites.",
            ),
            params: Cow::Borrowed(MOVE_PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let Selection::Files(files, missing) = selected(input, ctx, ToolName::MoveFiles)? else {
            return Ok(done_call(ToolName::MoveFiles, input, ctx));
        };
        let home = &ctx.config.home;
        let raw_to = param(input, &["to", "destination", "target"])?;
        if let Some(renames) = renamed_by_pattern(raw_to, &files, ctx)? {
            let command = renames
                .iter()
                .map(|(old, new)| format!("mv -n -- {} {}", quoted(old), quoted(new)))
                .collect::<Vec<_>>()
                .join("; ");
            return Ok(as_shell(ToolName::MoveFiles, command, &missing, home));
        }
        let to = destination(input, ctx, "move_files moves")?;
        // One file to a name with an extension that is not a folder: a rename.
        let rename = files.len() == 1 && !to.is_dir() && to.extension().is_some();
        let command = if rename {
            let parent = to.parent().unwrap_or(&to);
            format!(
                "mkdir -p -- {} && mv -n -- {} {}",
                quoted(parent),
                quoted(&files[0]),
                quoted(&to)
            )
        } else {
            // Files already in the folder named would go nowhere: the call changes
            // nothing, and what was meant is most likely a rename.
            let already: Vec<String> = files
                .iter()
                .filter(|f| f.parent() == Some(to.as_path()))
                .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            if already.len() == files.len() {
                return Err(ToolError::InvalidInput(format!(
                    "{} already {} in {}: moving into the folder they are in changes \
                     nothing. To rename, give `to` the new name of one file, or a name \
                     with * for many (*.jpg)",
                    already.join(", "),
                    if already.len() == 1 { "is" } else { "are" },
                    crate::text::tilde(&to.display().to_string(), home)
                )));
            }
            let sources: Vec<String> = files.iter().map(|f| quoted(f)).collect();
            format!(
                "mkdir -p -- {to} && mv -n -- {} {to}/",
                sources.join(" "),
                to = quoted(&to)
            )
        };
        Ok(as_shell(ToolName::MoveFiles, command, &missing, home))
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { already_done(ToolName::MoveFiles, call, ctx) })
    }
}

/// For a `to` whose name holds a `*`: each file and its new path, the `*` replaced by the
/// file's name without its extension, in the folder `to` names or else the file's own.
/// Files whose name is already the new one are left out. `None` for a `to` without a
/// `*`; an error for a pattern with more than one, one that names no new file, a folder
/// files may not go into, or two files given one name.
fn renamed_by_pattern(
    raw_to: &str,
    files: &[PathBuf],
    ctx: &ToolContext,
) -> Result<Option<Vec<(PathBuf, PathBuf)>>, ToolError> {
    let raw_to = raw_to.trim();
    let (folder, pattern) = match raw_to.rsplit_once('/') {
        Some((folder, pattern)) => (Some(folder), pattern),
        None => (None, raw_to),
    };
    if !pattern.contains('*') {
        return Ok(None);
    }
    if pattern.matches('*').count() > 1 || folder.is_some_and(|f| f.contains('*')) {
        return Err(ToolError::InvalidInput(format!(
            "`to` {raw_to:?} has more than one *: give one, which stands for each file's name \
             without its extension (*.jpg)"
        )));
    }
    let mut renames: Vec<(PathBuf, PathBuf)> = Vec::new();
    for file in files {
        let stem = file
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let name = pattern.replacen('*', &stem, 1);
        if name.is_empty() || name == "." || name == ".." {
            return Err(ToolError::InvalidInput(format!(
                "`to` {raw_to:?} names no file for {}",
                file.display()
            )));
        }
        let dir = match folder {
            Some("") => PathBuf::from("/"),
            Some(folder) => ctx.resolve_path(folder),
            None => file.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        let dir = allowed_destination(dir, ctx, "move_files renames")?;
        let new = dir.join(&name);
        if &new == file {
            continue;
        }
        if let Some((other, _)) = renames.iter().find(|(_, n)| *n == new) {
            return Err(ToolError::InvalidInput(format!(
                "{} and {} would both be named {name}: rename them one by one",
                other.display(),
                file.display()
            )));
        }
        renames.push((file.clone(), new));
    }
    if renames.is_empty() {
        return Err(ToolError::Failed(format!(
            "every file selected is already named as {raw_to:?} asks: nothing to rename"
        )));
    }
    Ok(Some(renames))
}

/// The delete_files tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeleteFiles;

impl Tool for DeleteFiles {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::DeleteFiles.into(),
            priority: 4,
            summary: Cow::Borrowed(
                "Delete files; the user is asked first, with what would be removed.",
            ),
            params: Cow::Borrowed(DELETE_PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let Selection::Files(files, missing) = selected(input, ctx, ToolName::DeleteFiles)? else {
            return Ok(done_call(ToolName::DeleteFiles, input, ctx));
        };
        let paths: Vec<String> = files.iter().map(|f| quoted(f)).collect();
        let command = format!("rm -f -- {}", paths.join(" "));
        Ok(as_shell(
            ToolName::DeleteFiles,
            command,
            &missing,
            &ctx.config.home,
        ))
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { already_done(ToolName::DeleteFiles, call, ctx) })
    }
}

#[cfg(test)]
mod tests {
    use super::{ToolName, inside_a_file, quoted};
    use std::path::Path;

    #[test]
    fn names_that_stand_for_something_inside_a_file_are_sent_to_the_tools_for_that() {
        let dir = tempfile::tempdir().expect("dir");
        let plan = dir.path().join("plan.md");
        std::fs::write(&plan, "TODO: a\n").expect("plan");
        let todo = vec!["TODO".to_string()];
        let why = inside_a_file(&plan, &todo, ToolName::DeleteFiles).expect("inside");
        assert!(why.contains("drop_lines_containing"), "{why}");
        // The file's own name, a pattern, no names, or a folder: whole files, as asked.
        for names in [
            vec!["plan.md".to_string()],
            vec!["*.md".to_string()],
            vec![],
        ] {
            assert_eq!(inside_a_file(&plan, &names, ToolName::DeleteFiles), None);
        }
        assert_eq!(inside_a_file(dir.path(), &todo, ToolName::MoveFiles), None);
    }

    #[test]
    fn a_path_is_one_shell_word_whatever_it_holds() {
        assert_eq!(quoted(Path::new("/h/a b.txt")), "'/h/a b.txt'");
        assert_eq!(
            quoted(Path::new("/h/it's; rm -rf ~.txt")),
            r"'/h/it'\''s; rm -rf ~.txt'"
        );
    }
}
