//! Loading, layering, validation and saving of the configuration.
//!
//! **Invariant:** every test passes its environment in explicitly and keeps files in a
//! temporary or nonexistent directory, so none depends on the machine it runs on.

use super::*;
use std::collections::HashMap;

fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn defaults_are_the_seed_hyper_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let c = Config::load(&env(&[("HOME", dir.path().to_str().unwrap())])).unwrap();
    assert_eq!(c.ggs, GgsParams::default());
    assert_eq!(
        (c.ggs.alpha, c.ggs.beta, c.ggs.lambda, c.ggs.w1, c.ggs.w2),
        (0.6, 0.3, 0.4, 0.6, 0.4)
    );
    assert_eq!(
        (c.ggs.epsilon, c.ggs.delta, c.ggs.rho, c.ggs.theta),
        (0.1, 0.3, 0.5, 0.8)
    );
    assert_eq!(c.ggs.kill_after_worsening, 2);
    assert_eq!(
        (
            c.budgets.max_retries,
            c.budgets.max_replans,
            c.budgets.time_budget_ms
        ),
        (2, 3, None),
        "the seed's retries and replans; the task budget follows the model's measured speed"
    );
    assert_eq!(c.data_dir, dir.path().join(".artoo"));
    assert_eq!(c.workspace, dir.path().join("artoo_workspace"));
}

#[test]
fn settings_file_overrides_defaults_and_environment_overrides_both() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join(SETTINGS_FILE),
        "[ggs]\nalpha = 0.5\n[llm.brain]\nmodel = \"from-file\"\nbase_url = \"http://file:1/v1\"\n",
    )
    .unwrap();
    let c = Config::load(&env(&[
        ("HOME", dir.path().to_str().unwrap()),
        ("ARTOO_DATA_DIR", data.to_str().unwrap()),
        ("OPENAI_MODEL", "shared-model"),
        ("OPENAI_BASE_URL", "http://shared:8080/v1"),
        ("OPENAI_API_KEY", "sk-shared"),
        ("TOOL_MODEL", "tool-model"),
    ]))
    .unwrap();
    assert_eq!(c.ggs.alpha, 0.5);
    assert_eq!(c.ggs.beta, 0.3);
    // OPENAI_* is later than the file, so it wins for the brain tier too.
    assert_eq!(c.llm.brain.model.as_deref(), Some("shared-model"));
    assert_eq!(c.llm.tool.model.as_deref(), Some("tool-model"));
    assert_eq!(
        c.llm.tool.base_url.as_deref(),
        Some("http://shared:8080/v1")
    );
    assert_eq!(c.llm.brain.api_key.as_ref().unwrap().expose(), "sk-shared");
    assert!(!format!("{c:?}").contains("sk-shared"));
    c.require_llm().unwrap();
}

#[test]
fn a_value_out_of_range_is_rejected_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(SETTINGS_FILE), "[ggs]\ntheta = 1.5\n").unwrap();
    let err = Config::load(&env(&[
        ("ARTOO_DATA_DIR", dir.path().to_str().unwrap()),
        ("HOME", "/nonexistent-home"),
    ]))
    .unwrap_err();
    assert!(err.to_string().contains("ggs.theta"), "{err}");
}

#[test]
fn an_unknown_or_mistyped_key_is_rejected_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(SETTINGS_FILE);
    std::fs::write(&p, "[ggs]\nalpah = 0.5\n").unwrap();
    let err = Config::load(&env(&[
        ("ARTOO_DATA_DIR", dir.path().to_str().unwrap()),
        ("HOME", "/h"),
    ]))
    .unwrap_err();
    assert!(err.to_string().contains("alpah"), "{err}");
    std::fs::write(&p, "[budgets]\nmax_replans = \"three\"\n").unwrap();
    let err = Config::load(&env(&[
        ("ARTOO_DATA_DIR", dir.path().to_str().unwrap()),
        ("HOME", "/h"),
    ]))
    .unwrap_err();
    assert!(err.to_string().contains("max_replans"), "{err}");
}

#[test]
fn a_bad_base_url_from_the_environment_names_the_tier_field() {
    let dir = tempfile::tempdir().unwrap();
    let err = Config::load(&env(&[
        ("HOME", dir.path().to_str().unwrap()),
        ("BRAIN_BASE_URL", "localhost:8080"),
    ]))
    .unwrap_err();
    assert!(err.to_string().contains("llm.brain.base_url"), "{err}");
}

#[test]
fn missing_tiers_are_reported_with_the_variables_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let c = Config::load(&env(&[("HOME", dir.path().to_str().unwrap())])).unwrap();
    let err = c.require_llm().unwrap_err().to_string();
    assert!(err.contains("brain") && err.contains("BRAIN_*"), "{err}");
}

#[test]
fn nothing_configured_means_the_built_in_model_and_half_configured_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_str().unwrap();
    let c = Config::load(&env(&[("HOME", home)])).unwrap();
    assert_eq!(c.model_source().unwrap(), ModelSource::BuiltIn);
    assert_eq!(c.local_llm_dir(), dir.path().join(".artoo/local-llm"));
    assert_eq!(c.llm.local.model, crate::config::pins::DEFAULT_MODEL);

    let half = Config::load(&env(&[("HOME", home), ("TOOL_MODEL", "m")])).unwrap();
    let err = half.model_source().unwrap_err().to_string();
    assert!(err.contains("brain"), "{err}");

    let mut local = Config::load(&env(&[
        ("HOME", home),
        ("ARTOO_LOCAL_LLM_DIR", "~/models"),
        ("ARTOO_LOCAL_LLM_MODEL", "qwen2.5-coder-0.5b"),
    ]))
    .unwrap();
    assert_eq!(local.local_llm_dir(), dir.path().join("models"));
    local.use_local_endpoint("http://127.0.0.1:9/v1", "qwen2.5-coder-0.5b");
    assert_eq!(local.model_source().unwrap(), ModelSource::Configured);

    let err = Config::load(&env(&[("HOME", home), ("ARTOO_LOCAL_LLM_MODEL", "big")]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("llm.local.model"), "{err}");
}

#[test]
fn a_retired_key_an_older_version_saved_still_loads_but_a_typo_beside_it_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(SETTINGS_FILE);
    let vars = env(&[
        ("ARTOO_DATA_DIR", dir.path().to_str().unwrap()),
        ("HOME", "/h"),
    ]);
    let saved = "[retention]\ntask_logs_days = 7\njournal_days = 30\njournal_mb = 256\n";
    std::fs::write(&p, saved).unwrap();
    assert_eq!(Config::load(&vars).unwrap().retention.task_logs_days, 7);
    std::fs::write(&p, format!("{saved}journal_dayz = 1\n")).unwrap();
    let err = Config::load(&vars).unwrap_err();
    assert!(err.to_string().contains("journal_dayz"), "{err}");
}

#[test]
fn saved_settings_load_back_and_never_contain_keys() {
    let dir = tempfile::tempdir().unwrap();
    let vars = env(&[
        ("HOME", dir.path().to_str().unwrap()),
        ("OPENAI_API_KEY", "sk-secret"),
    ]);
    let c = Config::load(&vars).unwrap();
    let mut s = c.settings();
    s.ggs.rho = 0.4;
    s.ui.language = "zh-CN".into();
    c.save_settings(&s).unwrap();
    let text = std::fs::read_to_string(c.settings_path()).unwrap();
    assert!(!text.contains("sk-secret"));
    let again = Config::load(&vars).unwrap();
    assert_eq!(again.ggs.rho, 0.4);
    assert_eq!(again.ui.language, "zh-CN");

    let mut bad = again.settings();
    bad.ggs.w1 = -1.0;
    let err = again.save_settings(&bad).unwrap_err();
    assert!(err.to_string().contains("ggs.w1"));
}

#[test]
fn home_relative_paths_expand() {
    let c = Config::load(&env(&[
        ("HOME", "/home/u"),
        ("ARTOO_DATA_DIR", "/nonexistent-artoo-test/data"),
        ("ARTOO_WORKSPACE", "~/ws"),
    ]))
    .unwrap();
    assert_eq!(c.workspace, PathBuf::from("/home/u/ws"));
}
