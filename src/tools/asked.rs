//! Whether a call's values follow from what it was asked, checked before it runs.
//!
//! A small model filling a typed call writes values for parameters it was not asked
//! about — "list the files in my home folder" became a listing of `.txt` and `.md`
//! files only — picks a value next to the one the request names ("the 3 largest" kept
//! the first three by extension; "the oldest" kept the newest), and names two types of a
//! kind ("videos" as `mp4,avi,wmv`, missing `.mov` and `.mkv`). Every such call succeeds
//! and prints something plausible, so nothing downstream notices. Three rules:
//!
//! - **A narrowing value comes from somewhere.** A value that keeps only some of the
//!   data (a file-name filter, an extension, a line's text, a row's value) must be
//!   named by the request — its words, their singular, or the kind of thing they name
//!   (an `mp4` is a video) — or shown by a call of the task. Else the call is sent back
//!   once: only the model can say what it meant ([`Fit::Unasked`]).
//! - **A listing comes in the order asked for.** When the request asks for one end of an
//!   order with a superlative ("largest", "most recent") and a list_files call is ordered
//!   otherwise, it runs in that order ([`Fit::Mended`]): the request states it, so code
//!   sets it, and the rows asked for come first (and are the ones a limit keeps).
//! - **A kind is every type of it.** When a list_files call's extensions are all of the
//!   kinds the request names ("videos"), it runs with every type of those kinds.
//! - **Bounds and groupings stated in words are set too**: "bigger than 200 KB" is a
//!   `min_size`, "files of each type" a grouping by extension.
//! - **A named filter does not lapse.** A later call of the same tool that leaves out a
//!   filter an earlier one had, and the request names, runs with it.
//!
//! - **A calculation computes with what it was given.** Every number of a `calculate`
//!   expression comes from the request or a result of the task (or is a fixed count:
//!   100, 60, 24, 7, 12, 365, 1000, 1024); a call with another is never run
//!   ([`Fit::Refused`]).
//! - **A written value was computed.** A number a `write_file` text holds comes from
//!   the request or a result of the task (or is a small count, as a list numbers its
//!   items); a text with another is sent back once ([`Fit::Unasked`]): asked for the
//!   largest of five numbers, a small model wrote one none of them was.
//!
//! A mended call runs as mended, its record shows what ran, and the model is told what
//! changed and why.

use serde_json::Value;

use super::files::{self, Setting, Sort, kinds};
use super::{ToolName, ToolRef};

/// What a call is checked against: the request's own words (the sub-task, its context
/// and criteria, a correction) and what the task's calls have printed so far.
#[derive(Clone, Copy, Debug)]
pub struct Asked<'a> {
    /// The words of the request: the sub-task with its whole context (earlier steps'
    /// outputs name what a later step may filter by).
    pub words: &'a str,
    /// What the request states ([`crate::contracts::SubTask::stated`]): the bounds a
    /// request sets in words — sizes, ages, emptiness — are read here, not in a quoted
    /// earlier result.
    pub stated: &'a str,
    /// The outputs of the task's calls.
    pub seen: &'a str,
    /// The inputs of the sub-task's earlier successful calls of the same tool, oldest
    /// first.
    pub earlier: &'a [Value],
    /// For a table call: the one value of the table the request names, with its column
    /// (`tools::table_facts`), read by the caller from the file.
    pub row_value: Option<(&'a str, &'a str)>,
    /// For a table call: the columns of the table it reads, read by the caller from the
    /// file (a folder's are [`super::table::FOLDER_COLUMNS`]); empty when unknown.
    pub columns: &'a [String],
    /// The names of files the request states that exist nowhere yet, as written
    /// (`ideas-old.md`, `~/recent.txt`): what the task is to make ([`unmade_names`]).
    pub unmade: &'a [String],
    /// For a call that selects a folder's files by a name pattern: the word the pattern
    /// carries, when the request says it, no file name in the folder holds it and the
    /// text of some files does — with those files (read by the caller from the folder).
    pub by_text: Option<(&'a str, &'a [String])>,
}

/// The file names `text` states (a word with an extension, alone or ending a path),
/// trimmed of the quotes and punctuation around them, in order, once each. The caller
/// keeps those that exist nowhere as [`Asked::unmade`].
pub fn file_names_stated(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for token in text.split_whitespace() {
        let token = token
            .trim_matches(|c: char| !(c.is_alphanumeric() || matches!(c, '~' | '/' | '_' | '-')));
        let name = token.rsplit('/').next().unwrap_or(token);
        let named = extension_of(name).is_some() && !out.iter().any(|o| o == token);
        if named {
            out.push(token.to_string());
        }
    }
    out
}

/// The extension of a file name, lower case: one to five letters or digits after the
/// last dot, with a name before it.
fn extension_of(name: &str) -> Option<String> {
    let (stem, ext) = name.rsplit_once('.')?;
    let ext_ok = (1..=5).contains(&ext.chars().count())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic());
    (ext_ok && !stem.is_empty()).then(|| ext.to_lowercase())
}

/// `words` without the names of the files the task is to make: the name of an output
/// says what the task writes, not what it keeps ("into a new file big.txt" asks for no
/// `txt` filter).
fn without_unmade(words: &str, unmade: &[String]) -> String {
    unmade.iter().fold(words.to_string(), |text, name| {
        text.replace(name.as_str(), " ")
    })
}

/// The parameters of each tool whose values keep only part of the data, and whether a
/// later call that leaves them out keeps an earlier call's value (a filter the request
/// names does not lapse between two calls of one sub-task; a row value does not stand
/// alone, without its column).
const NARROWING: &[(ToolName, &[&str], bool)] = &[
    (
        ToolName::ListFiles,
        &["extensions", "name_contains", "pattern", "containing"],
        true,
    ),
    (ToolName::ReadLines, &["text"], true),
    (ToolName::ReadTable, &["equals"], false),
    (ToolName::CopyFiles, &["containing"], false),
    (ToolName::MoveFiles, &["containing"], false),
    (ToolName::DeleteFiles, &["containing"], false),
];

/// Pieces of a value shorter than this are not checked (`*.c`, a one-letter prefix).
const MIN_PIECE_CHARS: usize = 2;

/// How a call stands against its request.
#[derive(Clone, Debug, PartialEq)]
pub enum Fit {
    /// It follows (or the tool has nothing to check): it runs as it is.
    Asked,
    /// It runs as `input`, which the request states; `note` says what changed, for the
    /// model.
    Mended {
        /// The call's input as it runs.
        input: Value,
        /// What changed and why.
        note: String,
    },
    /// It narrows by what nobody named: the reason, for the model.
    Unasked(String),
    /// It computes with what nobody gave: never run, however often it is asked for (a
    /// number from nowhere gives an exact wrong answer). The reason, for the model.
    Refused(String),
}

/// How the call `tool` with `input` stands against `asked`.
pub fn fit(tool: &ToolRef, input: &Value, asked: Asked<'_>) -> Fit {
    let Some(name) = tool.builtin() else {
        return Fit::Asked;
    };
    let spoken = without_unmade(asked.words, asked.unmade);
    let words = Words::of(&spoken);
    if let Some(why) = invented_filter(name, input, &words, &spoken, &asked) {
        return Fit::Unasked(why);
    }
    if name == ToolName::DeleteFiles
        && let Some(why) = deletion_bounds_nobody_asked(input, asked.stated)
    {
        return Fit::Unasked(why);
    }
    if name == ToolName::Calculate
        && let Some(why) = invented_operands(input, &asked)
    {
        return Fit::Refused(why);
    }
    if name == ToolName::WriteFile
        && let Some(why) = invented_values(input, &asked)
    {
        return Fit::Unasked(why);
    }
    let mut mended = input.clone();
    let mut notes = filters_dropped(name, &mut mended, &words, asked.earlier);
    // Each rule sets parameters of its own, so all read the call as it came.
    if name == ToolName::ListFiles
        && let Ok(call) = files::Request::from_json(input)
    {
        notes.extend(sizes_not_asked(&call, &mut mended, asked.stated));
        notes.extend(ages_not_asked(&call, &mut mended, asked.stated));
        notes.extend(depth_not_asked(&call, &mut mended, asked.words, &words));
        notes.extend(group_not_asked(&call, &mut mended, &words));
        notes.extend(kinds_not_whole(&call, &mut mended, asked.words));
        notes.extend(order_not_asked(&call, &mut mended, &words));
        notes.extend(ordinal_not_asked(&call, &mut mended, &words));
        notes.extend(hidden_not_asked(&call, &mut mended, asked.stated));
        notes.extend(folder_extensions(&call, &mut mended));
        notes.extend(empty_folders_not_asked(&call, &mut mended, asked.stated));
    }
    if matches!(
        name,
        ToolName::CopyFiles | ToolName::MoveFiles | ToolName::DeleteFiles
    ) {
        notes.extend(selection_sizes_not_asked(input, &mut mended, asked.stated));
        notes.extend(selection_ages_not_asked(input, &mut mended, asked.stated));
    }
    if matches!(name, ToolName::CopyFiles | ToolName::MoveFiles) {
        notes.extend(new_name_not_given(input, &mut mended, asked.unmade));
    }
    if matches!(
        name,
        ToolName::CopyFiles | ToolName::MoveFiles | ToolName::ListFiles
    ) {
        notes.extend(text_not_names(&mut mended, asked.by_text));
    }
    if matches!(name, ToolName::CopyFiles | ToolName::MoveFiles)
        || (name == ToolName::DeleteFiles && names_each_file(input))
    {
        notes.extend(bounds_nobody_asked(input, &mut mended, asked.stated));
    }
    if name == ToolName::WriteFile {
        notes.extend(emptiness_not_written(input, &mut mended, asked.stated));
    }
    if name == ToolName::ReadTable {
        notes.extend(statistic_not_asked(&mut mended, asked.stated));
        notes.extend(table_bounds_not_asked(input, &mut mended, asked.stated));
        notes.extend(folder_bounds_not_asked(input, &mut mended, &asked));
        notes.extend(table_group_not_asked(&mut mended, &words, asked.seen));
        notes.extend(table_rows_not_asked(input, &mut mended, asked.row_value));
    }
    if notes.is_empty() {
        Fit::Asked
    } else {
        Fit::Mended {
            input: mended,
            note: notes.join("; "),
        }
    }
}

/// The parameters that select a folder's files by their names.
pub const NAME_SELECTORS: [&str; 7] = [
    "names",
    "pattern",
    "patterns",
    "glob",
    "globs",
    "name_pattern",
    "name_contains",
];

/// A selection by a name pattern whose word ([`Asked::by_text`]) no file name holds while
/// the text of some files does and the request says it: people ask for "the letters that
/// mention the invoice", and a small model writes the word as a name pattern (`invoice*`),
/// which selects nothing, and repeats it. The call runs selecting by the text instead
/// (`containing`), the names dropped; deletions are left as asked (never widened by code).
fn text_not_names(input: &mut Value, by_text: Option<(&str, &[String])>) -> Option<String> {
    let (word, holders) = by_text?;
    let map = input.as_object_mut()?;
    if map
        .get("containing")
        .and_then(Value::as_str)
        .is_some_and(|c| !c.trim().is_empty())
    {
        return None;
    }
    let dropped: Vec<&str> = NAME_SELECTORS
        .iter()
        .copied()
        .filter(|k| map.remove(*k).is_some())
        .collect();
    if dropped.is_empty() {
        return None;
    }
    map.insert("containing".into(), Value::String(word.to_string()));
    Some(format!(
        "no file name holds \"{word}\", which the sub-task names, and the text of {} does \
         ({}), so it ran with `containing` \"{word}\" instead of `{}`",
        if holders.len() == 1 {
            "1 file".to_string()
        } else {
            format!("{} files", holders.len())
        },
        holders.join(", "),
        dropped.join("`, `")
    ))
}

/// The first narrowing value of the call that neither the request nor any output
/// names, as the push-back.
fn invented_filter(
    tool: ToolName,
    input: &Value,
    words: &Words,
    spoken: &str,
    asked: &Asked<'_>,
) -> Option<String> {
    let (_, params, _) = NARROWING.iter().find(|(t, _, _)| *t == tool)?;
    let seen = asked.seen.to_lowercase();
    // The folder the call looks in names a place, not what to keep there: a piece of it
    // counts as asked for only where the request names it outside a path (a small model
    // copied `mixed` of `~/Downloads/mixed` into the name filter, and kept nothing).
    let place: Vec<String> = ["folder", "path"]
        .iter()
        .filter_map(|p| value_of(input, p))
        .flat_map(|v| pieces(&v))
        .collect();
    let outside = Words::of(&kinds::words_outside_paths(spoken).join(" "));
    // An extension counts as asked for only where the words name it outside a file's
    // name: "larger than ~/music/intro.mp3" asks about every file, not the mp3s.
    let unnamed = Words::of(&kinds::words_outside_names(spoken).join(" "));
    params.iter().find_map(|param| {
        let value = value_of(input, param)?;
        let words = if *param == "extensions" {
            &unnamed
        } else {
            words
        };
        let missing: Vec<String> = pieces(&value)
            .into_iter()
            .filter(|p| {
                if place.contains(p) {
                    !outside.name(p)
                } else {
                    !words.name(p) && !seen.contains(p.as_str())
                }
            })
            .collect();
        (!missing.is_empty()).then(|| {
            format!(
                "`{param}` {value:?} keeps only what the sub-task does not ask for (it \
                 names no {}): call again with `{param}` null, or with only what the \
                 sub-task names",
                missing.join(", ")
            )
        })
    })
}

/// Numbers any calculation may use without a source: none, one, a hundred for a
/// percentage, and the fixed counts of time and of bytes (60, 24, 7, 12, 365, 1000,
/// 1024). Any other number comes from the request (in digits or as a word: "the two
/// totals") or a result: a small model halved a difference nobody asked to halve, and
/// multiplied one by its tool's example factor.
const FREE_OPERANDS: [f64; 10] = [
    0.0, 1.0, 100.0, 60.0, 24.0, 7.0, 12.0, 365.0, 1000.0, 1024.0,
];

/// Numbers written as English words, with their values.
const NUMBER_WORDS: [(&str, f64); 12] = [
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("twelve", 12.0),
    ("half", 2.0),
    ("twice", 2.0),
];

/// The numbers of a `calculate` expression that neither the request nor any result of
/// the task shows, as the push-back: code computes exactly what it is given, so an
/// operand from nowhere gives an exact wrong answer (a small model copied the tool's own
/// example factor, `* 0.15`, into a difference of two totals). A constant the
/// calculation truly needs survives: the same call asked again runs.
fn invented_operands(input: &Value, asked: &Asked<'_>) -> Option<String> {
    let expression = value_of(input, "expression")?;
    let unknown = unknown_numbers(numbers_in(&expression), asked, 0.0);
    // Before anything was read, the numbers a calculation needs are still in the data.
    let first = if asked.seen.trim().is_empty() {
        "; no call has read anything yet: look at the data the sub-task names first \
         (read_file, read_table, read_lines, list_files), then compute with what it shows"
    } else {
        ""
    };
    (!unknown.is_empty()).then(|| {
        format!(
            "`expression` uses {} that neither the sub-task nor any result shows: compute \
             only with the numbers they give{first}",
            unknown.join(", ")
        )
    })
}

/// Of `numbers` (as written, and their values), those above `free` that neither the
/// request (in digits or as a word: "the two totals") nor any result of the task shows,
/// nor a fixed count ([`FREE_OPERANDS`]) is; as written, each once in a row.
fn unknown_numbers(numbers: Vec<(String, f64)>, asked: &Asked<'_>, free: f64) -> Vec<String> {
    let said: Vec<String> = asked
        .words
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .collect();
    let in_words = NUMBER_WORDS
        .iter()
        .filter(|(w, _)| said.iter().any(|s| s == w))
        .map(|(_, n)| *n);
    let known: Vec<f64> = numbers_in(asked.words)
        .into_iter()
        .chain(numbers_in(asked.seen))
        .map(|(_, n)| n)
        .chain(FREE_OPERANDS)
        .chain(in_words)
        .chain(percent_factors(asked.words))
        .chain(percent_factors(asked.seen))
        .collect();
    let mut unknown: Vec<String> = numbers
        .into_iter()
        .filter(|(_, n)| {
            *n > free
                && !known
                    .iter()
                    .any(|k| (k - n).abs() <= 1e-9 * n.abs().max(1.0))
        })
        .map(|(written, _)| written)
        .collect();
    unknown.dedup();
    unknown
}

/// Numbers a written text may hold without a source: the counts a list numbers its
/// items with.
const FREE_COUNT: f64 = 10.0;

/// The numbers of a `write_file` text that neither the request nor any result of the
/// task shows, as the push-back. A value a file is to hold is computed by a call, or
/// given; one the model works out in its head and writes is a guess that every later
/// check reads as the file's own content. Digits inside a word or a path (`utf8`,
/// `x86_64`, `v2`) are names, not values. A number the model means to write stays: the
/// same call asked again runs.
fn invented_values(input: &Value, asked: &Asked<'_>) -> Option<String> {
    let content = value_of(input, "content")?;
    let unknown = unknown_numbers(standalone_numbers(&content), asked, FREE_COUNT);
    (!unknown.is_empty()).then(|| {
        format!(
            "`content` holds {}, which neither the sub-task nor any result of the task \
             shows: a value the file is to hold comes from a call that computes it \
             (calculate, read_table, read_lines, list_files) — make that call, then write \
             what it printed; if the number is yours to write, call again as it is",
            unknown.join(", ")
        )
    })
}

/// What a percentage written in `text` (`5%`, `5 %`, `5 percent`) stands for in a
/// calculation: its fraction, and the factors of a rise and a fall by it (5% gives 0.05,
/// 1.05 and 0.95) — "after a 5% increase" is `* 1.05`.
fn percent_factors(text: &str) -> Vec<f64> {
    let mut rest = text;
    let mut out = Vec::new();
    for (written, p) in numbers_in(text) {
        let Some(at) = rest.find(written.as_str()) else {
            continue;
        };
        let after = rest[at + written.len()..].trim_start();
        if after.starts_with('%') || after.to_lowercase().starts_with("percent") {
            out.extend([p / 100.0, 1.0 + p / 100.0, 1.0 - p / 100.0]);
        }
        rest = &rest[at + written.len()..];
    }
    out
}

/// The numbers of `text` ([`numbers_in`]) that stand as words of their own: not glued
/// to a letter, an underscore or a path's slash on either side.
fn standalone_numbers(text: &str) -> Vec<(String, f64)> {
    let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphabetic() || matches!(c, '_' | '/'));
    let mut rest = text;
    let mut offset = 0;
    let mut out = Vec::new();
    for (written, n) in numbers_in(text) {
        let Some(at) = rest.find(written.as_str()) else {
            continue;
        };
        let start = offset + at;
        let end = start + written.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !glued(before) && !glued(after) {
            out.push((written.clone(), n));
        }
        offset = end;
        rest = &text[end..];
    }
    out
}

/// The numbers written in `text`, unsigned, as written and as values: runs of digits
/// with at most one decimal point between digits, thousands separators (`1,234`) joined.
fn numbers_in(text: &str) -> Vec<(String, f64)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut digits = String::new();
        let mut seen_point = false;
        while i < chars.len() {
            let c = chars[i];
            let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
            if c.is_ascii_digit() {
                digits.push(c);
            } else if c == '.' && !seen_point && next_digit {
                seen_point = true;
                digits.push(c);
            } else if c == ','
                && !seen_point
                && chars
                    .get(i + 1..i + 4)
                    .is_some_and(|g| g.iter().all(char::is_ascii_digit))
                && !chars.get(i + 4).is_some_and(char::is_ascii_digit)
            {
                // A thousands separator: skipped.
            } else {
                break;
            }
            i += 1;
        }
        if let Ok(n) = digits.parse::<f64>() {
            out.push((chars[start..i].iter().collect(), n));
        }
    }
    out
}

/// The narrowing values an earlier call of the sub-task had, the request names, and
/// this call leaves out: set again, each with its note. A small model that had the
/// right listing called again without its filter and answered from the wider one.
fn filters_dropped(
    tool: ToolName,
    input: &mut Value,
    words: &Words,
    earlier: &[Value],
) -> Vec<String> {
    let Some((_, params, true)) = NARROWING.iter().find(|(t, _, _)| *t == tool) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    for param in *params {
        if value_of(input, param).is_some() {
            continue;
        }
        let kept = earlier.iter().rev().find_map(|earlier| {
            value_of(earlier, param).filter(|v| {
                let pieces = pieces(v);
                !pieces.is_empty() && pieces.iter().all(|p| words.name(p))
            })
        });
        let (Some(value), Some(map)) = (kept, input.as_object_mut()) else {
            continue;
        };
        map.retain(|k, _| super::lenient_key(k) != super::lenient_key(param));
        map.insert((*param).to_string(), Value::from(value.clone()));
        notes.push(format!(
            "it ran with `{param}` {value:?} as the call before it did, since the sub-task \
             asks for it"
        ));
    }
    notes
}

/// The value of `param` in a call, under any spelling of its name, as text.
fn value_of(input: &Value, param: &str) -> Option<String> {
    let key = super::lenient_key(param);
    input
        .as_object()
        .and_then(|obj| super::lenient_param(obj, &[key.as_str()]))
        .and_then(as_text)
}

/// A value as text; `None` for an empty one or the words a model writes for "none".
fn as_text(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s.trim().to_string(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(","),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let blank = text.is_empty()
        || ["null", "none", "any", "all", "*"].contains(&text.to_lowercase().as_str());
    (!blank).then_some(text)
}

/// The pieces of a value that name something, lower case: its runs of letters and
/// digits of [`MIN_PIECE_CHARS`] or more (`"*.PDF,IMG_*"` → `pdf`, `img`).
fn pieces(value: &str) -> Vec<String> {
    let mut out: Vec<String> = value
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|p| p.chars().count() >= MIN_PIECE_CHARS)
        .collect();
    out.dedup();
    out
}

/// The request's words, for asking whether it names a piece.
struct Words {
    /// The whole text, lower case (a piece in a script without spaces is found in it).
    text: String,
    /// Its runs of ASCII letters and digits, lower case.
    ascii: Vec<String>,
}

impl Words {
    fn of(text: &str) -> Self {
        let text = text.to_lowercase();
        let ascii = text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        Words { text, ascii }
    }

    /// Whether the request names `piece`: a word starts with it ("pdfs" names `pdf`), it
    /// starts with a word of three letters or more, a non-ASCII piece is in the text, or
    /// a word names the same kind of thing ("videos" names `mp4`).
    fn name(&self, piece: &str) -> bool {
        if !piece.is_ascii() {
            return self.text.contains(piece);
        }
        let kind = crate::tags::kind::object_named(piece);
        // A type of a kind of file the request names ("photos" name `cr2` and `heic` too:
        // the kinds table's own types, which the lexicon may not know).
        let file_kind = kinds::kind_of_extension(piece);
        self.ascii.iter().any(|w| {
            w.starts_with(piece)
                || (w.len() >= 3 && piece.starts_with(w.as_str()))
                || kind.is_some_and(|k| crate::tags::kind::object_named(w) == Some(k))
                || file_kind.is_some_and(|k| kinds::kind_named(w) == Some(k))
        })
    }
}

/// When a list_files call is ordered otherwise than the request's superlative asks
/// ("the 3 largest" by extension, "the oldest" newest first): sets that order, so the
/// rows asked for come first (and are the ones a limit keeps), and says so. The same
/// rows are listed either way.
fn order_not_asked(request: &files::Request, input: &mut Value, words: &Words) -> Option<String> {
    let (word, sort, descending) = one_order_asked(words)?;
    if (request.sort, request.descending) == (sort, descending) {
        return None;
    }
    let value = end_word(sort, descending);
    files::set(input, Setting::Sort, Value::from(value));
    let direction = |d: bool| if d { "descending" } else { "ascending" };
    Some(format!(
        "the sub-task asks for the {word} ones, so it ran with `sort` {value:?} ({}, {}; \
         they come first) instead of by {}, {}",
        sort.label(),
        direction(descending),
        request.sort.label(),
        direction(request.descending),
    ))
}

/// The one order the request's superlatives ask for ("largest", "most recent"), with the
/// words that ask; `None` when none does, or two different ones do ("the newest of the
/// largest": no one order to hold).
fn one_order_asked(words: &Words) -> Option<(String, Sort, bool)> {
    let list: Vec<&str> = words.ascii.iter().map(String::as_str).collect();
    let single = list
        .iter()
        .map(|w| (w.to_string(), files::end_asked_by(&[w])));
    let pairs = list
        .windows(2)
        .map(|p| (p.join(" "), files::end_asked_by(p)));
    let asked: Vec<(String, Sort, bool)> = single
        .chain(pairs)
        .filter_map(|(w, end)| end.map(|(s, d)| (w, s, d)))
        .collect();
    let (word, sort, descending) = asked.first()?.clone();
    asked
        .iter()
        .all(|(_, s, d)| (*s, *d) == (sort, descending))
        .then_some((word, sort, descending))
}

/// When the request asks for the n-th of an order ("the second largest", "the 3rd most
/// recent") and a list_files call would list another number of rows: it runs with
/// `limit` n, so the one asked for is the last row listed, and says so. (The order
/// itself is [`order_not_asked`]'s.)
fn ordinal_not_asked(request: &files::Request, input: &mut Value, words: &Words) -> Option<String> {
    let Nth {
        ordinal,
        n,
        superlative,
        ..
    } = nth_asked(words)?;
    // Already n rows: nothing to set, but which row answers is said all the same (the
    // model read the first of three rows as the third).
    if request.limit != n {
        files::set(input, Setting::Limit, Value::from(n));
    }
    Some(format!(
        "the sub-task asks for the {ordinal} {superlative}, so it runs with `limit` {n}: \
         the last row listed is the {ordinal}, not the first"
    ))
}

/// The n-th of the one order the request asks for ("second largest").
struct Nth {
    /// The ordinal word ("second").
    ordinal: String,
    /// n.
    n: usize,
    /// The superlative after it ("largest", "most recent").
    superlative: String,
    /// The order asked for, and whether from its high end.
    order: (Sort, bool),
}

/// The n-th of the one order the request asks for; `None` without one order or an
/// ordinal before its superlative.
fn nth_asked(words: &Words) -> Option<Nth> {
    let (_, sort, descending) = one_order_asked(words)?;
    let w = &words.ascii;
    (0..w.len()).find_map(|i| {
        let n = ordinal_number(&w[i])?;
        let next = w.get(i + 1)?;
        let one = files::end_asked_by(&[next.as_str()]).map(|_| next.clone());
        let two = w.get(i + 2).and_then(|after| {
            files::end_asked_by(&[next.as_str(), after.as_str()]).map(|_| format!("{next} {after}"))
        });
        Some(Nth {
            ordinal: w[i].clone(),
            n,
            superlative: one.or(two)?,
            order: (sort, descending),
        })
    })
}

/// For a request asking for the n-th of an order ("the second largest"), and a
/// list_files call that listed in that order: what was asked ("second largest") and its
/// n-th row, whole (the name first, then the size or item count, the date and the type,
/// tab-separated). `None` when the request asks for no n-th, the call listed in another
/// order, or it has fewer rows.
pub fn nth_listed(words: &str, input: &Value, output: &str) -> Option<(String, String)> {
    let nth = nth_asked(&Words::of(words))?;
    let call = files::Request::from_json(input).ok()?;
    if (call.sort, call.descending) != nth.order {
        return None;
    }
    // A listing's rows are tab-separated, the name first; its header and totals are not.
    let row = output.lines().filter(|l| l.contains('\t')).nth(nth.n - 1)?;
    let name = row.split('\t').next()?.trim();
    (!name.is_empty()).then(|| {
        (
            format!("{} {}", nth.ordinal, nth.superlative),
            row.trim().to_string(),
        )
    })
}

/// The number an ordinal word names, from the second on ("second", "3rd", "10th").
pub fn ordinal_number(word: &str) -> Option<usize> {
    const WORDS: &[&str] = &[
        "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    ];
    if let Some(i) = WORDS.iter().position(|w| *w == word) {
        return Some(i + 2);
    }
    let digits = word
        .strip_suffix("nd")
        .or_else(|| word.strip_suffix("rd"))
        .or_else(|| word.strip_suffix("th"))?;
    digits
        .parse::<usize>()
        .ok()
        .filter(|n| (2..=100).contains(n))
}

/// When the request states a size bound ("bigger than 200 KB") and a list_files call
/// has another or none: the request's, and the note saying so.
fn sizes_not_asked(request: &files::Request, input: &mut Value, words: &str) -> Option<String> {
    let (least, most) = files::size_bounds_asked(words);
    let mut notes = Vec::new();
    for (asked, has, setting, param, side) in [
        (
            least,
            request.min_size,
            Setting::MinSize,
            "min_size",
            "at least",
        ),
        (
            most,
            request.max_size,
            Setting::MaxSize,
            "max_size",
            "at most",
        ),
    ] {
        let Some(bytes) = asked.filter(|b| has != Some(*b)) else {
            continue;
        };
        files::set(input, setting, Value::from(bytes));
        notes.push(format!(
            "the sub-task asks for files of {side} {}, so it ran with `{param}` {bytes}",
            crate::text::human_size(bytes)
        ));
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// When the request states a size bound ("the empty log files", "larger than 1 MB") and
/// a call that copies, moves or deletes a selection of files has another or none: the
/// request's, and the note. Asked to delete the empty logs, a small model named every
/// log of the folder, an 8-byte one with them.
fn selection_sizes_not_asked(input: &Value, mended: &mut Value, words: &str) -> Option<String> {
    let (least, most) = files::size_bounds_asked(words);
    let has = |key: &str| match input.get(key) {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => files::parse_size(s),
        _ => None,
    };
    let mut notes = Vec::new();
    for (asked, key, side) in [
        (least, "min_size", "at least"),
        (most, "max_size", "at most"),
    ] {
        let Some(bytes) = asked.filter(|b| has(key) != Some(*b)) else {
            continue;
        };
        if let Some(map) = mended.as_object_mut() {
            map.insert(key.to_string(), Value::from(bytes));
        }
        notes.push(format!(
            "the sub-task asks for files of {side} {}, so it ran with `{key}` {bytes}",
            crate::text::human_size(bytes)
        ));
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// A bound of age or size on a copy or a move whose request says nothing of age or size:
/// dropped, and said. A small model filled `older_than` with its description's example
/// ("30 days") when asked to move every .jpg file, and moved nothing. A deletion keeps
/// its bounds where a pattern selects (dropping one would widen what is deleted); one
/// that names each file by its name loses them too, since they can only leave out a
/// file the request names ([`names_each_file`]).
fn bounds_nobody_asked(input: &Value, mended: &mut Value, words: &str) -> Option<String> {
    let unasked = unasked_bounds(input, words);
    if unasked.is_empty() {
        return None;
    }
    if let Some(map) = mended.as_object_mut() {
        for key in &unasked {
            map.remove(*key);
        }
    }
    Some(format!(
        "the sub-task says nothing of {}, so it ran without `{}`",
        if unasked.iter().any(|k| k.ends_with("size"))
            && unasked.iter().any(|k| !k.ends_with("size"))
        {
            "age or size"
        } else if unasked[0].ends_with("size") {
            "size"
        } else {
            "age"
        },
        unasked.join("`, `")
    ))
}

/// The bounds of age or size a selecting call gives that the request says nothing of.
fn unasked_bounds(input: &Value, words: &str) -> Vec<&'static str> {
    [
        (
            !files::mentions_age(words),
            ["older_than", "modified_within"],
        ),
        (!files::mentions_size(words), ["min_size", "max_size"]),
    ]
    .iter()
    .filter(|(unasked, _)| *unasked)
    .flat_map(|(_, keys)| keys.iter().copied())
    .filter(|key| input.get(*key).is_some_and(|v| !v.is_null()))
    .collect()
}

/// A deletion by a pattern narrowed by a bound of age or size the request says nothing
/// of: sent back, not mended — dropping the bound would widen what is deleted, which code
/// never does; the model may drop it, or ask again to keep it. A small model filled
/// `older_than` with its description's example ("30 days") when asked to delete every
/// .tmp file, deleted nothing, and repeated the call.
fn deletion_bounds_nobody_asked(input: &Value, words: &str) -> Option<String> {
    let unasked = unasked_bounds(input, words);
    (!unasked.is_empty() && !names_each_file(input)).then(|| {
        format!(
            "`{}` narrows the deletion by what the sub-task does not name: call again \
             without it, or with it if the request means it",
            unasked.join("`, `")
        )
    })
}

/// Whether a call names each of its files whole (`old.tmp`, not `*.tmp` or a folder
/// alone): what it selects cannot grow past those names.
fn names_each_file(input: &Value) -> bool {
    let names = super::copy_files::names_of(input);
    !names.is_empty()
        && names
            .iter()
            .all(|n| !n.contains(['*', '?', '[', '{']) && !n.trim().is_empty())
}

/// When a copy or a move of one file goes into a folder, or keeps its own name, and the
/// request names exactly one file of its type that does not exist yet: the file made
/// under that name, and the note. Asked to put a copy of ideas.md into ~/backup "named
/// ideas-old.md", a small model copied it under its old name, and the retry that got
/// the name right left that copy behind.
fn new_name_not_given(input: &Value, mended: &mut Value, unmade: &[String]) -> Option<String> {
    let names = super::copy_files::names_of(input);
    let from = value_of(input, "from")?;
    let one = match names.as_slice() {
        [one] if !one.contains(['*', '?', '[', '{']) => one.clone(),
        [] => from.clone(),
        _ => return None,
    };
    let one = one.rsplit('/').next().unwrap_or(&one).to_string();
    let ext = extension_of(&one)?;
    let to = value_of(input, "to")?;
    let to = to.trim_end_matches('/');
    let last = to.rsplit('/').next().unwrap_or(to);
    let named: Vec<&str> = unmade
        .iter()
        .map(|u| u.rsplit('/').next().unwrap_or(u))
        .filter(|u| extension_of(u).as_deref() == Some(ext.as_str()))
        .filter(|u| !u.eq_ignore_ascii_case(&one))
        .collect();
    let [new] = named.as_slice() else {
        return None;
    };
    if last.eq_ignore_ascii_case(new) {
        return None;
    }
    // `to` names the file already (its own name, or another of its type), or the folder.
    let folder = if extension_of(last).is_some_and(|e| e == ext) {
        to.rsplit_once('/').map_or("", |(f, _)| f)
    } else {
        to
    };
    let target = if folder.is_empty() {
        (*new).to_string()
    } else {
        format!("{folder}/{new}")
    };
    // One file under a new name is a call from that file to that name.
    let from_last = from.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let source = if names.is_empty() || from_last.eq_ignore_ascii_case(&one) {
        from
    } else {
        format!("{}/{one}", from.trim_end_matches('/'))
    };
    if let Some(map) = mended.as_object_mut() {
        map.remove("names");
        map.remove("pattern");
        map.insert("from".into(), Value::from(source));
        map.insert("to".into(), Value::from(target.clone()));
    }
    Some(format!(
        "the sub-task names the new file {new}, so {one} goes to {target} under that name"
    ))
}

/// When the request asks for an empty file and a write_file call writes text into a new
/// file: the file as asked, empty, and the note. Asked for "an empty file called
/// plan.md", a small model wrote a plan of its own into it.
fn emptiness_not_written(input: &Value, mended: &mut Value, words: &str) -> Option<String> {
    let content = input.get("content").and_then(Value::as_str)?;
    let appends = input.get("append").and_then(Value::as_bool) == Some(true);
    if content.is_empty() || appends || !asks_an_empty_file(words) {
        return None;
    }
    if let Some(map) = mended.as_object_mut() {
        map.insert("content".into(), Value::from(""));
    }
    Some("the sub-task asks for an empty file, so it was written with no content".into())
}

/// Whether `words` ask for an empty file: "empty" or "blank" right before "file", or
/// before one word and then "file" ("an empty text file", "a blank new file").
fn asks_an_empty_file(words: &str) -> bool {
    let tokens: Vec<String> = crate::text::fold(words)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    tokens.iter().enumerate().any(|(i, t)| {
        matches!(t.as_str(), "empty" | "blank")
            && tokens[i + 1..].iter().take(2).any(|n| n == "file")
    })
}

/// When the request states a window of time ("older than 30 days", "changed this week")
/// and a copy, a move or a deletion selects files by another or none: the request's, and
/// the note. Asked to delete the files older than 30 days, a small model selected the
/// whole folder, and the question put every file in front of the user.
fn selection_ages_not_asked(input: &Value, mended: &mut Value, words: &str) -> Option<String> {
    let (within, older) = files::ages_asked(words);
    let has = |key: &str| {
        input
            .get(key)
            .and_then(Value::as_str)
            .and_then(files::parse_age)
    };
    let mut notes = Vec::new();
    for (asked, key, side) in [
        (within, "modified_within", "changed within"),
        (older, "older_than", "not changed for"),
    ] {
        let Some(age) = asked.filter(|a| has(key) != Some(*a)) else {
            continue;
        };
        let text = files::age_words(age);
        if let Some(map) = mended.as_object_mut() {
            map.insert(key.to_string(), Value::from(text.clone()));
        }
        notes.push(format!(
            "the sub-task asks for files {side} {text}, so it ran with `{key}` {text:?}"
        ));
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// When the request states a window of time ("in the last 7 days", "older than a year")
/// and a list_files call has another or none: the request's, and the note saying so.
/// Asked how many files changed in the last week, a listing of every file counts them
/// all.
fn ages_not_asked(request: &files::Request, input: &mut Value, words: &str) -> Option<String> {
    let (within, older) = files::ages_asked(words);
    let mut notes = Vec::new();
    for (asked, has, setting, param, side) in [
        (
            within,
            request.modified_within,
            Setting::ModifiedWithin,
            "modified_within",
            "changed within",
        ),
        (
            older,
            request.older_than,
            Setting::OlderThan,
            "older_than",
            "not changed for",
        ),
    ] {
        let Some(age) = asked.filter(|a| has != Some(*a)) else {
            continue;
        };
        let text = files::age_words(age);
        files::set(input, setting, Value::from(text.clone()));
        notes.push(format!(
            "the sub-task asks for files {side} {text}, so it ran with `{param}` {text:?}"
        ));
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// When the request asks to look below the folder's top level ("anywhere under",
/// "subfolders included", or counts per folder, which only the files inside the folders
/// give) and a list_files call does not: recursive, and the note.
fn depth_not_asked(
    request: &files::Request,
    input: &mut Value,
    text: &str,
    words: &Words,
) -> Option<String> {
    let per_folder = files::group_asked(&words.ascii) == Some(files::Group::Folder);
    if request.recursive || !(per_folder || files::depth_asked(&text.to_lowercase())) {
        return None;
    }
    files::set(input, Setting::Recursive, Value::Bool(true));
    Some(
        "the sub-task asks to look in the subfolders too, so it ran with `recursive` true"
            .to_string(),
    )
}

/// When the request asks for counts per group in words ("each type", "per folder") and
/// a list_files call groups otherwise or not at all: the grouping asked for (a line of
/// counts added to the same rows), and the note.
fn group_not_asked(request: &files::Request, input: &mut Value, words: &Words) -> Option<String> {
    let asked = files::group_asked(&words.ascii)?;
    if request.group_by == Some(asked) {
        return None;
    }
    files::set(input, Setting::GroupBy, Value::from(asked.label()));
    let what = if asked == files::Group::Content {
        "which files hold the same content".to_string()
    } else {
        format!("a count per {}", asked.label())
    };
    Some(format!(
        "the sub-task asks for {what}, so it ran with `group_by` {0:?} instead of {1}",
        asked.label(),
        request
            .group_by
            .map_or_else(|| "none".to_string(), |g| format!("{:?}", g.label())),
    ))
}

/// Whether the request asks for hidden entries, in its own words outside names: `Some(true)`
/// for only them ("the hidden files", "which files are hidden", dotfiles), `Some(false)`
/// for them among the rest ("including hidden ones", "hidden files too").
fn hidden_asked(stated: &str) -> Option<bool> {
    const ALONGSIDE_BEFORE: &[&str] = &[
        "including",
        "include",
        "includes",
        "with",
        "and",
        "plus",
        "also",
        "even",
    ];
    const ALONGSIDE_AFTER: &[&str] = &["included", "too", "also"];
    let words: Vec<String> = files::prose(stated)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let at = words
        .iter()
        .position(|w| matches!(w.as_str(), "hidden" | "dotfile" | "dotfiles"))?;
    let before = words[at.saturating_sub(2)..at].iter();
    let after = words.iter().skip(at + 1).take(3);
    let alongside = before
        .clone()
        .any(|w| ALONGSIDE_BEFORE.contains(&w.as_str()))
        || after.clone().any(|w| ALONGSIDE_AFTER.contains(&w.as_str()))
        || words
            .windows(2)
            .skip(at + 1)
            .take(3)
            .any(|p| p[0] == "as" && p[1] == "well");
    Some(!alongside)
}

/// When the request asks for hidden entries and a list_files call leaves them out, or
/// lists every entry when only the hidden ones are asked for: `hidden` true, and a
/// `pattern` of names starting with a dot when only they are asked for and the call has
/// no pattern of its own (a substring or extension filter then applies among the dotted
/// names). Asked which hidden files a folder holds, a small model listed every file and
/// answered with the first visible one.
fn hidden_not_asked(request: &files::Request, input: &mut Value, stated: &str) -> Option<String> {
    let only = hidden_asked(stated)?;
    let mut notes = Vec::new();
    if !request.hidden {
        files::set(input, Setting::Hidden, Value::Bool(true));
        notes.push("`hidden` true");
    }
    // The call's own name filters apply among the dotted names (every filter must hold);
    // only a pattern of its own is left as it is.
    if only && request.patterns.is_empty() {
        files::set(input, Setting::Pattern, Value::from(".*"));
        notes.push("`pattern` \".*\" (names starting with a dot)");
    }
    (!notes.is_empty()).then(|| {
        format!(
            "the sub-task asks for {} entries, so it ran with {}",
            if only {
                "hidden"
            } else {
                "hidden entries too, among the other"
            },
            notes.join(" and ")
        )
    })
}

/// When the request asks which folders are empty and a list_files call lists something
/// else: the folders with nothing in them (`type` folders, `max_size` 0), and the note.
/// A small model listed every folder with its item counts and answered with them all.
fn empty_folders_not_asked(
    request: &files::Request,
    input: &mut Value,
    stated: &str,
) -> Option<String> {
    let empty = request.kind == files::Kind::Folders
        && request.max_size == Some(0)
        && request.min_size.is_none_or(|m| m == 0);
    if empty || !files::empty_folders_asked(stated) {
        return None;
    }
    files::set(input, Setting::Type, Value::from("folders"));
    files::set(input, Setting::MaxSize, Value::from(0));
    files::set(input, Setting::MinSize, Value::Null);
    Some(
        "the sub-task asks for the empty folders, so it ran with `type` \"folders\" and \
         `max_size` 0 (folders with nothing in them)"
            .to_string(),
    )
}

/// A listing of folders only, filtered by extension: folders have none, so the filter
/// keeps nothing. It runs without it (a small model asked for empty folders filtered by
/// the extension "folder" and answered with the empty listing).
fn folder_extensions(request: &files::Request, input: &mut Value) -> Option<String> {
    if request.kind != files::Kind::Folders || request.extensions.is_empty() {
        return None;
    }
    let was = request.extensions.join(",");
    files::set(input, Setting::Extensions, Value::Null);
    Some(format!(
        "folders have no extension, so it ran without `extensions` {was:?}"
    ))
}

/// When the request names one middle of a column — the median, or the mean ("average") —
/// and a read_table call computes the other: the one named, and the note. Asked for the
/// median price, a small model computed the mean, and code printed the mean exactly.
fn statistic_not_asked(input: &mut Value, stated: &str) -> Option<String> {
    use super::table::{Op, Request};
    let call = Request::from_json(input).ok()?;
    let words: Vec<String> = files::prose(stated)
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .collect();
    let says = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let median = says(&["median", "medians"]);
    let mean = says(&["mean", "average", "averages", "avg"]);
    let asked = match (median, mean) {
        (true, false) => Op::Median,
        (false, true) => Op::Mean,
        _ => return None,
    };
    if !matches!(call.op, Op::Mean | Op::Median) || call.op == asked {
        return None;
    }
    let map = input.as_object_mut()?;
    map.retain(|k, _| {
        !matches!(
            super::lenient_key(k).as_str(),
            "op" | "operation" | "action"
        )
    });
    map.insert("op".to_string(), Value::from(asked.name()));
    Some(format!(
        "the sub-task asks for the {}, so it ran as `{}` instead of `{}`",
        asked.name(),
        asked.name(),
        call.op.name()
    ))
}

/// The bounds on a plain number a request states in words, as read_table's bound
/// parameters: "over 100", "more than 3", "above 2.5" keep the values `above` it;
/// "under 5", "fewer than 5", "below 0" those `below` it; "at least 3", "no fewer than
/// 3" `at_least`; "at most 10", "no more than 10" `at_most`. A number followed by a
/// unit of size or of time is a size or an age, not a value of a column; the first
/// bound of each parameter counts.
fn number_bounds_asked(stated: &str) -> Vec<(&'static str, String)> {
    const ABOVE: &[&str] = &[
        "above",
        "exceeding",
        "greater",
        "higher",
        "larger",
        "bigger",
        "more",
        "over",
    ];
    const BELOW: &[&str] = &["below", "fewer", "less", "lower", "smaller", "under"];
    let tokens: Vec<String> = files::prose(stated)
        .split_whitespace()
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '-')
                .trim_end_matches('.')
                .to_lowercase()
        })
        .filter(|t| !t.is_empty())
        .collect();
    let mut found: Vec<(&'static str, String)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.parse::<f64>().is_err() {
            continue;
        }
        if let Some(next) = tokens.get(i + 1)
            && (files::parse_size(&format!("{t}{next}")).is_some()
                || files::parse_age(&format!("{t} {next}")).is_some())
            && next.chars().all(char::is_alphabetic)
        {
            continue;
        }
        let before: Vec<&str> = tokens[i.saturating_sub(3)..i]
            .iter()
            .map(String::as_str)
            .collect();
        let negated = before.iter().any(|w| matches!(*w, "no" | "not"));
        let at = |w: &str| before.windows(2).any(|p| p == ["at", w]);
        let param = if at("least") {
            "at_least"
        } else if at("most") {
            "at_most"
        } else if before.iter().any(|w| ABOVE.contains(w)) {
            if negated { "at_most" } else { "above" }
        } else if before.iter().any(|w| BELOW.contains(w)) {
            if negated { "at_least" } else { "below" }
        } else {
            continue;
        };
        if !found.iter().any(|(p, _)| *p == param) {
            found.push((param, t.clone()));
        }
    }
    found
}

/// When the request bounds a number ("the sales over 100", "items with fewer than 5")
/// and a read_table call that computes on a column keeps every row: the bounds on that
/// column, and the note. Asked for the total of the sales over 100, a small model
/// summed every sale, and code printed that sum exactly.
fn table_bounds_not_asked(input: &Value, mended: &mut Value, stated: &str) -> Option<String> {
    use super::table::Request;
    let call = Request::from_json(input).ok()?;
    if !call.bounds.is_empty() || call.equals.is_some() {
        return None;
    }
    let column = call.where_column.clone().or(call.column.clone())?;
    let asked = number_bounds_asked(stated);
    if asked.is_empty() {
        return None;
    }
    let map = mended.as_object_mut()?;
    map.insert("where_column".to_string(), Value::from(column.clone()));
    let mut said = Vec::new();
    for (param, value) in asked {
        map.insert(param.to_string(), Value::from(value.clone()));
        said.push(format!("`{param}` {value}"));
    }
    Some(format!(
        "the sub-task bounds the values, so it ran over the rows of {column} with {}",
        said.join(" and ")
    ))
}

/// When a read_table call reads a folder (its rows the folder's entries) over every
/// entry while the request bounds the files by age ("changed in the last 5 days") or by
/// size ("bigger than 2 MB"), as list_files reads those words: the bound on `days_old`
/// or `size_bytes`, and the note. A small model listed the recent files right, then
/// added up the sizes of every file of the folder. One column is bounded: where the
/// request bounds both, the call is left as it is.
fn folder_bounds_not_asked(input: &Value, mended: &mut Value, asked: &Asked<'_>) -> Option<String> {
    use super::table::{FOLDER_COLUMNS, Request};
    if asked.columns.iter().map(String::as_str).ne(FOLDER_COLUMNS) {
        return None;
    }
    let call = Request::from_json(input).ok()?;
    // A where_column with no value keeps every row, so it bounds nothing either.
    if !call.bounds.is_empty() || call.equals.is_some() {
        return None;
    }
    const DAY: u64 = 86_400;
    let (within, older) = files::ages_asked(asked.stated);
    let (least, most) = files::size_bounds_asked(asked.stated);
    let days = |d: std::time::Duration| (d.as_secs().div_ceil(DAY)).to_string();
    let bounds: Vec<(&str, String)> = match (within.or(older).is_some(), least.or(most).is_some()) {
        (true, false) => within
            .map(|d| ("below", days(d)))
            .into_iter()
            .chain(older.map(|d| ("at_least", days(d))))
            .collect(),
        (false, true) => least
            .map(|b| ("at_least", b.to_string()))
            .into_iter()
            .chain(most.map(|b| ("at_most", b.to_string())))
            .collect(),
        _ => return None,
    };
    let column = if within.or(older).is_some() {
        "days_old"
    } else {
        "size_bytes"
    };
    let map = mended.as_object_mut()?;
    map.insert("where_column".to_string(), Value::from(column));
    let said: Vec<String> = bounds
        .into_iter()
        .map(|(param, value)| {
            let shown = format!("`{param}` {value}");
            map.insert(param.to_string(), Value::from(value));
            shown
        })
        .collect();
    Some(format!(
        "the sub-task bounds the files by {}, so it ran over the entries with `where_column` \
         {column} and {}",
        if column == "days_old" { "age" } else { "size" },
        said.join(" and ")
    ))
}

/// When the request groups by a column of the table a call showed ("which month",
/// "per city", "each status": the column's name, or its plural, after a word that picks
/// or spreads over its values) and a read_table call adds up or counts over all rows:
/// the same op per group of that column, and the note. "Which month has the highest
/// total" is answered by the month whose sum is highest, which only a sum per month shows
/// (a total over every row names no month, and the row with the largest value may be in
/// another month).
fn table_group_not_asked(input: &mut Value, words: &Words, seen: &str) -> Option<String> {
    use super::table::{Op, Request};
    let call = Request::from_json(input).ok()?;
    let grouped = match call.op {
        Op::Sum => Op::GroupSum,
        Op::Count => Op::GroupCount,
        _ => return None,
    };
    let by = group_column_asked(words, &columns_shown(seen))?;
    if call
        .column
        .as_deref()
        .is_some_and(|c| c.trim().eq_ignore_ascii_case(&by))
    {
        return None;
    }
    let map = input.as_object_mut()?;
    map.retain(|k, _| {
        !matches!(
            super::lenient_key(k).as_str(),
            "op" | "operation" | "action" | "by" | "groupby" | "groupcolumn"
        )
    });
    map.insert("op".to_string(), Value::from(grouped.name()));
    map.insert("by".to_string(), Value::from(by.clone()));
    Some(format!(
        "the sub-task asks about each {by}, so it ran as `{}` by {by:?} instead of `{}` over \
         every row",
        grouped.name(),
        call.op.name()
    ))
}

/// When the request names one value of the table ("the hours logged on Atlas") and a
/// read_table call computes over every row: over the rows that have it, and the note. An
/// average of every row's hours is not Atlas's average; the value the request names is
/// the filter. Ops that spread over the named value's own column (its distinct values,
/// per group) and calls that already filter are left as they are.
/// Whether `value` names a span of several days (a month, a year): the distinct values
/// of its own date column within it are the rows asked about, not one value.
fn spans_days(value: &str) -> bool {
    crate::calc::period(value).is_some_and(|(first, last)| first != last)
}

fn table_rows_not_asked(
    input: &Value,
    mended: &mut Value,
    named: Option<(&str, &str)>,
) -> Option<String> {
    use super::table::{Op, Request};
    let (column, value) = named?;
    let call = Request::from_json(input).ok()?;
    // The distinct values of another column than the named value's are that row's
    // values: asked for Maria Keller's phone, the distinct phones of every row gave the
    // first one.
    let over_rows = matches!(
        call.op,
        Op::Count | Op::Sum | Op::Mean | Op::Min | Op::Max | Op::MinRow | Op::MaxRow | Op::Rows
    ) || (call.op == Op::Distinct
        && call
            .column
            .as_deref()
            .is_some_and(|c| !c.eq_ignore_ascii_case(column) || spans_days(value)));
    // A filter given half — the named value's column with no value to keep, and no
    // bound — keeps every row: it is the same call without a filter (a small model
    // named the column and left the value out, and summed every project's hours).
    let half_given = call
        .where_column
        .as_deref()
        .is_some_and(|w| w.trim().eq_ignore_ascii_case(column))
        && call.bounds.is_empty();
    if !over_rows || (call.where_column.is_some() && !half_given) || call.equals.is_some() {
        return None;
    }
    let map = mended.as_object_mut()?;
    map.retain(|k, _| {
        !matches!(
            super::lenient_key(k).as_str(),
            "wherecolumn" | "where" | "equals" | "value"
        )
    });
    map.insert("where_column".to_string(), Value::from(column));
    map.insert("equals".to_string(), Value::from(value));
    Some(format!(
        "the sub-task names {value:?}, a value of the column {column:?}, so it ran over the \
         rows where {column} is {value:?} instead of every row"
    ))
}

/// The column names the table tool's outputs list ("…, 4 columns: month, category,
/// amount, note"), lower case, each once.
pub fn columns_shown(seen: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in seen.lines() {
        let Some((_, list)) = line.split_once(" columns: ") else {
            continue;
        };
        for name in list.split(", ") {
            let name = name.trim().to_lowercase();
            if !name.is_empty() && !name.contains(' ') && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The column the request groups by: one of `columns` (or its plural) right after
/// "which", "each", "per" or "every".
fn group_column_asked(words: &Words, columns: &[String]) -> Option<String> {
    const PICK: &[&str] = &["which", "each", "per", "every"];
    words.ascii.windows(2).find_map(|pair| {
        if !PICK.contains(&pair[0].as_str()) {
            return None;
        }
        columns
            .iter()
            .find(|c| {
                let c = c.replace('_', "");
                pair[1] == c || pair[1] == format!("{c}s") || pair[1] == format!("{c}es")
            })
            .cloned()
    })
}

/// When every extension a list_files call filters on belongs to a kind the request
/// names (a video, an image) and the call leaves some types of those kinds out: every
/// type of them, and the note saying so.
fn kinds_not_whole(request: &files::Request, input: &mut Value, words: &str) -> Option<String> {
    if request.extensions.is_empty() {
        return None;
    }
    let said = kinds::words_outside_paths(words);
    // A type asked for by name ("my mp4 videos") is that type alone.
    if request.extensions.iter().any(|e| said.contains(e)) {
        return None;
    }
    let named: Vec<&str> = said.iter().filter_map(|w| kinds::kind_named(w)).collect();
    let mut of_call: Vec<&str> = Vec::new();
    for ext in &request.extensions {
        let kind = kinds::kind_of_extension(ext).filter(|k| named.contains(k))?;
        if !of_call.contains(&kind) {
            of_call.push(kind);
        }
    }
    let whole: Vec<&str> = of_call
        .iter()
        .filter_map(|k| kinds::extensions_of(k))
        .flatten()
        .copied()
        .collect();
    if whole
        .iter()
        .all(|e| request.extensions.iter().any(|x| x == e))
    {
        return None;
    }
    files::set(input, Setting::Extensions, Value::from(whole.join(",")));
    Some(format!(
        "the sub-task asks for {}, so it ran with every type of {} ({}) instead of {}",
        of_call.join(" and "),
        if of_call.len() == 1 { "it" } else { "them" },
        whole.join(", "),
        request.extensions.join(", "),
    ))
}

/// The sort value that names an order's end.
fn end_word(sort: Sort, descending: bool) -> &'static str {
    match (sort, descending) {
        (Sort::Size, true) => "largest",
        (Sort::Size, false) => "smallest",
        (Sort::Modified, true) => "newest",
        (Sort::Modified, false) => "oldest",
        (Sort::Name | Sort::Extension, true) => "z_a",
        (Sort::Name | Sort::Extension, false) => "name",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fit_of(tool: ToolName, input: Value, words: &str, seen: &str) -> Fit {
        fit_making(tool, input, words, seen, &[])
    }

    #[test]
    fn a_bound_on_a_number_the_request_states_is_read_as_the_table_reads_it() {
        let b = number_bounds_asked;
        assert_eq!(
            b("the total of the sales over 100"),
            [("above", "100".into())]
        );
        assert_eq!(
            b("How many items have fewer than 5 in stock?"),
            [("below", "5".into())]
        );
        assert_eq!(b("scores of at least 2.5"), [("at_least", "2.5".into())]);
        assert_eq!(b("no more than 10 guests"), [("at_most", "10".into())]);
        assert_eq!(
            b("orders over 20 and under 50"),
            [("above", "20".into()), ("below", "50".into())]
        );
        // Sizes and ages are not values of a column; a number alone bounds nothing.
        assert!(b("files bigger than 200 KB").is_empty());
        assert!(b("changed more than 30 days ago").is_empty());
        assert!(b("the 3 largest rows").is_empty());
    }

    #[test]
    fn a_table_call_that_keeps_every_row_runs_with_the_bounds_asked() {
        let words = "What is the total of the sales over 100 in ~/shop/sales.csv?";
        let call = json!({"path": "~/shop/sales.csv", "op": "sum", "column": "amount"});
        let Fit::Mended { input, note } = fit_of(ToolName::ReadTable, call, words, "") else {
            panic!("the sum over every row ran as it was")
        };
        assert_eq!(input["where_column"], json!("amount"));
        assert_eq!(input["above"], json!("100"));
        assert!(note.contains("`above` 100"), "{note}");
        // A call that bounds already, or keeps rows by a value, runs as it is; so does
        // one with no column to bound.
        for call in [
            json!({"path": "s.csv", "op": "sum", "column": "amount", "where_column": "amount", "above": "50"}),
            json!({"path": "s.csv", "op": "count", "where_column": "city", "equals": "Lyon"}),
            json!({"path": "s.csv", "op": "count"}),
        ] {
            assert!(
                !matches!(
                    fit_of(ToolName::ReadTable, call.clone(), words, ""),
                    Fit::Mended { .. }
                ),
                "{call}"
            );
        }
    }

    #[test]
    fn a_folder_read_as_a_table_keeps_the_files_the_request_bounds() {
        let columns: Vec<String> = super::super::table::FOLDER_COLUMNS
            .iter()
            .map(|c| c.to_string())
            .collect();
        let with = |words: &str, call: Value, columns: &[String]| {
            fit(
                &ToolName::ReadTable.into(),
                &call,
                Asked {
                    words,
                    stated: words,
                    seen: "",
                    earlier: &[],
                    row_value: None,
                    columns,
                    unmade: &[],
                    by_text: None,
                },
            )
        };
        let sum = json!({"path": "~/parcels", "op": "sum", "column": "size_bytes"});
        let words = "How many bytes do the files in ~/parcels that changed in the last 5 days take up together?";
        let Fit::Mended { input, note } = with(words, sum.clone(), &columns) else {
            panic!("every file's bytes added up")
        };
        assert_eq!(input["where_column"], json!("days_old"));
        assert_eq!(input["below"], json!("5"));
        assert!(note.contains("by age"), "{note}");
        let Fit::Mended { input, .. } = with("the files bigger than 2 KB", sum.clone(), &columns)
        else {
            panic!("every file's bytes added up")
        };
        assert_eq!(input["where_column"], json!("size_bytes"));
        assert_eq!(input["at_least"], json!("2000"));
        // A table that is no folder, a request with no bound, a call that filters
        // already: as they are.
        assert!(!matches!(with(words, sum.clone(), &[]), Fit::Mended { .. }));
        assert!(!matches!(
            with(
                "How many bytes do the files in ~/parcels take up?",
                sum,
                &columns
            ),
            Fit::Mended { .. }
        ));
        let filtered = json!({"path": "~/parcels", "op": "count", "where_column": "extension", "equals": "jpg"});
        assert!(!matches!(
            with(words, filtered, &columns),
            Fit::Mended { .. }
        ));
        // Recorded (held recent_parcels_bytes, 1.5B, run 15): the column named with no
        // bound keeps every row; the bound the request states is set on it.
        let half = json!({"path": "~/parcels", "op": "sum", "column": "size_bytes", "where_column": "days_old"});
        let Fit::Mended { input, .. } = with(words, half, &columns) else {
            panic!("a filter given half ran over every file")
        };
        assert_eq!(input["below"], json!("5"));
    }

    #[test]
    fn a_phrase_files_must_hold_is_one_the_request_says() {
        let words =
            "Copy the files in ~/letters that mention an invoice into a new folder ~/invoices.";
        for tool in [
            ToolName::CopyFiles,
            ToolName::MoveFiles,
            ToolName::DeleteFiles,
        ] {
            let call = |phrase: &str| json!({"from": "~/letters", "to": "~/invoices", "containing": phrase});
            assert!(
                !matches!(fit_of(tool, call("invoice"), words, ""), Fit::Unasked(_)),
                "{tool:?}"
            );
            let Fit::Unasked(why) = fit_of(tool, call("receipt"), words, "") else {
                panic!("{tool:?}: an invented phrase kept")
            };
            assert!(why.contains("`containing`"), "{why}");
        }
    }

    /// [`fit_of`], for a request that names files to make (`unmade`).
    fn fit_making(tool: ToolName, input: Value, words: &str, seen: &str, unmade: &[String]) -> Fit {
        fit_reading(tool, input, words, seen, unmade, None)
    }

    /// [`fit_making`], with what the caller read of a folder's files ([`Asked::by_text`]).
    fn fit_reading(
        tool: ToolName,
        input: Value,
        words: &str,
        seen: &str,
        unmade: &[String],
        by_text: Option<(&str, &[String])>,
    ) -> Fit {
        fit(
            &tool.into(),
            &input,
            Asked {
                words,
                stated: words,
                seen,
                earlier: &[],
                row_value: None,
                columns: &[],
                unmade,
                by_text,
            },
        )
    }

    #[test]
    fn a_deletion_narrowed_by_a_bound_nobody_asked_is_sent_back_not_widened() {
        let words = "Delete the .tmp files in ~/cache.";
        let bounded = json!({"from": "~/cache", "names": "*.tmp", "older_than": "30 days"});
        let Fit::Unasked(why) = fit_of(ToolName::DeleteFiles, bounded, words, "") else {
            panic!("the unasked bound kept")
        };
        assert!(why.contains("`older_than` narrows the deletion"), "{why}");
        // Asked for, or on files named one by one, or without a bound: it runs as asked.
        let old = "Delete the .tmp files in ~/cache older than 30 days.";
        let bounded = json!({"from": "~/cache", "names": "*.tmp", "older_than": "30 days"});
        assert_eq!(fit_of(ToolName::DeleteFiles, bounded, old, ""), Fit::Asked);
        let plain = json!({"from": "~/cache", "names": "*.tmp"});
        assert_eq!(fit_of(ToolName::DeleteFiles, plain, words, ""), Fit::Asked);
    }

    #[test]
    fn a_name_pattern_of_a_word_the_files_hold_in_their_text_selects_by_the_text() {
        let holders = ["march.txt".to_string(), "reminder.txt".to_string()];
        let words = "Copy the letters in ~/letters that mention an invoice into ~/invoices";
        let with = |tool: ToolName, input: Value, by_text| {
            fit_reading(tool, input, words, "", &[], by_text)
        };
        let copy = json!({"from": "~/letters", "names": "invoice*", "to": "~/invoices"});
        let Fit::Mended { input, note } = with(
            ToolName::CopyFiles,
            copy.clone(),
            Some(("invoice", &holders[..])),
        ) else {
            panic!("the copy kept its pattern")
        };
        assert_eq!(
            input,
            json!({"from": "~/letters", "containing": "invoice", "to": "~/invoices"})
        );
        assert!(note.contains("march.txt, reminder.txt"), "{note}");
        let list = json!({"folder": "~/letters", "pattern": "*invoice*"});
        let Fit::Mended { input, .. } =
            with(ToolName::ListFiles, list, Some(("invoice", &holders[..])))
        else {
            panic!("the listing kept its pattern")
        };
        assert_eq!(input["containing"], json!("invoice"));
        assert!(input.get("pattern").is_none());
        // Without the caller's finding, or for a deletion, the call is left as it is.
        assert_eq!(with(ToolName::CopyFiles, copy, None), Fit::Asked);
        let delete = json!({"from": "~/letters", "names": "invoice*"});
        assert_eq!(
            with(
                ToolName::DeleteFiles,
                delete,
                Some(("invoice", &holders[..]))
            ),
            Fit::Asked
        );
    }

    /// The reason a call is sent back, if it is.
    fn check(tool: ToolName, input: Value, words: &str, seen: &str) -> Option<String> {
        match fit_of(tool, input, words, seen) {
            Fit::Unasked(why) | Fit::Refused(why) => Some(why),
            _ => None,
        }
    }

    /// The call as it runs, and the note, when code mended it.
    fn mended(input: Value, words: &str) -> Option<(Value, String)> {
        mended_call(ToolName::ListFiles, input, words)
    }

    fn mended_call(tool: ToolName, input: Value, words: &str) -> Option<(Value, String)> {
        match fit_of(tool, input, words, "") {
            Fit::Mended { input, note } => Some((input, note)),
            _ => None,
        }
    }

    #[test]
    fn hidden_entries_asked_for_are_listed_and_only_them_when_only_they_are_asked() {
        let (input, note) = mended(
            json!({"folder": "~/project", "hidden": true, "sort": "name"}),
            "Which hidden files are in ~/project?",
        )
        .expect("every file listed, hidden ones asked");
        assert_eq!(
            input,
            json!({"folder": "~/project", "hidden": true, "sort": "name", "pattern": ".*"})
        );
        assert!(note.contains("asks for hidden entries"), "{note}");
        // Among the others: shown, not filtered.
        let (input, _) = mended(
            json!({"folder": "~/project"}),
            "count the files in ~/project, including hidden ones",
        )
        .expect("hidden ones left out");
        assert_eq!(input, json!({"folder": "~/project", "hidden": true}));
        // Not asked, or only in a name: nothing changes.
        for words in ["list ~/project", "list the files of ~/hidden/stuff"] {
            assert_eq!(
                mended(json!({"folder": "~/project"}), words),
                None,
                "{words}"
            );
        }
        // A substring filter of the call's own applies among the dotted names: `"."`
        // alone matched every visible file with an extension.
        let (input, _) = mended(
            json!({"folder": "~/project", "hidden": true, "name_contains": "."}),
            "Which hidden files are in ~/project?",
        )
        .expect("visible files listed too");
        assert_eq!(
            input,
            json!({"folder": "~/project", "hidden": true, "name_contains": ".", "pattern": ".*"})
        );
        // A pattern of the call's own stays.
        let (input, _) = mended(
            json!({"folder": "~/project", "pattern": ".env*"}),
            "which hidden env files are in ~/project",
        )
        .expect("hidden ones left out");
        assert_eq!(input["pattern"], json!(".env*"));
    }

    #[test]
    fn the_middle_the_request_names_is_the_one_computed() {
        let (input, note) = mended_call(
            ToolName::ReadTable,
            json!({"path": "~/data/items.csv", "op": "mean", "column": "price"}),
            "What is the median price in ~/data/items.csv?",
        )
        .expect("the mean of a median question");
        assert_eq!(
            input,
            json!({"path": "~/data/items.csv", "op": "median", "column": "price"})
        );
        assert!(note.contains("asks for the median"), "{note}");
        let (input, _) = mended_call(
            ToolName::ReadTable,
            json!({"path": "s.csv", "operation": "median", "column": "score"}),
            "the average score in s.csv",
        )
        .expect("the median of an average question");
        assert_eq!(
            input,
            json!({"path": "s.csv", "op": "mean", "column": "score"})
        );
        // Both named, neither named, or another op: as called.
        for (op, words) in [
            ("mean", "the mean and the median of the scores"),
            ("mean", "summarise the scores"),
            ("sum", "the median of the totals"),
        ] {
            assert_eq!(
                mended_call(
                    ToolName::ReadTable,
                    json!({"path": "s.csv", "op": op, "column": "score"}),
                    words
                ),
                None,
                "{words}"
            );
        }
    }

    #[test]
    fn empty_folders_asked_for_are_listed_by_code() {
        let (input, note) = mended(
            json!({"folder": "~/projects", "type": "folders", "recursive": true}),
            "Which folders in ~/projects are empty?",
        )
        .expect("every folder listed");
        assert_eq!(input["type"], json!("folders"));
        assert_eq!(input["max_size"], json!(0));
        assert!(note.contains("asks for the empty folders"), "{note}");
        // Emptying a folder, empty files, or a name: not a listing of empty folders.
        for words in [
            "empty the folder ~/tmp",
            "delete the empty files in ~/logs",
            "list ~/empty-folders/",
        ] {
            assert!(!files::empty_folders_asked(words), "{words}");
        }
        assert!(files::empty_folders_asked(
            "remove empty subfolders under ~/x"
        ));
    }

    #[test]
    fn folders_are_listed_without_an_extension_filter() {
        let (input, note) = mended(
            json!({"folder": "~/projects", "type": "folders", "extensions": "folder"}),
            "Which folders in ~/projects are empty?",
        )
        .expect("folders have no extension");
        assert_eq!(input.get("extensions"), None, "{input}");
        assert_eq!(input["type"], json!("folders"));
        assert!(note.contains("without `extensions` \"folder\""), "{note}");
    }

    #[test]
    fn a_filter_the_request_does_not_name_is_sent_back() {
        let why = check(
            ToolName::ListFiles,
            json!({"folder": "~", "extensions": "txt,md", "limit": 50}),
            "List all files in /tmp/.tmpNN2AcT/home | Folder: /tmp/.tmpNN2AcT/home",
            "",
        )
        .expect("an invented filter");
        assert!(
            why.contains("`extensions`") && why.contains("txt, md"),
            "{why}"
        );
    }

    #[test]
    fn a_filter_the_request_names_passes_in_any_form() {
        let pdfs = json!({"folder": "~/Downloads", "extensions": "pdf"});
        assert_eq!(
            fit_of(ToolName::ListFiles, pdfs, "Find the PDFs in Downloads", ""),
            Fit::Asked
        );
        // The kind of thing a word names: videos are mp4 and mov files.
        let videos = json!({"folder": "~", "pattern": "*.mp4,*.MOV"});
        assert_eq!(
            check(ToolName::ListFiles, videos, "find my largest videos", ""),
            None
        );
        // A value a call of the task printed.
        let seen = json!({"path": "a.csv", "equals": "Lyon", "op": "count"});
        assert_eq!(
            fit_of(
                ToolName::ReadTable,
                seen,
                "how many rows are in the city with fewest rows",
                "distinct city: Lyon (1 row), Paris (3 rows)"
            ),
            Fit::Asked
        );
        // Non-ASCII words are found in the text as they are.
        let zh = json!({"path": "a.log", "op": "count", "text": "错误"});
        assert_eq!(
            fit_of(ToolName::ReadLines, zh, "统计日志里有多少行错误", ""),
            Fit::Asked
        );
        // "none", blanks and wildcards filter nothing.
        let none =
            json!({"folder": "~", "extensions": "none", "pattern": "*", "name_contains": ""});
        assert_eq!(
            fit_of(ToolName::ListFiles, none, "list my files", ""),
            Fit::Asked
        );
    }

    #[test]
    fn a_kind_of_thing_is_not_another_kind() {
        let why = check(
            ToolName::ListFiles,
            json!({"folder": "~", "extensions": "jpg,mp4"}),
            "find my videos",
            "",
        )
        .expect("jpg is no video");
        assert!(why.contains("names no jpg)"), "{why}");
    }

    #[test]
    fn a_calculation_with_a_number_from_nowhere_is_sent_back() {
        let words = "How much more did I spend in ~/data/march.csv than in ~/data/april.csv?";
        let seen = "march.csv: sum of amount = 125 (over 3 rows)\napril.csv: sum of amount = 75";
        let why = check(
            ToolName::Calculate,
            json!({"expression": "(125 - 75) * 0.15"}),
            words,
            seen,
        )
        .expect("0.15 is nobody's");
        assert!(why.contains("uses 0.15 that neither"), "{why}");
        // Never run, however often asked: not a narrowing the model may insist on.
        assert!(matches!(
            fit_of(
                ToolName::Calculate,
                json!({"expression": "(125 - 75) * 0.15"}),
                words,
                seen
            ),
            Fit::Refused(_)
        ));
        // Numbers the results and the request show, and a percentage's hundred, run; a
        // halving nobody asked for does not.
        assert!(
            check(
                ToolName::Calculate,
                json!({"expression": "(125 - 75) / 2"}),
                words,
                seen
            )
            .is_some_and(|why| why.contains("uses 2 that"))
        );
        for expression in ["125 - 75", "75 / 125 * 100"] {
            assert_eq!(
                check(
                    ToolName::Calculate,
                    json!({"expression": expression}),
                    words,
                    seen
                ),
                None,
                "{expression}"
            );
        }
        // Before anything was read, the refusal says to look at the data first.
        let why = check(
            ToolName::Calculate,
            json!({"expression": "2026-12-02 + 45"}),
            "What date is 45 days after the start date in ~/docs/contract.txt?",
            "",
        )
        .expect("nobody gave the date");
        assert!(
            why.contains("look at the data the sub-task names first"),
            "{why}"
        );
        // A percentage the request states gives its fraction and the factors of a rise
        // and a fall by it; other factors stay nobody's.
        let raise = "What will the rent in ~/docs/lease.txt be after a 5% increase?";
        for expression in ["1200 * 1.05", "1200 * 0.05 + 1200", "1200 * 0.95"] {
            assert_eq!(
                check(
                    ToolName::Calculate,
                    json!({"expression": expression}),
                    raise,
                    "Monthly rent: 1200"
                ),
                None,
                "{expression}"
            );
        }
        assert!(
            check(
                ToolName::Calculate,
                json!({"expression": "1200 * 1.5"}),
                raise,
                "Monthly rent: 1200"
            )
            .is_some_and(|why| why.contains("uses 1.5 that"))
        );
        // A number the request writes as a word.
        assert_eq!(
            check(
                ToolName::Calculate,
                json!({"expression": "(125 + 75) / 2"}),
                "the average of the two totals",
                seen,
            ),
            None
        );
        // Dates and amounts written as people write them.
        assert_eq!(
            check(
                ToolName::Calculate,
                json!({"expression": "90 days after 2025-11-17"}),
                "What date is 90 days after 2025-11-17?",
                "",
            ),
            None
        );
        let values: Vec<f64> = numbers_in("1,234.5 and 12,34 and v2.0.")
            .into_iter()
            .map(|(_, n)| n)
            .collect();
        assert_eq!(values, [1234.5, 12.0, 34.0, 2.0]);
    }

    #[test]
    fn a_row_value_nobody_named_is_sent_back() {
        let why = check(
            ToolName::ReadTable,
            json!({"path": "a.csv", "op": "count", "where_column": "city", "equals": "Berlin"}),
            "how many rows does sales.csv have",
            "sales.csv: 4 data rows; columns city, amount",
        );
        assert!(why.is_some_and(|w| w.contains("berlin")));
    }

    #[test]
    fn a_bound_of_age_or_size_nobody_asked_for_leaves_a_copy_or_a_move() {
        let words = "Move the .jpg files in ~/camera into a new folder ~/camera/photos";
        let (input, note) = mended_call(
            ToolName::MoveFiles,
            json!({"from": "~/camera", "names": "*.jpg", "to": "~/camera/photos",
                   "older_than": "30 days", "min_size": "1 KB"}),
            words,
        )
        .expect("mended");
        assert_eq!(
            input,
            json!({"from": "~/camera", "names": "*.jpg", "to": "~/camera/photos"})
        );
        assert!(note.contains("says nothing of age or size"), "{note}");
        // Asked by age, the bound stays (set to the words'); a deletion keeps its bounds.
        let aged = json!({"from": "~/logs", "names": "*.log", "to": "~/old",
                          "older_than": "30 days"});
        assert_eq!(
            mended_call(
                ToolName::MoveFiles,
                aged.clone(),
                "move the old logs to ~/old"
            ),
            None
        );
        let delete = json!({"from": "~/camera", "names": "*.jpg", "older_than": "30 days"});
        assert_eq!(
            mended_call(
                ToolName::DeleteFiles,
                delete,
                "delete the jpg files in ~/camera"
            ),
            None
        );
        // A deletion of files named whole loses a bound it was not asked for: it can only
        // leave out a file the request names. A word of age inside a name asks for none.
        let words = "Move the .log files to ~/archive and delete ~/inbox/old.tmp";
        let (input, note) = mended_call(
            ToolName::DeleteFiles,
            json!({"from": "~/inbox", "names": "old.tmp", "older_than": "30 days"}),
            words,
        )
        .expect("mended");
        assert_eq!(input, json!({"from": "~/inbox", "names": "old.tmp"}));
        assert!(note.contains("says nothing of age"), "{note}");
        let (input, _) = mended_call(
            ToolName::MoveFiles,
            json!({"from": "~/inbox", "names": "*.log", "to": "~/archive", "older_than": "30 days"}),
            words,
        )
        .expect("mended");
        assert_eq!(input.get("older_than"), None);
    }

    #[test]
    fn a_listing_cut_short_runs_in_the_order_the_superlative_asks() {
        let (input, note) = mended(
            json!({"folder": "~/Downloads", "extensions": "pdf", "limit": 3, "sort": "extension", "order": "desc"}),
            "Find the 3 largest PDFs in ~/Downloads",
        )
        .expect("kept by extension, asked for the largest");
        assert_eq!(
            input,
            json!({"folder": "~/Downloads", "extensions": "pdf", "limit": 3, "sort": "largest"})
        );
        assert!(
            note.contains("largest") && note.contains("instead of by extension"),
            "{note}"
        );
        // Modified time, newest first, keeps the newest: not the oldest.
        let (input, _) = mended(
            json!({"folder": "~", "limit": 1, "sort": "modified", "order": "desc"}),
            "Which photo is the oldest?",
        )
        .expect("kept the newest, asked for the oldest");
        assert_eq!(input["sort"], json!("oldest"));
        // Two words: "most recent" is the newest.
        let (input, note) = mended(
            json!({"folder": "~", "limit": 1, "sort": "name"}),
            "my most recent download",
        )
        .expect("most recent is modified time");
        assert_eq!(input["sort"], json!("newest"));
        assert!(note.contains("most recent"), "{note}");
    }

    #[test]
    fn the_folder_listed_names_no_filter_and_a_kind_names_all_its_types() {
        let why = check(
            ToolName::ListFiles,
            json!({"folder": "/tmp/.tmpX/home/Downloads/mixed", "name_contains": "mixed"}),
            "Find the second largest file in /tmp/.tmpX/home/Downloads/mixed",
            "~/Downloads/mixed (not recursive), files: 5 found",
        )
        .expect("the folder's own name as a name filter");
        assert!(why.contains("mixed"), "{why}");
        // Named outside the path, it is asked for.
        assert_eq!(
            check(
                ToolName::ListFiles,
                json!({"folder": "~/Downloads/mixed", "name_contains": "mixed"}),
                "files in ~/Downloads/mixed whose names contain mixed",
                "",
            ),
            None
        );
        // Every type of the kind a word names is named, the lexicon's or not.
        assert_eq!(
            check(
                ToolName::ListFiles,
                json!({"folder": "~/Pictures", "extensions": "jpg,cr2,heic,dng"}),
                "the second oldest photo in ~/Pictures/trip",
                "",
            ),
            None
        );
    }

    #[test]
    fn the_nth_of_an_order_is_listed_as_the_last_of_n_rows() {
        let (input, note) = mended(
            json!({"folder": "~/Downloads", "limit": 1, "sort": "largest"}),
            "What is the second largest file in ~/Downloads/mixed",
        )
        .expect("one row, asked for the second");
        assert_eq!(input["limit"], json!(2));
        assert!(
            note.contains("second largest") && note.contains("last row"),
            "{note}"
        );
        // Digits, two words, and the order mended with it.
        let (input, _) = mended(
            json!({"folder": "~", "limit": 10, "sort": "newest"}),
            "the 3rd most recent photo",
        )
        .expect("ten rows, asked for the third");
        assert_eq!(input["limit"], json!(3));
        let (input, _) = mended(json!({"folder": "~", "sort": "newest"}), "the third oldest")
            .expect("newest first, asked for the third oldest");
        assert_eq!(
            (&input["sort"], &input["limit"]),
            (&json!("oldest"), &json!(3))
        );
        // Already n rows; an ordinal of nothing ordered; two orders: nothing to set.
        let asked = |input: Value, words: &str| fit_of(ToolName::ListFiles, input, words, "");
        let two_rows = json!({"folder": "~", "limit": 2, "sort": "largest"});
        let Fit::Mended { input, note } = asked(two_rows.clone(), "the second largest file") else {
            panic!("which row answers is said")
        };
        assert_eq!(input, two_rows, "already two rows");
        assert!(note.contains("last row"), "{note}");
        assert_eq!(
            asked(two_rows.clone(), "the second file in the folder"),
            Fit::Asked
        );
        assert_eq!(
            asked(
                json!({"folder": "~", "limit": 5, "sort": "largest"}),
                "the second largest and the newest"
            ),
            Fit::Asked
        );
        assert_eq!(ordinal_number("1st"), None);
        assert_eq!(ordinal_number("12th"), Some(12));
    }

    #[test]
    fn an_order_stands_when_it_is_the_one_asked_or_none_is_asked() {
        let asked = |input: Value, words: &str| fit_of(ToolName::ListFiles, input, words, "");
        let right = json!({"folder": "~", "limit": 3, "sort": "largest"});
        assert_eq!(asked(right, "the 3 largest files"), Fit::Asked);
        let spelled = json!({"folder": "~", "limit": 3, "sort": "size", "order": "desc"});
        assert_eq!(asked(spelled, "the 3 biggest files"), Fit::Asked);
        // Plain adjectives ask for no order.
        let five = json!({"folder": "~", "limit": 5, "sort": "name"});
        assert_eq!(
            asked(five.clone(), "show 5 big files in a new folder"),
            Fit::Asked
        );
        // A whole listing is ordered too: the same rows, the ones asked for first.
        let whole = json!({"folder": "~"});
        let Fit::Mended { input, .. } = asked(whole, "the largest files") else {
            panic!("a listing by name for the largest")
        };
        assert_eq!(input["sort"], json!("largest"));
        // Two orders asked: no one order holds.
        assert_eq!(asked(five, "the newest of the largest files"), Fit::Asked);
        // Other tools have no order to mend.
        assert_eq!(
            fit_of(
                ToolName::ReadLines,
                json!({"path": "a", "op": "first", "take": 1}),
                "the largest line",
                ""
            ),
            Fit::Asked
        );
    }

    #[test]
    fn the_extension_of_a_file_the_request_names_is_no_filter_it_asks_for() {
        let asked = |words: &str| {
            fit_of(
                ToolName::ListFiles,
                json!({"folder": "/h/music", "extensions": "mp3"}),
                words,
                "",
            )
        };
        assert!(matches!(
            asked("How many files in ~/music are larger than ~/music/intro.mp3?"),
            Fit::Unasked(_)
        ));
        assert!(matches!(
            asked("How many files are larger than intro.mp3?"),
            Fit::Unasked(_)
        ));
        // Named as a kind of file, it is asked for.
        assert_eq!(asked("How many mp3 files are in ~/music?"), Fit::Asked);
        assert_eq!(asked("How many .mp3 files are in ~/music?"), Fit::Asked);
    }

    #[test]
    fn a_kind_asked_for_is_listed_with_every_type_of_it() {
        let (input, note) = mended(
            json!({"folder": "~/Movies", "extensions": "mp4,avi,wmv"}),
            "Count the video files in ~/Movies",
        )
        .expect("three video types of many");
        let exts = input["extensions"].as_str().expect("extensions");
        for ext in ["mp4", "mov", "mkv", "webm", "avi"] {
            assert!(exts.split(',').any(|e| e == ext), "{exts}");
        }
        assert!(note.contains("every type of it"), "{note}");
        // Every type already there, a type asked for by name, or a type of another kind:
        // nothing to widen.
        let asked = |input: Value, words: &str| fit_of(ToolName::ListFiles, input, words, "");
        assert_eq!(
            asked(json!({"folder": "~", "extensions": "video"}), "my videos"),
            Fit::Asked
        );
        assert_eq!(
            asked(json!({"folder": "~", "extensions": "mp4"}), "my mp4 videos"),
            Fit::Asked
        );
        assert_eq!(
            asked(
                json!({"folder": "~", "extensions": "txt"}),
                "notes and videos"
            ),
            Fit::Unasked(
                "`extensions` \"txt\" keeps only what the sub-task does not ask for (it names \
                 no txt): call again with `extensions` null, or with only what the sub-task \
                 names"
                    .into()
            )
        );
    }

    #[test]
    fn a_filter_the_request_names_is_kept_when_a_later_call_leaves_it_out() {
        let earlier =
            [json!({"folder": "/h/logs", "extensions": "log", "limit": 2, "sort": "smallest"})];
        let later =
            json!({"folder": "/h/logs", "limit": 2, "sort": "size", "order": "asc", "pattern": ""});
        let asked = Asked {
            words: "List the 2 smallest log files in /h/logs",
            stated: "List the 2 smallest log files in /h/logs",
            seen: "",
            earlier: &earlier,
            row_value: None,
            columns: &[],
            unmade: &[],
            by_text: None,
        };
        let Fit::Mended { input, note } = fit(&ToolName::ListFiles.into(), &later, asked) else {
            panic!("the log filter lapsed")
        };
        assert_eq!(input["extensions"], json!("log"));
        assert!(note.contains("`extensions` \"log\""), "{note}");
        // A filter the request does not name is not carried over, nor one the call sets.
        let unnamed = [json!({"folder": "/h", "name_contains": "draft"})];
        let asked = Asked {
            words: "list the files in /h",
            stated: "list the files in /h",
            seen: "draft-1.txt",
            earlier: &unnamed,
            row_value: None,
            columns: &[],
            unmade: &[],
            by_text: None,
        };
        assert_eq!(
            fit(&ToolName::ListFiles.into(), &json!({"folder": "/h"}), asked),
            Fit::Asked
        );
        let lines = [json!({"path": "a.log", "op": "count", "text": "timeout"})];
        let asked = Asked {
            words: "how many lines mention a timeout",
            stated: "how many lines mention a timeout",
            seen: "",
            earlier: &lines,
            row_value: None,
            columns: &[],
            unmade: &[],
            by_text: None,
        };
        let set = json!({"path": "a.log", "op": "count", "text": "time"});
        assert_eq!(fit(&ToolName::ReadLines.into(), &set, asked), Fit::Asked);
        let Fit::Mended { input, .. } = fit(
            &ToolName::ReadLines.into(),
            &json!({"path": "a.log", "op": "all", "text": "null"}),
            asked,
        ) else {
            panic!("the line filter lapsed")
        };
        assert_eq!(input["text"], json!("timeout"));
    }

    #[test]
    fn a_size_bound_the_request_states_is_set() {
        let (input, note) = mended(
            json!({"folder": "~/Pictures/holiday", "limit": 10}),
            "Count the files in ~/Pictures/holiday that are bigger than 200 KB",
        )
        .expect("no bound, one asked");
        assert_eq!(input["min_size"], json!(200_000));
        assert!(
            note.contains("at least") && note.contains("min_size"),
            "{note}"
        );
        // A bound in bytes where kilobytes were asked for is replaced.
        let (input, _) = mended(
            json!({"folder": "~", "bigger_than": "200"}),
            "files over 5MB",
        )
        .expect("the wrong bound");
        assert_eq!(input, json!({"folder": "~", "min_size": 5_000_000}));
        let (input, _) = mended(json!({"folder": "~"}), "logs under 2 MB or at most 1 GB")
            .expect("an upper bound");
        assert_eq!(input["max_size"], json!(2_000_000));
        // The bound already set, a number with no unit, or a size with no comparison:
        // nothing to set.
        let asked = |input: Value, words: &str| fit_of(ToolName::ListFiles, input, words, "");
        assert_eq!(
            asked(
                json!({"folder": "~", "min_size": "200KB"}),
                "bigger than 200 KB"
            ),
            Fit::Asked
        );
        // "over 3 days old" bounds the age, not the size.
        let (input, _) =
            mended(json!({"folder": "~"}), "the 3 files over 3 days old").expect("an age bound");
        assert_eq!(input, json!({"folder": "~", "older_than": "3 days"}));
        assert_eq!(asked(json!({"folder": "~"}), "a 5 MB file"), Fit::Asked);
    }

    #[test]
    fn a_size_bound_holds_for_the_files_a_call_copies_moves_or_deletes() {
        let (input, note) = mended_call(
            ToolName::DeleteFiles,
            json!({"from": "~/logs/old", "names": "boot.log, cron.log, sync.log"}),
            "Delete the empty log files in ~/logs/old",
        )
        .expect("no bound, emptiness asked");
        assert_eq!(input["max_size"], json!(0));
        assert!(note.contains("max_size"), "{note}");
        let (input, _) = mended_call(
            ToolName::MoveFiles,
            json!({"from": "~/Downloads/mixed", "to": "~/Downloads/big", "min_size": "1KB"}),
            "Move the files larger than 1 MB into ~/Downloads/big",
        )
        .expect("the wrong bound");
        assert_eq!(input["min_size"], json!(1_000_000));
        assert_eq!(
            fit_of(
                ToolName::CopyFiles,
                json!({"from": "~/a", "to": "~/b", "min_size": 1_000_000}),
                "copy the files over 1 MB to ~/b",
                ""
            ),
            Fit::Asked
        );
    }

    #[test]
    fn an_empty_file_asked_for_is_written_empty() {
        let (input, note) = mended_call(
            ToolName::WriteFile,
            json!({"path": "~/Projects/garden/plan.md", "content": "# Garden Plan\n- Watering"}),
            "Create a folder ~/Projects/garden with an empty file called plan.md inside it.",
        )
        .expect("text where none was asked");
        assert_eq!(input["content"], json!(""));
        assert!(note.contains("empty file"), "{note}");
        for (content, words) in [
            ("# Plan\n", "Write a plan into ~/plan.md"),
            ("", "Create an empty file ~/a.txt"),
            (
                "a\nb\n",
                "Write the names of the empty files into ~/empty.txt",
            ),
        ] {
            assert_eq!(
                fit_of(
                    ToolName::WriteFile,
                    json!({"path": "~/a.txt", "content": content}),
                    words,
                    ""
                ),
                Fit::Asked,
                "{words}"
            );
        }
    }

    #[test]
    fn a_window_of_time_holds_for_the_files_a_call_copies_moves_or_deletes() {
        let (input, note) = mended_call(
            ToolName::DeleteFiles,
            json!({"from": "~/tmp/cache"}),
            "Delete the files in ~/tmp/cache that are older than 30 days.",
        )
        .expect("no window, an age asked");
        assert_eq!(input["older_than"], json!("30 days"));
        assert!(note.contains("older_than"), "{note}");
        let (input, _) = mended_call(
            ToolName::CopyFiles,
            json!({"from": "~/Documents", "to": "~/recent", "modified_within": "1 day"}),
            "Copy the files changed in the last 7 days into ~/recent",
        )
        .expect("the wrong window");
        assert_eq!(input["modified_within"], json!("1 week"));
        assert_eq!(
            fit_of(
                ToolName::MoveFiles,
                json!({"from": "~/a", "to": "~/b", "older_than": "1 year"}),
                "move the files older than a year to ~/b",
                ""
            ),
            Fit::Asked
        );
    }

    #[test]
    fn a_window_of_time_the_request_states_is_set() {
        let (input, note) = mended(
            json!({"folder": "~/Documents/letters", "sort": "modified"}),
            "How many files in ~/Documents/letters were changed in the last 7 days?",
        )
        .expect("no window, one asked");
        assert_eq!(input["modified_within"], json!("1 week"));
        assert!(note.contains("modified_within"), "{note}");
        // Another window is replaced; the one asked for is left as it is.
        let (input, _) = mended(
            json!({"folder": "~", "newer_than": "30 days"}),
            "logs older than 90 days",
        )
        .expect("the wrong side");
        assert_eq!(input["older_than"], json!("90 days"));
        assert_eq!(input["newer_than"], json!("30 days"));
        assert_eq!(
            fit_of(
                ToolName::ListFiles,
                json!({"folder": "~", "modified_within": "7 days"}),
                "files changed this week",
                ""
            ),
            Fit::Asked
        );
        // A count of days that is no window sets nothing.
        assert_eq!(
            fit_of(
                ToolName::ListFiles,
                json!({"folder": "~"}),
                "What date is it 90 days after 2025-11-17?",
                ""
            ),
            Fit::Asked
        );
    }

    #[test]
    fn the_name_of_a_file_to_make_is_no_filter_and_names_the_copy() {
        let with = |tool: ToolName, input: Value, words: &str, unmade: &[String]| {
            fit_making(tool, input, words, "", unmade)
        };
        let words = "Write the names of the files in /h/inbox bigger than 15 bytes into a new file /h/inbox/big.txt";
        assert_eq!(
            file_names_stated(words),
            vec!["/h/inbox/big.txt".to_string()]
        );
        let unmade = file_names_stated(words);
        let listing = json!({"folder": "/h/inbox", "extensions": "txt"});
        let Fit::Unasked(why) = with(ToolName::ListFiles, listing.clone(), words, &unmade) else {
            panic!("the output's extension kept as a filter")
        };
        assert!(why.contains("names no txt"), "{why}");
        // The sub-task's words and the user's, each naming the output by its own path.
        let both = "List files in /tmp/x/home/inbox that are bigger than 15 bytes and write \
                    their names to /tmp/x/home/inbox/big.txt\nWrite the names of the files in \
                    ~/inbox that are bigger than 15 bytes into a new file ~/inbox/big.txt, one \
                    per line";
        let dotted = json!({"folder": "/tmp/x/home/inbox", "extensions": ".txt", "sort": "size"});
        assert!(matches!(
            with(ToolName::ListFiles, dotted, both, &file_names_stated(both)),
            Fit::Unasked(_)
        ));
        // Where the file named is there already, its extension is still no kind of
        // file the request asks for.
        assert!(matches!(
            with(ToolName::ListFiles, listing, words, &[]),
            Fit::Unasked(_)
        ));

        let words = "Put a copy of ~/notes/ideas.md into ~/backup, named ideas-old.md.";
        let names = file_names_stated(words);
        assert_eq!(names, vec!["~/notes/ideas.md", "ideas-old.md"]);
        let unmade = vec!["ideas-old.md".to_string()];
        for to in ["~/backup", "~/backup/", "~/backup/ideas.md"] {
            let copy = json!({"from": "~/notes", "names": "ideas.md", "to": to});
            let Fit::Mended { input, note } = with(ToolName::CopyFiles, copy, words, &unmade)
            else {
                panic!("copied under its old name into {to}")
            };
            assert_eq!(input["to"], json!("~/backup/ideas-old.md"), "{to}");
            assert_eq!(input["from"], json!("~/notes/ideas.md"), "{to}");
            assert_eq!(input.get("names"), None, "{to}");
            assert!(note.contains("under that name"), "{note}");
        }
        // A call from the file itself keeps its `from`.
        let itself = json!({"from": "~/notes/ideas.md", "names": "ideas.md", "to": "~/backup"});
        let Fit::Mended { input, .. } = with(ToolName::CopyFiles, itself, words, &unmade) else {
            panic!("copied under its old name")
        };
        assert_eq!(input["from"], json!("~/notes/ideas.md"));
        // Named right, several files, or a name of another type: left as it is.
        let right = json!({"from": "~/notes/ideas.md", "to": "~/backup/ideas-old.md"});
        assert_eq!(with(ToolName::CopyFiles, right, words, &unmade), Fit::Asked);
        let many = json!({"from": "~/notes", "names": "ideas.md, plan.md", "to": "~/backup"});
        assert_eq!(with(ToolName::CopyFiles, many, words, &unmade), Fit::Asked);
        let other = json!({"from": "~/notes", "names": "ideas.txt", "to": "~/backup"});
        assert_eq!(with(ToolName::CopyFiles, other, words, &unmade), Fit::Asked);
    }

    #[test]
    fn a_number_a_write_holds_comes_from_the_request_or_a_result() {
        let write = |content: &str| json!({"path": "/h/max.txt", "content": content});
        let words = "Write the largest number in /h/readings.txt into a new file /h/max.txt";
        let why = check(
            ToolName::WriteFile,
            write("The largest number is 51"),
            words,
            "12\n7\n31\n5\n19",
        )
        .expect("51 is in no result");
        assert!(why.contains("holds 51,"), "{why}");
        // A number a result shows, however it is written, is the file's to hold.
        for (content, seen) in [
            ("31", "12\n7\n31\n5\n19"),
            ("55.50", "sum of amount: 55.5"),
            ("Total: 1,234", "1234"),
        ] {
            assert_eq!(
                check(ToolName::WriteFile, write(content), words, seen),
                None
            );
        }
        // A sum worked out in the model's head is not shown anywhere.
        assert!(
            check(
                ToolName::WriteFile,
                write("55.50"),
                "Add up the amounts in /h/e.txt and write the total to /h/t.txt",
                "12.50 8.25 30.00 4.75",
            )
            .is_some()
        );
        // What the request gives; a list's own numbering; digits that are part of a
        // name or a path.
        for content in [
            "PORT=8080",
            "1. milk\n2. eggs\n3. bread",
            "built for x86_64 as utf8 in /tmp/v2024",
        ] {
            assert_eq!(
                check(
                    ToolName::WriteFile,
                    write(content),
                    "Write PORT=8080 and my shopping list into /h/notes.txt",
                    ""
                ),
                None,
                "{content}"
            );
        }
        // The rule reads a write's text only.
        assert_eq!(
            check(ToolName::ReadFile, json!({"path": "/h/51.txt"}), words, ""),
            None
        );
    }

    #[test]
    fn a_value_of_the_table_the_request_names_keeps_the_rows_that_have_it() {
        let asked = |input: &Value, named: Option<(&str, &str)>| {
            fit(
                &ToolName::ReadTable.into(),
                input,
                Asked {
                    words: "the average of the hours logged on Atlas",
                    stated: "the average of the hours logged on Atlas",
                    seen: "",
                    earlier: &[],
                    row_value: named,
                    columns: &[],
                    unmade: &[],
                    by_text: None,
                },
            )
        };
        let mean = json!({"path": "t.csv", "op": "mean", "column": "hours"});
        let Fit::Mended { input, note } = asked(&mean, Some(("project", "Atlas"))) else {
            panic!("a mean over every row, one project named")
        };
        assert_eq!(input["where_column"], json!("project"));
        assert_eq!(input["equals"], json!("Atlas"));
        assert!(note.contains("rows where project is \"Atlas\""), "{note}");
        // Nothing named, a call that filters already, or an op over values: as it is.
        assert_eq!(asked(&mean, None), Fit::Asked);
        let filtered = json!({"path": "t.csv", "op": "mean", "column": "hours",
                              "where_column": "project", "equals": "atlas"});
        assert_eq!(asked(&filtered, Some(("project", "Atlas"))), Fit::Asked);
        // The named value's column given with no value to keep is no filter: it gets
        // the value; a filter on another column, or a bound, is the caller's own.
        let half = json!({"path": "t.csv", "op": "sum", "column": "hours",
                          "where_column": "project"});
        let Fit::Mended { input, .. } = asked(&half, Some(("project", "Atlas"))) else {
            panic!("a filter given half")
        };
        assert_eq!(input["equals"], json!("Atlas"));
        let other = json!({"path": "t.csv", "op": "sum", "column": "hours",
                           "where_column": "date"});
        assert_eq!(asked(&other, Some(("project", "Atlas"))), Fit::Asked);
        let bounded = json!({"path": "t.csv", "op": "sum", "column": "hours",
                             "where_column": "project", "above": 2});
        assert_eq!(asked(&bounded, Some(("project", "Atlas"))), Fit::Asked);
        let distinct = json!({"path": "t.csv", "op": "distinct", "column": "project"});
        assert_eq!(asked(&distinct, Some(("project", "Atlas"))), Fit::Asked);
        // The distinct values of another column: those of the rows that have the value.
        let hours = json!({"path": "t.csv", "op": "distinct", "column": "hours"});
        let Fit::Mended { input, .. } = asked(&hours, Some(("project", "Atlas"))) else {
            panic!("the distinct hours of every project, one project named")
        };
        assert_eq!(input["equals"], json!("Atlas"));
        // A month of the date column: its distinct dates within the month.
        let dates = json!({"path": "t.csv", "op": "distinct", "column": "date"});
        let Fit::Mended { input, .. } = asked(&dates, Some(("date", "march 2026"))) else {
            panic!("the distinct dates of every month, one month named")
        };
        assert_eq!(input["equals"], json!("march 2026"));
    }

    #[test]
    fn a_sum_or_count_over_a_column_the_request_groups_by_runs_per_group() {
        let seen = "/h/finance/expenses.csv: CSV (delimiter ',', header row), 8 data rows, \
                    4 columns: month, category, amount, note";
        let fit = |input: Value, words: &str| fit_of(ToolName::ReadTable, input, words, seen);
        let Fit::Mended { input, note } = fit(
            json!({"path": "/h/finance/expenses.csv", "op": "sum", "column": "amount"}),
            "Which month has the highest total amount in ~/finance/expenses.csv?",
        ) else {
            panic!("a sum over every row, asked per month")
        };
        assert_eq!(input["op"], json!("group_sum"));
        assert_eq!(input["by"], json!("month"));
        assert_eq!(input["column"], json!("amount"));
        assert!(note.contains("each month"), "{note}");
        let Fit::Mended { input, .. } = fit(
            json!({"path": "x.csv", "operation": "count"}),
            "how many rows per category",
        ) else {
            panic!("a count, asked per category")
        };
        assert_eq!(input["op"], json!("group_count"));
        assert_eq!(input["by"], json!("category"));
        assert!(input.get("operation").is_none(), "{input}");
        // No grouping asked, a word that is no column of the table, an op that is not
        // a total, or no table shown yet: nothing to set.
        for (input, words, shown) in [
            (
                json!({"path": "x.csv", "op": "sum", "column": "amount"}),
                "the total amount",
                seen,
            ),
            (
                json!({"path": "x.csv", "op": "sum", "column": "amount"}),
                "which city spent most",
                seen,
            ),
            (
                json!({"path": "x.csv", "op": "max_row", "column": "amount"}),
                "which month",
                seen,
            ),
            (
                json!({"path": "x.csv", "op": "sum", "column": "amount"}),
                "which month",
                "",
            ),
        ] {
            assert_eq!(
                fit_of(ToolName::ReadTable, input, words, shown),
                Fit::Asked,
                "{words}"
            );
        }
    }

    #[test]
    fn depth_the_request_states_is_set() {
        for words in [
            "Is there a file called tax-2025.pdf anywhere under ~/Documents?",
            "the largest file in ~/Projects, subfolders included",
            "count the PDFs in ~/Documents recursively",
        ] {
            let (input, note) = mended(json!({"folder": "~/Documents"}), words).expect(words);
            assert_eq!(input["recursive"], json!(true), "{words}");
            assert!(note.contains("subfolders"), "{note}");
        }
        // Counts per folder are counts of the files inside them.
        let (input, _) = mended(
            json!({"folder": "~/projects", "group_by": "folder"}),
            "Which folder in ~/projects has the most files?",
        )
        .expect("per folder");
        assert_eq!(input["recursive"], json!(true));
        let asked = |input: Value, words: &str| fit_of(ToolName::ListFiles, input, words, "");
        assert_eq!(
            asked(json!({"folder": "~"}), "list the files in my home folder"),
            Fit::Asked
        );
        assert_eq!(
            asked(
                json!({"folder": "~", "recursive": true}),
                "anywhere under ~"
            ),
            Fit::Asked
        );
    }

    #[test]
    fn emptiness_the_request_states_is_a_size() {
        let (input, note) = mended(
            json!({"folder": "~/logs/old", "extensions": ["log"]}),
            "Delete the empty log files in ~/logs/old\nFolder: /h/logs/old",
        )
        .expect("empty is 0 bytes");
        assert_eq!(input["max_size"], json!(0));
        assert!(note.contains("max_size"), "{note}");
        for words in [
            "the smallest file in ~/inbox that is not empty\nFolder: /h/inbox",
            "list the non-empty files of ~/inbox",
        ] {
            let (input, _) = mended(json!({"folder": "~/inbox"}), words).expect(words);
            assert_eq!(input["min_size"], json!(1), "{words}");
            assert!(input.get("max_size").is_none(), "{words}");
        }
        // Emptiness no file size shows (lines, folders), and the verb: nothing set.
        let asked = |words: &str| fit_of(ToolName::ListFiles, json!({"folder": "~"}), words, "");
        assert_eq!(asked("how many empty lines does ~/a.txt have"), Fit::Asked);
        // Empty folders are listed as such (`empty_folders_asked_for_are_listed_by_code`).
        assert!(matches!(
            asked("remove the empty folders under ~/tmp"),
            Fit::Mended { .. }
        ));
        assert_eq!(asked("empty the trash"), Fit::Asked);
        assert_eq!(asked("empty out ~/cache"), Fit::Asked);
    }

    #[test]
    fn the_grouping_the_request_names_is_set() {
        let (input, note) = mended(
            json!({"folder": "~/Downloads/mixed", "group_by": "kind", "sort": "extension"}),
            "Count the number of files of each type in ~/Downloads/mixed",
        )
        .expect("kind for each type");
        assert_eq!(input["group_by"], json!("extension"));
        assert!(note.contains("per extension"), "{note}");
        let (input, _) = mended(
            json!({"folder": "~", "group_by": "extension"}),
            "sizes per folder",
        )
        .expect("extension for per folder");
        assert_eq!(input["group_by"], json!("folder"));
        let (input, _) = mended(json!({"folder": "~", "group_by": null}), "files per folder")
            .expect("no grouping for per folder");
        assert_eq!(input["group_by"], json!("folder"));
        // The one asked, none asked, or two asked: left as it is.
        let asked = |input: Value, words: &str| fit_of(ToolName::ListFiles, input, words, "");
        let by_ext = json!({"folder": "~", "group_by": "ext"});
        assert_eq!(
            asked(by_ext.clone(), "how many files of each type"),
            Fit::Asked
        );
        assert_eq!(asked(by_ext.clone(), "list the files"), Fit::Asked);
        assert_eq!(asked(by_ext, "per folder and per type"), Fit::Asked);
        // Files with the same content are grouped by their bytes.
        let (input, note) = mended(
            json!({"folder": "~/Downloads/dupes", "group_by": "kind"}),
            "Which two files in ~/Downloads/dupes have the same content?",
        )
        .expect("content for the same content");
        assert_eq!(input["group_by"], json!("content"));
        assert!(note.contains("content"), "{note}");
    }
}
