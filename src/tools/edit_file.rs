//! `edit_file`: changes a text file by code — every place a given text occurs is replaced
//! by another — instead of the model re-typing the file through `write_file`. Asked to
//! replace a word, a small model read the file and said it was done; one that rewrote the
//! file through `write_file` would have handed over its own text, not the file's.
//!
//! The new text is computed when the call is prepared, from the file as it is then, and
//! the call says what it will change (how many places, on which lines) before anything is
//! written. It then writes as `write_file` replaces a file: Law 1 asks first (the file's
//! old text is lost), the original is kept, the effect is journaled. A text that occurs
//! nowhere is an answer, not a change: the call fails and says so, with the places that
//! differ only in case.
//!
//! **Invariant:** the bytes written are exactly the text the call was prepared with (the
//! file's own, every place replaced; a whole line replaced by nothing goes with its line
//! break), and they are written only over the file they were worked out from: a file
//! changed between the question and the write is left alone.

use std::borrow::Cow;
use std::path::Path;

use serde_json::{Value, json};

use super::write_file::write_text;
use super::{
    Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// The largest file edited (its new text is held, and recorded, with the call).
const MAX_BYTES: u64 = 256 * 1024;

/// Line numbers named in a call's report at most.
const LINES_SHOWN: usize = 12;

/// The edit_file tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct EditFile;

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("path"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed(
            "the text file to change: ~/…, an absolute path, or relative to the sub-task's folder",
        ),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("find"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("the exact text to replace, as the user wrote it (case matters)"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("replace"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("the text to put in every place it occurs (empty: remove it)"),
        choices: super::Choices::Open,
    },
];

/// Whether the text at `range` of `text` is a whole line: it starts a line and ends one
/// (or the text).
fn whole_line(text: &str, range: &std::ops::Range<usize>) -> bool {
    let starts = range.start == 0 || text[..range.start].ends_with('\n');
    let rest = &text[range.end..];
    starts && (rest.is_empty() || rest.starts_with('\n') || rest.starts_with("\r\n"))
}

/// `old` with every `find` replaced by `replace`; a whole line replaced by nothing goes
/// with its line break, as a person removing "the line X" means (an empty line left in
/// its place is not what was asked). The number of lines so removed comes second.
fn replaced(old: &str, find: &str, replace: &str) -> (String, usize) {
    let mut out = String::with_capacity(old.len());
    let mut from = 0;
    let mut lines_gone = 0;
    for (at, _) in old.match_indices(find) {
        let mut range = at..at + find.len();
        if range.start < from {
            continue;
        }
        out.push_str(&old[from..range.start]);
        if replace.is_empty() && !find.contains('\n') && whole_line(old, &range) {
            let rest = &old[range.end..];
            if rest.starts_with("\r\n") {
                range.end += 2;
            } else if rest.starts_with('\n') {
                range.end += 1;
            } else if out.ends_with('\n') {
                // The last line, with no line break after it: the one before it goes.
                out.pop();
                if out.ends_with('\r') {
                    out.pop();
                }
            }
            lines_gone += 1;
        }
        out.push_str(replace);
        from = range.end;
    }
    out.push_str(&old[from..]);
    (out, lines_gone)
}

/// One edit worked out against a file's text.
#[derive(Debug, PartialEq, Eq)]
struct Edit {
    /// The file's text with every occurrence replaced.
    text: String,
    /// How many places were replaced.
    places: usize,
    /// The 1-based line of each place, in order (a line with two places twice).
    lines: Vec<usize>,
    /// Whole lines removed with their line breaks.
    lines_gone: usize,
}

/// Replaces every `find` in `old` with `replace`, or says why nothing is to change: the
/// text occurs nowhere (with the lines where it occurs in another case), or the
/// replacement is the text itself.
fn edit(old: &str, find: &str, replace: &str) -> Result<Edit, String> {
    if find.is_empty() {
        return Err("`find` is empty: give the text to replace".into());
    }
    if find == replace {
        return Err("`find` and `replace` are the same text: nothing would change".into());
    }
    let starts: Vec<usize> = old.match_indices(find).map(|(at, _)| at).collect();
    if starts.is_empty() {
        let folded = old.to_lowercase();
        let near = lines_of(
            &folded,
            &folded
                .match_indices(&find.to_lowercase())
                .map(|(at, _)| at)
                .collect::<Vec<_>>(),
        );
        let hint = if near.is_empty() {
            String::new()
        } else {
            format!(
                "; it occurs in another case on line{} {} (`find` must match exactly)",
                if near.len() == 1 { "" } else { "s" },
                shown_lines(&near)
            )
        };
        return Err(format!(
            "{find:?} occurs nowhere in the file{hint}; nothing was changed"
        ));
    }
    let (text, lines_gone) = replaced(old, find, replace);
    Ok(Edit {
        text,
        places: starts.len(),
        lines: lines_of(old, &starts),
        lines_gone,
    })
}

/// The 1-based line of each byte offset of `text`.
fn lines_of(text: &str, starts: &[usize]) -> Vec<usize> {
    starts
        .iter()
        .map(|&at| text[..at].matches('\n').count() + 1)
        .collect()
}

/// Line numbers as words: "3, 7 and 9", the first [`LINES_SHOWN`] of them.
fn shown_lines(lines: &[usize]) -> String {
    let mut distinct: Vec<usize> = lines.to_vec();
    distinct.dedup();
    let more = distinct.len().saturating_sub(LINES_SHOWN);
    let names: Vec<String> = distinct
        .iter()
        .take(LINES_SHOWN)
        .map(ToString::to_string)
        .collect();
    let listed = match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] if more == 0 => format!("{} and {last}", rest.join(", ")),
        all => all.join(", "),
    };
    if more > 0 {
        format!("{listed} and {more} more")
    } else {
        listed
    }
}

/// The file's text, when it is a text file small enough to edit.
fn text_of(path: &Path) -> Result<String, ToolError> {
    small_text(
        path,
        "edit_file changes the text inside one file (to rename files, move_files gives them \
         new names)",
        "edit_file",
    )
}

/// The text of the file at `path`, for `tool` (which changes text files of at most
/// [`MAX_BYTES`]); a folder is refused with `for_a_folder`, what the tool does instead.
pub(super) fn small_text(path: &Path, for_a_folder: &str, tool: &str) -> Result<String, ToolError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| ToolError::io(format!("cannot read {}", path.display()), e))?;
    if meta.is_dir() {
        return Err(ToolError::InvalidInput(format!(
            "{} is a folder; {for_a_folder}",
            path.display()
        )));
    }
    if meta.len() > MAX_BYTES {
        return Err(ToolError::InvalidInput(format!(
            "{} has {} bytes; {tool} changes files of at most {MAX_BYTES} bytes",
            path.display(),
            meta.len()
        )));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| ToolError::io(format!("cannot read {}", path.display()), e))?;
    String::from_utf8(bytes).map_err(|_| {
        ToolError::InvalidInput(format!(
            "{} is not UTF-8 text; {tool} changes text files only",
            path.display()
        ))
    })
}

/// Writes `after`, the text a call was prepared with, over the file at `path`. A file no
/// longer there (the user chose to keep the old one in the Trash) gets it in its place,
/// with no report of its own; a file that is there gets it only when `redo`, worked out
/// from the file's text (read by `read`) now, gives the same text — a file changed since
/// the question is left alone — and `redo`'s report comes back with what was written.
pub(super) async fn write_prepared<T>(
    call: &Prepared,
    ctx: &ToolContext,
    path: &Path,
    after: &str,
    read: fn(&Path) -> Result<String, ToolError>,
    redo: impl FnOnce(&str) -> Result<(String, T), String>,
) -> Result<(String, Option<T>), ToolError> {
    if !path.exists() {
        return Ok((write_text(call, ctx, path, after, false).await?, None));
    }
    let (text, done) = redo(&read(path)?).map_err(ToolError::Failed)?;
    if text != after {
        return Err(ToolError::Failed(format!(
            "{} changed after the call was prepared; nothing was written",
            crate::text::tilde(&path.display().to_string(), &ctx.config.home)
        )));
    }
    Ok((write_text(call, ctx, path, after, false).await?, Some(done)))
}

fn text_param<'a>(input: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    match input.get(name) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ToolError::InvalidInput(format!(
            "`{name}` must be a string, got {other}"
        ))),
        None => Err(ToolError::InvalidInput(format!("`{name}` is required"))),
    }
}

/// What the call did or will do, in words: `replaced "colour" with "color" in
/// ~/docs/style.md: 2 places, on lines 3 and 7`.
fn report(path: &str, find: &str, replace: &str, e: &Edit) -> String {
    let gone = match e.lines_gone {
        0 => String::new(),
        1 => " (the line removed)".to_string(),
        n => format!(" ({n} lines removed)"),
    };
    format!(
        "{find:?} with {replace:?} in {path}: {} place{}, on line{} {}{gone}",
        e.places,
        if e.places == 1 { "" } else { "s" },
        if e.lines.iter().min() == e.lines.iter().max() {
            ""
        } else {
            "s"
        },
        shown_lines(&e.lines)
    )
}

/// Why an edit that puts in new text does not do what `request` asks, when it asks to
/// remove something: a removal takes text out and puts nothing new in its place
/// (`replace` empty, or a part of what it finds). Asked to remove the line `DEBUG=true`,
/// a small model replaced it with `DEBUG=false`.
fn not_a_removal(request: &str, find: &str, replace: &str) -> Option<String> {
    use crate::laws::{EffectKind, requested};
    let verb = requested::in_place_change(request)?;
    let removal = requested::asks_for(EffectKind::Delete, &verb);
    (removal && !replace.is_empty() && !find.contains(replace)).then(|| {
        format!(
            "the request asks to {verb}, and this edit puts {replace:?} in the place of \
             {find:?}: to remove a text give an empty `replace` (a whole line goes with its \
             line break)"
        )
    })
}

impl Tool for EditFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::EditFile.into(),
            priority: 4,
            summary: Cow::Borrowed(
                "Change a text file by code: every place a text occurs is replaced by another. Changing a file the task did not make asks the user.",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let path = ctx.resolve_read_path(super::str_param(input, "path")?);
        let find = text_param(input, "find")?;
        let replace = text_param(input, "replace")?;
        if let Some(why) = ctx
            .request
            .as_deref()
            .and_then(|r| not_a_removal(r, find, replace))
        {
            return Err(ToolError::InvalidInput(why));
        }
        let old = text_of(&path)?;
        let planned = edit(&old, find, replace).map_err(|why| {
            ToolError::Failed(format!(
                "{}: {why}",
                crate::text::tilde(&path.display().to_string(), &ctx.config.home)
            ))
        })?;
        let shown = path.to_string_lossy().into_owned();
        let home = &ctx.config.home;
        Ok(Prepared {
            tool: ToolName::EditFile.into(),
            // The text to write is part of the call: what the user is asked about is
            // exactly what is written.
            input: json!({
                "path": shown,
                "find": find,
                "replace": replace,
                "text_after": planned.text,
            }),
            target: shown.clone(),
            action: Some(Law1Action::WriteFile {
                path: path.clone(),
                append: false,
            }),
            note: Some(format!(
                "It replaces {}.",
                report(&crate::text::tilde(&shown, home), find, replace, &planned)
            )),
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let path = ctx.resolve_read_path(super::str_param(&call.input, "path")?);
            let find = text_param(&call.input, "find")?;
            let replace = text_param(&call.input, "replace")?;
            let after = text_param(&call.input, "text_after")?;
            let shown = crate::text::tilde(&path.display().to_string(), &ctx.config.home);
            let redo = |old: &str| edit(old, find, replace).map(|e| (e.text.clone(), e));
            Ok(
                match write_prepared(call, ctx, &path, after, text_of, redo).await? {
                    (written, None) => format!(
                        "wrote the changed text of {shown} ({find:?} replaced with {replace:?})\n{written}"
                    ),
                    (written, Some(done)) => format!(
                        "replaced {}\n{written}",
                        report(&shown, find, replace, &done)
                    ),
                },
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_place_is_replaced_and_counted_by_line() {
        let old = "The colour of the sky.\nNo change here.\nColour and colour, colourful.\n";
        let e = edit(old, "colour", "color").expect("occurs");
        assert_eq!(
            e.text,
            "The color of the sky.\nNo change here.\nColour and color, colorful.\n"
        );
        assert_eq!((e.places, e.lines.clone()), (3, vec![1, 3, 3]));
        assert_eq!(
            report("~/s.md", "colour", "color", &e),
            "\"colour\" with \"color\" in ~/s.md: 3 places, on lines 1 and 3"
        );
        // An empty replacement removes the text; the rest of the bytes stay.
        let e = edit("a, b, c", ", ", "").expect("occurs");
        assert_eq!((e.text.as_str(), e.places), ("abc", 2));
    }

    #[test]
    fn a_text_that_occurs_nowhere_changes_nothing_and_says_where_another_case_is() {
        let err = edit("Colour\nplain\nCOLOUR\n", "colour", "color").expect_err("absent");
        assert!(err.contains("occurs nowhere"), "{err}");
        assert!(err.contains("lines 1 and 3"), "{err}");
        let err = edit("plain\n", "colour", "color").expect_err("absent");
        assert!(!err.contains("another case"), "{err}");
        assert!(edit("a", "", "b").is_err());
        assert!(edit("a", "a", "a").is_err());
    }

    #[test]
    fn a_whole_line_replaced_by_nothing_goes_with_its_line_break() {
        let e = edit("NAME=shop\nDEBUG=true\nPORT=8000\n", "DEBUG=true", "").expect("occurs");
        assert_eq!(
            (e.text.as_str(), e.lines_gone),
            ("NAME=shop\nPORT=8000\n", 1)
        );
        assert!(report("~/env", "DEBUG=true", "", &e).ends_with("(the line removed)"));
        // The last line without a line break; CRLF; a part of a line keeps its line.
        let e = edit("a\nb", "b", "").expect("occurs");
        assert_eq!(e.text, "a");
        let e = edit("a\r\nb\r\nc\r\n", "b", "").expect("occurs");
        assert_eq!(e.text, "a\r\nc\r\n");
        let e = edit("x = 1 # old\n", " # old", "").expect("occurs");
        assert_eq!((e.text.as_str(), e.lines_gone), ("x = 1\n", 0));
        // Two such lines in a row, and an only line.
        let e = edit("a\nx\nx\nb\n", "x", "").expect("occurs");
        assert_eq!((e.text.as_str(), e.lines_gone), ("a\nb\n", 2));
        assert_eq!(edit("x\n", "x", "").expect("occurs").text, "");
    }

    #[test]
    fn a_removal_asked_puts_nothing_new_in() {
        let asked = "Remove the line DEBUG=true from ~/app/env.txt";
        let why = not_a_removal(asked, "DEBUG=true", "DEBUG=false").expect("not a removal");
        assert!(why.contains("empty `replace`"), "{why}");
        assert_eq!(not_a_removal(asked, "DEBUG=true", ""), None);
        assert_eq!(not_a_removal(asked, "DEBUG=true  ", "DEBUG=true"), None);
        for other in [
            "Replace every 'colour' with 'color' in ~/docs/style.md",
            "What does ~/app/env.txt say?",
        ] {
            assert_eq!(not_a_removal(other, "colour", "color"), None, "{other}");
        }
    }

    #[test]
    fn many_lines_are_named_with_how_many_more() {
        let old = "x\n".repeat(20);
        let e = edit(&old, "x", "y").expect("occurs");
        assert_eq!(
            shown_lines(&e.lines),
            "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 and 8 more"
        );
        assert_eq!(shown_lines(&[4]), "4");
        assert_eq!(shown_lines(&[4, 4, 9]), "4 and 9");
    }

    #[test]
    fn unicode_text_is_replaced_on_character_boundaries() {
        let e = edit("Größe: 10\nstraße\n", "ß", "ss").expect("occurs");
        assert_eq!(e.text, "Grösse: 10\nstrasse\n");
        assert_eq!(e.lines, vec![1, 2]);
    }
}
