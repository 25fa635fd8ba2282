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

mod chinese;
mod read;
mod resolve;
#[cfg(test)]
mod tests;
mod words;

use read::read;
use resolve::resolve;

/// What a word or phrase named.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Seen {
    Concept(&'static str),
    /// "into a PDF" at the end of a clause: a conversion unless a stronger verb rules.
    ConvertHint,
    Unknown(String),
}

/// One thing named, and whether it sat in a location phrase (weak: where, not what).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Named {
    pub(super) seen: Seen,
    pub(super) weak: bool,
}

/// The marker in [`lx::EN_PHRASES`] for "the next word is not the task's verb".
const SKIP_NEXT: &str = "skip";

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

pub use crate::text::is_cjk;

/// The kind of thing an English word names (an image, a video, a spreadsheet…): the
/// word or its singular as a noun or a file extension ("photos" and "jpg" both name
/// an image). Generic nouns (file, document, content) and actions name none.
pub fn object_named(word: &str) -> Option<&'static str> {
    let word = word.to_lowercase();
    words::lemma_candidates(&word).iter().find_map(|w| {
        en_word(w)
            .filter(|c| class_of(c) == Some(Class::Object))
            .or_else(|| in_map(lx::PLACE_OR_OBJECT, w))
    })
}

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
