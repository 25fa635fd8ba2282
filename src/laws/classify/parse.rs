//! Parsing shell text with `brush-parser` within limits: inputs that would make the
//! parser loop, backtrack for seconds, overflow or exhaust the stack are refused before
//! it sees them, and a panic inside it is caught.
//!
//! **Invariant:** every call into the third-party parser goes through this module and
//! is bounded; a refusal is an `Err` (or `None`) the classifier treats as unreadable,
//! never as harmless.

use brush_parser::ast::Program;
use brush_parser::word;
use brush_parser::{Parser, ParserOptions};

/// Longer command lines are not analysed.
pub(super) const MAX_LEN: usize = 64 * 1024;
/// Opening brackets and block keywords beyond this are not parsed: the parser recurses
/// per level and must never exhaust a worker thread's stack.
const MAX_OPENERS: usize = 40;
/// Brackets nested deeper than this are not parsed: on unbalanced input the parser
/// backtracks exponentially in the depth (found by fuzzing: 28 `(` took 2 min, and
/// `u[!(${c[${c[${c[${c[${c[x)` — depth 12 — 3 s, each `${c[` multiplying by ~15;
/// at depth 8 the worst shape found takes 15 ms).
const MAX_NESTING: usize = 8;
/// `${…}` expansions in one word, and in one command, beyond which nothing is parsed.
const MAX_EXPANSIONS_PER_WORD: usize = 8;
const MAX_EXPANSIONS_PER_COMMAND: usize = 64;

/// Parses a shell script within the limits that keep parsing fast and shallow; the
/// error says, in plain words, why the script was not parsed.
pub fn parse_bounded(text: &str) -> Result<Program, String> {
    if text.len() > MAX_LEN {
        return Err("the command is too long to check".into());
    }
    // Control characters have no place in a command an agent writes, and one (a form
    // feed after a here-document operator: `<< \x0c<- `) sends the parser into an
    // endless loop (found by fuzzing).
    if text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err("the command contains control characters".into());
    }
    // A here-document whose delimiter is missing, reads as empty or holds an expansion
    // can make the parser loop without end: `<<\r;#`, `<<""(#&^`, `$[$[]<<\t\tF` and
    // `<<${""<${` each allocated gigabytes (all found by fuzzing).
    // Bash would take `<<''` (a body ending at the first empty line); a model has no
    // reason to write one, and the answer for it is only "ask".
    if heredoc_with_empty_delimiter(text) {
        return Err("its here-document delimiter is empty or holds an expansion".into());
    }
    if openers(text) > MAX_OPENERS || nesting(text) > MAX_NESTING {
        return Err("the command is nested too deeply to check".into());
    }
    if has_oversized_number(text) {
        return Err("it contains a number too large to be a file descriptor or stack index".into());
    }
    if text.matches("${").count() > MAX_EXPANSIONS_PER_COMMAND
        || text
            .split_whitespace()
            .any(|w| w.matches("${").count() > MAX_EXPANSIONS_PER_WORD)
    {
        return Err("it has too many ${…} expansions to check".into());
    }
    let options = ParserOptions::default();
    contained(|| {
        Parser::new(std::io::BufReader::new(text.as_bytes()), &options)
            .parse_program()
            .map_err(|err| format!("it could not be parsed: {err}"))
    })
    .unwrap_or_else(|| Err("the parser failed on it".into()))
}

/// Whether a here-document operator (`<<`, `<<-`) has a delimiter that is empty once
/// the parser has read it. The parser ends a here-document where its body ends with
/// the delimiter, so an empty one ends a body at every step without reading input,
/// and it loops until memory runs out.
///
/// The parser reads the delimiter word two ways: at top level it skips the blanks after
/// the operator; inside `$(…)`, `$[…]` and the like it keeps the first of them, so
/// `<<\t\tEOF` there has the delimiter `\t` — empty once leading whitespace is
/// trimmed. Either reading being empty counts. A run of `<` splits greedily into
/// `<<<` here-strings, so `<<<<<` ends in a here-document operator.
///
/// Words are cut at the first blank or operator character whether or not it is quoted,
/// so the piece looked at is a prefix of the parser's word: if quote removal leaves
/// something of the prefix, it leaves it of the whole word too. Quoting around the
/// operator itself is not tracked either. Both only make the check answer
/// "irreversible" for a few odd spellings (`echo "<<"`), never "safe".
fn heredoc_with_empty_delimiter(text: &str) -> bool {
    let bytes = text.as_bytes();
    let word_end = |from: usize| {
        bytes[from.min(bytes.len())..]
            .iter()
            .position(|&b| ends_word(b))
            .map_or(bytes.len(), |n| from + n)
    };
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'<').count();
        i += run;
        if run % 3 != 2 {
            continue;
        }
        let mut j = i;
        if bytes.get(j) == Some(&b'-') {
            j += 1;
        }
        // Inside a nested construct: the first blank is kept, the word runs to the next.
        let nested_start = if matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j + 1
        } else {
            j
        };
        if delimiter_is_empty(&bytes[j..word_end(nested_start)]) {
            return true;
        }
        // At top level: all the blanks are skipped.
        while matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        if delimiter_is_empty(&bytes[j..word_end(j)]) || expands(&bytes[j..]) {
            return true;
        }
    }
    false
}

/// Whether the word at the start of `rest` holds a `$` or a backquote. The parser reads
/// an expansion in a here-document delimiter as a nested construct, and a token inside
/// it can become the delimiter (`<<${""<${` is read as `""`: empty). The word runs to
/// the first blank or operator character outside quotes, or to the end when a quote is
/// left open, so it is never shorter than the parser's.
fn expands(rest: &[u8]) -> bool {
    let (mut single, mut double, mut escaped) = (false, false, false);
    for &b in rest {
        match b {
            b'$' | b'`' => return true,
            _ if escaped => escaped = false,
            b'\\' if !single => escaped = true,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            _ if ends_word(b) && !single && !double => return false,
            _ => {}
        }
    }
    false
}

/// A blank, a line break or a character that starts an operator: what ends an
/// unquoted word for the parser.
fn ends_word(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'<' | b'>' | b'(' | b')'
    )
}

/// What the parser keeps of a here-document delimiter word: leading ASCII
/// whitespace trimmed, then `'`, `"` and unescaped `\` removed.
fn delimiter_is_empty(word: &[u8]) -> bool {
    let mut escaped = false;
    for &b in word.trim_ascii_start() {
        match b {
            _ if escaped => return false,
            b'\\' => escaped = true,
            b'\'' | b'"' => {}
            _ => return false,
        }
    }
    true
}

/// Runs the third-party parser so that a bug in it (a panic) makes the answer
/// "irreversible" instead of taking the caller down.
fn contained<T>(f: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}

/// The pieces of a word (or here-document body), parsed within [`contained`].
pub fn parse_word(text: &str, heredoc: bool) -> Option<Vec<word::WordPieceWithSource>> {
    // Many nested `${…}` make the word parser backtrack for seconds (found by fuzzing).
    // So do brackets nested deep around them (an array index left open swallows the
    // rest of the word); a word without expansions has nothing to backtrack over.
    if has_oversized_number(text)
        || text.matches("${").count() > MAX_EXPANSIONS_PER_WORD
        || (text.contains(['$', '`']) && nesting(text) > MAX_NESTING)
    {
        return None;
    }
    let options = ParserOptions::default();
    contained(|| {
        if heredoc {
            word::parse_heredoc(text, &options).ok()
        } else {
            word::parse(text, &options).ok()
        }
    })
    .flatten()
}

/// `11111111111>file` or `~+11111111111`: numbers that overflow make the parser panic
/// (found by fuzzing); no real command has one.
fn has_oversized_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut run = 0usize;
    let mut start = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_digit() {
            if run == 0 {
                start = i;
            }
            run += 1;
            continue;
        }
        if run > 9 {
            let before = &bytes[..start];
            let after_tilde =
                before.ends_with(b"~") || before.ends_with(b"~+") || before.ends_with(b"~-");
            if after_tilde || b == b'<' || b == b'>' {
                return true;
            }
        }
        run = 0;
    }
    run > 9 && {
        let before = &bytes[..start];
        before.ends_with(b"~") || before.ends_with(b"~+") || before.ends_with(b"~-")
    }
}

/// The deepest nesting of `(`, `{` and `[`, quoted or not. Quotes do not stop the
/// parser's backtracking — it parses expansions inside double quotes as deeply as
/// outside — so they do not stop the count either. A closer closes only its own kind:
/// in `${a[x}` the `}` is part of the unclosed index, which the parser keeps reading,
/// so a closer of another kind is not counted (and one with nothing open neither).
fn nesting(text: &str) -> usize {
    let mut open: Vec<u8> = Vec::new();
    let mut max = 0;
    for b in text.bytes() {
        match b {
            b'(' | b'{' | b'[' => {
                open.push(b);
                max = max.max(open.len());
            }
            b')' | b'}' | b']' => {
                let opener = match b {
                    b')' => b'(',
                    b'}' => b'{',
                    _ => b'[',
                };
                if open.last() == Some(&opener) {
                    open.pop();
                }
            }
            _ => {}
        }
    }
    max
}

/// Counts opening brackets and block keywords (an upper bound on nesting).
fn openers(text: &str) -> usize {
    let brackets = text
        .chars()
        .filter(|c| matches!(c, '(' | '{' | '`'))
        .count();
    let keywords = text
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| matches!(*w, "if" | "while" | "until" | "for" | "case" | "select"))
        .count();
    brackets + keywords
}

/// Decodes the body of `$'…'` (ANSI-C quoting).
pub(super) fn decode_ansi_c(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut hex = String::new();
                while hex.len() < max {
                    match chars.peek() {
                        Some(h) if h.is_ascii_hexdigit() => {
                            hex.push(*h);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) if !hex.is_empty() => out.push(ch),
                    _ => {
                        out.push('\\');
                        out.push(e);
                        out.push_str(&hex);
                    }
                }
            }
            '0'..='7' => {
                let mut oct = String::from(e);
                while oct.len() < 3 {
                    match chars.peek() {
                        Some(o) if ('0'..='7').contains(o) => {
                            oct.push(*o);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                match u32::from_str_radix(&oct, 8).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => out.push_str(&oct),
                }
            }
            'c' => {
                // Control character: \cX.
                if let Some(x) = chars.next() {
                    out.push(char::from_u32((x as u32) & 0x1f).unwrap_or(x));
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_quoting_decodes_hex_octal_and_unicode_escapes() {
        assert_eq!(decode_ansi_c(r"\x72m"), "rm");
        assert_eq!(decode_ansi_c(r"\162\155"), "rm");
        assert_eq!(decode_ansi_c(r"\u0072m"), "rm");
        assert_eq!(decode_ansi_c(r"a\nb\q"), "a\nb\\q");
    }

    #[test]
    fn unbalanced_deep_nesting_is_refused_without_parsing() {
        let deep = format!("{}%{{", "(".repeat(28));
        let started = std::time::Instant::now();
        assert!(parse_bounded(&deep).is_err());
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(nesting("echo '((' \"[\" ]) (a) { b; } ${c[$i]}"), 3);
        assert_eq!(nesting("${F[.}}${F[.}}"), 4);
        // A word the parser took 17 s over (found by fuzzing).
        let slow_word = "g13${Fg13${F[.}}$$$d$d$נ_%$d$d$d$d$\"__$$d%\"_$d$\"__%${Fg13${F[.}}$$$d$d$$d$\"__$$d%\"_$d$\"__%${Fg13${F[.}}$$$d$d$נ_%$d$d$d$\"__$$d%\"_$d$\"__%${Fg13${F[.}}$$$d$d$\"__%$d$d$d$\"__$$d%\"_$";
        assert!(nesting(slow_word) > MAX_NESTING);
        assert!(parse_word(slow_word, false).is_none());
        let script = "cat > stats.py <<'EOF'\nimport sys, re\nrows = [l.split(',') for l in open(sys.argv[1])]\nprint({k: len([r for r in rows if r[0] == k]) for k in set(r[0] for r in rows)})\nprint(re.findall(r'[(\\[]', '([x'))\nEOF";
        assert!(nesting(script) <= MAX_NESTING, "{}", nesting(script));
        assert!(parse_bounded(script).is_ok());
        for slow in [
            "u[!(${c[${c[${c[${c[${c[x)",
            "u[!(\"${c[${c[${c[${c[${c[x\")",
            "u[!($[($[${c[${c[())${c[${c[&fase>$:)kw{^z _)|I\"\\\"\"I",
        ] {
            assert!(nesting(slow) > MAX_NESTING, "{slow}");
            assert!(parse_bounded(slow).is_err(), "{slow}");
        }
        assert!(parse_bounded("echo $(( ${a[$((i + 1))]} * 2 ))").is_ok());
        assert!(parse_bounded("( ( ( ls ) ) )").is_ok());
        assert!(parse_bounded("<< \u{c}<- ").is_err());
        assert!(parse_bounded("1 11111111111>> x").is_err());
        assert!(parse_word("~+99999999999", false).is_none());
        assert!(parse_word("~/a1234567890", false).is_some());
        assert!(parse_bounded("ls 2>/dev/null").is_ok());
    }

    #[test]
    fn a_here_document_with_an_empty_delimiter_is_refused_without_parsing() {
        for text in [
            "<<\r;#",
            "cat <<",
            "cat << \n",
            "cat <<- ;",
            "cat <<|x",
            "<<\t\r",
            "<<\"\"(#&^",
            "cat <<''",
            "cat <<- \"\" ; echo",
            "cat <<\\",
            "cat <<\\\nx",
            "cat <<\r\"'\n",
            "echo ok; cat <<'' >f",
            "=-<<<<<\r<< I/O ",
            "<<\r ",
            "cat <<<<<\"\"",
            "$[$[]<<\t\tF\t",
            "echo $(cat << \tEOF)",
            "x=$(cat <<- '' )",
            "<<${\"\"|${{<<${",
            "<<\"a ${\"\"<${",
            "<<\\ ${\"\"<${",
            "cat <<{${\"\"<${",
            "cat <<E`x`",
        ] {
            assert!(heredoc_with_empty_delimiter(text), "{text:?}");
            assert!(parse_bounded(text).is_err(), "{text:?}");
        }
        for text in [
            "cat <<EOF\nhi\nEOF",
            "cat <<- 'END'\n\thi\nEND",
            "grep x <<< \"$v\"",
            "echo a<<b",
            "echo '<<<'",
            "cat <<\\EOF\nx\nEOF",
            "cat <<\\\\",
            "cat <<\"\\\"\"",
            "cat <<\"a b\"\nx\na b",
            "cat <<<<EOF",
            "cat <<<<<<x",
            "echo $(cat << EOF\nx\nEOF\n)",
            "cat <<EOF >\"$out\"\n$HOME\nEOF",
            "cat <<'EOF' | grep \"$x\"\nEOF",
        ] {
            assert!(!heredoc_with_empty_delimiter(text), "{text:?}");
        }
        assert!(parse_bounded("cat <<EOF\nhi\nEOF\n").is_ok());
    }

    #[test]
    fn openers_counts_brackets_and_block_keywords() {
        assert_eq!(openers("ls"), 0);
        assert_eq!(openers("if true; then (ls); fi"), 2);
        assert_eq!(openers("$(a `b`)"), 3);
    }
}
