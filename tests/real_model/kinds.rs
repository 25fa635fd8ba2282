//! A second real-model suite: everyday task kinds the everyday suite does not have —
//! tables (CSV with quoted commas, TSV, JSON, JSON Lines), dates, logs, folder trees and
//! awkward file names — each in a fresh temp home through the whole runtime, judged by
//! the exact answer and the exact end state. The data is made so that a guess or a
//! careless reading gives another answer (a header counted, the wrong column, a quoted
//! comma split, a substring match), and every judge rejects those answers. Nothing here
//! is irreversible: every task is read-only or only creates files (`Law1::Never`).
//!
//! `scripts/real-model-suite --suite kinds` runs it; the run, the rules every task must
//! hold and the matchers are in [`super::harness`].

use std::path::Path;

use super::harness::{
    Law1, NEGATIVE, NONE_FOUND, Seen, Suite, Task, age, check, counts_per_group, has_date,
    in_order, put, said_of, task_tests, values,
};

/// The suite: its report lines start `kinds:`.
const SUITE: Suite = Suite {
    name: "kinds",
    tasks: TASKS,
    make_home,
};

/// The messages of the ERROR lines of `~/logs/server.log`, by line index; the last one is
/// the answer of `last_error_in_log`.
const SERVER_ERRORS: [(usize, &str); 6] = [
    (12, "disk quota exceeded on /var/data"),
    (33, "could not parse config line 14"),
    (51, "database connection refused"),
    (70, "certificate for api.example.org expired"),
    (88, "worker 3 crashed with signal 11"),
    (104, "payment gateway timed out"),
];

/// The PDFs of `~/Downloads/mixed`.
const MIXED_PDFS: [&str; 7] = [
    "bank-statement.pdf",
    "boarding-pass.pdf",
    "lease-scan.pdf",
    "manual-printer.pdf",
    "recipe-book.pdf",
    "tax-2024.pdf",
    "ticket.pdf",
];

/// The other files of `~/Downloads/mixed`: five .jpg, three .zip (one named like a PDF),
/// two .docx.
const MIXED_OTHERS: [&str; 10] = [
    "beach.jpg",
    "cat.jpg",
    "dinner.jpg",
    "receipt.jpg",
    "sunset.jpg",
    "fonts.zip",
    "manual.pdf.zip",
    "photos-2023.zip",
    "cover-letter.docx",
    "cv.docx",
];

/// `~/Documents/invoices`: name, size in bytes, age in days. By name, by size and by age
/// they come in three different orders.
const INVOICES: [(&str, usize, u64); 6] = [
    ("acme-march.pdf", 48_210, 2),
    ("bolt-april.pdf", 3_950, 30),
    ("city-power.pdf", 112_400, 9),
    ("dental-visit.pdf", 9_875, 60),
    ("energy-q1.pdf", 27_300, 4),
    ("fiber-net.pdf", 640, 15),
];

/// `~/Pictures/holiday`: sizes of IMG_0401.jpg onwards; six are over 200 KB (by 1000 or
/// 1024), none is near it.
const HOLIDAY: [usize; 14] = [
    88_000, 455_000, 20_480, 640_000, 150_500, 260_000, 45_000, 99_999, 880_800, 120_000, 310_500,
    61_200, 520_250, 180_000,
];

/// The answer is `item`, and none of `not` (the runner-up, the winner of another column, a
/// careless reading) is named.
fn item(s: &Seen<'_>, item: &str, not: &[&str], why: &str) -> Result<(), String> {
    check(s.names(item) && !s.names_any(not) && !s.abandoned, why)
}

/// The answer holds the number `n` and none of `not`.
fn number(s: &Seen<'_>, n: &str, not: &[&str], why: &str) -> Result<(), String> {
    check(s.number(n) && !s.number_any(not) && !s.abandoned, why)
}

/// The kinds.
const TASKS: &[Task] = &[
    Task {
        name: "heaviest_item_quoted_csv",
        turns: &["Which item in ~/Documents/inventory.csv is the heaviest?"],
        law1: Law1::Never,
        // Price (column 2) and a split on every comma both give the laptop; the sofa is
        // second by weight.
        judge: |s| {
            item(
                s,
                "anvil",
                &["laptop", "sofa"],
                "the Anvil, not the laptop or the sofa",
            )
        },
    },
    Task {
        name: "average_score",
        turns: &["What's the average score in ~/Documents/class-scores.csv?"],
        law1: Law1::Never,
        // 1256 over 16 students; the header counted as a row gives 73.88.
        judge: |s| {
            check(
                s.number("78.5")
                    && !values(&s.text).iter().any(|v| (73.8..=74.0).contains(v))
                    && !s.abandoned,
                "78.5 (not 73.88, the header counted as a row)",
            )
        },
    },
    Task {
        name: "orders_per_region",
        turns: &["How many orders are there for each region in ~/Documents/orders.csv?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                counts_per_group(
                    &s.text,
                    &[
                        ("north", "14"),
                        ("south", "9"),
                        ("east", "11"),
                        ("west", "6"),
                    ],
                ) && !s.abandoned,
                "North 14, South 9, East 11, West 6",
            )
        },
    },
    Task {
        name: "distinct_customers",
        turns: &["How many different customers are in ~/Documents/orders.csv?"],
        law1: Law1::Never,
        judge: |s| {
            number(
                s,
                "13",
                &["12", "14"],
                "13 customers (not 14, the header counted as one)",
            )
        },
    },
    Task {
        name: "tsv_units_total",
        turns: &["Add up the units column of ~/data/sales.tsv for me."],
        law1: Law1::Never,
        judge: |s| {
            number(
                s,
                "1343",
                &["6024.75", "1342", "1344"],
                "1343 units (not the revenue 6024.75)",
            )
        },
    },
    Task {
        name: "coldest_city",
        turns: &["Which city in ~/data/cities.csv has the lowest January temperature?"],
        law1: Law1::Never,
        // Moscow is second; a text sort of the column gives Stockholm; Tallinn has the
        // smallest population.
        judge: |s| {
            item(
                s,
                "riga",
                &["moscow", "stockholm", "tallinn"],
                "Riga, not Moscow, Stockholm or Tallinn",
            )
        },
    },
    Task {
        name: "json_database_port",
        turns: &["What port does the database use in ~/Projects/webapp/config.json?"],
        law1: Law1::Never,
        judge: |s| {
            number(
                s,
                "5433",
                &["8080", "6380", "5432", "9102"],
                "5433 (not the server's, the cache's or the usual 5432)",
            )
        },
    },
    Task {
        name: "jsonl_error_count",
        turns: &["How many records in ~/logs/events.jsonl have the level error?"],
        law1: Law1::Never,
        // 32 lines hold the word error somewhere (in a message, in a service's name).
        judge: |s| {
            number(
                s,
                "18",
                &["32", "17", "19"],
                "18 (not 32, every line with the word error)",
            )
        },
    },
    Task {
        name: "date_90_days_after",
        turns: &["What date is it 90 days after 2025-11-17?"],
        law1: Law1::Never,
        // Off by one or more days, or three calendar months on (2026-02-17): wrong.
        judge: |s| {
            check(
                has_date(&s.text, "2026-02-15")
                    && !["2026-02-13", "2026-02-14", "2026-02-16", "2026-02-17"]
                        .iter()
                        .any(|d| has_date(&s.text, d))
                    && !s.abandoned,
                "2026-02-15, and not a day either side",
            )
        },
    },
    Task {
        name: "days_between_dates",
        turns: &["How many days are there from 2025-03-09 to 2025-10-02?"],
        law1: Law1::Never,
        judge: |s| number(s, "207", &["206", "208"], "207 days"),
    },
    Task {
        name: "last_error_in_log",
        turns: &["What was the last error in ~/logs/server.log?"],
        law1: Law1::Never,
        // Warnings and an INFO line with the word "error" come after it.
        judge: |s| {
            let others = SERVER_ERRORS[..SERVER_ERRORS.len() - 1]
                .iter()
                .map(|(_, m)| *m)
                .chain(["error budget report", "disk usage at 91 percent"]);
            check(
                s.says("payment gateway timed out")
                    && !others.into_iter().any(|m| s.says(m))
                    && !s.abandoned,
                "payment gateway timed out, and no earlier error or later line",
            )
        },
    },
    Task {
        name: "first_line_of_newest_report",
        turns: &["What does the first line of the newest file in ~/Documents/reports say?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.says("minutes of the garden committee meeting")
                    && !s.says_any(&[
                        "ana, ben and chloe",
                        "bakery website",
                        "lisbon",
                        "autumn",
                        "attic",
                    ])
                    && !s.abandoned,
                "minutes.txt's first line, not its second or another file's",
            )
        },
    },
    Task {
        name: "files_per_extension",
        turns: &["How many files of each type are in ~/Downloads/mixed?"],
        law1: Law1::Never,
        // manual.pdf.zip is a zip: a search for "pdf" counts 8.
        judge: |s| {
            check(
                counts_per_group(
                    &s.text,
                    &[("pdf", "7"), ("jpg", "5"), ("zip", "3"), ("docx", "2")],
                ) && !s.abandoned,
                "pdf 7, jpg 5, zip 3, docx 2",
            )
        },
    },
    Task {
        name: "largest_file_in_tree",
        turns: &["What's the largest file anywhere under ~/Projects, subfolders included?"],
        law1: Law1::Never,
        judge: |s| {
            item(
                s,
                "intro.webm",
                &["hero.png", "backup.zip"],
                "intro.webm (not hero.png, second, or backup.zip, the largest at the top)",
            )
        },
    },
    Task {
        name: "lines_in_accented_name",
        turns: &["How many lines does ~/Documents/Café notes/résumé draft.txt have?"],
        law1: Law1::Never,
        // "resume draft.txt" next to it, without the accents, has 12.
        judge: |s| {
            number(
                s,
                "37",
                &["36", "38"],
                "37 lines (not 12, the file without accents)",
            )
        },
    },
    Task {
        name: "copy_three_one_missing",
        turns: &[
            "Copy lease.pdf, insurance.pdf and warranty.pdf from ~/Documents/contracts into a new folder ~/Documents/to-print.",
        ],
        law1: Law1::Never,
        // There is no warranty.pdf, only warranty_2019.pdf.
        judge: |s| {
            let same = |name: &str| {
                let copy = s.bytes(&format!("Documents/to-print/{name}"));
                copy.is_some() && copy == s.bytes(&format!("Documents/contracts/{name}"))
            };
            check(
                s.entries("Documents/to-print") == ["insurance.pdf", "lease.pdf"]
                    && same("lease.pdf")
                    && same("insurance.pdf")
                    && said_of(&s.text, "warranty.pdf", NEGATIVE),
                "exactly lease.pdf and insurance.pdf copied, and warranty.pdf said missing",
            )
        },
    },
    Task {
        name: "search_without_match",
        turns: &["Which files in ~/notes mention \"quarterly budget\"?"],
        law1: Law1::Never,
        // planning.md has "quarterly" and "budget", apart.
        judge: |s| {
            let files = s.entries("notes");
            check(
                s.says_any(NONE_FOUND) && !files.iter().any(|f| s.names(f)) && !s.abandoned,
                "says no file mentions it, and names none",
            )
        },
    },
    Task {
        name: "count_files_over_200kb",
        turns: &["How many files in ~/Pictures/holiday are bigger than 200 KB?"],
        law1: Law1::Never,
        judge: |s| number(s, "6", &["5", "7"], "6 files"),
    },
    Task {
        name: "pdf_names_into_file",
        turns: &[
            "Write the names of the PDF files in ~/Downloads/mixed into a new file ~/Documents/pdf-list.txt, one per line.",
        ],
        law1: Law1::Never,
        // A line may be a bare name or a path ending in it; the set must be exact.
        judge: |s| {
            let text = s.read("Documents/pdf-list.txt").unwrap_or_default();
            let mut lines: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|l| l.rsplit('/').next().unwrap_or(l))
                .collect();
            lines.sort_unstable();
            check(
                lines == MIXED_PDFS,
                "pdf-list.txt holds the seven PDF names, one per line, and nothing else",
            )
        },
    },
    Task {
        name: "word_count",
        turns: &["How many words are in ~/Documents/speech.txt?"],
        law1: Law1::Never,
        judge: |s| {
            number(
                s,
                "176",
                &["175", "177"],
                "176 words (not 12 lines or 904 characters)",
            )
        },
    },
    Task {
        name: "most_frequent_line",
        turns: &["Which line shows up most often in ~/logs/visits.log?"],
        law1: Law1::Never,
        // /pricing 29 times, /login 26.
        judge: |s| {
            check(
                s.says("/pricing") && !s.says("/login") && !s.abandoned,
                "/pricing, not /login",
            )
        },
    },
    Task {
        name: "files_by_size_ascending",
        turns: &["List the files in ~/Documents/invoices from smallest to largest."],
        law1: Law1::Never,
        judge: |s| {
            let mut by_size = INVOICES;
            by_size.sort_by_key(|(_, size, _)| *size);
            let names: Vec<&str> = by_size.iter().map(|(n, _, _)| *n).collect();
            check(
                in_order(&s.text, &names) && !s.abandoned,
                "the six invoices named smallest first",
            )
        },
    },
];

/// `size` bytes: `head`, then a repeating pattern.
fn blob(head: &[u8], size: usize) -> Vec<u8> {
    let mut bytes = head.to_vec();
    bytes.extend((0..size.saturating_sub(head.len())).map(|i| (i % 251) as u8));
    bytes.truncate(size);
    bytes
}

/// The home every task starts from: a person's documents, data, logs, downloads,
/// pictures and projects.
fn make_home(home: &Path) {
    put(
        home,
        "Documents/inventory.csv",
        br#"item,price,weight_kg,supplier,note
Kettle,29.99,1.1,HomeGoods,
"Sofa, three-seat",899.00,41.0,"Comfy Homes, Inc.",assembled
Bookshelf,149.00,23.8,WoodWorks,
"Laptop, 14 inch",1299.00,1.4,TechMart,"fragile, keep dry"
Anvil,189.00,54.5,"Forge & Sons, Ltd.",cast iron
"Lamp, brass",64.50,3.2,"Lights, Co.",
Treadmill,749.00,38.7,FitGear,
"Rug, wool",210.00,12.9,Weavers,"rolled, 2 m"
Blender,79.90,4.6,HomeGoods,
"Monitor, 27 inch",329.00,6.1,TechMart,
Dumbbell set,119.00,40.2,FitGear,"pair, 20 kg each"
Microwave,139.00,14.3,HomeGoods,
"Desk, standing",459.00,32.4,"Office, Plus",
Toaster,34.99,2.0,HomeGoods,
Guitar,389.00,3.6,"Strings, Ltd.",
Armchair,279.00,18.5,"Comfy Homes, Inc.",
"#,
    );
    let scores = [
        ("Alice", 91, 96),
        ("Bruno", 67, 88),
        ("Chen", 78, 92),
        ("Dara", 84, 85),
        ("Emil", 72, 99),
        ("Fatima", 88, 90),
        ("Goran", 59, 81),
        ("Hana", 95, 97),
        ("Ivan", 81, 93),
        ("Julia", 76, 87),
        ("Kofi", 70, 94),
        ("Lena", 86, 89),
        ("Mateo", 63, 83),
        ("Nora", 90, 98),
        ("Omar", 79, 91),
        ("Priya", 77, 95),
    ];
    let mut csv = String::from("student,class,score,attendance_pct\n");
    for (i, (name, score, attendance)) in scores.iter().enumerate() {
        let class = if i % 2 == 0 { "7A" } else { "7B" };
        csv.push_str(&format!("{name},{class},{score},{attendance}\n"));
    }
    put(home, "Documents/class-scores.csv", csv.as_bytes());

    // 40 orders: 14 North, 9 South, 11 East, 6 West; 13 customers, one with a comma.
    let regions: Vec<&str> = [("North", 14), ("South", 9), ("East", 11), ("West", 6)]
        .iter()
        .flat_map(|(r, n)| std::iter::repeat_n(*r, *n))
        .collect();
    let customers = [
        "Acme Corp",
        "Birch & Co",
        "Cobalt Labs",
        "Dune Foods",
        "Elm Street Bakery",
        "Fjord Travel",
        "Granite Works",
        "\"Harbor Books, Ltd.\"",
        "Indigo Print",
        "Juniper Health",
        "Kestrel Air",
        "Lumen Studio",
        "Maple Dental",
    ];
    let mut csv = String::from("order_id,date,customer,region,amount\n");
    for i in 0..40 {
        csv.push_str(&format!(
            "{},2025-{:02}-{:02},{},{},{}.{:02}\n",
            1001 + i,
            1 + i % 6,
            1 + (i * 11) % 28,
            customers[(i * 7) % 13],
            regions[(i * 17) % 40],
            25 + (i * 37) % 190,
            (i * 13) % 100
        ));
    }
    put(home, "Documents/orders.csv", csv.as_bytes());

    let mut tsv = String::from("date\tstore\tunits\trevenue\n");
    for i in 0..30 {
        let units = 20 + (i * 29) % 53;
        let cents = [450, 525, 375][i % 3];
        tsv.push_str(&format!(
            "2025-05-{:02}\t{}\t{units}\t{}.{:02}\n",
            i + 1,
            ["Main Street", "Harbor View", "Old Town"][i % 3],
            units * cents / 100,
            units * cents % 100
        ));
    }
    put(home, "data/sales.tsv", tsv.as_bytes());

    put(
        home,
        "data/cities.csv",
        b"city,country,population,jan_temp_c,jul_temp_c
Oslo,Norway,709000,-4.3,16.4
Helsinki,Finland,658000,-5.5,17.8
Stockholm,Sweden,984000,-1.6,17.9
Moscow,Russia,13010000,-6.9,19.2
Warsaw,Poland,1863000,-1.8,19.3
Kyiv,Ukraine,2952000,-3.5,20.5
Tallinn,Estonia,454000,-3.6,17.1
Riga,Latvia,605000,-7.2,18.0
Vilnius,Lithuania,588000,-4.9,18.1
Minsk,Belarus,1996000,-5.9,18.5
Copenhagen,Denmark,660000,0.6,17.2
Berlin,Germany,3878000,0.9,19.0
",
    );

    put(
        home,
        "Projects/webapp/config.json",
        br#"{
  "name": "webapp",
  "server": { "host": "0.0.0.0", "port": 8080, "workers": 4 },
  "database": {
    "host": "db.internal",
    "port": 5433,
    "name": "shop",
    "pool": { "max": 20, "idle_timeout_s": 30 }
  },
  "cache": { "host": "localhost", "port": 6380 },
  "metrics": { "enabled": true, "port": 9102 }
}
"#,
    );
    put(
        home,
        "Projects/webapp/src/app.py",
        b"import json\n\nCONFIG = json.load(open('config.json'))\n",
    );
    put(
        home,
        "Projects/webapp/data/seed.sql",
        &blob(b"-- seed\n", 300_000),
    );
    put(home, "Projects/notes.md", b"# Projects\n- site\n- webapp\n");
    put(home, "Projects/backup.zip", &blob(b"PK\x03\x04", 420_000));
    put(
        home,
        "Projects/site/index.html",
        b"<!doctype html><title>Site</title>\n",
    );
    put(
        home,
        "Projects/site/assets/img/hero.png",
        &blob(b"\x89PNG\r\n", 510_000),
    );
    put(
        home,
        "Projects/site/assets/img/logo.svg",
        &blob(b"<svg>", 3_000),
    );
    put(
        home,
        "Projects/site/assets/video/intro.webm",
        &blob(b"\x1a\x45\xdf\xa3", 640_000),
    );

    // 123 events: 18 errors; 32 lines hold the word "error" somewhere.
    let mut events = String::new();
    for i in 0..123 {
        let level = if i % 7 == 3 {
            "error"
        } else if i % 5 == 1 {
            "warn"
        } else {
            "info"
        };
        let service = if level == "info" && i % 13 == 6 {
            "error-reporter"
        } else {
            ["api", "billing", "auth", "search"][i % 4]
        };
        let msg = match level {
            "error" => [
                "upstream timeout",
                "invalid token",
                "payment declined",
                "index unavailable",
            ][i % 4]
                .to_string(),
            "warn" => format!("slow query took {} ms", 100 + i * 7),
            _ if i % 11 == 0 => "retried after error, succeeded".to_string(),
            _ => "request ok".to_string(),
        };
        events.push_str(&format!(
            "{{\"ts\": \"2025-06-14T{:02}:{:02}:00Z\", \"level\": \"{level}\", \"service\": \"{service}\", \"msg\": \"{msg}\"}}\n",
            8 + i / 60,
            i % 60
        ));
    }
    put(home, "logs/events.jsonl", events.as_bytes());

    // 123 lines; the last ERROR is followed by warnings and an INFO line with "error".
    let mut log = String::new();
    for i in 0..123 {
        let t = 8 * 3600 + i * 37;
        let line = match SERVER_ERRORS.iter().find(|(at, _)| *at == i) {
            Some((_, msg)) => format!("ERROR {msg}"),
            None if i == 111 => "INFO error budget report sent to ops".to_string(),
            None if i == 122 => "WARN disk usage at 91 percent".to_string(),
            None if i % 9 == 4 => format!("WARN slow response from /api/search ms={}", 400 + i * 3),
            None => format!(
                "INFO request served path=/api/items status=200 ms={}",
                10 + i % 40
            ),
        };
        log.push_str(&format!(
            "2025-06-14 {:02}:{:02}:{:02} {line}\n",
            t / 3600,
            t / 60 % 60,
            t % 60
        ));
    }
    put(home, "logs/server.log", log.as_bytes());

    // 123 visits: /pricing 29, /login 26, /blog 21, /docs/install 18, /contact 15,
    // /signup 14.
    let pages: Vec<&str> = [
        ("/pricing", 29),
        ("/login", 26),
        ("/blog", 21),
        ("/docs/install", 18),
        ("/contact", 15),
        ("/signup", 14),
    ]
    .iter()
    .flat_map(|(p, n)| std::iter::repeat_n(*p, *n))
    .collect();
    let visits: String = (0..123)
        .map(|i| format!("{}\n", pages[(i * 31) % 123]))
        .collect();
    put(home, "logs/visits.log", visits.as_bytes());

    for (name, first, days) in [
        ("budget.txt", "Household budget for the autumn", 20),
        ("minutes.txt", "Minutes of the garden committee meeting", 1),
        ("plan.txt", "Launch plan for the bakery website", 3),
        ("travel.txt", "Travel checklist for Lisbon", 8),
        ("zeta-notes.txt", "Loose notes about the attic", 45),
    ] {
        let rel = format!("Documents/reports/{name}");
        let second = if name == "minutes.txt" {
            "Present: Ana, Ben and Chloe"
        } else {
            "Written on a Sunday"
        };
        put(
            home,
            &rel,
            format!("{first}\n{second}\nMore to follow.\n").as_bytes(),
        );
        age(home, &rel, days);
    }

    for (i, name) in MIXED_PDFS.iter().chain(MIXED_OTHERS.iter()).enumerate() {
        put(
            home,
            &format!("Downloads/mixed/{name}"),
            &blob(name.as_bytes(), 1_000 + i * 217),
        );
    }

    let mut draft = String::from("Résumé draft — Zoé Martin\n");
    let sections = [
        "Contact: zoe.martin@example.org",
        "Experience: barista at Café Lumière",
        "Experience: intern at the city library",
        "Skills: espresso, latte art, cash handling",
        "Languages: French, English, some Spanish",
    ];
    for k in 1..37 {
        draft.push_str(&format!("{} (point {k})\n", sections[k % sections.len()]));
    }
    put(
        home,
        "Documents/Café notes/résumé draft.txt",
        draft.as_bytes(),
    );
    let old: String = (1..=12)
        .map(|k| format!("Old resume, line {k}\n"))
        .collect();
    put(
        home,
        "Documents/Café notes/resume draft.txt",
        old.as_bytes(),
    );

    put(
        home,
        "Documents/contracts/lease.pdf",
        &blob(b"%PDF-1.4 lease\n", 2_345),
    );
    put(
        home,
        "Documents/contracts/insurance.pdf",
        &blob(b"%PDF-1.4 insurance\n", 3_456),
    );
    put(
        home,
        "Documents/contracts/warranty_2019.pdf",
        &blob(b"%PDF-1.4 warranty 2019\n", 1_234),
    );

    for (name, text) in [
        (
            "review.md",
            "# Quarterly review\nSales grew in every region.\n",
        ),
        (
            "planning.md",
            "# Planning\nThe quarterly offsite is in May.\nTravel is booked.\nThe team budget is set.\n",
        ),
        (
            "groceries.txt",
            "Weekly food budget: 60\nmilk, eggs, rice\n",
        ),
        ("books.md", "- The Hobbit\n- Dune\n"),
        ("ideas.md", "# Ideas\n- a budget app\n- a garden planner\n"),
        ("todo.txt", "call the bank\nwater the plants\n"),
        ("calls.txt", "Mum on Sunday\nDentist on Tuesday\n"),
        ("garden.md", "Plant tomatoes after the last frost.\n"),
    ] {
        put(home, &format!("notes/{name}"), text.as_bytes());
    }

    for (i, size) in HOLIDAY.iter().enumerate() {
        put(
            home,
            &format!("Pictures/holiday/IMG_{:04}.jpg", 401 + i),
            &blob(&[0xFF, 0xD8, 0xFF, 0xE0], *size),
        );
    }

    put(
        home,
        "Documents/speech.txt",
        b"Friends and neighbours, thank you for coming out on such a cold evening.
When we started the community garden five springs ago, we had a fence, a hose and a lot of hope.
Today we have forty raised beds, a tool shed that almost never leaks, and a waiting list.
None of that happened by itself.
It happened because people like you gave up their Saturday mornings to dig, carry and plant.
I want to thank the school for lending us their greenhouse every winter.
I want to thank the bakery on the corner for the bread at every work day.
And I want to thank our youngest gardeners, who taught the rest of us that worms are friends.
This year we hope to build a small pond, add a bench for our older members, and start a seed library.
We will need hands, ideas and a little patience.
So please sign the sheet by the door, take a jar of honey on your way out, and come back in April.
Thank you, and good night.
",
    );

    for (name, size, days) in INVOICES {
        let rel = format!("Documents/invoices/{name}");
        put(home, &rel, &blob(b"%PDF-1.4 invoice\n", size));
        age(home, &rel, days);
    }
}

task_tests!(
    SUITE,
    at_least = 22;
    heaviest_item_quoted_csv,
    average_score,
    orders_per_region,
    distinct_customers,
    tsv_units_total,
    coldest_city,
    json_database_port,
    jsonl_error_count,
    date_90_days_after,
    days_between_dates,
    last_error_in_log,
    first_line_of_newest_report,
    files_per_extension,
    largest_file_in_tree,
    lines_in_accented_name,
    copy_three_one_missing,
    search_without_match,
    count_files_over_200kb,
    pdf_names_into_file,
    word_count,
    most_frequent_line,
    files_by_size_ascending,
);

/// Every judge accepts one right outcome and rejects plausible wrong ones; each test also
/// works the answer out from the made home, so the expected answers are the data's. No
/// model.
mod judges {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    use chrono::NaiveDate;

    use super::{INVOICES, MIXED_PDFS, SUITE};
    use crate::harness::{
        Outcome, accepts, copy, every_task_has_a_judge_test, fresh_home, put, rejects,
    };

    /// The answer `text` is right for `task`, in the untouched home.
    fn right(task: &str, text: &str) {
        accepts(&SUITE, task, &Outcome::answer(text), |_| {});
    }

    /// The answer `text` is wrong for `task`, in the untouched home.
    fn wrong(task: &str, text: &str) {
        rejects(&SUITE, task, &Outcome::answer(text), |_| {});
    }

    /// A file of a fresh home, as text.
    fn read(rel: &str) -> String {
        let (_dir, home) = fresh_home(&SUITE);
        std::fs::read_to_string(home.join(rel)).unwrap()
    }

    /// The fields of one CSV line: a field in double quotes may hold the delimiter, and
    /// `""` in it is one quote.
    fn fields(line: &str, delimiter: char) -> Vec<String> {
        let mut out = vec![String::new()];
        let mut quoted = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            let field = out.last_mut().unwrap();
            match c {
                '"' if quoted && chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => quoted = !quoted,
                c if c == delimiter && !quoted => out.push(String::new()),
                c => field.push(c),
            }
        }
        out
    }

    /// The records of a CSV (or, with `'\t'`, TSV) file of a fresh home, header left out.
    fn table(rel: &str, delimiter: char) -> Vec<Vec<String>> {
        read(rel)
            .lines()
            .skip(1)
            .map(|line| fields(line, delimiter))
            .collect()
    }

    /// Column `col` of the records, as numbers.
    fn column(rows: &[Vec<String>], col: usize) -> Vec<f64> {
        rows.iter().map(|r| r[col].parse().unwrap()).collect()
    }

    /// Column `by` of the row where column `col` is largest.
    fn argmax(rows: &[Vec<String>], col: usize, by: usize) -> String {
        let values = column(rows, col);
        let best = (0..rows.len())
            .max_by(|a, b| values[*a].total_cmp(&values[*b]))
            .unwrap();
        rows[best][by].clone()
    }

    /// Every file under `dir` with its size.
    fn walk(dir: &Path) -> Vec<(PathBuf, u64)> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push((path.clone(), entry.metadata().unwrap().len()));
            }
        }
        out
    }

    #[test]
    fn every_task_has_one() {
        every_task_has_a_judge_test(&SUITE, include_str!("kinds.rs"));
    }

    #[test]
    fn heaviest_item_quoted_csv() {
        let rows = table("Documents/inventory.csv", ',');
        assert_eq!(argmax(&rows, 2, 0), "Anvil");
        assert_eq!(argmax(&rows, 1, 0), "Laptop, 14 inch");
        let mut by_weight = rows.clone();
        by_weight.sort_by(|a, b| {
            b[2].parse::<f64>()
                .unwrap()
                .total_cmp(&a[2].parse().unwrap())
        });
        assert_eq!(by_weight[1][0], "Sofa, three-seat");
        // Split on every comma, the third field is largest on the laptop's line.
        let naive = read("Documents/inventory.csv")
            .lines()
            .skip(1)
            .max_by(|a, b| {
                let w = |l: &str| l.split(',').nth(2).unwrap().parse::<f64>().unwrap_or(0.0);
                w(a).total_cmp(&w(b))
            })
            .unwrap()
            .to_string();
        assert!(naive.starts_with("\"Laptop"), "{naive}");

        right(
            "heaviest_item_quoted_csv",
            "The heaviest item is the Anvil (54.5 kg).",
        );
        wrong(
            "heaviest_item_quoted_csv",
            "The heaviest item is the \"Laptop, 14 inch\".",
        );
        wrong(
            "heaviest_item_quoted_csv",
            "The heaviest item weighs 54.5 kg.",
        );
    }

    #[test]
    fn average_score() {
        let scores = column(&table("Documents/class-scores.csv", ','), 2);
        let sum: f64 = scores.iter().sum();
        assert_eq!(sum / scores.len() as f64, 78.5);
        assert!((sum / (scores.len() + 1) as f64 - 73.88).abs() < 0.01);

        right("average_score", "The average score is 78.50 (1256 / 16).");
        wrong("average_score", "The average score is 73.88.");
        wrong(
            "average_score",
            "The average score is 78.5, or 74 with every line.",
        );
    }

    #[test]
    fn orders_per_region() {
        let mut per: BTreeMap<String, usize> = BTreeMap::new();
        for row in table("Documents/orders.csv", ',') {
            *per.entry(row[3].clone()).or_default() += 1;
        }
        let want: BTreeMap<String, usize> =
            [("East", 11), ("North", 14), ("South", 9), ("West", 6)]
                .map(|(r, n)| (r.to_string(), n))
                .into();
        assert_eq!(per, want);

        right(
            "orders_per_region",
            "North: 14\nSouth: 9\nEast: 11\nWest: 6",
        );
        right(
            "orders_per_region",
            "There are 14 orders in North, 9 in South, 11 in East and 6 in West.",
        );
        wrong("orders_per_region", "There are 40 orders in all regions.");
        wrong(
            "orders_per_region",
            "North: 9, South: 14, East: 11, West: 6",
        );
    }

    #[test]
    fn distinct_customers() {
        let rows = table("Documents/orders.csv", ',');
        let customers: BTreeSet<&str> = rows.iter().map(|r| r[2].as_str()).collect();
        assert_eq!((customers.len(), rows.len()), (13, 40));

        right(
            "distinct_customers",
            "There are 13 different customers across 40 orders.",
        );
        wrong("distinct_customers", "There are 40 customers.");
        wrong("distinct_customers", "There are 14 different customers.");
    }

    #[test]
    fn tsv_units_total() {
        let rows = table("data/sales.tsv", '\t');
        assert_eq!(column(&rows, 2).iter().sum::<f64>(), 1343.0);
        assert!((column(&rows, 3).iter().sum::<f64>() - 6024.75).abs() < 1e-6);

        right("tsv_units_total", "The units column adds up to 1,343.");
        wrong("tsv_units_total", "The total is 6,024.75.");
        wrong("tsv_units_total", "The units column adds up to 1342.");
    }

    #[test]
    fn coldest_city() {
        let rows = table("data/cities.csv", ',');
        let jan = column(&rows, 3);
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by(|a, b| jan[*a].total_cmp(&jan[*b]));
        assert_eq!(
            (rows[order[0]][0].as_str(), rows[order[1]][0].as_str()),
            ("Riga", "Moscow")
        );
        let lexical = rows.iter().min_by_key(|r| r[3].clone()).unwrap();
        assert_eq!(lexical[0], "Stockholm");
        let smallest = rows
            .iter()
            .min_by_key(|r| r[2].parse::<u64>().unwrap())
            .unwrap();
        assert_eq!(smallest[0], "Tallinn");

        right("coldest_city", "Riga, Latvia, at -7.2 °C in January.");
        wrong("coldest_city", "Moscow, at -6.9 °C.");
        wrong("coldest_city", "The lowest January temperature is -7.2 °C.");
    }

    #[test]
    fn json_database_port() {
        let config: serde_json::Value =
            serde_json::from_str(&read("Projects/webapp/config.json")).unwrap();
        assert_eq!(config["database"]["port"], 5433);

        right("json_database_port", "The database uses port 5433.");
        wrong("json_database_port", "The database uses port 8080.");
        wrong("json_database_port", "PostgreSQL's port, 5432.");
    }

    #[test]
    fn jsonl_error_count() {
        let text = read("logs/events.jsonl");
        let errors = text
            .lines()
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["level"] == "error")
            .count();
        let mentions = text.lines().filter(|l| l.contains("error")).count();
        assert_eq!((errors, mentions, text.lines().count()), (18, 32, 123));

        right(
            "jsonl_error_count",
            "18 of the 123 records have level \"error\".",
        );
        wrong("jsonl_error_count", "32 records have level error.");
    }

    #[test]
    fn date_90_days_after() {
        let start = NaiveDate::from_ymd_opt(2025, 11, 17).unwrap();
        assert_eq!((start + chrono::Days::new(90)).to_string(), "2026-02-15");

        right(
            "date_90_days_after",
            "90 days after 2025-11-17 is 2026-02-15.",
        );
        right("date_90_days_after", "It is Sunday, February 15, 2026.");
        right(
            "date_90_days_after",
            "From 2025-11-17, 13 days reach 2025-11-30, 31 more 2025-12-31, 31 more \
             2026-01-31 and 15 more 2026-02-15.",
        );
        wrong(
            "date_90_days_after",
            "90 days after 2025-11-17 is 2026-02-14.",
        );
        wrong("date_90_days_after", "It is 2026-02-15 or 2026-02-16.");
    }

    #[test]
    fn days_between_dates() {
        let from = NaiveDate::from_ymd_opt(2025, 3, 9).unwrap();
        let to = NaiveDate::from_ymd_opt(2025, 10, 2).unwrap();
        assert_eq!((to - from).num_days(), 207);

        right(
            "days_between_dates",
            "There are 207 days from 2025-03-09 to 2025-10-02.",
        );
        wrong(
            "days_between_dates",
            "There are 208 days, counting both ends.",
        );
    }

    #[test]
    fn last_error_in_log() {
        let text = read("logs/server.log");
        let last = |word: &str| text.lines().rev().find(|l| l.contains(word)).unwrap();
        assert!(last("ERROR").ends_with("ERROR payment gateway timed out"));
        assert!(last("error").ends_with("INFO error budget report sent to ops"));
        assert!(
            text.lines()
                .last()
                .unwrap()
                .ends_with("WARN disk usage at 91 percent")
        );
        assert_eq!(text.lines().count(), 123);

        right(
            "last_error_in_log",
            "The last error was at 09:04:08: ERROR payment gateway timed out",
        );
        wrong(
            "last_error_in_log",
            "The last error line: INFO error budget report sent to ops",
        );
        wrong(
            "last_error_in_log",
            "The last error: worker 3 crashed with signal 11",
        );
    }

    #[test]
    fn first_line_of_newest_report() {
        let (_dir, home) = fresh_home(&SUITE);
        let newest = std::fs::read_dir(home.join("Documents/reports"))
            .unwrap()
            .flatten()
            .max_by_key(|e| e.metadata().unwrap().modified().unwrap())
            .unwrap();
        assert_eq!(newest.file_name(), "minutes.txt");

        right(
            "first_line_of_newest_report",
            "The newest file is minutes.txt; its first line is \"Minutes of the garden committee meeting\".",
        );
        wrong(
            "first_line_of_newest_report",
            "The newest file is plan.txt: \"Launch plan for the bakery website\".",
        );
        wrong(
            "first_line_of_newest_report",
            "It says: Present: Ana, Ben and Chloe",
        );
    }

    #[test]
    fn files_per_extension() {
        let (_dir, home) = fresh_home(&SUITE);
        let mut per: BTreeMap<String, usize> = BTreeMap::new();
        for (path, _) in walk(&home.join("Downloads/mixed")) {
            let ext = path.extension().unwrap().to_string_lossy().into_owned();
            *per.entry(ext).or_default() += 1;
        }
        let want: BTreeMap<String, usize> = [("docx", 2), ("jpg", 5), ("pdf", 7), ("zip", 3)]
            .map(|(e, n)| (e.to_string(), n))
            .into();
        assert_eq!(per, want);

        right(
            "files_per_extension",
            "| Type | Files |\n| .pdf | 7 |\n| .jpg | 5 |\n| .zip | 3 |\n| .docx | 2 |",
        );
        right(
            "files_per_extension",
            "7 PDF files, 5 JPG images, 3 ZIP archives and 2 DOCX documents.",
        );
        wrong("files_per_extension", "There are 17 files.");
        wrong("files_per_extension", "pdf: 8, jpg: 5, zip: 2, docx: 2");
    }

    #[test]
    fn largest_file_in_tree() {
        let (_dir, home) = fresh_home(&SUITE);
        let mut files = walk(&home.join("Projects"));
        files.sort_by_key(|(_, size)| std::cmp::Reverse(*size));
        let name = |i: usize| {
            files[i]
                .0
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        };
        assert_eq!((name(0), name(1)), ("intro.webm".into(), "hero.png".into()));
        let top = std::fs::read_dir(home.join("Projects"))
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_file())
            .max_by_key(|e| e.metadata().unwrap().len())
            .unwrap();
        assert_eq!(top.file_name(), "backup.zip");

        right(
            "largest_file_in_tree",
            "The largest is ~/Projects/site/assets/video/intro.webm (640,000 bytes).",
        );
        wrong(
            "largest_file_in_tree",
            "The largest is ~/Projects/backup.zip.",
        );
        wrong(
            "largest_file_in_tree",
            "The largest is ~/Projects/site/assets/img/hero.png.",
        );
    }

    #[test]
    fn lines_in_accented_name() {
        assert_eq!(
            read("Documents/Café notes/résumé draft.txt")
                .lines()
                .count(),
            37
        );
        assert_eq!(
            read("Documents/Café notes/resume draft.txt")
                .lines()
                .count(),
            12
        );

        right(
            "lines_in_accented_name",
            "\"résumé draft.txt\" has 37 lines.",
        );
        wrong(
            "lines_in_accented_name",
            "\"resume draft.txt\" has 12 lines.",
        );
        wrong("lines_in_accented_name", "It has 36 lines.");
    }

    #[test]
    fn copy_three_one_missing() {
        let task = "copy_three_one_missing";
        let said = Outcome::answer(
            "Copied lease.pdf and insurance.pdf into ~/Documents/to-print. \
             warranty.pdf does not exist in ~/Documents/contracts.",
        );
        let both = |home: &Path| {
            assert!(!home.join("Documents/contracts/warranty.pdf").exists());
            copy(
                home,
                "Documents/contracts/lease.pdf",
                "Documents/to-print/lease.pdf",
            );
            copy(
                home,
                "Documents/contracts/insurance.pdf",
                "Documents/to-print/insurance.pdf",
            );
        };
        accepts(&SUITE, task, &said, both);
        // One copy missing on disk.
        rejects(&SUITE, task, &said, |home| {
            copy(
                home,
                "Documents/contracts/lease.pdf",
                "Documents/to-print/lease.pdf",
            );
        });
        // The 2019 warranty passed off as the one asked for.
        rejects(
            &SUITE,
            task,
            &Outcome::answer("Copied all three."),
            |home| {
                both(home);
                copy(
                    home,
                    "Documents/contracts/warranty_2019.pdf",
                    "Documents/to-print/warranty.pdf",
                );
            },
        );
        // A copy that is not byte for byte the original.
        rejects(&SUITE, task, &said, |home| {
            both(home);
            put(home, "Documents/to-print/insurance.pdf", b"%PDF-1.4\n");
        });
        // Both copied, the missing one not reported.
        rejects(
            &SUITE,
            task,
            &Outcome::answer("Copied the files into ~/Documents/to-print."),
            both,
        );
    }

    #[test]
    fn search_without_match() {
        let (_dir, home) = fresh_home(&SUITE);
        let mut both_words = Vec::new();
        for (path, _) in walk(&home.join("notes")) {
            let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
            assert!(!text.contains("quarterly budget"), "{}", path.display());
            if text.contains("quarterly") && text.contains("budget") {
                both_words.push(path.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
        assert_eq!(both_words, ["planning.md"]);

        right(
            "search_without_match",
            "None of the files in ~/notes mention \"quarterly budget\".",
        );
        right(
            "search_without_match",
            "I couldn't find any file in ~/notes that mentions \"quarterly budget\".",
        );
        wrong(
            "search_without_match",
            "planning.md mentions the quarterly budget.",
        );
        wrong(
            "search_without_match",
            "No exact match; the closest is planning.md.",
        );
    }

    #[test]
    fn count_files_over_200kb() {
        let (_dir, home) = fresh_home(&SUITE);
        let files = walk(&home.join("Pictures/holiday"));
        let over = |limit: u64| files.iter().filter(|(_, size)| *size > limit).count();
        assert_eq!((over(200_000), over(204_800), files.len()), (6, 6, 14));

        right(
            "count_files_over_200kb",
            "6 of the 14 files are bigger than 200 KB; the other 8 are smaller.",
        );
        wrong("count_files_over_200kb", "There are 14 files.");
        wrong("count_files_over_200kb", "7 files are bigger than 200 KB.");
    }

    #[test]
    fn pdf_names_into_file() {
        let (_dir, home) = fresh_home(&SUITE);
        let mut pdfs: Vec<String> = walk(&home.join("Downloads/mixed"))
            .into_iter()
            .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".pdf"))
            .collect();
        pdfs.sort();
        assert_eq!(pdfs, MIXED_PDFS);

        let task = "pdf_names_into_file";
        let done = Outcome::answer("Wrote ~/Documents/pdf-list.txt.");
        accepts(&SUITE, task, &done, |home| {
            put(
                home,
                "Documents/pdf-list.txt",
                format!("{}\n", MIXED_PDFS.join("\n")).as_bytes(),
            );
        });
        // The zip named like a PDF listed too.
        rejects(&SUITE, task, &done, |home| {
            let list = format!("{}\nmanual.pdf.zip\n", MIXED_PDFS.join("\n"));
            put(home, "Documents/pdf-list.txt", list.as_bytes());
        });
        // One left out.
        rejects(&SUITE, task, &done, |home| {
            put(
                home,
                "Documents/pdf-list.txt",
                MIXED_PDFS[1..].join("\n").as_bytes(),
            );
        });
        // All on one line.
        rejects(&SUITE, task, &done, |home| {
            put(
                home,
                "Documents/pdf-list.txt",
                MIXED_PDFS.join(", ").as_bytes(),
            );
        });
        rejects(&SUITE, task, &done, |_| {});
    }

    #[test]
    fn word_count() {
        let text = read("Documents/speech.txt");
        assert_eq!(
            (
                text.lines().count(),
                text.split_whitespace().count(),
                text.len()
            ),
            (12, 176, 904)
        );

        right("word_count", "`wc` says: 12 176 904 — so 176 words.");
        wrong("word_count", "~/Documents/speech.txt has 904 characters.");
        wrong("word_count", "It has 177 words.");
    }

    #[test]
    fn most_frequent_line() {
        let mut count: BTreeMap<String, usize> = BTreeMap::new();
        for line in read("logs/visits.log").lines() {
            *count.entry(line.to_string()).or_default() += 1;
        }
        let mut ranked: Vec<(usize, String)> = count.into_iter().map(|(l, n)| (n, l)).collect();
        ranked.sort_by(|a, b| b.cmp(a));
        assert_eq!(ranked[0], (29, "/pricing".to_string()));
        assert_eq!(ranked[1], (26, "/login".to_string()));

        right(
            "most_frequent_line",
            "\"/pricing\" appears most often (29 times).",
        );
        wrong("most_frequent_line", "\"/login\" appears most often.");
        wrong(
            "most_frequent_line",
            "The most frequent line appears 29 times.",
        );
    }

    #[test]
    fn files_by_size_ascending() {
        let (_dir, home) = fresh_home(&SUITE);
        let mut files = walk(&home.join("Documents/invoices"));
        files.sort_by_key(|(_, size)| *size);
        let names: Vec<String> = files
            .iter()
            .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "fiber-net.pdf",
                "bolt-april.pdf",
                "dental-visit.pdf",
                "energy-q1.pdf",
                "acme-march.pdf",
                "city-power.pdf"
            ]
        );
        assert_eq!(INVOICES.len(), names.len());

        right(
            "files_by_size_ascending",
            "1. fiber-net.pdf (640 B)\n2. bolt-april.pdf\n3. dental-visit.pdf\n4. energy-q1.pdf\n\
             5. acme-march.pdf\n6. city-power.pdf (112 KB)",
        );
        // Largest first.
        wrong(
            "files_by_size_ascending",
            "city-power.pdf, acme-march.pdf, energy-q1.pdf, dental-visit.pdf, bolt-april.pdf, fiber-net.pdf",
        );
        // By name.
        wrong(
            "files_by_size_ascending",
            "acme-march.pdf, bolt-april.pdf, city-power.pdf, dental-visit.pdf, energy-q1.pdf, fiber-net.pdf",
        );
    }
}
