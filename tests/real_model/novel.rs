//! Another real-model suite, written on 2026-11-30 (night) before any change of that
//! session and before any of its tasks ran: kinds that no other suite and no prompt has —
//! a sorted copy of a file, two files with the same bytes, the total size of a folder, one
//! field of the row a name picks, days left until a date, a table turned into JSON, a
//! line added to the end of a file, a unit conversion, the rows with an empty field, a
//! batch rename, a word replaced in a file, the files changed within a week. Each judge
//! reads the exact end state and the exact answer, and rejects a plausible wrong outcome
//! (a test below).
//!
//! `scripts/real-model-suite --suite novel` runs it.

use std::path::Path;

use super::harness::{Law1, Suite, Task, age, check, put, task_tests, values};

/// The suite: its report lines start `novel:`.
const SUITE: Suite = Suite {
    name: "novel",
    tasks: TASKS,
    make_home,
};

/// `~/lists/party.txt`: five names in the order people answered.
const PARTY: &str = "Zoe\nAdam\nMia\nBen\nLuca\n";
const PARTY_SORTED: [&str; 5] = ["Adam", "Ben", "Luca", "Mia", "Zoe"];

/// `~/Downloads/dupes`: report-final.pdf and report-copy.pdf hold the same bytes;
/// photo.jpg has their size but other bytes.
const SAME: [&str; 2] = ["report-final.pdf", "report-copy.pdf"];
const NOT_SAME: [&str; 3] = ["photo.jpg", "notes.txt", "report-draft.pdf"];

/// `~/Videos/clips`: 2,500,000 bytes in three files (the largest 1,200,000).
const CLIPS: [(&str, usize); 3] = [
    ("goal.mp4", 1_200_000),
    ("crowd.mp4", 800_000),
    ("anthem.mp4", 500_000),
];

/// `~/Documents/contacts.csv`: Maria Keller's phone, and Mario Keller's (one letter off).
const CONTACTS: &str = "name,email,phone,city\n\
Jonas Berg,jonas@example.org,+49 30 5550 4411,Berlin\n\
Mario Keller,mario.k@example.org,+49 30 5550 9876,Potsdam\n\
Maria Keller,maria.keller@example.org,+49 30 5550 1234,Berlin\n\
Lea Wolf,lea@example.org,+49 40 5550 7788,Hamburg\n";

/// `~/data/members.csv`: three members.
const MEMBERS: &str = "name,city,joined\nAna,Porto,2024\nBo,Oslo,2025\nCy,Lima,2023\n";
const MEMBER_ROWS: [[&str; 3]; 3] = [
    ["Ana", "Porto", "2024"],
    ["Bo", "Oslo", "2025"],
    ["Cy", "Lima", "2023"],
];

/// `~/notes/chores.txt`, before the line is added.
const CHORES: &str = "take out the trash\nfeed the cat\n";

/// `~/data/signup.csv`: 7 people, 3 without an email (an empty field mid-row, a quoted
/// empty field, an empty last field).
const SIGNUP: &str = "name,email,age\n\
Ama,ama@example.org,31\n\
Ben,,45\n\
Cleo,cleo@example.org,28\n\
Dev,\"\",52\n\
Eli,eli@example.org,39\n\
Fay,fay@example.org,23\n\
Gus,,\n";

/// `~/Pictures/raw`: two .jpeg files to rename, a .jpg and a text file that stay.
const RAW: [(&str, &[u8]); 4] = [
    ("dawn.jpeg", b"JPEG dawn"),
    ("dusk.jpeg", b"JPEG dusk"),
    ("river.jpg", b"JPEG river"),
    ("notes.txt", b"shot on the 12th\n"),
];

/// `~/docs/style.md`, before and after "colour" becomes "color".
const STYLE: &str = "# Charts\nUse one colour per series.\nThe colour of links is blue.\n\
Keep the background neutral.\n";
const STYLE_AFTER: &str = "# Charts\nUse one color per series.\nThe color of links is blue.\n\
Keep the background neutral.\n";

/// `~/Documents/letters`: files with their age in days (two changed within a week).
const LETTERS: [(&str, u64); 5] = [
    ("landlord.txt", 2),
    ("bank.txt", 5),
    ("school.txt", 10),
    ("insurance.txt", 40),
    ("old-tax.txt", 400),
];

/// The day this suite asks about, and how many days are left until it from today.
const FUTURE_DAY: &str = "2031-07-01";
fn days_left() -> i64 {
    let until = chrono::NaiveDate::parse_from_str(FUTURE_DAY, "%Y-%m-%d").expect("a date");
    (until - chrono::Local::now().date_naive()).num_days()
}

/// The lines of a file's text, without the trailing newline and blank ends.
fn lines(text: &str) -> Vec<&str> {
    text.trim_end().lines().map(str::trim_end).collect()
}

/// The digits of `text`, in order ("+49 30 5550-1234" gives "493055501234").
fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

/// The members JSON holds one object per row with the header's keys and the row's values
/// (a year may be a number or a string), and nothing else.
fn members_json(text: &str) -> bool {
    let Ok(serde_json::Value::Array(items)) = serde_json::from_str::<serde_json::Value>(text)
    else {
        return false;
    };
    items.len() == MEMBER_ROWS.len()
        && items.iter().zip(MEMBER_ROWS).all(|(item, row)| {
            let Some(obj) = item.as_object() else {
                return false;
            };
            let field = |key: &str| match obj.get(key) {
                Some(serde_json::Value::String(s)) => Some(s.clone()),
                Some(serde_json::Value::Number(n)) => Some(n.to_string()),
                _ => None,
            };
            obj.len() == 3
                && field("name").as_deref() == Some(row[0])
                && field("city").as_deref() == Some(row[1])
                && field("joined").as_deref() == Some(row[2])
        })
}

/// The tasks.
const TASKS: &[Task] = &[
    Task {
        name: "sorted_copy_of_list",
        turns: &[
            "Sort the names in ~/lists/party.txt alphabetically and save them to ~/lists/party-sorted.txt",
        ],
        law1: Law1::Never,
        // The new file holds the five names sorted, one per line; the list is untouched.
        judge: |s| {
            check(
                s.read("lists/party-sorted.txt")
                    .is_some_and(|t| lines(&t) == PARTY_SORTED)
                    && s.read("lists/party.txt").as_deref() == Some(PARTY)
                    && !s.abandoned,
                "party-sorted.txt holds Adam, Ben, Luca, Mia, Zoe; party.txt unchanged",
            )
        },
    },
    Task {
        name: "files_with_same_content",
        turns: &["Which two files in ~/Downloads/dupes have the same content?"],
        law1: Law1::Never,
        // photo.jpg has the same size as the two reports; report-draft.pdf a similar name.
        judge: |s| {
            check(
                SAME.iter().all(|n| s.names(n)) && !s.names_any(&NOT_SAME) && !s.abandoned,
                "report-final.pdf and report-copy.pdf, and no other file",
            )
        },
    },
    Task {
        name: "total_size_of_folder",
        turns: &["How much space do the files in ~/Videos/clips take up in total?"],
        law1: Law1::Never,
        // 2,500,000 bytes: 2.5 MB, 2,500 KB, or 2.38 MiB / 2,441 KiB; the largest file
        // alone is 1.2 MB.
        judge: |s| {
            let v = values(&s.text);
            let near = |x: f64, want: f64| (x - want).abs() <= want * 0.005;
            check(
                v.iter().any(|&x| {
                    [2_500_000.0, 2_500.0, 2.5, 2.38, 2.4, 2_441.4, 2_441.0]
                        .iter()
                        .any(|&w| near(x, w))
                }) && !v.iter().any(|&x| {
                    [1_200_000.0, 1_200.0, 1.2, 1.14]
                        .iter()
                        .any(|&w| near(x, w))
                }) && !s.abandoned,
                "2.5 MB (2,500,000 bytes) in all",
            )
        },
    },
    Task {
        name: "phone_of_contact",
        turns: &["What is Maria Keller's phone number in ~/Documents/contacts.csv?"],
        law1: Law1::Never,
        // Mario Keller's number differs in its last four digits.
        judge: |s| {
            let d = digits(&s.text);
            check(
                d.contains("55501234") && !d.contains("55509876") && !s.abandoned,
                "+49 30 5550 1234 (not Mario Keller's)",
            )
        },
    },
    Task {
        name: "days_left_until_date",
        turns: &["How many days are left until 2031-07-01?"],
        law1: Law1::Never,
        // Counted from today; a guess from years and months is off.
        judge: |s| {
            let want = days_left();
            let v = values(&s.text);
            check(
                v.contains(&(want as f64))
                    && !v
                        .iter()
                        .any(|&x| x == (want - 1) as f64 || x == (want + 1) as f64)
                    && !s.abandoned,
                "the days from today to 2031-07-01",
            )
        },
    },
    Task {
        name: "table_to_json",
        turns: &[
            "Turn ~/data/members.csv into a JSON file ~/data/members.json with one object per row.",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("data/members.json")
                    .is_some_and(|t| members_json(&t))
                    && s.read("data/members.csv").as_deref() == Some(MEMBERS)
                    && !s.abandoned,
                "members.json: three objects with name, city and joined",
            )
        },
    },
    Task {
        name: "append_a_line",
        turns: &["Add 'water the plants' as a new last line of ~/notes/chores.txt"],
        law1: Law1::Never,
        // The two lines stay, in order, and the new one follows.
        judge: |s| {
            check(
                s.read("notes/chores.txt").is_some_and(|t| {
                    lines(&t) == ["take out the trash", "feed the cat", "water the plants"]
                }) && !s.abandoned,
                "chores.txt: its two lines, then 'water the plants'",
            )
        },
    },
    Task {
        name: "miles_to_kilometres",
        turns: &["How many kilometres are 26.2 miles?"],
        law1: Law1::Never,
        // 26.2 × 1.609344 = 42.16; dividing gives 16.28.
        judge: |s| {
            let v = values(&s.text);
            check(
                v.iter().any(|&x| (42.1..=42.2).contains(&x))
                    && !v.iter().any(|&x| (16.2..=16.3).contains(&x))
                    && !s.abandoned,
                "about 42.16 km",
            )
        },
    },
    Task {
        name: "rows_without_email",
        turns: &["How many people in ~/data/signup.csv have no email address?"],
        law1: Law1::Never,
        // 3 of 7; 4 have one.
        judge: |s| {
            check(
                s.number("3") && !s.number_any(&["4", "7", "2"]) && !s.abandoned,
                "3 people",
            )
        },
    },
    Task {
        name: "rename_extensions",
        turns: &["Change the extension of every .jpeg file in ~/Pictures/raw to .jpg"],
        law1: Law1::Never,
        // The bytes move with the names; river.jpg and notes.txt stay as they were.
        judge: |s| {
            check(
                s.entries("Pictures/raw") == ["dawn.jpg", "dusk.jpg", "notes.txt", "river.jpg"]
                    && s.bytes("Pictures/raw/dawn.jpg").as_deref() == Some(&b"JPEG dawn"[..])
                    && s.bytes("Pictures/raw/dusk.jpg").as_deref() == Some(&b"JPEG dusk"[..])
                    && s.bytes("Pictures/raw/river.jpg").as_deref() == Some(&b"JPEG river"[..])
                    && !s.abandoned,
                "dawn.jpg and dusk.jpg with their bytes; river.jpg and notes.txt unchanged",
            )
        },
    },
    Task {
        name: "replace_word_in_file",
        turns: &["Replace every 'colour' with 'color' in ~/docs/style.md"],
        law1: Law1::Approve,
        // Changing a file in place loses its old text: one question, then exactly the
        // replaced text.
        judge: |s| {
            check(
                s.read("docs/style.md").as_deref() == Some(STYLE_AFTER)
                    && s.asked <= 1
                    && !s.abandoned,
                "style.md with 'color' twice and its other lines unchanged",
            )
        },
    },
    Task {
        name: "files_changed_this_week",
        turns: &["How many files in ~/Documents/letters were changed in the last 7 days?"],
        law1: Law1::Never,
        // landlord.txt (2 days) and bank.txt (5); school.txt is 10 days old.
        judge: |s| {
            check(
                s.number("2") && !s.number_any(&["3", "5", "1"]) && !s.abandoned,
                "2 files (landlord.txt and bank.txt)",
            )
        },
    },
];

fn make_home(home: &Path) {
    put(home, "lists/party.txt", PARTY.as_bytes());
    let report = vec![b'%'; 4_096];
    put(home, "Downloads/dupes/report-final.pdf", &report);
    put(home, "Downloads/dupes/report-copy.pdf", &report);
    put(home, "Downloads/dupes/photo.jpg", &vec![b'J'; 4_096]);
    put(home, "Downloads/dupes/report-draft.pdf", &vec![b'%'; 3_000]);
    put(home, "Downloads/dupes/notes.txt", b"compare the reports\n");
    for (name, bytes) in CLIPS {
        put(home, &format!("Videos/clips/{name}"), &vec![0u8; bytes]);
    }
    put(home, "Documents/contacts.csv", CONTACTS.as_bytes());
    put(home, "data/members.csv", MEMBERS.as_bytes());
    put(home, "notes/chores.txt", CHORES.as_bytes());
    put(home, "data/signup.csv", SIGNUP.as_bytes());
    for (name, bytes) in RAW {
        put(home, &format!("Pictures/raw/{name}"), bytes);
    }
    put(home, "docs/style.md", STYLE.as_bytes());
    for (name, days) in LETTERS {
        let rel = format!("Documents/letters/{name}");
        put(home, &rel, format!("Dear {name}\n").as_bytes());
        age(home, &rel, days);
    }
}

task_tests!(SUITE, at_least = 12;
    sorted_copy_of_list,
    files_with_same_content,
    total_size_of_folder,
    phone_of_contact,
    days_left_until_date,
    table_to_json,
    append_a_line,
    miles_to_kilometres,
    rows_without_email,
    rename_extensions,
    replace_word_in_file,
    files_changed_this_week,
);

mod judges {
    use super::{CHORES, STYLE_AFTER, SUITE, days_left};
    use crate::harness::{self, Outcome, accepts, every_task_has_a_judge_test, put};

    #[test]
    fn every_task_has_one() {
        every_task_has_a_judge_test(&SUITE, include_str!("novel.rs"));
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
    fn sorted_copy_of_list() {
        end_states(
            "sorted_copy_of_list",
            "Saved the sorted names to ~/lists/party-sorted.txt.",
            0,
            |h| put(h, "lists/party-sorted.txt", b"Adam\nBen\nLuca\nMia\nZoe\n"),
            &[
                // In the list's own order, reversed, or the list itself sorted in place.
                |h| put(h, "lists/party-sorted.txt", b"Zoe\nAdam\nMia\nBen\nLuca\n"),
                |h| put(h, "lists/party-sorted.txt", b"Zoe\nMia\nLuca\nBen\nAdam\n"),
                |h| put(h, "lists/party.txt", b"Adam\nBen\nLuca\nMia\nZoe\n"),
                |_| {},
            ],
        );
    }

    #[test]
    fn files_with_same_content() {
        right_and_wrong(
            "files_with_same_content",
            "report-final.pdf and report-copy.pdf have the same content.",
            &[
                "report-final.pdf and photo.jpg (both 4096 bytes)",
                "report-final.pdf and report-draft.pdf",
            ],
        );
    }

    #[test]
    fn total_size_of_folder() {
        right_and_wrong(
            "total_size_of_folder",
            "The three clips take up 2.5 MB (2,500,000 bytes).",
            &["goal.mp4 is 1.2 MB.", "3 files, 2.0 MB", "1,200,000 bytes"],
        );
        accepts(
            &SUITE,
            "total_size_of_folder",
            &Outcome::answer("2,441 KiB in all"),
            |_| {},
        );
    }

    #[test]
    fn phone_of_contact() {
        right_and_wrong(
            "phone_of_contact",
            "Maria Keller's phone number is +49 30 5550 1234.",
            &["+49 30 5550 9876", "Maria Keller: maria.keller@example.org"],
        );
    }

    #[test]
    fn days_left_until_date() {
        let n = days_left();
        right_and_wrong(
            "days_left_until_date",
            &format!("{n} days are left until 2031-07-01."),
            &[
                &format!("{} days", n + 1),
                &format!("{} days", n - 1),
                "About 4 years and 7 months.",
            ],
        );
    }

    #[test]
    fn table_to_json() {
        end_states(
            "table_to_json",
            "Wrote ~/data/members.json.",
            0,
            |h| {
                put(
                    h,
                    "data/members.json",
                    br#"[{"name":"Ana","city":"Porto","joined":2024},
{"name":"Bo","city":"Oslo","joined":"2025"},{"name":"Cy","city":"Lima","joined":2023}]"#,
                );
            },
            &[
                // Rows as lists, the header as a row, or no file at all.
                |h| {
                    put(
                        h,
                        "data/members.json",
                        br#"[["Ana","Porto","2024"],["Bo","Oslo","2025"],["Cy","Lima","2023"]]"#,
                    );
                },
                |h| {
                    put(
                        h,
                        "data/members.json",
                        br#"[{"name":"name","city":"city","joined":"joined"},
{"name":"Ana","city":"Porto","joined":2024},{"name":"Bo","city":"Oslo","joined":2025},
{"name":"Cy","city":"Lima","joined":2023}]"#,
                    );
                },
                |_| {},
            ],
        );
    }

    #[test]
    fn append_a_line() {
        end_states(
            "append_a_line",
            "Added 'water the plants' to ~/notes/chores.txt.",
            0,
            |h| {
                put(
                    h,
                    "notes/chores.txt",
                    format!("{CHORES}water the plants\n").as_bytes(),
                );
            },
            &[
                // The file replaced by the line, or the line put first.
                |h| put(h, "notes/chores.txt", b"water the plants\n"),
                |h| {
                    put(
                        h,
                        "notes/chores.txt",
                        format!("water the plants\n{CHORES}").as_bytes(),
                    );
                },
                |_| {},
            ],
        );
    }

    #[test]
    fn miles_to_kilometres() {
        right_and_wrong(
            "miles_to_kilometres",
            "26.2 miles are 42.16 kilometres.",
            &["26.2 miles are 16.28 km.", "About 40 km."],
        );
    }

    #[test]
    fn rows_without_email() {
        right_and_wrong(
            "rows_without_email",
            "3 people have no email address (Ben, Dev and Gus).",
            &["2 people have no email address.", "4 of the 7 people"],
        );
    }

    #[test]
    fn rename_extensions() {
        end_states(
            "rename_extensions",
            "Renamed dawn.jpeg and dusk.jpeg to .jpg.",
            0,
            |h| {
                for name in ["dawn", "dusk"] {
                    let from = h.join(format!("Pictures/raw/{name}.jpeg"));
                    std::fs::rename(&from, from.with_extension("jpg")).unwrap();
                }
            },
            &[
                // Copies beside the originals; new files with other bytes; nothing done.
                |h| {
                    for name in ["dawn", "dusk"] {
                        let from = h.join(format!("Pictures/raw/{name}.jpeg"));
                        std::fs::copy(&from, from.with_extension("jpg")).unwrap();
                    }
                },
                |h| {
                    for name in ["dawn", "dusk"] {
                        let from = h.join(format!("Pictures/raw/{name}.jpeg"));
                        std::fs::remove_file(&from).unwrap();
                        std::fs::write(from.with_extension("jpg"), b"").unwrap();
                    }
                },
                |_| {},
            ],
        );
    }

    #[test]
    fn replace_word_in_file() {
        end_states(
            "replace_word_in_file",
            "Replaced 'colour' with 'color' twice in ~/docs/style.md.",
            1,
            |h| put(h, "docs/style.md", STYLE_AFTER.as_bytes()),
            &[
                // Only the changed lines kept, one of the two replaced, nothing done.
                |h| {
                    put(
                        h,
                        "docs/style.md",
                        b"Use one color per series.\nThe color of links is blue.\n",
                    );
                },
                |h| {
                    put(
                        h,
                        "docs/style.md",
                        STYLE_AFTER
                            .replacen("color of links", "colour of links", 1)
                            .as_bytes(),
                    );
                },
                |_| {},
            ],
        );
    }

    #[test]
    fn files_changed_this_week() {
        right_and_wrong(
            "files_changed_this_week",
            "2 files were changed in the last 7 days: landlord.txt and bank.txt.",
            &["3 files", "5 files in ~/Documents/letters"],
        );
    }
}
