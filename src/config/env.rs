//! Loading a [`Config`] from the environment: the [`EnvSource`] lookup, `~` expansion,
//! and the variables that override the settings file.
//!
//! **Invariant:** `ProcessEnv` is the only reader of the real process environment, and
//! it is reached only through [`Config::from_process_env`]; every other path takes an
//! explicit [`EnvSource`] so tests never depend on the machine.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{ApiKey, Config, ConfigError, SETTINGS_FILE, TierConfig};

/// Where configuration comes from: a lookup for environment variables.
pub trait EnvSource {
    /// The variable's value; None when it is unset.
    fn var(&self, key: &str) -> Option<String>;
}

impl EnvSource for HashMap<String, String> {
    fn var(&self, key: &str) -> Option<String> {
        self.get(key).cloned()
    }
}

impl<const N: usize> EnvSource for [(&str, &str); N] {
    fn var(&self, key: &str) -> Option<String> {
        self.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    }
}

struct ProcessEnv;

impl EnvSource for ProcessEnv {
    fn var(&self, key: &str) -> Option<String> {
        std::env::var(key).ok()
    }
}

fn non_empty(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// `raw` as a path on this computer: `~` and `~/…` under `home`.
pub(crate) fn expand_home(raw: &str, home: &Path) -> PathBuf {
    if raw == "~" {
        home.to_path_buf()
    } else if let Some(rest) = raw.strip_prefix("~/") {
        home.join(rest)
    } else {
        PathBuf::from(raw)
    }
}

impl Config {
    /// Loads from the real process environment and the settings file it points at.
    pub fn from_process_env() -> Result<Config, ConfigError> {
        Self::load(&ProcessEnv)
    }

    /// Loads from `env` (defaults → settings file → environment) and validates.
    pub fn load(env: &dyn EnvSource) -> Result<Config, ConfigError> {
        let var = |k: &str| non_empty(env.var(k));
        let home = var("HOME")
            .or_else(|| var("USERPROFILE"))
            .map(PathBuf::from);
        let data_dir = match var("ARTOO_DATA_DIR") {
            Some(dir) => match &home {
                Some(h) => expand_home(&dir, h),
                None => PathBuf::from(dir),
            },
            None => home.as_ref().ok_or(ConfigError::NoHome)?.join(".artoo"),
        };
        let settings = Self::read_settings(&data_dir.join(SETTINGS_FILE))?;
        let workspace = match (var("ARTOO_WORKSPACE"), &settings.workspace) {
            (Some(dir), _) => PathBuf::from(dir),
            (None, Some(dir)) => dir.clone(),
            (None, None) => home
                .as_ref()
                .ok_or(ConfigError::NoHome)?
                .join("artoo_workspace"),
        };
        let home = home.unwrap_or_else(|| data_dir.clone());
        let workspace = expand_home(&workspace.to_string_lossy(), &home);

        let mut config = Config::from_settings(data_dir, workspace, home, settings);
        apply_tier_env(&mut config.llm.brain, "BRAIN", env);
        apply_tier_env(&mut config.llm.tool, "TOOL", env);
        if let Some(url) = var("ARTOO_SEARCH_URL") {
            config.tools.search_url = url;
        }
        if let Some(dir) = var("ARTOO_LOCAL_LLM_DIR") {
            config.llm.local.dir = Some(expand_home(&dir, &config.home));
        }
        if let Some(model) = var("ARTOO_LOCAL_LLM_MODEL") {
            config.llm.local.model = model;
        }
        config.validate()?;
        Ok(config)
    }
}

/// `{TIER}_BASE_URL`/`_MODEL`/`_API_KEY`/`_ENABLE_THINKING`, each falling back to the
/// matching `OPENAI_*` variable, override the settings file.
fn apply_tier_env(tier: &mut TierConfig, prefix: &str, env: &dyn EnvSource) {
    let get = |suffix: &str| {
        non_empty(env.var(&format!("{prefix}_{suffix}")))
            .or_else(|| non_empty(env.var(&format!("OPENAI_{suffix}"))))
    };
    if let Some(url) = get("BASE_URL") {
        tier.base_url = Some(url);
    }
    if let Some(model) = get("MODEL") {
        tier.model = Some(model);
    }
    if let Some(key) = get("API_KEY") {
        tier.api_key = Some(ApiKey::new(key));
    }
    if let Some(flag) = non_empty(env.var(&format!("{prefix}_ENABLE_THINKING"))) {
        tier.enable_thinking = matches!(flag.to_ascii_lowercase().as_str(), "1" | "true" | "yes");
    }
}
