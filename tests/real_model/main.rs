//! Structured output against a real model: a live OpenAI-compatible endpoint, by default
//! the local llama-server of `scripts/local-llm.sh` (`ARTOO_REAL_MODEL_URL`,
//! `ARTOO_REAL_MODEL` override it). Built only with `--features real-model`, so
//! `cargo test --workspace` never needs a model; run by `scripts/test` after all
//! compiling is done.
//!
//! Each test asks for one role-shaped object and requires a valid, parsed one. The
//! pipeline adds every role's real prompt here.
#![allow(clippy::unwrap_used)] // a test may unwrap: a panic is its failure report

use std::time::Duration;

use artoo::bus::Bus;
use artoo::config::{LlmConfig, TierConfig};
use artoo::contracts::{Role, TaskId};
use artoo::llm::{CallCtx, ChatRequest, Llm, OutputMode, RoleLlm, Tier};
use artoo::{FakeClock, SystemClock};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

mod beyond;
mod built_in;
mod everyday;
mod executor;
mod fresh;
mod harness;
mod held;
mod kinds;
mod later;
mod novel;
mod onward;
mod readme;
mod take_back;
mod validators;

fn endpoint() -> (String, String) {
    let url = std::env::var("ARTOO_REAL_MODEL_URL")
        .unwrap_or_else(|_| artoo::llm::tier::LOCAL_LLAMA_SERVER_URL.to_string());
    let model = std::env::var("ARTOO_REAL_MODEL").unwrap_or_else(|_| "qwen2.5-coder-0.5b".into());
    (url, model)
}

/// Both tiers on the real endpoint.
pub fn llm_config() -> LlmConfig {
    let (url, model) = endpoint();
    let tier = TierConfig {
        base_url: Some(url),
        model: Some(model),
        enable_thinking: false,
        api_key: None,
    };
    LlmConfig {
        brain: tier.clone(),
        tool: tier,
        // A busy machine makes a small model slow; the bound is still finite.
        call_timeout_secs: Some(180),
        ..LlmConfig::default()
    }
}

fn llm() -> Llm {
    Llm::new(&llm_config(), SystemClock::shared()).expect("endpoint configured")
}

fn role(llm: &Llm, role: Role) -> RoleLlm {
    llm.for_role(Bus::new(FakeClock::at_epoch()).handle(role))
        .expect("model role")
}

fn ctx() -> CallCtx {
    CallCtx::for_task(TaskId::mint(), CancellationToken::new())
}

fn non_empty(field: &str, text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        Err(format!("`{field}` must not be empty"))
    } else {
        Ok(())
    }
}

// Fields that no assertion reads still shape the schema the model must fill.
#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Constraints {
    /// Where the task applies, if the user said so; otherwise null.
    scope: Option<String>,
    /// An absolute deadline the user gave (ISO 8601), otherwise null.
    deadline: Option<String>,
}

/// R1's TaskSpec without the ids the runtime sets.
#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Perceived {
    /// The user's goal, faithfully restated as one sentence.
    intent: String,
    constraints: Constraints,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct PlannedSubTask {
    /// Subtasks with the same sequence run in parallel; starts at 1.
    sequence: u32,
    intent: String,
    /// Everything the executor needs beyond the intent.
    context: String,
    /// Checkable assertions about this subtask's output.
    success_criteria: Vec<String>,
}

/// R2's plan.
#[derive(Debug, Deserialize, JsonSchema)]
struct Plan {
    /// Assertions about the combined output of all subtasks.
    task_criteria: Vec<String>,
    subtasks: Vec<PlannedSubTask>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ToolName {
    Glob,
    ReadFile,
    WriteFile,
    Shell,
    Search,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Completed,
    Uncertain,
    Failed,
}

/// R3's next step in its tool loop: call one tool, or report the result.
#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
enum NextAction {
    Tool { tool: ToolName, input: String },
    Result { status: Status, output: String },
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct CriterionVerdict {
    /// The criterion, copied verbatim.
    criterion: String,
    met: bool,
    /// The part of the tool output that shows it.
    evidence: String,
}

/// R4a's per-criterion verdicts.
#[derive(Debug, Deserialize, JsonSchema)]
struct Verdicts {
    verdicts: Vec<CriterionVerdict>,
}

#[tokio::test]
async fn the_perceiver_gets_a_task_spec_like_object() {
    let llm = llm();
    let out = role(&llm, Role::Perceiver)
        .structured_checked::<Perceived, _>(
            &ctx(),
            &ChatRequest::new(
                "You turn a user's request into a structured task. Restate the goal in one \
                 sentence without adding assumptions. Use null for a constraint the user did \
                 not give.",
                "find the three largest PDF files in my Downloads folder",
            )
            .temperature(0.0),
            |p: &Perceived| non_empty("intent", &p.intent),
        )
        .await
        .expect("a valid TaskSpec-like object");
    println!("{out:#?}");
    assert!(out.value.intent.len() > 5);
    // llama-server constrains decoding to the schema: the probe must have kept it.
    assert_eq!(llm.output_mode(Tier::Brain), Some(OutputMode::JsonSchema));
    let usage = llm.usage().lifetime().role(Role::Perceiver);
    assert!(
        usage.prompt_tokens > 0 && usage.completion_tokens > 0,
        "{usage:?}"
    );
}

#[tokio::test]
async fn the_planner_gets_a_plan_with_subtasks() {
    let llm = llm();
    let out = role(&llm, Role::Planner)
        .structured_checked::<Plan, _>(
            &ctx(),
            &ChatRequest::new(
                "You plan a task as a small number of subtasks for an executor that has the \
                 tools glob, read_file, write_file, shell and search. Subtasks with the same \
                 sequence number run in parallel; later sequences see earlier outputs. \
                 Criteria are concrete, checkable assertions about tool output.",
                r#"{"intent": "Count the Markdown files in ~/notes and write the count to ~/artoo_workspace/count.txt", "constraints": {"scope": "~/notes", "deadline": null}}"#,
            )
            .temperature(0.0),
            |plan: &Plan| {
                if plan.subtasks.is_empty() {
                    return Err("`subtasks` must hold at least one subtask".into());
                }
                for s in &plan.subtasks {
                    non_empty("intent", &s.intent)?;
                    if s.sequence == 0 {
                        return Err("`sequence` starts at 1".into());
                    }
                }
                Ok(())
            },
        )
        .await
        .expect("a valid plan");
    println!("{out:#?}");
    assert!(!out.value.subtasks.is_empty());
    let _ = &out.value.task_criteria;
}

#[tokio::test]
async fn the_executor_gets_a_next_action_for_its_tool_loop() {
    let llm = llm();
    let executor = role(&llm, Role::Executor);
    let system = "You execute one subtask by calling tools, one per turn. Tools: glob (input: \
                  a filename pattern), read_file (input: a path), write_file, shell (input: a \
                  bash command), search (input: a web query). Call a tool when you still need \
                  information; report the result once the tool output answers the subtask. \
                  Never invent tool output.";
    let first = executor
        .structured::<NextAction>(
            &ctx(),
            &ChatRequest::new(
                system,
                "Subtask: count the Markdown files under ~/notes.\nNo tool has run yet.",
            )
            .temperature(0.0),
        )
        .await
        .expect("a valid next action");
    println!("{first:#?}");
    let after_tool = executor
        .structured::<NextAction>(
            &ctx(),
            &ChatRequest::new(
                system,
                "Subtask: count the Markdown files under ~/notes.\nTool shell result:\n42",
            )
            .temperature(0.0),
        )
        .await
        .expect("a valid next action after a tool result");
    println!("{after_tool:#?}");
    if let NextAction::Tool { input, .. } = &first.value {
        assert!(!input.trim().is_empty());
    }
}

#[tokio::test]
async fn the_agent_validator_gets_per_criterion_verdicts() {
    let llm = llm();
    let criteria = ["the output states a number of files", "the number is 42"];
    let out = role(&llm, Role::AgentValidator)
        .structured_checked::<Verdicts, _>(
            &ctx(),
            &ChatRequest::new(
                "You judge an executor's result against each success criterion, one verdict \
                 per criterion, using only the evidence in the tool output.",
                format!(
                    "Criteria:\n1. {}\n2. {}\n\nExecutor output: There are 42 Markdown files.\n\
                     Tool calls: shell: find ~/notes -name '*.md' | wc -l → 42",
                    criteria[0], criteria[1]
                ),
            )
            .temperature(0.0),
            |v: &Verdicts| {
                if v.verdicts.is_empty() {
                    return Err("give one verdict per criterion".into());
                }
                v.verdicts
                    .iter()
                    .try_for_each(|c| non_empty("criterion", &c.criterion))
            },
        )
        .await
        .expect("valid verdicts");
    println!("{out:#?}");
    assert!(!out.value.verdicts.is_empty());
}

#[tokio::test]
async fn a_free_text_reply_arrives_within_the_bound() {
    let llm = llm();
    let started = std::time::Instant::now();
    let reply = role(&llm, Role::Perceiver)
        .chat(
            &ctx(),
            &ChatRequest::new("You are artoo, a local assistant. Answer briefly.", "hello")
                .max_tokens(48),
        )
        .await
        .expect("a reply");
    assert!(!reply.answer().is_empty());
    assert!(started.elapsed() < Duration::from_secs(180));
}

// ---------------------------------------------------------------------------------------
// The roles' real prompts (src/roles): what R1 and R2 actually send must come back as a
// valid, parsed object of the role's type, passing the role's own checks.

mod roles {
    use artoo::contracts::{
        Constraints, GracefulFailureRequest, Loss, MatchedOutput, MixedFailureClass, PlanDirective,
        PrevDirective, ReplanDirective, Role, SessionTurn, SubTaskId, TaskId, TaskSpec,
        TaskSubmitted, Urgency,
    };
    use artoo::ggs::graceful;
    use artoo::roles::perceiver::{self, Kind, Perception};
    use artoo::roles::planner::calibration::{self, Answer};
    use artoo::roles::planner::prompt::{self, GracefulDraft, PlanDraft, PlanSummary};
    use artoo::roles::planner::validator::{self, PlanRules};
    use std::path::Path;

    use super::{ctx, llm, role};

    /// The shared preamble for a made-up home, as the roles build it.
    fn head() -> String {
        artoo::roles::preamble::tool_preamble().to_string()
    }

    fn submitted(raw: &str, history: Vec<SessionTurn>) -> TaskSubmitted {
        TaskSubmitted {
            task_id: TaskId::mint(),
            raw_input: raw.into(),
            submitted_at: chrono::Utc::now(),
            session_history: history,
            time_budget_ms: 120_000,
            scheduled: None,
        }
    }

    async fn perceive(raw: &str, history: Vec<SessionTurn>) -> Perception {
        let llm = llm();
        let sub = submitted(raw, history);
        let out = role(&llm, Role::Perceiver)
            .structured_checked::<Perception, _>(
                &ctx(),
                &perceiver::perception_request(&sub, &[], true, &head()),
                |p| p.check(raw),
            )
            .await
            .expect("a valid perception");
        println!("{:#?}", out.value);
        out.value
    }

    #[tokio::test]
    async fn the_perceiver_prompt_yields_a_perception_for_a_file_task() {
        let p = perceive(
            "find the three largest PDF files in my Downloads folder",
            vec![],
        )
        .await;
        assert!(!p.intent.trim().is_empty());
    }

    #[tokio::test]
    async fn the_perceiver_prompt_keeps_relative_time_words_and_reads_the_history() {
        let history = vec![SessionTurn {
            input: "list the files in ~/notes".into(),
            summary: "3 files: a.md, b.md, c.md".into(),
        }];
        let p = perceive("count the ones changed yesterday", history).await;
        // The check passed, so the intent kept "yesterday".
        assert!(p.intent.to_lowercase().contains("yesterday"), "{p:?}");
    }

    #[tokio::test]
    async fn the_fast_path_prompt_yields_a_short_answer() {
        let llm = llm();
        let reply = role(&llm, Role::Perceiver)
            .chat(
                &ctx(),
                &perceiver::chat_request(&submitted("hi, who are you?", vec![]), &head())
                    .max_tokens(96),
            )
            .await
            .expect("a reply");
        println!("{}", reply.answer());
        assert!(!reply.answer().is_empty());
    }

    fn spec() -> TaskSpec {
        TaskSpec {
            task_id: TaskId::mint(),
            intent:
                "Count the Markdown files in ~/notes and write the count to a file in the workspace"
                    .into(),
            constraints: Constraints {
                scope: Some("~/notes".into()),
                deadline: None,
            },
            raw_input: "how many markdown files are in ~/notes? save the number".into(),
            answer: Default::default(),
        }
    }

    fn block(spec: &TaskSpec, directive: Option<&PlanDirective>) -> String {
        let [intent, user] = calibration::groups(&spec.intent);
        let answers = vec![
            (
                intent,
                Answer::Unavailable("not consulted in this test".into()),
            ),
            (
                user,
                Answer::Unavailable("not consulted in this test".into()),
            ),
        ];
        calibration::calibrate(calibration::Input {
            task_id: &spec.task_id,
            round: directive.map_or(0, |d| d.round),
            answers: &answers,
            directive,
            max_constraints: 10,
            now: chrono::Utc::now(),
        })
        .prompt_block
    }

    fn has_subtasks(plan: &PlanDraft) -> Result<(), String> {
        if plan.subtasks.is_empty() {
            Err("`subtasks` must hold at least one subtask".into())
        } else {
            Ok(())
        }
    }

    fn report(plan: &PlanDraft, rules: &PlanRules<'_>) {
        println!("{plan:#?}");
        for v in validator::validate(plan, rules) {
            println!("validator: {v}");
        }
    }

    #[tokio::test]
    async fn the_planner_prompt_yields_a_plan() {
        let llm = llm();
        let spec = spec();
        let out = role(&llm, Role::Planner)
            .structured_checked::<PlanDraft, _>(
                &ctx(),
                &prompt::plan_request(
                    &spec,
                    &head(),
                    Some("- notes → /home/user/notes (folder)"),
                    &block(&spec, None),
                ),
                has_subtasks,
            )
            .await
            .expect("a valid plan");
        let home = Path::new("/home/user");
        report(
            &out.value,
            &PlanRules {
                blocked_tools: &[],
                blocked_targets: &[],
                distinct_from: None,
                replaces: None,
                home,
                task: &spec.raw_input,
                request: &spec.raw_input,
                shown: "",
            },
        );
        assert!(!out.value.subtasks.is_empty());
    }

    #[tokio::test]
    async fn the_replan_prompt_yields_a_plan_under_a_directive() {
        let llm = llm();
        let spec = spec();
        let directive = PlanDirective {
            task_id: spec.task_id.clone(),
            loss: Loss::default(),
            prev_directive: PrevDirective::Init,
            directive: ReplanDirective::ChangeApproach,
            blocked_tools: vec![artoo::tools::ToolName::Shell.into()],
            blocked_targets: vec![],
            failed_criterion: "the output states one number".into(),
            failure_class: MixedFailureClass::Logical,
            budget_pressure: 0.3,
            grad_l: 0.2,
            rationale: "the count was wrong".into(),
            urgency: Urgency::High,
            gradient: None,
            round: 1,
        };
        let previous = PlanSummary::of(
            &serde_json::from_value::<PlanDraft>(serde_json::json!({
                "subtasks": [{"context": "find ~/notes -name '*.md' | wc -l", "intent": "Count the Markdown files", "sequence": 1, "success_criteria": ["one number"], "tools": ["shell"]}],
                "task_criteria": ["one number"]
            }))
            .expect("a plan"),
            0,
        );
        let out = role(&llm, Role::Planner)
            .structured_checked::<PlanDraft, _>(
                &ctx(),
                &prompt::replan_request(
                    &spec,
                    &directive,
                    Some(&previous),
                    &head(),
                    Some("- notes → /home/user/notes (folder)"),
                    &block(&spec, Some(&directive)),
                ),
                has_subtasks,
            )
            .await
            .expect("a valid replan");
        report(
            &out.value,
            &PlanRules {
                blocked_tools: &directive.blocked_tools,
                blocked_targets: &[],
                distinct_from: None,
                replaces: None,
                home: Path::new("/home/user"),
                task: &spec.raw_input,
                request: &spec.raw_input,
                shown: "",
            },
        );
        assert!(!out.value.subtasks.is_empty());
    }

    #[tokio::test]
    async fn the_graceful_failure_prompt_yields_next_moves() {
        let llm = llm();
        let request = GracefulFailureRequest {
            task_id: TaskId::mint(),
            intent: "Rename the invoices in ~/Documents to their dates".into(),
            reason: "budget exhausted after 3 replan(s)".into(),
            matched_outputs: vec![MatchedOutput {
                subtask_id: SubTaskId::mint(),
                output: serde_json::json!("~/Documents/inv-1.pdf\n~/Documents/inv-2.pdf"),
            }],
            failures: vec!["reading ~/Documents was denied (permission denied)".into()],
        };
        let out = role(&llm, Role::Planner)
            .structured_checked::<GracefulDraft, _>(
                &ctx(),
                &prompt::graceful_request(&request, None),
                |g| {
                    if graceful::dedup(g.next_moves.clone()).len() < graceful::MIN_NEXT_MOVES {
                        Err("next_moves must hold 2 to 3 distinct, concrete moves".into())
                    } else {
                        Ok(())
                    }
                },
            )
            .await
            .expect("valid next moves");
        println!("{:#?}", out.value);
        assert!(out.value.next_moves.len() >= graceful::MIN_NEXT_MOVES);
    }

    #[test]
    fn the_kinds_are_the_three_the_prompt_names() {
        for (name, kind) in [
            ("task", Kind::Task),
            ("chat", Kind::Chat),
            ("clarify", Kind::Clarify),
        ] {
            assert!(perceiver::perceive_system("").contains(&format!("\"{name}\"")));
            assert_eq!(serde_json::to_value(kind).unwrap(), serde_json::json!(name));
        }
    }
}
