//! Calculations by code: the arithmetic, the date facts, the time between clock times and
//! the unit conversions a request states, computed here so that no sum, product, date,
//! duration or converted quantity in an answer is a model's guess. Every role that shows
//! a request to a model (R1 the user's words, R2 the task, R3 the sub-task) adds
//! these lines as "Computed by code", and the model quotes them.
//!
//! **Invariant:** each line is a fact about numbers, dates or quantities written in the
//! text it was computed from; nothing here decides which fact the user wants.

mod arithmetic;
mod dates;
mod times;
mod units;

/// The span of days `text` names on its own (a date, a month of a year, a year), first
/// and last day included.
pub fn period(text: &str) -> Option<(chrono::NaiveDate, chrono::NaiveDate)> {
    dates::period(text)
}

/// The calendar dates written in `text`, in order, each once.
pub fn dates_in(text: &str) -> Vec<chrono::NaiveDate> {
    dates::dates_in(text)
}

/// The days between each two dates `text` holds one after the other, as a line for a
/// read's output ("from 2026-03-02 to 2026-03-19: 17 days"); none when it holds fewer
/// than two or more than [`dates::MAX_GAP_DATES`] dates (a log, whose gaps nobody asked).
pub fn date_gaps(text: &str) -> Option<String> {
    dates::gaps(text)
}

/// The time between each two clock times `text` holds one after the other, as a line for
/// a read's output; none for fewer than two or more than six (a log's timestamps).
pub fn time_gaps(text: &str) -> Option<String> {
    times::gaps(text)
}

/// The unit a request asks its answer in ("how many hours …", "… in Celsius?"), as the
/// calculator shows it.
pub fn asked_unit(request: &str) -> Option<&'static str> {
    units::asked_unit(request)
}

/// The units `text` names that measure what `like` measures, other than `like`.
pub fn units_like(text: &str, like: &str) -> Vec<&'static str> {
    units::others_like(text, like)
}

/// Whether `text` names the unit the calculator shows as `shown`.
pub fn names_unit(text: &str, shown: &str) -> bool {
    units::names(text, shown)
}

/// The numbers written in `text`, as values (a date's parts too).
pub fn numbers_of(text: &str) -> Vec<f64> {
    units::numbers_in(text)
}

/// A value as the calculator writes it (at most four decimals, no trailing zeros).
pub fn shown(v: f64) -> String {
    units::shown(v)
}

/// `value` converted between two units as the calculator shows them; `None` when they
/// measure different things.
pub fn convert(value: f64, from: &str, to: &str) -> Option<f64> {
    units::convert(value, from, to)
}

/// Every "Computed by code" line for `text`: its arithmetic, its date facts, the time
/// between its clock times, then its unit conversions, each once (a request's intent and its words often state the same
/// expression).
pub fn computed_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in arithmetic::computed_lines(&dates::without_numeric_dates(text))
        .into_iter()
        .chain(dates::computed_lines(text))
        .chain(times::computed_lines(text))
        .chain(units::computed_lines(text))
    {
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_dates_come_together_in_that_order() {
        let lines = computed_lines("Is 12 * 3 more than the days from 2026-01-01 to 2026-02-05?");
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0], "Computed by code: 12 * 3 = 36");
        assert!(lines[1].contains("is 35 days"), "{lines:?}");
        assert_eq!(
            computed_lines("2 + 2\n2 + 2"),
            vec!["Computed by code: 2 + 2 = 4"]
        );
        // A date is not a subtraction: it is stated as a date.
        let dated = computed_lines("What happened on 2026-01-01?");
        assert_eq!(dated, vec!["Computed by code: 2026-01-01 is a Thursday"]);
    }
}
