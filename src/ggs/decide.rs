//! The macro-state decision: a diagnostic cascade over (Ω, D, |∇L|, P) that covers all
//! 24 cells of the decision table, the Law 2 kill-switch, the replan budget, and ∇L's
//! sign as an urgency modulator.
//!
//! ```text
//! Ω ≥ θ                                             → abandon  (budget pressure)
//! D ≤ δ                                             → success  (regardless of P and ∇L;
//!                                                     accept when R4b accepted, every
//!                                                     sub-task matched and D = 0)
//! kill-switch (∇L > ε on consecutive rounds)        → abandon  (Law 2, regardless of Ω)
//!            P ≤ ρ          P > ρ
//! |∇L| < ε   change_path    break_symmetry
//! |∇L| ≥ ε   refine         change_approach
//! ```
//!
//! Ω < θ and D ≤ δ is success regardless of P and ∇L, so
//! the Law 2 kill-switch sits after the distance test: it stops a run that diverges
//! *away* from its goal, and a round that reached the goal is not diverging, whatever its
//! loss did on the way. A replan directive is overridden by `abandon` when another replan
//! is not allowed: the kill-switch, an exhausted replan budget (one more replan would
//! exceed maxReplans) or R4b's own abandon recommendation (it counts dispatched plans,
//! the same budget). A round within the convergence threshold needs no replan, so none
//! of these three stops delivery.
//!
//! A value within [`BOUNDARY_TOLERANCE`] of a threshold is on the threshold, so float
//! noise (0.6·4/3 = 0.7999999999999999) never flips a decision.
//!
//! **Invariant:** pure — the decision is a function of its arguments only (no clock, IO
//! or tokio), and exactly one macro-state results for any input.

use std::fmt::Write as _;

use crate::config::GgsParams;
use crate::contracts::{Gradient, Loss, MacroState, Urgency};

/// Distance under which a value counts as equal to a threshold.
pub const BOUNDARY_TOLERANCE: f64 = 1e-9;

fn at_least(x: f64, threshold: f64) -> bool {
    x >= threshold - BOUNDARY_TOLERANCE
}

fn at_most(x: f64, threshold: f64) -> bool {
    x <= threshold + BOUNDARY_TOLERANCE
}

/// Everything the decision depends on, for one round of one task.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inputs {
    /// The round's loss and its parts.
    pub loss: Loss,
    /// ∇L = L − L_prev (0 on the first round).
    pub grad_l: f64,
    /// R4b accepted the round (an `OutcomeSummary`) and every sub-task matched.
    pub accepted: bool,
    /// Consecutive rounds, this one included, with ∇L > ε.
    pub worsening_streak: u32,
    /// Replans already directed for the task.
    pub replans: u32,
    /// R4b recommended abandoning (its own plan count is exhausted).
    pub sensor_abandon: bool,
}

/// Why the macro-state was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// R4b accepted, every sub-task matched, D = 0.
    Accepted,
    /// Ω ≥ θ.
    BudgetPressure,
    /// D ≤ δ.
    WithinThreshold,
    /// The action grid chose the directive.
    Grid,
    /// Law 2: ∇L > ε on this many consecutive rounds.
    KillSwitch,
    /// One more replan would exceed maxReplans.
    ReplanBudget,
    /// R4b recommended abandoning.
    SensorAbandon,
}

/// The outcome of [`decide`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The macro-state to move to.
    pub state: MacroState,
    /// Which rule of the cascade decided.
    pub reason: Reason,
    /// What the action grid chose before a guard overrode it (`None` when the cascade
    /// stopped before the grid).
    pub grid: Option<MacroState>,
    /// How hard the round pressed, from Ω and the budget.
    pub urgency: Urgency,
    /// The trend of L, from ∇L against ε.
    pub gradient: Gradient,
}

/// The cascade over the 24 cells, without the accept path and the guards:
/// Ω first, then D, then (|∇L|, P).
pub fn cascade(loss: &Loss, grad_l: f64, params: &GgsParams) -> MacroState {
    if at_least(loss.omega, params.theta) {
        MacroState::Abandon
    } else if within_threshold(loss.d, params) {
        MacroState::Success
    } else {
        grid(grad_l, loss.p, params)
    }
}

/// The action grid for Ω < θ, D > δ.
pub fn grid(grad_l: f64, p: f64, params: &GgsParams) -> MacroState {
    let signal = at_least(grad_l.abs(), params.epsilon);
    let logical = !at_most(p, params.rho);
    match (signal, logical) {
        (false, true) => MacroState::BreakSymmetry,
        (true, true) => MacroState::ChangeApproach,
        (false, false) => MacroState::ChangePath,
        (true, false) => MacroState::Refine,
    }
}

/// Whether D is within the convergence threshold: D ≤ δ (a value on δ is within).
pub fn within_threshold(d: f64, params: &GgsParams) -> bool {
    at_most(d, params.delta)
}

/// Whether ∇L counts as worsening for the kill-switch: strictly above ε.
pub fn is_worsening(grad_l: f64, params: &GgsParams) -> bool {
    !at_most(grad_l, params.epsilon)
}

/// ∇L's sign as an urgency modulator: low when ∇L < −ε, high when ∇L > ε.
pub fn urgency(grad_l: f64, params: &GgsParams) -> Urgency {
    if is_worsening(grad_l, params) {
        Urgency::High
    } else if !at_least(grad_l, -params.epsilon) {
        Urgency::Low
    } else {
        Urgency::Normal
    }
}

/// The trajectory label: improving (∇L < −ε), worsening (∇L > ε), otherwise plateau
/// while D > δ and stable once D ≤ δ.
pub fn gradient_label(grad_l: f64, d: f64, params: &GgsParams) -> Gradient {
    match urgency(grad_l, params) {
        Urgency::Low => Gradient::Improving,
        Urgency::High => Gradient::Worsening,
        Urgency::Normal if within_threshold(d, params) => Gradient::Stable,
        Urgency::Normal => Gradient::Plateau,
    }
}

/// The macro-state of one round.
pub fn decide(inputs: &Inputs, params: &GgsParams, max_replans: u32) -> Decision {
    let loss = &inputs.loss;
    // The cascade, with accept as the D = 0 case of success: Ω ≥ θ abandons on
    // every path (accept included); D ≤ δ delivers regardless of P and ∇L. The Law 2
    // kill-switch, the replan budget and R4b's advice only matter when another replan
    // would be needed; the kill-switch applies regardless of Ω (it is checked first).
    let (state, reason, grid_choice) = match cascade(loss, inputs.grad_l, params) {
        MacroState::Abandon => (MacroState::Abandon, Reason::BudgetPressure, None),
        MacroState::Success if inputs.accepted && at_most(loss.d, 0.0) => {
            (MacroState::Accept, Reason::Accepted, None)
        }
        MacroState::Success => (MacroState::Success, Reason::WithinThreshold, None),
        action => {
            let reason = if inputs.worsening_streak >= params.kill_after_worsening {
                Reason::KillSwitch
            } else if inputs.replans >= max_replans {
                Reason::ReplanBudget
            } else if inputs.sensor_abandon {
                Reason::SensorAbandon
            } else {
                Reason::Grid
            };
            let state = if reason == Reason::Grid {
                action
            } else {
                MacroState::Abandon
            };
            (state, reason, Some(action))
        }
    };
    Decision {
        state,
        reason,
        grid: grid_choice,
        urgency: urgency(inputs.grad_l, params),
        gradient: gradient_label(inputs.grad_l, loss.d, params),
    }
}

/// A human-readable account of the decision that names the numbers that drove it.
pub fn rationale(
    decision: &Decision,
    inputs: &Inputs,
    params: &GgsParams,
    max_replans: u32,
) -> String {
    let Loss { d, p, omega, l } = inputs.loss;
    let g = inputs.grad_l;
    let (eps, delta, theta) = (params.epsilon, params.delta, params.theta);
    let mut s = match decision.reason {
        Reason::Accepted => format!(
            "Accepted: R4b accepted the merged output and every sub-task matched (D={d:.3})."
        ),
        Reason::BudgetPressure => format!(
            "Budget exhausted (Ω={omega:.3} ≥ θ={theta}): {} replan(s) of {max_replans} spent; \
             continuing costs more than the remaining gap (D={d:.3}).",
            inputs.replans
        ),
        Reason::WithinThreshold => format!(
            "Within the convergence threshold (D={d:.3} ≤ δ={delta}) with Ω={omega:.3} < θ={theta}: \
             deliver the result."
        ),
        Reason::Grid => grid_text(decision.state, d, p, g, params),
        Reason::KillSwitch => format!(
            "Law 2 kill-switch: loss worsened on {} consecutive rounds (∇L={g:+.3} > ε={eps}); \
             the run is diverging, so continuing would destroy resources. {}",
            inputs.worsening_streak,
            overridden(decision, d, p, g, params)
        ),
        Reason::ReplanBudget => format!(
            "Replan budget exhausted: {} of {max_replans} replans already directed and D={d:.3} > δ={delta}. {}",
            inputs.replans,
            overridden(decision, d, p, g, params)
        ),
        Reason::SensorAbandon => format!(
            "R4b recommended abandoning (its plan budget is spent) with D={d:.3} > δ={delta}. {}",
            overridden(decision, d, p, g, params)
        ),
    };
    let _ = write!(
        s,
        " [L={l:.3}, ∇L={g:+.3}, urgency {}]",
        match decision.urgency {
            Urgency::Low => "low",
            Urgency::Normal => "normal",
            Urgency::High => "high",
        }
    );
    s
}

fn overridden(decision: &Decision, d: f64, p: f64, g: f64, params: &GgsParams) -> String {
    match decision.grid {
        Some(action) => format!(
            "(The grid alone would have chosen {}: {})",
            action.as_str(),
            grid_text(action, d, p, g, params)
        ),
        None => String::new(),
    }
}

fn grid_text(state: MacroState, d: f64, p: f64, g: f64, params: &GgsParams) -> String {
    let (eps, delta, rho) = (params.epsilon, params.delta, params.rho);
    match state {
        MacroState::BreakSymmetry => format!(
            "Local minimum (|∇L|={:.3} < ε={eps}, D={d:.3} > δ={delta}) with logical failures \
             (P={p:.3} > ρ={rho}): block every tool of the failing sub-tasks and demand a novel approach.",
            g.abs()
        ),
        MacroState::ChangeApproach => format!(
            "Directional signal (|∇L|={:.3} ≥ ε={eps}, D={d:.3} > δ={delta}) with logical failures \
             (P={p:.3} > ρ={rho}): the method is wrong, switch to a different tool class{}.",
            g.abs(),
            if g < 0.0 {
                " — the improving loss is not trusted while the approach is logically wrong"
            } else {
                ""
            }
        ),
        MacroState::ChangePath => format!(
            "Plateau (|∇L|={:.3} < ε={eps}, D={d:.3} > δ={delta}) with environmental failures \
             (P={p:.3} ≤ ρ={rho}): same approach, different target.",
            g.abs()
        ),
        MacroState::Refine => format!(
            "Directional signal (|∇L|={:.3} ≥ ε={eps}, D={d:.3} > δ={delta}) with environmental failures \
             (P={p:.3} ≤ ρ={rho}): keep the approach and tighten its parameters.",
            g.abs()
        ),
        other => format!("{} (D={d:.3}, P={p:.3}, ∇L={g:+.3}).", other.as_str()),
    }
}
