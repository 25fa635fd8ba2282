//! Pure rendering for the CLI, one file per view: the live pipeline lines (`live`),
//! the Law 1 prompt (`confirm`), the block after a task (`result`), `/memory`
//! (`memory`), the run list (`runs`) and `/replay` (`replay`), all built from the
//! shared pieces in `text`.
//!
//! **Invariant:** nothing here does IO or reads the clock, so every shape is unit-tested;
//! the views import `text` and never this file.

mod confirm;
mod live;
mod memory;
#[cfg(test)]
mod recorded;
mod replay;
mod result;
mod runs;
mod text;

pub use self::confirm::{
    confirmation_keys, confirmation_prompt, confirmation_question, sandbox_notice,
};
pub use self::live::{LineStyle, pipeline_lines, shown};
pub use self::memory::{megram_rows, memory_groups};
pub use self::replay::trajectory;
pub use self::result::result_block;
pub use self::runs::run_list;
pub use self::text::Paint;
