//! The table read on recorded cases: each file of `tests/fixtures/finish/` holds a
//! sub-task, its calls as the model saw them, the finish, the turn and what the
//! attempt had spent, and what the table must make of it. Beside them, the table's own
//! rules: its order, its budgets, and that every row rules on some recorded case.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use super::*;
use crate::contracts::PathEffect;
use crate::roles::executor::step::value_text;
use crate::tools::ToolRef;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// What happened, in one sentence: where the case comes from.
    #[allow(dead_code)] // read by people
    about: String,
    subtask: Sub,
    calls: Vec<Call>,
    finish: Fin,
    /// The finish's turn and the attempt's last turn.
    turn: (u32, u32),
    #[serde(default)]
    spent: Vec<Once>,
    #[serde(default)]
    shape_pushes: usize,
    #[serde(default)]
    finish_only: bool,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Sub {
    intent: String,
    #[serde(default)]
    context: String,
    #[serde(default)]
    request: Option<String>,
    #[serde(default)]
    answer: AnswerShape,
    #[serde(default)]
    files: Vec<(String, Vec<String>)>,
    /// The files the sub-task names as they were when it began: `(path, text)`.
    #[serde(default)]
    texts: Vec<(String, String)>,
    #[serde(default)]
    unwritten: Vec<String>,
    #[serde(default)]
    change_unmade: bool,
    #[serde(default = "yes")]
    can_calculate: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Call {
    tool: String,
    input: Value,
    status: ToolCallStatus,
    #[serde(default)]
    target: String,
    #[serde(default)]
    failure: Option<crate::contracts::ToolFailure>,
    /// What the model saw of the call (the record keeps it as its output's head).
    output: String,
    #[serde(default)]
    effects: Vec<PathEffect>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Fin {
    status: FinishStatus,
    output: String,
    #[serde(default)]
    summary: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum Expect {
    /// Sent back by this row, the push-back naming each of `says`, the next turn so.
    Pushed {
        check: String,
        says: Vec<String>,
        next_finish_only: bool,
    },
    /// Settled by this row with exactly this answer.
    Settled { check: String, answer: String },
    /// Delivered as exactly this answer, restated by these rows, with doubts that name
    /// each of `doubts`.
    Delivered {
        output: String,
        restated_by: Vec<String>,
        #[serde(default)]
        doubts: Vec<String>,
    },
}

fn record(call: &Call) -> ToolCallRecord {
    ToolCallRecord {
        tool: ToolRef::parse(&call.tool),
        input: call.input.clone(),
        target: call.target.clone(),
        output_head: call.output.clone(),
        status: call.status,
        error: (call.status != ToolCallStatus::Ok).then(|| call.output.clone()),
        duration_ms: 1,
        confirmation: None,
        failure: call.failure,
        failed_exit: None,
        effects: call.effects.clone(),
        grant: None,
    }
}

fn observed(call: &Call) -> Observed {
    Observed {
        tool: ToolRef::parse(&call.tool),
        input: value_text(&call.input),
        status: call.status,
        text: call.output.clone(),
    }
}

fn cases() -> Vec<(String, Case)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/finish");
    let mut cases: Vec<(String, Case)> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/finish")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            let case =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), case)
        })
        .collect();
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!cases.is_empty(), "no recorded case in {}", dir.display());
    cases
}

/// Weighs a case with the given table; what it came to, and the state after it.
fn weigh_case(case: &Case, checks: &[Check], pushes: &mut Pushes) -> Weighed {
    let records: Vec<ToolCallRecord> = case.calls.iter().map(record).collect();
    let seen: Vec<Observed> = case.calls.iter().map(observed).collect();
    let files: Vec<NamedFile> = case
        .subtask
        .files
        .iter()
        .map(|(name, folders)| NamedFile {
            name: name.clone(),
            folders: folders.clone(),
        })
        .collect();
    let finish = Finish {
        status: case.finish.status,
        output: &case.finish.output,
        summary: &case.finish.summary,
        records: &records,
        observed: &seen,
        step: case.turn.0,
        max_steps: case.turn.1,
    };
    let s = &case.subtask;
    let subject = Subject {
        answer: s.answer,
        intent: &s.intent,
        context: &s.context,
        request: s.request.as_deref(),
        files: &files,
        texts: &s.texts,
        unwritten: s.unwritten.clone(),
        change_unmade: s.change_unmade,
        can_calculate: s.can_calculate,
        home: Path::new("/home/u"),
    };
    weigh_by(checks, &finish, &subject, pushes)
}

fn pushes_of(case: &Case) -> Pushes {
    let mut pushes = Pushes {
        shape: case.shape_pushes,
        finish_only: case.finish_only,
        ..Pushes::default()
    };
    for once in &case.spent {
        pushes.spend(*once);
    }
    pushes
}

#[test]
fn every_recorded_case_comes_to_what_it_records() {
    for (name, case) in cases() {
        let mut pushes = pushes_of(&case);
        let weighed = weigh_case(&case, CHECKS, &mut pushes);
        match (&case.expect, &weighed) {
            (
                Expect::Pushed {
                    check,
                    says,
                    next_finish_only,
                },
                Weighed::Pushed { check: got, nudge },
            ) => {
                assert_eq!(check, got, "{name}: {nudge}");
                for word in says {
                    assert!(
                        nudge.contains(word.as_str()),
                        "{name}: {word:?} not in {nudge}"
                    );
                }
                assert_eq!(pushes.finish_only, *next_finish_only, "{name}");
            }
            (
                Expect::Settled { check, answer },
                Weighed::Settled {
                    check: got,
                    answer: a,
                },
            ) => {
                assert_eq!((check.as_str(), answer), (*got, a), "{name}");
            }
            (
                Expect::Delivered {
                    output,
                    restated_by,
                    doubts,
                },
                Weighed::Delivered {
                    output: o,
                    restated_by: r,
                    doubts: d,
                },
            ) => {
                assert_eq!(output, o, "{name}");
                assert_eq!(restated_by, r, "{name}");
                assert_eq!(doubts.is_empty(), d.is_empty(), "{name}: {d:?}");
                for word in doubts {
                    assert!(
                        d.iter().any(|x| x.contains(word.as_str())),
                        "{name}: {word:?} not in {d:?}"
                    );
                }
            }
            (expected, got) => panic!("{name}: expected {expected:?}, got {got:?}"),
        }
    }
}

#[test]
fn every_row_of_the_table_rules_on_a_recorded_case() {
    let cases = cases();
    for check in CHECKS {
        let ruled = cases.iter().any(|(_, case)| match &case.expect {
            Expect::Pushed { check: c, .. } | Expect::Settled { check: c, .. } => c == check.name,
            Expect::Delivered { restated_by, .. } => restated_by.iter().any(|c| c == check.name),
        });
        assert!(ruled, "no recorded case for the row {:?}", check.name);
    }
    let mut names: Vec<&str> = CHECKS.iter().map(|c| c.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), CHECKS.len(), "row names are unique");
}

#[test]
fn a_row_that_pushed_back_once_does_not_push_the_same_finish_back_again() {
    for (name, case) in cases() {
        let Expect::Pushed { check, .. } = &case.expect else {
            continue;
        };
        let row = CHECKS.iter().find(|c| c.name == check).expect("a row");
        let mut pushes = pushes_of(&case);
        weigh_case(&case, CHECKS, &mut pushes);
        let mut again = 1;
        loop {
            match weigh_case(&case, CHECKS, &mut pushes) {
                Weighed::Pushed { check: got, .. } if got == row.name => again += 1,
                _ => break,
            }
            assert!(
                again <= MAX_SHAPE_PUSHES,
                "{name}: {check} pushed back {again} times"
            );
        }
        match row.budget {
            Budget::Shape => assert!(again <= MAX_SHAPE_PUSHES, "{name}"),
            _ => assert_eq!(again, 1, "{name}: {check} pushed back {again} times"),
        }
    }
}

#[test]
fn the_table_is_read_in_order_and_the_first_ruling_decides() {
    // Every recorded push-back, read by a table whose rows above it were removed,
    // still comes from that row; read by the table without that row, from a later one
    // or none: no row depends on a row below it.
    for (name, case) in cases() {
        let Expect::Pushed { check, .. } = &case.expect else {
            continue;
        };
        let at = CHECKS.iter().position(|c| c.name == check).expect("a row");
        let mut pushes = pushes_of(&case);
        match weigh_case(&case, &CHECKS[at..], &mut pushes) {
            Weighed::Pushed { check: got, .. } => assert_eq!(got, *check, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
        let without: Vec<Check> = CHECKS
            .iter()
            .filter(|c| c.name != check)
            .map(|c| Check {
                name: c.name,
                when: c.when,
                budget: c.budget,
                rule: c.rule,
            })
            .collect();
        let mut pushes = pushes_of(&case);
        if let Weighed::Pushed { check: got, .. } = weigh_case(&case, &without, &mut pushes) {
            let later = CHECKS.iter().position(|c| c.name == got).expect("a row");
            assert!(
                later > at,
                "{name}: without {check}, {got} (above it) ruled"
            );
        }
    }
}

#[test]
fn an_attempt_down_to_finishing_hears_only_the_rows_that_read_the_records() {
    for (name, case) in cases() {
        let mut pushes = pushes_of(&case);
        pushes.finish_only = true;
        if let Weighed::Pushed { check, .. } = weigh_case(&case, CHECKS, &mut pushes) {
            let row = CHECKS.iter().find(|c| c.name == check).expect("a row");
            assert!(
                !row.when.not_finish_only,
                "{name}: {check} ruled on a finish-only turn"
            );
        }
    }
}

#[test]
fn the_last_turn_is_never_sent_back() {
    for (name, case) in cases() {
        let mut last = pushes_of(&case);
        let mut at_last = Case {
            turn: (case.turn.1, case.turn.1),
            ..case
        };
        at_last.spent.clear();
        let weighed = weigh_case(&at_last, CHECKS, &mut last);
        assert!(
            !matches!(weighed, Weighed::Pushed { .. }),
            "{name}: {weighed:?} on the last turn"
        );
    }
}

#[test]
fn how_much_a_call_was_asked_to_show_is_no_evidence_for_an_answer() {
    let input = r#"{"op":"all","path":"/h/notes/monday.txt","take":10,"text":null}"#;
    let kept = without_counts(input);
    assert!(!kept.contains("10"), "{kept}");
    assert!(kept.contains("monday.txt"), "{kept}");
    // The 10 of the call's own limit does not back an answer of 10; the path still
    // backs an answer that names it.
    let shown = |answer: &str| {
        crate::ggs::grounding::unverified(answer, &["5 of the 5 lines of monday.txt:"], &[&kept])
    };
    assert_eq!(shown("10"), ["10"]);
    assert!(shown("5").is_empty());
    // Inputs that are not JSON objects (a command line) are kept whole.
    assert_eq!(without_counts("ls -1 ~/notes"), "ls -1 ~/notes");
}

#[test]
fn a_finish_the_whole_count_row_finds_nothing_in_leaves_its_push_back_for_the_count() {
    // Recorded (held confirmed_guests_count, 1.5B, run 14): the model asked for the same
    // read again, whose output was weighed as its answer, then finished with the count
    // of every line; the push-back had been spent on the repeated read.
    let (_, case) = cases()
        .into_iter()
        .find(|(name, _)| name == "whole_counted.json")
        .expect("the recorded case");
    let mut pushes = pushes_of(&case);
    let read_again = Case {
        finish: Fin {
            status: FinishStatus::Completed,
            output: case.calls[0].output.clone(),
            summary: String::new(),
        },
        ..case
    };
    let first = weigh_case(&read_again, CHECKS, &mut pushes);
    assert!(
        !matches!(
            first,
            Weighed::Pushed {
                check: "whole counted",
                ..
            }
        ),
        "{first:?}"
    );
    let (_, case) = cases()
        .into_iter()
        .find(|(name, _)| name == "whole_counted.json")
        .expect("the recorded case");
    match weigh_case(&case, CHECKS, &mut pushes) {
        Weighed::Pushed { check, .. } => assert_eq!(check, "whole counted"),
        other => panic!("the count of every line went out: {other:?}"),
    }
}
