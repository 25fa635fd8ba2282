//! Extraction from polluted replies: reasoning, bare quotes, cut-offs, nesting limits.

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
