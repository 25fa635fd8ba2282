//! Calls over real HTTP: tier routing, timeouts, retries, cancellation, usage, records.

use std::time::Duration;

use artoo::FakeClock;
use artoo::bus::Bus;
use artoo::contracts::{Role, TaskId};
use artoo::llm::tier::MODEL_ROLES;
use artoo::llm::{CallCtx, ChatRequest, Llm, LlmError, RoleUsage, Tier};
use artoo::testkit::Script;
use artoo::testkit::{BRAIN_MODEL, ScriptedServer, Step, TOOL_MODEL, llm_config_split};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{Rig, script};

fn ctx(task: &TaskId) -> CallCtx {
    CallCtx::for_task(task.clone(), CancellationToken::new())
}

fn ask(text: &str) -> ChatRequest {
    ChatRequest::new("You are a test role.", text)
}

#[tokio::test]
async fn each_role_reaches_its_own_tier_and_names_itself() {
    let brain = ScriptedServer::start(script("tier_routing.json"))
        .await
        .unwrap();
    let tool = ScriptedServer::start(script("tier_routing.json"))
        .await
        .unwrap();
    let config = llm_config_split(&brain.base_url(), &tool.base_url());
    let llm = Llm::new(&config, FakeClock::at_epoch()).unwrap();
    let bus = Bus::new(FakeClock::at_epoch());
    let task = TaskId::mint();

    for role in MODEL_ROLES {
        let reply = llm
            .for_role(bus.handle(role))
            .unwrap()
            .chat(&ctx(&task), &ask("go"))
            .await
            .unwrap_or_else(|e| panic!("{role}: {e}"));
        assert!(!reply.content.is_empty());
    }

    let roles_of = |server: &ScriptedServer| {
        server
            .requests()
            .iter()
            .map(|r| (r.role.clone().unwrap(), r.model().unwrap().to_string()))
            .collect::<Vec<_>>()
    };
    let brain_model = BRAIN_MODEL.to_string();
    let tool_model = TOOL_MODEL.to_string();
    assert_eq!(
        roles_of(&brain),
        vec![
            ("R1".to_string(), brain_model.clone()),
            ("R2".to_string(), brain_model.clone()),
            ("R4b".to_string(), brain_model.clone()),
            ("R5".to_string(), brain_model),
        ]
    );
    assert_eq!(
        roles_of(&tool),
        vec![
            ("R3".to_string(), tool_model.clone()),
            ("R4a".to_string(), tool_model)
        ]
    );
    assert_eq!(llm.endpoint(Tier::Tool).base_url, tool.base_url());
}

#[tokio::test]
async fn a_role_that_never_calls_a_model_gets_no_client() {
    let rig = Rig::new(Script::new()).await;
    let err = rig
        .llm
        .for_role(rig.bus.handle(Role::Ggs))
        .err()
        .expect("the GGS has no tier");
    assert_eq!(err, LlmError::NoTier { role: Role::Ggs });
}

#[tokio::test(start_paused = true)]
async fn a_hanging_endpoint_fails_at_the_call_timeout_without_retrying() {
    let mut rig = Rig::with(script("hang.json"), |c| {
        c.call_timeout_secs = Some(7);
        c.max_attempts = 3;
    })
    .await;
    let started = Instant::now();
    let err = rig
        .role(Role::Planner)
        .chat(&ctx(&TaskId::mint()), &ask("plan"))
        .await
        .unwrap_err();
    let waited = started.elapsed();
    assert_eq!(
        err,
        LlmError::Timeout {
            after: Duration::from_secs(7)
        }
    );
    assert!(
        waited >= Duration::from_secs(7) && waited < Duration::from_secs(8),
        "{waited:?}"
    );
    assert_eq!(rig.server.requests_from(Role::Planner).len(), 1);
    let calls = rig.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0].2.error.as_deref(),
        Some("the model endpoint did not answer within 7s")
    );
    assert_eq!(calls[0].2.elapsed_ms, 7000);
}

#[tokio::test(start_paused = true)]
async fn a_429_is_retried_after_the_servers_retry_after_and_then_succeeds() {
    let mut rig = Rig::with(script("rate_limited_then_ok.json"), |c| {
        c.retry_base_ms = 100;
    })
    .await;
    let task = TaskId::mint();
    let started = Instant::now();
    let reply = rig
        .role(Role::Executor)
        .chat(&ctx(&task), &ask("act"))
        .await
        .unwrap();
    let waited = started.elapsed();
    assert!(reply.content.contains("\"result\""));
    // Retry-After said 3 s, far more than the 100 ms backoff: the server's word wins.
    assert!(
        waited >= Duration::from_secs(3) && waited < Duration::from_secs(4),
        "{waited:?}"
    );
    assert_eq!(rig.server.requests_from(Role::Executor).len(), 2);
    // One logical call, one record, with the successful attempt's usage.
    let calls = rig.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].2.prompt_tokens, 40);
    assert_eq!(calls[0].2.error, None);
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_date_is_read_against_the_clock() {
    // The rig's FakeClock stands at 2026-01-01T00:00:00Z.
    let rig = Rig::with(
        Script::new().role(
            Role::Planner,
            [
                Step::http_error(503).retry_after("Thu, 01 Jan 2026 00:00:02 GMT"),
                Step::reply("planned"),
            ],
        ),
        |c| c.retry_base_ms = 10,
    )
    .await;
    let started = Instant::now();
    rig.role(Role::Planner)
        .chat(&ctx(&TaskId::mint()), &ask("plan"))
        .await
        .unwrap();
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(2) && waited < Duration::from_millis(2100),
        "{waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn server_errors_back_off_exponentially_and_stop_at_max_attempts() {
    let errors = [500, 502, 503].map(Step::http_error);
    let rig = Rig::with(Script::new().role(Role::AgentValidator, errors), |c| {
        c.max_attempts = 3;
        c.retry_base_ms = 400;
    })
    .await;
    let started = Instant::now();
    let err = rig
        .role(Role::AgentValidator)
        .chat(&ctx(&TaskId::mint()), &ask("judge"))
        .await
        .unwrap_err();
    let waited = started.elapsed();
    assert!(matches!(err, LlmError::Api { status: 503, .. }), "{err:?}");
    // 400 ms then 800 ms between the three attempts.
    assert!(
        waited >= Duration::from_millis(1200) && waited < Duration::from_millis(1300),
        "{waited:?}"
    );
    assert_eq!(rig.server.requests().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_beyond_the_limit_fails_at_once_instead_of_stalling() {
    let rig = Rig::new(Script::new().role(
        Role::Perceiver,
        [
            Step::http_error(429).retry_after("3600"),
            Step::reply("late"),
        ],
    ))
    .await;
    let started = Instant::now();
    let err = rig
        .role(Role::Perceiver)
        .chat(&ctx(&TaskId::mint()), &ask("hi"))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(3600))
        }
    );
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(rig.server.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn cancelling_mid_call_ends_it_at_once_and_records_the_failure() {
    let mut rig = Rig::new(script("hang.json")).await;
    let cancel = CancellationToken::new();
    let task = TaskId::mint();
    let call_ctx = CallCtx::for_task(task.clone(), cancel.clone());
    let planner = rig.role(Role::Planner);
    let call = tokio::spawn(async move { planner.chat(&call_ctx, &ask("plan")).await });

    rig.server.wait_for_requests(1).await;
    let started = Instant::now();
    cancel.cancel();
    let result = call.await.unwrap();
    assert_eq!(result.unwrap_err(), LlmError::Cancelled);
    assert!(started.elapsed() < Duration::from_millis(10));

    let calls = rig.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0].2.error.as_deref(),
        Some("the model call was cancelled")
    );
    assert_eq!(
        rig.llm.usage().task(&task).role(Role::Planner).failed_calls,
        1
    );
}

#[tokio::test]
async fn a_call_on_an_already_cancelled_task_never_reaches_the_endpoint() {
    let rig = Rig::new(script("tier_routing.json")).await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = rig
        .role(Role::Perceiver)
        .chat(&CallCtx::for_task(TaskId::mint(), cancel), &ask("hi"))
        .await
        .unwrap_err();
    assert_eq!(err, LlmError::Cancelled);
    assert!(rig.server.requests().is_empty());
}

#[tokio::test(start_paused = true)]
async fn usage_is_totalled_per_role_per_task_and_published_as_records() {
    let mut rig = Rig::new(script("usage.json")).await;
    let task = TaskId::mint();
    let other = TaskId::mint();
    let planner = rig.role(Role::Planner);
    planner.chat(&ctx(&task), &ask("one")).await.unwrap();
    planner.chat(&ctx(&other), &ask("two")).await.unwrap();
    rig.role(Role::Executor)
        .chat(&ctx(&task), &ask("three"))
        .await
        .unwrap();

    let usage = rig.llm.usage().task(&task);
    assert_eq!(
        usage.role(Role::Planner),
        RoleUsage {
            calls: 1,
            failed_calls: 0,
            prompt_tokens: 100,
            completion_tokens: 20,
            wall_ms: 300
        }
    );
    assert_eq!(
        usage.role(Role::Executor),
        RoleUsage {
            calls: 1,
            failed_calls: 0,
            prompt_tokens: 7,
            completion_tokens: 3,
            wall_ms: 50
        }
    );
    assert_eq!(usage.total().total_tokens(), 130);
    assert_eq!(rig.llm.usage().task(&other).total().prompt_tokens, 50);
    assert_eq!(rig.llm.usage().lifetime().total().calls, 3);

    let calls = rig.calls();
    assert_eq!(calls.len(), 3);
    for (from, to, call) in &calls {
        assert_eq!(*from, call.role);
        assert_eq!(*to, Role::Observer);
    }
    let (_, _, first) = &calls[0];
    assert_eq!(first.task_id.as_ref(), Some(&task));
    assert_eq!(first.model, artoo::testkit::BRAIN_MODEL);
    assert_eq!(first.system_prompt, "You are a test role.");
    assert_eq!(first.user_prompt, "one");
    assert_eq!(first.response, "plan one");
    assert_eq!(
        (
            first.prompt_tokens,
            first.completion_tokens,
            first.elapsed_ms
        ),
        (100, 20, 300)
    );
    assert_eq!(calls[2].2.role, Role::Executor);
}

#[tokio::test]
async fn every_request_is_recorded_with_its_role_model_and_messages() {
    let rig = Rig::new(script("tier_routing.json")).await;
    let request = ChatRequest::new("system text", "first question")
        .assistant("first answer")
        .user("second question")
        .temperature(0.2)
        .max_tokens(64);
    rig.role(Role::MetaValidator)
        .chat(&ctx(&TaskId::mint()), &request)
        .await
        .unwrap();
    let recorded = rig.server.requests_from(Role::MetaValidator);
    assert_eq!(recorded.len(), 1);
    let r = &recorded[0];
    assert_eq!(r.model(), Some(artoo::testkit::BRAIN_MODEL));
    assert_eq!(r.response_format(), None);
    assert_eq!(
        r.messages(),
        vec![
            ("system".to_string(), "system text".to_string()),
            ("user".to_string(), "first question".to_string()),
            ("assistant".to_string(), "first answer".to_string()),
            ("user".to_string(), "second question".to_string()),
        ]
    );
    assert_eq!(r.body["max_tokens"], 64);
    assert_eq!(r.body["stream"], false);
    assert!(r.body.get("enable_thinking").is_none());
    assert_eq!(r.step, Some(0));
}

#[tokio::test]
async fn a_tier_with_thinking_enabled_sends_the_switch() {
    let rig = Rig::with(script("tier_routing.json"), |c| {
        c.brain.enable_thinking = true
    })
    .await;
    rig.role(Role::Perceiver)
        .chat(&ctx(&TaskId::mint()), &ask("hi"))
        .await
        .unwrap();
    assert_eq!(rig.server.requests()[0].body["enable_thinking"], true);
}

#[tokio::test]
async fn a_malformed_body_is_a_protocol_error_and_is_not_retried() {
    let rig = Rig::new(Script::new().role(
        Role::Executor,
        [
            Step::malformed("<html>502 Bad Gateway</html>"),
            Step::reply("ok"),
        ],
    ))
    .await;
    let err = rig
        .role(Role::Executor)
        .chat(&ctx(&TaskId::mint()), &ask("go"))
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Protocol { .. }), "{err:?}");
    assert_eq!(rig.server.requests().len(), 1);
}

#[tokio::test]
async fn a_refused_key_is_reported_and_not_retried() {
    let rig = Rig::new(Script::new().role(
        Role::Perceiver,
        [Step::http_error(401).body("{\"error\": {\"message\": \"bad key\"}}")],
    ))
    .await;
    let err = rig
        .role(Role::Perceiver)
        .chat(&ctx(&TaskId::mint()), &ask("hi"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, LlmError::Unauthorized { status: 401, message } if message.contains("bad key")),
        "{err:?}"
    );
    assert_eq!(rig.server.requests().len(), 1);
}

#[tokio::test]
async fn an_unreachable_endpoint_is_reported_after_the_attempts() {
    // Bind a port, then free it: nothing listens there.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    let mut config = llm_config_split(&url, &url);
    config.max_attempts = 2;
    config.retry_base_ms = 1;
    let llm = Llm::new(&config, FakeClock::at_epoch()).unwrap();
    let bus = Bus::new(FakeClock::at_epoch());
    let err = llm
        .for_role(bus.handle(Role::Perceiver))
        .unwrap()
        .chat(&ctx(&TaskId::mint()), &ask("hi"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, LlmError::Unreachable { base_url, .. } if *base_url == url),
        "{err:?}"
    );
    assert!(err.is_environmental());
}

#[tokio::test]
async fn the_answer_of_a_chat_reply_drops_the_reasoning() {
    let rig = Rig::new(Script::new().role(
        Role::Perceiver,
        [Step::reply("<think>greeting, no tools</think>\nHello! I am artoo.").reasoning("extra")],
    ))
    .await;
    let reply = rig
        .role(Role::Perceiver)
        .chat(&ctx(&TaskId::mint()), &ask("hi"))
        .await
        .unwrap();
    assert_eq!(reply.answer(), "Hello! I am artoo.");
    assert_eq!(reply.reasoning.as_deref(), Some("extra"));
    assert!(reply.content.starts_with("<think>"));
}
