//! Numbers and dates in cells: lenient parsing (`1,234.50`, `$12`, `12%`, `(3)`), formatting
//! without float noise, and exact-enough summing.

/// Currency signs that may stand before or after a number.
const CURRENCY: &[char] = &['$', '€', '£', '¥', '₹', '₩', '₽', '¢'];

/// The number in `cell`, if the whole cell is one.
///
/// Accepts surrounding spaces, one sign (`-`, `+`, `−`), accounting negatives `(12)`, a
/// currency sign before or after, a trailing `%` (the value stays as written: `12%` is 12),
/// thousands separators in their right places and an exponent. With `decimal_comma` the
/// comma is the decimal separator and the dot groups thousands (`1.234,5`); a cell without a
/// comma is then still read the English way. Anything else (`Desk, oak`, `1, 2`, `inf`,
/// `0x10`) is not a number.
pub(super) fn parse(cell: &str, decimal_comma: bool) -> Option<f64> {
    let mut s = cell.trim();
    if s.is_empty() {
        return None;
    }
    let mut neg = false;
    if let Some(inner) = s.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        neg = true;
        s = inner.trim();
    }
    let (mut seen_sign, mut seen_currency) = (false, false);
    loop {
        if !seen_sign {
            if let Some(rest) = s.strip_prefix(['-', '−']) {
                neg = !neg;
                seen_sign = true;
                s = rest.trim_start();
                continue;
            }
            if let Some(rest) = s.strip_prefix('+') {
                seen_sign = true;
                s = rest.trim_start();
                continue;
            }
        }
        if !seen_currency && let Some(rest) = s.strip_prefix(CURRENCY) {
            seen_currency = true;
            s = rest.trim_start();
            continue;
        }
        break;
    }
    if let Some(rest) = s.strip_suffix('%') {
        s = rest.trim_end();
    }
    if !seen_currency && let Some(rest) = s.strip_suffix(CURRENCY) {
        s = rest.trim_end();
    }
    let plain = if decimal_comma && s.contains(',') {
        normalize(s, '.', ',')?
    } else {
        normalize(s, ',', '.')?
    };
    let value: f64 = plain.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    Some(if neg { -value } else { value })
}

/// `s` as Rust's float syntax, if it is digits with `group` separators in their places, at most
/// one `decimal` mark and an optional exponent.
fn normalize(s: &str, group: char, decimal: char) -> Option<String> {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int_part, frac_part) = match mantissa.split_once(decimal) {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let all_digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    let mut out = String::with_capacity(s.len());
    if int_part.contains(group) {
        let mut groups = int_part.split(group);
        let first = groups.next()?;
        if first.is_empty() || first.len() > 3 || !all_digits(first) {
            return None;
        }
        out.push_str(first);
        for g in groups {
            if g.len() != 3 || !all_digits(g) {
                return None;
            }
            out.push_str(g);
        }
    } else {
        if !all_digits(int_part) {
            return None;
        }
        out.push_str(int_part);
    }
    let mut digits = out.len();
    if let Some(frac) = frac_part {
        if !all_digits(frac) {
            return None;
        }
        digits += frac.len();
        out.push('.');
        out.push_str(frac);
    }
    if digits == 0 {
        return None;
    }
    if let Some(exp) = exponent {
        let unsigned = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if unsigned.is_empty() || !all_digits(unsigned) {
            return None;
        }
        out.push('e');
        out.push_str(exp);
    }
    Some(out)
}

/// `x` for a reader: integers without `.0`, at most 6 decimals (6 significant ones below 1),
/// no float noise (`12.3`, not `12.299999999`).
pub(super) fn format(x: f64) -> String {
    if x.is_nan() {
        return "not a number".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "infinity" } else { "-infinity" }.to_owned();
    }
    let ax = x.abs();
    if ax == 0.0 {
        return "0".to_owned();
    }
    if ax < 1e-12 {
        return format!("{x:.5e}");
    }
    let decimals = if ax >= 1.0 {
        6
    } else {
        // 6 significant digits: one more decimal per leading zero after the point.
        let leading_zeros = (-ax.log10()).floor().clamp(0.0, 12.0) as usize;
        6 + leading_zeros
    };
    let text = format!("{x:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// Neumaier's compensated sum: exact for integers below 2^53, close otherwise.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sum {
    /// The running sum.
    sum: f64,
    /// The low-order bits the running sum lost.
    compensation: f64,
}

impl Sum {
    /// Adds `x`.
    pub(super) fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
    }

    /// The sum so far.
    pub(super) fn value(&self) -> f64 {
        let v = self.sum + self.compensation;
        if v.is_finite() { v } else { self.sum }
    }
}

/// A key that orders ISO-like dates (`2024-03-01`, `2024/03/01`, `2024-03-01T10:00`) by time,
/// or `None` when `cell` is not one.
pub(super) fn date_key(cell: &str) -> Option<String> {
    let s = cell.trim();
    let b = s.as_bytes();
    if b.len() < 10 {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let sep = b[4];
    if !(digits(0..4)
        && (sep == b'-' || sep == b'/')
        && digits(5..7)
        && b[7] == sep
        && digits(8..10))
    {
        return None;
    }
    let month = (b[5] - b'0') * 10 + (b[6] - b'0');
    let day = (b[8] - b'0') * 10 + (b[9] - b'0');
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let rest = &s[10..];
    if !rest.is_empty() {
        let mut chars = rest.chars();
        let first = chars.next();
        let second = chars.next();
        if !matches!(first, Some('T' | 't' | ' ')) || !second.is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    Some(format!(
        "{}-{}-{}{}",
        &s[0..4],
        &s[5..7],
        &s[8..10],
        rest.replacen(['T', 't'], " ", 1)
    ))
}

/// Whether `cell` looks like a date: ISO-like, or `d/m/yyyy`, `m/d/yyyy`, `d.m.yyyy`.
pub(super) fn is_date(cell: &str) -> bool {
    if date_key(cell).is_some() {
        return true;
    }
    let s = cell.trim();
    for sep in ['/', '.', '-'] {
        let parts: Vec<&str> = s.split(sep).collect();
        if let [a, b, y] = parts.as_slice() {
            let ok = |x: &str, lo: usize, hi: usize| {
                (lo..=hi).contains(&x.len()) && x.bytes().all(|c| c.is_ascii_digit())
            };
            if ok(a, 1, 2) && ok(b, 1, 2) && ok(y, 4, 4) {
                return true;
            }
        }
    }
    false
}

/// Whether `cell` shows a decimal comma for sure: `12,5` or `1.234,56` (three digits after a
/// single comma stay ambiguous and do not count).
pub(super) fn shows_decimal_comma(cell: &str) -> bool {
    let s = cell.trim().trim_start_matches(['-', '+']);
    let Some((int_part, frac)) = s.split_once(',') else {
        return false;
    };
    if frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let int_ok = !int_part.is_empty() && int_part.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    int_ok && (frac.len() != 3 || int_part.contains('.'))
}
