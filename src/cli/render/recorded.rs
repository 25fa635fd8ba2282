//! The CLI's views on real traffic: every golden transcript (what the runtime put on the
//! bus for a whole task, recorded and drift-checked by the core's tests) renders envelope
//! by envelope in the live pipeline, and its fold renders as `/replay`.

use std::path::PathBuf;
use std::sync::Arc;

use artoo::bus::Envelope;
use artoo::config::GgsParams;
use artoo::contracts::{Message, TaskClosure};
use artoo::tasklog::{Record, Trajectory};
use serde::Deserialize;

use super::{LineStyle, pipeline_lines, trajectory};

/// One transcript entry: the envelope, and the core's line the recording kept for it.
#[derive(Deserialize)]
struct Described {
    #[serde(flatten)]
    envelope: Envelope,
    line: String,
}

fn transcripts() -> Vec<(String, Vec<Described>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts");
    let mut all: Vec<(String, Vec<Described>)> = std::fs::read_dir(&dir)
        .expect("the transcripts are in the repository")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable transcript");
            let name = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into();
            (
                name,
                serde_json::from_str(&text).expect("a transcript parses"),
            )
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(all.len() >= 3, "transcripts found: {}", all.len());
    all
}

#[test]
fn every_recorded_envelope_shows_its_route_its_kind_and_the_core_line() {
    let style = LineStyle::plain(true);
    for (name, entries) in transcripts() {
        for d in &entries {
            let env = &d.envelope;
            let lines = pipeline_lines(env, &style);
            let head = lines
                .first()
                .unwrap_or_else(|| panic!("{name}: nothing shown"));
            let kind = env.message.kind().name();
            assert!(
                head.contains(env.from.short()) && head.contains(env.to.short()),
                "{name}: {head}"
            );
            assert!(head.contains(kind), "{name}: {head}");
            assert!(
                head.ends_with(d.line.as_str()),
                "{name}: {head} / {}",
                d.line
            );
        }
    }
}

#[test]
fn every_recorded_run_replays_with_its_rounds_law1_exchanges_and_end() {
    for (name, entries) in transcripts() {
        let records: Vec<Record> = entries
            .iter()
            .filter(|d| d.envelope.task_id.is_some())
            .map(|d| Record::Envelope(Arc::new(d.envelope.clone())))
            .collect();
        let t = Trajectory::fold(&records);
        let text = trajectory(&t, "run_x", &GgsParams::default()).join("\n");
        assert!(text.starts_with("Run run_x · task "), "{name}: {text}");
        assert!(text.contains(t.status.as_str()), "{name}: {text}");
        for round in &t.rounds {
            assert!(
                text.contains(&format!("round {}: ", round.index)),
                "{name}: round {} missing: {text}",
                round.index
            );
        }
        assert_eq!(
            text.matches("Law 1: ").count(),
            t.law1.len(),
            "{name}: {text}"
        );
        let messages = entries.iter().map(|d| &d.envelope.message);
        for m in messages {
            match m {
                Message::FinalResult(_) => assert!(text.contains("result: "), "{name}: {text}"),
                Message::ChatReply(_) => assert!(text.contains("chat reply: "), "{name}: {text}"),
                Message::TaskClosed(c) if matches!(c.end, TaskClosure::Cancelled { .. }) => {
                    assert!(text.contains("cancelled: "), "{name}: {text}")
                }
                _ => {}
            }
        }
        assert!(text.contains("\nCost "), "{name}: the cost block: {text}");
    }
}
