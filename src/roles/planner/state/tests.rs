//! R2's decisions, driven with no bus, no model and no clock.

use super::*;
use crate::contracts::{
    Constraints, Loss, MatchedOutput, MemoryAction, Message, MixedFailureClass, Potentials,
    PrevDirective, SubTaskId, Urgency,
};
use crate::ggs::graceful;
use crate::llm::Speaker;
use crate::roles::planner::schema::{DraftCriterion, DraftSubTask};
use crate::tools::ToolName;

const TIMEOUT: Duration = Duration::from_secs(3);

fn settings() -> Settings {
    Settings {
        plan_reasks: 1,
        max_constraints: 8,
        live_tasks: 4,
        memory_timeout: TIMEOUT,
        home: PathBuf::from("/home/u"),
        files: std::sync::Arc::new(crate::checks::criteria::Disk),
    }
}

fn plans() -> Plans {
    Plans::new(settings())
}

fn now() -> DateTime<Utc> {
    DateTime::default()
}

fn spec_of(id: &str) -> TaskSpec {
    TaskSpec {
        task_id: TaskId::from_existing(id),
        intent: format!("Find the largest PDF files in ~/Downloads ({id})"),
        constraints: Constraints::default(),
        raw_input: "which PDFs in Downloads are biggest?".into(),
        answer: Default::default(),
    }
}

fn spec() -> TaskSpec {
    spec_of(TaskId::mint().as_ref())
}

fn directive(task: &TaskId, kind: ReplanDirective, round: u32) -> PlanDirective {
    PlanDirective {
        task_id: task.clone(),
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
        failed_criterion: "the output lists the PDFs by size".into(),
        failure_class: MixedFailureClass::Environmental,
        budget_pressure: 0.3,
        grad_l: 0.0,
        rationale: "D above δ".into(),
        urgency: Urgency::Normal,
        gradient: None,
        round,
    }
}

fn subtask(context: &str, tools: &[ToolName]) -> DraftSubTask {
    DraftSubTask {
        context: context.into(),
        intent: "List the PDF files in ~/Downloads by size".into(),
        sequence: 1,
        success_criteria: vec![DraftCriterion::verifiable(
            "the output lists at least one path ending in .pdf",
        )],
        tools: tools.to_vec(),
    }
}

/// A plan the validator accepts.
fn valid() -> Drafted {
    drafted(subtask(
        "Use glob with pattern *.pdf under ~/Downloads.",
        &[ToolName::Glob],
    ))
}

/// A plan no re-ask budget mends: it relies on a program that is usually missing.
fn invalid() -> Drafted {
    drafted(subtask("Pipe the listing through jq.", &[ToolName::Shell]))
}

fn drafted(subtask: DraftSubTask) -> Drafted {
    Drafted {
        reply: format!("{{\"subtasks\":[\"{}\"]}}", subtask.context),
        draft: PlanDraft {
            subtasks: vec![subtask],
            task_criteria: vec![],
            answer: Default::default(),
        },
    }
}

fn request() -> ChatRequest {
    ChatRequest::new("system", "plan this")
}

fn planned(outcome: Result<Drafted, LlmError>) -> Done {
    Done::Planned {
        request: request(),
        outcome,
    }
}

fn response(task: &TaskId, group: &Group) -> MemoryResponse {
    MemoryResponse {
        task_id: task.clone(),
        space: group.space.clone(),
        entity: group.entity.clone(),
        sops: vec![],
        potentials: Potentials {
            attention: 0.0,
            decision: 0.0,
            action: MemoryAction::Ignore,
        },
        recent: vec![],
        error: None,
    }
}

/// What went out: the message type and to whom.
fn sent(fx: &Fx) -> Vec<(&'static str, Role)> {
    fx.published()
        .iter()
        .map(|o| (o.message.kind().name(), o.to))
        .collect()
}

fn queries(fx: &Fx) -> Vec<Group> {
    fx.published()
        .iter()
        .filter_map(|o| match &o.message {
            Message::MemoryQuery(q) => Some(Group {
                space: q.space.clone(),
                entity: q.entity.clone(),
            }),
            _ => None,
        })
        .collect()
}

fn last_message(fx: &Fx) -> &Message {
    match fx.published().last() {
        Some(out) => &out.message,
        None => panic!("nothing was published"),
    }
}

fn failed(fx: &Fx) -> &PlanningFailed {
    match last_message(fx) {
        Message::PlanningFailed(f) => f,
        other => panic!("not PlanningFailed: {other:?}"),
    }
}

impl Plans {
    fn holds(&self, task: &TaskId) -> bool {
        self.tasks.contains_key(task)
    }

    fn keeps(&self, task: &TaskId) -> bool {
        self.tasks.get(task).is_some_and(|t| t.kept)
    }
}

/// Starts `spec`'s first round: both memory queries out with one deadline.
fn submitted(state: &mut Plans, spec: &TaskSpec) -> Vec<Group> {
    let mut fx = Fx::default();
    state.on_spec(spec, &mut fx);
    assert_eq!(
        sent(&fx),
        [("MemoryQuery", Role::Memory), ("MemoryQuery", Role::Memory)]
    );
    let groups = queries(&fx);
    assert_eq!(groups, calibration::groups(&spec.intent));
    assert_eq!(fx.deadlines().len(), 1);
    assert_eq!(fx.deadlines()[0].0, TIMEOUT);
    groups
}

/// A fresh task whose first round has asked for the plan call.
fn planning() -> (Plans, TaskSpec) {
    let mut state = plans();
    let spec = spec();
    let groups = submitted(&mut state, &spec);
    answered(&mut state, &spec.task_id, &groups);
    (state, spec)
}

/// Answers every query of the round in flight: the recalls go out and the plan call is
/// asked for.
fn answered(state: &mut Plans, task: &TaskId, groups: &[Group]) -> Call {
    let mut fx = Fx::default();
    let first = state.on_memory(&response(task, &groups[0]), now(), &mut fx);
    assert!(first.is_none(), "the round waits for every group");
    assert!(fx.published().is_empty());
    let call = state.on_memory(&response(task, &groups[1]), now(), &mut fx);
    assert_eq!(
        sent(&fx),
        [("MemoryRecall", Role::Ggs), ("MemoryRecall", Role::Ggs)]
    );
    call.expect("the plan call is asked for")
}

#[test]
fn a_spec_is_calibrated_then_planned_then_dispatched_as_one_manifest() {
    let mut state = plans();
    let spec = spec();
    let task = &spec.task_id;
    let groups = submitted(&mut state, &spec);
    let call = answered(&mut state, task, &groups);
    let Call::Plan {
        spec: asked,
        directive,
        previous,
        constraints,
    } = call
    else {
        panic!("not a plan call: {call:?}");
    };
    assert_eq!(*asked, spec);
    assert_eq!((directive, previous), (None, None));
    assert_eq!(constraints, "", "memory said nothing");

    let mut fx = Fx::default();
    assert_eq!(
        state.on_done(task, planned(Ok(valid())), now(), &mut fx),
        None
    );
    assert_eq!(sent(&fx), [("DispatchManifest", Role::Dispatcher)]);
    let Message::DispatchManifest(manifest) = last_message(&fx) else {
        panic!("not a manifest");
    };
    assert_eq!(manifest.task_id, *task);
    assert_eq!(manifest.round, 0);
    assert_eq!(manifest.subtasks.len(), 1);
    assert_eq!(manifest.subtasks[0].parent_task_id, *task);
    // The lone sub-task delivers the answer: it carries the user's own words.
    assert_eq!(
        manifest.subtasks[0].request.as_deref(),
        Some(spec.raw_input.as_str())
    );
    // The spec goes on with the shape the request's opening settles where nobody said
    // one ("which PDFs …" asks for a list).
    let settled = TaskSpec {
        answer: crate::contracts::AnswerShape::List,
        ..spec.clone()
    };
    assert_eq!(manifest.task_spec.as_ref(), Some(&settled));
    assert!(fx.deadlines().is_empty());
    assert!(state.keeps(task), "kept for the replans");
}

#[test]
fn only_the_sub_tasks_that_deliver_the_answer_carry_the_users_own_words() {
    let mut state = plans();
    // An action: its steps stay steps (a question's chain would be made one).
    let spec = TaskSpec {
        raw_input: "Copy the biggest PDFs in Downloads into ~/big".into(),
        ..spec()
    };
    let task = &spec.task_id;
    let groups = submitted(&mut state, &spec);
    answered(&mut state, task, &groups);
    let mut first = subtask(
        "Use glob with pattern *.pdf under ~/Downloads.",
        &[ToolName::Glob],
    );
    first.intent = "List the PDF files in ~/Downloads".into();
    let mut last = subtask("Use list_files on ~/Downloads.", &[ToolName::ListFiles]);
    last.sequence = 2;
    let mut plan = drafted(first);
    plan.draft.subtasks.push(last);
    let mut fx = Fx::default();
    state.on_done(task, planned(Ok(plan)), now(), &mut fx);
    let Message::DispatchManifest(manifest) = last_message(&fx) else {
        panic!("not a manifest: {:?}", sent(&fx));
    };
    let words: Vec<(i64, Option<&str>)> = manifest
        .subtasks
        .iter()
        .map(|s| (s.sequence, s.request.as_deref()))
        .collect();
    assert_eq!(words, [(1, None), (2, Some(spec.raw_input.as_str()))]);
}

#[test]
fn a_sub_task_the_plan_repeats_later_is_left_out_and_the_last_one_kept() {
    let mut state = plans();
    let spec = TaskSpec {
        raw_input: "Copy the biggest PDFs in Downloads into ~/big".into(),
        ..spec()
    };
    let task = &spec.task_id;
    let groups = submitted(&mut state, &spec);
    answered(&mut state, task, &groups);
    let read = subtask(
        "Use glob with pattern *.pdf under ~/Downloads.",
        &[ToolName::Glob],
    );
    let mut list = subtask(
        "Use glob with pattern * under ~/Downloads.",
        &[ToolName::Glob],
    );
    list.sequence = 2;
    // The same job again, spacing and case aside, with the same tools.
    let mut again = read.clone();
    again.sequence = 3;
    again.intent = format!("  {} ", read.intent.to_uppercase());
    let mut plan = valid();
    plan.draft.subtasks = vec![read, list, again];
    let mut fx = Fx::default();
    state.on_done(task, planned(Ok(plan)), now(), &mut fx);
    let Message::DispatchManifest(manifest) = last_message(&fx) else {
        panic!("not a manifest");
    };
    let sequences: Vec<i64> = manifest.subtasks.iter().map(|s| s.sequence).collect();
    assert_eq!(sequences, [2, 3], "{manifest:?}");
}

#[test]
fn memory_that_does_not_answer_in_time_is_planned_without() {
    let mut state = plans();
    let spec = spec();
    let task = &spec.task_id;
    let groups = submitted(&mut state, &spec);
    let mut fx = Fx::default();
    assert!(
        state
            .on_memory(&response(task, &groups[0]), now(), &mut fx)
            .is_none()
    );
    let call = state.memory_overdue(task, 1, now(), &mut fx);
    let Some(Call::Plan { constraints, .. }) = call else {
        panic!("not a plan call: {call:?}");
    };
    assert!(
        constraints.contains("this plan is made without it"),
        "{constraints}"
    );
    let recalls: Vec<&crate::contracts::MemoryRecall> = fx
        .published()
        .iter()
        .filter_map(|o| match &o.message {
            Message::MemoryRecall(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(recalls.len(), 2);
    assert_eq!(recalls[0].error, None);
    assert_eq!(
        recalls[1].error.as_deref(),
        Some("memory did not answer within 3 s")
    );

    // The late answer is counted out: it is not taken for the next round's.
    let mut fx = Fx::default();
    state.on_done(task, planned(Ok(valid())), now(), &mut fx);
    state.on_directive(&directive(task, ReplanDirective::Refine, 1), &mut fx);
    let mut fx = Fx::default();
    assert!(
        state
            .on_memory(&response(task, &groups[1]), now(), &mut fx)
            .is_none()
    );
    assert!(fx.published().is_empty());
    let call = answered(&mut state, task, &groups);
    assert!(
        matches!(
            call,
            Call::Plan {
                directive: Some(_),
                ..
            }
        ),
        "{call:?}"
    );
}

#[test]
fn an_invalid_plan_is_re_asked_quoting_the_violations_then_dispatched() {
    let (mut state, spec) = planning();
    let task = &spec.task_id;

    let mut fx = Fx::default();
    let call = state.on_done(task, planned(Ok(invalid())), now(), &mut fx);
    assert!(fx.published().is_empty(), "nothing before a valid plan");
    let Some(Call::Reask {
        task: asked,
        request,
    }) = call
    else {
        panic!("not a re-ask: {call:?}");
    };
    assert_eq!(asked, *task);
    let turns: Vec<(Speaker, &str)> = request
        .turns
        .iter()
        .map(|t| (t.speaker, t.content.as_str()))
        .collect();
    assert_eq!(
        turns.len(),
        3,
        "the request, the rejected plan, the violations"
    );
    assert_eq!(turns[0], (Speaker::User, "plan this"));
    assert_eq!(turns[1].0, Speaker::Assistant);
    assert!(turns[1].1.contains("jq"));
    assert!(turns[2].1.contains("The plan validator rejected this plan"));
    assert!(
        turns[2].1.contains("jq"),
        "the violation is quoted: {}",
        turns[2].1
    );

    let mut fx = Fx::default();
    let done = Done::Planned {
        request,
        outcome: Ok(valid()),
    };
    assert_eq!(state.on_done(task, done, now(), &mut fx), None);
    assert_eq!(sent(&fx), [("DispatchManifest", Role::Dispatcher)]);
}

#[test]
fn a_plan_still_invalid_after_the_re_asks_fails_planning() {
    let (mut state, spec) = planning();
    let task = &spec.task_id;
    let mut fx = Fx::default();
    let call = state.on_done(task, planned(Ok(invalid())), now(), &mut fx);
    assert!(matches!(call, Some(Call::Reask { .. })));
    let call = state.on_done(task, planned(Ok(invalid())), now(), &mut fx);
    assert_eq!(call, None, "one re-ask allowed");
    assert_eq!(sent(&fx), [("PlanningFailed", Role::Ggs)]);
    let failure = failed(&fx);
    assert_eq!(failure.task_id, *task);
    assert_eq!(failure.intent, spec.intent);
    assert_eq!(failure.round, 0);
    assert!(
        failure
            .reason
            .starts_with("the plan validator rejected the plan after 1 re-ask(s):"),
        "{}",
        failure.reason
    );

    // A model that gives no plan at all fails the round as plainly.
    let mut fx = Fx::default();
    state.on_directive(&directive(task, ReplanDirective::Refine, 1), &mut fx);
    answered(&mut state, task, &calibration::groups(&spec.intent));
    let broken = Err(LlmError::Timeout {
        after: Duration::from_secs(60),
    });
    let mut fx = Fx::default();
    assert_eq!(state.on_done(task, planned(broken), now(), &mut fx), None);
    let failure = failed(&fx);
    assert_eq!(failure.round, 1);
    assert!(failure.reason.starts_with("no plan could be made: "));
}

#[test]
fn a_directive_during_a_round_waits_then_plans_against_the_plan_that_round_left() {
    let (mut state, spec) = planning();
    let task = &spec.task_id;

    let mut fx = Fx::default();
    state.on_directive(&directive(task, ReplanDirective::BreakSymmetry, 1), &mut fx);
    assert!(
        fx.published().is_empty(),
        "it waits for the round in flight"
    );
    assert!(fx.deadlines().is_empty());

    // The first round ends: its manifest, then the waiting round's queries.
    let mut fx = Fx::default();
    assert_eq!(
        state.on_done(task, planned(Ok(valid())), now(), &mut fx),
        None
    );
    assert_eq!(
        sent(&fx),
        [
            ("DispatchManifest", Role::Dispatcher),
            ("MemoryQuery", Role::Memory),
            ("MemoryQuery", Role::Memory),
        ]
    );
    assert_eq!(fx.deadlines()[0].2, 2, "the second round's deadline");
    let call = answered(&mut state, task, &calibration::groups(&spec.intent));
    let Call::Plan {
        directive: Some(d),
        previous: Some(previous),
        ..
    } = call
    else {
        panic!("not a replan against the previous plan: {call:?}");
    };
    assert_eq!(d.round, 1);
    assert_eq!(previous, PlanSummary::of(&valid().draft, 0));

    // Break symmetry: the same tools again are rejected.
    let mut fx = Fx::default();
    let call = state.on_done(task, planned(Ok(valid())), now(), &mut fx);
    assert!(matches!(call, Some(Call::Reask { .. })), "{call:?}");
    // Once the re-asks are spent, the same tools doing something else are a new
    // approach: the plan goes out rather than the task being abandoned.
    let mut fx = Fx::default();
    let other = drafted(subtask(
        "Use glob with pattern **/*.pdf under ~/Downloads, its subfolders too.",
        &[ToolName::Glob],
    ));
    assert_eq!(
        state.on_done(task, planned(Ok(other)), now(), &mut fx),
        None
    );
    assert_eq!(sent(&fx)[0], ("DispatchManifest", Role::Dispatcher));
}

#[test]
fn a_graceful_request_is_answered_from_the_model_or_by_code_and_forgets_the_task() {
    let (mut state, spec) = planning();
    let task = &spec.task_id;
    let mut fx = Fx::default();
    state.on_done(task, planned(Ok(valid())), now(), &mut fx);

    let request = graceful_request(task);
    let request_id = EnvelopeId::mint();
    let call = state.on_graceful(request_id, &request);
    let Call::Graceful {
        request_id: id,
        request: asked,
        spec: kept,
    } = &call
    else {
        panic!("not a graceful call: {call:?}");
    };
    assert_eq!((*id, asked), (request_id, &request));
    assert_eq!(kept.as_deref(), Some(&spec));
    assert!(!state.holds(task), "the task is forgotten");

    let mut fx = Fx::default();
    let done = Done::Graceful {
        request_id,
        request: request.clone(),
        outcome: Ok(GracefulDraft {
            next_moves: vec!["a".into(), "b".into()],
        }),
    };
    assert_eq!(state.on_done(task, done, now(), &mut fx), None);
    let out = &fx.published()[0];
    assert_eq!((out.to, out.in_reply_to), (Role::Ggs, Some(request_id)));
    let Message::GracefulFailure(g) = &out.message else {
        panic!("not a GracefulFailure");
    };
    assert_eq!(g.next_moves, vec!["a", "b"]);

    // The call failed (or its budget ran out): the code-built answer, still a reply.
    let mut fx = Fx::default();
    let done = Done::Graceful {
        request_id,
        request: request.clone(),
        outcome: Err(LlmError::Cancelled),
    };
    state.on_done(task, done, now(), &mut fx);
    let out = &fx.published()[0];
    assert_eq!(out.in_reply_to, Some(request_id));
    assert_eq!(out.message, Message::GracefulFailure(code_built(&request)));

    // A directive after it finds no task.
    let mut fx = Fx::default();
    state.on_directive(&directive(task, ReplanDirective::Refine, 1), &mut fx);
    assert_eq!(sent(&fx), [("PlanningFailed", Role::Ggs)]);
}

fn graceful_request(task: &TaskId) -> GracefulFailureRequest {
    GracefulFailureRequest {
        task_id: task.clone(),
        intent: "rename the photos".into(),
        reason: "budget exhausted".into(),
        matched_outputs: vec![MatchedOutput {
            subtask_id: SubTaskId::mint(),
            output: serde_json::json!("IMG_1.jpg\nIMG_2.jpg"),
        }],
        failures: vec!["the rename was denied".into()],
    }
}

#[test]
fn the_graceful_failure_quotes_outputs_verbatim_and_bounds_the_moves() {
    let request = graceful_request(&TaskId::from_existing("task_g"));
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

#[test]
fn a_closed_task_publishes_nothing_more_and_is_forgotten() {
    let mut state = plans();
    let spec = spec();
    let task = &spec.task_id;
    let groups = submitted(&mut state, &spec);
    state.close(task);
    assert!(!state.holds(task));
    let mut fx = Fx::default();
    assert!(
        state
            .on_memory(&response(task, &groups[0]), now(), &mut fx)
            .is_none()
    );
    assert!(state.memory_overdue(task, 1, now(), &mut fx).is_none());
    assert!(
        state
            .on_done(task, planned(Ok(valid())), now(), &mut fx)
            .is_none()
    );
    assert!(fx.published().is_empty());
    assert!(fx.deadlines().is_empty());
}

#[test]
fn a_stale_deadline_changes_nothing() {
    let (mut state, spec) = planning();
    let task = &spec.task_id;
    let mut fx = Fx::default();
    // Memory answered in time: the round's deadline falls due while it plans.
    assert!(state.memory_overdue(task, 1, now(), &mut fx).is_none());
    // A deadline of no round of this task.
    assert!(state.memory_overdue(task, 7, now(), &mut fx).is_none());
    assert!(fx.published().is_empty());
    state.on_done(task, planned(Ok(valid())), now(), &mut fx);
    assert_eq!(sent(&fx), [("DispatchManifest", Role::Dispatcher)]);
}

#[test]
fn a_directive_for_a_task_r2_does_not_keep_fails_planning_at_once() {
    let mut state = plans();
    let task = TaskId::mint();
    let mut fx = Fx::default();
    state.on_directive(&directive(&task, ReplanDirective::Refine, 2), &mut fx);
    assert_eq!(sent(&fx), [("PlanningFailed", Role::Ggs)]);
    let failure = failed(&fx);
    assert_eq!((&failure.task_id, failure.round), (&task, 2));
    assert_eq!(failure.intent, "");
    assert_eq!(
        failure.reason,
        "R2 holds no TaskSpec for this task, so it cannot replan it"
    );
    assert!(!state.holds(&task));
}

#[test]
fn kept_tasks_are_bounded_by_least_recent_use() {
    let mut state = plans();
    let max = state.settings.live_tasks;
    let mut fx = Fx::default();
    state.on_spec(&spec_of("task_first"), &mut fx);
    for i in 0..max - 1 {
        state.on_spec(&spec_of(&format!("task_{i}")), &mut fx);
    }
    // Touch the first, so the next task forgets task_0 instead.
    let first = TaskId::from_existing("task_first");
    state.on_directive(&directive(&first, ReplanDirective::Refine, 1), &mut fx);
    state.on_spec(&spec_of("task_new"), &mut fx);
    assert!(!state.keeps(&TaskId::from_existing("task_0")));
    assert!(state.keeps(&first));
    assert!(state.keeps(&TaskId::from_existing("task_new")));
    assert_eq!(state.tasks.values().filter(|t| t.kept).count(), max);

    // The forgotten task's round in flight still ends as it would have; a directive for
    // it finds no task.
    let forgotten = TaskId::from_existing("task_0");
    let groups = calibration::groups(&spec_of("task_0").intent);
    let call = answered(&mut state, &forgotten, &groups);
    assert!(matches!(call, Call::Plan { .. }));
    let mut fx = Fx::default();
    state.on_done(&forgotten, planned(Ok(valid())), now(), &mut fx);
    assert_eq!(sent(&fx), [("DispatchManifest", Role::Dispatcher)]);
    assert!(!state.holds(&forgotten), "gone once its round ended");
    let mut fx = Fx::default();
    state.on_directive(&directive(&forgotten, ReplanDirective::Refine, 1), &mut fx);
    assert_eq!(sent(&fx), [("PlanningFailed", Role::Ggs)]);
}

#[test]
fn a_cancelled_call_ends_its_round_silently_and_the_next_round_starts() {
    let (mut state, spec) = planning();
    let task = &spec.task_id;
    let mut fx = Fx::default();
    state.on_directive(&directive(task, ReplanDirective::Refine, 1), &mut fx);
    let mut fx = Fx::default();
    let call = state.on_done(task, planned(Err(LlmError::Cancelled)), now(), &mut fx);
    assert_eq!(call, None);
    assert_eq!(
        sent(&fx),
        [("MemoryQuery", Role::Memory), ("MemoryQuery", Role::Memory)]
    );
}

#[test]
fn a_plans_checks_stand_on_the_tasks_words_and_code_adds_the_file_asked_for() {
    use crate::contracts::Check;
    let mut state = plans();
    let mut spec = spec();
    spec.intent = "Count the lines of ~/notes/todo.txt and save the number".into();
    spec.raw_input =
        "count the lines of ~/notes/todo.txt and save the number to ~/notes/count.txt".into();
    let task = spec.task_id.clone();
    let groups = submitted(&mut state, &spec);
    answered(&mut state, &task, &groups);
    let check = |path: &str| {
        let mut c = DraftCriterion::verifiable(format!("{path} holds the count"));
        c.check = Some(Check::FileExists {
            path: path.into(),
            contains: None,
        });
        c
    };
    let mut read = subtask("Read /home/u/notes/todo.txt", &[ToolName::ReadLines]);
    // Checked before the work on the files is done: dropped.
    read.success_criteria = vec![check("/home/u/notes/count.txt")];
    let mut write = subtask("Write the count", &[ToolName::WriteFile]);
    write.sequence = 2;
    // A path the task names stands; one it does not, and a content the model guesses,
    // are dropped (the criteria stay, judged as before).
    let mut guessed = check("/home/u/notes/lines.txt");
    guessed.criterion = "lines.txt holds the count".into();
    let mut content = check("/home/u/notes/count.txt");
    content.criterion = "count.txt holds 12".into();
    content.check = Some(Check::FileExists {
        path: "/home/u/notes/count.txt".into(),
        contains: Some("12".into()),
    });
    write.success_criteria = vec![check("~/notes/count.txt"), guessed, content];
    let mut plan = drafted(read);
    plan.draft.subtasks.push(write);
    let mut fx = Fx::default();
    state.on_done(&task, planned(Ok(plan)), now(), &mut fx);
    let Message::DispatchManifest(manifest) = last_message(&fx) else {
        panic!("not a manifest");
    };
    let checks = |i: usize| -> Vec<Option<&Check>> {
        manifest.subtasks[i]
            .success_criteria
            .iter()
            .map(|c| c.check.as_ref())
            .collect()
    };
    assert_eq!(checks(0), [None]);
    let at = Check::FileExists {
        path: "~/notes/count.txt".into(),
        contains: None,
    };
    // The one the model wrote stands, so code adds no second one for the same path.
    assert_eq!(checks(1), [Some(&at), None, None]);

    // A plan that checks nothing: code holds the sub-task that ends the work to the file
    // the request asks for at its path.
    let mut state = plans();
    let groups = submitted(&mut state, &spec);
    answered(&mut state, &task, &groups);
    let mut fx = Fx::default();
    state.on_done(&task, planned(Ok(valid())), now(), &mut fx);
    let Message::DispatchManifest(manifest) = last_message(&fx) else {
        panic!("not a manifest");
    };
    let last = manifest.subtasks[0]
        .success_criteria
        .last()
        .expect("a criterion");
    assert_eq!(last.check.as_ref(), Some(&at));
    assert_eq!(
        last.criterion,
        "A file is at ~/notes/count.txt when the work ends"
    );
}

#[test]
fn a_question_s_plan_goes_out_without_a_step_that_only_writes_or_names_what_is_not_there() {
    let home = tempfile::tempdir().expect("a temporary home");
    std::fs::create_dir_all(home.path().join("archive")).expect("a folder");
    std::fs::write(home.path().join("archive/report.doc"), "old").expect("a file");
    let mut state = Plans::new(Settings {
        home: home.path().to_path_buf(),
        ..settings()
    });
    let mut spec = spec();
    spec.raw_input = "Which file in ~/archive was changed longest ago?".into();
    let task = &spec.task_id;
    let groups = submitted(&mut state, &spec);
    answered(&mut state, task, &groups);
    let folder = home.path().join("archive");
    let mut list = subtask(
        &format!("Folder: {}", folder.display()),
        &[ToolName::ListFiles],
    );
    let mut phantom = subtask(
        &format!("File: {}/file1.txt", folder.display()),
        &[ToolName::ReadFile],
    );
    phantom.sequence = 2;
    let mut write = subtask("Save the name", &[ToolName::WriteFile]);
    write.sequence = 3;
    for (step, intent) in [
        (&mut list, "List the files by date"),
        (&mut phantom, "Read the date of file1.txt"),
        (&mut write, "Save the name"),
    ] {
        step.intent = intent.into();
    }
    let mut plan = valid();
    plan.draft.subtasks = vec![list, phantom, write];
    let mut fx = Fx::default();
    state.on_done(task, planned(Ok(plan)), now(), &mut fx);
    let Message::DispatchManifest(manifest) = last_message(&fx) else {
        panic!("not a manifest");
    };
    let sequences: Vec<i64> = manifest.subtasks.iter().map(|s| s.sequence).collect();
    assert_eq!(sequences, [1], "{manifest:?}");
    // The one step left delivers the answer: it carries the shape and the request.
    assert_eq!(
        manifest.subtasks[0].answer,
        crate::contracts::AnswerShape::Item
    );
    assert_eq!(
        manifest.subtasks[0].request.as_deref(),
        Some(spec.raw_input.as_str())
    );
}
