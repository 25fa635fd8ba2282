//! R4b Meta-Validator: the fan-in gate and sensor of the medium loop.
//!
//! - Fan-in per `DispatchManifest` (per task and round): it waits for the outcome of
//!   every sub-task the manifest names, minus those a `DispatchHalted` says were not run.
//!   A newer manifest for the task supersedes the round being collected or judged;
//!   outcomes of superseded rounds are ignored.
//! - Code gate, no model call: any failed outcome, any sub-task not run, or a plan
//!   without sub-tasks → `ReplanRequest` to R7 with a gap summary built from the failure
//!   reasons, the fast-loop attempts (`correction_count`), and `recommendation: abandon`
//!   once this task's plan count shows the replan budget spent (`plans > max_replans`,
//!   the same budget GGS counts). The request names every sub-task that was not run
//!   (`unrun_subtasks`, with the criteria the dispatcher reported) and every task
//!   criterion that was therefore never judged (`unjudged_task_criteria`): none of them
//!   was shown to pass, so GGS counts each against D.
//! - Every sub-task matched → one brain-tier model call merges the outputs into concrete
//!   data and judges each task criterion (a plan without task criteria is judged on its
//!   intent, so nothing is accepted vacuously). The code accepts only when every
//!   criterion is met (→ `OutcomeSummary`); otherwise the verdicts go to GGS in
//!   `task_criteria_verdicts` of a `ReplanRequest`, so a rejection raises D. The prompt
//!   makes ambiguity a rejection. A model error or a verdict still unusable after the
//!   model layer's re-ask is a `ReplanRequest` too, with every task criterion unjudged —
//!   never a hang, never a success.
//! - Every message to R7 carries the task's `intent` (from the manifest's TaskSpec) and
//!   `elapsed_ms` since the task's first manifest.
//! - A round still incomplete after the task's time budget plus [`ROUND_GRACE`] (the
//!   effectors stopped answering) is sent to GGS as a `ReplanRequest` recommending
//!   abandon, naming the sub-tasks with no outcome as unrun and the task criteria as
//!   unjudged.
//! - `TaskCancelled` drops the task and cancels its model call; nothing more is sent.
//!
//! **Invariant:** each round R4b collects ends in at most one message to R7, which is an
//! `OutcomeSummary` only if every sub-task matched and the code saw a passing verdict
//! for every task criterion; a `ReplanRequest` names every planned sub-task without an
//! outcome and every task criterion without a verdict; a cancelled task gets none.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;

use super::agent_validator::{CriterionJudgement, check_judgements, reply_skeleton, verdicts_from};
use super::dispatcher::{output_text, sleep_until};
use crate::bus::{Bus, BusHandle, Envelope, Inbox};
use crate::cancel::Cancellations;
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{
    Criterion, CriterionVerdict, DispatchHalted, DispatchManifest, FailureClass, Message,
    OutcomeSummary, Recommendation, ReplanRequest, Role, SubTaskId, SubTaskOutcome, SubTaskStatus,
    TaskId, UnrunSubTask,
};
use crate::ggs::evidence;
use crate::llm::{CallCtx, ChatRequest, Llm, LlmError, RoleLlm};
use crate::roles::preamble::{machine_facts, tool_preamble};
use crate::text::first_chars;
use crate::text::{Keep, elide_middle};

/// Total characters of sub-task outputs shown to the model; each output gets an equal
/// share, cut in the middle.
pub const MAX_OUTPUTS_CHARS: usize = 24_000;
/// Extra time, beyond the task's time budget, before an incomplete round is given up.
pub const ROUND_GRACE: Duration = Duration::from_secs(60);
/// Outcomes held per task before their manifest arrives.
pub const MAX_EARLY_OUTCOMES: usize = 256;
/// Tasks tracked at once; the least recently active idle ones are forgotten first.
pub const MAX_TRACKED_TASKS: usize = 1024;
/// Cancelled task ids remembered to ignore late traffic.
pub const CANCELLED_REMEMBERED: usize = 4096;

/// R4b's answer about one round in which every sub-task matched. Property order in the
/// schema is alphabetical: the merge comes first, then the verdicts, then the summary.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct MergeJudgement {
    /// The merged result as concrete data taken from the sub-task outputs — the list, the
    /// numbers, the paths or the text the user asked for — never a description of what
    /// was done.
    pub combined_output: Value,
    /// One entry per task criterion, in the order given, judged against
    /// `combined_output`.
    pub criteria: Vec<CriterionJudgement>,
    /// One or two sentences for the user that state the result.
    pub summary: String,
}

/// The semantic check of R4b's reply: a verdict per criterion, and a merged output. An
/// empty list is data ("nothing matched" is an answer); null, an empty string or an
/// empty object is a merge the model left out.
pub fn check_merge(criteria: &[Criterion], judgement: &MergeJudgement) -> Result<(), String> {
    check_judgements(criteria, &judgement.criteria)?;
    let empty = match &judgement.combined_output {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    if empty {
        return Err(
            "`combined_output` must hold the merged data from the sub-task outputs".to_string(),
        );
    }
    Ok(())
}

/// The task criteria R4b judges: the manifest's, or the intent when R2 gave none.
pub fn effective_task_criteria(manifest: &DispatchManifest, intent: &str) -> Vec<Criterion> {
    if manifest.task_criteria.is_empty() {
        let goal = if intent.trim().is_empty() {
            "the user's request"
        } else {
            intent.trim()
        };
        vec![Criterion::new(format!(
            "The merged output accomplishes this: {goal}"
        ))]
    } else {
        manifest.task_criteria.clone()
    }
}

/// R4b's instructions after the shared preamble.
const MERGE_RULES: &str = "You are R4b, the Meta-Validator. Every sub-task of the plan \
passed its own checks. You merge their outputs into the one result the user asked for, and \
judge that merged result against each task criterion. You are the last check before the \
user sees the result: be skeptical.

Rules:
1. combined_output is the result itself as concrete data taken from the sub-task outputs: \
the list, the numbers, the paths, the text the user asked for. Never a description of what \
was done, and never anything that is not in the outputs.
2. Judge each task criterion against combined_output only; it is met only when the data \
positively shows it. When the evidence is ambiguous or incomplete, it is unmet.
3. For an unmet criterion, unmet_cause: \"logical\" when the result is wrong or incomplete, \
\"environmental\" when the outputs show the environment blocked it.
4. summary: one or two sentences for the user that state the result, not the process.";

/// R4b's system prompt: the shared preamble, then R4b's rules.
pub fn system_prompt(preamble: &str) -> String {
    format!("{preamble}\n{MERGE_RULES}")
}

/// A merge reply's generation cap.
pub const MERGE_MAX_TOKENS: u32 = 800;

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

/// The user turn: the request, the criteria and every matched output.
pub fn merge_prompt(
    now: DateTime<Utc>,
    manifest: &DispatchManifest,
    intent: &str,
    criteria: &[Criterion],
    outcomes: &[&SubTaskOutcome],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Local time: {}\n",
        now.with_timezone(&chrono::Local).format("%H:%M")
    );
    if let Some(spec) = &manifest.task_spec {
        let _ = writeln!(
            out,
            "USER'S REQUEST (verbatim): {}",
            first_chars(spec.raw_input.trim(), 2_000)
        );
    }
    let _ = writeln!(out, "TASK: {}", intent.trim());
    let _ = writeln!(out, "\nTASK CRITERIA:");
    for (i, c) in criteria.iter().enumerate() {
        let _ = writeln!(out, "{}. {}", i + 1, c.criterion.trim());
    }
    let _ = writeln!(
        out,
        "\nSUB-TASK OUTPUTS ({}; each passed its own criteria):",
        outcomes.len()
    );
    let share = MAX_OUTPUTS_CHARS / outcomes.len().max(1);
    for (i, o) in outcomes.iter().enumerate() {
        let checked: Vec<&str> = o
            .criteria_verdicts
            .iter()
            .map(|v| v.criterion.as_str())
            .collect();
        let _ = writeln!(out, "[{}] checked: {}", i + 1, checked.join("; "));
        let _ = writeln!(
            out,
            "{}",
            elide_middle(&output_text(&o.output), share, Keep::Balanced)
        );
        if i + 1 < outcomes.len() {
            let _ = writeln!(out, "---");
        }
    }
    let _ = write!(
        out,
        "\nMerge the outputs into combined_output, then judge the task criteria: \
         `criteria` holds exactly {n} {entries}, one per task criterion above, in that order, \
         shaped like this:\n{}",
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

enum Phase {
    /// Waiting for outcomes until the deadline queued in `MetaValidator::deadlines`.
    Collecting,
    Judging {
        abort: AbortHandle,
    },
    /// The round's message to R7 was sent.
    Done,
}

/// One planning round of one task.
struct Round {
    generation: u64,
    manifest: DispatchManifest,
    /// The manifest's sub-tasks, once each, in manifest order.
    expected: Vec<SubTaskId>,
    outcomes: HashMap<SubTaskId, SubTaskOutcome>,
    skipped: HashSet<SubTaskId>,
    halt_reasons: Vec<String>,
    /// What the dispatcher reported of each skipped sub-task (its criteria).
    unrun: HashMap<SubTaskId, UnrunSubTask>,
    phase: Phase,
}

impl Round {
    fn complete(&self) -> bool {
        self.expected
            .iter()
            .all(|id| self.outcomes.contains_key(id) || self.skipped.contains(id))
    }

    fn outcomes_in_order(&self) -> Vec<&SubTaskOutcome> {
        self.expected
            .iter()
            .filter_map(|id| self.outcomes.get(id))
            .collect()
    }

    /// Every expected sub-task without an outcome, in manifest order: skipped ones with
    /// what the dispatcher said of them, the others (never reported) with `reason`.
    fn unrun(&self, reason: &str) -> Vec<UnrunSubTask> {
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

struct TaskTrack {
    intent: String,
    first_manifest_at: DateTime<Utc>,
    /// Manifests received: 1 + the replans directed so far.
    plans: u32,
    round: Option<Round>,
    /// Outcomes that arrived before a manifest naming them.
    early: HashMap<SubTaskId, SubTaskOutcome>,
    last_active: u64,
}

type Judged = (TaskId, u64, Result<MergeJudgement, LlmError>);

/// R4b wired to the bus.
pub struct MetaValidator {
    bus: BusHandle,
    inbox: Inbox,
    llm: RoleLlm,
    cancellations: Cancellations,
    clock: SharedClock,
    max_replans: u32,
    round_timeout: Duration,
    tasks: HashMap<TaskId, TaskTrack>,
    cancelled: VecDeque<TaskId>,
    judging: JoinSet<Judged>,
    /// Collecting deadlines, soonest first: (deadline, round generation, task). An entry
    /// whose round has moved on is dropped when it reaches the top, so the next deadline
    /// costs no scan over the (up to [`MAX_TRACKED_TASKS`]) finished tasks kept.
    deadlines: BinaryHeap<Reverse<(Instant, u64, TaskId)>>,
    generation: u64,
    activity: u64,
    home: std::path::PathBuf,
    workspace: std::path::PathBuf,
}

impl MetaValidator {
    /// Subscribes now, so nothing addressed to R4b after this call is missed.
    pub fn new(
        config: &Config,
        bus: &Bus,
        llm: &Llm,
        cancellations: Cancellations,
        clock: SharedClock,
    ) -> Self {
        let handle = bus.handle(Role::MetaValidator);
        Self {
            llm: llm
                .for_role(handle.clone())
                .expect("R4b runs on the brain tier"),
            bus: handle,
            inbox: bus.subscribe(Role::MetaValidator),
            cancellations,
            clock,
            max_replans: config.budgets.max_replans,
            round_timeout: Duration::from_millis(config.budgets.time_budget_ms) + ROUND_GRACE,
            tasks: HashMap::new(),
            cancelled: VecDeque::new(),
            judging: JoinSet::new(),
            deadlines: BinaryHeap::new(),
            home: config.home.clone(),
            workspace: config.workspace.clone(),
            generation: 0,
            activity: 0,
        }
    }

    /// Overrides how long a round may wait for its outcomes.
    pub fn with_round_timeout(mut self, timeout: Duration) -> Self {
        self.round_timeout = timeout;
        self
    }

    /// Runs [`MetaValidator::run`] on the current tokio runtime.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run())
    }

    /// Serves until the bus closes; a model call still running then is aborted.
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
                        Ok((task, generation, judged)) => self.on_judged(&task, generation, judged),
                        Err(e) if e.is_cancelled() => {}
                        Err(e) => tracing::error!(error = %e, "an R4b judgement task failed"),
                    }
                }
                () = sleep_until(deadline), if deadline.is_some() => self.on_deadlines(),
            }
        }
        self.judging.abort_all();
    }

    /// The soonest deadline of a round still collecting.
    fn next_deadline(&mut self) -> Option<Instant> {
        while let Some(Reverse((deadline, generation, task))) = self.deadlines.peek() {
            if self.is_collecting(task, *generation) {
                return Some(*deadline);
            }
            self.deadlines.pop();
        }
        None
    }

    fn is_collecting(&self, task: &TaskId, generation: u64) -> bool {
        self.tasks
            .get(task)
            .and_then(|t| t.round.as_ref())
            .is_some_and(|r| r.generation == generation && matches!(r.phase, Phase::Collecting))
    }

    fn is_cancelled(&self, task: &TaskId) -> bool {
        self.cancelled.contains(task) || self.cancellations.is_cancelled(task)
    }

    fn on_envelope(&mut self, env: &Arc<Envelope>) {
        match &env.message {
            Message::TaskCancelled(c) => self.cancel(&c.task_id),
            Message::DispatchManifest(m) if env.from == Role::Planner => {
                self.on_manifest(m, env.timestamp)
            }
            Message::SubTaskOutcome(o) if env.from == Role::AgentValidator => self.on_outcome(o),
            Message::DispatchHalted(h) if env.from == Role::Dispatcher => self.on_halted(h),
            other => tracing::warn!(from = %env.from, kind = other.kind().name(),
                "R4b ignores a message it has no contract for"),
        }
    }

    fn cancel(&mut self, task: &TaskId) {
        self.cancellations.cancel(task);
        if let Some(track) = self.tasks.remove(task)
            && let Some(Round {
                phase: Phase::Judging { abort },
                ..
            }) = &track.round
        {
            abort.abort();
        }
        if !self.cancelled.contains(task) {
            self.cancelled.push_back(task.clone());
            while self.cancelled.len() > CANCELLED_REMEMBERED {
                self.cancelled.pop_front();
            }
        }
    }

    fn touch(&mut self, task: &TaskId) {
        self.activity += 1;
        if let Some(t) = self.tasks.get_mut(task) {
            t.last_active = self.activity;
        }
    }

    /// Forgets the least recently active tasks that are not collecting or judging.
    fn evict(&mut self) {
        while self.tasks.len() > MAX_TRACKED_TASKS {
            let idle = self
                .tasks
                .iter()
                .filter(|(_, t)| {
                    t.round
                        .as_ref()
                        .is_none_or(|r| matches!(r.phase, Phase::Done))
                })
                .min_by_key(|(_, t)| t.last_active)
                .map(|(id, _)| id.clone());
            match idle {
                Some(id) => {
                    self.tasks.remove(&id);
                }
                None => break,
            }
        }
    }

    fn on_manifest(&mut self, manifest: &DispatchManifest, at: DateTime<Utc>) {
        let task_id = manifest.task_id.clone();
        if self.is_cancelled(&task_id) {
            return;
        }
        let track = self
            .tasks
            .entry(task_id.clone())
            .or_insert_with(|| TaskTrack {
                intent: String::new(),
                first_manifest_at: at,
                plans: 0,
                round: None,
                early: HashMap::new(),
                last_active: 0,
            });
        if let Some(current) = &track.round {
            if manifest.round < current.manifest.round
                || (manifest.round == current.manifest.round
                    && manifest.subtask_ids == current.manifest.subtask_ids)
            {
                tracing::warn!(task = %task_id, round = manifest.round,
                    current = current.manifest.round, "stale or repeated manifest ignored");
                return;
            }
            if let Phase::Judging { abort } = &current.phase {
                abort.abort();
            }
            if !matches!(current.phase, Phase::Done) {
                tracing::info!(task = %task_id, old = current.manifest.round, new = manifest.round,
                    "a newer plan supersedes the round being collected");
            }
        }
        if let Some(spec) = &manifest.task_spec
            && !spec.intent.trim().is_empty()
        {
            track.intent = spec.intent.clone();
        }
        track.plans += 1;
        self.generation += 1;
        let mut expected = Vec::with_capacity(manifest.subtask_ids.len());
        for id in &manifest.subtask_ids {
            if !expected.contains(id) {
                expected.push(*id);
            }
        }
        let mut outcomes = HashMap::new();
        for id in &expected {
            if let Some(o) = track.early.remove(id) {
                outcomes.insert(*id, o);
            }
        }
        // What is left belongs to no plan R4b knows: a superseded round's stragglers.
        track.early.clear();
        let deadline = Instant::now() + self.round_timeout;
        track.round = Some(Round {
            generation: self.generation,
            manifest: manifest.clone(),
            expected,
            outcomes,
            skipped: HashSet::new(),
            halt_reasons: Vec::new(),
            unrun: HashMap::new(),
            phase: Phase::Collecting,
        });
        self.deadlines
            .push(Reverse((deadline, self.generation, task_id.clone())));
        self.touch(&task_id);
        self.evict();
        self.evaluate_if_complete(&task_id);
    }

    fn on_outcome(&mut self, outcome: &SubTaskOutcome) {
        let task_id = outcome.parent_task_id.clone();
        if self.is_cancelled(&task_id) {
            return;
        }
        let Some(track) = self.tasks.get_mut(&task_id) else {
            tracing::warn!(task = %task_id, subtask = %outcome.subtask_id,
                "an outcome arrived before any manifest of its task; held");
            let now = self.clock.now();
            let track = self
                .tasks
                .entry(task_id.clone())
                .or_insert_with(|| TaskTrack {
                    intent: String::new(),
                    first_manifest_at: now,
                    plans: 0,
                    round: None,
                    early: HashMap::new(),
                    last_active: 0,
                });
            track.early.insert(outcome.subtask_id, outcome.clone());
            return;
        };
        let Some(round) = track.round.as_mut() else {
            if track.early.len() < MAX_EARLY_OUTCOMES {
                track.early.insert(outcome.subtask_id, outcome.clone());
            }
            return;
        };
        if !round.expected.contains(&outcome.subtask_id) {
            tracing::debug!(task = %task_id, subtask = %outcome.subtask_id,
                "outcome of a sub-task outside the current round (superseded) ignored");
            return;
        }
        if !matches!(round.phase, Phase::Collecting) {
            tracing::debug!(task = %task_id, subtask = %outcome.subtask_id,
                "outcome after the round was evaluated ignored");
            return;
        }
        if round.outcomes.contains_key(&outcome.subtask_id) {
            tracing::warn!(subtask = %outcome.subtask_id, "a second outcome for a sub-task ignored");
            return;
        }
        round.outcomes.insert(outcome.subtask_id, outcome.clone());
        self.touch(&task_id);
        self.evaluate_if_complete(&task_id);
    }

    fn on_halted(&mut self, halted: &DispatchHalted) {
        let task_id = halted.task_id.clone();
        if self.is_cancelled(&task_id) {
            return;
        }
        let Some(round) = self.tasks.get_mut(&task_id).and_then(|t| t.round.as_mut()) else {
            return;
        };
        if !matches!(round.phase, Phase::Collecting) {
            return;
        }
        let mine: Vec<SubTaskId> = halted
            .skipped
            .iter()
            .filter(|id| round.expected.contains(id))
            .copied()
            .collect();
        if mine.is_empty() {
            tracing::debug!(task = %task_id, "a halt of a superseded round ignored");
            return;
        }
        for unrun in &halted.unrun {
            if mine.contains(&unrun.subtask_id) {
                let mut unrun = unrun.clone();
                if unrun.reason.trim().is_empty() {
                    unrun.reason = halted.reason.clone();
                }
                round.unrun.insert(unrun.subtask_id, unrun);
            }
        }
        round.skipped.extend(mine);
        round.halt_reasons.push(halted.reason.clone());
        self.evaluate_if_complete(&task_id);
    }

    fn evaluate_if_complete(&mut self, task_id: &TaskId) {
        let now = self.clock.now();
        let Some(track) = self.tasks.get_mut(task_id) else {
            return;
        };
        let Some(round) = track.round.as_mut() else {
            return;
        };
        if !matches!(round.phase, Phase::Collecting) || !round.complete() {
            return;
        }
        let outcomes = round.outcomes_in_order();
        let failed: Vec<&SubTaskOutcome> = outcomes
            .iter()
            .copied()
            .filter(|o| o.status == SubTaskStatus::Failed)
            .collect();
        if !failed.is_empty() || !round.skipped.is_empty() || round.expected.is_empty() {
            // The code gate: no model call when anything failed or did not run. What did
            // not run and the task criteria nobody judged go to GGS as unobserved.
            let mut gap = gate_gap(round, &failed);
            let subject = round
                .manifest
                .task_spec
                .as_ref()
                .map(|s| format!("{}\n{}", s.intent, s.raw_input))
                .unwrap_or_else(|| track.intent.clone());
            let missing = missing_subject(&subject, &failed);
            let unrun = round.unrun("not run");
            let unjudged = effective_task_criteria(&round.manifest, &track.intent);
            round.phase = Phase::Done;
            if !missing.is_empty() {
                gap = format!(
                    "what the task names does not exist or cannot be reached: {} ({gap})",
                    missing.join(", ")
                );
            }
            let mut request = replan_request(track, now, self.max_replans, gap, vec![]);
            request.unrun_subtasks = unrun;
            request.unjudged_task_criteria = unjudged;
            if !missing.is_empty() {
                // No plan can make it exist: the honest answer is that it is missing.
                request.recommendation = Recommendation::Abandon;
            }
            self.bus.publish(Role::Ggs, request);
            return;
        }
        if let [only] = outcomes.as_slice()
            && round.manifest.task_criteria.is_empty()
        {
            // One sub-task and no task criterion of its own: the task's result is that
            // sub-task's output, whose criteria R4a already judged on tool evidence
            // (matched = every one passed). A model merge would only paraphrase it.
            let summary = OutcomeSummary {
                task_id: task_id.clone(),
                intent: track.intent.clone(),
                merged_output: only.output.clone(),
                summary: single_summary(&only.output, &track.intent),
                task_criteria_verdicts: only.criteria_verdicts.clone(),
                outcomes: vec![(*only).clone()],
                elapsed_ms: elapsed_ms(track.first_manifest_at, now),
            };
            round.phase = Phase::Done;
            self.bus.publish(Role::Ggs, summary);
            return;
        }
        let criteria = effective_task_criteria(&round.manifest, &track.intent);
        let prompt = merge_prompt(now, &round.manifest, &track.intent, &criteria, &outcomes);
        let chat = ChatRequest::new(system_prompt(tool_preamble()), prompt)
            .facts_first(&machine_facts(&self.home, &self.workspace, now))
            .temperature(0.0)
            .max_tokens(MERGE_MAX_TOKENS);
        let ctx = CallCtx::for_task(task_id.clone(), self.cancellations.token(task_id));
        let checked = criteria.clone();
        let llm = self.llm.clone();
        let generation = round.generation;
        let task = task_id.clone();
        let abort = self.judging.spawn(async move {
            let judged = llm
                .structured_checked::<MergeJudgement, _>(&ctx, &chat, |j| check_merge(&checked, j))
                .await
                .map(|s| s.value);
            (task, generation, judged)
        });
        round.phase = Phase::Judging { abort };
    }

    fn on_judged(
        &mut self,
        task_id: &TaskId,
        generation: u64,
        judged: Result<MergeJudgement, LlmError>,
    ) {
        let now = self.clock.now();
        let max_replans = self.max_replans;
        let Some(track) = self.tasks.get_mut(task_id) else {
            return; // cancelled meanwhile
        };
        let Some(round) = track.round.as_mut() else {
            return;
        };
        if round.generation != generation || !matches!(round.phase, Phase::Judging { .. }) {
            tracing::debug!(task = %task_id, "judgement of a superseded round ignored");
            return;
        }
        round.phase = Phase::Done;
        let criteria = effective_task_criteria(&round.manifest, &track.intent);
        let judged = match judged {
            Err(LlmError::Cancelled) => {
                tracing::debug!(task = %task_id, "R4b's judgement was cancelled with its task");
                let task = task_id.clone();
                return self.cancel(&task);
            }
            Err(e) => Err(e.to_string()),
            Ok(j) => verdicts_from(&criteria, &j.criteria, FailureClass::Logical).map(|v| (j, v)),
        };
        let (judgement, verdicts) = match judged {
            Ok(judged) => judged,
            Err(problem) => {
                let gap = format!(
                    "every sub-task matched, but the meta-validator could not judge the merged \
                     output against the task criteria: {problem}"
                );
                let mut request = replan_request(track, now, max_replans, gap, vec![]);
                request.unjudged_task_criteria = criteria;
                self.bus.publish(Role::Ggs, request);
                return;
            }
        };
        let unmet: Vec<&CriterionVerdict> = verdicts.iter().filter(|v| v.failed()).collect();
        if unmet.is_empty() {
            let outcomes = round
                .outcomes_in_order()
                .into_iter()
                .cloned()
                .collect::<Vec<_>>();
            let summary = OutcomeSummary {
                task_id: task_id.clone(),
                intent: track.intent.clone(),
                merged_output: judgement.combined_output,
                summary: judgement.summary.trim().to_string(),
                task_criteria_verdicts: verdicts,
                outcomes,
                elapsed_ms: elapsed_ms(track.first_manifest_at, now),
            };
            self.bus.publish(Role::Ggs, summary);
            return;
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
        let request = replan_request(track, now, max_replans, gap, verdicts);
        self.bus.publish(Role::Ggs, request);
    }

    fn on_deadlines(&mut self) {
        let now_instant = Instant::now();
        let now = self.clock.now();
        let mut expired = Vec::new();
        while let Some(Reverse((deadline, _, _))) = self.deadlines.peek()
            && *deadline <= now_instant
        {
            let Some(Reverse((_, generation, task))) = self.deadlines.pop() else {
                break;
            };
            if self.is_collecting(&task, generation) {
                expired.push(task);
            }
        }
        for task_id in expired {
            let Some(track) = self.tasks.get_mut(&task_id) else {
                continue;
            };
            let Some(round) = track.round.as_mut() else {
                continue;
            };
            let missing: Vec<SubTaskId> = round
                .expected
                .iter()
                .filter(|id| !round.outcomes.contains_key(id) && !round.skipped.contains(id))
                .copied()
                .collect();
            let unrun = round.unrun(&format!(
                "reported no outcome within {}s",
                self.round_timeout.as_secs()
            ));
            let unjudged = effective_task_criteria(&round.manifest, &track.intent);
            round.phase = Phase::Done;
            let gap = format!(
                "{} of {} sub-task(s) reported no outcome within {}s (the effectors stopped \
                 answering): {}",
                missing.len(),
                round.expected.len(),
                self.round_timeout.as_secs(),
                missing
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            tracing::warn!(task = %task_id, %gap, "round given up");
            let mut request = replan_request(track, now, self.max_replans, gap, vec![]);
            request.failed_subtasks.extend(missing);
            request.unrun_subtasks = unrun;
            request.unjudged_task_criteria = unjudged;
            request.recommendation = Recommendation::Abandon;
            self.bus.publish(Role::Ggs, request);
        }
    }
}

fn elapsed_ms(since: DateTime<Utc>, now: DateTime<Utc>) -> u64 {
    u64::try_from((now - since).num_milliseconds()).unwrap_or(0)
}

/// The resources the task itself names (a file, a folder, a URL) that every failed
/// sub-task ran into as missing or unreachable. Non-empty only when each failed sub-task
/// has such a call: then the failure is the environment's answer to the task, and
/// another plan cannot change it.
pub fn missing_subject(subject: &str, failed: &[&SubTaskOutcome]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for outcome in failed {
        let hit = outcome.tool_calls.iter().find_map(|c| {
            let text = c.error.clone().unwrap_or_else(|| c.output_head.clone());
            evidence::missing_resource(&text).filter(|r| evidence::names(subject, r))
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

fn replan_request(
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
        elapsed_ms: elapsed_ms(track.first_manifest_at, now),
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
    use super::*;
    use crate::clock::{Clock as _, FakeClock};
    use crate::contracts::{GapPoint, TaskSpec};

    fn judged(met: bool) -> CriterionJudgement {
        CriterionJudgement {
            criterion: "c".into(),
            evidence: "e".into(),
            met,
            unmet_cause: None,
        }
    }

    #[test]
    fn an_empty_merge_is_not_a_usable_answer() {
        let one = [Criterion::new("c")];
        let two = [Criterion::new("c"), Criterion::new("d")];
        let mut j = MergeJudgement {
            combined_output: Value::Null,
            criteria: vec![judged(true)],
            summary: "s".into(),
        };
        assert!(check_merge(&one, &j).is_err());
        j.combined_output = Value::String("  ".into());
        assert!(check_merge(&one, &j).is_err());
        j.combined_output = serde_json::json!(["a.txt"]);
        assert!(check_merge(&one, &j).is_ok());
        j.combined_output = serde_json::json!([]);
        assert!(check_merge(&one, &j).is_ok(), "an empty list is an answer");
        assert!(check_merge(&two, &j).is_err());
    }

    #[test]
    fn a_plan_without_task_criteria_is_judged_on_its_intent() {
        let m = DispatchManifest {
            task_id: TaskId::mint(),
            subtask_ids: vec![],
            task_spec: None,
            dispatched_at: FakeClock::at_epoch().now(),
            task_criteria: vec![],
            round: 0,
        };
        let c = effective_task_criteria(&m, "find the largest file");
        assert_eq!(c.len(), 1);
        assert!(c[0].criterion.contains("find the largest file"));
    }

    #[test]
    fn the_merge_prompt_quotes_the_request_criteria_and_outputs() {
        let task = TaskId::mint();
        let m = DispatchManifest {
            task_id: task.clone(),
            subtask_ids: vec![],
            task_spec: Some(TaskSpec {
                task_id: task.clone(),
                intent: "list files".into(),
                constraints: Default::default(),
                raw_input: "what's in /tmp/x?".into(),
            }),
            dispatched_at: FakeClock::at_epoch().now(),
            task_criteria: vec![Criterion::new("names every file")],
            round: 0,
        };
        let o = SubTaskOutcome {
            subtask_id: SubTaskId::mint(),
            parent_task_id: task,
            status: SubTaskStatus::Matched,
            output: Value::String("a.txt\nb.txt".into()),
            failure_reason: None,
            gap_trajectory: vec![GapPoint {
                attempt: 1,
                score: 1.0,
                unmet_criteria: vec![],
                failure_class: None,
            }],
            criteria_verdicts: vec![],
            tool_calls: vec![],
        };
        let p = merge_prompt(
            FakeClock::at_epoch().now(),
            &m,
            "list files",
            &m.task_criteria,
            &[&o],
        );
        assert!(p.contains("USER'S REQUEST (verbatim): what's in /tmp/x?"));
        assert!(p.contains("1. names every file"));
        assert!(p.contains("a.txt\nb.txt"));
    }
}
