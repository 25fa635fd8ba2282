use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::Notify;

use super::{Envelope, Inner, lock};

/// What a tap yields: a message, or an explicit marker for messages it fell too far
/// behind to keep.
#[derive(Clone, Debug)]
pub enum TapEvent {
    /// A message published on the bus, in publish order.
    Message(Arc<Envelope>),
    /// `skipped` messages were published while this tap's buffer was full; they were
    /// evicted oldest-first and are not coming back.
    Gap {
        /// How many messages were lost; at least 1.
        skipped: u64,
    },
}

pub(super) struct TapShared {
    pub(super) name: String,
    pub(super) capacity: usize,
    state: Mutex<TapState>,
    pub(super) dropped: AtomicU64,
    notify: Notify,
    closed: AtomicBool,
}

struct TapState {
    queue: VecDeque<Arc<Envelope>>,
    pending_gap: u64,
}

impl TapShared {
    pub(super) fn new(name: String, capacity: usize) -> Self {
        Self {
            name,
            capacity: capacity.max(1),
            state: Mutex::new(TapState {
                queue: VecDeque::with_capacity(capacity.clamp(1, 4096)),
                pending_gap: 0,
            }),
            dropped: AtomicU64::new(0),
            notify: Notify::new(),
            closed: AtomicBool::new(false),
        }
    }

    /// O(1) whatever the reader is doing: a full buffer evicts its oldest entry.
    pub(super) fn push(&self, env: &Arc<Envelope>) {
        let mut state = lock(&self.state);
        let was_empty = state.queue.is_empty() && state.pending_gap == 0;
        if state.queue.len() >= self.capacity {
            state.queue.pop_front();
            state.pending_gap += 1;
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
        state.queue.push_back(Arc::clone(env));
        drop(state);
        // The reader only waits after seeing an empty buffer, so only that transition
        // needs a wake-up; Notify keeps a permit if the reader is not parked yet.
        if was_empty {
            self.notify.notify_one();
        }
    }

    pub(super) fn queued(&self) -> usize {
        lock(&self.state).queue.len()
    }

    pub(super) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.notify.notify_one();
    }

    pub(super) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    fn try_take(&self) -> Option<TapEvent> {
        let mut state = lock(&self.state);
        if state.pending_gap > 0 {
            let skipped = std::mem::take(&mut state.pending_gap);
            return Some(TapEvent::Gap { skipped });
        }
        state.queue.pop_front().map(TapEvent::Message)
    }
}

/// A read-only view of every message on the bus. It has `recv` and no way to publish:
/// whoever holds only a tap cannot instruct any role.
pub struct Tap {
    pub(super) shared: Arc<TapShared>,
    pub(super) bus: Weak<Inner>,
}

impl Tap {
    /// The name the tap was opened with, for diagnostics.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// Next event, or `None` once the bus is closed and the buffer drained.
    pub async fn recv(&mut self) -> Option<TapEvent> {
        loop {
            if let Some(event) = self.shared.try_take() {
                return Some(event);
            }
            if self.shared.is_closed() {
                return self.shared.try_take();
            }
            self.shared.notify.notified().await;
        }
    }

    /// Next event if one is buffered.
    pub fn try_recv(&mut self) -> Option<TapEvent> {
        self.shared.try_take()
    }

    /// Messages this tap has lost so far (also reported by [`super::Bus::stats`]).
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        self.shared.close();
        if let Some(bus) = self.bus.upgrade() {
            let mut taps = crate::sync::write(&bus.taps);
            taps.retain(|t| !Arc::ptr_eq(t, &self.shared));
        }
    }
}
