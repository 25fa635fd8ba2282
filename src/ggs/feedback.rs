//! Negative feedback against a recalled Best Practice: a negative-σ Megram appended for a
//! stale SOP, because fresh evidence that contradicts an old rule takes its authority
//! away (an episode outweighs a rule that failed it).
//!
//! R2 tells GGS what memory made it prefer for each round: its `MemoryRecall`s, whose
//! SHOULD PREFER constraints of source `sop` name the C rules in force. When that round
//! fails — GGS directs a replan, or abandons with D > δ — every such rule that was
//! *followed* gets one feedback request: a `Megram` write to R5 marked with the rule's id,
//! which R5 turns into `record_negative_feedback` (f and tags taken from the stored rule).
//! Two of them outweigh a rule of full magnitude, so the Dreamer's trust bankruptcy then
//! demotes it.
//!
//! What counts, precisely:
//! - *followed*: a rule that names executor tools was followed when the round called one
//!   of them; a rule that names none was followed by being in force for the plan (R2 was
//!   told to prefer it, and nothing observable says otherwise);
//! - only rules of the task's own kind are corrected (an `intent:` group): the operator's
//!   `global:user` rules are the user's instructions, not learned, and R5 accepts
//!   feedback only against Dreamer-distilled Best Practices;
//! - a round within δ is not a failure (an abandon there is the budget's doing), so it
//!   never produces feedback (Law 3: no misattributed failure).
//!
//! **Invariant:** pure — no IO or clock; at most one feedback request per rule per round,
//! and only for a rule of positive valence that was in force for that round.

use chrono::{DateTime, Utc};

use super::writes;
use crate::contracts::{
    ConstraintKind, ConstraintSource, Megram, MegramId, MemoryRecall, SubTaskOutcome,
};
use crate::text::first_chars;
use crate::tools::ToolName;

/// The space prefix of a task kind's group.
const INTENT_PREFIX: &str = "intent:";
/// Characters of the failed criterion quoted in a feedback Megram.
const CRITERION_CHARS: usize = 160;

/// A Best Practice R2 was told to prefer for one round.
#[derive(Clone, Debug, PartialEq)]
pub struct PreferredRule {
    pub id: MegramId,
    pub space: String,
    pub entity: String,
    pub content: String,
    /// Executor tools the rule names (whole words); empty when it names none.
    pub tools: Vec<ToolName>,
}

/// A feedback request: the Megram GGS publishes and the rule it is against.
#[derive(Clone, Debug, PartialEq)]
pub struct Feedback {
    /// The Best Practice the feedback is about.
    pub rule: MegramId,
    /// The feedback Megram to store in memory.
    pub megram: Megram,
}

/// The Best Practices of an intent group that `recall` put in force as SHOULD PREFER.
pub fn preferred_rules(recall: &MemoryRecall) -> Vec<PreferredRule> {
    if !recall.space.starts_with(INTENT_PREFIX) {
        return Vec::new();
    }
    let mut out: Vec<PreferredRule> = Vec::new();
    for c in recall
        .constraints
        .iter()
        .filter(|c| c.kind == ConstraintKind::ShouldPrefer && c.source == ConstraintSource::Sop)
    {
        for id in &c.megram_ids {
            let Some(sop) = recall.sops.iter().find(|s| s.id == *id && s.sigma > 0.0) else {
                continue;
            };
            if out.iter().any(|r| r.id == sop.id) {
                continue;
            }
            out.push(PreferredRule {
                id: sop.id,
                space: sop.space.clone(),
                entity: sop.entity.clone(),
                content: sop.content.clone(),
                tools: tools_mentioned(&sop.content),
            });
        }
    }
    out
}

/// Executor tool names that occur in `text` as whole words (case-insensitive).
pub fn tools_mentioned(text: &str) -> Vec<ToolName> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    ToolName::CHAIN
        .into_iter()
        .filter(|t| words.contains(&t.as_str()))
        .collect()
}

/// Whether the round followed `rule` (see the module docs).
pub fn followed(rule: &PreferredRule, outcomes: &[&SubTaskOutcome]) -> bool {
    rule.tools.is_empty()
        || outcomes
            .iter()
            .flat_map(|o| o.tool_calls.iter())
            .any(|c| c.tool.builtin().is_some_and(|t| rule.tools.contains(&t)))
}

/// One feedback request per followed rule of a failed round.
pub fn against_followed(
    rules: &[PreferredRule],
    outcomes: &[&SubTaskOutcome],
    round: u32,
    failed_criterion: &str,
    now: DateTime<Utc>,
) -> Vec<Feedback> {
    rules
        .iter()
        .filter(|r| followed(r, outcomes))
        .map(|r| {
            let gap = if failed_criterion.trim().is_empty() {
                "the result fell short".to_string()
            } else {
                first_chars(failed_criterion.trim(), CRITERION_CHARS)
            };
            let content = format!(
                "Best practice {} was followed in round {round} and the round failed ({gap}): \"{}\"",
                r.id, r.content
            );
            Feedback {
                rule: r.id,
                megram: writes::negative_feedback(&r.space, &r.entity, &content, now),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::{
        MemoryAction, Potentials, RecalledConstraint, SOPRecord, SubTaskId, SubTaskStatus, TaskId,
        ToolCallRecord, ToolCallStatus,
    };
    use crate::tools::ToolRef;

    fn recall(space: &str, sops: Vec<SOPRecord>, kind: ConstraintKind) -> MemoryRecall {
        MemoryRecall {
            task_id: TaskId::from_existing("t"),
            space: space.into(),
            entity: "env:local".into(),
            constraints: sops
                .iter()
                .map(|s| RecalledConstraint {
                    kind,
                    text: s.content.clone(),
                    source: ConstraintSource::Sop,
                    megram_ids: vec![s.id],
                })
                .collect(),
            sops,
            potentials: Potentials {
                attention: 0.0,
                decision: 0.0,
                action: MemoryAction::Ignore,
            },
            round: 0,
            error: None,
        }
    }

    fn sop(space: &str, content: &str, sigma: f64) -> SOPRecord {
        SOPRecord {
            id: MegramId::mint(),
            space: space.into(),
            entity: "env:local".into(),
            content: content.into(),
            sigma,
        }
    }

    fn outcome_calling(tool: &str) -> SubTaskOutcome {
        SubTaskOutcome {
            subtask_id: SubTaskId::mint(),
            parent_task_id: TaskId::from_existing("t"),
            status: SubTaskStatus::Failed,
            output: serde_json::Value::Null,
            failure_reason: None,
            gap_trajectory: vec![],
            criteria_verdicts: vec![],
            tool_calls: vec![ToolCallRecord {
                status: ToolCallStatus::Error,
                ..ToolCallRecord::ran(ToolRef::parse(tool), serde_json::json!({}), "x", "")
            }],
        }
    }

    #[test]
    fn only_preferred_rules_of_an_intent_group_with_positive_valence_count() {
        let bp = sop("intent:find_video", "Use mdfind with kind:movie.", 1.0);
        let r = recall(
            "intent:find_video",
            vec![bp.clone()],
            ConstraintKind::ShouldPrefer,
        );
        let rules = preferred_rules(&r);
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].tools, vec![ToolName::Mdfind]);
        let user = recall(
            "global:user",
            vec![sop("global:user", "Answer in French.", 1.0)],
            ConstraintKind::ShouldPrefer,
        );
        assert!(preferred_rules(&user).is_empty(), "the user's rules stand");
        let constraint = recall(
            "intent:x",
            vec![sop("intent:x", "Never use rm.", -1.0)],
            ConstraintKind::MustNot,
        );
        assert!(preferred_rules(&constraint).is_empty());
    }

    #[test]
    fn a_rule_naming_tools_was_followed_only_when_the_round_called_one() {
        let rule = preferred_rules(&recall(
            "intent:a",
            vec![sop("intent:a", "Prefer glob over shell find.", 1.0)],
            ConstraintKind::ShouldPrefer,
        ))
        .remove(0);
        assert_eq!(rule.tools, vec![ToolName::Glob, ToolName::Shell]);
        let searched = outcome_calling("search");
        let globbed = outcome_calling("glob");
        assert!(!followed(&rule, &[&searched]));
        assert!(followed(&rule, &[&searched, &globbed]));
        let now = DateTime::UNIX_EPOCH;
        assert!(
            against_followed(std::slice::from_ref(&rule), &[&searched], 0, "c", now).is_empty()
        );
        let fb = against_followed(
            std::slice::from_ref(&rule),
            &[&globbed],
            2,
            "no file found",
            now,
        );
        assert_eq!(fb.len(), 1);
        assert_eq!(fb[0].rule, rule.id);
        assert_eq!(fb[0].megram.sigma, -1.0);
        assert_eq!(fb[0].megram.space, "intent:a");
        assert!(fb[0].megram.content.contains("round 2"));
        assert!(fb[0].megram.content.contains("no file found"));
        // A prose rule without a tool name was in force, so it was followed.
        let prose = preferred_rules(&recall(
            "intent:a",
            vec![sop("intent:a", "Ask for the folder first.", 1.0)],
            ConstraintKind::ShouldPrefer,
        ))
        .remove(0);
        assert!(followed(&prose, &[]));
        // "globbing" is not the tool's name.
        assert!(tools_mentioned("globbing the shells").is_empty());
    }
}
