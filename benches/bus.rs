//! Publish throughput with two drained taps, and publish latency with a stalled tap.

use std::hint::black_box;
use std::time::Duration;

use artoo::SystemClock;
use artoo::bus::{Bus, TapEvent};
use artoo::contracts::{Role, TaskCancelled, TaskId};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn message(task: &TaskId) -> TaskCancelled {
    TaskCancelled {
        task_id: task.clone(),
        reason: "bench".into(),
    }
}

fn publish(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let task = TaskId::mint();

    let mut group = c.benchmark_group("bus_publish");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(5));

    {
        // A role subscriber and two taps, all drained concurrently.
        let bus = Bus::new(SystemClock::shared());
        let mut inbox = bus.subscribe(Role::Planner);
        let mut taps = [bus.tap("ui", 65_536), bus.tap("auditor", 65_536)];
        let _guard = rt.enter();
        rt.spawn(async move { while inbox.recv().await.is_some() {} });
        for mut tap in std::mem::replace(&mut taps, [bus.tap("x", 1), bus.tap("y", 1)]) {
            rt.spawn(async move {
                while let Some(ev) = tap.recv().await {
                    black_box(matches!(ev, TapEvent::Gap { .. }));
                }
            });
        }
        drop(taps);
        let handle = bus.handle(Role::Perceiver);
        group.bench_function("role_plus_2_drained_taps", |b| {
            b.iter(|| handle.publish(Role::Planner, message(&task)))
        });
        bus.close();
    }

    {
        // Same, but one tap never reads: publish must not slow down.
        let bus = Bus::new(SystemClock::shared());
        let mut inbox = bus.subscribe(Role::Planner);
        let mut live = bus.tap("ui", 65_536);
        let _stalled = bus.tap("stalled", 1_024);
        let _guard = rt.enter();
        rt.spawn(async move { while inbox.recv().await.is_some() {} });
        rt.spawn(async move { while live.recv().await.is_some() {} });
        let handle = bus.handle(Role::Perceiver);
        group.bench_function("role_plus_live_and_stalled_tap", |b| {
            b.iter(|| handle.publish(Role::Planner, message(&task)))
        });
        bus.close();
    }
    group.finish();
}

criterion_group!(benches, publish);
criterion_main!(benches);
