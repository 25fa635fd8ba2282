//! Publish throughput with two drained taps, and publish cost with a stalled tap.
//!
//! Each iteration publishes a burst of [`BURST`] messages to a role whose inbox, like the
//! taps, is drained concurrently by tokio tasks; criterion reports per-message figures.
#![allow(clippy::unwrap_used)] // a test may unwrap: a panic is its failure report
#![allow(missing_docs)] // criterion_group! defines an undocumented `pub fn` per group

use std::hint::black_box;
use std::time::Duration;

use artoo::SystemClock;
use artoo::bus::{Bus, BusHandle, Tap};
use artoo::contracts::{Role, TaskClosed, TaskId};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const BURST: u64 = 10_000;

fn burst(handle: &BusHandle, task: &TaskId) {
    for _ in 0..BURST {
        black_box(handle.publish(
            Role::Planner,
            TaskClosed::cancelled(task.clone(), String::new()),
        ));
    }
}

fn drain(rt: &tokio::runtime::Runtime, bus: &Bus, taps: Vec<Tap>) {
    let mut inbox = bus.subscribe(Role::Planner);
    rt.spawn(async move { while inbox.recv().await.is_some() {} });
    for mut tap in taps {
        rt.spawn(async move { while tap.recv().await.is_some() {} });
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
    group.throughput(Throughput::Elements(BURST));
    group.measurement_time(Duration::from_secs(8));

    let bus = Bus::new(SystemClock::shared());
    drain(
        &rt,
        &bus,
        vec![bus.tap("ui", 65_536), bus.tap("auditor", 65_536)],
    );
    let handle = bus.handle(Role::Perceiver);
    group.bench_function("role_plus_2_drained_taps", |b| {
        b.iter(|| burst(&handle, &task))
    });
    bus.close();

    let bus = Bus::new(SystemClock::shared());
    drain(
        &rt,
        &bus,
        vec![bus.tap("ui", 65_536), bus.tap("auditor", 65_536)],
    );
    let _stalled = bus.tap("stalled", 1_024);
    let handle = bus.handle(Role::Perceiver);
    group.bench_function("role_plus_2_drained_taps_and_1_stalled_tap", |b| {
        b.iter(|| burst(&handle, &task))
    });
    bus.close();
    group.finish();
}

criterion_group!(benches, publish);
criterion_main!(benches);
