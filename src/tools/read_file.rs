//! `read_file`: one file's text, capped at `tools.read_limit_bytes`. A binary file is
//! named as binary (size and kind), never dumped.

use std::borrow::Cow;

use serde_json::{Value, json};
use std::io::Read;
use std::path::Path;

use super::{Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec};

/// Bytes inspected to decide whether a file is binary.
const SNIFF_BYTES: usize = 8192;

/// The first bytes of `bytes` that decide whether it is text, and whether they say it is
/// not (a NUL byte).
pub(super) fn sniff(bytes: &[u8]) -> (&[u8], bool) {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    (head, head.contains(&0))
}

/// The file's size and its first `limit` bytes; a missing file or a folder is an error
/// that says so. Blocking.
pub(super) fn read_head(path: &Path, limit: u64) -> Result<(u64, Vec<u8>), ToolError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            ToolError::NotFound(format!("no such file: {}", path.display()))
        }
        _ => ToolError::io(format!("cannot read {}", path.display()), e),
    })?;
    if meta.is_dir() {
        return Err(ToolError::InvalidInput(format!(
            "{} {}; list_files or glob shows what it holds",
            path.display(),
            super::context::A_FOLDER
        )));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| ToolError::io(format!("cannot open {}", path.display()), e))?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(limit)).unwrap_or(0));
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::io(format!("cannot read {}", path.display()), e))?;
    Ok((meta.len(), bytes))
}

/// The counts of a whole file's text, as the last line of a read: lines (a last line
/// without a newline counts), words (runs of non-blanks) and characters.
fn counts_line(text: &str) -> String {
    let plural = |n: usize, one: &str, many: &str| crate::text::plural(n, one, many);
    format!(
        "[the whole file: {}, {}, {}]",
        plural(text.lines().count(), "line", "lines"),
        plural(text.split_whitespace().count(), "word", "words"),
        plural(text.chars().count(), "character", "characters")
    )
}

/// The read_file tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadFile;

const PARAMS: &[Param] = &[Param {
    name: Cow::Borrowed("path"),
    kind: Cow::Borrowed("string"),
    required: true,
    about: Cow::Borrowed("absolute, ~/…, or relative to the sub-task's folder"),
    choices: super::Choices::Open,
}];

/// A readable name for common binary formats, from their first bytes.
fn binary_kind(head: &[u8]) -> &'static str {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"%PDF", "PDF document"),
        (b"\x89PNG", "PNG image"),
        (b"\xFF\xD8\xFF", "JPEG image"),
        (b"GIF8", "GIF image"),
        (b"PK\x03\x04", "ZIP archive (or an Office document)"),
        (b"\x1F\x8B", "gzip archive"),
        (b"7z\xBC\xAF", "7-Zip archive"),
        (b"\x7FELF", "executable (ELF)"),
        (b"\xCF\xFA\xED\xFE", "executable (Mach-O)"),
        (b"\xCA\xFE\xBA\xBE", "executable (universal Mach-O)"),
        (b"SQLite format 3", "SQLite database"),
        (b"bplist", "binary property list"),
        (b"ID3", "MP3 audio"),
        (b"OggS", "Ogg media"),
        (b"RIFF", "RIFF media (WAV/AVI/WebP)"),
        (b"\x00\x00\x00\x18ftyp", "MP4/QuickTime video"),
        (b"\x00\x00\x00\x20ftyp", "MP4/QuickTime video"),
        (b"\x00\x00\x00\x1Cftyp", "MP4/QuickTime video"),
    ];
    MAGIC
        .iter()
        .find(|(m, _)| head.starts_with(m))
        .map_or("binary data", |(_, k)| k)
}

impl Tool for ReadFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::ReadFile.into(),
            priority: 3,
            summary: Cow::Borrowed(
                "Read one text file (large files are cut; binary files are only described).",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let path = ctx.resolve_read_path(super::str_param(input, "path")?);
        let shown = path.to_string_lossy().into_owned();
        Ok(Prepared::plain(
            ToolName::ReadFile,
            json!({ "path": shown }),
            shown,
        ))
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let path = ctx.resolve_read_path(super::str_param(&call.input, "path")?);
            let limit = ctx.config.tools.read_limit_bytes;
            // One trip to the blocking pool for the whole read: `tokio::fs` would make
            // one per step (metadata, open, each read), each a thread hand-off.
            let (size, bytes) = {
                let path = path.clone();
                tokio::task::spawn_blocking(move || read_head(&path, limit))
                    .await
                    .map_err(|e| ToolError::Failed(format!("the read did not complete: {e}")))??
            };
            let (head, binary) = sniff(&bytes);
            if binary {
                return Ok(format!(
                    "{} is a binary file ({}, {size} bytes); its bytes are not shown. Use a tool that understands the format.",
                    path.display(),
                    binary_kind(head)
                ));
            }
            let cut = (bytes.len() as u64) < size;
            let mut text = match String::from_utf8(bytes) {
                Ok(s) => s,
                Err(e) => {
                    let valid = e.utf8_error().valid_up_to();
                    let incomplete_end = e.utf8_error().error_len().is_none();
                    let mut bytes = e.into_bytes();
                    if cut && incomplete_end {
                        // The cap split a character: drop its first bytes.
                        bytes.truncate(valid);
                        String::from_utf8(bytes).unwrap_or_default()
                    } else {
                        let lossy = String::from_utf8_lossy(&bytes).into_owned();
                        format!("(not valid UTF-8; undecodable bytes are shown as �)\n{lossy}")
                    }
                }
            };
            if cut {
                text.push_str(&format!(
                    "\n[showing the first {} of {size} bytes]",
                    text.len()
                ));
            } else if !text.is_empty() {
                // Counted by code, so a count of lines or words is copied, never counted
                // by eye from the text.
                let counts = counts_line(&text);
                // So are the days between the dates it holds and the time between its
                // clock times: a span is computed, never worked out in the head (a small
                // model's right 17 days stood unbacked; its 15 minutes for 09:30 to
                // 11:15 was the "15" of 11:15).
                let gaps = crate::calc::date_gaps(&text);
                let times = crate::calc::time_gaps(&text);
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&counts);
                for told in [gaps, times].into_iter().flatten() {
                    text.push('\n');
                    text.push_str(&told);
                }
            }
            if text.is_empty() {
                text = format!("({} is empty)", path.display());
            }
            Ok(text)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::counts_line;

    #[test]
    fn a_whole_read_ends_with_its_counts_made_by_code() {
        assert_eq!(
            counts_line("meeting at 10\nbuy milk\ncall bob\nreview PR\nTODO: fix bug\n"),
            "[the whole file: 5 lines, 12 words, 56 characters]"
        );
        assert_eq!(
            counts_line("one\ntwo"),
            "[the whole file: 2 lines, 2 words, 7 characters]"
        );
        assert_eq!(
            counts_line("é ü\n"),
            "[the whole file: 1 line, 2 words, 4 characters]"
        );
    }
}
