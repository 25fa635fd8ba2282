//! Golden transcripts: the traffic the real runtime puts on the bus for whole tasks,
//! recorded from the scripted models of `tests/fixtures/llm/<scenario>.json` and kept,
//! normalised, in `tests/fixtures/transcripts/<scenario>.json`. A change to the pipeline
//! that changes its traffic fails here until the transcripts are blessed again
//! (`ARTOO_BLESS_TS=1`, like the TypeScript bindings), and the tests that read
//! transcripts (the task log, the auditor, the CLI renderers) read these, so none of
//! them can be built on traffic the pipeline never sends.
//!
//! Normalisation makes a recording the same on every machine and every run: the runtime
//! runs on a fake clock (every timestamp and every elapsed time it computes is fixed);
//! ids are numbered in order of first appearance; the temporary directory becomes `$TMP`;
//! wall times measured on the machine become 0; prompts (which carry machine facts) are
//! left out of `LlmCall`s, and so are the token counts derived from them.
//!
//! Recording a scenario also checks that the runtime's task log holds exactly the task's
//! envelopes, the ones the tap saw.
//!
//! Each envelope is kept as the desktop sends it to the UI, with the core's line for it
//! (`DescribedEnvelope`, written from the normalised envelope), so the UI's tests read the
//! lines the core writes; readers of plain envelopes skip the `line`.
//!
//! Beside the traffic, `tests/fixtures/recorded/<scenario>.json` keeps what the runtime
//! recorded of the run in its data directory, normalised with the same id mapping: the
//! task log's row and fold of the run (`RunSummary`, `Trajectory`), the auditor's events,
//! reports and chain verification (hashes numbered in order of appearance, so the chain's
//! links stay visible), the memory store's groups with their Megrams and potentials
//! after the run, and what the memory operator API answered when driven after it
//! (remember, pin, forget). The UI's fake backend replays these instead of simulating a
//! pipeline, an auditor or a memory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use artoo::auditor::{AuditEvent, AuditHistory, EventFilter};
use artoo::bus::{Envelope, TapEvent};
use artoo::config::GgsParams;
use artoo::contracts::{Decision, Level, MegramId, Message, TaskId};
use artoo::describe::DescribedEnvelope;
use artoo::memory::{ForgetTarget as CoreForget, Remember};
use artoo::runtime::{Runtime, RuntimeOptions};
use artoo::tasklog::TaskLogDir;
use artoo::testkit::{Script, ScriptedServer, llm_config};
use artoo::{Config, FakeClock};
use serde_json::Value;

/// What the user does when a Law 1 request reaches them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtLaw1 {
    Answer(Decision),
    /// Cancels the task instead of answering.
    Cancel,
}

/// One recorded scenario: the fixture it runs and what the user does.
pub struct Scenario {
    /// The transcript's file name.
    pub name: &'static str,
    /// The model script under `tests/fixtures/llm/`.
    pub fixture: &'static str,
    /// What the user types.
    pub input: &'static str,
    /// Files in the workspace before the task.
    pub files: &'static [(&'static str, &'static str)],
    /// Settings the scenario needs.
    pub adjust: fn(&mut Config),
    /// What the user does at a Law 1 request.
    pub law1: AtLaw1,
    /// What the user answers to a clarifying question.
    pub clarification: &'static str,
}

fn defaults(_: &mut Config) {}

fn no_retries(config: &mut Config) {
    config.budgets.max_retries = 0;
}

fn one_replan(config: &mut Config) {
    config.budgets.max_retries = 0;
    config.budgets.max_replans = 1;
}

const APPROVE: AtLaw1 = AtLaw1::Answer(Decision::Approve);

/// Every recorded scenario.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "list_workspace",
        fixture: "list_workspace",
        input: "what files are in my workspace?",
        files: &[("a.txt", "alpha"), ("b.txt", "bravo")],
        adjust: defaults,
        law1: APPROVE,
        clarification: "",
    },
    Scenario {
        name: "greeting",
        fixture: "greeting",
        input: "hello",
        files: &[],
        adjust: defaults,
        law1: APPROVE,
        clarification: "",
    },
    Scenario {
        name: "replan_law1",
        fixture: "replan_law1",
        input: "delete the old draft in my workspace",
        files: &[("draft-old.txt", "old"), ("notes.txt", "keep me")],
        adjust: no_retries,
        law1: APPROVE,
        clarification: "",
    },
    Scenario {
        name: "replan_law1_denied",
        fixture: "replan_law1_denied",
        input: "delete the old draft in my workspace",
        files: &[("draft-old.txt", "old"), ("notes.txt", "keep me")],
        adjust: one_replan,
        law1: AtLaw1::Answer(Decision::Deny),
        clarification: "",
    },
    Scenario {
        name: "replan_law1_trashed",
        fixture: "replan_law1",
        input: "delete the old draft in my workspace",
        files: &[("draft-old.txt", "old"), ("notes.txt", "keep me")],
        adjust: no_retries,
        law1: AtLaw1::Answer(Decision::Trash),
        clarification: "",
    },
    Scenario {
        name: "replan_law1_cancelled",
        fixture: "replan_law1",
        input: "delete the old draft in my workspace",
        files: &[("draft-old.txt", "old"), ("notes.txt", "keep me")],
        adjust: no_retries,
        law1: AtLaw1::Cancel,
        clarification: "",
    },
    Scenario {
        name: "clarify",
        fixture: "clarify",
        input: "tidy up",
        files: &[("a.txt", "alpha"), ("b.txt", "bravo")],
        adjust: defaults,
        law1: APPROVE,
        clarification: "list the files in my workspace",
    },
    Scenario {
        name: "abandon",
        fixture: "abandon",
        input: "read the report in my drafts folder",
        files: &[("notes.txt", "keep me")],
        adjust: one_replan,
        law1: APPROVE,
        clarification: "",
    },
];

/// The longest a recording may take (scripted replies are instant).
const RECORDING_TIMEOUT: Duration = Duration::from_secs(60);

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The blessed transcript of a scenario: its envelopes, normalised.
pub fn transcript(name: &str) -> Vec<Envelope> {
    let path = fixtures().join("transcripts").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The task a transcript is about (the one its first envelope names).
pub fn task_of(envelopes: &[Envelope]) -> TaskId {
    envelopes
        .iter()
        .find_map(|e| e.task_id.clone())
        .expect("a transcript of a task names it")
}

/// What one recording keeps: the traffic, and what the runtime wrote of the run.
struct Recorded {
    transcript: Value,
    run: Value,
}

/// Runs one scenario through the real runtime and returns its normalised traffic and
/// records.
async fn record(scenario: &Scenario) -> Recorded {
    let dirs = tempfile::tempdir().expect("temp dir");
    let root = dirs.path().canonicalize().expect("temp dir resolves");
    let home = root.join("home");
    let workspace = home.join("artoo_workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    for (name, text) in scenario.files {
        std::fs::write(workspace.join(name), text).expect("workspace file");
    }
    let fixture = fixtures()
        .join("llm")
        .join(format!("{}.json", scenario.fixture));
    let script = Script::from_file(&fixture).expect("the fixture parses");
    let server = ScriptedServer::start(script).await.expect("server starts");
    let data = root.join("data");
    let mut config = Config::with_dirs(data.clone(), &workspace);
    config.home = home;
    config.llm = llm_config(&server.base_url());
    (scenario.adjust)(&mut config);
    let ggs = config.ggs.clone();
    let runtime = Runtime::start(
        config,
        RuntimeOptions {
            clock: FakeClock::at_epoch(),
        },
    )
    .await
    .expect("the runtime starts");
    let mut tap = runtime.tap("golden");
    let task = runtime.submit(scenario.input).expect("submitted");

    let mut seen: Vec<Arc<Envelope>> = Vec::new();
    let reading = async {
        loop {
            match tap.recv().await {
                Some(TapEvent::Message(env)) => {
                    seen.push(Arc::clone(&env));
                    match &env.message {
                        Message::ConfirmationRequest(r) => match scenario.law1 {
                            AtLaw1::Answer(decision) => runtime
                                .answer_confirmation(r.request_id, decision)
                                .await
                                .expect("the request is open"),
                            AtLaw1::Cancel => {
                                runtime
                                    .cancel(&task, "cancelled by the user")
                                    .expect("the task runs");
                            }
                        },
                        Message::ClarificationRequest(_) => runtime
                            .answer_clarification(&task, scenario.clarification)
                            .await
                            .expect("the question is open"),
                        Message::TaskClosed(c) if c.task_id == task => break,
                        _ => {}
                    }
                }
                Some(TapEvent::Gap { skipped }) => panic!("the tap lost {skipped} messages"),
                None => panic!("the bus closed before the task did"),
            }
        }
    };
    tokio::time::timeout(RECORDING_TIMEOUT, reading)
        .await
        .unwrap_or_else(|_| panic!("{}: the task did not close", scenario.name));
    // What the end sets off (memory writes, a cancel's denials) lands before the runtime
    // stops.
    tokio::time::sleep(Duration::from_millis(200)).await;
    while let Some(event) = tap.try_recv() {
        if let TapEvent::Message(env) = event {
            seen.push(env);
        }
    }
    // Two on-demand reports, as the audit panel asks for them, over the window the run
    // fell in (an on-demand report closes no window, so the second covers it again; their
    // queries and reports are not the task's traffic, so not the transcript's).
    let report = runtime.audit_now().await.expect("the auditor reports");
    let again = runtime
        .audit_now()
        .await
        .expect("the auditor reports again");
    let asked = drained(&mut tap).await;
    let memory = memory_snapshot(&runtime).await;
    let written = recorded_write(&memory);
    let (operator, changes) = operate(&runtime, &mut tap, written).await;
    runtime.shutdown().await;
    server.shutdown().await;
    // The runtime's own recording of the run is exactly the task's traffic.
    let logs = TaskLogDir::new(&data);
    let recorded = logs
        .latest_of(&task)
        .expect("the task logs read")
        .unwrap_or_else(|| panic!("{}: the runtime recorded no run", scenario.name));
    assert!(
        recorded.skipped.is_empty() && !recorded.truncated,
        "{}",
        scenario.name
    );
    let of_task: Vec<Arc<Envelope>> = seen
        .iter()
        .filter(|e| e.task_id.as_ref() == Some(&task))
        .cloned()
        .collect();
    assert_eq!(recorded.envelopes(), of_task, "{}", scenario.name);
    let summary = logs
        .summary(&recorded.run_id)
        .expect("the task logs read")
        .expect("the run is listed");

    let history = AuditHistory::new(&data);
    let events = history
        .events(&EventFilter {
            limit: usize::MAX,
            ..EventFilter::default()
        })
        .expect("the audit log reads");
    let reports = history.reports(usize::MAX).expect("the reports read");
    let verify = history.verify().expect("the audit log verifies");
    assert!(
        verify.is_clean(),
        "{}: the auditor's chain is broken: {verify:?}",
        scenario.name
    );

    for asked in [&report, &again] {
        assert!(
            reports.iter().any(|r| r.report_id == asked.report_id),
            "{}: the on-demand reports are kept",
            scenario.name
        );
    }

    let mut ids = Ids::default();
    let transcript = described(normalise(&seen, &root, &mut ids), &ggs);
    let asked = described(normalise(&asked, &root, &mut ids), &ggs);
    let changes = described(normalise(&changes, &root, &mut ids), &ggs);
    let mut run = serde_json::json!({
        "summary": summary,
        "trajectory": recorded.trajectory(),
        "audit": { "events": events, "reports": reports, "verify": verify },
        "memory": memory,
        "operator": { "steps": operator },
    });
    normalise_value(&mut run, &root, &mut ids);
    // Normalised already: in place only now, or their ids would be numbered twice.
    run["audit"]["asked"] = asked.clone();
    run["operator"]["changes"] = changes.clone();
    audit_details_of(
        &mut run["audit"]["events"],
        [&transcript, &asked, &changes],
        &ggs,
    );
    without_prompt_tokens(&mut run);
    run["summary"]["total_tokens"] = run["trajectory"]["usage"]["total_tokens"].clone();
    Recorded { transcript, run }
}

/// What the tap holds once the auditor and the memory have published (their replies
/// land at once; the sleep only lets them reach the tap).
async fn drained(tap: &mut artoo::bus::Tap) -> Vec<Arc<Envelope>> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut out = Vec::new();
    while let Some(event) = tap.try_recv() {
        if let TapEvent::Message(env) = event {
            out.push(env);
        }
    }
    out
}

/// The Megram the run wrote (the first group's that is not a law), if it wrote one.
fn recorded_write(memory: &Value) -> Option<MegramId> {
    memory.as_array()?.iter().find_map(|g| {
        let view = g["megrams"].as_array()?.first()?;
        (view["megram"]["state"] != "law")
            .then(|| serde_json::from_value(view["megram"]["id"].clone()).ok())
            .flatten()
    })
}

/// Contents remembered per level; each into a group of its own, so no step's result
/// depends on another's.
const REMEMBERED: &[(Level, &str, &str)] = &[
    (
        Level::C,
        "remembered:c",
        "Answer in English unless I write in Chinese.",
    ),
    (
        Level::K,
        "remembered:k",
        "The drafts folder holds only old copies.",
    ),
    (Level::M, "remembered:m", "Keep installers for a week."),
    (Level::T, "remembered:t", "Always be terse."),
];

/// The memory operator API after the run, as the memory panel drives it: remember at
/// every level, pin and then forget the run's Megram, forget a law. Each step keeps
/// what the API returned (or its error) and its group afterwards; the changes it
/// published on the bus are returned beside the steps.
async fn operate(
    runtime: &Runtime,
    tap: &mut artoo::bus::Tap,
    written: Option<MegramId>,
) -> (Value, Vec<Arc<Envelope>>) {
    let memory = runtime.memory();
    let mut steps = Vec::new();
    let outcome = |r: Result<Value, String>| match r {
        Ok(v) => serde_json::json!({ "ok": v }),
        Err(e) => serde_json::json!({ "error": e }),
    };
    let group_after = |space: String, entity: String| async move {
        let views = memory.group(&space, &entity).await.expect("a group reads");
        let group = memory
            .groups()
            .await
            .expect("groups read")
            .into_iter()
            .find(|g| g.space == space && g.entity == entity);
        group.map(|g| serde_json::json!({ "group": g, "megrams": views }))
    };
    for &(level, space, content) in REMEMBERED {
        let entity = "env:local";
        let r = memory
            .remember(Remember::new(content).level(level).tags(space, entity))
            .await;
        steps.push(serde_json::json!({
            "action": "remember",
            "level": level,
            "space": space,
            "entity": entity,
            "result": outcome(r.map(|m| serde_json::to_value(m).expect("serialises")).map_err(|e| e.to_string())),
            "after": group_after(space.into(), entity.into()).await,
        }));
    }
    if let Some(id) = written {
        let pinned = memory.pin(id).await;
        let tags = pinned
            .as_ref()
            .map(|m| (m.space.clone(), m.entity.clone()))
            .expect("the run's Megram pins");
        steps.push(serde_json::json!({
            "action": "pin",
            "id": id,
            "result": outcome(pinned.map(|m| serde_json::to_value(m).expect("serialises")).map_err(|e| e.to_string())),
            "after": group_after(tags.0.clone(), tags.1.clone()).await,
        }));
        let forgot = memory.forget(CoreForget::Id(id)).await;
        steps.push(serde_json::json!({
            "action": "forget",
            "id": id,
            "result": outcome(forgot.map(|r| serde_json::to_value(r).expect("serialises")).map_err(|e| e.to_string())),
            "after": group_after(tags.0, tags.1).await,
        }));
    }
    let law = memory
        .group("laws", "law:0")
        .await
        .expect("the laws read")
        .first()
        .map(|v| v.megram.id)
        .expect("Law 0 is stored");
    let refused = memory.forget(CoreForget::Id(law)).await;
    steps.push(serde_json::json!({
        "action": "forget",
        "id": law,
        "result": outcome(refused.map(|r| serde_json::to_value(r).expect("serialises")).map_err(|e| e.to_string())),
        "after": group_after("laws".into(), "law:0".into()).await,
    }));
    (Value::Array(steps), drained(tap).await)
}

/// Every memory group after the run, with its Megrams as the memory panel reads them.
async fn memory_snapshot(runtime: &Runtime) -> Value {
    let mut groups = Vec::new();
    for group in runtime.memory().groups().await.expect("memory groups read") {
        let megrams = runtime
            .memory()
            .group(&group.space, &group.entity)
            .await
            .expect("a memory group reads");
        groups.push(serde_json::json!({ "group": group, "megrams": megrams }));
    }
    Value::Array(groups)
}

/// Fields whose value is a wall time measured on this machine.
const WALL_TIMES: &[&str] = &[
    "elapsed_ms",
    "duration_ms",
    "wall_ms",
    "latency_ms",
    "tool_elapsed_ms",
];
/// `LlmCall` fields that carry the prompts (with machine facts) or follow from them.
const PROMPT_FIELDS: &[&str] = &["system_prompt", "user_prompt", "prompt_tokens"];

fn normalise(seen: &[Arc<Envelope>], root: &Path, ids: &mut Ids) -> Value {
    let plain: Vec<&Envelope> = seen.iter().map(Arc::as_ref).collect();
    let mut value = serde_json::to_value(plain).expect("envelopes serialise");
    normalise_value(&mut value, root, ids);
    if let Value::Array(envelopes) = &mut value {
        for env in envelopes {
            if env["message"]["type"] == "LlmCall" {
                let payload = &mut env["message"]["payload"];
                for field in PROMPT_FIELDS {
                    if let Some(v) = payload.get_mut(*field) {
                        *v = if v.is_string() {
                            Value::from("")
                        } else {
                            Value::from(0)
                        };
                    }
                }
            }
        }
    }
    value
}

/// Ids, the temporary directory, wall times and hashes of `value`, made the same on every
/// run.
fn normalise_value(value: &mut Value, root: &Path, ids: &mut Ids) {
    let root = root.display().to_string();
    walk(value, None, &mut |key, v| match v {
        Value::String(s) => *s = ids.replace(&s.replace(&root, "$TMP")),
        Value::Number(_) if key.is_some_and(|k| WALL_TIMES.contains(&k)) => *v = Value::from(0),
        _ => {}
    });
}

/// Each audit event of a bus message with the detail the auditor writes for the
/// normalised envelope (its own detail measured wall times and prompt tokens).
fn audit_details_of(events: &mut Value, traffic: [&Value; 3], ggs: &GgsParams) {
    let mut envelopes: Vec<Envelope> = Vec::new();
    for part in traffic {
        let part: Vec<Envelope> =
            serde_json::from_value(part.clone()).expect("the traffic reads back");
        envelopes.extend(part);
    }
    for event in events.as_array_mut().expect("events are a list") {
        let Some(id) = event.get("envelope_id").and_then(Value::as_str) else {
            continue;
        };
        let env = envelopes
            .iter()
            .find(|e| e.id.to_string() == id)
            .unwrap_or_else(|| {
                panic!("the audit log names envelope {id}, which the tap never saw")
            });
        event["detail"] = Value::from(AuditEvent::for_envelope(env, vec![], ggs).detail);
    }
}

/// Prompt token counts (they follow from the prompts, which carry machine facts) as 0,
/// and token totals as the completion tokens alone.
fn without_prompt_tokens(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(without_prompt_tokens),
        Value::Object(map) => {
            if map.contains_key("prompt_tokens") {
                map.insert("prompt_tokens".into(), Value::from(0));
            }
            for v in map.values_mut() {
                without_prompt_tokens(v);
            }
            if let Some(stats) = map.get("role_stats").and_then(Value::as_array) {
                let completion: u64 = stats
                    .iter()
                    .filter_map(|s| s["completion_tokens"].as_u64())
                    .sum();
                map.insert("total_tokens".into(), Value::from(completion));
            }
        }
        _ => {}
    }
}

/// The normalised envelopes, each with its line.
fn described(normalised: Value, ggs: &GgsParams) -> Value {
    let envelopes: Vec<Arc<Envelope>> =
        serde_json::from_value(normalised).expect("normalised envelopes read back");
    let described: Vec<DescribedEnvelope> = envelopes
        .into_iter()
        .map(|e| DescribedEnvelope::new(e, ggs))
        .collect();
    serde_json::to_value(described).expect("envelopes serialise")
}

fn walk(value: &mut Value, key: Option<&str>, f: &mut dyn FnMut(Option<&str>, &mut Value)) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| walk(v, key, f)),
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                walk(v, Some(k), f);
            }
        }
        _ => f(key, value),
    }
}

/// Ids (UUIDs and task ids) numbered in order of first appearance, wherever they occur;
/// and SHA-256 hashes (the audit chain's), numbered apart in order of first appearance,
/// so a hash and the `prev` that names it stay equal. The chain's genesis stays as is.
#[derive(Default)]
struct Ids {
    seen: HashMap<String, String>,
    hashes: HashMap<String, String>,
}

impl Ids {
    fn replace(&mut self, text: &str) -> String {
        if text.len() == 64
            && text.bytes().all(|b| b.is_ascii_hexdigit())
            && text.bytes().any(|b| b != b'0')
        {
            let next = self.hashes.len() + 1;
            return self
                .hashes
                .entry(text.to_string())
                .or_insert_with(|| format!("{next:064x}"))
                .clone();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while !rest.is_empty() {
            if let Some(len) = id_at(rest) {
                let (id, tail) = rest.split_at(len);
                let next = self.seen.len() + 1;
                let stable = self.seen.entry(id.to_string()).or_insert_with(|| {
                    if id.starts_with("task_") {
                        format!("task_{next:012}")
                    } else {
                        format!("00000000-0000-4000-8000-{next:012}")
                    }
                });
                out.push_str(stable);
                rest = tail;
            } else {
                let c = rest.chars().next().expect("not empty");
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        out
    }
}

/// The length of the id `text` starts with: a UUID (8-4-4-4-12 hex digits) or a task id
/// (`task_` and 12 hex digits).
fn id_at(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let hex = |range: std::ops::Range<usize>| {
        b.get(range)
            .is_some_and(|s| s.iter().all(u8::is_ascii_hexdigit))
    };
    if let Some(tail) = text.strip_prefix("task_")
        && tail.len() >= 12
        && hex(5..17)
    {
        return Some(17);
    }
    let dashes = [8, 13, 18, 23];
    let uuid = b.len() >= 36
        && dashes.iter().all(|&i| b[i] == b'-')
        && hex(0..8)
        && hex(9..13)
        && hex(14..18)
        && hex(19..23)
        && hex(24..36);
    uuid.then_some(36)
}

/// Writes `value` to `path` when blessing, else fails unless `path` holds it.
fn bless_or_compare(path: &Path, value: &Value, bless: bool) {
    let text = serde_json::to_string_pretty(value).expect("serialises") + "\n";
    if bless {
        std::fs::write(path, text).expect("golden file written");
        return;
    }
    let kept = std::fs::read_to_string(path).unwrap_or_default();
    if kept == text {
        return;
    }
    let kept: Value = serde_json::from_str(&kept).unwrap_or(Value::Null);
    let (at, kept, recorded) = first_difference("", &kept, value);
    panic!(
        "{} is stale at {at}:\nkept:     {kept}\nrecorded: {recorded}\n\
         (ARTOO_BLESS_TS=1 records it again)",
        path.display(),
    );
}

/// Where two JSON values first differ: the path and the two values there.
fn first_difference(at: &str, a: &Value, b: &Value) -> (String, Value, Value) {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            if let Some(i) = (0..x.len()).find(|&i| x[i] != y[i]) {
                return first_difference(&format!("{at}/{i}"), &x[i], &y[i]);
            }
        }
        (Value::Object(x), Value::Object(y)) if x.keys().eq(y.keys()) => {
            if let Some(k) = x.keys().find(|k| x[*k] != y[*k]) {
                return first_difference(&format!("{at}/{k}"), &x[k], &y[k]);
            }
        }
        _ => {}
    }
    (at.to_string(), a.clone(), b.clone())
}

#[tokio::test]
async fn the_golden_transcripts_are_what_the_runtime_sends() {
    let bless = std::env::var_os("ARTOO_BLESS_TS").is_some();
    for scenario in SCENARIOS {
        let recorded = record(scenario).await;
        let name = format!("{}.json", scenario.name);
        bless_or_compare(
            &fixtures().join("transcripts").join(&name),
            &recorded.transcript,
            bless,
        );
        bless_or_compare(
            &fixtures().join("recorded").join(&name),
            &recorded.run,
            bless,
        );
    }
}

#[test]
fn ids_are_numbered_in_order_and_kept_apart_from_other_words() {
    let mut ids = Ids::default();
    let text = "task_0123456789ab ran 3f2504e0-4f89-41d3-9a0c-0305e82c3301 then \
                task_0123456789ab; task_12 and 3f2504e0 stay";
    assert_eq!(
        ids.replace(text),
        "task_000000000001 ran 00000000-0000-4000-8000-000000000002 then \
         task_000000000001; task_12 and 3f2504e0 stay"
    );
}
