//! The JSON contracts as serde types, with their exact field names and enum spellings
//! (stored logs and memory depend on them), plus the messages the app adds (Law 1,
//! clarification, cancellation, observability). [`Message`] is the closed list of everything that crosses the bus, and
//! [`ROUTES`] is the table of which role may send which message to which role.
//!
//! **Invariant:** ids that route traffic are minted by the runtime ([`ids`]); no contract
//! type is ever filled with an id taken from model output.

pub mod app;
pub mod audit;
pub mod execution;
pub mod ids;
pub mod medium;
pub mod memory;
pub mod role;
pub mod task;
pub mod tool;

use serde::{Deserialize, Serialize};

pub use app::*;
pub use audit::*;
pub use execution::*;
pub use ids::*;
pub use medium::*;
pub use memory::*;
pub use role::Role;
pub use task::*;
pub use tool::{MAX_SERVER_NAME, McpToolName, ToolName, ToolRef, join_names, valid_server_name};

/// The task a payload belongs to, if any (for task logs, the auditor and the UI).
pub trait HasTask {
    /// The task, or None for payloads that belong to no task.
    fn task_id(&self) -> Option<&TaskId>;
}

macro_rules! has_task {
    ($field:ident: $($ty:ty),* $(,)?) => {
        $(impl HasTask for $ty {
            fn task_id(&self) -> Option<&TaskId> {
                Some(&self.$field)
            }
        })*
    };
}

has_task!(task_id: DispatchHalted, TaskSubmitted, TaskSpec, DispatchManifest, ReplanRequest, OutcomeSummary,
    PlanDirective, FinalResult, GracefulFailureRequest, GracefulFailure, PlanningFailed,
    MemoryQuery, MemoryResponse, MemoryRecall, ConfirmationRequest, ConfirmationDecision,
    TaskClosed, ClarificationRequest, ClarificationAnswer, ChatReply, ToolCallEvent);
has_task!(parent_task_id: SubTask, ExecutionResult, CorrectionSignal, SubTaskOutcome, SubTaskClosed);

impl HasTask for MegramWrite {
    fn task_id(&self) -> Option<&TaskId> {
        self.task_id.as_ref()
    }
}

impl HasTask for LlmCall {
    fn task_id(&self) -> Option<&TaskId> {
        self.task_id.as_ref()
    }
}

macro_rules! no_task {
    ($($ty:ty),* $(,)?) => {
        $(impl HasTask for $ty {
            fn task_id(&self) -> Option<&TaskId> {
                None
            }
        })*
    };
}

no_task!(AuditQuery, AuditReport, MemoryOperatorChange);

macro_rules! messages {
    ($($(#[$doc:meta])* $variant:ident($payload:ty)),* $(,)?) => {
        /// Everything that crosses the bus. Serialised as `{"type": "<Name>", "payload": …}`.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "specta", derive(specta::Type))]
        #[serde(tag = "type", content = "payload")]
        pub enum Message {
            $($(#[$doc])* $variant($payload),)*
        }

        /// The type of a [`Message`] without its payload.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "specta", derive(specta::Type))]
        pub enum MessageKind {
            $(#[doc = concat!("The kind of [`Message::", stringify!($variant), "`].")] $variant,)*
        }

        impl MessageKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [MessageKind] = &[$(MessageKind::$variant,)*];

            /// The kind's name, as the `type` tag of the serialised message holds it.
            pub fn name(self) -> &'static str {
                match self {
                    $(MessageKind::$variant => stringify!($variant),)*
                }
            }
        }

        impl Message {
            /// The message's kind.
            pub fn kind(&self) -> MessageKind {
                match self {
                    $(Message::$variant(_) => MessageKind::$variant,)*
                }
            }

            /// The task the payload belongs to, if any.
            pub fn task_id(&self) -> Option<&TaskId> {
                match self {
                    $(Message::$variant(payload) => HasTask::task_id(payload),)*
                }
            }
        }

        $(impl From<$payload> for Message {
            fn from(payload: $payload) -> Self {
                Message::$variant(payload)
            }
        })*
    };
}

messages! {
    /// User → R1: a new task as typed, with its time budget (R7 listens).
    TaskSubmitted(TaskSubmitted),
    /// R1 → User: a question before the task can be understood.
    ClarificationRequest(ClarificationRequest),
    /// User → R1: the answer to a clarifying question.
    ClarificationAnswer(ClarificationAnswer),
    /// R1 → User: a conversational answer; the task ends without a plan.
    ChatReply(ChatReply),
    /// R1 → R2: the task as understood.
    TaskSpec(TaskSpec),
    /// R2 → R5: a request for one group's SOPs and potentials.
    MemoryQuery(MemoryQuery),
    /// R5 → R2: the answer to a memory query.
    MemoryResponse(MemoryResponse),
    /// R2 → R7: what memory said before a plan, and what R2 made of it.
    MemoryRecall(MemoryRecall),
    /// R2 → dispatcher, heard by R4b: one planning round, its sub-tasks included.
    DispatchManifest(DispatchManifest),
    /// Dispatcher → R3, heard by R4a: one released sub-task to execute.
    SubTask(SubTask),
    /// R3 → R4a: one attempt, with its tool calls as evidence.
    ExecutionResult(ExecutionResult),
    /// R4a → R3: what to fix in the next attempt.
    CorrectionSignal(CorrectionSignal),
    /// R4a → R4b: the final word on one sub-task.
    SubTaskOutcome(SubTaskOutcome),
    /// R4a → R3: the fast loop of a sub-task is over.
    SubTaskClosed(SubTaskClosed),
    /// Dispatcher → R4b: later sub-tasks of the round will not run.
    DispatchHalted(DispatchHalted),
    /// R4b → R7: the round did not meet its criteria.
    ReplanRequest(ReplanRequest),
    /// R4b → R7: the round met every criterion.
    OutcomeSummary(OutcomeSummary),
    /// R7 → R2: how the next plan must change.
    PlanDirective(PlanDirective),
    /// R2 → R7: no valid plan could be made.
    PlanningFailed(PlanningFailed),
    /// R7 → R2: explain an abandoned task honestly.
    GracefulFailureRequest(GracefulFailureRequest),
    /// R2 → R7: the explanation of an abandoned task.
    GracefulFailure(GracefulFailure),
    /// R7 → User: how the task ended. GGS is the only sender.
    FinalResult(FinalResult),
    /// R7 → R5: one memory write.
    Megram(MegramWrite),
    /// User → R5: a change made through the memory operator API.
    MemoryOperatorChange(MemoryOperatorChange),
    /// R3 → User: a Law 1 approval request.
    ConfirmationRequest(ConfirmationRequest),
    /// User → R3: the answer to a Law 1 request.
    ConfirmationDecision(ConfirmationDecision),
    /// User → every role: the task is over; let go of it.
    TaskClosed(TaskClosed),
    /// User → R6: a request for a report now.
    AuditQuery(AuditQuery),
    /// R6 → User: one audit report.
    AuditReport(AuditReport),
    /// Role → observers: one model call, in full.
    LlmCall(LlmCall),
    /// R3 → observers: one tool call as it finishes.
    ToolCallEvent(ToolCallEvent),
}

/// One allowed (message type, sender, receiver) triple.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// The message type.
    pub kind: MessageKind,
    /// The role that may send it.
    pub from: Role,
    /// The role it is addressed to.
    pub to: Role,
}

const fn route(kind: MessageKind, from: Role, to: Role) -> Route {
    Route { kind, from, to }
}

/// The contract table: every legitimate flow of the system. Anything else on the bus is a
/// boundary violation (the auditor reports it).
pub const ROUTES: &[Route] = {
    use MessageKind as K;
    use Role::*;
    &[
        route(K::TaskSubmitted, User, Perceiver),
        route(K::ClarificationRequest, Perceiver, User),
        route(K::ClarificationAnswer, User, Perceiver),
        route(K::ChatReply, Perceiver, User),
        route(K::TaskSpec, Perceiver, Planner),
        route(K::MemoryQuery, Planner, Memory),
        route(K::MemoryResponse, Memory, Planner),
        route(K::MemoryRecall, Planner, Ggs),
        // R2 hands the whole plan to the dispatcher in one manifest (R4b hears it: its
        // fan-in expectation); the dispatcher releases sequence groups to the effector
        // agents (R3 + R4a pairs; R4a hears each released sub-task).
        route(K::DispatchManifest, Planner, Dispatcher),
        route(K::SubTask, Dispatcher, Executor),
        route(K::DispatchHalted, Dispatcher, MetaValidator),
        // The fast loop: R3 requests a verdict; R4a replies with a correction or closes
        // (the dispatcher hears the close). R3 closes a sub-task itself, as failed, only
        // when R4a gave no verdict at all.
        route(K::ExecutionResult, Executor, AgentValidator),
        route(K::CorrectionSignal, AgentValidator, Executor),
        route(K::SubTaskClosed, AgentValidator, Executor),
        route(K::SubTaskClosed, Executor, Dispatcher),
        route(K::SubTaskOutcome, AgentValidator, MetaValidator),
        route(K::ReplanRequest, MetaValidator, Ggs),
        route(K::OutcomeSummary, MetaValidator, Ggs),
        route(K::PlanDirective, Ggs, Planner),
        route(K::PlanningFailed, Planner, Ggs),
        route(K::GracefulFailureRequest, Ggs, Planner),
        route(K::GracefulFailure, Planner, Ggs),
        route(K::FinalResult, Ggs, User),
        route(K::Megram, Ggs, Memory),
        route(K::MemoryOperatorChange, User, Memory),
        route(K::ConfirmationRequest, Executor, User),
        route(K::ConfirmationDecision, User, Executor),
        route(K::TaskClosed, User, All),
        route(K::AuditQuery, User, Auditor),
        route(K::AuditReport, Auditor, User),
        route(K::LlmCall, Perceiver, Observer),
        route(K::LlmCall, Planner, Observer),
        route(K::LlmCall, Executor, Observer),
        route(K::LlmCall, AgentValidator, Observer),
        route(K::LlmCall, MetaValidator, Observer),
        route(K::LlmCall, Memory, Observer),
        route(K::ToolCallEvent, Executor, Observer),
    ]
};

/// A role that hears every envelope of one kind from one sender besides the role it is
/// addressed to: one fact is one envelope, however many roles act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listener {
    /// The message type.
    pub kind: MessageKind,
    /// The sender.
    pub from: Role,
    /// A role that receives it besides the addressee.
    pub hears: Role,
}

const fn listen(kind: MessageKind, from: Role, hears: Role) -> Listener {
    Listener { kind, from, hears }
}

/// Who else hears a routed envelope. The bus delivers to these roles before the
/// addressee, within one publish, so a listener always holds the envelope before any
/// reply to it can exist (R4a knows a sub-task's criteria before R3 can report on it).
pub const LISTENERS: &[Listener] = {
    use MessageKind as K;
    use Role::*;
    &[
        listen(K::TaskSubmitted, User, Ggs),
        listen(K::DispatchManifest, Planner, MetaValidator),
        listen(K::SubTask, Dispatcher, AgentValidator),
        listen(K::SubTaskClosed, AgentValidator, Dispatcher),
        // GGS keeps every measured change to files, for the result's account of effects.
        listen(K::ToolCallEvent, Executor, Ggs),
    ]
};

/// The roles that hear an envelope of `kind` from `from` besides its addressee.
pub fn listeners(kind: MessageKind, from: Role) -> impl Iterator<Item = Role> {
    LISTENERS
        .iter()
        .filter(move |l| l.kind == kind && l.from == from)
        .map(|l| l.hears)
}

/// Whether `(kind, from, to)` is a flow of the contract table.
pub fn is_allowed(kind: MessageKind, from: Role, to: Role) -> bool {
    ROUTES
        .iter()
        .any(|r| r.kind == kind && r.from == from && r.to == to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_kind_has_at_least_one_route() {
        for kind in MessageKind::ALL {
            assert!(
                ROUTES.iter().any(|r| r.kind == *kind),
                "{} has no route in the contract table",
                kind.name()
            );
        }
    }

    #[test]
    fn the_auditor_may_only_send_reports_to_the_user() {
        let from_auditor: Vec<_> = ROUTES.iter().filter(|r| r.from == Role::Auditor).collect();
        assert_eq!(from_auditor.len(), 1);
        assert_eq!(from_auditor[0].kind, MessageKind::AuditReport);
        assert_eq!(from_auditor[0].to, Role::User);
    }

    #[test]
    fn only_ggs_emits_final_results_and_writes_megrams() {
        for r in ROUTES {
            if matches!(r.kind, MessageKind::FinalResult | MessageKind::Megram) {
                assert_eq!(r.from, Role::Ggs, "{:?}", r);
            }
        }
    }

    #[test]
    fn every_listener_hears_a_routed_flow_addressed_to_another_role() {
        for l in LISTENERS {
            let routed: Vec<_> = ROUTES
                .iter()
                .filter(|r| r.kind == l.kind && r.from == l.from)
                .collect();
            assert!(!routed.is_empty(), "{l:?} hears a flow with no route");
            assert!(
                routed.iter().all(|r| r.to != l.hears),
                "{l:?} is also an addressee: it would get the envelope twice"
            );
        }
        assert_eq!(
            listeners(MessageKind::SubTask, Role::Dispatcher).collect::<Vec<_>>(),
            vec![Role::AgentValidator]
        );
        assert_eq!(listeners(MessageKind::SubTask, Role::Planner).count(), 0);
        // The plan reaches the dispatcher inside its manifest, not sub-task by sub-task.
        assert!(!is_allowed(
            MessageKind::SubTask,
            Role::Planner,
            Role::Dispatcher
        ));
    }

    #[test]
    fn a_reversed_flow_is_not_allowed() {
        assert!(is_allowed(
            MessageKind::TaskSpec,
            Role::Perceiver,
            Role::Planner
        ));
        assert!(!is_allowed(
            MessageKind::TaskSpec,
            Role::Planner,
            Role::Perceiver
        ));
        assert!(!is_allowed(
            MessageKind::PlanDirective,
            Role::MetaValidator,
            Role::Planner
        ));
    }
}
