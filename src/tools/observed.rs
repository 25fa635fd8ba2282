//! Law 1 by observation: a shell command whose effects are local files runs first in
//! the sandbox; what its layer holds that Law 1 cares about is put to the user with the
//! measured effects, and applied exactly (not run again) on approval, with every
//! original kept in artoo's private trash, or discarded on a denial.
//!
//! **Invariant:** a held layer is either applied whole after the user approved it, or
//! dropped; the same measured effect denied once in a task is never asked again.

use std::path::PathBuf;

use super::gate::{Granted, call_line, denied_before, effect_verb, error_outcome, why_not};
use super::{Law1Action, Prepared, ToolContext, ToolOutcome, sandbox, trash};
use crate::contracts::Decision;
use crate::laws::broker::GatedAction;
use crate::laws::classify::{self, Assessment};
use crate::text::{Keep, elide_middle};

/// How a held layer's question ended.
pub(super) struct HeldAnswer {
    /// The call's outcome.
    pub(super) outcome: ToolOutcome,
    /// The decision, when one was made.
    pub(super) decision: Option<Decision>,
    /// The standing approval that answered without asking, if one did.
    pub(super) granted: Granted,
}

impl HeldAnswer {
    fn new(outcome: ToolOutcome, decision: Option<Decision>) -> Self {
        Self {
            outcome,
            decision,
            granted: Granted::default(),
        }
    }
}

/// Asks the user about a held layer with its measured effects; applies exactly it on
/// approval (deletions to the Trash when chosen), discards it otherwise. A standing
/// grant by effect may answer instead of the user, for a task that read nothing from
/// outside this computer.
pub(super) async fn answer_held(
    ctx: &ToolContext,
    prepared: &Prepared,
    held: sandbox::Held,
    output: String,
) -> HeldAnswer {
    let effects: Vec<sandbox::Measured> = held.effects().to_vec();
    let signatures: Vec<String> = effects
        .iter()
        .map(|m| classify::path_signature(effect_verb(m.verb), &m.path))
        .collect();
    let limit = ctx.config.tools.output_limit_chars;
    let quiet = output.trim().is_empty() || output.trim() == "(no output)";
    let printed = if quiet {
        String::new()
    } else {
        format!(
            "\nWhat the command printed in the sandbox:\n{}",
            elide_middle(&output, limit, Keep::MostlyEnd)
        )
    };
    if let Some(denied) = ctx.broker.denied(&ctx.task_id, &signatures) {
        drop(held);
        return HeldAnswer::new(denied_before(&denied), None);
    }
    let lines = sandbox::describe_measured(&effects, &ctx.config.home);
    let deletions: Vec<PathBuf> = effects
        .iter()
        .filter(|m| m.verb == "delete")
        .map(|m| m.path.clone())
        .collect();
    let only_deletions = deletions.len() == effects.len();
    let command = prepared
        .action
        .as_ref()
        .map_or_else(|| call_line(prepared), Law1Action::command);
    let empty = Assessment::reversible();
    let mut request = ctx.broker.request_for(GatedAction {
        task_id: &ctx.task_id,
        subtask_id: Some(ctx.subtask_id),
        tool: &prepared.tool,
        command: &command,
        assessment: &empty,
    });
    request.description = sandbox::held_dialog(&effects, &ctx.config.home);
    request.paths = effects.iter().map(sandbox::Measured::path_effect).collect();
    request.reversible = false;
    request.can_trash = only_deletions;
    request.reversible_alternative = only_deletions
        .then(|| "Move them to the Trash instead (they can be put back).".to_string());
    if !ctx.task_calls.read_untrusted() {
        ctx.broker.offer_effect_grant(&mut request);
    }
    let summary = lines.join("; ");
    let answer = ctx
        .broker
        .confirm_effects(request, &signatures, &ctx.cancel)
        .await;
    let decision = Some(answer.decision);
    let granted = Granted {
        scope: answer.granted,
        grant: answer.grant.clone(),
    };
    let deletions_to = match answer.decision {
        Decision::Approve => sandbox::Deletions::PrivateTrash,
        Decision::Trash if only_deletions => sandbox::Deletions::AlreadyTrashed,
        Decision::Trash | Decision::Deny => {
            drop(held);
            let reason = format!(
                "[LAW1] {}: {summary}. Nothing was changed. Do not retry this action or a variant of it; report that it was not done.{printed}",
                why_not(ctx, answer.source)
            );
            return HeldAnswer::new(ToolOutcome::Denied { reason }, decision);
        }
    };
    let trashed = if deletions_to == sandbox::Deletions::AlreadyTrashed {
        if let Err(e) = held.unchanged() {
            return HeldAnswer::new(refused_commit(&e.to_string()), decision);
        }
        match trash::move_to_trash(&deletions).await {
            Ok(text) => Some(text),
            Err(e) => return HeldAnswer::new(error_outcome(&e), decision),
        }
    } else {
        None
    };
    let originals = ctx.journal().originals(ctx.task_id.as_ref());
    let committed =
        tokio::task::spawn_blocking(move || held.commit(&originals, deletions_to)).await;
    match committed {
        Ok(Ok(done)) => {
            for effect in &done.applied {
                ctx.effects.note(effect.clone());
            }
            let unjournaled = ctx.journal_changes(&done.journaled);
            let mut text = if quiet {
                String::new()
            } else {
                format!("{}\n", output.trim_end())
            };
            match &granted.grant {
                Some(class) => text.push_str(&format!(
                    "Applied under the user's standing grant \"{}\": {summary}.",
                    class.words
                )),
                None => text.push_str(&format!("Applied after the user approved: {summary}.")),
            }
            if let Some(t) = trashed {
                text.push_str(&format!("\n{t}"));
            }
            if let Some(dir) = done.originals {
                text.push_str(&format!(" The originals are kept in {}.", dir.display()));
            }
            if let Some(line) = unjournaled {
                text.push_str(&format!("\n{line}"));
            }
            HeldAnswer {
                outcome: ToolOutcome::Ok { output: text },
                decision,
                granted,
            }
        }
        Ok(Err(e)) => HeldAnswer::new(refused_commit(&e.to_string()), decision),
        Err(e) => HeldAnswer::new(refused_commit(&e.to_string()), decision),
    }
}

/// A held layer that could not be applied after all.
fn refused_commit(why: &str) -> ToolOutcome {
    ToolOutcome::Refused {
        reason: format!("The approved changes were not applied: {why}."),
    }
}
