//! A change asked of what is already there, with none made and none said to be missing.
//!
//! Asked to "Replace every 'colour' with 'color' in ~/docs/style.md", a small model read
//! the file and answered with its text; sent back for that, it answered "The file
//! contains 'color' instead of 'colour'" — a state, neither a claim of the verb ("replaced",
//! which [`super::claims`] reads) nor a copy of a tool's output. No check of phrasing can
//! close this: any sentence about the state of things passes it. What holds is the effect.
//! A request whose verb asks to change something in place — edit it, remove from it,
//! rename or move it — that the calls worked on is answered in one of three ways only: a
//! change on record (an effect, or an action the user approved), an action the user
//! declined, or an answer that says what was not done (or that it already was so).
//!
//! The verbs are [`crate::laws::requested::in_place_change`]'s: the part of Law 1's change
//! vocabulary that cannot be answered in words.
//!
//! **Invariant:** pure; silent unless the request's verb asks for a change in place, a
//! call other than `calculate` or `search` ran, no call changed anything or was answered
//! at Law 1, and the answer neither says the change was not made nor says already.

use crate::contracts::{ToolCallRecord, ToolName};

/// Words that say a thing already is as asked, so that no change was needed.
const ALREADY: &[&str] = &["already", "已经是", "已是"];

/// Stems of the words by which an answer speaks of a change in general ("nothing was
/// changed", "no edit was needed"), beside the request's own verb.
const CHANGE_WORDS: &[&str] = &["chang", "modif", "edit", "need", "necessar", "untouch"];

/// For a request asking to change something in place: the reason, when the calls worked
/// on files, none changed anything or was put to the user, and the answer says neither
/// that the change was not made nor that it was not needed. See the module's invariant.
pub fn unmade(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let verb = crate::laws::requested::in_place_change(request)?;
    let worked_on_files = records
        .iter()
        .any(|r| r.tool != ToolName::Calculate && r.tool != ToolName::Search);
    let put_to_the_user = records.iter().any(|r| r.confirmation.is_some());
    if !worked_on_files
        || put_to_the_user
        || super::said::changed_anything(records)
        || says_not_made(&verb, answer)
        || says_already(answer)
    {
        return None;
    }
    Some(format!(
        "the request asks to {verb}, and no call changed anything: make the change with a \
         tool that changes files ({}), or say what was not done and why — an answer about \
         how things are is not the change",
        super::said::CHANGE_TOOLS
    ))
}

/// Whether `answer` says the change `verb` asks for was not made: a negation, and the
/// change spoken of — the verb's own word ("nothing was removed") or a word of change in
/// general ("no change was needed"). A negation about the file alone ("it now contains no
/// empty lines") describes a state and says nothing of the change.
fn says_not_made(verb: &str, answer: &str) -> bool {
    if !super::said::says_not(answer) {
        return false;
    }
    if !verb.is_ascii() {
        return answer.contains(verb);
    }
    let stem = verb.strip_suffix('e').unwrap_or(verb);
    crate::text::fold(answer)
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w.starts_with(stem) || CHANGE_WORDS.iter().any(|c| w.starts_with(c)))
}

/// Whether `answer` says the thing already is as asked ("already 2.0.0").
fn says_already(answer: &str) -> bool {
    let folded = crate::text::fold(answer);
    ALREADY.iter().any(|w| {
        if w.is_ascii() {
            folded
                .split(|c: char| !c.is_alphanumeric())
                .any(|word| word == *w)
        } else {
            answer.contains(w)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::{Decision, PathEffect, ToolCallStatus};

    fn call(tool: ToolName, output: &str) -> ToolCallRecord {
        let mut r = crate::checks::shape::tests::ok(tool, "/h/docs/style.md", output);
        r.status = ToolCallStatus::Ok;
        r
    }

    const REPLACE: &str = "Replace every 'colour' with 'color' in ~/docs/style.md";
    const STATE: &str = "The file ~/docs/style.md contains 'color' instead of 'colour'.";

    #[test]
    fn a_state_told_for_a_change_with_none_made_is_sent_back() {
        let read = call(ToolName::ReadFile, "Use one colour per series.");
        let why = unmade(REPLACE, STATE, &[&read]).expect("no change behind it");
        assert!(
            why.contains("replace") && why.contains("edit_file"),
            "{why}"
        );
        // Whatever the phrasing, and in a request that opens with its place.
        for (request, answer) in [
            (REPLACE, "Done."),
            (REPLACE, "style.md: color per series."),
            (
                "In ~/docs/guide.md, rename the section Setup to Installation",
                "## Installation",
            ),
            (
                "Update the version in ~/app/package.json to 2.0.0",
                "version: 2.0.0",
            ),
            (
                "Remove the empty lines from ~/notes/groceries.txt",
                "milk\neggs\nbread",
            ),
            ("把 notes.txt 里的 colour 替换成 color", "文件里是 color"),
            (
                "Put the line '# Shopping' at the top of ~/notes/list.txt",
                "# Shopping\neggs\nbread",
            ),
            // A negation about the file's state is no account of the change.
            (
                "Remove the empty lines from ~/notes/groceries.txt",
                "The file ~/notes/groceries.txt now contains no empty lines.",
            ),
            // A task's intent, then the user's words.
            (
                "Read style.md\nReplace colour with color in ~/docs/style.md",
                STATE,
            ),
        ] {
            assert!(
                unmade(request, answer, &[&read]).is_some(),
                "{request} → {answer}"
            );
        }
    }

    #[test]
    fn a_change_made_declined_or_said_not_made_stands() {
        let read = call(ToolName::ReadFile, "Use one colour per series.");
        let mut edit = call(ToolName::EditFile, "replaced 1 place");
        edit.effects.push(PathEffect {
            path: "/h/docs/style.md".into(),
            exists: true,
            effect: "overwrite".into(),
        });
        assert_eq!(unmade(REPLACE, STATE, &[&read, &edit]), None);
        let chinese = "没有找到 colour，未替换";
        assert_eq!(
            unmade("把 notes.txt 里的 colour 替换成 color", chinese, &[&read]),
            None
        );
        let mut declined = call(ToolName::EditFile, "the user declined");
        declined.confirmation = Some(Decision::Deny);
        assert_eq!(unmade(REPLACE, STATE, &[&read, &declined]), None);
        for answer in [
            "Nothing was replaced: style.md has no 'colour'.",
            "style.md already says 'color' everywhere.",
            "style.md has no 'colour', so no change was needed.",
            "I could not replace it: the file is read-only.",
        ] {
            assert_eq!(unmade(REPLACE, answer, &[&read]), None, "{answer}");
        }
    }

    #[test]
    fn requests_answered_in_words_are_not_read() {
        let read = call(ToolName::ReadFile, "Use one colour per series.");
        for request in [
            "Summarise ~/docs/style.md",
            "Write a summary of ~/docs/style.md",
            "Sort my downloads by size",
            "Convert ~/data/people.csv to JSON",
            "Add up the numbers in ~/data/expenses.txt",
            "Put together a summary of ~/docs/style.md",
            "What does ~/docs/style.md say about colour?",
            "显示最近修改的文件",
        ] {
            assert_eq!(unmade(request, STATE, &[&read]), None, "{request}");
        }
        // No call that looked at files: nothing to hold the answer to.
        let sum = call(ToolName::Calculate, "4");
        assert_eq!(unmade("Add 2 and 2", "4", &[&sum]), None);
        assert_eq!(unmade(REPLACE, STATE, &[]), None);
    }
}
