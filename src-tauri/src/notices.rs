//! What the app tells the user when the popup is not in front: a system notification
//! when Law 1 needs an answer, when a task is done and when a task was abandoned (each
//! can be turned off in settings: `ui.notify_approvals`, `ui.notify_done`,
//! `ui.notify_abandoned`), and the tray's badge while answers are pending.
//!
//! Pure: the window code asks [`notice_for`] what to show for an envelope and keeps a
//! [`Pending`] count for the badge ([`badge`]); nothing here touches a window.
//!
//! **Invariant:** the badge counts exactly the Law 1 requests that were asked and not yet
//! answered, withdrawn with their task when it closes; turning a notification off never
//! hides a request (the popup still comes back for it).

use std::collections::{BTreeSet, HashMap};

use artoo::config::UiConfig;
use artoo::contracts::{Message, RequestId, TaskId, TerminalDirective};
use artoo::status::{Lang, plain_summary};

/// Characters of a notification's body, at most.
const BODY_CHARS: usize = 180;

/// One system notification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// Its title.
    pub title: String,
    /// Its text.
    pub body: String,
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
        Message::ConfirmationRequest(request) if ui.notify_approvals => Some(Notice {
            title: if zh {
                "artoo 需要你的确认"
            } else {
                "artoo needs your approval"
            }
            .into(),
            body: body(&request.description),
        }),
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
        let asked = notice_for(&Message::ConfirmationRequest(request.clone()), &ui).unwrap();
        assert_eq!(asked.title, "artoo needs your approval");
        assert!(
            asked
                .body
                .starts_with("delete 1 file in ~/Downloads: `a.pdf` x x")
        );
        assert!(asked.body.ends_with('…') && asked.body.chars().count() == BODY_CHARS);

        let Message::FinalResult(mut result) = sample("FinalResult") else {
            unreachable!()
        };
        result.summary = "[LAW1] 1 action(s) needed your confirmation. Deleted a.pdf.".into();
        result.directive = TerminalDirective::Accept;
        let done = notice_for(&Message::FinalResult(result.clone()), &ui).unwrap();
        assert_eq!(done.title, "Task done");
        assert_eq!(
            done.body,
            "1 action(s) needed your confirmation. Deleted a.pdf."
        );
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
