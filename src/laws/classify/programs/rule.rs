//! The shape of the program table: a [`Call`] (one command as a rule sees it), a
//! [`Handler`] and a [`Rule`] row. Every family file builds its rows with [`rule`].
//!
//! **Invariant:** every handler has the same signature, so a rule can be moved between
//! families or added without touching the lookup.

use crate::laws::classify::args::{Arg, Stdin};
use crate::laws::classify::walker::Walker;

/// One command handed to a rule: its folded program name and the words after it.
#[derive(Clone, Copy)]
pub(super) struct Call<'c> {
    pub name: &'c str,
    pub rest: &'c [Arg],
    pub stdin: &'c Stdin,
    /// Arguments a wrapper appends at run time (`xargs`, `find -exec`), in words.
    pub extra: Option<&'c str>,
    pub depth: usize,
    /// The whole command as written.
    pub source: &'c str,
}

/// Records the effects of one command of the programs a rule names.
pub(super) type Handler = fn(&mut Walker<'_>, &Call<'_>);

/// One row of the table: the program names it covers and their handler.
pub(super) struct Rule {
    pub names: &'static [&'static str],
    pub run: Handler,
}

pub(super) const fn rule(names: &'static [&'static str], run: Handler) -> Rule {
    Rule { names, run }
}
