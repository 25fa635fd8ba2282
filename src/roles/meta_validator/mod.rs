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
//! - A round still incomplete after the task's time budget plus the round grace of
//!   [`crate::limits::Limits`] (the effectors stopped answering) is sent to GGS as a
//!   `ReplanRequest` recommending abandon, naming the sub-tasks with no outcome as unrun and the task criteria as
//!   unjudged.
//! - `TaskClosed` drops the task and stops its model call; nothing more is sent.
//!
//! The parts: `state` holds the pure fan-in (a round's manifest, outcomes and halts →
//! the gate's decision, or the message a judgement comes to), `schema` the reply the
//! model fills, `prompt` its prompts; this file the bus actor, its deadlines and the
//! model call.
//!
//! **Invariant:** each round R4b collects ends in at most one message to R7, which is an
//! `OutcomeSummary` only if every sub-task matched and the code saw a passing verdict
//! for every task criterion; a `ReplanRequest` names every planned sub-task without an
//! outcome and every task criterion without a verdict; a cancelled task gets none.

mod prompt;
mod schema;
mod state;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::time::Instant;

pub use self::prompt::{MAX_OUTPUTS_CHARS, MERGE_MAX_TOKENS, merge_prompt, system_prompt};
pub use self::schema::{MergeJudgement, check_merge};
use self::state::{Gate, Phase, Round, TaskTrack, expired, gate, judge};
pub use self::state::{effective_task_criteria, missing_subject};
use crate::actor::{Actor, Cx, Runner};
use crate::bus::{Bus, Envelope};
use crate::checks::criteria::World;
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{
    DispatchHalted, DispatchManifest, Message, Role, SubTaskId, SubTaskOutcome, TaskClosed, TaskId,
};
use crate::lifecycle::Registry;
use crate::llm::{CallCtx, ChatRequest, Llm, LlmError, RoleLlm};
use crate::roles::preamble::{machine_facts, tool_preamble};

type Judged = (TaskId, u64, Result<MergeJudgement, LlmError>);

/// R4b wired to the bus.
pub struct MetaValidator(Runner<Gatekeeper>);

/// R4b's state and reactions.
struct Gatekeeper {
    llm: RoleLlm,
    registry: Registry,
    clock: SharedClock,
    max_replans: u32,
    round_timeout: Duration,
    tasks: HashMap<TaskId, TaskTrack>,
    /// Live tasks followed at once; the least recently active idle ones go first.
    max_tasks: usize,
    /// Outcomes held per task before their manifest arrives.
    max_early_outcomes: usize,
    generation: u64,
    activity: u64,
    home: std::path::PathBuf,
    workspace: std::path::PathBuf,
    /// Where the checks of the task's criteria look.
    world: World,
}

impl MetaValidator {
    /// Subscribes now, so nothing addressed to R4b after this call is missed.
    pub fn new(
        config: &Config,
        bus: &Bus,
        llm: &Llm,
        registry: Registry,
        clock: SharedClock,
    ) -> Self {
        let limits = config.limits();
        let gatekeeper = Gatekeeper {
            llm: llm
                .for_role(bus.handle(Role::MetaValidator))
                .expect("R4b runs on the brain tier"),
            registry: registry.clone(),
            clock,
            max_replans: config.budgets.max_replans,
            round_timeout: limits.task_budget + limits.round_grace,
            tasks: HashMap::new(),
            max_tasks: limits.live_tasks_tracked,
            max_early_outcomes: limits.early_outcomes,
            home: config.home.clone(),
            workspace: config.workspace.clone(),
            world: World::disk(config.home.clone()),
            generation: 0,
            activity: 0,
        };
        Self(Runner::new(gatekeeper, bus, Role::MetaValidator, registry))
    }

    /// Overrides how long a round may wait for its outcomes.
    pub fn with_round_timeout(mut self, timeout: Duration) -> Self {
        self.0.actor_mut().round_timeout = timeout;
        self
    }

    /// Runs [`MetaValidator::run`] on the current tokio runtime.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run())
    }

    /// Serves until the bus closes; a model call still running then is aborted.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Gatekeeper {
    type Done = Judged;
    /// The generation of the round whose outcomes are due.
    type Timer = u64;

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        if let Some(task) = &env.task_id {
            self.note_person_time(task, cx);
        }
        match &env.message {
            Message::DispatchManifest(m) => self.on_manifest(m, env.timestamp, cx),
            Message::SubTaskOutcome(o) => self.on_outcome(o, cx),
            Message::DispatchHalted(h) => self.on_halted(h, cx),
            other => tracing::warn!(from = %env.from, kind = other.kind().name(),
                "R4b ignores a message it has no contract for"),
        }
    }

    fn on_done(
        &mut self,
        _task: TaskId,
        (task, generation, judged): Judged,
        cx: &mut Cx<'_, Self>,
    ) {
        self.note_person_time(&task, cx);
        self.on_judged(&task, generation, judged, cx);
    }

    fn on_deadline(&mut self, task: TaskId, generation: u64, cx: &mut Cx<'_, Self>) {
        self.note_person_time(&task, cx);
        if self.is_collecting(&task, generation) {
            self.round_overdue(&task, cx);
        }
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        self.tasks.remove(&closed.task_id);
    }
}

impl Gatekeeper {
    /// Brings the task's person time up to date before R4b judges anything of it.
    fn note_person_time(&mut self, task: &TaskId, cx: &Cx<'_, Self>) {
        if let Some(t) = self.tasks.get_mut(task) {
            t.person_now = cx.person_time(task).waited;
        }
    }

    fn is_collecting(&self, task: &TaskId, generation: u64) -> bool {
        self.tasks
            .get(task)
            .and_then(|t| t.round.as_ref())
            .is_some_and(|r| r.generation == generation && matches!(r.phase, Phase::Collecting))
    }

    fn touch(&mut self, task: &TaskId) {
        self.activity += 1;
        if let Some(t) = self.tasks.get_mut(task) {
            t.last_active = self.activity;
        }
    }

    /// Forgets the least recently active tasks that are not collecting or judging.
    fn evict(&mut self) {
        while self.tasks.len() > self.max_tasks {
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

    fn on_manifest(
        &mut self,
        manifest: &DispatchManifest,
        at: DateTime<Utc>,
        cx: &mut Cx<'_, Self>,
    ) {
        let task_id = manifest.task_id.clone();
        let track = self
            .tasks
            .entry(task_id.clone())
            .or_insert_with(|| TaskTrack {
                intent: String::new(),
                first_manifest_at: at,
                person_at_first: cx.person_time(&task_id).waited,
                person_now: cx.person_time(&task_id).waited,
                plans: 0,
                round: None,
                early: HashMap::new(),
                last_active: 0,
                misfits: Vec::new(),
            });
        if let Some(current) = &track.round {
            if manifest.round < current.manifest.round
                || (manifest.round == current.manifest.round
                    && manifest.subtask_ids().eq(current.manifest.subtask_ids()))
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
        let mut expected = Vec::with_capacity(manifest.subtasks.len());
        for id in manifest.subtask_ids() {
            if !expected.contains(&id) {
                expected.push(id);
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
        cx.at_task_time(
            Instant::now() + self.round_timeout,
            &task_id,
            self.generation,
        );
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
        self.touch(&task_id);
        self.evict();
        self.evaluate_if_complete(&task_id, cx);
    }

    fn on_outcome(&mut self, outcome: &SubTaskOutcome, cx: &mut Cx<'_, Self>) {
        let task_id = outcome.parent_task_id.clone();
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
                    person_at_first: cx.person_time(&task_id).waited,
                    person_now: cx.person_time(&task_id).waited,
                    plans: 0,
                    round: None,
                    early: HashMap::new(),
                    last_active: 0,
                    misfits: Vec::new(),
                });
            track.early.insert(outcome.subtask_id, outcome.clone());
            return;
        };
        let Some(round) = track.round.as_mut() else {
            if track.early.len() < self.max_early_outcomes {
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
        self.evaluate_if_complete(&task_id, cx);
    }

    fn on_halted(&mut self, halted: &DispatchHalted, cx: &mut Cx<'_, Self>) {
        let task_id = halted.task_id.clone();
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
        self.evaluate_if_complete(&task_id, cx);
    }

    fn evaluate_if_complete(&mut self, task_id: &TaskId, cx: &mut Cx<'_, Self>) {
        let now = self.clock.now();
        let Some(track) = self.tasks.get_mut(task_id) else {
            return;
        };
        let Some(gate) = gate(task_id, track, now, self.max_replans, &self.world) else {
            return;
        };
        let criteria = match gate {
            Gate::Merge { criteria } => criteria,
            Gate::Send(message) => {
                if let Some(round) = track.round.as_mut() {
                    round.phase = Phase::Done;
                }
                cx.publish(Role::Ggs, message);
                return;
            }
            Gate::Reshape { request, answer } => {
                track.misfits.push(answer);
                if let Some(round) = track.round.as_mut() {
                    round.phase = Phase::Done;
                }
                cx.publish(Role::Ggs, request);
                return;
            }
        };
        let Some(round) = track.round.as_mut() else {
            return;
        };
        let outcomes = round.outcomes_in_order();
        let prompt = merge_prompt(now, &round.manifest, &track.intent, &criteria, &outcomes);
        let chat = ChatRequest::new(system_prompt(tool_preamble()), prompt)
            .facts_first(&machine_facts(&self.home, &self.workspace, now))
            .temperature(0.0)
            .max_tokens(MERGE_MAX_TOKENS);
        let ctx = CallCtx::for_task(task_id.clone(), self.registry.token(task_id));
        let checked = criteria;
        let llm = self.llm.clone();
        let generation = round.generation;
        let task = task_id.clone();
        let abort = cx.spawn(task_id, async move {
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
        cx: &mut Cx<'_, Self>,
    ) {
        let now = self.clock.now();
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
        let judged = match judged {
            Err(LlmError::Cancelled) => {
                tracing::debug!(task = %task_id, "R4b's judgement was cancelled with its task");
                self.tasks.remove(task_id);
                return;
            }
            Err(e) => Err(e.to_string()),
            Ok(j) => Ok(j),
        };
        let (message, misfit) = judge(task_id, track, (now, self.max_replans), judged, &self.world);
        track.misfits.extend(misfit);
        cx.publish(Role::Ggs, message);
    }

    /// The round of `task_id` still lacks outcomes after its time: it is given up.
    fn round_overdue(&mut self, task_id: &TaskId, cx: &mut Cx<'_, Self>) {
        let now = self.clock.now();
        let Some(track) = self.tasks.get_mut(task_id) else {
            return;
        };
        let Some(request) = expired(track, now, self.max_replans, self.round_timeout) else {
            return;
        };
        if let Some(round) = track.round.as_mut() {
            round.phase = Phase::Done;
        }
        tracing::warn!(task = %task_id, gap = %request.gap_summary, "round given up");
        cx.publish(Role::Ggs, request);
    }
}
