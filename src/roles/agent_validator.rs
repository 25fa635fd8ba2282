//! R4a Agent-Validator: the sensor and controller of the fast loop. It judges each of
//! R3's attempts at a sub-task against the sub-task's success criteria and either asks
//! for a correction or closes the sub-task.
//!
//! - `SubTask` from the dispatcher opens a sub-task (criteria, intent, context). If no
//!   `ExecutionResult` follows within the attempt timeout (the executor went silent), the
//!   sub-task is closed as an environmental failure, so nothing downstream waits forever.
//! - `ExecutionResult` is a request from R3. The code fails the sub-task at once, with no
//!   model call and no retry, when R3 reports `failed` or a tool call ended in an
//!   infrastructure error (timeout, cancellation, network). Otherwise one tool-tier model
//!   call judges every criterion — pass/fail, logical|environmental, evidence — under the
//!   evidence-grounding rule: `tool_calls` (structured [`ToolCallRecord`]s) are the ground
//!   truth, R3's output prose is a claim, a post-hoc `ls`/`stat` proves nothing, an empty
//!   result of a search that really ran is an answer, and a Law 1 denial is an honest
//!   environmental failure.
//! - The code, not the model, decides: matched ⇔ every criterion passed. A failed
//!   judgement gets a `CorrectionSignal` reply (what was wrong, what to do, calls to
//!   avoid) while corrections remain (`Config.budgets.max_retries`) and no Law 1 denial is
//!   involved — a denial is never retried, so the denied action is not sought another
//!   way. Otherwise the sub-task closes: a `SubTaskClosed` reply to R3 and a
//!   `SubTaskOutcome` to R4b carrying a gap-trajectory point per attempt, the final
//!   verdicts (with each criterion's mode) and the tool calls of every attempt.
//! - A model error: environmental ones (timeout, unreachable, rate limit …) fail the
//!   sub-task at once as infrastructure; a verdict still unusable after the model
//!   layer's re-ask fails it as a "scoring error" without a class. Never a hang.
//! - `TaskCancelled` drops the task's sub-tasks and cancels their model calls; nothing
//!   more is published for them.
//!
//! **Invariant:** every sub-task R4a opens is closed exactly once — one `SubTaskOutcome`
//! to R4b and a `SubTaskClosed` to R3 — unless its task is cancelled, and `matched` is
//! only ever set by the code when every criterion has a passing verdict.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;

use super::dispatcher::sleep_until;
use crate::bus::{Bus, BusHandle, Envelope, Inbox};
use crate::cancel::Cancellations;
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{
    CorrectionSignal, Criterion, CriterionVerdict, EnvelopeId, ExecutionResult, ExecutionStatus,
    FailureClass, GapPoint, Message, MixedFailureClass, Role, SubTask, SubTaskClosed, SubTaskId,
    SubTaskOutcome, SubTaskStatus, TaskId, ToolCallRecord, ToolCallStatus, Verdict,
};
use crate::ggs::grounding;
use crate::llm::{CallCtx, ChatRequest, Llm, LlmError, RoleLlm};
use crate::roles::preamble::{machine_facts, tool_preamble};
use crate::text::first_chars;
use crate::text::{Keep, elide_middle};

/// Characters of R3's output shown to the model.
pub const MAX_CLAIM_CHARS: usize = 4_000;
/// Characters of the sub-task context shown to the model.
pub const MAX_CONTEXT_CHARS: usize = 6_000;
/// Tool calls listed in full in one prompt; beyond it the first and the last are kept.
pub const MAX_CALLS_SHOWN: usize = 40;
/// Calls of a failed attempt named in a correction.
pub const MAX_CALLS_TO_AVOID: usize = 20;
/// Characters of each call's recorded output shown to the model.
pub const CALL_OUTPUT_SHOWN: usize = 600;
/// Closed sub-tasks remembered, to answer a late or repeated request (oldest first out).
pub const CLOSED_REMEMBERED: usize = 4096;

/// Words in a tool error or in R3's account that mark an infrastructure failure: retrying
/// the same sub-task cannot help, so it fails at once. They match the `Display` text of
/// the tools' timeout/cancel/network errors and of [`LlmError`]'s environmental variants.
pub const INFRASTRUCTURE_MARKERS: &[&str] = &[
    "timed out",
    "timeout",
    "deadline exceeded",
    "did not answer within",
    "cancelled",
    "canceled",
    "network",
    "connection refused",
    "connection reset",
    "could not resolve",
    "cannot reach",
    "unreachable",
    "search unavailable",
    "rate-limiting",
    "rate limit",
];

/// The date line every validator prompt opens with, in the user's local time zone.
pub fn today_line(now: DateTime<Utc>) -> String {
    let local = now.with_timezone(&chrono::Local);
    format!(
        "Today's date: {} ({}), local time {} (UTC{}).",
        local.format("%Y-%m-%d"),
        local.format("%A"),
        local.format("%H:%M"),
        local.format("%:z")
    )
}

fn has_infrastructure_marker(text: &str) -> bool {
    let lower = text.to_lowercase();
    INFRASTRUCTURE_MARKERS.iter().any(|m| lower.contains(m))
}

/// A failure decided by the code before (or instead of) a model verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct ImmediateFailure {
    pub reason: String,
    pub class: FailureClass,
}

/// The rule checked before any model call: R3 reported `failed`, or a tool call hit an
/// infrastructure error. Either way the attempt is over and a retry cannot help.
pub fn precheck(result: &ExecutionResult) -> Option<ImmediateFailure> {
    if result.status == ExecutionStatus::Failed {
        let class = if has_infrastructure_marker(&result.output)
            || result.tool_calls.iter().any(|c| {
                c.status == ToolCallStatus::Denied
                    || c.error.as_deref().is_some_and(has_infrastructure_marker)
            })
            || (!result.tool_calls.is_empty() && result.tool_calls.iter().all(|c| c.failed()))
        {
            FailureClass::Environmental
        } else {
            FailureClass::Logical
        };
        return Some(ImmediateFailure {
            reason: format!(
                "the executor reported failure: {}",
                first_chars(result.output.trim(), 300)
            ),
            class,
        });
    }
    result
        .tool_calls
        .iter()
        .find(|c| {
            c.status == ToolCallStatus::Error
                && c.error.as_deref().is_some_and(has_infrastructure_marker)
        })
        .map(|c| ImmediateFailure {
            reason: format!(
                "infrastructure error in {} ({}): {}",
                c.tool,
                first_chars(&c.target, 120),
                first_chars(c.error.as_deref().unwrap_or_default(), 200)
            ),
            class: FailureClass::Environmental,
        })
}

/// Calls the user (or the confirmation timeout) refused under Law 1.
fn denied_calls(calls: &[ToolCallRecord]) -> Vec<&ToolCallRecord> {
    calls
        .iter()
        .filter(|c| c.status == ToolCallStatus::Denied)
        .collect()
}

// ---------------------------------------------------------------------------------------
// What the model returns. Property order in the schema is alphabetical, so the fields the
// model must think through (evidence) sort before the verdict (met).
// ---------------------------------------------------------------------------------------

// Why an unmet criterion is unmet. The variants carry no doc comments on purpose: they
// would become schema descriptions, and small models copy those into their answers as if
// they were criteria (the system prompt explains the two causes instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnmetCause {
    // The approach, the command or the output is wrong.
    Logical,
    // The environment blocked it: missing file or path, permission denied, network,
    // timeout, a missing program, or the user denied the action under Law 1.
    Environmental,
}

impl From<UnmetCause> for FailureClass {
    fn from(value: UnmetCause) -> Self {
        match value {
            UnmetCause::Logical => FailureClass::Logical,
            UnmetCause::Environmental => FailureClass::Environmental,
        }
    }
}

/// One criterion, judged once.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct CriterionJudgement {
    /// The criterion, copied verbatim.
    pub criterion: String,
    /// The call number and the few words of its output that decide it (like: [1]
    /// printed 2); one short line, never the whole call.
    pub evidence: String,
    /// True only when the evidence positively shows the criterion holds.
    pub met: bool,
    /// For an unmet criterion: "environmental" or "logical"; null when met.
    #[serde(default)]
    pub unmet_cause: Option<UnmetCause>,
}

/// R4a's answer about one attempt.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct Judgement {
    /// One entry per success criterion, in the order given.
    pub criteria: Vec<CriterionJudgement>,
    /// If any criterion is unmet: what was wrong, quoting the evidence. Empty otherwise.
    #[serde(default)]
    pub diagnosis: String,
    /// If any criterion is unmet: what the executor must do differently on its next
    /// attempt. Empty otherwise.
    #[serde(default)]
    pub remedy: String,
}

fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether a judgement names this criterion: the same words, or (for longer texts) one
/// containing the other, since models copy criteria with small slips.
fn names_criterion(judged: &str, criterion: &str) -> bool {
    let (j, c) = (normalise(judged), normalise(criterion));
    j == c || (j.len() >= 12 && c.len() >= 12 && (j.contains(&c) || c.contains(&j)))
}

/// Which judgement answers each criterion, or why the reply cannot be used.
///
/// A criterion is answered by the judgement that names it; if several do, an unmet one
/// wins (a criterion judged both ways is not proven). When the reply has exactly one
/// entry per criterion, an entry that names no criterion answers the criterion at its
/// position. Extra entries that name no criterion are ignored. A criterion marked met
/// must come with evidence.
pub fn align_judgements<'a>(
    criteria: &[Criterion],
    judged: &'a [CriterionJudgement],
) -> Result<Vec<&'a CriterionJudgement>, String> {
    let mut used = vec![false; judged.len()];
    let mut chosen: Vec<Option<usize>> = criteria
        .iter()
        .map(|c| {
            let named: Vec<usize> = (0..judged.len())
                .filter(|&i| names_criterion(&judged[i].criterion, &c.criterion))
                .collect();
            let pick = named
                .iter()
                .copied()
                .find(|&i| !judged[i].met)
                .or_else(|| named.first().copied());
            for &i in &named {
                used[i] = true;
            }
            pick
        })
        .collect();
    let positional = judged.len() == criteria.len();
    for (pos, slot) in chosen.iter_mut().enumerate() {
        if slot.is_some() {
            continue;
        }
        if !positional {
            return Err(format!(
                "`criteria` must hold one entry per criterion, in the order given ({} \
                 entries); criterion {} (\"{}\") has none",
                criteria.len(),
                pos + 1,
                first_chars(&criteria[pos].criterion, 120)
            ));
        }
        let pick = if used[pos] {
            used.iter().position(|u| !u)
        } else {
            Some(pos)
        };
        let Some(i) = pick else {
            return Err(format!(
                "criterion {} (\"{}\") has no entry of its own in `criteria`",
                pos + 1,
                first_chars(&criteria[pos].criterion, 120)
            ));
        };
        used[i] = true;
        *slot = Some(i);
    }
    let aligned: Vec<&CriterionJudgement> =
        chosen.into_iter().flatten().map(|i| &judged[i]).collect();
    if let Some(pos) = aligned
        .iter()
        .position(|j| j.met && j.evidence.trim().is_empty())
    {
        return Err(format!(
            "criterion {} is marked met without evidence: quote what shows it, or mark it unmet",
            pos + 1
        ));
    }
    Ok(aligned)
}

/// The semantic check of a structured reply: every criterion answered, and none marked
/// met without evidence ([`align_judgements`]).
pub fn check_judgements(
    criteria: &[Criterion],
    judged: &[CriterionJudgement],
) -> Result<(), String> {
    align_judgements(criteria, judged).map(|_| ())
}

/// Criterion verdicts from a checked reply. An unmet criterion without a cause gets
/// `default_class`.
pub fn verdicts_from(
    criteria: &[Criterion],
    judged: &[CriterionJudgement],
    default_class: FailureClass,
) -> Result<Vec<CriterionVerdict>, String> {
    Ok(criteria
        .iter()
        .zip(align_judgements(criteria, judged)?)
        .map(|(c, j)| {
            let mut v = CriterionVerdict::for_criterion(
                c,
                if j.met { Verdict::Pass } else { Verdict::Fail },
            );
            v.evidence = j.evidence.trim().to_string();
            if !j.met {
                v.failure_class = Some(j.unmet_cause.map_or(default_class, FailureClass::from));
            }
            v
        })
        .collect())
}

/// Overrules passes no tool result can back (Law 0; a small model rubber-stamps an
/// executor's claim):
/// - when the attempt called tools and none of the calls grounds anything (all refused,
///   denied, failed, or shell commands that exited with a failure), nothing shows the
///   work done, so no criterion is met, whatever the model judged;
/// - when some call shows something, a count of things on this computer that the report
///   states (`3 files`, a report that is only a number) must be one the outputs show or
///   derive ([`grounding::unshown_counts`]): a small model misreads the lone number `wc`
///   printed, and a validator of the same size passes it;
/// - when the attempt made no call at all, it is judged on its report only if the report
///   states nothing about this computer that the sub-task's own words do not already
///   say: a path, a file name or a count of files, lines or bytes ([`grounding::machine_claims`])
///   can only come from looking, so a report that names one without a call is not
///   matched. A sub-task answerable from its context (arithmetic, rewording) still passes.
pub fn ground_in_calls(
    mut verdicts: Vec<CriterionVerdict>,
    calls: &[ToolCallRecord],
    report: &str,
    given: &[&str],
) -> Vec<CriterionVerdict> {
    if calls.is_empty() {
        let claims = grounding::machine_claims(report, given);
        if claims.is_empty() {
            return verdicts;
        }
        for v in verdicts.iter_mut().filter(|v| !v.failed()) {
            v.verdict = Verdict::Fail;
            v.failure_class = Some(FailureClass::Logical);
            v.evidence = format!(
                "the attempt made no tool call, yet its report states what only a tool could \
                 show about this computer ({}); the model's pass is overruled",
                claims.join(", ")
            );
        }
        return verdicts;
    }
    if calls.iter().any(ToolCallRecord::grounds) {
        let shown: Vec<&ToolCallRecord> = calls.iter().filter(|c| c.grounds()).collect();
        let outputs: Vec<&str> = shown.iter().map(|c| c.output_head.as_str()).collect();
        let inputs: Vec<String> = shown.iter().map(|c| c.input.to_string()).collect();
        let mut words: Vec<&str> = shown.iter().map(|c| c.target.as_str()).collect();
        words.extend(inputs.iter().map(String::as_str));
        words.extend_from_slice(given);
        let counts = grounding::unshown_counts(report, &outputs, &words);
        if counts.is_empty() {
            return verdicts;
        }
        let printed = shown
            .iter()
            .rev()
            .find(|c| !c.output_head.trim().is_empty())
            .map(|c| {
                format!(
                    "; `{}` printed: {}",
                    first_chars(&c.target, 80),
                    first_chars(c.output_head.trim(), 120)
                )
            })
            .unwrap_or_default();
        for v in verdicts.iter_mut().filter(|v| !v.failed()) {
            v.verdict = Verdict::Fail;
            v.failure_class = Some(FailureClass::Logical);
            v.evidence = format!(
                "the report states {}, which no tool output shows{printed}; the model's pass is \
                 overruled",
                counts.join(", ")
            );
        }
        return verdicts;
    }
    let class = if calls
        .iter()
        .any(|c| matches!(c.status, ToolCallStatus::Error | ToolCallStatus::Denied))
    {
        FailureClass::Environmental
    } else {
        FailureClass::Logical
    };
    for v in verdicts.iter_mut().filter(|v| !v.failed()) {
        v.verdict = Verdict::Fail;
        v.failure_class = Some(class);
        v.evidence = format!(
            "no tool call of this attempt succeeded ({} refused, denied or failed), so no \
             tool result shows this; the model's pass is overruled",
            calls.len()
        );
    }
    verdicts
}

/// The class of one attempt from its failing verdicts.
pub fn attempt_class(verdicts: &[CriterionVerdict]) -> Option<MixedFailureClass> {
    let mut classes = verdicts
        .iter()
        .filter(|v| v.failed())
        .filter_map(|v| v.failure_class);
    let first = classes.next()?;
    Some(if classes.all(|c| c == first) {
        first.into()
    } else {
        MixedFailureClass::Mixed
    })
}

/// A gap-trajectory point for one attempt.
pub fn gap_point(attempt: u32, verdicts: &[CriterionVerdict]) -> GapPoint {
    let total = verdicts.len().max(1);
    let passed = verdicts.iter().filter(|v| !v.failed()).count();
    GapPoint {
        attempt,
        score: passed as f64 / total as f64,
        unmet_criteria: verdicts
            .iter()
            .filter(|v| v.failed())
            .map(|v| v.criterion.clone())
            .collect(),
        failure_class: attempt_class(verdicts),
    }
}

// ---------------------------------------------------------------------------------------
// The prompt
// ---------------------------------------------------------------------------------------

/// R4a's instructions after the shared preamble.
const JUDGE_RULES: &str = "You are R4a, the Agent-Validator. The Executor (R3) attempted \
one sub-task with tools. You judge the attempt against each success criterion. You never \
run anything.

Evidence rules:
1. The numbered TOOL CALLS are the ground truth: the tool, its input, how it ended (ok, \
error, denied, refused) and what it printed. What a call printed is what it shows: a \
counting command that printed 2 shows the count is 2, and a command that makes, copies or \
moves files and ended ok (printing nothing) did it. The executor's report is only a claim: \
believe it where a call shows the same thing.
2. A criterion about the computer or the web (files, counts, contents, actions done) is met \
only when a call that ended ok shows it. A criterion about the report's own text (a summary \
of material given in the context) is judged on the report.
3. A call that failed, was cut off or was refused proves nothing. A check made afterwards \
(ls, stat, reading the file back) does not prove that a failed action happened.
4. An empty result is an answer: a search or listing that ran ok and found nothing meets a \
criterion that asks what exists or what was found (the answer is \"none\").
5. DENIED means the user did not allow the action (Law 1): it did not happen. That is an \
environmental failure; never suggest doing it another way.
For each unmet criterion, unmet_cause: \"environmental\" (a missing file or path, permission \
denied, network, timeout, a missing program, a denial) or \"logical\" (the approach, the \
command or the output is wrong). If anything is unmet: diagnosis says what was wrong, quoting \
the evidence; remedy says what the executor must do differently. If everything is met, both \
are empty strings.";

/// R4a's system prompt: the shared preamble, then R4a's rules.
pub fn system_prompt(preamble: &str) -> String {
    format!("{preamble}\n{JUDGE_RULES}")
}

/// A judgement reply's generation cap: a verdict with a short quote per criterion and a
/// diagnosis and remedy when something is unmet.
pub const JUDGE_MAX_TOKENS: u32 = 600;

fn status_line(call: &ToolCallRecord) -> String {
    let error = call.error.as_deref().map(|e| first_chars(e, 300));
    match call.status {
        ToolCallStatus::Ok => {
            let approved = if call.confirmation.is_some() {
                ", approved by the user under Law 1"
            } else {
                ""
            };
            match call.failed_exit {
                Some(code) => format!(
                    "ran but FAILED with exit status {code}{approved}; its output proves \
                     nothing, {} ms",
                    call.duration_ms
                ),
                None => format!("ok{approved}, {} ms", call.duration_ms),
            }
        }
        ToolCallStatus::Error => format!("ERROR: {}", error.unwrap_or_default()),
        ToolCallStatus::Denied => format!(
            "DENIED under Law 1 — the action did not run{}",
            error.map(|e| format!(": {e}")).unwrap_or_default()
        ),
        ToolCallStatus::Refused => format!(
            "REFUSED before running{}",
            error.map(|e| format!(": {e}")).unwrap_or_default()
        ),
    }
}

/// A call's input as a person reads it: the command, path, pattern or query itself when
/// the input is that one string (with the other parameters after it), else its JSON.
fn input_text(call: &ToolCallRecord) -> String {
    let Value::Object(map) = &call.input else {
        return call.target.clone();
    };
    let main = ["command", "path", "pattern", "query", "script", "name"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str).map(|v| (*k, v)));
    match main {
        Some((key, value)) => {
            let rest: Vec<String> = map
                .iter()
                .filter(|(k, v)| k.as_str() != key && !v.is_null())
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            if rest.is_empty() {
                value.to_string()
            } else {
                format!("{value} ({})", rest.join(", "))
            }
        }
        None => call.input.to_string(),
    }
}

fn render_call(out: &mut String, n: usize, call: &ToolCallRecord) {
    let _ = writeln!(
        out,
        "[{n}] {}: {} — {}",
        call.tool,
        first_chars(&input_text(call), 400),
        status_line(call)
    );
    if call.status == ToolCallStatus::Ok || !call.output_head.is_empty() {
        let head = if call.output_head.trim().is_empty() {
            "(nothing)".to_string()
        } else {
            first_chars(call.output_head.trim_end(), CALL_OUTPUT_SHOWN)
        };
        let _ = writeln!(out, "    it printed:\n{}", indent(&head));
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The numbered tool calls of one attempt.
pub fn render_calls(calls: &[ToolCallRecord]) -> String {
    if calls.is_empty() {
        return "(none: no tool ran in this attempt)\n".to_string();
    }
    let mut out = String::new();
    let keep_head = MAX_CALLS_SHOWN / 4;
    let keep_tail = MAX_CALLS_SHOWN - keep_head;
    for (i, call) in calls.iter().enumerate() {
        if calls.len() > MAX_CALLS_SHOWN && i == keep_head {
            let _ = writeln!(
                out,
                "… {} calls not shown …",
                calls.len() - keep_head - keep_tail
            );
        }
        if calls.len() <= MAX_CALLS_SHOWN || i < keep_head || i >= calls.len() - keep_tail {
            render_call(&mut out, i + 1, call);
        }
    }
    out
}

/// The start of a reply with every criterion copied in: small models follow a shape
/// they are shown far better than a schema.
pub fn reply_skeleton(criteria: &[Criterion]) -> String {
    let entries: Vec<Value> = criteria
        .iter()
        .map(|c| {
            serde_json::json!({
                "criterion": c.criterion.trim(),
                "evidence": "…",
                "met": "true or false",
                "unmet_cause": "null, \"logical\" or \"environmental\"",
            })
        })
        .collect();
    serde_json::json!({ "criteria": entries }).to_string()
}

/// The user turn for judging one attempt.
pub fn judgement_prompt(
    now: DateTime<Utc>,
    subtask: &SubTask,
    criteria: &[Criterion],
    result: &ExecutionResult,
    attempt: u32,
    max_attempts: u32,
    previous_correction: Option<&str>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Local time: {}\n",
        now.with_timezone(&chrono::Local).format("%H:%M")
    );
    let _ = writeln!(out, "SUB-TASK: {}", subtask.intent.trim());
    if !subtask.context.trim().is_empty() {
        let _ = writeln!(
            out,
            "Context the executor was given:\n{}",
            elide_middle(subtask.context.trim(), MAX_CONTEXT_CHARS, Keep::Balanced)
        );
    }
    let _ = writeln!(out, "\nSUCCESS CRITERIA:");
    for (i, c) in criteria.iter().enumerate() {
        let _ = writeln!(out, "{}. {}", i + 1, c.criterion.trim());
    }
    let _ = writeln!(out, "\nATTEMPT {attempt} of at most {max_attempts}.");
    if let Some(previous) = previous_correction {
        let _ = writeln!(
            out,
            "The previous attempt was corrected because: {}",
            first_chars(previous, 400)
        );
    }
    let _ = writeln!(out, "\nTOOL CALLS (ground truth):");
    out.push_str(&render_calls(&result.tool_calls));
    let status = match result.status {
        ExecutionStatus::Completed => "completed",
        ExecutionStatus::Uncertain => "uncertain",
        ExecutionStatus::Failed => "failed",
    };
    let claim = if result.output.trim().is_empty() {
        "(empty)".to_string()
    } else {
        elide_middle(result.output.trim(), MAX_CLAIM_CHARS, Keep::Balanced)
    };
    let _ = writeln!(
        out,
        "\nEXECUTOR'S REPORT (a claim, not evidence) — status {status}:\n{claim}"
    );
    let _ = write!(
        out,
        "\nJudge the success criteria, not the tool calls: `criteria` holds exactly {n} \
         {entries}, one per success criterion above, in that order, shaped like this:\n{}",
        reply_skeleton(criteria),
        n = criteria.len(),
        entries = if criteria.len() == 1 {
            "entry"
        } else {
            "entries"
        },
    );
    out
}

// ---------------------------------------------------------------------------------------
// The role
// ---------------------------------------------------------------------------------------

/// One `ExecutionResult` request waiting for an answer.
struct Request {
    id: EnvelopeId,
    from: Role,
    result: ExecutionResult,
}

enum Phase {
    /// Waiting for R3's next attempt, at most until the deadline.
    Awaiting { deadline: Instant },
    /// The model is judging this request.
    Judging {
        request: Request,
        abort: AbortHandle,
    },
}

/// One open sub-task.
struct Track {
    subtask: SubTask,
    criteria: Vec<Criterion>,
    points: Vec<GapPoint>,
    calls: Vec<ToolCallRecord>,
    last_correction: Option<String>,
    phase: Phase,
    queued: VecDeque<Request>,
}

impl Track {
    fn task(&self) -> &TaskId {
        &self.subtask.parent_task_id
    }

    fn attempts(&self) -> u32 {
        u32::try_from(self.points.len()).unwrap_or(u32::MAX)
    }

    /// Records the next attempt as failed on every criterion for one reason (no model
    /// verdict was possible or needed) and returns how the sub-task closes.
    fn fail_attempt(&mut self, reason: String, class: Option<FailureClass>) -> Closing {
        let verdicts = failing_verdicts(&self.criteria, &reason, class);
        self.points.push(gap_point(self.attempts() + 1, &verdicts));
        Closing::failed(reason, verdicts)
    }
}

/// How a sub-task ends.
struct Closing {
    status: SubTaskStatus,
    output: Value,
    reason: Option<String>,
    verdicts: Vec<CriterionVerdict>,
}

impl Closing {
    /// A failed sub-task: no output travels on (an unvalidated claim is not data).
    fn failed(reason: String, verdicts: Vec<CriterionVerdict>) -> Self {
        Self {
            status: SubTaskStatus::Failed,
            output: Value::Null,
            reason: Some(reason),
            verdicts,
        }
    }
}

type Judged = (SubTaskId, Result<Judgement, LlmError>);

/// Bounded memory of closed sub-tasks and cancelled tasks.
#[derive(Default)]
struct Closed {
    order: VecDeque<SubTaskId>,
    by_id: HashMap<SubTaskId, SubTaskClosed>,
    cancelled: VecDeque<TaskId>,
}

impl Closed {
    fn remember(&mut self, closed: SubTaskClosed) {
        if self
            .by_id
            .insert(closed.subtask_id, closed.clone())
            .is_none()
        {
            self.order.push_back(closed.subtask_id);
        }
        while self.order.len() > CLOSED_REMEMBERED {
            if let Some(old) = self.order.pop_front() {
                self.by_id.remove(&old);
            }
        }
    }

    fn cancel(&mut self, task: TaskId) {
        if !self.cancelled.contains(&task) {
            self.cancelled.push_back(task);
        }
        while self.cancelled.len() > CLOSED_REMEMBERED {
            self.cancelled.pop_front();
        }
    }
}

/// R4a wired to the bus.
pub struct AgentValidator {
    bus: BusHandle,
    inbox: Inbox,
    llm: RoleLlm,
    cancellations: Cancellations,
    clock: SharedClock,
    max_retries: u32,
    attempt_timeout: Duration,
    tracks: HashMap<SubTaskId, Track>,
    closed: Closed,
    judging: JoinSet<Judged>,
    home: PathBuf,
    workspace: PathBuf,
}

impl AgentValidator {
    /// Subscribes now, so nothing addressed to R4a after this call is missed. An attempt
    /// the executor never reports on is closed after the task's whole time budget
    /// (`Config.budgets.time_budget_ms`).
    pub fn new(
        config: &Config,
        bus: &Bus,
        llm: &Llm,
        cancellations: Cancellations,
        clock: SharedClock,
    ) -> Self {
        let handle = bus.handle(Role::AgentValidator);
        Self {
            llm: llm
                .for_role(handle.clone())
                .expect("R4a runs on the tool tier"),
            bus: handle,
            inbox: bus.subscribe(Role::AgentValidator),
            cancellations,
            clock,
            max_retries: config.budgets.max_retries,
            attempt_timeout: Duration::from_millis(config.budgets.time_budget_ms),
            tracks: HashMap::new(),
            closed: Closed::default(),
            judging: JoinSet::new(),
            home: config.home.clone(),
            workspace: config.workspace.clone(),
        }
    }

    /// Overrides how long R4a waits for an attempt before closing the sub-task.
    pub fn with_attempt_timeout(mut self, timeout: Duration) -> Self {
        self.attempt_timeout = timeout;
        self
    }

    /// Runs [`AgentValidator::run`] on the current tokio runtime.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run())
    }

    /// Serves until the bus closes; model calls still running then are aborted.
    pub async fn run(mut self) {
        loop {
            let deadline = self.next_deadline();
            tokio::select! {
                env = self.inbox.recv() => match env {
                    Some(env) => self.on_envelope(&env),
                    None => break,
                },
                Some(joined) = self.judging.join_next(), if !self.judging.is_empty() => {
                    match joined {
                        Ok((id, judged)) => self.on_judged(id, judged),
                        Err(e) if e.is_cancelled() => {}
                        Err(e) => tracing::error!(error = %e, "an R4a judgement task failed"),
                    }
                }
                () = sleep_until(deadline), if deadline.is_some() => self.on_deadlines(),
            }
        }
        self.judging.abort_all();
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.tracks
            .values()
            .filter_map(|t| match t.phase {
                Phase::Awaiting { deadline } => Some(deadline),
                Phase::Judging { .. } => None,
            })
            .min()
    }

    fn is_cancelled(&self, task: &TaskId) -> bool {
        self.closed.cancelled.contains(task) || self.cancellations.is_cancelled(task)
    }

    fn on_envelope(&mut self, env: &Arc<Envelope>) {
        match &env.message {
            Message::TaskCancelled(c) => self.cancel(&c.task_id),
            Message::SubTask(s) if env.from == Role::Dispatcher => self.open(s),
            Message::ExecutionResult(r) if env.from == Role::Executor => self.on_result(Request {
                id: env.id,
                from: env.from,
                result: r.clone(),
            }),
            other => tracing::warn!(from = %env.from, kind = other.kind().name(),
                "R4a ignores a message it has no contract for"),
        }
    }

    fn cancel(&mut self, task: &TaskId) {
        self.cancellations.cancel(task);
        self.closed.cancel(task.clone());
        self.tracks.retain(|_, t| {
            if t.task() != task {
                return true;
            }
            if let Phase::Judging { abort, .. } = &t.phase {
                abort.abort();
            }
            false
        });
    }

    fn open(&mut self, subtask: &SubTask) {
        if self.is_cancelled(&subtask.parent_task_id) {
            return;
        }
        if self.tracks.contains_key(&subtask.subtask_id)
            || self.closed.by_id.contains_key(&subtask.subtask_id)
        {
            tracing::warn!(subtask = %subtask.subtask_id, "a sub-task was opened twice; the first is kept");
            return;
        }
        self.tracks.insert(
            subtask.subtask_id,
            Track {
                criteria: subtask.criteria_to_judge(),
                subtask: subtask.clone(),
                points: Vec::new(),
                calls: Vec::new(),
                last_correction: None,
                phase: Phase::Awaiting {
                    deadline: Instant::now() + self.attempt_timeout,
                },
                queued: VecDeque::new(),
            },
        );
    }

    fn on_result(&mut self, request: Request) {
        let id = request.result.subtask_id;
        let task = request.result.parent_task_id.clone();
        if self.is_cancelled(&task) {
            return;
        }
        if let Some(closed) = self.closed.by_id.get(&id) {
            // A repeated or late request gets the answer the sub-task closed with.
            self.bus.reply(request.from, request.id, closed.clone());
            return;
        }
        let Some(track) = self.tracks.get_mut(&id) else {
            return self.close_unknown(request);
        };
        if matches!(track.phase, Phase::Judging { .. }) {
            track.queued.push_back(request);
            return;
        }
        self.judge(id, request);
    }

    /// A result for a sub-task the dispatcher never opened: it cannot be judged without
    /// criteria, so it fails honestly instead of waiting.
    fn close_unknown(&mut self, request: Request) {
        let r = &request.result;
        tracing::warn!(subtask = %r.subtask_id, "a result arrived for a sub-task R4a never received");
        let reason = "the validator never received this sub-task or its criteria from the \
                      dispatcher, so the result could not be judged";
        let outcome = SubTaskOutcome {
            subtask_id: r.subtask_id,
            parent_task_id: r.parent_task_id.clone(),
            status: SubTaskStatus::Failed,
            output: Value::Null,
            failure_reason: Some(reason.to_string()),
            gap_trajectory: vec![GapPoint {
                attempt: 1,
                score: 0.0,
                unmet_criteria: vec![],
                failure_class: None,
            }],
            criteria_verdicts: vec![],
            tool_calls: r.tool_calls.clone(),
        };
        let closed = SubTaskClosed {
            subtask_id: r.subtask_id,
            parent_task_id: r.parent_task_id.clone(),
            status: SubTaskStatus::Failed,
            output: Value::Null,
        };
        // The close before the outcome, as in `close`.
        self.bus.reply(request.from, request.id, closed.clone());
        self.closed.remember(closed);
        self.bus.publish(Role::MetaValidator, outcome);
    }

    /// Judges one attempt: the code's immediate rules first, then the model.
    fn judge(&mut self, id: SubTaskId, request: Request) {
        let now = self.clock.now();
        let max_attempts = self.max_retries.saturating_add(1);
        let Some(track) = self.tracks.get_mut(&id) else {
            return;
        };
        let attempt = track.attempts() + 1;
        if request.result.attempt != attempt {
            tracing::debug!(subtask = %id, executor = request.result.attempt, validator = attempt,
                "attempt numbers differ; R4a counts its own");
        }
        track
            .calls
            .extend(request.result.tool_calls.iter().cloned());
        if let Some(failure) = precheck(&request.result) {
            let closing = track.fail_attempt(failure.reason, Some(failure.class));
            return self.close(id, closing, Some(request));
        }
        let prompt = judgement_prompt(
            now,
            &track.subtask,
            &track.criteria,
            &request.result,
            attempt,
            max_attempts,
            track.last_correction.as_deref(),
        );
        let chat = ChatRequest::new(system_prompt(tool_preamble()), prompt)
            .facts_first(&machine_facts(&self.home, &self.workspace, now))
            .temperature(0.0)
            .max_tokens(JUDGE_MAX_TOKENS);
        let ctx = CallCtx::for_task(track.task().clone(), self.cancellations.token(track.task()));
        let criteria = track.criteria.clone();
        let llm = self.llm.clone();
        let abort = self.judging.spawn(async move {
            let judged = llm
                .structured_checked::<Judgement, _>(&ctx, &chat, |j| {
                    check_judgements(&criteria, &j.criteria)
                })
                .await
                .map(|s| s.value);
            (id, judged)
        });
        track.phase = Phase::Judging { request, abort };
    }

    fn on_judged(&mut self, id: SubTaskId, judged: Result<Judgement, LlmError>) {
        let Some(track) = self.tracks.get_mut(&id) else {
            return; // cancelled meanwhile
        };
        let Phase::Judging { request, .. } = std::mem::replace(
            &mut track.phase,
            Phase::Awaiting {
                deadline: Instant::now() + self.attempt_timeout,
            },
        ) else {
            return;
        };
        let attempt = track.attempts() + 1;
        let judgement = match judged {
            Ok(j) => j,
            Err(LlmError::Cancelled) => {
                let task = track.task().clone();
                tracing::debug!(subtask = %id, "judgement cancelled with its task");
                return self.cancel(&task);
            }
            Err(e) => {
                let (reason, class) = if e.is_environmental() {
                    (
                        format!(
                            "infrastructure error: the validator's model call failed: {} ({e})",
                            e.plain()
                        ),
                        Some(FailureClass::Environmental),
                    )
                } else {
                    (format!("scoring error: {e}"), None)
                };
                let closing = track.fail_attempt(reason, class);
                return self.close(id, closing, Some(request));
            }
        };
        let calls = &request.result.tool_calls;
        let default_class = if calls
            .iter()
            .any(|c| matches!(c.status, ToolCallStatus::Error | ToolCallStatus::Denied))
        {
            FailureClass::Environmental
        } else {
            FailureClass::Logical
        };
        let verdicts = match verdicts_from(&track.criteria, &judgement.criteria, default_class) {
            Ok(verdicts) => verdicts,
            // The model layer's check already ran this; kept honest if it ever differs.
            Err(problem) => {
                let closing = track.fail_attempt(format!("scoring error: {problem}"), None);
                return self.close(id, closing, Some(request));
            }
        };
        let given = [
            track.subtask.intent.as_str(),
            track.subtask.context.as_str(),
        ];
        let verdicts = ground_in_calls(verdicts, calls, &request.result.output, &given);
        track.points.push(gap_point(attempt, &verdicts));
        let Some(first_unmet) = verdicts.iter().find(|v| v.failed()).cloned() else {
            let output = Value::String(request.result.output.clone());
            return self.close(
                id,
                Closing {
                    status: SubTaskStatus::Matched,
                    output,
                    reason: None,
                    verdicts,
                },
                Some(request),
            );
        };
        let what_was_wrong = if judgement.diagnosis.trim().is_empty() {
            unmet_summary(&verdicts)
        } else {
            judgement.diagnosis.trim().to_string()
        };
        let denied = denied_calls(calls);
        if !denied.is_empty() {
            let reason = format!(
                "Law 1: the user did not allow {} — not retried, so the denied action is not \
                 attempted another way; {}",
                denied
                    .iter()
                    .map(|c| format!("`{}: {}`", c.tool, first_chars(&c.target, 120)))
                    .collect::<Vec<_>>()
                    .join(", "),
                first_chars(&what_was_wrong, 300)
            );
            return self.close(id, Closing::failed(reason, verdicts), Some(request));
        }
        let corrections_made = attempt - 1;
        if corrections_made >= self.max_retries {
            let reason = format!(
                "max retries ({}) reached; last issue: {}",
                self.max_retries,
                first_chars(&what_was_wrong, 400)
            );
            return self.close(id, Closing::failed(reason, verdicts), Some(request));
        }
        let what_to_do = if judgement.remedy.trim().is_empty() {
            format!(
                "Use a different approach whose tool output shows: {}",
                first_unmet.criterion
            )
        } else {
            judgement.remedy.trim().to_string()
        };
        let correction = CorrectionSignal {
            subtask_id: id,
            parent_task_id: track.task().clone(),
            attempt_number: attempt,
            failed_criterion: first_unmet.criterion.clone(),
            failure_class: first_unmet.failure_class.unwrap_or(FailureClass::Logical),
            what_was_wrong: what_was_wrong.clone(),
            what_to_do,
            calls_to_avoid: calls_to_avoid(calls),
        };
        track.last_correction = Some(what_was_wrong);
        self.bus.reply(request.from, request.id, correction);
        self.drain_queue(id);
    }

    /// Handles a request that arrived while the previous one was being judged.
    fn drain_queue(&mut self, id: SubTaskId) {
        let next = self.tracks.get_mut(&id).and_then(|t| t.queued.pop_front());
        if let Some(next) = next {
            self.judge(id, next);
        }
    }

    fn close(&mut self, id: SubTaskId, closing: Closing, request: Option<Request>) {
        let Some(track) = self.tracks.remove(&id) else {
            return;
        };
        let closed = SubTaskClosed {
            subtask_id: id,
            parent_task_id: track.task().clone(),
            status: closing.status,
            output: closing.output.clone(),
        };
        let outcome = SubTaskOutcome {
            subtask_id: id,
            parent_task_id: track.task().clone(),
            status: closing.status,
            output: closing.output,
            failure_reason: closing.reason,
            gap_trajectory: track.points,
            criteria_verdicts: closing.verdicts,
            tool_calls: track.calls,
        };
        match request {
            Some(r) => {
                self.bus.reply(r.from, r.id, closed.clone());
            }
            // Nobody asked (the executor went silent): tell the executor side anyway,
            // so its worker and the dispatcher learn the sub-task is over.
            None => {
                self.bus.publish(Role::Executor, closed.clone());
            }
        }
        for queued in track.queued {
            self.bus.reply(queued.from, queued.id, closed.clone());
        }
        self.closed.remember(closed);
        // The outcome last: it can end the round (R4b → R7 → FinalResult) at once, on
        // another thread, so everything else of the sub-task must already be on the bus.
        // R4b waits for the outcome whatever the executor side does meanwhile.
        self.bus.publish(Role::MetaValidator, outcome);
    }

    fn on_deadlines(&mut self) {
        let now = Instant::now();
        let expired: Vec<SubTaskId> = self
            .tracks
            .iter()
            .filter(|(_, t)| matches!(t.phase, Phase::Awaiting { deadline } if deadline <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in expired {
            let Some(track) = self.tracks.get_mut(&id) else {
                continue;
            };
            let attempt = track.attempts() + 1;
            let reason = format!(
                "the executor sent no result for attempt {attempt} within {}s",
                self.attempt_timeout.as_secs()
            );
            tracing::warn!(subtask = %id, %reason, "sub-task closed without a result");
            let closing = track.fail_attempt(reason, Some(FailureClass::Environmental));
            self.close(id, closing, None);
        }
    }
}

/// Every criterion failed for one reason (no model verdict was possible or needed).
fn failing_verdicts(
    criteria: &[Criterion],
    reason: &str,
    class: Option<FailureClass>,
) -> Vec<CriterionVerdict> {
    criteria
        .iter()
        .map(|c| {
            let mut v = CriterionVerdict::for_criterion(c, Verdict::Fail);
            v.failure_class = class;
            v.evidence = first_chars(reason, 300);
            v
        })
        .collect()
}

fn unmet_summary(verdicts: &[CriterionVerdict]) -> String {
    verdicts
        .iter()
        .filter(|v| v.failed())
        .map(|v| {
            if v.evidence.is_empty() {
                format!("unmet: {}", v.criterion)
            } else {
                format!("unmet: {} ({})", v.criterion, first_chars(&v.evidence, 200))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The calls of a failed attempt the executor must not repeat, once each.
fn calls_to_avoid(calls: &[ToolCallRecord]) -> Vec<ToolCallRecord> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let mut out = Vec::new();
    for c in calls {
        if out.len() >= MAX_CALLS_TO_AVOID {
            break;
        }
        let key = (c.tool.as_str(), c.target.as_str());
        if !seen.contains(&key) {
            seen.push(key);
            out.push(c.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock as _;
    use crate::contracts::CriterionMode;

    fn call(tool: &str, status: ToolCallStatus, error: Option<&str>) -> ToolCallRecord {
        ToolCallRecord {
            tool: tool.into(),
            input: serde_json::json!({"command": "x"}),
            target: "x".into(),
            output_head: String::new(),
            status,
            error: error.map(Into::into),
            duration_ms: 1,
            confirmation: None,
            failed_exit: None,
        }
    }

    #[test]
    fn a_pass_is_overruled_when_every_tool_call_of_the_attempt_failed_or_was_refused() {
        let pass = || {
            vec![CriterionVerdict::for_criterion(
                &Criterion::new("the file is gone"),
                Verdict::Pass,
            )]
        };
        let refused = vec![call("shell", ToolCallStatus::Refused, Some("MUST NOT"))];
        let v = ground_in_calls(pass(), &refused, "", &[]);
        assert!(v[0].failed());
        assert_eq!(v[0].failure_class, Some(FailureClass::Logical));
        let denied = vec![call("shell", ToolCallStatus::Denied, None)];
        assert_eq!(
            ground_in_calls(pass(), &denied, "", &[])[0].failure_class,
            Some(FailureClass::Environmental)
        );
        let one_ok = vec![
            call("shell", ToolCallStatus::Error, Some("exit 1")),
            call("shell", ToolCallStatus::Ok, None),
        ];
        assert!(!ground_in_calls(pass(), &one_ok, "", &[])[0].failed());
        // A command that exited with a failure ran, but shows nothing.
        let mut failed_exit = call("shell", ToolCallStatus::Ok, None);
        failed_exit.failed_exit = Some(2);
        let v = ground_in_calls(pass(), &[failed_exit], "", &[]);
        assert!(v[0].failed(), "{v:?}");
    }

    #[test]
    fn a_count_the_outputs_do_not_show_is_overruled_and_one_they_show_is_not() {
        let pass = || {
            vec![CriterionVerdict::for_criterion(
                &Criterion::new("the output gives the count"),
                Verdict::Pass,
            )]
        };
        let mut wc = call("shell", ToolCallStatus::Ok, None);
        wc.output_head = "2".into();
        let calls = [wc];
        let v = ground_in_calls(pass(), &calls, "3", &["Count the .txt files"]);
        assert!(v[0].failed(), "{v:?}");
        assert!(v[0].evidence.contains("printed: 2"), "{}", v[0].evidence);
        let v = ground_in_calls(pass(), &calls, "There are 2 .txt files", &[]);
        assert!(!v[0].failed(), "{v:?}");
    }

    #[test]
    fn an_attempt_without_calls_passes_only_when_it_claims_nothing_about_the_computer() {
        let pass = || {
            vec![CriterionVerdict::for_criterion(
                &Criterion::new("the output gives the count"),
                Verdict::Pass,
            )]
        };
        let given = ["Count the text files in ~/notes", ""];
        let v = ground_in_calls(pass(), &[], "There are 7 files in ~/notes", &given);
        assert!(v[0].failed(), "{v:?}");
        assert_eq!(v[0].failure_class, Some(FailureClass::Logical));
        assert!(v[0].evidence.contains("7 files"), "{}", v[0].evidence);
        let v = ground_in_calls(pass(), &[], "The largest is movie.mkv", &given);
        assert!(v[0].failed(), "{v:?}");
        let sum = ["Add the figures 12 and 30 given in the context", ""];
        assert!(
            !ground_in_calls(pass(), &[], "12 + 30 = 42", &sum)[0].failed(),
            "arithmetic on the given words needs no tool"
        );
    }

    fn result(
        status: ExecutionStatus,
        calls: Vec<ToolCallRecord>,
        output: &str,
    ) -> ExecutionResult {
        ExecutionResult {
            subtask_id: SubTaskId::mint(),
            parent_task_id: TaskId::mint(),
            status,
            output: output.into(),
            tool_calls: calls,
            attempt: 1,
        }
    }

    fn judged(criterion: &str, met: bool, evidence: &str) -> CriterionJudgement {
        CriterionJudgement {
            criterion: criterion.into(),
            evidence: evidence.into(),
            met,
            unmet_cause: None,
        }
    }

    #[test]
    fn a_failed_execution_fails_at_once_and_its_class_follows_the_evidence() {
        let plain = result(ExecutionStatus::Failed, vec![], "I could not work out how");
        assert_eq!(precheck(&plain).unwrap().class, FailureClass::Logical);
        let net = result(
            ExecutionStatus::Failed,
            vec![],
            "cannot reach the model endpoint http://x: connection refused",
        );
        assert_eq!(precheck(&net).unwrap().class, FailureClass::Environmental);
        let denied = result(
            ExecutionStatus::Failed,
            vec![call("shell", ToolCallStatus::Denied, None)],
            "the user said no",
        );
        assert_eq!(
            precheck(&denied).unwrap().class,
            FailureClass::Environmental
        );
    }

    #[test]
    fn an_infrastructure_tool_error_fails_at_once_but_a_missing_file_does_not() {
        let timeout = result(
            ExecutionStatus::Completed,
            vec![call(
                "shell",
                ToolCallStatus::Error,
                Some("timed out after 30 s; the command and every process it started were stopped"),
            )],
            "done",
        );
        let f = precheck(&timeout).expect("a timeout is infrastructure");
        assert_eq!(f.class, FailureClass::Environmental);
        assert!(f.reason.contains("timed out"), "{}", f.reason);
        let missing = result(
            ExecutionStatus::Completed,
            vec![call(
                "read_file",
                ToolCallStatus::Error,
                Some("No such file or directory"),
            )],
            "done",
        );
        assert_eq!(precheck(&missing), None);
    }

    #[test]
    fn judgements_must_cover_every_criterion_and_ground_every_pass() {
        let one = [Criterion::new("a")];
        let two = [Criterion::new("a"), Criterion::new("b")];
        assert!(check_judgements(&two, &[judged("a", true, "[1] ok")]).is_err());
        assert!(check_judgements(&one, &[judged("a", true, "  ")]).is_err());
        assert!(check_judgements(&one, &[judged("a", false, "")]).is_ok());
    }

    #[test]
    fn judgements_are_aligned_by_text_then_by_position() {
        let criteria = vec![
            Criterion::new("First thing"),
            Criterion::new("Second thing"),
        ];
        let j = vec![
            judged("second   THING", false, "x"),
            judged("garbled", true, "y"),
        ];
        let aligned = align_judgements(&criteria, &j).unwrap();
        assert_eq!(aligned[0].criterion, "garbled");
        assert_eq!(aligned[1].criterion, "second   THING");
    }

    #[test]
    fn extra_entries_are_ignored_and_a_criterion_judged_both_ways_is_unmet() {
        let criteria = vec![Criterion::new("report.pdf was moved into archive/")];
        let j = vec![
            judged("report.pdf was moved into archive/", true, "[2] lists it"),
            judged(
                "report.pdf was moved into archive/.",
                false,
                "[1] mv failed",
            ),
            judged("something the model made up", true, "x"),
        ];
        let aligned = align_judgements(&criteria, &j).unwrap();
        assert!(!aligned[0].met);
        assert_eq!(aligned[0].evidence, "[1] mv failed");
        let missing = vec![judged("unrelated", true, "x"), judged("other", true, "y")];
        assert!(align_judgements(&criteria, &missing).is_err());
    }

    #[test]
    fn verdicts_keep_the_criterion_mode_and_default_the_class() {
        let criteria = vec![Criterion::with_mode("c", CriterionMode::Plausible)];
        let v = verdicts_from(
            &criteria,
            &[judged("c", false, "nothing")],
            FailureClass::Environmental,
        )
        .unwrap();
        assert_eq!(v[0].mode, Some(CriterionMode::Plausible));
        assert_eq!(v[0].verdict, Verdict::Fail);
        assert_eq!(v[0].failure_class, Some(FailureClass::Environmental));
        let point = gap_point(2, &v);
        assert_eq!(point.score, 0.0);
        assert_eq!(point.unmet_criteria, vec!["c".to_string()]);
        assert_eq!(point.failure_class, Some(MixedFailureClass::Environmental));
    }

    #[test]
    fn mixed_failure_classes_make_a_mixed_attempt() {
        let mut a = CriterionVerdict::for_criterion(&Criterion::new("a"), Verdict::Fail);
        a.failure_class = Some(FailureClass::Logical);
        let mut b = CriterionVerdict::for_criterion(&Criterion::new("b"), Verdict::Fail);
        b.failure_class = Some(FailureClass::Environmental);
        let c = CriterionVerdict::for_criterion(&Criterion::new("c"), Verdict::Pass);
        assert_eq!(
            attempt_class(&[a.clone(), b]),
            Some(MixedFailureClass::Mixed)
        );
        assert_eq!(
            attempt_class(&[a, c.clone()]),
            Some(MixedFailureClass::Logical)
        );
        assert_eq!(attempt_class(&[c]), None);
    }

    #[test]
    fn the_prompt_separates_ground_truth_from_the_claim() {
        let subtask = SubTask {
            subtask_id: SubTaskId::mint(),
            parent_task_id: TaskId::mint(),
            intent: "count the files".into(),
            context: "in /tmp/x".into(),
            success_criteria: vec![Criterion::new("the count is a number")],
            sequence: 1,
            deadline: None,
            blocked_tools: vec![],
            blocked_targets: vec![],
            confirm_tools: vec![],
        };
        let mut ok = call("shell", ToolCallStatus::Ok, None);
        ok.output_head = "3".into();
        let r = result(
            ExecutionStatus::Completed,
            vec![
                ok,
                call("shell", ToolCallStatus::Denied, Some("denied by the user")),
            ],
            "There are 3 files",
        );
        let p = judgement_prompt(
            crate::clock::FakeClock::at_epoch().now(),
            &subtask,
            &subtask.criteria_to_judge(),
            &r,
            1,
            3,
            None,
        );
        assert!(p.starts_with("Local time: "), "{p}");
        assert!(p.contains("1. the count is a number"));
        assert!(p.contains("[1] shell: "), "{p}");
        assert!(p.contains("— ok"), "{p}");
        assert!(p.contains("it printed:\n    3"), "{p}");
        assert!(p.contains("— DENIED under Law 1"), "{p}");
        // The reply's shape, with the criterion copied in for the model to keep.
        assert!(
            p.contains(r#"{"criteria":[{"criterion":"the count is a number","#),
            "{p}"
        );
        assert!(p.contains("a claim, not evidence) — status completed:\nThere are 3 files"));
    }

    #[test]
    fn a_subtask_without_criteria_is_judged_on_its_intent() {
        let subtask = SubTask {
            subtask_id: SubTaskId::mint(),
            parent_task_id: TaskId::mint(),
            intent: "rename a.txt to b.txt".into(),
            context: String::new(),
            success_criteria: vec![],
            sequence: 1,
            deadline: None,
            blocked_tools: vec![],
            blocked_targets: vec![],
            confirm_tools: vec![],
        };
        let c = subtask.criteria_to_judge();
        assert_eq!(c.len(), 1);
        assert!(c[0].criterion.contains("rename a.txt to b.txt"));
    }

    #[test]
    fn long_call_lists_keep_their_start_and_end_with_original_numbers() {
        let calls: Vec<_> = (0..100)
            .map(|_| call("glob", ToolCallStatus::Ok, None))
            .collect();
        let text = render_calls(&calls);
        assert!(text.contains("[1] glob"));
        assert!(text.contains("[100] glob"));
        assert!(!text.contains("[50] glob"));
        assert!(text.contains("60 calls not shown"));
    }
}
