//! Cutting text to a size: the one place that decides how a long string is shortened for
//! a prompt, a log line, a status line or a stored record; and folding it for a loose
//! comparison.
//!
//! Invariant: every function here counts characters, not bytes, and never splits a
//! character; a text already within the limit comes back unchanged.

/// The first `max` characters of `text`, borrowed.
pub fn prefix(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((cut, _)) => &text[..cut],
        None => text,
    }
}

/// The first `max` characters of `text`, owned.
pub fn first_chars(text: &str, max: usize) -> String {
    prefix(text, max).to_string()
}

/// The first `max` characters of `text`, with `…` appended when something was cut (so
/// the result may be one character longer than `max`).
pub fn clip(text: &str, max: usize) -> String {
    let kept = prefix(text, max);
    if kept.len() < text.len() {
        format!("{kept}…")
    } else {
        text.to_string()
    }
}

/// Like [`clip`], but a cut falls between words: the word the limit splits is left out
/// whole, so a quote never ends in half a path or half a number (which reads as one that
/// does not exist). A text with no space in its first `max` characters is cut there.
pub fn clip_words(text: &str, max: usize) -> String {
    let kept = prefix(text, max);
    if kept.len() == text.len() {
        return text.to_string();
    }
    let next_is_space = text[kept.len()..].starts_with(char::is_whitespace);
    let whole = if next_is_space {
        kept
    } else {
        kept.rfind(char::is_whitespace)
            .map_or(kept, |at| &kept[..at])
    };
    format!("{}…", whole.trim_end())
}

/// `text` as one line (runs of whitespace, newlines included, become one space), at most
/// `max` characters long, the last of them `…` when something was cut.
pub fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > max {
        format!("{}…", prefix(&line, max.saturating_sub(1)))
    } else {
        line
    }
}

/// Whether `c` belongs to a script written without spaces between words, or read as
/// such here: kana, Han (with its compatibility forms and the supplementary planes) and
/// Hangul. The one definition for R1's routing and the task-kind reading, so a request
/// is CJK to both or to neither.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{AC00}'..='\u{D7AF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FFFF}')
}

/// `text` folded for comparing what a model wrote with what it copied: runs of whitespace
/// as one space, lower case.
pub fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// How much of the kept room [`elide_middle`] gives to the start of the text; the rest
/// goes to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Half the start, half the end: a text whose both ends matter alike (a context, a
    /// claim, prior outputs).
    Balanced,
    /// A third the start, two thirds the end: a command's output, whose result and
    /// errors come last.
    MostlyEnd,
}

/// `text` within `max` characters: its start and its end, joined by a marker that says
/// how many characters were left out. When even the marker does not fit, the start alone.
pub fn elide_middle(text: &str, max: usize, keep: Keep) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_string();
    }
    let marker = |omitted: usize| format!("\n…[{omitted} characters left out]…\n");
    // The marker's length depends on the count; reserve for the widest one.
    let reserve = marker(total).chars().count();
    if max <= reserve {
        return first_chars(text, max);
    }
    let room = max - reserve;
    let head = match keep {
        Keep::Balanced => room / 2,
        Keep::MostlyEnd => room / 3,
    };
    let tail = room - head;
    let head_end = text.char_indices().nth(head).map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(total - tail)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}{}{}",
        &text[..head_end],
        marker(total - head - tail),
        &text[tail_start..]
    )
}

/// A JSON output as text for a prompt: a string verbatim, nothing as `(no output)`,
/// anything else as pretty JSON.
pub fn output_text(output: &serde_json::Value) -> String {
    match output {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "(no output)".to_string(),
        other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    }
}

/// `n` and the noun for it: "1 entry", "3 entries".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `text` with every occurrence of the home directory as a path prefix written `~`.
pub fn tilde(text: &str, home: &std::path::Path) -> String {
    let home = home.to_string_lossy();
    let home = home.trim_end_matches('/');
    if home.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(home) {
        let after = &rest[i + home.len()..];
        let ends = after.is_empty() || after.starts_with('/') || after.starts_with(' ');
        out.push_str(&rest[..i]);
        out.push_str(if ends { "~" } else { home });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// A size for people: `532 B`, `1.2 MB` (1000-based, one decimal).
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KB", "MB", "GB", "TB", "PB", "EB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 999.95 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS.get(unit).copied().unwrap_or("EB"))
}

/// `n` of `total` as a percentage, computed by code with one decimal at most: 30 of 40 →
/// "75", 1 of 3 → "33.3", 3 of 8 → "37.5"; "0" of nothing.
pub fn percent(n: usize, total: usize) -> String {
    if total == 0 {
        return "0".to_string();
    }
    let tenths = (n as f64 * 1000.0 / total as f64).round() / 10.0;
    let text = format!("{tenths:.1}");
    text.strip_suffix(".0").unwrap_or(&text).to_string()
}

/// The words of `text`, lower case: its runs of letters and digits.
pub fn word_runs(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The shortest common start that makes two words forms of one.
const MIN_FORM_CHARS: usize = 4;

/// Whether `a` and `b` (lower case) are one word, as written or in a shorter or longer
/// form: one starts with the other, which has at least [`MIN_FORM_CHARS`] characters
/// ("warn" and "warning", "error" and "errors", "rain" and "rainy").
pub fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.chars().count() >= MIN_FORM_CHARS && long.starts_with(short))
}

/// A token that is a file's name: letters before a dot and letters after it
/// (`notes.txt`, `IMG_0042.jpeg`), not a number or a version.
pub fn is_file_name(t: &str) -> bool {
    t.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.chars().any(char::is_alphabetic)
            && ext.chars().all(char::is_alphanumeric)
    })
}

/// Words a request may open with before its verb.
const LEAD_INS: &[&str] = &[
    "please", "kindly", "can", "could", "would", "will", "you", "now", "then", "just", "go",
    "ahead", "and",
];

/// Words a request may open a phrase of place or time with, before a comma and its verb
/// ("In ~/site/links.txt, change every http:// to https://").
const PLACE_OPENERS: &[&str] = &[
    "in", "inside", "within", "on", "at", "for", "from", "under", "after", "before", "when",
];

/// The request's first word after its lead-ins, lower case, with the word after it: its
/// verb when it opens with one. A request that opens with a phrase of place or time and a
/// comma has its verb after the comma.
pub fn leading_verb(request: &str) -> Option<(String, Option<String>)> {
    let folded = crate::text::fold(request);
    let opener = folded
        .split(|c: char| !c.is_alphabetic())
        .find(|w| !w.is_empty())
        .is_some_and(|w| PLACE_OPENERS.contains(&w));
    let request = match folded.split_once(',') {
        Some((_, rest)) if opener => rest.to_string(),
        _ => folded,
    };
    let mut words = request
        .split(|c: char| !c.is_alphabetic() && c != '\'')
        .filter(|w| !w.is_empty())
        .skip_while(|w| LEAD_INS.contains(w));
    let verb = words.next()?.to_string();
    Some((verb, words.next().map(str::to_string)))
}

/// The email addresses in `text`, in the order they first appear, each once: a local
/// part of letters, digits and `._%+-`, an `@`, and a domain of labels joined by dots
/// whose last label has two letters or more (`ana@example.org`, `<dan@home.test>`,
/// `b.ruiz+work@mail.co.uk`), without the punctuation around them.
pub fn email_addresses(text: &str) -> Vec<&str> {
    let local = |c: char| c.is_alphanumeric() || "._%+-".contains(c);
    let domain = |c: char| c.is_alphanumeric() || ".-".contains(c);
    let mut found: Vec<&str> = Vec::new();
    for (at, _) in text.match_indices('@') {
        let start = text[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| local(*c))
            .last()
            .map_or(at, |(i, _)| i);
        let end = text[at + 1..]
            .char_indices()
            .take_while(|(_, c)| domain(*c))
            .last()
            .map_or(at + 1, |(i, c)| at + 1 + i + c.len_utf8());
        let name = text[start..at].trim_start_matches('.');
        let host = text[at + 1..end].trim_end_matches(['.', '-']);
        let labels: Vec<&str> = host.split('.').collect();
        let well_formed = !name.is_empty()
            && labels.len() >= 2
            && labels.iter().all(|l| !l.is_empty())
            && labels.last().is_some_and(|tld| {
                tld.chars().count() >= 2 && tld.chars().all(char::is_alphabetic)
            });
        if well_formed {
            let address = &text[at - name.len()..at + 1 + host.len()];
            if !found.iter().any(|f| f.eq_ignore_ascii_case(address)) {
                found.push(address);
            }
        }
    }
    found
}

/// The web addresses in `text` (`http://` or `https://` up to a space or a quote or
/// angle bracket, without a sentence's closing punctuation), in the order they first
/// appear, each once.
pub fn web_addresses(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    let mut rest = 0;
    while let Some(at) = ["http://", "https://"]
        .iter()
        .filter_map(|scheme| text[rest..].find(scheme))
        .min()
        .map(|i| rest + i)
    {
        let end = text[at..]
            .find(|c: char| c.is_whitespace() || "<>\"'`".contains(c))
            .map_or(text.len(), |i| at + i);
        let mut address = text[at..end].trim_end_matches(['.', ',', ';', ':', '!', '?']);
        // A closing bracket the address does not open is the sentence's.
        for (open, close) in [('(', ')'), ('[', ']')] {
            if address.ends_with(close)
                && address.matches(open).count() < address.matches(close).count()
            {
                address = &address[..address.len() - 1];
            }
        }
        let bare = address
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        if !bare.is_empty() && !found.contains(&address) {
            found.push(address);
        }
        rest = end.max(at + 1);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cjk_range_for_kana_han_and_hangul() {
        for c in ['の', '文', '件', '한', '國', '𠀀'] {
            assert!(is_cjk(c), "{c}");
        }
        for c in ['a', 'é', 'Ж', '1', '—', ' '] {
            assert!(!is_cjk(c), "{c}");
        }
        // A Korean request is CJK to R1's routing and to the task-kind reading alike:
        // both read this one function.
        assert!("파일 찾기".chars().any(is_cjk));
    }

    #[test]
    fn a_cut_between_words_never_leaves_half_a_path() {
        let text = "Tried: read_file: /tmp/a/notes.txt; read_file: /tmp/b/notes.txt";
        assert_eq!(
            clip_words(text, 52),
            "Tried: read_file: /tmp/a/notes.txt; read_file:…"
        );
        assert_eq!(clip_words(text, 35), "Tried: read_file: /tmp/a/notes.txt;…");
        assert_eq!(clip_words(text, 200), text);
        assert_eq!(clip_words("abcdefgh", 3), "abc…");
    }

    #[test]
    fn prefix_and_first_chars_never_split_a_multibyte_character() {
        assert_eq!(prefix("héllo", 2), "hé");
        assert_eq!(first_chars("日本語テキスト", 3), "日本語");
        assert_eq!(first_chars("ab", 10), "ab");
        assert_eq!(first_chars("", 3), "");
        assert_eq!(prefix("🤖🤖", 1), "🤖");
    }

    #[test]
    fn clip_marks_a_cut_and_leaves_a_short_text_alone() {
        assert_eq!(clip("abcdef", 3), "abc…");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("日本語テキスト", 2), "日本…");
    }

    #[test]
    fn one_line_collapses_whitespace_and_stays_within_the_limit() {
        assert_eq!(one_line("a\n  b\tc", 10), "a b c");
        let cut = one_line("one two three four", 8);
        assert_eq!(cut, "one two…");
        assert_eq!(cut.chars().count(), 8);
        assert_eq!(one_line("exactly8", 8), "exactly8");
    }

    #[test]
    fn elide_middle_keeps_both_ends_within_the_limit() {
        let text: String = (0..2_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        for keep in [Keep::Balanced, Keep::MostlyEnd] {
            let cut = elide_middle(&text, 300, keep);
            assert!(
                cut.chars().count() <= 300,
                "{keep:?}: {}",
                cut.chars().count()
            );
            assert!(cut.starts_with("abc"));
            assert!(cut.ends_with(&text[text.len() - 20..]));
            assert!(cut.contains("characters left out"));
        }
        assert_eq!(elide_middle("short", 300, Keep::Balanced), "short");
        assert_eq!(elide_middle(&text, 5, Keep::MostlyEnd), "abcde");
    }

    #[test]
    fn elide_middle_gives_the_end_more_room_when_asked() {
        let text = "x".repeat(1_000) + &"y".repeat(1_000);
        let balanced = elide_middle(&text, 400, Keep::Balanced);
        let end = elide_middle(&text, 400, Keep::MostlyEnd);
        let xs = |s: &str| s.chars().filter(|&c| c == 'x').count();
        assert!(
            xs(&end) < xs(&balanced),
            "{} vs {}",
            xs(&end),
            xs(&balanced)
        );
        let cjk = elide_middle(&"日本語".repeat(200), 100, Keep::MostlyEnd);
        assert!(cjk.chars().count() <= 100);
    }

    #[test]
    fn email_addresses_are_found_inside_any_words_each_once() {
        let text = "Met Ana at the fair, ana@example.org\nBen's mail: ben.ruiz@mail.test (work)\n\
                    Dan <dan@home.test>. Again: ANA@example.org; b+x@mail.co.uk.\n\
                    not one: @handle, a@b, me@localhost, x@y.1, 5 @ 6";
        assert_eq!(
            email_addresses(text),
            [
                "ana@example.org",
                "ben.ruiz@mail.test",
                "dan@home.test",
                "b+x@mail.co.uk"
            ]
        );
        assert!(email_addresses("no address here").is_empty());
    }

    #[test]
    fn web_addresses_end_where_the_sentence_goes_on() {
        let text = "See https://example.org/a?b=1. Or (http://x.test/y) and \
                    <https://wiki.test/Page_(x)>, https://example.org/a?b=1 again; http:// alone";
        assert_eq!(
            web_addresses(text),
            [
                "https://example.org/a?b=1",
                "http://x.test/y",
                "https://wiki.test/Page_(x)"
            ]
        );
    }
}
