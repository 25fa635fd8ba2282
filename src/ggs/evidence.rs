//! What GGS takes from the executor's structured [`ToolCallRecord`]s: the failed inputs
//! that become `blocked_targets`, the tools that become `blocked_tools`, and whether a
//! Law 1 gate fired. Only the records' `tool`, `target`, `status`, `failure`, `error`
//! and `confirmation` fields are read — no model prose is ever parsed, so a change in how
//! a model words its output cannot empty the blocked targets.
//!
//! A **failed input** of a round is a concrete resource the environment did not hold:
//! a call failed as not-found, forbidden or unreachable (the kind the tool recorded,
//! never guessed from the wording), and the resource is the path (or URL) its error
//! message names. Only that resource is blocked for later rounds — never a glob pattern
//! or a whole command line (the next plan needs the pattern, and a command fails for
//! many reasons), never a call that code refused (refusals are not the environment),
//! and never the subject of the task (a file the user asked about that is missing is
//! the answer to report, not a target to avoid). A call the user denied under Law 1 is
//! a failed input with its whole target: the denied effect is not asked for again.
//!
//! Targets of logically failing sub-tasks are not blocked: there the method is at fault,
//! not the input, and `blocked_tools` carries the correction — the tools the model
//! programmed that ran and still gave a wrong result ([`tools_of_failing`]).
//!
//! **Invariant:** pure functions of the outcomes and the task's words; every list is
//! deduplicated and keeps first-seen order.

use std::collections::HashSet;

use crate::contracts::{
    SubTaskOutcome, SubTaskStatus, ToolCallRecord, ToolCallStatus, ToolFailure,
};
use crate::tools::ToolRef;

/// One failed input: the tool and the exact target (path, query or command) it failed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedInput {
    /// The tool that failed.
    pub tool: ToolRef,
    /// The path, query or command it failed on, as the call gave it.
    pub target: String,
    /// The error, the denial, or the environmental criterion that failed.
    pub why: String,
}

/// The failed inputs of one round (see the module docs), deduplicated by target.
/// `subject` is the task's intent and words: resources it names are never blocked.
pub fn failed_inputs(outcomes: &[&SubTaskOutcome], subject: &str) -> Vec<FailedInput> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for call in outcomes.iter().flat_map(|o| o.tool_calls.iter()) {
        let error = call.error.as_deref().unwrap_or_default();
        let (target, why) = match call.status {
            ToolCallStatus::Denied if !call.target.trim().is_empty() => (
                call.target.trim().to_string(),
                format!("denied: {}", error.trim()),
            ),
            ToolCallStatus::Error => match unusable_resource(call) {
                Some(resource) if !names(subject, &resource) => {
                    (resource, format!("error: {}", error.trim()))
                }
                _ => continue,
            },
            _ => continue,
        };
        if seen.insert(target.clone()) {
            out.push(FailedInput {
                tool: call.tool.clone(),
                target,
                why,
            });
        }
    }
    out
}

/// The path or URL a call found missing: the call failed as not-found (its typed
/// [`ToolFailure`], set by the tool that ran it) and its error message names one. A call
/// of any other kind — a timeout, a refused write, a record without a kind — never
/// names a missing resource, whatever its message says.
pub fn missing_resource(call: &ToolCallRecord) -> Option<String> {
    if call.failure != Some(ToolFailure::NotFound) {
        return None;
    }
    named_resource(call.error.as_deref()?)
}

/// The path or URL a call could not use: it failed as not-found, forbidden (the system
/// refused access) or network (the host did not answer), and its error names one.
pub fn unusable_resource(call: &ToolCallRecord) -> Option<String> {
    match call.failure? {
        ToolFailure::NotFound | ToolFailure::Forbidden | ToolFailure::Network => {
            named_resource(call.error.as_deref()?)
        }
        _ => None,
    }
}

/// The first absolute path, home path or URL a message names.
fn named_resource(message: &str) -> Option<String> {
    message
        .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '‘' | '’' | '(' | ')'))
        .map(|t| t.trim_end_matches([':', ',', ';', '.']))
        .find(|t| {
            (t.starts_with('/') && t.len() > 1)
                || t.starts_with("~/")
                || t.starts_with("http://")
                || t.starts_with("https://")
        })
        .map(str::to_string)
}

/// Whether the task's words name a resource: its path as written (a `~/…` path matches
/// the same path under any home), or its file name (a last component with an extension)
/// as a word. A folder's bare name is not enough: "my notes folder" does not make a
/// guessed `/home/user/notes` the task's subject.
pub fn names(subject: &str, resource: &str) -> bool {
    let subject = subject.to_lowercase();
    let resource = resource.to_lowercase();
    let resource = resource.trim_end_matches('/');
    if resource.is_empty() {
        return false;
    }
    if subject.contains(resource) {
        return true;
    }
    let words: Vec<&str> = subject
        .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ',' | '?' | '!' | '(' | ')'))
        .map(|w| w.trim_end_matches(['.', ':', ';']))
        .filter(|w| !w.is_empty())
        .collect();
    if words
        .iter()
        .filter_map(|w| w.strip_prefix('~'))
        .any(|tail| tail.len() > 1 && resource.ends_with(tail.trim_end_matches('/')))
    {
        return true;
    }
    let last = resource.rsplit('/').next().unwrap_or_default();
    last.contains('.')
        && words
            .iter()
            .any(|w| *w == last || w.rsplit('/').next() == Some(last))
}

/// The calls of a round that Law 1 denied (the user said no, or had already said no
/// to the same effect in this task), as failed inputs. A denial is final for the task:
/// GGS treats the denied approach as blocked and never as a reason to try the same
/// effect on another target.
pub fn denials(outcomes: &[&SubTaskOutcome]) -> Vec<FailedInput> {
    let mut seen = HashSet::new();
    outcomes
        .iter()
        .flat_map(|o| o.tool_calls.iter())
        .filter(|c| c.status == ToolCallStatus::Denied)
        .filter(|c| seen.insert(c.target.trim().to_string()))
        .map(|c| FailedInput {
            tool: c.tool.clone(),
            target: c.target.trim().to_string(),
            why: c.error.clone().unwrap_or_else(|| "denied".into()),
        })
        .collect()
}

/// The tools that were the wrong method in the round's failing sub-tasks; when no
/// sub-task failed (R4b rejected the merged output), every sub-task of the round produced
/// the rejected result, so the tools of all of them.
///
/// A tool is a method when the model wrote how it works (a command line, a script, a
/// file's text) and it ran: it did what it was told and the result was still wrong. Two
/// kinds of tool are never blocked, because taking them away leaves the next plan
/// without the right tool rather than without the wrong method:
/// - a tool called by parameters code checks — a reader, or a typed tool that copies,
///   moves, edits or converts by code (any but [`ToolName::runs_what_the_model_wrote`]):
///   what a reader showed is what is there, and a typed tool's wrong call (a copy under
///   the old name) is a wrong parameter, corrected call by call — blocking it left the
///   next plan only the shell for the very work the typed tool exists for;
/// - a tool none of whose calls ran cleanly (each one failed, was refused, or exited
///   with an error): that is a misuse,
///   and the failed call itself is never issued again in the task (the toolbox's memory
///   of failed calls), while its error text goes to the next attempt.
///
/// A sub-task the user denied something in blocks no tool: a denial is the
/// environment's answer about that effect (its target stays blocked, [`denials`]), not a
/// sign that the tools were the wrong method.
///
/// [`ToolName::runs_what_the_model_wrote`]: crate::contracts::ToolName::runs_what_the_model_wrote
pub fn tools_of_failing(outcomes: &[&SubTaskOutcome]) -> Vec<ToolRef> {
    let any_failed = outcomes.iter().any(|o| o.status == SubTaskStatus::Failed);
    let mut seen = HashSet::new();
    outcomes
        .iter()
        .filter(|o| !any_failed || o.status == SubTaskStatus::Failed)
        .filter(|o| {
            !o.tool_calls
                .iter()
                .any(|c| c.status == ToolCallStatus::Denied)
        })
        .flat_map(|o| o.tool_calls.iter())
        .filter(|c| c.grounds())
        .map(|c| c.tool.clone())
        .filter(|t| !t.as_str().trim().is_empty())
        .filter(|t| {
            t.builtin()
                .is_none_or(crate::contracts::ToolName::runs_what_the_model_wrote)
        })
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

/// What a call of a file tool says it did and could not do, line by line (`copied 2 of 3
/// into …`, `missing: c.pdf (not in …)`, `wrote 12 bytes to …`): the typed tools that
/// write report every item in their output, so a task's account of its effects is read
/// from its records, never from a model's retelling. Nothing for a call that did not end
/// ok or a tool that does not report its writes (a shell command's effects are measured
/// as [`crate::contracts::PathEffect`]s instead).
pub fn reported(call: &ToolCallRecord) -> Vec<String> {
    use crate::contracts::ToolName;
    let reports = matches!(
        call.tool.builtin(),
        Some(
            ToolName::CopyFiles
                | ToolName::WriteFile
                | ToolName::EditFile
                | ToolName::SetValue
                | ToolName::ConvertFile
        )
    );
    if !reports || call.status != ToolCallStatus::Ok {
        return Vec::new();
    }
    call.output_head
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::{Decision, Law1Tally};
    use crate::contracts::{SubTaskId, TaskId};

    fn call(
        tool: &str,
        target: &str,
        status: ToolCallStatus,
        error: Option<&str>,
    ) -> ToolCallRecord {
        ToolCallRecord {
            status,
            error: error.map(Into::into),
            ..ToolCallRecord::ran(ToolRef::parse(tool), serde_json::json!({}), target, "")
        }
    }

    /// An `error` call of the given kind.
    fn failed(tool: &str, target: &str, failure: ToolFailure, error: &str) -> ToolCallRecord {
        ToolCallRecord {
            failure: Some(failure),
            ..call(tool, target, ToolCallStatus::Error, Some(error))
        }
    }

    fn outcome(calls: Vec<ToolCallRecord>) -> SubTaskOutcome {
        SubTaskOutcome {
            subtask_id: SubTaskId::mint(),
            parent_task_id: TaskId::mint(),
            status: SubTaskStatus::Failed,
            output: serde_json::Value::Null,
            failure_reason: None,
            gap_trajectory: vec![],
            criteria_verdicts: vec![],
            tool_calls: calls,
        }
    }

    #[test]
    fn a_file_tool_s_report_is_its_account_line_by_line_and_nothing_else_reports() {
        let copy = ToolCallRecord {
            output_head: "copied 2 of 3 into ~/print: a.pdf, b.pdf\n\
                          missing: c.pdf (not in ~/docs)\n"
                .into(),
            ..call("copy_files", "~/docs", ToolCallStatus::Ok, None)
        };
        assert_eq!(
            reported(&copy),
            [
                "copied 2 of 3 into ~/print: a.pdf, b.pdf",
                "missing: c.pdf (not in ~/docs)"
            ]
        );
        // A call that did not end ok did nothing to account for; a read, or a shell
        // command (its effects are measured), reports nothing.
        let refused = ToolCallRecord {
            status: ToolCallStatus::Denied,
            ..copy.clone()
        };
        assert!(reported(&refused).is_empty());
        for tool in ["read_file", "shell"] {
            let other = ToolCallRecord {
                tool: ToolRef::parse(tool),
                ..copy.clone()
            };
            assert!(reported(&other).is_empty(), "{tool}");
        }
    }

    #[test]
    fn a_call_a_standing_grant_approved_is_counted_apart_from_the_users_answers() {
        let gated = |decision: Decision, grant: Option<&str>| ToolCallRecord {
            confirmation: Some(decision),
            grant: grant.map(Into::into),
            ..call("shell", "rm a.tmp", ToolCallStatus::Ok, None)
        };
        let tally = Law1Tally::of([&outcome(vec![
            gated(Decision::Approve, None),
            gated(
                Decision::Approve,
                Some("deleting .tmp files under ~/Downloads"),
            ),
            gated(Decision::Deny, None),
            call("shell", "ls", ToolCallStatus::Ok, None),
        ])]);
        assert_eq!(
            (tally.approved, tally.denied, tally.trashed, tally.granted),
            (1, 1, 0, 1)
        );
        assert_eq!((tally.asked(), tally.total()), (2, 3));
    }

    #[test]
    fn only_the_missing_path_an_error_names_is_blocked_not_the_pattern_or_command() {
        let o = outcome(vec![
            failed(
                "glob",
                "*.txt in /home/user",
                ToolFailure::NotFound,
                "the folder /home/user does not exist",
            ),
            failed(
                "shell",
                "find /home/user/notes -name '*.txt' | wc -l",
                ToolFailure::NotFound,
                "find: '/home/user/notes': No such file or directory",
            ),
            call(
                "glob",
                "*.txt",
                ToolCallStatus::Refused,
                Some("Refused: this exact call already ran"),
            ),
            failed(
                "shell",
                "wc -l /home/user/x",
                ToolFailure::Failed,
                "exit status 2: syntax error in /home/user/x",
            ),
        ]);
        let got = failed_inputs(&[&o], "count the .txt files in my notes folder");
        let targets: Vec<&str> = got.iter().map(|f| f.target.as_str()).collect();
        assert_eq!(targets, ["/home/user", "/home/user/notes"]);
    }

    #[test]
    fn the_subject_of_the_task_is_never_blocked() {
        let o = outcome(vec![failed(
            "read_file",
            "/h/notes/friday.txt",
            ToolFailure::NotFound,
            "no such file: /h/notes/friday.txt",
        )]);
        assert!(
            failed_inputs(&[&o], "read ~/notes/friday.txt and tell me what it says").is_empty()
        );
        assert_eq!(failed_inputs(&[&o], "read my monday notes").len(), 1);
    }

    #[test]
    fn a_forbidden_or_unreachable_resource_is_blocked_but_is_never_called_missing() {
        let o = outcome(vec![
            failed(
                "shell",
                "ls /srv/private",
                ToolFailure::Forbidden,
                "ls: cannot open directory '/srv/private': Permission denied",
            ),
            failed(
                "web_search",
                "rust news",
                ToolFailure::Network,
                "https://search.invalid/html did not answer",
            ),
            failed(
                "shell",
                "grep x /srv/log",
                ToolFailure::Failed,
                "grep: /srv/log: Input/output error",
            ),
        ]);
        let got = failed_inputs(&[&o], "summarise the report");
        let targets: Vec<&str> = got.iter().map(|f| f.target.as_str()).collect();
        assert_eq!(targets, ["/srv/private", "https://search.invalid/html"]);
        let forbidden = &o.tool_calls[0];
        assert_eq!(
            missing_resource(forbidden),
            None,
            "forbidden is not missing"
        );
    }

    #[test]
    fn only_a_not_found_failure_names_a_missing_resource_whatever_the_message_says() {
        let says_missing = "ls: cannot access '/h/gone': No such file or directory";
        let by_kind =
            |failure| missing_resource(&failed("shell", "ls /h/gone", failure, says_missing));
        assert_eq!(by_kind(ToolFailure::NotFound).as_deref(), Some("/h/gone"));
        for other in [
            ToolFailure::Failed,
            ToolFailure::Forbidden,
            ToolFailure::Timeout,
            ToolFailure::Network,
            ToolFailure::Invalid,
            ToolFailure::Unavailable,
            ToolFailure::Cancelled,
        ] {
            assert_eq!(by_kind(other), None, "{other:?}");
        }
        // A record without a kind (written before kinds were kept) is not guessed at.
        let untyped = call(
            "shell",
            "ls /h/gone",
            ToolCallStatus::Error,
            Some(says_missing),
        );
        assert_eq!(missing_resource(&untyped), None);
        // A not-found whose message names no path or URL blocks nothing.
        let bare = failed(
            "shell",
            "frobnicate",
            ToolFailure::NotFound,
            "frobnicate: command not found",
        );
        assert_eq!(missing_resource(&bare), None);
        let url = failed(
            "shell",
            "fetch https://example.com/gone",
            ToolFailure::NotFound,
            "no such page: https://example.com/gone.",
        );
        assert_eq!(
            missing_resource(&url).as_deref(),
            Some("https://example.com/gone")
        );
    }

    #[test]
    fn a_denial_blocks_its_target_and_never_the_tool() {
        let o = outcome(vec![
            call("shell", "ls ~/work", ToolCallStatus::Ok, None),
            call(
                "shell",
                "mv ~/work/a.log ~/work/b.log",
                ToolCallStatus::Denied,
                Some("[LAW1] The user denied it"),
            ),
        ]);
        assert!(tools_of_failing(&[&o]).is_empty());
        assert_eq!(denials(&[&o])[0].target, "mv ~/work/a.log ~/work/b.log");
        // The same sub-task without the denial: its clean shell call was the method.
        let o = outcome(vec![call("shell", "ls ~/work", ToolCallStatus::Ok, None)]);
        assert_eq!(tools_of_failing(&[&o]), vec![ToolRef::parse("shell")]);
    }

    #[test]
    fn a_denied_call_keeps_its_whole_target() {
        let o = outcome(vec![call(
            "shell",
            "rm /h/a.txt",
            ToolCallStatus::Denied,
            Some("[LAW1] The user denied it"),
        )]);
        let got = failed_inputs(&[&o], "delete a.txt");
        assert_eq!(got[0].target, "rm /h/a.txt");
    }
}
