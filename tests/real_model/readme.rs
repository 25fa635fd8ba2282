//! The tasks README.md shows as examples, word for word, on the real model: what a new
//! user types first must answer correctly with no settings (`scripts/real-model-suite
//! --suite readme`; CI runs only their judges, without a model). Judged like the other
//! suites: by the answer and the files on disk ([`super::harness`]).

use std::path::Path;

use super::harness::{Law1, Suite, Task, check, in_order, put, task_tests};

/// The suite: its report lines start `readme:`.
const SUITE: Suite = Suite {
    name: "readme",
    tasks: TASKS,
    make_home,
};

/// The files at the top of the home folder (the folders hold more).
const HOME_FILES: [&str; 3] = ["notes.txt", "budget.xlsx", "photo.jpg"];

/// The PDFs of ~/Downloads, largest first, with their sizes in bytes.
const PDFS: [(&str, usize); 5] = [
    ("thesis.pdf", 90_000),
    ("manual.pdf", 60_000),
    ("invoice.pdf", 40_000),
    ("ticket.pdf", 20_000),
    ("receipt.pdf", 5_000),
];

/// The example tasks.
const TASKS: &[Task] = &[
    Task {
        // README's first command.
        name: "smoke_list_home",
        turns: &["list the files in my home folder"],
        law1: Law1::Never,
        judge: |s| {
            check(
                HOME_FILES.iter().all(|f| s.names(f)) && !s.abandoned,
                "every file at the top of the home folder",
            )
        },
    },
    Task {
        // README's command-line section.
        name: "largest_pdfs",
        turns: &["find the 3 largest PDFs in ~/Downloads"],
        law1: Law1::Never,
        judge: |s| {
            let top: Vec<&str> = PDFS[..3].iter().map(|(name, _)| *name).collect();
            let rest_named = PDFS[3..].iter().any(|(name, _)| s.names(name));
            check(
                in_order(&s.text, &top) && !rest_named && !s.names("movie.mp4") && !s.abandoned,
                "thesis.pdf, manual.pdf and invoice.pdf, largest first, and no other file",
            )
        },
    },
    Task {
        // README's command-line section: `artoo "hello"`.
        name: "hello",
        turns: &["hello"],
        law1: Law1::Never,
        judge: |s| check(s.chat && !s.text.trim().is_empty(), "a chat reply"),
    },
];

fn make_home(home: &Path) {
    put(home, "notes.txt", b"call the dentist\n");
    put(home, "budget.xlsx", b"PK\x03\x04 not really a spreadsheet");
    put(home, "photo.jpg", &[0xFF, 0xD8, 0xFF, 0xE0]);
    put(home, "Documents/cv.md", b"# CV\n");
    for (name, size) in PDFS {
        put(home, &format!("Downloads/{name}"), &vec![b'%'; size]);
    }
    // Larger than every PDF: not one of them.
    put(home, "Downloads/movie.mp4", &vec![0u8; 200_000]);
}

task_tests!(SUITE, at_least = 3; smoke_list_home, largest_pdfs, hello);

mod judges {
    use super::SUITE;
    use crate::harness::{Outcome, accepts, every_task_has_a_judge_test, rejects};

    #[test]
    fn every_task_has_one() {
        every_task_has_a_judge_test(&SUITE, include_str!("readme.rs"));
    }

    #[test]
    fn smoke_list_home() {
        let task = "smoke_list_home";
        accepts(
            &SUITE,
            task,
            &Outcome::answer(
                "Your home folder holds notes.txt, budget.xlsx, photo.jpg and the folders Documents and Downloads.",
            ),
            |_| {},
        );
        // The folders only, or one folder's files, is not the home's files.
        rejects(
            &SUITE,
            task,
            &Outcome::answer("Your home folder has the folders Documents and Downloads."),
            |_| {},
        );
        rejects(
            &SUITE,
            task,
            &Outcome::answer(
                "thesis.pdf, manual.pdf, invoice.pdf, ticket.pdf, receipt.pdf, movie.mp4",
            ),
            |_| {},
        );
    }

    #[test]
    fn largest_pdfs() {
        let task = "largest_pdfs";
        accepts(
            &SUITE,
            task,
            &Outcome::answer(
                "The 3 largest PDFs are thesis.pdf (90 KB), manual.pdf (60 KB) and invoice.pdf (40 KB).",
            ),
            |_| {},
        );
        // The largest files whatever their type, the wrong order, or one too many.
        rejects(
            &SUITE,
            task,
            &Outcome::answer("movie.mp4, thesis.pdf, manual.pdf"),
            |_| {},
        );
        rejects(
            &SUITE,
            task,
            &Outcome::answer("invoice.pdf, manual.pdf, thesis.pdf"),
            |_| {},
        );
        rejects(
            &SUITE,
            task,
            &Outcome::answer("thesis.pdf, manual.pdf, invoice.pdf, ticket.pdf"),
            |_| {},
        );
    }

    #[test]
    fn hello() {
        accepts(
            &SUITE,
            "hello",
            &Outcome::chat("Hello! How can I help?"),
            |_| {},
        );
        rejects(
            &SUITE,
            "hello",
            &Outcome::answer("Hello! How can I help?").abandoned(),
            |_| {},
        );
    }
}
