//! Checks code makes of a delivered answer, below the roles that apply them: the
//! verifiable part of the distance D that no model judges. A check either passes or
//! names, in plain words, what the answer lacks; the role that applies it decides what a
//! failure does to the round.
//!
//! - [`asks`]: the shape a question's opening fixes ("which …" an item, "how many …" a
//!   number), where a model's choice contradicts it.
//! - [`claims`]: the effects an answer reports have calls behind them: a deletion, a move
//!   or the request's own change told as done, an action, a path the user wrote.
//! - [`column`]: "which <column>" is answered by a value of that column the tools printed.
//! - [`compare`]: a choice between named items goes to the one the printed numbers favour.
//! - [`criteria`]: the closed vocabulary of checks a criterion carries (a file at a path,
//!   with a text; a path emptied; a value stated; a line of a file quoted), met or not by
//!   the files and the answer.
//! - [`labels`]: the answer's number is one the tools printed for what the request asks
//!   about, not for another thing beside it (blank lines for lines with text).
//! - [`names`]: what a token is (a file's name), read the same way by every check.
//! - [`operands`]: a number the request states is used by a call or held by the answer.
//! - [`ranked`]: the n-th of groups ranked by their counts ("the second most common").
//! - [`said`]: what every account check reads alike — a request's opening verb, an
//!   answer's negation, whether the calls changed anything.
//! - [`selection`]: a line quoted from a file holds the word the request selects lines
//!   by, when the file shows that word marks some of its lines.
//! - [`shape`]: the answer has the kind of content the request asked for (an item's name,
//!   a number, a value per group, a date, a written file).
//! - [`units`]: a number's unit is the one the tools printed it with (a size in bytes is
//!   not a count of lines).
//! - [`unmade`]: a change asked of what exists is answered by a change on record, a
//!   decline, or an account that it was not made — never by how things are.
//! - [`whole`]: "how many" of only some items is not answered with the count of all of
//!   them that a read showed.

pub mod asks;
pub mod claims;
pub mod column;
pub mod compare;
pub mod criteria;
pub mod labels;
pub mod names;
pub mod operands;
pub mod ranked;
pub(crate) mod said;
pub mod selection;
pub mod shape;
pub mod units;
pub mod unmade;
pub mod whole;
