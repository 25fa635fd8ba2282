//! R5 memory: the MemoryService behaviour through the public API, the Dreamer, the
//! operator API, the bus role, crash safety and the committed format fixture.

use artoo::tools::ToolName;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration as StdDuration;

use artoo::bus::{Bus, TapEvent};
use artoo::clock::{Clock, FakeClock, SharedClock};
use artoo::config::MemoryParams;
use artoo::contracts::{
    ConstraintKind, ConstraintSource, Level, Megram, MegramId, MegramOrigin, MegramWrite,
    MemoryAction, MemoryOperation, MemoryQuery, MemoryResponse, Message, RecalledConstraint, Role,
    TaskId,
};
use artoo::memory::megram::law_id;
use artoo::memory::{
    DistillError, DistillFuture, DistillRequest, Distillation, Distiller, ForgetTarget, Memory,
    MemoryError, MemoryOperator, MemoryRole, Remember,
};
use artoo::roles::planner::calibration;
use artoo::tags;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

const LOCAL: &str = "env:local";

fn shared(clock: &Arc<FakeClock>) -> SharedClock {
    clock.clone()
}

async fn open(dir: &Path, clock: &Arc<FakeClock>) -> Memory {
    Memory::open_at(dir, MemoryParams::default(), shared(clock), None)
        .await
        .expect("memory opens")
}

async fn open_with(dir: &Path, clock: &Arc<FakeClock>, distiller: Arc<dyn Distiller>) -> Memory {
    Memory::open_at(dir, MemoryParams::default(), shared(clock), Some(distiller))
        .await
        .expect("memory opens")
}

/// A store in a temp dir on a fake clock, with a bus and the operator API.
struct Harness {
    dir: tempfile::TempDir,
    clock: Arc<FakeClock>,
    memory: Memory,
    bus: Bus,
    operator: MemoryOperator,
}

impl Harness {
    async fn new() -> Self {
        Self::build(None).await
    }

    async fn with_distiller(distiller: Arc<dyn Distiller>) -> Self {
        Self::build(Some(distiller)).await
    }

    async fn build(distiller: Option<Arc<dyn Distiller>>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::at_epoch();
        let memory = Memory::open_at(
            dir.path(),
            MemoryParams::default(),
            shared(&clock),
            distiller,
        )
        .await
        .expect("memory opens");
        let bus = Bus::new(shared(&clock));
        let operator = MemoryOperator::new(memory.clone(), &bus);
        Self {
            dir,
            clock,
            memory,
            bus,
            operator,
        }
    }

    /// A C-level best practice injected by the operator.
    async fn rule(&self, content: &str, space: &str) -> Megram {
        self.operator
            .remember(Remember::new(content).tags(space, LOCAL))
            .await
            .unwrap()
    }
}

/// A GGS-style Megram created now.
fn megram(
    clock: &FakeClock,
    space: &str,
    state: MegramOrigin,
    f: f64,
    sigma: f64,
    k: f64,
) -> Megram {
    Megram {
        id: MegramId::mint(),
        level: Level::M,
        created_at: clock.now(),
        last_recalled_at: None,
        space: space.into(),
        entity: LOCAL.into(),
        content: format!("{state} in {space}"),
        state,
        f,
        sigma,
        k,
    }
}

fn accept(clock: &FakeClock, space: &str) -> Megram {
    megram(clock, space, MegramOrigin::Accept, 0.90, 1.0, 0.05)
}

fn abandon(clock: &FakeClock, space: &str) -> Megram {
    megram(clock, space, MegramOrigin::Abandon, 0.95, -1.0, 0.05)
}

fn close_to(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// A distiller that answers from a script and records what it was asked.
#[derive(Default)]
struct ScriptedDistiller {
    answers: Mutex<VecDeque<Result<String, DistillError>>>,
    requests: Mutex<Vec<DistillRequest>>,
}

impl ScriptedDistiller {
    fn answering(
        answers: impl IntoIterator<Item = Result<&'static str, &'static str>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(
                answers
                    .into_iter()
                    .map(|a| a.map(String::from).map_err(|e| DistillError(e.into())))
                    .collect(),
            ),
            requests: Mutex::default(),
        })
    }

    fn requests(&self) -> Vec<DistillRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl Distiller for ScriptedDistiller {
    fn distil<'a>(&'a self, request: &'a DistillRequest) -> DistillFuture<'a> {
        Box::pin(async move {
            self.requests.lock().unwrap().push(request.clone());
            self.answers
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or_else(|| Err(DistillError("script exhausted".into())))
        })
    }
}

#[tokio::test]
async fn potentials_decay_at_the_seed_half_lives_on_the_fake_clock() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    for (space, k) in [
        ("intent:slow", 0.05),
        ("intent:mid", 0.2),
        ("intent:fast", 0.5),
    ] {
        memory
            .write(megram(clock, space, MegramOrigin::Accept, 1.0, 1.0, k))
            .unwrap();
    }
    let start = clock.now();
    for (space, half_life_days) in [
        ("intent:slow", 13.863),
        ("intent:mid", 3.466),
        ("intent:fast", 1.386),
    ] {
        clock.set(start + Duration::seconds((half_life_days * 86_400.0) as i64));
        let p = memory.query_mk(space, LOCAL).await.unwrap();
        assert!((p.attention - 0.5).abs() < 1e-3, "{space}: {p:?}");
        assert!((p.decision - 0.5).abs() < 1e-3, "{space}: {p:?}");
    }
    memory.close().await.unwrap();
}

#[tokio::test]
async fn query_mk_sums_the_group_and_names_the_action() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    let p = memory.query_mk("intent:new", LOCAL).await.unwrap();
    assert_eq!(
        (p.attention, p.decision, p.action),
        (0.0, 0.0, MemoryAction::Ignore)
    );

    memory.write(accept(clock, "intent:good")).unwrap();
    let p = memory.query_mk("intent:good", LOCAL).await.unwrap();
    assert!(close_to(p.attention, 0.9) && close_to(p.decision, 0.9));
    assert_eq!(p.action, MemoryAction::Exploit);

    memory.write(abandon(clock, "intent:bad")).unwrap();
    assert_eq!(
        memory.query_mk("intent:bad", LOCAL).await.unwrap().action,
        MemoryAction::Avoid
    );

    // change_path: attention without valence.
    for _ in 0..2 {
        let dead_end = megram(
            clock,
            "intent:dead-end",
            MegramOrigin::ChangePath,
            0.3,
            0.0,
            0.2,
        );
        memory.write(dead_end).unwrap();
    }
    let p = memory.query_mk("intent:dead-end", LOCAL).await.unwrap();
    assert!(close_to(p.attention, 0.6) && close_to(p.decision, 0.0));
    assert_eq!(p.action, MemoryAction::Caution);
    memory.close().await.unwrap();
}

#[tokio::test]
async fn negative_feedback_cancels_a_positive_group_without_touching_the_rule() {
    let h = Harness::new().await;
    let memory = &h.memory;
    let rule = h.rule("Archive with tar, not zip.", "intent:archive").await;
    assert_eq!(
        memory
            .query_mk("intent:archive", LOCAL)
            .await
            .unwrap()
            .action,
        MemoryAction::Exploit
    );

    let feedback = memory
        .record_negative_feedback(rule.id, "tar failed on the FAT volume")
        .await
        .unwrap();
    assert_eq!((feedback.level, feedback.sigma), (Level::M, -1.0));
    assert_eq!(
        (feedback.space.as_str(), feedback.entity.as_str()),
        ("intent:archive", LOCAL)
    );
    let p = memory.query_mk("intent:archive", LOCAL).await.unwrap();
    assert!(close_to(p.decision, 0.0), "{p:?}");
    assert_eq!(p.action, MemoryAction::Caution);

    memory
        .record_negative_feedback(rule.id, "tar failed again")
        .await
        .unwrap();
    assert_eq!(
        memory
            .query_mk("intent:archive", LOCAL)
            .await
            .unwrap()
            .action,
        MemoryAction::Avoid
    );
    // Error correction appends; the rule itself is unchanged.
    assert_eq!(memory.get(&[rule.id]).await.unwrap(), vec![rule.clone()]);

    let unknown = MegramId::mint();
    assert!(matches!(
        memory.record_negative_feedback(unknown, "x").await,
        Err(MemoryError::NotFound(id)) if id == unknown
    ));
    memory.close().await.unwrap();
}

#[tokio::test]
async fn trust_bankruptcy_demotes_a_contradicted_rule_to_k_with_decay() {
    let h = Harness::new().await;
    let memory = &h.memory;
    let rule = h.rule("Use rsync for backups.", "intent:backup").await;
    let other = h.rule("Back up before upgrading.", "intent:upgrade").await;

    // One contradiction only cancels the rule: decision 0 is not bankruptcy.
    memory
        .record_negative_feedback(rule.id, "rsync missing")
        .await
        .unwrap();
    let report = memory.dream().await.unwrap();
    assert!(report.bankrupt.is_empty(), "{report:?}");

    memory
        .record_negative_feedback(rule.id, "rsync missing again")
        .await
        .unwrap();
    let report = memory.dream().await.unwrap();
    assert_eq!(report.bankrupt, vec![rule.id]);
    let demoted = &memory.get(&[rule.id]).await.unwrap()[0];
    assert_eq!((demoted.level, demoted.k), (Level::K, 0.05));
    assert_eq!(demoted.content, rule.content);
    assert!(
        memory
            .query_c("intent:backup", LOCAL)
            .await
            .unwrap()
            .is_empty()
    );
    // A rule of another group is untouched.
    assert_eq!(memory.get(&[other.id]).await.unwrap()[0].level, Level::C);
    memory.close().await.unwrap();
}

#[tokio::test]
async fn a_distilled_constraint_keeps_its_authority_while_the_failures_agree_with_it() {
    let distiller = ScriptedDistiller::answering([Ok("Never run the migration without a backup.")]);
    let h = Harness::with_distiller(distiller).await;
    let (clock, memory) = (&h.clock, &h.memory);
    for _ in 0..6 {
        memory.write(abandon(clock, "intent:migrate")).unwrap();
    }
    let first = memory.dream().await.unwrap();
    assert_eq!(first.consolidated.len(), 1, "{first:?}");
    let rule = first.consolidated[0];

    // Two more passes, an hour and a day later: the Constraint agrees with the failures
    // it came from (the group's decision is −1, its own), so nothing contradicts it.
    clock.advance(Duration::hours(1));
    assert!(memory.dream().await.unwrap().bankrupt.is_empty());
    clock.advance(Duration::days(1));
    assert!(memory.dream().await.unwrap().bankrupt.is_empty());
    let stored = &memory.get(&[rule]).await.unwrap()[0];
    assert_eq!(
        (stored.level, stored.k, stored.state),
        (Level::C, 0.0, MegramOrigin::Constraint)
    );

    // It still reaches R2 as a MUST NOT that names it.
    let recall = memory.recall("intent:migrate", LOCAL).await.unwrap();
    let task = TaskId::mint();
    let group = calibration::Group {
        space: "intent:migrate".into(),
        entity: LOCAL.into(),
    };
    let answers = [(
        group,
        calibration::Answer::Answered(MemoryResponse {
            task_id: task.clone(),
            space: "intent:migrate".into(),
            entity: LOCAL.into(),
            sops: recall.sops,
            potentials: recall.potentials,
            recent: recall.recent,
            error: None,
        }),
    )];
    let cal = calibration::calibrate(calibration::Input {
        task_id: &task,
        round: 0,
        answers: &answers,
        directive: None,
        max_constraints: MemoryParams::default().max_constraints,
        now: clock.now(),
    });
    let must_not: Vec<&RecalledConstraint> = cal.recalls[0]
        .constraints
        .iter()
        .filter(|c| c.kind == ConstraintKind::MustNot && c.megram_ids.contains(&rule))
        .collect();
    assert_eq!(must_not.len(), 1, "{:?}", cal.recalls[0].constraints);
    assert!(
        must_not[0]
            .text
            .contains("Never run the migration without a backup.")
    );

    // Reality contradicting it is what bankrupts it: the migration now succeeds.
    for _ in 0..3 {
        memory.write(accept(clock, "intent:migrate")).unwrap();
    }
    assert_eq!(memory.dream().await.unwrap().bankrupt, vec![rule]);
    assert_eq!(memory.get(&[rule]).await.unwrap()[0].level, Level::K);
    memory.close().await.unwrap();
}

/// R2's calibration of one intent group, as the planner publishes it to GGS.
async fn calibrated(
    memory: &Memory,
    task: &TaskId,
    space: &str,
    now: DateTime<Utc>,
) -> Vec<artoo::contracts::MemoryRecall> {
    let recall = memory.recall(space, LOCAL).await.unwrap();
    let group = calibration::Group {
        space: space.into(),
        entity: LOCAL.into(),
    };
    let answers = [(
        group,
        calibration::Answer::Answered(MemoryResponse {
            task_id: task.clone(),
            space: space.into(),
            entity: LOCAL.into(),
            sops: recall.sops,
            potentials: recall.potentials,
            recent: recall.recent,
            error: None,
        }),
    )];
    calibration::calibrate(calibration::Input {
        task_id: task,
        round: 0,
        answers: &answers,
        directive: None,
        max_constraints: MemoryParams::default().max_constraints,
        now,
    })
    .recalls
}

fn prefers(recalls: &[artoo::contracts::MemoryRecall], rule: MegramId) -> bool {
    recalls.iter().flat_map(|r| &r.constraints).any(|c| {
        c.kind == ConstraintKind::ShouldPrefer
            && c.source == ConstraintSource::Sop
            && c.megram_ids.contains(&rule)
    })
}

#[tokio::test]
async fn a_best_practice_followed_by_a_failed_task_is_corrected_through_ggs_and_goes_bankrupt() {
    let distiller =
        ScriptedDistiller::answering([Ok("Use mdfind with kind:movie to find videos.")]);
    let h = Harness::with_distiller(distiller).await;
    let (clock, memory) = (&h.clock, &h.memory);
    let intent = "Find the largest videos in Downloads";
    let space = tags::intent_space(intent);
    for _ in 0..6 {
        memory.write(accept(clock, &space)).unwrap();
    }
    let rule = memory.dream().await.unwrap().consolidated[0];
    tokio::spawn(MemoryRole::new(memory.clone(), &h.bus).run());
    let mut config = artoo::Config::with_dirs(h.dir.path().join("data"), h.dir.path().join("ws"));
    config.budgets.max_replans = 0;
    tokio::spawn(
        artoo::ggs::Ggs::new(
            &config,
            &h.bus,
            shared(clock),
            artoo::lifecycle::Registry::new(tokio_util::sync::CancellationToken::new(), 4096),
        )
        .with_graceful_timeout(StdDuration::from_millis(20))
        .run(),
    );

    // R2 recalls the rule, follows it (calls mdfind), and the task fails.
    let task = TaskId::mint();
    let recalls = calibrated(memory, &task, &space, clock.now()).await;
    assert!(prefers(&recalls, rule), "the Best Practice is in force");
    for recall in recalls {
        h.bus.handle(Role::Planner).publish(Role::Ggs, recall);
    }
    let failed = artoo::contracts::SubTaskOutcome {
        subtask_id: artoo::contracts::SubTaskId::mint(),
        parent_task_id: task.clone(),
        status: artoo::contracts::SubTaskStatus::Failed,
        output: serde_json::Value::Null,
        failure_reason: Some("mdfind found nothing".into()),
        gap_trajectory: vec![],
        criteria_verdicts: vec![],
        tool_calls: vec![artoo::contracts::ToolCallRecord {
            tool: ToolName::Mdfind.into(),
            input: serde_json::json!({"query": "kind:movie"}),
            target: "kind:movie".into(),
            output_head: String::new(),
            status: artoo::contracts::ToolCallStatus::Ok,
            error: None,
            duration_ms: 5,
            confirmation: None,
            failure: None,
            failed_exit: None,
            effects: Vec::new(),
            grant: None,
        }],
    };
    h.bus.handle(Role::MetaValidator).publish(
        Role::Ggs,
        artoo::contracts::ReplanRequest {
            task_id: task.clone(),
            intent: intent.into(),
            gap_summary: "no video found".into(),
            failed_subtasks: vec![failed.subtask_id],
            failed_outcomes: vec![failed],
            matched_outcomes: vec![],
            task_criteria_verdicts: vec![],
            unrun_subtasks: vec![],
            unjudged_task_criteria: vec![],
            correction_count: 1,
            elapsed_ms: 1_000,
            recommendation: artoo::contracts::Recommendation::Abandon,
        },
    );
    // R5 records GGS's feedback against the rule, with the abandon of the task.
    let recorded = async {
        loop {
            let view = h.operator.group(&space, LOCAL).await.unwrap();
            let states: Vec<MegramOrigin> = view.iter().map(|v| v.megram.state).collect();
            if states.contains(&MegramOrigin::NegativeFeedback)
                && states.contains(&MegramOrigin::Abandon)
            {
                break view;
            }
            tokio::time::sleep(StdDuration::from_millis(10)).await;
        }
    };
    let view = tokio::time::timeout(StdDuration::from_secs(10), recorded)
        .await
        .expect("the feedback reaches the store");
    let feedback = view
        .iter()
        .find(|v| v.megram.state == MegramOrigin::NegativeFeedback)
        .unwrap();
    assert_eq!((feedback.megram.f, feedback.megram.sigma), (1.0, -1.0));
    assert!(feedback.megram.content.contains(&rule.to_string()));

    // The contradicted rule goes bankrupt and no longer reaches R2 as SHOULD PREFER.
    assert_eq!(memory.dream().await.unwrap().bankrupt, vec![rule]);
    assert_eq!(memory.get(&[rule]).await.unwrap()[0].level, Level::K);
    let task = TaskId::mint();
    assert!(!prefers(
        &calibrated(memory, &task, &space, clock.now()).await,
        rule
    ));
    memory.close().await.unwrap();
}

#[tokio::test]
async fn recall_refreshes_decay_from_the_recall_time() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    let operator = &h.operator;
    let rule = h.rule("Prefer the trash over rm.", "intent:clean").await;
    let created = clock.now();

    clock.advance(Duration::days(30));
    let sops = memory.query_c("intent:clean", LOCAL).await.unwrap();
    assert_eq!(sops.len(), 1);
    assert_eq!(sops[0].id, rule.id);
    let recalled_at = clock.now();
    assert_eq!(
        memory.get(&[rule.id]).await.unwrap()[0].last_recalled_at,
        Some(recalled_at)
    );

    // Bankruptcy gives the rule k = 0.05; its decay counts from the recall, not from
    // creation 30 days earlier.
    memory
        .record_negative_feedback(rule.id, "wrong")
        .await
        .unwrap();
    memory
        .record_negative_feedback(rule.id, "wrong again")
        .await
        .unwrap();
    assert_eq!(memory.dream().await.unwrap().bankrupt, vec![rule.id]);
    clock.advance(Duration::seconds((13.863 * 86_400.0) as i64));
    let view = operator.group("intent:clean", LOCAL).await.unwrap();
    let entry = view.iter().find(|v| v.megram.id == rule.id).unwrap();
    assert!((entry.attention - 0.5).abs() < 1e-3, "{entry:?}");
    let from_creation = (-0.05 * (clock.now() - created).num_seconds() as f64 / 86_400.0).exp();
    assert!(from_creation < 0.2);
    memory.close().await.unwrap();
}

#[tokio::test]
async fn gc_forgets_faded_episodes_but_keeps_recent_ones_and_rules() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    let refine = megram(clock, "intent:gc", MegramOrigin::Refine, 0.10, 0.5, 0.5);
    let change_path = megram(clock, "intent:gc", MegramOrigin::ChangePath, 0.30, 0.0, 0.2);
    let accepted = accept(clock, "intent:gc");
    for m in [&refine, &change_path, &accepted] {
        memory.write(m.clone()).unwrap();
    }
    let rule = h.rule("Keep me.", "intent:gc").await;

    // A fresh refine is exactly at |f| = 0.1, not below: it survives the first pass.
    assert_eq!(memory.dream().await.unwrap().gc_deleted, 0);
    clock.advance(Duration::hours(1));
    assert_eq!(memory.dream().await.unwrap().gc_deleted, 1);
    // change_path (k 0.2) fades below 0.1 after ln(3)/0.2 ≈ 5.5 days.
    clock.advance(Duration::days(5));
    assert_eq!(memory.dream().await.unwrap().gc_deleted, 0);
    clock.advance(Duration::days(1));
    assert_eq!(memory.dream().await.unwrap().gc_deleted, 1);
    let left: Vec<MegramId> = memory
        .get(&[refine.id, change_path.id, accepted.id, rule.id])
        .await
        .unwrap()
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(left, vec![accepted.id, rule.id]);
    memory.close().await.unwrap();
}

#[tokio::test]
async fn a_qualifying_group_is_distilled_once_into_a_c_rule_and_not_double_counted() {
    // Groups are visited in key order: intent:migrate before intent:report.
    let distiller = ScriptedDistiller::answering([
        Ok("Never run the migration without a backup."),
        Ok("  Use the weekly template in ~/Documents/templates.  "),
    ]);
    let h = Harness::with_distiller(distiller.clone()).await;
    let (clock, memory) = (&h.clock, &h.memory);
    let mut sources = Vec::new();
    for i in 0..6 {
        let m = Megram {
            content: format!("report {i} done with the template"),
            ..accept(clock, "intent:report")
        };
        sources.push(m.id);
        memory.write(m).unwrap();
        clock.advance(Duration::minutes(1));
    }
    for _ in 0..6 {
        memory.write(abandon(clock, "intent:migrate")).unwrap();
    }
    // Below the thresholds: no call.
    memory.write(accept(clock, "intent:small")).unwrap();

    let report = memory.dream().await.unwrap();
    assert_eq!(report.consolidated.len(), 2, "{report:?}");
    let requests = distiller.requests();
    assert_eq!(requests.len(), 2);
    let report_req = requests
        .iter()
        .find(|r| r.space == "intent:report")
        .unwrap();
    assert_eq!(report_req.kind, Distillation::BestPractice);
    // Six accepts minutes apart: 6 × 0.9, barely decayed.
    assert!((report_req.attention - 5.4).abs() < 1e-3, "{report_req:?}");
    assert!((report_req.decision - 5.4).abs() < 1e-3, "{report_req:?}");
    assert_eq!(report_req.sources.len(), 6);
    assert_eq!(
        report_req.sources[0].content,
        "report 5 done with the template"
    );
    let migrate_req = requests
        .iter()
        .find(|r| r.space == "intent:migrate")
        .unwrap();
    assert_eq!(migrate_req.kind, Distillation::Constraint);

    let sops = memory.query_c("intent:report", LOCAL).await.unwrap();
    assert_eq!(sops.len(), 1);
    assert_eq!(
        sops[0].content,
        "Use the weekly template in ~/Documents/templates."
    );
    assert_eq!(sops[0].sigma, 1.0);
    let rule = &memory.get(&[sops[0].id]).await.unwrap()[0];
    assert_eq!(
        (rule.level, rule.k, rule.f, rule.state),
        (Level::C, 0.0, 1.0, MegramOrigin::BestPractice)
    );
    let constraint = &memory.query_c("intent:migrate", LOCAL).await.unwrap()[0];
    assert_eq!(constraint.sigma, -1.0);
    assert_eq!(
        memory.get(&[constraint.id]).await.unwrap()[0].state,
        MegramOrigin::Constraint
    );

    // The sources are marked and no longer counted: the C rule speaks for them.
    let p = memory.query_mk("intent:report", LOCAL).await.unwrap();
    assert!(
        close_to(p.attention, 1.0) && close_to(p.decision, 1.0),
        "{p:?}"
    );
    let view = h.operator.group("intent:report", LOCAL).await.unwrap();
    for v in view.iter().filter(|v| sources.contains(&v.megram.id)) {
        assert_eq!(v.consolidated_into, Some(rule.id));
        assert!(!v.counted && v.attention == 0.0 && v.decision == 0.0);
    }
    assert_eq!(view.len(), 7);

    // Never promoted twice: the next pass makes no call.
    let again = memory.dream().await.unwrap();
    assert!(again.consolidated.is_empty());
    assert_eq!(distiller.requests().len(), 2);
    memory.close().await.unwrap();
}

#[tokio::test]
async fn a_failed_distillation_changes_nothing_and_is_retried_next_pass() {
    let distiller = ScriptedDistiller::answering([
        Err("the model timed out"),
        Ok("   "),
        Ok("Prefer the CLI exporter."),
    ]);
    let h = Harness::with_distiller(distiller.clone()).await;
    let (clock, memory) = (&h.clock, &h.memory);
    for _ in 0..6 {
        memory.write(accept(clock, "intent:export")).unwrap();
    }
    let before = memory.query_mk("intent:export", LOCAL).await.unwrap();

    for _ in 0..2 {
        let report = memory.dream().await.unwrap();
        assert_eq!((report.distill_failures, report.consolidated.len()), (1, 0));
        assert_eq!(
            memory.query_mk("intent:export", LOCAL).await.unwrap(),
            before
        );
        assert!(
            memory
                .query_c("intent:export", LOCAL)
                .await
                .unwrap()
                .is_empty()
        );
    }
    let mut status = memory.dreamer_status();
    assert_eq!(status.borrow_and_update().passes, 2);

    let report = memory.dream().await.unwrap();
    assert_eq!(report.consolidated.len(), 1);
    assert_eq!(distiller.requests().len(), 3);
    memory.close().await.unwrap();
}

/// A distiller whose model never answers.
struct SilentDistiller;

impl Distiller for SilentDistiller {
    fn distil<'a>(&'a self, _request: &'a DistillRequest) -> DistillFuture<'a> {
        Box::pin(std::future::pending())
    }
}

#[tokio::test(start_paused = true)]
async fn a_distiller_that_never_answers_fails_the_group_instead_of_stalling_the_dreamer() {
    let h = Harness::with_distiller(Arc::new(SilentDistiller)).await;
    for _ in 0..6 {
        h.memory.write(accept(&h.clock, "intent:stuck")).unwrap();
    }
    let started = tokio::time::Instant::now();
    let report = h.memory.dream().await.unwrap();
    assert_eq!((report.distill_failures, report.consolidated.len()), (1, 0));
    assert!(started.elapsed() >= artoo::memory::dreamer::DISTILL_TIMEOUT);
    assert!(
        h.memory
            .query_c("intent:stuck", LOCAL)
            .await
            .unwrap()
            .is_empty()
    );
    h.memory.close().await.unwrap();
}

#[tokio::test]
async fn without_a_distiller_qualifying_groups_are_deferred_not_lost() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    for _ in 0..6 {
        memory.write(accept(clock, "intent:later")).unwrap();
    }
    let report = memory.dream().await.unwrap();
    assert_eq!((report.deferred, report.consolidated.len()), (1, 0));
    assert!(close_to(
        memory
            .query_mk("intent:later", LOCAL)
            .await
            .unwrap()
            .attention,
        5.4
    ));
    memory.close().await.unwrap();
}

#[tokio::test]
async fn the_t_layer_cannot_be_deleted_demoted_or_overwritten() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    let operator = &h.operator;
    let laws: Vec<MegramId> = (0..4).map(law_id).collect();
    let original = memory.get(&laws).await.unwrap();
    assert_eq!(original.len(), 4);
    assert!(original.iter().all(|m| m.level == Level::T && m.k == 0.0));

    // Delete.
    assert!(matches!(
        operator.forget(ForgetTarget::Id(laws[0])).await,
        Err(MemoryError::Immutable(_))
    ));
    let report = operator
        .forget(ForgetTarget::Group {
            space: "laws".into(),
            entity: "law:1".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        (report.forgotten.len(), report.kept_immutable),
        (0, vec![laws[1]])
    );
    let report = operator
        .forget(ForgetTarget::IdPrefix(laws[2].to_string()[..8].to_string()))
        .await
        .unwrap();
    assert!(report.forgotten.is_empty());
    assert_eq!(report.kept_immutable.len(), 4);

    // Demote: pin refuses, and contradicting a law never bankrupts it.
    assert!(matches!(
        operator.pin(laws[0]).await,
        Err(MemoryError::Immutable(_))
    ));
    for _ in 0..3 {
        memory
            .record_negative_feedback(laws[0], "disagree")
            .await
            .unwrap();
    }
    assert!(memory.query_mk("laws", "law:0").await.unwrap().decision < 0.0);
    assert!(memory.dream().await.unwrap().bankrupt.is_empty());

    // Overwrite: a T write is refused outright; a write reusing a law's id is dropped.
    let t_write = Megram {
        level: Level::T,
        ..accept(clock, "laws")
    };
    assert!(matches!(
        memory.write(t_write),
        Err(MemoryError::Immutable(_))
    ));
    memory
        .write(Megram {
            id: laws[3],
            ..abandon(clock, "laws")
        })
        .unwrap();
    memory.flush().await.unwrap();
    assert_eq!(memory.get(&laws).await.unwrap(), original);

    // The operator cannot add to the T layer: no prompt would ever read the entry.
    let refused = operator
        .remember(Remember::new("Answer in English.").level(Level::T))
        .await;
    assert!(
        matches!(&refused, Err(MemoryError::Invalid(why)) if why.contains("Four Laws")),
        "{refused:?}"
    );
    assert_eq!(
        operator.groups().await.unwrap().len(),
        4,
        "nothing but the laws is stored"
    );
    memory.close().await.unwrap();

    // Reopening seeds nothing twice.
    let memory = open(h.dir.path(), clock).await;
    assert_eq!(memory.get(&laws).await.unwrap(), original);
    memory.close().await.unwrap();
}

#[tokio::test]
async fn tags_with_bars_percent_signs_and_unicode_stay_separate_groups() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    let groups = [
        ("a|b", "c"),
        ("a", "b|c"),
        ("a%7Cb", "c"),
        ("意图:整理桌面", "环境:本地"),
        ("tool:shell", "path:/Users/李雷/Desktop/报告 (1).pdf"),
    ];
    for (i, (space, entity)) in groups.iter().enumerate() {
        for _ in 0..=i {
            memory
                .write(Megram {
                    entity: entity.to_string(),
                    ..accept(clock, space)
                })
                .unwrap();
        }
    }
    for (i, (space, entity)) in groups.iter().enumerate() {
        let p = memory.query_mk(space, entity).await.unwrap();
        assert!(
            close_to(p.attention, 0.9 * (i + 1) as f64),
            "{space} / {entity}: {p:?}"
        );
    }
    let listed = h.operator.groups().await.unwrap();
    for (space, entity) in groups {
        assert!(
            listed
                .iter()
                .any(|g| g.space == space && g.entity == entity),
            "{space} / {entity} missing from {listed:?}"
        );
    }
    memory.close().await.unwrap();
}

#[tokio::test]
async fn every_accepted_write_is_stored_once_close_returns() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    let mut ids = Vec::new();
    for i in 0..10_000 {
        let m = accept(clock, &format!("intent:{}", i % 37));
        ids.push(m.id);
        memory.write(m).unwrap();
    }
    memory.close().await.unwrap();
    assert!(matches!(
        memory.write(accept(clock, "intent:late")),
        Err(MemoryError::Closed)
    ));
    memory.close().await.unwrap();

    let memory = open(h.dir.path(), clock).await;
    assert_eq!(memory.get(&ids).await.unwrap().len(), ids.len());
    memory.close().await.unwrap();
}

#[tokio::test]
async fn a_second_open_of_the_same_store_names_the_data_dir() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let config = artoo::Config::with_dirs(dir.path().join("data"), dir.path().join("ws"));
    let first = Memory::open(&config, shared(&clock), None).await.unwrap();
    let err = Memory::open(&config, shared(&clock), None)
        .await
        .err()
        .expect("the store is locked");
    assert!(matches!(err, MemoryError::Locked { .. }), "{err}");
    assert!(
        err.to_string()
            .contains(&config.data_dir.display().to_string()),
        "{err}"
    );
    first.close().await.unwrap();
    // Released on close.
    Memory::open(&config, shared(&clock), None)
        .await
        .unwrap()
        .close()
        .await
        .unwrap();
}

#[tokio::test]
async fn operator_changes_are_published_for_the_auditor_and_listed_with_live_potentials() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    let mut tap = h.bus.tap("audit", 64);
    let operator = &h.operator;

    let kept = operator
        .remember(Remember::new("Reports go to ~/Reports.").level(Level::M))
        .await
        .unwrap();
    assert_eq!(
        (kept.f, kept.k, kept.space.as_str()),
        (0.9, 0.05, "global:user")
    );
    let avoid = operator
        .remember(
            Remember::new("Never email drafts.")
                .tags("intent:email", LOCAL)
                .sigma(-1.0),
        )
        .await
        .unwrap();
    let pinned = operator.pin(kept.id).await.unwrap();
    assert_eq!(pinned.k, 0.0);
    clock.advance(Duration::days(365));

    let groups = operator.groups().await.unwrap();
    let user = groups.iter().find(|g| g.space == "global:user").unwrap();
    assert!(
        close_to(user.potentials.attention, 0.9),
        "pinned: no decay {user:?}"
    );
    let email = groups.iter().find(|g| g.space == "intent:email").unwrap();
    assert_eq!(email.potentials.action, MemoryAction::Avoid);
    assert_eq!(email.levels.c, 1);
    let view = operator.group("intent:email", LOCAL).await.unwrap();
    assert_eq!(view.len(), 1);
    assert!(close_to(view[0].attention, 1.0) && close_to(view[0].decision, -1.0));

    let report = operator
        .forget(ForgetTarget::Group {
            space: "intent:email".into(),
            entity: LOCAL.into(),
        })
        .await
        .unwrap();
    assert_eq!(report.forgotten, vec![avoid.id]);
    assert!(memory.get(&[avoid.id]).await.unwrap().is_empty());
    assert!(matches!(
        operator.pin(avoid.id).await,
        Err(MemoryError::NotFound(_))
    ));

    let mut changes = Vec::new();
    while let Some(TapEvent::Message(env)) = tap.try_recv() {
        assert_eq!((env.from, env.to), (Role::User, Role::Memory));
        if let Message::MemoryOperatorChange(c) = &env.message {
            changes.push((c.operation, c.megram_ids.clone()));
        }
    }
    assert_eq!(
        changes,
        vec![
            (MemoryOperation::Remember, vec![kept.id]),
            (MemoryOperation::Remember, vec![avoid.id]),
            (MemoryOperation::Pin, vec![kept.id]),
            (MemoryOperation::Forget, vec![avoid.id]),
        ]
    );
    memory.close().await.unwrap();
}

#[tokio::test]
async fn the_role_stores_ggs_writes_and_answers_planner_queries_on_the_bus() {
    let h = Harness::new().await;
    let (clock, memory) = (&h.clock, &h.memory);
    let bus = &h.bus;
    let role = tokio::spawn(MemoryRole::new(memory.clone(), bus).run());
    let rule = h.rule("Use the CSV exporter.", "intent:export").await;

    let ggs = bus.handle(Role::Ggs);
    let task = TaskId::mint();
    let written = accept(clock, "intent:export");
    ggs.publish(
        Role::Memory,
        MegramWrite {
            task_id: Some(task.clone()),
            megram: written.clone(),
            against_rule: None,
        },
    );
    // Only GGS writes to R5.
    let forged = abandon(clock, "intent:export");
    bus.handle(Role::Planner).publish(
        Role::Memory,
        MegramWrite {
            task_id: Some(task.clone()),
            megram: forged.clone(),
            against_rule: None,
        },
    );

    let reply = bus
        .handle(Role::Planner)
        .request(
            Role::Memory,
            MemoryQuery {
                task_id: task.clone(),
                space: "intent:export".into(),
                entity: LOCAL.into(),
            },
        )
        .await
        .unwrap();
    assert_eq!((reply.from, reply.to), (Role::Memory, Role::Planner));
    let Message::MemoryResponse(response) = &reply.message else {
        panic!("expected a MemoryResponse, got {:?}", reply.message);
    };
    assert_eq!(response.task_id, task);
    assert_eq!(response.error, None);
    assert_eq!(response.sops.len(), 1);
    assert_eq!(response.sops[0].id, rule.id);
    assert_eq!(response.recent, vec![written.clone()]);
    assert!(close_to(response.potentials.attention, 1.9));
    assert_eq!(response.potentials.action, MemoryAction::Exploit);
    assert!(memory.get(&[forged.id]).await.unwrap().is_empty());
    // The SOP hit was stamped.
    assert_eq!(
        memory.get(&[rule.id]).await.unwrap()[0].last_recalled_at,
        Some(clock.now())
    );

    bus.close();
    role.await.unwrap();
    memory.close().await.unwrap();
}

#[tokio::test]
async fn a_query_after_close_is_answered_with_an_error_not_silence() {
    let h = Harness::new().await;
    let memory = &h.memory;
    let bus = &h.bus;
    let role = tokio::spawn(MemoryRole::new(memory.clone(), bus).run());
    memory.close().await.unwrap();
    let reply = bus
        .handle(Role::Planner)
        .request(
            Role::Memory,
            MemoryQuery {
                task_id: TaskId::mint(),
                space: "intent:x".into(),
                entity: LOCAL.into(),
            },
        )
        .await
        .unwrap();
    let Message::MemoryResponse(response) = &reply.message else {
        panic!("expected a MemoryResponse");
    };
    assert!(response.error.as_deref().unwrap().contains("closed"));
    assert_eq!(response.potentials.action, MemoryAction::Ignore);
    bus.close();
    role.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_terminal_write_brings_a_dreamer_pass_shortly_after_the_task() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let params = MemoryParams {
        dreamer_period_secs: 100_000,
        dreamer_after_task_secs: 5,
        ..MemoryParams::default()
    };
    let memory = Memory::open_at(dir.path(), params, shared(&clock), None)
        .await
        .unwrap();
    let mut status = memory.dreamer_status();
    let faded = megram(&clock, "intent:t", MegramOrigin::Refine, 0.1, 0.5, 0.5);
    memory.write(faded.clone()).unwrap();
    clock.advance(Duration::days(1));

    let written_at = tokio::time::Instant::now();
    memory.write(accept(&clock, "intent:t")).unwrap();
    status.changed().await.unwrap();
    let elapsed = written_at.elapsed();
    assert!(
        elapsed >= StdDuration::from_secs(5) && elapsed < StdDuration::from_secs(100_000),
        "post-task pass after {elapsed:?}"
    );
    let report = status.borrow().last_report.clone().unwrap();
    assert_eq!(report.gc_deleted, 1);

    // A non-terminal write does not bring the pass forward: the next one is periodic.
    let since = tokio::time::Instant::now();
    memory
        .write(megram(
            &clock,
            "intent:t",
            MegramOrigin::Refine,
            0.1,
            0.5,
            0.5,
        ))
        .unwrap();
    status.changed().await.unwrap();
    assert!(
        since.elapsed() >= StdDuration::from_secs(99_990),
        "{:?}",
        since.elapsed()
    );
    memory.close().await.unwrap();
}

// ---------------------------------------------------------------------------------------
// Crash safety: a child process writes and flushes in a loop and is SIGKILLed mid-stream.

const CRASH_DIR_ENV: &str = "ARTOO_TEST_MEMORY_CRASH_DIR";
const CRASH_RUN_ENV: &str = "ARTOO_TEST_MEMORY_CRASH_RUN";
const CRASH_FLUSH_EVERY: u64 = 25;
const CRASH_ROUNDS: u64 = 20;

fn crash_id(run: u64, seq: u64) -> MegramId {
    MegramId::from(Uuid::from_u128(((run as u128 + 1) << 64) | seq as u128))
}

fn crash_megram(run: u64, seq: u64, at: DateTime<Utc>) -> Megram {
    Megram {
        id: crash_id(run, seq),
        level: Level::M,
        created_at: at,
        last_recalled_at: None,
        space: format!("intent:crash-{run}"),
        entity: LOCAL.into(),
        content: format!("run {run} write {seq} {}", "x".repeat((seq % 200) as usize)),
        state: MegramOrigin::Accept,
        f: 0.9,
        sigma: 1.0,
        k: 0.05,
    }
}

/// The child: writes forever (bounded), printing how many writes each flush covered.
fn crash_child(dir: PathBuf, run: u64) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let clock = FakeClock::at_epoch();
        let memory = open(&dir, &clock).await;
        let mut out = std::io::stdout().lock();
        for seq in 0..1_000_000 {
            memory.write(crash_megram(run, seq, clock.now())).unwrap();
            if (seq + 1) % CRASH_FLUSH_EVERY == 0 {
                memory.flush().await.unwrap();
                writeln!(out, "flushed {}", seq + 1).unwrap();
                out.flush().unwrap();
            }
        }
    });
}

#[test]
fn a_store_killed_mid_stream_reopens_with_everything_flushed_before_the_kill() {
    if let Ok(dir) = std::env::var(CRASH_DIR_ENV) {
        let run = std::env::var(CRASH_RUN_ENV).unwrap().parse().unwrap();
        return crash_child(PathBuf::from(dir), run);
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("memory.leveldb");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let clock = FakeClock::at_epoch();
    let mut flushed_per_run = Vec::new();
    for run in 0..CRASH_ROUNDS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "memory::a_store_killed_mid_stream_reopens_with_everything_flushed_before_the_kill",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CRASH_DIR_ENV, &store)
            .env(CRASH_RUN_ENV, run.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill at a different point each round, while the child keeps writing.
        let target = CRASH_FLUSH_EVERY * (1 + (run * 7) % 11);
        let mut flushed = 0;
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        for line in lines {
            let line = line.unwrap();
            // The first report shares its line with the test harness's own output.
            if let Some((_, n)) = line.split_once("flushed ") {
                flushed = n.parse().unwrap();
                if flushed >= target {
                    break;
                }
            }
        }
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        assert!(
            flushed >= target,
            "round {run}: the child stopped early at {flushed}"
        );
        flushed_per_run.push(flushed);

        rt.block_on(async {
            let memory = Memory::open_at(&store, MemoryParams::default(), shared(&clock), None)
                .await
                .unwrap_or_else(|e| panic!("round {run}: reopen failed: {e}"));
            for (r, &n) in flushed_per_run.iter().enumerate() {
                let ids: Vec<MegramId> = (0..n).map(|s| crash_id(r as u64, s)).collect();
                let got = memory.get(&ids).await.unwrap();
                assert_eq!(
                    got.len() as u64,
                    n,
                    "round {run}: run {r} lost flushed writes"
                );
                assert_eq!(got[0], crash_megram(r as u64, 0, clock.now()));
            }
            assert_eq!(
                memory
                    .get(&(0..4).map(law_id).collect::<Vec<_>>())
                    .await
                    .unwrap()
                    .len(),
                4
            );
            memory.close().await.unwrap();
        });
    }
}

const LOCK_PROBE_ENV: &str = "ARTOO_TEST_MEMORY_LOCK_PROBE";

#[test]
fn another_process_opening_a_store_in_use_is_told_which_directory_is_locked() {
    if let Ok(dir) = std::env::var(LOCK_PROBE_ENV) {
        // The child: try to open and report what happened. The harness prints the test
        // name on the same line, so the parent looks for the marker anywhere in a line.
        let rt = tokio::runtime::Runtime::new().unwrap();
        let clock = FakeClock::at_epoch();
        match rt.block_on(Memory::open_at(
            &dir,
            MemoryParams::default(),
            shared(&clock),
            None,
        )) {
            Ok(_) => println!("probe: opened"),
            Err(e) => println!("probe: {e}"),
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("memory.leveldb");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let clock = FakeClock::at_epoch();
    let memory = rt
        .block_on(Memory::open_at(
            &store,
            MemoryParams::default(),
            shared(&clock),
            None,
        ))
        .unwrap();
    let probe = || {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "memory::another_process_opening_a_store_in_use_is_told_which_directory_is_locked",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(LOCK_PROBE_ENV, &store)
            .stderr(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .find_map(|l| {
                l.split_once("probe: ")
                    .map(|(_, report)| report.to_string())
            })
            .expect("the probe reports")
    };
    let refused = probe();
    assert!(
        refused.contains("in use by another artoo process"),
        "{refused}"
    );
    assert!(refused.contains(&store.display().to_string()), "{refused}");
    rt.block_on(memory.close()).unwrap();
    assert_eq!(probe(), "opened");
}

// ---------------------------------------------------------------------------------------
// The committed store of format version 1 keeps opening.

const FIXTURE_ENV: &str = "ARTOO_WRITE_MEMORY_FIXTURE";

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/memory/format-v1")
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// What the fixture holds; run with `ARTOO_WRITE_MEMORY_FIXTURE=1` to write it afresh
/// (only when the format version changes, with a new directory name).
async fn write_fixture(dir: &Path) {
    let clock = FakeClock::new(at("2026-01-01T00:00:00Z"));
    let distiller = ScriptedDistiller::answering([Ok("Start weekly reports from the template.")]);
    let memory = open_with(dir, &clock, distiller).await;
    let bus = Bus::new(shared(&clock));
    let operator = MemoryOperator::new(memory.clone(), &bus);
    memory
        .write(Megram {
            content: "Succeeded. Tools: shell:mv. Result: desktop tidied".into(),
            ..accept(&clock, "intent:整理桌面|下载")
        })
        .unwrap();
    memory
        .write(Megram {
            entity: "path:/tmp/a|b 100%".into(),
            content: "rm refused".into(),
            ..megram(
                &clock,
                "tool:shell",
                MegramOrigin::ChangeApproach,
                0.85,
                -1.0,
                0.05,
            )
        })
        .unwrap();
    operator
        .remember(Remember::new("Prefer the trash over rm."))
        .await
        .unwrap();
    for i in 0..6 {
        memory
            .write(Megram {
                content: format!("weekly report {i} from the template"),
                ..accept(&clock, "intent:weekly-report")
            })
            .unwrap();
    }
    assert_eq!(memory.dream().await.unwrap().consolidated.len(), 1);
    clock.advance(Duration::days(1));
    assert_eq!(memory.query_c("global:user", LOCAL).await.unwrap().len(), 1);
    memory.close().await.unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[tokio::test]
async fn the_committed_format_v1_store_reopens_with_its_contents() {
    if std::env::var(FIXTURE_ENV).is_ok() {
        let fresh = tempfile::tempdir().unwrap();
        write_fixture(fresh.path()).await;
        let _ = std::fs::remove_dir_all(fixture_dir());
        std::fs::create_dir_all(fixture_dir()).unwrap();
        for entry in std::fs::read_dir(fresh.path()).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            if name != "LOCK" && !name.to_string_lossy().starts_with("LOG") {
                std::fs::copy(entry.path(), fixture_dir().join(name)).unwrap();
            }
        }
    }
    // Opening writes to a store: work on a copy.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture_dir(), dir.path());
    let clock = FakeClock::new(at("2026-01-11T00:00:00Z"));
    let memory = open(dir.path(), &clock).await;
    let bus = Bus::new(shared(&clock));
    let operator = MemoryOperator::new(memory.clone(), &bus);

    assert_eq!(
        memory
            .get(&(0..4).map(law_id).collect::<Vec<_>>())
            .await
            .unwrap()
            .len(),
        4
    );
    let groups = operator.groups().await.unwrap();
    let names: Vec<(&str, &str)> = groups
        .iter()
        .map(|g| (g.space.as_str(), g.entity.as_str()))
        .collect();
    for expected in [
        ("intent:整理桌面|下载", LOCAL),
        ("tool:shell", "path:/tmp/a|b 100%"),
        ("global:user", LOCAL),
        ("intent:weekly-report", LOCAL),
        ("laws", "law:0"),
    ] {
        assert!(
            names.contains(&expected),
            "{expected:?} missing from {names:?}"
        );
    }

    // Ten days of decay at k = 0.05 since 2026-01-01.
    let p = memory
        .query_mk("intent:整理桌面|下载", LOCAL)
        .await
        .unwrap();
    assert!(close_to(p.attention, 0.9 * (-0.5f64).exp()), "{p:?}");
    let p = memory
        .query_mk("tool:shell", "path:/tmp/a|b 100%")
        .await
        .unwrap();
    assert!(close_to(p.decision, -0.85 * (-0.5f64).exp()), "{p:?}");

    let rule = &operator.group("global:user", LOCAL).await.unwrap()[0].megram;
    assert_eq!(rule.content, "Prefer the trash over rm.");
    assert_eq!(rule.last_recalled_at, Some(at("2026-01-02T00:00:00Z")));

    let report = operator.group("intent:weekly-report", LOCAL).await.unwrap();
    assert_eq!(report.len(), 7);
    let c = report.iter().find(|v| v.megram.level == Level::C).unwrap();
    assert_eq!(c.megram.content, "Start weekly reports from the template.");
    assert_eq!(
        report
            .iter()
            .filter(|v| v.consolidated_into == Some(c.megram.id))
            .count(),
        6
    );

    // Its groups are still found under the kinds of task they name now: a recall of
    // the kind reads the older build's group with it, and nothing is rewritten.
    let weekly = tags::intent_space("Weekly report");
    assert_ne!(weekly, "intent:weekly-report");
    let recall = memory.recall(&weekly, LOCAL).await.unwrap();
    assert_eq!(
        recall
            .sops
            .iter()
            .map(|s| s.content.as_str())
            .collect::<Vec<_>>(),
        ["Start weekly reports from the template."]
    );
    let tidy = memory
        .query_mk(&tags::intent_space("整理桌面"), LOCAL)
        .await
        .unwrap();
    assert!(close_to(tidy.attention, 0.9 * (-0.5f64).exp()), "{tidy:?}");
    // A write of this build joins the same kind: both count.
    memory.write(accept(&clock, &weekly)).unwrap();
    let both = memory.query_mk(&weekly, LOCAL).await.unwrap();
    assert!(
        close_to(both.attention, recall.potentials.attention + 0.9),
        "{both:?} after {:?}",
        recall.potentials
    );
    assert!(
        operator
            .groups()
            .await
            .unwrap()
            .iter()
            .any(|g| g.space == "intent:weekly-report"),
        "the old group is kept as it was"
    );
    memory.close().await.unwrap();
}
