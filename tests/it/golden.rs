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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use artoo::bus::{Envelope, TapEvent};
use artoo::config::GgsParams;
use artoo::contracts::{Decision, Message, TaskId};
use artoo::describe::DescribedEnvelope;
use artoo::runtime::{Runtime, RuntimeOptions};
use artoo::tasklog::TaskLogDir;
use artoo::testkit::{Script, ScriptedServer, llm_config};
use artoo::{Config, FakeClock};
use serde_json::Value;

/// One recorded scenario: the fixture it runs and what the user does.
pub struct Scenario {
    /// The fixture under `tests/fixtures/llm/` and the transcript's file name.
    pub name: &'static str,
    /// What the user types.
    pub input: &'static str,
    /// Files in the workspace before the task.
    pub files: &'static [(&'static str, &'static str)],
    /// Settings the scenario needs.
    pub adjust: fn(&mut Config),
}

fn defaults(_: &mut Config) {}

fn no_retries(config: &mut Config) {
    config.budgets.max_retries = 0;
}

/// Every recorded scenario.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "list_workspace",
        input: "what files are in my workspace?",
        files: &[("a.txt", "alpha"), ("b.txt", "bravo")],
        adjust: defaults,
    },
    Scenario {
        name: "greeting",
        input: "hello",
        files: &[],
        adjust: defaults,
    },
    Scenario {
        name: "replan_law1",
        input: "delete the old draft in my workspace",
        files: &[("draft-old.txt", "old"), ("notes.txt", "keep me")],
        adjust: no_retries,
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

/// Runs one scenario through the real runtime and returns its normalised traffic.
async fn record(scenario: &Scenario) -> Value {
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
        .join(format!("{}.json", scenario.name));
    let script = Script::from_file(&fixture).expect("the fixture parses");
    let server = ScriptedServer::start(script).await.expect("server starts");
    let mut config = Config::with_dirs(root.join("data"), &workspace);
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
                        Message::ConfirmationRequest(r) => runtime
                            .answer_confirmation(r.request_id, Decision::Approve)
                            .await
                            .expect("the request is open"),
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
    // What the end sets off (memory writes) lands before the runtime stops.
    tokio::time::sleep(Duration::from_millis(200)).await;
    while let Some(event) = tap.try_recv() {
        if let TapEvent::Message(env) = event {
            seen.push(env);
        }
    }
    runtime.shutdown().await;
    server.shutdown().await;
    // The runtime's own recording of the run is exactly the task's traffic.
    let recorded = TaskLogDir::new(&root.join("data"))
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
    described(normalise(&seen, &root), &ggs)
}

/// Fields whose value is a wall time measured on this machine.
const WALL_TIMES: &[&str] = &["elapsed_ms", "duration_ms", "wall_ms", "latency_ms"];
/// `LlmCall` fields that carry the prompts (with machine facts) or follow from them.
const PROMPT_FIELDS: &[&str] = &["system_prompt", "user_prompt", "prompt_tokens"];

fn normalise(seen: &[Arc<Envelope>], root: &Path) -> Value {
    let plain: Vec<&Envelope> = seen.iter().map(Arc::as_ref).collect();
    let mut value = serde_json::to_value(plain).expect("envelopes serialise");
    let mut ids = Ids::default();
    let root = root.display().to_string();
    walk(&mut value, None, &mut |key, v| match v {
        Value::String(s) => *s = ids.replace(&s.replace(&root, "$TMP")),
        Value::Number(_) if key.is_some_and(|k| WALL_TIMES.contains(&k)) => *v = Value::from(0),
        _ => {}
    });
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

/// Ids (UUIDs and task ids) numbered in order of first appearance, wherever they occur.
#[derive(Default)]
struct Ids {
    seen: HashMap<String, String>,
}

impl Ids {
    fn replace(&mut self, text: &str) -> String {
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

#[tokio::test]
async fn the_golden_transcripts_are_what_the_runtime_sends() {
    let bless = std::env::var_os("ARTOO_BLESS_TS").is_some();
    for scenario in SCENARIOS {
        let recorded = record(scenario).await;
        let path = fixtures()
            .join("transcripts")
            .join(format!("{}.json", scenario.name));
        let text = serde_json::to_string_pretty(&recorded).expect("serialises") + "\n";
        if bless {
            std::fs::write(&path, text).expect("transcript written");
            continue;
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        if kept != text {
            let kept: Value = serde_json::from_str(&kept).unwrap_or(Value::Null);
            let at = (0..)
                .find(|&i| kept.get(i) != recorded.get(i))
                .expect("they differ somewhere");
            panic!(
                "{} is stale from envelope {at}:\nkept:     {}\nrecorded: {}\n\
                 (ARTOO_BLESS_TS=1 records it again)",
                path.display(),
                kept.get(at).unwrap_or(&Value::Null),
                recorded.get(at).unwrap_or(&Value::Null),
            );
        }
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
