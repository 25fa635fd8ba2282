//! The one event stream to the webviews: a single bus tap fanned out to every
//! `subscribe_events` channel, each envelope with the core's line for it and the status
//! line it begins, with the envelopes of still-running tasks replayed to a new
//! subscriber first, tap gaps forwarded as `gap` events, and panel navigation addressed
//! to one window (kept for the window's first subscriber when its page is still loading:
//! the panels window is created on first open).
//!
//! **Invariant:** a subscriber sees every envelope of a running task exactly once and in
//! bus order — the replay and the registration happen under the same lock as the
//! fan-out — or a `gap` event saying how many were lost; never a silent hole.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use artoo::Config;
use artoo::bus::{Envelope, Tap, TapEvent};
use artoo::config::GgsParams;
use artoo::contracts::TaskId;
use artoo::describe::DescribedEnvelope;
use artoo::status::{Lang, StatusBoard};
use tauri::ipc::Channel;

use crate::dto::{PanelFocus, PanelTab, UiEvent};

/// Envelopes kept per running task for late subscribers; a task past this keeps its
/// newest envelopes and the subscriber rebuilds the rest from `task_replay`.
const LIVE_ENVELOPES_PER_TASK: usize = 4096;

/// Called for every envelope after the fan-out (window behaviour: notifications, keeping
/// the popup up while a task needs the user).
pub type EnvelopeHook = Arc<dyn Fn(&Envelope) + Send + Sync>;

/// An envelope with its line and the status line it begins.
type Described = (DescribedEnvelope, Option<String>);

struct Subscriber {
    id: u32,
    window: String,
    channel: Channel<UiEvent>,
}

#[derive(Default)]
struct HubState {
    next_id: u32,
    subscribers: Vec<Subscriber>,
    /// Envelopes of tasks seen on the tap, by task, in bus order, each with its status
    /// line; pruned to the running tasks whenever a subscriber joins.
    live: HashMap<TaskId, Vec<Described>>,
    /// Writes each envelope's status line (one board for every window, so all show the
    /// same words).
    board: StatusBoard,
    /// ε and δ for the gradient arrow of the envelopes' lines.
    ggs: GgsParams,
    /// The last navigation addressed to a window none of whose pages had subscribed yet.
    pending_navigation: HashMap<String, UiEvent>,
}

/// The fan-out point. Cheap to clone.
#[derive(Clone, Default)]
pub struct Hub {
    state: Arc<Mutex<HubState>>,
}

impl Hub {
    fn lock(&self) -> MutexGuard<'_, HubState> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        artoo::sync::lock(&self.state)
    }

    /// Registers `channel` for `window`: sends it the envelopes of `running` tasks it
    /// missed and a navigation that was waiting for the window, then every event from
    /// now on. Returns the subscription id.
    pub fn subscribe(&self, window: &str, channel: Channel<UiEvent>, running: &[TaskId]) -> u32 {
        let mut state = self.lock();
        state.live.retain(|task, _| running.contains(task));
        let mut backlog: Vec<Described> = state.live.values().flatten().cloned().collect();
        backlog.sort_by_key(|(e, _)| e.envelope.seq);
        for (envelope, status) in backlog {
            if channel
                .send(UiEvent::Envelope { envelope, status })
                .is_err()
            {
                break;
            }
        }
        if let Some(navigation) = state.pending_navigation.remove(window) {
            let _ = channel.send(navigation);
        }
        state.next_id = state.next_id.wrapping_add(1);
        let id = state.next_id;
        state.subscribers.push(Subscriber {
            id,
            window: window.to_string(),
            channel,
        });
        id
    }

    /// Removes a subscription; false when it was not there.
    pub fn unsubscribe(&self, id: u32) -> bool {
        let mut state = self.lock();
        let before = state.subscribers.len();
        state.subscribers.retain(|s| s.id != id);
        state.subscribers.len() != before
    }

    /// Sends one tap event to every subscriber; drops subscribers whose webview is gone.
    pub fn publish(&self, event: &TapEvent) {
        let mut state = self.lock();
        let ui = match event {
            TapEvent::Message(envelope) => {
                let status = state.board.line(envelope);
                let envelope = DescribedEnvelope::new(envelope.clone(), &state.ggs);
                if let Some(task) = &envelope.envelope.task_id {
                    let kept = state.live.entry(task.clone()).or_default();
                    if kept.len() >= LIVE_ENVELOPES_PER_TASK {
                        kept.remove(0);
                    }
                    kept.push((envelope.clone(), status.clone()));
                }
                UiEvent::Envelope { envelope, status }
            }
            TapEvent::Gap { skipped } => UiEvent::Gap { skipped: *skipped },
        };
        state
            .subscribers
            .retain(|s| s.channel.send(ui.clone()).is_ok());
    }

    /// The language and home directory of the status lines and the GGS thresholds of the
    /// envelopes' lines from now on (set when the core starts, so no task's plan is
    /// forgotten mid-way).
    pub fn configure(&self, config: &Config) {
        let mut state = self.lock();
        state.board = StatusBoard::new(
            Lang::from_tag(&config.ui.language),
            Some(config.home.clone()),
        );
        state.ggs = config.ggs.clone();
    }

    /// Sends `event` to every subscriber of every window.
    pub fn broadcast(&self, event: &UiEvent) {
        self.lock()
            .subscribers
            .retain(|s| s.channel.send(event.clone()).is_ok());
    }

    /// Tells `window`'s subscribers to show `tab` (and `focus`); with none yet (a window
    /// just created, its page loading), its first subscriber gets it. Returns how many
    /// subscribers got it now.
    pub fn navigate(&self, window: &str, tab: PanelTab, focus: Option<PanelFocus>) -> usize {
        let mut state = self.lock();
        let event = UiEvent::Navigate { tab, focus };
        let sent = state
            .subscribers
            .iter()
            .filter(|s| s.window == window)
            .filter(|s| s.channel.send(event.clone()).is_ok())
            .count();
        if sent == 0 {
            state.pending_navigation.insert(window.to_string(), event);
        }
        sent
    }

    /// Reads `tap` until the bus closes, fanning out each event, then calling `hook`.
    pub async fn pump(self, mut tap: Tap, hook: Option<EnvelopeHook>) {
        while let Some(event) = tap.recv().await {
            self.publish(&event);
            if let (Some(hook), TapEvent::Message(envelope)) = (&hook, &event) {
                hook(envelope);
            }
        }
    }
}
