//! Reading a run of Chinese text: longest match against the Chinese tables, with the
//! characters no table knows kept together as one unknown word.
//!
//! **Invariant:** every character of a run is either matched by exactly one table entry
//! or is part of an unknown word; what follows a location marker is weak until an action.

use super::{Class, concept, in_map, in_set, lx};
use super::{Named, Seen};

/// What a Chinese table entry is.
pub(super) enum ZhEntry {
    Concept(&'static str),
    Phrase(&'static [&'static str]),
    Stop,
    Locative,
}

pub(super) fn zh_entry(piece: &str) -> Option<ZhEntry> {
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
pub(super) fn chinese_run(run: &str) -> Vec<Named> {
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
