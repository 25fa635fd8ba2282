//! A real-model suite written on 2026-12-01 (morning), after that morning's changes and
//! before any of its tasks ran: kinds that no other suite and no prompt has — two lists
//! joined into a new file, how often a word occurs (not how many lines hold it), whether a
//! named file is there, the longest line of a file, the earliest date of a column, files of
//! one kind moved into a new folder, one column of a table written out as a list, and a
//! share of a budget. Each judge reads the exact end state and the exact answer, and
//! rejects a plausible wrong outcome (a test below).
//!
//! `scripts/real-model-suite --suite beyond` runs it.

use std::path::Path;

use super::harness::{Law1, NEGATIVE, Suite, Task, check, has_date, put, task_tests, values};

/// The suite: its report lines start `beyond:`.
const SUITE: Suite = Suite {
    name: "beyond",
    tasks: TASKS,
    make_home,
};

/// `~/lists/a.txt` and `~/lists/b.txt`, and the two joined, a's lines first.
const LIST_A: &str = "apples\npears\n";
const LIST_B: &str = "milk\nbread\n";
const LISTS_JOINED: [&str; 4] = ["apples", "pears", "milk", "bread"];

/// `~/notes/fruit.txt`: the word "apple" 4 times (three on one line, once capitalised);
/// 3 lines hold the letters "apple" (one in "pineapple"), 5 times in all.
const FRUIT: &str =
    "apple pie, apple juice and apple jam\nbanana\npineapple tart\nan Apple a day\n";

/// `~/Documents`: names near budget.xlsx, and no budget.xlsx.
const DOCUMENTS: [&str; 3] = ["budget.xls", "budget.xlsx.bak", "budget-2025.xlsx"];

/// `~/notes/quotes.txt`: the longest line is the second (44 characters); the fourth is
/// nearly as long (40).
const QUOTES: &str = "Be brief.\nSimplicity is the ultimate sophistication.\nLess is more.\n\
Well begun is half done, said Aristotle.\n";
const LONGEST: &str = "Simplicity is the ultimate sophistication";

/// `~/data/visits.csv`: the earliest visit is 2025-11-02 (Bo); the first row is the latest.
const VISITS: &str = "name,visited\nAna,2026-05-14\nBo,2025-11-02\nCy,2026-01-20\nDi,2025-12-24\n";

/// `~/camera`: two .jpg files to move into `photos`, a .png and a note that stay.
const CAMERA: [(&str, &[u8]); 4] = [
    ("beach.jpg", b"JPEG beach"),
    ("hill.jpg", b"JPEG hill"),
    ("map.png", b"PNG map"),
    ("notes.txt", b"two shots\n"),
];

/// `~/data/team.csv` and the addresses in its order.
const TEAM: &str = "name,email,role\nAna,ana@example.org,dev\nBo,bo@example.org,ops\n\
Cy,cy@example.org,dev\n";
const EMAILS: [&str; 3] = ["ana@example.org", "bo@example.org", "cy@example.org"];

/// `~/data/spent.txt`: 250 spent of a budget of 500, so 50 %.
const SPENT: &str = "120\n80.5\n49.5\n";

fn make_home(home: &Path) {
    put(home, "lists/a.txt", LIST_A.as_bytes());
    put(home, "lists/b.txt", LIST_B.as_bytes());
    put(home, "notes/fruit.txt", FRUIT.as_bytes());
    for name in DOCUMENTS {
        put(home, &format!("Documents/{name}"), b"PK spreadsheet");
    }
    put(home, "notes/quotes.txt", QUOTES.as_bytes());
    put(home, "data/visits.csv", VISITS.as_bytes());
    for (name, bytes) in CAMERA {
        put(home, &format!("camera/{name}"), bytes);
    }
    put(home, "data/team.csv", TEAM.as_bytes());
    put(home, "data/spent.txt", SPENT.as_bytes());
}

/// The lines of a file's text, without the trailing newline and blank ends.
fn lines(text: &str) -> Vec<&str> {
    text.trim_end().lines().map(str::trim_end).collect()
}

/// The tasks.
const TASKS: &[Task] = &[
    Task {
        name: "merge_two_lists",
        turns: &[
            "Combine ~/lists/a.txt and ~/lists/b.txt into a new file ~/lists/all.txt, with the lines of a.txt first",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("lists/all.txt")
                    .is_some_and(|t| lines(&t) == LISTS_JOINED)
                    && s.read("lists/a.txt").as_deref() == Some(LIST_A)
                    && s.read("lists/b.txt").as_deref() == Some(LIST_B)
                    && !s.abandoned,
                "all.txt holds apples, pears, milk, bread; a.txt and b.txt unchanged",
            )
        },
    },
    Task {
        name: "word_occurrences",
        turns: &["How many times does the word 'apple' appear in ~/notes/fruit.txt?"],
        law1: Law1::Never,
        // 4 as a word; 3 lines hold it; 5 with "pineapple".
        judge: |s| {
            check(
                s.number("4")
                    && !s.number_any(&["3", "5"])
                    && s.read("notes/fruit.txt").as_deref() == Some(FRUIT)
                    && !s.abandoned,
                "4, and not the 3 lines or the 5 with pineapple",
            )
        },
    },
    Task {
        name: "file_exists_yes_no",
        turns: &["Is there a file called budget.xlsx in ~/Documents?"],
        law1: Law1::Never,
        judge: |s| {
            let negative = s.says("no") || s.says_any(NEGATIVE) || s.says("not");
            check(
                negative && !s.says("yes") && !s.abandoned,
                "no (there are only budget.xls, budget.xlsx.bak and budget-2025.xlsx)",
            )
        },
    },
    Task {
        name: "longest_line",
        turns: &["Which line of ~/notes/quotes.txt is the longest?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.text.contains(LONGEST) && !s.text.contains("Well begun") && !s.abandoned,
                "the line 'Simplicity is the ultimate sophistication.', and not another",
            )
        },
    },
    Task {
        name: "earliest_date_in_csv",
        turns: &["When was the earliest visit in ~/data/visits.csv?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                has_date(&s.text, "2025-11-02")
                    && !["2026-05-14", "2026-01-20", "2025-12-24"]
                        .iter()
                        .any(|d| has_date(&s.text, d))
                    && !s.abandoned,
                "2025-11-02, and no other visit's date",
            )
        },
    },
    Task {
        name: "move_by_extension",
        turns: &["Move the .jpg files in ~/camera into a new folder ~/camera/photos"],
        law1: Law1::Never,
        // A move into a new folder replaces nothing: nobody is asked.
        judge: |s| {
            let moved = CAMERA[..2].iter().all(|(name, bytes)| {
                s.bytes(&format!("camera/photos/{name}")).as_deref() == Some(*bytes)
                    && !s.exists(&format!("camera/{name}"))
            });
            let stayed = CAMERA[2..].iter().all(|(name, bytes)| {
                s.bytes(&format!("camera/{name}")).as_deref() == Some(*bytes)
                    && !s.exists(&format!("camera/photos/{name}"))
            });
            check(
                moved && stayed && s.asked == 0 && !s.abandoned,
                "beach.jpg and hill.jpg in camera/photos, map.png and notes.txt where they were, nobody asked",
            )
        },
    },
    Task {
        name: "column_to_list_file",
        turns: &[
            "Write the email addresses from ~/data/team.csv into ~/data/emails.txt, one per line",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("data/emails.txt")
                    .is_some_and(|t| lines(&t) == EMAILS)
                    && s.read("data/team.csv").as_deref() == Some(TEAM)
                    && !s.abandoned,
                "emails.txt holds the three addresses in order and nothing else",
            )
        },
    },
    Task {
        name: "share_of_budget",
        turns: &[
            "My budget was 500 and I spent the amounts listed in ~/data/spent.txt. What percentage of the budget did I spend?",
        ],
        law1: Law1::Never,
        // 250 of 500: 50 %; not the sum, nor a share of something else.
        judge: |s| {
            let percent = s.text.contains('%') || s.says("percent");
            let v = values(&s.text);
            check(
                percent
                    && v.iter().any(|&x| (x - 50.0).abs() < 0.01)
                    && !v
                        .iter()
                        .any(|&x| (x - 25.0).abs() < 0.01 || (x - 200.0).abs() < 0.01)
                    && !s.abandoned,
                "50 %",
            )
        },
    },
];

task_tests!(SUITE, at_least = 8;
    merge_two_lists,
    word_occurrences,
    file_exists_yes_no,
    longest_line,
    earliest_date_in_csv,
    move_by_extension,
    column_to_list_file,
    share_of_budget,
);

mod judges {
    use super::{CAMERA, LIST_A, SUITE};
    use crate::harness::{self, every_task_has_a_judge_test, put};

    #[test]
    fn every_task_has_one() {
        every_task_has_a_judge_test(&SUITE, include_str!("beyond.rs"));
    }

    fn right_and_wrong(task: &str, right: &str, wrong: &[&str]) {
        harness::right_and_wrong(&SUITE, task, right, wrong);
    }

    fn end_states(
        task: &str,
        right: &str,
        asked: usize,
        done: fn(&std::path::Path),
        wrong: &[fn(&std::path::Path)],
    ) {
        harness::end_states(&SUITE, task, right, asked, done, wrong);
    }

    /// Moves `camera/<name>` into `camera/photos`.
    fn move_photo(h: &std::path::Path, name: &str) {
        std::fs::create_dir_all(h.join("camera/photos")).expect("photos");
        std::fs::rename(
            h.join(format!("camera/{name}")),
            h.join(format!("camera/photos/{name}")),
        )
        .expect("moved");
    }

    #[test]
    fn merge_two_lists() {
        end_states(
            "merge_two_lists",
            "Wrote ~/lists/all.txt: apples, pears, milk, bread.",
            0,
            |h| put(h, "lists/all.txt", b"apples\npears\nmilk\nbread\n"),
            &[
                // b's lines first; only a's; the two files moved into one.
                |h| put(h, "lists/all.txt", b"milk\nbread\napples\npears\n"),
                |h| put(h, "lists/all.txt", LIST_A.as_bytes()),
                |h| {
                    put(h, "lists/all.txt", b"apples\npears\nmilk\nbread\n");
                    std::fs::remove_file(h.join("lists/b.txt")).expect("b");
                },
            ],
        );
    }

    #[test]
    fn word_occurrences() {
        right_and_wrong(
            "word_occurrences",
            "The word 'apple' appears 4 times in ~/notes/fruit.txt.",
            &[
                "3 lines of ~/notes/fruit.txt contain 'apple'.",
                "'apple' appears 5 times.",
                "It appears 3 times (4 counting the capitalised one).",
            ],
        );
    }

    #[test]
    fn file_exists_yes_no() {
        right_and_wrong(
            "file_exists_yes_no",
            "No: ~/Documents has budget.xls, budget.xlsx.bak and budget-2025.xlsx, but no budget.xlsx.",
            &[
                "Yes, budget.xlsx is in ~/Documents.",
                "budget.xlsx.bak is in ~/Documents.",
            ],
        );
    }

    #[test]
    fn longest_line() {
        right_and_wrong(
            "longest_line",
            "Line 2: Simplicity is the ultimate sophistication.",
            &[
                "Line 4: Well begun is half done, said Aristotle.",
                "Line 2",
                "The longest line has 44 characters.",
            ],
        );
    }

    #[test]
    fn earliest_date_in_csv() {
        right_and_wrong(
            "earliest_date_in_csv",
            "The earliest visit was on 2025-11-02 (Bo).",
            &[
                "The earliest visit was on 2026-05-14 (Ana).",
                "The earliest visit was 2025-12-24.",
                "Bo visited first.",
            ],
        );
    }

    #[test]
    fn move_by_extension() {
        end_states(
            "move_by_extension",
            "Moved beach.jpg and hill.jpg into ~/camera/photos.",
            0,
            |h| {
                move_photo(h, CAMERA[0].0);
                move_photo(h, CAMERA[1].0);
            },
            &[
                // One of two; every file moved; copied, not moved.
                |h| move_photo(h, CAMERA[0].0),
                |h| {
                    for (name, _) in CAMERA {
                        move_photo(h, name);
                    }
                },
                |h| {
                    for (name, bytes) in &CAMERA[..2] {
                        put(h, &format!("camera/photos/{name}"), bytes);
                    }
                },
            ],
        );
        // Done, but after asking.
        harness::rejects(
            &SUITE,
            "move_by_extension",
            &harness::Outcome::answer("Moved beach.jpg and hill.jpg.").asked(1),
            |h| {
                move_photo(h, CAMERA[0].0);
                move_photo(h, CAMERA[1].0);
            },
        );
    }

    #[test]
    fn column_to_list_file() {
        end_states(
            "column_to_list_file",
            "Wrote the 3 addresses to ~/data/emails.txt.",
            0,
            |h| {
                put(
                    h,
                    "data/emails.txt",
                    b"ana@example.org\nbo@example.org\ncy@example.org\n",
                )
            },
            &[
                // The header too; the names; the whole rows.
                |h| {
                    put(
                        h,
                        "data/emails.txt",
                        b"email\nana@example.org\nbo@example.org\ncy@example.org\n",
                    )
                },
                |h| put(h, "data/emails.txt", b"Ana\nBo\nCy\n"),
                |h| {
                    put(
                        h,
                        "data/emails.txt",
                        b"Ana,ana@example.org,dev\nBo,bo@example.org,ops\nCy,cy@example.org,dev\n",
                    )
                },
            ],
        );
    }

    #[test]
    fn share_of_budget() {
        right_and_wrong(
            "share_of_budget",
            "You spent 250 of 500, which is 50% of the budget.",
            &["You spent 250.", "You spent 25% of the budget.", "50"],
        );
    }
}
