//! The tables' order and coverage, lemmas, and the tokenizer.
//!
//! **Invariant:** these tests call pure functions only: no files, no clock, no runtime.

use super::chinese::{ZhEntry, zh_entry};
use super::words::{Item, lemma_candidates, singular, stem, tokens};
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
    let t =
        tokens("find *.pdf in ~/docs, then mail a@b.io https://x.org/a.mp4 notes.txt github.com");
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
