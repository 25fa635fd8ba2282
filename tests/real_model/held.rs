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
//! Four more were written on 2026-12-01 (night), after the fourth run and before any
//! change it led to: amounts of a list added up and the total saved alone, the guests
//! of a list who said yes counted where the list never says "confirmed", the one line
//! of a log that holds two words, and the names of the newest files of a mixed folder
//! saved to a text file. None of these kinds had run before.
//!
//! Four more were written on 2026-12-02 (small hours), after the changes that run led
//! to (a written number no result shows, the name of a file to make, a line outside
//! what two words select, a count of all the items for a count of some) and before they
//! ran on them: the orders of a table paid one way counted, the photos of a folder
//! changed in the last week counted, the second line of a log of one kind named in
//! other words, and the smallest amount of a table saved alone. None of these kinds had
//! run before.
//!
//! Five more were written on 2026-12-02 (night), after the changes of runs 8–12 (the
//! words a list's lines differ by shown, a word read in the form the file writes it, the
//! n-th selected line stated by code, a share refused for a count) and before any of
//! them ran: the items of a table below a number counted, the email addresses of a note
//! saved one per line, the files of a folder that mention a word copied into a new
//! folder, the empty lines of a file counted, and the folder of a folder that takes the
//! most space named. None of these kinds had run before.
//!
//! Four more were written on 2026-12-02 (night), after the changes that run led to (rows
//! kept below or above a number, a folder read as a table, addresses picked out of a
//! file, files selected by the text they hold) and before they ran on them: the web
//! links of a note saved one per line, the total of the sales above an amount, the
//! files of a folder that mention a word counted, and the bytes of the files changed in
//! the last days added up. None of these kinds had run before.
//!
//! Three more were written on 2026-12-02 (night), after the changes the next run led
//! to (a bound the request states on a number set on a table call that keeps every row,
//! a folder's age or size bound set on a table call over its entries, list_files
//! selecting by the text files hold, the place a copy was to go never a missing
//! subject) and before they ran: the names of the products below a price saved one per
//! line, the notes that mention a word moved into a new folder, and the mean of the
//! values above a number. None of these kinds had run before.
//!
//! Seven more were written on 2026-12-02 (morning), after the changes run 15 led to (the
//! whole-count push-back spent only when it pushes, a filter that keeps no line saying
//! how many lines are blank, a folder's bound set when half a filter is given) and
//! before any of them ran: the lines of a poem that hold text counted, the books of a
//! table counted per genre, a date some days after the one a file states, files renamed
//! to another extension, the share of a table's orders paid one way as a percentage,
//! each value of a column saved once, and the files of one extension above a size
//! counted. None of these kinds had run before.
//!
//! Two more were written on 2026-12-02 (morning), after the changes run 16 led to (a
//! name pattern or column that selects nothing says which files hold its word in their
//! text, an attempt its executor doubts passes only by code, a number the request states
//! that the plan drops) and before they ran: the names of the files that mention a word
//! saved one per line, and an amount a file states raised by a percentage. Neither kind
//! had run before.
//!
//! Three more were written on 2026-12-02 (morning), after the changes run 17 led to (a
//! percentage's factors usable in a calculation, doubts for a number no result shows
//! and for a count of every item where some are asked, a missing file said as the path
//! that is missing) and before they ran: a percentage of a table's total, the files of
//! one extension deleted, and the file of a folder changed longest ago named. None of
//! these kinds had run before.
//!
//! Two more were written on 2026-12-02 (morning), after the changes run 18 led to (a
//! percentage stated with its number read as an operand, a name pattern of a word the
//! request says selecting by the text files hold) and before they ran: a percentage of
//! the largest amount of a table, and the files of a folder that mention a word named.
//! Neither kind had run before.
//!
//! Seven more were written on 2026-12-02 (late morning), after the changes run 19 led to
//! (a stated number no call used, a deletion narrowed by a bound nobody asked for, a copy
//! already made) and before any change of that session: the days between two dates a
//! file states, the month of a table with the highest total, the empty files of a folder
//! named, the sum of one column over the rows of one value of another, the distinct
//! addresses of a log counted, a temperature a note states converted to another unit,
//! and a file renamed in its folder. None of these kinds had run before.
//!
//! Five more were written on 2026-12-02 (late morning), after the changes the run of the
//! seven led to (a question's chain of steps run as one, a value guessed in a plan cut, a
//! number printed for another thing, text in columns separated by spaces read as a
//! table, the days between a file's dates) and before they ran: whether a setting is on,
//! the latest date of a table, the row of a table with the lowest value named, minutes
//! added up and given in hours, and the files of a folder larger than one of them
//! counted. None of these kinds had run before.
//!
//! Five more were written on 2026-12-02 (noon), after the changes run 22 led to (a yes
//! or no given as a tool's output, a number in another unit than the one asked, an
//! extension of a file the request names, a sum over a column of text) and before they
//! ran: whether a letter mentions a word, how long a meeting a note times lasts, the
//! files of a folder and its subfolders counted, the growth of a table's value from one
//! month to the next as a percentage, and the size of two named files together. None
//! of these kinds had run before.
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

/// `~/money/expenses.txt`: four amounts with cents; their total is 55.50.
const EXPENSES: &str = "12.50\n8.25\n30.00\n4.75\n";

/// `~/party/guests.txt`: three of six said yes; no line says "confirmed".
const GUESTS: &str = "Anna: yes\nBen: no\nCleo: yes\nDan: maybe\nEli: yes\nFay: no\n";

/// `~/logs/app.log`: one ERROR line is about a payment; other lines hold one word of the two.
const APP_LOG: &str = "09:00 INFO payment started\n09:01 ERROR network down\n\
09:02 ERROR payment declined\n09:03 INFO payment done\n09:04 ERROR disk slow\n";
const PAYMENT_ERROR: &str = "09:02 ERROR payment declined";

/// `~/downloads`: four files of four types, newest first as listed (days old: 1, 3, 9, 20).
const DOWNLOADS: [(&str, &[u8], u64); 4] = [
    ("slides.pdf", b"%PDF-1.4 slides", 1),
    ("song.mp3", b"ID3 song", 3),
    ("notes.txt", b"some notes\n", 9),
    ("archive.zip", b"PK archive", 20),
];

/// `~/shop/orders.csv`: seven orders, three paid by card.
const ORDERS: &str = "id,amount,paid_with\n1,12.00,card\n2,8.50,cash\n3,30.00,card\n\
4,5.25,cash\n5,14.75,card\n6,9.00,cash\n7,22.00,cash\n";

/// `~/photos`: five pictures, two changed in the last week (days old: 2, 3, 20, 40, 60).
const PHOTOS: [(&str, u64); 5] = [
    ("beach.jpg", 2),
    ("cake.jpg", 3),
    ("dog.jpg", 20),
    ("hill.png", 40),
    ("snow.jpg", 60),
];

/// `~/logs/build.log`: three `warn` lines; no line says "warning".
const BUILD_LOG: &str = "ok compile\nwarn unused import\nok link\nwarn deprecated call\n\
ok test\nwarn slow test\n";

/// `~/money/bills.csv`: the smallest amount, 7.40, is neither first nor last.
const BILLS: &str = "month,amount\nJan,42.10\nFeb,7.40\nMar,19.99\nApr,55.00\n";

/// `~/shop/stock.csv`: three items below 5 (1, 0, 2); one at exactly 5; none holds 3.
const STOCK: &str = "item,qty\nsoap,12\nrice,1\ntea,0\nmilk,2\nsalt,9\noil,5\n";

/// `~/contacts/notes.txt`: three addresses inside lines of other words.
const CONTACTS: &str = "Met Ana at the fair, ana@example.org\nCall Ben tomorrow\n\
Ben's mail: ben.ruiz@mail.test (work)\nNo address for Cleo yet\nDan <dan@home.test>\n";

/// `~/letters`: two of four letters mention an invoice (one in its first word, one not).
const LETTERS: [(&str, &str); 4] = [
    ("march.txt", "Invoice 42 for March\nThanks, Ana\n"),
    ("dinner.txt", "Dinner on Friday?\n"),
    ("reminder.txt", "Hello,\nplease pay the invoice by May.\n"),
    ("trip.txt", "Photos from the trip\n"),
];

/// `~/docs/draft.txt`: seven lines, three of them empty.
const DRAFT: &str = "Title\n\nFirst paragraph.\n\n\nSecond paragraph.\nEnd\n";

/// `~/projects`: alpha has the most files, beta the most bytes.
const PROJECTS: [(&str, usize); 6] = [
    ("alpha/a.txt", 10),
    ("alpha/b.txt", 10),
    ("alpha/c.txt", 10),
    ("beta/model.bin", 5000),
    ("gamma/x.txt", 100),
    ("gamma/y.txt", 100),
];

/// `~/notes/reading.md`: three links, one of them twice, inside sentences.
const READING: &str = "# To read\nA long essay: https://essays.test/slow-web.\n\
Also (https://news.test/a?id=7) and again https://essays.test/slow-web\n\
Video: http://video.test/talk\nNo link here.\n";

/// `~/shop/sales.csv`: three sales above 100 (120, 300, 180), one at exactly 100.
const SALES: &str = "id,amount\n1,50\n2,120\n3,99.5\n4,300\n5,100\n6,180\n";

/// `~/journal`: two of five entries mention the garden, one of them in capitals.
const ENTRIES: [(&str, &str); 5] = [
    ("mon.txt", "Planted tulips in the garden.\n"),
    ("tue.txt", "Rain all day.\n"),
    ("wed.txt", "Long call with Ana.\n"),
    ("thu.txt", "GARDEN party at Ben's.\n"),
    ("fri.txt", "Cleaned the kitchen.\n"),
];

/// `~/parcels`: four files of 100, 250, 4000 and 50 bytes, changed 1, 3, 10 and 20 days ago.
const PARCELS: [(&str, usize, u64); 4] = [
    ("a.bin", 100, 1),
    ("b.bin", 250, 3),
    ("c.bin", 4000, 10),
    ("d.bin", 50, 20),
];

/// `~/shop/prices.csv`: two products below 3 (bread, milk); apples cost exactly 3.
const PRICES: &str = "product,price\nbread,2.50\nmilk,1.20\ncheese,6.80\napples,3.00\ntea,4.10\n";

/// `~/desk`: two of four notes mention urgent matters, in two cases.
const DESK: [(&str, &str); 4] = [
    ("bank.txt", "URGENT: call the bank\n"),
    ("lunch.txt", "lunch menu for Friday\n"),
    ("rent.txt", "pay the rent, urgent\n"),
    ("receipts.txt", "old receipts\n"),
];

/// `~/weather/july.csv`: four days above 20 (24, 21, 30, 27: mean 25.5) of six.
const JULY: &str = "day,temp\n1,18\n2,24\n3,21\n4,30\n5,19\n6,27\n";

/// `~/poems/sea.txt`: seven lines, three of them blank, four with text.
const SEA: &str = "The sea is wide\n\nand the sky is grey\n\n\nthe gulls call out\nover the bay\n";

/// `~/library/books.csv`: fiction 3, history 2, poetry 1; one title holds a quoted comma.
const BOOKS: &str = "title,author,genre\nDune,Herbert,fiction\n\"Sapiens, A Brief History\",Harari,history\n\
Emma,Austen,fiction\nOdes,Keats,poetry\nSPQR,Beard,history\nHamlet,Shakespeare,fiction\n";

/// `~/docs/contract.txt`: starts on 2026-03-10; 45 days later is 2026-04-24.
const CONTRACT: &str =
    "Rental contract\nTenant: J. Doe\nStart date: 2026-03-10\nMonthly rent: 900\n";

/// `~/pics`: two .jpeg pictures and a .png.
const PICS: [(&str, &[u8]); 3] = [
    ("boat.jpeg", b"\xff\xd8\xff boat"),
    ("hill.jpeg", b"\xff\xd8\xff hill"),
    ("map.png", b"\x89PNG map"),
];

/// `~/crm/customers.csv`: six customers in three countries.
const CUSTOMERS: &str =
    "name,country\nAna,Peru\nBen,France\nChen,Japan\nDana,Peru\nEli,France\nFay,Peru\n";

/// `~/var`: two .log files above 1 KB (either kind of KB), one below, and a big file of
/// another kind.
const VAR: [(&str, usize); 4] = [
    ("app.log", 3000),
    ("db.log", 500),
    ("web.log", 2000),
    ("dump.dat", 5000),
];

/// `~/mail`: two of four messages mention a refund, none is named so.
const MAIL: [(&str, &str); 4] = [
    ("msg1.txt", "Hello, I would like a refund for order 12.\n"),
    ("msg2.txt", "Thanks for the quick delivery!\n"),
    ("msg3.txt", "The blender broke; please send a Refund.\n"),
    ("msg4.txt", "Where is my parcel?\n"),
];

/// `~/docs/lease.txt`: a rent of 1200; raised by 5% it is 1260.
const LEASE: &str = "Lease for flat 4B\nMonthly rent: 1200\nDeposit: 2400\n";

/// `~/money/budget.csv`: a total of 1200; 15% of it is 180.
const BUDGET: &str = "item,amount\nrent,800\nfood,300\ntravel,100\n";

/// `~/cache`: two .tmp files among others.
const CACHE: [(&str, &[u8]); 4] = [
    ("a.tmp", b"scratch a"),
    ("b.tmp", b"scratch b"),
    ("data.json", b"{}"),
    ("keep.txt", b"keep me"),
];

/// `~/archive`: three files; report.doc changed longest ago (400 days).
const ARCHIVE: [(&str, u64); 3] = [("notes.txt", 10), ("report.doc", 400), ("scan.pdf", 30)];

/// `~/travel/trip.txt`: two flight dates 17 days apart.
const TRIP: &str = "Flight out: 2026-03-02\nHotel: Seaview\nFlight back: 2026-03-19\n";

/// `~/money/spending.csv`: totals 120 (January), 200 (February), 150 (March); the
/// largest single row (140) is March's.
const SPENDING: &str = "month,category,amount\n2026-01,food,70\n2026-01,fuel,50\n2026-02,food,60\n2026-02,fuel,80\n2026-02,gifts,60\n2026-03,rent,140\n2026-03,food,10\n";

/// `~/src`: two of four files are empty.
const SRC: [(&str, &str); 4] = [
    ("main.rs", "fn main() {}\n"),
    ("lib.rs", ""),
    ("util.rs", "pub fn x() {}\n"),
    ("mod.rs", ""),
];

/// `~/work/hours.csv`: Alpha's hours add up to 9.5 of 15.
const HOURS: &str = "date,project,hours\n2026-11-02,Alpha,3\n2026-11-02,Beta,4\n2026-11-03,Alpha,2.5\n2026-11-04,Gamma,1.5\n2026-11-05,Alpha,4\n";

/// `~/logs/access.log`: six requests from four addresses (five GETs, three 200s).
const ACCESS_LOG: &str = "10.0.0.5 GET /index.html 200\n10.0.0.7 GET /about.html 200\n10.0.0.5 GET /logo.png 304\n192.168.1.20 POST /login 302\n10.0.0.7 GET /index.html 200\n172.16.0.9 GET /contact.html 404\n";

/// `~/notes/oven.txt`: 428 °F, which is 220 °C.
const OVEN: &str = "Bread\nBake at 428 F for 35 minutes.\nLet it cool for 10 minutes.\n";

/// `~/app/config.ini`: debug is off; a comment shows how to turn it on.
const CONFIG: &str =
    "[app]\nname = demo\ndebug = false\nport = 8080\n# set debug = true to trace\n";

/// `~/shop/orders2.csv`: the latest order is 2026-11-20, neither first nor last.
const ORDERS2: &str =
    "order,date,total\nA1,2026-10-05,20\nA2,2026-11-20,35\nA3,2026-09-14,12\nA4,2026-11-02,50\n";

/// `~/weather/week.csv`: the lowest low is Tuesday's (3); the lowest high Wednesday's.
const WEEK: &str = "day,low,high\nMonday,8,15\nTuesday,3,17\nWednesday,5,9\nThursday,6,12\n";

/// `~/work/calls.csv`: 300 minutes of calls, 5 hours.
const CALLS: &str = "who,minutes\nAnn,150\nBo,90\nCy,60\n";

/// `~/music`: three files larger than intro.mp3 (3000 bytes), one of them no mp3.
const MUSIC: [(&str, usize); 5] = [
    ("intro.mp3", 3000),
    ("a.mp3", 5000),
    ("b.mp3", 1000),
    ("c.mp3", 4000),
    ("d.wav", 8000),
];

/// `~/notes/letter.txt`: mentions an invoice once, in another case.
const LETTER: &str =
    "Dear Sam,\nThanks for the visit.\nThe Invoice for March is attached.\nBest, Kim\n";

/// `~/calendar/meeting.txt`: 09:30 to 11:15, an hour and 45 minutes.
const MEETING: &str = "Team review\nStarts: 09:30\nEnds: 11:15\nRoom: 4B\n";

/// `~/projects2`: four files, two of them two folders down; one empty folder.
const PROJECTS2: [(&str, usize); 4] = [
    ("a/x.txt", 10),
    ("a/b/y.txt", 20),
    ("a/b/w.txt", 30),
    ("z.txt", 40),
];

/// `~/shop/monthly.csv`: sales rose from 200 to 250, 25 %.
const MONTHLY: &str = "month,sales\nJanuary,200\nFebruary,250\nMarch,240\n";

/// `~/docs2`: a.pdf (1200 bytes) and b.pdf (800) among others.
const DOCS2: [(&str, usize); 3] = [("a.pdf", 1200), ("b.pdf", 800), ("c.pdf", 500)];

/// `~/meetings`: two of four notes mention the budget, in two cases; none is named so.
const MEETINGS: [(&str, &str); 4] = [
    ("mon.txt", "We discussed the budget for Q3.\n"),
    ("tue.txt", "Lunch plans for Friday.\n"),
    ("wed.txt", "Budget cuts again.\n"),
    ("thu.txt", "Team photo at noon.\n"),
];

fn make_home(home: &Path) {
    put(home, "notes/letter.txt", LETTER.as_bytes());
    put(home, "calendar/meeting.txt", MEETING.as_bytes());
    for (rel, size) in PROJECTS2 {
        put(home, &format!("projects2/{rel}"), &vec![b'x'; size]);
    }
    std::fs::create_dir_all(home.join("projects2/c")).expect("an empty folder");
    put(home, "shop/monthly.csv", MONTHLY.as_bytes());
    for (name, size) in DOCS2 {
        put(home, &format!("docs2/{name}"), &vec![b'x'; size]);
    }
    put(home, "app/config.ini", CONFIG.as_bytes());
    put(home, "shop/orders2.csv", ORDERS2.as_bytes());
    put(home, "weather/week.csv", WEEK.as_bytes());
    put(home, "work/calls.csv", CALLS.as_bytes());
    for (name, size) in MUSIC {
        put(home, &format!("music/{name}"), &vec![b'x'; size]);
    }
    put(home, "travel/trip.txt", TRIP.as_bytes());
    put(home, "money/spending.csv", SPENDING.as_bytes());
    for (name, text) in SRC {
        put(home, &format!("src/{name}"), text.as_bytes());
    }
    put(home, "work/hours.csv", HOURS.as_bytes());
    put(home, "logs/access.log", ACCESS_LOG.as_bytes());
    put(home, "notes/oven.txt", OVEN.as_bytes());
    for (name, text) in MEETINGS {
        put(home, &format!("meetings/{name}"), text.as_bytes());
    }
    put(home, "money/budget.csv", BUDGET.as_bytes());
    for (name, bytes) in CACHE {
        put(home, &format!("cache/{name}"), bytes);
    }
    for (name, days) in ARCHIVE {
        put(home, &format!("archive/{name}"), b"old words");
        super::harness::age(home, &format!("archive/{name}"), days);
    }
    for (name, text) in MAIL {
        put(home, &format!("mail/{name}"), text.as_bytes());
    }
    put(home, "docs/lease.txt", LEASE.as_bytes());
    put(home, "poems/sea.txt", SEA.as_bytes());
    put(home, "library/books.csv", BOOKS.as_bytes());
    put(home, "docs/contract.txt", CONTRACT.as_bytes());
    for (name, bytes) in PICS {
        put(home, &format!("pics/{name}"), bytes);
    }
    put(home, "crm/customers.csv", CUSTOMERS.as_bytes());
    for (name, size) in VAR {
        put(home, &format!("var/{name}"), &vec![b'x'; size]);
    }
    put(home, "shop/prices.csv", PRICES.as_bytes());
    for (name, text) in DESK {
        put(home, &format!("desk/{name}"), text.as_bytes());
    }
    put(home, "weather/july.csv", JULY.as_bytes());
    put(home, "notes/reading.md", READING.as_bytes());
    put(home, "shop/sales.csv", SALES.as_bytes());
    for (name, text) in ENTRIES {
        put(home, &format!("journal/{name}"), text.as_bytes());
    }
    for (name, size, days) in PARCELS {
        put(home, &format!("parcels/{name}"), &vec![b'x'; size]);
        super::harness::age(home, &format!("parcels/{name}"), days);
    }
    put(home, "shop/stock.csv", STOCK.as_bytes());
    put(home, "contacts/notes.txt", CONTACTS.as_bytes());
    for (name, text) in LETTERS {
        put(home, &format!("letters/{name}"), text.as_bytes());
    }
    put(home, "docs/draft.txt", DRAFT.as_bytes());
    for (rel, size) in PROJECTS {
        put(home, &format!("projects/{rel}"), &vec![b'x'; size]);
    }
    put(home, "shop/orders.csv", ORDERS.as_bytes());
    for (name, days) in PHOTOS {
        put(home, &format!("photos/{name}"), b"\x89 picture");
        super::harness::age(home, &format!("photos/{name}"), days);
    }
    put(home, "logs/build.log", BUILD_LOG.as_bytes());
    put(home, "money/bills.csv", BILLS.as_bytes());
    put(home, "money/expenses.txt", EXPENSES.as_bytes());
    put(home, "party/guests.txt", GUESTS.as_bytes());
    put(home, "logs/app.log", APP_LOG.as_bytes());
    for (name, bytes, days) in DOWNLOADS {
        put(home, &format!("downloads/{name}"), bytes);
        super::harness::age(home, &format!("downloads/{name}"), days);
    }
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

/// The non-blank lines of a file, trimmed and sorted (none when it is not there).
fn sorted_lines(s: &super::harness::Seen<'_>, rel: &str) -> Vec<String> {
    let mut lines: Vec<String> = s
        .read(rel)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    lines.sort();
    lines
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
    Task {
        name: "expenses_total_saved",
        turns: &[
            "Add up the amounts in ~/money/expenses.txt and write the total into a new file ~/money/total.txt.",
        ],
        law1: Law1::Never,
        judge: |s| {
            let total = trimmed(s, "money/total.txt").and_then(|t| t.parse::<f64>().ok());
            check(
                total.is_some_and(|t| (t - 55.5).abs() < 1e-9)
                    && s.read("money/expenses.txt").as_deref() == Some(EXPENSES)
                    && !s.abandoned,
                "total.txt holds 55.50 (or 55.5) alone; expenses.txt unchanged",
            )
        },
    },
    Task {
        name: "confirmed_guests_count",
        turns: &["How many guests in ~/party/guests.txt have confirmed they are coming?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("3")
                    && !s.number("0")
                    && s.read("party/guests.txt").as_deref() == Some(GUESTS)
                    && !s.abandoned,
                "3 (the guests who said yes), not none",
            )
        },
    },
    Task {
        name: "payment_error_line",
        turns: &["Which ERROR line of ~/logs/app.log is about a payment?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.text.contains(PAYMENT_ERROR)
                    && !s.text.contains("network down")
                    && !s.text.contains("payment started")
                    && !s.text.contains("payment done")
                    && !s.text.contains("disk slow")
                    && !s.abandoned,
                "the line 09:02 ERROR payment declined, and no other line of the log",
            )
        },
    },
    Task {
        name: "newest_names_saved",
        turns: &[
            "Write the names of the two newest files in ~/downloads into a new file ~/recent.txt, one per line.",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                listed_names(s, "recent.txt").as_deref()
                    == Some(&["slides.pdf".to_string(), "song.mp3".to_string()][..])
                    && s.entries("downloads")
                        == ["archive.zip", "notes.txt", "slides.pdf", "song.mp3"]
                    && !s.abandoned,
                "~/recent.txt names slides.pdf and song.mp3 alone; ~/downloads unchanged",
            )
        },
    },
    Task {
        name: "card_orders_count",
        turns: &["How many orders in ~/shop/orders.csv were paid by card?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("3")
                    && !s.number("4")
                    && s.read("shop/orders.csv").as_deref() == Some(ORDERS)
                    && !s.abandoned,
                "3 (the orders paid by card), and not the cash orders",
            )
        },
    },
    Task {
        name: "recent_photos_count",
        turns: &["How many photos in ~/photos were changed in the last week?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("2") && !s.number("3") && s.entries("photos").len() == 5 && !s.abandoned,
                "2 (beach.jpg and cake.jpg), and not the older ones",
            )
        },
    },
    Task {
        name: "second_warning_line",
        turns: &["What is the second warning in ~/logs/build.log?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.text.contains("warn deprecated call")
                    && !s.text.contains("warn unused import")
                    && !s.text.contains("warn slow test")
                    && !s.text.contains("ok link")
                    && !s.abandoned,
                "the line warn deprecated call, and neither the first nor the third warning",
            )
        },
    },
    Task {
        name: "smallest_bill_saved",
        turns: &["Write the smallest amount in ~/money/bills.csv into a new file ~/money/min.txt."],
        law1: Law1::Never,
        judge: |s| {
            let min = trimmed(s, "money/min.txt").and_then(|t| t.parse::<f64>().ok());
            check(
                min.is_some_and(|m| (m - 7.4).abs() < 1e-9)
                    && s.read("money/bills.csv").as_deref() == Some(BILLS)
                    && !s.abandoned,
                "min.txt holds 7.40 (or 7.4) alone; bills.csv unchanged",
            )
        },
    },
    Task {
        name: "low_stock_count",
        turns: &["How many items in ~/shop/stock.csv have fewer than 5 in stock?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("3")
                    && !s.number("4")
                    && !s.number("6")
                    && s.read("shop/stock.csv").as_deref() == Some(STOCK)
                    && !s.abandoned,
                "3 (rice, tea, milk), and neither 4 (with oil at 5) nor 6 (every item)",
            )
        },
    },
    Task {
        name: "emails_saved",
        turns: &[
            "Save every email address in ~/contacts/notes.txt to a new file ~/contacts/emails.txt, one per line.",
        ],
        law1: Law1::Never,
        judge: |s| {
            let lines = sorted_lines(s, "contacts/emails.txt");
            check(
                lines == ["ana@example.org", "ben.ruiz@mail.test", "dan@home.test"]
                    && s.read("contacts/notes.txt").as_deref() == Some(CONTACTS)
                    && !s.abandoned,
                "emails.txt holds the three addresses alone, one per line; notes.txt unchanged",
            )
        },
    },
    Task {
        name: "invoice_letters_copied",
        turns: &[
            "Copy the files in ~/letters that mention an invoice into a new folder ~/invoices.",
        ],
        law1: Law1::Never,
        judge: |s| {
            let same = |name: &str| {
                let copy = s.bytes(&format!("invoices/{name}"));
                copy.is_some() && copy == s.bytes(&format!("letters/{name}"))
            };
            check(
                s.entries("invoices") == ["march.txt", "reminder.txt"]
                    && same("march.txt")
                    && same("reminder.txt")
                    && s.entries("letters").len() == 4
                    && !s.abandoned,
                "~/invoices holds exactly march.txt and reminder.txt, byte for byte; ~/letters unchanged",
            )
        },
    },
    Task {
        name: "empty_line_count",
        turns: &["How many empty lines are in ~/docs/draft.txt?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("3")
                    && !s.number("7")
                    && !s.number("4")
                    && s.read("docs/draft.txt").as_deref() == Some(DRAFT)
                    && !s.abandoned,
                "3, and neither 7 (every line) nor 4 (the lines with text)",
            )
        },
    },
    Task {
        name: "largest_folder_named",
        turns: &["Which folder in ~/projects takes up the most space?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names("beta")
                    && !s.names("alpha")
                    && !s.names("gamma")
                    && s.entries("projects") == ["alpha", "beta", "gamma"]
                    && !s.abandoned,
                "beta, and not alpha (the most files) nor gamma",
            )
        },
    },
    Task {
        name: "links_saved",
        turns: &[
            "Save every web link in ~/notes/reading.md to a new file ~/notes/links.txt, one per line.",
        ],
        law1: Law1::Never,
        judge: |s| {
            let lines = sorted_lines(s, "notes/links.txt");
            check(
                lines
                    == [
                        "http://video.test/talk",
                        "https://essays.test/slow-web",
                        "https://news.test/a?id=7",
                    ]
                    && s.read("notes/reading.md").as_deref() == Some(READING)
                    && !s.abandoned,
                "links.txt holds the three links alone, each once, one per line; reading.md unchanged",
            )
        },
    },
    Task {
        name: "big_sales_total",
        turns: &["What is the total of the sales over 100 in ~/shop/sales.csv?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("600")
                    && !s.number("700")
                    && !s.number("849.5")
                    && s.read("shop/sales.csv").as_deref() == Some(SALES)
                    && !s.abandoned,
                "600 (120 + 300 + 180), and neither 700 (with the sale at 100) nor 849.5 (every sale)",
            )
        },
    },
    Task {
        name: "garden_entries_count",
        turns: &["How many of the files in ~/journal mention the garden?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("2")
                    && !s.number("5")
                    && !s.number("1")
                    && s.entries("journal").len() == 5
                    && !s.abandoned,
                "2 (mon.txt and thu.txt), and neither 5 (every file) nor 1",
            )
        },
    },
    Task {
        name: "recent_parcels_bytes",
        turns: &[
            "How many bytes do the files in ~/parcels that changed in the last 5 days take up together?",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("350")
                    && !s.number("4400")
                    && !s.number("4350")
                    && s.entries("parcels").len() == 4
                    && !s.abandoned,
                "350 (a.bin and b.bin), and neither 4400 (every file) nor 4350",
            )
        },
    },
    Task {
        name: "cheap_products_saved",
        turns: &[
            "Write the names of the products in ~/shop/prices.csv that cost less than 3 into a new file ~/shop/cheap.txt, one per line.",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                listed_names(s, "shop/cheap.txt").as_deref()
                    == Some(&["bread".to_string(), "milk".to_string()][..])
                    && s.read("shop/prices.csv").as_deref() == Some(PRICES)
                    && !s.abandoned,
                "cheap.txt names bread and milk alone; prices.csv unchanged",
            )
        },
    },
    Task {
        name: "urgent_notes_moved",
        turns: &["Move the notes in ~/desk that mention urgent into a new folder ~/urgent."],
        law1: Law1::Never,
        judge: |s| {
            let moved =
                |name: &str, text: &str| s.read(&format!("urgent/{name}")).as_deref() == Some(text);
            check(
                s.entries("urgent") == ["bank.txt", "rent.txt"]
                    && moved(DESK[0].0, DESK[0].1)
                    && moved(DESK[2].0, DESK[2].1)
                    && s.entries("desk") == ["lunch.txt", "receipts.txt"]
                    && !s.abandoned,
                "~/urgent holds bank.txt and rent.txt, byte for byte; ~/desk the other two",
            )
        },
    },
    Task {
        name: "warm_days_mean",
        turns: &["What is the average temperature of the days above 20 in ~/weather/july.csv?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("25.5")
                    && !s.number("23.17")
                    && !s.number("23.2")
                    && s.read("weather/july.csv").as_deref() == Some(JULY)
                    && !s.abandoned,
                "25.5 (24, 21, 30, 27), and not the mean of every day (23.17)",
            )
        },
    },
    Task {
        name: "text_lines_count",
        turns: &["How many lines of ~/poems/sea.txt have text on them?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("4") && s.read("poems/sea.txt").as_deref() == Some(SEA) && !s.abandoned,
                "4 lines hold text (of 7; 3 are blank)",
            )
        },
    },
    Task {
        name: "genre_counts",
        turns: &["How many books of each genre are in ~/library/books.csv?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                super::harness::counts_per_group(
                    &s.text,
                    &[("fiction", "3"), ("history", "2"), ("poetry", "1")],
                ) && s.read("library/books.csv").as_deref() == Some(BOOKS)
                    && !s.abandoned,
                "fiction 3, history 2, poetry 1, each beside its genre",
            )
        },
    },
    Task {
        name: "contract_date_after",
        turns: &["What date is 45 days after the start date written in ~/docs/contract.txt?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                super::harness::has_date(&s.text, "2026-04-24")
                    && !super::harness::has_date(&s.text, "2026-04-25")
                    && !super::harness::has_date(&s.text, "2026-04-23")
                    && s.read("docs/contract.txt").as_deref() == Some(CONTRACT)
                    && !s.abandoned,
                "2026-04-24 (45 days after 2026-03-10)",
            )
        },
    },
    Task {
        name: "jpeg_renamed",
        turns: &["Rename the .jpeg files in ~/pics so that they end in .jpg instead."],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.entries("pics") == ["boat.jpg", "hill.jpg", "map.png"]
                    && s.bytes("pics/boat.jpg").as_deref() == Some(PICS[0].1)
                    && s.bytes("pics/hill.jpg").as_deref() == Some(PICS[1].1)
                    && s.bytes("pics/map.png").as_deref() == Some(PICS[2].1)
                    && !s.abandoned,
                "~/pics holds boat.jpg, hill.jpg (their own bytes) and map.png",
            )
        },
    },
    Task {
        name: "card_orders_percent",
        turns: &["What percentage of the orders in ~/shop/orders.csv were paid by card?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number_any(&["42.86", "42.9", "43", "42.857"])
                    && !s.number_any(&["57.14", "57.1", "55.91", "55.9", "56"])
                    && s.read("shop/orders.csv").as_deref() == Some(ORDERS)
                    && !s.abandoned,
                "about 42.86 % (3 of 7 orders), not the share of the amount (55.9 %)",
            )
        },
    },
    Task {
        name: "countries_saved",
        turns: &[
            "Write each country that appears in ~/crm/customers.csv, once, into a new file ~/crm/countries.txt, one per line.",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                sorted_lines(s, "crm/countries.txt") == ["France", "Japan", "Peru"]
                    && s.read("crm/customers.csv").as_deref() == Some(CUSTOMERS)
                    && !s.abandoned,
                "countries.txt holds France, Japan and Peru, each once",
            )
        },
    },
    Task {
        name: "big_logs_count",
        turns: &["How many .log files in ~/var are larger than 1 KB?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("2")
                    && s.entries("var") == ["app.log", "db.log", "dump.dat", "web.log"]
                    && !s.abandoned,
                "2 (app.log and web.log), not the 3 .log files nor the 3 files above 1 KB",
            )
        },
    },
    Task {
        name: "refund_names_saved",
        turns: &[
            "Write the names of the messages in ~/mail that mention a refund into a new file ~/mail/refunds.txt, one per line.",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                listed_names(s, "mail/refunds.txt").as_deref()
                    == Some(&["msg1.txt".to_string(), "msg3.txt".to_string()][..])
                    && !s.abandoned,
                "refunds.txt names msg1.txt and msg3.txt alone",
            )
        },
    },
    Task {
        name: "rent_after_raise",
        turns: &["What will the monthly rent in ~/docs/lease.txt be after a 5% increase?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("1260")
                    && s.read("docs/lease.txt").as_deref() == Some(LEASE)
                    && !s.abandoned,
                "1260 (1200 raised by 5%)",
            )
        },
    },
    Task {
        name: "budget_share",
        turns: &["What is 15% of the total of the amounts in ~/money/budget.csv?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("180")
                    && s.read("money/budget.csv").as_deref() == Some(BUDGET)
                    && !s.abandoned,
                "180 (15% of 1200)",
            )
        },
    },
    Task {
        name: "tmp_files_deleted",
        turns: &["Delete the .tmp files in ~/cache."],
        law1: Law1::Approve,
        judge: |s| {
            check(
                s.entries("cache") == ["data.json", "keep.txt"]
                    && s.bytes("cache/keep.txt").as_deref() == Some(CACHE[3].1)
                    && !s.abandoned,
                "~/cache holds data.json and keep.txt alone",
            )
        },
    },
    Task {
        name: "oldest_file_named",
        turns: &["Which file in ~/archive was changed longest ago?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names("report.doc")
                    && !s.names("notes.txt")
                    && !s.names("scan.pdf")
                    && s.entries("archive") == ["notes.txt", "report.doc", "scan.pdf"]
                    && !s.abandoned,
                "report.doc alone",
            )
        },
    },
    Task {
        name: "largest_bill_share",
        turns: &["What is 20% of the largest amount in ~/money/bills.csv?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("11")
                    && s.read("money/bills.csv").as_deref() == Some(BILLS)
                    && !s.abandoned,
                "11 (20% of 55.00)",
            )
        },
    },
    Task {
        name: "budget_notes_named",
        turns: &["Which files in ~/meetings mention the budget?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names("mon.txt")
                    && s.names("wed.txt")
                    && !s.names("tue.txt")
                    && !s.names("thu.txt")
                    && s.entries("meetings") == ["mon.txt", "thu.txt", "tue.txt", "wed.txt"]
                    && !s.abandoned,
                "mon.txt and wed.txt, and no other file",
            )
        },
    },
    Task {
        name: "trip_days_between",
        turns: &["How many days are there between the two flight dates in ~/travel/trip.txt?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("17")
                    && !s.number_any(&["16", "18"])
                    && s.read("travel/trip.txt").as_deref() == Some(TRIP)
                    && !s.abandoned,
                "17 days (2026-03-02 to 2026-03-19)",
            )
        },
    },
    Task {
        name: "top_spending_month",
        turns: &["Which month in ~/money/spending.csv had the highest total spending?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names_any(&["2026-02", "February"])
                    && !s.names_any(&["2026-01", "January", "2026-03", "March"])
                    && s.read("money/spending.csv").as_deref() == Some(SPENDING)
                    && !s.abandoned,
                "2026-02 (200 in all), not March (the largest single amount)",
            )
        },
    },
    Task {
        name: "empty_files_named",
        turns: &["Which files in ~/src are empty?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names("lib.rs")
                    && s.names("mod.rs")
                    && !s.names("main.rs")
                    && !s.names("util.rs")
                    && s.entries("src") == ["lib.rs", "main.rs", "mod.rs", "util.rs"]
                    && !s.abandoned,
                "lib.rs and mod.rs, and no other file",
            )
        },
    },
    Task {
        name: "alpha_hours_total",
        turns: &["How many hours did I log for project Alpha in ~/work/hours.csv?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("9.5")
                    && s.read("work/hours.csv").as_deref() == Some(HOURS)
                    && !s.abandoned,
                "9.5 hours (3 + 2.5 + 4), not the 15 of every project",
            )
        },
    },
    Task {
        name: "distinct_ips_count",
        turns: &["How many different IP addresses appear in ~/logs/access.log?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("4")
                    && !s.number("6")
                    && s.read("logs/access.log").as_deref() == Some(ACCESS_LOG)
                    && !s.abandoned,
                "4 addresses, not the 6 requests",
            )
        },
    },
    Task {
        name: "oven_celsius",
        turns: &[
            "The bread recipe in ~/notes/oven.txt gives the oven temperature in Fahrenheit. What is it in Celsius?",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("220")
                    && !s.number_any(&["237.8", "238", "205.6"])
                    && s.read("notes/oven.txt").as_deref() == Some(OVEN)
                    && !s.abandoned,
                "220 °C (428 °F)",
            )
        },
    },
    Task {
        name: "draft_renamed_final",
        turns: &["Rename ~/docs/draft.txt to final.txt."],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.entries("docs") == ["contract.txt", "final.txt", "lease.txt"]
                    && s.read("docs/final.txt").as_deref() == Some(DRAFT)
                    && !s.abandoned,
                "~/docs holds final.txt with the draft's text, and no draft.txt",
            )
        },
    },
    Task {
        name: "debug_enabled",
        turns: &["Is debug mode turned on in ~/app/config.ini?"],
        law1: Law1::Never,
        judge: |s| {
            let no = ["no", "not", "off", "false", "disabled"]
                .iter()
                .any(|w| super::harness::has_word(&s.text, w));
            check(
                no && !super::harness::has_word(&s.text, "yes")
                    && s.read("app/config.ini").as_deref() == Some(CONFIG)
                    && !s.abandoned,
                "no: debug = false (the comment's true is not the setting)",
            )
        },
    },
    Task {
        name: "latest_order_date",
        turns: &["When was the most recent order in ~/shop/orders2.csv placed?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names_any(&["2026-11-20", "November 20"])
                    && !s.names_any(&["2026-11-02", "2026-10-05", "2026-09-14"])
                    && s.read("shop/orders2.csv").as_deref() == Some(ORDERS2)
                    && !s.abandoned,
                "2026-11-20 (order A2), not the last row's date",
            )
        },
    },
    Task {
        name: "coldest_day_named",
        turns: &["Which day in ~/weather/week.csv had the lowest low temperature?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.names("Tuesday")
                    && !s.names_any(&["Monday", "Wednesday", "Thursday"])
                    && s.read("weather/week.csv").as_deref() == Some(WEEK)
                    && !s.abandoned,
                "Tuesday (low 3), not Wednesday (the lowest high)",
            )
        },
    },
    Task {
        name: "call_hours_total",
        turns: &[
            "The call lengths in ~/work/calls.csv are in minutes. How many hours of calls is that in total?",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("5") && s.read("work/calls.csv").as_deref() == Some(CALLS) && !s.abandoned,
                "5 hours (300 minutes)",
            )
        },
    },
    Task {
        name: "larger_than_intro_count",
        turns: &["How many files in ~/music are larger than ~/music/intro.mp3?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("3")
                    && !s.number("4")
                    && s.entries("music") == ["a.mp3", "b.mp3", "c.mp3", "d.wav", "intro.mp3"]
                    && !s.abandoned,
                "3 (a.mp3, c.mp3 and d.wav), not the 4 other files",
            )
        },
    },
    Task {
        name: "letter_mentions_invoice",
        turns: &["Does ~/notes/letter.txt mention an invoice?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                super::harness::has_word(&s.text, "yes")
                    && !super::harness::has_word(&s.text, "no")
                    && s.read("notes/letter.txt").as_deref() == Some(LETTER)
                    && !s.abandoned,
                "yes (line 3: The Invoice for March is attached)",
            )
        },
    },
    Task {
        name: "meeting_length",
        turns: &["How long is the meeting in ~/calendar/meeting.txt, in minutes?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("105")
                    && s.read("calendar/meeting.txt").as_deref() == Some(MEETING)
                    && !s.abandoned,
                "105 minutes (09:30 to 11:15)",
            )
        },
    },
    Task {
        name: "nested_files_count",
        turns: &["How many files are there in ~/projects2, counting those in its subfolders?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("4") && !s.number("3") && !s.abandoned,
                "4 files (x.txt, y.txt, w.txt, z.txt), not the 3 entries at the top",
            )
        },
    },
    Task {
        name: "sales_growth_percent",
        turns: &[
            "By what percentage did sales grow from January to February in ~/shop/monthly.csv?",
        ],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("25")
                    && !s.number("20")
                    && s.read("shop/monthly.csv").as_deref() == Some(MONTHLY)
                    && !s.abandoned,
                "25 % (200 to 250), not 20 % (50 of 250)",
            )
        },
    },
    Task {
        name: "two_files_size",
        turns: &["What is the combined size of ~/docs2/a.pdf and ~/docs2/b.pdf in bytes?"],
        law1: Law1::Never,
        judge: |s| {
            check(
                s.number("2000")
                    && !s.number("2500")
                    && s.entries("docs2") == ["a.pdf", "b.pdf", "c.pdf"]
                    && !s.abandoned,
                "2000 bytes (1200 + 800), not the folder's 2500",
            )
        },
    },
];

task_tests!(SUITE, at_least = 62;
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
    expenses_total_saved,
    confirmed_guests_count,
    payment_error_line,
    newest_names_saved,
    card_orders_count,
    recent_photos_count,
    second_warning_line,
    smallest_bill_saved,
    low_stock_count,
    emails_saved,
    invoice_letters_copied,
    empty_line_count,
    largest_folder_named,
    links_saved,
    big_sales_total,
    garden_entries_count,
    recent_parcels_bytes,
    cheap_products_saved,
    urgent_notes_moved,
    warm_days_mean,
    text_lines_count,
    genre_counts,
    contract_date_after,
    jpeg_renamed,
    card_orders_percent,
    countries_saved,
    big_logs_count,
    refund_names_saved,
    rent_after_raise,
    budget_share,
    tmp_files_deleted,
    oldest_file_named,
    largest_bill_share,
    budget_notes_named,
    trip_days_between,
    top_spending_month,
    empty_files_named,
    alpha_hours_total,
    distinct_ips_count,
    oven_celsius,
    draft_renamed_final,
    debug_enabled,
    latest_order_date,
    coldest_day_named,
    call_hours_total,
    larger_than_intro_count,
    letter_mentions_invoice,
    meeting_length,
    nested_files_count,
    sales_growth_percent,
    two_files_size,
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
    #[test]
    fn expenses_total_saved() {
        end_states(
            "expenses_total_saved",
            "Saved 55.50 to ~/money/total.txt.",
            |h| put(h, "money/total.txt", b"55.50\n"),
            &[
                // Whole amounts only; the last three; the right total in a sentence.
                |h| put(h, "money/total.txt", b"54\n"),
                |h| put(h, "money/total.txt", b"43.00\n"),
                |h| put(h, "money/total.txt", b"The total is 55.50\n"),
            ],
        );
    }

    #[test]
    fn confirmed_guests_count() {
        right_and_wrong(
            "confirmed_guests_count",
            "3 guests have confirmed: Anna, Cleo and Eli.",
            &[
                "0 guests have confirmed.",
                "2 guests said no.",
                "6 guests are on the list.",
            ],
        );
    }

    #[test]
    fn payment_error_line() {
        right_and_wrong(
            "payment_error_line",
            "Line 3: 09:02 ERROR payment declined",
            &[
                "09:01 ERROR network down",
                "09:00 INFO payment started",
                "09:00 INFO payment started\n09:01 ERROR network down\n09:02 ERROR payment declined\n09:03 INFO payment done\n09:04 ERROR disk slow",
            ],
        );
    }

    #[test]
    fn newest_names_saved() {
        end_states(
            "newest_names_saved",
            "Saved 2 names to ~/recent.txt.",
            |h| put(h, "recent.txt", b"slides.pdf\nsong.mp3\n"),
            &[
                // The oldest two; the text files only; every file.
                |h| put(h, "recent.txt", b"notes.txt\narchive.zip\n"),
                |h| put(h, "recent.txt", b"notes.txt\n"),
                |h| {
                    put(
                        h,
                        "recent.txt",
                        b"slides.pdf\nsong.mp3\nnotes.txt\narchive.zip\n",
                    )
                },
            ],
        );
    }
    #[test]
    fn card_orders_count() {
        right_and_wrong(
            "card_orders_count",
            "3 orders were paid by card.",
            &[
                "7 orders.",
                "4 orders were paid in cash.",
                "3 orders were paid in cash, 4 by card.",
            ],
        );
    }

    #[test]
    fn recent_photos_count() {
        right_and_wrong(
            "recent_photos_count",
            "2 photos were changed in the last week: beach.jpg and cake.jpg.",
            &[
                "5 photos.",
                "3 photos are older than a week.",
                "2 are older than a month, 3 older than a week.",
            ],
        );
    }

    #[test]
    fn second_warning_line() {
        right_and_wrong(
            "second_warning_line",
            "Line 4: warn deprecated call",
            &["warn unused import", "warn slow test", "ok link"],
        );
    }

    #[test]
    fn smallest_bill_saved() {
        end_states(
            "smallest_bill_saved",
            "Saved 7.40 to ~/money/min.txt.",
            |h| put(h, "money/min.txt", b"7.40\n"),
            &[
                // The first amount; the largest; the month instead of the amount.
                |h| put(h, "money/min.txt", b"42.10\n"),
                |h| put(h, "money/min.txt", b"55.00\n"),
                |h| put(h, "money/min.txt", b"Feb\n"),
            ],
        );
    }

    #[test]
    fn low_stock_count() {
        right_and_wrong(
            "low_stock_count",
            "3 items have fewer than 5 in stock: rice, tea and milk.",
            &[
                "6 items.",
                "4 items have 5 or fewer.",
                "rice 1, tea 0, milk 2",
            ],
        );
    }

    #[test]
    fn emails_saved() {
        end_states(
            "emails_saved",
            "Saved 3 addresses to ~/contacts/emails.txt.",
            |h| {
                put(
                    h,
                    "contacts/emails.txt",
                    b"ana@example.org\nben.ruiz@mail.test\ndan@home.test\n",
                )
            },
            &[
                // The whole lines; two of the three; the right ones on one line.
                |h| put(h, "contacts/emails.txt", super::CONTACTS.as_bytes()),
                |h| {
                    put(
                        h,
                        "contacts/emails.txt",
                        b"ana@example.org\ndan@home.test\n",
                    )
                },
                |h| {
                    put(
                        h,
                        "contacts/emails.txt",
                        b"ana@example.org, ben.ruiz@mail.test, dan@home.test\n",
                    )
                },
            ],
        );
    }

    #[test]
    fn invoice_letters_copied() {
        end_states(
            "invoice_letters_copied",
            "Copied 2 files into ~/invoices.",
            |h| {
                for (name, text) in [super::LETTERS[0], super::LETTERS[2]] {
                    put(h, &format!("invoices/{name}"), text.as_bytes());
                }
            },
            &[
                // Every letter; only the one whose first word says it; moved, not copied.
                |h| {
                    for (name, text) in super::LETTERS {
                        put(h, &format!("invoices/{name}"), text.as_bytes());
                    }
                },
                |h| put(h, "invoices/march.txt", super::LETTERS[0].1.as_bytes()),
                |h| {
                    for (name, text) in [super::LETTERS[0], super::LETTERS[2]] {
                        put(h, &format!("invoices/{name}"), text.as_bytes());
                        std::fs::remove_file(h.join(format!("letters/{name}"))).expect("moved");
                    }
                },
            ],
        );
    }

    #[test]
    fn empty_line_count() {
        right_and_wrong(
            "empty_line_count",
            "~/docs/draft.txt has 3 empty lines.",
            &["7 lines.", "4 lines have text.", "2 empty lines."],
        );
    }

    #[test]
    fn largest_folder_named() {
        right_and_wrong(
            "largest_folder_named",
            "beta takes up the most space (5000 bytes).",
            &[
                "alpha, with 3 files.",
                "model.bin",
                "gamma takes 200 bytes, beta 5000.",
            ],
        );
    }

    #[test]
    fn links_saved() {
        end_states(
            "links_saved",
            "Saved 3 links to ~/notes/links.txt.",
            |h| {
                put(
                    h,
                    "notes/links.txt",
                    b"https://essays.test/slow-web\nhttps://news.test/a?id=7\nhttp://video.test/talk\n",
                )
            },
            &[
                // The repeated link twice; the lines that hold links; a link with the
                // sentence's closing bracket.
                |h| {
                    put(
                        h,
                        "notes/links.txt",
                        b"https://essays.test/slow-web\nhttps://news.test/a?id=7\n\
                          https://essays.test/slow-web\nhttp://video.test/talk\n",
                    )
                },
                |h| put(h, "notes/links.txt", super::READING.as_bytes()),
                |h| {
                    put(
                        h,
                        "notes/links.txt",
                        b"https://essays.test/slow-web\nhttps://news.test/a?id=7)\nhttp://video.test/talk\n",
                    )
                },
            ],
        );
    }

    #[test]
    fn big_sales_total() {
        right_and_wrong(
            "big_sales_total",
            "The sales over 100 total 600.",
            &["849.5", "700 (100 and over)", "3 sales."],
        );
    }

    #[test]
    fn garden_entries_count() {
        right_and_wrong(
            "garden_entries_count",
            "2 files mention the garden: mon.txt and thu.txt.",
            &["5 files.", "1 file: mon.txt", "none"],
        );
    }

    #[test]
    fn recent_parcels_bytes() {
        right_and_wrong(
            "recent_parcels_bytes",
            "They take up 350 bytes together.",
            &["4400 bytes", "4350 bytes", "2 files."],
        );
    }

    #[test]
    fn cheap_products_saved() {
        end_states(
            "cheap_products_saved",
            "Saved 2 names to ~/shop/cheap.txt.",
            |h| put(h, "shop/cheap.txt", b"bread\nmilk\n"),
            &[
                // With the product at exactly 3; every product; the prices, not the names.
                |h| put(h, "shop/cheap.txt", b"bread\nmilk\napples\n"),
                |h| put(h, "shop/cheap.txt", b"bread\nmilk\ncheese\napples\ntea\n"),
                |h| put(h, "shop/cheap.txt", b"2.50\n1.20\n"),
            ],
        );
    }

    #[test]
    fn urgent_notes_moved() {
        end_states(
            "urgent_notes_moved",
            "Moved 2 notes into ~/urgent.",
            |h| {
                for (name, text) in [super::DESK[0], super::DESK[2]] {
                    put(h, &format!("urgent/{name}"), text.as_bytes());
                    std::fs::remove_file(h.join(format!("desk/{name}"))).expect("moved");
                }
            },
            &[
                // Copied, not moved; only the one in capitals; every note.
                |h| {
                    for (name, text) in [super::DESK[0], super::DESK[2]] {
                        put(h, &format!("urgent/{name}"), text.as_bytes());
                    }
                },
                |h| {
                    let (name, text) = super::DESK[0];
                    put(h, &format!("urgent/{name}"), text.as_bytes());
                    std::fs::remove_file(h.join(format!("desk/{name}"))).expect("moved");
                },
                |h| {
                    for (name, text) in super::DESK {
                        put(h, &format!("urgent/{name}"), text.as_bytes());
                        std::fs::remove_file(h.join(format!("desk/{name}"))).expect("moved");
                    }
                },
            ],
        );
    }

    #[test]
    fn warm_days_mean() {
        right_and_wrong(
            "warm_days_mean",
            "The days above 20 average 25.5 degrees.",
            &["23.17", "The average is 23.2.", "4 days are above 20."],
        );
    }

    #[test]
    fn text_lines_count() {
        right_and_wrong(
            "text_lines_count",
            "4 lines of sea.txt have text on them.",
            &["The file has 7 lines.", "3 lines.", "7"],
        );
    }

    #[test]
    fn genre_counts() {
        right_and_wrong(
            "genre_counts",
            "fiction: 3, history: 2, poetry: 1",
            &[
                // One total; two counts swapped; a genre missing.
                "There are 6 books.",
                "fiction: 3, history: 1, poetry: 2",
                "fiction: 3, history: 2",
            ],
        );
    }

    #[test]
    fn contract_date_after() {
        right_and_wrong(
            "contract_date_after",
            "45 days after 2026-03-10 is 2026-04-24.",
            &[
                "2026-04-25",
                "The contract starts on 2026-03-10.",
                "April 23, 2026",
            ],
        );
    }

    #[test]
    fn jpeg_renamed() {
        end_states(
            "jpeg_renamed",
            "Renamed 2 files.",
            |h| {
                for (name, bytes) in &super::PICS[..2] {
                    let stem = name.trim_end_matches(".jpeg");
                    put(h, &format!("pics/{stem}.jpg"), bytes);
                    std::fs::remove_file(h.join(format!("pics/{name}"))).expect("renamed");
                }
            },
            &[
                // Copied, the old names left; one of the two; the png renamed as well.
                |h| {
                    for (name, bytes) in &super::PICS[..2] {
                        let stem = name.trim_end_matches(".jpeg");
                        put(h, &format!("pics/{stem}.jpg"), bytes);
                    }
                },
                |h| {
                    put(h, "pics/boat.jpg", super::PICS[0].1);
                    std::fs::remove_file(h.join("pics/boat.jpeg")).expect("renamed");
                },
                |h| {
                    for (name, bytes) in super::PICS {
                        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
                        put(h, &format!("pics/{stem}.jpg"), bytes);
                        std::fs::remove_file(h.join(format!("pics/{name}"))).expect("renamed");
                    }
                },
            ],
        );
    }

    #[test]
    fn card_orders_percent() {
        right_and_wrong(
            "card_orders_percent",
            "3 of the 7 orders were paid by card: 42.86%.",
            &[
                "57.14%",
                "55.9% of the money was paid by card.",
                "3 orders were paid by card.",
            ],
        );
    }

    #[test]
    fn countries_saved() {
        end_states(
            "countries_saved",
            "Saved 3 countries to ~/crm/countries.txt.",
            |h| put(h, "crm/countries.txt", b"Peru\nFrance\nJapan\n"),
            &[
                // Every row's country; the customers' names; one missing.
                |h| {
                    put(
                        h,
                        "crm/countries.txt",
                        b"Peru\nFrance\nJapan\nPeru\nFrance\nPeru\n",
                    )
                },
                |h| put(h, "crm/countries.txt", b"Ana\nBen\nChen\n"),
                |h| put(h, "crm/countries.txt", b"Peru\nFrance\n"),
            ],
        );
    }

    #[test]
    fn big_logs_count() {
        right_and_wrong(
            "big_logs_count",
            "2 .log files are larger than 1 KB: app.log and web.log.",
            &[
                "3 files are larger than 1 KB.",
                "There are 3 .log files.",
                "1",
            ],
        );
    }

    #[test]
    fn refund_names_saved() {
        end_states(
            "refund_names_saved",
            "Saved 2 names to ~/mail/refunds.txt.",
            |h| put(h, "mail/refunds.txt", b"msg1.txt\nmsg3.txt\n"),
            &[
                // Only the one in lower case; every message; the lines, not the names.
                |h| put(h, "mail/refunds.txt", b"msg1.txt\n"),
                |h| {
                    put(
                        h,
                        "mail/refunds.txt",
                        b"msg1.txt\nmsg2.txt\nmsg3.txt\nmsg4.txt\n",
                    )
                },
                |h| {
                    put(
                        h,
                        "mail/refunds.txt",
                        b"Hello, I would like a refund for order 12.\nThe blender broke; please send a Refund.\n",
                    )
                },
            ],
        );
    }

    #[test]
    fn rent_after_raise() {
        right_and_wrong(
            "rent_after_raise",
            "After a 5% increase the rent is 1260.",
            &["The rent is 1200.", "The increase is 60.", "1205"],
        );
    }

    #[test]
    fn budget_share() {
        right_and_wrong(
            "budget_share",
            "15% of the total (1200) is 180.",
            &["The total is 1200.", "120", "1380"],
        );
    }

    #[test]
    fn tmp_files_deleted() {
        harness::end_states(
            &SUITE,
            "tmp_files_deleted",
            "Deleted a.tmp and b.tmp.",
            1,
            |h| {
                for name in ["a.tmp", "b.tmp"] {
                    std::fs::remove_file(h.join(format!("cache/{name}"))).expect("deleted");
                }
            },
            &[
                // Only one; every file; nothing.
                |h| std::fs::remove_file(h.join("cache/a.tmp")).expect("deleted"),
                |h| std::fs::remove_dir_all(h.join("cache")).expect("deleted"),
                |_| {},
            ],
        );
    }

    #[test]
    fn oldest_file_named() {
        right_and_wrong(
            "oldest_file_named",
            "report.doc was changed longest ago (400 days).",
            &[
                "notes.txt",
                "400 days ago.",
                "report.doc, then scan.pdf and notes.txt",
            ],
        );
    }

    #[test]
    fn largest_bill_share() {
        right_and_wrong(
            "largest_bill_share",
            "20% of the largest amount (55.00) is 11.",
            &["The largest amount is 55.00.", "8.42", "24.9"],
        );
    }

    #[test]
    fn budget_notes_named() {
        right_and_wrong(
            "budget_notes_named",
            "mon.txt and wed.txt mention the budget.",
            &[
                // Only one; every file; the lines, not the files.
                "mon.txt",
                "mon.txt, thu.txt, tue.txt and wed.txt",
                "We discussed the budget for Q3. Budget cuts again.",
            ],
        );
    }

    #[test]
    fn trip_days_between() {
        right_and_wrong(
            "trip_days_between",
            "There are 17 days between 2026-03-02 and 2026-03-19.",
            &[
                "18 days.",
                "The flights are on 2026-03-02 and 2026-03-19.",
                "16",
            ],
        );
    }

    #[test]
    fn top_spending_month() {
        right_and_wrong(
            "top_spending_month",
            "2026-02 had the highest total (200).",
            &[
                // The month of the largest row; the total alone; every month.
                "2026-03",
                "200",
                "2026-01: 120, 2026-02: 200, 2026-03: 150",
            ],
        );
    }

    #[test]
    fn empty_files_named() {
        right_and_wrong(
            "empty_files_named",
            "lib.rs and mod.rs are empty.",
            &[
                "lib.rs",
                "main.rs, lib.rs, util.rs and mod.rs",
                "2 files are empty.",
            ],
        );
    }

    #[test]
    fn alpha_hours_total() {
        right_and_wrong(
            "alpha_hours_total",
            "You logged 9.5 hours for Alpha.",
            &["15 hours.", "Alpha has 3 entries.", "9 hours."],
        );
    }

    #[test]
    fn distinct_ips_count() {
        right_and_wrong(
            "distinct_ips_count",
            "4 different IP addresses.",
            &["6", "3 addresses.", "10.0.0.5, 10.0.0.7"],
        );
    }

    #[test]
    fn oven_celsius() {
        right_and_wrong(
            "oven_celsius",
            "428 °F is 220 °C.",
            &["428 F.", "About 237.8 °C.", "35 minutes."],
        );
    }

    #[test]
    fn draft_renamed_final() {
        end_states(
            "draft_renamed_final",
            "Renamed draft.txt to final.txt.",
            |h| {
                put(h, "docs/final.txt", super::DRAFT.as_bytes());
                std::fs::remove_file(h.join("docs/draft.txt")).expect("renamed");
            },
            &[
                // Copied, the old name left; an empty file under the new name; moved to
                // the home.
                |h| put(h, "docs/final.txt", super::DRAFT.as_bytes()),
                |h| {
                    put(h, "docs/final.txt", b"");
                    std::fs::remove_file(h.join("docs/draft.txt")).expect("renamed");
                },
                |h| {
                    put(h, "final.txt", super::DRAFT.as_bytes());
                    std::fs::remove_file(h.join("docs/draft.txt")).expect("renamed");
                },
            ],
        );
    }

    #[test]
    fn debug_enabled() {
        right_and_wrong(
            "debug_enabled",
            "No: debug = false in config.ini.",
            &["Yes.", "Debug mode is on (debug = true).", "port = 8080"],
        );
    }

    #[test]
    fn latest_order_date() {
        right_and_wrong(
            "latest_order_date",
            "The most recent order (A2) was placed on 2026-11-20.",
            &["2026-11-02", "2026-09-14", "Order A4."],
        );
    }

    #[test]
    fn coldest_day_named() {
        right_and_wrong(
            "coldest_day_named",
            "Tuesday had the lowest low (3).",
            &["Wednesday", "3", "Monday, Tuesday, Wednesday and Thursday"],
        );
    }

    #[test]
    fn call_hours_total() {
        right_and_wrong(
            "call_hours_total",
            "300 minutes is 5 hours.",
            &["300 minutes.", "150", "2.5 hours"],
        );
    }

    #[test]
    fn larger_than_intro_count() {
        right_and_wrong(
            "larger_than_intro_count",
            "3 files are larger than intro.mp3.",
            &["4", "2 files.", "a.mp3 is larger."],
        );
    }

    #[test]
    fn letter_mentions_invoice() {
        right_and_wrong(
            "letter_mentions_invoice",
            "Yes: line 3 says \"The Invoice for March is attached.\"",
            &[
                "No.",
                "No, it does not mention an invoice.",
                "Dear Sam, Thanks for the visit.",
            ],
        );
    }

    #[test]
    fn meeting_length() {
        right_and_wrong(
            "meeting_length",
            "The meeting lasts 105 minutes (09:30 to 11:15).",
            &["1.75", "It starts at 09:30.", "85 minutes"],
        );
    }

    #[test]
    fn nested_files_count() {
        right_and_wrong(
            "nested_files_count",
            "There are 4 files.",
            &["3", "1 file (z.txt).", "3 entries: a, c and z.txt"],
        );
    }

    #[test]
    fn sales_growth_percent() {
        right_and_wrong(
            "sales_growth_percent",
            "Sales grew by 25% (200 to 250).",
            &["50", "20%", "Sales grew from 200 to 250."],
        );
    }

    #[test]
    fn two_files_size() {
        right_and_wrong(
            "two_files_size",
            "Together they take 2000 bytes.",
            &["2500 bytes", "1200 bytes and 800 bytes", "2 KB"],
        );
    }
}
