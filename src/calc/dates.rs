//! Date arithmetic the code computes, so no date in an answer is the model's guess: the
//! calendar dates written in the user's text, the spans between them, and each date moved
//! by every duration the text names, both ways. A small model asked for "90 days after
//! 2026-03-15" counts the days of the months wrong; a `date -d` expression the shell
//! misreads is worse. Lines go to the model as "Computed by code", like arithmetic.
//!
//! Read: ISO dates (`2026-03-15`, `2026/3/15`), English month names (`March 15, 2026`,
//! `15 Mar 2026`), Chinese dates (`2026年3月15日`); durations as a count and a unit (`90
//! days`, `3 weeks`, `2 months`, `1 year`, `90天`, `3周`, `2个月`).
//!
//! **Invariant:** every line states a fact of the calendar about dates and durations
//! written in the input (Gregorian, no time zone involved); nothing is inferred about
//! which fact the user wants.

use chrono::{Days, Months, NaiveDate};

/// At most this many lines, so a text full of dates does not flood the prompt.
const MAX_LINES: usize = 4;

/// Durations longer than this many days are not computed (no calendar question needs
/// them, and chrono's range stays far away).
const MAX_SPAN_DAYS: u64 = 200 * 366;

/// The most dates a text may hold for the days between them to be told.
pub(super) const MAX_GAP_DATES: usize = 6;

/// See [`super::date_gaps`].
pub(super) fn gaps(text: &str) -> Option<String> {
    let dates = dates_in(text);
    if !(2..=MAX_GAP_DATES).contains(&dates.len()) {
        return None;
    }
    let told: Vec<String> = dates
        .windows(2)
        .map(|pair| {
            let days = (pair[1] - pair[0]).num_days().abs();
            format!(
                "from {} to {}: {days} day{}",
                pair[0].format("%Y-%m-%d"),
                pair[1].format("%Y-%m-%d"),
                if days == 1 { "" } else { "s" }
            )
        })
        .collect();
    Some(format!(
        "[days between its dates, by code: {}]",
        told.join("; ")
    ))
}

/// The lines of date facts for `text`.
pub fn computed_lines(text: &str) -> Vec<String> {
    let dates = dates_in(text);
    let spans = durations_in(text);
    let mut out = Vec::new();
    for pair in dates.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a != b {
            let days = (b - a).num_days();
            out.push(format!(
                "Computed by code: from {} to {} is {} day{} ({} weeks and {} days)",
                show(a),
                show(b),
                days.abs(),
                if days.abs() == 1 { "" } else { "s" },
                days.abs() / 7,
                days.abs() % 7
            ));
        }
    }
    for date in &dates {
        for span in &spans {
            if let (Some(after), Some(before)) = (span.add(*date), span.sub(*date)) {
                out.push(format!(
                    "Computed by code: {} after {} is {}; {} before it is {}",
                    span.words(),
                    show(*date),
                    show(after),
                    span.words(),
                    show(before)
                ));
            }
        }
    }
    // A date on its own (no second date, no span): its day of the week, so that nothing
    // about it is left to the model's memory of calendars.
    // No number beside a unit word: the line may be read again as a request.
    if let ([date], []) = (dates.as_slice(), spans.as_slice()) {
        out.push(format!(
            "Computed by code: {} is a {}",
            date.format("%Y-%m-%d"),
            date.format("%A"),
        ));
    }
    out.truncate(MAX_LINES);
    out
}

/// A date as `2026-06-13 (Saturday)`.
fn show(d: NaiveDate) -> String {
    format!("{} ({})", d.format("%Y-%m-%d"), d.format("%A"))
}

/// A count of calendar units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    count: u32,
    unit: Unit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Day,
    Week,
    Month,
    Year,
}

impl Span {
    fn words(self) -> String {
        let unit = match self.unit {
            Unit::Day => "day",
            Unit::Week => "week",
            Unit::Month => "month",
            Unit::Year => "year",
        };
        format!(
            "{} {unit}{}",
            self.count,
            if self.count == 1 { "" } else { "s" }
        )
    }

    fn days(self) -> Option<u64> {
        let n = u64::from(self.count);
        let days = match self.unit {
            Unit::Day => n,
            Unit::Week => n * 7,
            Unit::Month => n * 31,
            Unit::Year => n * 366,
        };
        (days <= MAX_SPAN_DAYS).then_some(days)
    }

    fn add(self, d: NaiveDate) -> Option<NaiveDate> {
        self.days()?;
        match self.unit {
            Unit::Day => d.checked_add_days(Days::new(u64::from(self.count))),
            Unit::Week => d.checked_add_days(Days::new(u64::from(self.count) * 7)),
            Unit::Month => d.checked_add_months(Months::new(self.count)),
            Unit::Year => d.checked_add_months(Months::new(self.count.checked_mul(12)?)),
        }
    }

    fn sub(self, d: NaiveDate) -> Option<NaiveDate> {
        self.days()?;
        match self.unit {
            Unit::Day => d.checked_sub_days(Days::new(u64::from(self.count))),
            Unit::Week => d.checked_sub_days(Days::new(u64::from(self.count) * 7)),
            Unit::Month => d.checked_sub_months(Months::new(self.count)),
            Unit::Year => d.checked_sub_months(Months::new(self.count.checked_mul(12)?)),
        }
    }
}

/// Words of the text: runs of letters or digits, with the byte offsets kept in order.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

fn month_number(word: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let w = word.to_lowercase();
    if w.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| {
            *m == w || (w.len() == 3 && m.starts_with(&w)) || (w == "sept" && *m == "september")
        })
        .and_then(|i| u32::try_from(i + 1).ok())
}

fn number(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(['s', 't', 'n', 'd', 'r', 'h']);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) || digits.len() > 4 {
        return None;
    }
    digits.parse().ok()
}

fn year(word: &str) -> Option<i32> {
    (word.len() == 4 && word.chars().all(|c| c.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
}

/// The span of days a value names on its own, first and last day included: a calendar
/// date (that day), a month of a year (`2026-03`, `2026/3`, `March 2026`, `Mar 2026`,
/// `2026年3月`), or a year (`2026`). `None` for anything else — a month without its
/// year names no span.
pub(super) fn period(text: &str) -> Option<(NaiveDate, NaiveDate)> {
    let text = text.trim();
    if let [day] = dates_in(text).as_slice() {
        return Some((*day, *day));
    }
    let month_of = |y: i32, m: u32| {
        let first = NaiveDate::from_ymd_opt(y, m, 1)?;
        let last = first.checked_add_months(Months::new(1))?.pred_opt()?;
        Some((first, last))
    };
    // 2026年3月
    if let Some((y, rest)) = text.split_once('年') {
        let m = rest.strip_suffix('月')?;
        return month_of(year(y.trim())?, m.trim().parse().ok()?);
    }
    let parts = words(text);
    match parts.as_slice() {
        [y] => {
            let y = year(y)?;
            Some((
                NaiveDate::from_ymd_opt(y, 1, 1)?,
                NaiveDate::from_ymd_opt(y, 12, 31)?,
            ))
        }
        [a, b] => {
            let (y, m) = match (year(a), year(b)) {
                (Some(y), None) => (y, month_number(b).or_else(|| number(b))?),
                (None, Some(y)) => (y, month_number(a).or_else(|| number(a))?),
                _ => return None,
            };
            month_of(y, m)
        }
        _ => None,
    }
}

/// The calendar dates of `text`, in the order written, without repeats.
pub(super) fn dates_in(text: &str) -> Vec<NaiveDate> {
    let mut out: Vec<NaiveDate> = Vec::new();
    let mut push = |d: NaiveDate| {
        if !out.contains(&d) {
            out.push(d);
        }
    };
    // Numeric dates: 2026-03-15, 2026/3/15, 2026.3.15, 2026年3月15日.
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if let Some((date, len)) = numeric_date_at(&chars[i..]) {
            let boundary_before = i == 0 || !chars[i - 1].is_ascii_digit();
            if boundary_before {
                push(date);
                i += len;
                continue;
            }
        }
        i += 1;
    }
    // Month names: "March 15, 2026", "15 March 2026", "Mar 15 2026".
    let ws = words(text);
    for (k, w) in ws.iter().enumerate() {
        let Some(month) = month_number(w) else {
            continue;
        };
        let after = |n: usize| ws.get(k + n).copied();
        let before = k.checked_sub(1).and_then(|j| ws.get(j)).copied();
        let date = match (after(1).and_then(number), after(2).and_then(year)) {
            (Some(day), Some(y)) => NaiveDate::from_ymd_opt(y, month, day),
            _ => match (before.and_then(number), after(1).and_then(year)) {
                (Some(day), Some(y)) => NaiveDate::from_ymd_opt(y, month, day),
                _ => None,
            },
        };
        if let Some(d) = date {
            push(d);
        }
    }
    out
}

/// `text` with every numeric date (`2026-03-15`, `2026/3/15`) blanked, so the arithmetic
/// reader does not take a date for a subtraction.
pub fn without_numeric_dates(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let boundary_before = i == 0 || !chars[i - 1].is_ascii_digit();
        if boundary_before && let Some((_, len)) = numeric_date_at(&chars[i..]) {
            out.extend(std::iter::repeat_n(' ', len));
            i += len;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// A numeric date at the start of `chars`, with how many chars it took.
fn numeric_date_at(chars: &[char]) -> Option<(NaiveDate, usize)> {
    let take_digits = |from: usize, max: usize| -> (u32, usize) {
        let mut n = 0u32;
        let mut len = 0;
        while len < max
            && let Some(d) = chars.get(from + len).and_then(|c| c.to_digit(10))
        {
            n = n * 10 + d;
            len += 1;
        }
        (n, len)
    };
    let (y, ylen) = take_digits(0, 4);
    if ylen != 4 {
        return None;
    }
    let sep = *chars.get(4)?;
    if !matches!(sep, '-' | '/' | '.' | '年') {
        return None;
    }
    let (m, mlen) = take_digits(5, 2);
    if mlen == 0 {
        return None;
    }
    let sep2 = *chars.get(5 + mlen)?;
    let expected = if sep == '年' { '月' } else { sep };
    if sep2 != expected {
        return None;
    }
    let (d, dlen) = take_digits(6 + mlen, 2);
    if dlen == 0 {
        return None;
    }
    let mut len = 6 + mlen + dlen;
    if chars.get(len).is_some_and(char::is_ascii_digit) {
        return None;
    }
    if sep == '年' && matches!(chars.get(len), Some('日' | '号')) {
        len += 1;
    }
    let date = NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)?;
    Some((date, len))
}

/// The durations of `text`: a count followed by a unit, in English or Chinese.
fn durations_in(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut push = |s: Span| {
        if s.count > 0 && !out.contains(&s) {
            out.push(s);
        }
    };
    // English: "90 days", "3 weeks", "a fortnight" is not read.
    let ws = words(text);
    for pair in ws.windows(2) {
        let Some(count) = pair[0].parse::<u32>().ok() else {
            continue;
        };
        let unit = match pair[1].to_lowercase().as_str() {
            "day" | "days" => Unit::Day,
            "week" | "weeks" => Unit::Week,
            "month" | "months" => Unit::Month,
            "year" | "years" => Unit::Year,
            _ => continue,
        };
        push(Span { count, unit });
    }
    // Chinese: 90天, 3周, 3个星期, 2个月, 1年 (a number right before the unit). Dates are
    // blanked first: 2026年3月15日 holds no span of 3 months or 15 days.
    let undated = without_numeric_dates(text);
    let chars: Vec<char> = undated.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_digit()) {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let rest = rest.strip_prefix('个').unwrap_or(&rest);
            // 3月15日 without a year is a date too, not two spans.
            let month_day =
                rest.starts_with('月') && chars.get(i + 1).is_some_and(char::is_ascii_digit);
            if month_day {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                continue;
            }
            let unit = if rest.starts_with('天') || rest.starts_with('日') {
                Some(Unit::Day)
            } else if rest.starts_with('周') || rest.starts_with("星期") {
                Some(Unit::Week)
            } else if rest.starts_with('月') {
                Some(Unit::Month)
            } else if rest.starts_with('年') && !chars.get(i + 1).is_some_and(char::is_ascii_digit)
            {
                Some(Unit::Year)
            } else {
                None
            };
            // "2026年3月" is a date, not a span of 2026 years.
            let is_date_year = digits.len() == 4 && rest.starts_with('年');
            if let (Some(unit), Ok(count), false) = (unit, digits.parse::<u32>(), is_date_year) {
                push(Span { count, unit });
            }
            continue;
        }
        i += 1;
    }
    out
}

/// The weekday name of `d`, for tests and callers that show one.
#[cfg(test)]
fn weekday(d: NaiveDate) -> String {
    use chrono::Datelike as _;
    format!("{:?}", d.weekday())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_days_between_a_text_s_dates_are_told_unless_it_holds_too_many() {
        assert_eq!(
            gaps("Flight out: 2026-03-02\nHotel: Seaview\nFlight back: 2026-03-19\n").as_deref(),
            Some("[days between its dates, by code: from 2026-03-02 to 2026-03-19: 17 days]")
        );
        assert_eq!(
            gaps("a 2026-01-01, b 2026-01-02, c 2025-12-31").as_deref(),
            Some(
                "[days between its dates, by code: from 2026-01-01 to 2026-01-02: 1 day; \
                 from 2026-01-02 to 2025-12-31: 2 days]"
            )
        );
        assert_eq!(gaps("only 2026-03-02"), None);
        let log: String = (1..=7).map(|d| format!("2026-03-0{d} ok\n")).collect();
        assert_eq!(gaps(&log), None);
    }

    fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).expect("a real date")
    }

    #[test]
    fn a_date_moved_by_days_crosses_months_exactly_both_ways() {
        let lines = computed_lines("What date is 90 days after 2026-03-15?");
        assert_eq!(
            lines,
            vec![
                "Computed by code: 90 days after 2026-03-15 (Sunday) is 2026-06-13 (Saturday); \
                 90 days before it is 2025-12-15 (Monday)"
            ]
        );
    }

    #[test]
    fn a_date_alone_is_stated_with_its_day_of_the_week() {
        let lines = computed_lines("What day of the week was 14 March 2026?");
        assert_eq!(lines, vec!["Computed by code: 2026-03-14 is a Saturday"]);
        // Read again (a model passes the line back to calculate), it says the same.
        let again = lines[0].trim_start_matches("Computed by code: ");
        assert_eq!(computed_lines(again), lines);
        // Beside a second date or a span, the dates are already stated with their days.
        assert_eq!(
            computed_lines("What date is 3 days after 2026-03-14?").len(),
            1
        );
    }

    #[test]
    fn the_span_between_two_dates_is_counted_in_days() {
        let lines = computed_lines("How many days are there between 2024-01-10 and 2024-03-01?");
        assert_eq!(
            lines,
            vec![
                "Computed by code: from 2024-01-10 (Wednesday) to 2024-03-01 (Friday) is 51 days (7 weeks and 2 days)"
            ],
            "2024 is a leap year"
        );
    }

    #[test]
    fn a_value_names_a_day_a_month_of_a_year_or_a_year() {
        let d = |y, m, day| NaiveDate::from_ymd_opt(y, m, day).unwrap();
        let march = Some((d(2026, 3, 1), d(2026, 3, 31)));
        for text in [
            "2026-03",
            "2026/3",
            "March 2026",
            "mar 2026",
            "2026 March",
            "2026年3月",
            "03/2026",
        ] {
            assert_eq!(period(text), march, "{text}");
        }
        assert_eq!(period("2024-02"), Some((d(2024, 2, 1), d(2024, 2, 29))));
        assert_eq!(period("2026"), Some((d(2026, 1, 1), d(2026, 12, 31))));
        assert_eq!(period("2026-03-15"), Some((d(2026, 3, 15), d(2026, 3, 15))));
        for text in ["March", "Lyon", "12", "2026-13", "Ana 2026", "1 2 3"] {
            assert_eq!(period(text), None, "{text}");
        }
    }

    #[test]
    fn month_names_and_chinese_dates_are_read() {
        assert_eq!(
            dates_in("due March 15, 2026 or 15 Mar 2026"),
            vec![ymd(2026, 3, 15)]
        );
        assert_eq!(dates_in("1 February 2025"), vec![ymd(2025, 2, 1)]);
        assert_eq!(
            dates_in("2026年3月15日之后90天是哪天"),
            vec![ymd(2026, 3, 15)]
        );
        assert_eq!(
            durations_in("2026年3月15日之后90天是哪天"),
            vec![Span {
                count: 90,
                unit: Unit::Day
            }]
        );
        assert_eq!(
            durations_in("3月15日之后10天"),
            vec![Span {
                count: 10,
                unit: Unit::Day
            }]
        );
        assert_eq!(
            durations_in("过了2个月和3周"),
            vec![
                Span {
                    count: 2,
                    unit: Unit::Month
                },
                Span {
                    count: 3,
                    unit: Unit::Week
                }
            ]
        );
    }

    #[test]
    fn months_and_years_follow_the_calendar_not_a_day_count() {
        let span = Span {
            count: 1,
            unit: Unit::Month,
        };
        assert_eq!(span.add(ymd(2026, 1, 31)), Some(ymd(2026, 2, 28)));
        let years = Span {
            count: 2,
            unit: Unit::Year,
        };
        assert_eq!(years.sub(ymd(2024, 2, 29)), Some(ymd(2022, 2, 28)));
        assert_eq!(weekday(ymd(2026, 6, 13)), "Sat");
    }

    #[test]
    fn numbers_that_are_not_dates_or_spans_give_nothing() {
        assert!(computed_lines("What is 37 * 41?").is_empty());
        assert!(computed_lines("copy 3 files from 2026-13-45").is_empty());
        assert!(computed_lines("version 2026.1 of the app, 12 items").is_empty());
        assert!(
            computed_lines("1000000 days after 2026-01-01").is_empty(),
            "too far"
        );
        assert!(dates_in("120260315").is_empty());
    }
}
