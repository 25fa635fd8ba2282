//! Words and tokens: lemmas and stems of English words, file names and globs, and the
//! split of an intent into words, Chinese runs and arguments (paths, files, addresses).
//!
//! **Invariant:** arguments never reach the reading as words: a path, a file name or an
//! address becomes a token that at most hints at a kind of file or the web.

use super::{ext_concept, in_set, is_cjk, lx};

/// Characters stripped from both ends of a chunk before it is read.
const STRIP: &[char] = &[
    '?', '!', '.', ',', ';', ':', '"', '\'', '(', ')', '[', ']', '{', '}', '<', '>', '`', '“', '”',
    '‘', '’', '，', '。', '！', '？', '；', '：', '、', '（', '）',
];

fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Whether the last two characters of `s` are the same letter.
fn doubled(s: &str) -> bool {
    let mut rev = s.chars().rev();
    matches!((rev.next(), rev.next()), (Some(a), Some(b)) if a == b)
}

fn drop_last_char(s: &str) -> String {
    let mut out = s.to_string();
    out.pop();
    out
}

/// `w` and the lemmas it may be an inflection of, most literal first.
pub(super) fn lemma_candidates(w: &str) -> Vec<String> {
    let mut out = vec![w.to_string()];
    let n = char_len(w);
    if n > 3 && w.ends_with("ies") {
        out.push(format!("{}y", &w[..w.len() - 3]));
    }
    if n > 3
        && ["sses", "xes", "zes", "ches", "shes", "oes"]
            .iter()
            .any(|s| w.ends_with(s))
    {
        out.push(w[..w.len() - 2].to_string());
    }
    if n > 2 && w.ends_with('s') && !["ss", "us", "is"].iter().any(|s| w.ends_with(s)) {
        out.push(w[..w.len() - 1].to_string());
    }
    if n > 4 && w.ends_with("ing") {
        let b = &w[..w.len() - 3];
        out.push(b.to_string());
        out.push(format!("{b}e"));
        if char_len(b) > 2 && doubled(b) {
            out.push(drop_last_char(b));
        }
    }
    if n > 3 && w.ends_with("ied") {
        out.push(format!("{}y", &w[..w.len() - 3]));
    }
    if n > 3 && w.ends_with("ed") {
        let b = &w[..w.len() - 2];
        out.push(b.to_string());
        out.push(w[..w.len() - 1].to_string());
        if char_len(b) > 2 && doubled(b) {
            out.push(drop_last_char(b));
        }
    }
    out
}

pub(super) fn singular(w: &str) -> String {
    let n = char_len(w);
    if n > 3 && w.ends_with("ies") {
        return format!("{}y", &w[..w.len() - 3]);
    }
    if n > 3
        && ["sses", "xes", "zes", "ches", "shes"]
            .iter()
            .any(|s| w.ends_with(s))
    {
        return w[..w.len() - 2].to_string();
    }
    if n > 2 && w.ends_with('s') && !["ss", "us", "is"].iter().any(|s| w.ends_with(s)) {
        return w[..w.len() - 1].to_string();
    }
    w.to_string()
}

/// An unknown word's stem: singular, without `-ing`/`-ed` (a doubled consonant undone).
pub(super) fn stem(w: &str) -> String {
    let w = singular(w);
    for suffix in ["ing", "ed"] {
        if w.ends_with(suffix) && char_len(&w) > suffix.len() + 3 {
            let mut b = w[..w.len() - suffix.len()].to_string();
            let last = b.chars().last();
            if char_len(&b) > 2 && doubled(&b) && !matches!(last, Some('l' | 's')) {
                b.pop();
            }
            return b;
        }
    }
    w
}

/// `name.ext` (no separator in the name, a letter then up to four letters or digits in
/// the extension): its extension.
fn file_ext(s: &str) -> Option<&str> {
    let (name, ext) = s.rsplit_once('.')?;
    let mut chars = ext.chars();
    let ok = !name.is_empty()
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_whitespace)
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && (1..=5).contains(&ext.len());
    ok.then_some(ext)
}

/// `*.ext` or `.ext`: the extension a glob filters on.
fn glob_ext(s: &str) -> Option<&str> {
    let rest = s.strip_prefix('*').unwrap_or(s).strip_prefix('.')?;
    let ok = (1..=5).contains(&rest.len())
        && rest
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    ok.then_some(rest)
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Item {
    Word(String),
    Chinese(String),
    /// A concept named by a glob (`*.pdf`).
    Concept(&'static str),
    /// A path or an address: an argument.
    Path,
    /// A file name (with or without its path).
    File,
    /// The type a file name's extension names (a weak hint).
    FileType(&'static str),
    /// A web address.
    Url,
    /// `,`, `;` or `:` closed the chunk.
    Break,
}

/// Splits a whitespace chunk into runs of CJK characters and the rest.
fn runs(chunk: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut current: Option<bool> = None;
    for (i, c) in chunk.char_indices() {
        let cjk = is_cjk(c);
        if let Some(kind) = current
            && kind != cjk
        {
            out.push((kind, &chunk[start..i]));
            start = i;
        }
        current = Some(cjk);
    }
    if let Some(kind) = current {
        out.push((kind, &chunk[start..]));
    }
    out
}

pub(super) fn tokens(text: &str) -> Vec<Item> {
    let mut out = Vec::new();
    for chunk in text.split_whitespace() {
        for (cjk, run) in runs(chunk) {
            if cjk {
                out.push(Item::Chinese(run.to_string()));
                continue;
            }
            let breaks = run.ends_with([',', ';', ':']);
            let s = run.trim_matches(STRIP);
            if !s.is_empty() {
                other_run(s, &mut out);
            }
            if breaks {
                out.push(Item::Break);
            }
        }
    }
    out
}

fn push_file_type(ext: Option<&str>, out: &mut Vec<Item>) {
    if let Some(c) = ext.and_then(ext_concept) {
        out.push(Item::FileType(c));
    }
}

/// One run of non-CJK text: an address, a glob, a path, a file name or words.
fn other_run(s: &str, out: &mut Vec<Item>) {
    let web = s.starts_with("http:") || s.starts_with("https:") || s.starts_with("www.");
    if s.contains('@') && !s.starts_with("http:") && !s.starts_with("https:") {
        out.push(Item::Path);
    } else if web {
        out.push(Item::Url);
        let after_scheme = s.split_once("//").map_or(s, |(_, rest)| rest);
        if after_scheme.contains('/') {
            let last = s.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            push_file_type(file_ext(last), out);
        }
    } else if let Some(ext) = glob_ext(s.rsplit('/').next().unwrap_or(s))
        .filter(|_| s.starts_with('*') || s.starts_with('.') || s.contains("/*"))
    {
        out.push(ext_concept(ext).map_or(Item::Path, Item::Concept));
    } else if s.contains(['/', '\\']) || s.starts_with('~') || s.starts_with('$') {
        let last = s.rsplit(['/', '\\']).next().unwrap_or("");
        let ext = file_ext(last);
        out.push(if ext.is_some() {
            Item::File
        } else {
            Item::Path
        });
        push_file_type(ext, out);
    } else if let Some(ext) = file_ext(s) {
        if in_set(lx::TLDS, ext) {
            out.push(Item::Url);
        } else {
            out.push(Item::File);
            push_file_type(Some(ext), out);
        }
    } else {
        let mut word = String::new();
        for c in s.chars() {
            if c.is_alphanumeric() {
                word.push(c);
            } else if !word.is_empty() {
                out.push(Item::Word(std::mem::take(&mut word)));
            }
        }
        if !word.is_empty() {
            out.push(Item::Word(word));
        }
    }
}
