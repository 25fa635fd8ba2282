//! The shell's state: the configuration in force, the core runtime (absent until a model is
//! configured), the event hub and the keychain. Starting, restarting and stopping the
//! core live here; every command reaches the core through [`Shell::core`].
//!
//! **Invariant:** at most one core runtime owns the data directory at a time — a restart
//! shuts the old one down (closing its bus, memory and audit log) before the next starts —
//! and a restart never interrupts a running task: it waits until none is running. The
//! windows are told the model is ready only once the core runs, since "ready" opens the
//! popup's input.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use artoo::config::{ApiKey, Config, LlmConfig, ModelSource, Settings, TierConfig};
use artoo::local_llm::{LocalModel, LocalServer, Progress, Stage};
use artoo::runtime::{Runtime, RuntimeOptions};
use artoo::status::Lang;
use artoo::{SharedClock, SystemClock};

use crate::dto::{KeyChange, ModelPhase, ModelProgress, ModelSourceKind, ModelStatus, UiEvent};
use crate::error::{IpcError, IpcResult};
use crate::events::{EnvelopeHook, Hub};
use crate::keychain::Keychain;

/// How often a pending restart checks whether the last task has ended.
const RESTART_POLL: Duration = Duration::from_millis(250);
/// How long the start-up check of a configured provider may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

enum Core {
    /// Why there is no core: not configured yet, failed to start, or shut down.
    Stopped(String),
    Running(Arc<Runtime>),
}

struct Inner {
    config: RwLock<Arc<Config>>,
    core: RwLock<Core>,
    /// Serialises start/restart/stop.
    lifecycle: tokio::sync::Mutex<()>,
    restart_pending: AtomicBool,
    hub: Hub,
    keychain: Keychain,
    clock: SharedClock,
    hook: Mutex<Option<EnvelopeHook>>,
    /// The model as last reported to the windows.
    model: Mutex<ModelStatus>,
    /// The built-in model's server while artoo runs it.
    local: tokio::sync::Mutex<Option<LocalServer>>,
}

/// Managed by Tauri; cheap to clone.
#[derive(Clone)]
pub struct Shell {
    inner: Arc<Inner>,
}

impl Shell {
    /// A shell with `config` and `keychain` whose core is not started yet.
    pub fn new(config: Config, keychain: Keychain) -> Self {
        Self {
            inner: Arc::new(Inner {
                config: RwLock::new(Arc::new(config)),
                core: RwLock::new(Core::Stopped("artoo is starting".into())),
                lifecycle: tokio::sync::Mutex::new(()),
                restart_pending: AtomicBool::new(false),
                hub: Hub::default(),
                keychain,
                clock: SystemClock::shared(),
                hook: Mutex::new(None),
                model: Mutex::new(ModelStatus {
                    source: ModelSourceKind::Unset,
                    phase: ModelPhase::Starting,
                    model: None,
                    base_url: None,
                    detail: None,
                    progress: None,
                    first_run: false,
                    pace: None,
                }),
                local: tokio::sync::Mutex::new(None),
            }),
        }
    }

    /// The configuration in force; replaced whole when settings are saved.
    pub fn config(&self) -> Arc<Config> {
        artoo::sync::read(&self.inner.config).clone()
    }

    /// The event stream's subscribers.
    pub fn hub(&self) -> &Hub {
        &self.inner.hub
    }

    pub(crate) fn keychain(&self) -> &Keychain {
        &self.inner.keychain
    }

    pub(crate) fn clock(&self) -> &SharedClock {
        &self.inner.clock
    }

    /// What runs after the fan-out of every envelope (set once by the desktop layer).
    pub fn set_hook(&self, hook: EnvelopeHook) {
        *artoo::sync::lock(&self.inner.hook) = Some(hook);
    }

    /// The running core, or `unavailable` saying why there is none.
    pub fn core(&self) -> IpcResult<Arc<Runtime>> {
        match &*artoo::sync::read(&self.inner.core) {
            Core::Running(rt) => Ok(rt.clone()),
            Core::Stopped(why) => Err(IpcError::unavailable(why.clone())),
        }
    }

    /// True when the core is running.
    pub fn is_running(&self) -> bool {
        self.core().is_ok()
    }

    fn set_core(&self, core: Core) {
        *artoo::sync::write(&self.inner.core) = core;
    }

    /// Starts the core with the configuration in force, unless one is running. Failure
    /// (no model configured, data dir locked) leaves the reason for `unavailable` errors.
    pub async fn start(&self) {
        let _lifecycle = self.inner.lifecycle.lock().await;
        self.start_locked().await;
    }

    /// The model as last reported.
    pub fn model_status(&self) -> ModelStatus {
        artoo::sync::lock(&self.inner.model).clone()
    }

    /// Records the model's state and tells every window.
    fn set_model(&self, status: ModelStatus) {
        *artoo::sync::lock(&self.inner.model) = status.clone();
        self.inner.hub.broadcast(&UiEvent::Model { model: status });
    }

    async fn start_locked(&self) {
        if self.is_running() {
            return;
        }
        let mut config = (*self.config()).clone();
        self.inner.hub.configure(&config);
        let first_run = !config.settings_path().exists();
        let status = |source, phase, detail: Option<String>| ModelStatus {
            source,
            phase,
            model: None,
            base_url: None,
            detail,
            progress: None,
            first_run,
            pace: None,
        };
        let verdict = match config.model_source() {
            Err(e) => {
                self.set_model(status(
                    ModelSourceKind::Unset,
                    ModelPhase::NotConfigured,
                    Some(e.to_string()),
                ));
                self.set_core(Core::Stopped(format!(
                    "no model is configured yet: {e}. Choose one in Settings."
                )));
                return;
            }
            // A first start chooses in the onboarding view before anything is fetched.
            Ok(ModelSource::BuiltIn) if first_run => {
                self.set_model(status(
                    ModelSourceKind::Unset,
                    ModelPhase::NotConfigured,
                    None,
                ));
                self.set_core(Core::Stopped(
                    "no model is chosen yet: choose one in the popup or in Settings".into(),
                ));
                return;
            }
            Ok(ModelSource::BuiltIn) => match self.start_local(&mut config, first_run).await {
                Ok(ready) => ready,
                Err(why) => {
                    self.set_core(Core::Stopped(why));
                    return;
                }
            },
            Ok(ModelSource::Configured) => self.check_provider(&config, first_run).await,
        };
        // The windows hear the model's verdict only once the core can take a task: the
        // popup opens its input on "ready", and a submission before the core runs would
        // be refused as unavailable.
        let lang = Lang::from_tag(&config.ui.language);
        self.start_core(config).await;
        let verdict = self.prepared(verdict, lang).await;
        self.set_model(verdict);
    }

    /// On the built-in model: every role's instructions made ready and the speed
    /// measured before the first task (progress as it starts). Then the verdict says how
    /// fast the model runs here.
    async fn prepared(&self, mut verdict: ModelStatus, lang: Lang) -> ModelStatus {
        let Ok(runtime) = self.core() else {
            return verdict;
        };
        if verdict.source == ModelSourceKind::BuiltIn {
            let name = verdict.model.clone().unwrap_or_default();
            let report = |done: usize, total: usize| {
                let p = Progress::new(Stage::Prepare, done as u64, total as u64);
                self.set_model(ModelStatus {
                    phase: ModelPhase::Starting,
                    progress: Some(ModelProgress {
                        stage: p.stage,
                        done: u32::try_from(p.done).unwrap_or(u32::MAX),
                        total: u32::try_from(p.total).unwrap_or(u32::MAX),
                        text: p.describe(&name, lang),
                    }),
                    ..verdict.clone()
                });
            };
            runtime.prepare_model(&report).await;
        }
        verdict.pace = Some(runtime.pace_summary(lang));
        verdict
    }

    async fn start_core(&self, config: Config) {
        match Runtime::start(config, RuntimeOptions::default()).await {
            Ok(runtime) => {
                let runtime = Arc::new(runtime);
                let hook = artoo::sync::lock(&self.inner.hook).clone();
                // The tap attaches before the core is visible to commands, so the stream
                // sees every task from its first envelope.
                tokio::spawn(self.inner.hub.clone().pump(runtime.tap("desktop-ui"), hook));
                self.set_core(Core::Running(runtime));
                tracing::info!("the core is running");
            }
            Err(e) => {
                tracing::error!(error = %e, "the core did not start");
                self.set_core(Core::Stopped(format!("the core did not start: {e}")));
            }
        }
    }

    /// Starts (or keeps) the built-in model and points `config` at it, reporting progress
    /// to the windows. Returns its ready status, for the caller to announce once the core
    /// runs, or why it could not start.
    async fn start_local(
        &self,
        config: &mut Config,
        first_run: bool,
    ) -> Result<ModelStatus, String> {
        let model = LocalModel::from_config(config);
        let name = model.spec.name.to_string();
        let mut local = self.inner.local.lock().await;
        if let Some(server) = local.as_mut()
            && (server.model() != name || !server.is_running())
            && let Some(old) = local.take()
        {
            old.stop().await;
        }
        if local.is_none() {
            let lang = Lang::from_tag(&config.ui.language);
            let shell = self.clone();
            let reporting = name.clone();
            let report = move |p: Progress| {
                shell.set_model(ModelStatus {
                    source: ModelSourceKind::BuiltIn,
                    phase: ModelPhase::Starting,
                    model: Some(reporting.clone()),
                    base_url: None,
                    detail: None,
                    progress: Some(ModelProgress {
                        stage: p.stage,
                        done: u32::try_from(p.done).unwrap_or(u32::MAX),
                        total: u32::try_from(p.total).unwrap_or(u32::MAX),
                        text: p.describe(&reporting, lang),
                    }),
                    first_run,
                    pace: None,
                });
            };
            match model.start(&report).await {
                Ok(server) => *local = Some(server),
                Err(e) => {
                    tracing::error!(error = %e, "the built-in model did not start");
                    self.set_model(ModelStatus {
                        source: ModelSourceKind::BuiltIn,
                        phase: ModelPhase::Unreachable,
                        model: Some(name),
                        base_url: None,
                        detail: Some(e.to_string()),
                        progress: None,
                        first_run,
                        pace: None,
                    });
                    return Err(format!("the built-in model did not start: {e}"));
                }
            }
        }
        let Some(server) = local.as_ref() else {
            return Err("the built-in model did not start".into());
        };
        config.use_local_endpoint(&server.base_url(), server.model());
        Ok(ModelStatus {
            source: ModelSourceKind::BuiltIn,
            phase: ModelPhase::Ready,
            model: Some(server.model().to_string()),
            base_url: Some(server.base_url()),
            detail: None,
            progress: None,
            first_run,
            pace: None,
        })
    }

    /// Asks a configured provider for one token, so the popup can say it is unreachable
    /// before the user types. The core starts either way (the endpoint may come back).
    /// Returns the verdict, for the caller to announce once the core runs.
    async fn check_provider(&self, config: &Config, first_run: bool) -> ModelStatus {
        if let Some(old) = self.inner.local.lock().await.take() {
            old.stop().await;
        }
        let tier = &config.llm.brain;
        self.set_model(ModelStatus {
            source: ModelSourceKind::Provider,
            phase: ModelPhase::Starting,
            model: tier.model.clone(),
            base_url: tier.base_url.clone(),
            detail: None,
            progress: None,
            first_run,
            pace: None,
        });
        let report = artoo::llm::check_reachable(tier, PROBE_TIMEOUT).await;
        ModelStatus {
            source: ModelSourceKind::Provider,
            phase: if report.ok {
                ModelPhase::Ready
            } else {
                ModelPhase::Unreachable
            },
            model: report.model.or_else(|| tier.model.clone()),
            base_url: tier.base_url.clone(),
            detail: report.error,
            progress: None,
            first_run,
            pace: None,
        }
    }

    /// Shuts the core down (running tasks cancelled, memory and logs closed) and the
    /// built-in model with it.
    pub async fn stop(&self, why: &str) {
        let _lifecycle = self.inner.lifecycle.lock().await;
        self.stop_locked(why).await;
        if let Some(server) = self.inner.local.lock().await.take() {
            server.stop().await;
        }
    }

    async fn stop_locked(&self, why: &str) {
        let old = std::mem::replace(
            &mut *artoo::sync::write(&self.inner.core),
            Core::Stopped(why.to_string()),
        );
        if let Core::Running(runtime) = old {
            runtime.shutdown().await;
        }
    }

    /// Makes saved settings the configuration in force (keys stay as they were, then the
    /// keychain fills any tier the environment left without one) and restarts the core
    /// with them as soon as no task is running.
    pub async fn apply(&self, settings: &Settings, keys: [&KeyChange; 2]) {
        let mut next = (*self.config()).clone();
        apply_settings(&mut next, settings);
        for (tier, change) in [&mut next.llm.brain, &mut next.llm.tool]
            .into_iter()
            .zip(keys)
        {
            match change {
                KeyChange::Keep => {}
                KeyChange::Set { key } => tier.api_key = Some(ApiKey::new(key.trim())),
                KeyChange::Clear => tier.api_key = None,
            }
        }
        let keychain = self.inner.keychain.clone();
        let next = tokio::task::spawn_blocking(move || {
            keychain.fill(&mut next);
            next
        })
        .await
        .expect("filling keys from the keychain does not panic");
        *artoo::sync::write(&self.inner.config) = Arc::new(next);

        if self.inner.restart_pending.swap(true, Ordering::SeqCst) {
            return; // a restart is already waiting; it will read the newest config
        }
        let shell = self.clone();
        tokio::spawn(async move {
            loop {
                let busy = shell
                    .core()
                    .map(|rt| !rt.running_tasks().is_empty())
                    .unwrap_or(false);
                if !busy {
                    break;
                }
                tokio::time::sleep(RESTART_POLL).await;
            }
            let _lifecycle = shell.inner.lifecycle.lock().await;
            shell.inner.restart_pending.store(false, Ordering::SeqCst);
            shell
                .stop_locked("artoo is restarting with new settings")
                .await;
            shell.start_locked().await;
        });
    }

    /// Waits until a pending restart has happened (tests, and the settings reply).
    pub async fn settled(&self) {
        while self.inner.restart_pending.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _lifecycle = self.inner.lifecycle.lock().await;
    }
}

/// The inverse of [`Config::settings`]: everything settings.toml holds, onto `config`,
/// keeping the API keys (they never travel with settings).
fn apply_settings(config: &mut Config, s: &Settings) {
    let keep = |tier: &TierConfig, new: &TierConfig| TierConfig {
        api_key: tier.api_key.clone(),
        ..new.clone()
    };
    if let Some(workspace) = &s.workspace {
        config.workspace = workspace.clone();
    }
    config.llm = LlmConfig {
        brain: keep(&config.llm.brain, &s.llm.brain),
        tool: keep(&config.llm.tool, &s.llm.tool),
        ..s.llm.clone()
    };
    config.ggs = s.ggs.clone();
    config.budgets = s.budgets.clone();
    config.memory = s.memory.clone();
    config.laws = s.laws.clone();
    config.tools = s.tools.clone();
    config.auditor = s.auditor.clone();
    config.ui = s.ui.clone();
    config.mcp = s.mcp.clone();
}
