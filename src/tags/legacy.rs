//! The intent slug of older builds, kept so a store they wrote still finds its groups:
//! the intent's content words — NFKC-normalised, lower-cased, punctuation and a few
//! English function words dropped — joined by `-`, with an FNV-1a suffix when words were
//! cut. Its groups split paraphrases apart; [`super::intent_slug`] replaced it, and the
//! memory store reads a group of this shape together with the group its words now name
//! ([`super::canonical_intent_space`]).
//!
//! **Invariant:** frozen — the same intent gives the same slug as the build that wrote
//! it, forever; pure and never empty.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// At most this many words of an intent make its slug.
pub const MAX_SLUG_WORDS: usize = 8;
/// At most this many characters of one word (a run of Chinese text is one word).
pub const MAX_WORD_CHARS: usize = 24;

/// Slug of an intent with no word at all (blank input).
pub(super) const BLANK_SLUG: &str = "unspecified";

/// English function words that do not change what a task is ("find the videos" and
/// "find videos" are one kind of task). Only dropped when something else remains.
const STOP_WORDS: &[&str] = &[
    "a", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "could", "for", "from",
    "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "please", "some", "that",
    "the", "these", "this", "those", "to", "with", "would", "you", "your",
];

/// The slug an older build gave this intent: lower-case content words joined by `-`;
/// never empty.
pub fn legacy_slug(intent: &str) -> String {
    let folded: String = intent.nfkc().flat_map(char::to_lowercase).collect();
    let words = words(&folded);
    let content: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !STOP_WORDS.contains(w))
        .collect();
    let chosen: Vec<&str> = if content.is_empty() {
        words.iter().map(String::as_str).collect()
    } else {
        content
    };

    if chosen.is_empty() {
        let symbols = folded.split_whitespace().collect::<Vec<_>>().join(" ");
        return if symbols.is_empty() {
            BLANK_SLUG.to_string()
        } else {
            // Only symbols (emoji, punctuation): still a distinct, stable bucket.
            format!("x-{}", short_hash(&symbols))
        };
    }

    let mut cut = chosen.len() > MAX_SLUG_WORDS;
    let kept: Vec<String> = chosen
        .iter()
        .take(MAX_SLUG_WORDS)
        .map(|w| {
            if w.chars().count() > MAX_WORD_CHARS {
                cut = true;
                w.chars().take(MAX_WORD_CHARS).collect()
            } else {
                (*w).to_string()
            }
        })
        .collect();
    let mut slug = kept.join("-");
    if cut {
        slug.push('-');
        slug.push_str(&short_hash(&chosen.join(" ")));
    }
    slug
}

/// Splits on everything that is neither a letter/digit nor a combining mark (a virama or
/// vowel sign belongs to its word, so Devanagari or Thai words stay whole).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || (is_combining_mark(c) && !current.is_empty()) {
            current.push(c);
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// First 8 hex digits of the 64-bit FNV-1a hash of `text`'s UTF-8 bytes. FNV is fixed
/// by its constants, so the value never changes between runs, platforms or versions
/// (unlike `std`'s randomly keyed hasher).
pub(super) fn short_hash(text: &str) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = text
        .bytes()
        .fold(OFFSET, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME));
    format!("{hash:016x}")[..8].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_english_intent_keeps_its_content_words_in_order() {
        assert_eq!(
            legacy_slug("Find the 3 largest videos in ~/Downloads!"),
            "find-3-largest-videos-downloads"
        );
    }

    #[test]
    fn case_punctuation_width_and_function_words_do_not_change_the_bucket() {
        let a = legacy_slug("Find the largest videos");
        assert_eq!(a, legacy_slug("find largest videos."));
        assert_eq!(a, legacy_slug("  FIND  the   LARGEST, videos  "));
        // Full-width Latin letters (common with a Chinese input method) fold by NFKC.
        assert_eq!(a, legacy_slug("ｆｉｎｄ ｌａｒｇｅｓｔ ｖｉｄｅｏｓ"));
    }

    #[test]
    fn chinese_intents_keep_their_characters_and_get_distinct_buckets() {
        let videos = legacy_slug("找出下载文件夹里最大的视频");
        let pictures = legacy_slug("找出桌面上最大的图片");
        assert_eq!(videos, "找出下载文件夹里最大的视频");
        assert_eq!(pictures, "找出桌面上最大的图片");
        assert_ne!(videos, pictures);
        assert_eq!(legacy_slug("找出桌面上最大的图片。"), pictures);
    }

    #[test]
    fn mixed_scripts_and_combining_marks_stay_inside_their_words() {
        assert_eq!(legacy_slug("把 PDF 转成 Word"), "把-pdf-转成-word");
        // The virama (U+094D) is a combining mark, not a separator.
        assert_eq!(legacy_slug("हिन्दी अनुवाद"), "हिन्दी-अनुवाद");
    }

    #[test]
    fn long_intents_that_share_a_prefix_still_get_distinct_buckets() {
        let base = "找出下载文件夹中最大的三个视频文件并把它们转换成";
        let mp3 = legacy_slug(&format!("{base}mp3格式"));
        let wav = legacy_slug(&format!("{base}wav格式"));
        assert_ne!(mp3, wav);
        assert!(mp3.starts_with(&base.chars().take(MAX_WORD_CHARS).collect::<String>()));
        assert_eq!(mp3, legacy_slug(&format!("{base}mp3格式")));

        let many = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
        let other = "alpha beta gamma delta epsilon zeta eta theta iota lambda";
        assert_ne!(legacy_slug(many), legacy_slug(other));
        assert!(legacy_slug(many).starts_with("alpha-beta-gamma-delta-epsilon-zeta-eta-theta-"));
    }

    #[test]
    fn a_slug_is_never_empty() {
        assert_eq!(legacy_slug(""), BLANK_SLUG);
        assert_eq!(legacy_slug("   \n\t"), BLANK_SLUG);
        let emoji = legacy_slug("🎵🎵🎵");
        assert!(emoji.starts_with("x-") && emoji.len() == 10, "{emoji}");
        assert_ne!(emoji, legacy_slug("🎬🎬"));
        // Only function words: keep them rather than fall back to a hash.
        assert_eq!(legacy_slug("do it for me"), "do");
        assert_eq!(legacy_slug("the it"), "the-it");
    }

    #[test]
    fn the_hash_is_fixed_across_runs() {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c.
        assert_eq!(short_hash("a"), "af63dc4c");
    }
}
