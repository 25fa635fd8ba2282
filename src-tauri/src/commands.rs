//! Every command the webviews may call (docs/ui.md, "What the shell implements"). Each is
//! a thin translation: arguments → one core call → a DTO; failures → `IpcError`.
//!
//! **Invariant:** no command decides anything the core decides (plans, verdicts, Law 1):
//! it forwards the user's input and reports what the core recorded. Blocking IO (files,
//! settings.toml, keychain) runs on the blocking pool, never on the event loop.

use artoo::auditor::{AnomalyFilter, AuditHistory, EventFilter, EventKind};
use artoo::contracts::{
    ApprovalScope, AuditReport, Decision, EffectClass, GrantSubject, Level, Megram, MegramId,
    Potentials, ReportId, RequestId, TaskId,
};
use artoo::describe::DescribedEnvelope;
use artoo::doctor::Finding;
use artoo::journal::{Journal, undo};
use artoo::laws::grants::{EffectGrant, Grant, GrantStore};
use artoo::mcp::{McpImport, McpServerStatus};
use artoo::memory::{ForgetTarget as CoreForget, Remember};
use artoo::schedule::{ScheduleStore, ScheduleView};
use artoo::status::Lang;
use artoo::tasklog::kinds::{self, KindHistory};
use artoo::tasklog::{RunId, RunSummary, TaskLogDir};
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State, WebviewWindow};

use crate::desktop;
use crate::dto::*;
use crate::error::{IpcError, IpcErrorCode, IpcResult};
use crate::shell::Shell;

/// Runs blocking work off the event loop.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> IpcResult<T> + Send + 'static,
) -> IpcResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| IpcError::internal(format!("a background read failed: {e}")))?
}

/// Writes settings.toml on the blocking pool.
async fn save_settings_file(
    config: &std::sync::Arc<artoo::Config>,
    settings: &artoo::config::Settings,
) -> IpcResult<()> {
    let (config, settings) = (std::sync::Arc::clone(config), settings.clone());
    blocking(move || Ok(config.save_settings(&settings)?)).await
}

// ---- the popup ---------------------------------------------------------------------

/// Submits the user's text as a new task and returns its id at once; `invalid_input` when the text
/// is empty.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn submit_task(shell: State<'_, Shell>, text: String) -> IpcResult<TaskId> {
    Ok(shell.core()?.submit(&text)?)
}

/// The popup's input: kept as a schedule when it says when it should run ("every
/// weekday at 9, …"), submitted as a task otherwise; `invalid_input` when empty.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn submit_input(shell: State<'_, Shell>, text: String) -> IpcResult<Submitted> {
    let store = ScheduleStore::in_dir(&shell.config().data_dir);
    let now = chrono::Local::now();
    match artoo::schedule::add_from_request(&store, &text, &now) {
        Some(Ok(view)) => Ok(Submitted::Scheduled {
            message: artoo::schedule::made_message(&view, &now),
            schedule: Box::new(view),
        }),
        Some(Err(e)) => Err(IpcError::internal(e.to_string())),
        None => Ok(Submitted::Task {
            task_id: shell.core()?.submit(&text)?,
        }),
    }
}

/// Every schedule, oldest first, with when it runs next.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn schedules(shell: State<'_, Shell>) -> IpcResult<Vec<ScheduleView>> {
    let store = ScheduleStore::in_dir(&shell.config().data_dir);
    blocking(move || schedule_views(&store)).await
}

/// Removes one schedule (it runs no more); the remaining ones come back.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn schedule_remove(shell: State<'_, Shell>, id: String) -> IpcResult<Vec<ScheduleView>> {
    let store = ScheduleStore::in_dir(&shell.config().data_dir);
    blocking(move || {
        store.remove(&id).map_err(|e| match e {
            artoo::schedule::ScheduleError::Unknown(_) => IpcError::not_found(e.to_string()),
            other => IpcError::internal(other.to_string()),
        })?;
        schedule_views(&store)
    })
    .await
}

/// Sets how long the questions of one schedule's runs wait for the user's answer, in
/// minutes (one at least); every schedule comes back.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn schedule_window(
    shell: State<'_, Shell>,
    id: String,
    minutes: u32,
) -> IpcResult<Vec<ScheduleView>> {
    let store = ScheduleStore::in_dir(&shell.config().data_dir);
    blocking(move || {
        let window = std::time::Duration::from_secs(u64::from(minutes) * 60);
        store.set_answer_window(&id, window).map_err(|e| match e {
            artoo::schedule::ScheduleError::Unknown(_) => IpcError::not_found(e.to_string()),
            other => IpcError::internal(other.to_string()),
        })?;
        schedule_views(&store)
    })
    .await
}

fn schedule_views(store: &ScheduleStore) -> IpcResult<Vec<ScheduleView>> {
    let now = chrono::Local::now();
    store
        .list()
        .map(|all| all.into_iter().map(|s| ScheduleView::of(s, &now)).collect())
        .map_err(|e| IpcError::internal(e.to_string()))
}

/// Cancels a running task; `not_found` when no such task runs.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn cancel_task(shell: State<'_, Shell>, task_id: TaskId) -> IpcResult<()> {
    shell.core()?.cancel(&task_id, "cancelled by the user")?;
    Ok(())
}

/// Answers the clarifying question open for `task_id`; `not_found` when none is open.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn answer_clarification(
    shell: State<'_, Shell>,
    task_id: TaskId,
    answer: String,
) -> IpcResult<()> {
    Ok(shell
        .core()?
        .answer_clarification(&task_id, &answer)
        .await?)
}

/// Answers an open Law 1 request; `scope` widens an approval beyond this one call where the request
/// offered it (this call only when None).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn answer_confirmation(
    shell: State<'_, Shell>,
    request_id: RequestId,
    decision: Decision,
    scope: Option<ApprovalScope>,
) -> IpcResult<()> {
    // The core narrows a scope the request did not offer to this call only.
    Ok(shell
        .core()?
        .answer_confirmation_scoped(request_id, decision, scope.unwrap_or_default())
        .await?)
}

// ---- memory ------------------------------------------------------------------------

/// Every memory group with its live potentials, and the thresholds they are read against.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn memory_groups(shell: State<'_, Shell>) -> IpcResult<MemoryMap> {
    let core = shell.core()?;
    let params = &core.config().memory;
    let thresholds = MemoryThresholds {
        attention_floor: params.attention_floor,
        exploit_above: params.exploit_above,
        avoid_below: params.avoid_below,
    };
    let groups = core
        .memory()
        .groups()
        .await?
        .into_iter()
        .map(|g| MemoryGroup {
            counts: LevelCounts {
                m: g.levels.m as u32,
                k: g.levels.k as u32,
                c: g.levels.c as u32,
                t: g.levels.t as u32,
            },
            last_activity: Some(g.newest.to_rfc3339()),
            space: g.space,
            entity: g.entity,
            potentials: g.potentials,
        })
        .collect();
    Ok(MemoryMap { thresholds, groups })
}

/// One group's Megrams with their live contributions, and the recent planning rounds that recalled
/// it, newest first.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn memory_group(
    shell: State<'_, Shell>,
    space: String,
    entity: String,
) -> IpcResult<MemoryGroupDetail> {
    let core = shell.core()?;
    let potentials: Potentials = core
        .memory()
        .groups()
        .await?
        .into_iter()
        .find(|g| g.space == space && g.entity == entity)
        .map(|g| g.potentials)
        .ok_or_else(|| IpcError::not_found(format!("no memory group {space}:{entity}")))?;
    let now = core.clock().now();
    let megrams = core
        .memory()
        .group(&space, &entity)
        .await?
        .into_iter()
        .map(|v| {
            let last = v.megram.last_recalled_at.unwrap_or(v.megram.created_at);
            let last = last.max(v.megram.created_at);
            MegramView {
                age_days: (now - last).num_milliseconds().max(0) as f64 / 86_400_000.0,
                live_attention: v.attention,
                live_decision: v.decision,
                consolidated: v.consolidated_into.is_some(),
                megram: v.megram,
            }
        })
        .collect();
    let logs = core.task_logs();
    let (s, e) = (space.clone(), entity.clone());
    let recalls = blocking(move || recalls_of(&logs, &s, &e)).await?;
    Ok(MemoryGroupDetail {
        space,
        entity,
        potentials,
        megrams,
        recalls,
    })
}

/// Runs scanned for "why recalled": the most recent ones.
const RECALL_RUNS: usize = 50;

/// Every planning round of the recent runs that queried the group, newest first.
fn recalls_of(logs: &TaskLogDir, space: &str, entity: &str) -> IpcResult<Vec<RecallRef>> {
    let mut recalls = Vec::new();
    for summary in logs.list(RECALL_RUNS)? {
        let trajectory = logs.load(&summary.run_id)?.trajectory();
        for round in &trajectory.rounds {
            for r in &round.recalls {
                if r.recall.space == space && r.recall.entity == entity {
                    recalls.push(RecallRef {
                        task_id: summary.task_id.clone(),
                        raw_input: summary.raw_input.clone().unwrap_or_default(),
                        at: r.at.to_rfc3339(),
                        round: round.index,
                        potentials: r.recall.potentials,
                        constraints: r.recall.constraints.clone(),
                    });
                }
            }
        }
    }
    recalls.sort_by(|a, b| b.at.cmp(&a.at));
    Ok(recalls)
}

/// Stores a new Megram at `level` under `space` and `entity`; `invalid_input` when any of the three
/// texts is empty.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn memory_remember(
    shell: State<'_, Shell>,
    level: Level,
    space: String,
    entity: String,
    content: String,
) -> IpcResult<Megram> {
    if content.trim().is_empty() || space.trim().is_empty() || entity.trim().is_empty() {
        return Err(IpcError::invalid(
            "space, entity and content must not be empty",
        ));
    }
    let remember = Remember::new(content.trim())
        .level(level)
        .tags(space, entity);
    Ok(shell.core()?.memory().remember(remember).await?)
}

/// Forgets one Megram or a whole group and returns how many entries went; `forbidden` for a T-layer
/// entry, which is never forgotten.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn memory_forget(shell: State<'_, Shell>, target: ForgetTarget) -> IpcResult<u32> {
    let core = shell.core()?;
    let single = matches!(target, ForgetTarget::Megram { .. });
    let target = match target {
        ForgetTarget::Megram { id } => CoreForget::Id(id),
        ForgetTarget::Group { space, entity } => CoreForget::Group { space, entity },
    };
    let report = core.memory().forget(target).await?;
    if single && report.forgotten.is_empty() && !report.kept_immutable.is_empty() {
        return Err(IpcError::new(
            IpcErrorCode::Forbidden,
            "a T-layer entry (the Four Laws, the persona) can never be forgotten",
        ));
    }
    Ok(report.forgotten.len() as u32)
}

/// Pins a Megram so it no longer decays, and returns it as stored.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn memory_pin(shell: State<'_, Shell>, id: MegramId) -> IpcResult<Megram> {
    Ok(shell.core()?.memory().pin(id).await?)
}

// ---- audit -------------------------------------------------------------------------

/// Reports listed at most.
const REPORT_LIMIT: usize = 500;

fn history(shell: &Shell) -> AuditHistory {
    AuditHistory::new(&shell.config().data_dir)
}

/// The stored audit reports, newest first, at most 500.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn audit_reports(shell: State<'_, Shell>) -> IpcResult<Vec<AuditReport>> {
    let history = history(&shell);
    blocking(move || Ok(history.reports(REPORT_LIMIT)?)).await
}

/// One stored audit report; `not_found` when there is none with this id.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn audit_report(shell: State<'_, Shell>, id: ReportId) -> IpcResult<AuditReport> {
    let history = history(&shell);
    blocking(move || {
        history
            .report(id)?
            .ok_or_else(|| IpcError::not_found(format!("no audit report {id}")))
    })
    .await
}

/// One page of audit events matching `filter`, newest first, with the total that match.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn audit_events(
    shell: State<'_, Shell>,
    filter: AuditEventFilter,
) -> IpcResult<AuditEventPage> {
    let history = history(&shell);
    blocking(move || {
        let core_filter = EventFilter {
            task: filter.task_id.clone(),
            kind: filter.message_type.map(EventKind::Message),
            role: None,
            anomaly: filter.anomalies_only.then_some(AnomalyFilter::Any),
            before_seq: None,
            limit: usize::MAX,
        };
        // Oldest first; the total counts the whole log, the page goes back from before_seq.
        let all = history.events(&core_filter)?;
        let total = all.len() as u64;
        let limit = if filter.limit == 0 {
            100
        } else {
            filter.limit as usize
        };
        let events = all
            .into_iter()
            .rev()
            .filter(|e| filter.before_seq.is_none_or(|s| e.seq < s))
            .take(limit)
            .map(audit_event)
            .collect();
        Ok(AuditEventPage { events, total })
    })
    .await
}

fn audit_event(e: artoo::auditor::AuditEvent) -> AuditEvent {
    use artoo::auditor::AnomalyKind as Core;
    let anomaly = match e.anomalies.first().map(|f| f.kind) {
        None => AnomalyKind::None,
        Some(Core::BoundaryViolation) => AnomalyKind::BoundaryViolation,
        Some(Core::ConvergenceFailure) => AnomalyKind::ConvergenceFailure,
        Some(Core::GgsThrashing) => AnomalyKind::GgsThrashing,
        Some(Core::Drift) => AnomalyKind::Drift,
        Some(Core::Law0) => AnomalyKind::Law0,
        Some(Core::Law1) => AnomalyKind::Law1,
        Some(Core::Law3) => AnomalyKind::Law3,
        Some(Core::TapGap) => AnomalyKind::TapGap,
        Some(Core::LogRecovery) => AnomalyKind::LogRecovery,
    };
    let mut detail = e.detail;
    for finding in &e.anomalies {
        detail.push_str(" — ");
        detail.push_str(&finding.description);
    }
    AuditEvent {
        seq: e.seq,
        timestamp: e.at.to_rfc3339(),
        from: e.from,
        to: e.to,
        message_type: e.kind.name().to_string(),
        task_id: e.task_id,
        anomaly,
        detail,
        prev_hash: e.prev,
        hash: e.hash,
    }
}

/// Asks the auditor for a report now and waits for it (`timeout` when it does not come).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn audit_query(shell: State<'_, Shell>) -> IpcResult<AuditReport> {
    Ok(shell.core()?.audit_now().await?)
}

/// Walks the audit log's hash chain and says whether it is intact or where it breaks.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn audit_verify(shell: State<'_, Shell>) -> IpcResult<ChainVerification> {
    let history = history(&shell);
    let report = blocking(move || Ok(history.verify()?)).await?;
    let checked_at = shell.clock().now().to_rfc3339();
    Ok(match report.broken {
        None => ChainVerification::Intact {
            events_checked: report.events,
            head_hash: report.head.hash,
            checked_at,
        },
        Some(broken) => ChainVerification::Broken {
            events_checked: report.events,
            first_broken_seq: broken.seq.unwrap_or(report.events),
            reason: broken.to_string(),
            checked_at,
        },
    })
}

// ---- task runs ---------------------------------------------------------------------

/// Runs listed at most.
const RUN_LIMIT: usize = 200;

fn task_run(summary: RunSummary) -> TaskRun {
    TaskRun {
        run_id: summary.run_id.to_string(),
        task_id: summary.task_id,
        raw_input: summary.raw_input.unwrap_or_default(),
        intent: summary.intent,
        started_at: summary.started_at.to_rfc3339(),
        ended_at: summary.ended_at.map(|t| t.to_rfc3339()),
        status: summary.status,
        replans: summary.replans,
        loss: summary.loss,
        law1: summary.law1,
    }
}

/// The recorded task runs, newest first, at most 200.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn task_runs(shell: State<'_, Shell>) -> IpcResult<Vec<TaskRun>> {
    let logs = TaskLogDir::new(&shell.config().data_dir);
    blocking(move || Ok(logs.list(RUN_LIMIT)?.into_iter().map(task_run).collect())).await
}

/// One recorded run: its summary, its trajectory and every envelope it logged.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn task_replay(shell: State<'_, Shell>, run_id: String) -> IpcResult<TaskReplay> {
    let logs = TaskLogDir::new(&shell.config().data_dir);
    let ggs = shell.config().ggs.clone();
    blocking(move || {
        let run_id = RunId::parse(run_id)?;
        let recorded = logs.load(&run_id)?;
        let trajectory = recorded.trajectory();
        let summary = RunSummary::of(&run_id, &trajectory)
            .ok_or_else(|| IpcError::not_found(format!("no task run {run_id}")))?;
        let envelopes = recorded
            .envelopes()
            .into_iter()
            .map(|e| DescribedEnvelope::new(e, &ggs))
            .collect();
        Ok(TaskReplay {
            run: task_run(summary),
            trajectory,
            envelopes,
        })
    })
    .await
}

/// How tasks of the kind `text` asks for went on this machine, before it runs; `None`
/// with fewer than three recorded runs of that kind.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn tasks_like(shell: State<'_, Shell>, text: String) -> IpcResult<Option<TasksLike>> {
    let config = shell.config();
    let logs = TaskLogDir::new(&config.data_dir);
    let lang = Lang::from_tag(&config.ui.language);
    blocking(move || {
        Ok(kinds::like(&logs, &text)?.map(|history| TasksLike {
            line: history.line(lang),
            history,
        }))
    })
    .await
}

/// Every kind of task with three recorded runs or more, the most recently run first.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn task_kinds(shell: State<'_, Shell>) -> IpcResult<Vec<KindHistory>> {
    let logs = TaskLogDir::new(&shell.config().data_dir);
    blocking(move || Ok(kinds::by_kind(&logs)?)).await
}

// ---- undo --------------------------------------------------------------------------

/// What undoing `task_id` (the newest task whose changes stand when null) would take
/// back and what it cannot; `refused` says why when it cannot be undone.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn undo_preview(
    shell: State<'_, Shell>,
    task_id: Option<TaskId>,
) -> IpcResult<UndoPreview> {
    let config = shell.config();
    blocking(move || {
        let task = task_id.as_ref().map(TaskId::as_str);
        Ok(match undo::preview(&config.data_dir, &config.home, task) {
            Ok(Some(p)) => UndoPreview {
                task_id: Some(TaskId::from_existing(&p.plan.task)),
                steps: p.steps,
                lasting: p.lasting,
                refused: None,
            },
            Ok(None) => UndoPreview {
                task_id: None,
                steps: Vec::new(),
                lasting: Vec::new(),
                refused: None,
            },
            Err(refusal) => UndoPreview {
                task_id,
                steps: Vec::new(),
                lasting: Vec::new(),
                refused: Some(refusal.to_string()),
            },
        })
    })
    .await
}

/// Takes `task_id`'s changes back, checking every one against the files first: a file
/// changed since refuses the whole undo (the error says which), and nothing changes.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn undo_task(shell: State<'_, Shell>, task_id: TaskId) -> IpcResult<UndoDone> {
    let config = shell.config();
    blocking(move || {
        let journal = Journal::in_data_dir(&config.data_dir);
        match undo::undo(&journal, task_id.as_str()) {
            Ok(done) => Ok(UndoDone {
                undo_id: done.id,
                count: u32::try_from(done.count).unwrap_or(u32::MAX),
            }),
            Err(undo::Refusal::NoChanges(task)) => Err(IpcError::not_found(format!(
                "artoo's journal holds no change to your files by {task}"
            ))),
            Err(refusal) => Err(IpcError::new(IpcErrorCode::Forbidden, refusal.to_string())),
        }
    })
    .await
}

// ---- settings ----------------------------------------------------------------------

async fn settings_view(shell: &Shell) -> IpcResult<SettingsView> {
    let config = shell.config();
    let keychain = shell.keychain().clone();
    let (keychain, keys) = blocking(move || Ok((keychain.info(), keychain.status()))).await?;
    let sandbox = artoo::tools::sandbox_status(&config).await;
    Ok(SettingsView {
        settings: config.settings(),
        keys,
        keychain,
        sandbox: SandboxInfo {
            on: sandbox.is_on(),
            description: sandbox.describe(),
        },
        settings_path: config.settings_path().display().to_string(),
    })
}

/// The settings as saved, with the state of the keys, the keychain and the sandbox.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn get_settings(shell: State<'_, Shell>) -> IpcResult<SettingsView> {
    settings_view(&shell).await
}

/// Validates and saves the settings and key changes, restarting the core when they need it; returns
/// the settings as now saved.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn save_settings<R: Runtime>(
    app: AppHandle<R>,
    shell: State<'_, Shell>,
    update: SettingsUpdate,
) -> IpcResult<SettingsView> {
    let config = shell.config();
    let SettingsUpdate { settings, keys } = update;
    // A provider is saved whole or not at all: both tiers name an endpoint and a model,
    // or neither does (the built-in model). Half of one is never written.
    let mut candidate = (*config).clone();
    candidate.llm.brain = settings.llm.brain.clone();
    candidate.llm.tool = settings.llm.tool.clone();
    candidate.model_source()?;
    let changes = [&keys.brain, &keys.tool];
    // Everything that can fail is checked before anything is written.
    let keychain = shell.keychain().clone();
    let (brain, tool) = (keys.brain.clone(), keys.tool.clone());
    blocking(move || keychain.check([&brain, &tool])).await?;
    let old_hotkey = config.ui.hotkey.clone();
    let new_hotkey = settings.ui.hotkey.trim().to_string();
    let hotkey_changed = new_hotkey != old_hotkey;
    if hotkey_changed {
        desktop::swap_hotkey(&app, &old_hotkey, &new_hotkey)?;
    }
    if let Err(e) = save_settings_file(&config, &settings).await {
        if hotkey_changed {
            // Put the old hotkey back: nothing of a rejected update stays in effect.
            let _ = desktop::swap_hotkey(&app, &new_hotkey, &old_hotkey);
        }
        return Err(e);
    }
    let keychain = shell.keychain().clone();
    let (brain, tool) = (keys.brain.clone(), keys.tool.clone());
    blocking(move || keychain.apply([&brain, &tool])).await?;
    if settings.ui.launch_at_login != config.ui.launch_at_login {
        desktop::set_launch_at_login(&app, settings.ui.launch_at_login)?;
    }
    shell.apply(&settings, changes).await;
    settings_view(&shell).await
}

// ---- MCP servers and standing grants ------------------------------------------------

/// Every configured MCP server as the running core connected it (empty while the core
/// is not running).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn mcp_status(shell: State<'_, Shell>) -> Vec<McpServerStatus> {
    shell.core().map(|rt| rt.mcp_status()).unwrap_or_default()
}

/// Reads the `mcpServers` block of a Claude Desktop / Cursor style JSON config. Nothing
/// is saved: the panel adds the servers to its draft and the user saves.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn mcp_import(json: String) -> IpcResult<McpImport> {
    artoo::mcp::import_mcp_servers(&json).map_err(IpcError::invalid)
}

/// The standing "always allow" grants of the data dir.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn mcp_grants(shell: State<'_, Shell>) -> IpcResult<Vec<Grant>> {
    let store = GrantStore::in_dir(&shell.config().data_dir);
    blocking(move || store.list().map_err(|e| IpcError::internal(e.to_string()))).await
}

/// Revokes exactly one grant; the remaining grants come back.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn mcp_revoke(shell: State<'_, Shell>, subject: GrantSubject) -> IpcResult<Vec<Grant>> {
    let store = GrantStore::in_dir(&shell.config().data_dir);
    blocking(move || {
        store
            .revoke(&subject)
            .and_then(|_| store.list())
            .map_err(|e| IpcError::internal(e.to_string()))
    })
    .await
}

/// The standing grants by effect ("deleting .tmp files under ~/Downloads"), oldest
/// first, with how often each was used.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn effect_grants(shell: State<'_, Shell>) -> IpcResult<Vec<EffectGrant>> {
    let store = GrantStore::in_dir(&shell.config().data_dir);
    blocking(move || {
        store
            .effect_grants()
            .map_err(|e| IpcError::internal(e.to_string()))
    })
    .await
}

/// Revokes exactly one grant by effect; the next such change asks at once. The
/// remaining grants come back.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn effect_revoke(
    shell: State<'_, Shell>,
    effect_class: EffectClass,
) -> IpcResult<Vec<EffectGrant>> {
    let store = GrantStore::in_dir(&shell.config().data_dir);
    blocking(move || {
        store
            .revoke_effect(&effect_class)
            .and_then(|_| store.effect_grants())
            .map_err(|e| IpcError::internal(e.to_string()))
    })
    .await
}

/// How long "Test connection" waits for its one token.
const TEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The model as it stands now.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn model_status(shell: State<'_, Shell>) -> ModelStatus {
    shell.model_status()
}

/// The check-up of `artoo doctor`, with what only the app knows: whether its model
/// server runs now, and the keychain.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn doctor(shell: State<'_, Shell>) -> IpcResult<Vec<Finding>> {
    let config = shell.config();
    let mut found = artoo::doctor::check(&config).await;
    let status = shell.model_status();
    found.insert(
        1,
        match (status.phase, status.base_url) {
            (ModelPhase::Ready, Some(url)) => {
                Finding::ok("model server", format!("running, answering at {url}"))
            }
            (phase, _) => Finding::warn(
                "model server",
                format!("not ready ({phase:?})"),
                "wait for the model to start, or choose one in the popup or in Settings",
            ),
        },
    );
    let keychain = shell.keychain().clone();
    let info = blocking(move || Ok(keychain.info())).await?;
    found.push(if info.available {
        Finding::ok("keychain", format!("API keys are kept in {}", info.backend))
    } else {
        Finding::warn(
            "keychain",
            info.backend,
            "keys then come from the environment; on Linux a Secret Service (e.g. \
             gnome-keyring) keeps them",
        )
    });
    Ok(found)
}

/// A real one-token call to `tier` (with `key`, or the key already stored for the brain
/// tier when none is given), timed, naming the model that answered.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn test_connection(
    shell: State<'_, Shell>,
    tier: artoo::config::TierConfig,
    key: Option<String>,
) -> IpcResult<ConnectionTest> {
    let mut tier = tier;
    tier.api_key = match key.map(|k| k.trim().to_string()).filter(|k| !k.is_empty()) {
        Some(key) => Some(artoo::config::ApiKey::new(key)),
        None => shell.config().llm.brain.api_key.clone(),
    };
    let report = artoo::llm::test_connection(&tier, TEST_TIMEOUT).await;
    Ok(ConnectionTest {
        ok: report.ok,
        model: report.model,
        latency_ms: u32::try_from(report.latency_ms).unwrap_or(u32::MAX),
        error: report.error,
    })
}

/// The first-run choice, and the only settings change the popup may make: the built-in
/// model (`tier` null) or a provider for both tiers, which is saved only after a real
/// one-token call to it succeeded. Nothing else of the settings changes.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn choose_model(
    shell: State<'_, Shell>,
    tier: Option<artoo::config::TierConfig>,
    key: Option<String>,
) -> IpcResult<ModelStatus> {
    let config = shell.config();
    let key = key.map(|k| k.trim().to_string()).filter(|k| !k.is_empty());
    let mut settings = config.settings();
    let chosen = tier.clone().unwrap_or_default();
    let chosen = artoo::config::TierConfig {
        api_key: None,
        ..chosen
    };
    settings.llm.brain = chosen.clone();
    settings.llm.tool = chosen;
    if let Some(tier) = &tier {
        let mut probe = tier.clone();
        probe.api_key = key
            .clone()
            .map(artoo::config::ApiKey::new)
            .or_else(|| config.llm.brain.api_key.clone());
        let report = artoo::llm::test_connection(&probe, TEST_TIMEOUT).await;
        if !report.ok {
            return Err(IpcError::unavailable(format!(
                "not saved: the test call failed: {}",
                report.error.unwrap_or_default()
            )));
        }
    }
    let mut candidate = (*config).clone();
    candidate.llm.brain = settings.llm.brain.clone();
    candidate.llm.tool = settings.llm.tool.clone();
    candidate.model_source()?;
    let change = match key {
        Some(key) => KeyChange::Set { key },
        None => KeyChange::Keep,
    };
    let keychain = shell.keychain().clone();
    let (brain, tool) = (change.clone(), change.clone());
    blocking(move || keychain.check([&brain, &tool])).await?;
    save_settings_file(&config, &settings).await?;
    let keychain = shell.keychain().clone();
    let (brain, tool) = (change.clone(), change.clone());
    blocking(move || keychain.apply([&brain, &tool])).await?;
    shell.apply(&settings, [&change, &change]).await;
    Ok(shell.model_status())
}

/// The endpoints offered for a provider, in the order shown.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn provider_presets() -> Vec<ProviderPreset> {
    let preset =
        |id: &str, name: &str, base_url: &str, brain: &str, tool: &str, key: bool| ProviderPreset {
            id: id.into(),
            name: name.into(),
            base_url: base_url.into(),
            brain_model: brain.into(),
            tool_model: tool.into(),
            needs_key: key,
        };
    let local = "qwen2.5-coder-7b-instruct";
    vec![
        preset(
            "openai",
            "OpenAI",
            "https://api.openai.com/v1",
            "gpt-4.1",
            "gpt-4.1-mini",
            true,
        ),
        preset(
            "deepseek",
            "DeepSeek",
            "https://api.deepseek.com/v1",
            "deepseek-chat",
            "deepseek-chat",
            true,
        ),
        preset(
            "ollama",
            "Ollama",
            "http://localhost:11434/v1",
            "qwen2.5-coder:7b",
            "qwen2.5-coder:7b",
            false,
        ),
        preset(
            "lmstudio",
            "LM Studio",
            "http://localhost:1234/v1",
            local,
            local,
            false,
        ),
        preset(
            "llama-server",
            "llama-server (local)",
            "http://127.0.0.1:8080/v1",
            local,
            local,
            false,
        ),
    ]
}

// ---- windows and the stream ----------------------------------------------------------

/// Hides the popup window.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn hide_popup<R: Runtime>(app: AppHandle<R>) -> IpcResult<()> {
    desktop::hide_popup(&app)
}

/// Opens the panels window on `tab`, focused on `focus` when given.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn open_panel<R: Runtime>(
    app: AppHandle<R>,
    shell: State<'_, Shell>,
    tab: PanelTab,
    focus: Option<PanelFocus>,
) -> IpcResult<()> {
    desktop::show_panels(&app)?;
    shell.hub().navigate(desktop::PANELS, tab, focus);
    Ok(())
}

/// Subscribes this window to the event stream and returns the subscription id; tasks already
/// running are announced first.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn subscribe_events<R: Runtime>(
    window: WebviewWindow<R>,
    shell: State<'_, Shell>,
    channel: Channel<UiEvent>,
) -> u32 {
    let running = shell
        .core()
        .map(|rt| rt.running_tasks())
        .unwrap_or_default();
    shell.hub().subscribe(window.label(), channel, &running)
}

/// Ends the subscription `id`; `not_found` when there is none.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn unsubscribe_events(shell: State<'_, Shell>, id: u32) -> IpcResult<()> {
    if shell.hub().unsubscribe(id) {
        Ok(())
    } else {
        Err(IpcError::not_found(format!("no event subscription {id}")))
    }
}
