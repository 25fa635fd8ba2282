//! How long ago a file was last changed, as a filter: `modified_within` ("7 days") keeps
//! the files changed since then, `older_than` ("1 year") those not changed since. Asked
//! "how many files were changed in the last 7 days", a small model listed every file
//! and counted them all; the window is a parameter it can fill, and a window the
//! request states in words is set by code ([`ages_asked`]).

use std::time::Duration;

/// Seconds in each unit of age, by the words and letters it is written as. A month is 30
/// days and a year 365: a window, not a calendar.
const UNITS: &[(&[&str], u64)] = &[
    (&["s", "sec", "secs", "second", "seconds"], 1),
    (&["m", "min", "mins", "minute", "minutes"], 60),
    (&["h", "hr", "hrs", "hour", "hours"], 3_600),
    (&["d", "day", "days"], 86_400),
    (&["w", "wk", "wks", "week", "weeks"], 604_800),
    (&["mo", "month", "months"], 30 * 86_400),
    (&["y", "yr", "yrs", "year", "years"], 365 * 86_400),
];

/// The seconds of one unit written as `word`.
fn unit(word: &str) -> Option<u64> {
    UNITS
        .iter()
        .find(|(words, _)| words.contains(&word))
        .map(|(_, secs)| *secs)
}

/// An age from a parameter's text: "7 days", "2w", "36 hours", "1.5 years"; a bare
/// number is days.
pub(crate) fn parse_age(text: &str) -> Option<Duration> {
    let text = text.trim().to_lowercase();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, rest) = text.split_at(split);
    let n: f64 = number.parse().ok()?;
    let rest = rest.trim();
    let secs = if rest.is_empty() { 86_400 } else { unit(rest)? };
    (n.is_finite() && n >= 0.0).then(|| Duration::from_secs_f64(n * secs as f64))
}

/// An age in words, for the listing's first line: "10 days", "2 weeks", "1 year", "36
/// hours" (no months: a month here is 30 days, which a reader would not take it for).
pub fn words(age: Duration) -> String {
    let secs = age.as_secs();
    let (n, name) = [
        (365 * 86_400, "year"),
        (604_800, "week"),
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
    ]
    .into_iter()
    .find(|(unit, _)| secs >= *unit && secs.is_multiple_of(*unit))
    .map_or((secs, "second"), |(unit, name)| (secs / unit, name));
    format!("{n} {name}{}", if n == 1 { "" } else { "s" })
}

/// The window of ages a request states in words: "in the last 7 days", "within 2
/// weeks", "the past month", "this week" keep the files changed since (the first of the
/// pair); "older than 30 days", "not changed for a year", "more than 6 months old" the
/// files not changed since (the second). A count needs its unit; the first window of each
/// side counts.
pub fn ages_asked(words: &str) -> (Option<Duration>, Option<Duration>) {
    const RECENT: &[&str] = &["last", "past", "within", "recent", "recently", "this"];
    const OLDER: &[&str] = &["older", "for"];
    let tokens: Vec<String> = words
        .split(|c: char| !c.is_alphanumeric() && c != '.')
        .map(|t| t.trim_end_matches('.').to_lowercase())
        .filter(|t| !t.is_empty())
        .collect();
    let number = |t: &str| t.parse::<f64>().ok();
    let mut within = None;
    let mut older = None;
    for i in 0..tokens.len() {
        // Where the phrase starts, its count and the unit's seconds: "7 days" (a number,
        // then its unit), "7d" (glued), or "week" alone after "this", "past", "a".
        let (start, count, secs) = if let (Some(n), Some(s)) =
            (number(&tokens[i]), tokens.get(i + 1).and_then(|u| unit(u)))
        {
            (i, n, s)
        } else if let Some(at) = tokens[i]
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|at| *at > 0)
            && let (Some(n), Some(s)) = (number(&tokens[i][..at]), unit(&tokens[i][at..]))
        {
            (i, n, s)
        } else if tokens[i].len() > 2
            && let Some(s) = unit(&tokens[i])
            && (i == 0 || number(&tokens[i - 1]).is_none())
        {
            (i, 1.0, s)
        } else {
            continue;
        };
        let unit_at = if start == i && number(&tokens[i]).is_some() {
            i + 1
        } else {
            i
        };
        let before: Vec<&str> = tokens[start.saturating_sub(3)..start]
            .iter()
            .map(String::as_str)
            .collect();
        let after = tokens.get(unit_at + 1).map(String::as_str);
        let recent = before.iter().any(|w| RECENT.contains(w));
        let is_older = (before.iter().any(|w| OLDER.contains(w)) && !recent)
            || (matches!(after, Some("old" | "ago"))
                && before
                    .iter()
                    .any(|w| matches!(*w, "more" | "over" | "than")));
        let age = Duration::from_secs_f64(count * secs as f64);
        if is_older {
            older = older.or(Some(age));
        } else if recent {
            within = within.or(Some(age));
        }
    }
    (within, older)
}

/// Whether `words` speak of age or time at all: a unit of time (with a number or not),
/// or a word that asks by age, outside the names they give (`super::prose`: "old" in
/// `~/inbox/old.tmp` asks for no age). Where they do not, no bound of age was asked for.
pub fn mentions_age(words: &str) -> bool {
    const AGE_WORDS: &[&str] = &[
        "old",
        "older",
        "oldest",
        "newer",
        "newest",
        "recent",
        "recently",
        "latest",
        "stale",
        "ago",
        "since",
        "before",
        "after",
        "until",
        "modified",
        "changed",
        "edited",
        "today",
        "yesterday",
        "age",
        "aged",
        "dated",
    ];
    super::prose(words)
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|t| !t.is_empty())
        .any(|t| {
            // A unit spelled out ("days", "week"), or glued to its number ("7d", "2w"):
            // a lone letter is a unit only after digits (the "d" of d.txt is none).
            AGE_WORDS.contains(&t.as_str())
                || (t.len() > 2 && unit(&t).is_some())
                || t.find(|c: char| !c.is_ascii_digit())
                    .filter(|at| *at > 0)
                    .is_some_and(|at| unit(&t[at..]).is_some())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: u64 = 86_400;

    #[test]
    fn words_that_speak_of_age_are_told_from_words_that_do_not() {
        for said in [
            "move the old logs",
            "files from the last 7 days",
            "copy what changed this week",
            "older than 2w",
            "the newest report",
        ] {
            assert!(mentions_age(said), "{said}");
        }
        for said in [
            "Move the .jpg files in ~/camera into a new folder ~/camera/photos",
            "Change the extension of every .jpeg file to .jpg",
            "copy ~/inbox/d.txt and ~/inbox/w.txt",
            // Names hold words of age that ask for none.
            "delete ~/inbox/old.tmp",
            "Move all .log files to /home/a/archive and delete old.tmp",
            "copy 'latest-draft.docx' into ~/old/",
        ] {
            assert!(!mentions_age(said), "{said}");
        }
    }

    #[test]
    fn ages_are_read_with_their_units_and_a_bare_number_is_days() {
        assert_eq!(parse_age("7 days"), Some(Duration::from_secs(7 * DAY)));
        assert_eq!(parse_age("2w"), Some(Duration::from_secs(14 * DAY)));
        assert_eq!(parse_age("36 hours"), Some(Duration::from_secs(36 * 3_600)));
        assert_eq!(parse_age("30"), Some(Duration::from_secs(30 * DAY)));
        assert_eq!(parse_age("1 year"), Some(Duration::from_secs(365 * DAY)));
        assert_eq!(parse_age("soon"), None);
        assert_eq!(parse_age("3 fortnights"), None);
        assert_eq!(words(Duration::from_secs(7 * DAY)), "1 week");
        assert_eq!(words(Duration::from_secs(10 * DAY)), "10 days");
        assert_eq!(words(Duration::from_secs(365 * DAY)), "1 year");
    }

    #[test]
    fn a_window_stated_in_words_is_read_on_its_side() {
        let d = |n: u64| Some(Duration::from_secs(n * DAY));
        assert_eq!(
            ages_asked("How many files in ~/Documents/letters were changed in the last 7 days?"),
            (d(7), None)
        );
        assert_eq!(ages_asked("files modified within 2 weeks"), (d(14), None));
        assert_eq!(ages_asked("what did I download this week"), (d(7), None));
        assert_eq!(ages_asked("photos from the past month"), (d(30), None));
        assert_eq!(ages_asked("delete logs older than 30 days"), (None, d(30)));
        assert_eq!(ages_asked("files not changed for a year"), (None, d(365)));
        assert_eq!(ages_asked("reports more than 6 months old"), (None, d(180)));
        assert_eq!(
            ages_asked("logs older than 90 days, and notes from the last 3 days"),
            (d(3), d(90))
        );
    }

    #[test]
    fn counts_of_days_that_bound_no_age_are_left_alone() {
        for words in [
            "What date is it 90 days after 2025-11-17?",
            "How many days are left until 2031-07-01?",
            "the 3 largest files",
            "the last line of ~/logs/app.log",
            "How many weeks are there from 2026-01-05 to 2026-03-30?",
        ] {
            assert_eq!(ages_asked(words), (None, None), "{words}");
        }
    }
}
