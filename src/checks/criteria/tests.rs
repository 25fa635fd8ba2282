use std::collections::HashMap;

use super::*;

/// A world of files stated by the test.
#[derive(Debug, Default)]
struct World0(HashMap<PathBuf, FileState>);

impl World0 {
    fn file(mut self, path: &str, text: &str) -> Self {
        self.0.insert(
            PathBuf::from(path),
            FileState::File {
                bytes: text.len() as u64,
                text: Some(text.to_string()),
            },
        );
        self
    }

    fn folder(mut self, path: &str) -> Self {
        self.0.insert(PathBuf::from(path), FileState::Folder);
        self
    }
}

impl Files for World0 {
    fn state(&self, path: &Path) -> FileState {
        self.0.get(path).cloned().unwrap_or(FileState::Missing)
    }
}

const HOME: &str = "/home/u";

fn eval(check: &Check, answer: &str, world: &World0) -> Outcome {
    evaluate(check, answer, world, Path::new(HOME))
}

fn exists(path: &str, contains: Option<&str>) -> Check {
    Check::FileExists {
        path: path.into(),
        contains: contains.map(Into::into),
    }
}

#[test]
fn a_file_asked_for_is_met_only_at_its_path_and_with_its_text() {
    let world = World0::default()
        .file("/home/u/out/count.txt", "12\n")
        .folder("/home/u/out/list");
    assert_eq!(
        eval(&exists("~/out/count.txt", None), "", &world),
        Outcome::Met("~/out/count.txt exists (3 bytes)".into())
    );
    assert!(matches!(
        eval(&exists("/home/u/out/count.txt", Some("12")), "", &world),
        Outcome::Met(_)
    ));
    // Written elsewhere, or with other text, or a folder in its place: unmet, saying so.
    assert_eq!(
        eval(&exists("~/out/counts.txt", None), "", &world),
        Outcome::Unmet("nothing is at ~/out/counts.txt".into())
    );
    let Outcome::Unmet(why) = eval(&exists("~/out/count.txt", Some("13")), "", &world) else {
        panic!("other text is unmet");
    };
    assert!(
        why.contains("does not hold «13»") && why.contains("begins «12»"),
        "{why}"
    );
    assert!(matches!(
        eval(&exists("~/out/list", None), "", &world),
        Outcome::Unmet(_)
    ));
}

#[test]
fn a_file_to_remove_is_met_once_nothing_is_there() {
    let world = World0::default().file("/home/u/inbox/old.tmp", "x");
    let gone = |p: &str| Check::FileGone { path: p.into() };
    assert!(matches!(
        eval(&gone("~/inbox/old.tmp"), "", &world),
        Outcome::Unmet(_)
    ));
    assert!(matches!(
        eval(&gone("~/inbox/other.tmp"), "", &world),
        Outcome::Met(_)
    ));
}

#[test]
fn an_answer_states_a_text_or_a_number_equal_to_it() {
    let states = |answer: &str, text: &str| {
        matches!(
            eval(
                &Check::AnswerStates { text: text.into() },
                answer,
                &World0::default()
            ),
            Outcome::Met(_)
        )
    };
    assert!(states("The total is 1,200 euros.", "1200"));
    assert!(states(
        "It falls on  Friday, 27 February 2026",
        "friday, 27 february 2026"
    ));
    assert!(states("The spread is 21 degrees.", "21"));
    // A value close to it, or another number, is not it.
    assert!(!states("The spread is 18 degrees.", "21"));
    assert!(!states("The total is 120.", "1200"));
    assert!(!states("anything", ""));
}

#[test]
fn a_quoted_line_must_be_a_line_of_the_file_that_holds_the_text() {
    let world = World0::default().file(
        "/home/u/app.log",
        "INFO start\nERROR disk full\nWARN slow\nERROR network down\nINFO stop\n",
    );
    let quotes = |answer: &str, text: &str| {
        eval(
            &Check::QuotesLine {
                path: "~/app.log".into(),
                text: text.into(),
            },
            answer,
            &world,
        )
    };
    assert!(matches!(
        quotes("The last error: ERROR network down", "error"),
        Outcome::Met(_)
    ));
    // A line of another kind — the last line of the file — is not a line that holds it.
    let Outcome::Unmet(why) = quotes("The last error: INFO stop", "error") else {
        panic!("a line of the wrong kind");
    };
    assert!(
        why.contains("2 lines") && why.contains("ERROR network down"),
        "{why}"
    );
    // A text no line holds leaves the answer to be judged: "there is none" may be right.
    assert!(matches!(
        quotes("There is no fatal line.", "fatal"),
        Outcome::Unknown(_)
    ));
    assert!(matches!(
        eval(
            &Check::QuotesLine {
                path: "~/none.log".into(),
                text: "error".into()
            },
            "ERROR x",
            &world
        ),
        Outcome::Unmet(_)
    ));
}

#[test]
fn a_check_a_model_wrote_stands_only_on_the_tasks_own_words() {
    let home = Path::new(HOME);
    let task = "Save the largest file's name to ~/out/largest.txt\nPlaces: - Downloads → /home/u/Downloads (folder)";
    let computed = vec!["90 days after 2026-01-01 is 2026-04-01".to_string()];
    assert!(grounded(
        &exists("/home/u/out/largest.txt", None),
        task,
        &computed,
        home
    ));
    assert!(grounded(
        &exists("~/out/largest.txt", None),
        task,
        &computed,
        home
    ));
    // A path nobody named, or the content the model guesses the answer will have: not.
    assert!(!grounded(
        &exists("~/out/biggest.txt", None),
        task,
        &computed,
        home
    ));
    assert!(!grounded(
        &exists("~/out/largest.txt", Some("video.mp4")),
        task,
        &computed,
        home
    ));
    assert!(!grounded(
        &Check::AnswerStates {
            text: "video.mp4".into()
        },
        task,
        &computed,
        home
    ));
    // A value code computed from the request may be checked in the answer.
    assert!(grounded(
        &Check::AnswerStates {
            text: "2026-04-01".into()
        },
        task,
        &computed,
        home
    ));
    assert!(!grounded(
        &Check::FileGone { path: "/".into() },
        task,
        &computed,
        home
    ));
    let quoted = Check::QuotesLine {
        path: "~/app.log".into(),
        text: "error".into(),
    };
    assert!(grounded(
        &quoted,
        "the last error line of ~/app.log",
        &[],
        home
    ));
    assert!(!grounded(&quoted, "the last line of ~/app.log", &[], home));
}

#[test]
fn code_derives_a_file_the_request_asks_to_make_at_a_path_it_names() {
    let home = Path::new(HOME);
    let world = World0::default().file("/home/u/notes/todo.txt", "a\nb\n");
    let derived = derived(
        "Count the lines of ~/notes/todo.txt and save the number to ~/notes/count.txt.",
        home,
        &world,
    );
    assert_eq!(
        derived,
        vec![(
            "A file is at ~/notes/count.txt when the work ends".to_string(),
            exists("~/notes/count.txt", None)
        )]
    );
    // Nothing to make: a question, or a path that exists already (an edit is checked
    // otherwise), or a folder, names no file to check.
    assert!(derived_of("How many lines does ~/notes/count.txt have?", &world).is_empty());
    assert!(derived_of("Save the count to ~/notes/todo.txt", &world).is_empty());
    assert!(derived_of("Save the logs into ~/archive/", &world).is_empty());
    // A missing file the request reads from is an input, not an output.
    assert!(
        derived_of(
            "Add up ~/notes/sums.csv and write the total to ~/notes/total.txt",
            &world
        )
        .iter()
        .all(|(_, c)| *c == exists("~/notes/total.txt", None))
    );
    assert_eq!(
        derived_of(
            "write a summary and save it as a new file called ~/notes/summary.md",
            &world
        )
        .len(),
        1
    );
}

fn derived_of(request: &str, world: &World0) -> Vec<(String, Check)> {
    derived(request, Path::new(HOME), world)
}

#[test]
fn the_disk_tells_a_file_a_folder_and_nothing() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "hello").expect("written");
    assert_eq!(
        Disk.state(&file),
        FileState::File {
            bytes: 5,
            text: Some("hello".into())
        }
    );
    assert_eq!(Disk.state(dir.path()), FileState::Folder);
    assert_eq!(Disk.state(&dir.path().join("none")), FileState::Missing);
    std::fs::write(&file, [0xff, 0xfe, 0x00]).expect("written");
    assert_eq!(
        Disk.state(&file),
        FileState::File {
            bytes: 3,
            text: None
        }
    );
}

fn verdict(criterion: &Criterion, pass: bool) -> CriterionVerdict {
    let mut v = CriterionVerdict::for_criterion(
        criterion,
        if pass { Verdict::Pass } else { Verdict::Fail },
    );
    v.evidence = "the model's reading".into();
    v
}

#[test]
fn an_unmet_check_fails_its_criterion_whatever_the_model_judged() {
    let world = World {
        home: PathBuf::from(HOME),
        files: std::sync::Arc::new(World0::default().file("/home/u/out/count.txt", "12")),
    };
    let criteria = vec![
        Criterion::checked(
            "count.txt is written",
            exists("~/out/count.txt", Some("12")),
        ),
        Criterion::checked("summary.txt is written", exists("~/out/summary.txt", None)),
        Criterion::new("the count is right"),
    ];
    let held = hold_to_checks(
        criteria.iter().map(|c| verdict(c, true)).collect(),
        &criteria,
        "Wrote 12 to ~/out/count.txt",
        &world,
    );
    assert_eq!(held[0].verdict, Verdict::Pass);
    assert!(
        held[0]
            .evidence
            .starts_with("checked by code: ~/out/count.txt holds «12»"),
        "{}",
        held[0].evidence
    );
    assert_eq!(held[1].verdict, Verdict::Fail);
    assert_eq!(held[1].failure_class, Some(FailureClass::Logical));
    assert_eq!(
        held[1].evidence,
        "checked by code: nothing is at ~/out/summary.txt"
    );
    // A criterion with no check is the model's.
    assert_eq!(
        (held[2].verdict, held[2].evidence.as_str()),
        (Verdict::Pass, "the model's reading")
    );
    // A met check does not turn a model's fail into a pass: the criterion may ask more.
    let held = hold_to_checks(
        vec![verdict(&criteria[0], false)],
        &criteria[..1],
        "",
        &world,
    );
    assert_eq!(held[0].verdict, Verdict::Fail);
    // Before any model: what is unmet, and whether code verified every criterion.
    let unmet = unmet_checks(&criteria, "", &world);
    assert_eq!(unmet.len(), 1);
    assert_eq!(unmet[0].criterion, "summary.txt is written");
    assert!(all_met(&criteria[..1], "", &world));
    assert!(
        !all_met(&criteria, "", &world),
        "an unmet check and an unchecked criterion"
    );
    assert!(all_met(&[], "", &world), "nothing to verify");
}

#[test]
fn a_criterion_in_its_checks_own_words_is_judged_by_code_alone() {
    let world = World {
        home: PathBuf::from(HOME),
        files: std::sync::Arc::new(World0::default().file("/home/u/out/count.txt", "12")),
    };
    let at = exists("~/out/count.txt", None);
    let alone = Criterion::checked(stated(&at), at.clone());
    let elsewhere = exists("~/out/other.txt", None);
    let missing = Criterion::checked(stated(&elsewhere), elsewhere);
    // The same check under words that ask more is the model's, held to its check.
    let more = Criterion::checked("count.txt holds the right count", at);
    let plain = Criterion::new("the count is right");
    assert!(by_code_alone(&alone) && by_code_alone(&missing));
    assert!(!by_code_alone(&more) && !by_code_alone(&plain));
    let criteria = vec![alone, plain.clone(), missing, more.clone()];
    // The model judged the two it was asked about, in their order (both failed here).
    let by_model = vec![verdict(&plain, false), verdict(&more, false)];
    let all = with_code_verdicts(&criteria, by_model, "", &world);
    let got: Vec<(&str, Verdict)> = all
        .iter()
        .map(|v| (v.criterion.as_str(), v.verdict))
        .collect();
    assert_eq!(
        got,
        [
            (
                "A file is at ~/out/count.txt when the work ends",
                Verdict::Pass
            ),
            ("the count is right", Verdict::Fail),
            (
                "A file is at ~/out/other.txt when the work ends",
                Verdict::Fail
            ),
            ("count.txt holds the right count", Verdict::Fail),
        ]
    );
    assert_eq!(
        all[0].evidence,
        "checked by code: ~/out/count.txt exists (2 bytes)"
    );
    assert_eq!(
        all[2].evidence,
        "checked by code: nothing is at ~/out/other.txt"
    );
    // Held to the checks afterwards, code's own verdicts are left as they are.
    let held = hold_to_checks(all.clone(), &criteria, "", &world);
    assert_eq!(held, all);
}
