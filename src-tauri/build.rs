//! Builds the Tauri context and, from the command list below, one ACL permission per app
//! command (`allow-submit-task`, …) so each window's capability names exactly the
//! commands it may call (capabilities/*.json).

/// Every command the shell exposes; `tests/commands.rs` checks this against the handler.
const COMMANDS: &[&str] = &[
    "submit_task",
    "cancel_task",
    "answer_clarification",
    "answer_confirmation",
    "memory_groups",
    "memory_group",
    "memory_remember",
    "memory_forget",
    "memory_pin",
    "audit_reports",
    "audit_report",
    "audit_events",
    "audit_query",
    "audit_verify",
    "task_runs",
    "task_replay",
    "tasks_like",
    "task_kinds",
    "undo_preview",
    "undo_task",
    "get_settings",
    "save_settings",
    "provider_presets",
    "model_status",
    "doctor",
    "test_connection",
    "choose_model",
    "mcp_status",
    "mcp_import",
    "mcp_grants",
    "mcp_revoke",
    "effect_grants",
    "effect_revoke",
    "submit_input",
    "schedules",
    "schedule_remove",
    "schedule_window",
    "hide_popup",
    "open_panel",
    "subscribe_events",
    "unsubscribe_events",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("the Tauri build step (tauri.conf.json, capabilities, icons)");
}
