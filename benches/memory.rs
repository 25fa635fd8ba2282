//! R5 memory benchmarks (figures in docs/benchmarks.md):
//!
//! - `memory_write`: the write path (`Memory::write` × 10 000, then a barrier) against
//!   raw rusty-leveldb puts of the same key/value bytes. Target: ≥ 50 % of raw.
//! - `memory_query`: `query_mk` and the full R2 `recall` on a store of 1 M Megrams with
//!   1 000 in the queried group, cold (groups in rotation, so every query scans LevelDB)
//!   and warm (the group cache holds it). Target: p99 ≤ 5 ms (printed with p50 and max).
//! - `memory_dreamer`: one Dreamer pass over the 1 M-Megram store, each sample on a fresh
//!   copy of it. Target: ≤ 10 s.
//!
//! The raw baseline opens LevelDB directly: it measures the library, not artoo.
#![allow(clippy::unwrap_used)] // a test may unwrap: a panic is its failure report
#![allow(missing_docs)] // criterion_group! defines an undocumented `pub fn` per group

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use artoo::clock::{Clock, FakeClock, SharedClock};
use artoo::config::MemoryParams;
use artoo::contracts::{Level, Megram, MegramId, MegramOrigin};
use artoo::memory::keys::{self, IndexEntry};
use artoo::memory::{DistillFuture, DistillRequest, Distiller, Memory};
use chrono::Duration as ChronoDuration;
use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use rusty_leveldb::{DB, Options, WriteBatch};

const WRITE_BATCH: usize = 10_000;
const STORE_SIZE: usize = 1_000_000;
/// Groups of exactly [`GROUP_SIZE`] entries, one of which each query asks for; more of
/// them than the group cache holds, so querying them in rotation always misses it.
const BIG_GROUPS: usize = 150;
const GROUP_SIZE: usize = 1_000;
/// The other 850 000 entries fall into this many groups (85 each).
const OTHER_GROUPS: usize = 10_000;
const ENTITY: &str = "env:local";
/// Entries span this many days before "now", so most are alive (as in a store the
/// Dreamer has been collecting all along).
const SPAN_DAYS: i64 = 40;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// GGS quantisation (seed 003), weighted like a store that has been collected: the
/// fast-decaying classes are rare.
fn quantised(i: usize) -> (MegramOrigin, f64, f64, f64) {
    match i % 50 {
        0 => (MegramOrigin::Refine, 0.10, 0.5, 0.5),
        1 => (MegramOrigin::ChangePath, 0.30, 0.0, 0.2),
        n if n % 5 == 0 => (MegramOrigin::Abandon, 0.95, -1.0, 0.05),
        n if n % 5 == 1 => (MegramOrigin::Accept, 0.90, 1.0, 0.05),
        n if n % 5 == 2 => (MegramOrigin::ChangeApproach, 0.85, -1.0, 0.05),
        n if n % 5 == 3 => (MegramOrigin::Success, 0.80, 1.0, 0.05),
        _ => (MegramOrigin::BreakSymmetry, 0.75, 1.0, 0.05),
    }
}

fn sample_megram(i: usize, space: String, created: chrono::DateTime<chrono::Utc>) -> Megram {
    let (state, f, sigma, k) = quantised(i);
    Megram {
        id: MegramId::mint(),
        level: if i.is_multiple_of(97) {
            Level::K
        } else {
            Level::M
        },
        created_at: created,
        last_recalled_at: None,
        space,
        entity: ENTITY.into(),
        content: format!(
            "Succeeded. Tools: shell:ls ~/Documents/reports, read_file:report-{i}.md. \
             Result: summarised {} sections into the weekly report draft ({state}).",
            i % 17
        ),
        state,
        f,
        sigma,
        k,
    }
}

/// The key/value bytes the store writes for one Megram.
fn raw_entries(m: &Megram) -> [(Vec<u8>, Vec<u8>); 3] {
    let entry = IndexEntry::of(m);
    [
        (
            keys::megram_key(m.id),
            serde_json::to_vec(m).expect("megram serialises"),
        ),
        (
            keys::index_key(&m.space, &m.entity, m.id),
            entry.encode().to_vec(),
        ),
        (keys::level_key(m.level, m.id), Vec::new()),
    ]
}

fn batch_of_megrams(clock: &FakeClock) -> Vec<Megram> {
    (0..WRITE_BATCH)
        .map(|i| sample_megram(i, format!("intent:task-{}", i % 500), clock.now()))
        .collect()
}

fn write_path(c: &mut Criterion) {
    let rt = runtime();
    let clock = FakeClock::at_epoch();
    let mut group = c.benchmark_group("memory_write");
    group.throughput(Throughput::Elements(WRITE_BATCH as u64));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(20));

    let service_dir = tempfile::tempdir().expect("temp dir");
    let memory = rt
        .block_on(Memory::open_at(
            service_dir.path().join("memory.leveldb"),
            MemoryParams::default(),
            clock.clone(),
            None,
        ))
        .expect("memory opens");
    // The barrier is a query: it returns once every earlier write is applied and handed
    // to the OS — what the raw baseline's flush does.
    group.bench_function("service_write_then_barrier", |b| {
        b.iter_batched(
            || batch_of_megrams(&clock),
            |megrams| {
                for m in megrams {
                    memory.write(m).expect("write accepted");
                }
                rt.block_on(memory.query_mk("bench:barrier", ENTITY))
                    .expect("barrier");
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("service_write_then_fsync_flush", |b| {
        b.iter_batched(
            || batch_of_megrams(&clock),
            |megrams| {
                for m in megrams {
                    memory.write(m).expect("write accepted");
                }
                rt.block_on(memory.flush()).expect("flush");
            },
            BatchSize::PerIteration,
        )
    });
    rt.block_on(memory.close()).expect("close");

    let raw_dir = tempfile::tempdir().expect("temp dir");
    let mut db = DB::open(raw_dir.path(), Options::default()).expect("raw leveldb opens");
    let raw_batch = || {
        batch_of_megrams(&clock)
            .iter()
            .flat_map(raw_entries)
            .collect::<Vec<_>>()
    };
    group.bench_function("raw_leveldb_puts_same_bytes", |b| {
        b.iter_batched(
            raw_batch,
            |entries| {
                for (k, v) in &entries {
                    db.put(k, v).expect("put");
                }
                db.flush().expect("flush");
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("raw_leveldb_one_writebatch_same_bytes", |b| {
        b.iter_batched(
            raw_batch,
            |entries| {
                let mut batch = WriteBatch::default();
                for (k, v) in &entries {
                    batch.put(k, v);
                }
                db.write(batch, false).expect("write");
                db.flush().expect("flush");
            },
            BatchSize::PerIteration,
        )
    });
    db.close().expect("close");
    group.finish();
}

/// A distiller that answers at once, so a pass measures the store, not a model.
struct InstantDistiller;

impl Distiller for InstantDistiller {
    fn distil<'a>(&'a self, request: &'a DistillRequest) -> DistillFuture<'a> {
        Box::pin(async move { Ok(format!("Rule for {} / {}.", request.space, request.entity)) })
    }
}

/// Writes the 1 M-Megram store through the real write path and returns the clock set
/// to "now" (the end of the span).
fn populate(rt: &tokio::runtime::Runtime, dir: &Path) -> Arc<FakeClock> {
    let clock = FakeClock::at_epoch();
    let start = clock.now();
    let memory = rt
        .block_on(Memory::open_at(
            dir,
            MemoryParams::default(),
            clock.clone(),
            None,
        ))
        .expect("memory opens");
    let began = Instant::now();
    for i in 0..STORE_SIZE {
        // Three in twenty entries go to the big groups, round-robin, so each big group's
        // entries are spread over the whole history (and every LevelDB level).
        let slot = i % 20;
        let space = if slot < 3 {
            big_space((i / 20 * 3 + slot) % BIG_GROUPS)
        } else {
            format!("intent:task-{:05}", i % OTHER_GROUPS)
        };
        let created = start
            + ChronoDuration::milliseconds((i as i64) * SPAN_DAYS * 86_400_000 / STORE_SIZE as i64);
        memory
            .write(sample_megram(i, space, created))
            .expect("write accepted");
        if (i + 1) % 20_000 == 0 {
            rt.block_on(memory.flush()).expect("flush");
        }
    }
    rt.block_on(memory.close()).expect("close");
    println!(
        "populated {STORE_SIZE} megrams ({BIG_GROUPS} groups of {GROUP_SIZE}) in {:.1} s, {} on disk",
        began.elapsed().as_secs_f64(),
        human_size(dir_size(dir))
    );
    clock.set(start + ChronoDuration::days(SPAN_DAYS));
    clock
}

fn big_space(n: usize) -> String {
    format!("intent:report-{n:03}")
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn human_size(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}

fn percentiles(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label}: n={} p50={:?} p90={:?} p99={:?} max={:?}",
        samples.len(),
        at(0.50),
        at(0.90),
        at(0.99),
        samples[samples.len() - 1]
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create copy");
    for entry in std::fs::read_dir(from).expect("read store dir") {
        let entry = entry.expect("dir entry");
        if entry.file_name() != "LOCK" {
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy file");
        }
    }
}

/// The 1 M-Megram store, built on first use so a filtered run (`-- memory_write`) does
/// not pay for it.
struct LargeStore {
    _base: tempfile::TempDir,
    pristine: std::path::PathBuf,
    clock: Arc<FakeClock>,
}

/// Set to a directory to keep the populated store there between runs (it is built on
/// the first run); the store is deterministic in everything the benches measure.
const KEEP_STORE_ENV: &str = "ARTOO_BENCH_MEMORY_STORE";

impl LargeStore {
    fn build(rt: &tokio::runtime::Runtime) -> Self {
        let base = tempfile::tempdir().expect("temp dir");
        let pristine = base.path().join("pristine");
        let clock = match std::env::var_os(KEEP_STORE_ENV).map(std::path::PathBuf::from) {
            Some(kept) => {
                if !kept.join("CURRENT").exists() {
                    populate(rt, &kept);
                }
                copy_dir(&kept, &pristine);
                let clock = FakeClock::at_epoch();
                clock.advance(ChronoDuration::days(SPAN_DAYS));
                clock
            }
            None => populate(rt, &pristine),
        };
        Self {
            _base: base,
            pristine,
            clock,
        }
    }

    fn open_copy(
        &self,
        rt: &tokio::runtime::Runtime,
        name: &str,
        distiller: Option<Arc<dyn Distiller>>,
    ) -> (Memory, std::path::PathBuf) {
        let dir = self.pristine.with_file_name(name);
        copy_dir(&self.pristine, &dir);
        let clock: SharedClock = self.clock.clone();
        let memory = rt
            .block_on(Memory::open_at(
                &dir,
                MemoryParams::default(),
                clock,
                distiller,
            ))
            .expect("memory opens");
        (memory, dir)
    }
}

/// One query of group `n`: the potentials alone, or everything R2 gets.
fn query(rt: &tokio::runtime::Runtime, memory: &Memory, n: usize, full_recall: bool) {
    let space = big_space(n);
    if full_recall {
        black_box(rt.block_on(memory.recall(&space, ENTITY)).expect("recall"));
    } else {
        black_box(rt.block_on(memory.query_mk(&space, ENTITY)).expect("query"));
    }
}

fn query_percentiles(rt: &tokio::runtime::Runtime, memory: &Memory) {
    let p = rt
        .block_on(memory.query_mk(&big_space(0), ENTITY))
        .expect("query");
    println!("{}: {p:?}", big_space(0));
    for full_recall in [false, true] {
        let name = if full_recall { "recall" } else { "query_mk" };
        // Cold: groups in rotation, more than the cache holds, so each query scans.
        let mut cold = Vec::with_capacity(2_000);
        for i in 0..2_000 {
            let t = Instant::now();
            query(rt, memory, i % BIG_GROUPS, full_recall);
            cold.push(t.elapsed());
        }
        percentiles(&format!("{name} cold (LevelDB scan)"), cold);
        let mut warm = Vec::with_capacity(2_000);
        for _ in 0..2_000 {
            let t = Instant::now();
            query(rt, memory, 7, full_recall);
            warm.push(t.elapsed());
        }
        percentiles(&format!("{name} warm (group cached)"), warm);
    }
}

fn large_store(c: &mut Criterion) {
    let rt = runtime();
    let store: std::cell::OnceCell<LargeStore> = std::cell::OnceCell::new();

    // Queries run on a copy, so the pristine store stays as written for the Dreamer.
    let query_store: std::cell::OnceCell<(Memory, std::path::PathBuf)> = std::cell::OnceCell::new();
    let query_memory = || {
        &query_store
            .get_or_init(|| {
                let (memory, dir) = store
                    .get_or_init(|| LargeStore::build(&rt))
                    .open_copy(&rt, "query", None);
                query_percentiles(&rt, &memory);
                (memory, dir)
            })
            .0
    };
    let mut group = c.benchmark_group("memory_query");
    for (name, full_recall) in [("query_mk", false), ("recall", true)] {
        // The rotation carries over between criterion's calls of the routine, so no
        // group is queried again before all the others were.
        let next_group = std::cell::Cell::new(0usize);
        group.bench_function(format!("{name}_1k_of_1m_cold"), |b| {
            let memory = query_memory();
            b.iter(|| {
                let n = next_group.get();
                next_group.set(n + 1);
                query(&rt, memory, n % BIG_GROUPS, full_recall)
            })
        });
        group.bench_function(format!("{name}_1k_of_1m_warm"), |b| {
            let memory = query_memory();
            b.iter(|| query(&rt, memory, 7, full_recall))
        });
    }
    group.finish();
    if let Some((memory, dir)) = query_store.into_inner() {
        rt.block_on(memory.close()).expect("close");
        std::fs::remove_dir_all(dir).expect("remove copy");
    }

    let mut group = c.benchmark_group("memory_dreamer");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(60));
    let mut sample = 0;
    group.bench_function("pass_over_1m", |b| {
        let store = store.get_or_init(|| LargeStore::build(&rt));
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                sample += 1;
                let (memory, dir) = store.open_copy(
                    &rt,
                    &format!("dream-{sample}"),
                    Some(Arc::new(InstantDistiller)),
                );
                let t = Instant::now();
                let report = rt.block_on(memory.dream()).expect("pass");
                total += t.elapsed();
                if sample == 1 {
                    println!(
                        "pass: scanned {} entries in {} groups, collected {}, bankrupt {}, \
                         consolidated {}, deferred {}",
                        report.scanned,
                        report.groups,
                        report.gc_deleted,
                        report.bankrupt.len(),
                        report.consolidated.len(),
                        report.deferred
                    );
                }
                rt.block_on(memory.close()).expect("close");
                std::fs::remove_dir_all(&dir).expect("remove copy");
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, write_path, large_store);
criterion_main!(benches);
