//! A finish that repeats a superseded result. A small model that tried two ways (a glob
//! that matched nothing, then a shell count that printed `3`) may finish by copying the
//! first result it saw rather than the last; a validator of the same size then accepts
//! the copy because a tool did print it. The check here finds that case so the executor
//! can push back once.
//!
//! **Invariant:** pure. It speaks up only when the finish contains an earlier successful
//! result that the latest successful result does not contain, and shows nothing of the
//! latest result (none of its lines, trimmed). A finish that mentions the latest result
//! at all, or an attempt with one successful call, is never questioned.

use super::prompt::Observed;
use crate::contracts::ToolCallStatus;
use crate::text::first_chars;

/// Characters an earlier result's line must have before a finish counts as repeating
/// it: short lines (`3`, `ok`) are too common to say where a finish copied from.
const MIN_QUOTED_CHARS: usize = 12;

/// An earlier result a finish repeats, and the later result it passed over. Results are
/// numbered from 1 in the attempt's order, as the model's prompt lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleQuote {
    /// The number of the result the finish repeats.
    pub earlier: usize,
    /// The number of the attempt's latest successful result.
    pub latest: usize,
    /// What the latest call returned, cut for the push-back.
    pub latest_output: String,
}

fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().map(normalise).filter(|l| !l.is_empty())
}

/// The earlier result `finish` repeats in place of the attempt's latest one, if it does.
pub fn stale_quote(finish: &str, observed: &[Observed]) -> Option<StaleQuote> {
    let ok: Vec<(usize, &Observed)> = observed
        .iter()
        .enumerate()
        .filter(|(_, o)| o.status == ToolCallStatus::Ok && !o.text.trim().is_empty())
        .map(|(i, o)| (i + 1, o))
        .collect();
    let ((latest_n, latest), earlier) = ok.split_last()?;
    let said = normalise(finish);
    if lines(&latest.text).any(|l| said.contains(&l)) {
        return None;
    }
    let seen_last = normalise(&latest.text);
    let (copied, _) = earlier.iter().rev().find(|(_, o)| {
        lines(&o.text).any(|l| {
            l.chars().count() >= MIN_QUOTED_CHARS && said.contains(&l) && !seen_last.contains(&l)
        })
    })?;
    Some(StaleQuote {
        earlier: *copied,
        latest: *latest_n,
        latest_output: first_chars(latest.text.trim(), 300),
    })
}

/// What the model is told when its finish repeats a superseded result. It gets one more
/// turn, to finish only.
pub fn stale_quote_nudge(q: &StaleQuote) -> String {
    format!(
        "Your finish was not accepted: it repeats TOOL RESULT [{}], but a later call, \
         [{}], returned:\n{}\nFinish from the latest result, quoting it exactly as it \
         appears.",
        q.earlier, q.latest, q.latest_output
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolRef;

    fn seen(tool: &str, input: &str, status: ToolCallStatus, text: &str) -> Observed {
        Observed {
            tool: ToolRef::parse(tool),
            input: input.into(),
            status,
            text: text.into(),
        }
    }

    fn ok(tool: &str, input: &str, text: &str) -> Observed {
        seen(tool, input, ToolCallStatus::Ok, text)
    }

    const EMPTY_GLOB: &str = "(no files matched pattern *.jpg;*.png under /home/u/Pictures)";

    #[test]
    fn a_finish_copying_an_empty_glob_after_a_count_is_questioned() {
        let observed = [
            ok("glob", "*.jpg;*.png", EMPTY_GLOB),
            ok(
                "shell",
                "ls -1 ~/Pictures/*.jpg ~/Pictures/*.png | wc -l",
                "3\n",
            ),
        ];
        let q = stale_quote(&format!("{EMPTY_GLOB}\n{EMPTY_GLOB}"), &observed)
            .expect("the finish repeats the glob's line and says nothing of the count");
        assert_eq!((q.earlier, q.latest), (1, 2), "{q:?}");
        assert_eq!(q.latest_output, "3");
        let nudge = stale_quote_nudge(&q);
        assert!(
            nudge.contains("TOOL RESULT [1], but a later call, [2], returned:\n3\n"),
            "{nudge}"
        );
    }

    #[test]
    fn a_finish_that_shows_the_latest_result_is_left_alone() {
        let observed = [
            ok("glob", "*.jpg;*.png", EMPTY_GLOB),
            ok("shell", "ls | wc -l", "3"),
        ];
        // It may mention the first try, as long as it reports the latest.
        let finish = format!("{EMPTY_GLOB}; counting with ls found 3 images");
        assert_eq!(stale_quote(&finish, &observed), None);
        assert_eq!(stale_quote("3", &observed), None);
    }

    #[test]
    fn one_successful_call_or_a_short_line_is_never_questioned() {
        let single = [ok(
            "read_file",
            "/home/u/notes/a.txt",
            "meeting at 10\nbuy milk",
        )];
        assert_eq!(stale_quote("meeting at 10\nbuy milk", &single), None);
        // "done" is the earlier result, but too short to say the finish copied it.
        let short = [ok("shell", "touch a", "done"), ok("shell", "ls", "a.txt")];
        assert_eq!(stale_quote("done", &short), None);
    }

    #[test]
    fn failed_calls_and_lines_the_latest_result_repeats_do_not_count() {
        // The earlier call failed: it is no result the finish could have copied.
        let failed = [
            seen(
                "shell",
                "cat missing.txt",
                ToolCallStatus::Error,
                "ERROR: cat: missing.txt: No such file or directory",
            ),
            ok("shell", "ls", "present.txt"),
        ];
        assert_eq!(
            stale_quote("cat: missing.txt: No such file or directory", &failed),
            None
        );
        // The latest result contains the copied line: the finish is no stale copy.
        let grown = [
            ok("shell", "ls", "/home/u/report-2026.pdf"),
            ok(
                "shell",
                "ls -l",
                "/home/u/report-2026.pdf\n/home/u/report-2025.pdf",
            ),
        ];
        assert_eq!(stale_quote("x /home/u/report-2026.pdf", &grown), None);
    }

    #[test]
    fn the_most_recent_earlier_result_the_finish_copies_is_named() {
        let observed = [
            ok("shell", "find ~ -name '*.log'", "/home/u/old/first.log"),
            ok(
                "shell",
                "find ~/logs -name '*.log'",
                "/home/u/logs/second.log",
            ),
            ok("shell", "find ~/logs -name '*.log' | wc -l", "7"),
        ];
        let q = stale_quote(
            "/home/u/old/first.log and /home/u/logs/second.log",
            &observed,
        )
        .expect("the finish copies earlier listings and omits the count");
        assert_eq!((q.earlier, q.latest), (2, 3), "{q:?}");
    }
}
