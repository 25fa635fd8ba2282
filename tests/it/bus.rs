//! Bus guarantees under load: roles lose nothing, taps are bounded and say exactly how
//! much they missed.

use std::sync::Arc;

use artoo::bus::{Bus, TapEvent};
use artoo::contracts::{Message, Role, TaskClosed, TaskClosure, TaskId};
use artoo::{FakeClock, SystemClock};

const BURST: usize = 100_000;

fn numbered(task: &TaskId, i: usize) -> TaskClosed {
    TaskClosed::cancelled(task.clone(), i.to_string())
}

fn number(msg: &Message) -> usize {
    match msg {
        Message::TaskClosed(TaskClosed {
            end: TaskClosure::Cancelled { reason },
            ..
        }) => reason.parse().unwrap(),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn a_burst_with_a_stalled_tap_loses_nothing_on_role_queues_and_reports_the_gap() {
    let bus = Bus::new(FakeClock::at_epoch());
    let mut planner = bus.subscribe(Role::Planner);
    let mut stalled = bus.tap("stalled", 1_000);
    let mut live = bus.tap("live", BURST);
    let user = bus.handle(Role::User);
    let task = TaskId::mint();

    for i in 0..BURST {
        user.publish(Role::All, numbered(&task, i));
    }

    // The role queue holds every message, in order.
    for expected in 0..BURST {
        let env = planner.try_recv().expect("no control message is dropped");
        assert_eq!(number(&env.message), expected);
        assert_eq!(env.seq, expected as u64);
    }
    assert!(planner.try_recv().is_none());

    // The stalled tap stayed within its bound while the burst went through …
    let stats = bus.stats();
    let stalled_stats = stats.taps.iter().find(|t| t.name == "stalled").unwrap();
    assert_eq!(stalled_stats.queued, 1_000);
    assert_eq!(stalled_stats.dropped, (BURST - 1_000) as u64);
    let live_stats = stats.taps.iter().find(|t| t.name == "live").unwrap();
    assert_eq!(live_stats.dropped, 0);

    // … and when it reads, it is told exactly how much it missed before the newest 1 000.
    match stalled.recv().await.unwrap() {
        TapEvent::Gap { skipped } => assert_eq!(skipped, (BURST - 1_000) as u64),
        other => panic!("expected a gap marker, got {other:?}"),
    }
    for expected in BURST - 1_000..BURST {
        match stalled.try_recv().unwrap() {
            TapEvent::Message(env) => assert_eq!(number(&env.message), expected),
            gap => panic!("unexpected {gap:?}"),
        }
    }
    assert!(stalled.try_recv().is_none());
    assert_eq!(stalled.dropped(), (BURST - 1_000) as u64);

    // The live tap saw everything without a gap.
    for expected in 0..BURST {
        match live.try_recv().unwrap() {
            TapEvent::Message(env) => assert_eq!(number(&env.message), expected),
            gap => panic!("unexpected {gap:?}"),
        }
    }
}

#[tokio::test]
async fn a_gap_is_reported_again_after_the_tap_falls_behind_a_second_time() {
    let bus = Bus::new(FakeClock::at_epoch());
    let mut tap = bus.tap("small", 2);
    let user = bus.handle(Role::User);
    let task = TaskId::mint();
    for i in 0..5 {
        user.publish(Role::All, numbered(&task, i));
    }
    assert!(matches!(
        tap.recv().await,
        Some(TapEvent::Gap { skipped: 3 })
    ));
    assert!(matches!(tap.recv().await, Some(TapEvent::Message(e)) if number(&e.message) == 3));
    for i in 5..8 {
        user.publish(Role::All, numbered(&task, i));
    }
    // 4 was still buffered; 5,6,7 arrive into a 2-slot buffer: 4 and 5 are evicted.
    assert!(matches!(
        tap.recv().await,
        Some(TapEvent::Gap { skipped: 2 })
    ));
    assert!(matches!(tap.recv().await, Some(TapEvent::Message(e)) if number(&e.message) == 6));
    assert!(matches!(tap.recv().await, Some(TapEvent::Message(e)) if number(&e.message) == 7));
    assert_eq!(tap.dropped(), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_publishers_keep_their_own_order_and_lose_nothing() {
    let bus = Bus::new(SystemClock::shared());
    let mut inbox = bus.subscribe(Role::Ggs);
    let publishers = 4;
    let per = 20_000;
    let tasks: Vec<TaskId> = (0..publishers).map(|_| TaskId::mint()).collect();
    let mut joins = Vec::new();
    for task in tasks.clone() {
        let handle = bus.handle(Role::User);
        joins.push(std::thread::spawn(move || {
            for i in 0..per {
                handle.publish(Role::All, numbered(&task, i));
            }
        }));
    }
    for j in joins {
        j.join().unwrap();
    }
    let mut next = vec![0usize; publishers];
    for _ in 0..publishers * per {
        let env = inbox.recv().await.unwrap();
        let idx = tasks
            .iter()
            .position(|t| Some(t) == env.task_id.as_ref())
            .unwrap();
        assert_eq!(number(&env.message), next[idx], "publisher {idx} reordered");
        next[idx] += 1;
    }
    assert!(next.iter().all(|n| *n == per));
    assert!(inbox.try_recv().is_none());
}

#[tokio::test]
async fn a_waiting_tap_wakes_when_a_message_is_published() {
    let bus = Bus::new(SystemClock::shared());
    let mut tap = bus.tap("waiter", 16);
    let reader = tokio::spawn(async move { tap.recv().await });
    tokio::task::yield_now().await;
    bus.handle(Role::User)
        .publish(Role::All, numbered(&TaskId::mint(), 7));
    let got = tokio::time::timeout(std::time::Duration::from_secs(5), reader)
        .await
        .expect("the tap woke up")
        .unwrap();
    assert!(matches!(got, Some(TapEvent::Message(e)) if number(&e.message) == 7));
}

#[tokio::test]
async fn dropping_a_tap_detaches_it_from_the_bus() {
    let bus = Bus::new(SystemClock::shared());
    let tap = bus.tap("gone", 4);
    assert_eq!(bus.stats().taps.len(), 1);
    drop(tap);
    assert!(bus.stats().taps.is_empty());
    let _keep: Arc<()> = Arc::new(());
}
