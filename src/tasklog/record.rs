//! The line format of a run file: one JSON object per line, either an envelope exactly
//! as the bus carried it, or one of the two notes only the writer can make.
//!
//! ```text
//! {"envelope":{"id":…,"seq":4,"timestamp":…,"from":"planner","to":"dispatcher","task_id":…,"message":{"type":"DispatchManifest",…}}}
//! {"gap":{"skipped":3,"at":"2026-01-01T00:00:02Z"}}
//! {"cut":{"at":"2026-01-01T00:00:09Z"}}
//! ```
//!
//! **Invariant:** a run file holds what was published and nothing derived from it, so
//! every reader (the replay, the run list, the desktop's Tasks panel, the auditor's
//! timeline) gets its facts from the one fold over these records, and a reader of a newer
//! message kind than it knows skips that line and says so.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::bus::Envelope;

/// One line of a run file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Record {
    /// A message of the run, as published.
    Envelope(Arc<Envelope>),
    /// The writer's tap fell behind while the run was open.
    Gap(Gap),
    /// The writer stopped before the task ended.
    Cut(Cut),
}

/// Messages lost to a tap that fell behind. The tap cannot tell whose they were, so
/// every run open at the time gets the note.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    pub skipped: u64,
    pub at: DateTime<Utc>,
}

/// The writer stopped hearing the run before its task closed: the writer shut down, or
/// the task id was submitted again while this run was open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut {
    pub at: DateTime<Utc>,
}

impl Record {
    /// The message type of an envelope, or the note's name (`gap`, `cut`): what
    /// [`peek`] reads from the line.
    pub fn name(&self) -> &'static str {
        match self {
            Record::Envelope(e) => e.message.kind().name(),
            Record::Gap(_) => "gap",
            Record::Cut(_) => "cut",
        }
    }
}

impl From<Arc<Envelope>> for Record {
    fn from(envelope: Arc<Envelope>) -> Self {
        Record::Envelope(envelope)
    }
}

/// What a line is, read without parsing it: the message type of an envelope line, or the
/// note's name. `None` for a line of another shape.
pub fn peek(line: &[u8]) -> Option<&str> {
    const ENVELOPE: &[u8] = br#"{"envelope":"#;
    const TYPE: &[u8] = br#""message":{"type":""#;
    if line.starts_with(ENVELOPE) {
        // The message is the envelope's last field and the fields before it are ids,
        // numbers, times and role names, so the first match is this envelope's own.
        let at = memchr::memmem::find(line, TYPE)? + TYPE.len();
        let rest = &line[at..];
        let end = rest.iter().position(|&b| b == b'"')?;
        return std::str::from_utf8(&rest[..end]).ok();
    }
    let rest = line.strip_prefix(b"{\"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    let name = std::str::from_utf8(&rest[..end]).ok()?;
    is_note(name).then_some(name)
}

/// Whether `name` is one of the writer's own notes rather than a message type.
pub(crate) fn is_note(name: &str) -> bool {
    ["gap", "cut"].contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, FakeClock};
    use crate::contracts::{EnvelopeId, Message, Role, TaskClosed, TaskClosure, TaskId};

    fn closed() -> Envelope {
        let task = TaskId::from_existing("task_a");
        Envelope {
            id: EnvelopeId::mint(),
            seq: 7,
            timestamp: FakeClock::at_epoch().now(),
            from: Role::User,
            to: Role::All,
            in_reply_to: None,
            task_id: Some(task.clone()),
            message: Message::TaskClosed(TaskClosed {
                task_id: task,
                end: TaskClosure::Finished,
            }),
        }
    }

    #[test]
    fn an_envelope_line_round_trips_and_peeks_as_its_message_type() {
        let record = Record::from(Arc::new(closed()));
        let json = serde_json::to_string(&record).unwrap();
        assert!(json.starts_with(r#"{"envelope":{"#), "{json}");
        assert_eq!(peek(json.as_bytes()), Some(record.name()));
        assert_eq!(serde_json::from_str::<Record>(&json).unwrap(), record);
    }

    #[test]
    fn the_writers_notes_peek_by_name_and_other_shapes_do_not_peek() {
        let at = FakeClock::at_epoch().now();
        let gap = serde_json::to_string(&Record::Gap(Gap { skipped: 3, at })).unwrap();
        let cut = serde_json::to_string(&Record::Cut(Cut { at })).unwrap();
        assert_eq!(peek(gap.as_bytes()), Some("gap"));
        assert_eq!(peek(cut.as_bytes()), Some("cut"));
        assert_eq!(Record::Cut(Cut { at }).name(), "cut");
        for other in [
            &br#"{"kind":"task_begin","task_id":"t"}"#[..],
            br#"{"envelope":{"id":"x"}}"#,
            b"",
            b"garbage",
        ] {
            assert_eq!(peek(other), None, "{}", String::from_utf8_lossy(other));
        }
    }
}
