//! Pure rendering: one bus envelope → the pipeline lines shown live, and the blocks shown
//! after a task (result, cost), for `/memory`, `/replay` and the Law 1 prompt. Nothing
//! here does IO, so every shape is unit-tested.

use std::fmt::Write as _;

use serde_json::Value;

use crate::bus::Envelope;
use crate::config::GgsParams;
use crate::contracts::{
    ApprovalScope, ConfirmationRequest, FinalResult, Gradient, Loss, Message, MessageKind, Role,
    SubTaskStatus, TerminalDirective, ToolCallRecord, Verdict,
};
use crate::ggs::decide::gradient_label;
use crate::memory::{GroupSummary, MegramView};
use crate::runtime::TaskEnd;
use crate::tasklog::{RunSummary, Trajectory, Usage};

/// Longest payload excerpt on a pipeline line.
const DETAIL_CHARS: usize = 96;
/// Longest excerpt of a nested item (a criterion, a constraint) on a pipeline line.
const ITEM_CHARS: usize = 48;

/// ANSI styling, or none (pipes, files, tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paint {
    pub enabled: bool,
}

impl Paint {
    pub const PLAIN: Paint = Paint { enabled: false };

    fn wrap(self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    pub fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    pub fn green(self, text: &str) -> String {
        self.wrap("32", text)
    }

    pub fn red(self, text: &str) -> String {
        self.wrap("31", text)
    }

    pub fn yellow(self, text: &str) -> String {
        self.wrap("33", text)
    }
}

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
    pub fn plain(verbose: bool) -> Self {
        Self {
            pipeline: true,
            verbose,
            paint: Paint::PLAIN,
            ggs: GgsParams::default(),
        }
    }
}

/// The arrow of seed 002's trajectory label: ↑ worsening, ↓ improving, ⊥ plateau,
/// → stable.
pub fn arrow(gradient: Gradient) -> &'static str {
    match gradient {
        Gradient::Worsening => "↑",
        Gradient::Improving => "↓",
        Gradient::Plateau => "⊥",
        Gradient::Stable => "→",
    }
}

/// One line of text, whitespace collapsed, cut at `max` characters with an ellipsis.
pub fn clip(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max.saturating_sub(1)) {
        Some((cut, _)) if line.chars().count() > max => format!("{}…", &line[..cut]),
        _ => line,
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn f2(x: f64) -> String {
    format!("{x:.2}")
}

fn signed(x: f64) -> String {
    format!("{x:+.2}")
}

fn pct(x: f64) -> String {
    format!("{}%", (x * 100.0).round())
}

/// `D=… P=… ∇L=… Ω=…` with the arrow of the trajectory label.
fn loss_line(loss: &Loss, grad_l: f64, gradient: Gradient) -> String {
    format!(
        "{} D={} P={} ∇L={} Ω={}",
        arrow(gradient),
        f2(loss.d),
        f2(loss.p),
        signed(grad_l),
        pct(loss.omega)
    )
}

fn snake<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

fn tool_detail(r: &ToolCallRecord) -> String {
    let mut s = format!(
        "{} {} · {} ({} ms)",
        r.tool,
        snake(&r.status),
        clip(&r.target, ITEM_CHARS),
        r.duration_ms
    );
    if let Some(err) = &r.error {
        let _ = write!(s, " · {}", clip(err, ITEM_CHARS));
    }
    if let Some(decision) = r.confirmation {
        let _ = write!(s, " · Law 1: {}", snake(&decision));
    }
    s
}

/// `[space / entity] Action att … dec …`: a memory group with its live potentials.
fn group(space: &str, entity: &str, p: &crate::contracts::Potentials) -> String {
    format!(
        "[{space} / {entity}] {:?} att {} dec {}",
        p.action,
        f2(p.attention),
        signed(p.decision)
    )
}

fn verdicts_passed(verdicts: &[crate::contracts::CriterionVerdict]) -> String {
    let passed = verdicts
        .iter()
        .filter(|v| v.verdict == Verdict::Pass)
        .count();
    format!("{passed}/{} criteria pass", verdicts.len())
}

/// Whether a terminal directive is a success.
pub fn succeeded(directive: TerminalDirective) -> bool {
    directive != TerminalDirective::Abandon
}

/// The essentials of one message as one line (data, not prose), plus continuation lines
/// for the few messages that carry a reason worth reading in full (a replan's rationale
/// and blocked tools/targets).
pub fn describe(message: &Message, ggs: &GgsParams) -> (String, Vec<String>) {
    let mut more = Vec::new();
    let detail = match message {
        Message::TaskBudget(m) => format!("time budget {} s", m.time_budget_ms / 1000),
        Message::TaskSubmitted(m) => {
            let mut s = clip(&m.raw_input, DETAIL_CHARS);
            if !m.session_history.is_empty() {
                let _ = write!(
                    s,
                    " · {} of history",
                    plural(m.session_history.len(), "turn", "turns")
                );
            }
            s
        }
        Message::ClarificationRequest(m) => {
            format!("round {}: {}", m.round, clip(&m.question, DETAIL_CHARS))
        }
        Message::ClarificationAnswer(m) if m.answer.trim().is_empty() => "(proceed)".into(),
        Message::ClarificationAnswer(m) => clip(&m.answer, DETAIL_CHARS),
        Message::ChatReply(m) => clip(&m.answer, DETAIL_CHARS),
        Message::TaskSpec(m) => {
            let mut s = clip(&m.intent, DETAIL_CHARS);
            if let Some(scope) = &m.constraints.scope {
                let _ = write!(s, " · scope {}", clip(scope, ITEM_CHARS));
            }
            if let Some(deadline) = &m.constraints.deadline {
                let _ = write!(s, " · by {deadline}");
            }
            s
        }
        Message::MemoryQuery(m) => format!("[{} / {}]", m.space, m.entity),
        Message::MemoryResponse(m) => {
            let mut s = format!(
                "{} · {}",
                group(&m.space, &m.entity, &m.potentials),
                plural(m.sops.len(), "SOP", "SOPs")
            );
            if let Some(e) = &m.error {
                let _ = write!(s, " · error: {}", clip(e, ITEM_CHARS));
            }
            s
        }
        Message::MemoryRecall(m) => {
            let mut s = format!(
                "{} · {}",
                group(&m.space, &m.entity, &m.potentials),
                plural(m.constraints.len(), "constraint", "constraints")
            );
            let laws = m.constraints.iter().filter(|c| c.source == "law").count();
            if laws > 0 {
                let _ = write!(s, " ({laws} from the laws)");
            }
            // The laws are in every plan; what memory added is the news.
            if let Some(first) = m.constraints.iter().find(|c| c.source != "law") {
                let _ = write!(
                    s,
                    ": {} {}",
                    snake(&first.kind).to_uppercase().replace('_', " "),
                    clip(&first.text, ITEM_CHARS)
                );
            }
            if let Some(e) = &m.error {
                let _ = write!(s, " · memory unavailable: {}", clip(e, ITEM_CHARS));
            }
            s
        }
        Message::DispatchManifest(m) => format!(
            "round {} · {} · {}",
            m.round,
            plural(m.subtask_ids.len(), "sub-task", "sub-tasks"),
            plural(m.task_criteria.len(), "task criterion", "task criteria")
        ),
        Message::SubTask(m) => {
            let mut s = format!("#{} {}", m.sequence, clip(&m.intent, ITEM_CHARS));
            if let Some((first, rest)) = m.success_criteria.split_first() {
                let _ = write!(s, " | {}", clip(&first.criterion, 32));
                if !rest.is_empty() {
                    let _ = write!(s, " (+{})", rest.len());
                }
            }
            if !m.blocked_tools.is_empty() {
                let _ = write!(s, " · MUST NOT {}", m.blocked_tools.join(", "));
            }
            if !m.confirm_tools.is_empty() {
                let _ = write!(s, " · confirm {}", m.confirm_tools.join(", "));
            }
            s
        }
        Message::ToolCallEvent(m) => format!("attempt {} · {}", m.attempt, tool_detail(&m.record)),
        Message::ExecutionResult(m) => format!(
            "{} · attempt {} · {}",
            snake(&m.status),
            m.attempt,
            plural(m.tool_calls.len(), "tool call", "tool calls")
        ),
        Message::CorrectionSignal(m) => format!(
            "attempt {} {} · unmet: {} · do: {}",
            m.attempt_number,
            snake(&m.failure_class),
            clip(&m.failed_criterion, ITEM_CHARS),
            clip(&m.what_to_do, ITEM_CHARS)
        ),
        Message::SubTaskOutcome(m) => match m.status {
            SubTaskStatus::Matched => format!(
                "matched · {} · {}",
                verdicts_passed(&m.criteria_verdicts),
                plural(m.gap_trajectory.len(), "attempt", "attempts")
            ),
            SubTaskStatus::Failed => {
                let last = m.gap_trajectory.last();
                let mut s = format!(
                    "failed · {} · score {}",
                    verdicts_passed(&m.criteria_verdicts),
                    last.map_or_else(|| "—".to_string(), |p| f2(p.score))
                );
                if let Some(p) = last.filter(|p| !p.unmet_criteria.is_empty()) {
                    let _ = write!(
                        s,
                        " · unmet: {}",
                        clip(&p.unmet_criteria.join("; "), ITEM_CHARS)
                    );
                } else if let Some(reason) = &m.failure_reason {
                    let _ = write!(s, " · {}", clip(reason, ITEM_CHARS));
                }
                s
            }
        },
        Message::SubTaskClosed(m) => format!("{} · fast loop closed", snake(&m.status)),
        Message::DispatchHalted(m) => format!(
            "{} skipped · {}",
            m.skipped.len(),
            clip(&m.reason, ITEM_CHARS)
        ),
        Message::ReplanRequest(m) => {
            let total = m.failed_outcomes.len() + m.matched_outcomes.len();
            let mut s = format!(
                "{}/{total} failed · {}",
                m.failed_outcomes.len(),
                clip(&m.gap_summary, ITEM_CHARS)
            );
            if !m.task_criteria_verdicts.is_empty() {
                let _ = write!(s, " · task {}", verdicts_passed(&m.task_criteria_verdicts));
            }
            s
        }
        Message::OutcomeSummary(m) => {
            let mut s = format!("accepted · {}", clip(&m.summary, ITEM_CHARS));
            if !m.task_criteria_verdicts.is_empty() {
                let _ = write!(s, " · task {}", verdicts_passed(&m.task_criteria_verdicts));
            }
            s
        }
        Message::PlanDirective(m) => {
            let gradient = m
                .gradient
                .unwrap_or_else(|| gradient_label(m.grad_l, m.loss.d, ggs));
            more.push(format!("why: {}", clip(&m.rationale, 160)));
            if !m.blocked_tools.is_empty() || !m.blocked_targets.is_empty() {
                more.push(format!(
                    "MUST NOT: tools [{}] · targets [{}]",
                    m.blocked_tools.join(", "),
                    clip(&m.blocked_targets.join(", "), 100)
                ));
            }
            format!(
                "{} {}→{} · {} urgency · round {}",
                loss_line(&m.loss, m.grad_l, gradient),
                snake(&m.prev_directive),
                snake(&m.directive),
                snake(&m.urgency),
                m.round
            )
        }
        Message::PlanningFailed(m) => {
            format!("round {} · {}", m.round, clip(&m.reason, DETAIL_CHARS))
        }
        Message::GracefulFailureRequest(m) => format!(
            "{} · {} matched",
            clip(&m.reason, DETAIL_CHARS),
            m.matched_outputs.len()
        ),
        Message::GracefulFailure(m) => format!(
            "{} · {}",
            plural(m.next_moves.len(), "next move", "next moves"),
            clip(&m.accomplished, ITEM_CHARS)
        ),
        Message::FinalResult(m) => {
            let gradient = gradient_label(m.grad_l, m.loss.d, ggs);
            format!(
                "{} {} {} · {}",
                if succeeded(m.directive) { "✅" } else { "❌" },
                snake(&m.directive),
                loss_line(&m.loss, m.grad_l, gradient),
                plural(m.replans as usize, "replan", "replans")
            )
        }
        Message::Megram(m) => format!(
            "{} {} → [{} / {}] σ={:+}",
            m.megram.level.as_str(),
            m.megram.state,
            m.megram.space,
            m.megram.entity,
            m.megram.sigma
        ),
        Message::MemoryOperatorChange(m) => {
            format!(
                "{} · {}",
                snake(&m.operation),
                clip(&m.detail, DETAIL_CHARS)
            )
        }
        Message::ConfirmationRequest(m) => format!(
            "{} {} · {}",
            m.tool,
            if m.reversible {
                "reversible"
            } else {
                "IRREVERSIBLE"
            },
            clip(&m.command, DETAIL_CHARS)
        ),
        Message::ConfirmationDecision(m) => {
            format!("{} ({})", snake(&m.decision), snake(&m.source))
        }
        Message::TaskCancelled(m) => clip(&m.reason, DETAIL_CHARS),
        Message::AuditQuery(_) => "on-demand".into(),
        Message::AuditReport(m) => format!(
            "{} · {} · {} tasks",
            snake(&m.trigger),
            plural(m.anomalies.len(), "anomaly", "anomalies"),
            m.tasks_observed
        ),
        Message::LlmCall(m) => {
            let mut s = format!(
                "{} · {}+{} tok · {:.1} s",
                m.model,
                m.prompt_tokens,
                m.completion_tokens,
                m.elapsed_ms as f64 / 1000.0
            );
            if let Some(e) = &m.error {
                let _ = write!(s, " · error: {}", clip(e, ITEM_CHARS));
            }
            s
        }
    };
    (detail, more)
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

/// A Law 1 request as the user must see it before answering: what, where, whether it
/// can be undone, and the exact command.
pub fn confirmation_prompt(request: &ConfirmationRequest, paint: Paint) -> Vec<String> {
    let mut lines = vec![
        p_law1(paint, &request.tool, request.reversible),
        // One effect per line (and one per operation the sandbox refused), aligned.
        format!(
            "  effect:     {}",
            request.description.replace('\n', "\n              ")
        ),
        format!("  command:    {}", request.command),
    ];
    for path in &request.paths {
        lines.push(format!(
            "  path:       {} {}{}",
            path.effect,
            path.path.display(),
            if path.exists {
                ""
            } else {
                " (does not exist yet)"
            }
        ));
    }
    lines.push(format!(
        "  reversible: {}",
        if request.reversible {
            "yes"
        } else {
            "NO — this cannot be undone"
        }
    ));
    if let Some(alt) = &request.reversible_alternative {
        lines.push(format!("  instead:    {alt}"));
    }
    if let Some(grant) = &request
        .grant
        .as_ref()
        .filter(|_| request.scopes.contains(&ApprovalScope::Always))
    {
        lines.push(format!(
            "  always:     would allow `{}` of the MCP server `{}` ({}) in every task, until revoked",
            grant.tool, grant.server, grant.origin
        ));
    }
    lines.push(format!(
        "  expires:    {} (then it is denied)",
        request.expires_at.format("%H:%M:%S UTC")
    ));
    lines
}

fn p_law1(paint: Paint, tool: &str, reversible: bool) -> String {
    paint.yellow(&format!(
        "⚠ Law 1: the executor asks to run {} action with `{tool}`",
        if reversible {
            "a gated"
        } else {
            "an irreversible"
        }
    ))
}

/// The warning shown when a session starts without the sandbox (`None` while it is
/// on): why it is off, and that every command artoo cannot prove harmless asks.
pub fn sandbox_notice(status: &crate::tools::sandbox::Status, paint: Paint) -> Option<String> {
    (!status.is_on()).then(|| paint.yellow(&format!("⚠ Law 1: {}", status.describe())))
}

/// The answers a request offers, as (key, label), in the order the prompt shows them:
/// `s` only when the task scope is offered, `a` only with a named grant, `t` only when
/// Trash is offered.
fn confirmation_choices(request: &ConfirmationRequest) -> Vec<(&'static str, &'static str)> {
    let mut choices = vec![("y", "[y]es, once")];
    if request.scopes.contains(&ApprovalScope::Task) {
        choices.push(("s", "[s]ame for the rest of this task"));
    }
    if request.scopes.contains(&ApprovalScope::Always) && request.grant.is_some() {
        choices.push(("a", "[a]lways allow this tool"));
    }
    choices.push(("n", "[n]o"));
    if request.can_trash {
        choices.push(("t", "[t] move to Trash instead"));
    }
    choices
}

/// The question of the Law 1 prompt.
pub fn confirmation_question(request: &ConfirmationRequest) -> String {
    let labels: Vec<&str> = confirmation_choices(request)
        .into_iter()
        .map(|(_, label)| label)
        .collect();
    format!("Approve? {}: ", labels.join(" / "))
}

/// The keys that answer a request, for the reminder after an unclear answer.
pub fn confirmation_keys(request: &ConfirmationRequest) -> Vec<&'static str> {
    confirmation_choices(request)
        .into_iter()
        .map(|(key, _)| key)
        .collect()
}

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
pub fn result_block(end: &TaskEnd, input: &str, usage: &Usage, paint: Paint) -> Vec<String> {
    let mut lines = Vec::new();
    match end {
        TaskEnd::Final(r) => lines.extend(final_lines(r, paint)),
        TaskEnd::Chat(answer) => lines.push(format!("💬 {}", answer.trim())),
        TaskEnd::Cancelled => {
            lines.push(paint.yellow("⚠ Cancelled: nothing of this task runs any more."))
        }
    }
    lines.insert(
        1.min(lines.len()),
        paint.dim(&format!("› {}", clip(input, 100))),
    );
    lines.push(String::new());
    lines.extend(cost_block(usage));
    lines
}

fn final_lines(r: &FinalResult, paint: Paint) -> Vec<String> {
    let mut lines = Vec::new();
    let (summary, law1) = crate::status::plain_summary(&r.summary);
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
    if law1 {
        lines.push(String::new());
        lines.push(
            "Law 1: an action that cannot be undone asked for your approval during this task."
                .into(),
        );
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

fn seconds(ms: u64) -> String {
    format!("{:.1}", ms as f64 / 1000.0)
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

/// `/memory`: one line per (space, entity) group with its live potentials and action.
pub fn memory_groups(groups: &[GroupSummary]) -> Vec<String> {
    if groups.is_empty() {
        return vec!["Memory is empty.".into()];
    }
    let mut lines = vec![format!(
        "{} · action, attention, decision, entries M/K/C/T",
        plural(groups.len(), "group", "groups")
    )];
    for g in groups {
        let l = g.levels;
        let mut line = format!(
            "  {}  M{} K{} C{} T{}",
            group(&g.space, &g.entity, &g.potentials),
            l.m,
            l.k,
            l.c,
            l.t
        );
        if g.consolidated > 0 {
            let _ = write!(line, "  ({} consolidated)", g.consolidated);
        }
        lines.push(line);
    }
    lines
}

/// `/memory verbose`: a group's Megrams, each with its live contribution.
pub fn megram_rows(views: &[MegramView], now: chrono::DateTime<chrono::Utc>) -> Vec<String> {
    views
        .iter()
        .map(|v| {
            let m = &v.megram;
            let age = now.signed_duration_since(m.created_at);
            let mut line = format!(
                "      {} {} {:<16} σ={:+} f={} k={} att {} dec {} {}  {}",
                m.id,
                m.level.as_str(),
                m.state,
                m.sigma,
                f2(m.f),
                m.k,
                f2(v.attention),
                signed(v.decision),
                age_text(age),
                clip(&m.content, 120)
            );
            if let Some(into) = v.consolidated_into {
                let _ = write!(line, "  (consolidated into C {into})");
            }
            line
        })
        .collect()
}

fn age_text(age: chrono::TimeDelta) -> String {
    let secs = age.num_seconds().max(0);
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// `/replay` without a run: the newest runs, numbered for `/replay N`.
pub fn run_list(runs: &[RunSummary]) -> Vec<String> {
    if runs.is_empty() {
        return vec!["No task logs yet.".into()];
    }
    runs.iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                "  {:>2}. {}  {:<10} {}  {}",
                i + 1,
                r.started_at.format("%Y-%m-%d %H:%M:%S"),
                r.status.as_str(),
                plural(r.rounds as usize, "round", "rounds"),
                clip(
                    r.intent
                        .as_deref()
                        .or(r.raw_input.as_deref())
                        .unwrap_or("(input not logged)"),
                    70
                )
            )
        })
        .collect()
}

/// `/replay`: a run's trajectory without re-running it — rounds with memory, plan,
/// sub-tasks and verdicts, GGS's D/P/Ω/L/∇L with the arrow, directives, the result.
pub fn trajectory(t: &Trajectory, run_id: &str, ggs: &GgsParams) -> Vec<String> {
    let mut lines = vec![format!(
        "Run {run_id} · task {} · {}{}",
        t.task_id.as_ref().map_or("?", |id| id.as_str()),
        t.status.as_str(),
        t.elapsed_ms
            .map(|ms| format!(" · {} s", seconds(ms)))
            .unwrap_or_default()
    )];
    if let Some(input) = &t.raw_input {
        lines.push(format!("› {}", clip(input, 100)));
    }
    if let Some(intent) = &t.intent {
        lines.push(format!("intent: {}", clip(intent, 100)));
    }
    for c in &t.clarifications {
        lines.push(format!(
            "clarification {}: {} → {}",
            c.round,
            clip(&c.question, 60),
            c.answer
                .as_deref()
                .map_or("(no answer)".to_string(), |a| if a.trim().is_empty() {
                    "(proceed)".to_string()
                } else {
                    clip(a, 40)
                })
        ));
    }
    if let Some(reply) = &t.chat_reply {
        lines.push(format!("chat reply: {}", clip(reply, 100)));
    }
    for round in &t.rounds {
        lines.extend(round_lines(round, ggs));
    }
    for law1 in &t.law1 {
        let what = law1.request.as_ref().map_or_else(
            || "(request not logged)".to_string(),
            |r| clip(&r.command, 60),
        );
        let answer = law1.decision.as_ref().map_or_else(
            || "unanswered".to_string(),
            |d| format!("{} ({})", snake(&d.decision), snake(&d.source)),
        );
        lines.push(format!("Law 1: {what} → {answer}"));
    }
    if let Some(r) = &t.final_result {
        lines.push(format!(
            "result: {} {} — {}",
            if succeeded(r.directive) { "✅" } else { "❌" },
            snake(&r.directive),
            clip(&r.summary, 100)
        ));
        for (i, m) in r.next_moves.iter().enumerate() {
            lines.push(format!("  {}. {}", i + 1, clip(m, 100)));
        }
    }
    if let Some(reason) = &t.cancelled {
        lines.push(format!("cancelled: {}", clip(reason, 100)));
    }
    if t.skipped_messages > 0 || t.unreadable_lines > 0 || t.truncated {
        lines.push(format!(
            "(log incomplete: {} messages lost, {} unreadable lines{})",
            t.skipped_messages,
            t.unreadable_lines,
            if t.truncated { ", cut off" } else { "" }
        ));
    }
    lines.push(String::new());
    lines.extend(cost_block(&t.usage));
    lines
}

fn round_lines(round: &crate::tasklog::Round, ggs: &GgsParams) -> Vec<String> {
    let mut lines = Vec::new();
    let plan = round.plan.as_ref().map_or_else(
        || "no plan".to_string(),
        |p| {
            format!(
                "{} · {}",
                plural(p.subtask_ids.len(), "sub-task", "sub-tasks"),
                plural(p.task_criteria.len(), "task criterion", "task criteria")
            )
        },
    );
    lines.push(format!("round {}: {plan}", round.index));
    for q in &round.memory_queries {
        lines.push(format!(
            "  memory {} · {} · {}",
            group(
                &q.space,
                &q.entity,
                &crate::contracts::Potentials {
                    attention: q.attention,
                    decision: q.decision,
                    action: q.action,
                }
            ),
            plural(q.sop_count, "SOP", "SOPs"),
            plural(q.constraints.len(), "constraint", "constraints")
        ));
    }
    for s in &round.subtasks {
        let intent = s.begin.as_ref().map_or_else(
            || "(not logged)".to_string(),
            |b| format!("#{} {}", b.sequence, clip(&b.intent, 60)),
        );
        let (mark, why) = match &s.end {
            Some(e) if e.status == SubTaskStatus::Matched => ("✓", String::new()),
            Some(e) => (
                "✗",
                e.failure_reason
                    .as_deref()
                    .map(|r| format!(" — {}", clip(r, 60)))
                    .unwrap_or_default(),
            ),
            None => ("…", String::new()),
        };
        lines.push(format!(
            "  {mark} {intent} · {} · {}{why}",
            plural(s.executions.len(), "attempt", "attempts"),
            plural(s.tool_calls.len(), "tool call", "tool calls")
        ));
    }
    if !round.skipped.is_empty() {
        lines.push(format!(
            "  {} skipped after a failed group",
            round.skipped.len()
        ));
    }
    if let Some(a) = &round.accepted {
        lines.push(format!("  R4b accepted: {}", clip(&a.summary, 80)));
    }
    if let Some(r) = &round.replan {
        lines.push(format!("  R4b replan: {}", clip(&r.gap_summary, 80)));
    }
    if let Some(f) = &round.planning_failed {
        lines.push(format!("  planning failed: {}", clip(&f.reason, 80)));
    }
    if let Some(d) = &round.decision {
        let gradient = d
            .gradient
            .unwrap_or_else(|| gradient_label(d.grad_l, d.loss.d, ggs));
        let mut line = format!(
            "  R7 {} D={} P={} Ω={} L={} ∇L={} → {}",
            arrow(gradient),
            f2(d.loss.d),
            f2(d.loss.p),
            pct(d.loss.omega),
            f2(d.loss.l),
            signed(d.grad_l),
            d.directive.as_str()
        );
        if let Some(why) = &d.rationale {
            let _ = write!(line, " — {}", clip(why, 80));
        }
        lines.push(line);
    }
    if let Some(p) = &round.directive {
        lines.push(format!(
            "  directive {} · {} class · blocked tools [{}] · {} blocked targets",
            snake(&p.directive),
            snake(&p.failure_class),
            p.blocked_tools.join(", "),
            p.blocked_targets.len()
        ));
    }
    lines
}

/// Every role a pipeline line can name, so tests can tell a role line from others.
pub fn is_role_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    Role::ALL_ROLES
        .iter()
        .chain([Role::Observer, Role::All].iter())
        .any(|r| trimmed.starts_with(&format!("{} →", r.short())))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use serde_json::json;

    use super::super::samples::*;
    use super::*;
    use crate::contracts::TaskId;

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
    fn a_session_without_the_sandbox_starts_with_a_warning_saying_why() {
        use crate::tools::sandbox::Status;
        let plain = Paint { enabled: false };
        assert_eq!(sandbox_notice(&Status::On("bubblewrap"), plain), None);
        let off = sandbox_notice(
            &Status::Off("bubblewrap (bwrap) is not installed".into()),
            plain,
        )
        .expect("a warning");
        assert!(
            off.contains("the sandbox is off: bubblewrap (bwrap) is not installed"),
            "{off}"
        );
        assert!(off.contains("asks first"), "{off}");
    }

    #[test]
    fn a_law1_prompt_shows_the_command_paths_and_that_it_cannot_be_undone() {
        let Message::ConfirmationRequest(request) = samples()
            .into_iter()
            .find(|e| e.message.kind() == MessageKind::ConfirmationRequest)
            .expect("sample")
            .message
        else {
            unreachable!()
        };
        let text = confirmation_prompt(&request, Paint::PLAIN).join("\n");
        assert!(
            text.contains("an irreversible action with `shell`"),
            "{text}"
        );
        assert!(text.contains("command:    rm ~/Downloads/a.pdf"), "{text}");
        assert!(
            text.contains("path:       delete /home/u/Downloads/a.pdf"),
            "{text}"
        );
        assert!(text.contains("reversible: NO"), "{text}");
        assert!(confirmation_question(&request).contains("[t] move to Trash"));
        let no_trash = ConfirmationRequest {
            can_trash: false,
            ..request.clone()
        };
        assert!(!confirmation_question(&no_trash).contains("Trash"));
        // A rerun outside the sandbox says, line by line, what the command tried there.
        let rerun = ConfirmationRequest {
            description: "In the sandbox, this command tried to: delete /home/u/a.txt.\nApproving runs it outside the sandbox, where nothing stops what it does.".into(),
            ..request
        };
        let text = confirmation_prompt(&rerun, Paint::PLAIN).join("\n");
        assert!(
            text.contains("effect:     In the sandbox, this command tried to: delete /home/u/a.txt.\n              Approving runs it outside"),
            "{text}"
        );
    }

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
            prev_directive: crate::contracts::PrevDirective::Init,
            directive,
            next_moves,
        }
    }

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
        let end = TaskEnd::Final(final_result(
            TerminalDirective::Accept,
            json!({"largest": "a.pdf", "bytes": 1234}),
            vec![],
        ));
        let text = result_block(&end, "find the largest pdf", &usage(), Paint::PLAIN).join("\n");
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
        let lines = result_block(&TaskEnd::Final(r), "tidy", &Usage::default(), Paint::PLAIN);
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
    fn an_abandon_shows_a_cross_and_numbered_next_moves() {
        let end = TaskEnd::Final(final_result(
            TerminalDirective::Abandon,
            Value::Null,
            vec!["Name the folder".into(), "Allow the shell".into()],
        ));
        let text = result_block(&end, "x", &Usage::default(), Paint::PLAIN).join("\n");
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
    fn clipping_keeps_one_line_and_marks_the_cut() {
        assert_eq!(clip("a\n b\tc", 10), "a b c");
        assert_eq!(clip("abcdefghij", 5), "abcd…");
        assert_eq!(clip("日本語テキスト", 4), "日本語…");
        assert_eq!(clip("abcde", 5), "abcde");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
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
