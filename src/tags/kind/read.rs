//! Reading an intent's tokens into what they name: concepts, unknown words and the
//! hints (a file, an address, "into a PDF") that the resolution weighs.
//!
//! **Invariant:** the reading walks the tokens once, left to right, and every token
//! moves the walk forward, so it ends; what sits in a location phrase is marked weak.

use super::chinese::chinese_run;
use super::words::{Item, lemma_candidates, singular, stem, tokens};
use super::{Named, SKIP_NEXT, Seen, concept, en_phrase, en_word, in_map, in_set, is_action, lx};

#[derive(Default)]
pub(super) struct Reading {
    pub(super) named: Vec<Named>,
    pub(super) had_file: bool,
    pub(super) had_url: bool,
    pub(super) fetch: bool,
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
#[derive(Clone, Copy)]
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

/// The walk over one intent's tokens: the position, what has been read so far and the
/// flags that carry from one word to the next.
struct Reader<'a> {
    walk: Walk<'a>,
    chinese: bool,
    max_phrase: usize,
    r: Reading,
    i: usize,
    /// No word has named a concept yet (a first-word command is still possible).
    first: bool,
    /// Inside a location phrase: what is named is where, not what.
    pp: bool,
    /// The next content word is a name ("called X").
    skip_name: bool,
    /// The next content word is not the task's verb ("how to make").
    skip_next: bool,
}

pub(super) fn read(text: &str, chinese: bool) -> Reading {
    let items = tokens(text);
    let max_phrase = lx::EN_PHRASES
        .iter()
        .map(|(k, _)| k.len())
        .max()
        .unwrap_or(1);
    let mut reader = Reader {
        walk: Walk { items: &items },
        chinese,
        max_phrase,
        r: Reading::default(),
        i: 0,
        first: true,
        pp: false,
        skip_name: false,
        skip_next: false,
    };
    while reader.i < items.len() {
        reader.step();
    }
    reader.r
}

impl<'a> Reader<'a> {
    /// Reads the token at `self.i` and moves past it (and past whatever it governs).
    fn step(&mut self) {
        let items: &'a [Item] = self.walk.items;
        let Item::Word(w) = &items[self.i] else {
            self.non_word(&items[self.i]);
            self.i += 1;
            return;
        };
        let w = w.as_str();
        if self.skipped(w) || self.phrase() || self.naming(w) {
            return;
        }
        self.conversion_hints(w);
        if in_set(lx::LOCATIVE, w) {
            self.locative();
            return;
        }
        if in_set(lx::CLAUSE_BREAKS, w) {
            self.pp = false;
        }
        let place_or_object = in_map(lx::PLACE_OR_OBJECT, w);
        if self.place_or_argument(w, place_or_object) || self.first_word(w) {
            return;
        }
        self.content_word(w, place_or_object);
    }

    fn non_word(&mut self, item: &Item) {
        match item {
            Item::File => self.r.had_file = true,
            Item::Url => {
                self.r.had_url = true;
                self.r.concept("web", true);
            }
            Item::FileType(c) => self.r.concept(c, true),
            Item::Concept(c) => self.r.concept(c, self.pp),
            Item::Chinese(run) => {
                self.r.named.extend(chinese_run(run));
                self.pp = false;
            }
            Item::Break => self.pp = false,
            Item::Path | Item::Word(_) => {}
        }
    }

    /// Numbers, and the word a `skip` phrase or a naming word said to pass over.
    fn skipped(&mut self, w: &str) -> bool {
        if w.chars().next().is_some_and(char::is_numeric) {
            self.i += 1;
            return true;
        }
        if self.skip_next && !in_set(lx::EN_STOP, w) {
            self.skip_next = false;
            self.i += 1;
            return true;
        }
        if self.skip_name && !in_set(lx::EN_STOP, w) {
            self.skip_name = false;
            self.i += 1;
            return true;
        }
        false
    }

    /// Phrases, longest first.
    fn phrase(&mut self) -> bool {
        let (i, walk) = (self.i, self.walk);
        let phrase = (2..=self.max_phrase).rev().find_map(|len| {
            let words: Option<Vec<&str>> = (i..i + len).map(|k| walk.word(k)).collect();
            words.and_then(|ws| en_phrase(&ws).map(|cs| (len, cs)))
        });
        let Some((len, concepts)) = phrase else {
            return false;
        };
        for c in concepts {
            if *c == SKIP_NEXT {
                self.skip_next = true;
            } else if let Some(k) = concept(c) {
                self.r.concept(k.id, self.pp);
            }
        }
        if concepts.iter().any(|c| *c != SKIP_NEXT) {
            self.first = false;
        }
        self.i += len;
        true
    }

    fn naming(&mut self, w: &str) -> bool {
        if !in_set(lx::NAMING, w) {
            return false;
        }
        self.skip_name = true;
        self.i += 1;
        true
    }

    /// "into a PDF", "as a PDF" convert; "to PDF" at the end of a clause hints at it.
    fn conversion_hints(&mut self, w: &str) {
        let (i, walk) = (self.i, self.walk);
        if w == "into" || w == "as" {
            let j = walk.skip_determiners(i + 1);
            if walk
                .noun_concept(j)
                .is_some_and(|c| in_set(lx::FILE_TYPES, c))
                && !walk.word_in(j + 1, lx::FOLDER_WORDS)
            {
                self.r.concept("convert", false);
            }
        }
        if w == "to" {
            let j = walk.skip_determiners(i + 1);
            let clause_ends = !matches!(walk.items.get(j + 1), Some(Item::Word(_)))
                || walk.word(j + 1).is_some_and(|x| {
                    ["and", "document", "documents", "file", "files", "format"].contains(&x)
                });
            if walk
                .noun_concept(j)
                .is_some_and(|c| in_set(lx::FILE_TYPES, c))
                && clause_ends
            {
                self.r.named.push(Named {
                    seen: Seen::ConvertHint,
                    weak: false,
                });
            }
        }
    }

    /// A locative preposition: opens a location phrase when a location follows, and
    /// passes over a place and its folder words.
    fn locative(&mut self) {
        let walk = self.walk;
        let j = walk.skip_determiners(self.i + 1);
        let opens = walk.locish(j) || (walk.word(j).is_some() && walk.locish(j + 1));
        if opens {
            self.pp = true;
            if walk.place_like(j) {
                let mut k = j + 1;
                while walk.word_in(k, lx::FOLDER_WORDS) {
                    k += 1;
                }
                self.i = k;
                return;
            }
            if walk.word(j).is_some() && walk.word_in(j + 1, lx::FOLDER_WORDS) {
                self.i = j + 2;
                return;
            }
        }
        self.i += 1;
    }

    /// Places with their folder words, "<place> folder", and possessors are passed over.
    fn place_or_argument(&mut self, w: &str, place_or_object: Option<&str>) -> bool {
        let walk = self.walk;
        if in_set(lx::PLACES, w) {
            self.i += 1;
            while walk.word_in(self.i, lx::FOLDER_WORDS) {
                self.i += 1;
            }
            return true;
        }
        if place_or_object.is_some() && walk.word_in(self.i + 1, lx::FOLDER_WORDS) {
            self.i += 2;
            return true;
        }
        // A possessor ("the paper's abstract") is an argument.
        if walk.word(self.i + 1) == Some("s")
            && en_word(w).is_none()
            && !in_set(lx::EN_STOP, w)
            && place_or_object.is_none()
        {
            self.i += 2;
            return true;
        }
        false
    }

    /// A command that is one only as the intent's first word ("email the report").
    fn first_word(&mut self, w: &str) -> bool {
        if self.first
            && let Some(action) = in_map(lx::FIRST_WORD, w)
        {
            self.r.concept(action, false);
            if w == "email" || w == "mail" {
                self.r.concept("email", false);
            }
            self.first = false;
            self.i += 1;
            return true;
        }
        false
    }

    /// Any other word: a concept by itself or its lemma, else an unknown word's stem.
    fn content_word(&mut self, w: &str, place_or_object: Option<&'static str>) {
        let walk = self.walk;
        let i = self.i;
        self.i += 1;
        if in_set(lx::EN_STOP, w) {
            return;
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
            return;
        }
        if self.chinese && w == "word" {
            // Beside Chinese, "Word" is the word processor's document.
            id = Some("document");
        }
        let previous = i.checked_sub(1).and_then(|k| walk.word(k));
        if in_set(lx::BE_ADJECTIVES, w) && previous.is_some_and(|p| in_set(lx::BE, p)) {
            return;
        }
        let asked_about_past =
            i >= 2 && walk.word_in(i - 1, lx::PRONOUNS) && walk.word_in(i - 2, lx::AUXILIARIES);
        if id.is_some_and(is_action) && asked_about_past {
            return;
        }
        if ["fetch", "grab", "retrieve"].contains(&w) {
            self.r.fetch = true;
        }
        match id.and_then(concept) {
            Some(c) => self.r.concept(c.id, self.pp),
            None => self.r.named.push(Named {
                seen: Seen::Unknown(stem(w)),
                weak: self.pp,
            }),
        }
        self.first = false;
    }
}
