//! The names of the executor's tools: the one vocabulary the tools register under, the
//! planner's plans name, memory's `tool:` spaces use and the executor's next-step schema
//! offers the model.
//!
//! **Invariant:** every tool of [`super::Toolbox::standard`] is registered under
//! [`ToolName::as_str`] of exactly one variant, in [`ToolName::CHAIN`] order (a test
//! pins it), so a name is never spelled twice.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A tool of the executor's priority chain.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ToolName {
    Mdfind,
    Glob,
    ReadFile,
    WriteFile,
    // Off macOS these two are not in any schema offered to a model, so a constrained
    // model cannot name them; plan validation and the toolbox refuse them again for
    // endpoints that ignore the schema.
    #[cfg_attr(not(target_os = "macos"), serde(skip_deserializing))]
    Applescript,
    #[cfg_attr(not(target_os = "macos"), serde(skip_deserializing))]
    Shortcuts,
    Shell,
    Search,
}

impl ToolName {
    /// The chain, highest priority first.
    pub const CHAIN: [ToolName; 8] = [
        ToolName::Mdfind,
        ToolName::Glob,
        ToolName::ReadFile,
        ToolName::WriteFile,
        ToolName::Applescript,
        ToolName::Shortcuts,
        ToolName::Shell,
        ToolName::Search,
    ];

    /// The name the tool is registered and called by.
    pub const fn as_str(self) -> &'static str {
        match self {
            ToolName::Mdfind => "mdfind",
            ToolName::Glob => "glob",
            ToolName::ReadFile => "read_file",
            ToolName::WriteFile => "write_file",
            ToolName::Applescript => "applescript",
            ToolName::Shortcuts => "shortcuts",
            ToolName::Shell => "shell",
            ToolName::Search => "search",
        }
    }

    /// The tool a name means, ignoring case and surrounding blanks.
    pub fn parse(name: &str) -> Option<ToolName> {
        let name = name.trim();
        Self::CHAIN
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(name))
    }

    /// AppleScript and Shortcuts exist only on macOS; every other tool runs everywhere
    /// (mdfind falls back to the locate index or a bounded walk off macOS).
    pub fn is_available(self) -> bool {
        cfg!(target_os = "macos") || !matches!(self, ToolName::Applescript | ToolName::Shortcuts)
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Toolbox;

    #[test]
    fn the_standard_toolbox_registers_exactly_the_chain_in_order() {
        let specs = Toolbox::standard().specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_ref()).collect();
        let chain: Vec<&str> = ToolName::CHAIN.iter().map(|t| t.as_str()).collect();
        assert_eq!(names, chain);
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_none() {
        for tool in ToolName::CHAIN {
            assert_eq!(ToolName::parse(tool.as_str()), Some(tool));
            assert_eq!(tool.to_string(), tool.as_str());
        }
        assert_eq!(ToolName::parse(" Shell "), Some(ToolName::Shell));
        assert_eq!(ToolName::parse("cloc"), None);
    }
}
