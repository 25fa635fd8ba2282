//! The pieces every view is built from: ANSI paint that can be switched off, and the
//! short spellings of numbers, losses, memory groups and enum values that the pipeline
//! lines, the result block and the replay share.
//!
//! **Invariant:** pure formatting; with paint disabled nothing here emits an escape
//! sequence, and the same value is always spelled the same way in every view.

use serde_json::Value;

use artoo::contracts::{Gradient, Loss, Potentials, TerminalDirective};

/// ANSI styling, or none (pipes, files, tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paint {
    pub enabled: bool,
}

impl Paint {
    #[cfg(test)]
    pub const PLAIN: Paint = Paint { enabled: false };

    fn wrap(self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    pub fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    pub fn green(self, text: &str) -> String {
        self.wrap("32", text)
    }

    pub fn red(self, text: &str) -> String {
        self.wrap("31", text)
    }

    pub fn yellow(self, text: &str) -> String {
        self.wrap("33", text)
    }
}

/// The arrow of a trajectory label: ↑ worsening, ↓ improving, ⊥ plateau, → stable.
pub fn arrow(gradient: Gradient) -> &'static str {
    match gradient {
        Gradient::Worsening => "↑",
        Gradient::Improving => "↓",
        Gradient::Plateau => "⊥",
        Gradient::Stable => "→",
    }
}

pub(super) use artoo::text::plural;

pub(super) fn f2(x: f64) -> String {
    format!("{x:.2}")
}

pub(super) fn signed(x: f64) -> String {
    format!("{x:+.2}")
}

pub(super) fn pct(x: f64) -> String {
    format!("{}%", (x * 100.0).round())
}

/// `D=… P=… ∇L=… Ω=…` with the arrow of the trajectory label.
pub(super) fn loss_line(loss: &Loss, grad_l: f64, gradient: Gradient) -> String {
    format!(
        "{} D={} P={} ∇L={} Ω={}",
        arrow(gradient),
        f2(loss.d),
        f2(loss.p),
        signed(grad_l),
        pct(loss.omega)
    )
}

pub(super) fn snake<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

/// `[space / entity] Action att … dec …`: a memory group with its live potentials.
pub(super) fn group(space: &str, entity: &str, p: &Potentials) -> String {
    format!(
        "[{space} / {entity}] {:?} att {} dec {}",
        p.action,
        f2(p.attention),
        signed(p.decision)
    )
}

/// Whether a terminal directive is a success.
pub fn succeeded(directive: TerminalDirective) -> bool {
    directive != TerminalDirective::Abandon
}

pub(super) fn seconds(ms: u64) -> String {
    format!("{:.1}", ms as f64 / 1000.0)
}
