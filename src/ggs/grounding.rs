//! Law 0 on the delivered answer: the numbers, paths and file names of a result must come
//! from what the tools returned (their output, the inputs they ran with) or from the
//! user's own words. Whatever cannot be found there is named in the result as not
//! verified — a small model's merge or finish can state a number no tool printed, and the
//! user must be able to tell.
//!
//! A number also counts as shown when it is the count of lines or entries of one tool
//! output (`ls` printed three names, the answer says 3), or the sum of a column of
//! numbers in one (a CSV). Nothing else is derived.
//!
//! **Invariant:** pure; the result lists each unverified item once, in answer order.

use std::collections::BTreeSet;

/// Items listed at most.
pub const MAX_UNVERIFIED: usize = 5;

/// The items of `answer` that neither the tools' `outputs` nor the `words` the work was
/// asked and done with (the user's request, the calls' inputs) show. Counts and sums are
/// derived from the outputs only: a line of prose or a command is not a listing.
pub fn unverified(answer: &str, outputs: &[&str], words: &[&str]) -> Vec<String> {
    let evidence = Evidence::new(outputs, words);
    let haystack = &evidence.text;
    let mut out: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for item in items(answer) {
        if out.len() >= MAX_UNVERIFIED || !seen.insert(item.clone()) {
            continue;
        }
        let shown = match &item {
            Item::Number(n) => evidence.shows_number(n),
            Item::Path(p) => {
                haystack.contains(p.as_str())
                    || p.strip_prefix("~/")
                        .is_some_and(|rest| haystack.contains(rest))
                    || last_component(p).is_some_and(|name| haystack.contains(name))
            }
            Item::FileName(f) => haystack.contains(f.as_str()),
        };
        if !shown {
            out.push(item.text().to_string());
        }
    }
    out
}

/// The file names written bare in `text` (`summary.txt`; not a path, an abbreviation or
/// a number), in the order written.
pub fn file_names(text: &str) -> Vec<String> {
    items(text)
        .into_iter()
        .filter_map(|item| match item {
            Item::FileName(name) => Some(name),
            Item::Number(_) | Item::Path(_) => None,
        })
        .collect()
}

/// What an answer is checked against: the text numbers and names are looked up in (the
/// outputs as they are, the words without their command-line options — the `1` of
/// `ls -1` or `head -1` shows no count), and the numbers the outputs derive.
struct Evidence {
    text: String,
    derived: BTreeSet<i64>,
}

impl Evidence {
    fn new(outputs: &[&str], words: &[&str]) -> Self {
        let mut text = outputs.join("\n");
        for w in words {
            text.push('\n');
            let kept: Vec<&str> = w
                .split(' ')
                .filter(|t| {
                    !(t.starts_with('-')
                        && t[1..].chars().next().is_some_and(|c| c.is_alphanumeric()))
                })
                .collect();
            text.push_str(&kept.join(" "));
        }
        Self {
            text,
            derived: derived_numbers(outputs),
        }
    }

    /// Whether the evidence shows the number `n` as written, or the same value written
    /// with or without a fraction of zeros (`50.0` is the `50` of `50%`; `450` the
    /// `450.00` of a table's cell), or derives it.
    fn shows_number(&self, n: &str) -> bool {
        let whole = n
            .split_once('.')
            .filter(|(int, frac)| {
                !int.is_empty() && !frac.is_empty() && frac.chars().all(|c| c == '0')
            })
            .map_or(n, |(int, _)| int);
        let forms = [
            n.to_string(),
            whole.to_string(),
            format!("{whole}.0"),
            format!("{whole}.00"),
        ];
        let plain = whole.chars().all(|c| c.is_ascii_digit() || c == '-');
        forms[..if plain { 4 } else { 1 }]
            .iter()
            .any(|form| contains_number(&self.text, form))
            || parse(n).is_some_and(|v| self.derived.contains(&key(v)))
    }
}

/// What `report` states about this computer that `given` (the words the work was asked
/// in) does not: paths and file names, and counts or sizes of things on it — a number
/// followed by files, folders, lines, bytes and the like, or written as a size (`12MB`).
/// Such facts can only come from looking. Other numbers are left alone: a sub-task that
/// computes or rewords from its context needs no tool.
pub fn machine_claims(report: &str, given: &[&str]) -> Vec<String> {
    let haystack = given.join("\n");
    let tokens = tokens(report);
    let mut out: Vec<String> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        if out.len() >= MAX_UNVERIFIED {
            break;
        }
        let claim = if token.starts_with('/') && token.len() > 1 || token.starts_with("~/") {
            (!haystack.contains(token.as_str())).then(|| token.clone())
        } else if is_file_name(token) && !token.contains('/') {
            (!haystack.contains(token.as_str())).then(|| token.clone())
        } else {
            measured(&tokens, i)
                .filter(|(_, number)| !contains_number(&haystack, number))
                .map(|(claim, _)| claim)
        };
        if let Some(claim) = claim
            && !out.contains(&claim)
        {
            out.push(claim);
        }
    }
    out
}

/// The counts and sizes of things on this computer that `report` states and the tools'
/// `outputs` neither show nor derive (nor the `words` of the request and the calls):
/// `3 files`, `12 lines`, `40MB`, or a report that is a number and nothing else. A
/// small model misreads the lone number a counting command printed; such a count is not
/// a result.
pub fn unshown_counts(report: &str, outputs: &[&str], words: &[&str]) -> Vec<String> {
    let evidence = Evidence::new(outputs, words);
    let shown = |n: &str| evidence.shows_number(n);
    let tokens = tokens(report);
    if let [only] = tokens.as_slice()
        && let Some(number) = number_of(only)
    {
        return if shown(&number) {
            vec![]
        } else {
            vec![only.clone()]
        };
    }
    let mut out: Vec<String> = Vec::new();
    for i in 0..tokens.len() {
        if let Some((claim, number)) = measured(&tokens, i)
            && !shown(&number)
            && !out.contains(&claim)
            && out.len() < MAX_UNVERIFIED
        {
            out.push(claim);
        }
    }
    out
}

/// The token at `i` as a measure of something on the machine — a number whose unit
/// follows it or one word later ("5 .txt files", "3 PDF documents"), a size (`12MB`), a
/// Chinese count (`3个文件`) — with the number itself.
fn measured(tokens: &[String], i: usize) -> Option<(String, String)> {
    let token = &tokens[i];
    if let Some(number) = number_of(token) {
        // "6.67 per row" is a rate, not a count of rows.
        if tokens
            .get(i + 1)
            .is_some_and(|w| matches!(w.to_lowercase().as_str(), "per" | "each" | "a"))
        {
            return None;
        }
        let unit = (i + 1..=i + 2)
            .take_while(|&j| j < tokens.len())
            .find(|&j| is_machine_unit(&tokens[j]));
        let claim = match unit {
            Some(j) => Some(tokens[i..=j].join(" ")),
            None => is_size(token).then(|| token.clone()),
        };
        return claim.map(|c| (c, number));
    }
    cjk_count(token).map(|n| (token.clone(), n))
}

/// Words that make a number a fact about the machine.
const MACHINE_UNITS: &[&str] = &[
    "file",
    "folder",
    "directory",
    "directories",
    "dir",
    "line",
    "byte",
    "kb",
    "mb",
    "gb",
    "kib",
    "mib",
    "gib",
    "tb",
    "row",
    "entry",
    "entries",
    "item",
    "process",
    "processes",
    "word",
    "character",
    "char",
    "image",
    "photo",
    "video",
    "document",
    "pdf",
    "log",
];

fn is_machine_unit(word: &str) -> bool {
    let w = word.to_lowercase();
    let singular = w.strip_suffix('s').unwrap_or(&w);
    MACHINE_UNITS.contains(&w.as_str()) || MACHINE_UNITS.contains(&singular)
}

/// `12MB`, `3.5G`, `900KiB`: a size.
fn is_size(token: &str) -> bool {
    let unit = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',');
    !unit.is_empty()
        && [
            "k", "kb", "kib", "m", "mb", "mib", "g", "gb", "gib", "t", "tb", "b",
        ]
        .contains(&unit.to_lowercase().as_str())
}

/// A count written the Chinese way, digits then a counter of things on a computer
/// (`3个文件`, `12行`, `5个`): the digits.
fn cjk_count(token: &str) -> Option<String> {
    let digits: String = token.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    let rest = &token[digits.len()..];
    ["个", "行", "字节", "项", "张", "份"]
        .iter()
        .any(|counter| rest.starts_with(counter))
        .then_some(digits)
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Number(String),
    Path(String),
    FileName(String),
}

impl Item {
    fn text(&self) -> &str {
        match self {
            Item::Number(s) | Item::Path(s) | Item::FileName(s) => s,
        }
    }
}

fn last_component(path: &str) -> Option<&str> {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
}

/// Abbreviations that look like file names.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "a.m", "p.m", "u.s", "etc", "vs", "no.", "approx",
];

fn is_file_name(token: &str) -> bool {
    if ABBREVIATIONS.contains(&token.to_lowercase().as_str()) {
        return false;
    }
    match token.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
                && stem.chars().any(|c| c.is_alphanumeric())
        }
        None => false,
    }
}

/// The words of a text, stripped of the punctuation around them.
fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | '|' | '*' | '='
            )
    })
    .map(|raw| {
        raw.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '!' | '?' | '，' | '。' | '：'))
            .trim_end_matches('.')
    })
    .filter(|t| !t.is_empty())
    .map(str::to_string)
    .collect()
}

/// Numbers (with `,` thousands separators folded), paths and file names of a text.
fn items(text: &str) -> Vec<Item> {
    let mut out = Vec::new();
    for token in tokens(text) {
        let token = token.as_str();
        if token.starts_with('/') && token.len() > 1 || token.starts_with("~/") {
            out.push(Item::Path(token.to_string()));
        } else if is_file_name(token) && !token.contains('/') {
            out.push(Item::FileName(token.to_string()));
        } else if let Some(number) = number_of(token) {
            out.push(Item::Number(number));
        }
    }
    out
}

/// The number a token is (`1,234` → `1234`, `3.5`), or none.
fn number_of(token: &str) -> Option<String> {
    let t = token.trim_start_matches(['$', '¥', '€', '£', '+']);
    let t = t.trim_end_matches(['%', 'k', 'K', 'M', 'G', 'B']);
    if t.is_empty() || !t.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    if !t
        .chars()
        .all(|c| c.is_ascii_digit() || c == ',' || c == '.')
    {
        return None;
    }
    let folded: String = t.chars().filter(|c| *c != ',').collect();
    parse(&folded).map(|_| folded)
}

fn parse(n: &str) -> Option<f64> {
    n.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Whether `number` occurs in the text as a number of its own (not inside another one),
/// with or without thousands separators.
fn contains_number(text: &str, number: &str) -> bool {
    let folded: String = text
        .char_indices()
        .filter(|(i, c)| {
            // Drop a comma between two digits (1,234 → 1234).
            !(*c == ','
                && text[..*i]
                    .chars()
                    .next_back()
                    .is_some_and(|p| p.is_ascii_digit())
                && text[i + 1..]
                    .chars()
                    .next()
                    .is_some_and(|n| n.is_ascii_digit()))
        })
        .map(|(_, c)| c)
        .collect();
    folded.match_indices(number).any(|(at, _)| {
        let before = folded[..at].chars().next_back();
        let after = folded[at + number.len()..].chars().next();
        // A whole number: no digit or decimal point before it, no digit after it, and
        // not the integer part of a longer decimal ("3" inside "3.5").
        let decimal_follows = after == Some('.')
            && folded[at + number.len() + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit());
        // Nor a piece of a word: the `4` of `/tmp/.tmporr4y7` or of `file_4` shows no
        // count. Letters may follow only as a size unit (`12MB`).
        let word_char = |c: char| c.is_alphanumeric() || c == '_';
        let rest = &folded[at + number.len()..];
        let unit_follows = after.is_some_and(char::is_alphabetic) && {
            let letters: String = rest.chars().take_while(|c| word_char(*c)).collect();
            is_size_unit(&letters)
        };
        !before.is_some_and(|c| word_char(c) || c == '.')
            && !after.is_some_and(|c| c.is_ascii_digit())
            && (!after.is_some_and(word_char) || unit_follows)
            && !decimal_follows
    })
}

/// A size unit written right after a number: `k`, `KB`, `MiB`, `G`, `bytes`.
fn is_size_unit(letters: &str) -> bool {
    matches!(
        letters.to_ascii_lowercase().as_str(),
        "b" | "k"
            | "kb"
            | "kib"
            | "m"
            | "mb"
            | "mib"
            | "g"
            | "gb"
            | "gib"
            | "t"
            | "tb"
            | "tib"
            | "bytes"
            | "byte"
    )
}

fn key(v: f64) -> i64 {
    (v * 1000.0).round() as i64
}

/// Numbers one evidence text implies: its count of non-empty lines, of whitespace
/// separated entries, and the sum of each column of numbers. A text of bare numbers
/// (`wc -l` printed `2`) is values, not a listing: its lines are not counted, or a
/// count of one would back any "1".
fn derived_numbers(evidence: &[&str]) -> BTreeSet<i64> {
    let mut out = BTreeSet::new();
    for text in evidence {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let listing = lines.iter().any(|l| number_of(l).is_none());
        if listing {
            out.insert(key(lines.len() as f64));
            out.insert(key(text.split_whitespace().count() as f64));
            // A header line does not count as an entry.
            if lines.len() > 1 {
                out.insert(key(lines.len() as f64 - 1.0));
            }
        }
        let mut columns: Vec<f64> = Vec::new();
        for line in &lines {
            for (i, cell) in line.split([',', '\t', ';']).enumerate() {
                if let Some(v) = parse(cell.trim()) {
                    if columns.len() <= i {
                        columns.resize(i + 1, 0.0);
                    }
                    columns[i] += v;
                }
            }
        }
        for sum in columns {
            out.insert(key(sum));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_no_tool_printed_are_unverified() {
        assert_eq!(
            unverified("The product is 1513.", &[], &["37 * 41"]),
            ["1513"]
        );
        assert!(unverified("There are 2 files.", &["2\n"], &[]).is_empty());
        assert!(unverified("1,234 bytes", &["size 1234"], &[]).is_empty());
        assert!(unverified("12 apples", &["112 apples"], &[]) == ["12"]);
        // The same value with or without a fraction of zeros.
        assert!(unverified("50.0% are open", &["open 50%, closed 37.5%"], &[]).is_empty());
        assert!(unverified("450 in all", &["price = 450.00"], &[]).is_empty());
        assert_eq!(unverified("50.5%", &["open 50%"], &[]), ["50.5"]);
        assert_eq!(unverified("5.0", &["15.0"], &[]), ["5.0"]);
    }

    #[test]
    fn digits_inside_a_word_or_a_temp_path_show_no_number() {
        // The real-model run that counted .txt files under /tmp/.tmporr4y7: the answer 4
        // was "shown" by the folder's name.
        let call = ["ls -1 /tmp/.tmporr4y7/home/notes/*.txt | wc -l"];
        assert_eq!(unshown_counts("4", &["2"], &call), ["4"]);
        assert!(unshown_counts("2", &["2"], &call).is_empty());
        assert_eq!(unverified("3", &["file_3.txt v3"], &[]), ["3"]);
        // Units and punctuation around a number still leave it a number.
        assert!(unverified("12 MB", &["12MB"], &[]).is_empty());
        assert!(unverified("5", &["total: 5."], &[]).is_empty());
        assert!(unverified("2026", &["report-2026.pdf"], &[]).is_empty());
        assert_eq!(unverified("4", &["4x4y"], &[]), ["4"]);
    }

    #[test]
    fn a_lone_number_is_a_value_not_a_listing_of_one() {
        let words = ["find ~/Downloads -name '*.pdf' | wc -l", "Count the PDFs"];
        assert_eq!(unverified("There is 1 PDF.", &["2"], &words), ["1"]);
        assert!(unverified("There are 2 PDFs.", &["2\n"], &words).is_empty());
        assert!(unverified("1 file", &["report.pdf"], &[]).is_empty());
        assert_eq!(
            unverified("3 files, see notes.md", &["a.txt\nb.txt"], &[]),
            ["3", "notes.md"],
            "a name no tool showed is unverified too"
        );
        // A one-line command or request is not a listing of one, and an option's
        // digits are no number of the answer.
        assert_eq!(unverified("1", &[], &["ls ~/notes/*.txt | wc -l"]), ["1"]);
        let listed = ["{\"command\":\"ls -1 /home/u/notes/*.txt | wc -l\"}"];
        assert_eq!(unshown_counts("1", &["2"], &listed), ["1"]);
        assert_eq!(unverified("1", &["2"], &listed), ["1"]);
        assert!(unverified("the top 5", &[], &["show the top 5"]).is_empty());
    }

    #[test]
    fn a_count_no_output_shows_is_unshown_and_other_numbers_are_left_alone() {
        let words = ["ls -1 ~/notes/*.txt | wc -l"];
        assert_eq!(unshown_counts("3", &["2"], &words), ["3"]);
        assert!(unshown_counts("2", &["2"], &words).is_empty());
        assert_eq!(
            unshown_counts("There are 3 .txt files in ~/notes", &["2"], &words),
            ["3 .txt files"]
        );
        assert!(unshown_counts("There are 2 .txt files", &["2"], &words).is_empty());
        assert!(
            unshown_counts("2 files: a.txt, b.txt", &["a.txt\nb.txt"], &[]).is_empty(),
            "a listing's count"
        );
        assert!(
            unshown_counts("The average is 6.67 per row", &["3\n5\n12"], &[]).is_empty(),
            "a computed value is no count of things"
        );
        assert_eq!(unshown_counts("共 3个文件", &["2"], &[]), ["3个文件"]);
    }

    #[test]
    fn counts_of_a_listing_and_sums_of_a_column_are_shown() {
        assert!(unverified("3 files", &["a.txt\nb.txt\nc.md\n"], &[]).is_empty());
        assert!(
            unverified(
                "The total is 20.",
                &["name,amount\napples,3\npears,5\nplums,12\n"],
                &[]
            )
            .is_empty()
        );
    }

    #[test]
    fn paths_and_file_names_must_appear_in_the_evidence() {
        let evidence = ["/home/u/Downloads/video2.mp4\t120000"];
        let words = ["ls -S ~/Downloads"];
        assert!(
            unverified(
                "The largest is video2.mp4 (120000 bytes).",
                &evidence,
                &words
            )
            .is_empty()
        );
        assert_eq!(
            unverified("The largest is movie.mkv in ~/Movies/x", &evidence, &words),
            ["movie.mkv", "~/Movies/x"]
        );
        assert!(unverified("~/Downloads/video2.mp4", &evidence, &words).is_empty());
    }

    #[test]
    fn what_only_looking_could_show_is_a_machine_claim() {
        let given = ["Count the PDF files in ~/Documents"];
        assert_eq!(
            machine_claims("There are 4 PDF files in ~/Documents.", &given),
            ["4 PDF"]
        );
        assert_eq!(
            machine_claims("There are 5 .txt files.", &given),
            ["5 .txt files"]
        );
        assert!(machine_claims("I looked in ~/Documents", &given).is_empty());
        assert_eq!(
            machine_claims("There are 4 files: a.pdf and b.pdf", &given),
            ["4 files", "a.pdf", "b.pdf"]
        );
        assert_eq!(
            machine_claims("It takes 12MB on disk, in /var/log/x", &[]),
            ["12MB", "/var/log/x"]
        );
        assert_eq!(machine_claims("共有 3个文件", &[]), ["3个文件"]);
        // Computing or rewording from the given words needs no look.
        assert!(machine_claims("17 × 23 = 391", &["What is 17 times 23?"]).is_empty());
        assert!(machine_claims("The report has 3 lines", &["write 3 lines"]).is_empty());
        assert!(machine_claims("Renamed notes.txt", &["rename notes.txt to old.txt"]).is_empty());
    }

    #[test]
    fn plain_words_are_not_items() {
        assert!(unverified("Done. The folder is empty, e.g. nothing", &[], &[]).is_empty());
    }
}
