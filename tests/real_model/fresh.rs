//! A real-model suite written on 2026-11-30 (late), after the tools that change files were
//! offered by the request's words and before the text-edit tool first ran: kinds that no
//! other suite and no prompt has — one setting's value changed in a file, one line
//! removed from a file, a copy under a new name, the largest of a list of numbers, the
//! files older than a month deleted, a new folder with an empty file in it, the rows of
//! one month, the minutes between two clock times, a line put first in a file. Each judge
//! reads the exact end state and the exact answer, and rejects a plausible wrong outcome
//! (a test below).
//!
//! Five more were written after the first run of those nine and before the changes it
//! led to ran (the `LATER` tasks): the files changed in the last days copied, a file's
//! lines without repeats saved, a JSON file made a CSV, a prefix changed on every line,
//! the total of a list of numbers.
//!
//! Three more were written on 2026-12-01, before a request to change a named file was held
//! to a change on record whatever its answer's shape (the `HELD` tasks): the empty lines
//! of a file removed, a version bumped in a JSON file, a section of a Markdown file
//! renamed.
//!
//! Four more were written on 2026-12-01 after the first runs of those three and after the
//! changes they led to (the `AFTER` tasks): the lines holding a word removed, a line added
//! at the end, a port changed in a .env file, and a question about one line of a file
//! (no change asked, none to be made).
//!
//! `scripts/real-model-suite --suite fresh` runs it.

use std::path::Path;

use super::harness::{Law1, Suite, Task, age, check, put, task_tests};

/// The suite: its report lines start `fresh:`.
const SUITE: Suite = Suite {
    name: "fresh",
    tasks: TASKS,
    make_home,
};

/// `~/app/settings.ini`, before and after the timeout becomes 45 (`retries = 3` holds a
/// prefix of the old value).
const SETTINGS: &str = "[server]\nhost = localhost\ntimeout = 30\nretries = 3\n";
const SETTINGS_AFTER: &str = "[server]\nhost = localhost\ntimeout = 45\nretries = 3\n";

/// `~/app/env.txt`, before and after the DEBUG line goes.
const ENV: &str = "NAME=shop\nDEBUG=true\nPORT=8000\n";
const ENV_AFTER: &str = "NAME=shop\nPORT=8000\n";

/// `~/Documents/cv.pdf`.
const CV: &[u8] = b"%PDF-1.4 curriculum vitae";

/// `~/data/readings.txt`: the largest is 104.25; 99 is the largest by text order.
const READINGS: &str = "12.5\n-3\n7\n104.25\n99\n0.5\n";

/// `~/tmp/cache`: files with their age in days (two older than 30 days).
const CACHE: [(&str, u64); 4] = [
    ("thumbs.db", 45),
    ("session.tmp", 90),
    ("today.tmp", 0),
    ("week.tmp", 6),
];

/// `~/shop/orders.csv`: 3 orders in March 2026, one in March 2025.
const ORDERS: &str = "id,date,customer,total\n\
1,2026-02-27,Ana,20.00\n\
2,2026-03-02,Bo,15.50\n\
3,2026-03-15,Cy,8.00\n\
4,2025-03-20,Di,12.00\n\
5,2026-03-31,Ed,30.00\n\
6,2026-04-01,Fe,9.90\n";

/// `~/notes/list.txt`, before and after the heading goes first.
const LIST: &str = "eggs\nbread\n";
const LIST_AFTER: &str = "# Shopping\neggs\nbread\n";

/// `~/inbox`: files with their age in days (two changed in the last 3 days).
const INBOX: [(&str, u64); 4] = [("a.txt", 1), ("b.txt", 2), ("c.txt", 10), ("d.txt", 40)];

/// `~/logs/visitors.txt`, and its lines each once in the order they first appear (which
/// is not the sorted order).
const VISITORS: &str = "cy\nana\ncy\nbo\nana\n";
const VISITORS_ONCE: &str = "cy\nana\nbo\n";

/// `~/data/people.json`, and its rows (a JSON object's keys have no order, so the CSV's
/// columns may come in either).
const PEOPLE: &str = r#"[{"name": "Ana", "age": 31}, {"name": "Bo", "age": 45}]"#;
const PEOPLE_ROWS: [[&str; 2]; 2] = [["Ana", "31"], ["Bo", "45"]];

/// `~/site/links.txt`, before and after `http://` becomes `https://` (a link that already
/// has it, and a path holding "http-" stay as they are).
const LINKS: &str = "http://a.example\nhttps://b.example\nhttp://c.example/http-guide\n";
const LINKS_AFTER: &str = "https://a.example\nhttps://b.example\nhttps://c.example/http-guide\n";

/// `~/data/expenses.txt`: four amounts adding up to 50.5.
const AMOUNTS: &str = "12.50\n7.25\n30\n0.75\n";

/// `~/notes/groceries.txt`, before and after its empty lines go.
const GROCERIES: &str = "milk\n\neggs\n\n\nbread\n";
const GROCERIES_AFTER: &str = "milk\neggs\nbread\n";

/// `~/app/package.json`: its version becomes 2.0.0, every other field as it was.
const PACKAGE: &str = r#"{"name": "shop", "version": "1.4.2", "private": true}"#;

/// `~/docs/guide.md`, before and after its section "Setup" is renamed "Installation"
/// (the script `setup.sh` keeps its name).
const GUIDE: &str = "# Guide\n\n## Setup\nRun setup.sh once.\n\n## Usage\nRun shop.\n";
const GUIDE_AFTER: &str = "# Guide\n\n## Installation\nRun setup.sh once.\n\n## Usage\nRun shop.\n";

/// `~/notes/plan.md`, before and after its lines holding "TODO" go.
const PLAN: &str = "# Plan\nbuy seeds\nTODO: fix the fence\nwater daily\nTODO call Bo\n";
const PLAN_AFTER: &str = "# Plan\nbuy seeds\nwater daily\n";

/// `~/notes/shopping.txt`, before and after "cheese" is added at the end.
const SHOPPING: &str = "milk\nbread\n";
const SHOPPING_AFTER: &str = "milk\nbread\ncheese\n";

/// `~/web/.env`, before and after the port becomes 9090 (`PORT_ADMIN` holds the name as
/// a prefix).
const DOTENV: &str = "HOST=0.0.0.0\nPORT=8080\nPORT_ADMIN=8081\n";
const DOTENV_AFTER: &str = "HOST=0.0.0.0\nPORT=9090\nPORT_ADMIN=8081\n";

/// `~/notes/trip.txt`: one line mentions the deadline.
const TRIP: &str = "pack bags\nbook hotel by the deadline of 12 May\nbuy tickets\n";

/// Whether `text` is the package with version 2.0.0 and its other fields unchanged.
fn bumped_package(text: &str) -> bool {
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(text) else {
        return false;
    };
    fields.len() == 3
        && fields.get("name") == Some(&serde_json::json!("shop"))
        && fields.get("version") == Some(&serde_json::json!("2.0.0"))
        && fields.get("private") == Some(&serde_json::json!(true))
}

/// Whether `text` is a CSV of exactly the people: a header of `name` and `age` in either
/// order, then their rows in order, and nothing else.
fn people_csv(text: &str) -> bool {
    let lines: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').collect())
        .collect();
    let Some((header, rows)) = lines.split_first() else {
        return false;
    };
    let (Some(name), Some(age)) = (
        header.iter().position(|h| *h == "name"),
        header.iter().position(|h| *h == "age"),
    ) else {
        return false;
    };
    header.len() == 2
        && rows.len() == PEOPLE_ROWS.len()
        && rows
            .iter()
            .zip(PEOPLE_ROWS)
            .all(|(row, [n, a])| row.len() == 2 && row[name] == n && row[age] == a)
}

/// The tasks.
const TASKS: &[Task] = &[
    Task {
        name: "change_setting_value",
        turns: &["In ~/app/settings.ini, set the timeout to 45 instead of 30."],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("app/settings.ini").as_deref() == Some(SETTINGS_AFTER)
                    && s.asked <= 1
                    && !s.abandoned,
                "settings.ini with timeout = 45 and its other lines unchanged",
            )
        },
    },
    Task {
        name: "remove_debug_line",
        turns: &["Remove the line DEBUG=true from ~/app/env.txt"],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("app/env.txt").as_deref() == Some(ENV_AFTER) && s.asked <= 1 && !s.abandoned,
                "env.txt with NAME and PORT only, no blank line left",
            )
        },
    },
    Task {
        name: "copy_with_new_name",
        turns: &["Make a copy of ~/Documents/cv.pdf called cv-2025.pdf in the same folder"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.entries("Documents") == ["cv-2025.pdf", "cv.pdf"]
                    && s.bytes("Documents/cv.pdf").as_deref() == Some(CV)
                    && s.bytes("Documents/cv-2025.pdf").as_deref() == Some(CV)
                    && !s.abandoned,
                "cv.pdf and cv-2025.pdf, the same bytes",
            )
        },
    },
    Task {
        name: "largest_number_in_list",
        turns: &["What is the largest number in ~/data/readings.txt?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("104.25") && !s.number_any(&["99", "12.5", "-3"]) && !s.abandoned,
                "104.25",
            )
        },
    },
    Task {
        name: "delete_old_files",
        turns: &["Delete the files in ~/tmp/cache that are older than 30 days."],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.entries("tmp/cache") == ["today.tmp", "week.tmp"] && !s.abandoned,
                "thumbs.db and session.tmp deleted; today.tmp and week.tmp kept",
            )
        },
    },
    Task {
        name: "make_folder_with_file",
        turns: &["Create a folder ~/Projects/garden with an empty file called plan.md inside it."],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.entries("Projects") == ["garden"]
                    && s.entries("Projects/garden") == ["plan.md"]
                    && s.bytes("Projects/garden/plan.md")
                        .is_some_and(|b| b.is_empty())
                    && !s.abandoned,
                "~/Projects/garden holding one empty plan.md",
            )
        },
    },
    Task {
        name: "orders_in_march",
        turns: &["How many orders in ~/shop/orders.csv were placed in March 2026?"],
        law1: Law1::Never,
        // Orders 2, 3 and 5; order 4 is March 2025.
        judge: |s| {
            check(
                s.number("3") && !s.number_any(&["4", "6"]) && !s.abandoned,
                "3 orders",
            )
        },
    },
    Task {
        name: "minutes_between_times",
        turns: &["How many minutes are there between 09:45 and 13:10?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("205") && !s.number_any(&["325", "3.25", "245"]) && !s.abandoned,
                "205 minutes",
            )
        },
    },
    Task {
        name: "heading_first_line",
        turns: &["Put the line '# Shopping' at the top of ~/notes/list.txt"],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("notes/list.txt").as_deref() == Some(LIST_AFTER)
                    && s.asked <= 1
                    && !s.abandoned,
                "list.txt starting with # Shopping, then eggs and bread",
            )
        },
    },
    // LATER: written after the first run of the nine above.
    Task {
        name: "copy_recent_files",
        turns: &["Copy the files in ~/inbox that changed in the last 3 days into ~/today"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.entries("today") == ["a.txt", "b.txt"]
                    && s.entries("inbox") == ["a.txt", "b.txt", "c.txt", "d.txt"]
                    && s.read("today/a.txt").as_deref() == Some("inbox a.txt\n")
                    && !s.abandoned,
                "~/today holds a.txt and b.txt; ~/inbox keeps all four",
            )
        },
    },
    Task {
        name: "lines_without_repeats",
        turns: &[
            "Write the lines of ~/logs/visitors.txt to ~/logs/unique.txt without the repeated ones",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("logs/unique.txt").as_deref() == Some(VISITORS_ONCE)
                    && s.read("logs/visitors.txt").as_deref() == Some(VISITORS)
                    && !s.abandoned,
                "unique.txt holds cy, ana, bo, in the order they first appear",
            )
        },
    },
    Task {
        name: "json_to_csv",
        turns: &["Make a CSV file ~/data/people.csv from ~/data/people.json"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("data/people.csv").is_some_and(|t| people_csv(&t)) && !s.abandoned,
                "people.csv: a header of name and age and the rows of Ana and Bo",
            )
        },
    },
    Task {
        name: "prefix_on_every_line",
        turns: &["In ~/site/links.txt, change every http:// to https://"],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("site/links.txt").as_deref() == Some(LINKS_AFTER)
                    && s.asked <= 1
                    && !s.abandoned,
                "links.txt with https:// on each line, and nothing else changed",
            )
        },
    },
    Task {
        name: "total_of_number_list",
        turns: &["What do the numbers in ~/data/expenses.txt add up to?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                (s.number("50.5") || s.number("50.50"))
                    && !s.number_any(&["4", "30"])
                    && !s.abandoned,
                "50.5",
            )
        },
    },
    // HELD: written on 2026-12-01, before a change request was held to a change on record.
    Task {
        name: "blank_lines_removed",
        turns: &["Remove the empty lines from ~/notes/groceries.txt"],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("notes/groceries.txt").as_deref() == Some(GROCERIES_AFTER)
                    && s.asked <= 1
                    && !s.abandoned,
                "groceries.txt holding milk, eggs and bread, no empty line",
            )
        },
    },
    Task {
        name: "version_bumped",
        turns: &["Update the version in ~/app/package.json to 2.0.0"],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("app/package.json")
                    .is_some_and(|t| bumped_package(&t))
                    && s.asked <= 1
                    && !s.abandoned,
                "package.json with version 2.0.0, name and private as they were",
            )
        },
    },
    Task {
        name: "rename_section",
        turns: &["In ~/docs/guide.md, rename the section Setup to Installation"],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("docs/guide.md").as_deref() == Some(GUIDE_AFTER)
                    && s.asked <= 1
                    && !s.abandoned,
                "guide.md with the heading '## Installation', setup.sh still named so",
            )
        },
    },
    // AFTER: written after the HELD tasks' first runs and the changes they led to.
    Task {
        name: "todo_lines_removed",
        turns: &["Delete the lines that contain TODO from ~/notes/plan.md"],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("notes/plan.md").as_deref() == Some(PLAN_AFTER)
                    && s.asked <= 1
                    && !s.abandoned,
                "plan.md without its two TODO lines, the rest as it was",
            )
        },
    },
    Task {
        name: "line_added_at_end",
        turns: &["Add cheese as a new line at the end of ~/notes/shopping.txt"],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("notes/shopping.txt").as_deref() == Some(SHOPPING_AFTER)
                    && s.asked <= 1
                    && !s.abandoned,
                "shopping.txt: milk, bread, cheese",
            )
        },
    },
    Task {
        name: "env_port_changed",
        turns: &["Change the PORT in ~/web/.env to 9090"],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.read("web/.env").as_deref() == Some(DOTENV_AFTER) && s.asked <= 1 && !s.abandoned,
                ".env with PORT=9090, PORT_ADMIN and HOST as they were",
            )
        },
    },
    Task {
        name: "line_that_mentions",
        turns: &["Which line of ~/notes/trip.txt mentions the deadline?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.text.contains("book hotel by the deadline of 12 May")
                    && s.read("notes/trip.txt").as_deref() == Some(TRIP)
                    && !s.abandoned,
                "the line 'book hotel by the deadline of 12 May', the file unchanged",
            )
        },
    },
];

fn make_home(home: &Path) {
    put(home, "app/settings.ini", SETTINGS.as_bytes());
    put(home, "app/env.txt", ENV.as_bytes());
    put(home, "Documents/cv.pdf", CV);
    put(home, "data/readings.txt", READINGS.as_bytes());
    for (name, days) in CACHE {
        let rel = format!("tmp/cache/{name}");
        put(home, &rel, format!("cache {name}\n").as_bytes());
        age(home, &rel, days);
    }
    put(home, "shop/orders.csv", ORDERS.as_bytes());
    put(home, "notes/list.txt", LIST.as_bytes());
    for (name, days) in INBOX {
        let rel = format!("inbox/{name}");
        put(home, &rel, format!("inbox {name}\n").as_bytes());
        age(home, &rel, days);
    }
    put(home, "logs/visitors.txt", VISITORS.as_bytes());
    put(home, "data/people.json", PEOPLE.as_bytes());
    put(home, "site/links.txt", LINKS.as_bytes());
    put(home, "data/expenses.txt", AMOUNTS.as_bytes());
    put(home, "notes/groceries.txt", GROCERIES.as_bytes());
    put(home, "app/package.json", PACKAGE.as_bytes());
    put(home, "docs/guide.md", GUIDE.as_bytes());
    put(home, "notes/plan.md", PLAN.as_bytes());
    put(home, "notes/shopping.txt", SHOPPING.as_bytes());
    put(home, "web/.env", DOTENV.as_bytes());
    put(home, "notes/trip.txt", TRIP.as_bytes());
}

task_tests!(SUITE, at_least = 21;
    change_setting_value,
    remove_debug_line,
    copy_with_new_name,
    largest_number_in_list,
    delete_old_files,
    make_folder_with_file,
    orders_in_march,
    minutes_between_times,
    heading_first_line,
    copy_recent_files,
    lines_without_repeats,
    json_to_csv,
    prefix_on_every_line,
    total_of_number_list,
    blank_lines_removed,
    version_bumped,
    rename_section,
    todo_lines_removed,
    line_added_at_end,
    env_port_changed,
    line_that_mentions,
);

mod judges {
    use super::{
        CV, DOTENV, DOTENV_AFTER, ENV_AFTER, GROCERIES, GROCERIES_AFTER, GUIDE, GUIDE_AFTER,
        LINKS_AFTER, LIST_AFTER, PACKAGE, PLAN_AFTER, SETTINGS_AFTER, SHOPPING_AFTER, SUITE,
        VISITORS_ONCE,
    };
    use crate::harness::{self, every_task_has_a_judge_test, put};

    #[test]
    fn every_task_has_one() {
        every_task_has_a_judge_test(&SUITE, include_str!("fresh.rs"));
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

    fn remove(h: &std::path::Path, rel: &str) {
        std::fs::remove_file(h.join(rel)).expect("the file is there");
    }

    #[test]
    fn change_setting_value() {
        end_states(
            "change_setting_value",
            "The timeout in ~/app/settings.ini is now 45.",
            1,
            |h| put(h, "app/settings.ini", SETTINGS_AFTER.as_bytes()),
            &[
                // Every "3" replaced; the file replaced by the one line; nothing done.
                |h| {
                    put(
                        h,
                        "app/settings.ini",
                        b"[server]\nhost = localhost\ntimeout = 450\nretries = 45\n",
                    );
                },
                |h| put(h, "app/settings.ini", b"timeout = 45\n"),
                |_| {},
            ],
        );
    }

    #[test]
    fn remove_debug_line() {
        end_states(
            "remove_debug_line",
            "Removed DEBUG=true from ~/app/env.txt.",
            1,
            |h| put(h, "app/env.txt", ENV_AFTER.as_bytes()),
            &[
                // A blank line left where it was; the file emptied; nothing done.
                |h| put(h, "app/env.txt", b"NAME=shop\n\nPORT=8000\n"),
                |h| put(h, "app/env.txt", b""),
                |_| {},
            ],
        );
    }

    #[test]
    fn copy_with_new_name() {
        end_states(
            "copy_with_new_name",
            "Copied ~/Documents/cv.pdf to ~/Documents/cv-2025.pdf.",
            0,
            |h| put(h, "Documents/cv-2025.pdf", CV),
            &[
                // Moved instead of copied; a folder of that name; other bytes.
                |h| {
                    put(h, "Documents/cv-2025.pdf", CV);
                    remove(h, "Documents/cv.pdf");
                },
                |h| put(h, "Documents/cv-2025.pdf/cv.pdf", CV),
                |h| put(h, "Documents/cv-2025.pdf", b"curriculum vitae"),
            ],
        );
    }

    #[test]
    fn largest_number_in_list() {
        right_and_wrong(
            "largest_number_in_list",
            "The largest number is 104.25.",
            &["99", "The largest is 99 (104.25 read as text).", "12.5"],
        );
    }

    #[test]
    fn delete_old_files() {
        end_states(
            "delete_old_files",
            "Deleted thumbs.db and session.tmp.",
            1,
            |h| {
                remove(h, "tmp/cache/thumbs.db");
                remove(h, "tmp/cache/session.tmp");
            },
            &[
                // Everything deleted; only the oldest; nothing.
                |h| {
                    for name in ["thumbs.db", "session.tmp", "today.tmp", "week.tmp"] {
                        remove(h, &format!("tmp/cache/{name}"));
                    }
                },
                |h| remove(h, "tmp/cache/session.tmp"),
                |_| {},
            ],
        );
    }

    #[test]
    fn make_folder_with_file() {
        end_states(
            "make_folder_with_file",
            "Created ~/Projects/garden/plan.md.",
            0,
            |h| put(h, "Projects/garden/plan.md", b""),
            &[
                // A file with text; the folder alone; the file beside the folder.
                |h| put(h, "Projects/garden/plan.md", b"# plan\n"),
                |h| std::fs::create_dir_all(h.join("Projects/garden")).expect("dir"),
                |h| {
                    std::fs::create_dir_all(h.join("Projects/garden")).expect("dir");
                    put(h, "Projects/plan.md", b"");
                },
            ],
        );
    }

    #[test]
    fn orders_in_march() {
        right_and_wrong(
            "orders_in_march",
            "3 orders were placed in March 2026.",
            &["4 orders", "6 orders in ~/shop/orders.csv"],
        );
    }

    #[test]
    fn minutes_between_times() {
        right_and_wrong(
            "minutes_between_times",
            "There are 205 minutes between 09:45 and 13:10.",
            &["3.25 hours", "325 minutes", "245 minutes"],
        );
    }

    #[test]
    fn heading_first_line() {
        end_states(
            "heading_first_line",
            "Added '# Shopping' as the first line of ~/notes/list.txt.",
            1,
            |h| put(h, "notes/list.txt", LIST_AFTER.as_bytes()),
            &[
                // Put last; the file replaced by the heading; nothing done.
                |h| put(h, "notes/list.txt", b"eggs\nbread\n# Shopping\n"),
                |h| put(h, "notes/list.txt", b"# Shopping\n"),
                |_| {},
            ],
        );
    }

    #[test]
    fn copy_recent_files() {
        end_states(
            "copy_recent_files",
            "Copied a.txt and b.txt into ~/today.",
            0,
            |h| {
                put(h, "today/a.txt", b"inbox a.txt\n");
                put(h, "today/b.txt", b"inbox b.txt\n");
            },
            &[
                // Every file copied; the two moved; a folder of the old ones.
                |h| {
                    for name in ["a.txt", "b.txt", "c.txt", "d.txt"] {
                        put(
                            h,
                            &format!("today/{name}"),
                            format!("inbox {name}\n").as_bytes(),
                        );
                    }
                },
                |h| {
                    put(h, "today/a.txt", b"inbox a.txt\n");
                    put(h, "today/b.txt", b"inbox b.txt\n");
                    remove(h, "inbox/a.txt");
                    remove(h, "inbox/b.txt");
                },
                |h| {
                    put(h, "today/c.txt", b"inbox c.txt\n");
                    put(h, "today/d.txt", b"inbox d.txt\n");
                },
            ],
        );
    }

    #[test]
    fn lines_without_repeats() {
        end_states(
            "lines_without_repeats",
            "Wrote ~/logs/unique.txt.",
            0,
            |h| put(h, "logs/unique.txt", VISITORS_ONCE.as_bytes()),
            &[
                // Sorted; the repeats kept; nothing written.
                |h| put(h, "logs/unique.txt", b"ana\nbo\ncy\n"),
                |h| put(h, "logs/unique.txt", b"cy\nana\ncy\nbo\nana\n"),
                |_| {},
            ],
        );
    }

    #[test]
    fn json_to_csv() {
        end_states(
            "json_to_csv",
            "Wrote ~/data/people.csv.",
            0,
            |h| put(h, "data/people.csv", b"age,name\r\n31,Ana\r\n45,Bo\r\n"),
            &[
                // The JSON under the new name; no header; nothing.
                |h| {
                    put(
                        h,
                        "data/people.csv",
                        br#"[{"name": "Ana", "age": 31}, {"name": "Bo", "age": 45}]"#,
                    );
                },
                |h| put(h, "data/people.csv", b"Ana,31\nBo,45\n"),
                |h| put(h, "data/people.csv", b"age,name\nAna,31\nBo,45\n"),
                |_| {},
            ],
        );
    }

    #[test]
    fn prefix_on_every_line() {
        end_states(
            "prefix_on_every_line",
            "Changed http:// to https:// in ~/site/links.txt.",
            1,
            |h| put(h, "site/links.txt", LINKS_AFTER.as_bytes()),
            &[
                // "http" replaced wherever it stands; the first line only; nothing.
                |h| {
                    put(
                        h,
                        "site/links.txt",
                        b"https://a.example\nhttpss://b.example\nhttps://c.example/https-guide\n",
                    );
                },
                |h| {
                    put(
                        h,
                        "site/links.txt",
                        b"https://a.example\nhttps://b.example\nhttp://c.example/http-guide\n",
                    );
                },
                |_| {},
            ],
        );
    }

    #[test]
    fn total_of_number_list() {
        right_and_wrong(
            "total_of_number_list",
            "The numbers add up to 50.5.",
            &["4 numbers", "The largest is 30.", "50"],
        );
    }

    #[test]
    fn blank_lines_removed() {
        end_states(
            "blank_lines_removed",
            "Removed the 3 empty lines from ~/notes/groceries.txt.",
            1,
            |h| put(h, "notes/groceries.txt", GROCERIES_AFTER.as_bytes()),
            &[
                // One empty line left; the lines sorted; nothing changed.
                |h| put(h, "notes/groceries.txt", b"milk\neggs\n\nbread\n"),
                |h| put(h, "notes/groceries.txt", b"bread\neggs\nmilk\n"),
                |h| put(h, "notes/groceries.txt", GROCERIES.as_bytes()),
            ],
        );
    }

    #[test]
    fn version_bumped() {
        end_states(
            "version_bumped",
            "Updated the version in ~/app/package.json to 2.0.0.",
            1,
            |h| {
                put(
                    h,
                    "app/package.json",
                    b"{\n  \"name\": \"shop\",\n  \"version\": \"2.0.0\",\n  \"private\": true\n}\n",
                );
            },
            &[
                // Unchanged; the version only; another field lost.
                |h| put(h, "app/package.json", PACKAGE.as_bytes()),
                |h| put(h, "app/package.json", br#"{"version": "2.0.0"}"#),
                |h| {
                    put(
                        h,
                        "app/package.json",
                        br#"{"name": "shop", "version": "2.0.0"}"#,
                    )
                },
            ],
        );
    }

    #[test]
    fn rename_section() {
        end_states(
            "rename_section",
            "Renamed the section Setup to Installation in ~/docs/guide.md.",
            1,
            |h| put(h, "docs/guide.md", GUIDE_AFTER.as_bytes()),
            &[
                // Every "setup" replaced, the script's name too; nothing changed.
                |h| {
                    put(
                        h,
                        "docs/guide.md",
                        b"# Guide\n\n## Installation\nRun Installation.sh once.\n\n## Usage\nRun shop.\n",
                    );
                },
                |h| put(h, "docs/guide.md", GUIDE.as_bytes()),
            ],
        );
    }

    #[test]
    fn todo_lines_removed() {
        end_states(
            "todo_lines_removed",
            "Deleted the 2 lines containing TODO from ~/notes/plan.md.",
            1,
            |h| put(h, "notes/plan.md", PLAN_AFTER.as_bytes()),
            &[
                // The word removed but its lines kept; one of two; blank lines left.
                |h| {
                    put(
                        h,
                        "notes/plan.md",
                        b"# Plan\nbuy seeds\n: fix the fence\nwater daily\n call Bo\n",
                    );
                },
                |h| {
                    put(
                        h,
                        "notes/plan.md",
                        b"# Plan\nbuy seeds\nwater daily\nTODO call Bo\n",
                    )
                },
                |h| put(h, "notes/plan.md", b"# Plan\nbuy seeds\n\nwater daily\n\n"),
            ],
        );
    }

    #[test]
    fn line_added_at_end() {
        end_states(
            "line_added_at_end",
            "Added cheese at the end of ~/notes/shopping.txt.",
            1,
            |h| put(h, "notes/shopping.txt", SHOPPING_AFTER.as_bytes()),
            &[
                // On the last line's end; first; the file replaced by it.
                |h| put(h, "notes/shopping.txt", b"milk\nbreadcheese\n"),
                |h| put(h, "notes/shopping.txt", b"cheese\nmilk\nbread\n"),
                |h| put(h, "notes/shopping.txt", b"cheese\n"),
            ],
        );
    }

    #[test]
    fn env_port_changed() {
        end_states(
            "env_port_changed",
            "Set PORT to 9090 in ~/web/.env.",
            1,
            |h| put(h, "web/.env", DOTENV_AFTER.as_bytes()),
            &[
                // The admin port changed too; unchanged.
                |h| put(h, "web/.env", b"HOST=0.0.0.0\nPORT=9090\nPORT_ADMIN=9090\n"),
                |h| put(h, "web/.env", DOTENV.as_bytes()),
            ],
        );
    }

    #[test]
    fn line_that_mentions() {
        right_and_wrong(
            "line_that_mentions",
            "Line 2: book hotel by the deadline of 12 May",
            &["Line 2", "12 May", "pack bags"],
        );
    }
}
