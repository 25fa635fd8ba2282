//! A real-model suite written on 2026-12-01 (evening), after the change that lets a
//! criterion carry a check code evaluates (a file at a path, a line of a file quoted)
//! and before any of its tasks ran: kinds that no other suite and no prompt has — the
//! largest number of a list saved to a new file, the names of one kind of file saved
//! one per line, the last line of a log that holds a word, a copy under a new name in
//! another folder, and a count of words saved alone. Each judge reads the exact end
//! state and the exact answer, and rejects a plausible wrong outcome (a test below).
//!
//! Two tasks were added on 2026-12-01 (evening), after the suite's first run and the
//! changes it led to (a first or last line asked for is the line the read picked, a
//! comparative about something else than the files compares no files, a file a
//! criterion checks for is owed by the sub-task, a copy under a new name): the first
//! line holding a word, and the names of the files above a size saved to a new file.
//! Neither kind had run before.
//!
//! Two more were written on 2026-12-01 (night), after the failure of `first_disk_line`
//! (a read that dropped the word the request selects lines by) and before the change it
//! led to ran: the line of a recipe that names an ingredient, and a count of the open
//! items of a checklist. Neither kind had run before.
//!
//! Two more were written on 2026-12-01 (night), after that change and the two that
//! followed it (a line a first or last read picked without the word is stated by code; a
//! typed tool is never blocked as the wrong method) and before they ran: the last line of
//! a journal about the weather named, and the notes of one type copied into a new
//! folder under their names.
//!
//! `scripts/real-model-suite --suite held` runs it.

use std::path::Path;

use super::harness::{Law1, Suite, Task, check, put, task_tests};

/// The suite: its report lines start `held:`.
const SUITE: Suite = Suite {
    name: "held",
    tasks: TASKS,
    make_home,
};

/// `~/data/readings.txt`: the largest is 31, neither first nor last.
const READINGS: &str = "12\n7\n31\n5\n19\n";

/// `~/inbox`: two PDF files among others.
const INBOX: [(&str, &[u8]); 4] = [
    ("invoice.pdf", b"%PDF-1.4 invoice"),
    ("report.pdf", b"%PDF-1.4 report"),
    ("photo.jpg", b"\xff\xd8\xff jpeg"),
    ("todo.txt", b"pay the invoice\n"),
];

/// `~/logs/server.log`: two WARN lines, and an ERROR line after the last of them.
const SERVER_LOG: &str = "10:00 INFO up\n10:02 WARN slow disk\n10:03 INFO request\n\
10:04 WARN disk 91% full\n10:05 ERROR disk full\n10:06 INFO down\n";
const LAST_WARN: &str = "10:04 WARN disk 91% full";

/// `~/notes/ideas.md`, to be copied byte for byte.
const IDEAS: &str = "# Ideas\n\n- a garden bench\n- a café map, naïve sketches\n";

/// `~/notes/essay.txt`: nine words on two lines.
const ESSAY: &str = "the quick brown fox\njumps over the lazy dog\n";

/// `~/notes/recipe.txt`: one line names butter, and it is neither the first nor the last.
const RECIPE: &str = "Pancakes for two\nMix the flour, eggs and milk\nMelt the butter in a pan\n\
Pour in the batter and flip once\nServe warm with jam\n";
const BUTTER_LINE: &str = "Melt the butter in a pan";

/// `~/notes/todo.md`: five items, three of them still open.
const TODO: &str = "# This week\n- [x] buy milk\n- [ ] call Ana\n- [ ] fix the bike\n\
- [x] pay rent\n- [ ] book the train\n";

/// `~/journal.txt`: two lines name rain; the last line of the file does not.
const JOURNAL: &str = "Mon: sunny walk\nTue: rain all day\nWed: cloudy\n\
Thu: light rain at noon\nFri: sunny again\n";

/// `~/drafts`: two Markdown notes and a text file.
const DRAFTS: [(&str, &str); 3] = [
    ("plan.md", "# Plan\n- ship it\n"),
    ("ideas.md", "# Ideas\n- a bench\n"),
    ("scratch.txt", "scratch\n"),
];

fn make_home(home: &Path) {
    put(home, "journal.txt", JOURNAL.as_bytes());
    for (name, text) in DRAFTS {
        put(home, &format!("drafts/{name}"), text.as_bytes());
    }
    put(home, "notes/recipe.txt", RECIPE.as_bytes());
    put(home, "notes/todo.md", TODO.as_bytes());
    put(home, "data/readings.txt", READINGS.as_bytes());
    for (name, bytes) in INBOX {
        put(home, &format!("inbox/{name}"), bytes);
    }
    put(home, "logs/server.log", SERVER_LOG.as_bytes());
    put(home, "notes/ideas.md", IDEAS.as_bytes());
    put(home, "notes/essay.txt", ESSAY.as_bytes());
}

/// The file names a file lists one per line (a line may carry a folder), sorted.
fn listed_names(s: &super::harness::Seen<'_>, rel: &str) -> Option<Vec<String>> {
    s.read(rel).map(|t| {
        let mut names: Vec<String> = t
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| l.rsplit('/').next().unwrap_or(l).to_string())
            .collect();
        names.sort();
        names
    })
}

/// The file's text trimmed, if it is there.
fn trimmed(s: &super::harness::Seen<'_>, rel: &str) -> Option<String> {
    s.read(rel).map(|t| t.trim().to_string())
}

/// The tasks.
const TASKS: &[Task] = &[
    Task {
        name: "max_reading_saved",
        turns: &["Write the largest number in ~/data/readings.txt into a new file ~/data/max.txt"],
        law1: Law1::Never,
        judge: |s| {
            check(
                trimmed(s, "data/max.txt").as_deref() == Some("31")
                    && s.read("data/readings.txt").as_deref() == Some(READINGS)
                    && !s.abandoned,
                "max.txt holds 31 alone; readings.txt unchanged",
            )
        },
    },
    Task {
        name: "pdf_names_saved",
        turns: &[
            "Save the names of the PDF files in ~/inbox, one per line, into a new file ~/inbox/pdfs.txt",
        ],
        law1: Law1::Never,
        judge: |s| {
            let names = listed_names(s, "inbox/pdfs.txt");
            check(
                names == Some(vec!["invoice.pdf".into(), "report.pdf".into()]) && !s.abandoned,
                "pdfs.txt holds invoice.pdf and report.pdf, one per line, and nothing else",
            )
        },
    },
    Task {
        name: "last_warning_line",
        turns: &["Which line of ~/logs/server.log is the last one that contains WARN?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.text.contains(LAST_WARN)
                    && !s.text.contains("10:05 ERROR")
                    && !s.text.contains("10:02 WARN")
                    && !s.abandoned,
                "the line 10:04 WARN disk 91% full, and neither the ERROR line nor the first WARN",
            )
        },
    },
    Task {
        name: "copy_renamed",
        turns: &["Put a copy of ~/notes/ideas.md into ~/backup, named ideas-old.md"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("backup/ideas-old.md").as_deref() == Some(IDEAS)
                    && s.read("notes/ideas.md").as_deref() == Some(IDEAS)
                    && !s.exists("backup/ideas.md")
                    && !s.abandoned,
                "~/backup/ideas-old.md is ideas.md byte for byte; ideas.md stays; no copy under the old name",
            )
        },
    },
    Task {
        name: "word_count_saved",
        turns: &[
            "Count the words in ~/notes/essay.txt and save just the number to ~/notes/words.txt",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                trimmed(s, "notes/words.txt").as_deref() == Some("9")
                    && s.read("notes/essay.txt").as_deref() == Some(ESSAY)
                    && !s.abandoned,
                "words.txt holds 9 alone; essay.txt unchanged",
            )
        },
    },
    Task {
        name: "first_disk_line",
        turns: &["What is the first line of ~/logs/server.log that mentions disk?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.text.contains("10:02 WARN slow disk")
                    && !s.text.contains("10:04 WARN")
                    && !s.text.contains("10:05 ERROR")
                    && !s.abandoned,
                "the line 10:02 WARN slow disk, and no later disk line",
            )
        },
    },
    Task {
        name: "big_files_saved",
        turns: &[
            "Write the names of the files in ~/inbox that are bigger than 15 bytes into a new file ~/inbox/big.txt, one per line",
        ],
        law1: Law1::Never,
        judge: |s| {
            let names = listed_names(s, "inbox/big.txt");
            check(
                names == Some(vec!["invoice.pdf".into(), "todo.txt".into()]) && !s.abandoned,
                "big.txt holds invoice.pdf and todo.txt (16 bytes each), one per line, and nothing else",
            )
        },
    },
    Task {
        name: "recipe_butter_line",
        turns: &["Which line of ~/notes/recipe.txt mentions butter?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.text.contains(BUTTER_LINE)
                    && !s.text.contains("Pancakes for two")
                    && !s.text.contains("Serve warm")
                    && !s.abandoned,
                "the line Melt the butter in a pan, and no other line of the recipe",
            )
        },
    },
    Task {
        name: "open_todo_count",
        turns: &["How many items in ~/notes/todo.md are not checked off yet?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("3")
                    && !s.number_any(&["2", "6"])
                    && s.read("notes/todo.md").as_deref() == Some(TODO)
                    && !s.abandoned,
                "3 (the items marked - [ ]), and neither the checked nor all the items",
            )
        },
    },
    Task {
        name: "last_rain_line",
        turns: &["Give me the last line of ~/journal.txt that talks about rain."],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.text.contains("Thu: light rain at noon")
                    && !s.text.contains("Fri: sunny again")
                    && !s.text.contains("Tue: rain all day")
                    && !s.abandoned,
                "the line Thu: light rain at noon, and neither the file's last line nor the first rain line",
            )
        },
    },
    Task {
        name: "markdown_copied_to_new_folder",
        turns: &[
            "Copy the Markdown files in ~/drafts into a new folder ~/drafts-backup, keeping their names.",
        ],
        law1: Law1::Never,
        judge: |s| {
            let same = |name: &str| {
                let copy = s.bytes(&format!("drafts-backup/{name}"));
                copy.is_some() && copy == s.bytes(&format!("drafts/{name}"))
            };
            check(
                s.entries("drafts-backup") == ["ideas.md", "plan.md"]
                    && same("ideas.md")
                    && same("plan.md")
                    && s.entries("drafts") == ["ideas.md", "plan.md", "scratch.txt"]
                    && !s.abandoned,
                "~/drafts-backup holds exactly ideas.md and plan.md, byte for byte; ~/drafts unchanged",
            )
        },
    },
];

task_tests!(SUITE, at_least = 11;
    max_reading_saved,
    pdf_names_saved,
    last_warning_line,
    copy_renamed,
    word_count_saved,
    first_disk_line,
    big_files_saved,
    recipe_butter_line,
    open_todo_count,
    last_rain_line,
    markdown_copied_to_new_folder,
);

mod judges {
    use super::{IDEAS, SUITE};
    use crate::harness::{self, every_task_has_a_judge_test, put};

    #[test]
    fn every_task_has_one() {
        every_task_has_a_judge_test(&SUITE, include_str!("held.rs"));
    }

    fn right_and_wrong(task: &str, right: &str, wrong: &[&str]) {
        harness::right_and_wrong(&SUITE, task, right, wrong);
    }

    fn end_states(
        task: &str,
        right: &str,
        done: fn(&std::path::Path),
        wrong: &[fn(&std::path::Path)],
    ) {
        harness::end_states(&SUITE, task, right, 0, done, wrong);
    }

    #[test]
    fn max_reading_saved() {
        end_states(
            "max_reading_saved",
            "Saved 31 to ~/data/max.txt.",
            |h| put(h, "data/max.txt", b"31\n"),
            &[
                // The first number; the last; the right number at a path of its own.
                |h| put(h, "data/max.txt", b"12\n"),
                |h| put(h, "data/max.txt", b"19\n"),
                |h| put(h, "data/largest.txt", b"31\n"),
            ],
        );
    }

    #[test]
    fn pdf_names_saved() {
        end_states(
            "pdf_names_saved",
            "Saved 2 names to ~/inbox/pdfs.txt.",
            |h| put(h, "inbox/pdfs.txt", b"invoice.pdf\nreport.pdf\n"),
            &[
                // Every file; one of the two; both on one line.
                |h| {
                    put(
                        h,
                        "inbox/pdfs.txt",
                        b"invoice.pdf\nphoto.jpg\nreport.pdf\ntodo.txt\n",
                    )
                },
                |h| put(h, "inbox/pdfs.txt", b"report.pdf\n"),
                |h| put(h, "inbox/pdfs.txt", b"invoice.pdf report.pdf\n"),
            ],
        );
    }

    #[test]
    fn last_warning_line() {
        right_and_wrong(
            "last_warning_line",
            "The last WARN line is: 10:04 WARN disk 91% full",
            &[
                "10:05 ERROR disk full",
                "The last one is 10:02 WARN slow disk",
                "Line 4.",
            ],
        );
    }

    #[test]
    fn copy_renamed() {
        end_states(
            "copy_renamed",
            "Copied ~/notes/ideas.md to ~/backup/ideas-old.md.",
            |h| put(h, "backup/ideas-old.md", IDEAS.as_bytes()),
            &[
                // The old name; the text re-typed without its accents; moved, not copied.
                |h| put(h, "backup/ideas.md", IDEAS.as_bytes()),
                |h| {
                    put(
                        h,
                        "backup/ideas-old.md",
                        b"# Ideas\n\n- a garden bench\n- a cafe map, naive sketches\n",
                    )
                },
                |h| {
                    put(h, "backup/ideas-old.md", IDEAS.as_bytes());
                    std::fs::remove_file(h.join("notes/ideas.md")).expect("removed");
                },
            ],
        );
    }

    #[test]
    fn recipe_butter_line() {
        right_and_wrong(
            "recipe_butter_line",
            "The line is: Melt the butter in a pan",
            &[
                "Pancakes for two",
                "Melt the butter in a pan, then Serve warm with jam",
                "Line 3.",
            ],
        );
    }

    #[test]
    fn open_todo_count() {
        right_and_wrong(
            "open_todo_count",
            "3 items are not checked off yet.",
            &[
                "2 items are checked off.",
                "There are 5 items.",
                "6 lines, 3 of them open.",
            ],
        );
    }

    #[test]
    fn last_rain_line() {
        right_and_wrong(
            "last_rain_line",
            "Line 4: Thu: light rain at noon",
            &[
                "Fri: sunny again",
                "Tue: rain all day",
                "Tue: rain all day and Thu: light rain at noon",
            ],
        );
    }

    #[test]
    fn markdown_copied_to_new_folder() {
        end_states(
            "markdown_copied_to_new_folder",
            "Copied 2 files into ~/drafts-backup.",
            |h| {
                for (name, text) in super::DRAFTS.iter().take(2) {
                    put(h, &format!("drafts-backup/{name}"), text.as_bytes());
                }
            },
            &[
                // Every file; moved, not copied; one of the two.
                |h| {
                    for (name, text) in super::DRAFTS {
                        put(h, &format!("drafts-backup/{name}"), text.as_bytes());
                    }
                },
                |h| {
                    for (name, text) in super::DRAFTS.iter().take(2) {
                        put(h, &format!("drafts-backup/{name}"), text.as_bytes());
                        std::fs::remove_file(h.join(format!("drafts/{name}"))).expect("moved");
                    }
                },
                |h| put(h, "drafts-backup/plan.md", super::DRAFTS[0].1.as_bytes()),
            ],
        );
    }

    #[test]
    fn first_disk_line() {
        right_and_wrong(
            "first_disk_line",
            "The first line that mentions disk: 10:02 WARN slow disk",
            &[
                "10:04 WARN disk 91% full",
                "10:02 WARN slow disk, then 10:04 WARN disk 91% full",
                "Line 2.",
            ],
        );
    }

    #[test]
    fn big_files_saved() {
        end_states(
            "big_files_saved",
            "Saved 2 names to ~/inbox/big.txt.",
            |h| {
                put(
                    h,
                    "inbox/big.txt",
                    b"invoice.pdf
todo.txt
",
                )
            },
            &[
                // Every file; 15 bytes counted as bigger than 15; not written.
                |h| {
                    put(
                        h,
                        "inbox/big.txt",
                        b"invoice.pdf
photo.jpg
report.pdf
todo.txt
",
                    )
                },
                |h| {
                    put(
                        h,
                        "inbox/big.txt",
                        b"invoice.pdf
report.pdf
todo.txt
",
                    )
                },
                |_| {},
            ],
        );
    }

    #[test]
    fn word_count_saved() {
        end_states(
            "word_count_saved",
            "Saved 9 to ~/notes/words.txt.",
            |h| put(h, "notes/words.txt", b"9\n"),
            &[
                // The lines; the characters; a sentence instead of the number alone.
                |h| put(h, "notes/words.txt", b"2\n"),
                |h| put(h, "notes/words.txt", b"44\n"),
                |h| put(h, "notes/words.txt", b"The essay has 9 words.\n"),
            ],
        );
    }
}
