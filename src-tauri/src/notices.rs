//! What the app tells the user when the popup is not in front: a system notification
//! when Law 1 needs an answer, when a task is done and when a task was abandoned (each
//! can be turned off in settings: `ui.notify_approvals`, `ui.notify_done`,
//! `ui.notify_abandoned`), and the tray's badge while answers are pending.
//!
//! A Law 1 notification can be answered where it is: *Deny* always, *Approve* only when
//! the notification shows the whole request — what it does and the exact command — so
//! nobody approves words they could not read; a click on the notification itself opens
//! the dialog ([`answer_of`]). An approval given there is for this one action.
//!
//! Pure: the window code asks [`notice_for`] what to show for an envelope and keeps a
//! [`Pending`] count for the badge ([`badge`]); nothing here touches a window.
//!
//! **Invariant:** the badge counts exactly the Law 1 requests that were asked and not yet
//! answered, withdrawn with their task when it closes; turning a notification off never
//! hides a request (the popup still comes back for it).

use std::collections::{BTreeSet, HashMap};

use artoo::config::UiConfig;
use artoo::contracts::{Decision, Message, RequestId, TaskId, TerminalDirective};
use artoo::status::{Lang, plain_summary};

/// Characters of a notification's body, at most.
const BODY_CHARS: usize = 180;

/// The action type of a Law 1 notification that shows the whole request.
pub const APPROVE_OR_DENY: &str = "law1-approve-or-deny";
/// The action type of a Law 1 notification too long to show whole.
pub const DENY_ONLY: &str = "law1-deny";
/// The action that approves, once.
pub const APPROVE: &str = "approve";
/// The action that denies.
pub const DENY: &str = "deny";
/// The key of the request's id in a Law 1 notification's extra payload.
pub const REQUEST_KEY: &str = "request_id";

/// One system notification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// Its title.
    pub title: String,
    /// Its text.
    pub body: String,
    /// For a Law 1 request: its id, and whether the notification offers Approve (it
    /// always offers Deny).
    pub answers: Option<(RequestId, bool)>,
}

/// The buttons of the Law 1 notifications, in the language of `ui`: each action type
/// with its actions' ids and titles.
pub fn action_types(ui: &UiConfig) -> [(&'static str, Vec<(&'static str, &'static str)>); 2] {
    let zh = Lang::from_tag(&ui.language) == Lang::ZhCn;
    let (approve, deny) = if zh {
        ("批准", "拒绝")
    } else {
        ("Approve", "Deny")
    };
    [
        (APPROVE_OR_DENY, vec![(APPROVE, approve), (DENY, deny)]),
        (DENY_ONLY, vec![(DENY, deny)]),
    ]
}

/// What an action on a notification asks of the app.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FromNotification {
    /// Answer this Law 1 request so.
    Answer(RequestId, Decision),
    /// Bring the popup (with its dialog) to the front.
    Open,
    /// Nothing.
    Nothing,
}

/// What the action `action` on a notification whose extra payload is `extra` asks for:
/// Approve and Deny answer the request the notification named; a click on it opens
/// the popup; anything else (another notification, an action this app never offered)
/// does nothing.
pub fn answer_of(
    action: &str,
    extra: &std::collections::HashMap<String, serde_json::Value>,
) -> FromNotification {
    let request = extra
        .get(REQUEST_KEY)
        .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
    match (action, request) {
        (APPROVE, Some(id)) => FromNotification::Answer(id, Decision::Approve),
        (DENY, Some(id)) => FromNotification::Answer(id, Decision::Deny),
        ("tap", _) => FromNotification::Open,
        _ => FromNotification::Nothing,
    }
}

/// A Law 1 request as a notification says it: each measured change to a file ("delete
/// /home/u/Downloads/a.pdf"), or, for an action whose effects were not measured, its
/// description; then the exact command.
fn law1_text(request: &artoo::contracts::ConfirmationRequest) -> String {
    let what = if request.paths.is_empty() {
        request.description.clone()
    } else {
        request
            .paths
            .iter()
            .map(|p| format!("{} {}", p.effect, p.path.display()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let command = request.command.trim();
    if command.is_empty() || what.contains(command) {
        what
    } else {
        format!("{what} — {command}")
    }
}

/// `text` on one line, cut to [`BODY_CHARS`] characters with an ellipsis.
fn body(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= BODY_CHARS {
        return line;
    }
    let cut: String = line.chars().take(BODY_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

/// The notification an envelope calls for while the popup is not in front, if any,
/// as the settings in `ui` allow.
pub fn notice_for(message: &Message, ui: &UiConfig) -> Option<Notice> {
    let zh = Lang::from_tag(&ui.language) == Lang::ZhCn;
    match message {
        Message::ConfirmationRequest(request) if ui.notify_approvals => {
            let whole = law1_text(request);
            let shown = body(&whole);
            let complete = shown == whole.split_whitespace().collect::<Vec<_>>().join(" ");
            Some(Notice {
                title: if zh {
                    "artoo 需要你的确认"
                } else {
                    "artoo needs your approval"
                }
                .into(),
                body: shown,
                answers: Some((request.request_id, complete)),
            })
        }
        Message::FinalResult(result) => {
            let (summary, _) = plain_summary(&result.summary);
            let abandoned = result.directive == TerminalDirective::Abandon;
            let title = match (abandoned, zh) {
                (true, false) if ui.notify_abandoned => "Task abandoned",
                (true, true) if ui.notify_abandoned => "任务已放弃",
                (false, false) if ui.notify_done => "Task done",
                (false, true) if ui.notify_done => "任务完成",
                _ => return None,
            };
            Some(Notice {
                title: title.into(),
                body: body(&summary),
                answers: None,
            })
        }
        _ => None,
    }
}

/// The Law 1 requests asked and not yet answered, by task.
#[derive(Debug, Default)]
pub struct Pending {
    open: HashMap<TaskId, BTreeSet<RequestId>>,
}

impl Pending {
    /// Takes note of one envelope's message; returns how many answers are pending now.
    pub fn note(&mut self, message: &Message) -> usize {
        match message {
            Message::ConfirmationRequest(r) => {
                self.open
                    .entry(r.task_id.clone())
                    .or_default()
                    .insert(r.request_id);
            }
            Message::ConfirmationDecision(d) => {
                if let Some(open) = self.open.get_mut(&d.task_id) {
                    open.remove(&d.request_id);
                }
            }
            Message::TaskClosed(c) => {
                self.open.remove(&c.task_id);
            }
            Message::FinalResult(r) => {
                self.open.remove(&r.task_id);
            }
            _ => {}
        }
        self.open.retain(|_, open| !open.is_empty());
        self.count()
    }

    /// How many answers are pending.
    pub fn count(&self) -> usize {
        self.open.values().map(BTreeSet::len).sum()
    }
}

/// The tray's title (the badge, where the platform draws one next to the icon) and
/// tooltip for `pending` answers.
pub fn badge(pending: usize, ui: &UiConfig) -> (Option<String>, String) {
    let zh = Lang::from_tag(&ui.language) == Lang::ZhCn;
    match (pending, zh) {
        (0, _) => (None, "artoo".into()),
        (1, false) => (Some("1".into()), "artoo — an answer is pending".into()),
        (n, false) => (
            Some(n.to_string()),
            format!("artoo — {n} answers are pending"),
        ),
        (n, true) => (Some(n.to_string()), format!("artoo — {n} 个确认待回答")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use artoo::contracts::{ConfirmationDecision, TaskClosed};
    use artoo::testkit::samples::samples;

    fn sample(kind: &str) -> Message {
        samples()
            .into_iter()
            .find(|e| e.message.kind().name() == kind)
            .unwrap_or_else(|| panic!("no sample {kind}"))
            .message
    }

    #[test]
    fn each_notification_says_what_happened_and_each_can_be_turned_off() {
        let mut ui = UiConfig::default();
        let Message::ConfirmationRequest(mut request) = sample("ConfirmationRequest") else {
            unreachable!()
        };
        request.description = format!(
            "delete 1 file in ~/Downloads: `a.pdf`\n{}",
            "x ".repeat(200)
        );
        // An action whose effects were not measured is told by its description.
        request.paths = vec![];
        let asked = notice_for(&Message::ConfirmationRequest(request.clone()), &ui).unwrap();
        assert_eq!(asked.title, "artoo needs your approval");
        assert!(
            asked
                .body
                .starts_with("delete 1 file in ~/Downloads: `a.pdf` x x")
        );
        assert!(asked.body.ends_with('…') && asked.body.chars().count() == BODY_CHARS);
        assert_eq!(
            asked.answers,
            Some((request.request_id, false)),
            "a request cut short can be denied from the notification, not approved"
        );

        let Message::FinalResult(mut result) = sample("FinalResult") else {
            unreachable!()
        };
        result.summary = "[LAW1] Deleted a.pdf.".into();
        result.directive = TerminalDirective::Accept;
        let done = notice_for(&Message::FinalResult(result.clone()), &ui).unwrap();
        assert_eq!(done.title, "Task done");
        assert_eq!(done.body, "Deleted a.pdf.");
        result.directive = TerminalDirective::Abandon;
        let abandoned = notice_for(&Message::FinalResult(result.clone()), &ui).unwrap();
        assert_eq!(abandoned.title, "Task abandoned");

        ui.language = "zh-CN".into();
        let zh = notice_for(&Message::FinalResult(result.clone()), &ui).unwrap();
        assert_eq!(zh.title, "任务已放弃");

        ui.notify_abandoned = false;
        assert_eq!(notice_for(&Message::FinalResult(result.clone()), &ui), None);
        result.directive = TerminalDirective::Success;
        assert!(notice_for(&Message::FinalResult(result.clone()), &ui).is_some());
        ui.notify_done = false;
        assert_eq!(notice_for(&Message::FinalResult(result), &ui), None);
        ui.notify_approvals = false;
        assert_eq!(
            notice_for(&Message::ConfirmationRequest(request), &ui),
            None
        );
        assert_eq!(
            notice_for(&sample("TaskSubmitted"), &UiConfig::default()),
            None
        );
    }

    #[test]
    fn a_law1_notification_offers_approve_only_when_it_shows_the_whole_request() {
        let ui = UiConfig::default();
        let Message::ConfirmationRequest(mut request) = sample("ConfirmationRequest") else {
            unreachable!()
        };
        request.description = "delete 1 file in ~/Downloads: `a.pdf`".into();
        request.command = "rm ~/Downloads/a.pdf".into();
        request.paths = vec![];
        let asked = notice_for(&Message::ConfirmationRequest(request.clone()), &ui).unwrap();
        assert_eq!(
            asked.body,
            "delete 1 file in ~/Downloads: `a.pdf` — rm ~/Downloads/a.pdf"
        );
        assert_eq!(asked.answers, Some((request.request_id, true)));
        // Measured changes are said one by one, however long the dialog's prose.
        request.description = format!("In the sandbox, this command would: {}", "… ".repeat(100));
        request.paths = vec![artoo::contracts::PathEffect {
            path: "/home/u/Downloads/a.pdf".into(),
            exists: true,
            effect: "delete".into(),
        }];
        let measured = notice_for(&Message::ConfirmationRequest(request.clone()), &ui).unwrap();
        assert_eq!(
            measured.body,
            "delete /home/u/Downloads/a.pdf — rm ~/Downloads/a.pdf"
        );
        assert_eq!(measured.answers, Some((request.request_id, true)));
        // The command is the part a person must see: cut off, no Approve.
        request.command = format!("rm ~/Downloads/a.pdf {}", "~/Downloads/b.pdf ".repeat(20));
        let long = notice_for(&Message::ConfirmationRequest(request.clone()), &ui).unwrap();
        assert_eq!(long.answers, Some((request.request_id, false)));
        let types = action_types(&ui);
        assert_eq!(
            types[0],
            (APPROVE_OR_DENY, vec![(APPROVE, "Approve"), (DENY, "Deny")])
        );
        assert_eq!(types[1], (DENY_ONLY, vec![(DENY, "Deny")]));
        let zh = UiConfig {
            language: "zh-CN".into(),
            ..UiConfig::default()
        };
        assert_eq!(action_types(&zh)[1].1, vec![(DENY, "拒绝")]);
    }

    #[test]
    fn an_action_on_a_notification_answers_the_request_it_named_or_opens_the_dialog() {
        let id = RequestId::mint();
        let extra: std::collections::HashMap<String, serde_json::Value> =
            [(REQUEST_KEY.to_string(), serde_json::to_value(id).unwrap())].into();
        assert_eq!(
            answer_of(APPROVE, &extra),
            FromNotification::Answer(id, Decision::Approve)
        );
        assert_eq!(
            answer_of(DENY, &extra),
            FromNotification::Answer(id, Decision::Deny)
        );
        assert_eq!(answer_of("tap", &extra), FromNotification::Open);
        assert_eq!(
            answer_of("tap", &Default::default()),
            FromNotification::Open
        );
        // No request named (a "Task done" notification), or an action never offered.
        assert_eq!(
            answer_of(APPROVE, &Default::default()),
            FromNotification::Nothing
        );
        assert_eq!(answer_of("always", &extra), FromNotification::Nothing);
        let garbled: std::collections::HashMap<String, serde_json::Value> =
            [(REQUEST_KEY.to_string(), serde_json::json!("not an id"))].into();
        assert_eq!(answer_of(DENY, &garbled), FromNotification::Nothing);
    }

    #[test]
    fn the_badge_counts_the_requests_asked_and_not_yet_answered() {
        let Message::ConfirmationRequest(first) = sample("ConfirmationRequest") else {
            unreachable!()
        };
        let second = artoo::contracts::ConfirmationRequest {
            request_id: RequestId::mint(),
            ..first.clone()
        };
        let other_task = artoo::contracts::ConfirmationRequest {
            request_id: RequestId::mint(),
            task_id: TaskId::mint(),
            ..first.clone()
        };
        let mut pending = Pending::default();
        assert_eq!(
            pending.note(&Message::ConfirmationRequest(first.clone())),
            1
        );
        assert_eq!(
            pending.note(&Message::ConfirmationRequest(second.clone())),
            2
        );
        assert_eq!(
            pending.note(&Message::ConfirmationRequest(other_task.clone())),
            3
        );
        // The same request seen twice counts once.
        assert_eq!(
            pending.note(&Message::ConfirmationRequest(first.clone())),
            3
        );
        let Message::ConfirmationDecision(decision) = sample("ConfirmationDecision") else {
            unreachable!()
        };
        let answered = ConfirmationDecision {
            request_id: first.request_id,
            task_id: first.task_id.clone(),
            ..decision
        };
        assert_eq!(pending.note(&Message::ConfirmationDecision(answered)), 2);
        // The task closes: its open request goes with it; the other task's stays.
        let closed = TaskClosed::cancelled(first.task_id.clone(), "the user cancelled");
        assert_eq!(pending.note(&Message::TaskClosed(closed)), 1);
        let ui = UiConfig::default();
        assert_eq!(
            badge(pending.count(), &ui),
            (Some("1".into()), "artoo — an answer is pending".into())
        );
        assert_eq!(badge(0, &ui), (None, "artoo".into()));
        assert_eq!(badge(3, &ui).1, "artoo — 3 answers are pending");
    }
}
