//! The shell's commands on Tauri's mock runtime, with the app's real context (so the
//! per-window capabilities apply) over a real core in temp dirs. The model endpoint is a
//! closed port (or, where the model must answer, the scripted server): these tests
//! exercise the shell, not the pipeline.
#![allow(clippy::unwrap_used)] // a test may unwrap: a panic is its failure report

use std::sync::{Arc, Mutex};
use std::time::Duration;

use artoo::config::Config;
use artoo_desktop::dto::UiEvent;
use artoo_desktop::keychain::Keychain;
use artoo_desktop::{Shell, desktop, mock_commands};
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, Channel, InvokeBody, InvokeResponseBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewUrl, WebviewWindow, WebviewWindowBuilder};
use tempfile::TempDir;

const NO_KEYCHAIN: &str = "no keychain in tests";

struct Desk {
    _dir: TempDir,
    shell: Shell,
    app: App<MockRuntime>,
    popup: WebviewWindow<MockRuntime>,
    panels: WebviewWindow<MockRuntime>,
}

fn config(dir: &TempDir, with_model: bool) -> Config {
    let mut config = Config::with_dirs(dir.path().join("data"), dir.path().join("workspace"));
    if with_model {
        // Nothing listens on port 9 (discard): any model call fails fast.
        for tier in [&mut config.llm.brain, &mut config.llm.tool] {
            tier.base_url = Some("http://127.0.0.1:9/v1".into());
            tier.model = Some("scripted".into());
        }
        config.llm.max_attempts = 1;
    }
    config
}

fn desk(with_model: bool) -> Desk {
    let dir = tempfile::tempdir().expect("a temp dir");
    let shell = Shell::new(
        config(&dir, with_model),
        Keychain::Disabled(NO_KEYCHAIN.into()),
    );
    tauri::async_runtime::block_on(shell.start());
    let app = mock_builder()
        .manage(shell.clone())
        .invoke_handler(mock_commands().invoke_handler())
        .build(tauri::generate_context!())
        .expect("the app builds on the mock runtime");
    let url = || WebviewUrl::App("index.html".into());
    let popup = WebviewWindowBuilder::new(&app, desktop::POPUP, url())
        .build()
        .expect("the popup window");
    let panels = WebviewWindowBuilder::new(&app, desktop::PANELS, url())
        .build()
        .expect("the panels window");
    Desk {
        _dir: dir,
        shell,
        app,
        popup,
        panels,
    }
}

fn call(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        window,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("a URL"),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|body| body.deserialize::<Value>().expect("a JSON reply"))
}

fn code(result: Result<Value, Value>) -> String {
    let error = result.expect_err("the command rejects");
    error["code"]
        .as_str()
        .unwrap_or_else(|| panic!("an IpcError, got {error}"))
        .to_string()
}

/// Waits (real time, bounded) until `check` holds.
/// An event channel that records what it is sent, as JSON.
fn recording_channel() -> (Arc<Mutex<Vec<Value>>>, Channel<UiEvent>) {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = seen.clone();
    let channel = Channel::new(move |body: InvokeResponseBody| {
        sink.lock()
            .expect("lock")
            .push(body.deserialize::<Value>().expect("json"));
        Ok(())
    });
    (seen, channel)
}

fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..200 {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn a_submitted_task_returns_its_id_and_reaches_the_event_stream() {
    let desk = desk(true);
    let (seen, channel) = recording_channel();
    let id = desk.shell.hub().subscribe(desktop::POPUP, channel, &[]);

    let task = call(
        &desk.popup,
        "submit_task",
        json!({"text": "list my downloads"}),
    )
    .expect("submit_task resolves");
    let task = task.as_str().expect("a task id").to_string();
    assert!(task.starts_with("task_"), "{task}");
    eventually("the TaskSubmitted envelope", || {
        seen.lock().expect("lock").iter().any(|e| {
            e["kind"] == "envelope"
                && e["envelope"]["task_id"] == task.as_str()
                && e["envelope"]["message"]["type"] == "TaskSubmitted"
                // The core's plain status line travels with the envelope.
                && e["status"] == "Reading your request…"
        })
    });

    assert_eq!(
        code(call(&desk.popup, "submit_task", json!({"text": "   "}))),
        "invalid_input"
    );
    assert!(desk.shell.hub().unsubscribe(id));
    assert_eq!(
        code(call(&desk.popup, "unsubscribe_events", json!({"id": id}))),
        "not_found"
    );
}

#[test]
fn a_late_subscriber_first_gets_the_envelopes_of_running_tasks_then_live_traffic_and_gaps() {
    use artoo::SystemClock;
    use artoo::bus::{Bus, TapEvent};
    use artoo::contracts::{Role, TaskId, TaskSubmitted};
    use artoo_desktop::events::Hub;

    let clock = SystemClock::shared();
    let bus = Bus::new(clock.clone());
    let mut tap = bus.tap("test", 64);
    let user = bus.handle(Role::User);
    let submit = |id: &TaskId| {
        user.publish(
            Role::Perceiver,
            TaskSubmitted {
                task_id: id.clone(),
                raw_input: "x".into(),
                submitted_at: clock.now(),
                session_history: vec![],
                time_budget_ms: 120_000,
                scheduled: None,
            },
        );
    };
    let hub = Hub::default();
    let (running, ended) = (TaskId::mint(), TaskId::mint());
    submit(&ended);
    submit(&running);
    for _ in 0..2 {
        hub.publish(&tap.try_recv().expect("an envelope on the tap"));
    }

    let (seen, channel) = recording_channel();
    hub.subscribe(desktop::POPUP, channel, std::slice::from_ref(&running));
    let tasks = |seen: &[Value]| -> Vec<String> {
        seen.iter()
            .filter_map(|e| e["envelope"]["task_id"].as_str().map(str::to_string))
            .collect()
    };
    // Only the running task's backlog, not the ended one's.
    assert_eq!(tasks(&seen.lock().expect("lock")), [running.to_string()]);

    submit(&running);
    hub.publish(&tap.try_recv().expect("live"));
    hub.publish(&TapEvent::Gap { skipped: 3 });
    let seen = seen.lock().expect("lock");
    assert_eq!(tasks(&seen), [running.to_string(), running.to_string()]);
    // Each envelope arrives with the core's line for its message.
    for event in seen.iter().filter(|e| e["kind"] == "envelope") {
        assert_eq!(event["envelope"]["line"], "x · budget 120 s", "{event}");
    }
    assert_eq!(
        seen.last().expect("the gap"),
        &json!({"kind": "gap", "skipped": 3})
    );
}

#[test]
fn a_navigation_sent_before_the_panels_page_subscribes_reaches_its_first_subscriber_only() {
    use artoo_desktop::dto::PanelTab;
    use artoo_desktop::events::Hub;

    let hub = Hub::default();
    // The panels window was just created: its page has not subscribed yet.
    assert_eq!(hub.navigate(desktop::PANELS, PanelTab::Memory, None), 0);

    let (popup_seen, popup) = recording_channel();
    hub.subscribe(desktop::POPUP, popup, &[]);
    let (first_seen, first) = recording_channel();
    hub.subscribe(desktop::PANELS, first, &[]);
    let (second_seen, second) = recording_channel();
    hub.subscribe(desktop::PANELS, second, &[]);

    let memory = json!({"kind": "navigate", "tab": "memory", "focus": null});
    assert!(popup_seen.lock().expect("lock").is_empty());
    assert_eq!(*first_seen.lock().expect("lock"), [memory]);
    assert!(
        second_seen.lock().expect("lock").is_empty(),
        "delivered once"
    );

    // With a subscriber, a navigation goes out at once and nothing is kept.
    assert_eq!(hub.navigate(desktop::PANELS, PanelTab::Audit, None), 2);
    let (late_seen, late) = recording_channel();
    hub.subscribe(desktop::PANELS, late, &[]);
    assert!(late_seen.lock().expect("lock").is_empty());
}

#[test]
fn answering_a_law1_request_that_is_not_open_is_not_found() {
    let desk = desk(true);
    let result = call(
        &desk.popup,
        "answer_confirmation",
        json!({"request_id": "00000000-0000-4000-8000-000000000000", "decision": "approve"}),
    );
    assert_eq!(code(result), "not_found");
    assert_eq!(
        code(call(
            &desk.popup,
            "cancel_task",
            json!({"task_id": "task_000000000000"})
        )),
        "not_found"
    );
}

#[test]
fn deny_or_approve_on_a_law1_notification_answers_the_request_it_names_and_only_it() {
    use artoo::contracts::{Decision, DecisionSource, Message, RequestId, Role};
    use artoo_desktop::notices::FromNotification;
    let desk = desk(true);
    let core = desk.shell.core().expect("the core runs");
    let mut tap = core.tap("notification test");
    let Message::ConfirmationRequest(sample) = artoo::testkit::samples::samples()
        .into_iter()
        .find(|e| matches!(e.message, Message::ConfirmationRequest(_)))
        .expect("a sample request")
        .message
    else {
        unreachable!()
    };
    let (denied, approved) = (RequestId::mint(), RequestId::mint());
    let r3 = core.bus().handle(Role::Executor);
    for id in [denied, approved] {
        r3.publish(
            Role::User,
            artoo::contracts::ConfirmationRequest {
                request_id: id,
                ..sample.clone()
            },
        );
    }
    eventually("both requests open", || {
        core.open_confirmations().len() == 2
    });
    desktop::act_on(
        desk.app.handle(),
        FromNotification::Answer(denied, Decision::Deny),
    );
    eventually("the denied one answered", || {
        core.open_confirmations().len() == 1
    });
    assert_eq!(core.open_confirmations()[0].request_id, approved);
    desktop::act_on(
        desk.app.handle(),
        FromNotification::Answer(approved, Decision::Approve),
    );
    eventually("the approved one answered", || {
        core.open_confirmations().is_empty()
    });
    // A second answer to a request already answered changes nothing.
    desktop::act_on(
        desk.app.handle(),
        FromNotification::Answer(denied, Decision::Approve),
    );
    std::thread::sleep(Duration::from_millis(200));
    let mut decisions = Vec::new();
    while let Some(event) = tap.try_recv() {
        if let artoo::bus::TapEvent::Message(env) = event
            && let Message::ConfirmationDecision(d) = &env.message
        {
            decisions.push((d.request_id, d.decision, d.source));
        }
    }
    assert_eq!(
        decisions,
        [
            (denied, Decision::Deny, DecisionSource::User),
            (approved, Decision::Approve, DecisionSource::User),
        ]
    );
}

#[test]
fn the_popup_cannot_touch_memory_or_settings_and_the_panels_cannot_submit() {
    let desk = desk(true);
    let denied = |result: Result<Value, Value>| {
        let error = result.expect_err("the ACL rejects");
        assert!(
            error.to_string().contains("not allowed"),
            "expected an ACL denial, got {error}"
        );
    };
    denied(call(&desk.popup, "memory_groups", json!({})));
    denied(call(
        &desk.popup,
        "memory_forget",
        json!({"target": {"kind": "group", "space": "a", "entity": "b"}}),
    ));
    denied(call(&desk.popup, "save_settings", json!({})));
    denied(call(&desk.panels, "submit_task", json!({"text": "hello"})));
    denied(call(
        &desk.panels,
        "answer_confirmation",
        json!({"request_id": "00000000-0000-4000-8000-000000000000", "decision": "approve"}),
    ));
}

#[test]
fn the_operator_remembers_pins_and_forgets_but_never_a_t_entry() {
    let desk = desk(true);
    let megram = call(
        &desk.panels,
        "memory_remember",
        json!({"level": "C", "space": "tool:shell", "entity": "path:~/Downloads", "content": "prefer ls -t"}),
    )
    .expect("remembered");
    let id = megram["id"].as_str().expect("an id").to_string();

    let map = call(&desk.panels, "memory_groups", json!({})).expect("groups");
    assert_eq!(map["thresholds"]["attention_floor"], 0.5);
    let group = map["groups"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|g| g["space"] == "tool:shell" && g["entity"] == "path:~/Downloads")
        .expect("the new group is listed");
    assert_eq!(group["counts"]["C"], 1);

    let detail = call(
        &desk.panels,
        "memory_group",
        json!({"space": "tool:shell", "entity": "path:~/Downloads"}),
    )
    .expect("group detail");
    assert_eq!(detail["megrams"][0]["megram"]["content"], "prefer ls -t");
    assert!(detail["megrams"][0]["age_days"].as_f64().expect("age") < 0.01);

    let pinned = call(&desk.panels, "memory_pin", json!({"id": id})).expect("pinned");
    assert_eq!(pinned["k"], 0.0);

    let law = map["groups"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|g| g["counts"]["T"].as_u64() > Some(0))
        .expect("the Four Laws are seeded");
    let laws = call(
        &desk.panels,
        "memory_group",
        json!({"space": law["space"], "entity": law["entity"]}),
    )
    .expect("the laws' group");
    let t_id = laws["megrams"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|m| m["megram"]["level"] == "T")
        .expect("a T entry")["megram"]["id"]
        .clone();
    assert_eq!(
        code(call(
            &desk.panels,
            "memory_forget",
            json!({"target": {"kind": "megram", "id": t_id}})
        )),
        "forbidden"
    );

    let removed = call(
        &desk.panels,
        "memory_forget",
        json!({"target": {"kind": "group", "space": "tool:shell", "entity": "path:~/Downloads"}}),
    )
    .expect("forgotten");
    assert_eq!(removed, 1);
    assert_eq!(
        code(call(
            &desk.panels,
            "memory_group",
            json!({"space": "tool:shell", "entity": "path:~/Downloads"})
        )),
        "not_found"
    );
}

#[test]
fn the_audit_log_is_browsable_verifiable_and_queryable() {
    let desk = desk(true);
    call(
        &desk.popup,
        "submit_task",
        json!({"text": "tidy the desktop"}),
    )
    .expect("submitted");
    eventually("audit events", || {
        call(
            &desk.panels,
            "audit_events",
            json!({"filter": {"task_id": null, "message_type": "TaskSubmitted", "anomalies_only": false, "before_seq": null, "limit": 10}}),
        )
        .is_ok_and(|page| page["total"].as_u64() >= Some(1))
    });
    let page = call(
        &desk.panels,
        "audit_events",
        json!({"filter": {"task_id": null, "message_type": null, "anomalies_only": false, "before_seq": null, "limit": 2}}),
    )
    .expect("a page");
    let events = page["events"].as_array().expect("events");
    assert_eq!(events.len(), 2);
    assert!(
        events[0]["seq"].as_u64() > events[1]["seq"].as_u64(),
        "newest first"
    );
    assert!(page["total"].as_u64() >= Some(2));

    let verified = call(&desk.panels, "audit_verify", json!({})).expect("verified");
    assert_eq!(verified["status"], "intact", "{verified}");

    let report = call(&desk.panels, "audit_query", json!({})).expect("an on-demand report");
    assert_eq!(report["trigger"], "on-demand", "{report}");
    assert_eq!(
        code(call(
            &desk.panels,
            "audit_report",
            json!({"id": "00000000-0000-4000-8000-000000000000"})
        )),
        "not_found"
    );
}

#[test]
fn a_run_is_listed_and_replays_from_its_envelopes() {
    let desk = desk(true);
    let task = call(
        &desk.popup,
        "submit_task",
        json!({"text": "count my photos"}),
    )
    .expect("submitted");
    let mut run_id = String::new();
    eventually("the run in the task logs", || {
        let Ok(runs) = call(&desk.panels, "task_runs", json!({})) else {
            return false;
        };
        let Some(run) = runs
            .as_array()
            .and_then(|r| r.iter().find(|r| r["task_id"] == task))
        else {
            return false;
        };
        run_id = run["run_id"].as_str().expect("a run id").to_string();
        call(&desk.panels, "task_replay", json!({"run_id": run_id})).is_ok()
    });
    let replay = call(&desk.popup, "task_replay", json!({"run_id": run_id})).expect("a replay");
    assert_eq!(replay["run"]["raw_input"], "count my photos");
    assert_eq!(replay["envelopes"][0]["message"]["type"], "TaskSubmitted");
    assert_eq!(replay["trajectory"]["raw_input"], "count my photos");
    assert_eq!(
        replay["trajectory"]["task_id"], task,
        "the fold of the same recording"
    );
    assert_eq!(
        code(call(
            &desk.panels,
            "task_replay",
            json!({"run_id": "../../etc/passwd"})
        )),
        "invalid_input"
    );
}

#[test]
fn tasks_like_one_being_typed_are_told_from_three_ended_runs_of_its_kind() {
    let desk = desk(true);
    let text = "count my photos";
    for n in 1..=3 {
        assert_eq!(
            call(&desk.popup, "tasks_like", json!({"text": text})).expect("asked"),
            Value::Null,
            "nothing before three runs"
        );
        let task = call(&desk.popup, "submit_task", json!({"text": text})).expect("submitted");
        eventually(&format!("run {n} ended"), || {
            call(&desk.panels, "task_runs", json!({}))
                .ok()
                .and_then(|runs| {
                    runs.as_array()?
                        .iter()
                        .find(|r| r["task_id"] == task)
                        .map(|r| r["status"] != "open")
                })
                .unwrap_or(false)
        });
    }
    // No model answers here: every run failed, and the line says so with the reason.
    let like = call(
        &desk.popup,
        "tasks_like",
        json!({"text": "Count my photos!"}),
    )
    .expect("the kind's history");
    assert_eq!(like["history"]["runs"], 3, "{like}");
    assert_eq!(like["history"]["delivered"], 0);
    assert_eq!(like["history"]["pass_k"], 0.0);
    assert!(like["history"]["last_failure"].is_string(), "{like}");
    let line = like["line"].as_str().expect("a line");
    assert!(
        line.starts_with("Tasks like this here: 0 of 3 delivered an answer"),
        "{line}"
    );
    assert_eq!(
        call(
            &desk.popup,
            "tasks_like",
            json!({"text": "rename my invoices"})
        )
        .expect("asked"),
        Value::Null,
        "another kind has no history"
    );
    let kinds = call(&desk.panels, "task_kinds", json!({})).expect("the table");
    assert_eq!(kinds.as_array().map(Vec::len), Some(1), "{kinds}");
    assert_eq!(kinds[0]["runs"], 3);
    let error = call(&desk.popup, "task_kinds", json!({})).expect_err("the ACL rejects");
    assert!(error.to_string().contains("not allowed"), "{error}");
}

#[test]
fn a_task_s_changes_to_files_are_shown_then_undone_and_a_second_undo_is_refused() {
    let desk = desk(false);
    let config = desk.shell.config();
    let made = config.workspace.join("made.txt");
    std::fs::create_dir_all(&config.workspace).expect("workspace");
    std::fs::write(&made, "new").expect("a file the task made");
    let journal = artoo::journal::Journal::in_data_dir(&config.data_dir);
    journal
        .record(
            "task_0123456789ab",
            &[artoo::journal::Change::Create { path: made.clone() }],
        )
        .expect("journaled");

    let preview = call(&desk.popup, "undo_preview", json!({"task_id": null})).expect("a preview");
    assert_eq!(preview["task_id"], "task_0123456789ab");
    assert_eq!(preview["steps"][0]["kind"], "remove");
    assert!(made.exists(), "a preview changes nothing");
    assert_eq!(preview["refused"], Value::Null);

    let done = call(
        &desk.panels,
        "undo_task",
        json!({"task_id": "task_0123456789ab"}),
    )
    .expect("undone");
    assert_eq!(done["count"], 1);
    assert!(!made.exists());
    let again = call(
        &desk.popup,
        "undo_preview",
        json!({"task_id": "task_0123456789ab"}),
    )
    .expect("a preview");
    assert!(
        again["refused"]
            .as_str()
            .is_some_and(|r| r.contains("already undone")),
        "{again}"
    );
    assert_eq!(
        code(call(
            &desk.popup,
            "undo_task",
            json!({"task_id": "task_0123456789ab"})
        )),
        "forbidden"
    );
}

#[test]
fn settings_name_the_bad_field_refuse_keys_without_a_keychain_and_save_good_values() {
    let desk = desk(true);
    let view = call(&desk.panels, "get_settings", json!({})).expect("settings");
    assert_eq!(view["keychain"]["available"], false);
    assert_eq!(view["keychain"]["backend"], NO_KEYCHAIN);
    assert_eq!(view["keys"]["brain"]["stored"], false);
    let keep = json!({"brain": {"kind": "keep"}, "tool": {"kind": "keep"}});

    let mut bad = view["settings"].clone();
    bad["ggs"]["theta"] = json!(1.5);
    let error = call(
        &desk.panels,
        "save_settings",
        json!({"update": {"settings": bad, "keys": keep}}),
    )
    .expect_err("rejected");
    assert_eq!(error["code"], "config_invalid");
    assert!(
        error["message"]
            .as_str()
            .expect("text")
            .contains("ggs.theta"),
        "{error}"
    );

    let mut hotkey = view["settings"].clone();
    hotkey["ui"]["hotkey"] = json!("Shift+NotAKey");
    let error = call(
        &desk.panels,
        "save_settings",
        json!({"update": {"settings": hotkey, "keys": keep}}),
    )
    .expect_err("rejected");
    assert_eq!(error["code"], "config_invalid");
    assert!(
        error["message"]
            .as_str()
            .expect("text")
            .contains("ui.hotkey"),
        "{error}"
    );

    let with_key = json!({"brain": {"kind": "set", "key": "sk-test"}, "tool": {"kind": "keep"}});
    assert_eq!(
        code(call(
            &desk.panels,
            "save_settings",
            json!({"update": {"settings": view["settings"], "keys": with_key}})
        )),
        "keychain_unavailable"
    );

    let mut good = view["settings"].clone();
    good["ui"]["language"] = json!("zh-CN");
    good["ggs"]["rho"] = json!(0.4);
    let saved = call(
        &desk.panels,
        "save_settings",
        json!({"update": {"settings": good, "keys": keep}}),
    )
    .expect("saved");
    assert_eq!(saved["settings"]["ui"]["language"], "zh-CN");
    let path = saved["settings_path"].as_str().expect("a path");
    let text = std::fs::read_to_string(path).expect("settings.toml written");
    assert!(text.contains("rho = 0.4"), "{text}");
    tauri::async_runtime::block_on(desk.shell.settled());
    assert_eq!(desk.shell.core().expect("restarted").config().ggs.rho, 0.4);
}

#[test]
fn without_a_model_the_core_is_unavailable_but_settings_and_history_work() {
    let desk = desk(false);
    let error = call(&desk.popup, "submit_task", json!({"text": "hello"})).expect_err("no core");
    assert_eq!(error["code"], "unavailable");
    assert!(
        error["message"]
            .as_str()
            .expect("text")
            .contains("Settings"),
        "{error}"
    );
    call(&desk.panels, "get_settings", json!({})).expect("settings still open");
    assert_eq!(
        call(&desk.panels, "task_runs", json!({})).expect("runs"),
        json!([])
    );
    assert_eq!(
        call(&desk.panels, "provider_presets", json!({}))
            .expect("presets")
            .as_array()
            .map(Vec::len),
        Some(5)
    );
}

#[test]
fn a_first_run_waits_for_a_choice_and_never_saves_half_a_provider_or_an_untested_one() {
    let desk = desk(false);
    let status = call(&desk.popup, "model_status", json!({})).expect("model_status");
    assert_eq!(status["phase"], "not_configured");
    assert_eq!(status["first_run"], true);

    // A provider that does not answer the test call is not saved.
    let closed =
        json!({"base_url": "http://127.0.0.1:9/v1", "model": "m", "enable_thinking": false});
    let error = call(
        &desk.popup,
        "choose_model",
        json!({"tier": closed, "key": null}),
    )
    .expect_err("the test call fails");
    assert_eq!(error["code"], "unavailable");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .contains("not saved"),
        "{error}"
    );
    let settings_file = desk.shell.config().settings_path();
    assert!(!settings_file.exists(), "nothing was written");

    let test = call(
        &desk.popup,
        "test_connection",
        json!({"tier": closed, "key": null}),
    )
    .expect("a report, not an error");
    assert_eq!(test["ok"], false);
    assert!(
        test["error"]
            .as_str()
            .unwrap_or_default()
            .contains("cannot connect")
    );

    // Half a provider (one tier named, the other empty) is refused naming the tier.
    let mut view = call(&desk.panels, "get_settings", json!({})).expect("settings");
    view["settings"]["llm"]["brain"] = closed.clone();
    let keep = json!({"kind": "keep"});
    let error = call(
        &desk.panels,
        "save_settings",
        json!({"update": {"settings": view["settings"], "keys": {"brain": keep, "tool": keep}}}),
    )
    .expect_err("half a provider");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .contains("tool"),
        "{error}"
    );
    assert!(!settings_file.exists(), "nothing was written");
}

#[test]
fn the_panels_import_mcp_servers_and_revoke_grants_the_popup_cannot() {
    use artoo::contracts::GrantSubject;
    use artoo::laws::grants::GrantStore;
    let desk = desk(true);
    let import = call(
        &desk.panels,
        "mcp_import",
        json!({"json": r#"{"mcpServers": {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/w"]}, "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}}"#}),
    )
    .expect("imported");
    assert_eq!(import["servers"]["files"]["command"], "npx");
    assert_eq!(import["skipped"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        code(call(&desk.panels, "mcp_import", json!({"json": "{}"}))),
        "invalid_input"
    );
    // No server configured: nothing connected, nothing to list.
    assert_eq!(call(&desk.panels, "mcp_status", json!({})), Ok(json!([])));

    let store = GrantStore::in_dir(&desk.shell.config().data_dir);
    let subject = |tool: &str| GrantSubject {
        server: "files".into(),
        origin: "npx -y @modelcontextprotocol/server-filesystem /w".into(),
        tool: tool.into(),
        fingerprint: "ab".into(),
    };
    for tool in ["write_file", "move_file"] {
        store
            .add(subject(tool), chrono::Utc::now())
            .expect("a grant");
    }
    let listed = call(&desk.panels, "mcp_grants", json!({})).expect("grants");
    assert_eq!(listed.as_array().map(Vec::len), Some(2));
    let left = call(
        &desk.panels,
        "mcp_revoke",
        json!({"subject": serde_json::to_value(subject("write_file")).expect("json")}),
    )
    .expect("revoked");
    assert_eq!(left.as_array().map(Vec::len), Some(1));
    assert_eq!(left[0]["subject"]["tool"], "move_file");
    assert!(!store.allows(&subject("write_file")));

    for (cmd, args) in [
        ("mcp_grants", json!({})),
        ("mcp_import", json!({"json": "{}"})),
        (
            "mcp_revoke",
            json!({"subject": serde_json::to_value(subject("move_file")).expect("json")}),
        ),
    ] {
        let error = call(&desk.popup, cmd, args).expect_err("the ACL rejects");
        assert!(error.to_string().contains("not allowed"), "{cmd}: {error}");
    }
    assert!(store.allows(&subject("move_file")));
}

#[test]
fn the_panels_list_and_revoke_grants_by_effect_the_popup_cannot() {
    use artoo::contracts::{EffectClass, FileEffect};
    use artoo::laws::grants::GrantStore;
    let desk = desk(true);
    let store = GrantStore::in_dir(&desk.shell.config().data_dir);
    let class = |ext: &str| EffectClass {
        effect: FileEffect::Delete,
        place: "/home/u/Downloads".into(),
        extension: Some(ext.into()),
        words: format!("deleting .{ext} files under ~/Downloads"),
    };
    for ext in ["tmp", "log"] {
        store
            .add_effect(class(ext), chrono::Utc::now())
            .expect("a grant");
    }
    let listed = call(&desk.panels, "effect_grants", json!({})).expect("grants");
    assert_eq!(listed.as_array().map(Vec::len), Some(2));
    assert_eq!(
        listed[0]["class"]["words"],
        "deleting .tmp files under ~/Downloads"
    );
    assert_eq!(listed[0]["uses"], 0);
    let left = call(
        &desk.panels,
        "effect_revoke",
        json!({"effect_class": serde_json::to_value(class("tmp")).expect("json")}),
    )
    .expect("revoked");
    assert_eq!(left.as_array().map(Vec::len), Some(1));
    assert_eq!(left[0]["class"]["extension"], "log");
    for (cmd, args) in [
        ("effect_grants", json!({})),
        (
            "effect_revoke",
            json!({"effect_class": serde_json::to_value(class("log")).expect("json")}),
        ),
    ] {
        let error = call(&desk.popup, cmd, args).expect_err("the ACL rejects");
        assert!(error.to_string().contains("not allowed"), "{cmd}: {error}");
    }
    assert_eq!(store.effect_grants().expect("grants").len(), 1);
}

/// The popup takes a task once the model is reported ready, so by then the core must be
/// there to take it: a slow core start used to leave a window in which the input was
/// open and every submission was refused as unavailable.
#[test]
fn the_model_is_reported_ready_only_once_the_core_takes_tasks() {
    use artoo::testkit::{Script, ScriptedServer};
    let server = ScriptedServer::start_dedicated(Script::new()).expect("the scripted server");
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut config = config(&dir, true);
    for tier in [&mut config.llm.brain, &mut config.llm.tool] {
        tier.base_url = Some(server.base_url());
    }
    let shell = Shell::new(config, Keychain::Disabled(NO_KEYCHAIN.into()));
    // For each model status the windows are told: its phase, and whether a task could be
    // submitted at that moment.
    let seen: Arc<Mutex<Vec<(String, bool)>>> = Arc::default();
    let (sink, watched) = (seen.clone(), shell.clone());
    let channel = Channel::new(move |body: InvokeResponseBody| {
        let event = body.deserialize::<Value>().expect("json");
        if event["kind"] == "model" {
            let phase = event["model"]["phase"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            sink.lock()
                .expect("lock")
                .push((phase, watched.core().is_ok()));
        }
        Ok(())
    });
    shell.hub().subscribe(desktop::POPUP, channel, &[]);
    tauri::async_runtime::block_on(shell.start());

    let seen = seen.lock().expect("lock").clone();
    assert!(
        seen.iter().any(|(phase, _)| phase == "ready"),
        "the scripted model is reachable: {seen:?}"
    );
    for (phase, core_running) in &seen {
        if phase == "ready" {
            assert!(
                core_running,
                "ready was announced before the core ran: {seen:?}"
            );
        }
    }
    assert!(shell.is_running());
    tauri::async_runtime::block_on(shell.stop("the test is over"));
}

#[test]
fn the_popup_keeps_a_task_that_says_when_as_a_schedule_and_runs_any_other_now() {
    let desk = desk(true);
    let kept = call(
        &desk.popup,
        "submit_input",
        json!({"text": "every weekday at 9, summarize ~/Downloads"}),
    )
    .expect("submit_input resolves");
    assert_eq!(kept["kind"], "scheduled");
    assert_eq!(kept["schedule"]["when"], "every weekday at 09:00");
    assert_eq!(
        kept["schedule"]["schedule"]["task"],
        "summarize ~/Downloads"
    );
    let message = kept["message"].as_str().expect("a message");
    assert!(
        message.starts_with("Scheduled every weekday at 09:00: summarize ~/Downloads. Next run: "),
        "{message}"
    );
    assert!(
        !message.contains("artoo schedule"),
        "the popup has its own buttons: {message}"
    );
    assert!(
        desk.shell.core().expect("core").running_tasks().is_empty(),
        "nothing runs now"
    );

    let now = call(
        &desk.popup,
        "submit_input",
        json!({"text": "list my downloads"}),
    )
    .expect("submit_input resolves");
    assert_eq!(now["kind"], "task");
    assert!(
        now["task_id"]
            .as_str()
            .is_some_and(|t| t.starts_with("task_")),
        "{now}"
    );
    assert_eq!(
        code(call(&desk.popup, "submit_input", json!({"text": "  "}))),
        "invalid_input"
    );

    let listed = call(&desk.panels, "schedules", json!({})).expect("schedules");
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    let id = listed[0]["schedule"]["id"]
        .as_str()
        .expect("an id")
        .to_string();
    assert_eq!(
        code(call(
            &desk.panels,
            "schedule_remove",
            json!({"id": "sch_none00"})
        )),
        "not_found"
    );
    let widened = call(
        &desk.panels,
        "schedule_window",
        json!({"id": id, "minutes": 240}),
    )
    .expect("set");
    assert_eq!(widened[0]["schedule"]["answer_window_secs"], 4 * 3600);
    assert_eq!(
        widened[0]["window"],
        "a question waits up to 4 h for your answer"
    );
    assert_eq!(
        code(call(
            &desk.panels,
            "schedule_window",
            json!({"id": "sch_none00", "minutes": 60})
        )),
        "not_found"
    );
    let left = call(&desk.popup, "schedule_remove", json!({"id": id})).expect("removed");
    assert_eq!(left, json!([]));
    let error =
        call(&desk.panels, "submit_input", json!({"text": "hello"})).expect_err("the ACL rejects");
    assert!(error.to_string().contains("not allowed"), "{error}");
}
