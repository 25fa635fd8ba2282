//! R1 Perceiver (seed 003 "R1"): carries the user's signal into the system with full
//! fidelity. Consumes `TaskSubmitted` (raw input + the session history the entry point
//! keeps) and publishes exactly one of:
//! - a `TaskSpec` to R2 — its `task_id` is the runtime's and its `raw_input` is the
//!   submitted text, both set by code; the model writes only the intent and constraints;
//! - a `ChatReply` to the user — the conversational fast path (greetings, thanks, small
//!   talk, questions about artoo itself), answered in one model call.
//!
//! **The fast path.** A code pre-filter ([`route`]) decides first:
//! [`Route::Chat`] when the whole input is a greeting or a question about artoo from a
//! fixed list (then one free-text call answers it); [`Route::NeedsTools`] when the input
//! names files, folders, paths, URLs, apps, an action verb or anything that changes over
//! time (weather, news, prices, "today"); otherwise [`Route::Undecided`]. On the normal
//! path R1 makes one structured call ([`Perception`]) whose `kind` lets the model
//! recognise paraphrased small talk — but a `NeedsTools` input can never become a chat
//! reply: code overrides the model. Words are matched as whole words (the Go filter
//! matched substrings, so "brunch" contained "run"), and the Go filter's "short question
//! ⇒ chat" rule is gone (it answered "what's the weather today" without tools).
//!
//! **Clarification.** Only when the model finds no reasonable interpretation: a
//! `ClarificationRequest` to the user through `BusHandle::request`, at most
//! `budgets.clarification_rounds` rounds. An empty answer, a timeout or a closed bus means
//! "proceed" — with the interpretation the model already gave, so no extra call. After
//! the last round the model is told it may not ask again. An empty TaskSpec is never
//! published: the intent is required, and if the model fails altogether the user's own
//! words become the intent.
//!
//! **Invariant:** one `TaskSubmitted` yields at most one `TaskSpec` or `ChatReply` (and
//! nothing at all once the task is cancelled), and R1 never writes `task_id` or
//! `raw_input` from model output.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use unicode_normalization::UnicodeNormalization;

use crate::bus::{Bus, BusHandle, Inbox};
use crate::cancel::Cancellations;
use crate::config::Config;
use crate::contracts::{
    ChatReply, ClarificationRequest, Constraints, Message, Role, SessionTurn, TaskSpec,
    TaskSubmitted,
};
use crate::llm::{CallCtx, ChatRequest, Llm, LlmError, RoleLlm};
use crate::roles::preamble::{machine_facts, preamble};
use crate::text::first_chars;

/// How long R1 waits for the user's answer to a clarifying question before proceeding.
pub const CLARIFICATION_TIMEOUT: Duration = Duration::from_secs(120);
/// Session turns shown to the model (seed 003: the last five).
pub const HISTORY_TURNS: usize = 5;
/// Characters of a previous result's summary shown per turn.
pub const HISTORY_SUMMARY_CHARS: usize = 300;

// ---------------------------------------------------------------------------------------
// The code pre-filter.

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

/// Greetings, thanks and farewells: the input may open with one of these.
const GREETINGS: &[&str] = &[
    "good morning",
    "good afternoon",
    "good evening",
    "good night",
    "thank you very much",
    "thank you",
    "thanks a lot",
    "many thanks",
    "thanks",
    "thx",
    "hello there",
    "hello",
    "hi there",
    "hiya",
    "hi",
    "hey there",
    "hey",
    "howdy",
    "yo",
    "greetings",
    "bye",
    "goodbye",
    "good bye",
    "see you",
    "see ya",
    "cheers",
    "ok",
    "okay",
    "cool",
    "great",
    "nice",
    "你好",
    "您好",
    "嗨",
    "早上好",
    "晚上好",
    "谢谢你",
    "谢谢",
    "多谢",
    "再见",
    "拜拜",
];

/// Whole remainders (after an opening greeting and the name) that are small talk or a
/// question about artoo itself.
const ABOUT_ARTOO: &[&str] = &[
    "how are you",
    "how are you today",
    "how are you doing",
    "how is it going",
    "how s it going",
    "how s your day",
    "how have you been",
    "what s up",
    "whats up",
    "sup",
    "who are you",
    "what are you",
    "what is your name",
    "what s your name",
    "whats your name",
    "who made you",
    "who built you",
    "who created you",
    "introduce yourself",
    "tell me about yourself",
    "what can you do",
    "what can you help me with",
    "what do you do",
    "how do you work",
    "how can you help",
    "how can you help me",
    "what are your capabilities",
    "are you there",
    "are you a robot",
    "are you an ai",
    "are you local",
    "do you run locally",
    "what are the four laws",
    "what are your laws",
    "nice to meet you",
    "you are great",
    "you re great",
    "good job",
    "well done",
    "你是谁",
    "你叫什么",
    "你叫什么名字",
    "你能做什么",
    "你会做什么",
    "你好吗",
    "介绍一下你自己",
    "介绍一下自己",
];

/// Verbs that ask for something to be done (whole words; `-s`, `-ing`, `-ed` forms too).
const ACTION_VERBS: &[&str] = &[
    "find",
    "search",
    "look",
    "locate",
    "open",
    "list",
    "show",
    "delete",
    "remove",
    "erase",
    "create",
    "write",
    "read",
    "count",
    "download",
    "upload",
    "install",
    "uninstall",
    "run",
    "execute",
    "launch",
    "check",
    "remind",
    "schedule",
    "send",
    "email",
    "move",
    "copy",
    "rename",
    "convert",
    "compress",
    "zip",
    "unzip",
    "extract",
    "summarize",
    "summarise",
    "play",
    "organize",
    "organise",
    "clean",
    "backup",
    "sync",
    "fetch",
    "browse",
    "google",
    "sort",
    "grep",
    "scan",
    "print",
    "save",
    "edit",
    "modify",
    "update",
    "replace",
    "kill",
    "restart",
    "mute",
    "book",
    "order",
    "buy",
    "compute",
    "calculate",
    "measure",
    "monitor",
    "translate",
];

/// Nouns and adjectives of things on the machine or that change over time.
const TOOL_NOUNS: &[&str] = &[
    "file",
    "files",
    "folder",
    "folders",
    "directory",
    "directories",
    "downloads",
    "desktop",
    "documents",
    "disk",
    "drive",
    "storage",
    "pdf",
    "pdfs",
    "photo",
    "photos",
    "picture",
    "pictures",
    "image",
    "images",
    "video",
    "videos",
    "movie",
    "movies",
    "music",
    "song",
    "songs",
    "screenshot",
    "screenshots",
    "app",
    "apps",
    "application",
    "applications",
    "calendar",
    "reminder",
    "reminders",
    "mail",
    "inbox",
    "message",
    "messages",
    "contact",
    "contacts",
    "battery",
    "wifi",
    "cpu",
    "process",
    "processes",
    "clipboard",
    "browser",
    "safari",
    "chrome",
    "finder",
    "terminal",
    "repo",
    "repository",
    "spreadsheet",
    "csv",
    "weather",
    "forecast",
    "temperature",
    "rain",
    "raining",
    "snow",
    "snowing",
    "sunny",
    "cloudy",
    "windy",
    "cold",
    "hot",
    "warm",
    "storm",
    "news",
    "headline",
    "headlines",
    "price",
    "prices",
    "stock",
    "stocks",
    "score",
    "scores",
    "exchange",
    "bitcoin",
    "traffic",
    "flight",
    "flights",
    "today",
    "tonight",
    "tomorrow",
    "yesterday",
    "currently",
    "current",
    "latest",
    "recent",
    "recently",
    "website",
    "web",
    "online",
    "internet",
    "url",
];

/// Phrases about time or the clock (matched as whole word sequences).
const TOOL_PHRASES: &[&str] = &[
    "what time",
    "what day",
    "what date",
    "the time",
    "right now",
    "this week",
    "next week",
    "last week",
    "this weekend",
    "look up",
];

/// CJK markers of tool work or fresh data (matched as substrings: no word boundaries).
const CJK_TOOL_MARKERS: &[&str] = &[
    "天气",
    "气温",
    "下雨",
    "新闻",
    "股价",
    "股票",
    "价格",
    "汇率",
    "今天",
    "明天",
    "昨天",
    "今晚",
    "现在几点",
    "几点",
    "日期",
    "文件",
    "目录",
    "下载",
    "桌面",
    "文档",
    "图片",
    "照片",
    "视频",
    "音乐",
    "邮件",
    "日历",
    "提醒",
    "查找",
    "搜索",
    "找",
    "打开",
    "删除",
    "创建",
    "写",
    "读",
    "统计",
    "运行",
    "执行",
    "安装",
    "发送",
    "移动",
    "复制",
    "重命名",
    "转换",
    "压缩",
    "播放",
    "检查",
    "查看",
    "整理",
    "备份",
    "计算",
    "网上",
    "网站",
];

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

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF)
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

// ---------------------------------------------------------------------------------------
// The model's part.

/// What the input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Something to do or find out.
    Task,
    /// Greetings, small talk, questions about artoo, and questions general knowledge
    /// answers without a tool (arithmetic, a definition, rewording given text).
    Chat,
    /// No reasonable interpretation exists without asking.
    Clarify,
}

/// Scope and deadline, as the user gave them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PerceivedConstraints {
    /// An absolute date or time the user gave, in ISO 8601; otherwise null.
    #[serde(default)]
    pub deadline: Option<String>,
    /// Where the task applies, only if the user said so; otherwise null.
    #[serde(default)]
    pub scope: Option<String>,
}

/// R1's one structured call. Properties are written in alphabetical order (see
/// docs/llm.md), so the model restates the goal (`constraints`, `intent`) before it
/// decides what the input is (`kind`), and only then writes a `question` or a `reply`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Perception {
    #[serde(default)]
    pub constraints: PerceivedConstraints,
    /// Always: the user's goal, faithfully restated in one sentence.
    pub intent: String,
    /// task, chat or clarify.
    pub kind: Kind,
    /// Only with kind clarify: one short question; otherwise null.
    #[serde(default)]
    pub question: Option<String>,
    /// Only with kind chat: the short answer to the user; otherwise null.
    #[serde(default)]
    pub reply: Option<String>,
}

fn non_blank(text: &Option<String>) -> Option<&str> {
    text.as_deref().map(str::trim).filter(|t| !t.is_empty())
}

/// Relative time words and their equivalents across languages: if the input holds one,
/// the intent must hold one of its group (R2 owns dates, digest #57).
const TIME_WORDS: &[&[&str]] = &[
    &["today", "今天", "今日"],
    &["tonight", "今晚", "今夜"],
    &["tomorrow", "明天", "明日"],
    &["yesterday", "昨天", "昨日"],
    &["day after tomorrow", "后天"],
    &["weekend", "周末"],
    &["next week", "下周", "下星期"],
    &["last week", "上周", "上星期"],
    &["this week", "本周", "这周"],
    &["next month", "下个月"],
    &["last month", "上个月"],
    &["this month", "本月", "这个月"],
];

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

Examples:
how many photos did I take last week? → {\"constraints\":{\"deadline\":null,\"scope\":null},\
\"intent\":\"Count the photos the user took last week\",\"kind\":\"task\",\"question\":null,\
\"reply\":null}
what is 12 * 12? → {\"constraints\":{\"deadline\":null,\"scope\":null},\"intent\":\
\"Compute 12 * 12\",\"kind\":\"chat\",\"question\":null,\"reply\":\"12 * 12 = 144\"}";

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

// ---------------------------------------------------------------------------------------
// Arithmetic the code computes, so a small model's answer quotes numbers it did not
// have to work out (Law 0: a number in an answer comes from a computation).

/// The arithmetic expressions in `text` with their values, as lines for the prompt.
pub fn computed_lines(text: &str) -> Vec<String> {
    let normalised: String = text
        .chars()
        .map(|c| match c {
            '×' | '✕' => '*',
            '÷' => '/',
            '－' | '−' => '-',
            '＋' => '+',
            '（' => '(',
            '）' => ')',
            c => c,
        })
        .collect();
    let mut out = Vec::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut Vec<String>| {
        let expr = run
            .trim()
            .trim_end_matches(['+', '-', '*', '/', '^', '%'])
            .trim();
        let operators = expr
            .char_indices()
            .filter(|(i, c)| "+*/^%".contains(*c) || (*c == '-' && *i > 0))
            .count();
        let numbers = expr
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|n| !n.is_empty())
            .count();
        if operators >= 1
            && numbers >= 2
            && out.len() < 3
            && let Some(value) = arith::eval(expr)
        {
            out.push(format!("Computed by code: {expr} = {}", arith::show(value)));
        }
        run.clear();
    };
    for c in normalised.chars() {
        let part_of_expr =
            c.is_ascii_digit() || "+-*/^%().".contains(c) || (c == ' ' && !run.is_empty());
        if part_of_expr {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out
}

mod arith {
    //! A small recursive-descent evaluator: + - * / % ^, unary minus, parentheses.

    pub fn eval(expr: &str) -> Option<f64> {
        let tokens: Vec<char> = expr.chars().filter(|c| !c.is_whitespace()).collect();
        let mut p = Parser {
            tokens,
            at: 0,
            depth: 0,
        };
        let v = p.sum()?;
        (p.at == p.tokens.len() && v.is_finite()).then_some(v)
    }

    /// An integer without a fraction; otherwise up to 6 decimals, trailing zeros cut.
    pub fn show(v: f64) -> String {
        if v.fract() == 0.0 && v.abs() < 1e15 {
            format!("{}", v as i64)
        } else {
            let s = format!("{v:.6}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    }

    struct Parser {
        tokens: Vec<char>,
        at: usize,
        depth: u32,
    }

    impl Parser {
        fn peek(&self) -> Option<char> {
            self.tokens.get(self.at).copied()
        }

        fn sum(&mut self) -> Option<f64> {
            let mut v = self.product()?;
            while let Some(op @ ('+' | '-')) = self.peek() {
                self.at += 1;
                let r = self.product()?;
                v = if op == '+' { v + r } else { v - r };
            }
            Some(v)
        }

        fn product(&mut self) -> Option<f64> {
            let mut v = self.power()?;
            while let Some(op @ ('*' | '/' | '%')) = self.peek() {
                self.at += 1;
                let r = self.power()?;
                v = match op {
                    '*' => v * r,
                    '/' if r != 0.0 => v / r,
                    '%' if r != 0.0 => v % r,
                    _ => return None,
                };
            }
            Some(v)
        }

        fn power(&mut self) -> Option<f64> {
            let base = self.unary()?;
            if self.peek() == Some('^') {
                self.at += 1;
                let exp = self.power()?;
                return Some(base.powf(exp));
            }
            Some(base)
        }

        fn unary(&mut self) -> Option<f64> {
            if self.peek() == Some('-') {
                self.at += 1;
                return Some(-self.unary()?);
            }
            self.atom()
        }

        fn atom(&mut self) -> Option<f64> {
            if self.peek() == Some('(') {
                self.depth += 1;
                if self.depth > 32 {
                    return None;
                }
                self.at += 1;
                let v = self.sum()?;
                if self.peek() != Some(')') {
                    return None;
                }
                self.at += 1;
                self.depth -= 1;
                return Some(v);
            }
            let start = self.at;
            while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
                self.at += 1;
            }
            let text: String = self.tokens[start..self.at].iter().collect();
            text.parse().ok()
        }
    }
}

fn history_block(history: &[SessionTurn]) -> String {
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
    pub question: String,
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

// ---------------------------------------------------------------------------------------
// The role.

/// R1 wired to the bus.
pub struct Perceiver {
    inbox: Inbox,
    shared: Arc<Shared>,
}

struct Shared {
    bus: BusHandle,
    llm: RoleLlm,
    cancellations: Cancellations,
    clarification_rounds: u32,
    clarification_timeout: Duration,
    home: PathBuf,
    workspace: PathBuf,
}

impl Perceiver {
    /// Subscribes now, so nothing addressed to R1 after this call is missed.
    pub fn new(
        config: &Config,
        bus: &Bus,
        llm: &Llm,
        cancellations: Cancellations,
    ) -> Result<Self, LlmError> {
        let handle = bus.handle(Role::Perceiver);
        Ok(Self {
            inbox: bus.subscribe(Role::Perceiver),
            shared: Arc::new(Shared {
                llm: llm.for_role(handle.clone())?,
                bus: handle,
                cancellations,
                clarification_rounds: config.budgets.clarification_rounds,
                clarification_timeout: CLARIFICATION_TIMEOUT,
                home: config.home.clone(),
                workspace: config.workspace.clone(),
            }),
        })
    }

    /// Overrides [`CLARIFICATION_TIMEOUT`].
    pub fn with_clarification_timeout(mut self, timeout: Duration) -> Self {
        Arc::get_mut(&mut self.shared)
            .expect("the perceiver is configured before it runs")
            .clarification_timeout = timeout;
        self
    }

    /// Serves until the bus closes, then waits for perceptions still running.
    pub async fn run(mut self) {
        let tracker = TaskTracker::new();
        while let Some(env) = self.inbox.recv().await {
            if let Message::TaskSubmitted(submitted) = &env.message {
                if env.from != Role::User {
                    tracing::warn!(from = %env.from, "R1 refuses a TaskSubmitted not from the user");
                    continue;
                }
                tracker.spawn(Arc::clone(&self.shared).perceive(submitted.clone()));
            }
        }
        tracker.close();
        tracker.wait().await;
    }
}

/// Why perception stopped without a model answer.
enum Stop {
    Cancelled,
    Failed(LlmError),
}

impl Shared {
    async fn perceive(self: Arc<Self>, submitted: TaskSubmitted) {
        let token = self.cancellations.token(&submitted.task_id);
        if token.is_cancelled() {
            return;
        }
        if submitted.raw_input.trim().is_empty() {
            // Nothing to carry into the system, and nothing for a model to answer.
            self.chat_reply(
                &submitted,
                "Your message was empty. Tell me what you would like me to do.".into(),
            );
            return;
        }
        let route = route(&submitted.raw_input);
        if route == Route::Chat {
            self.fast_path(&submitted, &token).await;
            return;
        }
        if route == Route::NeedsTools && submitted.session_history.is_empty() {
            // A request that names what to act on, with nothing earlier to resolve: the
            // user's own words are its most faithful restatement, and a model call would
            // only paraphrase them (at a cost of seconds on a local model).
            let intent = submitted
                .raw_input
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            self.task_spec(&submitted, intent, Constraints::default(), &token);
            return;
        }
        let mut clarifications: Vec<Clarification> = Vec::new();
        loop {
            let may_ask = (clarifications.len() as u32) < self.clarification_rounds;
            let perception = match self
                .perceive_once(&submitted, &clarifications, may_ask, &token)
                .await
            {
                Ok(p) => p,
                Err(Stop::Cancelled) => return,
                Err(Stop::Failed(error)) => {
                    tracing::warn!(task = %submitted.task_id, %error,
                        "no usable perception; the user's words become the intent");
                    let intent = fallback_intent(&submitted.raw_input, &clarifications);
                    self.task_spec(&submitted, intent, Constraints::default(), &token);
                    return;
                }
            };
            if token.is_cancelled() {
                return;
            }
            match perception.kind {
                Kind::Chat if route != Route::NeedsTools => {
                    let reply = non_blank(&perception.reply).unwrap_or_default().to_string();
                    self.chat_reply(&submitted, reply);
                    return;
                }
                Kind::Clarify if may_ask => {
                    let question = non_blank(&perception.question)
                        .unwrap_or_default()
                        .to_string();
                    let round = clarifications.len() as u32 + 1;
                    match self.ask(&submitted, &question, round, &token).await {
                        Some(answer) => clarifications.push(Clarification { question, answer }),
                        None if token.is_cancelled() => return,
                        // Empty answer or no answer: proceed as understood.
                        None => {
                            self.publish_perceived(&submitted, perception, &token);
                            return;
                        }
                    }
                }
                _ => {
                    self.publish_perceived(&submitted, perception, &token);
                    return;
                }
            }
        }
    }

    async fn perceive_once(
        &self,
        submitted: &TaskSubmitted,
        clarifications: &[Clarification],
        may_ask: bool,
        token: &CancellationToken,
    ) -> Result<Perception, Stop> {
        let ctx = CallCtx::for_task(submitted.task_id.clone(), token.clone());
        let request = perception_request(submitted, clarifications, may_ask, &preamble())
            .facts_first(&self.facts(submitted));
        let raw = submitted.raw_input.clone();
        match self
            .llm
            .structured_checked::<Perception, _>(&ctx, &request, |p| p.check(&raw))
            .await
        {
            Ok(out) => Ok(out.value),
            Err(LlmError::Cancelled) => Err(Stop::Cancelled),
            Err(e) => Err(Stop::Failed(e)),
        }
    }

    async fn fast_path(&self, submitted: &TaskSubmitted, token: &CancellationToken) {
        let ctx = CallCtx::for_task(submitted.task_id.clone(), token.clone());
        let answer = match self
            .llm
            .chat(
                &ctx,
                &chat_request(submitted, &preamble()).facts_first(&self.facts(submitted)),
            )
            .await
        {
            Ok(reply) => {
                let text = reply.answer();
                if text.is_empty() {
                    "The model sent an empty answer. Please ask again.".to_string()
                } else {
                    text
                }
            }
            Err(LlmError::Cancelled) => return,
            Err(e) => format!("I could not get an answer from the model: {e}"),
        };
        if token.is_cancelled() {
            return;
        }
        self.chat_reply(submitted, answer);
    }

    /// Asks the user; `None` on an empty answer, a timeout, a closed bus or a cancel.
    async fn ask(
        &self,
        submitted: &TaskSubmitted,
        question: &str,
        round: u32,
        token: &CancellationToken,
    ) -> Option<String> {
        let pending = self.bus.request(
            Role::User,
            ClarificationRequest {
                task_id: submitted.task_id.clone(),
                question: question.to_string(),
                round,
            },
        );
        let waited = tokio::select! {
            () = token.cancelled() => return None,
            waited = tokio::time::timeout(self.clarification_timeout, pending) => waited,
        };
        match waited {
            Ok(Ok(env)) => match &env.message {
                Message::ClarificationAnswer(a) => {
                    Some(a.answer.trim().to_string()).filter(|a| !a.is_empty())
                }
                other => {
                    tracing::warn!(
                        kind = other.kind().name(),
                        "unexpected reply to a clarification"
                    );
                    None
                }
            },
            Ok(Err(_closed)) => None,
            Err(_elapsed) => {
                tracing::info!(task = %submitted.task_id, round, "no clarification in time; proceeding");
                None
            }
        }
    }

    /// The machine's facts, dated by the submit.
    fn facts(&self, submitted: &TaskSubmitted) -> String {
        machine_facts(&self.home, &self.workspace, submitted.submitted_at)
    }

    fn publish_perceived(
        &self,
        submitted: &TaskSubmitted,
        perception: Perception,
        token: &CancellationToken,
    ) {
        let constraints = Constraints {
            scope: non_blank(&perception.constraints.scope).map(str::to_string),
            deadline: non_blank(&perception.constraints.deadline).map(str::to_string),
        };
        self.task_spec(
            submitted,
            perception.intent.trim().to_string(),
            constraints,
            token,
        );
    }

    fn task_spec(
        &self,
        submitted: &TaskSubmitted,
        intent: String,
        constraints: Constraints,
        token: &CancellationToken,
    ) {
        if token.is_cancelled() {
            return;
        }
        self.bus.publish(
            Role::Planner,
            TaskSpec {
                task_id: submitted.task_id.clone(),
                intent,
                constraints,
                raw_input: submitted.raw_input.clone(),
            },
        );
    }

    fn chat_reply(&self, submitted: &TaskSubmitted, answer: String) {
        self.bus.publish(
            Role::User,
            ChatReply {
                task_id: submitted.task_id.clone(),
                answer,
            },
        );
    }
}

/// The intent when the model gave none: the user's words, with any clarification they
/// gave — faithful by construction.
fn fallback_intent(raw_input: &str, clarifications: &[Clarification]) -> String {
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
