//! The block printed after a task: how it ended (answer first), the user's question,
//! the output, then the bookkeeping the result carries as data, each on lines of its own
//! (what the tools did, the files changed, the Law 1 answers, the names no tool showed,
//! what a partial success did not meet), the next moves of an abandon, a dim line of the
//! pipeline's labels, then the cost per role.
//!
//! **Invariant:** the answer comes first and alone; internal labels (directive, `[LAW1]`,
//! loss) appear only on the final dim details line; output equal to the summary is not
//! repeated; paths under the home folder read `~/…`.

use artoo::text::one_line;
use std::fmt::Write as _;

use serde_json::Value;

use super::text::{Paint, f2, pct, plural, seconds, signed, snake, succeeded};
use artoo::contracts::FinalResult;
use artoo::runtime::TaskEnd;
use artoo::tasklog::Usage;

/// An output value as the user reads it: strings raw, anything else pretty JSON,
/// nothing for null or a string equal to the summary.
pub fn output_text(output: &Value, summary: &str) -> Option<String> {
    match output {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() || s.trim() == summary.trim() => None,
        Value::String(s) => Some(s.clone()),
        Value::Array(a) if a.is_empty() => None,
        Value::Object(o) if o.is_empty() => None,
        other => serde_json::to_string_pretty(other).ok(),
    }
}

/// The block after a task: how it ended, the question, the output, the next moves on
/// abandon, then the cost.
pub fn result_block(
    end: &TaskEnd,
    input: &str,
    usage: &Usage,
    paint: Paint,
    home: &std::path::Path,
) -> Vec<String> {
    let mut lines = Vec::new();
    match end {
        TaskEnd::Final(r) => lines.extend(final_lines(r, paint, home)),
        TaskEnd::Chat(answer) => lines.push(format!("💬 {}", answer.trim())),
        TaskEnd::Cancelled => {
            lines.push(paint.yellow("⚠ Cancelled: nothing of this task runs any more."))
        }
    }
    lines.insert(
        1.min(lines.len()),
        paint.dim(&format!("› {}", one_line(input, 100))),
    );
    lines.push(String::new());
    lines.extend(cost_block(usage));
    lines
}

fn final_lines(r: &FinalResult, paint: Paint, home: &std::path::Path) -> Vec<String> {
    let mut lines = Vec::new();
    let (summary, law1) = artoo::status::plain_summary(&r.summary);
    let head = if succeeded(r.directive) {
        paint.green("✅ Done")
    } else {
        paint.red("❌ Abandoned")
    };
    lines.push(format!("{head} — {summary}"));
    if let Some(output) = output_text(&r.output, &summary) {
        lines.push(String::new());
        lines.extend(output.lines().map(str::to_string));
    }
    let mut section = |title: &str, items: Vec<String>| {
        if !items.is_empty() {
            lines.push(String::new());
            lines.push(title.to_string());
            lines.extend(items.into_iter().map(|i| format!("  {i}")));
        }
    };
    section(
        "What the tools did:",
        r.account.iter().map(|l| l.trim().to_string()).collect(),
    );
    section(
        "Files changed by this task:",
        r.effects
            .iter()
            .map(|e| {
                format!(
                    "{} {}",
                    e.done(),
                    artoo::text::tilde(&e.path.display().to_string(), home)
                )
            })
            .collect(),
    );
    section(
        "Not met:",
        r.not_met.iter().map(|c| c.trim().to_string()).collect(),
    );
    if !r.unverified.is_empty() {
        lines.push(String::new());
        lines.push(format!(
            "Not verified against the tools' output: {}.",
            r.unverified.join(", ")
        ));
    }
    if law1 || !r.law1.is_empty() {
        lines.push(String::new());
        lines.push(law1_line(r.law1));
    }
    if let Some(run) = &r.scheduled {
        lines.push(String::new());
        lines.push(run.note.clone());
    }
    if !r.grants.is_empty() {
        lines.push(String::new());
        lines.push("Allowed without asking by your standing grants (`artoo grants`):".into());
        for g in &r.grants {
            lines.push(format!("  {g}"));
        }
    }
    if !r.next_moves.is_empty() {
        lines.push(String::new());
        lines.push("Next moves:".into());
        for (i, m) in r.next_moves.iter().enumerate() {
            lines.push(format!("  {}. {}", i + 1, m.trim()));
        }
    }
    // The labels of the pipeline, for whoever wants them: last and dim.
    lines.push(paint.dim(&format!(
        "details: {}{} · D {} · P {} · Ω {} · L {} · ∇L {} · {}",
        snake(&r.directive),
        if law1 { " · [LAW1]" } else { "" },
        f2(r.loss.d),
        f2(r.loss.p),
        pct(r.loss.omega),
        f2(r.loss.l),
        signed(r.grad_l),
        plural(r.replans as usize, "replan", "replans")
    )));
    lines
}

/// The Law 1 line: how many actions asked and how each was answered, and how many a
/// standing grant let run.
fn law1_line(t: artoo::contracts::Law1Tally) -> String {
    let mut parts = Vec::new();
    if t.asked() > 0 {
        let mut answers = Vec::new();
        for (n, word) in [
            (t.approved, "approved"),
            (t.denied, "denied"),
            (t.trashed, "moved to the Trash"),
        ] {
            if n > 0 {
                answers.push(format!("{n} {word}"));
            }
        }
        parts.push(format!(
            "{} asked for your approval ({})",
            plural(t.asked() as usize, "action", "actions"),
            answers.join(", ")
        ));
    }
    if t.granted > 0 {
        parts.push(format!(
            "{} ran under your standing grants",
            plural(t.granted as usize, "action", "actions")
        ));
    }
    if parts.is_empty() {
        return "Law 1: an action that cannot be undone asked for your approval during this task."
            .into();
    }
    format!("Law 1: {}.", parts.join("; "))
}

/// Thousands separators: 1234567 → "1,234,567".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Per role: model calls, tokens, seconds; then tool time and the total.
pub fn cost_block(usage: &Usage) -> Vec<String> {
    let mut lines = vec![format!(
        "{:<22}{:>6}{:>10}{:>9}",
        "Cost", "calls", "tokens", "seconds"
    )];
    for s in &usage.role_stats {
        let label = format!("{} {}", s.role.short(), s.role.name());
        let mut line = format!(
            "  {label:<20}{:>6}{:>10}{:>9}",
            s.calls,
            thousands(s.prompt_tokens + s.completion_tokens),
            seconds(s.elapsed_ms)
        );
        if s.errors > 0 {
            let _ = write!(line, "  ({} failed)", s.errors);
        }
        lines.push(line);
    }
    if usage.tool_call_count > 0 {
        lines.push(format!(
            "  {:<20}{:>6}{:>10}{:>9}",
            "tools (exec)",
            usage.tool_call_count,
            "",
            seconds(usage.tool_elapsed_ms)
        ));
    }
    let llm_ms: u64 = usage.role_stats.iter().map(|s| s.elapsed_ms).sum();
    lines.push(format!(
        "  {:<20}{:>6}{:>10}{:>9}",
        "total (LLM)",
        usage.llm_calls(),
        thousands(usage.total_tokens),
        seconds(llm_ms)
    ));
    lines
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use artoo::contracts::{Loss, Role, TaskId, TerminalDirective};
    use artoo::testkit::samples::*;

    fn final_result(
        directive: TerminalDirective,
        output: Value,
        next_moves: Vec<String>,
    ) -> FinalResult {
        FinalResult {
            task_id: TaskId::from_existing(TASK),
            summary: "Found 3 PDFs".into(),
            output,
            loss: Loss {
                d: 0.0,
                p: 0.0,
                omega: 0.05,
                l: 0.02,
            },
            grad_l: 0.0,
            replans: 0,
            prev_directive: artoo::contracts::PrevDirective::Init,
            directive,
            next_moves,
            effects: Vec::new(),
            grants: Vec::new(),
            scheduled: None,
            law1: Default::default(),
            account: Vec::new(),
            unverified: Vec::new(),
            not_met: Vec::new(),
        }
    }

    const HOME: &str = "/home/ana";

    fn usage() -> Usage {
        let mut u = Usage::default();
        u.record_llm(Role::Perceiver, 1000, 234, 400, false);
        u.record_llm(Role::Planner, 2000, 500, 1600, false);
        u.record_llm(Role::Planner, 0, 0, 30_000, true);
        u.record_tool_call(120);
        u
    }

    #[test]
    fn the_result_block_shows_the_question_summary_output_and_cost_per_role() {
        let end = TaskEnd::Final(Box::new(final_result(
            TerminalDirective::Accept,
            json!({"largest": "a.pdf", "bytes": 1234}),
            vec![],
        )));
        let text = result_block(
            &end,
            "find the largest pdf",
            &usage(),
            Paint::PLAIN,
            HOME.as_ref(),
        )
        .join("\n");
        assert!(
            text.starts_with("✅ Done — Found 3 PDFs\n› find the largest pdf"),
            "{text}"
        );
        assert!(
            text.contains("\"largest\": \"a.pdf\""),
            "objects are pretty JSON: {text}"
        );
        assert!(
            text.contains("  R1 perceiver             1     1,234      0.4"),
            "{text}"
        );
        assert!(
            text.contains("  R2 planner               2     2,500     31.6  (1 failed)"),
            "{text}"
        );
        assert!(
            text.contains("  tools (exec)             1                0.1"),
            "{text}"
        );
        assert!(
            text.contains("  total (LLM)              3     3,734     32.0"),
            "{text}"
        );
    }

    #[test]
    fn the_answer_comes_first_and_internal_labels_only_on_the_details_line() {
        let mut r = final_result(TerminalDirective::Accept, Value::Null, vec![]);
        r.summary = "[LAW1] Moved 3 files to the Trash".into();
        let lines = result_block(
            &TaskEnd::Final(Box::new(r)),
            "tidy",
            &Usage::default(),
            Paint::PLAIN,
            HOME.as_ref(),
        );
        assert_eq!(lines[0], "✅ Done — Moved 3 files to the Trash");
        let details = lines
            .iter()
            .position(|l| l.starts_with("details: accept · [LAW1] · D 0.00"))
            .unwrap_or_else(|| panic!("a details line: {lines:?}"));
        for line in &lines[..details] {
            assert!(
                !line.contains("[LAW1]") && !line.contains("accept"),
                "{line}"
            );
        }
        assert!(lines.iter().any(|l| l.starts_with("Law 1: ")), "{lines:?}");
    }

    #[test]
    fn the_bookkeeping_follows_the_answer_as_lines_of_its_own() {
        let mut r = final_result(TerminalDirective::Accept, json!("2 of 3 copied."), vec![]);
        r.summary = "[LAW1] Copied lease.pdf and insurance.pdf.".into();
        r.account = vec![
            "copied 2 of 3 into ~/print: lease.pdf, insurance.pdf".into(),
            "missing: warranty.pdf (not in ~/contracts)".into(),
        ];
        r.effects = vec![artoo::contracts::PathEffect {
            path: "/home/ana/print/lease.pdf".into(),
            exists: false,
            effect: "create".into(),
        }];
        r.unverified = vec!["notes.md".into()];
        r.law1 = artoo::contracts::Law1Tally {
            approved: 1,
            denied: 1,
            granted: 1,
            ..Default::default()
        };
        let lines = final_lines(&r, Paint { enabled: false }, HOME.as_ref());
        let details = lines.len() - 1;
        assert_eq!(
            lines[..details].join("\n"),
            "✅ Done — Copied lease.pdf and insurance.pdf.\n\n2 of 3 copied.\n\n\
             What the tools did:\n  copied 2 of 3 into ~/print: lease.pdf, insurance.pdf\n  \
             missing: warranty.pdf (not in ~/contracts)\n\n\
             Files changed by this task:\n  created ~/print/lease.pdf\n\n\
             Not verified against the tools' output: notes.md.\n\n\
             Law 1: 2 actions asked for your approval (1 approved, 1 denied); \
             1 action ran under your standing grants."
        );
        r.not_met = vec!["the total is in the report".into()];
        let lines = final_lines(&r, Paint { enabled: false }, HOME.as_ref());
        assert!(
            lines
                .join("\n")
                .contains("\n\nNot met:\n  the total is in the report\n"),
            "{lines:?}"
        );
    }

    #[test]
    fn an_abandon_shows_a_cross_and_numbered_next_moves() {
        let end = TaskEnd::Final(Box::new(final_result(
            TerminalDirective::Abandon,
            Value::Null,
            vec!["Name the folder".into(), "Allow the shell".into()],
        )));
        let text =
            result_block(&end, "x", &Usage::default(), Paint::PLAIN, HOME.as_ref()).join("\n");
        assert!(text.starts_with("❌ Abandoned — Found 3 PDFs"), "{text}");
        assert!(
            text.contains("Next moves:\n  1. Name the folder\n  2. Allow the shell"),
            "{text}"
        );
    }

    #[test]
    fn string_outputs_print_raw_and_repeat_nothing() {
        assert_eq!(
            output_text(&json!("line 1\nline 2"), "s"),
            Some("line 1\nline 2".into())
        );
        assert_eq!(output_text(&json!("same"), "same"), None);
        assert_eq!(output_text(&Value::Null, "s"), None);
        assert_eq!(output_text(&json!([]), "s"), None);
    }

    #[test]
    fn the_grants_that_allowed_actions_are_named_on_lines_of_their_own() {
        let mut r = final_result(TerminalDirective::Accept, Value::Null, Vec::new());
        let plain = final_lines(&r, Paint { enabled: false }, HOME.as_ref());
        assert!(
            !plain.iter().any(|l| l.contains("standing grant")),
            "{plain:?}"
        );
        r.grants = vec!["deleting .tmp files under ~/Downloads".into()];
        let lines = final_lines(&r, Paint { enabled: false }, HOME.as_ref());
        let at = lines
            .iter()
            .position(|l| l.starts_with("Allowed without asking by your standing grants"))
            .expect("a heading");
        assert_eq!(lines[at + 1], "  deleting .tmp files under ~/Downloads");
        assert!(lines[0].starts_with("✅ Done — Found 3 PDFs"), "{lines:?}");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
