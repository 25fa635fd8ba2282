//! R2 Planner: the actuator of the medium loop. Consumes its inbox:
//! - `TaskSpec` from R1 → the task's first plan (round 0);
//! - `PlanDirective` from R7 → a replan of that task under the directive;
//! - `GracefulFailureRequest` from R7 (a request) → one `GracefulFailure` reply;
//! - `TaskClosed` → the task's state is dropped; nothing more is published for it.
//!
//! Every plan and replan: the Memory Calibration Protocol ([`calibration`]: one
//! `MemoryQuery` per memory group to R5, no model call) → `MemoryRecall` to R7 → one
//! model call for `{task_criteria, subtasks}` ([`prompt`], answered in the shapes of [`schema`]) → the
//! plan validator ([`validator`]), re-asking at most `budgets.plan_reasks` times with the
//! violations quoted → runtime-minted `SubTaskId`s → one `DispatchManifest` to the
//! dispatcher (R4b hears it) holding every sub-task, each carrying the task's MUST NOT
//! tools and targets and the Caution tools it must confirm. No valid plan → one
//! `PlanningFailed` to R7, which abandons honestly.
//!
//! State is kept per task (the spec, the last plan dispatched), so a directive is always
//! planned against its own task's spec, never against a newer task's. Each task's rounds
//! run one after another in their own spawned job; tasks never wait for each other.
//!
//! **Invariant:** R2 publishes nothing for a task after it was cancelled, never hangs on
//! memory (every query is bounded), and every plan it dispatches passed the validator.

pub mod calibration;
pub mod prompt;
pub mod schema;
mod state;
pub mod validator;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use self::calibration::{Answer, Calibration, CautionGate};
use self::prompt::PlanSummary;
use self::schema::{DraftCriterion, GracefulDraft, PlanDraft};
use self::state::{PlanSlot, Tasks};
use self::validator::PlanRules;
use crate::bus::{Bus, BusHandle, Envelope};
use crate::clock::SharedClock;
use crate::config::Config;
use crate::contracts::{
    Criterion, DispatchManifest, EnvelopeId, GracefulFailure, GracefulFailureRequest, Message,
    PlanDirective, PlanningFailed, ReplanDirective, Role, SubTask, SubTaskId, TaskClosed, TaskSpec,
};
use crate::ggs::graceful::{self, FailureFacts};
use crate::lifecycle::Registry;
use crate::llm::{CallCtx, Llm, LlmError, REASK_ECHO_CHARS, RoleLlm};
use crate::roles::preamble::{machine_facts, tool_preamble};
use crate::roles::runner::{Actor, Cx, Runner};
use crate::text::first_chars;
use crate::tools::{ToolRef, places};

/// R2 wired to the bus.
pub struct Planner(Runner<Plan>);

/// R2's reactions: one planning job per round, one graceful-failure job per abandon.
struct Plan {
    shared: Arc<Shared>,
    tasks: Tasks,
}

struct Shared {
    bus: BusHandle,
    llm: RoleLlm,
    clock: SharedClock,
    registry: Registry,
    plan_reasks: u32,
    max_constraints: usize,
    home: PathBuf,
    workspace: PathBuf,
    memory_timeout: Duration,
    graceful_budget: Duration,
}

impl Planner {
    /// Subscribes now, so nothing addressed to R2 after this call is missed.
    pub fn new(
        config: &Config,
        bus: &Bus,
        llm: &Llm,
        clock: SharedClock,
        registry: Registry,
    ) -> Result<Self, LlmError> {
        let handle = bus.handle(Role::Planner);
        let limits = config.limits();
        let plan = Plan {
            tasks: Tasks::new(limits.live_tasks_tracked),
            shared: Arc::new(Shared {
                llm: llm.for_role(handle.clone())?,
                bus: handle,
                clock,
                registry: registry.clone(),
                plan_reasks: config.budgets.plan_reasks,
                max_constraints: config.memory.max_constraints,
                home: config.home.clone(),
                workspace: config.workspace.clone(),
                memory_timeout: limits.memory_query_timeout,
                graceful_budget: limits.graceful_reply_budget,
            }),
        };
        Ok(Self(Runner::new(plan, bus, Role::Planner, registry)))
    }

    /// Overrides how long R2 waits for memory (`Limits::memory_query_timeout`).
    pub fn with_memory_timeout(mut self, timeout: Duration) -> Self {
        self.shared_mut().memory_timeout = timeout;
        self
    }

    /// Overrides R2's graceful-failure budget (`Limits::graceful_reply_budget`).
    pub fn with_graceful_budget(mut self, budget: Duration) -> Self {
        self.shared_mut().graceful_budget = budget;
        self
    }

    fn shared_mut(&mut self) -> &mut Shared {
        Arc::get_mut(&mut self.0.actor_mut().shared)
            .expect("the planner is configured before it runs")
    }

    /// Serves until the bus closes; jobs still running then are dropped.
    pub async fn run(self) {
        self.0.run().await;
    }
}

impl Actor for Plan {
    type Done = ();
    type Timer = ();

    fn on_message(&mut self, env: &Arc<Envelope>, cx: &mut Cx<'_, Self>) {
        let shared = Arc::clone(&self.shared);
        match &env.message {
            Message::TaskSpec(spec) => {
                let (spec, slot) = self.tasks.start(spec.clone());
                cx.spawn(&spec.task_id.clone(), shared.plan(spec, None, slot));
            }
            Message::PlanDirective(d) => match self.tasks.get(&d.task_id) {
                Some((spec, slot)) => {
                    cx.spawn(&d.task_id, shared.plan(spec, Some(d.clone()), slot));
                }
                None => shared.unknown_task(d),
            },
            Message::GracefulFailureRequest(r) => {
                // The task is ending: this is the last R2 hears of it.
                let spec = self.tasks.remove(&r.task_id).map(|e| e.spec);
                cx.spawn(&r.task_id, shared.graceful(env.id, r.clone(), spec));
            }
            _ => {}
        }
    }

    fn on_task_closed(&mut self, closed: &TaskClosed, _cx: &mut Cx<'_, Self>) {
        self.tasks.remove(&closed.task_id);
    }
}

/// Why a round produced no plan.
enum RoundError {
    Cancelled,
    Failed(String),
}

fn live(token: &CancellationToken) -> Result<(), RoundError> {
    if token.is_cancelled() {
        Err(RoundError::Cancelled)
    } else {
        Ok(())
    }
}

impl Shared {
    /// One planning round of a task, then its bookkeeping.
    async fn plan(
        self: Arc<Self>,
        spec: Arc<TaskSpec>,
        directive: Option<PlanDirective>,
        slot: PlanSlot,
    ) {
        let token = self.registry.token(&spec.task_id);
        let mut previous = tokio::select! {
            () = token.cancelled() => return,
            guard = slot.lock() => guard,
        };
        let round = directive.as_ref().map_or(0, |d| d.round);
        match self
            .round(&spec, directive.as_ref(), previous.as_ref(), &token)
            .await
        {
            Ok(summary) => *previous = Some(summary),
            Err(RoundError::Cancelled) => {}
            Err(RoundError::Failed(reason)) => {
                if token.is_cancelled() {
                    return;
                }
                tracing::warn!(task = %spec.task_id, round, %reason, "no valid plan");
                self.bus.publish(
                    Role::Ggs,
                    PlanningFailed {
                        task_id: spec.task_id.clone(),
                        intent: spec.intent.clone(),
                        reason,
                        round,
                    },
                );
            }
        }
    }

    /// A directive for a task R2 holds no spec for (never seen, or forgotten): there is
    /// nothing to plan against, so GGS must abandon rather than wait.
    fn unknown_task(&self, d: &PlanDirective) {
        self.bus.publish(
            Role::Ggs,
            PlanningFailed {
                task_id: d.task_id.clone(),
                intent: String::new(),
                reason: "R2 holds no TaskSpec for this task, so it cannot replan it".into(),
                round: d.round,
            },
        );
    }

    async fn calibrate(
        &self,
        spec: &TaskSpec,
        directive: Option<&PlanDirective>,
        token: &CancellationToken,
    ) -> Result<Calibration, RoundError> {
        let [intent_group, user_group] = calibration::groups(&spec.intent);
        let timeout = self.memory_timeout;
        let (a, b) = tokio::select! {
            () = token.cancelled() => return Err(RoundError::Cancelled),
            answers = async {
                tokio::join!(
                    calibration::recall(&self.bus, &spec.task_id, &intent_group, timeout),
                    calibration::recall(&self.bus, &spec.task_id, &user_group, timeout),
                )
            } => answers,
        };
        let answers: Vec<(calibration::Group, Answer)> = vec![(intent_group, a), (user_group, b)];
        Ok(calibration::calibrate(calibration::Input {
            task_id: &spec.task_id,
            round: directive.map_or(0, |d| d.round),
            answers: &answers,
            directive,
            max_constraints: self.max_constraints,
            now: self.clock.now(),
        }))
    }

    async fn round(
        &self,
        spec: &TaskSpec,
        directive: Option<&PlanDirective>,
        previous: Option<&PlanSummary>,
        token: &CancellationToken,
    ) -> Result<PlanSummary, RoundError> {
        live(token)?;
        let cal = self.calibrate(spec, directive, token).await?;
        live(token)?;
        for recall in &cal.recalls {
            self.bus.publish(Role::Ggs, recall.clone());
        }

        let preamble = tool_preamble();
        let task_words = format!("{}\n{}", spec.intent, spec.raw_input);
        let places = places::places_in(&task_words, &self.home, &self.workspace);
        let places = places::render(&places);
        let mut request = match directive {
            None => prompt::plan_request(spec, preamble, places.as_deref(), &cal.prompt_block),
            Some(d) => prompt::replan_request(
                spec,
                d,
                previous,
                preamble,
                places.as_deref(),
                &cal.prompt_block,
            ),
        }
        .facts_first(&machine_facts(
            &self.home,
            &self.workspace,
            self.clock.now(),
        ));
        let distinct_from = match directive {
            Some(d) if d.directive == ReplanDirective::BreakSymmetry => previous.map(|p| &p.tools),
            _ => None,
        };
        let rules = PlanRules {
            blocked_tools: &cal.must_not_tools,
            blocked_targets: &cal.must_not_targets,
            distinct_from,
            home: &self.home,
            task: &task_words,
        };
        let ctx = CallCtx::for_task(spec.task_id.clone(), token.clone());
        let mut n_reasks = 0;
        let draft = loop {
            let out = self
                .llm
                .structured::<PlanDraft>(&ctx, &request)
                .await
                .map_err(|e| match e {
                    LlmError::Cancelled => RoundError::Cancelled,
                    e => {
                        tracing::warn!(task = %spec.task_id, error = %e, "no usable plan from the model");
                        RoundError::Failed(format!("no plan could be made: {}", e.plain()))
                    }
                })?;
            let violations = validator::validate(&out.value, &rules);
            if violations.is_empty() {
                break out.value;
            }
            if n_reasks >= self.plan_reasks {
                // A task is not abandoned for the plan's form alone: what code can mend
                // without changing what the plan does, it mends.
                let repaired = validator::repair(&out.value, &spec.intent, &rules);
                let left = validator::validate(&repaired, &rules);
                if left.is_empty() {
                    tracing::info!(task = %spec.task_id, ?violations, "plan mended by code after the re-asks");
                    break repaired;
                }
                let list: Vec<String> = left.iter().map(ToString::to_string).collect();
                return Err(RoundError::Failed(format!(
                    "the plan validator rejected the plan after {n_reasks} re-ask(s): {}",
                    list.join("; ")
                )));
            }
            n_reasks += 1;
            tracing::info!(task = %spec.task_id, n_reasks, ?violations, "plan rejected; re-asking");
            request = prompt::reask(
                request,
                &first_chars(&out.reply.content, REASK_ECHO_CHARS),
                &violations,
            );
        };
        live(token)?;
        self.dispatch(spec, &draft, &cal, directive.map_or(0, |d| d.round));
        Ok(PlanSummary::of(&draft, directive.map_or(0, |d| d.round)))
    }

    /// Mints the ids and publishes the plan: one manifest, its sub-tasks inside.
    fn dispatch(&self, spec: &TaskSpec, draft: &PlanDraft, cal: &Calibration, round: u32) {
        let confirm_tools: Vec<ToolRef> = match &cal.caution {
            CautionGate::None => Vec::new(),
            CautionGate::Tools(tools) => tools.iter().copied().map(ToolRef::from).collect(),
            CautionGate::PlanTools => draft
                .tool_set()
                .into_iter()
                .filter(|t| !cal.must_not_tools.iter().any(|b| b == t))
                .map(ToolRef::from)
                .collect(),
        };
        let criteria = |drafts: &[DraftCriterion]| -> Vec<Criterion> {
            drafts
                .iter()
                .filter(|c| !c.criterion.trim().is_empty())
                .map(DraftCriterion::to_criterion)
                .collect()
        };
        let subtasks: Vec<SubTask> = draft
            .subtasks
            .iter()
            .map(|d| SubTask {
                subtask_id: SubTaskId::mint(),
                parent_task_id: spec.task_id.clone(),
                intent: d.intent.trim().to_string(),
                context: with_memory(&d.context, &cal.subtask_context),
                success_criteria: criteria(&d.success_criteria),
                sequence: d.sequence,
                deadline: spec.constraints.deadline.clone(),
                blocked_tools: cal.must_not_tools.clone(),
                blocked_targets: cal.must_not_targets.clone(),
                confirm_tools: confirm_tools.clone(),
            })
            .collect();
        let manifest = DispatchManifest {
            task_id: spec.task_id.clone(),
            subtasks,
            task_spec: Some(spec.clone()),
            dispatched_at: self.clock.now(),
            task_criteria: criteria(&draft.task_criteria),
            round,
        };
        // One envelope: R4b hears the manifest the dispatcher gets.
        self.bus.publish(Role::Dispatcher, manifest);
    }

    /// Answers GGS's graceful-failure request: one model call within the budget, else an
    /// honest code-built answer.
    async fn graceful(
        self: Arc<Self>,
        request_id: EnvelopeId,
        request: GracefulFailureRequest,
        spec: Option<Arc<TaskSpec>>,
    ) {
        let token = self.registry.token(&request.task_id);
        if token.is_cancelled() {
            return;
        }
        // A child token ends the call at the budget, so the call is still recorded.
        let budget = token.child_token();
        let ctx = CallCtx::for_task(request.task_id.clone(), budget.clone());
        let chat = prompt::graceful_request(&request, spec.as_deref());
        let call = self
            .llm
            .structured_checked::<GracefulDraft, _>(&ctx, &chat, |g| {
                if graceful::dedup(g.next_moves.clone()).len() < graceful::MIN_NEXT_MOVES {
                    Err(format!(
                        "next_moves must hold {} to {} distinct, concrete moves",
                        graceful::MIN_NEXT_MOVES,
                        graceful::MAX_NEXT_MOVES
                    ))
                } else {
                    Ok(())
                }
            });
        // The budget is watched in this job, not in a task of its own: when it ends the
        // call is cancelled and still comes back (recorded), so it is awaited to the end.
        tokio::pin!(call);
        let outcome = tokio::select! {
            outcome = &mut call => outcome,
            () = tokio::time::sleep(self.graceful_budget) => {
                budget.cancel();
                call.await
            }
        };
        if token.is_cancelled() {
            return;
        }
        let reply = match outcome {
            Ok(out) => composed(&request, out.value),
            Err(e) => {
                tracing::info!(task = %request.task_id, error = %e,
                    "graceful failure from the model failed; answering with the code-built one");
                code_built(&request)
            }
        };
        self.bus.reply(Role::Ggs, request_id, reply);
    }
}

fn with_memory(context: &str, memory: &str) -> String {
    let context = context.trim();
    match (context.is_empty(), memory.is_empty()) {
        (_, true) => context.to_string(),
        (true, false) => memory.to_string(),
        (false, false) => format!("{context}\n\n{memory}"),
    }
}

/// The matched outputs verbatim (code) and the model's next moves.
fn composed(request: &GracefulFailureRequest, draft: GracefulDraft) -> GracefulFailure {
    GracefulFailure {
        task_id: request.task_id.clone(),
        accomplished: graceful::accomplished(&request.matched_outputs),
        next_moves: graceful::dedup(draft.next_moves),
    }
}

/// The honest answer without a model: the matched outputs verbatim and moves derived
/// from the failures GGS reported.
fn code_built(request: &GracefulFailureRequest) -> GracefulFailure {
    let criterion = request
        .failures
        .first()
        .map(String::as_str)
        .unwrap_or(request.reason.as_str());
    GracefulFailure {
        task_id: request.task_id.clone(),
        accomplished: graceful::accomplished(&request.matched_outputs),
        next_moves: graceful::next_moves(&FailureFacts {
            matched_outputs: &request.matched_outputs,
            failed_criterion: criterion,
            ..FailureFacts::default()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::{MatchedOutput, TaskId};

    #[test]
    fn the_graceful_failure_quotes_outputs_verbatim_and_bounds_the_moves() {
        let request = GracefulFailureRequest {
            task_id: TaskId::from_existing("task_g"),
            intent: "rename the photos".into(),
            reason: "budget exhausted".into(),
            matched_outputs: vec![MatchedOutput {
                subtask_id: SubTaskId::mint(),
                output: serde_json::json!("IMG_1.jpg\nIMG_2.jpg"),
            }],
            failures: vec!["the rename was denied".into()],
        };
        let g = composed(
            &request,
            GracefulDraft {
                next_moves: vec!["a".into(), "b".into(), "c".into(), "d".into(), "a".into()],
            },
        );
        assert_eq!(
            g.accomplished,
            "Completed 1 sub-task(s):\n1. IMG_1.jpg\nIMG_2.jpg"
        );
        assert_eq!(g.next_moves, vec!["a", "b", "c"]);

        let fallback = code_built(&request);
        assert_eq!(fallback.accomplished, g.accomplished);
        assert!(fallback.next_moves.len() >= graceful::MIN_NEXT_MOVES);
        assert!(fallback.next_moves[0].contains("the rename was denied"));
    }
}
