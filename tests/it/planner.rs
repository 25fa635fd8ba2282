//! R2 Planner on a real bus against the scripted server: memory calibration, the first
//! plan, each directive's replan, the plan validator's re-ask and `PlanningFailed`,
//! graceful failure, memory that does not answer, malformed output and cancellation. Test
//! subscribers play R5 (answering `MemoryQuery`), and observe as R4b, the dispatcher and
//! R7.

use artoo::tools::{ToolName, ToolRef};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use artoo::bus::{Bus, Envelope};
use artoo::contracts::{
    ConstraintKind, ConstraintSource, Constraints, DispatchManifest, GracefulFailureRequest, Level,
    Loss, MatchedOutput, Megram, MegramId, MegramOrigin, MemoryAction, MemoryRecall,
    MemoryResponse, Message, MessageKind, MixedFailureClass, PlanDirective, Potentials,
    PrevDirective, ReplanDirective, Role, SOPRecord, SubTask, SubTaskId, TaskClosed, TaskId,
    TaskSpec, Urgency,
};
use artoo::roles::planner::Planner;
use artoo::testkit::Script;
use artoo::{Clock, FakeClock};

use super::perceiver::{Rig, script};
use artoo::contracts::TaskSubmitted;
use artoo::roles::perceiver::Perceiver;

/// What the fake R5 answers per memory space; other spaces get empty memory.
type MemoryBook = HashMap<String, (Potentials, Vec<Megram>, Vec<SOPRecord>)>;

/// How long R2 waits for memory with the default settings.
fn memory_timeout() -> Duration {
    artoo::Config::with_dirs("/unused", "/unused")
        .limits()
        .memory_query_timeout
}

/// How long GGS waits for R2's graceful failure with the default settings.
fn graceful_timeout() -> Duration {
    artoo::Config::with_dirs("/unused", "/unused")
        .limits()
        .graceful_failure_timeout
}

fn ignore() -> Potentials {
    Potentials {
        attention: 0.0,
        decision: 0.0,
        action: MemoryAction::Ignore,
    }
}

fn potentials(action: MemoryAction, attention: f64, decision: f64) -> Potentials {
    Potentials {
        attention,
        decision,
        action,
    }
}

/// Memory that knows only this task's intent group.
fn intent_memory(potentials: Potentials, recent: Vec<Megram>, sops: Vec<SOPRecord>) -> MemoryBook {
    MemoryBook::from([(
        artoo::tags::intent_space(INTENT),
        (potentials, recent, sops),
    )])
}

fn sop(space: &str, content: &str) -> SOPRecord {
    SOPRecord {
        id: MegramId::mint(),
        space: space.into(),
        entity: "env:local".into(),
        content: content.into(),
        sigma: 1.0,
    }
}

/// Plays R5: answers every `MemoryQuery` from `book`.
fn serve_memory(bus: &Bus, book: MemoryBook) {
    let mut inbox = bus.subscribe(Role::Memory);
    let r5 = bus.handle(Role::Memory);
    tokio::spawn(async move {
        while let Some(env) = inbox.recv().await {
            if let Message::MemoryQuery(q) = &env.message {
                let (potentials, recent, sops) =
                    book.get(&q.space)
                        .cloned()
                        .unwrap_or((ignore(), vec![], vec![]));
                r5.reply(
                    Role::Planner,
                    env.id,
                    MemoryResponse {
                        task_id: q.task_id.clone(),
                        space: q.space.clone(),
                        entity: q.entity.clone(),
                        sops,
                        potentials,
                        recent,
                        error: None,
                    },
                );
            }
        }
    });
}

struct R2 {
    rig: Rig,
}

const INTENT: &str = "Find the three largest PDF files in ~/Downloads";

impl R2 {
    async fn start(script: Script, book: MemoryBook) -> R2 {
        let rig = Rig::new(script).await;
        serve_memory(&rig.bus, book);
        Self::start_rig(rig)
    }

    fn start_rig(rig: Rig) -> R2 {
        let planner = Planner::new(
            &rig.config,
            &rig.bus,
            &rig.llm,
            rig.clock.clone(),
            rig.registry.clone(),
        )
        .expect("R2 has a model tier");
        tokio::spawn(planner.run());
        R2 { rig }
    }

    fn spec(&self, intent: &str) -> TaskSpec {
        let task_id = TaskId::mint();
        let spec = TaskSpec {
            task_id,
            intent: intent.to_string(),
            constraints: Constraints::default(),
            raw_input: intent.to_lowercase(),
            answer: Default::default(),
        };
        self.rig
            .bus
            .handle(Role::Perceiver)
            .publish(Role::Planner, spec.clone());
        spec
    }

    fn directive(&self, task: &TaskId, d: PlanDirective) {
        let d = PlanDirective {
            task_id: task.clone(),
            ..d
        };
        self.rig.bus.handle(Role::Ggs).publish(Role::Planner, d);
    }

    /// The `n`-th (0-based) manifest (to the dispatcher, heard by R4b), with the sub-tasks
    /// it holds. R2 sends no sub-task on its own: the manifest is the whole plan.
    async fn plan(&mut self, n: usize) -> (DispatchManifest, Vec<SubTask>) {
        self.rig
            .until("a dispatched plan", |seen| manifests(seen).len() > n)
            .await;
        let manifest = manifests(&self.rig.seen)[n].clone();
        assert!(
            !self
                .rig
                .seen
                .iter()
                .any(|e| matches!(e.message, Message::SubTask(_))),
            "R2 published a sub-task outside its manifest"
        );
        let subs = manifest.subtasks.clone();
        (manifest, subs)
    }

    fn recalls(&self) -> Vec<MemoryRecall> {
        self.rig
            .of(MessageKind::MemoryRecall)
            .iter()
            .map(|e| match &e.message {
                Message::MemoryRecall(r) => r.clone(),
                _ => unreachable!(),
            })
            .collect()
    }

    fn calls(&self) -> usize {
        self.rig.server.requests_from(Role::Planner).len()
    }
}

fn manifests(seen: &[Arc<Envelope>]) -> Vec<&DispatchManifest> {
    seen.iter()
        .filter_map(|e| match &e.message {
            Message::DispatchManifest(m) => Some(m),
            _ => None,
        })
        .collect()
}

fn directive(kind: ReplanDirective, urgency: Urgency, class: MixedFailureClass) -> PlanDirective {
    PlanDirective {
        task_id: TaskId::from_existing("replaced"),
        loss: Loss {
            d: 0.5,
            p: 0.4,
            omega: 0.3,
            l: 0.5,
        },
        prev_directive: PrevDirective::Init,
        directive: kind,
        blocked_tools: vec![],
        blocked_targets: vec![],
        failed_criterion:
            "the output lists exactly 3 paths ending in .pdf in descending size order".into(),
        failure_class: class,
        budget_pressure: 0.3,
        grad_l: 0.0,
        rationale: "D=0.50 above δ".into(),
        urgency,
        gradient: None,
        round: 1,
    }
}

fn megram(content: &str, sigma: f64, days_old: i64, now: chrono::DateTime<chrono::Utc>) -> Megram {
    Megram {
        id: MegramId::mint(),
        level: Level::M,
        created_at: now - chrono::Duration::days(days_old),
        last_recalled_at: None,
        space: artoo::tags::intent_space(INTENT),
        entity: "env:local".into(),
        content: content.into(),
        state: if sigma > 0.0 {
            MegramOrigin::Success
        } else {
            MegramOrigin::Abandon
        },
        f: 0.9,
        sigma,
        k: 0.05,
    }
}

#[tokio::test]
async fn the_first_plan_costs_one_call_and_is_one_manifest_envelope() {
    let mut r2 = R2::start(script("planner", "first_plan.json"), MemoryBook::new()).await;
    let spec = r2.spec(INTENT);
    let (manifest, subs) = r2.plan(0).await;
    r2.rig.settle().await;

    assert_eq!(r2.calls(), 1, "memory calibration adds no model call");
    assert_eq!(
        r2.rig.transcript(),
        [
            "R1 → R2 TaskSpec",
            "R2 → R5 MemoryQuery",
            "R2 → R5 MemoryQuery",
            "R5 → R2 MemoryResponse",
            "R5 → R2 MemoryResponse",
            "R2 → R7 MemoryRecall",
            "R2 → R7 MemoryRecall",
            "R2 → Dispatcher DispatchManifest",
        ]
    );
    assert_eq!(manifest.task_id, spec.task_id);
    assert_eq!(manifest.round, 0);
    assert_eq!(manifest.task_spec.as_ref(), Some(&spec));
    assert_eq!(manifest.dispatched_at, r2.rig.clock.now());
    assert_eq!(
        manifest.task_criteria[0].criterion,
        "the answer names at most three PDF files from ~/Downloads with their sizes, largest first"
    );
    // The manifest is addressed to the dispatcher; R4b hears that same envelope.
    let sent = r2.rig.of(MessageKind::DispatchManifest);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].to, Role::Dispatcher);
    assert_eq!(
        artoo::contracts::listeners(MessageKind::DispatchManifest, Role::Planner)
            .collect::<Vec<_>>(),
        vec![Role::MetaValidator]
    );

    // Runtime-minted, distinct ids; parents forced; the model's content kept.
    assert_eq!(subs.len(), 2);
    assert_ne!(subs[0].subtask_id, subs[1].subtask_id);
    assert_eq!(
        manifest.subtask_ids().collect::<Vec<_>>(),
        vec![subs[0].subtask_id, subs[1].subtask_id]
    );
    assert!(subs.iter().all(|s| s.parent_task_id == spec.task_id));
    assert_eq!(
        (subs[0].sequence, subs[1].sequence),
        (1, 2),
        "sequence groups as planned"
    );
    assert_eq!(
        subs[0].intent,
        "List every PDF file in ~/Downloads with its size"
    );
    assert!(
        subs.iter()
            .all(|s| s.blocked_tools.is_empty() && s.confirm_tools.is_empty())
    );

    // The memory groups consulted, and the recall with the T layer.
    let queries: Vec<(String, String)> = r2
        .rig
        .of(MessageKind::MemoryQuery)
        .iter()
        .map(|e| match &e.message {
            Message::MemoryQuery(q) => (q.space.clone(), q.entity.clone()),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        queries,
        [
            (artoo::tags::intent_space(INTENT), "env:local".to_string()),
            ("global:user".to_string(), "env:local".to_string()),
        ]
    );
    let recalls = r2.recalls();
    assert_eq!(
        recalls[0]
            .constraints
            .iter()
            .filter(|c| c.source == ConstraintSource::Law)
            .count(),
        4
    );
    assert!(recalls.iter().all(|r| r.error.is_none() && r.round == 0));

    // The prompt: the task in words (no TaskSpec JSON), the places it names resolved by
    // code, and no memory block when memory has nothing to say (the laws open the
    // system prompt and are not repeated).
    let prompt = &r2.rig.prompts(Role::Planner)[0];
    assert!(prompt.contains(&format!("Task: {INTENT}\n")), "{prompt}");
    let downloads = r2.rig.config.home.join("Downloads");
    assert!(
        prompt.contains(&format!("Places:\n- ~/Downloads → {}", downloads.display())),
        "{prompt}"
    );
    assert!(!prompt.contains("\"intent\""), "{prompt}");
    for absent in ["MUST NOT", "SHOULD PREFER", "CAUTION", "0. Never deceive"] {
        assert!(!prompt.contains(absent), "{absent}: {prompt}");
    }
    let system = r2.rig.system_prompt(Role::Planner, 0);
    assert!(system.contains("0. Never deceive"), "{system}");
    assert!(
        system.contains("never third-party programs (jq"),
        "{system}"
    );
    assert!(
        system.contains("task_criteria: [] with one sub-task"),
        "{system}"
    );
    // The machine's facts (today's local date, the workspace) reach the model.
    let everything = format!("{system}\n{prompt}");
    let local = r2.rig.clock.now().with_timezone(&chrono::Local);
    assert!(
        everything.contains(&format!("Today: {}", local.format("%Y-%m-%d"))),
        "{everything}"
    );
    assert!(everything.contains(&r2.rig.config.workspace.display().to_string()));
}

#[tokio::test]
async fn memory_avoid_becomes_must_not_in_the_prompt_and_on_every_subtask() {
    let now = FakeClock::at_epoch().now();
    let failed = megram(
        "Failed (abandon) on \"find pdfs\" after 3 replan(s). Tried: shell: find ~ -name '*.pdf'. Gap: timed out",
        -1.0,
        2,
        now,
    );
    let book = intent_memory(
        potentials(MemoryAction::Avoid, 0.85, -0.85),
        vec![failed.clone()],
        vec![],
    );
    let mut r2 = R2::start(script("planner", "glob_plan.json"), book).await;
    r2.spec(INTENT);
    let (_, subs) = r2.plan(0).await;
    assert_eq!(subs[0].blocked_tools, vec![ToolRef::from(ToolName::Shell)]);
    let prompt = &r2.rig.prompts(Role::Planner)[0];
    assert!(prompt.contains("MUST NOT repeat the approach that failed for this kind of task"));
    assert!(prompt.contains("blocked tools for this task: shell"));
    assert!(subs[0].context.contains("Memory from earlier tasks"));
    let recall = &r2.recalls()[0];
    let must_not = recall
        .constraints
        .iter()
        .find(|c| c.source == ConstraintSource::Memory)
        .expect("a memory constraint");
    assert_eq!(must_not.kind, ConstraintKind::MustNot);
    assert_eq!(must_not.megram_ids, vec![failed.id]);
    assert_eq!(recall.potentials.action, MemoryAction::Avoid);
}

#[tokio::test]
async fn memory_caution_puts_the_approachs_tools_behind_confirmation_on_every_subtask() {
    let now = FakeClock::at_epoch().now();
    let book = intent_memory(
        potentials(MemoryAction::Caution, 1.6, 0.05),
        vec![
            megram(
                "Succeeded (success, D=0.00). Used: glob: ~/Downloads/*.pdf. Result: 3 files",
                1.0,
                1,
                now,
            ),
            megram(
                "Failed (abandon). Tried: glob: ~/Downloads/**. Gap: too many files",
                -1.0,
                3,
                now,
            ),
        ],
        vec![],
    );
    let mut r2 = R2::start(script("planner", "first_plan.json"), book).await;
    r2.spec(INTENT);
    let (_, subs) = r2.plan(0).await;
    assert_eq!(subs.len(), 2);
    for s in &subs {
        assert_eq!(
            s.confirm_tools,
            vec![ToolRef::from(ToolName::Glob)],
            "{s:?}"
        );
        assert!(s.blocked_tools.is_empty());
    }
    assert!(
        r2.rig.prompts(Role::Planner)[0].contains("asks the user for confirmation in this task")
    );
    let caution = r2.recalls()[0]
        .constraints
        .iter()
        .find(|c| c.kind == ConstraintKind::Caution)
        .cloned()
        .expect("a caution constraint");
    assert_eq!(caution.megram_ids.len(), 2);
}

#[tokio::test]
async fn exploit_sops_and_the_operators_memory_reach_the_prompt_as_should_prefer() {
    let now = FakeClock::at_epoch().now();
    let worked = megram(
        "Succeeded (accept, D=0.00). Used: mdfind: *.pdf. Result: 3 files",
        1.0,
        1,
        now,
    );
    let mut book = intent_memory(
        potentials(MemoryAction::Exploit, 0.9, 0.9),
        vec![worked.clone()],
        vec![sop(
            &artoo::tags::intent_space(INTENT),
            "Sort by size with stat, not by name.",
        )],
    );
    book.insert(
        "global:user".into(),
        (
            ignore(),
            vec![],
            vec![sop("global:user", "Always report sizes in MB.")],
        ),
    );
    let mut r2 = R2::start(script("planner", "first_plan.json"), book).await;
    r2.spec(INTENT);
    r2.plan(0).await;
    let prompt = &r2.rig.prompts(Role::Planner)[0];
    let prefer = prompt
        .split("SHOULD PREFER:\n")
        .nth(1)
        .expect("a SHOULD PREFER section");
    assert!(prefer.contains("mdfind: *.pdf"));
    assert!(prefer.contains("SHOULD PREFER (proven practice): Sort by size with stat"));
    assert!(prefer.contains("Always report sizes in MB."));
    let recalls = r2.recalls();
    assert_eq!(recalls[1].space, "global:user");
    assert_eq!(recalls[1].constraints.len(), 1);
    assert_eq!(recalls[0].constraints[4].megram_ids, vec![worked.id]);
}

#[tokio::test(start_paused = true)]
async fn memory_that_does_not_answer_is_planned_without_and_the_recall_says_so() {
    // No R5 subscriber: every query goes unanswered.
    let rig = Rig::new(script("planner", "first_plan.json")).await;
    let mut r2 = R2::start_rig(rig);
    let started = tokio::time::Instant::now();
    r2.spec(INTENT);
    let (_, subs) = r2.plan(0).await;
    let waited = started.elapsed();
    assert!(
        waited >= memory_timeout() && waited < memory_timeout() * 2,
        "both groups are queried at once and bounded: {waited:?}"
    );
    assert_eq!(subs.len(), 2);
    let recalls = r2.recalls();
    assert_eq!(recalls.len(), 2);
    assert!(
        recalls
            .iter()
            .all(|r| r.error.as_deref() == Some("memory did not answer within 3 s"))
    );
    assert_eq!(
        recalls[0]
            .constraints
            .iter()
            .filter(|c| c.source == ConstraintSource::Law)
            .count(),
        4
    );
    assert!(r2.rig.prompts(Role::Planner)[0].contains("this plan is made without it"));
}

#[tokio::test]
async fn a_plan_using_a_tool_memory_avoids_is_re_asked_quoting_the_violation_then_dispatched() {
    let now = FakeClock::at_epoch().now();
    let failed = "Failed (abandon). Tried: shell: find ~ -name '*.pdf'. Gap: timed out";
    let book = intent_memory(
        potentials(MemoryAction::Avoid, 0.9, -0.9),
        vec![megram(failed, -1.0, 1, now)],
        vec![],
    );
    let mut r2 = R2::start(script("planner", "reask_blocked_tool.json"), book).await;
    r2.spec(INTENT);
    let (manifest, subs) = r2.plan(0).await;
    assert_eq!(manifest.round, 0);
    assert_eq!(subs.len(), 1);
    assert_eq!(
        subs[0].intent,
        "List every PDF file in ~/Downloads with its size"
    );
    assert_eq!(subs[0].blocked_tools, vec![ToolRef::from(ToolName::Shell)]);
    // The plan and one re-ask.
    assert_eq!(r2.calls(), 2);
    let reask = &r2.rig.prompts(Role::Planner)[1];
    assert!(
        reask.contains(
            "The plan validator rejected this plan:\n- sub-task 1 uses the blocked tool `shell`"
        ),
        "{reask}"
    );
    r2.rig.settle().await;
    assert_eq!(
        r2.rig.of(MessageKind::DispatchManifest).len(),
        1,
        "one plan: one manifest envelope"
    );
}

#[tokio::test]
async fn a_plan_that_stays_invalid_ends_in_planning_failed_to_ggs_and_nothing_is_dispatched() {
    let mut r2 = R2::start(script("planner", "always_invalid.json"), MemoryBook::new()).await;
    assert_eq!(r2.rig.config.budgets.plan_reasks, 1);
    let spec = r2.spec(INTENT);
    let env = r2.rig.first(MessageKind::PlanningFailed).await;
    assert_eq!(env.to, Role::Ggs);
    match &env.message {
        Message::PlanningFailed(f) => {
            assert_eq!(f.task_id, spec.task_id);
            assert_eq!(f.intent, INTENT);
            assert_eq!(f.round, 0);
            assert!(f.reason.contains("after 1 re-ask(s)"), "{}", f.reason);
            assert!(
                f.reason.contains("the plan has no sub-task"),
                "{}",
                f.reason
            );
        }
        _ => unreachable!(),
    }
    r2.rig.settle().await;
    assert_eq!(r2.calls(), 2);
    assert!(r2.rig.of(MessageKind::DispatchManifest).is_empty());
    assert!(r2.rig.of(MessageKind::SubTask).is_empty());
}

#[tokio::test]
async fn malformed_plan_output_ends_in_planning_failed_not_a_hang() {
    let mut r2 = R2::start(script("planner", "malformed.json"), MemoryBook::new()).await;
    r2.spec(INTENT);
    let env = r2.rig.first(MessageKind::PlanningFailed).await;
    match &env.message {
        Message::PlanningFailed(f) => {
            // The user-facing reason says the model failed, not the task.
            assert!(
                f.reason.starts_with(
                    "no plan could be made: the model did not answer in the required form"
                ),
                "{}",
                f.reason
            )
        }
        _ => unreachable!(),
    }
    assert_eq!(r2.calls(), 2, "the ask and the model layer's one re-ask");
}

/// One replan scenario: a task's first plan from `fixture`, then `directive`.
struct ReplanCase<'a> {
    fixture: &'a str,
    directive: PlanDirective,
    /// Text the replan prompt must hold.
    prompt_has: &'a [&'a str],
    /// What the validator's re-ask must quote; `None` when the first replan is valid.
    reask_has: Option<&'a str>,
    /// The intent of the sub-task finally dispatched.
    intent: &'a str,
}

/// Runs `case` and checks what every replan shares: one call per plan (plus the re-ask),
/// round 1, a fresh calibration, the MUST NOT sets on every sub-task.
async fn replan(case: ReplanCase<'_>) -> (R2, Vec<SubTask>) {
    let mut r2 = R2::start(script("planner", case.fixture), MemoryBook::new()).await;
    let spec = r2.spec(INTENT);
    r2.plan(0).await;
    let blocked_tools = case.directive.blocked_tools.clone();
    let blocked_targets = case.directive.blocked_targets.clone();
    r2.directive(&spec.task_id, case.directive);
    let (manifest, subs) = r2.plan(1).await;
    let prompts = r2.rig.prompts(Role::Planner);
    for text in case.prompt_has {
        assert!(
            prompts[1].contains(text),
            "missing {text:?} in:\n{}",
            prompts[1]
        );
    }
    assert!(prompts[1].contains("REPLAN, round 1."));
    assert!(prompts[1].contains("Previous plan (round 0):\n1. [sequence 1] List every PDF file in ~/Downloads with its size — tools: glob, shell\n2. [sequence 2]"));
    match case.reask_has {
        None => assert_eq!(r2.calls(), 2, "one call per plan"),
        Some(text) => {
            assert_eq!(r2.calls(), 3, "one call per plan and one re-ask");
            assert!(
                prompts[2].contains(text),
                "missing {text:?} in:\n{}",
                prompts[2]
            );
        }
    }
    assert_eq!(manifest.round, 1);
    assert_eq!(manifest.task_id, spec.task_id);
    assert_eq!(subs[0].intent, case.intent);
    for s in &subs {
        assert_eq!(s.blocked_tools, blocked_tools);
        assert_eq!(s.blocked_targets, blocked_targets);
    }
    assert_eq!(
        r2.recalls().iter().filter(|r| r.round == 1).count(),
        2,
        "calibrated again before the replan"
    );
    (r2, subs)
}

#[tokio::test]
async fn refine_keeps_the_approach_with_low_urgency_latitude() {
    replan(ReplanCase {
        fixture: "replan_refine.json",
        directive: directive(
            ReplanDirective::Refine,
            Urgency::Low,
            MixedFailureClass::Environmental,
        ),
        prompt_has: &[
            "refine — the approach is right",
            "Urgency: low.",
            "Failure class: environmental —",
            "Failed criterion: \"the output lists exactly 3 paths ending in .pdf in descending size order\"",
            "Controller's rationale: D=0.50 above δ",
        ],
        reask_has: None,
        intent: "List the PDF files in ~/Downloads with exact byte sizes",
    })
    .await;
}

#[tokio::test]
async fn change_path_refuses_a_plan_that_names_a_blocked_target() {
    let mut d = directive(
        ReplanDirective::ChangePath,
        Urgency::Normal,
        MixedFailureClass::Environmental,
    );
    d.blocked_targets = vec!["~/Downloads/old".into()];
    replan(ReplanCase {
        fixture: "replan_change_path.json",
        directive: d,
        prompt_has: &[
            "change_path — ",
            "Urgency: normal.",
            "MUST NOT use or mention the target `~/Downloads/old`",
        ],
        reask_has: Some("names the blocked target `~/Downloads/old`"),
        intent: "List the PDF files in ~/Documents",
    })
    .await;
}

#[tokio::test]
async fn change_approach_refuses_a_blocked_tool_with_high_urgency() {
    let mut d = directive(
        ReplanDirective::ChangeApproach,
        Urgency::High,
        MixedFailureClass::Logical,
    );
    d.blocked_tools = vec![ToolName::Shell.into()];
    replan(ReplanCase {
        fixture: "replan_change_approach.json",
        directive: d,
        prompt_has: &[
            "change_approach — the method is wrong",
            "Urgency: HIGH.",
            "Failure class: logical —",
            "MUST NOT use the tool `shell`",
        ],
        reask_has: Some("uses the blocked tool `shell`"),
        intent: "List the PDF files with their sizes",
    })
    .await;
}

#[tokio::test]
async fn break_symmetry_refuses_the_previous_tool_set() {
    let (_, subs) = replan(ReplanCase {
        fixture: "replan_break_symmetry.json",
        directive: directive(
            ReplanDirective::BreakSymmetry,
            Urgency::Normal,
            MixedFailureClass::Mixed,
        ),
        prompt_has: &[
            "break_symmetry — ",
            "Failure class: mixed — fix the environment first",
            "The new plan's tool set must differ from the previous one (glob, shell).",
        ],
        reask_has: Some(
            "break_symmetry demands a novel approach, but the plan uses the same tool set",
        ),
        intent: "Locate the PDF files by name in the whole home folder",
    })
    .await;
    assert_eq!(subs.len(), 1);
}

#[tokio::test]
async fn a_directive_is_planned_against_its_own_tasks_spec() {
    let mut r2 = R2::start(script("planner", "two_tasks.json"), MemoryBook::new()).await;
    let a = r2.spec("Count the Markdown files in my notes");
    r2.plan(0).await;
    let b = r2.spec("Find the largest video in my Movies folder");
    r2.plan(1).await;
    // The newest spec is B's; the directive is A's.
    r2.directive(
        &a.task_id,
        directive(
            ReplanDirective::Refine,
            Urgency::Normal,
            MixedFailureClass::Environmental,
        ),
    );
    let (manifest, subs) = r2.plan(2).await;
    assert_eq!(manifest.task_id, a.task_id);
    assert_eq!(manifest.task_spec.as_ref(), Some(&a));
    assert!(subs.iter().all(|s| s.parent_task_id == a.task_id));
    let prompt = &r2.rig.prompts(Role::Planner)[2];
    assert!(prompt.contains("Count the Markdown files in my notes"));
    assert!(!prompt.contains("Movies"), "{prompt}");
    assert_ne!(a.task_id, b.task_id);
}

#[tokio::test]
async fn a_directive_for_an_unknown_task_fails_planning_instead_of_hanging() {
    let mut r2 = R2::start(Script::new(), MemoryBook::new()).await;
    let stranger = TaskId::mint();
    r2.directive(
        &stranger,
        directive(
            ReplanDirective::Refine,
            Urgency::Normal,
            MixedFailureClass::Environmental,
        ),
    );
    let env = r2.rig.first(MessageKind::PlanningFailed).await;
    assert_eq!(env.task_id.as_ref(), Some(&stranger));
    assert_eq!(r2.calls(), 0);
}

fn graceful_request(task: &TaskId) -> GracefulFailureRequest {
    GracefulFailureRequest {
        task_id: task.clone(),
        intent: "Rename the invoices to their dates".into(),
        reason: "budget exhausted after 3 replan(s)".into(),
        matched_outputs: vec![MatchedOutput {
            subtask_id: SubTaskId::mint(),
            output: serde_json::json!("~/Downloads/inv-1.pdf\n~/Downloads/inv-2.pdf"),
        }],
        failures: vec!["the rename needs access to ~/Documents (permission denied)".into()],
    }
}

#[tokio::test]
async fn graceful_failure_quotes_the_matched_outputs_verbatim_and_adds_the_models_next_moves() {
    let mut r2 = R2::start(script("planner", "graceful.json"), MemoryBook::new()).await;
    let spec = r2.spec(INTENT);
    r2.plan(0).await;
    let pending = r2
        .rig
        .bus
        .handle(Role::Ggs)
        .request(Role::Planner, graceful_request(&spec.task_id));
    let reply = tokio::time::timeout(Duration::from_secs(30), pending)
        .await
        .expect("a reply in time")
        .expect("bus open");
    let Message::GracefulFailure(g) = &reply.message else {
        panic!("{:?}", reply.message)
    };
    assert_eq!(reply.to, Role::Ggs);
    assert_eq!(g.task_id, spec.task_id);
    // What was done is quoted by code, never narrated by the model.
    assert_eq!(
        g.accomplished,
        "Completed 1 sub-task(s):\n1. ~/Downloads/inv-1.pdf\n~/Downloads/inv-2.pdf"
    );
    assert_eq!(g.next_moves.len(), 3);
    assert!(g.next_moves[0].contains("Privacy & Security"));
    let prompt = r2.rig.prompts(Role::Planner).last().cloned().unwrap();
    assert!(prompt.contains("Why it was abandoned: budget exhausted after 3 replan(s)"));
    assert!(prompt.contains(&format!("The user's words: {}", spec.raw_input)));
}

#[tokio::test]
async fn graceful_failure_falls_back_to_an_honest_code_built_answer_on_malformed_output() {
    let mut r2 = R2::start(
        script("planner", "graceful_malformed.json"),
        MemoryBook::new(),
    )
    .await;
    let task = TaskId::mint();
    let reply = r2
        .rig
        .bus
        .handle(Role::Ggs)
        .request(Role::Planner, graceful_request(&task))
        .await
        .expect("bus open");
    let Message::GracefulFailure(g) = &reply.message else {
        panic!("{:?}", reply.message)
    };
    assert_eq!(
        g.accomplished,
        "Completed 1 sub-task(s):\n1. ~/Downloads/inv-1.pdf\n~/Downloads/inv-2.pdf"
    );
    assert!(g.next_moves.len() >= 2 && g.next_moves.len() <= 3);
    assert!(g.next_moves[0].contains("permission denied"));
    assert_eq!(r2.calls(), 2);
    r2.rig.settle().await;
}

#[tokio::test(start_paused = true)]
async fn graceful_failure_answers_within_its_budget_when_the_model_hangs() {
    let rig = Rig::new(script("planner", "hang.json")).await;
    let planner = Planner::new(
        &rig.config,
        &rig.bus,
        &rig.llm,
        rig.clock.clone(),
        rig.registry.clone(),
    )
    .unwrap()
    .with_graceful_budget(Duration::from_secs(5));
    tokio::spawn(planner.run());
    let started = tokio::time::Instant::now();
    let reply = rig
        .bus
        .handle(Role::Ggs)
        .request(Role::Planner, graceful_request(&TaskId::mint()))
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_secs(5));
    assert!(started.elapsed() < graceful_timeout());
    assert!(
        matches!(&reply.message, Message::GracefulFailure(g) if g.accomplished.contains("inv-1.pdf"))
    );
}

#[tokio::test]
async fn nothing_is_published_after_a_cancel_during_the_plan_call() {
    let mut r2 = R2::start(script("planner", "hang.json"), MemoryBook::new()).await;
    let spec = r2.spec(INTENT);
    r2.rig.server.wait_for_requests(1).await;
    r2.rig.registry.close(&spec.task_id, true);
    r2.rig.bus.handle(Role::User).publish(
        Role::All,
        TaskClosed::cancelled(spec.task_id.clone(), "cancelled"),
    );
    r2.rig
        .until("the cancelled call's record", |seen| {
            seen.iter()
                .any(|e| e.message.kind() == MessageKind::LlmCall)
        })
        .await;
    r2.rig.settle().await;
    for kind in [
        MessageKind::DispatchManifest,
        MessageKind::SubTask,
        MessageKind::PlanningFailed,
    ] {
        assert!(r2.rig.of(kind).is_empty(), "{kind:?} after cancel");
    }
    // A late directive for the cancelled task is not planned either.
    r2.directive(
        &spec.task_id,
        directive(
            ReplanDirective::Refine,
            Urgency::Normal,
            MixedFailureClass::Environmental,
        ),
    );
    r2.rig.settle().await;
    assert!(r2.rig.of(MessageKind::PlanningFailed).is_empty());
    assert_eq!(r2.calls(), 1);
}

#[tokio::test(start_paused = true)]
async fn nothing_is_published_after_a_cancel_during_the_memory_wait() {
    let rig = Rig::new(script("planner", "first_plan.json")).await;
    let mut r2 = R2::start_rig(rig); // no R5: the queries wait
    let spec = r2.spec(INTENT);
    r2.rig.first(MessageKind::MemoryQuery).await;
    r2.rig.registry.close(&spec.task_id, true);
    tokio::time::sleep(memory_timeout() * 2).await;
    r2.rig.settle().await;
    assert!(r2.rig.of(MessageKind::MemoryRecall).is_empty());
    assert!(r2.rig.of(MessageKind::DispatchManifest).is_empty());
    assert_eq!(r2.calls(), 0);
}

#[tokio::test]
async fn r1_and_r2_together_take_at_most_one_model_call_each_from_submission_to_dispatch() {
    let mut both = script("perceiver", "task.json");
    both.roles
        .extend(script("planner", "first_plan.json").roles);
    let mut r2 = R2::start(both, MemoryBook::new()).await;
    let perceiver = Perceiver::new(
        &r2.rig.config,
        &r2.rig.bus,
        &r2.rig.llm,
        r2.rig.registry.clone(),
    )
    .unwrap();
    tokio::spawn(perceiver.run());
    let task = TaskId::mint();
    r2.rig.bus.handle(Role::User).publish(
        Role::Perceiver,
        TaskSubmitted {
            task_id: task.clone(),
            raw_input: "find the 3 biggest pdfs in ~/Downloads".into(),
            submitted_at: r2.rig.clock.now(),
            session_history: vec![],
            time_budget_ms: 120_000,
            scheduled: None,
        },
    );
    let (manifest, subs) = r2.plan(0).await;
    assert_eq!(manifest.task_id, task);
    assert_eq!(
        manifest.task_spec.as_ref().map(|s| s.raw_input.as_str()),
        Some("find the 3 biggest pdfs in ~/Downloads")
    );
    assert_eq!(subs.len(), 2);
    // The input names a folder and no session came before it: R1 takes the user's words
    // as the intent without a model call, and R2 plans with one.
    assert_eq!(
        manifest.task_spec.as_ref().map(|s| s.intent.as_str()),
        Some("find the 3 biggest pdfs in ~/Downloads")
    );
    assert_eq!(r2.rig.server.requests_from(Role::Perceiver).len(), 0);
    assert_eq!(r2.calls(), 1);
}
