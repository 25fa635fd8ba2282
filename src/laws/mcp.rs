//! The Law 1 rule for tools of MCP servers. A server describes its tools itself, and
//! its annotations (`readOnlyHint`, `destructiveHint`) are hints nobody checked: only a
//! tool that says `readOnlyHint: true`, in the definition trusted on first use, runs
//! without asking. Every other call asks, and so does any call of a tool whose
//! definition changed since it was trusted, whatever it now claims.
//!
//! **Invariant:** pure; a tool counts as reversible only with an explicit
//! `readOnlyHint: true` and an unchanged definition — a missing hint, `false`, or a
//! changed definition is irreversible.

use crate::contracts::GrantSubject;
use crate::laws::classify::{Assessment, Effect, EffectKind, Target};

/// What Law 1 knows about one call of an MCP tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpGate {
    /// The server's name in the settings.
    pub server: String,
    /// The server's command line (stdio) or URL (HTTP).
    pub origin: String,
    /// The tool's own name on its server.
    pub tool: String,
    /// SHA-256 of the tool's definition as the server sent it this time.
    pub fingerprint: String,
    /// The tool's `readOnlyHint` annotation; None when the server did not send one.
    pub read_only_hint: Option<bool>,
    /// The tool's `destructiveHint` annotation; None when the server did not send one.
    pub destructive_hint: Option<bool>,
    /// The definition differs from the one trusted for this server and tool.
    pub changed: bool,
    /// The exact call, as the dialog shows it: `server.tool {arguments}`.
    pub call: String,
}

impl McpGate {
    /// The assessment of the call (see the module rule).
    pub fn assess(&self) -> Assessment {
        let note = if self.changed {
            "the server changed this tool's definition since it was first trusted; \
             check the server before you approve"
                .to_string()
        } else if self.read_only_hint == Some(true) {
            return Assessment::reversible();
        } else {
            let destructive = match self.destructive_hint {
                Some(false) => "says it only adds, never deletes — a hint artoo cannot check",
                _ => "it may change or delete data",
            };
            format!(
                "the MCP server `{}` does not declare this tool read-only; {destructive}",
                self.server
            )
        };
        Assessment::irreversible(vec![Effect {
            kind: EffectKind::Opaque,
            target: Target::Unknown(format!(
                "whatever `{}` of the MCP server `{}` does",
                self.tool, self.server
            )),
            source: self.call.clone(),
            note: Some(note),
        }])
    }

    /// What an `always` approval of this call allows: this tool of this server, as
    /// defined now.
    pub fn subject(&self) -> GrantSubject {
        GrantSubject {
            server: self.server.clone(),
            origin: self.origin.clone(),
            tool: self.tool.clone(),
            fingerprint: self.fingerprint.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(read_only: Option<bool>, destructive: Option<bool>, changed: bool) -> McpGate {
        McpGate {
            server: "files".into(),
            origin: "mcp-server-filesystem /tmp/x".into(),
            tool: "write_file".into(),
            fingerprint: "ab".into(),
            read_only_hint: read_only,
            destructive_hint: destructive,
            changed,
            call: "files.write_file {\"path\":\"/tmp/x/a\"}".into(),
        }
    }

    #[test]
    fn only_an_explicit_read_only_hint_on_a_trusted_definition_runs_without_asking() {
        assert!(!gate(Some(true), None, false).assess().is_irreversible());
        for (ro, destructive) in [
            (None, None),
            (Some(false), None),
            (None, Some(false)),
            (Some(false), Some(true)),
        ] {
            let a = gate(ro, destructive, false).assess();
            assert!(a.is_irreversible(), "{ro:?} {destructive:?}");
            assert!(
                a.description().contains("files.write_file"),
                "{}",
                a.description()
            );
            assert!(a.trash_paths().is_none());
        }
    }

    #[test]
    fn a_changed_definition_asks_even_when_it_now_claims_to_be_read_only() {
        let a = gate(Some(true), Some(false), true).assess();
        assert!(a.is_irreversible());
        assert!(a.description().contains("changed"), "{}", a.description());
    }

    #[test]
    fn the_grant_subject_names_server_origin_tool_and_definition() {
        let s = gate(None, None, false).subject();
        assert_eq!(
            (s.server.as_str(), s.tool.as_str(), s.fingerprint.as_str()),
            ("files", "write_file", "ab")
        );
        assert_eq!(s.origin, "mcp-server-filesystem /tmp/x");
    }
}
