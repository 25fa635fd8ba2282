//! R7 Goal Gradient Solver: the controller of the medium loop. R4b is the sensor, R2 the
//! actuator; GGS turns each round's
//! verdicts into a loss L = αD + β(1−Ω)P + λΩ, its change ∇L, and one macro-state — a
//! `PlanDirective` that tells R2 what kind of change to make, or a `FinalResult`.
//!
//! - [`loss`] — D, P, Ω, L and ∇L (pure).
//! - [`decide`] — the 24-cell cascade, the Law 2 kill-switch, the replan budget, urgency,
//!   the gradient label and the rationale (pure).
//! - [`evidence`] — failed inputs, blocked tools and Law 1 gates from the structured
//!   `ToolCallRecord`s.
//! - [`writes`] — the quantization matrix and the Megrams GGS writes.
//! - [`feedback`] — negative feedback against a followed Best Practice of a failed round.
//! - [`graceful`] — the code-built graceful failure.
//! - [`state`] — per-task state across rounds; one round → one [`Step`].
//! - [`role`] — the bus role ([`Ggs`]).
//!
//! **Invariant:** `ggs::loss` and `ggs::decide` are pure functions, tested without tokio;
//! GGS is the only emitter of `FinalResult` and the only writer of Megrams.

pub mod decide;
pub mod evidence;
pub(crate) mod feedback;
pub mod graceful;
pub mod grounding;
pub mod loss;
pub mod role;
pub(crate) mod state;
pub mod writes;

pub use feedback::Feedback;
pub use role::Ggs;
pub use state::{Finish, Observation, PendingAbandon, Settings, Step, TaskState};
