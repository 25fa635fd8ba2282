//! The live pipeline: one bus envelope as `from → to  Kind  essentials`, with
//! continuation lines where a message carries a reason worth reading in full. The
//! essentials are the core's line for the message (`artoo::describe`, the same the audit
//! log and the desktop show); this module adds the roles, the kind, paint and layout.
//!
//! **Invariant:** every message kind renders as a line that names its sender, receiver and
//! kind; model-call records and messages of no task are shown only when verbose.

use super::text::Paint;
use artoo::bus::Envelope;
use artoo::config::GgsParams;
use artoo::contracts::MessageKind;
use artoo::describe::describe;

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
    let summary = describe(&env.message, &style.ggs);
    let kind = env.message.kind().name();
    let head = format!(
        "{} {} {} {}",
        p.dim(&format!("{:>10} →", env.from.short())),
        p.dim(&format!("{:<10}", env.to.short())),
        p.bold(&format!("{kind:<22}")),
        summary.line
    );
    let mut lines = vec![head.trim_end().to_string()];
    lines.extend(summary.more.into_iter().map(|m| format!("{:>24}{m}", "")));
    lines
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

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
