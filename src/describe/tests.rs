use std::path::Path;

use serde_json::json;

use super::*;
use crate::contracts::MessageKind;
use crate::testkit::samples::{TASK, loss, message, samples};

fn summary_of(kind: MessageKind) -> Summary {
    let env = samples()
        .into_iter()
        .find(|e| e.message.kind() == kind)
        .unwrap_or_else(|| panic!("no sample of {}", kind.name()));
    describe(&env.message, &GgsParams::default())
}

fn assert_bounded(summary: &Summary, what: &str) {
    assert!(!summary.line.is_empty(), "{what}: an empty line");
    for line in std::iter::once(&summary.line).chain(&summary.more) {
        assert!(!line.contains(['\n', '\r']), "{what}: {line:?}");
        assert!(line.chars().count() <= LINE_CHARS, "{what}: {line}");
        assert!(!line.contains("{\""), "{what}: raw JSON in {line}");
    }
}

#[test]
fn every_message_kind_yields_a_bounded_line() {
    for &kind in MessageKind::ALL {
        assert_bounded(&summary_of(kind), kind.name());
    }
}

/// The traffic the runtime really sends (`tests/fixtures/transcripts/`).
#[test]
fn every_envelope_of_the_golden_transcripts_yields_a_bounded_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).expect("the transcripts exist") {
        let path = entry.expect("an entry").path();
        let text = std::fs::read_to_string(&path).expect("readable");
        let envelopes: Vec<Envelope> = serde_json::from_str(&text).expect("a transcript");
        for env in &envelopes {
            let summary = describe(&env.message, &GgsParams::default());
            assert_bounded(&summary, &path.display().to_string());
        }
        read += envelopes.len();
    }
    assert!(read > 0);
}

#[test]
fn long_and_multi_line_text_is_cut_to_one_line_and_an_empty_one_is_named() {
    let long = format!("first line\n\tsecond {}", "x".repeat(1000));
    let submitted = message(
        "TaskSubmitted",
        json!({"task_id": TASK, "raw_input": long, "submitted_at": "2026-02-27T10:00:00Z"}),
    );
    let summary = describe(&submitted, &GgsParams::default());
    assert_bounded(&summary, "long");
    assert!(summary.line.starts_with("first line second xxx"));
    assert!(summary.line.ends_with('…'));
    let empty = message("ChatReply", json!({"task_id": TASK, "answer": " \n "}));
    assert_eq!(describe(&empty, &GgsParams::default()).line, "(empty)");
}

#[test]
fn a_directive_shows_the_arrow_the_numbers_and_the_transition_then_why() {
    let directive = message(
        "PlanDirective",
        json!({"task_id": TASK, "loss": loss(0.5, 0.0, 0.123, 0.4), "prev_directive": "init", "directive": "change_path",
        "blocked_tools": [], "blocked_targets": ["~/Downloads/Installers"], "failed_criterion": "", "failure_class": "environmental",
        "budget_pressure": 0.1, "grad_l": 0.0, "gradient": "plateau", "rationale": "Plateau: another path.", "urgency": "normal", "round": 0}),
    );
    let summary = describe(&directive, &GgsParams::default());
    assert_eq!(
        summary.line,
        "⊥ D=0.50 P=0.00 ∇L=+0.00 Ω=12% init→change_path · normal urgency · round 0"
    );
    assert_eq!(
        summary.more,
        [
            "why: Plateau: another path.",
            "MUST NOT: tools [] · targets [~/Downloads/Installers]"
        ]
    );
    assert_eq!(summary.state, Some(MacroState::ChangePath));
}

#[test]
fn the_arrow_follows_the_gradient_when_the_directive_does_not_name_it() {
    let arrow_of = |grad_l: f64, d: f64| {
        let m = message(
            "PlanDirective",
            json!({"task_id": TASK, "loss": loss(d, 0.0, 0.1, 0.5), "prev_directive": "refine", "directive": "refine",
            "blocked_tools": [], "blocked_targets": [], "failed_criterion": "", "failure_class": "logical", "budget_pressure": 0.1, "grad_l": grad_l, "rationale": "r"}),
        );
        let line = describe(&m, &GgsParams::default()).line;
        line.chars().next().expect("an arrow")
    };
    assert_eq!(arrow_of(0.3, 1.0), '↑');
    assert_eq!(arrow_of(-0.3, 1.0), '↓');
    assert_eq!(arrow_of(0.0, 1.0), '⊥');
    assert_eq!(arrow_of(0.0, 0.1), '→');
}

#[test]
fn a_halted_dispatch_counts_what_it_skipped_and_says_why() {
    assert_eq!(
        summary_of(MessageKind::DispatchHalted).line,
        "1 skipped · group 1 failed"
    );
}

#[test]
fn a_final_result_carries_its_outcome_loss_replans_and_summary() {
    let summary = summary_of(MessageKind::FinalResult);
    assert_eq!(
        summary.line,
        "❌ abandon ↓ D=1.00 P=0.00 ∇L=-0.20 Ω=95% · 3 replans · Gave up: sizes missing"
    );
    assert_eq!(summary.state, Some(MacroState::Abandon));
}

#[test]
fn only_decisions_and_megrams_carry_a_macro_state() {
    for env in samples() {
        let kind = env.message.kind();
        let state = describe(&env.message, &GgsParams::default()).state;
        let carries = matches!(
            kind,
            MessageKind::PlanDirective | MessageKind::FinalResult | MessageKind::Megram
        );
        assert!(carries || state.is_none(), "{}: {state:?}", kind.name());
        if kind != MessageKind::Megram {
            assert_eq!(carries, state.is_some(), "{}", kind.name());
        }
    }
}

#[test]
fn a_joined_summary_keeps_the_continuation_lines_in_one_bounded_line() {
    let summary = summary_of(MessageKind::PlanDirective);
    let joined = summary.joined(LINE_CHARS);
    assert!(joined.starts_with(&summary.line), "{joined}");
    assert!(
        joined.contains(" · why: Worsening with environmental failures"),
        "{joined}"
    );
    assert!(summary.joined(20).chars().count() <= 20);
}

#[test]
fn a_described_envelope_is_the_envelope_with_its_line() {
    let env = Arc::new(samples().remove(0));
    let described = DescribedEnvelope::new(Arc::clone(&env), &GgsParams::default());
    let mut expected = serde_json::to_value(env.as_ref()).expect("serialises");
    expected["line"] = json!(described.line);
    assert_eq!(
        serde_json::to_value(&described).expect("serialises"),
        expected
    );
    let back: Envelope = serde_json::from_value(expected).expect("an envelope reads back");
    assert_eq!(&back, env.as_ref());
}

#[test]
fn a_call_a_standing_grant_allowed_names_the_grant_first() {
    let env = samples()
        .into_iter()
        .find(|e| e.message.kind() == MessageKind::ToolCallEvent)
        .expect("a sample call");
    let Message::ToolCallEvent(mut event) = env.message.clone() else {
        unreachable!()
    };
    let plain = describe(
        &Message::ToolCallEvent(event.clone()),
        &GgsParams::default(),
    );
    assert!(!plain.line.contains("standing grant"), "{}", plain.line);
    event.record.grant = Some("deleting .tmp files under ~/Downloads".into());
    let granted = describe(&Message::ToolCallEvent(event), &GgsParams::default());
    assert!(
        granted
            .line
            .contains("allowed by the standing grant \"deleting .tmp files under ~/Downloads\""),
        "{}",
        granted.line
    );
    assert_bounded(&granted, "granted");
}
