//! CSV, TSV and other delimited text: the delimiter sniffed among `,` `;` tab `|` (quoted
//! fields respected), the header row detected, broken quoting confined to its row.

use super::{Row, Table, num, plural};

/// The delimiters sniffed, in order of preference on a tie.
const DELIMITERS: [u8; 4] = [b',', b'\t', b';', b'|'];

/// Bytes looked at to sniff the delimiter.
const SNIFF_BYTES: usize = 64 * 1024;

/// Records looked at to sniff the delimiter, detect the header and the decimal comma.
const SAMPLE_RECORDS: usize = 100;

/// Rows with broken quoting re-read one by one; past this the rest of the file is read with
/// quotes as plain characters, so a pathological file cannot make reading quadratic.
const MAX_BROKEN: usize = 20;

/// Broken rows described one by one in the notes.
const MAX_BROKEN_NOTES: usize = 5;

/// The table in `text` (delimited), with at most `max_rows` data rows kept. Its name is left
/// empty for the caller.
pub(super) fn read(text: &str, prefer_tab: bool, max_rows: usize) -> Table {
    let sniffed = sniff(text, prefer_tab);
    let delim = sniffed.unwrap_or(if prefer_tab { b'\t' } else { b',' });
    let scan = scan(text, delim, max_rows.saturating_add(1));
    let mut notes = Vec::new();
    let Some(first) = scan.kept.first() else {
        let format = if text.trim().is_empty() {
            "empty file".to_owned()
        } else {
            "CSV (no readable row)".to_owned()
        };
        notes.extend(broken_notes(&scan, None, 0));
        return Table {
            name: String::new(),
            format,
            columns: Vec::new(),
            rows: Vec::new(),
            total_rows: 0,
            notes,
            decimal_comma: false,
        };
    };
    let sample: Vec<&[String]> = scan
        .kept
        .iter()
        .take(SAMPLE_RECORDS)
        .map(|r| r.fields.as_slice())
        .collect();
    let decimal_comma = delim != b','
        && sample
            .iter()
            .any(|r| r.iter().any(|c| num::shows_decimal_comma(c)));
    let header = detect_header(&first.fields, &sample[1..], decimal_comma);
    let header_ordinal = header.then_some(first.ordinal);
    let data = if header {
        &scan.kept[1..]
    } else {
        &scan.kept[..]
    };
    let total_rows = scan.good - usize::from(header);
    let data = &data[..data.len().min(max_rows)];
    let width = data
        .iter()
        .map(|r| r.fields.len())
        .chain([first.fields.len()])
        .max()
        .unwrap_or(0);
    let mut columns: Vec<String> = Vec::with_capacity(width);
    for i in 0..width {
        let raw = if header {
            first.fields.get(i).map_or("", |s| s.trim())
        } else {
            ""
        };
        let base = if raw.is_empty() {
            format!("col{}", i + 1)
        } else {
            raw.to_owned()
        };
        let mut name = base.clone();
        let mut k = 2;
        while columns.iter().any(|c| c == &name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        columns.push(name);
    }
    let rows = data
        .iter()
        .map(|r| {
            let mut cells = r.fields.clone();
            cells.resize(width, String::new());
            Row {
                n: data_row_number(r.ordinal, header_ordinal),
                cells,
            }
        })
        .collect();
    let delim_name = match delim {
        b'\t' => "tab".to_owned(),
        d => format!("'{}'", char::from(d)),
    };
    let head = if header {
        "header row".to_owned()
    } else {
        format!("no header row: columns named col1…col{width}")
    };
    let format = match sniffed {
        Some(_) => format!("CSV (delimiter {delim_name}, {head})"),
        None => format!("text with one column (no delimiter found, {head})"),
    };
    if scan.blank > 0 {
        notes.push(format!(
            "{} with no values were skipped",
            plural(scan.blank, "blank row", "blank rows")
        ));
    }
    notes.extend(broken_notes(&scan, header_ordinal, total_rows));
    if scan.unquoted_from > 0 {
        notes.push(format!(
            "more than {MAX_BROKEN} rows had broken quoting; from line {} on, quotes were read as plain characters",
            scan.unquoted_from
        ));
    }
    if decimal_comma {
        notes.push("numbers are written with a decimal comma (12,5 is 12.5)".to_owned());
    }
    Table {
        name: String::new(),
        format,
        columns,
        rows,
        total_rows,
        notes,
        decimal_comma,
    }
}

/// The 1-based data row number of the record at `ordinal`.
fn data_row_number(ordinal: usize, header_ordinal: Option<usize>) -> usize {
    match header_ordinal {
        Some(h) => ordinal.saturating_sub(h),
        None => ordinal + 1,
    }
}

/// One note per unreadable row (the first few), then one for the rest.
fn broken_notes(scan: &Scan, header_ordinal: Option<usize>, total_rows: usize) -> Vec<String> {
    let mut notes = Vec::new();
    for b in scan.broken.iter().take(MAX_BROKEN_NOTES) {
        let row = match header_ordinal {
            Some(h) if b.ordinal < h => format!("line {}", b.line),
            _ => format!(
                "row {} (line {})",
                data_row_number(b.ordinal, header_ordinal),
                b.line
            ),
        };
        notes.push(format!(
            "{row} could not be read: {}; it was skipped ({} read)",
            b.why,
            plural(total_rows, "row", "rows")
        ));
    }
    if scan.broken.len() > MAX_BROKEN_NOTES {
        notes.push(format!(
            "{} more rows could not be read and were skipped",
            scan.broken.len() - MAX_BROKEN_NOTES
        ));
    }
    notes
}

/// A record as read.
struct Record {
    /// Its index among all records, unreadable ones included (blank ones not).
    ordinal: usize,
    /// Its fields, untrimmed.
    fields: Vec<String>,
}

/// A record that could not be read.
struct Broken {
    /// Its index among all records.
    ordinal: usize,
    /// The line it starts on.
    line: u64,
    /// What is wrong with it.
    why: String,
}

/// What [`scan`] found.
#[derive(Default)]
struct Scan {
    /// The first records kept.
    kept: Vec<Record>,
    /// The records that could not be read.
    broken: Vec<Broken>,
    /// Records read, kept or not.
    good: usize,
    /// Records with no value at all, skipped.
    blank: usize,
    /// The line from which quotes were read as plain characters (0: never).
    unquoted_from: u64,
}

/// Reads the records of `text`, keeping the first `keep`. A record whose quoted field runs
/// over several lines and is never closed, or changes the record's width, is a broken row:
/// it is skipped and reading goes on at the line after its first.
fn scan(text: &str, delim: u8, keep: usize) -> Scan {
    let mut out = Scan::default();
    let mut base = 0usize;
    let mut base_line = 1u64;
    let mut ordinal = 0usize;
    let mut expected_width: Option<usize> = None;
    let mut quoting = true;
    'restart: while base < text.len() {
        let slice = &text[base..];
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(delim)
            .has_headers(false)
            .flexible(true)
            .quoting(quoting)
            .from_reader(slice.as_bytes());
        let mut rec = csv::StringRecord::new();
        let mut line = base_line;
        let mut counted_to = 0usize;
        loop {
            let start = usize::try_from(rdr.position().byte()).unwrap_or(usize::MAX);
            let result = rdr.read_record(&mut rec);
            let end = usize::try_from(rdr.position().byte())
                .unwrap_or(usize::MAX)
                .min(slice.len());
            let raw = slice.get(start..end).unwrap_or("");
            let lead = raw.len() - raw.trim_start_matches(['\r', '\n']).len();
            let content = raw[lead..].trim_end_matches(['\r', '\n']);
            if let Some(skipped) = slice.get(counted_to..start + lead) {
                line += newlines(skipped);
                counted_to = start + lead;
            }
            match result {
                Ok(false) => break 'restart,
                Ok(true) => {
                    let multi_line = content.contains(['\n', '\r']);
                    let width = rec.len();
                    let state = if multi_line && quoting {
                        quotes(content, delim)
                    } else {
                        Quotes::Sound
                    };
                    let why = if !multi_line || !quoting {
                        None
                    } else if state == Quotes::Unclosed {
                        Some("a quoted field opened in it is never closed".to_owned())
                    } else if state == Quotes::BadClose
                        || expected_width.is_some_and(|w| w != width)
                    {
                        Some(format!(
                            "a quote in it is not closed on its line and runs the row over {} lines",
                            newlines(content) + 1
                        ))
                    } else {
                        None
                    };
                    if let Some(why) = why {
                        out.broken.push(Broken { ordinal, line, why });
                        ordinal += 1;
                        let first_break = content.find(['\n', '\r']).unwrap_or(content.len());
                        let mut next = start + lead + first_break;
                        next += if slice[next..].starts_with("\r\n") {
                            2
                        } else {
                            1
                        };
                        base += next.min(slice.len());
                        base_line = line + 1;
                        if out.broken.len() >= MAX_BROKEN {
                            quoting = false;
                            out.unquoted_from = base_line;
                        }
                        continue 'restart;
                    }
                    if rec.iter().all(|f| f.trim().is_empty()) {
                        out.blank += 1;
                        continue;
                    }
                    expected_width.get_or_insert(width);
                    if out.kept.len() < keep {
                        out.kept.push(Record {
                            ordinal,
                            fields: rec.iter().map(str::to_owned).collect(),
                        });
                    }
                    out.good += 1;
                    ordinal += 1;
                }
                Err(e) => {
                    out.broken.push(Broken {
                        ordinal,
                        line,
                        why: e.to_string(),
                    });
                    ordinal += 1;
                    if end <= start || out.broken.len() >= 10 * MAX_BROKEN {
                        break 'restart;
                    }
                }
            }
        }
    }
    out
}

/// Line breaks in `s` (`\r\n` counting once).
fn newlines(s: &str) -> u64 {
    let bytes = s.as_bytes();
    let mut n = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
            n += 1;
        }
    }
    n
}

/// How the quotes of one record's text read (the csv crate's reading of quotes).
#[derive(Debug, PartialEq)]
enum Quotes {
    /// Every quoted field closes before a delimiter or the record's end.
    Sound,
    /// A quoted field is still open at the end.
    Unclosed,
    /// A quoted field closes and text follows the closing quote (`"abc"def`).
    BadClose,
}

/// How the quotes of `record` read.
fn quotes(record: &str, delim: u8) -> Quotes {
    #[derive(PartialEq)]
    enum State {
        FieldStart,
        Unquoted,
        Quoted,
        QuoteInQuoted,
    }
    let mut state = State::FieldStart;
    let mut bad_close = false;
    for b in record.bytes() {
        state = match state {
            State::FieldStart if b == b'"' => State::Quoted,
            State::FieldStart | State::Unquoted | State::QuoteInQuoted if b == delim => {
                State::FieldStart
            }
            State::FieldStart | State::Unquoted => State::Unquoted,
            State::Quoted if b == b'"' => State::QuoteInQuoted,
            State::Quoted => State::Quoted,
            State::QuoteInQuoted if b == b'"' => State::Quoted,
            State::QuoteInQuoted => {
                if b != b'\r' && b != b'\n' {
                    bad_close = true;
                }
                State::Unquoted
            }
        };
    }
    if state == State::Quoted {
        Quotes::Unclosed
    } else if bad_close {
        Quotes::BadClose
    } else {
        Quotes::Sound
    }
}

/// Whether any of the delimiters splits the start of `text`: a table has columns.
pub(super) fn has_delimiter(text: &str) -> bool {
    sniff(text, false).is_some()
}

/// The delimiter among `,` tab `;` `|` that splits the first records most consistently
/// (quoted fields respected), or `None` when none splits more than half of them alike.
fn sniff(text: &str, prefer_tab: bool) -> Option<u8> {
    let mut end = text.len().min(SNIFF_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let sample = &text[..end];
    let mut records = split_records(sample);
    if end < text.len() && records.len() > 1 {
        records.pop();
    }
    let mut best: Option<((usize, usize, usize), u8)> = None;
    for (rank, &d) in DELIMITERS.iter().enumerate() {
        let counts: Vec<usize> = records.iter().map(|r| count_unquoted(r, d)).collect();
        let mut mode = (0usize, 0usize); // (records with the count, count)
        for &c in counts.iter().filter(|&&c| c > 0) {
            let n = counts.iter().filter(|&&x| x == c).count();
            if (n, c) > mode {
                mode = (n, c);
            }
        }
        // A table's delimiter splits most of its records alike; prose with a comma in
        // one line of four is not a table of two columns.
        if mode.0 == 0 || (records.len() > 1 && mode.0 * 2 <= records.len()) {
            continue;
        }
        let preference = if prefer_tab && d == b'\t' {
            DELIMITERS.len()
        } else {
            DELIMITERS.len() - rank
        };
        let score = (mode.0, mode.1, preference);
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, d));
        }
    }
    best.map(|(_, d)| d)
}

/// The first non-empty lines of `sample`. Lines rather than records: a broken quote must
/// not hide the delimiters of every line after it (a rare quoted line break only adds an
/// odd line to the sample).
fn split_records(sample: &str) -> Vec<&str> {
    sample
        .split(['\n', '\r'])
        .filter(|l| !l.trim().is_empty())
        .take(SAMPLE_RECORDS)
        .collect()
}

/// How often `d` occurs in `record` outside quotes (a quote left open ends with the line).
fn count_unquoted(record: &str, d: u8) -> usize {
    let mut in_quotes = false;
    let mut n = 0;
    for b in record.bytes() {
        if b == b'"' {
            in_quotes = !in_quotes;
        } else if b == d && !in_quotes {
            n += 1;
        }
    }
    n
}

/// Whether `first` is a header: it is, unless it is mostly numbers in the columns where the
/// later rows are mostly numbers (or, when no column is, unless it is mostly numbers itself).
pub(super) fn detect_header(first: &[String], later: &[&[String]], decimal_comma: bool) -> bool {
    let is_num = |s: &str| num::parse(s, decimal_comma).is_some();
    let filled = |s: &&String| !s.trim().is_empty();
    let numeric_columns: Vec<usize> = (0..first.len())
        .filter(|&i| {
            let cells: Vec<&String> = later
                .iter()
                .filter_map(|r| r.get(i))
                .filter(filled)
                .collect();
            let numbers = cells.iter().filter(|c| is_num(c)).count();
            numbers > 0 && numbers * 2 >= cells.len()
        })
        .collect();
    if numeric_columns.is_empty() {
        let cells: Vec<&String> = first.iter().filter(filled).collect();
        let numbers = cells.iter().filter(|c| is_num(c)).count();
        return numbers * 2 <= cells.len() && !cells.is_empty();
    }
    let firsts: Vec<&String> = numeric_columns
        .iter()
        .map(|&i| &first[i])
        .filter(filled)
        .collect();
    let numbers = firsts.iter().filter(|c| is_num(c)).count();
    numbers * 2 < firsts.len() || firsts.is_empty()
}
