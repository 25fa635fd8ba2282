//! The short spellings of numbers, losses, memory groups and enum values that the message
//! lines use, and that every other view of the same values (the CLI's result block and
//! replay) borrows so a value reads the same everywhere.
//!
//! **Invariant:** pure formatting; the same value is always spelled the same way.

use serde_json::Value;

use crate::contracts::{Gradient, Loss, Potentials, TerminalDirective};

/// The arrow of a trajectory label: ↑ worsening, ↓ improving, ⊥ plateau, → stable.
pub fn arrow(gradient: Gradient) -> &'static str {
    match gradient {
        Gradient::Worsening => "↑",
        Gradient::Improving => "↓",
        Gradient::Plateau => "⊥",
        Gradient::Stable => "→",
    }
}

/// Two decimals.
pub fn f2(x: f64) -> String {
    format!("{x:.2}")
}

/// Two decimals with the sign always written.
pub fn signed(x: f64) -> String {
    format!("{x:+.2}")
}

/// A fraction as a whole percentage.
pub fn pct(x: f64) -> String {
    format!("{}%", (x * 100.0).round())
}

/// Milliseconds as seconds with one decimal.
pub fn seconds(ms: u64) -> String {
    format!("{:.1}", ms as f64 / 1000.0)
}

/// `D=… P=… ∇L=… Ω=…` after the arrow of the trajectory label.
pub fn loss_line(loss: &Loss, grad_l: f64, gradient: Gradient) -> String {
    format!(
        "{} D={} P={} ∇L={} Ω={}",
        arrow(gradient),
        f2(loss.d),
        f2(loss.p),
        signed(grad_l),
        pct(loss.omega)
    )
}

/// A serde unit variant's name as it is written on the wire (`change_path`, `on-demand`);
/// empty for anything that is not written as a string.
pub fn snake<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

/// `[space / entity] Action att … dec …`: a memory group with its live potentials.
pub fn group(space: &str, entity: &str, p: &Potentials) -> String {
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
