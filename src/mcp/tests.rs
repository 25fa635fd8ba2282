//! What a server's tool becomes for the model: its bounded spec, its results as text and
//! the target a call names.

use super::*;
use serde_json::json;

fn tool(def: Value) -> rmcp::model::Tool {
    serde_json::from_value(def).expect("a tool definition")
}

#[test]
fn a_spec_is_bounded_and_keeps_every_required_parameter() {
    let mut properties = serde_json::Map::new();
    for i in 0..12 {
        properties.insert(
            format!("opt{i:02}"),
            json!({"type": "string", "description": "x ".repeat(200)}),
        );
    }
    properties.insert("zpath".into(), json!({"type": ["string", "null"]}));
    properties.insert("count".into(), json!({"type": "integer", "enum": [1, 2]}));
    let def = tool(json!({
        "name": "big",
        "description": format!("Does a thing. {}", "More words. ".repeat(100)),
        "inputSchema": {"type": "object", "properties": properties, "required": ["zpath", "count"]},
    }));
    let (spec, required) = spec_of("srv", &def);
    assert!(matches!(&spec.name, ToolRef::Mcp(m) if m.server() == "srv" && m.tool() == "big"));
    assert_eq!(spec.summary, "Does a thing.");
    assert_eq!(spec.priority, MCP_PRIORITY);
    assert_eq!(spec.params.len(), MAX_PARAMS);
    assert_eq!(required, ["zpath", "count"]);
    let names: Vec<&str> = spec.params.iter().map(|p| p.name.as_ref()).collect();
    assert!(
        names.contains(&"zpath") && names.contains(&"count"),
        "{names:?}"
    );
    let count = spec.params.iter().find(|p| p.name == "count").unwrap();
    assert_eq!((count.kind.as_ref(), count.required), ("integer", true));
    assert!(count.about.contains("one of 1, 2"), "{}", count.about);
    assert!(
        spec.params
            .iter()
            .all(|p| p.about.chars().count() <= MAX_PARAM_CHARS + 20)
    );
    let listed = crate::tools::tool_list(std::slice::from_ref(&spec));
    assert!(listed.chars().count() < 1_200, "{listed}");
}

#[test]
fn results_become_text_for_the_model() {
    let result: CallToolResult = serde_json::from_value(json!({
        "content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "inside"}},
        ],
    }))
    .unwrap();
    assert_eq!(
        result_text(&result),
        "hello\n[image image/png, 3 bytes]\ninside"
    );
    let structured: CallToolResult =
        serde_json::from_value(json!({"content": [], "structuredContent": {"n": 3}})).unwrap();
    assert_eq!(result_text(&structured), "{\"n\":3}");
}

#[test]
fn the_target_is_the_first_path_or_query_else_the_arguments() {
    assert_eq!(target_of(&json!({"path": "/a", "content": "x"})), "/a");
    assert_eq!(target_of(&json!({"a": 1})), "{\"a\":1}");
}
