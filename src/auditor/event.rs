//! The audit log's record: one [`AuditEvent`] per bus message (plus tap gaps, auditor
//! start-ups and prunes), with the anomalies the detectors found on it.
//!
//! **Invariant:** the fields of every hashed type are declared in byte order of their
//! JSON names and hold no floating-point number, so serde_json's compact output of an
//! event *is* its canonical JSON (tested), and verifying needs nothing but the line.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::canonical::sha256_hex;
use crate::bus::Envelope;
use crate::config::GgsParams;
use crate::contracts::{EnvelopeId, MacroState, Message, MessageKind, Role, TaskId};
use crate::describe::describe;

/// Characters of a message summary kept in an event.
pub const DETAIL_CHARS: usize = 240;

/// What an event records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    /// A bus message of this type.
    Message(MessageKind),
    /// The auditor's tap lost messages (`TapEvent::Gap`).
    TapGap,
    /// The auditor (re)started; recovery findings ride on this event.
    AuditorStarted,
    /// The auditor pruned old segments; its digest is the prune checkpoint's.
    Retention,
}

impl EventKind {
    /// The kind's name in the log: the message type, or `tap_gap`, `auditor_started`, `retention`.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Message(kind) => kind.name(),
            EventKind::TapGap => "TapGap",
            EventKind::AuditorStarted => "AuditorStarted",
            EventKind::Retention => "Retention",
        }
    }

    /// Parses a type name case-insensitively (`PlanDirective`, `plandirective`, `TapGap`).
    pub fn parse(name: &str) -> Option<EventKind> {
        let special = [
            EventKind::TapGap,
            EventKind::AuditorStarted,
            EventKind::Retention,
        ];
        MessageKind::ALL
            .iter()
            .map(|k| EventKind::Message(*k))
            .chain(special)
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for EventKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for EventKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        EventKind::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown event kind {name:?}")))
    }
}

/// The classes of anomaly the auditor reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnomalyKind {
    /// A (type, from, to) flow outside the contract table, or a payload that contradicts
    /// its envelope.
    BoundaryViolation,
    /// A task's loss worsening across consecutive rounds.
    ConvergenceFailure,
    /// Consecutive break_symmetry directives without D decreasing.
    GgsThrashing,
    /// A role's failure, retry or model-error rate rising over the task window.
    Drift,
    /// Never deceive: a success claimed with D > δ, or a summary hiding a Law 1 gate.
    Law0,
    /// An irreversible action approved by anything but the user.
    Law1,
    /// A Megram write not backed by a GGS decision for its task.
    Law3,
    /// The auditor's tap lost messages.
    TapGap,
    /// Start-up found the log and its checkpoint disagreeing (crash or tampering).
    LogRecovery,
}

impl AnomalyKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [AnomalyKind; 9] = [
        AnomalyKind::BoundaryViolation,
        AnomalyKind::ConvergenceFailure,
        AnomalyKind::GgsThrashing,
        AnomalyKind::Drift,
        AnomalyKind::Law0,
        AnomalyKind::Law1,
        AnomalyKind::Law3,
        AnomalyKind::TapGap,
        AnomalyKind::LogRecovery,
    ];

    /// The snake_case name written in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            AnomalyKind::BoundaryViolation => "boundary_violation",
            AnomalyKind::ConvergenceFailure => "convergence_failure",
            AnomalyKind::GgsThrashing => "ggs_thrashing",
            AnomalyKind::Drift => "drift",
            AnomalyKind::Law0 => "law0",
            AnomalyKind::Law1 => "law1",
            AnomalyKind::Law3 => "law3",
            AnomalyKind::TapGap => "tap_gap",
            AnomalyKind::LogRecovery => "log_recovery",
        }
    }

    /// Reads a name as written in the log or typed by a user (`-` or `_`); None when no kind has
    /// it.
    pub fn parse(name: &str) -> Option<AnomalyKind> {
        let name = name.replace('-', "_");
        AnomalyKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(&name))
    }
}

impl fmt::Display for AnomalyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One anomaly found on one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// What was found, in one line.
    pub description: String,
    /// The kind of anomaly.
    pub kind: AnomalyKind,
}

impl Finding {
    /// A finding of `kind`.
    pub fn new(kind: AnomalyKind, description: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            kind,
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.description)
    }
}

/// One line of the audit log. `seq`, `prev` and `hash` are filled by the log writer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditEvent {
    /// What the detectors found on this event; empty for most.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anomalies: Vec<Finding>,
    /// The envelope's bus timestamp; the auditor's clock for gaps and start-ups.
    pub at: DateTime<Utc>,
    /// The envelope's bus-wide publish order (restarts with each bus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus_seq: Option<u64>,
    /// A one-line summary of the payload.
    pub detail: String,
    /// SHA-256 of the message in its wire form ([`message_digest`]): a copy kept
    /// elsewhere (the task log, the report history) can be checked against the chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The envelope's id; None for events that are not a bus message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope_id: Option<EnvelopeId>,
    /// The sender; None for events that are not a bus message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Role>,
    /// This event's own hash; never part of the hashed bytes, appended to the line.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hash: String,
    /// The request a reply answers; None for other messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_reply_to: Option<EnvelopeId>,
    /// What the event records.
    pub kind: EventKind,
    /// Hash of the previous event (across segment files); [`super::canonical::GENESIS`]
    /// for the first.
    pub prev: String,
    /// Position in the log: 0, 1, 2, … without holes, across rotations and restarts.
    pub seq: u64,
    /// The macro-state a GGS decision or a Megram carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<MacroState>,
    /// The task the message belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<TaskId>,
    /// The addressee; None for events that are not a bus message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Role>,
}

impl AuditEvent {
    /// The unchained record of one bus message.
    /// Its detail is the message's line ([`describe`]) with its continuation lines, cut
    /// to [`DETAIL_CHARS`]; `ggs` gives ε and δ for the gradient arrow.
    pub fn for_envelope(env: &Envelope, anomalies: Vec<Finding>, ggs: &GgsParams) -> Self {
        let summary = describe(&env.message, ggs);
        let digest = message_digest(&env.message);
        Self {
            anomalies,
            at: env.timestamp,
            bus_seq: Some(env.seq),
            detail: summary.joined(DETAIL_CHARS),
            digest: Some(digest),
            envelope_id: Some(env.id),
            from: Some(env.from),
            hash: String::new(),
            in_reply_to: env.in_reply_to,
            kind: EventKind::Message(env.message.kind()),
            prev: String::new(),
            seq: 0,
            state: summary.state,
            task_id: env.task_id.clone(),
            to: Some(env.to),
        }
    }

    /// An event that is not a bus message (gap, start-up).
    pub fn internal(
        kind: EventKind,
        at: DateTime<Utc>,
        detail: String,
        anomalies: Vec<Finding>,
    ) -> Self {
        Self {
            anomalies,
            at,
            bus_seq: None,
            detail,
            digest: None,
            envelope_id: None,
            from: None,
            hash: String::new(),
            in_reply_to: None,
            kind,
            prev: String::new(),
            seq: 0,
            state: None,
            task_id: None,
            to: None,
        }
    }

    /// Whether a detector found an anomaly of `kind` here.
    pub fn has_anomaly(&self, kind: AnomalyKind) -> bool {
        self.anomalies.iter().any(|f| f.kind == kind)
    }
}

/// SHA-256 of `message` as serde_json writes it on the wire, compact:
/// `{"type":"<Name>","payload":{…}}` with the contract's field order.
pub fn message_digest(message: &Message) -> String {
    super::canonical::sha256_of_json(message)
}

/// [`message_digest`] of an AuditReport stored as `report_json` (one line of the report
/// history, without its newline), computed from the stored bytes alone.
pub fn report_line_digest(report_json: &[u8]) -> String {
    const OPEN: &[u8] = b"{\"type\":\"AuditReport\",\"payload\":";
    let mut bytes = Vec::with_capacity(OPEN.len() + report_json.len() + 1);
    bytes.extend_from_slice(OPEN);
    bytes.extend_from_slice(report_json);
    bytes.push(b'}');
    sha256_hex(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_kinds_parse_back_from_their_names() {
        for kind in MessageKind::ALL {
            let k = EventKind::Message(*kind);
            assert_eq!(EventKind::parse(k.name()), Some(k));
        }
        assert_eq!(EventKind::parse("tapgap"), Some(EventKind::TapGap));
        assert_eq!(EventKind::parse("nope"), None);
    }

    #[test]
    fn anomaly_kinds_parse_back_from_their_names() {
        for kind in AnomalyKind::ALL {
            assert_eq!(AnomalyKind::parse(kind.as_str()), Some(kind));
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::Value::String(kind.as_str().into())
            );
        }
        assert_eq!(
            AnomalyKind::parse("boundary-violation"),
            Some(AnomalyKind::BoundaryViolation)
        );
    }

    #[test]
    fn a_stored_report_digests_like_the_message_that_carried_it() {
        let report = crate::contracts::AuditReport {
            report_id: crate::contracts::ReportId::mint(),
            trigger: crate::contracts::AuditTrigger::Periodic,
            window_start: chrono::DateTime::UNIX_EPOCH,
            window_end: chrono::DateTime::UNIX_EPOCH,
            tasks_observed: 3,
            total_corrections: 1,
            gap_trends: vec![],
            boundary_violations: vec!["R3 sent \"x\" to R5".into()],
            drift_alerts: vec![],
            anomalies: vec!["law0: é".into()],
            tool_health: Default::default(),
            law1: Default::default(),
            query_id: None,
        };
        let line = serde_json::to_vec(&report).unwrap();
        assert_eq!(
            report_line_digest(&line),
            message_digest(&Message::AuditReport(report))
        );
    }

    #[test]
    fn an_event_details_its_message_in_one_bounded_line_with_the_continuations() {
        use crate::testkit::samples::{TASK, message, samples};
        let ggs = GgsParams::default();
        for env in samples() {
            let event = AuditEvent::for_envelope(&env, vec![], &ggs);
            let summary = describe(&env.message, &ggs);
            assert!(event.detail.starts_with(&summary.line), "{}", event.detail);
            for more in &summary.more {
                assert!(event.detail.contains(more.as_str()), "{}", event.detail);
            }
            assert_eq!(event.state, summary.state);
        }
        let long = format!("line one\nline two {}", "x".repeat(1000));
        let mut env = samples().remove(0);
        env.message = message(
            "TaskSubmitted",
            serde_json::json!({"task_id": TASK, "raw_input": long, "submitted_at": "2026-02-27T10:00:00Z"}),
        );
        let detail = AuditEvent::for_envelope(&env, vec![], &ggs).detail;
        assert!(!detail.contains('\n'));
        assert!(detail.chars().count() <= DETAIL_CHARS);
        assert!(detail.starts_with("line one line two"), "{detail}");
    }
}
