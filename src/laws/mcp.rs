//! The Law 1 rule for tools of MCP servers. A server describes its tools itself, and
//! its annotations (`readOnlyHint`, `destructiveHint`) are hints nobody checked. The
//! first call of a tool asks, showing what the server says about it; once the user
//! approved a call of that definition, a tool that says `readOnlyHint: true` runs
//! without asking. Every other call asks, and so does any call of a tool whose
//! definition changed since it was approved, whatever it now claims.
//!
//! **Invariant:** pure; a tool counts as reversible only with an explicit
//! `readOnlyHint: true` and a definition the user approved a call of — a missing hint,
//! `false`, a new or a changed definition is irreversible.

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
    /// Whether the user approved a call of this definition.
    pub trust: McpTrust,
    /// What the server says the tool does (its description, shortened).
    pub description: String,
    /// The exact call, as the dialog shows it: `server.tool {arguments}`.
    pub call: String,
}

/// Whether the user approved a call of a tool's definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpTrust {
    /// A call of exactly this definition was approved.
    Trusted,
    /// No call of this tool was approved yet.
    New,
    /// A call was approved when the definition was another one.
    Changed,
}

impl McpGate {
    /// The assessment of the call (see the module rule).
    pub fn assess(&self) -> Assessment {
        let note = if self.trust == McpTrust::Changed {
            "the server changed this tool's definition since it was first trusted; \
             check the server before you approve"
                .to_string()
        } else if self.trust == McpTrust::New {
            let hints = match (self.read_only_hint, self.destructive_hint) {
                (Some(true), _) => "declares it read-only, a hint artoo cannot check",
                (_, Some(false)) => "says it only adds, never deletes, a hint artoo cannot check",
                _ => "does not declare it read-only; it may change or delete data",
            };
            format!(
                "artoo has not run this tool of the MCP server `{}` before; the server describes it as \"{}\" and {hints}; approving trusts this definition",
                self.server,
                self.description.replace('"', "'")
            )
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

    fn gate(read_only: Option<bool>, destructive: Option<bool>, trust: McpTrust) -> McpGate {
        McpGate {
            server: "files".into(),
            origin: "mcp-server-filesystem /tmp/x".into(),
            tool: "write_file".into(),
            fingerprint: "ab".into(),
            read_only_hint: read_only,
            destructive_hint: destructive,
            trust,
            description: "Create a new file or \"overwrite\" one".into(),
            call: "files.write_file {\"path\":\"/tmp/x/a\"}".into(),
        }
    }

    #[test]
    fn only_an_explicit_read_only_hint_on_a_trusted_definition_runs_without_asking() {
        assert!(
            !gate(Some(true), None, McpTrust::Trusted)
                .assess()
                .is_irreversible()
        );
        for (ro, destructive) in [
            (None, None),
            (Some(false), None),
            (None, Some(false)),
            (Some(false), Some(true)),
        ] {
            let a = gate(ro, destructive, McpTrust::Trusted).assess();
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
        let a = gate(Some(true), Some(false), McpTrust::Changed).assess();
        assert!(a.is_irreversible());
        assert!(a.description().contains("changed"), "{}", a.description());
    }

    #[test]
    fn the_first_call_of_a_tool_asks_with_what_its_server_says_about_it() {
        let a = gate(Some(true), None, McpTrust::New).assess();
        assert!(
            a.is_irreversible(),
            "a read-only claim is a hint until approved"
        );
        let d = a.description();
        assert!(d.contains("has not run this tool"), "{d}");
        assert!(
            d.contains("\"Create a new file or 'overwrite' one\""),
            "the server's words, quoted: {d}"
        );
        assert!(d.contains("declares it read-only"), "{d}");
    }

    #[test]
    fn the_grant_subject_names_server_origin_tool_and_definition() {
        let s = gate(None, None, McpTrust::Trusted).subject();
        assert_eq!(
            (s.server.as_str(), s.tool.as_str(), s.fingerprint.as_str()),
            ("files", "write_file", "ab")
        );
        assert_eq!(s.origin, "mcp-server-filesystem /tmp/x");
    }
}
