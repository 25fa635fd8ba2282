//! R1's two prompts — the structured perception call and the fast path's free-text
//! chat — and the user turns built from the session history, the clarifications so far
//! and the numbers code computed.
//!
//! **Invariant:** the system prompts are fixed text after the shared preamble, so the
//! model server's prompt cache holds across requests; everything that varies goes in the
//! user turn.

use crate::calc::computed_lines;
use crate::contracts::{SessionTurn, TaskSubmitted};
use crate::llm::ChatRequest;
use crate::text::first_chars;

/// Session turns shown to the model: the last five.
pub const HISTORY_TURNS: usize = 5;
/// Characters of a previous result's summary shown per turn.
pub const HISTORY_SUMMARY_CHARS: usize = 300;

/// R1's instructions after the shared preamble, in the order the model writes the fields.
const PERCEIVE_RULES: &str = "You are R1, the Perceiver. You receive what the user typed \
and carry it into the system faithfully: you restate the goal; you do not plan it, choose \
tools, or judge whether it can be done. Or, when no tool is needed, you answer it.

intent (always): the user's goal in one sentence, faithfully. Add no assumptions, steps or \
tools; do not narrow or widen it. Keep relative time words as written (today, last week, \
今天). Resolve references (\"it\", \"that file\", \"do it again\") from the session history. \
A complaint about the previous result means: redo it more strictly. An amendment (another \
language, more detail, a table) means: redo the previous request with that change.
kind:
- \"task\": anything about the user's files, folders, apps or system, the web, or a fact \
that can change (weather, news, prices, dates, times). When in doubt: task.
- \"chat\": greetings, thanks, small talk, questions about artoo itself, and questions \
general knowledge answers without any tool: arithmetic, a definition, rewording or \
translating text the user gave. Put the answer in reply.
- \"clarify\": only when no reasonable interpretation exists; put one short question in \
question. Never ask what the session history answers.
reply: with kind chat, the answer itself, short, in the user's language; otherwise null. \
When a line \"Computed by code\" is given, use its numbers.
constraints: deadline (an absolute date or time the user gave, ISO 8601) and scope (where \
the task applies, if the user said); otherwise null.
shape: the kind of answer the user asks for: \"item\" (which one: its name), \"number\" \
(one count, total or value), \"per_group\" (a value for each kind or group), \"list\", \
\"date\", \"yes_no\", \"new_file\" (a file the task writes or creates), \"text\" (a summary or a quote), or \
\"action\" (an action to carry out: the answer is what was done).

Examples:
how many photos did I take last week? → {\"constraints\":{\"deadline\":null,\"scope\":null},\
\"intent\":\"Count the photos the user took last week\",\"kind\":\"task\",\"question\":null,\
\"reply\":null,\"shape\":\"number\"}
what is 12 * 12? → {\"constraints\":{\"deadline\":null,\"scope\":null},\"intent\":\
\"Compute 12 * 12\",\"kind\":\"chat\",\"question\":null,\"reply\":\"12 * 12 = 144\",\
\"shape\":\"number\"}";

/// R1's system prompt: the shared preamble, then R1's rules.
pub fn perceive_system(preamble: &str) -> String {
    format!("{preamble}\n{PERCEIVE_RULES}")
}

/// The fast path's system prompt (the code pre-filter found a greeting or a question
/// about artoo).
pub fn chat_system(preamble: &str) -> String {
    format!(
        "{preamble}\nYou are artoo. It finds, reads and writes files, runs shell commands, \
controls apps and searches the web, and asks before anything irreversible. The user greeted \
you or asked about you. Reply briefly and warmly, in the user's language, as plain text. Do \
not claim to have done anything. For anything that needs the user's files, apps or current \
information, say you can do it as a task if they ask for it."
    )
}

/// A reply's generation cap for R1: an intent, or a short answer.
pub const PERCEIVE_MAX_TOKENS: u32 = 300;

pub(super) fn history_block(history: &[SessionTurn]) -> String {
    if history.is_empty() {
        return "Session history: (none)".into();
    }
    let start = history.len().saturating_sub(HISTORY_TURNS);
    let mut out = String::from("Session history (oldest first):");
    for (i, turn) in history[start..].iter().enumerate() {
        out.push_str(&format!(
            "\n[{}] User: {}\n    Result: {}",
            i + 1,
            turn.input.trim(),
            first_chars(turn.summary.trim(), HISTORY_SUMMARY_CHARS)
        ));
    }
    out
}

/// One clarification round: the question asked and the user's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clarification {
    /// The question R1 asked, as shown to the user.
    pub question: String,
    /// The user's answer, as typed.
    pub answer: String,
}

/// The request of R1's structured call. `may_ask` is false after the last round.
pub fn perception_request(
    submitted: &TaskSubmitted,
    clarifications: &[Clarification],
    may_ask: bool,
    preamble: &str,
) -> ChatRequest {
    let mut user = history_block(&submitted.session_history);
    if !clarifications.is_empty() {
        user.push_str("\n\nClarifications so far:");
        for c in clarifications {
            user.push_str(&format!("\nQ: {}\nA: {}", c.question, c.answer));
        }
    }
    user.push_str(&format!("\n\nUser input:\n{}", submitted.raw_input));
    for line in computed_lines(&submitted.raw_input) {
        user.push_str(&format!("\n{line}"));
    }
    if !may_ask {
        user.push_str(
            "\n\nYou may not ask any more questions: choose the best interpretation. kind must \
be \"task\" or \"chat\".",
        );
    }
    ChatRequest::new(perceive_system(preamble), user)
        .temperature(0.0)
        .max_tokens(PERCEIVE_MAX_TOKENS)
}

/// The fast path's request.
pub fn chat_request(submitted: &TaskSubmitted, preamble: &str) -> ChatRequest {
    let user = format!(
        "{}\n\nUser: {}",
        history_block(&submitted.session_history),
        submitted.raw_input.trim()
    );
    ChatRequest::new(chat_system(preamble), user).max_tokens(PERCEIVE_MAX_TOKENS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_shows_the_last_five_turns_with_clipped_results() {
        let history: Vec<SessionTurn> = (1..=7)
            .map(|i| SessionTurn {
                input: format!("input {i}"),
                summary: "x".repeat(400),
            })
            .collect();
        let block = history_block(&history);
        assert!(
            !block.contains("input 2") && block.contains("input 3") && block.contains("input 7")
        );
        assert!(block.contains(&format!("Result: {}", "x".repeat(HISTORY_SUMMARY_CHARS))));
        assert!(!block.contains(&"x".repeat(HISTORY_SUMMARY_CHARS + 1)));
    }
}
