//! What makes the shell a menu-bar app: the tray icon and its menu (with a badge while
//! answers are pending), the global hotkey, the popup's show/hide rules (near the tray or
//! centred, hidden on blur unless a task needs the user), the panels window, the OS
//! notifications ([`crate::notices`]), launch at login, and the macOS Accessory policy.
//!
//! **Invariant:** the popup never hides while a Law 1 request or a clarifying question is
//! open, and a Law 1 request that arrives while the popup is hidden or unfocused always
//! brings it back with an OS notification — a request is never left unseen.

use std::str::FromStr;
use std::sync::Mutex;
use std::time::Instant;

use artoo::bus::Envelope;
use artoo::contracts::Message;
use tauri::menu::{Menu, MenuEvent, MenuItem, PredefinedMenuItem};
use tauri::tray::{MouseButton, MouseButtonState, TrayIconBuilder, TrayIconEvent};
use tauri::{
    AppHandle, Manager, PhysicalPosition, Rect, Runtime, WebviewUrl, WebviewWindow,
    WebviewWindowBuilder, WindowEvent,
};
use tauri_plugin_global_shortcut::{GlobalShortcut, Shortcut, ShortcutState};

use crate::dto::PanelTab;
use crate::error::{IpcError, IpcErrorCode, IpcResult};
use crate::notices::{self, Pending};
use crate::shell::Shell;

/// The label of the popup window, opened from the tray and the hotkey.
pub const POPUP: &str = "popup";
/// The label of the panels window: tasks, memory, audit and settings.
pub const PANELS: &str = "panels";

/// The id of the tray icon.
const TRAY: &str = "artoo";

/// The gap between the menu bar and the popup.
const TRAY_GAP: f64 = 6.0;

fn window<R: Runtime>(app: &AppHandle<R>, label: &str) -> IpcResult<WebviewWindow<R>> {
    app.get_webview_window(label)
        .ok_or_else(|| IpcError::internal(format!("the {label} window does not exist")))
}

fn window_error(e: tauri::Error) -> IpcError {
    IpcError::internal(format!("window: {e}"))
}

/// True while a task waits for the user (a Law 1 request or a clarifying question).
fn needs_user<R: Runtime>(app: &AppHandle<R>) -> bool {
    app.try_state::<Shell>()
        .and_then(|shell| shell.core().ok())
        .is_some_and(|rt| {
            !rt.open_confirmations().is_empty() || !rt.open_clarifications().is_empty()
        })
}

/// Whether the app last showed the popup (true) or hid it. The window system's own
/// answer can lag behind a hide — on Linux a popup hidden for seconds was still
/// reported visible and focused, and a Law 1 request that came then neither brought it
/// back nor became a notification — so the app keeps its own.
#[derive(Debug, Default)]
pub struct PopupShown(std::sync::atomic::AtomicBool);

fn set_shown<R: Runtime>(app: &AppHandle<R>, shown: bool) {
    if let Some(state) = app.try_state::<PopupShown>() {
        state.0.store(shown, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Whether the popup is in front: shown by the app (or, without that record, visible)
/// and focused.
fn in_front<R: Runtime>(app: &AppHandle<R>, popup: &WebviewWindow<R>) -> bool {
    let shown = app.try_state::<PopupShown>().map_or_else(
        || popup.is_visible().unwrap_or(false),
        |state| state.0.load(std::sync::atomic::Ordering::SeqCst),
    );
    shown && popup.is_focused().unwrap_or(false)
}

pub(crate) fn hide_popup<R: Runtime>(app: &AppHandle<R>) -> IpcResult<()> {
    window(app, POPUP)?.hide().map_err(window_error)?;
    set_shown(app, false);
    Ok(())
}

/// Shows and focuses the popup, hanging below the tray icon when its place is known.
pub fn show_popup<R: Runtime>(app: &AppHandle<R>, tray: Option<Rect>) -> IpcResult<()> {
    let popup = window(app, POPUP)?;
    if let Some(rect) = tray {
        let scale = popup.scale_factor().map_err(window_error)?;
        let at: PhysicalPosition<f64> = rect.position.to_physical(scale);
        let size: tauri::PhysicalSize<f64> = rect.size.to_physical(scale);
        let width = popup.outer_size().map_err(window_error)?.width as f64;
        let x = (at.x + size.width / 2.0 - width / 2.0).max(0.0);
        let y = at.y + size.height + TRAY_GAP * scale;
        popup
            .set_position(PhysicalPosition::new(x, y))
            .map_err(window_error)?;
    } else if !popup.is_visible().unwrap_or(false) {
        popup.center().map_err(window_error)?;
    }
    popup.show().map_err(window_error)?;
    set_shown(app, true);
    popup.set_focus().map_err(window_error)
}

pub(crate) fn toggle_popup<R: Runtime>(app: &AppHandle<R>, tray: Option<Rect>) -> IpcResult<()> {
    let popup = window(app, POPUP)?;
    if in_front(app, &popup) && !needs_user(app) {
        hide_popup(app)
    } else {
        show_popup(app, tray)
    }
}

/// The panels window, created on first use: a window loaded at start would cost a whole
/// web process (tens of MB) for a view many sessions never open.
fn panels_window<R: Runtime>(app: &AppHandle<R>) -> IpcResult<WebviewWindow<R>> {
    if let Some(panels) = app.get_webview_window(PANELS) {
        return Ok(panels);
    }
    let builder = WebviewWindowBuilder::new(
        app,
        PANELS,
        WebviewUrl::App("index.html?view=panels".into()),
    )
    .title("artoo")
    .inner_size(1040.0, 700.0)
    .min_inner_size(760.0, 480.0)
    .center()
    .visible(false);
    #[cfg(target_os = "macos")]
    let builder = builder
        .title_bar_style(tauri::TitleBarStyle::Overlay)
        .hidden_title(true);
    let panels = builder.build().map_err(window_error)?;
    let hide = panels.clone();
    panels.on_window_event(move |event| {
        // Closing the panels window hides it: the app lives in the menu bar, and the
        // next open is instant.
        if let WindowEvent::CloseRequested { api, .. } = event {
            api.prevent_close();
            let _ = hide.hide();
        }
    });
    Ok(panels)
}

pub(crate) fn show_panels<R: Runtime>(app: &AppHandle<R>) -> IpcResult<()> {
    let panels = panels_window(app)?;
    panels.show().map_err(window_error)?;
    panels.unminimize().map_err(window_error)?;
    panels.set_focus().map_err(window_error)
}

fn parse_hotkey(hotkey: &str) -> IpcResult<Shortcut> {
    Shortcut::from_str(hotkey).map_err(|e| {
        IpcError::new(
            IpcErrorCode::ConfigInvalid,
            format!("invalid value for `ui.hotkey`: {hotkey:?} is not a shortcut ({e})"),
        )
    })
}

/// Registers `hotkey` to toggle the popup; `hotkey_conflict` when the OS or another app
/// holds it. Without the global-shortcut plugin (the mock runtime) only the parse runs.
pub fn register_hotkey<R: Runtime>(app: &AppHandle<R>, hotkey: &str) -> IpcResult<()> {
    let shortcut = parse_hotkey(hotkey)?;
    let Some(global) = app.try_state::<GlobalShortcut<R>>() else {
        return Ok(());
    };
    global
        .on_shortcut(shortcut, |app, _shortcut, event| {
            if event.state == ShortcutState::Pressed {
                let pressed = Instant::now();
                if let Err(e) = toggle_popup(app, None) {
                    tracing::warn!(error = %e.message, "the hotkey could not toggle the popup");
                }
                tracing::info!(
                    micros = pressed.elapsed().as_micros() as u64,
                    "hotkey handled"
                );
                if std::env::var_os("ARTOO_BENCH").is_some() {
                    eprintln!("artoo-bench: hotkey-to-popup-us {}", pressed.elapsed().as_micros());
                }
            }
        })
        .map_err(|e| {
            IpcError::new(
                IpcErrorCode::HotkeyConflict,
                format!(
                    "{hotkey} could not be registered: another app or the system already uses it ({e}). Choose another hotkey in Settings."
                ),
            )
        })
}

/// Replaces the hotkey; on failure the old one stays registered.
pub fn swap_hotkey<R: Runtime>(app: &AppHandle<R>, old: &str, new: &str) -> IpcResult<()> {
    let new_shortcut = parse_hotkey(new)?;
    let Some(global) = app.try_state::<GlobalShortcut<R>>() else {
        return Ok(());
    };
    let old_shortcut = Shortcut::from_str(old).ok();
    if let Some(old) = old_shortcut
        && global.is_registered(old)
    {
        let _ = global.unregister(old);
    }
    match register_hotkey(app, new) {
        Ok(()) => Ok(()),
        Err(e) => {
            if old_shortcut.is_some() {
                let _ = register_hotkey(app, old);
            }
            let _ = new_shortcut;
            Err(e)
        }
    }
}

/// Turns launch at login on or off (no-op without the autostart plugin: the mock runtime).
pub fn set_launch_at_login<R: Runtime>(app: &AppHandle<R>, on: bool) -> IpcResult<()> {
    use tauri_plugin_autostart::AutoLaunchManager;
    let Some(manager) = app.try_state::<AutoLaunchManager>() else {
        return Ok(());
    };
    let result = if on {
        manager.enable()
    } else {
        manager.disable()
    };
    result.map_err(|e| {
        IpcError::new(
            IpcErrorCode::ConfigInvalid,
            format!(
                "invalid value for `ui.launch_at_login`: the login item could not be changed ({e})"
            ),
        )
    })
}

/// Keeps the tray's badge on the answers pending, and, when the popup is not in front,
/// tells the user what happened (as the settings allow) and brings the popup back for a
/// Law 1 request.
fn on_envelope<R: Runtime>(app: &AppHandle<R>, envelope: &Envelope, pending: &Mutex<Pending>) {
    let message = &envelope.message;
    if !matches!(
        message,
        Message::ConfirmationRequest(_)
            | Message::ConfirmationDecision(_)
            | Message::FinalResult(_)
            | Message::TaskClosed(_)
    ) {
        return;
    }
    let Some(shell) = app.try_state::<Shell>() else {
        return;
    };
    let ui = shell.config().ui.clone();
    let open = artoo::sync::lock(pending).note(message);
    if let Some(tray) = app.tray_by_id(TRAY) {
        let (title, tooltip) = notices::badge(open, &ui);
        if let Err(e) = tray
            .set_title(title.as_deref())
            .and_then(|()| tray.set_tooltip(Some(tooltip)))
        {
            tracing::warn!(error = %e, "the tray's badge could not be set");
        }
    }
    let Ok(popup) = window(app, POPUP) else {
        return;
    };
    if in_front(app, &popup) {
        return;
    }
    if let Some(notice) = notices::notice_for(message, &ui) {
        use tauri_plugin_notification::NotificationExt;
        let mut builder = app
            .notification()
            .builder()
            .title(notice.title)
            .body(notice.body);
        if let Some((request, approve)) = notice.answers {
            builder = builder
                .action_type_id(if approve {
                    notices::APPROVE_OR_DENY
                } else {
                    notices::DENY_ONLY
                })
                .extra(notices::REQUEST_KEY, request);
        }
        if let Err(e) = builder.show() {
            tracing::warn!(error = %e, "no OS notification");
        }
    }
    if matches!(message, Message::ConfirmationRequest(_)) {
        let handle = app.clone();
        let _ = app.run_on_main_thread(move || {
            if let Err(e) = show_popup(&handle, None) {
                tracing::warn!(error = %e.message, "could not bring the popup back");
            }
        });
    }
}

/// Offers Approve and Deny on Law 1 notifications ([`notices::action_types`]) and
/// carries out what the user does with one: an answer goes to the core as if given in
/// the dialog (an approval for this one action), a click brings the popup back.
fn answer_from_notifications<R: Runtime>(app: &AppHandle<R>, ui: &artoo::config::UiConfig) {
    use tauri_plugin_notification::{Action, ActionType, NotificationExt};
    let types = notices::action_types(ui)
        .into_iter()
        .map(|(id, actions)| {
            ActionType::builder(id)
                .actions(
                    actions
                        .into_iter()
                        .map(|(action, title)| Action::builder(action, title).build())
                        .collect(),
                )
                .build()
        })
        .collect();
    let handle = app.clone();
    let wired = app
        .notification()
        .register_action_types(types)
        .and_then(|()| {
            app.notification().on_action(move |performed| {
                let extra = performed
                    .notification()
                    .map(|n| n.extra().clone())
                    .unwrap_or_default();
                act_on(&handle, notices::answer_of(performed.action_id(), &extra));
            })
        });
    if let Err(e) = wired {
        tracing::warn!(error = %e, "notifications offer no Approve or Deny");
    }
}

/// Carries out what an action on a notification asks for.
pub fn act_on<R: Runtime>(app: &AppHandle<R>, wanted: notices::FromNotification) {
    match wanted {
        notices::FromNotification::Answer(request, decision) => {
            let Some(shell) = app.try_state::<Shell>() else {
                return;
            };
            let Ok(core) = shell.core() else {
                return;
            };
            tauri::async_runtime::spawn(async move {
                // Answered meanwhile in the dialog, or expired: nothing is open any more.
                if let Err(e) = core.answer_confirmation(request, decision).await {
                    tracing::info!(error = %e, "a notification's answer found no open request");
                }
            });
        }
        notices::FromNotification::Open => {
            let handle = app.clone();
            let _ = app.run_on_main_thread(move || {
                if let Err(e) = show_popup(&handle, None) {
                    tracing::warn!(error = %e.message, "could not bring the popup back");
                }
            });
        }
        notices::FromNotification::Nothing => {}
    }
}

fn tray_menu<R: Runtime>(app: &AppHandle<R>, hotkey: &str) -> tauri::Result<Menu<R>> {
    // The hotkey shows as the item's accelerator where the platform draws one.
    let new_task =
        MenuItem::with_id(app, "new_task", "New task", true, Some(hotkey)).or_else(|_| {
            MenuItem::with_id(
                app,
                "new_task",
                format!("New task ({hotkey})"),
                true,
                None::<&str>,
            )
        })?;
    Menu::with_items(
        app,
        &[
            &new_task,
            &PredefinedMenuItem::separator(app)?,
            &MenuItem::with_id(app, "tasks", "Tasks", true, None::<&str>)?,
            &MenuItem::with_id(app, "memory", "Memory", true, None::<&str>)?,
            &MenuItem::with_id(app, "audit", "Audit", true, None::<&str>)?,
            &MenuItem::with_id(app, "settings", "Settings…", true, None::<&str>)?,
            &PredefinedMenuItem::separator(app)?,
            &MenuItem::with_id(app, "quit", "Quit artoo", true, None::<&str>)?,
        ],
    )
}

fn on_menu<R: Runtime>(app: &AppHandle<R>, event: MenuEvent) {
    let tab = match event.id().as_ref() {
        "new_task" => {
            let _ = show_popup(app, None);
            return;
        }
        "quit" => {
            let app = app.clone();
            tauri::async_runtime::spawn(async move {
                if let Some(shell) = app.try_state::<Shell>() {
                    shell.stop("artoo quit").await;
                }
                app.exit(0);
            });
            return;
        }
        "tasks" => PanelTab::Tasks,
        "memory" => PanelTab::Memory,
        "audit" => PanelTab::Audit,
        "settings" => PanelTab::Settings,
        _ => return,
    };
    if let Err(e) = show_panels(app) {
        tracing::warn!(error = %e.message, "could not open the panels window");
        return;
    }
    if let Some(shell) = app.try_state::<Shell>() {
        shell.hub().navigate(PANELS, tab, None);
    }
}

#[cfg(target_os = "macos")]
fn tray_icon() -> tauri::Result<tauri::image::Image<'static>> {
    tauri::image::Image::from_bytes(include_bytes!("../../icons/tray/trayTemplate@2x.png"))
}

#[cfg(not(target_os = "macos"))]
fn tray_icon() -> tauri::Result<tauri::image::Image<'static>> {
    // A white glyph: Linux panels and the Windows taskbar are dark by default.
    tauri::image::Image::from_bytes(include_bytes!("../../icons/tray/tray-dark@2x.png"))
}

/// Runs the scheduled tasks while the app runs ([`artoo::schedule::runner`]): a due run
/// starts as a task of the running core; while the core is not running, due runs wait.
fn spawn_schedules(shell: Shell) {
    let store = artoo::schedule::ScheduleStore::in_dir(&shell.config().data_dir);
    let ready = {
        let shell = shell.clone();
        Box::new(move || shell.core().is_ok())
    };
    let start = Box::new(move |task: &str, run| match shell.core() {
        Ok(rt) => rt.submit_scheduled(task, run).map_err(|e| e.to_string()),
        Err(e) => Err(e.message),
    });
    tauri::async_runtime::spawn(artoo::schedule::runner::run(
        store,
        ready,
        start,
        std::future::pending(),
    ));
}

/// Everything a real app has beyond its commands; called from `setup` (the mock runtime
/// never runs it). `started` is when the process began, for the start-up figure.
pub fn install<R: Runtime>(app: &AppHandle<R>, started: Instant) -> tauri::Result<()> {
    // A menu-bar app: no Dock icon, no app switcher entry. Without it the app still
    // works (with a Dock icon), so a failure is logged, not fatal.
    #[cfg(target_os = "macos")]
    if let Err(e) = app.set_activation_policy(tauri::ActivationPolicy::Accessory) {
        tracing::warn!("cannot hide the Dock icon: {e}");
    }

    let shell = app.state::<Shell>().inner().clone();
    let hotkey = shell.config().ui.hotkey.clone();
    answer_from_notifications(app, &shell.config().ui);
    // The popup starts hidden (tauri.conf.json).
    app.manage(PopupShown::default());

    let handle = app.clone();
    let pending = Mutex::new(Pending::default());
    shell.set_hook(std::sync::Arc::new(move |envelope: &Envelope| {
        on_envelope(&handle, envelope, &pending)
    }));

    if let Some(popup) = app.get_webview_window(POPUP) {
        let handle = app.clone();
        popup.on_window_event(move |event| {
            if let WindowEvent::Focused(false) = event
                && !needs_user(&handle)
                && let Err(e) = hide_popup(&handle)
            {
                tracing::warn!(error = %e.message, "could not hide the popup on blur");
            }
        });
    }

    TrayIconBuilder::with_id(TRAY)
        .icon(tray_icon()?)
        .icon_as_template(cfg!(target_os = "macos"))
        .tooltip("artoo")
        .menu(&tray_menu(app, &hotkey)?)
        .show_menu_on_left_click(false)
        .on_menu_event(on_menu)
        .on_tray_icon_event(|tray, event| {
            if let TrayIconEvent::Click {
                button: MouseButton::Left,
                button_state: MouseButtonState::Up,
                rect,
                ..
            } = event
                && let Err(e) = toggle_popup(tray.app_handle(), Some(rect))
            {
                tracing::warn!(error = %e.message, "could not toggle the popup");
            }
        })
        .build(app)?;
    let ready = started.elapsed();
    tracing::info!(millis = ready.as_millis() as u64, "tray ready");
    if std::env::var_os("ARTOO_BENCH").is_some() {
        eprintln!("artoo-bench: tray-ready-ms {}", ready.as_millis());
    }

    if let Err(e) = register_hotkey(app, &hotkey) {
        // The app stays usable from the tray; Settings shows the same message on save.
        tracing::warn!(error = %e.message, "the global hotkey is not registered");
        eprintln!("artoo: {}", e.message);
    }

    let starting = shell.clone();
    tauri::async_runtime::spawn(async move { starting.start().await });
    spawn_schedules(shell);
    Ok(())
}
