//! What kind of task an intent asks for: one action and what it acts on, read from the
//! words with the tables of [`super::lexicon`].
//!
//! The reading, in order:
//! 1. NFKC and lower case; whitespace chunks split into runs of Chinese/Japanese
//!    characters and the rest.
//! 2. Arguments are dropped: paths, file names, addresses and numbers vary between two
//!    requests for the same job. A file name still says what type it is (`a.pdf` is a
//!    PDF) and a web address that the web is involved; those count only as weak hints.
//! 3. English words: phrases first ("how many", "get rid of"), then each word or its
//!    lemma (plural, `-ing`, `-ed`); function words, places (Downloads, the Desktop) and
//!    what a location phrase ("in ~/Movies", "to the external drive") names are not the
//!    job. A word that is a command only as the first word ("email the report", "zip the
//!    photos") is read as one there.
//! 4. Chinese runs: longest match against the Chinese words and phrases; what follows a
//!    location marker (到, 在, 从, …) is weak; characters no table knows stay together as
//!    one word.
//! 5. The action is the most specific one named (delete beats find: "find the largest
//!    videos and delete them" is a deletion), `find` when none is; a few combinations
//!    read as one act ("create a zip archive" compresses, "clean up temp files" deletes,
//!    "save <address>" downloads).
//! 6. What it acts on: the objects named outside location phrases (else the weak ones,
//!    else up to two words no table knows), and the qualifiers (largest, newest, …).
//!    Generic nouns (file, document) never count: "the files on my Desktop" and "my
//!    Desktop" are one job.
//!
//! The slug is the action's label, then the other labels sorted, joined by `_`; labels
//! are English, or Chinese when the intent has Chinese characters (so a Chinese intent
//! keeps its characters and never shares a bucket with every other Chinese intent).
//!
//! **Invariant:** pure and deterministic; a slug read again gives itself, and every
//! intent with a letter or digit gets a non-empty slug.

use std::cmp::Ordering;

use super::lexicon::{self as lx, Class, Concept};

/// The marker in [`lx::EN_PHRASES`] for "the next word is not the task's verb".
const SKIP_NEXT: &str = "skip";
/// At most this many unknown words stand for what a task acts on.
const MAX_UNKNOWN_WORDS: usize = 2;
/// Characters stripped from both ends of a chunk before it is read.
const STRIP: &[char] = &[
    '?', '!', '.', ',', ';', ':', '"', '\'', '(', ')', '[', ']', '{', '}', '<', '>', '`', '“', '”',
    '‘', '’', '，', '。', '！', '？', '；', '：', '、', '（', '）',
];

/// The kind of task of `intent` as its slug; `None` when it has no letter or digit.
pub fn slug(intent: &str) -> Option<String> {
    let text: String = {
        use unicode_normalization::UnicodeNormalization;
        intent.nfkc().flat_map(char::to_lowercase).collect()
    };
    if !text.chars().any(char::is_alphanumeric) {
        return None;
    }
    let chinese = intent.chars().any(is_cjk);
    let reading = read(&text, chinese);
    Some(resolve(&reading, chinese))
}

/// Characters of scripts written without spaces (CJK ideographs, kana).
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FFFF}')
}

// ---------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------

fn concept(id: &str) -> Option<&'static Concept> {
    lx::CONCEPTS
        .binary_search_by(|c| c.id.cmp(id))
        .ok()
        .map(|i| &lx::CONCEPTS[i])
}

fn class_of(id: &str) -> Option<Class> {
    concept(id).map(|c| c.class)
}

fn in_set(set: &[&str], word: &str) -> bool {
    set.binary_search(&word).is_ok()
}

fn in_map(map: &'static [(&'static str, &'static str)], key: &str) -> Option<&'static str> {
    map.binary_search_by(|(k, _)| k.cmp(&key))
        .ok()
        .map(|i| map[i].1)
}

fn en_word(word: &str) -> Option<&'static str> {
    in_map(lx::EN_WORDS, word)
}

fn en_phrase(words: &[&str]) -> Option<&'static [&'static str]> {
    lx::EN_PHRASES
        .binary_search_by(|(k, _)| cmp_words(k, words))
        .ok()
        .map(|i| lx::EN_PHRASES[i].1)
}

fn cmp_words(a: &[&str], b: &[&str]) -> Ordering {
    a.iter().cmp(b.iter())
}

/// A concept that a file extension names, if it is a kind of thing (not an action:
/// `.zip` is an archive, not "compress").
fn ext_concept(ext: &str) -> Option<&'static str> {
    en_word(ext).filter(|c| matches!(class_of(c), Some(Class::Object | Class::Generic)))
}

fn is_action(id: &str) -> bool {
    class_of(id) == Some(Class::Action)
}

// ---------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------

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
fn lemma_candidates(w: &str) -> Vec<String> {
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

fn singular(w: &str) -> String {
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
fn stem(w: &str) -> String {
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

// ---------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Item {
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

fn tokens(text: &str) -> Vec<Item> {
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

// ---------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------

/// What a word or phrase named.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Concept(&'static str),
    /// "into a PDF" at the end of a clause: a conversion unless a stronger verb rules.
    ConvertHint,
    Unknown(String),
}

/// One thing named, and whether it sat in a location phrase (weak: where, not what).
#[derive(Clone, Debug, PartialEq)]
struct Named {
    seen: Seen,
    weak: bool,
}

#[derive(Default)]
struct Reading {
    named: Vec<Named>,
    had_file: bool,
    had_url: bool,
    fetch: bool,
}

impl Reading {
    fn concept(&mut self, id: &'static str, weak: bool) {
        self.named.push(Named {
            seen: Seen::Concept(id),
            weak,
        });
    }
}

/// The English walk's state over the token list.
struct Walk<'a> {
    items: &'a [Item],
}

impl Walk<'_> {
    fn word(&self, k: usize) -> Option<&str> {
        match self.items.get(k) {
            Some(Item::Word(w)) => Some(w.as_str()),
            _ => None,
        }
    }

    fn word_in(&self, k: usize, set: &[&str]) -> bool {
        self.word(k).is_some_and(|w| in_set(set, w))
    }

    fn skip_determiners(&self, mut j: usize) -> usize {
        while self.word_in(j, lx::DETERMINERS) {
            j += 1;
        }
        j
    }

    /// The concept a word names as a noun (its singular), unless it is a stop word.
    fn noun_concept(&self, k: usize) -> Option<&'static str> {
        self.word(k)
            .filter(|w| !in_set(lx::EN_STOP, w))
            .and_then(|w| en_word(&singular(w)))
    }

    fn place_like(&self, k: usize) -> bool {
        self.word(k).is_some_and(|w| {
            in_set(lx::PLACES, w)
                || in_map(lx::PLACE_OR_OBJECT, w).is_some()
                || in_set(lx::FOLDER_WORDS, w)
        })
    }

    /// Whether position `k` names a location: a path, a file, a place, a folder, a
    /// container, a resource or a kind of file.
    fn locish(&self, k: usize) -> bool {
        match self.items.get(k) {
            None => false,
            Some(Item::Path | Item::File | Item::Chinese(_) | Item::Concept(_)) => true,
            Some(Item::Word(w)) => {
                self.place_like(k)
                    || en_word(&singular(w)).is_some_and(|c| {
                        in_set(lx::FILE_TYPES, c)
                            || in_set(lx::CONTAINERS, c)
                            || in_set(lx::RESOURCES, c)
                    })
            }
            Some(_) => false,
        }
    }
}

fn read(text: &str, chinese: bool) -> Reading {
    let items = tokens(text);
    let walk = Walk { items: &items };
    let n = items.len();
    let max_phrase = lx::EN_PHRASES
        .iter()
        .map(|(k, _)| k.len())
        .max()
        .unwrap_or(1);
    let mut r = Reading::default();
    let (mut i, mut first, mut pp, mut skip_name, mut skip_next) = (0, true, false, false, false);
    while i < n {
        let w = match &items[i] {
            Item::Word(w) => w.as_str(),
            other => {
                match other {
                    Item::File => r.had_file = true,
                    Item::Url => {
                        r.had_url = true;
                        r.concept("web", true);
                    }
                    Item::FileType(c) => r.concept(c, true),
                    Item::Concept(c) => r.concept(c, pp),
                    Item::Chinese(run) => {
                        r.named.extend(chinese_run(run));
                        pp = false;
                    }
                    Item::Break => pp = false,
                    Item::Path | Item::Word(_) => {}
                }
                i += 1;
                continue;
            }
        };
        if w.chars().next().is_some_and(char::is_numeric) {
            i += 1;
            continue;
        }
        if skip_next && !in_set(lx::EN_STOP, w) {
            skip_next = false;
            i += 1;
            continue;
        }
        if skip_name && !in_set(lx::EN_STOP, w) {
            skip_name = false;
            i += 1;
            continue;
        }
        // Phrases, longest first.
        let phrase = (2..=max_phrase).rev().find_map(|len| {
            let words: Option<Vec<&str>> = (i..i + len).map(|k| walk.word(k)).collect();
            words.and_then(|ws| en_phrase(&ws).map(|cs| (len, cs)))
        });
        if let Some((len, concepts)) = phrase {
            for c in concepts {
                if *c == SKIP_NEXT {
                    skip_next = true;
                } else if let Some(k) = concept(c) {
                    r.concept(k.id, pp);
                }
            }
            if concepts.iter().any(|c| *c != SKIP_NEXT) {
                first = false;
            }
            i += len;
            continue;
        }
        if in_set(lx::NAMING, w) {
            skip_name = true;
            i += 1;
            continue;
        }
        if w == "into" || w == "as" {
            let j = walk.skip_determiners(i + 1);
            if walk
                .noun_concept(j)
                .is_some_and(|c| in_set(lx::FILE_TYPES, c))
                && !walk.word_in(j + 1, lx::FOLDER_WORDS)
            {
                r.concept("convert", false);
            }
        }
        if w == "to" {
            let j = walk.skip_determiners(i + 1);
            let clause_ends = !matches!(items.get(j + 1), Some(Item::Word(_)))
                || walk.word(j + 1).is_some_and(|x| {
                    ["and", "document", "documents", "file", "files", "format"].contains(&x)
                });
            if walk
                .noun_concept(j)
                .is_some_and(|c| in_set(lx::FILE_TYPES, c))
                && clause_ends
            {
                r.named.push(Named {
                    seen: Seen::ConvertHint,
                    weak: false,
                });
            }
        }
        if in_set(lx::LOCATIVE, w) {
            let j = walk.skip_determiners(i + 1);
            let opens = walk.locish(j) || (walk.word(j).is_some() && walk.locish(j + 1));
            if opens {
                pp = true;
                if walk.place_like(j) {
                    let mut k = j + 1;
                    while walk.word_in(k, lx::FOLDER_WORDS) {
                        k += 1;
                    }
                    i = k;
                    continue;
                }
                if walk.word(j).is_some() && walk.word_in(j + 1, lx::FOLDER_WORDS) {
                    i = j + 2;
                    continue;
                }
            }
            i += 1;
            continue;
        }
        if in_set(lx::CLAUSE_BREAKS, w) {
            pp = false;
        }
        if in_set(lx::PLACES, w) {
            i += 1;
            while walk.word_in(i, lx::FOLDER_WORDS) {
                i += 1;
            }
            continue;
        }
        let place_or_object = in_map(lx::PLACE_OR_OBJECT, w);
        if place_or_object.is_some() && walk.word_in(i + 1, lx::FOLDER_WORDS) {
            i += 2;
            continue;
        }
        // A possessor ("the paper's abstract") is an argument.
        if walk.word(i + 1) == Some("s")
            && en_word(w).is_none()
            && !in_set(lx::EN_STOP, w)
            && place_or_object.is_none()
        {
            i += 2;
            continue;
        }
        if first && let Some(action) = in_map(lx::FIRST_WORD, w) {
            r.concept(action, false);
            if w == "email" || w == "mail" {
                r.concept("email", false);
            }
            first = false;
            i += 1;
            continue;
        }
        if in_set(lx::EN_STOP, w) {
            i += 1;
            continue;
        }
        let mut id = place_or_object;
        if id.is_none() {
            for candidate in lemma_candidates(w) {
                if let Some(c) = en_word(&candidate) {
                    id = Some(c);
                    break;
                }
                if in_set(lx::EN_STOP, &candidate) {
                    id = Some("");
                    break;
                }
            }
        }
        if id == Some("") {
            i += 1;
            continue;
        }
        if chinese && w == "word" {
            // Beside Chinese, "Word" is the word processor's document.
            id = Some("document");
        }
        let previous = i.checked_sub(1).and_then(|k| walk.word(k));
        if in_set(lx::BE_ADJECTIVES, w) && previous.is_some_and(|p| in_set(lx::BE, p)) {
            i += 1;
            continue;
        }
        let asked_about_past =
            i >= 2 && walk.word_in(i - 1, lx::PRONOUNS) && walk.word_in(i - 2, lx::AUXILIARIES);
        if id.is_some_and(is_action) && asked_about_past {
            i += 1;
            continue;
        }
        if ["fetch", "grab", "retrieve"].contains(&w) {
            r.fetch = true;
        }
        match id.and_then(concept) {
            Some(c) => r.concept(c.id, pp),
            None => r.named.push(Named {
                seen: Seen::Unknown(stem(w)),
                weak: pp,
            }),
        }
        first = false;
        i += 1;
    }
    r
}

/// What a Chinese table entry is.
enum ZhEntry {
    Concept(&'static str),
    Phrase(&'static [&'static str]),
    Stop,
    Locative,
}

fn zh_entry(piece: &str) -> Option<ZhEntry> {
    if in_set(lx::ZH_LOCATIVE, piece) {
        return Some(ZhEntry::Locative);
    }
    if let Ok(i) = lx::ZH_PHRASES.binary_search_by(|(k, _)| k.cmp(&piece)) {
        return Some(ZhEntry::Phrase(lx::ZH_PHRASES[i].1));
    }
    if let Some(c) = in_map(lx::ZH_WORDS, piece) {
        return Some(ZhEntry::Concept(c));
    }
    in_set(lx::ZH_STOP, piece).then_some(ZhEntry::Stop)
}

/// Longest entry of the Chinese tables, in characters.
fn zh_longest() -> usize {
    let chars = |s: &&str| s.chars().count();
    [
        lx::ZH_WORDS.iter().map(|(k, _)| chars(k)).max(),
        lx::ZH_PHRASES.iter().map(|(k, _)| chars(k)).max(),
        lx::ZH_STOP.iter().map(chars).max(),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(1)
}

/// A run of Chinese text, matched longest first.
fn chinese_run(run: &str) -> Vec<Named> {
    let chars: Vec<char> = run.chars().collect();
    let longest = zh_longest();
    let mut out = Vec::new();
    let (mut i, mut unknown, mut weak) = (0, String::new(), false);
    while i < chars.len() {
        let hit = (1..=longest.min(chars.len() - i)).rev().find_map(|len| {
            let piece: String = chars[i..i + len].iter().collect();
            zh_entry(&piece).map(|e| (len, e))
        });
        let Some((len, entry)) = hit else {
            unknown.push(chars[i]);
            i += 1;
            continue;
        };
        if !unknown.is_empty() {
            out.push(Named {
                seen: Seen::Unknown(std::mem::take(&mut unknown)),
                weak,
            });
        }
        match entry {
            ZhEntry::Locative => weak = true,
            ZhEntry::Stop => {}
            ZhEntry::Phrase(ids) => {
                out.extend(ids.iter().filter_map(|id| concept(id)).map(|c| Named {
                    seen: Seen::Concept(c.id),
                    weak,
                }))
            }
            ZhEntry::Concept(id) => {
                if let Some(c) = concept(id) {
                    if c.class == Class::Action {
                        weak = false;
                    }
                    out.push(Named {
                        seen: Seen::Concept(c.id),
                        weak,
                    });
                }
            }
        }
        i += len;
    }
    if !unknown.is_empty() {
        out.push(Named {
            seen: Seen::Unknown(unknown),
            weak,
        });
    }
    out
}

// ---------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------

fn retain(list: &mut Vec<&'static str>, keep: impl Fn(&str) -> bool) {
    list.retain(|c| keep(c));
}

fn resolve(r: &Reading, chinese: bool) -> String {
    let concepts: Vec<(&'static str, bool)> = r
        .named
        .iter()
        .filter_map(|n| match n.seen {
            Seen::Concept(c) => Some((c, n.weak)),
            _ => None,
        })
        .collect();
    let of_class = |class: Class, weak: Option<bool>| -> Vec<&'static str> {
        concepts
            .iter()
            .filter(|(c, w)| class_of(c) == Some(class) && weak.is_none_or(|x| x == *w))
            .map(|(c, _)| *c)
            .collect()
    };
    let mut actions = of_class(Class::Action, None);
    let mut strong = of_class(Class::Object, Some(false));
    let mut weak = of_class(Class::Object, Some(true));
    let mut qualifiers = of_class(Class::Qualifier, None);
    let unknowns: Vec<&str> = r
        .named
        .iter()
        .filter(|n| !n.weak)
        .filter_map(|n| match &n.seen {
            Seen::Unknown(w) => Some(w.as_str()),
            _ => None,
        })
        .collect();
    let objects: Vec<&str> = strong.iter().chain(weak.iter()).copied().collect();
    let has = |list: &[&str], id: &str| list.contains(&id);

    // Acts that read as one.
    if r.named.iter().any(|n| n.seen == Seen::ConvertHint)
        && actions
            .iter()
            .all(|a| ["edit", "write", "find", "organize"].contains(a))
    {
        actions.push("convert");
    }
    if r.had_url && (has(&actions, "write") || r.fetch) {
        actions.push("download");
    }
    if has(&actions, "write") && has(&objects, "archive") {
        actions.push("compress");
    }
    if (has(&actions, "organize") || has(&actions, "move"))
        && objects
            .iter()
            .any(|o| in_set(lx::DISPOSABLE, o) || *o == "trash")
    {
        actions.push("delete");
    }
    if has(&actions, "compress") || has(&actions, "extract") {
        retain(&mut strong, |o| o != "archive");
        retain(&mut weak, |o| o != "archive");
    }
    let mut action = lx::ACTIONS
        .iter()
        .copied()
        .find(|a| has(&actions, a))
        .unwrap_or("find");
    let class_object = |o: &str| in_set(lx::CLASS_OBJECTS, o);
    if (action == "find" || action == "open")
        && r.had_file
        && strong.iter().all(|o| class_object(o))
    {
        action = "read";
    }

    // What it acts on.
    let mut real: Vec<&'static str> = strong
        .iter()
        .copied()
        .filter(|o| !class_object(o) && *o != "web")
        .collect();
    if action == "capture" {
        retain(&mut real, |o| o != "image");
    }
    if action == "delete"
        && real
            .iter()
            .chain(weak.iter())
            .any(|o| in_set(lx::DISPOSABLE, o))
    {
        retain(&mut real, |o| o != "trash");
    }
    if real.is_empty() {
        real = weak
            .iter()
            .copied()
            .filter(|o| !in_set(lx::CONTAINERS, o) && !class_object(o))
            .collect();
    }
    if real.is_empty() && action == "delete" {
        real = weak.iter().copied().filter(|o| *o == "trash").collect();
    }
    if real.iter().any(|o| in_set(lx::CURRENT, o)) {
        retain(&mut qualifiers, |q| q != "newest");
    }
    if real.iter().any(|o| in_set(lx::RESOURCES, o)) {
        retain(&mut real, |o| o != "size");
    }
    if has(&real, "battery") {
        retain(&mut qualifiers, |q| q != "free");
    }
    if has(&real, "package") {
        retain(&mut real, |o| o != "code");
        if ["write", "edit", "find"].contains(&action) {
            action = "install";
        }
    }
    if has(&real, "network") || action == "download" || action == "open" {
        retain(&mut real, |o| o != "web");
    }

    let mut parts: Vec<String> = Vec::new();
    let label = |id: &str| -> String {
        concept(id).map_or_else(
            || id.to_string(),
            |c| if chinese { c.zh } else { c.en }.to_string(),
        )
    };
    for c in real.iter().chain(qualifiers.iter()) {
        parts.push(label(c));
    }
    if real.is_empty() {
        parts.extend(
            unknowns
                .iter()
                .take(MAX_UNKNOWN_WORDS)
                .map(|w| (*w).to_string()),
        );
        if unknowns.is_empty() {
            parts.extend(strong.iter().filter(|o| class_object(o)).map(|o| label(o)));
        }
    }
    if parts.is_empty() && has(&strong, "web") && action != "open" && action != "download" {
        parts.push(label(if action == "find" { "network" } else { "web" }));
    }
    parts.sort();
    parts.dedup();
    let mut slug = label(action);
    for p in parts {
        slug.push('_');
        slug.push_str(&p);
    }
    slug
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_is_sorted_so_lookups_find_every_entry() {
        fn sorted<T>(items: &[T], key: impl Fn(&T) -> String) -> bool {
            items.windows(2).all(|w| key(&w[0]) < key(&w[1]))
        }
        assert!(sorted(lx::CONCEPTS, |c| c.id.to_string()));
        for set in [
            lx::EN_STOP,
            lx::PLACES,
            lx::LOCATIVE,
            lx::DETERMINERS,
            lx::FOLDER_WORDS,
            lx::NAMING,
            lx::CLAUSE_BREAKS,
            lx::BE,
            lx::BE_ADJECTIVES,
            lx::PRONOUNS,
            lx::AUXILIARIES,
            lx::TLDS,
            lx::ZH_STOP,
            lx::ZH_LOCATIVE,
            lx::DISPOSABLE,
            lx::FILE_TYPES,
            lx::CURRENT,
            lx::RESOURCES,
            lx::CONTAINERS,
            lx::CLASS_OBJECTS,
        ] {
            assert!(sorted(set, |s| s.to_string()), "{set:?}");
        }
        for map in [
            lx::EN_WORDS,
            lx::PLACE_OR_OBJECT,
            lx::FIRST_WORD,
            lx::ZH_WORDS,
        ] {
            assert!(sorted(map, |(k, _)| k.to_string()));
        }
        assert!(
            lx::EN_PHRASES
                .windows(2)
                .all(|w| cmp_words(w[0].0, w[1].0) == Ordering::Less)
        );
        assert!(sorted(lx::ZH_PHRASES, |(k, _)| k.to_string()));
    }

    #[test]
    fn every_concept_named_exists_and_every_label_reads_back_as_its_concept() {
        let named = lx::EN_WORDS
            .iter()
            .map(|(_, c)| *c)
            .chain(lx::ZH_WORDS.iter().map(|(_, c)| *c))
            .chain(lx::PLACE_OR_OBJECT.iter().map(|(_, c)| *c))
            .chain(lx::FIRST_WORD.iter().map(|(_, c)| *c))
            .chain(lx::EN_PHRASES.iter().flat_map(|(_, cs)| cs.iter().copied()))
            .chain(lx::ZH_PHRASES.iter().flat_map(|(_, cs)| cs.iter().copied()))
            .chain(lx::ACTIONS.iter().copied());
        for id in named.filter(|c| *c != SKIP_NEXT) {
            assert!(concept(id).is_some(), "{id} is not a concept");
        }
        for c in lx::CONCEPTS {
            assert_eq!(en_word(c.en), Some(c.id), "{}", c.en);
            assert!(!in_set(lx::EN_STOP, c.en), "{}", c.en);
            if c.zh.chars().all(is_cjk) {
                assert!(
                    matches!(zh_entry(c.zh), Some(ZhEntry::Concept(id)) if id == c.id),
                    "{}",
                    c.zh
                );
            }
        }
        assert_eq!(
            lx::ACTIONS.len(),
            lx::CONCEPTS
                .iter()
                .filter(|c| c.class == Class::Action)
                .count()
        );
    }

    #[test]
    fn lemmas_and_stems_undo_common_inflections() {
        assert!(lemma_candidates("videos").contains(&"video".to_string()));
        assert!(lemma_candidates("directories").contains(&"directory".to_string()));
        assert!(lemma_candidates("zipping").contains(&"zip".to_string()));
        assert!(lemma_candidates("renamed").contains(&"rename".to_string()));
        assert_eq!(stem("scanned"), "scan");
        assert_eq!(stem(&stem("scanned")), "scan");
        assert_eq!(singular("status"), "status");
        assert_eq!(singular("boxes"), "box");
    }

    #[test]
    fn arguments_are_told_from_words() {
        let t = tokens(
            "find *.pdf in ~/docs, then mail a@b.io https://x.org/a.mp4 notes.txt github.com",
        );
        assert_eq!(
            t,
            vec![
                Item::Word("find".into()),
                Item::Concept("pdf"),
                Item::Word("in".into()),
                Item::Path,
                Item::Break,
                Item::Word("then".into()),
                Item::Word("mail".into()),
                Item::Path,
                Item::Url,
                Item::FileType("video"),
                Item::File,
                Item::FileType("document"),
                Item::Url,
            ]
        );
    }
}
