//! The tolerant scanner: reads one JSON object from a start position, writing
//! normalised JSON and repairing only what is unambiguous (bare quotes inside text, raw
//! newlines in strings, trailing commas, single quotes, Python literals, comments).
//!
//! **Invariant:** iterative and bounded — nesting lives in an explicit stack capped at
//! [`MAX_DEPTH`], every look-ahead stops after [`LOOKAHEAD_BYTES`], and a cut-off object
//! is reported as truncated, never completed.

use serde_json::Value;

use super::{Failure, LOOKAHEAD_BYTES, MAX_DEPTH};

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
pub(super) struct Scanner<'a> {
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
    pub(super) fn new(src: &'a [u8], start: usize) -> Self {
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
    pub(super) fn object(mut self) -> Result<(Value, usize), Failure> {
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
                    // A quote inside the text (prose quoting a word with ASCII quotes).
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
