//! The live pipeline: one bus envelope as `from → to  Kind  essentials`, with
//! continuation lines where a message carries a reason worth reading in full. The
//! essentials of each message are written by one small function per message, grouped by
//! what the messages are about: `intake`, `memory`, `plan`, `execution` and
//! `oversight`.
//!
//! **Invariant:** every message kind renders as a line that names its sender, receiver and
//! kind; model-call records and messages of no task are shown only when verbose.

mod execution;
mod intake;
mod memory;
mod oversight;
mod plan;

use super::text::{Paint, snake};
use artoo::bus::Envelope;
use artoo::config::GgsParams;
use artoo::contracts::{Message, MessageKind};
use artoo::text::one_line;

/// Longest payload excerpt on a pipeline line.
const DETAIL_CHARS: usize = 96;
/// Longest excerpt of a nested item (a criterion, a constraint) on a pipeline line.
const ITEM_CHARS: usize = 48;

/// How the live pipeline is drawn.
#[derive(Clone, Debug)]
pub struct LineStyle {
    /// One line per bus message (`-v`); otherwise one plain status line per phase.
    pub pipeline: bool,
    /// Show model-call records and messages that belong to no task.
    pub verbose: bool,
    pub paint: Paint,
    /// ε and δ decide the gradient arrow.
    pub ggs: GgsParams,
}

impl LineStyle {
    /// The pipeline lines, without colour.
    #[cfg(test)]
    pub fn plain(verbose: bool) -> Self {
        Self {
            pipeline: true,
            verbose,
            paint: Paint::PLAIN,
            ggs: GgsParams::default(),
        }
    }
}

/// The essentials of one message as one line (data, not prose), plus continuation lines
/// for the few messages that carry a reason worth reading in full (a replan's rationale
/// and blocked tools/targets).
pub fn describe(message: &Message, ggs: &GgsParams) -> (String, Vec<String>) {
    let detail = match message {
        Message::PlanDirective(m) => return plan::plan_directive(m, ggs),
        Message::TaskBudget(m) => format!("time budget {} s", m.time_budget_ms / 1000),
        Message::TaskSubmitted(m) => intake::task_submitted(m),
        Message::ClarificationRequest(m) => intake::clarification_request(m),
        Message::ClarificationAnswer(m) => intake::clarification_answer(m),
        Message::ChatReply(m) => one_line(&m.answer, DETAIL_CHARS),
        Message::TaskSpec(m) => intake::task_spec(m),
        Message::MemoryQuery(m) => format!("[{} / {}]", m.space, m.entity),
        Message::MemoryResponse(m) => memory::memory_response(m),
        Message::MemoryRecall(m) => memory::memory_recall(m),
        Message::DispatchManifest(m) => plan::dispatch_manifest(m),
        Message::SubTask(m) => plan::subtask(m),
        Message::ToolCallEvent(m) => execution::tool_call_event(m),
        Message::ExecutionResult(m) => execution::execution_result(m),
        Message::CorrectionSignal(m) => execution::correction_signal(m),
        Message::SubTaskOutcome(m) => execution::subtask_outcome(m),
        Message::SubTaskClosed(m) => format!("{} · fast loop closed", snake(&m.status)),
        Message::DispatchHalted(m) => execution::dispatch_halted(m),
        Message::ReplanRequest(m) => execution::replan_request(m),
        Message::OutcomeSummary(m) => execution::outcome_summary(m),
        Message::PlanningFailed(m) => plan::planning_failed(m),
        Message::GracefulFailureRequest(m) => plan::graceful_failure_request(m),
        Message::GracefulFailure(m) => plan::graceful_failure(m),
        Message::FinalResult(m) => plan::final_result(m, ggs),
        Message::Megram(m) => memory::megram(m),
        Message::MemoryOperatorChange(m) => memory::operator_change(m),
        Message::ConfirmationRequest(m) => oversight::confirmation_request(m),
        Message::ConfirmationDecision(m) => oversight::confirmation_decision(m),
        Message::TaskClosed(m) => one_line(&m.end.to_string(), DETAIL_CHARS),
        Message::AuditQuery(_) => "on-demand".into(),
        Message::AuditReport(m) => oversight::audit_report(m),
        Message::LlmCall(m) => oversight::llm_call(m),
    };
    (detail, Vec::new())
}

/// Whether the live pipeline shows this envelope: model-call records and messages of
/// no task (background writes, audit queries) only when verbose.
pub fn shown(env: &Envelope, style: &LineStyle) -> bool {
    style.verbose || (env.task_id.is_some() && env.message.kind() != MessageKind::LlmCall)
}

/// The pipeline lines of one envelope: `from → to  Kind  essentials`, and indented
/// continuation lines. Empty when the style hides it.
pub fn pipeline_lines(env: &Envelope, style: &LineStyle) -> Vec<String> {
    if !shown(env, style) {
        return Vec::new();
    }
    let p = style.paint;
    let (detail, more) = describe(&env.message, &style.ggs);
    let kind = env.message.kind().name();
    let head = format!(
        "{} {} {} {}",
        p.dim(&format!("{:>10} →", env.from.short())),
        p.dim(&format!("{:<10}", env.to.short())),
        p.bold(&format!("{kind:<22}")),
        detail
    );
    let mut lines = vec![head.trim_end().to_string()];
    lines.extend(more.into_iter().map(|m| format!("{:>24}{m}", "")));
    lines
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use artoo::testkit::samples::*;

    fn lines_of(kind: MessageKind, verbose: bool) -> Vec<String> {
        let env = samples()
            .into_iter()
            .find(|e| e.message.kind() == kind)
            .expect("a sample of every kind");
        pipeline_lines(&env, &LineStyle::plain(verbose))
    }

    fn line_of(kind: MessageKind) -> String {
        lines_of(kind, true).join("\n")
    }

    fn assert_shows(kind: MessageKind, needle: &str) {
        let line = line_of(kind);
        assert!(
            line.contains(needle),
            "{} lacks {needle:?}: {line}",
            kind.name()
        );
    }

    #[test]
    fn every_message_kind_renders_as_a_role_to_role_line_with_its_kind() {
        let kinds: BTreeSet<MessageKind> = samples().iter().map(|e| e.message.kind()).collect();
        let all: BTreeSet<MessageKind> = MessageKind::ALL.iter().copied().collect();
        assert_eq!(kinds, all, "a sample of every message kind");
        for env in samples() {
            let lines = pipeline_lines(&env, &LineStyle::plain(true));
            let head = &lines[0];
            assert!(
                head.contains(&format!("{} →", env.from.short()))
                    && head.contains(env.to.short())
                    && head.contains(env.message.kind().name()),
                "{head}"
            );
            assert!(is_role_line(head), "{head}");
            assert!(!head.contains('\x1b'), "plain style has no escapes: {head}");
        }
    }

    /// The traffic the runtime really sends (the golden transcripts under
    /// `tests/fixtures/transcripts/`): every envelope renders as its role-to-role line,
    /// in one line each, with no raw JSON.
    #[test]
    fn every_envelope_of_the_golden_transcripts_renders_as_one_readable_line() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("the transcripts exist")
            .map(|e| e.expect("an entry").path())
            .collect();
        files.sort();
        assert!(files.len() >= 3, "{files:?}");
        for path in files {
            let text = std::fs::read_to_string(&path).expect("readable");
            let envelopes: Vec<Envelope> = serde_json::from_str(&text).expect("a transcript");
            assert!(!envelopes.is_empty(), "{}", path.display());
            for env in &envelopes {
                let lines = pipeline_lines(env, &LineStyle::plain(true));
                let head = &lines[0];
                assert!(
                    head.contains(&format!("{} →", env.from.short()))
                        && head.contains(env.message.kind().name()),
                    "{}: {head}",
                    path.display()
                );
                for line in &lines {
                    assert!(
                        !line.contains('\n') && !line.contains("{\""),
                        "{}: {line}",
                        path.display()
                    );
                }
            }
        }
    }

    #[test]
    fn a_plan_directive_shows_the_arrow_the_loss_the_transition_and_the_rationale() {
        let lines = lines_of(MessageKind::PlanDirective, false);
        assert!(
            lines[0].contains(
                "↑ D=1.00 P=0.20 ∇L=+0.25 Ω=22% init→change_path · high urgency · round 1"
            ),
            "{}",
            lines[0]
        );
        assert!(
            lines[1]
                .trim_start()
                .starts_with("why: Worsening with environmental failures")
        );
        assert!(lines[2].contains("MUST NOT: tools [search] · targets [ls /nonexistent]"));
        assert!(
            !is_role_line(&lines[1]),
            "continuation lines are not role lines"
        );
    }

    #[test]
    fn the_arrow_follows_the_gradient_when_the_directive_does_not_name_it() {
        let ggs = GgsParams::default();
        let arrow_of = |grad_l: f64, d: f64| {
            let m = message(
                "PlanDirective",
                json!({"task_id": TASK, "loss": loss(d, 0.0, 0.1, 0.5), "prev_directive": "refine", "directive": "refine",
                "blocked_tools": [], "blocked_targets": [], "failed_criterion": "", "failure_class": "logical", "budget_pressure": 0.1, "grad_l": grad_l, "rationale": "r"}),
            );
            describe(&m, &ggs).0.chars().next().expect("an arrow")
        };
        assert_eq!(arrow_of(0.3, 1.0), '↑');
        assert_eq!(arrow_of(-0.3, 1.0), '↓');
        assert_eq!(arrow_of(0.0, 1.0), '⊥');
        assert_eq!(arrow_of(0.0, 0.1), '→');
    }

    #[test]
    fn a_final_result_says_abandon_with_a_cross_and_its_loss() {
        assert_shows(
            MessageKind::FinalResult,
            "❌ abandon ↓ D=1.00 P=0.00 ∇L=-0.20 Ω=95% · 3 replans",
        );
    }

    #[test]
    fn tool_calls_show_tool_status_target_and_time() {
        assert_shows(
            MessageKind::ToolCallEvent,
            "attempt 1 · shell error · ls ~/Downloads (12 ms)",
        );
    }

    #[test]
    fn verdict_lines_count_passed_criteria_and_name_what_is_unmet() {
        assert_shows(
            MessageKind::SubTaskOutcome,
            "failed · 1/2 criteria pass · score 0.50 · unmet: sizes listed",
        );
        assert_shows(MessageKind::ReplanRequest, "1/2 failed · sizes missing");
        assert_shows(
            MessageKind::OutcomeSummary,
            "accepted · a.pdf is the largest · task 1/1 criteria pass",
        );
        assert_shows(
            MessageKind::CorrectionSignal,
            "attempt 1 logical · unmet: sizes listed · do: use ls -l",
        );
    }

    #[test]
    fn memory_lines_show_the_group_action_potentials_and_what_memory_added_beyond_the_laws() {
        assert_shows(
            MessageKind::MemoryRecall,
            "[intent:find_largest_pdf / tool:shell] Avoid att 1.50 dec -0.80 · 2 constraints (1 from the laws): MUST NOT do not use the shell tool",
        );
        assert_shows(
            MessageKind::SubTask,
            "#1 List PDFs with sizes | paths listed (+1) · MUST NOT search",
        );
    }

    #[test]
    fn model_calls_and_taskless_messages_show_only_when_verbose() {
        assert!(lines_of(MessageKind::LlmCall, false).is_empty());
        assert!(lines_of(MessageKind::AuditQuery, false).is_empty());
        assert!(lines_of(MessageKind::MemoryOperatorChange, false).is_empty());
        let call = lines_of(MessageKind::LlmCall, true).join("");
        assert!(
            call.contains("qwen · 1200+80 tok · 2.5 s · error: timed out"),
            "{call}"
        );
    }

    #[test]
    fn colour_is_only_added_when_enabled() {
        let env = Arc::new(samples().remove(0));
        let style = LineStyle {
            paint: Paint { enabled: true },
            ..LineStyle::plain(false)
        };
        assert!(pipeline_lines(&env, &style)[0].contains("\x1b["));
    }
}
