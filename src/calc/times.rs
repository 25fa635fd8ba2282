//! Durations between times of day written in a request ("between 09:45 and 13:10", "from
//! 9:30 am to 1 pm"): asked how many minutes lie between two clock times, a small model
//! answered from the minutes' digits alone. Each pair of times written one after the
//! other gives one line; a later time that is earlier on the clock is read as the next
//! day's.
//!
//! **Invariant:** a line names the two times as written and the duration between them,
//! in hours and minutes and in minutes; nothing else is inferred.

/// A time of day as written, and its minutes after midnight.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Clock {
    written: String,
    minutes: u32,
}

/// The times of day in `text`, in order: `H:MM` or `HH:MM` (24-hour, or 12-hour with
/// `am`/`pm` after it), and a whole hour with `am`/`pm` (`1 pm`). A number run into
/// another `:` or a digit on either side (a ratio `1:2:3`, a timestamp's seconds) is
/// not a time.
fn clocks(text: &str) -> Vec<Clock> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_ascii_digit() || matches!(chars[i - 1], ':' | '.')));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        let hour_text: String = chars[i..j].iter().collect();
        let mut minute = None;
        let mut end = j;
        if chars.get(j) == Some(&':')
            && chars.get(j + 1).is_some_and(char::is_ascii_digit)
            && chars.get(j + 2).is_some_and(char::is_ascii_digit)
            && !chars.get(j + 3).is_some_and(|c| c.is_ascii_digit())
        {
            let digit = |k: usize| chars[k].to_digit(10).unwrap_or(0);
            minute = Some(digit(j + 1) * 10 + digit(j + 2));
            end = j + 3;
            // Seconds, or a third number: not a time of day as people ask about one.
            if chars.get(end) == Some(&':') {
                i = end + 1;
                continue;
            }
        }
        let rest: String = chars[end..]
            .iter()
            .take(6)
            .collect::<String>()
            .to_lowercase();
        let rest = rest.trim_start();
        let meridiem = ["am", "a.m.", "pm", "p.m."].into_iter().find(|m| {
            rest.starts_with(m) && !rest[m.len()..].starts_with(|c: char| c.is_alphabetic())
        });
        let Ok(hour) = hour_text.parse::<u32>() else {
            i = end;
            continue;
        };
        let minutes = match (minute, meridiem) {
            (Some(m), None) if hour < 24 && m < 60 && hour_text.len() <= 2 => Some(hour * 60 + m),
            (m, Some(mer)) if (1..=12).contains(&hour) && m.is_none_or(|m| m < 60) => {
                let h = hour % 12 + if mer.starts_with('p') { 12 } else { 0 };
                Some(h * 60 + m.unwrap_or(0))
            }
            _ => None,
        };
        if let Some(minutes) = minutes {
            let mut written: String = chars[i..end].iter().collect();
            if let Some(mer) = meridiem {
                written = format!("{written} {mer}");
            }
            out.push(Clock { written, minutes });
        }
        i = end.max(i + 1);
    }
    out
}

/// `3 hours 25 minutes`, `45 minutes`, `2 hours`.
fn span(minutes: u32) -> String {
    let (h, m) = (minutes / 60, minutes % 60);
    let unit = |n: u32, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    match (h, m) {
        (0, m) => unit(m, "minute"),
        (h, 0) => unit(h, "hour"),
        (h, m) => format!("{} {}", unit(h, "hour"), unit(m, "minute")),
    }
}

/// One "Computed by code" line per two times of day written one after the other.
pub fn computed_lines(text: &str) -> Vec<String> {
    let clocks = clocks(text);
    clocks
        .windows(2)
        .map(|pair| {
            let (from, to) = (&pair[0], &pair[1]);
            let (minutes, note) = if to.minutes >= from.minutes {
                (to.minutes - from.minutes, "")
            } else {
                (to.minutes + 24 * 60 - from.minutes, " (into the next day)")
            };
            format!(
                "Computed by code: from {} to {} is {}{note} ({minutes} minutes)",
                from.written,
                to.written,
                span(minutes)
            )
        })
        .collect()
}

/// The most clock times a text may hold for the time between them to be told.
const MAX_GAP_CLOCKS: usize = 6;

/// See [`super::time_gaps`].
pub(super) fn gaps(text: &str) -> Option<String> {
    let clocks = clocks(text);
    if !(2..=MAX_GAP_CLOCKS).contains(&clocks.len()) {
        return None;
    }
    let told: Vec<String> = clocks
        .windows(2)
        .map(|pair| {
            let (from, to) = (&pair[0], &pair[1]);
            let minutes = if to.minutes >= from.minutes {
                to.minutes - from.minutes
            } else {
                to.minutes + 24 * 60 - from.minutes
            };
            format!(
                "from {} to {}: {} ({minutes} minutes)",
                from.written,
                to.written,
                span(minutes)
            )
        })
        .collect();
    Some(format!(
        "[time between its clock times, by code: {}]",
        told.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_between_a_text_s_clock_times_is_told_unless_it_holds_too_many() {
        assert_eq!(
            gaps("Team review\nStarts: 09:30\nEnds: 11:15\nRoom: 4B\n").as_deref(),
            Some(
                "[time between its clock times, by code: from 09:30 to 11:15: 1 hour 45 minutes (105 minutes)]"
            )
        );
        assert_eq!(gaps("only at 09:30"), None);
        let log: String = (0..7).map(|m| format!("10:0{m} ok\n")).collect();
        assert_eq!(gaps(&log), None);
    }

    #[test]
    fn the_time_between_two_clock_times_is_stated_in_hours_and_minutes() {
        assert_eq!(
            computed_lines("How many minutes are there between 09:45 and 13:10?"),
            ["Computed by code: from 09:45 to 13:10 is 3 hours 25 minutes (205 minutes)"]
        );
        assert_eq!(
            computed_lines("from 9:30 am to 1 pm"),
            ["Computed by code: from 9:30 am to 1 pm is 3 hours 30 minutes (210 minutes)"]
        );
        assert_eq!(
            computed_lines("the shift runs 22:00 to 06:15"),
            [
                "Computed by code: from 22:00 to 06:15 is 8 hours 15 minutes (into the next day) (495 minutes)"
            ]
        );
        assert_eq!(
            computed_lines("12:00 pm and 12:00 am"),
            [
                "Computed by code: from 12:00 pm to 12:00 am is 12 hours (into the next day) (720 minutes)"
            ]
        );
    }

    #[test]
    fn what_is_no_time_of_day_gives_no_line() {
        for text in [
            "at 09:45",
            "a ratio of 1:2:3 and 4:5:6",
            "version 1.10:30 and 2:00",
            "25:00 and 26:10",
            "the 3 largest files and 5 pm",
            "12:30:15 to 13:00:00",
            "10.5 and 11.25",
        ] {
            assert!(
                computed_lines(text).is_empty(),
                "{text}: {:?}",
                computed_lines(text)
            );
        }
    }
}
