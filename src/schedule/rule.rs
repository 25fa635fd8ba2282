//! When a schedule runs, as people say it: "every weekday at 9", "daily at 18:30",
//! "every monday and thursday at 8am", "every 2 hours", "每个工作日 9 点", "每 30 分钟".
//!
//! The grammar is small and closed, read by code: a day rule needs its time of day (a
//! task that merely mentions "every day" is not a schedule), a repeat needs its unit.
//! Times are local wall-clock times; a time a daylight-saving change skips runs at the
//! first minute that exists after it, and one it repeats runs once.

use chrono::{DateTime, Datelike, Duration, NaiveTime, TimeZone, Weekday};
use serde::{Deserialize, Serialize};

/// The days of the week a rule runs on, Monday first.
pub const WEEK: [Weekday; 7] = [
    Weekday::Mon,
    Weekday::Tue,
    Weekday::Wed,
    Weekday::Thu,
    Weekday::Fri,
    Weekday::Sat,
    Weekday::Sun,
];

/// When a schedule runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rule {
    /// On these days of the week, at this local time.
    At {
        /// The days, each once, Monday first (`mon` … `sun`).
        days: Vec<Day>,
        /// The local time, `HH:MM`.
        time: String,
    },
    /// Every this many minutes, counted from when the schedule was made.
    Every {
        /// The period in minutes, at least 1.
        minutes: u32,
    },
}

/// A day of the week.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Day {
    /// Monday.
    Mon,
    /// Tuesday.
    Tue,
    /// Wednesday.
    Wed,
    /// Thursday.
    Thu,
    /// Friday.
    Fri,
    /// Saturday.
    Sat,
    /// Sunday.
    Sun,
}

impl Day {
    const ALL: [Day; 7] = [
        Day::Mon,
        Day::Tue,
        Day::Wed,
        Day::Thu,
        Day::Fri,
        Day::Sat,
        Day::Sun,
    ];

    fn of(weekday: Weekday) -> Day {
        Day::ALL[weekday.num_days_from_monday() as usize]
    }

    fn name(self) -> &'static str {
        [
            "monday",
            "tuesday",
            "wednesday",
            "thursday",
            "friday",
            "saturday",
            "sunday",
        ][self as usize]
    }
}

/// Chinese ways of saying a rule, as the English words the grammar reads, longest first.
const CHINESE: &[(&str, &str)] = &[
    ("每个工作日", " every weekday "),
    ("每工作日", " every weekday "),
    ("每个周末", " every weekend "),
    ("每周末", " every weekend "),
    ("每个小时", " every hour "),
    ("每小时", " every hour "),
    ("每天", " every day "),
    ("每日", " every day "),
    ("每隔", " every "),
    ("每周", " every "),
    ("每星期", " every "),
    ("每", " every "),
    ("星期", " "),
    ("周", " "),
    ("小时", " hours "),
    ("分钟", " minutes "),
    ("点半", ":30 "),
    ("下午", " pm "),
    ("晚上", " pm "),
    ("上午", " am "),
    ("早上", " am "),
    ("中午", " noon "),
    ("午夜", " midnight "),
    ("和", " and "),
    ("、", " , "),
    ("，", " , "),
    ("：", ":"),
    ("一", " monday "),
    ("二", " tuesday "),
    ("三", " wednesday "),
    ("四", " thursday "),
    ("五", " friday "),
    ("六", " saturday "),
    ("日", " sunday "),
    ("天", " sunday "),
];

/// `text` with its Chinese rule words in English: "9点30分" reads as "9:30", "9点" as
/// "9".
fn in_english(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'outer: while let Some(ch) = rest.chars().next() {
        for (zh, en) in CHINESE {
            if let Some(after) = rest.strip_prefix(zh) {
                out.push_str(en);
                rest = after;
                continue 'outer;
            }
        }
        rest = &rest[ch.len_utf8()..];
        match ch {
            '点' => {
                let starts_minutes = rest.chars().next().is_some_and(|c| c.is_ascii_digit());
                out.push_str(if starts_minutes { ":" } else { " " });
            }
            '分' => out.push(' '),
            other => out.push(other),
        }
    }
    out
}

/// The words of a rule, lower case: runs of letters, runs of digits, and every other
/// character on its own.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last: Option<u8> = None;
    for ch in in_english(text).chars() {
        let class = if ch.is_ascii_alphabetic() || ch == '\'' {
            1
        } else if ch.is_ascii_digit() {
            2
        } else if ch.is_whitespace() {
            last = None;
            continue;
        } else {
            3
        };
        match out.last_mut() {
            Some(w) if last == Some(class) && class != 3 => w.push(ch.to_ascii_lowercase()),
            _ => out.push(ch.to_ascii_lowercase().to_string()),
        }
        last = Some(class);
    }
    out
}

/// The days one word names.
/// The minutes in one of a unit a person writes after a number: "minutes", "h".
pub(super) fn minutes_per(unit: &str) -> Option<u32> {
    match unit {
        "m" | "min" | "mins" | "minute" | "minutes" => Some(1),
        "h" | "hr" | "hrs" | "hour" | "hours" => Some(60),
        _ => None,
    }
}

fn day_word(w: &str) -> Option<Vec<Day>> {
    let all = Day::ALL.to_vec();
    Some(match w {
        "day" | "days" | "daily" => all,
        "weekday" | "weekdays" | "workday" | "workdays" => all[..5].to_vec(),
        "weekend" | "weekends" => all[5..].to_vec(),
        _ => {
            let w = w.strip_suffix('s').unwrap_or(w);
            let day = Day::ALL
                .into_iter()
                .find(|d| w.len() >= 3 && d.name().starts_with(w))?;
            vec![day]
        }
    })
}

/// A time of day from the words starting at `i`: `9`, `9:30`, `9am`, `9 pm`, `noon`,
/// `pm 3` (as Chinese puts it); the time and how many words it took.
fn time_at(ws: &[String], i: usize) -> Option<(NaiveTime, usize)> {
    let w = |k: usize| ws.get(i + k).map(String::as_str);
    match w(0)? {
        "noon" => return Some((NaiveTime::from_hms_opt(12, 0, 0)?, 1)),
        "midnight" => return Some((NaiveTime::MIN, 1)),
        _ => {}
    }
    let (mut half, start) = match w(0)? {
        "am" => (Some(false), 1),
        "pm" => (Some(true), 1),
        _ => (None, 0),
    };
    let mut hour: u32 = w(start)?.parse().ok()?;
    let mut used = start + 1;
    let mut minute = 0;
    if w(used) == Some(":") {
        minute = w(used + 1)?.parse().ok()?;
        used += 2;
    }
    match w(used) {
        Some("am" | "a.m") => {
            half = Some(false);
            used += 1;
        }
        Some("pm" | "p.m") => {
            half = Some(true);
            used += 1;
        }
        Some("o'clock") => used += 1,
        _ => {}
    }
    match half {
        Some(_) if hour == 0 || hour > 12 => return None,
        Some(false) if hour == 12 => hour = 0,
        Some(true) if hour < 12 => hour += 12,
        _ => {}
    }
    Some((NaiveTime::from_hms_opt(hour, minute, 0)?, used))
}

impl Rule {
    /// Reads `text`, whole, as a rule; `None` when any of it is not part of one.
    pub fn parse(text: &str) -> Option<Rule> {
        let ws = words(text);
        let (rule, used) = Self::from_words(&ws)?;
        (used == ws.len()).then_some(rule)
    }

    fn from_words(ws: &[String]) -> Option<(Rule, usize)> {
        let w = |k: usize| ws.get(k).map(String::as_str);
        let i = match w(0)? {
            "every" | "each" => 1,
            "daily" | "weekdays" | "weekends" | "hourly" => 0,
            _ => return None,
        };
        if w(0) == Some("hourly") {
            return Some((Rule::Every { minutes: 60 }, 1));
        }
        // A repeat: "every 30 minutes", "every hour".
        let (n, unit_at) = match w(i).and_then(|s| s.parse::<u32>().ok()) {
            Some(n) => (n, i + 1),
            None => (1, i),
        };
        let unit = w(unit_at).and_then(minutes_per);
        if let Some(unit) = unit {
            let minutes = n.checked_mul(unit).filter(|m| *m > 0)?;
            return Some((Rule::Every { minutes }, unit_at + 1));
        }
        // Days: "every weekday", "every monday and thursday", "mon, wed and fri".
        let mut i = i;
        let mut days: Vec<Day> = Vec::new();
        while let Some(word) = w(i) {
            match day_word(word) {
                Some(named) => days.extend(named),
                None if matches!(word, "and" | ",") && !days.is_empty() => {}
                None => break,
            }
            i += 1;
        }
        if days.is_empty() {
            return None;
        }
        days.sort();
        days.dedup();
        if matches!(w(i), Some("at" | "@")) {
            i += 1;
        }
        let (time, used) = time_at(ws, i)?;
        Some((
            Rule::At {
                days,
                time: time.format("%H:%M").to_string(),
            },
            i + used,
        ))
    }

    /// The rule in plain words: "every weekday at 09:00", "every 2 hours".
    pub fn words(&self) -> String {
        match self {
            Rule::Every { minutes } if minutes % 60 == 0 && *minutes >= 60 => match minutes / 60 {
                1 => "every hour".into(),
                h => format!("every {h} hours"),
            },
            Rule::Every { minutes: 1 } => "every minute".into(),
            Rule::Every { minutes } => format!("every {minutes} minutes"),
            Rule::At { days, time } => {
                let all = Day::ALL.to_vec();
                let which = if *days == all {
                    "day".to_string()
                } else if days[..] == all[..5] {
                    "weekday".to_string()
                } else if days[..] == all[5..] {
                    "weekend day".to_string()
                } else {
                    let names: Vec<&str> = days.iter().map(|d| d.name()).collect();
                    match names.split_last() {
                        Some((last, rest)) if !rest.is_empty() => {
                            format!("{} and {last}", rest.join(", "))
                        }
                        _ => names.join(""),
                    }
                };
                format!("every {which} at {time}")
            }
        }
    }

    /// The first time after `after` this rule runs; `anchor` is when the schedule was
    /// made (a repeat counts from it).
    pub fn next_after<Tz: TimeZone>(
        &self,
        after: &DateTime<Tz>,
        anchor: &DateTime<Tz>,
    ) -> DateTime<Tz> {
        match self {
            Rule::Every { minutes } => {
                let period = Duration::minutes(i64::from((*minutes).max(1)));
                let since = after.clone().signed_duration_since(anchor.clone());
                let periods = if since < Duration::zero() {
                    0
                } else {
                    since.num_seconds() / period.num_seconds() + 1
                };
                anchor.clone() + period * i32::try_from(periods).unwrap_or(i32::MAX)
            }
            Rule::At { days, time } => {
                let time = NaiveTime::parse_from_str(time, "%H:%M").unwrap_or(NaiveTime::MIN);
                let tz = after.timezone();
                let mut date = after.date_naive();
                // Eight days always reach the next allowed day (a rule has at least one).
                for _ in 0..9 {
                    if days.contains(&Day::of(date.weekday())) {
                        let local = date.and_time(time);
                        // A skipped time runs at the first minute after it that exists.
                        let at = (0..=180).find_map(|m| {
                            tz.from_local_datetime(&(local + Duration::minutes(m)))
                                .earliest()
                        });
                        if let Some(at) = at
                            && at > *after
                        {
                            return at;
                        }
                    }
                    date = date.succ_opt().unwrap_or(date);
                }
                after.clone() + Duration::days(7)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{FixedOffset, NaiveDate};

    fn at(days: &[Day], time: &str) -> Rule {
        Rule::At {
            days: days.to_vec(),
            time: time.into(),
        }
    }

    const WEEKDAYS: [Day; 5] = [Day::Mon, Day::Tue, Day::Wed, Day::Thu, Day::Fri];

    #[test]
    fn rules_are_read_as_people_write_them() {
        let cases: &[(&str, Rule)] = &[
            ("every weekday at 9", at(&WEEKDAYS, "09:00")),
            ("Every day at 18:30", at(&Day::ALL, "18:30")),
            ("daily at 7am", at(&Day::ALL, "07:00")),
            (
                "every monday and thursday at 8pm",
                at(&[Day::Mon, Day::Thu], "20:00"),
            ),
            (
                "every mon, wed and fri at 12am",
                at(&[Day::Mon, Day::Wed, Day::Fri], "00:00"),
            ),
            ("weekends at noon", at(&[Day::Sat, Day::Sun], "12:00")),
            ("every sunday at 9 o'clock", at(&[Day::Sun], "09:00")),
            ("every 30 minutes", Rule::Every { minutes: 30 }),
            ("every 2 hours", Rule::Every { minutes: 120 }),
            ("every hour", Rule::Every { minutes: 60 }),
            ("hourly", Rule::Every { minutes: 60 }),
            ("每个工作日 9 点", at(&WEEKDAYS, "09:00")),
            ("每天9点半", at(&Day::ALL, "09:30")),
            ("每周一 下午3点", at(&[Day::Mon], "15:00")),
            ("每周末 10:15", at(&[Day::Sat, Day::Sun], "10:15")),
            ("每 30 分钟", Rule::Every { minutes: 30 }),
            ("每小时", Rule::Every { minutes: 60 }),
        ];
        for (text, rule) in cases {
            assert_eq!(Rule::parse(text).as_ref(), Some(rule), "{text}");
        }
    }

    #[test]
    fn a_day_without_its_time_or_a_repeat_without_its_unit_is_not_a_rule() {
        for text in [
            "every day",
            "every weekday",
            "every 30",
            "each file",
            "every line of notes.txt",
            "daily",
            "at 9",
            "every day at 25",
            "every day at 9:75",
            "every 0 minutes",
        ] {
            assert_eq!(Rule::parse(text), None, "{text}");
        }
    }

    #[test]
    fn rules_say_themselves_in_words() {
        assert_eq!(at(&WEEKDAYS, "09:00").words(), "every weekday at 09:00");
        assert_eq!(at(&Day::ALL, "18:30").words(), "every day at 18:30");
        assert_eq!(
            at(&[Day::Mon, Day::Wed, Day::Fri], "07:00").words(),
            "every monday, wednesday and friday at 07:00"
        );
        assert_eq!(at(&[Day::Sun], "07:00").words(), "every sunday at 07:00");
        assert_eq!(Rule::Every { minutes: 120 }.words(), "every 2 hours");
        assert_eq!(Rule::Every { minutes: 45 }.words(), "every 45 minutes");
        // The words read back as the same rule.
        for rule in [at(&WEEKDAYS, "09:00"), Rule::Every { minutes: 120 }] {
            assert_eq!(Rule::parse(&rule.words()), Some(rule));
        }
    }

    fn local(y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<FixedOffset> {
        let tz = FixedOffset::east_opt(3600).unwrap();
        tz.from_local_datetime(
            &NaiveDate::from_ymd_opt(y, m, d)
                .unwrap()
                .and_hms_opt(h, min, 0)
                .unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn the_next_run_is_the_first_allowed_day_at_its_time_after_now() {
        let weekdays = at(&WEEKDAYS, "09:00");
        // Friday 2026-12-04 10:00 → Monday 09:00.
        let friday = local(2026, 12, 4, 10, 0);
        assert_eq!(
            weekdays.next_after(&friday, &friday),
            local(2026, 12, 7, 9, 0)
        );
        // Before the time on an allowed day: that day.
        let tuesday = local(2026, 12, 1, 8, 59);
        assert_eq!(
            weekdays.next_after(&tuesday, &tuesday),
            local(2026, 12, 1, 9, 0)
        );
        // Exactly at the time: the next one.
        let nine = local(2026, 12, 1, 9, 0);
        assert_eq!(weekdays.next_after(&nine, &nine), local(2026, 12, 2, 9, 0));
        let every = Rule::Every { minutes: 30 };
        let made = local(2026, 12, 1, 10, 5);
        assert_eq!(every.next_after(&made, &made), local(2026, 12, 1, 10, 35));
        assert_eq!(
            every.next_after(&local(2026, 12, 1, 11, 40), &made),
            local(2026, 12, 1, 12, 5)
        );
    }
}
