//! Extraction over the corpus of real-world malformed replies, and generated input: it
//! never panics, never hangs, and returns the first valid object or a typed error.

use artoo::llm::extract::{self, ExtractError, MAX_DEPTH, MAX_REPLY_BYTES};
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::fixture;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    #[serde(default)]
    source: Option<String>,
    reply: String,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    expect: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Corpus {
    case: Vec<Case>,
}

fn kind(error: &ExtractError) -> &'static str {
    match error {
        ExtractError::Empty => "empty",
        ExtractError::OnlyReasoning => "only_reasoning",
        ExtractError::NoObject => "no_object",
        ExtractError::Truncated { .. } => "truncated",
        ExtractError::Malformed { .. } => "malformed",
        ExtractError::TooDeep => "too_deep",
        ExtractError::TooLarge { .. } => "too_large",
        ExtractError::Rejected { .. } => "rejected",
        ExtractError::CutOff { .. } => "cut_off",
    }
}

fn corpus() -> Vec<Case> {
    let text = std::fs::read_to_string(fixture("malformed_replies.toml")).unwrap();
    toml::from_str::<Corpus>(&text).unwrap().case
}

#[test]
fn the_corpus_covers_at_least_fifty_replies_and_every_digest_pollution_case() {
    let cases = corpus();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    for issue in ["#31", "#61", "#80", "#84", "#85", "#102"] {
        assert!(
            cases.iter().any(|c| c.source.as_deref() == Some(issue)),
            "no case from {issue}"
        );
    }
    for kind in [
        "empty",
        "only_reasoning",
        "no_object",
        "truncated",
        "malformed",
    ] {
        assert!(
            cases.iter().any(|c| c.error.as_deref() == Some(kind)),
            "no case expecting {kind}"
        );
    }
}

#[test]
fn every_corpus_reply_yields_its_expected_object_or_error() {
    let mut failures = Vec::new();
    for case in corpus() {
        let got = extract::extract_reply(&case.reply, case.reasoning.as_deref(), Ok);
        let ok = match (&case.expect, &case.error, &got) {
            (Some(expect), None, Ok(value)) => {
                let expect: Value = serde_json::from_str(expect)
                    .unwrap_or_else(|e| panic!("{}: bad expectation: {e}", case.name));
                *value == expect
            }
            (None, Some(error), Err(e)) => kind(e) == error,
            (Some(_), Some(_), _) | (None, None, _) => {
                panic!("{}: give exactly one of expect/error", case.name)
            }
            _ => false,
        };
        if !ok {
            failures.push(format!("{}: got {got:?}", case.name));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn nesting_deeper_than_the_limit_is_a_typed_error() {
    let deep = format!(
        "{{\"a\": {}1{}}}",
        "[".repeat(MAX_DEPTH),
        "]".repeat(MAX_DEPTH)
    );
    assert_eq!(extract::first_object(&deep), Err(ExtractError::TooDeep));
    let ok = format!(
        "{{\"a\": {}1{}}}",
        "[".repeat(MAX_DEPTH - 2),
        "]".repeat(MAX_DEPTH - 2)
    );
    assert!(extract::first_object(&ok).is_ok());
}

#[test]
fn an_oversized_reply_is_refused_before_scanning() {
    let huge = format!("{{\"a\": \"{}\"}}", "x".repeat(MAX_REPLY_BYTES));
    assert!(matches!(
        extract::first_object(&huge),
        Err(ExtractError::TooLarge { .. })
    ));
}

#[test]
fn a_pathological_reply_of_many_braces_and_quotes_finishes() {
    // Every `{` is a candidate and every quote a look-ahead: the caps keep this linear.
    let nasty = "{\"a\": \"x\" \"".repeat(20_000);
    assert!(nasty.len() < MAX_REPLY_BYTES);
    assert!(extract::first_object(&nasty).is_err());
    let braces = "{".repeat(MAX_REPLY_BYTES - 1);
    assert!(extract::first_object(&braces).is_err());
}

fn arb_scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        "[a-zA-Z0-9 ,.:;!?'\\-_/\\\\{}\\[\\]\"\n\t\u{4e00}-\u{4e0f}]{0,24}".prop_map(Value::String),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    arb_scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arb_object() -> impl Strategy<Value = Value> {
    prop::collection::btree_map("[a-z_]{1,8}", arb_json(), 1..5)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>()))
}

/// Prose that holds no `{` and no reasoning tags.
fn arb_prose() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ,.:;!?'\"`\n\u{4e00}-\u{4e0f}]{0,60}"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics_and_any_object_returned_is_an_object(text in any::<String>()) {
        if let Ok(value) = extract::first_object(&text) {
            prop_assert!(value.is_object());
        }
    }

    #[test]
    fn json_like_noise_never_panics(text in "[{}\\[\\]\"':,\\\\ \n\ttrufalsenl0-9.eE+\\-/*#`<>a-z\u{4e00}-\u{4e03}]{0,300}") {
        if let Ok(value) = extract::first_object(&text) {
            prop_assert!(value.is_object());
        }
    }

    #[test]
    fn a_serialised_object_in_prose_fences_and_reasoning_comes_back_exactly(
        object in arb_object(),
        before in arb_prose(),
        after in arb_prose(),
        pretty in any::<bool>(),
        fenced in any::<bool>(),
        thought in "[a-z {}\"]{0,40}",
    ) {
        let body = if pretty {
            serde_json::to_string_pretty(&object).unwrap()
        } else {
            serde_json::to_string(&object).unwrap()
        };
        let body = if fenced { format!("```json\n{body}\n```") } else { body };
        let reply = format!("<think>{thought}</think>{before}{body}{after}");
        prop_assert_eq!(extract::first_object(&reply), Ok(object));
    }

    #[test]
    fn of_two_objects_the_first_is_returned(first in arb_object(), second in arb_object(), gap in arb_prose()) {
        let reply = format!("{first}{gap}{second}");
        prop_assert_eq!(extract::first_object(&reply), Ok(first));
    }

    #[test]
    fn a_cut_off_object_is_never_completed(object in arb_object(), cut in 1usize..200) {
        let text = serde_json::to_string(&object).unwrap();
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).filter(|i| *i > 0).collect();
        let at = boundaries[cut % boundaries.len()];
        let truncated = &text[..at];
        // Whatever comes back must be a complete object that was really in the text.
        if let Ok(value) = extract::first_object(truncated) {
            prop_assert!(truncated.contains(&serde_json::to_string(&value).unwrap()));
        }
    }
}
