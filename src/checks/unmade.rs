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
//! The verbs here are the subset of Law 1's change vocabulary that cannot be answered in
//! words: "summarise", "write", "convert" or "export" may be asked for text, and "sort" or
//! "group" for a view of a listing, so they are not read here.
//!
//! **Invariant:** pure; silent unless the request's verb asks for a change in place, a
//! call other than `calculate` or `search` ran, no call changed anything or was answered
//! at Law 1, and the answer neither says not nor says already.

use crate::contracts::{ToolCallRecord, ToolName};

/// English stems of verbs that ask to change what exists, where it is (a request's verb
/// starting with one counts).
const IN_PLACE: &[&str] = &[
    "replac",
    "updat",
    "edit",
    "modif",
    "chang",
    "rewrit",
    "fix",
    "correct",
    "append",
    "insert",
    "prepend",
    "renam",
    "dedup",
    "remov",
    "delet",
    "eras",
    "strip",
    "trim",
    "redact",
    "substitut",
    "bump",
    "increment",
    "decrement",
    "uncomment",
    "indent",
    "capitali",
    "uppercas",
    "lowercas",
    "mov",
    "truncat",
    "empt",
    "clear",
    "set",
    "add",
];

/// The Chinese verbs of a change in place (anywhere in the request: the verb often comes
/// after its object, "把 A 替换成 B").
const IN_PLACE_CHINESE: &[&str] = &[
    "替换", "删除", "删掉", "去掉", "移除", "重命名", "改名", "改成", "改为", "追加", "插入",
    "清空", "移到",
];

/// Words that say a thing already is as asked, so that no change was needed.
const ALREADY: &[&str] = &["already", "已经是", "已是"];

/// The request's verb when it asks for a change in place: the first verb of one of its
/// lines (a task is checked as its intent and the user's words, a line each) after any
/// opening phrase of place ([`super::said::leading_verb`]), or a Chinese verb of
/// [`IN_PLACE_CHINESE`]. "Add up" is a sum, not an addition to a file.
pub fn in_place_verb(request: &str) -> Option<String> {
    if let Some(word) = IN_PLACE_CHINESE.iter().find(|w| request.contains(**w)) {
        return Some((*word).to_string());
    }
    request.lines().find_map(|line| {
        let (verb, next) = super::said::leading_verb(line)?;
        let sum = verb == "add" && next.as_deref() == Some("up");
        (!sum && IN_PLACE.iter().any(|stem| verb.starts_with(stem))).then_some(verb)
    })
}

/// For a request asking to change something in place: the reason, when the calls worked
/// on files, none changed anything or was put to the user, and the answer says neither
/// that the change was not made nor that it was not needed. See the module's invariant.
pub fn unmade(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let verb = in_place_verb(request)?;
    let worked_on_files = records
        .iter()
        .any(|r| r.tool != ToolName::Calculate && r.tool != ToolName::Search);
    let put_to_the_user = records.iter().any(|r| r.confirmation.is_some());
    if !worked_on_files
        || put_to_the_user
        || super::said::changed_anything(records)
        || super::said::says_not(answer)
        || says_already(answer)
    {
        return None;
    }
    Some(format!(
        "the request asks to {verb}, and no call changed anything: make the change with a \
         tool that changes files (edit_file replaces a text in a file, write_file writes, \
         convert_file writes a file made from another, move_files moves and renames, \
         delete_files deletes), or say what was not done and why — an answer about how \
         things are is not the change"
    ))
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
        assert!(why.contains("replace") && why.contains("edit_file"), "{why}");
        // Whatever the phrasing, and in a request that opens with its place.
        for (request, answer) in [
            (REPLACE, "Done."),
            (REPLACE, "style.md: color per series."),
            ("In ~/docs/guide.md, rename the section Setup to Installation", "## Installation"),
            ("Update the version in ~/app/package.json to 2.0.0", "version: 2.0.0"),
            ("Remove the empty lines from ~/notes/groceries.txt", "milk\neggs\nbread"),
            ("把 notes.txt 里的 colour 替换成 color", "文件里是 color"),
            // A task's intent, then the user's words.
            ("Read style.md\nReplace colour with color in ~/docs/style.md", STATE),
        ] {
            assert!(unmade(request, answer, &[&read]).is_some(), "{request} → {answer}");
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
        let mut declined = call(ToolName::EditFile, "the user declined");
        declined.confirmation = Some(Decision::Deny);
        assert_eq!(unmade(REPLACE, STATE, &[&read, &declined]), None);
        for answer in [
            "Nothing was replaced: style.md has no 'colour'.",
            "style.md already says 'color' everywhere.",
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
