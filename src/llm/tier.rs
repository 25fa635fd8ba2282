//! Model tiers (which role runs on which model) and endpoint presets the settings UI lists.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::config::TierConfig;
use crate::contracts::Role;

/// A model tier. R4b judges R2's plan, so it never runs on a weaker tier than R2: both
/// are on the brain tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// R1 Perceiver, R2 Planner, R4b Meta-Validator, and the Dreamer's distillation (R5).
    Brain,
    /// R3 Executor, R4a Agent-Validator.
    Tool,
}

/// Every role that calls a model, in pipeline order.
pub const MODEL_ROLES: [Role; 6] = [
    Role::Perceiver,
    Role::Planner,
    Role::Executor,
    Role::AgentValidator,
    Role::MetaValidator,
    Role::Memory,
];

impl Tier {
    /// The tier a role's calls go to; `None` for roles that never call a model.
    pub fn for_role(role: Role) -> Option<Tier> {
        match role {
            Role::Perceiver | Role::Planner | Role::MetaValidator | Role::Memory => {
                Some(Tier::Brain)
            }
            Role::Executor | Role::AgentValidator => Some(Tier::Tool),
            Role::User
            | Role::Dispatcher
            | Role::Auditor
            | Role::Ggs
            | Role::Observer
            | Role::All => None,
        }
    }

    /// The tier's name in settings and logs: `brain` or `tool`.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Brain => "brain",
            Tier::Tool => "tool",
        }
    }

    /// Prefix of the tier's environment variables (`BRAIN_*`, `TOOL_*`).
    pub fn env_prefix(self) -> &'static str {
        match self {
            Tier::Brain => "BRAIN",
            Tier::Tool => "TOOL",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A known OpenAI-compatible provider, as data: the settings UI lists these and fills a
/// tier from one. Models are suggestions; the user can type any model the endpoint serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Preset {
    /// Stable identifier for settings and the UI.
    pub id: &'static str,
    /// The name shown in the settings UI.
    pub name: &'static str,
    /// The OpenAI-compatible endpoint, ending in `/v1`.
    pub base_url: &'static str,
    /// Suggested model for the brain tier; `None` when it depends on what the user pulled.
    pub brain_model: Option<&'static str>,
    /// Suggested model for the tool tier.
    pub tool_model: Option<&'static str>,
    /// Whether the endpoint refuses calls without an API key.
    pub needs_api_key: bool,
    /// Whether it runs on this machine (no data leaves it).
    pub local: bool,
    /// One line for the settings UI.
    pub note: &'static str,
}

impl Preset {
    /// A tier configuration from this preset (the API key stays where keys live: the
    /// environment or the keychain).
    pub fn tier_config(&self, tier: Tier) -> TierConfig {
        let model = match tier {
            Tier::Brain => self.brain_model,
            Tier::Tool => self.tool_model,
        };
        TierConfig {
            base_url: Some(self.base_url.to_string()),
            model: model.map(str::to_string),
            enable_thinking: false,
            api_key: None,
        }
    }

    /// The preset with id `id`; None when there is none.
    pub fn find(id: &str) -> Option<&'static Preset> {
        PRESETS.iter().find(|p| p.id == id)
    }
}

/// Default port of `scripts/local-llm.sh` (llama-server's own default).
pub const LOCAL_LLAMA_SERVER_URL: &str = "http://127.0.0.1:8080/v1";

/// The endpoints the settings offer, in the order shown.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "openai",
        name: "OpenAI",
        base_url: "https://api.openai.com/v1",
        brain_model: Some("gpt-4.1"),
        tool_model: Some("gpt-4.1-mini"),
        needs_api_key: true,
        local: false,
        note: "Hosted. Needs OPENAI_API_KEY (or BRAIN_/TOOL_API_KEY).",
    },
    Preset {
        id: "deepseek",
        name: "DeepSeek",
        base_url: "https://api.deepseek.com/v1",
        brain_model: Some("deepseek-chat"),
        tool_model: Some("deepseek-chat"),
        needs_api_key: true,
        local: false,
        note: "Hosted. Supports JSON mode (json_object), not json_schema; artoo detects that.",
    },
    Preset {
        id: "ollama",
        name: "Ollama",
        base_url: "http://127.0.0.1:11434/v1",
        brain_model: None,
        tool_model: None,
        needs_api_key: false,
        local: true,
        note: "Local. Pull a model first (`ollama pull qwen2.5-coder:7b`) and enter its name.",
    },
    Preset {
        id: "lmstudio",
        name: "LM Studio",
        base_url: "http://127.0.0.1:1234/v1",
        brain_model: None,
        tool_model: None,
        needs_api_key: false,
        local: true,
        note: "Local. Start the server in LM Studio's Developer tab and enter the loaded model's name.",
    },
    Preset {
        id: "llama-server",
        name: "Local llama-server",
        base_url: LOCAL_LLAMA_SERVER_URL,
        brain_model: Some("qwen2.5-coder-0.5b"),
        tool_model: Some("qwen2.5-coder-0.5b"),
        needs_api_key: false,
        local: true,
        note: "Local. `scripts/local-llm.sh fetch build start` runs a small Qwen2.5-Coder here.",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meta_validator_never_runs_on_a_weaker_tier_than_the_planner() {
        assert_eq!(
            Tier::for_role(Role::MetaValidator),
            Tier::for_role(Role::Planner)
        );
        assert_eq!(Tier::for_role(Role::Planner), Some(Tier::Brain));
    }

    #[test]
    fn exactly_the_model_roles_have_a_tier() {
        for role in Role::ALL_ROLES {
            assert_eq!(
                Tier::for_role(role).is_some(),
                MODEL_ROLES.contains(&role),
                "{role}"
            );
        }
    }

    #[test]
    fn roles_map_to_the_seed_tiers() {
        assert_eq!(Tier::for_role(Role::Perceiver), Some(Tier::Brain));
        assert_eq!(Tier::for_role(Role::Memory), Some(Tier::Brain));
        assert_eq!(Tier::for_role(Role::Executor), Some(Tier::Tool));
        assert_eq!(Tier::for_role(Role::AgentValidator), Some(Tier::Tool));
        for role in [Role::Ggs, Role::Auditor, Role::User, Role::Dispatcher] {
            assert_eq!(Tier::for_role(role), None, "{role}");
        }
    }

    #[test]
    fn presets_have_unique_ids_and_valid_urls() {
        let mut ids: Vec<_> = PRESETS.iter().map(|p| p.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), PRESETS.len());
        for p in PRESETS {
            assert!(
                p.base_url.starts_with("http://") || p.base_url.starts_with("https://"),
                "{}",
                p.id
            );
            assert!(!p.base_url.ends_with('/'), "{}", p.id);
            assert_eq!(p.local, !p.needs_api_key, "{}", p.id);
        }
    }

    #[test]
    fn a_preset_fills_a_tier_that_passes_config_validation() {
        let preset = Preset::find("llama-server").expect("listed");
        let mut config = crate::Config::with_dirs("/tmp/artoo-preset-test", "/tmp/ws");
        config.llm.brain = preset.tier_config(Tier::Brain);
        config.llm.tool = preset.tier_config(Tier::Tool);
        config.validate().expect("preset config is valid");
        config.require_llm().expect("both tiers complete");
    }
}
