//! R1's pure decisions, message in → decision out, with no model and no bus: the code
//! pre-filter ([`route`]), the first step on a request ([`opening`]), what to do with a
//! perception ([`verdict`]), the rules a perception must pass ([`Perception::check`]),
//! and the intent when the model gave none ([`fallback_intent`]).
//!
//! **Invariant:** a request the pre-filter finds needs tools is never answered as chat,
//! whatever the model says; words match whole words only, so "brunch" is not "run".

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::prompt::Clarification;
use super::schema::{Kind, PerceivedConstraints, Perception};
use super::vocabulary::{
    ABOUT_ARTOO, ACTION_VERBS, CJK_TOOL_MARKERS, GREETINGS, TIME_WORDS, TOOL_NOUNS, TOOL_PHRASES,
};
use crate::contracts::{Constraints, SessionTurn};
use crate::text::is_cjk;

/// What the code pre-filter decides before any model call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Route {
    /// Certainly conversational: answered in one free-text call.
    Chat,
    /// Needs tools or fresh data: never a chat reply, whatever the model says.
    NeedsTools,
    /// The structured call's `kind` decides.
    Undecided,
}

/// Normalised text: NFKC, lower case, curly apostrophes folded.
fn normalise(input: &str) -> String {
    input
        .nfkc()
        .flat_map(char::to_lowercase)
        .map(|c| if c == '’' || c == '‘' { '\'' } else { c })
        .collect()
}

/// Words of normalised text: runs of letters and digits (an apostrophe splits, so
/// "what's" is "what s").
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether the word sequence `phrase` occurs in `ws`.
fn has_phrase(ws: &[&str], phrase: &str) -> bool {
    let p = words(phrase);
    !p.is_empty() && ws.windows(p.len()).any(|w| w == p.as_slice())
}

fn verb_form(word: &str) -> bool {
    ACTION_VERBS.iter().any(|v| {
        word == *v
            || word.strip_suffix('s') == Some(v)
            || word.strip_suffix("es") == Some(v)
            || word.strip_suffix("ing") == Some(v)
            || word.strip_suffix("ed") == Some(v)
            || word.strip_suffix('d') == Some(v)
    })
}

/// A path, a URL or a file name with an extension.
fn names_a_place(text: &str) -> bool {
    if [
        "~/",
        "/users/",
        "/home/",
        "/volumes/",
        "./",
        "../",
        "http://",
        "https://",
        "www.",
    ]
    .iter()
    .any(|m| text.contains(m))
    {
        return true;
    }
    text.split_whitespace().any(|token| {
        let token =
            token.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '_' && c != '-');
        match token.rsplit_once('.') {
            Some((stem, ext)) => {
                !stem.is_empty()
                    && !stem.ends_with('.')
                    && (1..=5).contains(&ext.len())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
                    && ext.chars().any(|c| c.is_ascii_alphabetic())
                    && !matches!(token, "e.g" | "i.e" | "etc" | "vs" | "p.s")
            }
            None => false,
        }
    })
}

fn needs_tools(text: &str, ws: &[&str]) -> bool {
    names_a_place(text)
        || ws.iter().any(|w| verb_form(w) || TOOL_NOUNS.contains(w))
        || TOOL_PHRASES.iter().any(|p| has_phrase(ws, p))
        || CJK_TOOL_MARKERS.iter().any(|m| text.contains(m))
}

/// The rest of the input after an opening greeting and the assistant's name.
fn strip_opening<'a>(mut ws: &'a [&'a str]) -> &'a [&'a str] {
    loop {
        let before = ws.len();
        if let Some(rest) = ws.strip_prefix(&["artoo"]) {
            ws = rest;
        }
        for g in GREETINGS {
            let g = words(g);
            if ws.starts_with(&g) {
                ws = &ws[g.len()..];
                break;
            }
        }
        if ws.len() == before {
            return ws;
        }
    }
}

/// The code pre-filter (see the module docs).
pub fn route(input: &str) -> Route {
    let text = normalise(input.trim());
    let ws = words(&text);
    if ws.is_empty() {
        return Route::Undecided;
    }
    let mut rest = strip_opening(&ws);
    if let Some(r) = rest.strip_suffix(&["artoo"]) {
        rest = r;
    }
    let rest_text = rest.join(" ");
    // CJK runs have no spaces: a greeting glued to what follows ("你好你是谁") is split here.
    let glued = GREETINGS
        .iter()
        .filter(|g| g.chars().any(is_cjk))
        .find_map(|g| rest_text.strip_prefix(g));
    let is_chat = |t: &str| t.is_empty() || ABOUT_ARTOO.contains(&t);
    if is_chat(&rest_text) || glued.is_some_and(is_chat) {
        return Route::Chat;
    }
    if needs_tools(&text, &ws) {
        Route::NeedsTools
    } else {
        Route::Undecided
    }
}

/// What R1 does with a request before any model call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opening {
    /// Nothing was typed: a reply asking for input, and no model call.
    Empty,
    /// A greeting or a question about artoo: one free-text call answers it.
    Chat,
    /// A request that names what to act on, with no earlier turn to resolve: its own
    /// words (whitespace folded) are the intent, and no model call is made.
    Verbatim(String),
    /// The structured call decides, under this pre-filter verdict.
    Perceive(Route),
}

/// The first decision on a submitted request.
pub fn opening(raw_input: &str, history: &[SessionTurn]) -> Opening {
    if raw_input.trim().is_empty() {
        return Opening::Empty;
    }
    let route = route(raw_input);
    if route == Route::Chat {
        return Opening::Chat;
    }
    if route == Route::NeedsTools && history.is_empty() {
        // The user's own words are the most faithful restatement, and a model call would
        // only paraphrase them (at a cost of seconds on a local model).
        let intent = raw_input.split_whitespace().collect::<Vec<_>>().join(" ");
        return Opening::Verbatim(intent);
    }
    Opening::Perceive(route)
}

/// What R1 does with a perception the model gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Answer the user with this text.
    Reply(String),
    /// Ask the user this question, then perceive again.
    Ask(String),
    /// Forward the perception to R2 as a `TaskSpec`.
    Forward,
}

/// The decision on a perception: a chat verdict never stands for a request the
/// pre-filter found needs tools, and a question is asked only while `may_ask`.
pub fn verdict(route: Route, perception: &Perception, may_ask: bool) -> Verdict {
    match perception.kind {
        Kind::Chat if route != Route::NeedsTools => {
            Verdict::Reply(non_blank(&perception.reply).unwrap_or_default().to_string())
        }
        Kind::Clarify if may_ask => Verdict::Ask(
            non_blank(&perception.question)
                .unwrap_or_default()
                .to_string(),
        ),
        _ => Verdict::Forward,
    }
}

/// The constraints R2 receives: the model's, blanks dropped.
pub fn constraints_of(perceived: &PerceivedConstraints) -> Constraints {
    Constraints {
        scope: non_blank(&perceived.scope).map(str::to_string),
        deadline: non_blank(&perceived.deadline).map(str::to_string),
    }
}

pub(super) fn non_blank(text: &Option<String>) -> Option<&str> {
    text.as_deref().map(str::trim).filter(|t| !t.is_empty())
}

fn holds_time_word(text: &str, ws: &[&str], word: &str) -> bool {
    if word.chars().any(is_cjk) {
        text.contains(word)
    } else {
        has_phrase(ws, word)
    }
}

/// The relative time words of `raw` the intent dropped.
pub fn dropped_time_words(raw: &str, intent: &str) -> Vec<&'static str> {
    let raw_n = normalise(raw);
    let raw_ws = words(&raw_n);
    let intent_n = normalise(intent);
    let intent_ws = words(&intent_n);
    TIME_WORDS
        .iter()
        .filter(|group| group.iter().any(|w| holds_time_word(&raw_n, &raw_ws, w)))
        .filter(|group| {
            !group
                .iter()
                .any(|w| holds_time_word(&intent_n, &intent_ws, w))
        })
        .filter_map(|group| {
            group
                .iter()
                .find(|w| holds_time_word(&raw_n, &raw_ws, w))
                .copied()
        })
        .collect()
}

/// An ISO 8601 date or date-time.
pub fn is_iso8601(text: &str) -> bool {
    let t = text.trim();
    DateTime::parse_from_rfc3339(t).is_ok()
        || NaiveDate::parse_from_str(t, "%Y-%m-%d").is_ok()
        || NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S").is_ok()
        || NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M").is_ok()
}

impl Perception {
    /// The rules the schema cannot express; a violation is quoted back in the re-ask.
    pub fn check(&self, raw_input: &str) -> Result<(), String> {
        if self.intent.trim().is_empty() {
            return Err("intent must restate the user's goal; it is empty".into());
        }
        match self.kind {
            Kind::Chat if non_blank(&self.reply).is_none() => {
                return Err("kind is chat, so reply must hold the answer".into());
            }
            Kind::Clarify if non_blank(&self.question).is_none() => {
                return Err("kind is clarify, so question must hold it".into());
            }
            _ => {}
        }
        if let Some(deadline) = non_blank(&self.constraints.deadline)
            && !is_iso8601(deadline)
        {
            return Err(format!(
                "constraints.deadline \"{deadline}\" is not an ISO 8601 date; use null and keep the user's time words in the intent"
            ));
        }
        // Whatever the kind: code may override a chat verdict and forward this intent.
        let dropped = dropped_time_words(raw_input, &self.intent);
        if !dropped.is_empty() {
            return Err(format!(
                "the intent dropped the user's time words ({}); keep them exactly as written",
                dropped.join(", ")
            ));
        }
        Ok(())
    }
}

/// The intent when the model gave none: the user's words, with any clarification they
/// gave — faithful by construction.
pub(super) fn fallback_intent(raw_input: &str, clarifications: &[Clarification]) -> String {
    let mut intent = raw_input.trim().to_string();
    let answers: Vec<String> = clarifications
        .iter()
        .map(|c| format!("{} — {}", c.question.trim(), c.answer.trim()))
        .collect();
    if !answers.is_empty() {
        intent.push_str(&format!(" (clarified: {})", answers.join("; ")));
    }
    intent
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perception(kind: Kind) -> Perception {
        Perception {
            constraints: PerceivedConstraints::default(),
            intent: "Say hello".into(),
            kind,
            question: Some(" Which one? ".into()),
            reply: Some(" Hello! ".into()),
            shape: Default::default(),
        }
    }

    #[test]
    fn empty_greeting_and_named_requests_are_decided_before_any_model_call() {
        assert_eq!(opening("  ", &[]), Opening::Empty);
        assert_eq!(opening("hi", &[]), Opening::Chat);
        assert_eq!(
            opening("run  the backup\tscript", &[]),
            Opening::Verbatim("run the backup script".into())
        );
        let history = [SessionTurn {
            input: "x".into(),
            summary: "y".into(),
        }];
        assert_eq!(
            opening("run the backup script", &history),
            Opening::Perceive(Route::NeedsTools)
        );
        assert_eq!(
            opening("any brunch ideas?", &[]),
            Opening::Perceive(Route::Undecided)
        );
    }

    #[test]
    fn a_chat_verdict_never_stands_for_a_request_that_needs_tools() {
        let chat = perception(Kind::Chat);
        assert_eq!(
            verdict(Route::Undecided, &chat, true),
            Verdict::Reply("Hello!".into())
        );
        assert_eq!(verdict(Route::NeedsTools, &chat, true), Verdict::Forward);
    }

    #[test]
    fn a_question_is_asked_only_while_rounds_remain() {
        let clarify = perception(Kind::Clarify);
        assert_eq!(
            verdict(Route::Undecided, &clarify, true),
            Verdict::Ask("Which one?".into())
        );
        assert_eq!(verdict(Route::Undecided, &clarify, false), Verdict::Forward);
        assert_eq!(
            verdict(Route::Undecided, &perception(Kind::Task), true),
            Verdict::Forward
        );
    }

    #[test]
    fn whole_words_only_so_brunch_is_not_run() {
        assert_eq!(route("any brunch ideas for sunday?"), Route::Undecided);
        assert_eq!(route("run the backup script"), Route::NeedsTools);
    }

    #[test]
    fn greetings_and_questions_about_artoo_are_chat() {
        for input in [
            "hi",
            "Hello!",
            "hey artoo, who are you?",
            "Thanks!",
            "你好",
            "你好，你是谁？",
            "Good morning artoo! How are you today?",
        ] {
            assert_eq!(route(input), Route::Chat, "{input}");
        }
    }

    #[test]
    fn the_go_filters_false_positives_now_need_tools() {
        for input in [
            "what's the weather today",
            "is it raining in Paris",
            "what time is it",
            "hi, what's the weather like?",
            "what can you do with my Downloads folder",
            "今天天气怎么样",
        ] {
            assert_eq!(route(input), Route::NeedsTools, "{input}");
        }
    }

    #[test]
    fn dropped_time_words_are_found_across_languages() {
        assert_eq!(
            dropped_time_words(
                "remind me tomorrow to call Ann",
                "Remind the user to call Ann"
            ),
            vec!["tomorrow"]
        );
        assert!(dropped_time_words("what's on today", "Show today's calendar").is_empty());
        assert!(dropped_time_words("查看今天的天气", "Check the weather for today").is_empty());
        assert!(dropped_time_words("list files", "List the files").is_empty());
    }

    #[test]
    fn a_perception_must_keep_time_words_and_iso_deadlines() {
        let mut p = Perception {
            kind: Kind::Task,
            question: None,
            constraints: PerceivedConstraints::default(),
            intent: "Summarise the meeting notes".into(),
            reply: None,
            shape: Default::default(),
        };
        assert!(
            p.check("summarise yesterday's meeting notes")
                .unwrap_err()
                .contains("yesterday")
        );
        p.intent = "Summarise yesterday's meeting notes".into();
        assert_eq!(p.check("summarise yesterday's meeting notes"), Ok(()));
        p.constraints.deadline = Some("Friday".into());
        assert!(p.check("x").unwrap_err().contains("ISO 8601"));
        p.constraints.deadline = Some("2026-03-01T17:00".into());
        assert_eq!(p.check("x"), Ok(()));
        p.kind = Kind::Chat;
        assert!(p.check("x").unwrap_err().contains("reply"));
    }

    #[test]
    fn the_fallback_intent_is_the_users_words() {
        let c = vec![Clarification {
            question: "Which folder?".into(),
            answer: "~/Notes".into(),
        }];
        assert_eq!(
            fallback_intent(" count my notes ", &c),
            "count my notes (clarified: Which folder? — ~/Notes)"
        );
    }
}
