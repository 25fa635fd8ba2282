//! The Dreamer's distiller over the brain tier: a cluster of Megrams becomes one
//! actionable rule, written by the model and bounded by code.
//!
//! **Invariant:** a distillation is one or two sentences of plain text, never empty and
//! never longer than [`MAX_RULE_CHARS`]; anything else is a `DistillError`, so the Dreamer
//! keeps the source Megrams instead of storing a bad rule.

use std::fmt::Write as _;

use tokio_util::sync::CancellationToken;

use crate::llm::{CallCtx, ChatRequest, RoleLlm};
use crate::memory::{DistillError, DistillFuture, DistillRequest, Distillation, Distiller};

/// The longest rule kept (two sentences of a few dozen words each).
pub const MAX_RULE_CHARS: usize = 400;

/// The longest excerpt of one source Megram put in the prompt.
const SOURCE_EXCERPT_CHARS: usize = 300;

/// Distils with the model behind R5's tier (the brain tier); its calls are published as
/// R5's `LlmCall`s like every other model call.
pub struct LlmDistiller {
    llm: RoleLlm,
    cancel: CancellationToken,
}

/// The distiller's fixed instructions (the memory role's calls).
pub fn instructions() -> crate::llm::Instructions {
    crate::llm::Instructions::plain(crate::contracts::Role::Memory, SYSTEM)
}

impl LlmDistiller {
    /// `cancel` stops a distillation in flight when the runtime shuts down.
    pub fn new(llm: RoleLlm, cancel: CancellationToken) -> Self {
        Self { llm, cancel }
    }

    async fn distil_now(&self, request: &DistillRequest) -> Result<String, DistillError> {
        let reply = self
            .llm
            .chat(
                &CallCtx::background(self.cancel.clone()),
                &ChatRequest::new(SYSTEM, prompt(request)).temperature(0.0),
            )
            .await
            .map_err(|e| DistillError(e.to_string()))?;
        rule_from(&reply.answer())
    }
}

impl Distiller for LlmDistiller {
    fn distil<'a>(&'a self, request: &'a DistillRequest) -> DistillFuture<'a> {
        Box::pin(self.distil_now(request))
    }
}

const SYSTEM: &str = "You consolidate the experience of a local task agent into one rule. \
You are given several records of what happened when the agent worked on the same kind of \
task. Write ONE actionable rule in one or two short sentences, in the imperative, naming \
the concrete tool, command, path or approach the records show. Do not invent details that \
are not in the records. Answer with the rule only: no preface, no list, no quotes.";

/// The user message: what kind of rule, the group, and the records newest first.
pub fn prompt(request: &DistillRequest) -> String {
    let kind = match request.kind {
        Distillation::BestPractice => {
            "These records mostly ended well: write the best practice to prefer."
        }
        Distillation::Constraint => {
            "These records mostly ended badly: write the constraint — what must not be done \
             again, and what to do instead if the records show it."
        }
    };
    let mut out = format!(
        "{kind}\nTask kind: {} / {}\nRecords (newest first):\n",
        request.space, request.entity
    );
    for (i, m) in request.sources.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. [{}] {}",
            i + 1,
            m.state,
            excerpt(&m.content, SOURCE_EXCERPT_CHARS)
        );
    }
    out
}

fn excerpt(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// The rule in a model's answer: the first paragraph, unquoted, bounded.
pub fn rule_from(answer: &str) -> Result<String, DistillError> {
    let first = answer
        .trim()
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().trim_start_matches(['-', '*', '•']).trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let first = first.trim();
    let rule = first
        .strip_prefix("Rule:")
        .or_else(|| first.strip_prefix("rule:"))
        .unwrap_or(first)
        .trim()
        .trim_matches(['"', '\'', '`', '“', '”'])
        .trim();
    if rule.chars().filter(|c| c.is_alphanumeric()).count() < 8 {
        return Err(DistillError(format!(
            "the model gave no usable rule: {:?}",
            excerpt(answer, 80)
        )));
    }
    if rule.chars().count() > MAX_RULE_CHARS {
        return Err(DistillError(format!(
            "the model's rule is longer than {MAX_RULE_CHARS} characters"
        )));
    }
    Ok(rule.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_is_taken_from_the_first_paragraph_without_quotes_or_label() {
        assert_eq!(
            rule_from("Rule: \"Use ffmpeg -vn to extract audio.\"\n\nBecause it worked.").unwrap(),
            "Use ffmpeg -vn to extract audio."
        );
        assert_eq!(
            rule_from("- Never delete files outside the workspace.").unwrap(),
            "Never delete files outside the workspace."
        );
    }

    #[test]
    fn an_empty_or_overlong_answer_is_not_a_rule() {
        assert!(rule_from("  ").is_err());
        assert!(rule_from("ok.").is_err());
        assert!(rule_from(&"word ".repeat(200)).is_err());
    }
}
