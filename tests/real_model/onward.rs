//! A real-model suite written on 2026-12-01 (midday), before any of its tasks ran and
//! before the code changes of that session: kinds that no other suite and no prompt has —
//! a table's column names, a median, the empty folders of a tree, a copy in lower case,
//! the number of the line that holds a phrase, the hidden files of a folder, the first
//! lines of a log saved apart, the spread between a column's highest and lowest value,
//! the data rows of a table asked in Chinese, the difference between two tables' totals,
//! and a table's rows written out sorted by a column. Each judge reads the exact end
//! state and the exact answer, and rejects a plausible wrong outcome (a test below).
//!
//! Two tasks were added on 2026-12-01 (afternoon), after the hidden-files task had
//! delivered a count where a list was asked, and after the change that answers such a
//! list from the listing: the folders of a folder, and the files above a size. Neither
//! kind had run before.
//!
//! `scripts/real-model-suite --suite onward` runs it.

use std::path::Path;

use super::harness::{Law1, Suite, Task, check, put, task_tests, values};

/// The suite: its report lines start `onward:`.
const SUITE: Suite = Suite {
    name: "onward",
    tasks: TASKS,
    make_home,
};

/// `~/data/inventory.csv`: four columns, in this order.
const INVENTORY: &str = "sku,name,stock,price\nA1,lamp,4,19.90\nB2,desk,1,120\nC3,chair,6,45\n";
const INVENTORY_COLUMNS: [&str; 4] = ["sku", "name", "stock", "price"];

/// `~/data/items.csv`: the prices 3, 9, 4, 20, 5: median 5, mean 8.2.
const ITEMS: &str = "item,price\npen,3\nbook,9\ntape,4\nbag,20\nglue,5\n";

/// `~/projects`: alpha holds a file, delta a folder with a file; beta and gamma are empty.
const PROJECT_DIRS: [&str; 4] = ["alpha", "beta", "gamma", "delta/docs"];

/// `~/notes/shout.txt` and its lower-case copy.
const SHOUT: &str = "HELLO THERE\nGood MORNING, Ana\n";
const QUIET: &str = "hello there\ngood morning, ana\n";

/// `~/notes/todo.txt`: "call the bank" is line 3; "bank" alone also ends line 5.
const TODO: &str = "buy milk\nwater the plants\ncall the bank\npay rent\nwalk to the bank\n";

/// `~/project`: two hidden files among visible ones.
const PROJECT_FILES: [(&str, &[u8]); 4] = [
    (".env", b"PORT=8080\n"),
    (".gitignore", b"target/\n"),
    ("README.md", b"# demo\n"),
    ("main.py", b"print('hi')\n"),
];

/// `~/logs/app.log` and its first three lines.
const APP_LOG: &str = "09:00 start\n09:01 config loaded\n09:02 listening\n09:05 request /\n\
09:07 request /about\n09:09 stop\n";
const APP_LOG_HEAD: [&str; 3] = ["09:00 start", "09:01 config loaded", "09:02 listening"];

/// `~/data/temps.csv`: highest 18, lowest -3, so a spread of 21.
const TEMPS: &str = "day,temp\nmon,12.5\ntue,-3\nwed,7\nthu,18\nfri,4\n";

/// `~/data/sales.csv`: a header and seven data rows.
const SALES: &str = "date,amount\n2026-03-01,10\n2026-03-02,12\n2026-03-03,8\n\
2026-03-04,15\n2026-03-05,9\n2026-03-06,11\n2026-03-07,14\n";

/// `~/data/march.csv` (total 125) and `~/data/april.csv` (total 75): 50 more in March.
const MARCH: &str = "what,amount\nrent share,40\nfood,60\nbus,25\n";
const APRIL: &str = "what,amount\nfood,30\nbooks,45\n";

/// `~/data/scores.csv` and its rows by score, highest first.
const SCORES: &str = "name,score\nAna,72\nBo,91\nCy,85\nDi,9\n";
const RANKED: [&str; 5] = ["name,score", "Bo,91", "Cy,85", "Ana,72", "Di,9"];

fn make_home(home: &Path) {
    put(home, "data/inventory.csv", INVENTORY.as_bytes());
    put(home, "data/items.csv", ITEMS.as_bytes());
    for dir in PROJECT_DIRS {
        std::fs::create_dir_all(home.join("projects").join(dir)).expect("project dir");
    }
    put(home, "projects/alpha/plan.txt", b"milestones\n");
    put(home, "projects/delta/docs/spec.md", b"# spec\n");
    put(home, "notes/shout.txt", SHOUT.as_bytes());
    put(home, "notes/todo.txt", TODO.as_bytes());
    for (name, bytes) in PROJECT_FILES {
        put(home, &format!("project/{name}"), bytes);
    }
    put(home, "logs/app.log", APP_LOG.as_bytes());
    put(home, "data/temps.csv", TEMPS.as_bytes());
    put(home, "data/sales.csv", SALES.as_bytes());
    put(home, "data/march.csv", MARCH.as_bytes());
    put(home, "data/april.csv", APRIL.as_bytes());
    put(home, "data/scores.csv", SCORES.as_bytes());
}

/// The lines of a file's text, without the trailing newline and blank ends.
fn lines(text: &str) -> Vec<&str> {
    text.trim_end().lines().map(str::trim_end).collect()
}

/// `x` is one of the answer's values.
fn has_value(v: &[f64], x: f64) -> bool {
    v.iter().any(|&y| (y - x).abs() < 0.001)
}

/// The tasks.
const TASKS: &[Task] = &[
    Task {
        name: "column_names",
        turns: &["What columns does ~/data/inventory.csv have?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                INVENTORY_COLUMNS.iter().all(|c| s.says(c))
                    && !s.says_any(&["lamp", "desk", "A1"])
                    && !s.abandoned,
                "sku, name, stock and price, and no row's values",
            )
        },
    },
    Task {
        name: "median_price",
        turns: &["What is the median price in ~/data/items.csv?"],
        law1: Law1::Never,
        // 5; the mean is 8.2, the middle row as written is 4.
        judge: |s| {
            let v = values(&s.text);
            check(
                s.number("5")
                    && !has_value(&v, 8.2)
                    && !s.says("median price is 4")
                    && !s.abandoned,
                "5, and not the mean 8.2 or the middle row's 4",
            )
        },
    },
    Task {
        name: "empty_folders",
        turns: &["Which folders in ~/projects are empty?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names("beta")
                    && s.names("gamma")
                    && !s.names_any(&["alpha", "delta"])
                    && s.entries("projects") == ["alpha", "beta", "delta", "gamma"]
                    && !s.abandoned,
                "beta and gamma, not alpha or delta, and every folder still there",
            )
        },
    },
    Task {
        name: "lowercase_copy",
        turns: &[
            "Save a copy of ~/notes/shout.txt as ~/notes/quiet.txt with every letter in lower case",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("notes/quiet.txt").as_deref() == Some(QUIET)
                    && s.read("notes/shout.txt").as_deref() == Some(SHOUT)
                    && !s.abandoned,
                "quiet.txt holds shout.txt's two lines in lower case; shout.txt unchanged",
            )
        },
    },
    Task {
        name: "line_number_of_phrase",
        turns: &["On which line of ~/notes/todo.txt is 'call the bank'?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("3") && !s.number_any(&["2", "4", "5"]) && !s.abandoned,
                "line 3, and no other line's number",
            )
        },
    },
    Task {
        name: "hidden_files",
        turns: &["Which hidden files are in ~/project?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names(".env")
                    && s.names(".gitignore")
                    && !s.names_any(&["README.md", "main.py"])
                    && !s.abandoned,
                ".env and .gitignore, and not the visible files",
            )
        },
    },
    Task {
        name: "log_head_saved",
        turns: &["Save the first 3 lines of ~/logs/app.log into a new file ~/logs/start.txt"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("logs/start.txt")
                    .is_some_and(|t| lines(&t) == APP_LOG_HEAD)
                    && s.read("logs/app.log").as_deref() == Some(APP_LOG)
                    && !s.abandoned,
                "start.txt holds exactly the log's first three lines; app.log unchanged",
            )
        },
    },
    Task {
        name: "temperature_spread",
        turns: &[
            "What is the difference between the highest and the lowest temperature in ~/data/temps.csv?",
        ],
        law1: Law1::Never,
        // 18 - (-3) = 21; 15 forgets the sign, 14.5 takes the first row for the lowest.
        judge: |s| {
            let v = values(&s.text);
            check(
                has_value(&v, 21.0) && !has_value(&v, 15.0) && !has_value(&v, 14.5) && !s.abandoned,
                "21 (18 minus -3)",
            )
        },
    },
    Task {
        name: "rows_asked_in_chinese",
        turns: &["~/data/sales.csv 里有多少行数据（不算表头）？"],
        law1: Law1::Never,
        // 7 data rows; 8 counts the header.
        judge: |s| {
            check(
                s.number("7") && !s.number("8") && !s.abandoned,
                "7, not 8 with the header",
            )
        },
    },
    Task {
        name: "difference_of_totals",
        turns: &[
            "How much more did I spend in ~/data/march.csv than in ~/data/april.csv? Both have an amount column.",
        ],
        law1: Law1::Never,
        // 125 - 75 = 50.
        judge: |s| {
            let v = values(&s.text);
            check(
                has_value(&v, 50.0) && !has_value(&v, 200.0) && !s.abandoned,
                "50 (125 in March, 75 in April)",
            )
        },
    },
    Task {
        name: "folders_listed",
        turns: &["Which folders are in ~/projects?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                ["alpha", "beta", "gamma", "delta"]
                    .iter()
                    .all(|f| s.names(f))
                    && !s.names_any(&["plan.txt", "spec.md"])
                    && !s.abandoned,
                "alpha, beta, gamma and delta, and no file",
            )
        },
    },
    Task {
        name: "files_above_a_size",
        turns: &["Which files in ~/data are larger than 60 bytes?"],
        law1: Law1::Never,
        // inventory.csv is 65 bytes and sales.csv 108; every other file is under 50.
        judge: |s| {
            check(
                s.names("inventory.csv")
                    && s.names("sales.csv")
                    && !s.names_any(&[
                        "items.csv",
                        "temps.csv",
                        "march.csv",
                        "april.csv",
                        "scores.csv",
                    ])
                    && !s.abandoned,
                "inventory.csv and sales.csv, and no smaller file",
            )
        },
    },
    Task {
        name: "rows_sorted_into_file",
        turns: &[
            "Write the rows of ~/data/scores.csv sorted by score, highest first, into a new file ~/data/ranked.csv, keeping the header line",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("data/ranked.csv")
                    .is_some_and(|t| lines(&t) == RANKED)
                    && s.read("data/scores.csv").as_deref() == Some(SCORES)
                    && !s.abandoned,
                "ranked.csv: the header, then Bo, Cy, Ana, Di; scores.csv unchanged",
            )
        },
    },
];

task_tests!(SUITE, at_least = 13;
    column_names,
    median_price,
    empty_folders,
    lowercase_copy,
    line_number_of_phrase,
    hidden_files,
    log_head_saved,
    temperature_spread,
    rows_asked_in_chinese,
    difference_of_totals,
    folders_listed,
    files_above_a_size,
    rows_sorted_into_file,
);

mod judges {
    use super::{SHOUT, SUITE};
    use crate::harness::{self, every_task_has_a_judge_test, put};

    #[test]
    fn every_task_has_one() {
        every_task_has_a_judge_test(&SUITE, include_str!("onward.rs"));
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

    #[test]
    fn column_names() {
        right_and_wrong(
            "column_names",
            "~/data/inventory.csv has 4 columns: sku, name, stock, price.",
            &[
                "It has 4 columns.",
                "The first row is A1, lamp, 4, 19.90.",
                "Columns: sku, name, price.",
            ],
        );
    }

    #[test]
    fn median_price() {
        right_and_wrong(
            "median_price",
            "The median price is 5.",
            &[
                "The average price is 8.2.",
                "The median price is 4.",
                "The median price is 9.",
            ],
        );
    }

    #[test]
    fn empty_folders() {
        right_and_wrong(
            "empty_folders",
            "beta and gamma are empty.",
            &[
                "beta, gamma and delta are empty.",
                "beta is empty.",
                "alpha holds plan.txt.",
            ],
        );
        // Right words, but the empty folders were removed.
        harness::rejects(
            &SUITE,
            "empty_folders",
            &harness::Outcome::answer("beta and gamma are empty."),
            |h| {
                std::fs::remove_dir(h.join("projects/beta")).expect("beta");
            },
        );
    }

    #[test]
    fn lowercase_copy() {
        end_states(
            "lowercase_copy",
            "Saved ~/notes/quiet.txt in lower case.",
            0,
            |h| put(h, "notes/quiet.txt", b"hello there\ngood morning, ana\n"),
            &[
                // A plain copy; only the first letters lowered; the original changed too.
                |h| put(h, "notes/quiet.txt", SHOUT.as_bytes()),
                |h| put(h, "notes/quiet.txt", b"hELLO THERE\ngood MORNING, ana\n"),
                |h| {
                    put(h, "notes/quiet.txt", b"hello there\ngood morning, ana\n");
                    put(h, "notes/shout.txt", b"hello there\ngood morning, ana\n");
                },
            ],
        );
    }

    #[test]
    fn line_number_of_phrase() {
        right_and_wrong(
            "line_number_of_phrase",
            "'call the bank' is on line 3 of ~/notes/todo.txt.",
            &[
                "It is on line 4.",
                "'call the bank' appears on lines 3 and 5.",
                "The line is: call the bank",
            ],
        );
    }

    #[test]
    fn hidden_files() {
        right_and_wrong(
            "hidden_files",
            "The hidden files in ~/project are .env and .gitignore.",
            &[
                "~/project holds README.md and main.py.",
                "The hidden file is .env.",
                "~/project holds .env, .gitignore, README.md and main.py.",
            ],
        );
    }

    #[test]
    fn log_head_saved() {
        end_states(
            "log_head_saved",
            "Saved the first 3 lines to ~/logs/start.txt.",
            0,
            |h| {
                put(
                    h,
                    "logs/start.txt",
                    b"09:00 start\n09:01 config loaded\n09:02 listening\n",
                )
            },
            &[
                // Four lines; the last three; numbered lines.
                |h| {
                    put(
                        h,
                        "logs/start.txt",
                        b"09:00 start\n09:01 config loaded\n09:02 listening\n09:05 request /\n",
                    )
                },
                |h| {
                    put(
                        h,
                        "logs/start.txt",
                        b"09:05 request /\n09:07 request /about\n09:09 stop\n",
                    )
                },
                |h| {
                    put(
                        h,
                        "logs/start.txt",
                        b"1: 09:00 start\n2: 09:01 config loaded\n3: 09:02 listening\n",
                    )
                },
            ],
        );
    }

    #[test]
    fn temperature_spread() {
        right_and_wrong(
            "temperature_spread",
            "The highest is 18 and the lowest -3: a difference of 21 degrees.",
            &[
                "The difference is 15.",
                "The highest is 18 and the lowest 4.",
                "The difference is 14.5 degrees.",
            ],
        );
    }

    #[test]
    fn rows_asked_in_chinese() {
        right_and_wrong(
            "rows_asked_in_chinese",
            "~/data/sales.csv 有 7 行数据。",
            &["共 8 行数据。", "数据有 6 行。", "数据从 2026-03-01 开始。"],
        );
    }

    #[test]
    fn difference_of_totals() {
        right_and_wrong(
            "difference_of_totals",
            "You spent 125 in March and 75 in April: 50 more in March.",
            &[
                "You spent 200 in total.",
                "You spent 125 in March.",
                "March: 125, April: 75.",
            ],
        );
    }

    #[test]
    fn folders_listed() {
        right_and_wrong(
            "folders_listed",
            "The folders in ~/projects are alpha, beta, gamma and delta.",
            &[
                "There are 4 folders in ~/projects.",
                "~/projects holds alpha, beta and gamma.",
                "~/projects: alpha (plan.txt), beta, gamma, delta (spec.md)",
            ],
        );
    }

    #[test]
    fn files_above_a_size() {
        right_and_wrong(
            "files_above_a_size",
            "inventory.csv (65 bytes) and sales.csv (108 bytes) are larger than 60 bytes.",
            &[
                "2 files are larger than 60 bytes.",
                "sales.csv is the largest.",
                "inventory.csv, items.csv, sales.csv",
            ],
        );
    }

    #[test]
    fn rows_sorted_into_file() {
        end_states(
            "rows_sorted_into_file",
            "Wrote ~/data/ranked.csv.",
            0,
            |h| {
                put(
                    h,
                    "data/ranked.csv",
                    b"name,score\nBo,91\nCy,85\nAna,72\nDi,9\n",
                )
            },
            &[
                // Lowest first; sorted as text (9 before 91); the header dropped.
                |h| {
                    put(
                        h,
                        "data/ranked.csv",
                        b"name,score\nDi,9\nAna,72\nCy,85\nBo,91\n",
                    )
                },
                |h| {
                    put(
                        h,
                        "data/ranked.csv",
                        b"name,score\nBo,91\nDi,9\nCy,85\nAna,72\n",
                    )
                },
                |h| put(h, "data/ranked.csv", b"Bo,91\nCy,85\nAna,72\nDi,9\n"),
            ],
        );
    }
}
