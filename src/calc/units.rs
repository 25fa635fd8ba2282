//! Unit conversions the code computes: a quantity written with a unit ("26.2 miles",
//! "350°F", "2.5 GB") converted to every other unit of the same dimension the text names
//! ("… in kilometres"). Asked "How many kilometres are 26.2 miles?", a small model
//! answered 42.26 from its memory of the factor; the factor is a table here, and the
//! line goes to the model as "Computed by code", like arithmetic.
//!
//! Dimensions: length, mass, volume, time, temperature, area, speed and data sizes
//! (decimal and binary prefixes). A unit word that is also an everyday word ("in",
//! "m", "t") is read only right after a number, never as the unit asked for.
//!
//! **Invariant:** every line converts a quantity written in the input into a unit
//! written in the input, of the same dimension, by an exact factor (and offset, for
//! temperatures); nothing is inferred about which unit the user wants.

/// At most this many lines.
const MAX_LINES: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dimension {
    Length,
    Mass,
    Volume,
    Time,
    Temperature,
    Area,
    Speed,
    Data,
}

/// One unit: the name it is shown with, the words it is written as, its dimension, and
/// its value in the dimension's base unit (for temperatures, the scale and the offset
/// to kelvin: `k = v * factor + offset`).
struct Unit {
    shown: &'static str,
    words: &'static [&'static str],
    dimension: Dimension,
    factor: f64,
    offset: f64,
    /// Read only right after a number (an everyday word otherwise).
    bound: bool,
}

const fn unit(
    shown: &'static str,
    words: &'static [&'static str],
    dimension: Dimension,
    factor: f64,
) -> Unit {
    Unit {
        shown,
        words,
        dimension,
        factor,
        offset: 0.0,
        bound: false,
    }
}

const fn bound(mut u: Unit) -> Unit {
    u.bound = true;
    u
}

use Dimension::{Area, Data, Length, Mass, Speed, Temperature, Time, Volume};

/// Every unit read. Words are lower case; a multi-word unit is matched whole.
const UNITS: &[Unit] = &[
    // Length, in metres.
    unit(
        "mm",
        &[
            "mm",
            "millimetre",
            "millimetres",
            "millimeter",
            "millimeters",
        ],
        Length,
        0.001,
    ),
    unit(
        "cm",
        &[
            "cm",
            "centimetre",
            "centimetres",
            "centimeter",
            "centimeters",
        ],
        Length,
        0.01,
    ),
    bound(unit("m", &["m"], Length, 1.0)),
    unit("m", &["metre", "metres", "meter", "meters"], Length, 1.0),
    unit(
        "km",
        &[
            "km",
            "kilometre",
            "kilometres",
            "kilometer",
            "kilometers",
            "kms",
        ],
        Length,
        1000.0,
    ),
    unit("inches", &["inch", "inches"], Length, 0.0254),
    bound(unit("inches", &["in", "\""], Length, 0.0254)),
    unit("feet", &["ft", "foot", "feet"], Length, 0.3048),
    unit("yards", &["yd", "yds", "yard", "yards"], Length, 0.9144),
    unit("miles", &["mi", "mile", "miles"], Length, 1609.344),
    unit(
        "nautical miles",
        &["nmi", "nautical mile", "nautical miles"],
        Length,
        1852.0,
    ),
    // Mass, in kilograms.
    unit("mg", &["mg", "milligram", "milligrams"], Mass, 1e-6),
    unit(
        "g",
        &["g", "gram", "grams", "gramme", "grammes"],
        Mass,
        0.001,
    ),
    unit(
        "kg",
        &["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"],
        Mass,
        1.0,
    ),
    unit(
        "tonnes",
        &["tonne", "tonnes", "metric ton", "metric tons"],
        Mass,
        1000.0,
    ),
    bound(unit("tonnes", &["t"], Mass, 1000.0)),
    unit("oz", &["oz", "ounce", "ounces"], Mass, 0.028_349_523_125),
    unit("lb", &["lb", "lbs", "pound", "pounds"], Mass, 0.453_592_37),
    unit("stone", &["stone", "stones"], Mass, 6.350_293_18),
    // Volume, in litres.
    unit(
        "ml",
        &[
            "ml",
            "millilitre",
            "millilitres",
            "milliliter",
            "milliliters",
        ],
        Volume,
        0.001,
    ),
    unit("cl", &["cl", "centilitre", "centilitres"], Volume, 0.01),
    unit("l", &["litre", "litres", "liter", "liters"], Volume, 1.0),
    bound(unit("l", &["l"], Volume, 1.0)),
    unit(
        "US gallons",
        &["gal", "gallon", "gallons", "us gallon", "us gallons"],
        Volume,
        3.785_411_784,
    ),
    unit(
        "imperial gallons",
        &["imperial gallon", "imperial gallons"],
        Volume,
        4.546_09,
    ),
    unit(
        "US quarts",
        &["qt", "quart", "quarts"],
        Volume,
        0.946_352_946,
    ),
    unit("US pints", &["pt", "pint", "pints"], Volume, 0.473_176_473),
    unit("US cups", &["cup", "cups"], Volume, 0.236_588_236_5),
    unit(
        "US fl oz",
        &["fl oz", "fluid ounce", "fluid ounces"],
        Volume,
        0.029_573_529_562_5,
    ),
    unit(
        "tbsp",
        &["tbsp", "tablespoon", "tablespoons"],
        Volume,
        0.014_786_764_781_25,
    ),
    unit(
        "tsp",
        &["tsp", "teaspoon", "teaspoons"],
        Volume,
        0.004_928_921_593_75,
    ),
    // Time, in seconds.
    unit("ms", &["millisecond", "milliseconds"], Time, 0.001),
    bound(unit("ms", &["ms"], Time, 0.001)),
    unit("seconds", &["sec", "secs", "second", "seconds"], Time, 1.0),
    bound(unit("seconds", &["s"], Time, 1.0)),
    unit("minutes", &["min", "mins", "minute", "minutes"], Time, 60.0),
    unit("hours", &["hr", "hrs", "hour", "hours"], Time, 3600.0),
    bound(unit("hours", &["h"], Time, 3600.0)),
    unit("days", &["day", "days"], Time, 86_400.0),
    unit("weeks", &["week", "weeks"], Time, 604_800.0),
    // Temperature: kelvin = value * factor + offset.
    Unit {
        shown: "°C",
        words: &[
            "°c",
            "celsius",
            "centigrade",
            "degrees celsius",
            "degrees c",
        ],
        dimension: Temperature,
        factor: 1.0,
        offset: 273.15,
        bound: false,
    },
    Unit {
        shown: "°F",
        words: &["°f", "fahrenheit", "degrees fahrenheit", "degrees f"],
        dimension: Temperature,
        factor: 5.0 / 9.0,
        offset: 273.15 - 32.0 * 5.0 / 9.0,
        bound: false,
    },
    // "428 F", "220 C": a letter alone names a temperature only right after a number.
    bound(Unit {
        shown: "°F",
        words: &["f"],
        dimension: Temperature,
        factor: 5.0 / 9.0,
        offset: 273.15 - 32.0 * 5.0 / 9.0,
        bound: false,
    }),
    bound(Unit {
        shown: "°C",
        words: &["c"],
        dimension: Temperature,
        factor: 1.0,
        offset: 273.15,
        bound: false,
    }),
    unit("K", &["kelvin", "kelvins"], Temperature, 1.0),
    // Area, in square metres.
    unit(
        "m²",
        &[
            "m²",
            "m2",
            "sq m",
            "square metre",
            "square metres",
            "square meter",
            "square meters",
        ],
        Area,
        1.0,
    ),
    unit(
        "km²",
        &[
            "km²",
            "km2",
            "sq km",
            "square kilometre",
            "square kilometres",
            "square kilometer",
            "square kilometers",
        ],
        Area,
        1e6,
    ),
    unit(
        "sq ft",
        &["ft²", "ft2", "sq ft", "square foot", "square feet"],
        Area,
        0.092_903_04,
    ),
    unit("acres", &["acre", "acres"], Area, 4_046.856_422_4),
    unit("hectares", &["ha", "hectare", "hectares"], Area, 10_000.0),
    unit(
        "sq mi",
        &["mi²", "sq mi", "square mile", "square miles"],
        Area,
        2_589_988.110_336,
    ),
    // Speed, in metres per second.
    unit(
        "km/h",
        &[
            "km/h",
            "kmh",
            "kph",
            "kilometres per hour",
            "kilometers per hour",
        ],
        Speed,
        1000.0 / 3600.0,
    ),
    unit("mph", &["mph", "miles per hour"], Speed, 1609.344 / 3600.0),
    unit(
        "m/s",
        &["m/s", "metres per second", "meters per second"],
        Speed,
        1.0,
    ),
    unit(
        "knots",
        &["kn", "kt", "knot", "knots"],
        Speed,
        1852.0 / 3600.0,
    ),
    // Data, in bytes: decimal and binary prefixes as written.
    unit("bytes", &["byte", "bytes"], Data, 1.0),
    bound(unit("bytes", &["b"], Data, 1.0)),
    unit("KB", &["kb", "kilobyte", "kilobytes"], Data, 1e3),
    unit("MB", &["mb", "megabyte", "megabytes"], Data, 1e6),
    unit("GB", &["gb", "gigabyte", "gigabytes"], Data, 1e9),
    unit("TB", &["tb", "terabyte", "terabytes"], Data, 1e12),
    unit("KiB", &["kib", "kibibyte", "kibibytes"], Data, 1024.0),
    unit("MiB", &["mib", "mebibyte", "mebibytes"], Data, 1_048_576.0),
    unit(
        "GiB",
        &["gib", "gibibyte", "gibibytes"],
        Data,
        1_073_741_824.0,
    ),
    unit(
        "TiB",
        &["tib", "tebibyte", "tebibytes"],
        Data,
        1_099_511_627_776.0,
    ),
];

/// A token of the text: a number, or a run of letters (with the signs units use).
#[derive(Debug, PartialEq)]
enum Token {
    Number(f64, String),
    Word(String),
}

fn tokens(text: &str) -> Vec<Token> {
    let lower = text.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let unit_char = |c: char| c.is_alphabetic() || matches!(c, '°' | '²' | '/' | '"');
    while i < chars.len() {
        let c = chars[i];
        let starts_number = c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
            || (c == '-'
                && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                && (i == 0 || !chars[i - 1].is_alphanumeric()));
        if starts_number {
            let start = i;
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (matches!(chars[i], '.' | ',')
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let written: String = chars[start..i].iter().collect();
            // "1,609" is a thousands separator; "3,5" a decimal comma is not read.
            let plain = written.replace(',', "");
            let thousands = written
                .split(',')
                .skip(1)
                .all(|g| g.len() == 3 || (g.contains('.') && g.find('.') == Some(3)));
            if let (true, Ok(v)) = (thousands, plain.parse::<f64>()) {
                out.push(Token::Number(v, written));
            }
            continue;
        }
        if unit_char(c) {
            let start = i;
            while i < chars.len()
                && (unit_char(chars[i]) || (chars[i].is_ascii_digit() && chars[i - 1] == 'm'))
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push(Token::Word(word.trim_end_matches('/').to_string()));
            continue;
        }
        i += 1;
    }
    out
}

/// The unit written at `words[at..]`, longest first, and how many tokens it takes.
fn unit_at(words: &[&str], after_number: bool) -> Option<(&'static Unit, usize)> {
    for len in (1..=3).rev() {
        if words.len() < len {
            continue;
        }
        let phrase = words[..len].join(" ");
        let found = UNITS
            .iter()
            .find(|u| (after_number || !u.bound) && u.words.iter().any(|w| *w == phrase));
        if let Some(u) = found {
            return Some((u, len));
        }
    }
    None
}

/// A quantity written in the text: its value, as written, and its unit.
struct Quantity {
    value: f64,
    written: String,
    unit: &'static Unit,
}

/// The words at the start of `toks`, up to the first number, at most three (a unit is at
/// most three words).
fn leading_words(toks: &[Token]) -> Vec<&str> {
    toks.iter()
        .map_while(|t| match t {
            Token::Word(w) => Some(w.as_str()),
            Token::Number(..) => None,
        })
        .take(3)
        .collect()
}

/// The quantities of `text` and the units it names without a number.
fn read(text: &str) -> (Vec<Quantity>, Vec<&'static Unit>) {
    let toks = tokens(text);
    let mut quantities = Vec::new();
    let mut named = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Token::Number(value, written) => {
                if let Some((unit, len)) = unit_at(&leading_words(&toks[i + 1..]), true) {
                    quantities.push(Quantity {
                        value: *value,
                        written: written.clone(),
                        unit,
                    });
                    i += 1 + len;
                } else {
                    i += 1;
                }
            }
            Token::Word(_) => {
                if let Some((unit, len)) = unit_at(&leading_words(&toks[i..]), false) {
                    named.push(unit);
                    i += len;
                } else {
                    i += 1;
                }
            }
        }
    }
    (quantities, named)
}

/// The unit `request` asks its answer in: the one after "how many" or "how much", else
/// the last one it names (a quantity's own unit is what is converted from, not to).
pub(super) fn asked_unit(request: &str) -> Option<&'static str> {
    let toks = tokens(request);
    for (i, t) in toks.iter().enumerate() {
        if let Token::Word(w) = t
            && w == "how"
            && let Some(Token::Word(next)) = toks.get(i + 1)
            && matches!(next.as_str(), "many" | "much")
            && let Some((unit, _)) = unit_at(&leading_words(&toks[i + 2..]), false)
        {
            return Some(unit.shown);
        }
    }
    read(request).1.last().map(|u| u.shown)
}

/// The units named in `text` (after a number or not) of the same kind of quantity as
/// the unit shown as `like`, other than it.
pub(super) fn others_like(text: &str, like: &str) -> Vec<&'static str> {
    let Some(target) = UNITS.iter().find(|u| u.shown == like) else {
        return Vec::new();
    };
    let (quantities, named) = read(text);
    let mut out: Vec<&'static str> = Vec::new();
    for u in quantities.iter().map(|q| q.unit).chain(named) {
        if u.dimension == target.dimension && u.shown != like && !out.contains(&u.shown) {
            out.push(u.shown);
        }
    }
    out
}

/// Whether `text` names the unit shown as `shown` (in any of its words).
pub(super) fn names(text: &str, shown: &str) -> bool {
    let Some(unit) = UNITS.iter().find(|u| u.shown == shown) else {
        return false;
    };
    let (quantities, named) = read(text);
    quantities
        .iter()
        .map(|q| q.unit)
        .chain(named)
        .any(|u| u.shown == unit.shown)
}

/// The numbers written in `text`, as values.
pub(super) fn numbers_in(text: &str) -> Vec<f64> {
    tokens(text)
        .into_iter()
        .filter_map(|t| match t {
            Token::Number(v, _) => Some(v),
            Token::Word(_) => None,
        })
        .collect()
}

/// A value as the calculator writes it.
pub(super) fn shown(v: f64) -> String {
    show(v)
}

/// `value` in the unit shown as `from`, in the unit shown as `to`.
pub(super) fn convert(value: f64, from: &str, to: &str) -> Option<f64> {
    let from = UNITS.iter().find(|u| u.shown == from)?;
    let to = UNITS.iter().find(|u| u.shown == to)?;
    (from.dimension == to.dimension)
        .then(|| (value * from.factor + from.offset - to.offset) / to.factor)
}

/// `v` with at most 6 significant decimals, trailing zeros cut.
fn show(v: f64) -> String {
    let digits = if v.abs() >= 1.0 { 4 } else { 6 };
    let s = format!("{v:.digits$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// The lines of unit conversions for `text`.
pub fn computed_lines(text: &str) -> Vec<String> {
    let (quantities, named) = read(text);
    let mut out: Vec<String> = Vec::new();
    for q in &quantities {
        let mut targets: Vec<&Unit> = named
            .iter()
            .copied()
            .chain(quantities.iter().map(|other| other.unit))
            .filter(|u| u.dimension == q.unit.dimension && u.shown != q.unit.shown)
            .collect();
        targets.dedup_by(|a, b| a.shown == b.shown);
        for target in targets {
            let base = q.value * q.unit.factor + q.unit.offset;
            let value = (base - target.offset) / target.factor;
            let line = format!(
                "Computed by code: {} {} = {} {}",
                q.written,
                q.unit.shown,
                show(value),
                target.shown
            );
            if !out.contains(&line) && out.len() < MAX_LINES {
                out.push(line);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quantity_is_converted_into_the_unit_the_text_names() {
        assert_eq!(
            computed_lines("How many kilometres are 26.2 miles?"),
            ["Computed by code: 26.2 miles = 42.1648 km"]
        );
        assert_eq!(
            computed_lines("Convert 350°F to Celsius"),
            ["Computed by code: 350 °F = 176.6667 °C"]
        );
        assert_eq!(
            computed_lines("what is 5 kg in pounds"),
            ["Computed by code: 5 kg = 11.0231 lb"]
        );
        assert_eq!(
            computed_lines("2.5 GB is how many MiB?"),
            ["Computed by code: 2.5 GB = 2384.1858 MiB"]
        );
        assert_eq!(
            computed_lines("60 mph in km/h"),
            ["Computed by code: 60 mph = 96.5606 km/h"]
        );
        assert_eq!(
            computed_lines("a 2 cup recipe, in ml please"),
            ["Computed by code: 2 US cups = 473.1765 ml"]
        );
        // Two quantities of one dimension: each in the other's unit.
        assert_eq!(
            computed_lines("Is 1,500 m longer than 1 mile?"),
            [
                "Computed by code: 1,500 m = 0.932057 miles",
                "Computed by code: 1 miles = 1609.344 m"
            ]
        );
    }

    #[test]
    fn nothing_is_said_without_a_unit_to_convert_into() {
        // No target unit, one of another dimension, or an everyday word.
        assert!(computed_lines("I ran 5 km today").is_empty());
        assert!(computed_lines("5 kg in the box").is_empty());
        assert!(computed_lines("What is in 3 days?").is_empty());
        assert!(computed_lines("How many files are in ~/Downloads?").is_empty());
        assert!(computed_lines("12 * 3 + 4").is_empty());
    }
}
