//! `set_value`: sets one setting's value in a configuration or data file, by its key —
//! a JSON file's key (or a dotted path into its objects and arrays), or a line of
//! `key = value`, `key: value` or `KEY=value` (INI, TOML, YAML, .env, properties).
//!
//! Asked to update a version in a JSON file, a small model re-typed the file through
//! `write_file` with one field of three, and, given `edit_file`, replaced the key's name
//! instead of its value. A key and a value are what a person names ("set the timeout to
//! 45"), and what a small model fills without error; code finds where the value stands
//! and changes exactly those bytes.
//!
//! The new text is worked out when the call is prepared, from the file as it is then, and
//! the call says what it changes (the old value, the new one, its line) before anything
//! is written; it then writes as `edit_file` does: Law 1 asks first, the original is kept,
//! the effect is journaled. A key that is nowhere, or in more than one place, or that
//! already holds the value, changes nothing and says so.
//!
//! **Invariant:** every byte of the file outside the old value is written back as it was;
//! a JSON file stays JSON, and a value keeps its kind (a string stays a string; a number
//! or a truth value stays one when the new value is one); the bytes are written only
//! over the file they were worked out from.

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;

use serde_json::{Value, json};

use super::{
    Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// Places named when a key is in more than one.
const PLACES_SHOWN: usize = 8;

/// The set_value tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct SetValue;

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("path"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed(
            "the file: ~/…, an absolute path, or relative to the sub-task's folder",
        ),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("key"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed(
            "the setting's name as the file writes it (version, timeout, PORT); section.key or a.b.c where the name is in more than one place",
        ),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("value"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("the new value, without quotes"),
        choices: super::Choices::Open,
    },
];

/// How a value is written where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// A JSON string, quotes included in the range.
    JsonString,
    /// A JSON number, `true`/`false` or `null`.
    JsonScalar,
    /// The text inside the quotes of a quoted value on a `key = value` line.
    Quoted,
    /// A bare value on a `key = value` line, up to an inline comment.
    Bare,
}

/// One value found in a file's text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Spot {
    /// Its key: the path into a JSON document, or `[section, key]` (or `[key]`) of a line.
    path: Vec<String>,
    /// The bytes of the value.
    range: Range<usize>,
    style: Style,
    /// Its 1-based line.
    line: usize,
}

/// One change worked out against a file's text.
#[derive(Debug, PartialEq, Eq)]
struct Setting {
    /// The file's text with the value changed.
    text: String,
    /// The key as found (`server.timeout`).
    key: String,
    old: String,
    new: String,
    line: usize,
}

/// Sets `key` to `value` in `text`, or says why nothing is to change.
fn set(text: &str, key: &str, value: &str) -> Result<Setting, String> {
    let key = key.trim();
    if key.is_empty() {
        return Err("`key` is empty: give the setting's name".into());
    }
    let json = serde_json::from_str::<Value>(text)
        .ok()
        .filter(|v| v.is_object() || v.is_array());
    let spots = if json.is_some() {
        json_spots(text)
    } else {
        line_spots(text)
    };
    let spot = pick(&spots, key, json.is_some())?;
    let old = &text[spot.range.clone()];
    let new = rendered(spot.style, value);
    let key_found = spot.path.join(".");
    if new == old {
        return Err(format!(
            "{key_found} already holds {old} (line {}); nothing was changed",
            spot.line
        ));
    }
    let mut changed = String::with_capacity(text.len() + new.len());
    changed.push_str(&text[..spot.range.start]);
    changed.push_str(&new);
    changed.push_str(&text[spot.range.end..]);
    if json.is_some() && serde_json::from_str::<Value>(&changed).is_err() {
        return Err(format!(
            "setting {key_found} to {value:?} would not leave valid JSON; nothing was changed"
        ));
    }
    Ok(Setting {
        text: changed,
        key: key_found,
        old: old.to_string(),
        new,
        line: spot.line,
    })
}

/// The one spot `key` names: its whole path, else (a key without dots, or a key whose
/// last part is unique) the spots whose path ends with it — case counting first, then
/// not. None or several are an error that names what there is.
fn pick<'a>(spots: &'a [Spot], key: &str, json: bool) -> Result<&'a Spot, String> {
    let wanted: Vec<&str> = key.split('.').collect();
    let tries: [&dyn Fn(&Spot) -> bool; 4] = [
        &|s| s.path.iter().map(String::as_str).eq(wanted.iter().copied()),
        &|s| s.path.len() >= wanted.len() && s.path[s.path.len() - wanted.len()..] == wanted[..],
        &|s| {
            s.path.len() >= wanted.len()
                && s.path[s.path.len() - wanted.len()..]
                    .iter()
                    .zip(&wanted)
                    .all(|(a, b)| a.eq_ignore_ascii_case(b))
        },
        &|s| s.path.last().is_some_and(|l| l.eq_ignore_ascii_case(key)),
    ];
    for matches in tries {
        let found: Vec<&Spot> = spots.iter().filter(|s| matches(s)).collect();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(one),
            many => {
                let places: Vec<String> = many
                    .iter()
                    .take(PLACES_SHOWN)
                    .map(|s| format!("{} (line {})", s.path.join("."), s.line))
                    .collect();
                return Err(format!(
                    "{key} is in {} places: {}; give the whole name",
                    many.len(),
                    places.join(", ")
                ));
            }
        }
    }
    let mut names: Vec<String> = spots.iter().map(|s| s.path.join(".")).collect();
    names.dedup();
    let shown: Vec<&str> = names.iter().take(20).map(String::as_str).collect();
    Err(if shown.is_empty() {
        format!(
            "the file has no {} to set; nothing was changed",
            if json {
                "value"
            } else {
                "`key = value` or `key: value` line"
            }
        )
    } else {
        format!(
            "{key} is nowhere in the file; its settings are: {}{}; nothing was changed",
            shown.join(", "),
            if names.len() > shown.len() {
                ", …"
            } else {
                ""
            }
        )
    })
}

/// `value` as it is written in place of a value of `style`.
fn rendered(style: Style, value: &str) -> String {
    let bare = unquoted(value.trim());
    match style {
        Style::JsonString => Value::from(bare).to_string(),
        // A number, a truth value or null where one stood; any other text as a string.
        Style::JsonScalar => match serde_json::from_str::<Value>(bare) {
            Ok(v @ (Value::Number(_) | Value::Bool(_) | Value::Null)) => v.to_string(),
            _ => Value::from(bare).to_string(),
        },
        Style::Quoted | Style::Bare => bare.to_string(),
    }
}

/// `text` without one pair of quotes around it.
fn unquoted(text: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(q).and_then(|t| t.strip_suffix(q)) {
            return inner;
        }
    }
    text
}

/// The 1-based line of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// Every scalar value of a JSON document with its path (object keys, array indexes).
/// The text was parsed already, so the walk only finds where each value stands.
fn json_spots(text: &str) -> Vec<Spot> {
    let mut walk = JsonWalk {
        text,
        at: 0,
        spots: Vec::new(),
    };
    let mut path = Vec::new();
    // The text parsed as JSON: a walk that stops early only finds fewer values.
    let _ = walk.value(&mut path);
    walk.spots
}

struct JsonWalk<'a> {
    text: &'a str,
    at: usize,
    spots: Vec<Spot>,
}

impl JsonWalk<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        self.space();
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// A string token: its decoded text and its bytes, quotes included.
    fn string(&mut self) -> Option<(String, Range<usize>)> {
        self.space();
        let start = self.at;
        if self.peek()? != b'"' {
            return None;
        }
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    break;
                }
                _ => self.at += 1,
            }
        }
        let range = start..self.at;
        let decoded = serde_json::from_str::<String>(&self.text[range.clone()]).ok()?;
        Some((decoded, range))
    }

    fn found(&mut self, path: &[String], range: Range<usize>, style: Style) {
        self.spots.push(Spot {
            path: path.to_vec(),
            line: line_at(self.text, range.start),
            range,
            style,
        });
    }

    fn value(&mut self, path: &mut Vec<String>) -> Option<()> {
        self.space();
        match self.peek()? {
            b'{' => {
                self.at += 1;
                self.space();
                if self.peek()? == b'}' {
                    self.at += 1;
                    return Some(());
                }
                loop {
                    let (key, _) = self.string()?;
                    self.expect(b':')?;
                    path.push(key);
                    self.value(path)?;
                    path.pop();
                    self.space();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b'}' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.at += 1;
                self.space();
                if self.peek()? == b']' {
                    self.at += 1;
                    return Some(());
                }
                let mut index = 0usize;
                loop {
                    path.push(index.to_string());
                    self.value(path)?;
                    path.pop();
                    index += 1;
                    self.space();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => {
                let (_, range) = self.string()?;
                self.found(path, range, Style::JsonString);
                Some(())
            }
            _ => {
                let start = self.at;
                while self
                    .peek()
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
                {
                    self.at += 1;
                }
                (self.at > start).then(|| self.found(path, start..self.at, Style::JsonScalar))
            }
        }
    }
}

/// Every `key = value`, `key: value` or `KEY=value` line's value, keyed by the INI or
/// TOML section above it (`[server]`) when there is one. Comment lines (`#`, `;`, `//`)
/// are skipped; an inline comment after a bare value is not part of it.
fn line_spots(text: &str) -> Vec<Spot> {
    let mut spots = Vec::new();
    let mut section: Option<String> = None;
    let mut offset = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let lead = line.len() - line.trim_start().len();
        let body = line.trim();
        if body.is_empty() || body.starts_with(['#', ';']) || body.starts_with("//") {
            continue;
        }
        if let Some(name) = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
            section = Some(name.trim().to_string());
            continue;
        }
        let (body, skipped) = match body.strip_prefix("export ") {
            Some(rest) => (rest, "export ".len()),
            None => (body, 0),
        };
        let Some(sep) = body.find(['=', ':']) else {
            continue;
        };
        let key = body[..sep].trim();
        if key.is_empty() || key.contains(['"', '\'']) {
            continue;
        }
        let after = &body[sep + 1..];
        let pad = after.len() - after.trim_start().len();
        let value_at = start + lead + skipped + sep + 1 + pad;
        let value = after.trim_start();
        let (range, style) = match value.chars().next() {
            Some(q @ ('"' | '\'')) if value[1..].contains(q) => {
                let close = value[1..].find(q).map_or(value.len(), |i| i + 1);
                (value_at + 1..value_at + close, Style::Quoted)
            }
            _ => {
                let end = [" #", "\t#", " ;", "\t;"]
                    .iter()
                    .filter_map(|c| value.find(c))
                    .min()
                    .unwrap_or(value.len());
                let bare = value[..end].trim_end();
                (value_at..value_at + bare.len(), Style::Bare)
            }
        };
        let mut path: Vec<String> = section.iter().cloned().collect();
        path.push(key.to_string());
        spots.push(Spot {
            path,
            range,
            style,
            line: n + 1,
        });
    }
    spots
}

/// The file's text, when it is a text file small enough to change.
fn text_of(path: &Path) -> Result<String, ToolError> {
    super::edit_file::small_text(
        path,
        "set_value changes a value inside one file",
        "set_value",
    )
}

/// What the call does, in words: `version from "1.4.2" to "2.0.0" in ~/app/package.json,
/// line 1`.
fn report(path: &str, s: &Setting) -> String {
    format!(
        "{} from {} to {} in {path}, line {}",
        s.key, s.old, s.new, s.line
    )
}

impl Tool for SetValue {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::SetValue.into(),
            priority: 4,
            summary: Cow::Borrowed(
                "Set one setting's value in a file by its key (JSON, INI, TOML, YAML, .env): only the value changes. Changing a file the task did not make asks the user.",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let path = ctx.resolve_read_path(super::str_param(input, "path")?);
        let key = super::str_param(input, "key")?;
        let value = super::str_param(input, "value")?;
        let shown = path.to_string_lossy().into_owned();
        let home = &ctx.config.home;
        let planned = set(&text_of(&path)?, key, value).map_err(|why| {
            ToolError::Failed(format!("{}: {why}", crate::text::tilde(&shown, home)))
        })?;
        Ok(Prepared {
            tool: ToolName::SetValue.into(),
            // The text to write is part of the call: what the user is asked about is
            // exactly what is written.
            input: json!({
                "path": shown,
                "key": key,
                "value": value,
                "text_after": planned.text,
            }),
            target: shown.clone(),
            action: Some(Law1Action::WriteFile {
                path: path.clone(),
                append: false,
            }),
            note: Some(format!(
                "It sets {}.",
                report(&crate::text::tilde(&shown, home), &planned)
            )),
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let path = ctx.resolve_read_path(super::str_param(&call.input, "path")?);
            let key = super::str_param(&call.input, "key")?;
            let value = super::str_param(&call.input, "value")?;
            let after = super::str_param(&call.input, "text_after")?;
            let shown = crate::text::tilde(&path.display().to_string(), &ctx.config.home);
            let redo = |old: &str| set(old, key, value).map(|s| (s.text.clone(), s));
            let write = super::edit_file::write_prepared(call, ctx, &path, after, text_of, redo);
            Ok(match write.await? {
                (written, None) => format!("wrote {shown} with {key} set to {value}\n{written}"),
                (written, Some(done)) => format!("set {}\n{written}", report(&shown, &done)),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_value_changes_and_every_other_byte_stays() {
        let old = r#"{"name": "shop", "version": "1.4.2", "private": true}"#;
        let s = set(old, "version", "2.0.0").expect("set");
        assert_eq!(
            s.text,
            r#"{"name": "shop", "version": "2.0.0", "private": true}"#
        );
        assert_eq!(
            (s.old.as_str(), s.new.as_str(), s.line),
            ("\"1.4.2\"", "\"2.0.0\"", 1)
        );
        // A number stays a number, a truth value one; quotes given are not doubled.
        let old =
            "{\n  \"server\": {\"port\": 8080, \"debug\": true},\n  \"tags\": [\"a\", \"b\"]\n}\n";
        let s = set(old, "port", "9090").expect("set");
        assert!(s.text.contains("\"port\": 9090,"), "{}", s.text);
        assert_eq!((s.key.as_str(), s.line), ("server.port", 2));
        let s = set(old, "server.debug", "false").expect("set");
        assert!(s.text.contains("\"debug\": false}"), "{}", s.text);
        let s = set(old, "tags.1", "\"c\"").expect("set");
        assert!(s.text.contains("[\"a\", \"c\"]"), "{}", s.text);
        // A number given where a string stood stays a string.
        let s = set(r#"{"zip": "01234"}"#, "zip", "09999").expect("set");
        assert_eq!(s.text, r#"{"zip": "09999"}"#);
        // Text where a number stood becomes a string, and the JSON stays valid.
        let s = set(r#"{"port": 80}"#, "port", "auto").expect("set");
        assert_eq!(s.text, r#"{"port": "auto"}"#);
        // Escapes and non-ASCII text around the value stay.
        let old = r#"{"title": "Grüße \"x\"", "n": 1}"#;
        let s = set(old, "n", "2").expect("set");
        assert_eq!(s.text, r#"{"title": "Grüße \"x\"", "n": 2}"#);
    }

    #[test]
    fn lines_of_settings_change_in_their_own_style() {
        let ini = "[server]\nhost = localhost\ntimeout = 30  # seconds\n\n[client]\ntimeout = 5\n";
        let s = set(ini, "server.timeout", "45").expect("set");
        assert_eq!(
            s.text,
            "[server]\nhost = localhost\ntimeout = 45  # seconds\n\n[client]\ntimeout = 5\n"
        );
        assert_eq!(s.line, 3);
        let err = set(ini, "timeout", "45").expect_err("two places");
        assert!(
            err.contains("2 places") && err.contains("server.timeout (line 3)"),
            "{err}"
        );
        let env = "NAME=shop\nexport DEBUG=true\nPORT=\"8000\"\n";
        let s = set(env, "PORT", "9000").expect("set");
        assert_eq!(s.text, "NAME=shop\nexport DEBUG=true\nPORT=\"9000\"\n");
        let s = set(env, "debug", "false").expect("set, case aside");
        assert_eq!(s.text, "NAME=shop\nexport DEBUG=false\nPORT=\"8000\"\n");
        let yaml = "name: shop\nurl: http://a.example:80/x\n# port: 1\n";
        let s = set(yaml, "url", "https://b.example").expect("set");
        assert_eq!(s.text, "name: shop\nurl: https://b.example\n# port: 1\n");
        let crlf = "a = 1\r\nb = 2\r\n";
        assert_eq!(set(crlf, "b", "3").expect("set").text, "a = 1\r\nb = 3\r\n");
    }

    #[test]
    fn a_key_that_is_nowhere_or_already_set_changes_nothing_and_says_what_there_is() {
        let err = set("a = 1\nb = 2\n", "c", "3").expect_err("nowhere");
        assert!(
            err.contains("c is nowhere") && err.contains("a, b"),
            "{err}"
        );
        let err = set("a = 1\n", "a", "1").expect_err("already");
        assert!(err.contains("already holds 1"), "{err}");
        let err = set(r#"{"v": "2"}"#, "v", "2").expect_err("already");
        assert!(err.contains("already holds"), "{err}");
        assert!(
            set("just words\n", "x", "1")
                .unwrap_err()
                .contains("no `key = value`")
        );
        assert!(set("a = 1\n", " ", "1").is_err());
    }
}
