//! The plan validator: code that rejects a plan before anything is dispatched (seed 003
//! Key Invariant "R2 plan cannot reuse a tool in `blocked_tools`"; the Go version left
//! this to prompt text).
//!
//! A plan is rejected when it has no sub-task; when a sub-task has
//! no intent, no success criterion or no tool; when it uses a blocked tool, a tool this
//! platform lacks, a blocked target or a third-party program (digest #86); when a
//! criterion is the prompt's example copied verbatim (small models do); or, on
//! `break_symmetry`, when its tool set equals the previous plan's.
//!
//! How tool use is detected: the plan schema makes every sub-task declare the tools it
//! will use (`tools`, an enum of the executor's tools, at least one). A declared blocked
//! tool is a violation. The prose (intent and context) is scanned too, so a plan cannot
//! declare `glob` and describe a shell pipeline: identifier-like names (`mdfind`,
//! `read_file`, `write_file`, `applescript`, `osascript`) count wherever they appear as a
//! word; names that are also English words (`shell`, `search`, `glob`, `shortcuts`) count
//! only where the text refers to the tool — in backticks, followed by `tool`, `command`
//! or `:`, or within two words after use/using/with/via/call/run/in/through/web — and
//! none counts within four words after a negation ("do not use the shell"). A blocked
//! target counts when it occurs in the intent or context as a whole token (a `/` may
//! follow, so a blocked folder also blocks what is inside it), after `~` expansion and
//! ignoring case. The executor refuses blocked tools and targets again at call time;
//! this is the first of the two lines.
//!
//! **Invariant:** [`validate`] is a pure function of the draft and the rules; an empty
//! result means the plan may be dispatched.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use super::draft::{
    CRITERION_EXAMPLE, DraftCriterion, DraftMode, DraftSubTask, EXAMPLE_FOLDER, PlanDraft,
};
use crate::tools::ToolName;

/// Programs a plan must not rely on: usually not installed (digest #86).
pub const THIRD_PARTY_CLIS: &[&str] = &[
    "cloc", "tokei", "jq", "rg", "ripgrep", "fd", "fdfind", "bat", "batcat", "fzf", "eza", "exa",
];

/// What the plan must respect.
#[derive(Clone, Copy, Debug)]
pub struct PlanRules<'a> {
    /// MUST NOT tools: GGS `blocked_tools` ∪ memory Avoid.
    pub blocked_tools: &'a [String],
    /// MUST NOT targets: GGS `blocked_targets` (accumulated).
    pub blocked_targets: &'a [String],
    /// On `break_symmetry`: the previous plan's tool set, which the new one must not equal.
    pub distinct_from: Option<&'a BTreeSet<ToolName>>,
    /// For `~` expansion of targets.
    pub home: &'a Path,
    /// The task's intent and the user's words: what a criterion may legitimately share
    /// with the prompt's example.
    pub task: &'a str,
}

/// One reason a plan is rejected. Sub-task numbers are 1-based, as the model reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    NoSubtasks,
    EmptyIntent {
        subtask: usize,
    },
    NoCriteria {
        subtask: usize,
    },
    NoTools {
        subtask: usize,
    },
    BlockedTool {
        subtask: usize,
        tool: String,
    },
    UnavailableTool {
        subtask: usize,
        tool: ToolName,
    },
    BlockedTarget {
        subtask: usize,
        target: String,
    },
    ThirdPartyCli {
        subtask: usize,
        program: String,
    },
    RepeatedToolSet {
        tools: Vec<ToolName>,
    },
    /// A criterion copied from the prompt's example (`subtask` 0 = a task criterion).
    CopiedExample {
        subtask: usize,
    },
    /// A criterion that no tool output can confirm ("the task is done").
    VagueCriterion {
        subtask: usize,
        criterion: String,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::NoSubtasks => f.write_str("the plan has no sub-task; give at least one"),
            Violation::EmptyIntent { subtask } => {
                write!(f, "sub-task {subtask} has an empty intent")
            }
            Violation::NoCriteria { subtask } => write!(
                f,
                "sub-task {subtask} has no success criterion; give falsifiable assertions about its tool output"
            ),
            Violation::NoTools { subtask } => write!(
                f,
                "sub-task {subtask} lists no tool; list every tool it will use"
            ),
            Violation::BlockedTool { subtask, tool } => write!(
                f,
                "sub-task {subtask} uses the blocked tool `{tool}` (MUST NOT); use a different tool and do not mention it"
            ),
            Violation::UnavailableTool { subtask, tool } => write!(
                f,
                "sub-task {subtask} uses `{tool}`, which this computer does not have"
            ),
            Violation::BlockedTarget { subtask, target } => write!(
                f,
                "sub-task {subtask} names the blocked target `{target}` (MUST NOT: it failed before); choose a different target and do not mention it"
            ),
            Violation::ThirdPartyCli { subtask, program } => write!(
                f,
                "sub-task {subtask} relies on `{program}`, a third-party program that is usually not installed; use the executor's tools and standard commands"
            ),
            Violation::CopiedExample { subtask: 0 } => f.write_str(
                "a task criterion copies the prompt's example; write assertions about this task's combined output",
            ),
            Violation::CopiedExample { subtask } => write!(
                f,
                "sub-task {subtask} copies the prompt's example criterion; write assertions about this sub-task's own output"
            ),
            Violation::VagueCriterion { subtask: 0, criterion } => write!(
                f,
                "the task criterion \"{criterion}\" checks nothing a tool shows; say what the combined answer must contain"
            ),
            Violation::VagueCriterion { subtask, criterion } => write!(
                f,
                "sub-task {subtask}'s criterion \"{criterion}\" checks nothing a tool shows; say what its output must contain (a number, a name, a path, a file's state)"
            ),
            Violation::RepeatedToolSet { tools } => {
                let names: Vec<&str> = tools.iter().map(|t| t.as_str()).collect();
                write!(
                    f,
                    "break_symmetry demands a novel approach, but the plan uses the same tool set as the previous one ({})",
                    names.join(", ")
                )
            }
        }
    }
}

/// Every violation of `rules` in `draft`, in sub-task order; empty when the plan is valid.
pub fn validate(draft: &PlanDraft, rules: &PlanRules<'_>) -> Vec<Violation> {
    let mut out = Vec::new();
    if draft.subtasks.is_empty() {
        out.push(Violation::NoSubtasks);
    }
    // No task criteria is fine: one sub-task's criteria are the task's, and R4b judges a
    // plan of several on the task's intent (`effective_task_criteria`) — a re-ask would
    // cost a whole plan's generation for nothing the merge does not already check.
    check_criteria(0, &draft.task_criteria, rules, &mut out);
    for (idx, subtask) in draft.subtasks.iter().enumerate() {
        check_subtask(idx + 1, subtask, rules, &mut out);
    }
    if let Some(previous) = rules.distinct_from {
        let tools = draft.tool_set();
        if !draft.subtasks.is_empty() && &tools == previous {
            out.push(Violation::RepeatedToolSet {
                tools: tools.into_iter().collect(),
            });
        }
    }
    out
}

fn is_blank(c: &DraftCriterion) -> bool {
    c.criterion.trim().is_empty()
}

fn check_criteria(
    n: usize,
    criteria: &[DraftCriterion],
    rules: &PlanRules<'_>,
    out: &mut Vec<Violation>,
) {
    if criteria
        .iter()
        .any(|c| is_example(&c.criterion, rules.task))
    {
        out.push(Violation::CopiedExample { subtask: n });
    }
    for c in criteria.iter().filter(|c| is_vague(&c.criterion)) {
        out.push(Violation::VagueCriterion {
            subtask: n,
            criterion: c.criterion.trim().to_string(),
        });
    }
}

fn check_subtask(n: usize, s: &DraftSubTask, rules: &PlanRules<'_>, out: &mut Vec<Violation>) {
    if s.intent.trim().is_empty() {
        out.push(Violation::EmptyIntent { subtask: n });
    }
    if s.success_criteria.iter().all(is_blank) {
        out.push(Violation::NoCriteria { subtask: n });
    }
    check_criteria(n, &s.success_criteria, rules, out);
    if s.tools.is_empty() {
        out.push(Violation::NoTools { subtask: n });
    }
    let prose = format!("{}\n{}", s.intent, s.context);
    let mut blocked_seen = BTreeSet::new();
    for blocked in rules.blocked_tools {
        let name = blocked.trim();
        if name.is_empty() {
            continue;
        }
        let declared = s
            .tools
            .iter()
            .any(|t| t.as_str().eq_ignore_ascii_case(name));
        if (declared || mentions_tool(&prose, name)) && blocked_seen.insert(name.to_lowercase()) {
            out.push(Violation::BlockedTool {
                subtask: n,
                tool: name.to_string(),
            });
        }
    }
    let mut unavailable_seen = BTreeSet::new();
    for tool in &s.tools {
        if !tool.is_available() && unavailable_seen.insert(*tool) {
            out.push(Violation::UnavailableTool {
                subtask: n,
                tool: *tool,
            });
        }
    }
    let expanded = expand_home(&prose, rules.home).to_lowercase();
    for target in rules.blocked_targets {
        let needle = expand_home(target.trim(), rules.home).to_lowercase();
        let needle = needle.trim_end_matches('/');
        if !needle.is_empty() && contains_token(&expanded, needle) {
            out.push(Violation::BlockedTarget {
                subtask: n,
                target: target.trim().to_string(),
            });
        }
    }
    let lower = prose.to_lowercase();
    for program in THIRD_PARTY_CLIS {
        if contains_token(&lower, program) {
            out.push(Violation::ThirdPartyCli {
                subtask: n,
                program: (*program).to_string(),
            });
        }
    }
}

/// Whether a criterion comes from the prompt's worked example: the example verbatim, or
/// naming the example's folder while the task does not.
fn is_example(criterion: &str, task: &str) -> bool {
    let c = criterion.trim().trim_end_matches('.').to_lowercase();
    if c == CRITERION_EXAMPLE.to_lowercase() {
        return true;
    }
    let folder = EXAMPLE_FOLDER.to_lowercase();
    let user = folder.rsplit_once('/').map_or(folder.as_str(), |(u, _)| u);
    c.contains(user) && !task.to_lowercase().contains(user)
}

/// Words a criterion can consist of and still say nothing a tool output shows ("the
/// sub-task has been completed successfully", "the output is correct").
const VAGUE_WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "task",
    "subtask",
    "sub",
    "it",
    "this",
    "is",
    "was",
    "are",
    "be",
    "has",
    "have",
    "been",
    "done",
    "complete",
    "completed",
    "finished",
    "finishes",
    "successful",
    "successfully",
    "success",
    "succeeded",
    "succeeds",
    "executed",
    "runs",
    "ran",
    "run",
    "correctly",
    "correct",
    "properly",
    "proper",
    "without",
    "any",
    "errors",
    "error",
    "works",
    "working",
    "as",
    "expected",
    "user",
    "satisfied",
    "output",
    "result",
    "results",
    "ok",
    "fine",
    "all",
    "steps",
    "step",
    "and",
    "valid",
    "accurate",
    "accurately",
    "performed",
    "action",
    "request",
    "requested",
    "fulfilled",
    "achieved",
    "goal",
];

/// Whether a criterion checks nothing: every word of it is in [`VAGUE_WORDS`].
pub fn is_vague(criterion: &str) -> bool {
    let lower = criterion.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    !words.is_empty() && words.iter().all(|w| VAGUE_WORDS.contains(w))
}

/// A plan the model could not fix itself, mended by code where the fix cannot change
/// what the plan does: criteria that copy the example or check nothing are dropped (a
/// sub-task left without one gets a plausible criterion that its output answers its
/// intent), an empty intent takes the task's, a sub-task without tools gets the shell,
/// and tools this computer lacks are dropped. Violations of MUST NOT rules (blocked
/// tools or targets, third-party programs, a repeated tool set) are never mended: the
/// plan stays rejected.
pub fn repair(draft: &PlanDraft, task_intent: &str, rules: &PlanRules<'_>) -> PlanDraft {
    let keep = |c: &DraftCriterion| {
        !is_blank(c) && !is_vague(&c.criterion) && !is_example(&c.criterion, rules.task)
    };
    let mut out = draft.clone();
    for s in &mut out.subtasks {
        if s.intent.trim().is_empty() {
            s.intent = task_intent.trim().to_string();
        }
        s.success_criteria.retain(keep);
        if s.success_criteria.is_empty() {
            s.success_criteria.push(DraftCriterion {
                criterion: format!("the output answers: {}", s.intent.trim()),
                mode: DraftMode::Plausible,
            });
        }
        s.tools.retain(|t| t.is_available());
        if s.tools.is_empty() {
            s.tools.push(ToolName::Shell);
        }
    }
    out.task_criteria.retain(keep);
    out
}

/// Names that are not English words: any whole-word mention is a use of the tool.
const IDENTIFIER_NAMES: &[&str] = &["mdfind", "read_file", "write_file", "applescript"];

/// Words after which (within two words) an English-word tool name refers to the tool.
const TOOL_CUES_BEFORE: &[&str] = &[
    "use", "uses", "using", "with", "via", "call", "calling", "run", "running", "in", "through",
    "web",
];

/// Words right after a name that make it a tool reference.
const TOOL_CUES_AFTER: &[&str] = &["tool", "tools", "command", "commands"];

/// Words that, within four words before a tool name, make the mention a refusal ("do
/// not use the shell") rather than a use.
const NEGATIONS: &[&str] = &[
    "not", "never", "no", "without", "avoid", "avoiding", "instead", "except", "don", "t",
];

/// Whether `text` refers to the tool `name` as something to use (see the module docs).
pub fn mentions_tool(text: &str, name: &str) -> bool {
    let name = name.trim().to_lowercase();
    if name.is_empty() {
        return false;
    }
    let lower = text.to_lowercase();
    let aliases: Vec<&str> = if name == "applescript" {
        vec!["applescript", "osascript"]
    } else {
        vec![name.as_str()]
    };
    let identifier = IDENTIFIER_NAMES.contains(&name.as_str()) || name.contains('_');
    let tokens = tokens(&lower);
    for (i, token) in tokens.iter().enumerate() {
        if !aliases.contains(&token.word) {
            continue;
        }
        if tokens[i.saturating_sub(4)..i]
            .iter()
            .any(|t| NEGATIONS.contains(&t.word))
        {
            continue;
        }
        if identifier || token.backticked || token.colon_after {
            return true;
        }
        if tokens
            .get(i + 1)
            .is_some_and(|next| TOOL_CUES_AFTER.contains(&next.word))
        {
            return true;
        }
        let before = &tokens[i.saturating_sub(2)..i];
        if before.iter().any(|t| TOOL_CUES_BEFORE.contains(&t.word)) {
            return true;
        }
    }
    false
}

struct Token<'a> {
    word: &'a str,
    backticked: bool,
    colon_after: bool,
}

/// Words of `text` (letters, digits and `_`), with what surrounds each.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut start = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        match (is_word(c), start) {
            (true, None) => start = Some((k, i)),
            (false, Some((sk, si))) => {
                out.push(token(text, &chars, sk, si, k, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some((sk, si)) = start {
        out.push(token(text, &chars, sk, si, chars.len(), text.len()));
    }
    out
}

fn token<'a>(
    text: &'a str,
    chars: &[(usize, char)],
    start_k: usize,
    start_i: usize,
    end_k: usize,
    end_i: usize,
) -> Token<'a> {
    let before = start_k.checked_sub(1).map(|k| chars[k].1);
    let after = chars.get(end_k).map(|&(_, c)| c);
    Token {
        word: &text[start_i..end_i],
        backticked: before == Some('`') && after == Some('`'),
        colon_after: after == Some(':'),
    }
}

/// `~`, `~/…` and `$HOME` spelled out, so `~/Downloads` and `/home/u/Downloads` match.
fn expand_home(text: &str, home: &Path) -> String {
    let h = home.to_string_lossy();
    let h = h.trim_end_matches('/');
    let mut out = text.replace("${HOME}", h).replace("$HOME", h);
    if out == "~" {
        return h.to_string();
    }
    if let Some(rest) = out.strip_prefix("~/") {
        out = format!("{h}/{rest}");
    }
    for lead in [' ', '\'', '"', '`', '(', '\n', '\t', '='] {
        out = out.replace(&format!("{lead}~/"), &format!("{lead}{h}/"));
    }
    out
}

/// Whether `needle` occurs in `hay` as a whole token: not glued to a letter, digit, `_`,
/// `-` or `.` on either side, except that a `/` may follow (a blocked folder blocks what
/// is inside it).
fn contains_token(hay: &str, needle: &str) -> bool {
    let glued = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let at = from + pos;
        let end = at + needle.len();
        let before_ok = hay[..at].chars().next_back().is_none_or(|c| !glued(c));
        let after_ok = match hay[end..].chars().next() {
            None => true,
            // A sentence may end right after the target.
            Some('.') => hay[end + 1..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace),
            Some(c) => !glued(c),
        };
        if before_ok && after_ok {
            return true;
        }
        from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn subtask(intent: &str, context: &str, tools: &[ToolName]) -> DraftSubTask {
        DraftSubTask {
            context: context.into(),
            intent: intent.into(),
            sequence: 1,
            success_criteria: vec![DraftCriterion::verifiable(
                "the output lists at least one path",
            )],
            tools: tools.to_vec(),
        }
    }

    fn plan(subtasks: Vec<DraftSubTask>) -> PlanDraft {
        PlanDraft {
            subtasks,
            task_criteria: vec![DraftCriterion::verifiable(
                "the answer names the largest file",
            )],
        }
    }

    fn home() -> PathBuf {
        PathBuf::from("/home/u")
    }

    fn rules<'a>(tools: &'a [String], targets: &'a [String], home: &'a Path) -> PlanRules<'a> {
        PlanRules {
            blocked_tools: tools,
            blocked_targets: targets,
            distinct_from: None,
            home,
            task: "find the largest file in ~/Downloads",
        }
    }

    #[test]
    fn a_clean_plan_passes() {
        let h = home();
        let p = plan(vec![subtask(
            "Find the three largest PDF files in ~/Downloads",
            "Use glob with pattern *.pdf under ~/Downloads, then sort by size.",
            &[ToolName::Glob, ToolName::Shell],
        )]);
        assert_eq!(validate(&p, &rules(&[], &[], &h)), vec![]);
    }

    #[test]
    fn an_empty_plan_and_empty_fields_are_rejected() {
        let h = home();
        let empty = PlanDraft {
            subtasks: vec![],
            task_criteria: vec![DraftCriterion::verifiable(" ")],
        };
        assert_eq!(
            validate(&empty, &rules(&[], &[], &h)),
            vec![Violation::NoSubtasks]
        );
        let mut s = subtask(" ", "", &[]);
        s.success_criteria.clear();
        assert_eq!(
            validate(&plan(vec![s]), &rules(&[], &[], &h)),
            vec![
                Violation::EmptyIntent { subtask: 1 },
                Violation::NoCriteria { subtask: 1 },
                Violation::NoTools { subtask: 1 },
            ]
        );
    }

    #[test]
    fn a_declared_blocked_tool_is_rejected_once_per_subtask() {
        let h = home();
        let blocked = vec!["shell".to_string()];
        let p = plan(vec![
            subtask(
                "Count the lines",
                "Run `wc -l` in the shell.",
                &[ToolName::Shell],
            ),
            subtask("List PDFs", "pattern *.pdf", &[ToolName::Glob]),
        ]);
        assert_eq!(
            validate(&p, &rules(&blocked, &[], &h)),
            vec![Violation::BlockedTool {
                subtask: 1,
                tool: "shell".into()
            }]
        );
    }

    #[test]
    fn a_blocked_tool_described_in_prose_is_rejected_even_when_not_declared() {
        let h = home();
        let blocked = vec!["shell".to_string(), "mdfind".to_string()];
        let p = plan(vec![
            subtask(
                "Count the lines",
                "Use the shell: wc -l notes.txt",
                &[ToolName::ReadFile],
            ),
            subtask(
                "Locate report.pdf",
                "Ask mdfind for report.pdf",
                &[ToolName::Glob],
            ),
        ]);
        let v = validate(&p, &rules(&blocked, &[], &h));
        assert_eq!(
            v,
            vec![
                Violation::BlockedTool {
                    subtask: 1,
                    tool: "shell".into()
                },
                Violation::BlockedTool {
                    subtask: 2,
                    tool: "mdfind".into()
                },
            ]
        );
    }

    #[test]
    fn english_words_that_name_tools_only_count_as_tool_references() {
        assert!(!mentions_tool(
            "Search the Downloads folder for invoices",
            "search"
        ));
        assert!(!mentions_tool("a shell-shaped icon", "shell"));
        assert!(mentions_tool(
            "Do a web search for the release date",
            "search"
        ));
        assert!(mentions_tool("run it with `glob`", "glob"));
        assert!(mentions_tool("Use glob to list *.md", "glob"));
        assert!(mentions_tool("the shell command wc -l", "shell"));
        assert!(mentions_tool("Tell Finder via osascript", "applescript"));
        assert!(mentions_tool("then read_file each match", "read_file"));
        // Obeying the block is not using the tool.
        assert!(!mentions_tool("Do not use the shell for this.", "shell"));
        assert!(!mentions_tool(
            "without mdfind: walk the folder with glob",
            "mdfind"
        ));
        assert!(!mentions_tool("don't call `search`", "search"));
    }

    #[test]
    fn a_blocked_target_is_rejected_as_a_whole_token_or_a_parent_folder() {
        let h = home();
        let targets = vec!["~/Downloads/old".to_string()];
        let hit = plan(vec![subtask(
            "List the files",
            "Look inside /home/u/Downloads/old/2024 for invoices.",
            &[ToolName::Glob],
        )]);
        assert_eq!(
            validate(&hit, &rules(&[], &targets, &h)),
            vec![Violation::BlockedTarget {
                subtask: 1,
                target: "~/Downloads/old".into()
            }]
        );
        let sentence_end = plan(vec![subtask(
            "List the files",
            "The files are in ~/downloads/old.",
            &[ToolName::Glob],
        )]);
        assert_eq!(validate(&sentence_end, &rules(&[], &targets, &h)).len(), 1);
        let other = plan(vec![subtask(
            "List the files",
            "Look inside ~/Downloads/older and ~/Downloads/old.zip",
            &[ToolName::Glob],
        )]);
        assert_eq!(validate(&other, &rules(&[], &targets, &h)), vec![]);
    }

    #[test]
    fn third_party_programs_are_rejected_but_words_containing_them_are_not() {
        let h = home();
        let p = plan(vec![subtask(
            "Count lines of code",
            "Run cloc on ~/src, or tokei if present",
            &[ToolName::Shell],
        )]);
        assert_eq!(
            validate(&p, &rules(&[], &[], &h)),
            vec![
                Violation::ThirdPartyCli {
                    subtask: 1,
                    program: "cloc".into()
                },
                Violation::ThirdPartyCli {
                    subtask: 1,
                    program: "tokei".into()
                },
            ]
        );
        let fine = plan(vec![subtask(
            "Count the JSON files in the batch folder",
            "Use find ~/batch -name '*.json' | wc -l; the order of fields does not matter",
            &[ToolName::Shell],
        )]);
        assert_eq!(validate(&fine, &rules(&[], &[], &h)), vec![]);
    }

    #[test]
    fn break_symmetry_rejects_the_previous_tool_set_but_not_a_new_one() {
        let h = home();
        let previous: BTreeSet<ToolName> = [ToolName::Shell, ToolName::Glob].into();
        let mut r = rules(&[], &[], &h);
        r.distinct_from = Some(&previous);
        let same = plan(vec![
            subtask("a", "b", &[ToolName::Glob]),
            subtask("c", "d", &[ToolName::Shell]),
        ]);
        assert_eq!(
            validate(&same, &r),
            vec![Violation::RepeatedToolSet {
                tools: vec![ToolName::Glob, ToolName::Shell]
            }]
        );
        let novel = plan(vec![subtask(
            "a",
            "b",
            &[ToolName::Mdfind, ToolName::Shell],
        )]);
        assert_eq!(validate(&novel, &r), vec![]);
    }

    #[test]
    fn tools_this_platform_lacks_are_rejected_off_macos() {
        let h = home();
        let p = plan(vec![subtask(
            "Make a reminder",
            "Reminders app",
            &[ToolName::Applescript],
        )]);
        let v = validate(&p, &rules(&[], &[], &h));
        if cfg!(target_os = "macos") {
            assert_eq!(v, vec![]);
        } else {
            assert_eq!(
                v,
                vec![Violation::UnavailableTool {
                    subtask: 1,
                    tool: ToolName::Applescript
                }]
            );
        }
    }

    #[test]
    fn a_criterion_copied_from_the_prompts_example_is_rejected() {
        let h = home();
        let mut s = subtask(
            "Count the notes",
            "glob *.md under ~/notes",
            &[ToolName::Glob],
        );
        s.success_criteria = vec![DraftCriterion::verifiable(format!(
            "{}.",
            CRITERION_EXAMPLE.to_uppercase()
        ))];
        let mut p = plan(vec![s.clone()]);
        p.task_criteria = vec![DraftCriterion::verifiable(CRITERION_EXAMPLE)];
        assert_eq!(
            validate(&p, &rules(&[], &[], &h)),
            vec![
                Violation::CopiedExample { subtask: 0 },
                Violation::CopiedExample { subtask: 1 },
            ]
        );
        // Any criterion naming the example's made-up home is pasted, unless the task
        // itself is about that place.
        s.success_criteria = vec![DraftCriterion::verifiable(
            "the output lists the .md files in /home/ana/notes",
        )];
        let pasted = plan(vec![s]);
        assert_eq!(
            validate(&pasted, &rules(&[], &[], &h)),
            vec![Violation::CopiedExample { subtask: 1 }]
        );
        let mut r = rules(&[], &[], &h);
        r.task = "how big is /home/ana/notes?";
        assert_eq!(validate(&pasted, &r), vec![]);
    }

    #[test]
    fn a_plan_needs_no_task_criteria() {
        let h = home();
        let one = PlanDraft {
            subtasks: vec![subtask("Count the notes", "~/notes", &[ToolName::Shell])],
            task_criteria: vec![],
        };
        assert_eq!(validate(&one, &rules(&[], &[], &h)), vec![]);
        let two = PlanDraft {
            subtasks: vec![
                subtask("Count the notes", "~/notes", &[ToolName::Shell]),
                subtask("Count the logs", "~/logs", &[ToolName::Shell]),
            ],
            task_criteria: vec![],
        };
        assert_eq!(
            validate(&two, &rules(&[], &[], &h)),
            vec![],
            "R4b judges several sub-tasks on the intent"
        );
    }

    #[test]
    fn criteria_that_only_say_the_work_is_done_are_vague() {
        for vague in [
            "The task is completed successfully.",
            "the output is correct",
            "The sub-task has been executed without errors",
            "The user is satisfied",
        ] {
            assert!(is_vague(vague), "{vague}");
        }
        for concrete in [
            "the output gives the number of .txt files in /home/u/notes",
            "summary.txt exists in the workspace",
            "the answer is 20",
            "the output names the largest file",
        ] {
            assert!(!is_vague(concrete), "{concrete}");
        }
        let h = home();
        let mut s = subtask("Count the notes", "~/notes", &[ToolName::Shell]);
        s.success_criteria = vec![DraftCriterion::verifiable("The task is done.")];
        assert_eq!(
            validate(&plan(vec![s]), &rules(&[], &[], &h)),
            vec![Violation::VagueCriterion {
                subtask: 1,
                criterion: "The task is done.".into()
            }]
        );
    }

    #[test]
    fn code_mends_what_does_not_change_the_plan_and_never_a_must_not_rule() {
        let h = home();
        let mut s = subtask("", "~/notes", &[]);
        s.success_criteria = vec![
            DraftCriterion::verifiable(CRITERION_EXAMPLE),
            DraftCriterion::verifiable("the task is completed"),
        ];
        let draft = PlanDraft {
            subtasks: vec![
                s.clone(),
                subtask("Count the logs", "~/logs", &[ToolName::Shell]),
            ],
            task_criteria: vec![],
        };
        let r = rules(&[], &[], &h);
        assert!(!validate(&draft, &r).is_empty());
        let mended = repair(&draft, "count my notes and logs", &r);
        assert_eq!(validate(&mended, &r), vec![], "{mended:?}");
        let first = &mended.subtasks[0];
        assert_eq!(first.intent, "count my notes and logs");
        assert_eq!(first.tools, vec![ToolName::Shell]);
        assert_eq!(first.success_criteria.len(), 1);
        assert_eq!(first.success_criteria[0].mode, DraftMode::Plausible);
        assert!(
            first.success_criteria[0]
                .criterion
                .contains("count my notes and logs")
        );

        let blocked = vec!["shell".to_string()];
        let rb = rules(&blocked, &[], &h);
        let uses_blocked = plan(vec![subtask("Count", "run wc", &[ToolName::Shell])]);
        assert!(
            !validate(&repair(&uses_blocked, "count", &rb), &rb).is_empty(),
            "a blocked tool stays a violation"
        );
    }

    #[test]
    fn violations_read_as_instructions_for_the_model() {
        let text = Violation::BlockedTool {
            subtask: 2,
            tool: "shell".into(),
        }
        .to_string();
        assert!(
            text.contains("sub-task 2") && text.contains("`shell`"),
            "{text}"
        );
    }
}
