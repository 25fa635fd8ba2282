//! Memory tag derivation: the `(space, entity)` pairs under which GGS writes Megrams and
//! the planner later looks them up (seed 003 "Tag conventions").
//!
//! - Micro-events (action states): space `tool:<name>`, entity `path:<target>`.
//! - Macro-events (terminal states): space `intent:<slug>`, entity `env:local`.
//!
//! The intent slug is the bucket key of a kind of task, so it must be **stable** (same
//! intent → same slug, on every run, platform and version: no randomised hashing),
//! **Unicode-aware** (a Chinese intent keeps its characters; the Go version stripped
//! everything outside ASCII and put every Chinese task into one bucket, digest §9 #93) and
//! **never empty**. The slug is the intent's content words — NFKC-normalised (full-width
//! letters and digits fold to their ASCII forms), lower-cased, punctuation dropped, a
//! small set of English function words dropped — joined by `-`. Scripts written without
//! spaces keep each run of characters as one word. When words had to be cut to bound the
//! key, an 8-hex-digit FNV-1a hash of the full word sequence is appended, so two long
//! intents that share a prefix still get distinct buckets.
//!
//! **Invariant:** every function here is a pure, deterministic function of its input and
//! returns a non-empty tag whose payload after the prefix is non-empty.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Entity of every terminal Megram.
pub const ENV_LOCAL: &str = "env:local";

/// At most this many words of an intent make its slug.
pub const MAX_SLUG_WORDS: usize = 8;
/// At most this many characters of one word (a run of Chinese text is one word).
pub const MAX_WORD_CHARS: usize = 24;
/// At most this many characters of a target are kept verbatim in a `path:` tag.
pub const MAX_TARGET_CHARS: usize = 200;

/// Slug of an intent with no word at all (blank input).
const BLANK_SLUG: &str = "unspecified";

/// English function words that do not change what a task is ("find the videos" and
/// "find videos" are one kind of task). Only dropped when something else remains.
const STOP_WORDS: &[&str] = &[
    "a", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "could", "for", "from",
    "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "please", "some", "that",
    "the", "these", "this", "those", "to", "with", "would", "you", "your",
];

/// `intent:<slug>` — the space of a task's terminal Megram.
pub fn intent_space(intent: &str) -> String {
    format!("intent:{}", intent_slug(intent))
}

/// `tool:<name>` — the space of an action Megram. Tool names are identifiers, so they are
/// trimmed and lower-cased; a blank name becomes `unknown`.
pub fn tool_space(tool: &str) -> String {
    let name = tool.trim().to_lowercase();
    if name.is_empty() {
        "tool:unknown".to_string()
    } else {
        format!("tool:{name}")
    }
}

/// `path:<target>` — the entity of an action Megram. The target (path, query or command)
/// is NFC-normalised (macOS returns decomposed file names; a typed path is composed: both
/// must name one group), trimmed, and its whitespace runs collapse to one space. Targets
/// longer than [`MAX_TARGET_CHARS`] keep their head plus a stable hash of the whole.
pub fn path_entity(target: &str) -> String {
    let normalised: String = target.nfc().collect();
    let collapsed = normalised.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return "path:(none)".to_string();
    }
    if collapsed.chars().count() <= MAX_TARGET_CHARS {
        return format!("path:{collapsed}");
    }
    let head: String = collapsed.chars().take(MAX_TARGET_CHARS).collect();
    format!("path:{head}…#{}", short_hash(&collapsed))
}

/// The intent's bucket key: lower-case content words joined by `-`; never empty.
pub fn intent_slug(intent: &str) -> String {
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
fn short_hash(text: &str) -> String {
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
            intent_slug("Find the 3 largest videos in ~/Downloads!"),
            "find-3-largest-videos-downloads"
        );
    }

    #[test]
    fn case_punctuation_width_and_function_words_do_not_change_the_bucket() {
        let a = intent_slug("Find the largest videos");
        assert_eq!(a, intent_slug("find largest videos."));
        assert_eq!(a, intent_slug("  FIND  the   LARGEST, videos  "));
        // Full-width Latin letters (common with a Chinese input method) fold by NFKC.
        assert_eq!(a, intent_slug("ｆｉｎｄ ｌａｒｇｅｓｔ ｖｉｄｅｏｓ"));
    }

    #[test]
    fn chinese_intents_keep_their_characters_and_get_distinct_buckets() {
        let videos = intent_slug("找出下载文件夹里最大的视频");
        let pictures = intent_slug("找出桌面上最大的图片");
        assert_eq!(videos, "找出下载文件夹里最大的视频");
        assert_eq!(pictures, "找出桌面上最大的图片");
        assert_ne!(videos, pictures);
        assert_eq!(intent_slug("找出桌面上最大的图片。"), pictures);
    }

    #[test]
    fn mixed_scripts_and_combining_marks_stay_inside_their_words() {
        assert_eq!(intent_slug("把 PDF 转成 Word"), "把-pdf-转成-word");
        // The virama (U+094D) is a combining mark, not a separator.
        assert_eq!(intent_slug("हिन्दी अनुवाद"), "हिन्दी-अनुवाद");
    }

    #[test]
    fn long_intents_that_share_a_prefix_still_get_distinct_buckets() {
        let base = "找出下载文件夹中最大的三个视频文件并把它们转换成";
        let mp3 = intent_slug(&format!("{base}mp3格式"));
        let wav = intent_slug(&format!("{base}wav格式"));
        assert_ne!(mp3, wav);
        assert!(mp3.starts_with(&base.chars().take(MAX_WORD_CHARS).collect::<String>()));
        assert_eq!(mp3, intent_slug(&format!("{base}mp3格式")));

        let many = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
        let other = "alpha beta gamma delta epsilon zeta eta theta iota lambda";
        assert_ne!(intent_slug(many), intent_slug(other));
        assert!(intent_slug(many).starts_with("alpha-beta-gamma-delta-epsilon-zeta-eta-theta-"));
    }

    #[test]
    fn a_slug_is_never_empty() {
        assert_eq!(intent_slug(""), BLANK_SLUG);
        assert_eq!(intent_slug("   \n\t"), BLANK_SLUG);
        let emoji = intent_slug("🎵🎵🎵");
        assert!(emoji.starts_with("x-") && emoji.len() == 10, "{emoji}");
        assert_ne!(emoji, intent_slug("🎬🎬"));
        // Only function words: keep them rather than fall back to a hash.
        assert_eq!(intent_slug("do it for me"), "do");
        assert_eq!(intent_slug("the it"), "the-it");
    }

    #[test]
    fn the_hash_is_fixed_across_runs() {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c.
        assert_eq!(short_hash("a"), "af63dc4c");
    }

    #[test]
    fn tool_and_path_tags_are_normalised_and_never_blank() {
        assert_eq!(tool_space(" Shell "), "tool:shell");
        assert_eq!(tool_space(""), "tool:unknown");
        assert_eq!(
            path_entity(" ls   -la\n~/Downloads "),
            "path:ls -la ~/Downloads"
        );
        assert_eq!(path_entity("  "), "path:(none)");
        // Decomposed (as macOS lists it) and composed (as typed) name one group.
        assert_eq!(path_entity("~/Cafe\u{301}.txt"), path_entity("~/Café.txt"));
        let long = "x".repeat(MAX_TARGET_CHARS + 50);
        let tag = path_entity(&long);
        assert!(tag.starts_with("path:xxx") && tag.contains("…#"));
        assert_ne!(tag, path_entity(&"x".repeat(MAX_TARGET_CHARS + 51)));
        assert_eq!(intent_space("Find videos"), "intent:find-videos");
        assert_eq!(ENV_LOCAL, "env:local");
    }
}
