//! Wall-clock time, passed down as a value so decay, budgets and Ω are testable.
//!
//! **Invariant:** nothing in the core calls `SystemTime::now()`/`Utc::now()` except
//! [`SystemClock`]; everything else asks the [`Clock`] it was given.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};

/// A source of the current time.
pub trait Clock: Send + Sync + 'static {
    /// The current time, in UTC.
    fn now(&self) -> DateTime<Utc>;
}

/// The shared form every component receives.
pub type SharedClock = Arc<dyn Clock>;

/// The real clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

impl SystemClock {
    /// The system clock behind a [`SharedClock`].
    pub fn shared() -> SharedClock {
        Arc::new(SystemClock)
    }
}

/// A clock that only moves when told to.
#[derive(Debug)]
pub struct FakeClock {
    now: Mutex<DateTime<Utc>>,
}

impl FakeClock {
    /// A clock that reads `start` until it is moved.
    pub fn new(start: DateTime<Utc>) -> Arc<Self> {
        Arc::new(Self {
            now: Mutex::new(start),
        })
    }

    /// A fixed, readable start: 2026-01-01T00:00:00Z.
    pub fn at_epoch() -> Arc<Self> {
        Self::new(
            DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
                .expect("constant timestamp parses")
                .with_timezone(&Utc),
        )
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        let mut now = crate::sync::lock(&self.now);
        *now += by;
    }

    /// Sets the clock to `to`, which may lie in the past.
    pub fn set(&self, to: DateTime<Utc>) {
        *crate::sync::lock(&self.now) = to;
    }
}

impl Clock for FakeClock {
    fn now(&self) -> DateTime<Utc> {
        *crate::sync::lock(&self.now)
    }
}

/// Sleeps until `deadline`, or forever without one: the deadline branch of an actor's
/// `select!` that fires only when there is something to wait for.
pub async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_moves_only_when_advanced() {
        let clock = FakeClock::at_epoch();
        let t0 = clock.now();
        assert_eq!(clock.now(), t0);
        clock.advance(Duration::days(3));
        assert_eq!(clock.now() - t0, Duration::days(3));
    }
}
