//! The steps a question needs. A question — the answer asked for is an item, a number, a
//! value per group, a list, a date, yes or no, or a text, and the request names no path
//! that is not there yet (no file to make) — is answered by reading what exists and
//! computing from it. A plan for one may still hold steps the request never asked for: a
//! step that can only change files ("write the date to a new file"), or a step about a
//! path that is not there and that the request never named (a placeholder `file1.txt`).
//! Each such step can only fail or do what nobody asked, and a step that fails throws the
//! question's answer away with it; the plan goes out without them. The steps left, where
//! each runs after the one before, become one step: a step hands the next only what the
//! plan wrote in its context, and a small model's plan wrote values it had guessed
//! before anything was read.
//!
//! **Invariant:** never leaves every sub-task out, never touches independent parts (steps
//! of one sequence), and never changes a plan whose request asks for something other
//! than an answer or names a path to make.

use std::path::{Path, PathBuf};

use crate::checks::criteria::{FileState, Files, resolve};
use crate::contracts::{AnswerShape, ToolName};

use super::schema::{DraftSubTask, MAX_TOOLS, PlanDraft};

/// Tools that only change files: a step that has nothing else reads nothing.
const CHANGERS: &[ToolName] = &[
    ToolName::WriteFile,
    ToolName::EditFile,
    ToolName::ConvertFile,
    ToolName::SetValue,
    ToolName::CopyFiles,
    ToolName::MoveFiles,
    ToolName::DeleteFiles,
];

/// How many words after a path's first word may still be part of it (a folder whose
/// name holds spaces, "My Files").
const SPACED_WORDS: usize = 4;

/// Why a step was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unneeded {
    /// Its tools only change files, and the request asks a question.
    ChangesOnly,
    /// It names a path that is not there and that the request does not name.
    Phantom(String),
}

/// `draft` without the steps the question `request` does not need (see the module
/// docs), with why each one (0-based, in the plan's order) was left out. `shape` is the
/// answer the task asks for.
pub fn for_a_question(
    draft: &PlanDraft,
    request: &str,
    shape: AnswerShape,
    home: &Path,
    files: &dyn Files,
) -> (PlanDraft, Vec<(usize, Unneeded)>) {
    let unchanged = || (draft.clone(), Vec::new());
    if draft.subtasks.len() < 2 || !asks_an_answer(shape) {
        return unchanged();
    }
    let said = paths_in(request, home, files);
    if said.iter().any(|p| files.state(p) == FileState::Missing) {
        return unchanged();
    }
    let (kept, left_out) = left_out(draft, &said, home, files);
    (as_one_step(&kept), left_out)
}

/// `draft` without the steps [`unneeded`] names, with why each went; unchanged when
/// none goes or every one would.
fn left_out(
    draft: &PlanDraft,
    said: &[PathBuf],
    home: &Path,
    files: &dyn Files,
) -> (PlanDraft, Vec<(usize, Unneeded)>) {
    let unchanged = || (draft.clone(), Vec::new());
    let left_out: Vec<(usize, Unneeded)> = draft
        .subtasks
        .iter()
        .enumerate()
        .filter_map(|(i, s)| unneeded(s, said, home, files).map(|why| (i, why)))
        .collect();
    if left_out.is_empty() || left_out.len() == draft.subtasks.len() {
        return unchanged();
    }
    let subtasks = draft
        .subtasks
        .iter()
        .enumerate()
        .filter(|(i, _)| !left_out.iter().any(|(j, _)| j == i))
        .map(|(_, s)| s.clone())
        .collect();
    (
        PlanDraft {
            subtasks,
            ..draft.clone()
        },
        left_out,
    )
}

/// A question's chain of steps (each after the one before) as the one step it is: a
/// step hands the next only what the plan wrote in its context — a value guessed before
/// anything was read ("Temperature in Fahrenheit: 350", "Date: 2027-06-27") — while one
/// executor reading and computing in turn keeps what it saw. The steps' intents stay as
/// the order of the work; the tools are all of theirs (up to the schema's cap), the
/// criteria the last step's, the context every line of theirs once. Steps that run side
/// by side (equal sequences) are independent parts and stay as they are.
fn as_one_step(draft: &PlanDraft) -> PlanDraft {
    let mut sequences: Vec<i64> = draft.subtasks.iter().map(|s| s.sequence).collect();
    sequences.sort_unstable();
    sequences.dedup();
    if draft.subtasks.len() < 2 || sequences.len() != draft.subtasks.len() {
        return draft.clone();
    }
    let mut steps: Vec<&DraftSubTask> = draft.subtasks.iter().collect();
    steps.sort_by_key(|s| s.sequence);
    let Some(last) = steps.last() else {
        return draft.clone();
    };
    let intent = steps
        .iter()
        .map(|s| s.intent.trim().trim_end_matches('.'))
        .filter(|i| !i.is_empty())
        .collect::<Vec<_>>()
        .join("; then ");
    let mut lines: Vec<&str> = Vec::new();
    for line in steps.iter().flat_map(|s| s.context.lines()) {
        if !line.trim().is_empty() && !lines.contains(&line) {
            lines.push(line);
        }
    }
    let mut tools: Vec<ToolName> = Vec::new();
    for tool in steps.iter().flat_map(|s| &s.tools) {
        if !tools.contains(tool) && tools.len() < MAX_TOOLS {
            tools.push(*tool);
        }
    }
    PlanDraft {
        subtasks: vec![DraftSubTask {
            context: lines.join("\n"),
            intent,
            sequence: 1,
            success_criteria: last.success_criteria.clone(),
            tools,
        }],
        ..draft.clone()
    }
}

/// Whether the shape is an answer rather than a file or an action.
fn asks_an_answer(shape: AnswerShape) -> bool {
    matches!(
        shape,
        AnswerShape::Item
            | AnswerShape::Number
            | AnswerShape::PerGroup
            | AnswerShape::List
            | AnswerShape::Date
            | AnswerShape::YesNo
            | AnswerShape::Text
    )
}

/// Why a question does not need step `s`, if it does not.
fn unneeded(
    s: &DraftSubTask,
    said: &[PathBuf],
    home: &Path,
    files: &dyn Files,
) -> Option<Unneeded> {
    if !s.tools.is_empty() && s.tools.iter().all(|t| CHANGERS.contains(t)) {
        return Some(Unneeded::ChangesOnly);
    }
    let text = format!("{}\n{}", s.intent, s.context);
    paths_in(&text, home, files)
        .into_iter()
        .find(|p| files.state(p) == FileState::Missing && !said.contains(p))
        .map(|p| Unneeded::Phantom(crate::text::tilde(&p.to_string_lossy(), home)))
}

/// The paths `text` names (a word starting `~/` or `/`, without glob characters), each
/// extended by the words after it while that makes a path that is there (a name with
/// spaces).
fn paths_in(text: &str, home: &Path, files: &dyn Files) -> Vec<PathBuf> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<PathBuf> = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let first = bare(word);
        if !(first.starts_with("~/") || first.starts_with('/'))
            || first.contains(['*', '?', '[', '{'])
            || first.len() < 2
        {
            continue;
        }
        let mut path = resolve(first, home);
        let mut spelled = first.to_string();
        for more in words.iter().skip(i + 1).take(SPACED_WORDS) {
            if files.state(&path) != FileState::Missing {
                break;
            }
            spelled = format!("{spelled} {}", bare(more));
            let longer = resolve(&spelled, home);
            if files.state(&longer) != FileState::Missing {
                path = longer;
                break;
            }
        }
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// A word without the quotes and punctuation around it (a sentence's full stop too).
fn bare(word: &str) -> &str {
    let w = word.trim_matches(|c: char| {
        matches!(
            c,
            '"' | '\'' | '`' | ',' | ';' | ':' | '(' | ')' | '?' | '!' | '«' | '»' | '[' | ']'
        )
    });
    w.strip_suffix('.').unwrap_or(w)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::roles::planner::schema::{DraftCriterion, DraftMode};

    /// Files as a map from path to what is there.
    #[derive(Debug, Default)]
    struct Fake(BTreeMap<PathBuf, FileState>);

    impl Files for Fake {
        fn state(&self, path: &Path) -> FileState {
            self.0.get(path).cloned().unwrap_or(FileState::Missing)
        }
    }

    fn home() -> PathBuf {
        PathBuf::from("/home/u")
    }

    fn disk(paths: &[&str]) -> Fake {
        Fake(
            paths
                .iter()
                .map(|p| {
                    let state = if p.ends_with('/') {
                        FileState::Folder
                    } else {
                        FileState::File {
                            bytes: 1,
                            text: None,
                        }
                    };
                    (resolve(p.trim_end_matches('/'), &home()), state)
                })
                .collect(),
        )
    }

    fn step(sequence: i64, intent: &str, context: &str, tools: &[ToolName]) -> DraftSubTask {
        DraftSubTask {
            sequence,
            intent: intent.into(),
            context: context.into(),
            success_criteria: vec![DraftCriterion {
                criterion: format!("the output gives {intent}"),
                mode: DraftMode::Verifiable,
                check: None,
            }],
            tools: tools.to_vec(),
        }
    }

    fn plan(subtasks: Vec<DraftSubTask>) -> PlanDraft {
        PlanDraft {
            answer: AnswerShape::Any,
            subtasks,
            task_criteria: Vec::new(),
        }
    }

    fn intents(draft: &PlanDraft) -> Vec<&str> {
        draft.subtasks.iter().map(|s| s.intent.as_str()).collect()
    }

    #[test]
    fn a_question_goes_without_a_step_that_only_writes() {
        let files = disk(&["~/docs/", "~/docs/contract.txt"]);
        let draft = plan(vec![
            step(
                1,
                "Read the start date",
                "File: /home/u/docs/contract.txt",
                &[ToolName::ReadFile],
            ),
            step(2, "Add 45 days to it", "", &[ToolName::Calculate]),
            step(
                3,
                "Write the date to a new file",
                "",
                &[ToolName::WriteFile],
            ),
        ]);
        let (kept, why) = for_a_question(
            &draft,
            "What date is 45 days after the start date in ~/docs/contract.txt?",
            AnswerShape::Date,
            &home(),
            &files,
        );
        // The two steps left are one chain: one step, in their order.
        assert_eq!(
            intents(&kept),
            ["Read the start date; then Add 45 days to it"]
        );
        assert_eq!(
            kept.subtasks[0].tools,
            [ToolName::ReadFile, ToolName::Calculate]
        );
        assert_eq!(kept.subtasks[0].context, "File: /home/u/docs/contract.txt");
        assert_eq!(
            kept.subtasks[0].success_criteria,
            draft.subtasks[1].success_criteria
        );
        assert_eq!(why, [(2, Unneeded::ChangesOnly)]);
    }

    #[test]
    fn a_question_goes_without_a_step_about_a_file_nobody_named() {
        let files = disk(&["~/archive/", "~/archive/report.doc"]);
        let draft = plan(vec![
            step(
                1,
                "Find the oldest file",
                "Folder: /home/u/archive",
                &[ToolName::ListFiles],
            ),
            step(
                2,
                "Check the date of file1.txt",
                "File: /home/u/archive/file1.txt",
                &[ToolName::ReadFile, ToolName::Shell],
            ),
        ]);
        let (kept, why) = for_a_question(
            &draft,
            "Which file in ~/archive was changed longest ago?",
            AnswerShape::Item,
            &home(),
            &files,
        );
        assert_eq!(intents(&kept), ["Find the oldest file"]);
        assert_eq!(why, [(1, Unneeded::Phantom("~/archive/file1.txt".into()))]);
    }

    #[test]
    fn a_request_that_names_a_file_to_make_keeps_every_step() {
        let files = disk(&["~/docs/", "~/docs/contract.txt"]);
        let draft = plan(vec![
            step(
                1,
                "Read the date",
                "File: /home/u/docs/contract.txt",
                &[ToolName::ReadFile],
            ),
            step(
                2,
                "Write it",
                "File: /home/u/docs/date.txt",
                &[ToolName::WriteFile],
            ),
        ]);
        let (kept, why) = for_a_question(
            &draft,
            "What is the start date in ~/docs/contract.txt? Save it to ~/docs/date.txt",
            AnswerShape::Date,
            &home(),
            &files,
        );
        assert_eq!(kept, draft);
        assert!(why.is_empty());
    }

    #[test]
    fn an_action_or_a_file_keeps_every_step() {
        let files = disk(&["~/pics/", "~/pics/a.jpeg"]);
        let draft = plan(vec![
            step(
                1,
                "List the jpeg files",
                "Folder: /home/u/pics",
                &[ToolName::ListFiles],
            ),
            step(
                2,
                "Rename them",
                "Folder: /home/u/pics/new",
                &[ToolName::MoveFiles],
            ),
        ]);
        for shape in [AnswerShape::Action, AnswerShape::File, AnswerShape::Any] {
            let (kept, why) = for_a_question(&draft, "Rename the jpegs", shape, &home(), &files);
            assert_eq!(kept, draft, "{shape:?}");
            assert!(why.is_empty());
        }
    }

    #[test]
    fn a_plan_is_never_left_empty_nor_is_a_single_step_touched() {
        let files = disk(&["~/x/"]);
        let both_phantom = plan(vec![
            step(1, "Read", "File: /home/u/x/a.txt", &[ToolName::ReadFile]),
            step(2, "Write", "", &[ToolName::WriteFile]),
        ]);
        let (kept, why) = for_a_question(
            &both_phantom,
            "How many lines in ~/x?",
            AnswerShape::Number,
            &home(),
            &files,
        );
        // Nothing is left out when every step would be; the chain is still one step.
        assert_eq!(intents(&kept), ["Read; then Write"]);
        assert!(why.is_empty());
        let one = plan(vec![step(
            1,
            "Read",
            "File: /home/u/x/a.txt",
            &[ToolName::ReadFile],
        )]);
        assert_eq!(
            for_a_question(
                &one,
                "How many lines in ~/x?",
                AnswerShape::Number,
                &home(),
                &files
            )
            .0,
            one
        );
    }

    #[test]
    fn a_name_with_spaces_is_read_whole_and_is_no_phantom() {
        let files = disk(&["~/My Files/", "~/My Files/notes 1.txt"]);
        let draft = plan(vec![
            step(
                1,
                "Count the lines",
                "File: /home/u/My Files/notes 1.txt",
                &[ToolName::ReadLines],
            ),
            step(
                1,
                "Say the count",
                "Folder: /home/u/My Files",
                &[ToolName::Calculate],
            ),
        ]);
        let (kept, why) = for_a_question(
            &draft,
            "How many lines does my notes file have?",
            AnswerShape::Number,
            &home(),
            &files,
        );
        // Two parts side by side (one sequence): as they are.
        assert_eq!(kept, draft);
        assert!(why.is_empty());
    }

    #[test]
    fn a_path_the_request_names_is_no_phantom_even_when_it_is_not_there() {
        // The request's missing path is a file to make: nothing is left out at all.
        let files = disk(&["~/data/"]);
        let draft = plan(vec![
            step(
                1,
                "Read",
                "File: /home/u/data/in.csv",
                &[ToolName::ReadTable],
            ),
            step(2, "Report", "", &[ToolName::Calculate]),
        ]);
        let (kept, _) = for_a_question(
            &draft,
            "What is the total in ~/data/in.csv?",
            AnswerShape::Number,
            &home(),
            &files,
        );
        assert_eq!(kept, draft);
    }
}
