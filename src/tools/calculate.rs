//! `calculate`: arithmetic and calendar facts computed by code ([`crate::calc`]), as a
//! tool the executor calls, so that a sum, a percentage, a date some days on or the days
//! between two dates is never the model's guess nor a `date -d` expression the shell
//! misreads — and the value is a tool result the validators can hold the answer to.
//!
//! Read-only and pure: it touches nothing and never needs Law 1.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::{
    Choices, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// The calculate tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct Calculate;

const PARAMS: &[Param] = &[Param {
    name: Cow::Borrowed("expression"),
    kind: Cow::Borrowed("string"),
    required: true,
    about: Cow::Borrowed(
        "arithmetic (\"(120 + 80) * 0.15\"), a date and a duration (\"90 days after \
         2025-11-17\"), two dates (\"from 2024-01-10 to 2024-03-01\"), one date (its \
         day of the week), or a quantity and the unit wanted (\"26.2 miles in km\")",
    ),
    choices: Choices::Open,
}];

/// What the tool prints for `expression`: one line per fact, or why nothing was computed.
pub fn evaluate(expression: &str) -> Result<String, ToolError> {
    let lines: Vec<String> = crate::calc::computed_lines(expression)
        .into_iter()
        .map(|line| {
            line.strip_prefix("Computed by code: ")
                .map(str::to_string)
                .unwrap_or(line)
        })
        .collect();
    if lines.is_empty() {
        return Err(ToolError::InvalidInput(format!(
            "nothing to compute in {expression:?}: write arithmetic with numbers and \
             operators (12 * 3 + 4), a date with a duration (90 days after 2025-11-17), \
             two dates (from 2024-01-10 to 2024-03-01), one date, or a quantity and a unit \
             (26.2 miles in km); dates as YYYY-MM-DD"
        )));
    }
    Ok(lines.join("\n"))
}

impl Tool for Calculate {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::Calculate.into(),
            priority: 4,
            summary: Cow::Borrowed(
                "Exact arithmetic and dates: sums, products, percentages, a date some days, \
                 weeks, months or years before or after another, the days between two dates, \
                 a date's day of the week, unit conversions.",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let expression = super::str_param(input, "expression")?.trim().to_string();
        Ok(Prepared::plain(
            ToolName::Calculate,
            json!({ "expression": expression }),
            expression,
        ))
    }

    fn run<'a>(&'a self, call: &'a Prepared, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { evaluate(super::str_param(&call.input, "expression")?) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_arithmetic_are_computed_and_nothing_else_is_invented() {
        let moved = evaluate("90 days after 2025-11-17").expect("a date fact");
        assert!(moved.contains("2026-02-15"), "{moved}");
        assert!(!moved.contains("Computed by code"), "{moved}");
        let span = evaluate("from 2024-01-10 to 2024-03-01").expect("a span");
        assert!(span.contains("51 days"), "{span}");
        let day = evaluate("14 March 2026").expect("a date alone");
        assert!(day.contains("2026-03-14 is a Saturday"), "{day}");
        let sum = evaluate("(120 + 80) * 0.15").expect("arithmetic");
        assert!(sum.contains("= 30"), "{sum}");
        let Err(ToolError::InvalidInput(why)) = evaluate("the average of the scores") else {
            panic!("words are not a calculation");
        };
        assert!(why.contains("nothing to compute"), "{why}");
    }
}
