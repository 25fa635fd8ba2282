//! Range checks for every configured value, one function per settings section.
//!
//! **Invariant:** [`Config::validate`] checks sections in a fixed order (ggs, budgets,
//! memory, laws and MCP, tools, llm, auditor, retention, ui) and stops at the first bad
//! value, so the error always names that one field.

use std::fmt;

use super::{Config, ConfigError, invalid};

impl Config {
    /// Checks every value against its documented range, naming the first bad field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_ggs()?;
        self.validate_budgets()?;
        self.validate_memory()?;
        self.validate_laws_and_mcp()?;
        self.validate_tools()?;
        self.validate_llm()?;
        self.validate_auditor_and_retention()?;
        self.validate_ui()
    }

    fn validate_ggs(&self) -> Result<(), ConfigError> {
        let g = &self.ggs;
        non_negative("ggs.alpha", g.alpha)?;
        non_negative("ggs.beta", g.beta)?;
        non_negative("ggs.lambda", g.lambda)?;
        unit("ggs.w1", g.w1)?;
        unit("ggs.w2", g.w2)?;
        if g.w1 + g.w2 <= 0.0 {
            return Err(invalid("ggs.w2", "w1 + w2 must be > 0"));
        }
        if !(g.epsilon.is_finite() && g.epsilon > 0.0) {
            return Err(invalid("ggs.epsilon", format!("{} must be > 0", g.epsilon)));
        }
        unit("ggs.delta", g.delta)?;
        unit("ggs.rho", g.rho)?;
        unit("ggs.theta", g.theta)?;
        if g.theta == 0.0 {
            return Err(invalid("ggs.theta", "0 would abandon every task"));
        }
        positive("ggs.kill_after_worsening", g.kill_after_worsening)
    }

    fn validate_budgets(&self) -> Result<(), ConfigError> {
        let b = &self.budgets;
        positive("budgets.max_replans", b.max_replans)?;
        if let Some(ms) = b.time_budget_ms {
            positive("budgets.time_budget_ms", ms)?;
        }
        positive("budgets.executor_max_steps", b.executor_max_steps)
    }

    fn validate_memory(&self) -> Result<(), ConfigError> {
        let m = &self.memory;
        non_negative("memory.attention_floor", m.attention_floor)?;
        if !(m.exploit_above.is_finite() && m.exploit_above >= 0.0) {
            return Err(invalid("memory.exploit_above", "must be ≥ 0"));
        }
        if !(m.avoid_below.is_finite() && m.avoid_below <= 0.0) {
            return Err(invalid("memory.avoid_below", "must be ≤ 0"));
        }
        non_negative("memory.gc_below", m.gc_below)?;
        positive("memory.consolidate_attention", m.consolidate_attention)?;
        positive("memory.consolidate_decision", m.consolidate_decision)?;
        positive("memory.dreamer_period_secs", m.dreamer_period_secs)?;
        positive("memory.max_constraints", m.max_constraints)
    }

    fn validate_laws_and_mcp(&self) -> Result<(), ConfigError> {
        positive("laws.confirm_timeout_secs", self.laws.confirm_timeout_secs)?;
        // The settings-driven limits must also fit the fixed ones (an answer's grace
        // period ends before the confirmation window does).
        self.limits().check().map_err(|e| {
            let field = match e.field {
                "answer_grace" | "confirm_timeout" => "laws.confirm_timeout_secs",
                "task_budget" => "budgets.time_budget_ms",
                other => other,
            };
            invalid(field, e.reason)
        })?;
        positive("mcp.connect_timeout_secs", self.mcp.connect_timeout_secs)?;
        positive("mcp.call_timeout_secs", self.mcp.call_timeout_secs)?;
        for (name, server) in &self.mcp.servers {
            server
                .validate(name)
                .map_err(|why| invalid(&format!("mcp.servers.{name}"), why))?;
        }
        Ok(())
    }

    fn validate_tools(&self) -> Result<(), ConfigError> {
        let t = &self.tools;
        positive("tools.shell_timeout_secs", t.shell_timeout_secs)?;
        if t.output_limit_chars < 100 {
            return Err(invalid(
                "tools.output_limit_chars",
                format!("{} is too small (minimum 100)", t.output_limit_chars),
            ));
        }
        positive("tools.read_limit_bytes", t.read_limit_bytes)?;
        positive("tools.search_timeout_secs", t.search_timeout_secs)?;
        positive("tools.walk_limit_entries", t.walk_limit_entries)?;
        check_url("tools.search_url", &t.search_url)
    }

    fn validate_llm(&self) -> Result<(), ConfigError> {
        let l = &self.llm;
        positive("llm.connect_timeout_secs", l.connect_timeout_secs)?;
        if let Some(secs) = l.call_timeout_secs {
            positive("llm.call_timeout_secs", secs)?;
        }
        positive("llm.max_attempts", l.max_attempts)?;
        for (field, tier) in [("llm.brain", &l.brain), ("llm.tool", &l.tool)] {
            if let Some(url) = &tier.base_url {
                check_url(&format!("{field}.base_url"), url)?;
            }
            if tier.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
                return Err(invalid(&format!("{field}.model"), "must not be empty"));
            }
        }
        if crate::config::pins::ModelSpec::find(&l.local.model).is_none() {
            let names: Vec<&str> = crate::config::pins::MODELS.iter().map(|m| m.name).collect();
            return Err(invalid(
                "llm.local.model",
                format!("{:?} is not one of {}", l.local.model, names.join(", ")),
            ));
        }
        Ok(())
    }

    fn validate_auditor_and_retention(&self) -> Result<(), ConfigError> {
        positive(
            "auditor.report_period_secs",
            self.auditor.report_period_secs,
        )?;
        positive(
            "auditor.drift_window_tasks",
            self.auditor.drift_window_tasks,
        )?;
        let r = &self.retention;
        positive("retention.task_logs_days", r.task_logs_days)?;
        positive("retention.task_logs_mb", r.task_logs_mb)?;
        positive("retention.audit_days", r.audit_days)?;
        positive("retention.audit_mb", r.audit_mb)?;
        positive("retention.trash_days", r.trash_days)?;
        positive("retention.trash_mb", r.trash_mb)
    }

    fn validate_ui(&self) -> Result<(), ConfigError> {
        if !matches!(self.ui.language.as_str(), "en" | "zh-CN") {
            return Err(invalid(
                "ui.language",
                format!("{:?} is not one of \"en\", \"zh-CN\"", self.ui.language),
            ));
        }
        if self.ui.hotkey.trim().is_empty() {
            return Err(invalid("ui.hotkey", "must not be empty"));
        }
        Ok(())
    }
}

fn unit(field: &str, v: f64) -> Result<(), ConfigError> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(invalid(field, format!("{v} is not in [0, 1]")))
    }
}

fn non_negative(field: &str, v: f64) -> Result<(), ConfigError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(invalid(field, format!("{v} must be a finite number ≥ 0")))
    }
}

fn positive<T: PartialOrd + Default + fmt::Display>(field: &str, v: T) -> Result<(), ConfigError> {
    if v > T::default() {
        Ok(())
    } else {
        Err(invalid(field, format!("{v} must be > 0")))
    }
}

fn check_url(field: &str, url: &str) -> Result<(), ConfigError> {
    let ok = (url.starts_with("http://") || url.starts_with("https://"))
        && url.len() > "https://".len()
        && !url.contains(char::is_whitespace);
    if ok {
        Ok(())
    } else {
        Err(invalid(field, format!("{url:?} is not an http(s) URL")))
    }
}
