//! The user-editable settings file: reading, parsing and atomically saving
//! `settings.toml` in the data dir.
//!
//! **Invariant:** API keys are never written to the file (they are `serde(skip)`), and
//! a save keeps the keys already loaded; a save only happens after the new values pass
//! [`Config::validate`].

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Config, ConfigError, LlmConfig, SETTINGS_FILE, Settings, TierConfig, invalid};

/// `(section, key)` pairs the app once saved and no longer reads: the desktop's own
/// envelope journal went when the task logs began recording every envelope.
const RETIRED: &[(&str, &str)] = &[("retention", "journal_days"), ("retention", "journal_mb")];

impl Config {
    pub(super) fn read_settings(path: &Path) -> Result<Settings, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse_settings(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(source) => Err(ConfigError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses settings TOML; unknown keys and wrongly typed values are errors that name
    /// the key. Keys an earlier version wrote for something this one no longer has
    /// ([`RETIRED`]) are dropped, so a file the app saved before still loads.
    pub fn parse_settings(text: &str, path: &Path) -> Result<Settings, ConfigError> {
        let parse_error = |e: toml::de::Error| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let mut table: toml::Table = toml::from_str(text).map_err(parse_error)?;
        for (section, key) in RETIRED {
            if let Some(toml::Value::Table(section)) = table.get_mut(*section) {
                section.remove(*key);
            }
        }
        Settings::deserialize(table).map_err(parse_error)
    }

    /// Where `settings.toml` lives: in the data dir.
    pub fn settings_path(&self) -> PathBuf {
        self.data_dir.join(SETTINGS_FILE)
    }

    /// The user-editable part of this config.
    pub fn settings(&self) -> Settings {
        Settings {
            workspace: Some(self.workspace.clone()),
            llm: self.llm.clone(),
            ggs: self.ggs.clone(),
            budgets: self.budgets.clone(),
            memory: self.memory.clone(),
            laws: self.laws.clone(),
            tools: self.tools.clone(),
            auditor: self.auditor.clone(),
            retention: self.retention.clone(),
            ui: self.ui.clone(),
            mcp: self.mcp.clone(),
        }
    }

    /// Validates `settings` and writes them to `settings.toml` (API keys are never part
    /// of it). The write is atomic: a temp file renamed over the old one.
    pub fn save_settings(&self, settings: &Settings) -> Result<(), ConfigError> {
        let mut candidate = self.clone();
        candidate.workspace = settings
            .workspace
            .clone()
            .unwrap_or_else(|| self.workspace.clone());
        candidate.llm = LlmConfig {
            brain: TierConfig {
                api_key: self.llm.brain.api_key.clone(),
                ..settings.llm.brain.clone()
            },
            tool: TierConfig {
                api_key: self.llm.tool.api_key.clone(),
                ..settings.llm.tool.clone()
            },
            ..settings.llm.clone()
        };
        candidate.ggs = settings.ggs.clone();
        candidate.budgets = settings.budgets.clone();
        candidate.memory = settings.memory.clone();
        candidate.laws = settings.laws.clone();
        candidate.tools = settings.tools.clone();
        candidate.auditor = settings.auditor.clone();
        candidate.retention = settings.retention.clone();
        candidate.ui = settings.ui.clone();
        candidate.mcp = settings.mcp.clone();
        candidate.validate()?;
        let text = toml::to_string_pretty(settings)
            .map_err(|e| invalid("settings", format!("cannot serialise: {e}")))?;
        let path = self.settings_path();
        let io = |source| ConfigError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&self.data_dir).map_err(io)?;
        let tmp = path.with_extension("toml.tmp");
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, &path).map_err(io)?;
        Ok(())
    }
}
