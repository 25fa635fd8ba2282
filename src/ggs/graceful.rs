//! The code-built graceful failure, used when R2 does not answer GGS's
//! `GracefulFailureRequest` in time: what was actually accomplished — matched outputs
//! quoted verbatim — and two or three concrete next moves derived from the structured
//! failure data (failed inputs, Law 1 denials, failed criteria, budget use).
//!
//! **Invariant:** never claims more than the matched outputs show (Law 0): with no
//! matched output the text says nothing was completed.

use super::evidence::FailedInput;
use crate::contracts::Law1Tally;
use crate::contracts::{MatchedOutput, PathEffect};

/// At most this many next moves reach the user.
pub const MAX_NEXT_MOVES: usize = 3;
/// At least this many next moves reach the user.
pub const MIN_NEXT_MOVES: usize = 2;

/// What the fallback is built from.
#[derive(Clone, Debug, Default)]
pub struct FailureFacts<'a> {
    /// The sub-task outputs that did match their criteria, for the partial result.
    pub matched_outputs: &'a [MatchedOutput],
    /// The exact inputs that failed, with why.
    pub failed_inputs: &'a [FailedInput],
    /// The criterion that drove D in the last round.
    pub failed_criterion: &'a str,
    /// The Law 1 requests of the task and how they were answered.
    pub law1: Law1Tally,
    /// The time share of the budget was the larger part of Ω.
    pub out_of_time: bool,
    /// Time the task ran, in milliseconds.
    pub elapsed_ms: u64,
    /// Replans the task went through before it stopped.
    pub replans: u32,
}

/// "What was actually accomplished", quoting every matched output verbatim, then every
/// change the task made to files. "Nothing was completed" only when there is neither.
///
/// A matched output that tells a change of files as done ("has been renamed"), in a task
/// that changed no file, is not quoted: the account would repeat a claim the files deny
/// (a sub-task's validator passed it; the task's check sent it back). It is said instead
/// that no file was changed.
pub fn accomplished(intent: &str, matched: &[MatchedOutput], effects: &[PathEffect]) -> String {
    let shown = |m: &MatchedOutput| match &m.output {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let (matched, unbacked): (Vec<&MatchedOutput>, Vec<&MatchedOutput>) =
        matched.iter().partition(|m| {
            !effects.is_empty() || !crate::checks::claims::tells_a_change(intent, &shown(m))
        });
    let unbacked = if unbacked.is_empty() {
        ""
    } else {
        "\nNo file was changed, though an answer said the change was made."
    };
    let mut text = if matched.is_empty() && effects.is_empty() {
        return format!("Nothing was completed: no sub-task met its criteria.{unbacked}");
    } else if matched.is_empty() {
        "No sub-task met all its criteria, but the task did change files.".to_string()
    } else {
        format!("Completed {} sub-task(s):", matched.len())
    };
    for (i, m) in matched.iter().enumerate() {
        text.push_str(&format!("\n{}. {}", i + 1, shown(m)));
    }
    if !effects.is_empty() {
        text.push_str(&format!("\n{}", effects_line(effects)));
    }
    text.push_str(unbacked);
    text
}

/// The task's changes to files in one line: `Changed: created a.txt, c.txt in /x/outbox;
/// appended to /x/log.txt`.
pub fn effects_line(effects: &[PathEffect]) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for e in effects {
        let verb = e.done().to_string();
        let shown = e.path.display().to_string();
        match groups.iter_mut().find(|(v, _)| *v == verb) {
            Some((_, paths)) => paths.push(shown),
            None => groups.push((verb, vec![shown])),
        }
    }
    let parts: Vec<String> = groups
        .into_iter()
        .map(|(verb, paths)| format!("{verb} {}", paths.join(", ")))
        .collect();
    format!("Changed: {}.", parts.join("; "))
}

/// Phrases of `LlmError::plain` that say the model itself failed (slow, unreachable,
/// unusable answers): then the next move is about the model, not the request.
const MODEL_TROUBLE: &[&str] = &[
    "the model was too slow",
    "the model server could not be reached",
    "the model service",
    "the model did not answer in the required form",
    "the model's answer ran on too long",
    "no model is set up",
];

/// Whether a failure text says the model failed rather than the task.
pub fn is_model_trouble(text: &str) -> bool {
    MODEL_TROUBLE.iter().any(|p| text.contains(p))
}

/// Two or three concrete next moves, most specific first.
pub fn next_moves(facts: &FailureFacts<'_>) -> Vec<String> {
    let mut moves = Vec::new();
    let model_trouble = is_model_trouble(facts.failed_criterion);
    if model_trouble {
        moves.push(
            "The model could not do its part, so nothing was decided about your files: check \
             that the model server is running and not busy (a compile or another program on \
             the same cores slows a local model down), or pick a faster model in Settings, \
             then ask again."
                .to_string(),
        );
    }
    if facts.law1.denied > 0 {
        moves.push(format!(
            "{} action(s) needing your confirmation were denied; ask again and approve them if you want them carried out.",
            facts.law1.denied
        ));
    }
    if let Some(first) = facts.failed_inputs.first() {
        moves.push(format!(
            "\"{}\" failed with {} ({}): check that what it refers to exists and is reachable, or name the right one in your request.",
            first.target, first.tool, first.why
        ));
    }
    if !facts.failed_criterion.trim().is_empty() && !model_trouble {
        moves.push(format!(
            "Tell me how to satisfy \"{}\", or relax that requirement, and ask again.",
            facts.failed_criterion.trim()
        ));
    }
    if facts.out_of_time {
        moves.push(format!(
            "The time budget ran out after {:.0} s and {} replan(s): split the request into \
             smaller steps, or raise budgets.time_budget_ms in settings.toml.",
            facts.elapsed_ms as f64 / 1000.0,
            facts.replans
        ));
    }
    if facts.failed_inputs.len() > 1 {
        let second = &facts.failed_inputs[1];
        moves.push(format!(
            "Check \"{}\" as well ({} failed: {}).",
            second.target, second.tool, second.why
        ));
    }
    moves.push("Split the request into smaller steps and run them one at a time.".to_string());
    moves.push("Rephrase the request with the exact files, folders or terms to use.".to_string());
    dedup(moves)
}

/// Trims, drops blanks and duplicates, and bounds the list to [`MAX_NEXT_MOVES`].
pub fn dedup(moves: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in moves {
        let m = m.trim().to_string();
        if !m.is_empty() && !out.contains(&m) && out.len() < MAX_NEXT_MOVES {
            out.push(m);
        }
    }
    out
}

/// Whether a next move names only places that can be on this machine: every path it
/// names (`/…`, `~/…`, `$HOME/…`, as [`crate::tools::places`] reads them) exists, or at least its folder does (a move may suggest making a
/// file), or the user's own `words` name it. A model's move that names a home that is
/// not the user's (`/home/user/…`) or a folder nothing made fails: it would send the
/// user looking for what is not there. `exists` asks the file system.
pub fn names_real_places(
    the_move: &str,
    words: &str,
    home: &std::path::Path,
    exists: impl Fn(&std::path::Path) -> bool,
) -> bool {
    crate::tools::places::written_paths(the_move)
        .into_iter()
        .all(|raw| {
            if words.contains(raw) {
                return true;
            }
            let raw = raw
                .strip_prefix("$HOME/")
                .map_or(raw.to_string(), |r| format!("~/{r}"));
            let path = crate::config::expand_home(&raw, home);
            exists(&path) || path.parent().is_some_and(&exists)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::SubTaskId;
    use crate::tools::ToolName;

    #[test]
    fn a_move_naming_a_place_not_on_this_machine_is_not_real() {
        let home = std::path::Path::new("/home/ana");
        let on_disk = [
            "/home/ana",
            "/home/ana/Documents",
            "/home/ana/Documents/a.pdf",
            "/tmp",
        ];
        let exists = |p: &std::path::Path| on_disk.iter().any(|d| std::path::Path::new(d) == p);
        let real = |m: &str, words: &str| names_real_places(m, words, home, exists);
        // Places that are there, or a new file in a folder that is.
        assert!(real("Open ~/Documents/a.pdf and check the date.", ""));
        assert!(real("Save it as \"~/Documents/new.txt\".", ""));
        assert!(real("Try again with the folder (/tmp).", ""));
        assert!(real("Rephrase the request with the exact files.", ""));
        // A home that is not the user's, a folder nothing made.
        assert!(!real("Look in /home/user/Documents/contracts for it.", ""));
        assert!(!real("Copy it to ~/Archive/2019/old.pdf by hand.", ""));
        // Unless the user named it.
        assert!(real(
            "Create ~/Archive/2019 first, then ask again.",
            "move the old pdfs to ~/Archive/2019"
        ));
    }

    #[test]
    fn matched_outputs_are_quoted_verbatim() {
        let matched = vec![
            MatchedOutput {
                subtask_id: SubTaskId::mint(),
                output: serde_json::json!("a.mp4\t734003200"),
            },
            MatchedOutput {
                subtask_id: SubTaskId::mint(),
                output: serde_json::json!({"count": 3}),
            },
        ];
        let text = accomplished("find the largest video", &matched, &[]);
        assert!(text.contains("1. a.mp4\t734003200"), "{text}");
        assert!(text.contains("2. {\"count\":3}"), "{text}");
        assert_eq!(
            accomplished("find the largest video", &[], &[]),
            "Nothing was completed: no sub-task met its criteria."
        );
    }

    #[test]
    fn a_change_told_as_done_with_no_file_changed_is_not_quoted_as_done() {
        let told = |text: &str| MatchedOutput {
            subtask_id: SubTaskId::mint(),
            output: serde_json::json!(text),
        };
        let intent = "Change the extension of every .jpeg file to .jpg";
        let matched = vec![
            told("dawn.jpeg and dusk.jpeg are the .jpeg files"),
            told("The extension of every .jpeg file has been renamed to .jpg"),
        ];
        let text = accomplished(intent, &matched, &[]);
        assert!(
            text.starts_with("Completed 1 sub-task(s):\n1. dawn.jpeg"),
            "{text}"
        );
        assert!(!text.contains("has been renamed"), "{text}");
        assert!(
            text.ends_with("No file was changed, though an answer said the change was made."),
            "{text}"
        );
        // With the change on disk, the claim is backed and quoted.
        let moved = [PathEffect {
            path: "/h/dawn.jpg".into(),
            exists: false,
            effect: "move".into(),
        }];
        let text = accomplished(intent, &matched, &moved);
        assert!(
            text.contains("2. The extension of every .jpeg file has been renamed"),
            "{text}"
        );
        // Alone, it leaves nothing completed.
        let text = accomplished(intent, &matched[1..], &[]);
        assert!(text.starts_with("Nothing was completed"), "{text}");
    }

    #[test]
    fn a_change_on_disk_is_never_reported_as_nothing_done() {
        let made = |p: &str, effect: &str| PathEffect {
            path: p.into(),
            exists: effect != "create",
            effect: effect.into(),
        };
        let effects = [
            made("/h/outbox/a.txt", "create"),
            made("/h/outbox/c.txt", "create"),
            made("/h/log.txt", "append"),
        ];
        let text = accomplished("copy the notes", &[], &effects);
        assert!(!text.contains("Nothing was completed"), "{text}");
        assert!(
            text.ends_with(
                "Changed: created /h/outbox/a.txt, /h/outbox/c.txt; appended to /h/log.txt."
            ),
            "{text}"
        );
    }

    #[test]
    fn next_moves_are_specific_and_bounded() {
        let inputs = vec![FailedInput {
            tool: ToolName::Shell.into(),
            target: "ffmpeg -i a.mp4 a.mp3".into(),
            why: "error: command not found".into(),
        }];
        let facts = FailureFacts {
            failed_inputs: &inputs,
            failed_criterion: "an mp3 file exists",
            law1: Law1Tally {
                denied: 1,
                ..Default::default()
            },
            ..Default::default()
        };
        let moves = next_moves(&facts);
        assert_eq!(moves.len(), MAX_NEXT_MOVES);
        assert!(moves[0].contains("denied"));
        assert!(
            moves[1].contains("ffmpeg -i a.mp4 a.mp3") && moves[1].contains("command not found")
        );
        assert!(moves[2].contains("an mp3 file exists"));

        let generic = next_moves(&FailureFacts::default());
        assert!(generic.len() >= MIN_NEXT_MOVES);
    }

    #[test]
    fn a_model_failure_gets_a_move_about_the_model_not_about_the_criterion() {
        let facts = FailureFacts {
            failed_criterion: "no valid plan: no plan could be made: the model was too slow: it did not answer within 120 seconds",
            ..Default::default()
        };
        let moves = next_moves(&facts);
        assert!(moves[0].contains("model server is running"), "{moves:?}");
        assert!(
            !moves.iter().any(|m| m.contains("Tell me how to satisfy")),
            "{moves:?}"
        );
    }
}
