//! The plan validator: code that rejects a plan before anything is dispatched, so a plan
//! can never reuse a tool in `blocked_tools` however the prompt was read.
//!
//! A plan is rejected when it has no sub-task; when a sub-task has no intent, no success
//! criterion or no tool; when it uses a blocked tool, a tool this platform lacks, a
//! blocked target or a third-party program that is usually not installed; when a
//! criterion is the prompt's example copied verbatim (small models do) or checks nothing
//! (`criteria`); when a number, extension or quoted text the user's request states is in
//! no sub-task or criterion (`dropped_terms`: "45 days after", "the .log files", "mention
//! 'urgent'" — a plan that drops it drops the part of the request it belongs to); on a replan, when it repeats
//! the plan it replaces (the same sub-tasks,
//! intents, contexts and tools); or, on `break_symmetry`, when its tool set equals the previous
//! plan's.
//!
//! How tool use is detected: the plan schema makes every sub-task declare the tools it
//! will use (`tools`, an enum of the executor's tools, at least one). A declared blocked
//! tool is a violation. The prose (intent and context) is scanned too (`mention`), so a
//! plan cannot declare `glob` and describe a shell pipeline. A blocked target counts when
//! it occurs in the intent or context as a whole token (`target`). The executor refuses
//! blocked tools and targets again at call time; this is the first of the two lines.
//!
//! A plan the model could not fix itself may be mended ([`repair`]) where the mend cannot
//! change what the plan does; MUST NOT violations are never mended.
//!
//! **Invariant:** [`validate`] is a pure function of the draft and the rules; an empty
//! result means the plan may be dispatched.

mod criteria;
mod mention;
mod target;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use self::criteria::{is_blank, is_example};
use self::target::{contains_token, expand_home};
use super::schema::{DraftCriterion, DraftMode, DraftSubTask, PlanDraft};
use crate::tools::{ToolName, ToolRef};

pub use self::criteria::is_vague;
pub use self::mention::mentions_tool;

/// Programs a plan must not rely on: usually not installed.
pub const THIRD_PARTY_CLIS: &[&str] = &[
    "cloc", "tokei", "jq", "rg", "ripgrep", "fd", "fdfind", "bat", "batcat", "fzf", "eza", "exa",
];

/// What the plan must respect.
#[derive(Clone, Copy, Debug)]
pub struct PlanRules<'a> {
    /// MUST NOT tools: GGS `blocked_tools` ∪ memory Avoid.
    pub blocked_tools: &'a [ToolRef],
    /// MUST NOT targets: GGS `blocked_targets` (accumulated).
    pub blocked_targets: &'a [String],
    /// On `break_symmetry`: the previous plan's tool set, which the new one must not equal.
    pub distinct_from: Option<&'a BTreeSet<ToolName>>,
    /// On a replan: the plan it replaces, which the new one must not repeat.
    pub replaces: Option<Replaced<'a>>,
    /// For `~` expansion of targets.
    pub home: &'a Path,
    /// The task's intent and the user's words: what a criterion may legitimately share
    /// with the prompt's example.
    pub task: &'a str,
    /// The user's own words, whose stated numbers, extensions and quotes the plan must
    /// carry.
    pub request: &'a str,
    /// What else the planner was shown that states values (the facts code computed from
    /// the request, memory's constraints): with `task`, the only source a value written
    /// in a sub-task's context can have, since nothing was read yet.
    pub shown: &'a str,
}

/// The plan a replan replaces, and why it failed.
#[derive(Clone, Copy, Debug)]
pub struct Replaced<'a> {
    /// Its sub-tasks as drafted.
    pub subtasks: &'a [DraftSubTask],
    /// What failed (the directive's failed criterion).
    pub why: &'a str,
}

/// One reason a plan is rejected. Sub-task numbers are 1-based, as the model reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The plan has no sub-task.
    NoSubtasks,
    /// A sub-task's intent is empty.
    EmptyIntent {
        /// The sub-task, 1-based.
        subtask: usize,
    },
    /// A sub-task has no success criterion.
    NoCriteria {
        /// The sub-task, 1-based.
        subtask: usize,
    },
    /// A sub-task lists no tool.
    NoTools {
        /// The sub-task, 1-based.
        subtask: usize,
    },
    /// A sub-task uses a tool GGS blocked for this task.
    BlockedTool {
        /// The sub-task, 1-based.
        subtask: usize,
        /// The blocked tool.
        tool: ToolRef,
    },
    /// A sub-task uses a tool this computer does not have.
    UnavailableTool {
        /// The sub-task, 1-based.
        subtask: usize,
        /// The missing tool.
        tool: ToolName,
    },
    /// A sub-task names a target that failed earlier in the task.
    BlockedTarget {
        /// The sub-task, 1-based.
        subtask: usize,
        /// The blocked target.
        target: String,
    },
    /// A sub-task relies on a third-party program that is usually not installed.
    ThirdPartyCli {
        /// The sub-task, 1-based.
        subtask: usize,
        /// The program.
        program: String,
    },
    /// A replan repeats the plan it replaces: the same sub-tasks, intents and tools.
    RepeatedPlan,
    /// Under break_symmetry, the plan uses the same tool set as the previous one.
    RepeatedToolSet {
        /// That tool set.
        tools: Vec<ToolName>,
    },
    /// A criterion copied from the prompt's example (`subtask` 0 = a task criterion).
    CopiedExample {
        /// The sub-task, 1-based; 0 for a task criterion.
        subtask: usize,
    },
    /// What the request states exactly (numbers, extensions, quoted text) that no
    /// sub-task or criterion carries.
    DroppedTerms {
        /// Those terms, as the request writes them.
        terms: Vec<String>,
    },
    /// A sub-task's context states a value that nothing shown to the planner states: a
    /// value of the data, guessed before anything was read ("Temperature in Fahrenheit:
    /// 350" for a recipe that says 428).
    UnstatedValue {
        /// The sub-task, 1-based.
        subtask: usize,
        /// The value, as written.
        value: String,
    },
    /// A criterion that no tool output can confirm ("the task is done").
    VagueCriterion {
        /// The sub-task, 1-based; 0 for a task criterion.
        subtask: usize,
        /// The criterion's text.
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
            Violation::DroppedTerms { terms } => write!(
                f,
                "the request states {}, which no sub-task carries: the plan leaves out the part \
                 of the request {} belongs to; put {} in the intent of the sub-task that uses {}",
                terms.join(", "),
                if terms.len() == 1 { "it" } else { "each" },
                if terms.len() == 1 { "it" } else { "them" },
                if terms.len() == 1 { "it" } else { "them" },
            ),
            Violation::UnstatedValue { subtask, value } => write!(
                f,
                "sub-task {subtask}'s context states {value}, which neither the request nor \
                 anything shown with it states: a value the files hold is read by the \
                 executor, not written in the plan; say where to read it"
            ),
            Violation::RepeatedPlan => write!(
                f,
                "the plan repeats the previous plan, which failed: change what failed (another tool, another parameter, a look at the data first)"
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
    for (subtask, value) in unstated_values(draft, rules) {
        out.push(Violation::UnstatedValue { subtask, value });
    }
    let dropped = dropped_terms(draft, rules.request);
    if !draft.subtasks.is_empty() && !dropped.is_empty() {
        out.push(Violation::DroppedTerms { terms: dropped });
    }
    if let Some(previous) = rules.replaces
        && repeats(draft, previous.subtasks)
    {
        out.push(Violation::RepeatedPlan);
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

/// What `request` states exactly that no sub-task's intent or context and no criterion
/// of the plan holds: numbers (a token of digits, with `.`, `,`, `:`, `-` or a trailing
/// `%` inside: 45, 2.5, 1,000, 2026-03-10, 30%), file extensions (`.log`, held as `.log`
/// or as the word `log`) and quoted text ("urgent", held case ignored). A token with
/// letters or a path in it (`mp3`, `2nd`, `~/2024/`) is a name, not a stated number. A
/// plan that drops one drops the part of the request it belongs to — a count of "the
/// .log files above 1 KB" planned as a count of the files above 1 KB.
pub fn dropped_terms(draft: &PlanDraft, request: &str) -> Vec<String> {
    let mut plan = String::new();
    let criteria = draft
        .task_criteria
        .iter()
        .chain(draft.subtasks.iter().flat_map(|s| &s.success_criteria));
    for c in criteria {
        plan.push_str(&c.criterion);
        plan.push('\n');
    }
    for s in &draft.subtasks {
        plan.push_str(&s.intent);
        plan.push('\n');
        plan.push_str(&s.context);
        plan.push('\n');
    }
    let lower_plan = plan.to_lowercase();
    let mut out: Vec<String> = Vec::new();
    let mut note = |term: String, held: bool| {
        if !held && !out.contains(&term) {
            out.push(term);
        }
    };
    for token in request.split_whitespace() {
        let token = token.trim_matches(|c: char| {
            matches!(
                c,
                ',' | ';' | ':' | '!' | '?' | '"' | '\'' | '(' | ')' | '[' | ']' | '“' | '”'
            )
        });
        if let Some(ext) = token.trim_end_matches('.').strip_prefix('.')
            && (1..=6).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
        {
            let ext = ext.to_lowercase();
            let held = lower_plan.contains(&format!(".{ext}"))
                || lower_plan
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| w == ext);
            note(format!(".{ext}"), held);
            continue;
        }
        let token = token.trim_matches('.');
        let number = token.strip_suffix('%').unwrap_or(token);
        let numeric = number.chars().any(|c| c.is_ascii_digit())
            && number
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | ':' | '-'));
        if numeric {
            let bare = number.replace(',', "");
            let held = holds_number(&plan, number) || holds_number(&plan, &bare);
            note(number.to_string(), held);
        }
    }
    for quoted in quoted_texts(request) {
        let held = lower_plan.contains(&quoted.to_lowercase());
        note(format!("\"{quoted}\""), held);
    }
    out
}

/// The texts `request` puts in quotes ("…", “…”, or '…' not inside a word), trimmed,
/// of one to 60 characters.
fn quoted_texts(request: &str) -> Vec<String> {
    let chars: Vec<char> = request.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let close = match chars[i] {
            '"' => Some('"'),
            '“' => Some('”'),
            '\'' if i == 0 || !chars[i - 1].is_alphanumeric() => Some('\''),
            _ => None,
        };
        if let Some(close) = close
            && let Some(len) = chars[i + 1..].iter().position(|c| *c == close)
        {
            let text: String = chars[i + 1..i + 1 + len].iter().collect();
            let text = text.trim();
            if (1..=60).contains(&text.chars().count()) {
                out.push(text.to_string());
            }
            i += len + 2;
            continue;
        }
        i += 1;
    }
    out
}

/// `text` holds `number` with no digit (or decimal point and digit) right before or
/// after it.
fn holds_number(text: &str, number: &str) -> bool {
    text.match_indices(number).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let mut after = text[at + number.len()..].chars();
        let next = after.next();
        let decimal_tail = next == Some('.') && after.next().is_some_and(|c| c.is_ascii_digit());
        !before.is_some_and(|c| c.is_ascii_digit())
            && !next.is_some_and(|c| c.is_ascii_digit())
            && !decimal_tail
    })
}

/// Whether `draft` is `previous` again: the same sub-tasks in the same sequences, with
/// the same intents and contexts (up to case and spacing) and the same tools. A replan
/// exists to change what failed — the method, a parameter, a path; one that changes
/// nothing the validator can see would fail again.
fn repeats(draft: &PlanDraft, previous: &[DraftSubTask]) -> bool {
    let fold = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let set = |t: &[ToolName]| t.iter().copied().collect::<BTreeSet<_>>();
    draft.subtasks.len() == previous.len()
        && draft.subtasks.iter().zip(previous).all(|(now, was)| {
            now.sequence == was.sequence
                && fold(&now.intent) == fold(&was.intent)
                && fold(&now.context) == fold(&was.context)
                && set(&now.tools) == set(&was.tools)
        })
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
        let name = blocked.as_str().trim();
        if name.is_empty() {
            continue;
        }
        let declared = s.tools.iter().any(|t| blocked == t);
        if (declared || mentions_tool(&prose, blocked)) && blocked_seen.insert(name.to_lowercase())
        {
            out.push(Violation::BlockedTool {
                subtask: n,
                tool: blocked.clone(),
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

/// The numbers written in `text` as values: tokens of digits (with `.` or `,` inside,
/// a `%` after), not part of a path, a date, a time or a name.
fn values_in(text: &str) -> Vec<(String, f64)> {
    text.split_whitespace()
        .filter(|t| !t.contains(['/', '~', '-', ':', '_']))
        .filter_map(|t| {
            let t = t.trim_matches(|c: char| {
                matches!(
                    c,
                    ',' | ';' | '!' | '?' | '"' | '\'' | '(' | ')' | '[' | ']' | '.'
                )
            });
            let t = t.strip_suffix('%').unwrap_or(t);
            let numeric = t.chars().any(|c| c.is_ascii_digit())
                && t.chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, '.' | ','));
            let value = t.replace(',', "").parse::<f64>().ok()?;
            numeric.then(|| (t.to_string(), value))
        })
        .collect()
}

/// Each sub-task's context value (see [`Violation::UnstatedValue`]) that neither the
/// task's words nor what was shown with them state, with its sub-task (1-based).
pub fn unstated_values(draft: &PlanDraft, rules: &PlanRules<'_>) -> Vec<(usize, String)> {
    let known: Vec<f64> = values_in(&format!(
        "{}\n{}\n{}",
        rules.task, rules.request, rules.shown
    ))
    .into_iter()
    .map(|(_, v)| v)
    .collect();
    let mut out = Vec::new();
    for (i, s) in draft.subtasks.iter().enumerate() {
        for (written, value) in values_in(&s.context) {
            if !known.contains(&value) && !out.contains(&(i + 1, written.clone())) {
                out.push((i + 1, written));
            }
        }
    }
    out
}

/// A plan the model could not fix itself, mended by code where the fix cannot change
/// what the plan does: criteria that copy the example or check nothing are dropped (a
/// sub-task left without one gets a plausible criterion that its output answers its
/// intent), an empty intent takes the task's, a sub-task without tools gets the shell,
/// tools this computer lacks are dropped, and where the plan dropped a term the request
/// states exactly, the last step's intent carries the request in full. Violations of MUST NOT rules (blocked
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
                check: None,
            });
        }
        s.tools.retain(|t| t.is_available());
        if s.tools.is_empty() {
            s.tools.push(ToolName::Shell);
        }
    }
    out.task_criteria.retain(keep);
    // A value nothing stated, in a context: its line goes (the executor reads the value).
    for (n, value) in unstated_values(&out.clone(), rules) {
        let s = &mut out.subtasks[n - 1];
        s.context = s
            .context
            .lines()
            .filter(|l| !values_in(l).iter().any(|(w, _)| *w == value))
            .collect::<Vec<_>>()
            .join("\n");
    }
    // What the request states that the plan dropped: the last step is told the request
    // in full, so the part it belongs to is not lost.
    if !dropped_terms(&out, rules.request).is_empty()
        && let Some(last) = out.subtasks.iter_mut().max_by_key(|s| s.sequence)
    {
        last.intent = format!(
            "{} — then what the request asks: {}",
            last.intent.trim_end(),
            rules.request.trim()
        );
    }
    // A replan the model could only repeat: each sub-task is told what failed, which is
    // the change the executor can act on (and the validator sees).
    if let Some(previous) = rules.replaces
        && repeats(&out, previous.subtasks)
    {
        for s in &mut out.subtasks {
            let why = previous.why.trim();
            let why = if why.is_empty() {
                "its result was rejected"
            } else {
                why
            };
            s.context = format!(
                "{}\n{} ({why}): look at the data first and change the call that failed.",
                s.context.trim_end(),
                crate::contracts::FAILED_BEFORE_NOTE,
            )
            .trim_start()
            .to_string();
        }
    }
    out
}
