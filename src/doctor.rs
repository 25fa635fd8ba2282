//! `artoo doctor`: what a user runs when something is off. One line per part artoo
//! depends on — the model (which, where, installed or reachable), its measured speed, the
//! sandbox, the data dir, each MCP server, the API keys, the versions — each ✅ or ⚠ with
//! the fix in words. The CLI prints the lines; the desktop's Settings shows the same list.
//!
//! **Invariant:** the doctor only looks: it starts no model server, writes nothing but a
//! probe file it removes at once, and an MCP server it starts to list its tools is
//! stopped again before it returns.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::config::{Config, ModelSource, TierConfig};
use crate::local_llm::LocalModel;
use crate::status::Lang;

/// How long the doctor waits for a configured endpoint to answer.
const REACH_TIMEOUT: Duration = Duration::from_secs(5);

/// One line of the doctor's report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Finding {
    /// What was checked ("model", "sandbox", "mcp server files", …).
    pub topic: String,
    /// Nothing to do.
    pub ok: bool,
    /// What was found, in words.
    pub found: String,
    /// What to do about it, in words; null when it is fine.
    pub fix: Option<String>,
}

impl Finding {
    /// Nothing to do about `topic`.
    pub fn ok(topic: &str, found: impl Into<String>) -> Self {
        Self {
            topic: topic.to_string(),
            ok: true,
            found: found.into(),
            fix: None,
        }
    }

    /// `topic` needs a look; `fix` says what to do.
    pub fn warn(topic: &str, found: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            topic: topic.to_string(),
            ok: false,
            found: found.into(),
            fix: Some(fix.into()),
        }
    }

    /// `✅ model: …` or `⚠ sandbox: … — fix: …`.
    pub fn line(&self) -> String {
        let mark = if self.ok { "✅" } else { "⚠" };
        match &self.fix {
            Some(fix) => format!("{mark} {}: {} — fix: {fix}", self.topic, self.found),
            None => format!("{mark} {}: {}", self.topic, self.found),
        }
    }
}

/// Every check, in the order a person reads them.
pub async fn check(config: &Config) -> Vec<Finding> {
    let mut out = vec![model(config).await, speed(config)];
    out.push(sandbox(config).await);
    out.push(data_dir(&config.data_dir));
    out.extend(mcp(config).await);
    out.push(keys(config));
    out.push(versions(config).await);
    out
}

/// The model: the built-in one installed, or each configured endpoint reachable.
pub async fn model(config: &Config) -> Finding {
    match config.model_source() {
        Err(e) => Finding::warn(
            "model",
            format!("the settings name half a provider: {e}"),
            "give both tiers a base URL and a model (Settings, or OPENAI_BASE_URL and \
             OPENAI_MODEL), or clear both to use the built-in model",
        ),
        Ok(ModelSource::BuiltIn) => built_in(config).await,
        Ok(ModelSource::Configured) => configured(config).await,
    }
}

async fn built_in(config: &Config) -> Finding {
    let local = LocalModel::from_config(config);
    let name = local.spec.name;
    let dir = crate::text::tilde(&local.dir.display().to_string(), &config.home);
    if local.installed().await {
        Finding::ok(
            "model",
            format!(
                "built-in {name} in {dir}: weights checked, llama-server built; artoo starts \
                 it with a task and stops it after"
            ),
        )
    } else {
        Finding::warn(
            "model",
            format!("built-in {name} is not installed yet in {dir}"),
            "nothing to do: the first task downloads its weights (about 1.1 GB) and builds \
             llama-server (about 5 minutes on 2 cores), with a progress bar; it needs \
             python3, pip and a C++ compiler",
        )
    }
}

async fn configured(config: &Config) -> Finding {
    let tiers = [("brain", &config.llm.brain), ("tool", &config.llm.tool)];
    let mut found = Vec::new();
    for (name, tier) in tiers {
        if name == "tool" && same_endpoint(&config.llm.brain, tier) {
            continue;
        }
        let url = tier.base_url.clone().unwrap_or_default();
        let model = tier.model.clone().unwrap_or_default();
        let report = crate::llm::check_reachable(tier, REACH_TIMEOUT).await;
        if !report.ok {
            return Finding::warn(
                "model",
                format!(
                    "{name} tier {model} at {url} does not answer: {}",
                    report.error.unwrap_or_else(|| "no answer".into())
                ),
                "check that the server runs, the base URL (…/v1) and the API key",
            );
        }
        found.push(format!(
            "{name} tier {model} at {url} answers ({} ms)",
            report.latency_ms
        ));
    }
    Finding::ok("model", found.join("; "))
}

fn same_endpoint(a: &TierConfig, b: &TierConfig) -> bool {
    a.base_url == b.base_url && a.model == b.model
}

/// The model's measured speed and the time a task gets from it.
pub fn speed(config: &Config) -> Finding {
    let line = crate::llm::pace::summary_of(config, Lang::En);
    let unmeasured = line.starts_with("speed not measured");
    if unmeasured && config.fixed_task_budget().is_none() {
        Finding::warn(
            "speed",
            line,
            "nothing to do: the built-in model is measured when it is prepared at its next \
             start, any other model by its first calls; until then a task gets 5 minutes",
        )
    } else {
        Finding::ok("speed", line)
    }
}

/// Law 1's sandbox for shell commands.
pub async fn sandbox(config: &Config) -> Finding {
    let status = crate::tools::sandbox_status(config).await;
    if status.is_on() {
        Finding::ok("sandbox", status.describe())
    } else {
        Finding::warn(
            "sandbox",
            status.describe(),
            "on Linux install bubblewrap (apt install bubblewrap) and allow unprivileged \
             user namespaces; or set tools.sandbox = \"auto\" in settings.toml",
        )
    }
}

/// The data dir: there, writable, and how much it holds.
pub fn data_dir(dir: &Path) -> Finding {
    let shown = dir.display();
    if !dir.is_dir() {
        return Finding::warn(
            "data dir",
            format!("{shown} does not exist"),
            "nothing to do if artoo never ran: it is made at the first start; otherwise \
             check ARTOO_DATA_DIR",
        );
    }
    let probe = dir.join(".doctor-probe");
    let writable = std::fs::write(&probe, b"").is_ok();
    let _ = std::fs::remove_file(&probe);
    let size = tree_size(dir);
    if writable {
        Finding::ok(
            "data dir",
            format!(
                "{shown}: {} (settings, memory, audit log, task logs, logs)",
                crate::text::human_size(size)
            ),
        )
    } else {
        Finding::warn(
            "data dir",
            format!(
                "{shown} cannot be written ({})",
                crate::text::human_size(size)
            ),
            "give your user write access to it, or point ARTOO_DATA_DIR at a folder you own",
        )
    }
}

fn tree_size(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// Each configured MCP server, started to list its tools and stopped again.
pub async fn mcp(config: &Config) -> Vec<Finding> {
    if config.mcp.servers.is_empty() {
        return vec![Finding::ok("mcp", "no MCP servers are configured")];
    }
    let hub = crate::mcp::McpHub::connect(config).await;
    let found = hub
        .status()
        .into_iter()
        .map(|s| {
            let topic = format!("mcp server {}", s.name);
            if !s.enabled {
                Finding::ok(&topic, format!("{} is turned off in settings", s.origin))
            } else if s.connected {
                let names: Vec<String> = s.tools.iter().map(|t| t.name.to_string()).collect();
                Finding::ok(
                    &topic,
                    format!("{} tool(s): {}", names.len(), names.join(", ")),
                )
            } else {
                Finding::warn(
                    &topic,
                    format!(
                        "{} does not connect: {}",
                        s.origin,
                        s.error.unwrap_or_else(|| "no answer".into())
                    ),
                    "check its command or URL (`artoo mcp list`), or turn it off in settings",
                )
            }
        })
        .collect();
    hub.close().await;
    found
}

/// Where API keys come from (the desktop adds its keychain's state).
pub fn keys(config: &Config) -> Finding {
    let configured = matches!(config.model_source(), Ok(ModelSource::Configured));
    let missing: Vec<&str> = [("brain", &config.llm.brain), ("tool", &config.llm.tool)]
        .into_iter()
        .filter(|(_, t)| t.api_key.is_none())
        .map(|(name, _)| name)
        .collect();
    match (configured, missing.is_empty()) {
        (false, _) => Finding::ok("api keys", "none needed: the built-in model runs here"),
        (true, true) => Finding::ok("api keys", "set for both tiers"),
        (true, false) => Finding::warn(
            "api keys",
            format!("no API key for the {} tier", missing.join(" and ")),
            "a local server needs none; a hosted API needs OPENAI_API_KEY (or BRAIN_/TOOL_ \
             API_KEY; the desktop app keeps it in the OS keychain)",
        ),
    }
}

/// artoo's version, the system, and the built-in model server's build.
pub async fn versions(config: &Config) -> Finding {
    let mut found = format!(
        "artoo {} on {} {}",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    let server = LocalModel::from_config(config).server_binary();
    if server.is_file() {
        let asked = tokio::time::timeout(
            Duration::from_secs(10),
            tokio::process::Command::new(&server)
                .arg("--version")
                .kill_on_drop(true)
                .output(),
        )
        .await;
        if let Ok(Ok(out)) = asked {
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            if let Some(line) = text.lines().find(|l| l.starts_with("version")) {
                found.push_str(&format!("; llama-server {}", line.trim()));
            }
        }
    }
    Finding::ok("versions", found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_what_was_found_and_the_fix() {
        assert_eq!(Finding::ok("model", "ready").line(), "✅ model: ready");
        assert_eq!(
            Finding::warn("sandbox", "off", "install bubblewrap").line(),
            "⚠ sandbox: off — fix: install bubblewrap"
        );
    }

    #[test]
    fn the_data_dir_is_measured_and_a_missing_one_is_explained() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("memory")).unwrap();
        std::fs::write(dir.path().join("memory/a"), vec![0u8; 1500]).unwrap();
        std::fs::write(dir.path().join("settings.toml"), vec![0u8; 500]).unwrap();
        let found = data_dir(dir.path());
        assert!(found.ok, "{found:?}");
        assert!(found.found.contains("2.0 KB"), "{found:?}");
        assert!(
            !dir.path().join(".doctor-probe").exists(),
            "the probe is removed"
        );
        let missing = data_dir(&dir.path().join("nope"));
        assert!(!missing.ok);
        assert!(missing.fix.unwrap().contains("ARTOO_DATA_DIR"));
    }

    fn config_in(dir: &Path) -> Config {
        let mut config = Config::with_dirs(dir.join("data"), dir.join("ws"));
        config.home = dir.to_path_buf();
        config.llm.local.dir = Some(dir.join("local-llm"));
        config
    }

    #[tokio::test]
    async fn a_built_in_model_not_installed_yet_says_the_first_task_installs_it() {
        let dir = tempfile::tempdir().unwrap();
        let found = model(&config_in(dir.path())).await;
        assert!(!found.ok);
        assert!(
            found.found.contains("not installed yet in ~/local-llm"),
            "{found:?}"
        );
        assert!(found.fix.unwrap().contains("the first task downloads"));
    }

    #[tokio::test]
    async fn an_endpoint_that_does_not_answer_is_named_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config_in(dir.path());
        // A closed port of this machine.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", closed.local_addr().unwrap());
        drop(closed);
        config.use_local_endpoint(&url, "m");
        let found = model(&config).await;
        assert!(!found.ok, "{found:?}");
        assert!(found.found.contains(&url), "{found:?}");
        assert!(found.fix.unwrap().contains("base URL"));
        let half = {
            let mut c = config_in(dir.path());
            c.llm.brain.model = Some("m".into());
            c
        };
        assert!(!model(&half).await.ok, "half a provider");
    }

    #[test]
    fn the_speed_is_a_warning_only_until_it_is_measured() {
        let dir = tempfile::tempdir().unwrap();
        let config = config_in(dir.path());
        let unmeasured = speed(&config);
        assert!(!unmeasured.ok);
        assert!(unmeasured.found.contains("not measured"), "{unmeasured:?}");
        let pace = crate::llm::Pace::load(&config.model_speed_file());
        let key = crate::llm::pace::key(&config.llm.local.model, "http://127.0.0.1:1/v1");
        pace.record(
            &key,
            &crate::llm::pace::Sample {
                prompt: Some((1000, 20_000.0)),
                output: (100, 10_000.0),
            },
        );
        let measured = speed(&config);
        assert!(measured.ok, "{measured:?}");
        assert!(
            measured.found.contains("a typical task takes"),
            "{measured:?}"
        );
    }

    #[tokio::test]
    async fn a_sandbox_turned_off_in_settings_says_so_and_how_to_turn_it_on() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config_in(dir.path());
        config.tools.sandbox = crate::config::SandboxSetting::Off;
        let found = sandbox(&config).await;
        assert!(!found.ok);
        assert!(found.found.contains("turned off in settings"), "{found:?}");
        assert!(found.fix.unwrap().contains("tools.sandbox"));
    }

    #[tokio::test]
    async fn mcp_servers_are_listed_and_one_that_cannot_start_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config_in(dir.path());
        assert_eq!(
            mcp(&config).await,
            vec![Finding::ok("mcp", "no MCP servers are configured")]
        );
        let server = crate::config::McpServerConfig {
            command: Some("/nonexistent/artoo-doctor-mcp".into()),
            enabled: true,
            ..Default::default()
        };
        config.mcp.servers.insert("files".into(), server);
        let found = mcp(&config).await;
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].topic, "mcp server files");
        assert!(!found[0].ok, "{found:?}");
        assert!(
            found[0].found.contains("/nonexistent/artoo-doctor-mcp"),
            "{found:?}"
        );
    }

    #[test]
    fn keys_are_needed_only_for_a_configured_provider() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config_in(dir.path());
        assert!(keys(&config).ok, "the built-in model needs none");
        config.use_local_endpoint("http://127.0.0.1:1/v1", "m");
        let missing = keys(&config);
        assert!(!missing.ok);
        assert!(missing.found.contains("brain and tool"), "{missing:?}");
    }

    #[tokio::test]
    async fn versions_name_artoo_and_the_system() {
        let dir = tempfile::tempdir().unwrap();
        let found = versions(&config_in(dir.path())).await;
        assert!(found.ok);
        assert!(
            found
                .found
                .starts_with(&format!("artoo {} on ", env!("CARGO_PKG_VERSION"))),
            "{found:?}"
        );
    }
}
