//! The pieces every view is built from: ANSI paint that can be switched off, and the
//! short spellings of numbers, losses, memory groups and enum values, which are the
//! core's (`artoo::describe::spell`), so the pipeline lines the core writes and the
//! result block and the replay drawn here spell a value alike.
//!
//! **Invariant:** pure formatting; with paint disabled nothing here emits an escape
//! sequence, and the same value is always spelled the same way in every view.

pub(super) use artoo::describe::spell::{arrow, f2, group, pct, seconds, signed, snake, succeeded};
pub(super) use artoo::text::plural;

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
