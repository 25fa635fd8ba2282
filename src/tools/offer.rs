//! Which of the tools that change files a sub-task is offered: those whose change its
//! words ask for.
//!
//! A small model reaches for the tool it knows best, not the one whose effect was asked:
//! asked to change extensions it copied the files onto the same names, asked for a JSON
//! file it copied the CSV, and sent back with "copying is not moving" it copied again.
//! Every such call succeeds or fails plausibly, and a check after the fact can only send
//! the answer back. So the choice is narrowed before the call is written: a built-in
//! tool whose every effect is a kind of change the words never ask for is left out of
//! the step's grammar (and refused if named anyway). Tools that only read, the shell and
//! tools of MCP servers are always offered.
//!
//! The words are Law 1's own vocabulary of effects ([`crate::laws::requested`]), generous
//! on purpose: a miss leaves out a tool the user asked for. They are the words by which
//! Law 1 refuses, once a sub-task has read something, an effect its request never names;
//! a tool offered here is one whose effect that check lets through.
//!
//! **Invariant:** this only ever narrows which tools make a change; it never offers a
//! tool the toolbox does not, and never takes away a tool that reads.

use std::borrow::Cow;

use super::{ToolName, ToolSpec};
use crate::laws::EffectKind;
use crate::laws::requested::{asks_for, asks_to_copy};

/// Whether a sub-task whose words are `asked` is offered `tool`: a tool that only reads
/// always is, and so are the tools that write text (`write_file`, `edit_file`,
/// `convert_file`); a copy, a move or a deletion when the words ask for a change it makes.
pub fn offered(tool: ToolName, asked: &str) -> bool {
    match tool {
        ToolName::CopyFiles => asks_to_copy(asked),
        ToolName::MoveFiles => asks_for(EffectKind::Move, asked),
        ToolName::DeleteFiles => asks_for(EffectKind::Delete, asked),
        // Writing is how any file is made ("turn the CSV into a JSON file" names no verb
        // of change), and a text is changed in many words; replacing what the task did
        // not make asks the user first: write_file, edit_file and convert_file are always
        // offered.
        _ => true,
    }
}

/// Whether `tool` can change files: the tools that write, copy, move or delete, and the
/// shell and AppleScript (which can do anything).
pub fn changes_files(tool: ToolName) -> bool {
    matches!(
        tool,
        ToolName::WriteFile
            | ToolName::EditFile
            | ToolName::SetValue
            | ToolName::ConvertFile
            | ToolName::CopyFiles
            | ToolName::MoveFiles
            | ToolName::DeleteFiles
            | ToolName::Shell
            | ToolName::Applescript
    )
}

/// The tools of `specs` that can change files: the built-in ones of [`changes_files`],
/// and those of MCP servers (a record cannot say what they do).
pub fn changing_specs(specs: &[ToolSpec]) -> Vec<ToolSpec> {
    specs
        .iter()
        .filter(|s| s.name.builtin().is_none_or(changes_files))
        .cloned()
        .collect()
}

/// `specs` without the built-in tools [`offered`] leaves out for `asked`; borrowed when
/// nothing is left out.
pub fn offered_specs<'a>(specs: &'a [ToolSpec], asked: &str) -> Cow<'a, [ToolSpec]> {
    let keep = |s: &ToolSpec| s.name.builtin().is_none_or(|tool| offered(tool, asked));
    if specs.iter().all(keep) {
        Cow::Borrowed(specs)
    } else {
        Cow::Owned(specs.iter().filter(|s| keep(s)).cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHANGERS: [ToolName; 3] = [
        ToolName::CopyFiles,
        ToolName::MoveFiles,
        ToolName::DeleteFiles,
    ];

    fn offered_changers(asked: &str) -> Vec<ToolName> {
        CHANGERS
            .into_iter()
            .filter(|t| offered(*t, asked))
            .collect()
    }

    #[test]
    fn a_question_is_offered_no_tool_that_changes_files() {
        for asked in [
            "How many files in ~/Documents/letters were changed in the last 7 days?",
            "Which two files in ~/Downloads/dupes have the same content?",
            "What is the phone number of Mia in ~/contacts.csv?",
            "Find the largest file in ~/Downloads and give its name and size",
            "统计下载文件夹里有多少个PDF文件",
        ] {
            assert_eq!(offered_changers(asked), [], "{asked}");
        }
        assert!(offered(ToolName::WriteFile, "What time is it?"));
        assert!(offered(ToolName::EditFile, "What time is it?"));
        assert!(offered(ToolName::ConvertFile, "What time is it?"));
    }

    #[test]
    fn each_change_is_offered_the_tools_that_make_it_and_a_copy_only_when_asked() {
        let cases: &[(&str, &[ToolName])] = &[
            (
                "Change the extension of every .jpeg file in ~/Pictures/raw to .jpg",
                &[ToolName::MoveFiles],
            ),
            (
                "Rename ~/notes/draft.txt to final.txt",
                &[ToolName::MoveFiles],
            ),
            ("Move the logs into ~/old", &[ToolName::MoveFiles]),
            (
                "Copy report.pdf and notes.txt into ~/backup",
                &[ToolName::CopyFiles],
            ),
            (
                "Back up ~/Documents/taxes to ~/Backups",
                &[ToolName::CopyFiles],
            ),
            (
                "Copy the photos to ~/Pictures/2024 and move the originals to ~/old",
                &[ToolName::CopyFiles, ToolName::MoveFiles],
            ),
            (
                "Turn ~/data/members.csv into a JSON file ~/data/members.json",
                &[],
            ),
            ("Delete the empty logs in ~/logs", &[ToolName::DeleteFiles]),
            ("把报告复制到备份文件夹", &[ToolName::CopyFiles]),
        ];
        for (asked, want) in cases {
            assert_eq!(offered_changers(asked), *want, "{asked}");
        }
    }

    #[test]
    fn only_tools_that_can_change_files_are_offered_for_a_change_owed() {
        let specs = crate::tools::Toolbox::standard().specs();
        let names: Vec<String> = changing_specs(&specs)
            .iter()
            .map(|s| s.name.to_string())
            .collect();
        for tool in ["write_file", "edit_file", "convert_file", "shell"] {
            assert!(names.iter().any(|n| n == tool), "{tool} in {names:?}");
        }
        for tool in [
            "read_file",
            "read_lines",
            "read_table",
            "list_files",
            "calculate",
        ] {
            assert!(!names.iter().any(|n| n == tool), "{tool} in {names:?}");
        }
    }

    #[test]
    fn tools_that_read_are_always_offered_and_nothing_is_copied_when_nothing_is_left_out() {
        for tool in [
            ToolName::ListFiles,
            ToolName::ReadTable,
            ToolName::ReadLines,
            ToolName::ReadFile,
            ToolName::Calculate,
            ToolName::Glob,
            ToolName::Mdfind,
            ToolName::Shell,
            ToolName::Search,
        ] {
            assert!(offered(tool, "What time is it?"), "{tool:?}");
        }
    }
}
