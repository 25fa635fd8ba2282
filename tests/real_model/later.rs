//! A third real-model suite, written after the grammar of typed calls, the `calculate`
//! tool, the answer shapes without "any" and R4b's check of every unverified answer
//! were built, and before any of them ran on the model: task kinds that neither the
//! everyday nor the kinds suite has — a total over the rows that match a value, the
//! length of a nested JSON list, a span in weeks, the empty files of a folder, the lines
//! of a log that mention a word, the columns of a table. Each is judged by the exact
//! answer, and each judge rejects the plausible wrong one (a test below).
//!
//! `scripts/real-model-suite --suite later` runs it.

use std::path::Path;

use super::harness::{
    Law1, Suite, Task, age, check, counts_per_group, in_order, put, task_tests, values,
};

/// The suite: its report lines start `later:`.
const SUITE: Suite = Suite {
    name: "later",
    tasks: TASKS,
    make_home,
};

/// `~/Documents/sales.csv`: city, amount. Lyon's rows add up to 1,265.50; every row to
/// 3,071.25; the Paris rows (the first city) to 1,080.75.
const SALES: &str = "order,city,amount,note\n\
1001,Lyon,420.00,\"paid, in full\"\n\
1002,Paris,310.25,\n\
1003,Lyon,95.50,\"late, then paid\"\n\
1004,Nice,725.00,\n\
1005,Paris,770.50,\"gift\"\n\
1006,Lyon,750.00,\n";

/// `~/Projects/shop/catalog.json`: 7 products under `store.products`, 3 categories
/// under `store.categories` and 2 staff under `staff`.
const CATALOG: &str = r#"{
  "store": {
    "name": "Corner Shop",
    "categories": ["tea", "coffee", "snacks"],
    "products": [
      {"sku": "T-1", "name": "Green tea", "price": 4.5},
      {"sku": "T-2", "name": "Black tea", "price": 3.9},
      {"sku": "C-1", "name": "Espresso beans", "price": 12.0},
      {"sku": "C-2", "name": "Decaf beans", "price": 11.5},
      {"sku": "S-1", "name": "Oat cookies", "price": 2.2},
      {"sku": "S-2", "name": "Dark chocolate", "price": 3.1},
      {"sku": "S-3", "name": "Salted almonds", "price": 5.4}
    ]
  },
  "staff": [{"name": "Ines"}, {"name": "Tom"}]
}"#;

/// `~/Downloads/inbox`: the empty files, and the others (one holds a single newline).
const EMPTY: [&str; 3] = ["draft-reply.txt", "placeholder.md", "upload.tmp"];
const NOT_EMPTY: [(&str, &[u8]); 3] = [
    ("notes.txt", b"call back on Monday\n"),
    ("blank-line.txt", b"\n"),
    ("invoice.pdf", b"%PDF-1.4 not really"),
];

/// `~/logs/app.log`: 9 lines mention a timeout (one of them as "Timeout"), among 10
/// WARN and ERROR lines, 40 lines in all.
fn app_log() -> String {
    let mut lines = Vec::new();
    for i in 0..40 {
        let line = match i {
            3 | 7 | 12 | 18 | 22 | 27 | 31 | 36 => {
                format!("2026-05-02 10:{i:02}:00 WARN request {i} hit a timeout after 30 s")
            }
            15 => "2026-05-02 10:15:00 ERROR Timeout while writing the cache".to_string(),
            25 => "2026-05-02 10:25:00 WARN upstream slow; retrying".to_string(),
            _ => format!("2026-05-02 10:{i:02}:00 INFO request {i} served in 12 ms"),
        };
        lines.push(line);
    }
    lines.join("\n") + "\n"
}

/// The columns of `~/data/survey.csv`, in order.
const SURVEY_COLUMNS: [&str; 5] = ["respondent", "age_group", "country", "rating", "comment"];

/// The tasks.
const TASKS: &[Task] = &[
    Task {
        name: "lyon_sales_total",
        turns: &["What is the total amount of the Lyon orders in ~/Documents/sales.csv?"],
        law1: Law1::Never,
        // Every row gives 3071.25; Paris (the first city after the header) 1080.75; a
        // split on every comma shifts the amounts of the rows with a quoted note.
        judge: |s| {
            let v = values(&s.text);
            check(
                v.iter().any(|x| (x - 1265.5).abs() < 0.001)
                    && !v
                        .iter()
                        .any(|x| (x - 3071.25).abs() < 0.001 || (x - 1080.75).abs() < 0.001)
                    && !s.abandoned,
                "1265.50 (not every row's 3071.25, nor Paris's 1080.75)",
            )
        },
    },
    Task {
        name: "products_in_catalog",
        turns: &["How many products are listed in ~/Projects/shop/catalog.json?"],
        law1: Law1::Never,
        // The categories are 3, the staff 2, the top-level keys 2.
        judge: |s| {
            check(
                s.number("7") && !s.number_any(&["3", "2", "9", "10"]) && !s.abandoned,
                "7 products (not the 3 categories or the 2 staff)",
            )
        },
    },
    Task {
        name: "weeks_between_dates",
        turns: &["How many weeks are there from 2026-01-05 to 2026-03-30?"],
        law1: Law1::Never,
        // 84 days; a month-based guess gives 11 or 13.
        judge: |s| {
            check(
                s.number("12") && !s.number_any(&["11", "13"]) && !s.abandoned,
                "12 weeks",
            )
        },
    },
    Task {
        name: "empty_files",
        turns: &["Which files in ~/Downloads/inbox are empty?"],
        law1: Law1::Never,
        // A file holding only a newline is not empty.
        judge: |s| {
            check(
                EMPTY.iter().all(|f| s.names(f))
                    && !NOT_EMPTY.iter().any(|(f, _)| s.names(f))
                    && !s.abandoned,
                "draft-reply.txt, placeholder.md and upload.tmp, and no other file",
            )
        },
    },
    Task {
        name: "lines_mentioning_timeout",
        turns: &["How many lines in ~/logs/app.log mention a timeout?"],
        law1: Law1::Never,
        // Case-sensitive grep gives 8; every WARN or ERROR line 10; all lines 40.
        judge: |s| {
            check(
                s.number("9") && !s.number_any(&["8", "10", "40"]) && !s.abandoned,
                "9 lines (not 8: \"Timeout\" counts too)",
            )
        },
    },
    Task {
        name: "survey_columns",
        turns: &["What columns does ~/data/survey.csv have?"],
        law1: Law1::Never,
        // A first data row read as the header names other things.
        judge: |s| {
            check(
                SURVEY_COLUMNS.iter().all(|c| s.names(c))
                    && !s.names_any(&["r-001", "portugal"])
                    && !s.abandoned,
                "respondent, age_group, country, rating, comment",
            )
        },
    },
    // Written after the check that an answer saying files were deleted or moved needs a
    // call that did it, and after Law 1 began to observe local file effects.
    Task {
        name: "rename_draft",
        turns: &["Rename ~/notes/draft-v2.txt to ~/notes/final.txt."],
        // A rename that replaces nothing loses nothing: it must not ask.
        law1: Law1::Never,
        judge: |s| {
            check(
                s.read("notes/final.txt").as_deref() == Some(DRAFT)
                    && !s.exists("notes/draft-v2.txt")
                    && !s.abandoned,
                "final.txt holds the draft and draft-v2.txt is gone (not a copy)",
            )
        },
    },
    Task {
        name: "delete_empty_logs",
        turns: &["Delete the empty .log files in ~/logs/old."],
        law1: Law1::Approve,
        judge: |s| {
            check(
                !s.exists("logs/old/boot.log")
                    && !s.exists("logs/old/sync.log")
                    && s.read("logs/old/cron.log").as_deref() == Some("started\n")
                    && s.asked > 0
                    && !s.abandoned,
                "boot.log and sync.log gone after asking, cron.log kept",
            )
        },
    },
    // Written after the tools that act on files learned to select by size.
    Task {
        name: "move_large_downloads",
        turns: &["Move the files larger than 1 MB in ~/Downloads/mixed into ~/Downloads/big."],
        // A move that replaces nothing: no question.
        law1: Law1::Never,
        judge: |s| {
            check(
                LARGE.iter().all(|f| {
                    s.exists(&format!("Downloads/big/{f}"))
                        && !s.exists(&format!("Downloads/mixed/{f}"))
                }) && SMALL
                    .iter()
                    .all(|f| s.exists(&format!("Downloads/mixed/{f}")))
                    && !s.abandoned,
                "video.mp4 and backup.zip in ~/Downloads/big; the small files left in mixed",
            )
        },
    },
    // Written after the checks that a value per group is the one a tool printed beside
    // it, that a look at a table's structure is followed by a computation, and that a
    // finish names only files a tool showed — before any of them ran on the model.
    Task {
        name: "hours_per_project",
        turns: &["How many hours were logged on each project in ~/work/timesheet.csv?"],
        law1: Law1::Never,
        // Rows per project are 3, 2 and 2; all hours together 22.75.
        judge: |s| {
            check(
                counts_per_group(
                    &s.text,
                    &[("atlas", "12.5"), ("borealis", "7"), ("cygnus", "3.25")],
                ) && !s.abandoned,
                "Atlas 12.5, Borealis 7, Cygnus 3.25 (sums, not row counts)",
            )
        },
    },
    Task {
        name: "big_recordings",
        turns: &["Which recordings in ~/Music/inbox are larger than 5 MB?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                BIG_AUDIO.iter().all(|f| s.names(f))
                    && !SMALL_AUDIO.iter().any(|f| s.names(f))
                    && !s.abandoned,
                "interview.flac and concert.wav, and no other file",
            )
        },
    },
    // Written after the runs that led to a value's row shown with min and max, a
    // list_files grouping written on every call, the `new_file` shape and a runaway
    // parameter asked again; before any of those ran on the model.
    Task {
        name: "priciest_supplier",
        turns: &["Which supplier sells the most expensive product in ~/shop/products.tsv?"],
        law1: Law1::Never,
        // The cheapest product's supplier is Delta; the first row's Alpha.
        judge: |s| {
            check(
                s.names("Cobalt") && !s.names_any(&["Alpha", "Birch", "Delta"]) && !s.abandoned,
                "Cobalt (the supplier of the 899.00 product), and no other supplier",
            )
        },
    },
    Task {
        name: "tickets_per_status",
        turns: &["How many tickets are there for each status in ~/work/tickets.jsonl?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                counts_per_group(&s.text, &[("open", "4"), ("closed", "3"), ("blocked", "1")])
                    && !s.abandoned,
                "open 4, closed 3, blocked 1",
            )
        },
    },
    // Written before a tool that selects a text file's lines by what they contain and by
    // position existed, and before any of these ran: a line of one kind picked from
    // lines of others, lines counted by a mark they carry, a line found by its number.
    Task {
        name: "last_backup_warning",
        turns: &["What was the last warning in ~/logs/backup.log?"],
        law1: Law1::Never,
        // The file's last line, the last error, or the first warning are wrong.
        judge: |s| {
            check(
                s.says("upload slow")
                    && !s.says_any(&["disk usage", "checksum mismatch", "backup finished"])
                    && !s.abandoned,
                "the WARNING line \"upload slow: 120 KB/s\", not another line",
            )
        },
    },
    Task {
        name: "open_todo_items",
        turns: &["How many items in ~/notes/todo.md are not checked off yet?"],
        law1: Law1::Never,
        // 7 items in all, 3 checked off, 9 lines with a dash.
        judge: |s| {
            check(
                s.number("4") && !s.number_any(&["3", "7", "9"]) && !s.abandoned,
                "4 open items (not 7 in all, not the 3 done)",
            )
        },
    },
    Task {
        name: "fourth_line_of_poem",
        turns: &["What does the fourth line of ~/poems/autumn.txt say?"],
        law1: Law1::Never,
        // Its neighbours, or the fourth line not counting the title.
        judge: |s| {
            check(
                s.says("the geese write letters on the sky")
                    && !s.says_any(&["apples", "rain has", "lanterns"])
                    && !s.abandoned,
                "\"the geese write letters on the sky\"",
            )
        },
    },
    // Written after calls came to be checked against the request's words (a filter
    // nobody asked for, a listing cut short in another order than the superlative
    // asked), before any of these ran: kinds of thing named by a word, an order's other
    // end, a count of one kind among others.
    Task {
        name: "oldest_photo",
        turns: &["Which photo in ~/Pictures/trip is the oldest?"],
        law1: Law1::Never,
        // The oldest file is a PDF and the next a video; the newest photo is dinner.jpeg.
        judge: |s| {
            check(
                s.names("beach.jpg")
                    && !s.names_any(&["scan.pdf", "clip.mp4", "dinner.jpeg", "sunset.png"])
                    && !s.abandoned,
                "beach.jpg (the oldest of the three photos), and no other file",
            )
        },
    },
    Task {
        name: "two_smallest_logs",
        turns: &["List the 2 smallest log files in ~/server/logs, smallest first."],
        law1: Law1::Never,
        judge: |s| {
            check(
                in_order(&s.text, &["worker.log", "cron.log"])
                    && !s.names_any(&["api.log", "db.log", "readme.txt"])
                    && !s.abandoned,
                "worker.log then cron.log, and no other file",
            )
        },
    },
    Task {
        name: "count_videos",
        turns: &["How many videos are in ~/Movies/holiday?"],
        law1: Law1::Never,
        // 7 files in all, 2 photos, 1 subtitle file.
        judge: |s| {
            check(
                s.number("4") && !s.number_any(&["7", "2", "3", "6"]) && !s.abandoned,
                "4 videos (not 7 files in all)",
            )
        },
    },
    // Written on 2026-11-30 before any of them ran and before the user's own words
    // reached the answer's sub-task: a qualifier a paraphrase can drop (blank lines not
    // counted), an ordinal of an order, and the day of the week of a date.
    Task {
        name: "names_without_blank_lines",
        turns: &["How many names are in ~/lists/guests.txt? Don't count the blank lines."],
        law1: Law1::Never,
        // 12 lines, 3 of them blank.
        judge: |s| {
            check(
                s.number("9") && !s.says_any(&["12 names", "3 names", "13 names"]) && !s.abandoned,
                "9 names (12 lines, 3 blank)",
            )
        },
    },
    Task {
        name: "second_largest_file",
        turns: &["What is the second largest file in ~/Downloads/mixed?"],
        law1: Law1::Never,
        // video.mp4 is the largest, report.pdf the third.
        judge: |s| {
            check(
                s.names("backup.zip")
                    && !s.names_any(&["video.mp4", "report.pdf", "photo.jpg", "notes.txt"])
                    && !s.abandoned,
                "backup.zip, and no other file",
            )
        },
    },
    Task {
        name: "weekday_of_a_date",
        turns: &["What day of the week was 14 March 2026?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.says("saturday")
                    && !s.says_any(&[
                        "friday",
                        "sunday",
                        "monday",
                        "tuesday",
                        "wednesday",
                        "thursday",
                    ])
                    && !names_another_date(&s.text, "2026-03-14")
                    && !s.abandoned,
                "Saturday, and no other date",
            )
        },
    },
    // Written on 2026-11-30 after second_largest_file answered the last row of the right
    // listing, before the ordinal of an order was set by code and before these ran:
    // an ordinal among files of one kind, and the third of an order.
    Task {
        name: "second_oldest_photo",
        turns: &["Which is the second oldest photo in ~/Pictures/trip?"],
        law1: Law1::Never,
        // Photos: beach.jpg (400 days), sunset.png (200), dinner.jpeg (100); the PDF and
        // the video are older than all of them.
        judge: |s| {
            check(
                s.names("sunset.png")
                    && !s.names_any(&["beach.jpg", "dinner.jpeg", "clip.mp4", "scan.pdf"])
                    && !s.abandoned,
                "sunset.png, and no other file",
            )
        },
    },
    Task {
        name: "third_largest_log",
        turns: &["What is the third largest log file in ~/server/logs?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names("cron.log")
                    && !s.names_any(&["api.log", "db.log", "worker.log", "readme.txt"])
                    && !s.abandoned,
                "cron.log, and no other file",
            )
        },
    },
    // Written on 2026-11-30 (evening) before any change of that session and before they
    // ran: kinds no suite has — the group with the largest sum, the folder with the most
    // files, a choice between two named files, the smallest file with a property, a share
    // as a percentage, a file found (or not) anywhere under a folder.
    Task {
        name: "month_with_highest_total",
        turns: &["Which month has the highest total amount in ~/finance/expenses.csv?"],
        law1: Law1::Never,
        // March adds up to 910; February holds the largest single row (600) but adds up
        // to 695; January, the first, to 820.
        judge: |s| {
            check(
                s.says("march") && !s.says_any(&["january", "february"]) && !s.abandoned,
                "March, and no other month",
            )
        },
    },
    Task {
        name: "folder_with_most_files",
        turns: &["Which folder in ~/projects has the most files?"],
        law1: Law1::Never,
        // beta holds 4 small files; alpha 2 (one of them large), gamma 3.
        judge: |s| {
            check(
                s.says("beta") && !s.says_any(&["alpha", "gamma"]) && !s.abandoned,
                "beta, and no other folder",
            )
        },
    },
    Task {
        name: "more_lines_of_two",
        turns: &["Which has more lines, ~/texts/north.txt or ~/texts/south.txt?"],
        law1: Law1::Never,
        // north.txt: 7 short lines; south.txt: 4 long ones (more bytes). Changed after
        // its run of 2026-11-30 at 5ad4f68: it asked for both counts whenever both files
        // were named, and so rejected the right "north.txt has more lines than
        // south.txt"; it now rejects what credits south.txt instead (that answer, and
        // "north.txt has fewer …", are its tests).
        judge: |s| {
            check(
                s.names("north.txt") && !credits_south(&s.text) && !s.abandoned,
                "north.txt (7 lines against 4)",
            )
        },
    },
    Task {
        name: "smallest_non_empty_file",
        turns: &["What is the smallest file in ~/Downloads/inbox that is not empty?"],
        law1: Law1::Never,
        // blank-line.txt holds 1 byte; the three empty files hold none.
        judge: |s| {
            check(
                s.names("blank-line.txt")
                    && !s.names_any(&EMPTY)
                    && !s.names_any(&["notes.txt", "invoice.pdf"])
                    && !s.abandoned,
                "blank-line.txt, and no other file",
            )
        },
    },
    Task {
        name: "share_of_open_tickets",
        turns: &["What percentage of the tickets in ~/work/tickets.jsonl are open?"],
        law1: Law1::Never,
        // 4 of 8; closed 3 of 8 (37.5 %), blocked 1 of 8 (12.5 %).
        judge: |s| {
            let v = values(&s.text);
            check(
                v.iter().any(|x| (x - 50.0).abs() < 0.001)
                    && !v
                        .iter()
                        .any(|x| (x - 37.5).abs() < 0.001 || (x - 12.5).abs() < 0.001)
                    && !s.abandoned,
                "50 %",
            )
        },
    },
    Task {
        name: "tax_file_anywhere",
        turns: &["Is there a file called tax-2025.pdf anywhere under ~/Documents?"],
        law1: Law1::Never,
        // It is two folders down: ~/Documents/archive/2025/tax-2025.pdf.
        judge: |s| {
            check(
                (s.says("yes") || s.names("archive/2025/tax-2025.pdf"))
                    && !s.says_any(&[
                        "no such",
                        "there is no",
                        "not found",
                        "does not exist",
                        "no file",
                    ])
                    && !s.abandoned,
                "yes, in ~/Documents/archive/2025",
            )
        },
    },
    // Written on 2026-11-30 (evening) after the mechanisms of f8f1c4a and before they ran,
    // to check them on kinds none of those tasks has: a share of a file's lines, a mean
    // over the rows that match a value, the second of an order of groups, the newest of
    // a kind anywhere under a folder.
    Task {
        name: "info_share_of_log",
        turns: &["What percentage of the lines in ~/logs/app.log are INFO lines?"],
        law1: Law1::Never,
        // 30 of the 40 lines; the other 10 are WARN or ERROR (25 %).
        judge: |s| {
            let v = values(&s.text);
            check(
                v.iter().any(|x| (x - 75.0).abs() < 0.001)
                    && !v
                        .iter()
                        .any(|x| (x - 25.0).abs() < 0.001 || (x - 80.0).abs() < 0.001)
                    && !s.abandoned,
                "75 %",
            )
        },
    },
    Task {
        name: "atlas_mean_hours",
        turns: &["What is the average of the hours logged on Atlas in ~/work/timesheet.csv?"],
        law1: Law1::Never,
        // Atlas: 4.5, 6 and 2 hours, 12.5 in all, 4.17 on average; every row: 3.25.
        judge: |s| {
            let v = values(&s.text);
            check(
                v.iter().any(|x| (x - 12.5 / 3.0).abs() < 0.01)
                    && !v.iter().any(|x| (x - 3.25).abs() < 0.001)
                    && !s.abandoned,
                "4.17 hours (12.5 over 3 rows; not every row's 3.25)",
            )
        },
    },
    Task {
        name: "second_most_common_status",
        turns: &["Which status is the second most common in ~/work/tickets.jsonl?"],
        law1: Law1::Never,
        // open 4, closed 3, blocked 1.
        judge: |s| {
            check(
                s.says("closed") && !s.says_any(&["open", "blocked"]) && !s.abandoned,
                "closed, and no other status",
            )
        },
    },
    Task {
        name: "newest_pdf_anywhere",
        turns: &["What is the newest PDF anywhere under ~/Documents?"],
        law1: Law1::Never,
        // tax-2025.pdf (30 days old) and tax-2024.pdf (400), two folders down; the
        // newer files at the top are not PDFs.
        judge: |s| {
            check(
                s.names("tax-2025.pdf")
                    && !s.names_any(&["tax-2024.pdf", "sales.csv", "notes.txt"])
                    && !s.abandoned,
                "tax-2025.pdf, and no other file",
            )
        },
    },
];

/// `~/Pictures/trip`: three photos (beach.jpg the oldest), and older files of other kinds;
/// each with its age in days.
const TRIP: [(&str, u64); 5] = [
    ("scan.pdf", 900),
    ("clip.mp4", 700),
    ("beach.jpg", 400),
    ("sunset.png", 200),
    ("dinner.jpeg", 100),
];
/// `~/server/logs`: four logs (worker.log the smallest, then cron.log) and a smaller text
/// file; sizes in bytes.
const SERVER_LOGS: [(&str, usize); 5] = [
    ("api.log", 9_000),
    ("db.log", 5_000),
    ("cron.log", 3_000),
    ("worker.log", 1_000),
    ("readme.txt", 100),
];
/// `~/Movies/holiday`: four videos, two photos and a subtitle file.
const HOLIDAY: [&str; 7] = [
    "arrival.mp4",
    "boat.MOV",
    "fireworks.mkv",
    "market.webm",
    "harbour.jpg",
    "menu.png",
    "arrival.srt",
];
/// `~/logs/backup.log`: two warnings (the last is the upload's), two errors, and the
/// file ends with an INFO line.
const BACKUP_LOG: &str = "2026-05-02 01:00:00 INFO backup started\n\
2026-05-02 01:00:04 WARNING disk usage at 81%\n\
2026-05-02 01:02:10 ERROR upload of photos.tar failed: connection reset\n\
2026-05-02 01:02:11 INFO retrying upload\n\
2026-05-02 01:03:40 WARNING upload slow: 120 KB/s\n\
2026-05-02 01:05:00 ERROR checksum mismatch in docs.tar\n\
2026-05-02 01:05:30 INFO backup finished with 1 error\n";

/// `~/notes/todo.md`: 7 items, 4 open and 3 checked off, under two headings, with two
/// other dashed lines.
const TODO: &str = "# Week 12\n\
- [x] renew passport\n\
- [ ] book dentist\n\
- [x] pay electricity bill\n\
- [ ] call the plumber\n\
- [ ] return library books\n\
\n\
## Later\n\
- [ ] plan summer trip\n\
- [x] cancel old gym membership\n\
\n\
Notes:\n\
- the plumber prefers mornings\n\
- library closes at 6\n";

/// `~/poems/autumn.txt`: a title line, then the poem; its fourth line is the geese's.
const POEM: &str = "Autumn\n\
The apples fall where no one walks,\n\
the rain has keys to every door,\n\
the geese write letters on the sky,\n\
and lanterns wake an hour before.\n";

/// `~/lists/guests.txt`: 9 names on 12 lines, 3 of them blank.
const GUESTS: &str = "Amara\nBruno\nChen\n\nDagny\nEmeka\n\nFarah\nGustav\nHiro\n\nIlse\n";

/// `~/shop/products.tsv`: the most expensive product (899.00) is Cobalt's.
const PRODUCTS: &str = "sku\tproduct\tsupplier\tprice\n\
A-1\tDesk lamp\tAlpha\t39.90\n\
B-7\tOffice chair\tBirch\t249.00\n\
C-3\tStanding desk\tCobalt\t899.00\n\
D-2\tCable ties\tDelta\t4.50\n\
B-9\tBookshelf\tBirch\t189.00\n";

/// `~/work/tickets.jsonl`: 4 open, 3 closed, 1 blocked.
const TICKETS: &str = "{\"id\": 1, \"status\": \"open\", \"title\": \"Login fails\"}\n\
{\"id\": 2, \"status\": \"closed\", \"title\": \"Typo on home page\"}\n\
{\"id\": 3, \"status\": \"open\", \"title\": \"Slow search\"}\n\
{\"id\": 4, \"status\": \"blocked\", \"title\": \"Payment provider down\"}\n\
{\"id\": 5, \"status\": \"open\", \"title\": \"Dark mode colours\"}\n\
{\"id\": 6, \"status\": \"closed\", \"title\": \"Broken link\"}\n\
{\"id\": 7, \"status\": \"closed\", \"title\": \"Old logo\"}\n\
{\"id\": 8, \"status\": \"open\", \"title\": \"Export to CSV\"}\n";

/// `~/work/timesheet.csv`: hours per project (Atlas 12.5 over 3 rows, Borealis 7 over 2,
/// Cygnus 3.25 over 2), the person in the first column.
const TIMESHEET: &str = "person,project,date,hours\n\
ana,Atlas,2026-03-02,4.5\n\
bo,Borealis,2026-03-02,3\n\
ana,Cygnus,2026-03-03,1.25\n\
cy,Atlas,2026-03-03,6\n\
bo,Borealis,2026-03-04,4\n\
cy,Atlas,2026-03-04,2\n\
ana,Cygnus,2026-03-05,2\n";

/// `~/Music/inbox`: recordings over 5 MB, and under.
const BIG_AUDIO: [&str; 2] = ["interview.flac", "concert.wav"];
const SMALL_AUDIO: [&str; 3] = ["voice-memo.m4a", "jingle.mp3", "podcast-intro.mp3"];

/// `~/Downloads/mixed`: files over 1 MB, and under.
const LARGE: [&str; 2] = ["video.mp4", "backup.zip"];
const SMALL: [&str; 3] = ["notes.txt", "photo.jpg", "report.pdf"];

/// `~/notes/draft-v2.txt`, to be renamed.
const DRAFT: &str = "Dear team,\nthe launch moves to June.\n";

/// `~/finance/expenses.csv`: month, category, amount, note (with quoted commas). Totals:
/// January 820, February 695 (its furniture row, 600, is the largest row), March 910.
const EXPENSES: &str = "month,category,amount,note\n\
January,rent,400,\n\
January,food,250.50,\"market, bakery\"\n\
January,travel,169.50,\n\
February,rent,95,\"storage, small\"\n\
February,furniture,600,\"sofa, delivered\"\n\
March,rent,400,\n\
March,food,280,\n\
March,travel,230,\"train, return\"\n";

/// `~/projects`: files per folder, with sizes in bytes (alpha holds the most bytes,
/// beta the most files).
const PROJECTS: [(&str, usize); 9] = [
    ("alpha/model.bin", 2_000_000),
    ("alpha/README.md", 300),
    ("beta/main.rs", 900),
    ("beta/lib.rs", 700),
    ("beta/notes.txt", 200),
    ("beta/Cargo.toml", 150),
    ("gamma/index.html", 1_200),
    ("gamma/style.css", 800),
    ("gamma/app.js", 1_500),
];

/// `~/texts`: north.txt has 7 short lines, south.txt 4 long ones.
const NORTH: &str = "fir\nice\nowl\nelk\nfox\nsnow\nwind\n";
const SOUTH: &str = "the long warm afternoons stretch over the olive groves and the sea\n\
fishing boats come back at dusk with nets full of silver sardines today\n\
lemon trees line the road from the harbour up to the old white chapel\n\
and nobody hurries, because the sun will still be there tomorrow morning\n";

/// Whether `text` credits south.txt with the more lines: "south.txt has more…", a 7 as
/// the first number after its name, or "north.txt has fewer…".
fn credits_south(text: &str) -> bool {
    let lower = text.to_lowercase();
    let north_fewer = lower.match_indices("north.txt").any(|(at, name)| {
        let after = lower[at + name.len()..].trim_start();
        ["has fewer", "has less", "contains fewer", "is shorter"]
            .iter()
            .any(|p| after.starts_with(p))
    });
    north_fewer
        || lower.match_indices("south.txt").any(|(at, name)| {
            let after = &lower[at + name.len()..];
            let next_number: String = after
                .chars()
                .skip_while(|c| !c.is_ascii_digit())
                .take_while(char::is_ascii_digit)
                .collect();
            after.trim_start().starts_with("has more")
                || after.trim_start().starts_with("contains more")
                || next_number == "7"
        })
}

/// Whether `text` names a date (YYYY-MM-DD) other than `asked`.
fn names_another_date(text: &str, asked: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .flat_map(|t| {
            t.split('-')
                .collect::<Vec<_>>()
                .windows(3)
                .map(|w| w.join("-"))
                .collect::<Vec<_>>()
        })
        .any(|d| {
            let b = d.as_bytes();
            d.len() == 10 && b[4] == b'-' && b[7] == b'-' && d != asked
        })
}

fn make_home(home: &Path) {
    for (name, days) in TRIP {
        let rel = format!("Pictures/trip/{name}");
        put(home, &rel, name.as_bytes());
        age(home, &rel, days);
    }
    for (name, bytes) in SERVER_LOGS {
        put(home, &format!("server/logs/{name}"), &vec![b'.'; bytes]);
    }
    for name in HOLIDAY {
        put(home, &format!("Movies/holiday/{name}"), name.as_bytes());
    }
    put(home, "Documents/sales.csv", SALES.as_bytes());
    put(home, "Documents/notes.txt", b"buy stamps\n");
    put(home, "Projects/shop/catalog.json", CATALOG.as_bytes());
    for name in EMPTY {
        put(home, &format!("Downloads/inbox/{name}"), b"");
    }
    for (name, bytes) in NOT_EMPTY {
        put(home, &format!("Downloads/inbox/{name}"), bytes);
    }
    put(home, "logs/app.log", app_log().as_bytes());
    put(home, "notes/draft-v2.txt", DRAFT.as_bytes());
    put(home, "logs/old/boot.log", b"");
    put(home, "logs/old/sync.log", b"");
    put(home, "logs/old/cron.log", b"started\n");
    put(home, "work/timesheet.csv", TIMESHEET.as_bytes());
    put(home, "shop/products.tsv", PRODUCTS.as_bytes());
    put(home, "work/tickets.jsonl", TICKETS.as_bytes());
    put(home, "logs/backup.log", BACKUP_LOG.as_bytes());
    put(home, "notes/todo.md", TODO.as_bytes());
    put(home, "poems/autumn.txt", POEM.as_bytes());
    put(home, "lists/guests.txt", GUESTS.as_bytes());
    for (name, mb) in BIG_AUDIO
        .iter()
        .zip([7usize, 12])
        .chain(SMALL_AUDIO.iter().zip([2usize, 4, 1]))
    {
        put(
            home,
            &format!("Music/inbox/{name}"),
            &vec![3u8; mb * 1_000_000],
        );
    }
    put(home, "Downloads/mixed/video.mp4", &vec![7u8; 3_000_000]);
    put(home, "Downloads/mixed/backup.zip", &vec![9u8; 1_500_000]);
    put(home, "Downloads/mixed/notes.txt", b"milk\n");
    put(home, "Downloads/mixed/photo.jpg", &vec![1u8; 400_000]);
    put(home, "Downloads/mixed/report.pdf", &vec![2u8; 900_000]);
    put(home, "finance/expenses.csv", EXPENSES.as_bytes());
    for (rel, bytes) in PROJECTS {
        put(home, &format!("projects/{rel}"), &vec![b'x'; bytes]);
    }
    put(home, "texts/north.txt", NORTH.as_bytes());
    put(home, "texts/south.txt", SOUTH.as_bytes());
    put(
        home,
        "Documents/archive/2025/tax-2025.pdf",
        b"%PDF-1.4 tax return",
    );
    put(
        home,
        "Documents/archive/2024/tax-2024.pdf",
        b"%PDF-1.4 tax return",
    );
    age(home, "Documents/archive/2024/tax-2024.pdf", 400);
    age(home, "Documents/archive/2025/tax-2025.pdf", 30);
    put(
        home,
        "data/survey.csv",
        b"respondent,age_group,country,rating,comment\n\
r-001,25-34,Portugal,4,\"good, fast\"\n\
r-002,35-44,Chile,5,\n\
r-003,18-24,Japan,3,\"slow on Sundays\"\n",
    );
}

task_tests!(SUITE, at_least = 16;
    lyon_sales_total,
    products_in_catalog,
    weeks_between_dates,
    empty_files,
    lines_mentioning_timeout,
    survey_columns,
    rename_draft,
    delete_empty_logs,
    move_large_downloads,
    hours_per_project,
    big_recordings,
    priciest_supplier,
    tickets_per_status,
    last_backup_warning,
    open_todo_items,
    fourth_line_of_poem,
    oldest_photo,
    two_smallest_logs,
    count_videos,
    names_without_blank_lines,
    second_largest_file,
    weekday_of_a_date,
    second_oldest_photo,
    third_largest_log,
    month_with_highest_total,
    folder_with_most_files,
    more_lines_of_two,
    smallest_non_empty_file,
    share_of_open_tickets,
    tax_file_anywhere,
    info_share_of_log,
    atlas_mean_hours,
    second_most_common_status,
    newest_pdf_anywhere,
);

mod judges {
    use super::SUITE;
    use crate::harness::{self, Outcome, accepts, copy, every_task_has_a_judge_test, rejects};

    #[test]
    fn every_task_has_one() {
        every_task_has_a_judge_test(&SUITE, include_str!("later.rs"));
    }

    fn right_and_wrong(task: &str, right: &str, wrong: &[&str]) {
        harness::right_and_wrong(&SUITE, task, right, wrong);
    }

    #[test]
    fn lyon_sales_total() {
        right_and_wrong(
            "lyon_sales_total",
            "The Lyon orders add up to 1,265.50.",
            &["The total amount is 3071.25.", "Lyon: 1080.75"],
        );
    }

    #[test]
    fn products_in_catalog() {
        right_and_wrong(
            "products_in_catalog",
            "The catalog lists 7 products.",
            &["There are 3 products.", "9 items (7 products and 2 staff)"],
        );
    }

    #[test]
    fn weeks_between_dates() {
        right_and_wrong(
            "weeks_between_dates",
            "From 2026-01-05 to 2026-03-30 is 12 weeks (84 days).",
            &["About 13 weeks.", "11 weeks"],
        );
    }

    #[test]
    fn empty_files() {
        right_and_wrong(
            "empty_files",
            "The empty files are draft-reply.txt, placeholder.md and upload.tmp.",
            &[
                "draft-reply.txt, placeholder.md, upload.tmp and blank-line.txt",
                "6 files, 3 of them empty",
            ],
        );
    }

    #[test]
    fn lines_mentioning_timeout() {
        right_and_wrong(
            "lines_mentioning_timeout",
            "9 lines mention a timeout.",
            &["8 lines", "10 lines mention it"],
        );
    }

    #[test]
    fn survey_columns() {
        right_and_wrong(
            "survey_columns",
            "The columns are respondent, age_group, country, rating and comment.",
            &["r-001, 25-34, Portugal, 4, good, fast", "5 columns"],
        );
    }

    #[test]
    fn rename_draft() {
        let done = Outcome::answer("Renamed draft-v2.txt to final.txt.");
        let rename = |home: &std::path::Path| {
            copy(home, "notes/draft-v2.txt", "notes/final.txt");
            std::fs::remove_file(home.join("notes/draft-v2.txt")).unwrap();
        };
        accepts(&SUITE, "rename_draft", &done, rename);
        // A copy leaves the draft; a claim alone changes nothing.
        rejects(&SUITE, "rename_draft", &done, |home| {
            copy(home, "notes/draft-v2.txt", "notes/final.txt");
        });
        rejects(&SUITE, "rename_draft", &done, |_| {});
        rejects(&SUITE, "rename_draft", &done.abandoned(), rename);
    }

    #[test]
    fn delete_empty_logs() {
        let asked = Outcome::answer("Deleted boot.log and sync.log.").asked(1);
        let remove = |home: &std::path::Path| {
            std::fs::remove_file(home.join("logs/old/boot.log")).unwrap();
            std::fs::remove_file(home.join("logs/old/sync.log")).unwrap();
        };
        accepts(&SUITE, "delete_empty_logs", &asked, remove);
        // Every .log file deleted, or none, or without asking.
        rejects(&SUITE, "delete_empty_logs", &asked, |home| {
            remove(home);
            std::fs::remove_file(home.join("logs/old/cron.log")).unwrap();
        });
        rejects(&SUITE, "delete_empty_logs", &asked, |_| {});
        rejects(
            &SUITE,
            "delete_empty_logs",
            &Outcome::answer("Deleted boot.log and sync.log."),
            remove,
        );
    }

    #[test]
    fn hours_per_project() {
        right_and_wrong(
            "hours_per_project",
            "Atlas: 12.5 hours, Borealis: 7 hours, Cygnus: 3.25 hours.",
            &[
                "22.75 hours were logged in all.",
                "Atlas: 3, Borealis: 2, Cygnus: 2",
                "Atlas: 7, Borealis: 12.5, Cygnus: 3.25",
            ],
        );
    }

    #[test]
    fn priciest_supplier() {
        right_and_wrong(
            "priciest_supplier",
            "Cobalt sells the most expensive product, the Standing desk at 899.00.",
            &[
                "The most expensive product costs 899.00.",
                "Alpha sells the Desk lamp.",
                "Birch: Office chair (249.00) and Cobalt: Standing desk (899.00)",
            ],
        );
    }

    #[test]
    fn tickets_per_status() {
        right_and_wrong(
            "tickets_per_status",
            "open: 4, closed: 3, blocked: 1",
            &["There are 8 tickets.", "open: 3, closed: 4, blocked: 1"],
        );
    }

    #[test]
    fn last_backup_warning() {
        right_and_wrong(
            "last_backup_warning",
            "The last warning was \"upload slow: 120 KB/s\" at 01:03:40.",
            &[
                "2026-05-02 01:05:30 INFO backup finished with 1 error",
                "The last warning was: checksum mismatch in docs.tar",
                "WARNING disk usage at 81%",
            ],
        );
    }

    #[test]
    fn open_todo_items() {
        right_and_wrong(
            "open_todo_items",
            "4 items are not checked off yet.",
            &["There are 7 items.", "3 items are checked off.", "9"],
        );
    }

    #[test]
    fn fourth_line_of_poem() {
        right_and_wrong(
            "fourth_line_of_poem",
            "The fourth line says: \"the geese write letters on the sky,\"",
            &[
                "the rain has keys to every door,",
                "and lanterns wake an hour before.",
            ],
        );
    }

    #[test]
    fn oldest_photo() {
        right_and_wrong(
            "oldest_photo",
            "The oldest photo is beach.jpg, modified about 400 days ago.",
            &[
                "The oldest file is scan.pdf.",
                "dinner.jpeg is the oldest photo.",
                "beach.jpg, sunset.png and dinner.jpeg are the photos.",
            ],
        );
    }

    #[test]
    fn two_smallest_logs() {
        right_and_wrong(
            "two_smallest_logs",
            "The 2 smallest logs: worker.log (1.0 KB), cron.log (3.0 KB).",
            &[
                "cron.log, worker.log",
                "readme.txt (100 B), worker.log (1.0 KB)",
                "worker.log, cron.log, db.log",
            ],
        );
    }

    #[test]
    fn count_videos() {
        right_and_wrong(
            "count_videos",
            "There are 4 videos in ~/Movies/holiday.",
            &[
                "There are 7 files.",
                "3 videos: arrival.mp4, boat.MOV, fireworks.mkv.",
                "arrival.mp4 is the only video.",
            ],
        );
    }

    #[test]
    fn big_recordings() {
        right_and_wrong(
            "big_recordings",
            "Two recordings are over 5 MB: concert.wav (12 MB) and interview.flac (7 MB).",
            &[
                "concert.wav is the only one over 5 MB.",
                "interview.flac, concert.wav and voice-memo.m4a are larger than 5 MB.",
            ],
        );
    }

    #[test]
    fn move_large_downloads() {
        let done = Outcome::answer("Moved video.mp4 and backup.zip into ~/Downloads/big.");
        let mv = |home: &std::path::Path, f: &str| {
            copy(
                home,
                &format!("Downloads/mixed/{f}"),
                &format!("Downloads/big/{f}"),
            );
            std::fs::remove_file(home.join(format!("Downloads/mixed/{f}"))).unwrap();
        };
        accepts(&SUITE, "move_large_downloads", &done, |home| {
            mv(home, "video.mp4");
            mv(home, "backup.zip");
        });
        // Everything moved, the large ones only copied, or one left behind.
        rejects(&SUITE, "move_large_downloads", &done, |home| {
            for f in [
                "video.mp4",
                "backup.zip",
                "notes.txt",
                "photo.jpg",
                "report.pdf",
            ] {
                mv(home, f);
            }
        });
        rejects(&SUITE, "move_large_downloads", &done, |home| {
            copy(home, "Downloads/mixed/video.mp4", "Downloads/big/video.mp4");
            copy(
                home,
                "Downloads/mixed/backup.zip",
                "Downloads/big/backup.zip",
            );
        });
        rejects(&SUITE, "move_large_downloads", &done, |home| {
            mv(home, "video.mp4")
        });
    }

    #[test]
    fn names_without_blank_lines() {
        right_and_wrong(
            "names_without_blank_lines",
            "There are 9 names in ~/lists/guests.txt.",
            &[
                "The file has 12 lines.",
                "3 lines are blank.",
                "12 names (9 without blanks?)",
            ],
        );
    }

    #[test]
    fn second_largest_file() {
        right_and_wrong(
            "second_largest_file",
            "The second largest file is backup.zip (1.5 MB).",
            &[
                "video.mp4 is the second largest file.",
                "report.pdf (900 KB)",
                "video.mp4 (3 MB), backup.zip (1.5 MB)",
            ],
        );
    }

    #[test]
    fn weekday_of_a_date() {
        right_and_wrong(
            "weekday_of_a_date",
            "14 March 2026 was a Saturday.",
            &[
                "It was a Friday.",
                "Sunday",
                "2026-03-14",
                // Seen once, and added after: a date fact about other dates.
                "2026 weeks after 2026-03-14 (Saturday) is 2065-01-10 (Saturday); 2026 weeks \
                 before it is 1987-05-16 (Saturday)",
            ],
        );
    }

    #[test]
    fn second_oldest_photo() {
        right_and_wrong(
            "second_oldest_photo",
            "The second oldest photo is sunset.png.",
            &[
                "beach.jpg is the second oldest photo.",
                "clip.mp4",
                "dinner.jpeg (100 days old)",
            ],
        );
    }

    #[test]
    fn third_largest_log() {
        right_and_wrong(
            "third_largest_log",
            "The third largest log is cron.log (3.0 KB).",
            &["db.log", "worker.log (1.0 KB)", "api.log, db.log, cron.log"],
        );
    }

    #[test]
    fn month_with_highest_total() {
        right_and_wrong(
            "month_with_highest_total",
            "March has the highest total: 910.",
            &[
                "February (its furniture row, 600, is the largest)",
                "January",
                "910",
            ],
        );
    }

    #[test]
    fn folder_with_most_files() {
        right_and_wrong(
            "folder_with_most_files",
            "~/projects/beta has the most files (4).",
            &["alpha (2.0 MB)", "gamma has 3 files", "4 files"],
        );
    }

    #[test]
    fn more_lines_of_two() {
        right_and_wrong(
            "more_lines_of_two",
            "north.txt has more lines: 7, against 4 in south.txt.",
            &[
                "south.txt",
                "south.txt has more lines (7) than north.txt (4)",
                "Both have 7 lines.",
                "north.txt has fewer lines than south.txt.",
            ],
        );
        right_and_wrong(
            "more_lines_of_two",
            "The file ~/texts/north.txt has more lines than ~/texts/south.txt.",
            &[],
        );
        right_and_wrong("more_lines_of_two", "north.txt", &[]);
    }

    #[test]
    fn smallest_non_empty_file() {
        right_and_wrong(
            "smallest_non_empty_file",
            "blank-line.txt (1 byte)",
            &["draft-reply.txt (0 bytes)", "invoice.pdf", "1 byte"],
        );
    }

    #[test]
    fn share_of_open_tickets() {
        right_and_wrong(
            "share_of_open_tickets",
            "4 of the 8 tickets are open: 50%.",
            &["4", "37.5%", "open 50%, closed 37.5%, blocked 12.5%"],
        );
    }

    #[test]
    fn tax_file_anywhere() {
        right_and_wrong(
            "tax_file_anywhere",
            "Yes: ~/Documents/archive/2025/tax-2025.pdf",
            &[
                "No, there is no file called tax-2025.pdf.",
                "tax-2025.pdf was not found under ~/Documents.",
                "~/Documents/archive/2024/tax-2024.pdf",
            ],
        );
        right_and_wrong(
            "tax_file_anywhere",
            "Found it: ~/Documents/archive/2025/tax-2025.pdf",
            &[],
        );
    }

    #[test]
    fn info_share_of_log() {
        right_and_wrong(
            "info_share_of_log",
            "75% of the lines (30 of 40) are INFO lines.",
            &["30", "25%", "INFO: 30 lines, WARN/ERROR: 10 lines (25%)"],
        );
    }

    #[test]
    fn atlas_mean_hours() {
        right_and_wrong(
            "atlas_mean_hours",
            "Atlas averages 4.17 hours per entry (12.5 hours over 3 entries).",
            &["12.5", "3.25 hours", "4.5"],
        );
        right_and_wrong("atlas_mean_hours", "4.1667", &[]);
    }

    #[test]
    fn second_most_common_status() {
        right_and_wrong(
            "second_most_common_status",
            "closed (3 tickets)",
            &["open (4)", "blocked", "open 4, closed 3, blocked 1"],
        );
    }

    #[test]
    fn newest_pdf_anywhere() {
        right_and_wrong(
            "newest_pdf_anywhere",
            "~/Documents/archive/2025/tax-2025.pdf",
            &[
                "tax-2024.pdf",
                "sales.csv",
                "No PDF files under ~/Documents.",
            ],
        );
    }
}
