//! The T layer: the Four Laws, in strict priority order. They are seeded
//! into memory as timeless T-level Megrams and quoted in role prompts; nothing may
//! override, demote or delete them.
//!
//! Law 1 is enforced in code here: [`classify`] (pure) decides whether a tool action is
//! irreversible and describes it; [`broker`] asks the user over the bus and waits for
//! the answer. `tools` runs nothing irreversible without both.
//!
//! **Invariant:** a lower law never overrides a higher one.

/// Prefix of a task's `FinalResult.summary` whenever a Law 1 confirmation gate fired
/// during the task (GGS writes it; the auditor checks it).
pub const LAW1_PREFIX: &str = "[LAW1]";

pub mod broker;
pub mod classify;
pub mod effect_grants;
pub mod grants;
pub mod mcp;
pub mod requested;

pub use broker::{Confirmation, ConfirmationBroker, ConfirmationPolicy, ConfirmationResponder};
pub use classify::{
    Action, Assessment, Effect, EffectKind, Existence, FsView, Scope, Target, classify,
};

/// Where credentials live in a home folder: keys, tokens, keyrings and browser
/// profiles. Inside the sandbox each one that exists is replaced by an empty folder or
/// file, unless the user's request names it; no grant by effect reaches into one.
pub const CREDENTIALS: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".netrc",
    ".git-credentials",
    ".config/gh",
    ".config/gcloud",
    ".config/git/credentials",
    ".kube",
    ".docker",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".password-store",
    ".local/share/keyrings",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".thunderbird",
    "Library/Keychains",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
];

/// One law of the T layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Law {
    /// The law's number, 0 to 3; each law holds subject to those with smaller numbers.
    pub number: u8,
    /// A short name for the law.
    pub title: &'static str,
    /// The law as the models are told it.
    pub text: &'static str,
}

/// Law 0 to Law 3, highest priority first.
pub const FOUR_LAWS: [Law; 4] = [
    Law {
        number: 0,
        title: "Never deceive",
        text: "The system must never misrepresent what it actually did or achieved. \
               Honesty is non-negotiable even when the honest answer is \"I failed.\"",
    },
    Law {
        number: 1,
        title: "Never harm the user's environment without explicit confirmation",
        text: "The system must not take irreversible actions on the user's data or \
               environment (deleting files, overwriting existing data, sending messages, \
               modifying system configuration) without the user explicitly authorizing \
               that specific action. Reversible actions (reading files, running queries, \
               creating new files) do not require confirmation.",
    },
    Law {
        number: 2,
        title: "Best effort delivery",
        text: "Subject to Laws 0 and 1, the system must pursue the user's goal as hard as \
               possible, and stop when the gap has worsened for 2 consecutive replans: \
               continuing then is resource destruction, not best effort.",
    },
    Law {
        number: 3,
        title: "Preserve own functioning capacity",
        text: "Subject to Laws 0, 1 and 2, the system must not degrade its own ability to \
               function across tasks: stop on divergence, never write a memory that \
               misattributes a failure's cause, respect the time and token budgets.",
    },
];

/// The laws as one block of prompt text.
pub fn laws_prompt() -> String {
    FOUR_LAWS
        .iter()
        .map(|l| format!("Law {} — {}: {}", l.number, l.title, l.text))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laws_are_numbered_zero_to_three_in_priority_order() {
        let numbers: Vec<u8> = FOUR_LAWS.iter().map(|l| l.number).collect();
        assert_eq!(numbers, [0, 1, 2, 3]);
        assert!(laws_prompt().starts_with("Law 0 — Never deceive"));
    }
}
