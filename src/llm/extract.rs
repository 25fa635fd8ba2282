//! Pulling one JSON object out of what a model actually says.
//!
//! Real replies arrive polluted: `<think>` blocks
//! (also unclosed, or closed without an opening tag when the chat template opened them),
//! Markdown fences, prose before and after, two objects, labels, bare quotes inside text
//! (Chinese text quoting words with ASCII quotes, say), raw newlines inside strings,
//! trailing commas, single quotes, Python literals, comments.
//!
//! The approach (docs/llm.md has the reasoning):
//! 1. [`split_reasoning`] separates reasoning from the answer; only the answer is searched.
//! 2. Every `{` of the answer, in order, is a candidate start. A tolerant scanner reads
//!    one object from there, repairing only what is unambiguous, and stops where the
//!    object closes — so prose after it, or a second object, never matters.
//! 3. The first candidate the caller accepts (it deserialises into the role's type and
//!    passes its checks) wins. Objects nested inside a rejected, broken or cut-off
//!    object are parts of it, not candidates. An object that is cut off is never
//!    "completed" (that would invent content): it is [`ExtractError::Truncated`].
//!
//! **Invariant:** extraction never panics and does bounded work: input is capped at
//! [`MAX_REPLY_BYTES`], nesting at [`MAX_DEPTH`] (iteratively, no recursion), candidates
//! at [`MAX_CANDIDATES`], and every look-ahead at [`LOOKAHEAD_BYTES`].

use serde_json::Value;

mod scanner;
use scanner::Scanner;

/// Replies longer than this are refused rather than scanned.
pub const MAX_REPLY_BYTES: usize = 512 * 1024;
/// Deepest nesting accepted (role contracts nest four or five levels).
pub const MAX_DEPTH: usize = 64;
/// At most this many `{` positions are tried as object starts.
pub const MAX_CANDIDATES: usize = 64;
/// How far the bare-quote heuristic looks ahead for a member name.
pub const LOOKAHEAD_BYTES: usize = 256;

/// Why no usable object came out of a reply. The message is quoted back to the model in
/// the re-ask, so it says what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// The reply is empty.
    #[error("the reply is empty")]
    Empty,
    /// The reply holds reasoning and no answer.
    #[error("the reply holds only reasoning (a <think> block or reasoning_content) and no answer")]
    OnlyReasoning,
    /// The reply holds no JSON object.
    #[error("the reply contains no JSON object")]
    NoObject,
    /// The object is cut off before it closes.
    #[error("the JSON object is cut off before it closes (near `{near}`)")]
    Truncated {
        /// The text around where it stops.
        near: String,
    },
    /// The JSON is malformed.
    #[error("the JSON is malformed near `{near}`: {reason}")]
    Malformed {
        /// The text around the fault.
        near: String,
        /// What the parser found wrong.
        reason: String,
    },
    /// The JSON nests deeper than the parser accepts.
    #[error("the JSON nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// The reply is larger than the parser accepts.
    #[error("the reply is {len} bytes, more than the {MAX_REPLY_BYTES} accepted")]
    TooLarge {
        /// The reply's size, in bytes.
        len: usize,
    },
    /// The model stopped at the call's token cap before the object was usable.
    #[error(
        "the reply was cut off at the {max_tokens}-token limit before it was complete; write a \
         shorter object (fewer, briefer words in every text field)"
    )]
    CutOff {
        /// The call's token cap.
        max_tokens: u32,
    },
    /// A JSON object was read but is not what was asked for.
    #[error("the JSON object does not match what was asked: {reason}")]
    Rejected {
        /// How it differs from what was asked.
        reason: String,
    },
}

/// A reply split into what the model answered and what it thought on the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitReply {
    /// What the model answered, without reasoning.
    pub answer: String,
    /// What it thought on the way; empty when it gave none.
    pub reasoning: String,
}

const REASONING_TAGS: [&str; 3] = ["think", "thinking", "reasoning"];

fn find_tag(lower: &str, from: usize, closing: bool) -> Option<(usize, usize, &'static str)> {
    REASONING_TAGS
        .iter()
        .filter_map(|tag| {
            let pattern = if closing {
                format!("</{tag}>")
            } else {
                format!("<{tag}>")
            };
            lower
                .get(from..)?
                .find(&pattern)
                .map(|at| (from + at, pattern.len(), *tag))
        })
        .min_by_key(|(at, _, _)| *at)
}

/// Separates `<think>`/`<thinking>`/`<reasoning>` blocks (case-insensitive) from the
/// answer. An unclosed block runs to the end of the reply; a closing tag with no opening
/// before it ends a block the chat template opened, so everything before it is reasoning.
pub fn split_reasoning(text: &str) -> SplitReply {
    // ASCII lowercasing keeps every byte offset, so positions found in `lower` slice
    // `text` at the same (ASCII, hence char-boundary) places.
    let lower = text.to_ascii_lowercase();
    let mut split = SplitReply::default();
    let mut pos = 0;
    if let Some((close_at, close_len, _)) = find_tag(&lower, 0, true)
        && find_tag(&lower[..close_at], 0, false).is_none()
    {
        split.reasoning.push_str(&text[..close_at]);
        pos = close_at + close_len;
    }
    while let Some((open_at, open_len, tag)) = find_tag(&lower, pos, false) {
        split.answer.push_str(&text[pos..open_at]);
        let inner = open_at + open_len;
        let closing = format!("</{tag}>");
        match lower[inner..].find(&closing) {
            Some(rel) => {
                push_reasoning(&mut split.reasoning, &text[inner..inner + rel]);
                pos = inner + rel + closing.len();
            }
            None => {
                push_reasoning(&mut split.reasoning, &text[inner..]);
                pos = text.len();
            }
        }
    }
    split.answer.push_str(&text[pos..]);
    split
}

fn push_reasoning(into: &mut String, block: &str) {
    if !into.is_empty() {
        into.push('\n');
    }
    into.push_str(block);
}

/// The answer of a free-text reply: reasoning removed, whitespace trimmed.
pub fn answer_text(reply: &str) -> String {
    split_reasoning(reply).answer.trim().to_string()
}

/// The first JSON object in `reply`, whatever its shape.
pub fn first_object(reply: &str) -> Result<Value, ExtractError> {
    extract(reply, Ok)
}

/// [`extract`] for a reply whose endpoint may send reasoning in a separate
/// `reasoning_content` field: an empty answer beside reasoning is
/// [`ExtractError::OnlyReasoning`]. JSON inside the reasoning is never taken: it may be a
/// draft the model went on to reject.
pub fn extract_reply<T>(
    content: &str,
    reasoning_content: Option<&str>,
    accept: impl FnMut(Value) -> Result<T, String>,
) -> Result<T, ExtractError> {
    match extract(content, accept) {
        Err(ExtractError::Empty) if reasoning_content.is_some_and(|r| !r.trim().is_empty()) => {
            Err(ExtractError::OnlyReasoning)
        }
        other => other,
    }
}

/// The first JSON object in `reply` that `accept` takes (typically: deserialises into
/// the role's type and passes its checks). When none does, the error of the most
/// promising candidate: one that parsed but was rejected, else the one that got
/// furthest.
pub fn extract<T>(
    reply: &str,
    mut accept: impl FnMut(Value) -> Result<T, String>,
) -> Result<T, ExtractError> {
    if reply.len() > MAX_REPLY_BYTES {
        return Err(ExtractError::TooLarge { len: reply.len() });
    }
    let split = split_reasoning(reply);
    let answer = split.answer.trim();
    if answer.is_empty() {
        return Err(if split.reasoning.trim().is_empty() {
            ExtractError::Empty
        } else {
            ExtractError::OnlyReasoning
        });
    }
    let bytes = answer.as_bytes();
    let mut rejected: Option<ExtractError> = None;
    let mut furthest: Option<(usize, ExtractError)> = None;
    let mut skip_until = 0;
    let starts = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'{')
        .map(|(at, _)| at);
    let mut n_candidates = 0;
    for start in starts {
        if start < skip_until {
            continue;
        }
        if n_candidates == MAX_CANDIDATES {
            break;
        }
        n_candidates += 1;
        let failure = match Scanner::new(bytes, start).object() {
            Ok((value, end)) => match accept(value) {
                Ok(accepted) => return Ok(accepted),
                Err(reason) => {
                    // Objects nested in a rejected object are parts of it, not answers.
                    skip_until = end;
                    rejected.get_or_insert(ExtractError::Rejected { reason });
                    continue;
                }
            },
            Err(failure) => failure,
        };
        // Every `{` the scanner already walked past belongs to the broken object, and
        // after a cut-off or too-deep one every later `{` may: fragments, not answers.
        let unbounded = matches!(failure, Failure::Truncated | Failure::TooDeep);
        if let Failure::Malformed { at, .. } = &failure {
            skip_until = skip_until.max(*at);
        }
        let (reach, error) = failure.into_error(answer);
        if furthest.as_ref().is_none_or(|(best, _)| reach > *best) {
            furthest = Some((reach, error));
        }
        if unbounded {
            break;
        }
    }
    Err(rejected
        .or(furthest.map(|(_, e)| e))
        .unwrap_or(ExtractError::NoObject))
}

/// Why one candidate failed, and where.
enum Failure {
    Truncated,
    Malformed { at: usize, reason: String },
    TooDeep,
}

impl Failure {
    /// The error and how far into the answer the candidate got.
    fn into_error(self, answer: &str) -> (usize, ExtractError) {
        match self {
            Failure::Truncated => (
                answer.len(),
                ExtractError::Truncated {
                    near: snippet(answer, answer.len()),
                },
            ),
            Failure::Malformed { at, reason } => (
                at,
                ExtractError::Malformed {
                    near: snippet(answer, at),
                    reason,
                },
            ),
            Failure::TooDeep => (answer.len(), ExtractError::TooDeep),
        }
    }
}

/// Up to 24 characters before and 16 after byte `at`, on char boundaries.
fn snippet(text: &str, at: usize) -> String {
    let at = floor_boundary(text, at.min(text.len()));
    let start = text[..at]
        .char_indices()
        .rev()
        .nth(23)
        .map_or(0, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .nth(16)
        .map_or(text.len(), |(i, _)| at + i);
    text[start..end].replace(['\n', '\r'], " ")
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests;
