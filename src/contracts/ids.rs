//! Identifier newtypes. Every id that routes traffic is minted here by the runtime;
//! none is ever parsed out of model output, so a model that repeats or invents an id
//! cannot misroute a result.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! uuid_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "specta", derive(specta::Type))]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// Mints a fresh random id. Only runtime code calls this.
            pub fn mint() -> Self {
                Self(Uuid::new_v4())
            }

            /// The raw UUID.
            pub fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl From<Uuid> for $name {
            fn from(value: Uuid) -> Self {
                Self(value)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }
    };
}

uuid_id!(
    /// One sub-task of a plan; minted when R2's plan is accepted by the plan validator.
    SubTaskId
);
uuid_id!(
    /// One bus envelope.
    EnvelopeId
);
uuid_id!(
    /// One Megram in the MKCT store.
    MegramId
);
uuid_id!(
    /// One Law 1 confirmation request.
    RequestId
);
uuid_id!(
    /// One auditor report.
    ReportId
);
uuid_id!(
    /// One on-demand audit query.
    QueryId
);

/// A user task. The runtime mints it at
/// submission (`task_` + 12 hex digits) so it is unique per run and never model-written.
/// Shared (`Arc<str>`) because every envelope of the task carries a copy.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(transparent)]
pub struct TaskId(Arc<str>);

impl TaskId {
    /// Mints a fresh task id. Only the runtime calls this.
    pub fn mint() -> Self {
        let hex = Uuid::new_v4().simple().to_string();
        Self(Arc::from(format!("task_{}", &hex[..12])))
    }

    /// Wraps an id read back from a log, a fixture or the UI.
    pub fn from_existing(id: impl AsRef<str>) -> Self {
        Self(Arc::from(id.as_ref()))
    }

    /// The id's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for TaskId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TaskId({})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_task_ids_are_short_snake_case_and_unique() {
        let a = TaskId::mint();
        let b = TaskId::mint();
        assert_ne!(a, b);
        assert!(a.as_str().starts_with("task_"));
        assert_eq!(a.as_str().len(), 17);
        assert!(
            a.as_str()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        );
    }

    #[test]
    fn uuid_ids_serialize_as_plain_strings() {
        let id = SubTaskId::mint();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, format!("\"{}\"", id.as_uuid()));
        let back: SubTaskId = serde_json::from_str(&json).unwrap();
        assert_eq!(back, id);
    }
}
