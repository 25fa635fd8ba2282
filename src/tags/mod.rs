//! Memory tags and the one definition of "the same kind of task": the `(space, entity)`
//! pairs under which GGS writes Megrams and the planner looks them up, and the task
//! classes of the auditor's calibration report.
//!
//! - Micro-events (action states): space `tool:<name>`, entity `path:<target>`.
//! - Macro-events (terminal states): space `intent:<slug>`, entity `env:local`.
//!
//! The intent slug is the bucket of a kind of task ([`kind`]): the action the intent
//! asks for and what it acts on, as concepts, so paraphrases of one job share it —
//! "Find the 3 largest videos in ~/Downloads" and "Which videos in Downloads are the
//! biggest?" are both `find_largest_video` — while different jobs stay apart. Taking the
//! intent's first three words instead would split a job by its wording (verb,
//! articles, word order, numbers, paths), and memory only learns (Exploit, Avoid,
//! consolidation) when one job's Megrams meet in one group. Labels are Chinese for a
//! Chinese intent (`查找_最大_视频`), so its characters are kept and two Chinese jobs never
//! share a bucket. The auditor's task classes ([`task_class`]) are the same slugs, so
//! memory, the auditor and the calibration report count the same kinds of task.
//!
//! Stores written by older builds used [`legacy::legacy_slug`] (content words joined by
//! `-`). Their groups are not rewritten: [`canonical_intent_space`] names the group an
//! old space belongs to now, and the memory store reads both together.
//!
//! **Invariant:** every function here is a pure, deterministic function of its input and
//! returns a non-empty tag whose payload after the prefix is non-empty; a slug is its own
//! slug (reading a bucket's name gives the bucket).

pub mod kind;
pub mod legacy;
pub mod lexicon;

use unicode_normalization::UnicodeNormalization;

use crate::contracts::ToolRef;

/// Entity of every terminal Megram.
pub const ENV_LOCAL: &str = "env:local";
/// The space prefix of a kind of task.
pub const INTENT_PREFIX: &str = "intent:";
/// At most this many characters of a target are kept verbatim in a `path:` tag.
pub const MAX_TARGET_CHARS: usize = 200;

/// `intent:<slug>` — the space of a task's terminal Megram.
pub fn intent_space(intent: &str) -> String {
    format!("{INTENT_PREFIX}{}", intent_slug(intent))
}

/// The kind of task an intent asks for (see the module docs); never empty. An intent with
/// no letter or digit keeps the older slug (`unspecified`, or a hash of its symbols).
pub fn intent_slug(intent: &str) -> String {
    kind::slug(intent).unwrap_or_else(|| legacy::legacy_slug(intent))
}

/// The auditor's and the calibration report's class of a task: its intent slug.
pub fn task_class(intent: &str) -> String {
    intent_slug(intent)
}

/// The space an `intent:` space belongs to now: the slug its own words name. A space
/// this build wrote is its own canonical space; a space of an older build (its slug's
/// words joined by `-`) maps to the kind those words name. `None` for other spaces.
pub fn canonical_intent_space(space: &str) -> Option<String> {
    let payload = space.strip_prefix(INTENT_PREFIX)?;
    Some(intent_space(payload))
}

/// `tool:<name>` — the space of an action Megram. Tool names are identifiers, so they are
/// trimmed and lower-cased; a blank name becomes `unknown`.
pub fn tool_space(tool: &ToolRef) -> String {
    let name = tool.as_str().trim().to_lowercase();
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
    format!("path:{head}…#{}", legacy::short_hash(&collapsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paraphrases_of_one_job_share_a_slug_and_other_jobs_do_not() {
        let videos = intent_slug("Find the 3 largest videos in ~/Downloads!");
        assert_eq!(videos, "find_largest_video");
        for same in [
            "Which videos in Downloads are the biggest?",
            "List the five biggest video files in my Downloads folder",
            "Show me the largest movies under ~/Movies",
        ] {
            assert_eq!(intent_slug(same), videos, "{same}");
        }
        for other in [
            "Find the smallest videos in ~/Downloads",
            "Delete the largest videos in ~/Downloads",
            "Find the largest PDFs in ~/Downloads",
        ] {
            assert_ne!(intent_slug(other), videos, "{other}");
        }
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
        assert_eq!(videos, "查找_最大_视频");
        assert_eq!(pictures, "查找_图片_最大");
        assert_ne!(videos, pictures);
        assert_eq!(intent_slug("找出桌面上最大的图片。"), pictures);
        assert_eq!(intent_slug("帮我找一下下载文件夹中最大的视频"), videos);
        // Words no table knows keep their characters.
        let poem = intent_slug("写一首关于秋天的诗");
        assert!(poem.contains("秋天") && poem.contains('诗'), "{poem}");
        assert_ne!(poem, intent_slug("写一首关于大海的诗"));
    }

    #[test]
    fn a_slug_is_its_own_slug() {
        for intent in [
            "Find the 3 largest videos in ~/Downloads",
            "找出下载文件夹里最大的视频",
            "Translate the abstract in paper.txt into French",
            "把 PDF 转成 Word",
            "Remind me to call mom at 5pm",
        ] {
            let slug = intent_slug(intent);
            assert_eq!(intent_slug(&slug), slug, "{intent}");
            assert_eq!(
                canonical_intent_space(&intent_space(intent)),
                Some(intent_space(intent))
            );
        }
    }

    #[test]
    fn an_older_builds_space_maps_to_the_kind_its_words_name() {
        let old = format!(
            "intent:{}",
            legacy::legacy_slug("Find the 3 largest videos in ~/Downloads")
        );
        assert_eq!(old, "intent:find-3-largest-videos-downloads");
        assert_eq!(
            canonical_intent_space(&old).as_deref(),
            Some("intent:find_largest_video")
        );
        assert_eq!(canonical_intent_space("global:user"), None);
    }

    #[test]
    fn a_slug_is_never_empty() {
        assert_eq!(intent_slug(""), "unspecified");
        assert_eq!(intent_slug("   \n\t"), "unspecified");
        let emoji = intent_slug("🎵🎵🎵");
        assert!(emoji.starts_with("x-") && emoji.len() == 10, "{emoji}");
        assert_ne!(emoji, intent_slug("🎬🎬"));
        // Only function words: the task still has a kind (find is the default action).
        assert_eq!(intent_slug("do it for me"), "find");
    }

    #[test]
    fn the_auditors_task_class_is_the_memory_slug() {
        for intent in [
            "Please find the 5 largest files in Downloads",
            "整理桌面上的文件",
        ] {
            assert_eq!(task_class(intent), intent_slug(intent));
        }
    }

    #[test]
    fn tool_and_path_tags_are_normalised_and_never_blank() {
        assert_eq!(tool_space(&ToolRef::parse(" Shell ")), "tool:shell");
        assert_eq!(tool_space(&ToolRef::parse("")), "tool:unknown");
        assert_eq!(
            tool_space(&ToolRef::parse("Files.read_text_file")),
            "tool:files.read_text_file"
        );
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
        assert_eq!(intent_space("Find videos"), "intent:find_video");
        assert_eq!(ENV_LOCAL, "env:local");
    }
}
