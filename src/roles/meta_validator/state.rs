//! R4b's fan-in as pure data and functions, with no bus, model or clock of its own: a
//! round is the manifest's sub-tasks, the outcomes that came in and those a halt says were
//! not run; once every sub-task is accounted for, [`gate`] decides by code alone (a replan
//! request, or a lone sub-task's output as the result) or asks for the model's merge, and
//! [`judge`] turns that merge into the round's message. [`expired`] gives up a round past
//! its deadline.
//!
//! **Invariant:** a round yields an `OutcomeSummary` only when every planned sub-task
//! matched and every task criterion has a passing verdict; every `ReplanRequest` names
//! the planned sub-tasks without an outcome and the task criteria without a verdict.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio::task::AbortHandle;

use super::super::agent_validator::verdicts_from;
use super::schema::MergeJudgement;
use crate::checks::criteria::{World, all_met, hold_to_checks, unmet_checks};
use crate::checks::shape::{self, Verdict};
use crate::contracts::{
    AnswerShape, Criterion, CriterionMode, CriterionVerdict, DispatchManifest, FailureClass,
    Message, OutcomeSummary, Recommendation, ReplanRequest, SubTaskId, SubTaskOutcome,
    SubTaskStatus, TaskId, ToolCallRecord, ToolCallStatus, ToolName, UnrunSubTask,
};
use crate::ggs::evidence;
use crate::text::first_chars;
use crate::text::output_text;

pub(super) enum Phase {
    /// Waiting for outcomes until the deadline queued in `MetaValidator::deadlines`.
    Collecting,
    Judging {
        abort: AbortHandle,
    },
    /// The round's message to R7 was sent.
    Done,
}

/// One planning round of one task.
pub(super) struct Round {
    pub(super) generation: u64,
    pub(super) manifest: DispatchManifest,
    /// The manifest's sub-tasks, once each, in manifest order.
    pub(super) expected: Vec<SubTaskId>,
    pub(super) outcomes: HashMap<SubTaskId, SubTaskOutcome>,
    pub(super) skipped: HashSet<SubTaskId>,
    pub(super) halt_reasons: Vec<String>,
    /// What the dispatcher reported of each skipped sub-task (its criteria).
    pub(super) unrun: HashMap<SubTaskId, UnrunSubTask>,
    pub(super) phase: Phase,
}

impl Round {
    pub(super) fn complete(&self) -> bool {
        self.expected
            .iter()
            .all(|id| self.outcomes.contains_key(id) || self.skipped.contains(id))
    }

    pub(super) fn outcomes_in_order(&self) -> Vec<&SubTaskOutcome> {
        self.expected
            .iter()
            .filter_map(|id| self.outcomes.get(id))
            .collect()
    }

    /// Every expected sub-task without an outcome, in manifest order: skipped ones with
    /// what the dispatcher said of them, the others (never reported) with `reason`.
    pub(super) fn unrun(&self, reason: &str) -> Vec<UnrunSubTask> {
        self.expected
            .iter()
            .filter(|id| !self.outcomes.contains_key(id))
            .map(|id| {
                self.unrun.get(id).cloned().unwrap_or_else(|| UnrunSubTask {
                    subtask_id: *id,
                    success_criteria: Vec::new(),
                    reason: if self.skipped.contains(id) {
                        self.halt_reasons.join("; ")
                    } else {
                        reason.to_string()
                    },
                })
            })
            .collect()
    }
}

pub(super) struct TaskTrack {
    pub(super) intent: String,
    pub(super) first_manifest_at: DateTime<Utc>,
    /// The task's person time when its first manifest came, and as last heard
    /// ([`crate::lifecycle`]): the time between them is not the task's.
    pub(super) person_at_first: std::time::Duration,
    pub(super) person_now: std::time::Duration,
    /// Manifests received: 1 + the replans directed so far.
    pub(super) plans: u32,
    pub(super) round: Option<Round>,
    /// Outcomes that arrived before a manifest naming them.
    pub(super) early: HashMap<SubTaskId, SubTaskOutcome>,
    pub(super) last_active: u64,
    /// Answers already sent back once for their shape.
    pub(super) misfits: Vec<String>,
}

/// The task criteria R4b judges: the manifest's, or the intent when R2 gave none.
pub fn effective_task_criteria(manifest: &DispatchManifest, intent: &str) -> Vec<Criterion> {
    if manifest.task_criteria.is_empty() {
        let goal = if intent.trim().is_empty() {
            "the user's request"
        } else {
            intent.trim()
        };
        vec![Criterion::new(format!("The answer does this: {goal}"))]
    } else {
        manifest.task_criteria.clone()
    }
}

/// The summary of a single sub-task's result: the output itself when it is one short
/// line, else a pointer to the output below it.
fn single_summary(output: &Value, intent: &str) -> String {
    let text = output_text(output);
    let text = text.trim();
    if !text.is_empty() && !text.contains('\n') && text.chars().count() <= 200 {
        text.to_string()
    } else {
        format!("Result of: {}", first_chars(intent.trim(), 160))
    }
}

/// The summary of a merged result: the merged output itself when it is one short line of
/// text, or a short list of short values said on one line (the answer, stated once and
/// first), else the model's summary. The model writes its summary after judging the
/// criteria, and a small model wrote it in the judge's voice ("The answer is correct and
/// the file contains the phone number", "The answer lists the files …") above the answer.
fn merged_summary(merged: &Value, model_summary: &str) -> String {
    let line = match merged {
        Value::String(text) => Some(text.trim().to_string()),
        Value::Array(items) if !items.is_empty() && items.len() <= 10 => items
            .iter()
            .map(|v| match v {
                Value::String(s) if !s.trim().is_empty() && !s.contains('\n') => {
                    Some(s.trim().to_string())
                }
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect::<Option<Vec<String>>>()
            .map(|values| values.join(", ")),
        _ => None,
    };
    match line {
        Some(line) if !line.is_empty() && !line.contains('\n') && line.chars().count() <= 200 => {
            line
        }
        _ => model_summary.trim().to_string(),
    }
}

/// What a complete round comes to before any model call.
// One value per round, consumed at once: boxing the message would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(super) enum Gate {
    /// The round's one message to GGS, decided by code alone.
    Send(Message),
    /// Every sub-task matched: the model merges the outputs and judges these criteria.
    Merge { criteria: Vec<Criterion> },
    /// Every sub-task matched, but the answer lacks the shape the task asks for: the
    /// replan request, and the answer to remember (it is not sent back twice).
    Reshape {
        request: ReplanRequest,
        answer: String,
    },
}

/// The code gate on the task's current round; `None` while the round is still waiting
/// for outcomes or was already decided.
pub(super) fn gate(
    task_id: &TaskId,
    track: &TaskTrack,
    now: DateTime<Utc>,
    max_replans: u32,
    world: &World,
) -> Option<Gate> {
    let round = track.round.as_ref()?;
    if !matches!(round.phase, Phase::Collecting) || !round.complete() {
        return None;
    }
    let outcomes = round.outcomes_in_order();
    let failed: Vec<&SubTaskOutcome> = outcomes
        .iter()
        .copied()
        .filter(|o| o.status == SubTaskStatus::Failed)
        .collect();
    if !failed.is_empty() || !round.skipped.is_empty() || round.expected.is_empty() {
        // No model call when anything failed or did not run. What did not run and the
        // task criteria nobody judged go to GGS as unobserved.
        let request = gate_request(track, round, &failed, (now, max_replans), world);
        return Some(Gate::Send(request.into()));
    }
    if let Some(misfit) = shape_misfit(
        track,
        round,
        &outcomes,
        &output_of(&outcomes),
        now,
        max_replans,
    ) {
        return Some(misfit);
    }
    // The task's criteria that carry a check are held to it by code first: one unmet
    // sends the round back with what code read, whatever a merge would make of it.
    let answer = output_of(&outcomes);
    let unmet = unmet_checks(&round.manifest.task_criteria, &answer, world);
    if !unmet.is_empty() {
        let gap = format!(
            "every sub-task matched, but the answer fails what code checks of the task: {}",
            unmet
                .iter()
                .map(|v| format!("\"{}\" ({})", v.criterion, v.evidence))
                .collect::<Vec<_>>()
                .join("; ")
        );
        let request = replan_request(track, now, max_replans, gap, unmet);
        return Some(Gate::Send(request.into()));
    }
    if let [only] = outcomes.as_slice()
        && all_met(&round.manifest.task_criteria, &answer, world)
        && shape_verified(round, only)
    {
        // One sub-task, every task criterion of its own (if any) met by its check, and
        // the answer's shape checked by code: the task's result is that sub-task's
        // output, whose criteria R4a already judged on tool evidence (matched = every
        // one passed). A model merge would only paraphrase it. Otherwise the task-level
        // check is a model's, as the minimum chain R1 → R2 → R3 → R4a → R4b has it:
        // nothing code could not verify is accepted by code, and a tool's output is not
        // delivered as the answer unread.
        let summary = OutcomeSummary {
            task_id: task_id.clone(),
            intent: track.intent.clone(),
            merged_output: only.output.clone(),
            summary: single_summary(&only.output, &track.intent),
            task_criteria_verdicts: only.criteria_verdicts.clone(),
            outcomes: vec![(*only).clone()],
            elapsed_ms: track.elapsed_ms(now),
        };
        return Some(Gate::Send(summary.into()));
    }
    Some(Gate::Merge {
        criteria: effective_task_criteria(&round.manifest, &track.intent),
    })
}

/// What the round's outputs say, as one text: the answer the shape check reads.
fn output_of(outcomes: &[&SubTaskOutcome]) -> String {
    outcomes
        .iter()
        .map(|o| output_text(&o.output))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether code verified the task-level criterion of a one-sub-task round: the task
/// asks for an answer of a shape code checks (which item, a number, a value per group, a
/// list, a date, a file), the sub-task's output has it, and it carries no tool's line
/// copied whole (code finds a number in "6 data rows, 4 columns", but only a reader can
/// say whether it answers the question; the model's check then states the answer).
fn shape_verified(round: &Round, only: &SubTaskOutcome) -> bool {
    let Some(spec) = round.manifest.task_spec.as_ref() else {
        return false;
    };
    let records: Vec<&ToolCallRecord> = only.tool_calls.iter().collect();
    let ok: Vec<&ToolCallRecord> = records
        .iter()
        .copied()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .collect();
    let request = format!("{}\n{}", spec.intent, spec.raw_input);
    let answer = output_text(&only.output);
    shape::check(spec.answer, &request, &answer, &records) == Verdict::Fits
        && crate::checks::claims::untouched_paths(&spec.raw_input, &answer, &records).is_none()
        && !shape::copies_a_line(&answer, &ok)
        && shape::nth_of_a_listing(&request, &answer, &records).is_none()
}

/// The criterion a shape check stands for, as GGS and the planner read it.
fn shape_criterion(shape: AnswerShape) -> Criterion {
    let words = match shape {
        AnswerShape::Item => "The answer names the item asked for, not only its value",
        AnswerShape::Number => "The answer gives the number asked for",
        AnswerShape::PerGroup => "The answer gives a value for each group",
        AnswerShape::Date => "The answer gives the date asked for",
        AnswerShape::File => "The file asked for is written",
        _ => "The answer has the shape asked for",
    };
    Criterion::with_mode(words, CriterionMode::Verifiable)
}

/// A list asked for, an answer that names none of the items twice, and a listing of the
/// round that shows every entry it found: the answer is that listing's entries, stated
/// by code with the folder they are in — not the model's count accepted on its word,
/// and not another replan for the same answer. `None` for anything else (the model's
/// judgement then decides).
fn listed_by_code(
    track: &TaskTrack,
    round: &Round,
    outcomes: &[&SubTaskOutcome],
    shape: AnswerShape,
    records: &[&ToolCallRecord],
    now: DateTime<Utc>,
) -> Option<Gate> {
    if shape != AnswerShape::List {
        return None;
    }
    let listing = shape::complete_listing(records)?;
    Some(Gate::Send(
        stated_listing(track, round, outcomes, &listing, now).into(),
    ))
}

/// The listing's entries as the answer, with the folder they are in, stated by code.
fn stated_listing(
    track: &TaskTrack,
    round: &Round,
    outcomes: &[&SubTaskOutcome],
    listing: &shape::Listing,
    now: DateTime<Utc>,
) -> OutcomeSummary {
    let items = listing.items.join(", ");
    let summary = format!("{}: {items}", listing.folder);
    let criterion = shape_criterion(AnswerShape::List);
    let mut verdicts: Vec<CriterionVerdict> = outcomes
        .iter()
        .flat_map(|o| o.criteria_verdicts.iter().cloned())
        .collect();
    verdicts.push(CriterionVerdict {
        evidence: format!(
            "code: the list_files listing of {} shows every entry it found: {items}",
            listing.folder
        ),
        ..CriterionVerdict::for_criterion(&criterion, crate::contracts::Verdict::Pass)
    });
    OutcomeSummary {
        task_id: round.manifest.task_id.clone(),
        intent: track.intent.clone(),
        merged_output: Value::String(listing.items.join("\n")),
        summary,
        task_criteria_verdicts: verdicts,
        outcomes: outcomes.iter().map(|o| (*o).clone()).collect(),
        elapsed_ms: track.elapsed_ms(now),
    }
}

/// The replan request of a round whose answer `answer` lacks the shape the task asks for
/// (checked by code, [`crate::checks::shape`]); `None` when it fits, when code cannot
/// check the shape, or when the same answer was already sent back once for its shape —
/// then the model's judgement decides, so a check that misreads an answer costs one
/// replan, never the task (except a list stated by code from a whole listing:
/// [`listed_by_code`]).
fn shape_misfit(
    track: &TaskTrack,
    round: &Round,
    outcomes: &[&SubTaskOutcome],
    answer: &str,
    now: DateTime<Utc>,
    max_replans: u32,
) -> Option<Gate> {
    let spec = round.manifest.task_spec.as_ref()?;
    let records: Vec<&ToolCallRecord> = outcomes.iter().flat_map(|o| &o.tool_calls).collect();
    let request = format!("{}\n{}", spec.intent, spec.raw_input);
    // An effect the answer reports with none behind it is sent back each time it comes;
    // any other misfit once, then the model's judgement decides (a check that misreads
    // an answer costs one replan, never the task).
    // Once an answer sent back told a change, every later one needs a change behind it.
    let a_change = track
        .misfits
        .iter()
        .any(|earlier| crate::checks::claims::tells_a_change(&request, earlier));
    let certain = crate::checks::claims::unbacked(
        spec.answer,
        &request,
        Some(&spec.raw_input),
        answer,
        &records,
    )
    .or_else(|| {
        a_change
            .then(|| crate::checks::claims::no_change_made(answer, &records))
            .flatten()
    });
    let why = match certain {
        Some(why) => why,
        None => {
            let Verdict::Misfit(why) = shape::check(spec.answer, &request, answer, &records) else {
                return None;
            };
            if track
                .misfits
                .iter()
                .any(|earlier| earlier.trim() == answer.trim())
            {
                return listed_by_code(track, round, outcomes, spec.answer, &records, now);
            }
            why
        }
    };
    let criterion = shape_criterion(spec.answer);
    let verdict = CriterionVerdict {
        evidence: why.clone(),
        failure_class: Some(FailureClass::Logical),
        ..CriterionVerdict::for_criterion(&criterion, crate::contracts::Verdict::Fail)
    };
    let request = replan_request(
        track,
        now,
        max_replans,
        format!("every sub-task matched, but the answer has the wrong shape: {why}"),
        vec![verdict],
    );
    Some(Gate::Reshape {
        request,
        answer: answer.to_string(),
    })
}

/// The request of a round stopped by the code gate: what failed, what did not run, and
/// every task criterion as unjudged. When each failure is the task's own subject missing,
/// no plan can make it exist, so the recommendation is to abandon.
fn gate_request(
    track: &TaskTrack,
    round: &Round,
    failed: &[&SubTaskOutcome],
    (now, max_replans): (DateTime<Utc>, u32),
    world: &World,
) -> ReplanRequest {
    let mut gap = gate_gap(round, failed);
    let subject = round
        .manifest
        .task_spec
        .as_ref()
        .map(|s| format!("{}\n{}", s.intent, s.raw_input))
        .unwrap_or_else(|| track.intent.clone());
    // A file the task asks to make is an output, never a missing input: a read of it
    // that failed before it was written says nothing about the task's subject. So is
    // the place a copy, a move or a conversion writes to: "copied 0 into ~/invoices"
    // names the folder the copies were to go to, not one the task needed to find.
    let mut outputs = files_to_make(&round.manifest, &world.home);
    outputs.extend(destinations(failed, &world.home));
    let missing: Vec<String> = missing_subject(&subject, failed)
        .into_iter()
        .filter(|m| {
            let m = crate::checks::criteria::resolve(m.trim_end_matches('/'), &world.home);
            !outputs.contains(&m)
        })
        .collect();
    if !missing.is_empty() {
        gap = format!(
            "what the task names does not exist: {} ({gap})",
            missing.join(", ")
        );
    }
    let mut request = replan_request(track, now, max_replans, gap, vec![]);
    request.unrun_subtasks = round.unrun("not run");
    request.unjudged_task_criteria = effective_task_criteria(&round.manifest, &track.intent);
    if !missing.is_empty() {
        request.recommendation = Recommendation::Abandon;
    }
    request
}

/// The round's one message to GGS once the model judged it: `judged` is the model's
/// judgement, or why there is none. Accepted only when every task criterion is met.
pub(super) fn judge(
    task_id: &TaskId,
    track: &TaskTrack,
    (now, max_replans): (DateTime<Utc>, u32),
    judged: Result<MergeJudgement, String>,
    world: &World,
) -> (Message, Option<String>) {
    let criteria = track
        .round
        .as_ref()
        .map(|r| effective_task_criteria(&r.manifest, &track.intent))
        .unwrap_or_default();
    // What the model judged, then held to what code checks of it in the merged answer
    // and the outputs it merged.
    let merged = |j: &MergeJudgement| {
        let outputs = track
            .round
            .as_ref()
            .map(|r| output_of(&r.outcomes_in_order()))
            .unwrap_or_default();
        format!(
            "{}\n{}\n{outputs}",
            j.summary,
            output_text(&j.combined_output)
        )
    };
    let judged = judged.and_then(|j| {
        let verdicts = verdicts_from(&criteria, &j.criteria, FailureClass::Logical)?;
        let verdicts = hold_to_checks(verdicts, &criteria, &merged(&j), world);
        Ok((j, verdicts))
    });
    let (judgement, verdicts) = match judged {
        Ok(judged) => judged,
        Err(problem) => {
            let gap = format!(
                "every sub-task matched, but the meta-validator could not judge the merged \
                 output against the task criteria: {problem}"
            );
            let mut request = replan_request(track, now, max_replans, gap, vec![]);
            request.unjudged_task_criteria = criteria;
            return (request.into(), None);
        }
    };
    let unmet: Vec<&CriterionVerdict> = verdicts.iter().filter(|v| v.failed()).collect();
    // A round of one sub-task delivers that sub-task's own output, which R3 checked
    // against its tools' results and R4a against the calls; the model judged it against
    // the task's criteria and its retelling is not delivered: merging one output can only
    // paraphrase it, and a paraphrase can contradict it (the sub-task said one of three
    // files was missing, the retelling said all three were copied). Unless that output
    // is a tool's output copied whole: then the merge is what states the answer in it
    // (the largest file, out of a listing of nine), and R7 checks it against the tools.
    let lone = track
        .round
        .as_ref()
        .and_then(|r| match r.outcomes_in_order().as_slice() {
            [only] => Some((*only).clone()),
            _ => None,
        })
        .filter(|only| {
            let ok: Vec<&ToolCallRecord> = only
                .tool_calls
                .iter()
                .filter(|r| r.status == ToolCallStatus::Ok)
                .collect();
            !shape::is_dump(&output_text(&only.output), &ok)
        });
    let (mut delivered, summary) = match &lone {
        Some(only) => (
            only.output.clone(),
            single_summary(&only.output, &track.intent),
        ),
        None => (
            judgement.combined_output.clone(),
            merged_summary(&judgement.combined_output, &judgement.summary),
        ),
    };
    // Asked for the n-th of an order, with a listing in that order among the round's
    // calls: the answer is that listing's n-th row. A merge that names another row (a
    // small model states a listing's first row) is replaced by the row, stated by code.
    if let Some(round) = track.round.as_ref()
        && let Some(spec) = round.manifest.task_spec.as_ref()
    {
        let outcomes = round.outcomes_in_order();
        let records: Vec<&ToolCallRecord> = outcomes.iter().flat_map(|o| &o.tool_calls).collect();
        let request = format!("{}\n{}", spec.intent, spec.raw_input);
        if let Some(stated) = shape::nth_stated(&request, &output_text(&delivered), &records) {
            tracing::info!(task = %task_id, %stated, "the n-th row stated by code");
            delivered = Value::String(stated);
        }
        // Asked for a list, and what would be delivered is a whole listing's own lines
        // (its header among them): the answer is its entries, stated by code, not the
        // tool's dump under a summary in the judge's voice.
        if unmet.is_empty()
            && spec.answer == AnswerShape::List
            && let Some(listing) = shape::complete_listing(&records)
            && format!("{summary}\n{}", output_text(&delivered)).contains(&listing.header)
        {
            tracing::info!(task = %task_id, "a listing's dump stated as its entries by code");
            return (
                stated_listing(track, round, &outcomes, &listing, now).into(),
                None,
            );
        }
    }
    // What the user reads is the summary and the output: a claim in either is checked.
    if unmet.is_empty()
        && let Some(round) = track.round.as_ref()
    {
        match shape_misfit(
            track,
            round,
            &round.outcomes_in_order(),
            &format!("{summary}\n{}", output_text(&delivered)),
            now,
            max_replans,
        ) {
            Some(Gate::Reshape { request, answer }) => return (request.into(), Some(answer)),
            // The same misfit again, and code can state the answer itself.
            Some(Gate::Send(stated)) => return (stated, None),
            Some(Gate::Merge { .. }) | None => {}
        }
    }
    if unmet.is_empty() {
        let outcomes = track
            .round
            .as_ref()
            .map(|r| r.outcomes_in_order().into_iter().cloned().collect())
            .unwrap_or_default();
        let summary = OutcomeSummary {
            task_id: task_id.clone(),
            intent: track.intent.clone(),
            merged_output: delivered,
            summary,
            task_criteria_verdicts: verdicts,
            outcomes,
            elapsed_ms: track.elapsed_ms(now),
        };
        return (summary.into(), None);
    }
    let gap = format!(
        "every sub-task matched, but the merged output fails {} of {} task criteria: {}",
        unmet.len(),
        verdicts.len(),
        unmet
            .iter()
            .map(|v| format!("\"{}\" ({})", v.criterion, first_chars(&v.evidence, 200)))
            .collect::<Vec<_>>()
            .join("; ")
    );
    (
        replan_request(track, now, max_replans, gap, verdicts).into(),
        None,
    )
}

/// The request of a round still incomplete at its deadline: the sub-tasks with no
/// outcome count as failed and unrun, every task criterion as unjudged, and the task is
/// to be abandoned (the effectors stopped answering).
pub(super) fn expired(
    track: &TaskTrack,
    now: DateTime<Utc>,
    max_replans: u32,
    round_timeout: Duration,
) -> Option<ReplanRequest> {
    let round = track.round.as_ref()?;
    let missing: Vec<SubTaskId> = round
        .expected
        .iter()
        .filter(|id| !round.outcomes.contains_key(id) && !round.skipped.contains(id))
        .copied()
        .collect();
    let unrun = round.unrun(&format!(
        "reported no outcome within {}s",
        round_timeout.as_secs()
    ));
    let unjudged = effective_task_criteria(&round.manifest, &track.intent);
    let gap = format!(
        "{} of {} sub-task(s) reported no outcome within {}s (the effectors stopped \
         answering): {}",
        missing.len(),
        round.expected.len(),
        round_timeout.as_secs(),
        missing
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut request = replan_request(track, now, max_replans, gap, vec![]);
    request.failed_subtasks.extend(missing);
    request.unrun_subtasks = unrun;
    request.unjudged_task_criteria = unjudged;
    request.recommendation = Recommendation::Abandon;
    Some(request)
}

impl TaskTrack {
    /// The task's own time since its first manifest: the wall time less the time it
    /// waited for the user meanwhile.
    pub(super) fn elapsed_ms(&self, now: DateTime<Utc>) -> u64 {
        let wall = u64::try_from((now - self.first_manifest_at).num_milliseconds()).unwrap_or(0);
        let away = self.person_now.saturating_sub(self.person_at_first);
        wall.saturating_sub(u64::try_from(away.as_millis()).unwrap_or(u64::MAX))
    }
}

/// The files a round's criteria check for at the end of the work (a file at a path): the
/// task's outputs.
fn files_to_make(manifest: &DispatchManifest, home: &Path) -> Vec<PathBuf> {
    manifest
        .subtasks
        .iter()
        .flat_map(|s| &s.success_criteria)
        .chain(&manifest.task_criteria)
        .filter_map(|c| match &c.check {
            Some(crate::contracts::Check::FileExists { path, .. }) => {
                Some(crate::checks::criteria::resolve(path, home))
            }
            _ => None,
        })
        .collect()
}

/// Where the failed sub-tasks' calls were to write: the `to` of a copy, a move or a
/// conversion, resolved against `home`.
fn destinations(failed: &[&SubTaskOutcome], home: &Path) -> Vec<PathBuf> {
    failed
        .iter()
        .flat_map(|o| &o.tool_calls)
        .filter(|r| {
            matches!(
                r.tool.builtin(),
                Some(ToolName::CopyFiles | ToolName::MoveFiles | ToolName::ConvertFile)
            )
        })
        .filter_map(|r| r.input.get("to")?.as_str())
        .map(|to| crate::checks::criteria::resolve(to.trim_end_matches('/'), home))
        .collect()
}

/// The resources the task itself names (a file, a folder, a URL) that every failed
/// sub-task ran into as missing (a call that failed as not-found, naming it). Non-empty only when each failed sub-task
/// has such a call: then the failure is the environment's answer to the task, and
/// another plan cannot change it.
pub fn missing_subject(subject: &str, failed: &[&SubTaskOutcome]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let records: Vec<&ToolCallRecord> = failed.iter().flat_map(|o| &o.tool_calls).collect();
    for outcome in failed {
        let hit = outcome
            .tool_calls
            .iter()
            .find_map(|c| evidence::missing_resource(c).filter(|r| evidence::names(subject, r)));
        // Missing where a call looked, and listed elsewhere by a call of the round: the
        // look was in the wrong place, and a replan can look in the right one. Gone
        // because a call of the round moved or deleted it: its absence is the task's own
        // effect (a rename that succeeded, then a read of the old name).
        let hit = hit.filter(|resource| {
            let name = resource
                .rsplit('/')
                .next()
                .unwrap_or(resource)
                .to_lowercase();
            // A move's effect is at its new path; the call that made it names the old one.
            let resource = resource.trim_end_matches('/');
            let changed_by_the_task = records.iter().any(|r| {
                r.effects
                    .iter()
                    .any(|e| e.path.to_string_lossy().trim_end_matches('/') == resource)
                    || (r.status == ToolCallStatus::Ok
                        && !r.effects.is_empty()
                        && r.input.to_string().contains(resource))
            });
            shape::listed(&[name], &records).is_none() && !changed_by_the_task
        });
        match hit {
            Some(resource) => {
                if !found.contains(&resource) {
                    found.push(resource);
                }
            }
            None => return Vec::new(),
        }
    }
    found
}

/// The gap summary of a round stopped by the code gate.
fn gate_gap(round: &Round, failed: &[&SubTaskOutcome]) -> String {
    let mut parts = Vec::new();
    if round.expected.is_empty() {
        parts.push("the plan had no sub-tasks".to_string());
    }
    if !failed.is_empty() {
        let reasons: Vec<String> = failed
            .iter()
            .map(|o| {
                o.failure_reason
                    .clone()
                    .unwrap_or_else(|| format!("sub-task {} failed", o.subtask_id))
            })
            .collect();
        parts.push(format!(
            "{} of {} sub-task(s) failed: {}",
            failed.len(),
            round.expected.len(),
            reasons.join("; ")
        ));
    }
    if !round.skipped.is_empty() {
        parts.push(format!(
            "{} sub-task(s) were not run ({})",
            round.skipped.len(),
            round.halt_reasons.join("; ")
        ));
    }
    parts.join("; ")
}

pub(super) fn replan_request(
    track: &TaskTrack,
    now: DateTime<Utc>,
    max_replans: u32,
    gap_summary: String,
    task_criteria_verdicts: Vec<CriterionVerdict>,
) -> ReplanRequest {
    let round = track
        .round
        .as_ref()
        .expect("a replan request is built for the current round");
    let outcomes = round.outcomes_in_order();
    let (failed, matched): (Vec<&SubTaskOutcome>, Vec<&SubTaskOutcome>) = outcomes
        .into_iter()
        .partition(|o| o.status == SubTaskStatus::Failed);
    let correction_count = round
        .outcomes
        .values()
        .map(|o| u32::try_from(o.gap_trajectory.len()).unwrap_or(u32::MAX))
        .fold(0u32, u32::saturating_add);
    ReplanRequest {
        task_id: round.manifest.task_id.clone(),
        intent: track.intent.clone(),
        gap_summary,
        failed_subtasks: failed.iter().map(|o| o.subtask_id).collect(),
        failed_outcomes: failed.into_iter().cloned().collect(),
        matched_outcomes: matched.into_iter().cloned().collect(),
        task_criteria_verdicts,
        unrun_subtasks: Vec::new(),
        unjudged_task_criteria: Vec::new(),
        correction_count,
        elapsed_ms: track.elapsed_ms(now),
        // The same budget GGS counts: plans = 1 + replans directed.
        recommendation: if track.plans > max_replans {
            Recommendation::Abandon
        } else {
            Recommendation::Replan
        },
    }
}

#[cfg(test)]
mod tests {
    fn world() -> crate::checks::criteria::World {
        crate::checks::criteria::World::disk("/home/u")
    }

    use super::*;
    use crate::clock::{Clock as _, FakeClock};
    use crate::contracts::{ToolCallRecord, ToolCallStatus, ToolFailure};
    use crate::tools::ToolName;

    #[test]
    fn a_plan_without_task_criteria_is_judged_on_its_intent() {
        let m = DispatchManifest {
            task_id: TaskId::mint(),
            subtasks: vec![],
            task_spec: None,
            dispatched_at: FakeClock::at_epoch().now(),
            task_criteria: vec![],
            round: 0,
        };
        let c = effective_task_criteria(&m, "find the largest file");
        assert_eq!(c.len(), 1);
        assert!(c[0].criterion.contains("find the largest file"));
    }

    fn read_failing(task: &TaskId, failure: ToolFailure) -> SubTaskOutcome {
        let mut o = outcome(task, SubTaskStatus::Failed);
        o.tool_calls.push(ToolCallRecord {
            tool: ToolName::ReadFile.into(),
            input: Value::Null,
            target: "/home/u/Notes/plan.txt".into(),
            output_head: String::new(),
            status: ToolCallStatus::Error,
            error: Some("no such file: /home/u/Notes/plan.txt".into()),
            failure: Some(failure),
            duration_ms: 1,
            confirmation: None,
            failed_exit: None,
            effects: Vec::new(),
            grant: None,
        });
        o
    }

    #[test]
    fn the_place_a_copy_was_to_go_is_never_a_missing_subject() {
        use crate::contracts::TaskSpec;
        // Recorded (held invoice_letters_copied, 1.5B): a copy by a name pattern that
        // picked nothing failed as not-found, its error naming the new folder first; the
        // round was abandoned as if the folder the task makes were its missing subject.
        let task = TaskId::mint();
        let mut failed = outcome(&task, SubTaskStatus::Failed);
        let mut copy = crate::checks::shape::tests::ok(ToolName::CopyFiles, "/home/u/invoices", "");
        copy.input = serde_json::json!({
            "from": "/home/u/letters", "names": "invoice*", "to": "/home/u/invoices"
        });
        copy.status = ToolCallStatus::Error;
        copy.failure = Some(ToolFailure::NotFound);
        copy.error =
            Some("copied 0 of 1 into ~/invoices missing: invoice* (not in ~/letters)".into());
        failed.tool_calls.push(copy);
        let mut t = track(&task, vec![failed], 0, vec![]);
        let round = t.round.as_mut().expect("a round");
        round.manifest.task_spec = Some(TaskSpec {
            task_id: task.clone(),
            intent: "Copy the letters that mention an invoice into ~/invoices".into(),
            constraints: Default::default(),
            raw_input:
                "Copy the files in ~/letters that mention an invoice into a new folder ~/invoices."
                    .into(),
            answer: AnswerShape::Any,
        });
        let now = FakeClock::at_epoch().now();
        let Some(Gate::Send(Message::ReplanRequest(r))) = gate(&task, &t, now, 2, &world()) else {
            panic!("a replan request");
        };
        assert!(
            !r.gap_summary.contains("does not exist"),
            "{}",
            r.gap_summary
        );
        assert_ne!(r.recommendation, Recommendation::Abandon);
    }

    #[test]
    fn a_file_the_task_asks_to_make_is_never_a_missing_subject() {
        use crate::contracts::{Check, SubTask, TaskSpec};
        // Recorded (held pdf_names_saved, 1.5B): the step that was to write the file read
        // it first, found nothing, and failed; the round was abandoned as if the task's
        // own subject were missing.
        let task = TaskId::mint();
        let mut failed = read_failing(&task, ToolFailure::NotFound);
        let mut t = track(&task, vec![failed.clone()], 0, vec![]);
        let spec = |round: &mut Round| {
            round.manifest.task_spec = Some(TaskSpec {
                task_id: task.clone(),
                intent: "Write the plan into ~/Notes/plan.txt".into(),
                constraints: Default::default(),
                raw_input: "write the plan into ~/Notes/plan.txt".into(),
                answer: AnswerShape::File,
            });
        };
        let round = t.round.as_mut().expect("a round");
        spec(round);
        let now = FakeClock::at_epoch().now();
        // Not asked to be made: the subject is missing, and the advice is to stop.
        let Some(Gate::Send(Message::ReplanRequest(r))) = gate(&task, &t, now, 2, &world()) else {
            panic!("a replan request");
        };
        assert!(
            r.gap_summary
                .starts_with("what the task names does not exist"),
            "{}",
            r.gap_summary
        );
        assert_eq!(r.recommendation, Recommendation::Abandon);
        // Asked to be made (a sub-task's criterion checks for it): an output, so a replan.
        failed.subtask_id = SubTaskId::mint();
        let mut sub = SubTask {
            subtask_id: failed.subtask_id,
            parent_task_id: task.clone(),
            intent: "Write the plan".into(),
            context: String::new(),
            success_criteria: vec![],
            sequence: 1,
            deadline: None,
            blocked_tools: vec![],
            blocked_targets: vec![],
            confirm_tools: vec![],
            answer: AnswerShape::File,
            request: None,
        };
        sub.success_criteria = vec![Criterion::checked(
            "A file is at ~/Notes/plan.txt when the work ends",
            Check::FileExists {
                path: "~/Notes/plan.txt".into(),
                contains: None,
            },
        )];
        let mut t = track(&task, vec![failed], 0, vec![]);
        let round = t.round.as_mut().expect("a round");
        spec(round);
        round.manifest.subtasks = vec![sub];
        let Some(Gate::Send(Message::ReplanRequest(r))) = gate(&task, &t, now, 2, &world()) else {
            panic!("a replan request");
        };
        assert!(
            !r.gap_summary.contains("does not exist"),
            "{}",
            r.gap_summary
        );
        assert_ne!(r.recommendation, Recommendation::Abandon);
    }

    #[test]
    fn the_subject_is_missing_only_when_every_failed_sub_task_found_it_not_found() {
        let task = TaskId::mint();
        let subject = "summarise ~/Notes/plan.txt";
        let a = read_failing(&task, ToolFailure::NotFound);
        let b = read_failing(&task, ToolFailure::NotFound);
        assert_eq!(
            missing_subject(subject, &[&a, &b]),
            ["/home/u/Notes/plan.txt"]
        );
        // The same words under another kind of failure say nothing about existence.
        let denied = read_failing(&task, ToolFailure::Failed);
        assert!(missing_subject(subject, &[&a, &denied]).is_empty());
        // A failed sub-task that never met the missing file leaves room for another plan.
        let other = outcome(&task, SubTaskStatus::Failed);
        assert!(missing_subject(subject, &[&a, &other]).is_empty());
        // A missing file the task does not name is not its subject.
        assert!(missing_subject("summarise my week", &[&a]).is_empty());
        // Missing where it was read, and listed in a subfolder by the same round: not
        // missing, only looked for in the wrong place.
        let mut found_deeper = read_failing(&task, ToolFailure::NotFound);
        found_deeper
            .tool_calls
            .push(crate::checks::shape::tests::ok(
                ToolName::ListFiles,
                "/home/u/Notes",
                "~/Notes (recursive), files: 1 found\nold/plan.txt\t3 B\t2026-11-30 15:55\ttxt",
            ));
        assert!(missing_subject(subject, &[&found_deeper]).is_empty());
        // Missing because a call of the round moved it away: the task's own effect.
        let mut moved = read_failing(&task, ToolFailure::NotFound);
        let mut mv = crate::checks::shape::tests::ok(
            ToolName::Shell,
            "mv /home/u/Notes/plan.txt /home/u/Notes/final.txt",
            "(no output)",
        );
        mv.effects = vec![crate::contracts::PathEffect {
            path: "/home/u/Notes/plan.txt".into(),
            exists: true,
            effect: "delete".into(),
        }];
        moved.tool_calls.insert(0, mv);
        assert!(missing_subject(subject, &[&moved]).is_empty());
        // As the sandbox records a rename: a move at the new path, by a call whose input
        // names the old one.
        let mut renamed = read_failing(&task, ToolFailure::NotFound);
        let mut mv = crate::checks::shape::tests::ok(ToolName::Shell, "mv", "(no output)");
        mv.input = serde_json::json!({
            "command": "mv -n -- '/home/u/Notes/plan.txt' '/home/u/Notes/final.txt'"
        });
        mv.effects = vec![crate::contracts::PathEffect {
            path: "/home/u/Notes/final.txt".into(),
            exists: false,
            effect: "move".into(),
        }];
        renamed.tool_calls.insert(0, mv.clone());
        assert!(missing_subject(subject, &[&renamed]).is_empty());
        // The same call with no effect (it changed nothing): the file is missing.
        let mut tried = read_failing(&task, ToolFailure::NotFound);
        mv.effects.clear();
        tried.tool_calls.insert(0, mv);
        assert!(!missing_subject(subject, &[&tried]).is_empty());
    }

    fn outcome(task: &TaskId, status: SubTaskStatus) -> SubTaskOutcome {
        SubTaskOutcome {
            subtask_id: SubTaskId::mint(),
            parent_task_id: task.clone(),
            status,
            output: Value::String("a.txt".into()),
            failure_reason: None,
            gap_trajectory: vec![],
            criteria_verdicts: vec![],
            tool_calls: vec![],
        }
    }

    /// A task whose current round planned `outcomes`' sub-tasks plus `unreported` more,
    /// with `outcomes` in.
    fn track(
        task: &TaskId,
        outcomes: Vec<SubTaskOutcome>,
        unreported: usize,
        task_criteria: Vec<Criterion>,
    ) -> TaskTrack {
        let mut expected: Vec<SubTaskId> = outcomes.iter().map(|o| o.subtask_id).collect();
        expected.extend((0..unreported).map(|_| SubTaskId::mint()));
        let at = FakeClock::at_epoch().now();
        TaskTrack {
            intent: "list files".into(),
            first_manifest_at: at,
            person_at_first: std::time::Duration::ZERO,
            person_now: std::time::Duration::ZERO,
            plans: 1,
            round: Some(Round {
                generation: 1,
                manifest: DispatchManifest {
                    task_id: task.clone(),
                    subtasks: vec![],
                    task_spec: None,
                    dispatched_at: at,
                    task_criteria,
                    round: 0,
                },
                expected,
                outcomes: outcomes.into_iter().map(|o| (o.subtask_id, o)).collect(),
                skipped: HashSet::new(),
                halt_reasons: Vec::new(),
                unrun: HashMap::new(),
                phase: Phase::Collecting,
            }),
            early: HashMap::new(),
            last_active: 0,
            misfits: Vec::new(),
        }
    }

    #[test]
    fn an_incomplete_round_is_not_gated() {
        let task = TaskId::mint();
        let t = track(
            &task,
            vec![outcome(&task, SubTaskStatus::Matched)],
            1,
            vec![],
        );
        assert!(gate(&task, &t, FakeClock::at_epoch().now(), 2, &world()).is_none());
    }

    #[test]
    fn a_failed_sub_task_is_a_replan_request_without_a_model_call() {
        let task = TaskId::mint();
        let t = track(
            &task,
            vec![
                outcome(&task, SubTaskStatus::Matched),
                outcome(&task, SubTaskStatus::Failed),
            ],
            0,
            vec![Criterion::new("names every file")],
        );
        match gate(&task, &t, FakeClock::at_epoch().now(), 2, &world()) {
            Some(Gate::Send(Message::ReplanRequest(r))) => {
                assert_eq!(r.failed_subtasks.len(), 1);
                assert_eq!(r.unjudged_task_criteria.len(), 1);
                assert_eq!(r.recommendation, Recommendation::Replan);
            }
            _ => panic!("expected a replan request"),
        }
    }

    #[test]
    fn a_halted_sub_task_is_named_as_unrun() {
        let task = TaskId::mint();
        let mut t = track(
            &task,
            vec![outcome(&task, SubTaskStatus::Matched)],
            1,
            vec![],
        );
        let round = t.round.as_mut().expect("the round was built");
        let skipped = round.expected[1];
        round.skipped.insert(skipped);
        round.halt_reasons.push("an earlier step failed".into());
        match gate(&task, &t, FakeClock::at_epoch().now(), 2, &world()) {
            Some(Gate::Send(Message::ReplanRequest(r))) => {
                assert_eq!(r.unrun_subtasks.len(), 1);
                assert_eq!(r.unrun_subtasks[0].subtask_id, skipped);
                assert_eq!(r.unrun_subtasks[0].reason, "an earlier step failed");
            }
            _ => panic!("expected a replan request"),
        }
    }

    #[test]
    fn a_task_criterion_whose_check_fails_sends_the_round_back_by_code() {
        use crate::contracts::Check;
        let task = TaskId::mint();
        let now = FakeClock::at_epoch().now();
        let dir = tempfile::tempdir().expect("a temp dir");
        let written = dir.path().join("list.txt");
        std::fs::write(&written, "a.txt\nb.txt\n").expect("written");
        let world = World::disk(dir.path());
        let checked = |path: &str| {
            Criterion::checked(
                format!("{path} is written"),
                Check::FileExists {
                    path: path.into(),
                    contains: Some("b.txt".into()),
                },
            )
        };
        // Written elsewhere than asked: back to the planner, with what code read, and
        // no model asked.
        let t = track(
            &task,
            vec![outcome(&task, SubTaskStatus::Matched)],
            0,
            vec![checked("~/lists/list.txt")],
        );
        match gate(&task, &t, now, 2, &world) {
            Some(Gate::Send(Message::ReplanRequest(r))) => {
                assert!(
                    r.gap_summary.contains("nothing is at ~/lists/list.txt"),
                    "{}",
                    r.gap_summary
                );
                assert_eq!(
                    r.task_criteria_verdicts.len(),
                    1,
                    "{:?}",
                    r.task_criteria_verdicts
                );
            }
            _ => panic!("expected a replan request"),
        }
        // Written where asked, with what it must hold: code verified the task criterion,
        // and with the answer's shape checked the lone output is the result by code.
        let mut named = which_product(&task, "Desk, oak (450)");
        if let Some(round) = named.round.as_mut() {
            round.manifest.task_criteria = vec![checked("~/list.txt")];
        }
        assert!(matches!(
            gate(&task, &named, now, 2, &world),
            Some(Gate::Send(Message::OutcomeSummary(_)))
        ));
        // A task criterion no check covers still gets the model's judgement.
        if let Some(round) = named.round.as_mut() {
            round
                .manifest
                .task_criteria
                .push(Criterion::new("the list is complete"));
        }
        assert!(matches!(
            gate(&task, &named, now, 2, &world),
            Some(Gate::Merge { .. })
        ));
    }

    #[test]
    fn one_matched_sub_task_is_the_result_only_when_code_verified_its_answer() {
        let task = TaskId::mint();
        let now = FakeClock::at_epoch().now();
        // No shape said: nothing code verified, so the model checks the task.
        let t = track(
            &task,
            vec![outcome(&task, SubTaskStatus::Matched)],
            0,
            vec![],
        );
        assert!(
            matches!(gate(&task, &t, now, 2, &world()), Some(Gate::Merge { .. })),
            "an unverified answer gets the model's check"
        );
        // The item asked for, named: accepted by code, the output itself the result.
        let named = which_product(&task, "Desk, oak (450)");
        match gate(&task, &named, now, 2, &world()) {
            Some(Gate::Send(Message::OutcomeSummary(s))) => {
                assert_eq!(s.summary, "Desk, oak (450)")
            }
            _ => panic!("expected an outcome summary"),
        }
        // A shape code cannot check (an action that changed something): the model's
        // check again.
        let mut acted = which_product(&task, "Desk, oak (450)");
        if let Some(round) = acted.round.as_mut() {
            if let Some(spec) = round.manifest.task_spec.as_mut() {
                spec.answer = AnswerShape::Action;
            }
            for o in round.outcomes.values_mut() {
                for call in &mut o.tool_calls {
                    call.effects.push(crate::contracts::PathEffect {
                        path: "/h/data/products.csv".into(),
                        exists: true,
                        effect: "overwrite".into(),
                    });
                }
            }
        }
        assert!(matches!(
            gate(&task, &acted, now, 2, &world()),
            Some(Gate::Merge { .. })
        ));
    }

    #[test]
    fn several_matched_sub_tasks_go_to_the_models_merge() {
        let task = TaskId::mint();
        let t = track(
            &task,
            vec![
                outcome(&task, SubTaskStatus::Matched),
                outcome(&task, SubTaskStatus::Matched),
            ],
            0,
            vec![],
        );
        match gate(&task, &t, FakeClock::at_epoch().now(), 2, &world()) {
            Some(Gate::Merge { criteria }) => assert_eq!(criteria.len(), 1),
            _ => panic!("expected a merge"),
        }
    }

    #[test]
    fn an_unusable_judgement_leaves_every_task_criterion_unjudged() {
        let task = TaskId::mint();
        let t = track(
            &task,
            vec![
                outcome(&task, SubTaskStatus::Matched),
                outcome(&task, SubTaskStatus::Matched),
            ],
            0,
            vec![Criterion::new("c"), Criterion::new("d")],
        );
        match judge(
            &task,
            &t,
            (FakeClock::at_epoch().now(), 2),
            Err("no".into()),
            &world(),
        ) {
            (Message::ReplanRequest(r), None) => assert_eq!(r.unjudged_task_criteria.len(), 2),
            _ => panic!("expected a replan request"),
        }
    }

    /// A successful call of `tool` on `target` that printed `output`.
    fn ok_call(tool: ToolName, target: &str, output: &str) -> ToolCallRecord {
        ToolCallRecord {
            tool: tool.into(),
            input: serde_json::json!({}),
            target: target.into(),
            output_head: output.into(),
            status: ToolCallStatus::Ok,
            error: None,
            failure: None,
            duration_ms: 1,
            confirmation: None,
            failed_exit: None,
            effects: Vec::new(),
            grant: None,
        }
    }

    #[test]
    fn a_lone_sub_task_delivers_its_own_output_not_the_models_retelling() {
        let task = TaskId::mint();
        let mut o = outcome(&task, SubTaskStatus::Matched);
        o.output = Value::String(
            "Copied lease.pdf and insurance.pdf; warranty.pdf does not exist.".into(),
        );
        let t = track(&task, vec![o], 0, vec![Criterion::new("c")]);
        let retelling = MergeJudgement {
            combined_output: Value::String("All three files were copied.".into()),
            criteria: vec![super::super::super::agent_validator::CriterionJudgement {
                criterion: "c".into(),
                evidence: "[1] copied".into(),
                met: true,
                unmet_cause: None,
            }],
            summary: "All three files were copied.".into(),
        };
        let (Message::OutcomeSummary(s), None) = judge(
            &task,
            &t,
            (FakeClock::at_epoch().now(), 2),
            Ok(retelling.clone()),
            &world(),
        ) else {
            panic!("expected the outcome");
        };
        let delivered = output_text(&s.merged_output);
        assert!(
            delivered.contains("warranty.pdf does not exist"),
            "{delivered}"
        );
        assert!(!s.summary.contains("All three"), "{}", s.summary);
        // A lone output that is a tool's listing copied whole: the merge states the answer.
        let mut listed = outcome(&task, SubTaskStatus::Matched);
        let listing = "a.mp4\t640.0 KB\nb.png\t510.0 KB\nc.zip\t420.0 KB";
        listed.output = Value::String(listing.into());
        listed.tool_calls = vec![ok_call(ToolName::ListFiles, "/h/p", listing)];
        let dumped = track(&task, vec![listed], 0, vec![Criterion::new("c")]);
        let (Message::OutcomeSummary(s), None) = judge(
            &task,
            &dumped,
            (FakeClock::at_epoch().now(), 2),
            Ok(retelling.clone()),
            &world(),
        ) else {
            panic!("expected the outcome");
        };
        assert_eq!(
            output_text(&s.merged_output),
            "All three files were copied."
        );
        // Two sub-tasks: the model's merge is the answer.
        let two = track(
            &task,
            vec![
                outcome(&task, SubTaskStatus::Matched),
                outcome(&task, SubTaskStatus::Matched),
            ],
            0,
            vec![Criterion::new("c")],
        );
        let (Message::OutcomeSummary(s), None) = judge(
            &task,
            &two,
            (FakeClock::at_epoch().now(), 2),
            Ok(retelling),
            &world(),
        ) else {
            panic!("expected the outcome");
        };
        assert_eq!(
            output_text(&s.merged_output),
            "All three files were copied."
        );
    }

    /// A one-sub-task round of a task that asks *which* product, answered with `answer`
    /// after a table read that showed the row.
    fn which_product(task: &TaskId, answer: &str) -> TaskTrack {
        let mut o = outcome(task, SubTaskStatus::Matched);
        o.output = Value::String(answer.into());
        let mut read = ok_call(
            ToolName::ReadTable,
            "/h/products.csv",
            "row with the highest price (row 3): product = \"Desk, oak\", price = 450",
        );
        read.input = serde_json::json!({"op": "max_row"});
        o.tool_calls = vec![read];
        let mut t = track(task, vec![o], 0, vec![]);
        if let Some(round) = t.round.as_mut() {
            round.manifest.task_spec = Some(crate::contracts::TaskSpec {
                task_id: task.clone(),
                intent: "Find the product with the highest price".into(),
                constraints: Default::default(),
                raw_input: "Which product has the highest price?".into(),
                answer: AnswerShape::Item,
            });
        }
        t
    }

    #[test]
    fn a_short_list_merged_is_said_on_one_line_as_the_summary() {
        let judge_voice = "The answer lists the files larger than 60 bytes.";
        assert_eq!(
            merged_summary(
                &serde_json::json!(["~/data/inventory.csv", "~/data/sales.csv"]),
                judge_voice
            ),
            "~/data/inventory.csv, ~/data/sales.csv"
        );
        assert_eq!(
            merged_summary(&serde_json::json!([3, 4.5]), judge_voice),
            "3, 4.5"
        );
        // Not a short flat list: the model's summary.
        for merged in [
            serde_json::json!([{"name": "a"}]),
            serde_json::json!([]),
            serde_json::json!(["a\nb"]),
            serde_json::json!((0..11).collect::<Vec<_>>()),
            serde_json::json!(["x".repeat(201)]),
        ] {
            assert_eq!(
                merged_summary(&merged, judge_voice),
                judge_voice,
                "{merged}"
            );
        }
        assert_eq!(
            merged_summary(&serde_json::json!(" 42 "), judge_voice),
            "42",
            "one short line, as before"
        );
    }

    /// The model's merge that finds every criterion met and says "2 hidden files".
    fn passed_again(criteria: &[Criterion]) -> MergeJudgement {
        MergeJudgement {
            combined_output: Value::String("2 hidden files".into()),
            criteria: criteria
                .iter()
                .map(
                    |c| super::super::super::agent_validator::CriterionJudgement {
                        criterion: c.criterion.clone(),
                        evidence: "the listing found 2".into(),
                        met: true,
                        unmet_cause: None,
                    },
                )
                .collect(),
            summary: "2 hidden files".into(),
        }
    }

    /// A one-sub-task round of "which hidden files are in ~/project?", answered with
    /// `answer` after a listing that found `found`.
    fn which_hidden(task: &TaskId, answer: &str, found: &str) -> TaskTrack {
        let mut o = outcome(task, SubTaskStatus::Matched);
        o.output = Value::String(answer.into());
        o.tool_calls = vec![ok_call(ToolName::ListFiles, "/h/project", found)];
        let mut t = track(task, vec![o], 0, vec![]);
        if let Some(round) = t.round.as_mut() {
            round.manifest.task_spec = Some(crate::contracts::TaskSpec {
                task_id: task.clone(),
                intent: "List the hidden files in ~/project".into(),
                constraints: Default::default(),
                raw_input: "Which hidden files are in ~/project?".into(),
                answer: AnswerShape::List,
            });
        }
        t
    }

    #[test]
    fn a_count_given_twice_for_a_list_becomes_the_listing_stated_by_code() {
        let task = TaskId::mint();
        let whole = "~/project (not recursive), files matching .* (hidden included): 2 found\n\
                     .env\t10 B\t2026-12-01 10:20\t-\n.gitignore\t8 B\t2026-12-01 10:20\t-\n\
                     total: 2 files, 18 bytes (18 B)";
        let mut t = which_hidden(&task, "2 hidden files", whole);
        let now = FakeClock::at_epoch().now();
        let Some(Gate::Reshape { answer, .. }) = gate(&task, &t, now, 2, &world()) else {
            panic!("a count where a list was asked is sent back first");
        };
        t.misfits.push(answer);
        let Some(Gate::Send(Message::OutcomeSummary(s))) = gate(&task, &t, now, 2, &world()) else {
            panic!("the same count again: the listing is the answer");
        };
        assert_eq!(s.summary, "~/project: .env, .gitignore");
        assert_eq!(output_text(&s.merged_output), ".env\n.gitignore");
        assert!(
            s.task_criteria_verdicts
                .iter()
                .any(|v| !v.failed() && v.evidence.starts_with("code: the list_files listing")),
            "{:?}",
            s.task_criteria_verdicts
        );
        // The model's check of the same answer comes to the same: the listing, by code.
        let round = t.round.as_ref().expect("a round");
        let criteria = effective_task_criteria(&round.manifest, &t.intent);
        let passed = passed_again(&criteria);
        let mut judged = which_hidden(&task, "2 hidden files", whole);
        judged.misfits.push("2 hidden files\n2 hidden files".into());
        let (Message::OutcomeSummary(s), None) =
            judge(&task, &judged, (now, 2), Ok(passed), &world())
        else {
            panic!("the listing stated by code after the model's check");
        };
        assert_eq!(s.summary, "~/project: .env, .gitignore");
        // The model's merge delivers the listing's own lines: stated as its entries.
        let dumped = MergeJudgement {
            combined_output: serde_json::json!([
                "~/project (not recursive), files matching .* (hidden included): 2 found",
                ".env",
                ".gitignore",
                "total: 2 files, 18 bytes (18 B)"
            ]),
            summary: "The answer lists all hidden files in ~/project.".into(),
            ..passed_again(&criteria)
        };
        let mut two = which_hidden(&task, "see the listing", whole);
        if let Some(round) = two.round.as_mut() {
            let extra = round.outcomes_in_order()[0].clone();
            round.expected.push(SubTaskId::mint());
            let mut second = extra;
            second.subtask_id = *round.expected.last().expect("the second");
            round.outcomes.insert(second.subtask_id, second);
        }
        let (Message::OutcomeSummary(s), None) = judge(&task, &two, (now, 2), Ok(dumped), &world())
        else {
            panic!("a dump of the listing stated by code");
        };
        assert_eq!(s.summary, "~/project: .env, .gitignore");
        // A listing that held entries back is no list code can state: the model checks.
        let held_back = "~/project (not recursive), files: 40 found\n.env\t10 B\n\
                         total: 40 files\n(showing the first 1 of 40, name order)";
        let mut cut = which_hidden(&task, "2 hidden files", held_back);
        cut.misfits.push("2 hidden files".into());
        assert!(matches!(
            gate(&task, &cut, now, 2, &world()),
            Some(Gate::Merge { .. })
        ));
    }

    #[test]
    fn an_answer_of_the_wrong_shape_is_sent_back_once_by_code() {
        let task = TaskId::mint();
        let mut t = which_product(&task, "450");
        let now = FakeClock::at_epoch().now();
        match gate(&task, &t, now, 2, &world()) {
            Some(Gate::Reshape { request, answer }) => {
                assert_eq!(answer, "450");
                assert!(
                    request.gap_summary.contains("wrong shape"),
                    "{}",
                    request.gap_summary
                );
                let v = &request.task_criteria_verdicts[0];
                assert!(
                    v.failed() && v.criterion.contains("names the item"),
                    "{v:?}"
                );
                t.misfits.push(answer);
            }
            _ => panic!("expected the answer sent back for its shape"),
        }
        // The same answer a second time: code does not insist, and since code did not
        // verify it, the model checks the task.
        assert!(matches!(
            gate(&task, &t, now, 2, &world()),
            Some(Gate::Merge { .. })
        ));
        // The item named: accepted by code.
        let right = which_product(&task, "Desk, oak (450)");
        assert!(matches!(
            gate(&task, &right, now, 2, &world()),
            Some(Gate::Send(Message::OutcomeSummary(_)))
        ));
    }
}
