//! Whether a sub-task's prose refers to a tool as something to use.
//!
//! Identifier-like names (`mdfind`, `read_file`, `read_lines`, `write_file`, `applescript`,
//! `osascript`) count wherever they appear as a word; names that are also English words
//! (`shell`, `search`, `glob`, `shortcuts`) count only where the text refers to the tool —
//! in backticks, followed by `tool`, `command` or `:`, or within two words after
//! use/using/with/via/call/run/in/through/web — and none counts within four words after a
//! negation ("do not use the shell").
//!
//! **Invariant:** a pure function of the text and the name; a negated mention is never a
//! use.

use crate::tools::{ToolName, ToolRef};

/// Tools whose names are not English words: any whole-word mention is a use of the tool.
const IDENTIFIER_NAMES: &[ToolName] = &[
    ToolName::Mdfind,
    ToolName::ReadFile,
    ToolName::ReadLines,
    ToolName::WriteFile,
    ToolName::EditFile,
    ToolName::SetValue,
    ToolName::ConvertFile,
    ToolName::Applescript,
];

/// Words after which (within two words) an English-word tool name refers to the tool.
const TOOL_CUES_BEFORE: &[&str] = &[
    "use", "uses", "using", "with", "via", "call", "calling", "run", "running", "in", "through",
    "web",
];

/// Words right after a name that make it a tool reference.
const TOOL_CUES_AFTER: &[&str] = &["tool", "tools", "command", "commands"];

/// Words that, within four words before a tool name, make the mention a refusal ("do
/// not use the shell") rather than a use.
const NEGATIONS: &[&str] = &[
    "not", "never", "no", "without", "avoid", "avoiding", "instead", "except", "don", "t",
];

/// Whether `text` refers to `tool` as something to use (see the module docs).
pub fn mentions_tool(text: &str, tool: &ToolRef) -> bool {
    let name = tool.as_str().trim().to_lowercase();
    if name.is_empty() {
        return false;
    }
    let lower = text.to_lowercase();
    let aliases: Vec<&str> = if *tool == ToolName::Applescript {
        vec!["applescript", "osascript"]
    } else {
        vec![name.as_str()]
    };
    let identifier = tool
        .builtin()
        .is_some_and(|t| IDENTIFIER_NAMES.contains(&t))
        || name.contains('_');
    let tokens = tokens(&lower);
    for (i, token) in tokens.iter().enumerate() {
        if !aliases.contains(&token.word) {
            continue;
        }
        if tokens[i.saturating_sub(4)..i]
            .iter()
            .any(|t| NEGATIONS.contains(&t.word))
        {
            continue;
        }
        if identifier || token.backticked || token.colon_after {
            return true;
        }
        if tokens
            .get(i + 1)
            .is_some_and(|next| TOOL_CUES_AFTER.contains(&next.word))
        {
            return true;
        }
        let before = &tokens[i.saturating_sub(2)..i];
        if before.iter().any(|t| TOOL_CUES_BEFORE.contains(&t.word)) {
            return true;
        }
    }
    false
}

struct Token<'a> {
    word: &'a str,
    backticked: bool,
    colon_after: bool,
}

/// Words of `text` (letters, digits and `_`), with what surrounds each.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut start = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        match (is_word(c), start) {
            (true, None) => start = Some((k, i)),
            (false, Some((sk, si))) => {
                out.push(token(text, &chars, sk, si, k, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some((sk, si)) = start {
        out.push(token(text, &chars, sk, si, chars.len(), text.len()));
    }
    out
}

fn token<'a>(
    text: &'a str,
    chars: &[(usize, char)],
    start_k: usize,
    start_i: usize,
    end_k: usize,
    end_i: usize,
) -> Token<'a> {
    let before = start_k.checked_sub(1).map(|k| chars[k].1);
    let after = chars.get(end_k).map(|&(_, c)| c);
    Token {
        word: &text[start_i..end_i],
        backticked: before == Some('`') && after == Some('`'),
        colon_after: after == Some(':'),
    }
}
