//! Pulling one JSON object out of what a model actually says.
//!
//! Real replies arrive polluted (digest §4 and §9 "Output pollution"): `<think>` blocks
//! (also unclosed, or closed without an opening tag when the chat template opened them),
//! Markdown fences, prose before and after, two objects, labels, bare quotes inside text
//! (#80: Chinese text quoting words with ASCII quotes), raw newlines inside strings,
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
    #[error("the reply is empty")]
    Empty,
    #[error("the reply holds only reasoning (a <think> block or reasoning_content) and no answer")]
    OnlyReasoning,
    #[error("the reply contains no JSON object")]
    NoObject,
    #[error("the JSON object is cut off before it closes (near `{near}`)")]
    Truncated { near: String },
    #[error("the JSON is malformed near `{near}`: {reason}")]
    Malformed { near: String, reason: String },
    #[error("the JSON nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("the reply is {len} bytes, more than the {MAX_REPLY_BYTES} accepted")]
    TooLarge { len: usize },
    /// The model stopped at the call's token cap before the object was usable.
    #[error(
        "the reply was cut off at the {max_tokens}-token limit before it was complete; write a \
         shorter object (fewer, briefer words in every text field)"
    )]
    CutOff { max_tokens: u32 },
    /// A JSON object was read but is not what was asked for.
    #[error("the JSON object does not match what was asked: {reason}")]
    Rejected { reason: String },
}

/// A reply split into what the model answered and what it thought on the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitReply {
    pub answer: String,
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// After `{` or `,` in an object: a member name or `}`.
    Key,
    Colon,
    /// After `:`.
    Value,
    /// After `[` or `,` in an array: a value or `]`.
    Item,
    /// After a member or an item.
    CommaOrEnd,
}

#[derive(Clone, Copy)]
struct Frame {
    array: bool,
    count: usize,
    expect: Expect,
}

/// Where a string sits, for deciding whether a quote closes it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StringIn {
    Key,
    ObjectValue,
    ArrayItem,
}

/// Reads one object from `start`, writing normalised JSON to `out`. Iterative: nesting
/// lives in `stack`, bounded by [`MAX_DEPTH`].
struct Scanner<'a> {
    src: &'a [u8],
    i: usize,
    out: Vec<u8>,
    stack: Vec<Frame>,
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-') || b >= 0x80
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || matches!(b, b'_' | b'$') || b >= 0x80
}

fn literal(word: &[u8]) -> Option<&'static str> {
    match word {
        b"true" | b"True" | b"TRUE" => Some("true"),
        b"false" | b"False" | b"FALSE" => Some("false"),
        b"null" | b"None" | b"NULL" => Some("null"),
        _ => None,
    }
}

impl<'a> Scanner<'a> {
    fn new(src: &'a [u8], start: usize) -> Self {
        Self {
            src,
            i: start,
            out: Vec::with_capacity(256),
            stack: Vec::new(),
        }
    }

    fn malformed<T>(&self, reason: impl Into<String>) -> Result<T, Failure> {
        Err(Failure::Malformed {
            at: self.i,
            reason: reason.into(),
        })
    }

    /// The object starting at `self.i` (a `{`) and the offset just past it.
    fn object(mut self) -> Result<(Value, usize), Failure> {
        self.open(false)?;
        loop {
            self.skip_blank();
            let Some(&b) = self.src.get(self.i) else {
                return Err(Failure::Truncated);
            };
            let frame = *self
                .stack
                .last()
                .expect("the loop runs only while a frame is open");
            let done = match frame.expect {
                Expect::Key => self.key(b)?,
                Expect::Colon => {
                    if b != b':' {
                        return self.malformed("expected `:` after the member name");
                    }
                    self.out.push(b':');
                    self.i += 1;
                    self.set_expect(Expect::Value);
                    false
                }
                Expect::Value => {
                    if b == b'}' || b == b',' {
                        return self.malformed("a member has no value");
                    }
                    self.set_expect(Expect::CommaOrEnd);
                    self.value(b, StringIn::ObjectValue)?
                }
                Expect::Item => match b {
                    b']' => self.close(true)?,
                    // `[1,,2]`, `[,1]`: a stray comma carries no value.
                    b',' => {
                        self.i += 1;
                        false
                    }
                    _ => {
                        self.separate();
                        self.set_expect(Expect::CommaOrEnd);
                        self.value(b, StringIn::ArrayItem)?
                    }
                },
                Expect::CommaOrEnd => match (frame.array, b) {
                    (_, b',') => {
                        self.i += 1;
                        self.set_expect(if frame.array {
                            Expect::Item
                        } else {
                            Expect::Key
                        });
                        false
                    }
                    (false, b'}') => self.close(false)?,
                    (true, b']') => self.close(true)?,
                    // A missing comma before the next member or item.
                    (false, b'"' | b'\'') => {
                        self.set_expect(Expect::Key);
                        false
                    }
                    (true, _) if self.value_starts_at(self.i) => {
                        self.set_expect(Expect::Item);
                        false
                    }
                    (false, _) => return self.malformed("expected `,` or `}`"),
                    (true, _) => return self.malformed("expected `,` or `]`"),
                },
            };
            if done {
                let end = self.i;
                let text = String::from_utf8(self.out).map_err(|_| Failure::Malformed {
                    at: end,
                    reason: "not valid UTF-8".into(),
                })?;
                return serde_json::from_str(&text)
                    .map(|value| (value, end))
                    .map_err(|e| Failure::Malformed {
                        at: end,
                        reason: e.to_string(),
                    });
            }
        }
    }

    fn set_expect(&mut self, expect: Expect) {
        if let Some(frame) = self.stack.last_mut() {
            frame.expect = expect;
        }
    }

    /// Writes the comma before every member or item but the first.
    fn separate(&mut self) {
        if let Some(frame) = self.stack.last_mut() {
            if frame.count > 0 {
                self.out.push(b',');
            }
            frame.count += 1;
        }
    }

    fn open(&mut self, array: bool) -> Result<(), Failure> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(Failure::TooDeep);
        }
        self.out.push(if array { b'[' } else { b'{' });
        self.i += 1;
        self.stack.push(Frame {
            array,
            count: 0,
            expect: if array { Expect::Item } else { Expect::Key },
        });
        Ok(())
    }

    /// Closes the innermost container; true when that was the outermost object.
    fn close(&mut self, array: bool) -> Result<bool, Failure> {
        match self.stack.last() {
            Some(frame) if frame.array == array => {}
            _ => return self.malformed("a closing bracket does not match its opening one"),
        }
        self.stack.pop();
        self.out.push(if array { b']' } else { b'}' });
        self.i += 1;
        Ok(self.stack.is_empty())
    }

    fn key(&mut self, b: u8) -> Result<bool, Failure> {
        match b {
            b'}' => self.close(false),
            // `{,"a":1}` or `"a":1,,"b":2`: a stray comma.
            b',' => {
                self.i += 1;
                Ok(false)
            }
            b'"' | b'\'' => {
                self.separate();
                self.string(StringIn::Key)?;
                self.set_expect(Expect::Colon);
                Ok(false)
            }
            _ if is_ident_start(b) => {
                // An unquoted member name (`{intent: "…"}`).
                self.separate();
                let start = self.i;
                while self.src.get(self.i).is_some_and(|c| is_ident_byte(*c)) {
                    self.i += 1;
                }
                self.out.push(b'"');
                self.out.extend_from_slice(&self.src[start..self.i]);
                self.out.push(b'"');
                self.set_expect(Expect::Colon);
                Ok(false)
            }
            _ => self.malformed("expected a member name or `}`"),
        }
    }

    /// One value starting with `b`; true when it closed the outermost object (never for
    /// a scalar).
    fn value(&mut self, b: u8, place: StringIn) -> Result<bool, Failure> {
        match b {
            b'{' => self.open(false).map(|()| false),
            b'[' => self.open(true).map(|()| false),
            b'"' | b'\'' => self.string(place).map(|()| false),
            b'-' | b'+' | b'.' | b'0'..=b'9' => {
                self.number();
                Ok(false)
            }
            _ if b.is_ascii_alphabetic() => {
                let start = self.i;
                while self.src.get(self.i).is_some_and(u8::is_ascii_alphanumeric) {
                    self.i += 1;
                }
                match literal(&self.src[start..self.i]) {
                    Some(word) => {
                        self.out.extend_from_slice(word.as_bytes());
                        Ok(false)
                    }
                    // `tru` at the very end: the reply stopped mid-word.
                    None if self.i >= self.src.len() => Err(Failure::Truncated),
                    None => {
                        self.i = start;
                        self.malformed("unquoted text where a value should be")
                    }
                }
            }
            _ => self.malformed("expected a value"),
        }
    }

    /// A number, written as JSON where the model wrote `+1`, `.5` or `5.`; anything
    /// else malformed is left for the final parse to reject.
    fn number(&mut self) {
        let start = self.i;
        while self
            .src
            .get(self.i)
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            self.i += 1;
        }
        let mut text = &self.src[start..self.i];
        if let Some(rest) = text.strip_prefix(b"+") {
            text = rest;
        }
        let (negative, digits) = match text.strip_prefix(b"-") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if negative {
            self.out.push(b'-');
        }
        if digits.starts_with(b".") {
            self.out.push(b'0');
        }
        self.out.extend_from_slice(digits);
        if digits.ends_with(b".") {
            self.out.push(b'0');
        }
    }

    /// A string opened by `"` or `'` at `self.i`. Raw control characters are escaped,
    /// invalid escapes keep their backslash as text, and a quote that does not end the
    /// string (judged by what follows it) is kept as text.
    fn string(&mut self, place: StringIn) -> Result<(), Failure> {
        let quote = self.src[self.i];
        self.i += 1;
        self.out.push(b'"');
        loop {
            let Some(&b) = self.src.get(self.i) else {
                return Err(Failure::Truncated);
            };
            match b {
                b'\\' => {
                    let Some(&next) = self.src.get(self.i + 1) else {
                        return Err(Failure::Truncated);
                    };
                    match next {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                            self.out.extend_from_slice(&[b'\\', next]);
                            self.i += 2;
                        }
                        b'u' if self
                            .src
                            .get(self.i + 2..self.i + 6)
                            .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) =>
                        {
                            self.out.extend_from_slice(&self.src[self.i..self.i + 6]);
                            self.i += 6;
                        }
                        b'\'' => {
                            self.out.push(b'\'');
                            self.i += 2;
                        }
                        // `C:\Users`, `\d+`: a lone backslash is text.
                        _ => {
                            self.out.extend_from_slice(b"\\\\");
                            self.i += 1;
                        }
                    }
                }
                _ if b == quote => {
                    self.i += 1;
                    if place == StringIn::Key || self.quote_closes(place) {
                        self.out.push(b'"');
                        return Ok(());
                    }
                    // A quote inside the text (#80).
                    if quote == b'"' {
                        self.out.extend_from_slice(b"\\\"");
                    } else {
                        self.out.push(b'\'');
                    }
                }
                b'"' => {
                    self.out.extend_from_slice(b"\\\"");
                    self.i += 1;
                }
                0x00..=0x1f => {
                    match b {
                        b'\n' => self.out.extend_from_slice(b"\\n"),
                        b'\r' => self.out.extend_from_slice(b"\\r"),
                        b'\t' => self.out.extend_from_slice(b"\\t"),
                        _ => self.out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
                    }
                    self.i += 1;
                }
                _ => {
                    self.out.push(b);
                    self.i += 1;
                }
            }
        }
    }

    /// Whether a quote just before `self.i` ends the value string: what follows must be
    /// the structure of valid JSON (a closing bracket, or a comma then the next member
    /// or item), not more text.
    fn quote_closes(&self, place: StringIn) -> bool {
        let k = self.skip_ws_from(self.i);
        let Some(&next) = self.src.get(k) else {
            return true;
        };
        match next {
            b'}' | b']' => true,
            b',' => {
                let k2 = self.skip_ws_from(k + 1);
                match (place, self.src.get(k2)) {
                    (_, None) => true,
                    (StringIn::ObjectValue, Some(b'}')) => true,
                    (StringIn::ObjectValue, Some(_)) => self.member_name_at(k2),
                    (_, Some(b']')) => true,
                    (_, Some(_)) => self.value_starts_at(k2),
                }
            }
            // A missing comma before the next member, or a comment after the value.
            b'"' | b'\'' if place == StringIn::ObjectValue => self.member_name_at(k),
            b'"' | b'\'' => true,
            b'/' => matches!(self.src.get(k + 1), Some(b'/' | b'*')),
            _ => false,
        }
    }

    /// Whether a member name followed by `:` starts at `k` (quoted or bare), within
    /// [`LOOKAHEAD_BYTES`].
    fn member_name_at(&self, k: usize) -> bool {
        let Some(&first) = self.src.get(k) else {
            return false;
        };
        let limit = (k + LOOKAHEAD_BYTES).min(self.src.len());
        let mut j = k + 1;
        if first == b'"' || first == b'\'' {
            loop {
                match self.src.get(j) {
                    _ if j >= limit => return false,
                    Some(b'\\') => j += 2,
                    Some(c) if *c == first => break,
                    Some(b'\n') | None => return false,
                    Some(_) => j += 1,
                }
            }
            j += 1;
        } else if is_ident_start(first) {
            while j < limit && self.src.get(j).is_some_and(|c| is_ident_byte(*c)) {
                j += 1;
            }
        } else {
            return false;
        }
        let j = self.skip_ws_from(j);
        self.src.get(j) == Some(&b':')
    }

    /// Whether a JSON value plausibly starts at `k`.
    fn value_starts_at(&self, k: usize) -> bool {
        match self.src.get(k) {
            Some(b'"' | b'\'' | b'{' | b'[' | b'-' | b'0'..=b'9') => true,
            Some(c) if c.is_ascii_alphabetic() => {
                let end = (k..self.src.len().min(k + 8))
                    .find(|j| !self.src[*j].is_ascii_alphanumeric())
                    .unwrap_or(self.src.len().min(k + 8));
                literal(&self.src[k..end]).is_some()
            }
            _ => false,
        }
    }

    fn skip_ws_from(&self, mut k: usize) -> usize {
        while self.src.get(k).is_some_and(u8::is_ascii_whitespace) {
            k += 1;
        }
        k
    }

    /// Whitespace and `//` / `/* */` comments between tokens.
    fn skip_blank(&mut self) {
        loop {
            self.i = self.skip_ws_from(self.i);
            match (self.src.get(self.i), self.src.get(self.i + 1)) {
                (Some(b'/'), Some(b'/')) => {
                    self.i = self.src[self.i..]
                        .iter()
                        .position(|c| *c == b'\n')
                        .map_or(self.src.len(), |p| self.i + p + 1);
                }
                (Some(b'/'), Some(b'*')) => {
                    self.i = self.src[self.i + 2..]
                        .windows(2)
                        .position(|w| w == b"*/")
                        .map_or(self.src.len(), |p| self.i + 2 + p + 2);
                }
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_clean_object_is_returned_as_is() {
        assert_eq!(first_object(r#"{"a": 1}"#).unwrap(), json!({"a": 1}));
    }

    #[test]
    fn think_blocks_are_removed_including_unclosed_and_template_opened_ones() {
        let s = split_reasoning("<think>plan {\"x\":1}</think>\n{\"a\": 1}");
        assert_eq!(s.answer.trim(), "{\"a\": 1}");
        assert_eq!(s.reasoning, "plan {\"x\":1}");
        let s = split_reasoning("{\"a\": 1}<think>still thinking {\"x\":");
        assert_eq!(s.answer, "{\"a\": 1}");
        let s = split_reasoning("the template opened this\n</think>\n{\"a\": 2}");
        assert_eq!(s.answer.trim(), "{\"a\": 2}");
        assert_eq!(
            first_object("<THINK>{\"draft\": 1}</Think>{\"a\": 3}").unwrap(),
            json!({"a": 3})
        );
    }

    #[test]
    fn json_inside_reasoning_is_never_taken_as_the_answer() {
        assert_eq!(
            first_object("<think>maybe {\"a\": 1}"),
            Err(ExtractError::OnlyReasoning)
        );
    }

    #[test]
    fn bare_quotes_inside_text_are_kept_as_text() {
        let v = first_object("{\"answer\": \"他说\"你好\"然后走了\", \"ok\": true}").unwrap();
        assert_eq!(v, json!({"answer": "他说\"你好\"然后走了", "ok": true}));
        let v = first_object(r#"{"output": "he said "hi", then left"}"#).unwrap();
        assert_eq!(v, json!({"output": "he said \"hi\", then left"}));
        let v = first_object(r#"{"c": ["file "a.txt" exists", "b"]}"#).unwrap();
        assert_eq!(v, json!({"c": ["file \"a.txt\" exists", "b"]}));
    }

    #[test]
    fn a_cut_off_object_is_reported_not_completed() {
        assert!(matches!(
            first_object(r#"{"a": "unterminated"#),
            Err(ExtractError::Truncated { .. })
        ));
        assert!(matches!(
            first_object(r#"{"a": [1, 2"#),
            Err(ExtractError::Truncated { .. })
        ));
    }

    #[test]
    fn nesting_beyond_the_limit_is_an_error_not_a_stack_overflow() {
        let deep = format!("{{\"a\": {}", "[".repeat(200_000));
        assert_eq!(first_object(&deep), Err(ExtractError::TooDeep));
    }

    #[test]
    fn an_object_nested_in_a_rejected_object_is_not_offered_as_the_answer() {
        let seen = std::cell::RefCell::new(Vec::new());
        let result: Result<(), _> = extract(r#"{"outer": {"inner": 1}} {"b": 2}"#, |v| {
            seen.borrow_mut().push(v);
            Err("no".to_string())
        });
        assert!(matches!(result, Err(ExtractError::Rejected { .. })));
        assert_eq!(
            seen.into_inner(),
            vec![json!({"outer": {"inner": 1}}), json!({"b": 2})]
        );
    }

    #[test]
    fn a_fragment_of_a_broken_object_is_not_taken_as_the_answer() {
        assert!(matches!(
            first_object(r#"{"a": {"b": 1}, "c": completed} and then"#),
            Err(ExtractError::Malformed { .. })
        ));
        let deep = format!("{}{{\"x\": 1}}{}", "{\"a\": ".repeat(100), "}".repeat(100));
        assert_eq!(first_object(&deep), Err(ExtractError::TooDeep));
        // A stray brace in the prose before the answer is not a container of it.
        assert_eq!(
            first_object(r#"Fill {name} in. {"b": 2}"#).unwrap(),
            json!({"b": 2})
        );
    }

    #[test]
    fn the_first_acceptable_object_wins() {
        let v: i64 = extract(r#"{"x": 1} then {"n": 7} and {"n": 8}"#, |v| {
            v.get("n")
                .and_then(Value::as_i64)
                .ok_or_else(|| "missing n".to_string())
        })
        .unwrap();
        assert_eq!(v, 7);
    }

    #[test]
    fn the_snippet_never_splits_a_character() {
        let text = "这是一个很长的中文句子，用来测试截断是否安全。".repeat(3);
        for at in 0..=text.len() {
            let s = snippet(&text, at);
            assert!(s.chars().count() <= 40);
        }
    }
}
