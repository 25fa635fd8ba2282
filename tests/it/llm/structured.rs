//! Structured output end to end: schema in the request, polluted replies, the bounded
//! re-ask, and learning which `response_format` an endpoint accepts.

use artoo::contracts::{Role, TaskId};
use artoo::llm::{CallCtx, ChatRequest, ExtractError, LlmError, OutputMode, Tier};
use artoo::testkit::{Script, Step};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::{Rig, script};

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Verdict {
    criterion: String,
    met: bool,
    evidence: String,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Verdicts {
    verdicts: Vec<Verdict>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Intent {
    intent: String,
}

fn ctx() -> CallCtx {
    CallCtx::for_task(TaskId::mint(), CancellationToken::new())
}

fn ask() -> ChatRequest {
    ChatRequest::new("Judge each criterion.", "criterion: report.txt exists")
}

#[tokio::test]
async fn the_schema_goes_out_as_response_format_and_a_field_guide_in_the_prompt() {
    let rig = Rig::new(Script::new().role(
        Role::Perceiver,
        [Step::reply(r#"{"intent": "list files"}"#)],
    ))
    .await;
    let out = rig
        .role(Role::Perceiver)
        .structured::<Intent>(&ctx(), &ChatRequest::new("Perceive.", "ls"))
        .await
        .unwrap();
    assert_eq!(out.value.intent, "list files");
    assert_eq!((out.mode, out.n_asks), (OutputMode::JsonSchema, 1));
    let request = &rig.server.requests()[0];
    assert_eq!(request.response_format(), Some("json_schema"));
    let format = &request.body["response_format"]["json_schema"];
    assert_eq!(format["name"], "Intent");
    assert_eq!(format["schema"]["required"][0], "intent");
    let system = &request.messages()[0].1;
    assert!(system.starts_with("Perceive."), "{system}");
    // Under constrained decoding the server holds the schema; the prompt gets a compact
    // field guide instead of the schema's JSON.
    assert!(system.contains("\n  - intent (string)"), "{system}");
    assert!(!system.contains("\"properties\""), "{system}");
}

#[tokio::test]
async fn a_polluted_reply_still_yields_the_typed_object() {
    let reply = "<think>The file is there {\"draft\": 1}</think>\nHere you go:\n```json\n\
        {\"verdicts\": [{\"criterion\": \"report \"final\" exists\", \"met\": True, \"evidence\": \"ls\",},]}\n\
        ```\nAnything else?";
    let rig = Rig::new(Script::new().role(Role::AgentValidator, [Step::reply(reply)])).await;
    let out = rig
        .role(Role::AgentValidator)
        .structured::<Verdicts>(&ctx(), &ask())
        .await
        .unwrap();
    assert_eq!(
        out.value.verdicts,
        vec![Verdict {
            criterion: "report \"final\" exists".into(),
            met: true,
            evidence: "ls".into()
        }]
    );
    assert_eq!(rig.server.requests().len(), 1);
}

#[tokio::test]
async fn an_unusable_reply_gets_one_reask_quoting_the_problem() {
    let mut rig = Rig::new(script("reask.json")).await;
    let out = rig
        .role(Role::AgentValidator)
        .structured::<Verdicts>(&ctx(), &ask())
        .await
        .unwrap();
    assert_eq!(out.n_asks, 2);
    assert!(out.value.verdicts[0].met);

    let requests = rig.server.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].messages();
    assert_eq!(second.len(), 4, "{second:?}");
    assert_eq!(second[2].0, "assistant");
    assert!(second[2].1.starts_with("Sure! The criterion is met"));
    assert_eq!(second[3].0, "user");
    assert!(
        second[3].1.contains("the reply contains no JSON object"),
        "{}",
        second[3].1
    );

    // Two model calls, two records; the first says why its output was unusable.
    let calls = rig.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0].2.error.as_deref(),
        Some("unusable output: the reply contains no JSON object")
    );
    assert_eq!(calls[1].2.error, None);
}

#[tokio::test]
async fn a_second_unusable_reply_fails_with_a_typed_error_and_no_third_call() {
    let rig = Rig::new(Script::new().role(
        Role::AgentValidator,
        [
            Step::reply(r#"{"verdicts": [{"criterion": "x"}]}"#),
            Step::reply(r#"{"verdicts": [{"criterion": "x", "met": "maybe"}]}"#),
            Step::reply(r#"{"verdicts": []}"#),
        ],
    ))
    .await;
    let err = rig
        .role(Role::AgentValidator)
        .structured::<Verdicts>(&ctx(), &ask())
        .await
        .unwrap_err();
    match &err {
        LlmError::InvalidOutput {
            role,
            expected,
            n_asks,
            error: ExtractError::Rejected { reason },
            raw,
        } => {
            assert_eq!(*role, Role::AgentValidator);
            assert_eq!(expected, "Verdicts");
            assert_eq!(*n_asks, 2);
            assert!(reason.contains("invalid type"), "{reason}");
            assert!(raw.contains("maybe"));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(!err.is_environmental());
    // The first re-ask quoted serde's complaint about the missing field.
    let second = rig.server.requests()[1].messages();
    assert!(
        second[3].1.contains("missing field `met`"),
        "{}",
        second[3].1
    );
    assert_eq!(rig.server.requests().len(), 2);
    assert_eq!(rig.server.remaining(Role::AgentValidator), 1);
}

#[tokio::test]
async fn semantic_checks_reject_a_well_typed_object_and_are_quoted_in_the_reask() {
    let rig = Rig::new(Script::new().role(
        Role::Perceiver,
        [
            Step::reply(r#"{"intent": ""}"#),
            Step::reply(r#"{"intent": "list files"}"#),
        ],
    ))
    .await;
    let out = rig
        .role(Role::Perceiver)
        .structured_checked::<Intent, _>(&ctx(), &ChatRequest::new("Perceive.", "ls"), |i| {
            if i.intent.trim().is_empty() {
                Err("intent must not be empty".into())
            } else {
                Ok(())
            }
        })
        .await
        .unwrap();
    assert_eq!(out.value.intent, "list files");
    let reask = &rig.server.requests()[1].messages()[3].1;
    assert!(reask.contains("intent must not be empty"), "{reask}");
}

#[tokio::test]
async fn json_only_in_reasoning_content_is_not_taken_as_the_answer() {
    let rig = Rig::new(Script::new().role(
        Role::Planner,
        [
            Step::reply("").reasoning(r#"Draft: {"intent": "rm -rf"}"#),
            Step::reply(r#"{"intent": "list files"}"#),
        ],
    ))
    .await;
    let out = rig
        .role(Role::Planner)
        .structured::<Intent>(&ctx(), &ChatRequest::new("Plan.", "ls"))
        .await
        .unwrap();
    assert_eq!(out.value.intent, "list files");
    let reask = &rig.server.requests()[1].messages()[3].1;
    assert!(reask.contains("only reasoning"), "{reask}");
}

#[tokio::test]
async fn an_endpoint_without_json_schema_is_downgraded_once_and_remembered() {
    let reply = || Step::reply(r#"{"intent": "x"}"#);
    let rig = Rig::new(
        Script::new()
            .response_formats(&["json_object"])
            .role(Role::Perceiver, [reply(), reply()])
            .role(Role::Planner, [reply()]),
    )
    .await;
    assert_eq!(rig.llm.output_mode(Tier::Brain), None);
    let first = rig
        .role(Role::Perceiver)
        .structured::<Intent>(&ctx(), &ChatRequest::new("p", "u"))
        .await
        .unwrap();
    assert_eq!(first.mode, OutputMode::JsonObject);
    assert_eq!(
        rig.llm.output_mode(Tier::Brain),
        Some(OutputMode::JsonObject)
    );
    // Later calls to the same endpoint and model skip the probe.
    rig.role(Role::Perceiver)
        .structured::<Intent>(&ctx(), &ChatRequest::new("p", "u"))
        .await
        .unwrap();
    rig.role(Role::Planner)
        .structured::<Intent>(&ctx(), &ChatRequest::new("p", "u"))
        .await
        .unwrap();
    let formats: Vec<_> = rig
        .server
        .requests()
        .iter()
        .map(|r| r.response_format().map(str::to_string))
        .collect();
    assert_eq!(
        formats,
        vec![
            Some("json_schema".to_string()),
            Some("json_object".to_string()),
            Some("json_object".to_string()),
            Some("json_object".to_string()),
        ]
    );
    // The rejected probe is not a model call of its own.
    assert_eq!(rig.llm.usage().lifetime().total().calls, 3);
}

#[tokio::test]
async fn an_endpoint_without_any_response_format_falls_back_to_the_prompt() {
    let rig = Rig::new(
        Script::new()
            .response_formats(&[])
            .role(Role::Executor, [Step::reply(r#"{"intent": "x"}"#)]),
    )
    .await;
    let out = rig
        .role(Role::Executor)
        .structured::<Intent>(&ctx(), &ChatRequest::new("p", "u"))
        .await
        .unwrap();
    assert_eq!(out.mode, OutputMode::PromptOnly);
    assert_eq!(rig.server.requests().len(), 3);
    assert_eq!(rig.server.requests()[2].response_format(), None);
    // Nothing constrains the reply: the prompt carries the whole schema.
    let system = &rig.server.requests()[2].messages()[0].1;
    assert!(
        system.contains("must match this JSON Schema") && system.contains("\"properties\""),
        "{system}"
    );
    assert_eq!(
        rig.llm.output_mode(Tier::Tool),
        Some(OutputMode::PromptOnly)
    );
    // The brain tier is a different model: nothing was learned for it.
    assert_eq!(rig.llm.output_mode(Tier::Brain), None);
}

#[tokio::test]
async fn a_bad_request_unrelated_to_the_format_does_not_downgrade() {
    let rig = Rig::new(Script::new().role(
        Role::Executor,
        [Step::http_error(400).body(
            r#"{"error": {"message": "This model's maximum context length is 4096 tokens"}}"#,
        )],
    ))
    .await;
    let err = rig
        .role(Role::Executor)
        .structured::<Intent>(&ctx(), &ChatRequest::new("p", "u"))
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Api { status: 400, .. }), "{err:?}");
    assert_eq!(rig.server.requests().len(), 1);
    assert_eq!(rig.llm.output_mode(Tier::Tool), None);
}
