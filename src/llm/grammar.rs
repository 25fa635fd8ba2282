//! A compact GBNF grammar from a role's JSON schema, for llama-server.
//!
//! llama-server turns a `response_format` schema into a grammar that allows whitespace
//! and newlines between tokens, and small models use it: they pretty-print, with a
//! newline and indentation before every field. On a local model each generated token
//! costs about 80 ms, so the indentation alone is seconds per plan. This grammar admits
//! exactly the same objects written without any whitespace between tokens, every
//! property present and in schema order (a field the type reads as optional may be
//! `null`), and strings in which a backslash may precede any printable character but
//! `u`. No `\u`: a small model that cannot escape a backslash otherwise spirals into
//! `\u0020` runs until its token cap. Any other character: a model that writes a shell's
//! `\;` or a pattern's `\d` without doubling the backslash would otherwise be pushed
//! onto one of JSON's escapes (`\n` where `\;` belonged), and the command would change
//! meaning. The reader ([`super::extract`]) keeps such a backslash as text.
//!
//! What it supports is what the roles' schemas use: objects with properties, `anyOf` /
//! `oneOf` branches, `const`, `enum`, type lists, arrays (with `minItems` 1 and
//! `maxItems`), strings, integers, numbers, booleans, null, and "any value". A schema it cannot read yields `None`, and the call
//! falls back to `response_format`.
//!
//! **Invariant:** every text the grammar admits, read by [`super::extract`], is one JSON
//! value that the schema admits.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

/// Nesting depth the converter follows before giving up on a schema.
const MAX_DEPTH: usize = 24;

/// The grammar, or `None` when the schema uses something the converter does not read.
pub fn compact_gbnf(schema: &Value) -> Option<String> {
    let mut g = Grammar::default();
    let root = g.rule_for(schema, "root", 0)?;
    let mut out = format!("root ::= {root}\n");
    for (name, body) in &g.rules {
        let _ = writeln!(out, "{name} ::= {body}");
    }
    out.push_str(PRIMITIVES);
    Some(out)
}

/// The shared primitive rules. Strings: any character but the quote, the backslash and
/// control characters, or a backslash and any printable character but `u`.
const PRIMITIVES: &str = r#"string ::= "\"" char* "\""
char ::= [^"\\\x7F\x00-\x1F] | "\\" [^u\x7F\x00-\x1F]
integer ::= "-"? ("0" | [1-9] [0-9]*)
number ::= "-"? ("0" | [1-9] [0-9]*) ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
boolean ::= "true" | "false"
null ::= "null"
value ::= object | array | string | number | boolean | null
object ::= "{" (string ":" value ("," string ":" value)*)? "}"
array ::= "[" (value ("," value)*)? "]"
"#;

#[derive(Default)]
struct Grammar {
    rules: BTreeMap<String, String>,
}

/// A JSON text as a GBNF literal.
fn literal(json: &str) -> String {
    let mut out = String::from("\"");
    for c in json.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Grammar {
    /// A rule name for `hint`, unique in this grammar.
    fn name(&self, hint: &str) -> String {
        let base: String = hint
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        let base = base.trim_matches('-').to_string();
        let base = if base.is_empty() {
            "r".to_string()
        } else {
            base
        };
        let mut name = base.clone();
        let mut n = 1;
        while self.rules.contains_key(&name) || PRIMITIVE_NAMES.contains(&name.as_str()) {
            n += 1;
            name = format!("{base}{n}");
        }
        name
    }

    /// The GBNF expression for `schema` (a rule reference or an inline alternation).
    fn rule_for(&mut self, schema: &Value, hint: &str, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        let obj = match schema {
            Value::Bool(true) => return Some("value".into()),
            Value::Object(o) => o,
            _ => return None,
        };
        if obj.is_empty() {
            return Some("value".into());
        }
        if let Some(c) = obj.get("const") {
            return Some(literal(&c.to_string()));
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            let alts: Vec<String> = values.iter().map(|v| literal(&v.to_string())).collect();
            return (!alts.is_empty()).then(|| format!("({})", alts.join(" | ")));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = obj.get(key).and_then(Value::as_array) {
                let mut alts = Vec::new();
                for (i, b) in branches.iter().enumerate() {
                    // A branch inherits the parent's type when it names none.
                    alts.push(self.rule_for(b, &format!("{hint}-{i}"), depth + 1)?);
                }
                let name = self.name(hint);
                self.rules.insert(name.clone(), alts.join(" | "));
                return Some(name);
            }
        }
        match obj.get("type") {
            Some(Value::Array(types)) => {
                let mut alts = Vec::new();
                for t in types {
                    let mut single = obj.clone();
                    single.insert("type".into(), t.clone());
                    alts.push(self.rule_for(&Value::Object(single), hint, depth + 1)?);
                }
                Some(format!("({})", alts.join(" | ")))
            }
            Some(Value::String(t)) => match t.as_str() {
                // A bound stops a small model whose string runs on (digits, a repeated
                // word) before the reply's token cap cuts the whole object off.
                "string" => match obj.get("maxLength").and_then(Value::as_u64) {
                    Some(max) => Some(format!("(\"\\\"\" char{{0,{max}}} \"\\\"\")")),
                    None => Some("string".into()),
                },
                "integer" => Some("integer".into()),
                "number" => Some("number".into()),
                "boolean" => Some("boolean".into()),
                "null" => Some("null".into()),
                "array" => {
                    let item = match obj.get("items") {
                        Some(items) => self.rule_for(items, &format!("{hint}-item"), depth + 1)?,
                        None => "value".into(),
                    };
                    let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                    let max = obj.get("maxItems").and_then(Value::as_u64);
                    // Items after the first: any number, or up to `maxItems` (a bound
                    // stops a small model that lists the same kind of thing on and on).
                    let more = match max {
                        Some(max) => format!("{{0,{}}}", max.saturating_sub(1)),
                        None => "*".into(),
                    };
                    let name = self.name(hint);
                    let body = if max == Some(0) {
                        "\"[\" \"]\"".to_string()
                    } else if min >= 1 {
                        format!("\"[\" {item} (\",\" {item}){more} \"]\"")
                    } else {
                        format!("\"[\" ({item} (\",\" {item}){more})? \"]\"")
                    };
                    self.rules.insert(name.clone(), body);
                    Some(name)
                }
                "object" => self.object(obj, hint, depth),
                _ => None,
            },
            None if obj.contains_key("properties") => self.object(obj, hint, depth),
            None => Some("value".into()),
            _ => None,
        }
    }

    fn object(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        hint: &str,
        depth: usize,
    ) -> Option<String> {
        let Some(props) = obj.get("properties").and_then(Value::as_object) else {
            return Some("object".into());
        };
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // Required properties first, in schema order; then each optional one may follow
        // (JSON objects are unordered, so the reader takes them in any order). With no
        // required property at all, every one is written.
        let all_required = !props.keys().any(|k| required.contains(&k.as_str()));
        let mut first: Vec<(&String, &Value)> = Vec::new();
        let mut optional: Vec<(&String, &Value)> = Vec::new();
        for (key, prop) in props {
            if all_required || required.contains(&key.as_str()) {
                first.push((key, prop));
            } else {
                optional.push((key, prop));
            }
        }
        let mut parts = Vec::new();
        for (i, (key, prop)) in first.iter().enumerate() {
            let value = self.rule_for(prop, &format!("{hint}-{key}"), depth + 1)?;
            let sep = if i == 0 { "" } else { "," };
            parts.push(format!(
                "{} {value}",
                literal(&format!("{sep}{}:", Value::String((*key).clone())))
            ));
        }
        for (key, prop) in optional {
            let value = self.rule_for(prop, &format!("{hint}-{key}"), depth + 1)?;
            parts.push(format!(
                "({} {value})?",
                literal(&format!(",{}:", Value::String(key.clone())))
            ));
        }
        let name = self.name(hint);
        self.rules
            .insert(name.clone(), format!("\"{{\" {} \"}}\"", parts.join(" ")));
        Some(name)
    }
}

const PRIMITIVE_NAMES: &[&str] = &[
    "root", "string", "char", "integer", "number", "boolean", "null", "value", "object", "array",
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_schema_becomes_a_compact_rule_required_properties_first() {
        let schema = json!({
            "type": "object",
            "properties": {
                "intent": {"type": "string"},
                "kind": {"enum": ["task", "chat"]},
                "reply": {"type": ["string", "null"]},
                "steps": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
            },
            "required": ["intent", "kind", "steps"],
        });
        let g = compact_gbnf(&schema).expect("a grammar");
        assert!(g.starts_with("root ::= root2\n"), "{g}");
        assert!(
            g.contains(r#"root2 ::= "{" "\"intent\":" string ",\"kind\":" ("\"task\"" | "\"chat\"") ",\"steps\":" root-steps (",\"reply\":" (string | null))? "}""#),
            "{g}"
        );
        assert!(
            g.contains(r#"root-steps ::= "[" integer ("," integer)* "]""#),
            "{g}"
        );
        assert!(
            g.contains(r#"char ::= [^"\\\x7F\x00-\x1F] | "\\" [^u\x7F\x00-\x1F]"#),
            "{g}"
        );
    }

    /// The string rule lets a backslash stand before any printable character but `u`;
    /// the reader must turn every such string into the text the model meant: JSON's
    /// escapes decoded, any other backslash kept (a shell's `\;`, a pattern's `\d`).
    #[test]
    fn every_escape_the_grammar_admits_reads_as_the_text_meant() {
        for c in (' '..='~').filter(|c| *c != 'u') {
            let reply = format!(r#"{{"command":"a\{c}b"}}"#);
            let value = crate::llm::extract::first_object(&reply)
                .unwrap_or_else(|e| panic!("{reply}: {e}"));
            let meant = match c {
                '"' | '\\' | '/' => format!("a{c}b"),
                'b' => "a\u{8}b".to_string(),
                'f' => "a\u{c}b".to_string(),
                'n' => "a\nb".to_string(),
                'r' => "a\rb".to_string(),
                't' => "a\tb".to_string(),
                '\'' => "a'b".to_string(),
                _ => format!("a\\{c}b"),
            };
            assert_eq!(value["command"], meant, "{reply}");
        }
        let find = crate::llm::extract::first_object(r#"{"command":"find . -exec ls {} \;"}"#)
            .expect("an object");
        assert_eq!(find["command"], r"find . -exec ls {} \;");
    }

    #[test]
    fn branches_and_constants_become_alternatives() {
        let schema = json!({
            "type": "object",
            "anyOf": [
                {"type": "object", "properties": {"next": {"const": "call_tool"}, "tool": {"const": "shell"}}, "required": ["next", "tool"]},
                {"type": "object", "properties": {"next": {"const": "finish"}, "output": {"type": "string"}}, "required": ["next", "output"]},
            ],
        });
        let g = compact_gbnf(&schema).expect("a grammar");
        assert!(
            g.contains(r#""{" "\"next\":" "\"call_tool\"" ",\"tool\":" "\"shell\"" "}""#),
            "{g}"
        );
        assert!(g.contains(r#"",\"output\":" string"#), "{g}");
    }

    #[test]
    fn max_items_bounds_the_repetition() {
        let array = |bounds: serde_json::Value| {
            let mut schema = json!({"type": "array", "items": {"type": "integer"}});
            if let (Some(s), Some(b)) = (schema.as_object_mut(), bounds.as_object()) {
                s.extend(b.clone());
            }
            compact_gbnf(&schema).expect("a grammar")
        };
        assert!(
            array(json!({"maxItems": 4})).contains(r#"::= "[" (integer ("," integer){0,3})? "]""#)
        );
        assert!(
            array(json!({"minItems": 1, "maxItems": 2}))
                .contains(r#"::= "[" integer ("," integer){0,1} "]""#)
        );
        assert!(array(json!({"maxItems": 0})).contains(r#"::= "[" "]""#));
    }

    #[test]
    fn max_length_bounds_a_string() {
        let schema = json!({
            "type": "object",
            "properties": {"column": {"type": "string", "maxLength": 5}, "text": {"type": "string"}},
            "required": ["column", "text"],
        });
        let g = compact_gbnf(&schema).expect("a grammar");
        assert!(
            g.contains(r#"\"column\":" ("\"" char{0,5} "\"") ",\"text\":" string"#),
            "{g}"
        );
    }

    #[test]
    fn an_unreadable_schema_yields_none() {
        assert!(
            compact_gbnf(&json!({"type": "object", "properties": {"x": {"type": "mystery"}}}))
                .is_none()
        );
        assert!(compact_gbnf(&json!(42)).is_none());
    }

    /// A plan's lists are bounded in the grammar itself, so a model repeating one item
    /// (a sub-task, a criterion, a tool) must close the list instead of running to its
    /// token cap.
    #[test]
    fn a_plans_lists_are_bounded() {
        use crate::roles::planner::schema::{MAX_CRITERIA, MAX_SUBTASKS, MAX_TOOLS};
        let schema = crate::llm::OutputSchema::of::<crate::roles::planner::prompt::PlanDraft>();
        let g = compact_gbnf(&schema.schema).expect("a grammar");
        let rule = |field: &str| {
            g.lines()
                .find(|l| l.split(" ::= ").next().is_some_and(|n| n.ends_with(field)))
                .unwrap_or_else(|| panic!("no rule for {field}: {g}"))
                .to_string()
        };
        let tools = rule("-tools");
        assert!(
            tools.contains(&format!("){{0,{}}}", MAX_TOOLS - 1)),
            "{tools}"
        );
        assert!(!tools.contains(")*"), "{tools}");
        let subtasks = rule("-subtasks");
        assert!(
            subtasks.contains(&format!("){{0,{}}}", MAX_SUBTASKS - 1)),
            "{subtasks}"
        );
        let criteria = rule("-success-criteria");
        assert!(
            criteria.contains(&format!("){{0,{}}}", MAX_CRITERIA - 1)),
            "{criteria}"
        );
    }

    #[test]
    fn every_role_schema_converts() {
        use crate::llm::OutputSchema;
        for schema in [
            OutputSchema::of::<crate::roles::planner::prompt::PlanDraft>(),
            OutputSchema::of::<crate::roles::executor::step::NextStep>(),
            OutputSchema::of::<crate::roles::executor::step::FinishStep>(),
            OutputSchema::of::<crate::roles::perceiver::Perception>(),
            OutputSchema::of::<crate::roles::agent_validator::Judgement>(),
            OutputSchema::of::<crate::roles::meta_validator::MergeJudgement>(),
            OutputSchema::of::<crate::roles::planner::prompt::GracefulDraft>(),
        ] {
            assert!(compact_gbnf(&schema.schema).is_some(), "{}", schema.name);
        }
    }
}
