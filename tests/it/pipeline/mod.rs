//! The whole hierarchy through the runtime: the real HTTP client against the scripted
//! server, real memory on LevelDB, the real toolbox on temp dirs. Each scenario asserts
//! the bus transcript and how the task ended.

mod abandon;
mod answer;
mod checked;
mod counted_some;
mod directives;
mod honest;
mod law1;
mod listed;
mod loops;
mod malformed;
mod mcp;
mod memory;
mod partial;
mod prepared;
mod property;
mod rejection;
mod replies;
mod scenarios;
mod scheduled;
mod selected;
mod small_model;
mod word_form;
mod written_value;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use artoo::Config;
use artoo::bus::{Envelope, Tap, TapEvent};
use artoo::contracts::{FinalResult, Message, MessageKind, Role, TaskId};
use artoo::runtime::{Runtime, RuntimeOptions, TaskEnd};
use artoo::testkit::{Script, ScriptedServer, llm_config};

/// A closure that picks one message variant's payload, for [`Stage::all`].
macro_rules! pick {
    ($variant:path) => {
        |m: &artoo::contracts::Message| match m {
            $variant(x) => Some(x),
            _ => None,
        }
    };
}
pub(crate) use pick;

/// A running runtime whose both tiers point at a scripted server, in temp dirs.
pub struct Stage {
    pub server: ScriptedServer,
    pub runtime: Runtime,
    pub workspace: PathBuf,
    pub home: PathBuf,
    tap: Tap,
    /// Every envelope read from the tap so far, in publish order.
    pub seen: Vec<Arc<Envelope>>,
    _dirs: tempfile::TempDir,
}

/// The longest a scenario may take before it is a hang (wall clock; scripted replies are
/// instant).
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(60);

impl Stage {
    pub async fn new(script: Script) -> Stage {
        Self::configured(script, |_| {}).await
    }

    /// Like [`Stage::new`], with a chance to change the configuration first.
    pub async fn configured(script: Script, adjust: impl FnOnce(&mut Config)) -> Stage {
        let server = ScriptedServer::start(script).await.expect("server starts");
        let base_url = server.base_url();
        Self::start(server, &base_url, adjust).await
    }

    /// The runtime's model endpoint is `base_url` (the server still records requests).
    pub async fn start(
        server: ScriptedServer,
        base_url: &str,
        adjust: impl FnOnce(&mut Config),
    ) -> Stage {
        let dirs = tempfile::tempdir().expect("temp dir");
        let home = dirs.path().join("home");
        let workspace = home.join("artoo_workspace");
        std::fs::create_dir_all(&workspace).expect("workspace");
        let mut config = Config::with_dirs(dirs.path().join("data"), &workspace);
        config.home = home.clone();
        config.llm = llm_config(base_url);
        adjust(&mut config);
        let runtime = Runtime::start(config, RuntimeOptions::default())
            .await
            .expect("the runtime starts");
        let tap = runtime.tap("scenario");
        Stage {
            server,
            runtime,
            workspace,
            home,
            tap,
            seen: Vec::new(),
            _dirs: dirs,
        }
    }

    /// Runs `text` to its end and requires that it was not abandoned (the transcript
    /// shows why when it was); the task and its result.
    pub async fn run_to_result(&mut self, text: &str) -> (TaskId, FinalResult) {
        let (task, end) = self.run(text).await;
        let result = final_result(&end).clone();
        self.settle().await;
        assert_ne!(
            result.directive,
            artoo::contracts::TerminalDirective::Abandon,
            "{result:?}\n{}",
            self.transcript().join("\n")
        );
        (task, result)
    }

    /// Submits `text` and waits for the end, reading the tap until the end is on it.
    pub async fn run(&mut self, text: &str) -> (TaskId, TaskEnd) {
        let task = self.runtime.submit(text).expect("submitted");
        let end = self.finish(&task).await;
        (task, end)
    }

    /// Waits for `task`'s end and the message that ended it.
    pub async fn finish(&mut self, task: &TaskId) -> TaskEnd {
        let end = tokio::time::timeout(SCENARIO_TIMEOUT, self.runtime.wait(task))
            .await
            .unwrap_or_else(|_| {
                self.drain();
                panic!(
                    "the task did not end within {SCENARIO_TIMEOUT:?}; seen:\n{}",
                    self.transcript().join("\n")
                )
            })
            .expect("the runtime knows the task");
        let ending = match &end {
            TaskEnd::Final(_) => Some(MessageKind::FinalResult),
            TaskEnd::Chat(_) => Some(MessageKind::ChatReply),
            TaskEnd::Cancelled => Some(MessageKind::TaskClosed),
        };
        if let Some(kind) = ending {
            let task = task.clone();
            self.until(kind.name(), move |seen| {
                seen.iter()
                    .any(|e| e.message.kind() == kind && e.task_id.as_ref() == Some(&task))
            })
            .await;
        }
        end
    }

    /// Reads the tap until `done(seen)` holds.
    pub async fn until(&mut self, what: &str, done: impl Fn(&[Arc<Envelope>]) -> bool) {
        let wait = async {
            while !done(&self.seen) {
                match self.tap.recv().await {
                    Some(TapEvent::Message(env)) => self.seen.push(env),
                    Some(TapEvent::Gap { skipped }) => panic!("the tap lost {skipped} messages"),
                    None => panic!("the bus closed while waiting for {what}"),
                }
            }
        };
        if tokio::time::timeout(SCENARIO_TIMEOUT, wait).await.is_err() {
            panic!(
                "timed out waiting for {what}; seen:\n{}",
                self.transcript().join("\n")
            );
        }
    }

    /// Reads what is already on the tap.
    pub fn drain(&mut self) {
        while let Some(event) = self.tap.try_recv() {
            if let TapEvent::Message(env) = event {
                self.seen.push(env);
            }
        }
    }

    /// Lets in-flight messages land, then reads them.
    pub async fn settle(&mut self) {
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.drain();
    }

    pub fn of(&self, task: &TaskId, kind: MessageKind) -> Vec<Arc<Envelope>> {
        self.seen
            .iter()
            .filter(|e| e.message.kind() == kind && e.task_id.as_ref() == Some(task))
            .cloned()
            .collect()
    }

    /// The payloads of one message variant of the task, in publish order.
    pub fn all<T: Clone>(&self, task: &TaskId, pick: impl Fn(&Message) -> Option<&T>) -> Vec<T> {
        self.seen
            .iter()
            .filter(|e| e.task_id.as_ref() == Some(task))
            .filter_map(|e| pick(&e.message).cloned())
            .collect()
    }

    /// The recorded requests of `role` any of whose messages contains `text`.
    pub fn requests_containing(
        &self,
        role: Role,
        text: &str,
    ) -> Vec<artoo::testkit::RecordedRequest> {
        self.server
            .requests_from(role)
            .into_iter()
            .filter(|r| mentions(r, text))
            .collect()
    }

    pub fn count(&self, task: &TaskId, kind: MessageKind) -> usize {
        self.of(task, kind).len()
    }

    /// Model calls of the task per role, from the `LlmCall` records on the bus.
    pub fn llm_calls(&self, task: &TaskId, role: Role) -> usize {
        self.of(task, MessageKind::LlmCall)
            .iter()
            .filter(|e| e.from == role)
            .count()
    }

    /// One line per message of the task but model-call records: `from → to Kind`.
    pub fn transcript(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter(|e| e.message.kind() != MessageKind::LlmCall)
            .map(|e| format!("{} → {} {}", e.from, e.to, e.message.kind().name()))
            .collect()
    }

    /// The kinds of the task's messages in order, model-call records left out.
    pub fn kinds(&self, task: &TaskId) -> Vec<MessageKind> {
        self.seen
            .iter()
            .filter(|e| e.task_id.as_ref() == Some(task))
            .map(|e| e.message.kind())
            .filter(|k| *k != MessageKind::LlmCall)
            .collect()
    }

    pub async fn stop(self) {
        self.runtime.shutdown().await;
        self.server.shutdown().await;
    }
}

/// The FinalResult of an ended task, or a failure naming what it was instead.
pub fn final_result(end: &TaskEnd) -> &FinalResult {
    match end {
        TaskEnd::Final(r) => r,
        other => panic!("expected a FinalResult, the task ended with {other:?}"),
    }
}

/// The envelope's message as a FinalResult.
pub fn as_final(env: &Envelope) -> &FinalResult {
    match &env.message {
        Message::FinalResult(r) => r,
        other => panic!("not a FinalResult: {other:?}"),
    }
}

/// Whether any message of a recorded model request contains `text`.
pub fn mentions(request: &artoo::testkit::RecordedRequest, text: &str) -> bool {
    request.messages().iter().any(|(_, t)| t.contains(text))
}
