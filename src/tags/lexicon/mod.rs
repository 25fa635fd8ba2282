//! The word tables behind [`super::kind`]: concepts with their English and Chinese
//! labels, the words and phrases that name them, and the words that carry no job.
//! Every table is sorted by its key so lookups are binary searches (a test checks it).
//! The long tables live in sub-modules by language (concepts, English words, English
//! grammar words, Chinese); they are re-exported here so every path stays `lexicon::X`.
//!
//! **Invariant:** data only; every concept a word names is in [`CONCEPTS`], and every
//! concept's English label is itself a word that names it (so a slug reads back as itself).

/// What a concept contributes to a kind of task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// What is done; one per kind (the most specific present wins, see [`ACTIONS`]).
    Action,
    /// What it is done to.
    Object,
    /// Which ones (largest, newest, …).
    Qualifier,
    /// A noun that names no particular kind of thing (file, document, content).
    Generic,
}

/// A concept: its id, class, English and Chinese labels.
pub struct Concept {
    /// The concept's stable slug, such as `archive`.
    pub id: &'static str,
    /// What the concept contributes to a kind of task.
    pub class: Class,
    /// The English label.
    pub en: &'static str,
    /// The Chinese label.
    pub zh: &'static str,
}

/// Actions, the most specific first: when a task names several, the first of this
/// list is its action ("find the largest videos and delete them" is a delete).
pub const ACTIONS: &[&str] = &[
    "translate",
    "summarize",
    "compress",
    "extract",
    "resize",
    "convert",
    "compare",
    "count",
    "calculate",
    "merge",
    "capture",
    "rename",
    "copy",
    "delete",
    "organize",
    "move",
    "send",
    "download",
    "upload",
    "install",
    "uninstall",
    "remind",
    "schedule",
    "edit",
    "open",
    "close",
    "write",
    "read",
    "find",
];

mod concepts;
mod en_grammar;
mod en_words;
mod zh;

pub use concepts::CONCEPTS;
pub use en_grammar::{
    AUXILIARIES, BE, BE_ADJECTIVES, CLAUSE_BREAKS, DETERMINERS, EN_PHRASES, EN_STOP, FIRST_WORD,
    FOLDER_WORDS, LOCATIVE, NAMING, PLACE_OR_OBJECT, PLACES, PRONOUNS, TLDS,
};
pub use en_words::EN_WORDS;
pub use zh::{ZH_LOCATIVE, ZH_PHRASES, ZH_STOP, ZH_WORDS};

/// Objects that are thrown away: cleaning them up is deleting them.
pub const DISPOSABLE: &[&str] = &["cache", "junk", "temporary"];

/// Objects that are kinds of file ("into a PDF" converts).
pub const FILE_TYPES: &[&str] = &[
    "audio",
    "document",
    "image",
    "pdf",
    "presentation",
    "spreadsheet",
    "video",
];

/// Objects that are always about now: "newest" adds nothing to them.
pub const CURRENT: &[&str] = &["clock", "news", "price", "weather"];

/// Resources of the machine: their size or usage is what is asked.
pub const RESOURCES: &[&str] = &["battery", "cpu", "disk", "network", "ram"];

/// Objects that hold others: in a location phrase they are where, not what.
pub const CONTAINERS: &[&str] = &["disk", "folder", "trash", "web"];

/// Objects that stand for whatever named them ("the Safari app" is about Safari).
pub const CLASS_OBJECTS: &[&str] = &["app"];
