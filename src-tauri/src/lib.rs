//! The artoo desktop app: a thin Tauri 2 shell over the `artoo` core. It owns windows, the
//! tray, the global hotkey, the OS keychain and notifications; the core owns every
//! decision. The UI (ui/) talks to it through the typed commands in [`commands`] and one
//! stream of [`dto::UiEvent`]s.
//!
//! Code map:
//! - [`shell`] — the core's lifecycle (start, restart with new settings, stop).
//! - [`commands`] — every IPC command (docs/ui.md) with [`error::IpcError`] codes.
//! - [`events`] — the event hub: one bus tap fanned out to the windows.
//! - [`keychain`] — API keys in the OS keychain.
//! - [`desktop`] — tray, hotkey, popup/panels behaviour, notifications, login item.
//! - [`notices`] — what a notification and the tray badge say (pure).
//! - [`dto`] — the command DTOs rendered to ui/src/ipc/bindings.ts.
//!
//! **Invariant:** nothing here plans, judges or gates: the shell forwards the user's
//! input to the core and shows what the core put on the bus.

#![forbid(unsafe_code)]

pub mod commands;
pub mod desktop;
pub mod dto;
pub mod error;
pub mod events;
pub mod keychain;
pub mod notices;
pub mod shell;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use artoo::config::Config;
use tauri::Wry;
use tauri::test::MockRuntime;
use tauri_specta::{Builder, collect_commands};

pub use shell::Shell;

/// Where the generated TypeScript bindings live, relative to the workspace root.
pub const BINDINGS_PATH: &str = "ui/src/ipc/bindings.ts";

const BINDINGS_HEADER: &str = "// Generated from the desktop shell's commands and DTOs (src-tauri) by tauri-specta.\n\
// Argument keys are rewritten to the commands' snake_case names. Never edit by hand:\n\
// run `npm run bindings`.\n\
/* eslint-disable */";

/// The command list once, for each concrete runtime (tauri-specta needs one).
macro_rules! typed_commands {
    ($runtime:ident) => {{
        use commands::*;
        Builder::<$runtime>::new().commands(collect_commands![
            submit_task,
            submit_input,
            cancel_task,
            answer_clarification,
            answer_confirmation,
            memory_groups,
            memory_group,
            memory_remember,
            memory_forget,
            memory_pin,
            audit_reports,
            audit_report,
            audit_events,
            audit_query,
            audit_verify,
            task_runs,
            task_replay,
            tasks_like,
            task_kinds,
            undo_preview,
            undo_task,
            get_settings,
            save_settings::<$runtime>,
            provider_presets,
            model_status,
            doctor,
            test_connection,
            choose_model,
            mcp_status,
            mcp_import,
            mcp_grants,
            mcp_revoke,
            effect_grants,
            effect_revoke,
            schedules,
            schedule_remove,
            schedule_window,
            hide_popup::<$runtime>,
            open_panel::<$runtime>,
            subscribe_events::<$runtime>,
            unsubscribe_events,
        ])
    }};
}

/// The typed command set of the real app.
pub fn app_commands() -> Builder<Wry> {
    typed_commands!(Wry)
}

/// The same commands on Tauri's mock runtime (command tests, the bindings).
pub fn mock_commands() -> Builder<MockRuntime> {
    typed_commands!(MockRuntime)
}

/// The bindings as TypeScript (what `ui/src/ipc/bindings.ts` must contain).
pub fn render_bindings() -> String {
    static RENDERS: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "artoo-bindings-{}-{}",
        std::process::id(),
        RENDERS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    let path = dir.join("bindings.ts");
    // Every 64-bit integer here is a count, a sequence number or milliseconds, far below
    // 2^53 (as in ui/src/ipc/contracts.ts).
    mock_commands()
        .dangerously_cast_bigints_to_number()
        .export(
            specta_typescript::Typescript::default().header(BINDINGS_HEADER),
            &path,
        )
        .expect("every command and DTO has a TypeScript shape");
    let text = std::fs::read_to_string(&path).expect("the exporter wrote the file");
    let _ = std::fs::remove_dir_all(&dir);
    serialized_names_by_default(&snake_case_invoke_arguments(&text))
}

/// As in ui/src/ipc/contracts.ts: where serde reads and writes different shapes, `X`
/// names what Rust writes (`X_Serialize`); arguments use `X_Deserialize` explicitly.
fn serialized_names_by_default(ts: &str) -> String {
    let mut out = String::with_capacity(ts.len());
    for line in ts.split_inclusive('\n') {
        let phased = line
            .strip_prefix("export type ")
            .and_then(|rest| rest.split_once(" = "))
            .filter(|(name, rhs)| {
                rhs.trim_end() == format!("{name}_Serialize | {name}_Deserialize;")
            });
        match phased {
            Some((name, _)) => out.push_str(&format!("export type {name} = {name}_Serialize;\n")),
            None => out.push_str(line),
        }
    }
    out
}

/// tauri-specta always sends camelCase argument keys, while the commands take snake_case
/// ones (`rename_all = "snake_case"`, the contract in docs/ui.md): rewrite each invoke
/// object `{ taskId, answer }` to `{ task_id: taskId, answer }` so the generated
/// `commands` work as they are typed.
fn snake_case_invoke_arguments(ts: &str) -> String {
    let mut out = String::with_capacity(ts.len());
    for line in ts.split_inclusive('\n') {
        let rewritten = line.find("__TAURI_INVOKE").and_then(|at| {
            let open = at + line[at..].find(", { ")? + 4;
            let close = open + line[open..].find(" })")?;
            let keys: Vec<String> = line[open..close]
                .split(", ")
                .map(|key| {
                    let snake = snake_case(key);
                    if snake == key {
                        snake
                    } else {
                        format!("{snake}: {key}")
                    }
                })
                .collect();
            Some(format!(
                "{}{}{}",
                &line[..open],
                keys.join(", "),
                &line[close..]
            ))
        });
        out.push_str(rewritten.as_deref().unwrap_or(line));
    }
    out
}

fn snake_case(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Starts the app; returns when it quits.
pub fn run(started: Instant) {
    let mut config = match Config::from_process_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("artoo: {e}");
            std::process::exit(2);
        }
    };
    let _telemetry = artoo::telemetry::init(&config.data_dir, 0)
        .map_err(|e| eprintln!("artoo: no log file in {}: {e}", config.data_dir.display()))
        .ok();
    let keychain = keychain::Keychain::Os;
    keychain.fill(&mut config);
    let shell = Shell::new(config, keychain);

    let builder = app_commands();
    tauri::Builder::default()
        // First: a second launch only brings the popup of the running one forward.
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| {
            let _ = desktop::show_popup(app, None);
        }))
        .plugin(tauri_plugin_global_shortcut::Builder::new().build())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_autostart::init(
            tauri_plugin_autostart::MacosLauncher::LaunchAgent,
            None,
        ))
        .manage(shell)
        .invoke_handler(builder.invoke_handler())
        .setup(move |app| {
            builder.mount_events(app);
            desktop::install(app.handle(), started)?;
            Ok(())
        })
        .build(tauri::generate_context!())
        .expect("the Tauri context (tauri.conf.json) is valid")
        .run(|app, event| {
            // A menu-bar app keeps running with every window hidden or closed.
            if let tauri::RunEvent::ExitRequested {
                code: None, api, ..
            } = event
            {
                api.prevent_exit();
            }
            let _ = app;
        });
}
