//! JSON extraction cost: a clean reply, a typical polluted one, a large object, and the
//! worst case the caps allow (512 KiB of quote-and-brace noise).
#![allow(clippy::unwrap_used)] // a test may unwrap: a panic is its failure report
#![allow(missing_docs)] // criterion_group! defines an undocumented `pub fn` per group

use std::hint::black_box;

use artoo::llm::extract::{self, MAX_REPLY_BYTES};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn replies() -> Vec<(&'static str, String)> {
    let clean = r#"{"verdicts": [{"criterion": "report.txt exists", "met": true, "evidence": "ls shows report.txt"}, {"criterion": "it is not empty", "met": true, "evidence": "wc -c: 2048"}]}"#.to_string();
    let polluted = format!(
        "<think>{}</think>\nSure! Here is the JSON you asked for:\n```json\n{}\n```\nLet me know if you need anything else.",
        "The user wants verdicts for {criteria}. I will check each one. ".repeat(12),
        r#"{"verdicts": [{"criterion": "file "a.txt" exists", "met": True, "evidence": "line one
line two",},]}"#
    );
    let items: Vec<String> = (0..1500)
        .map(|i| format!(r#"{{"intent": "subtask {i}", "criteria": ["output lists file {i}"], "sequence": {}}}"#, i % 5 + 1))
        .collect();
    let large = format!(r#"{{"subtasks": [{}]}}"#, items.join(", "));
    let mut worst = "{\"a\": \"x\" \"".repeat(MAX_REPLY_BYTES / 11);
    worst.truncate(MAX_REPLY_BYTES);
    // The first three are answers, the last is noise: measure the paths they really take.
    for reply in [&clean, &polluted, &large] {
        assert!(extract::first_object(reply).is_ok(), "{reply}");
    }
    assert!(extract::first_object(&worst).is_err());
    vec![
        ("clean", clean),
        ("polluted", polluted),
        ("large", large),
        ("worst_case", worst),
    ]
}

fn extraction(c: &mut Criterion) {
    let mut group = c.benchmark_group("extract");
    for (name, reply) in replies() {
        group.throughput(Throughput::Bytes(reply.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| black_box(extract::first_object(black_box(&reply))))
        });
    }
    group.finish();
}

criterion_group!(benches, extraction);
criterion_main!(benches);
