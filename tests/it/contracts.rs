//! Round-trips of JSON written from the seed's contract blocks (seed 003, fields seed 002
//! adds). Every field the seed names must survive parse → serialise unchanged; fields the
//! app adds may appear, nothing the seed wrote may change or vanish.

use artoo::tools::ToolName;
use std::path::PathBuf;

use artoo::contracts::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/contracts")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// Every key of `seed` is in `ours` with an equal value (recursively); `ours` may add keys.
fn assert_preserves(seed: &Value, ours: &Value, path: &str, skip: &[&str]) {
    match (seed, ours) {
        (Value::Object(s), Value::Object(o)) => {
            for (k, v) in s {
                if skip.contains(&k.as_str()) {
                    continue;
                }
                let o_v = o
                    .get(k)
                    .unwrap_or_else(|| panic!("{path}.{k} vanished in {ours}"));
                assert_preserves(v, o_v, &format!("{path}.{k}"), skip);
            }
        }
        (Value::Array(s), Value::Array(o)) => {
            assert_eq!(s.len(), o.len(), "{path}: array length changed");
            for (i, (a, b)) in s.iter().zip(o).enumerate() {
                assert_preserves(a, b, &format!("{path}[{i}]"), skip);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            assert_eq!(a.as_f64(), b.as_f64(), "{path}: number changed");
        }
        _ => assert_eq!(seed, ours, "{path} changed"),
    }
}

fn round_trip<T>(name: &str, skip: &[&str]) -> T
where
    T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
{
    let seed = fixture(name);
    let parsed: T = serde_json::from_value(seed.clone())
        .unwrap_or_else(|e| panic!("{name} does not parse: {e}"));
    let ours = serde_json::to_value(&parsed).unwrap();
    assert_preserves(&seed, &ours, name, skip);
    let again: T = serde_json::from_value(ours).unwrap();
    assert_eq!(parsed, again, "{name}: second round-trip differs");
    parsed
}

#[test]
fn task_spec_round_trips() {
    let spec: TaskSpec = round_trip("TaskSpec", &[]);
    assert_eq!(spec.constraints.scope.as_deref(), Some("~/Downloads"));
    assert_eq!(spec.constraints.deadline, None);
}

#[test]
fn sub_task_round_trips_with_plain_string_criteria() {
    let st: SubTask = round_trip("SubTask", &[]);
    assert_eq!(st.sequence, 1);
    assert_eq!(st.success_criteria.len(), 2);
    assert_eq!(
        st.success_criteria[0].effective_mode(),
        CriterionMode::Verifiable
    );
}

#[test]
fn structured_criteria_keep_their_mode() {
    let c: Criterion =
        serde_json::from_str(r#"{"criterion":"looks tidy","mode":"plausible"}"#).unwrap();
    assert_eq!(c.mode, Some(CriterionMode::Plausible));
    assert_eq!(
        serde_json::to_string(&c).unwrap(),
        r#"{"criterion":"looks tidy","mode":"plausible"}"#
    );
    let plain: Criterion = serde_json::from_str(r#""a file exists""#).unwrap();
    assert_eq!(serde_json::to_string(&plain).unwrap(), r#""a file exists""#);
}

#[test]
fn dispatch_manifest_round_trips() {
    let m: DispatchManifest = round_trip("DispatchManifest", &[]);
    assert_eq!(m.subtasks.len(), 2);
    assert_eq!(m.subtasks[1].sequence, 2);
    assert!(m.task_spec.is_some());
}

#[test]
fn execution_result_round_trips_and_seed_tool_calls_become_records() {
    let seed = fixture("ExecutionResult");
    let r: ExecutionResult = round_trip("ExecutionResult", &["tool_calls"]);
    assert_eq!(r.status, ExecutionStatus::Completed);
    assert_eq!(r.tool_calls[0].tool, ToolName::Shell);
    assert_eq!(r.tool_calls[0].target, "find ~/Downloads -name '*.mp4'");
    assert_eq!(
        r.tool_calls[0].to_string(),
        seed["tool_calls"][0].as_str().unwrap()
    );
}

#[test]
fn execution_status_spellings_are_the_seeds() {
    for s in ["completed", "uncertain", "failed"] {
        let v: ExecutionStatus = serde_json::from_value(Value::String(s.into())).unwrap();
        assert_eq!(serde_json::to_value(v).unwrap(), Value::String(s.into()));
    }
}

#[test]
fn correction_signal_round_trips() {
    let c: CorrectionSignal = round_trip("CorrectionSignal", &[]);
    assert_eq!(c.failure_class, FailureClass::Logical);
}

#[test]
fn sub_task_outcome_round_trips_with_modes_and_trajectory() {
    let o: SubTaskOutcome = round_trip("SubTaskOutcome", &["tool_calls"]);
    assert_eq!(o.status, SubTaskStatus::Failed);
    assert_eq!(o.criteria_verdicts[1].mode, Some(CriterionMode::Plausible));
    assert_eq!(
        o.gap_trajectory[1].failure_class,
        Some(MixedFailureClass::Mixed)
    );
    assert_eq!(
        o.failure_count("each listed path has a size in bytes"),
        (2, 2)
    );
}

#[test]
fn replan_request_round_trips() {
    let r: ReplanRequest = round_trip("ReplanRequest", &["tool_calls"]);
    assert_eq!(r.recommendation, Recommendation::Replan);
    assert_eq!(r.outcomes().count(), 1);
}

#[test]
fn outcome_summary_round_trips() {
    let s: OutcomeSummary = round_trip("OutcomeSummary", &[]);
    assert_eq!(s.merged_output["bytes"], 734003200);
}

#[test]
fn plan_directive_round_trips_with_capitalised_loss_keys() {
    let d: PlanDirective = round_trip("PlanDirective", &[]);
    assert_eq!(d.prev_directive, PrevDirective::Init);
    assert_eq!(d.directive, ReplanDirective::ChangePath);
    assert_eq!(d.loss.omega, 0.217);
    let v = serde_json::to_value(&d).unwrap();
    assert!(v["loss"].get("Omega").is_some() && v["loss"].get("omega").is_none());
}

#[test]
fn final_result_round_trips() {
    let f: FinalResult = round_trip("FinalResult", &[]);
    assert_eq!(f.directive, TerminalDirective::Success);
    assert_eq!(f.prev_directive, PrevDirective::ChangePath);
}

#[test]
fn directive_spellings_are_the_seeds() {
    let all = [
        (MacroState::Accept, "accept"),
        (MacroState::Success, "success"),
        (MacroState::Refine, "refine"),
        (MacroState::ChangePath, "change_path"),
        (MacroState::ChangeApproach, "change_approach"),
        (MacroState::BreakSymmetry, "break_symmetry"),
        (MacroState::Abandon, "abandon"),
    ];
    for (state, name) in all {
        assert_eq!(
            serde_json::to_value(state).unwrap(),
            Value::String(name.into())
        );
        assert_eq!(state.as_str(), name);
    }
    assert_eq!(
        serde_json::to_value(MixedFailureClass::Mixed).unwrap(),
        Value::String("mixed".into())
    );
}

#[test]
fn megram_round_trips_as_the_eleven_tuple() {
    let m: Megram = round_trip("Megram", &[]);
    assert_eq!(m.level, Level::M);
    let v = serde_json::to_value(&m).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 11);
}

#[test]
fn sop_record_and_potentials_round_trip() {
    let _: SOPRecord = round_trip("SOPRecord", &[]);
    let p: Potentials = round_trip("Potentials", &[]);
    assert_eq!(p.action, MemoryAction::Avoid);
}

#[test]
fn audit_report_round_trips_with_the_hyphenated_trigger() {
    let r: AuditReport = round_trip("AuditReport", &[]);
    assert_eq!(r.trigger, AuditTrigger::OnDemand);
    assert_eq!(
        serde_json::to_value(AuditTrigger::Periodic).unwrap(),
        Value::String("periodic".into())
    );
}

#[test]
fn messages_are_tagged_by_their_seed_type_name() {
    let spec: TaskSpec = serde_json::from_value(fixture("TaskSpec")).unwrap();
    let msg = Message::from(spec.clone());
    let v = serde_json::to_value(&msg).unwrap();
    assert_eq!(v["type"], "TaskSpec");
    assert_eq!(v["payload"]["intent"], spec.intent.as_str());
    assert_eq!(msg.task_id(), Some(&spec.task_id));
    let back: Message = serde_json::from_value(v).unwrap();
    assert_eq!(back, msg);
}

#[test]
fn roles_serialise_with_the_seed_short_names() {
    assert_eq!(serde_json::to_value(Role::AgentValidator).unwrap(), "R4a");
    assert_eq!(serde_json::to_value(Role::Ggs).unwrap(), "R7");
    assert_eq!(serde_json::to_value(Role::User).unwrap(), "User");
}

#[test]
fn what_a_sub_task_states_leaves_out_the_blocks_code_added_to_its_context() {
    let mut s = SubTask::new(TaskId::mint(), 1, "Move the .log files into ~/archive");
    s.context = format!(
        "Folder: ~/inbox\n{MEMORY_CONTEXT_HEADING}\n- SHOULD PREFER: «files older than 30 days»\n\
         {FAILED_BEFORE_NOTE} (no file matched): look at the data first.\n\n\
         {PRIOR_OUTPUTS_HEADING}\n[step 1 · list]\nbuild.log 25 B modified 4 minutes ago"
    );
    s.success_criteria = vec![Criterion::new("both .log files are in ~/archive")];
    s.request = Some("move the .log files from ~/inbox into ~/archive".into());
    let stated = s.stated();
    assert_eq!(
        stated,
        "Move the .log files into ~/archive\nFolder: ~/inbox\n\
         move the .log files from ~/inbox into ~/archive\nboth .log files are in ~/archive"
    );
    // With nothing added by code, the whole context is the planner's.
    s.context = "Folder: ~/inbox, older than a week".into();
    assert!(s.stated().contains("older than a week"));
}
