//! The Law 1 prompt: what the executor asks to do, where, whether it can be undone, the
//! exact command, and the answers the request offers; plus the warning when a session
//! runs without the sandbox.
//!
//! **Invariant:** the prompt shows the exact command and says plainly when an action
//! cannot be undone, and it offers only the answers the request allows (task scope,
//! "always" with a named grant, Trash when trashing is possible).

use artoo::contracts::{ApprovalScope, ConfirmationRequest};

use super::text::Paint;

/// A Law 1 request as the user must see it before answering: what, where, whether it
/// can be undone, and the exact command.
pub fn confirmation_prompt(request: &ConfirmationRequest, paint: Paint) -> Vec<String> {
    let mut lines = vec![
        p_law1(paint, request.tool.as_str(), request.reversible),
        // One effect per line (and one per operation the sandbox refused), aligned.
        format!(
            "  effect:     {}",
            request.description.replace('\n', "\n              ")
        ),
        format!("  command:    {}", request.command),
    ];
    for path in &request.paths {
        lines.push(format!(
            "  path:       {} {}{}",
            path.effect,
            path.path.display(),
            if path.exists {
                ""
            } else {
                " (does not exist yet)"
            }
        ));
    }
    lines.push(format!(
        "  reversible: {}",
        if request.reversible {
            "yes"
        } else {
            "NO — this cannot be undone"
        }
    ));
    if let Some(alt) = &request.reversible_alternative {
        lines.push(format!("  instead:    {alt}"));
    }
    if let Some(grant) = &request
        .grant
        .as_ref()
        .filter(|_| request.scopes.contains(&ApprovalScope::Always))
    {
        lines.push(format!(
            "  always:     would allow `{}` of the MCP server `{}` ({}) in every task, until revoked",
            grant.tool, grant.server, grant.origin
        ));
    } else if let Some(class) = &request
        .effect_grant
        .as_ref()
        .filter(|_| request.scopes.contains(&ApprovalScope::Always))
    {
        lines.push(format!(
            "  always:     would allow {} in every task, until revoked (`artoo grants`)",
            class.words
        ));
    }
    lines.push(format!(
        "  expires:    {} (then it is denied)",
        request.expires_at.format("%H:%M:%S UTC")
    ));
    lines
}

fn p_law1(paint: Paint, tool: &str, reversible: bool) -> String {
    paint.yellow(&format!(
        "⚠ Law 1: the executor asks to run {} action with `{tool}`",
        if reversible {
            "a gated"
        } else {
            "an irreversible"
        }
    ))
}

/// The warning shown when a session starts without the sandbox (`None` while it is
/// on): why it is off, and that every command artoo cannot prove harmless asks.
pub fn sandbox_notice(status: &artoo::tools::sandbox::Status, paint: Paint) -> Option<String> {
    (!status.is_on()).then(|| paint.yellow(&format!("⚠ Law 1: {}", status.describe())))
}

/// The answers a request offers, as (key, label), in the order the prompt shows them:
/// `s` only when the task scope is offered, `a` only with a named grant (an MCP tool or
/// a class of file changes), `t` only when Trash is offered.
fn confirmation_choices(request: &ConfirmationRequest) -> Vec<(&'static str, &'static str)> {
    let mut choices = vec![("y", "[y]es, once")];
    if request.scopes.contains(&ApprovalScope::Task) {
        choices.push(("s", "[s]ame for the rest of this task"));
    }
    if request.scopes.contains(&ApprovalScope::Always) {
        if request.grant.is_some() {
            choices.push(("a", "[a]lways allow this tool"));
        } else if request.effect_grant.is_some() {
            choices.push(("a", "[a]lways allow this kind of change here"));
        }
    }
    choices.push(("n", "[n]o"));
    if request.can_trash {
        choices.push(("t", "[t] move to Trash instead"));
    }
    choices
}

/// The question of the Law 1 prompt.
pub fn confirmation_question(request: &ConfirmationRequest) -> String {
    let labels: Vec<&str> = confirmation_choices(request)
        .into_iter()
        .map(|(_, label)| label)
        .collect();
    format!("Approve? {}: ", labels.join(" / "))
}

/// The keys that answer a request, for the reminder after an unclear answer.
pub fn confirmation_keys(request: &ConfirmationRequest) -> Vec<&'static str> {
    confirmation_choices(request)
        .into_iter()
        .map(|(key, _)| key)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use artoo::contracts::{Message, MessageKind};
    use artoo::testkit::samples::*;

    #[test]
    fn a_session_without_the_sandbox_starts_with_a_warning_saying_why() {
        use artoo::tools::sandbox::Status;
        let plain = Paint { enabled: false };
        assert_eq!(sandbox_notice(&Status::On("bubblewrap"), plain), None);
        let off = sandbox_notice(
            &Status::Off("bubblewrap (bwrap) is not installed".into()),
            plain,
        )
        .expect("a warning");
        assert!(
            off.contains("the sandbox is off: bubblewrap (bwrap) is not installed"),
            "{off}"
        );
        assert!(off.contains("asks first"), "{off}");
    }

    /// The sample Law 1 request of the test kit.
    fn sample_request() -> ConfirmationRequest {
        let Message::ConfirmationRequest(request) = samples()
            .into_iter()
            .find(|e| e.message.kind() == MessageKind::ConfirmationRequest)
            .expect("sample")
            .message
        else {
            unreachable!()
        };
        request
    }

    #[test]
    fn a_law1_prompt_shows_the_command_paths_and_that_it_cannot_be_undone() {
        let request = sample_request();
        let text = confirmation_prompt(&request, Paint::PLAIN).join("\n");
        assert!(
            text.contains("an irreversible action with `shell`"),
            "{text}"
        );
        assert!(text.contains("command:    rm ~/Downloads/a.pdf"), "{text}");
        assert!(
            text.contains("path:       delete /home/u/Downloads/a.pdf"),
            "{text}"
        );
        assert!(text.contains("reversible: NO"), "{text}");
        assert!(confirmation_question(&request).contains("[t] move to Trash"));
        let no_trash = ConfirmationRequest {
            can_trash: false,
            ..request.clone()
        };
        assert!(!confirmation_question(&no_trash).contains("Trash"));
        // A rerun outside the sandbox says, line by line, what the command tried there.
        let rerun = ConfirmationRequest {
            description: "In the sandbox, this command tried to: delete /home/u/a.txt.\nApproving runs it outside the sandbox, where nothing stops what it does.".into(),
            ..request
        };
        let text = confirmation_prompt(&rerun, Paint::PLAIN).join("\n");
        assert!(
            text.contains("effect:     In the sandbox, this command tried to: delete /home/u/a.txt.\n              Approving runs it outside"),
            "{text}"
        );
    }

    #[test]
    fn always_for_a_class_of_changes_is_offered_in_its_words_only_when_the_request_offers_it() {
        use artoo::contracts::{EffectClass, FileEffect};
        let request = sample_request();
        let class = EffectClass {
            effect: FileEffect::Delete,
            place: "/home/u/Downloads".into(),
            extension: Some("pdf".into()),
            words: "deleting .pdf files under ~/Downloads".into(),
        };
        let counted = ConfirmationRequest {
            effect_grant: Some(class),
            scopes: vec![ApprovalScope::Once, ApprovalScope::Task],
            ..request
        };
        assert!(!confirmation_keys(&counted).contains(&"a"));
        let text = confirmation_prompt(&counted, Paint::PLAIN).join("\n");
        assert!(!text.contains("always:"), "{text}");
        let offered = ConfirmationRequest {
            scopes: vec![
                ApprovalScope::Once,
                ApprovalScope::Task,
                ApprovalScope::Always,
            ],
            ..counted
        };
        assert!(confirmation_keys(&offered).contains(&"a"));
        assert!(
            confirmation_question(&offered).contains("[a]lways allow this kind of change here")
        );
        let text = confirmation_prompt(&offered, Paint::PLAIN).join("\n");
        assert!(
            text.contains(
                "always:     would allow deleting .pdf files under ~/Downloads in every task"
            ),
            "{text}"
        );
    }
}
