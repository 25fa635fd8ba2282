//! The reply R4b's model fills when every sub-task of a round matched — the merged data
//! and a verdict per task criterion — and the check it must pass before code reads it.
//!
//! **Invariant:** a judgement reaches the fan-in only with one verdict per task criterion
//! and a non-empty merge; anything else is re-asked by the model layer, then treated as
//! no judgement at all.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::super::agent_validator::{CriterionJudgement, check_judgements};
use crate::contracts::Criterion;

/// R4b's answer about one round in which every sub-task matched. Property order in the
/// schema is alphabetical: the merge comes first, then the verdicts, then the summary.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct MergeJudgement {
    /// The merged result as concrete data taken from the sub-task outputs — the list, the
    /// numbers, the paths or the text the user asked for — never a description of what
    /// was done.
    pub combined_output: Value,
    /// One entry per task criterion, in the order given, judged against
    /// `combined_output`.
    pub criteria: Vec<CriterionJudgement>,
    /// One or two sentences for the user that state the result.
    pub summary: String,
}

/// The semantic check of R4b's reply: a verdict per criterion, and a merged output. An
/// empty list is data ("nothing matched" is an answer); null, an empty string or an
/// empty object is a merge the model left out.
pub fn check_merge(criteria: &[Criterion], judgement: &MergeJudgement) -> Result<(), String> {
    check_judgements(criteria, &judgement.criteria)?;
    let empty = match &judgement.combined_output {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    if empty {
        return Err(
            "`combined_output` must hold the merged data from the sub-task outputs".to_string(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(met: bool) -> CriterionJudgement {
        CriterionJudgement {
            criterion: "c".into(),
            evidence: "e".into(),
            met,
            unmet_cause: None,
        }
    }

    #[test]
    fn an_empty_merge_is_not_a_usable_answer() {
        let one = [Criterion::new("c")];
        let two = [Criterion::new("c"), Criterion::new("d")];
        let mut j = MergeJudgement {
            combined_output: Value::Null,
            criteria: vec![judged(true)],
            summary: "s".into(),
        };
        assert!(check_merge(&one, &j).is_err());
        j.combined_output = Value::String("  ".into());
        assert!(check_merge(&one, &j).is_err());
        j.combined_output = serde_json::json!(["a.txt"]);
        assert!(check_merge(&one, &j).is_ok());
        j.combined_output = serde_json::json!([]);
        assert!(check_merge(&one, &j).is_ok(), "an empty list is an answer");
        assert!(check_merge(&two, &j).is_err());
    }
}
