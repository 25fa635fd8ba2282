//! The names of the executor's tools: the one vocabulary the tools register under, the
//! planner's plans name, memory's `tool:` spaces use and the executor's next-step schema
//! offers the model — and [`ToolRef`], the one type everything else names a tool by
//! (records, plans, confirmations, memory, GGS), built-in, MCP or unknown.
//!
//! **Invariant:** every tool of the standard toolbox is registered under
//! [`ToolName::as_str`] of exactly one variant, in [`ToolName::CHAIN`] order (a test of
//! the toolbox pins it), so a name is never spelled twice; a [`ToolRef`] is written as
//! exactly the name it was read from, except that a built-in name is written as the chain
//! spells it. The names live with the contracts because every contract that names a tool
//! uses them; the tools themselves depend on this, never the other way round.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The longest name an MCP server may have.
pub const MAX_SERVER_NAME: usize = 32;

/// Whether `name` can be an MCP server's name: 1 to [`MAX_SERVER_NAME`] ASCII letters,
/// digits, `-` or `_` (so never a `.`, which separates it from a tool's own name).
pub fn valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_SERVER_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A tool of the executor's priority chain.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ToolName {
    /// Lists or finds files under a folder: sizes, dates, sorting, counts per group.
    ListFiles,
    /// Reads a CSV/TSV/JSON/JSON Lines file as a table and computes by column name.
    ReadTable,
    /// A text file's lines chosen by code: counted, first, last, every one, each
    /// different one with its count, or one by its number.
    ReadLines,
    /// Arithmetic and calendar facts computed by code.
    Calculate,
    /// Copies files into a folder by code, item by item, never overwriting.
    CopyFiles,
    /// Moves files into a folder, never overwriting (runs as an exact shell command).
    MoveFiles,
    /// Deletes files, asked first (runs as an exact shell command).
    DeleteFiles,
    /// Personal file search by name: Spotlight on macOS, the locate index or a bounded home walk
    /// elsewhere.
    Mdfind,
    /// Files matching a pattern.
    Glob,
    /// One file's text.
    ReadFile,
    /// Writes or appends a file.
    WriteFile,
    /// Replaces every place a text occurs in a text file, by code.
    EditFile,
    /// Writes a file made by code from another: lines sorted or each once, a table in
    /// another format.
    ConvertFile,
    /// Sets one setting's value in a file by its key, by code.
    SetValue,
    // Off macOS these two are not in any schema offered to a model, so a constrained
    // model cannot name them; plan validation and the toolbox refuse them again for
    // endpoints that ignore the schema.
    /// Runs an AppleScript program (macOS only).
    #[cfg_attr(not(target_os = "macos"), serde(skip_deserializing))]
    Applescript,
    /// Runs a named Shortcut (macOS only).
    #[cfg_attr(not(target_os = "macos"), serde(skip_deserializing))]
    Shortcuts,
    /// Runs a `bash -c` command line.
    Shell,
    /// A web search.
    Search,
}

impl ToolName {
    /// The chain, highest priority first.
    pub const CHAIN: [ToolName; 18] = [
        ToolName::Mdfind,
        ToolName::Glob,
        ToolName::ReadFile,
        ToolName::WriteFile,
        ToolName::Calculate,
        ToolName::ConvertFile,
        ToolName::CopyFiles,
        ToolName::DeleteFiles,
        ToolName::EditFile,
        ToolName::ListFiles,
        ToolName::MoveFiles,
        ToolName::ReadLines,
        ToolName::ReadTable,
        ToolName::SetValue,
        ToolName::Applescript,
        ToolName::Shortcuts,
        ToolName::Shell,
        ToolName::Search,
    ];

    /// The name the tool is registered and called by.
    pub const fn as_str(self) -> &'static str {
        match self {
            ToolName::ListFiles => "list_files",
            ToolName::ReadTable => "read_table",
            ToolName::ReadLines => "read_lines",
            ToolName::Calculate => "calculate",
            ToolName::CopyFiles => "copy_files",
            ToolName::MoveFiles => "move_files",
            ToolName::DeleteFiles => "delete_files",
            ToolName::Mdfind => "mdfind",
            ToolName::Glob => "glob",
            ToolName::ReadFile => "read_file",
            ToolName::WriteFile => "write_file",
            ToolName::EditFile => "edit_file",
            ToolName::ConvertFile => "convert_file",
            ToolName::SetValue => "set_value",
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

    /// Whether the tool only reads or searches, by parameters code checks (no program
    /// text the model writes): its success changes no file, and what it shows is what is
    /// there. A wrong call of such a tool is a wrong *parameter*, corrected call by call;
    /// the tool itself is never the wrong method.
    pub const fn only_reads(self) -> bool {
        matches!(
            self,
            ToolName::Mdfind
                | ToolName::Glob
                | ToolName::ReadFile
                | ToolName::ListFiles
                | ToolName::ReadTable
                | ToolName::ReadLines
                | ToolName::Calculate
                | ToolName::Search
        )
    }

    /// Whether the tool runs what the model wrote — a command line, a script, a file's
    /// text — rather than a method code owns, called by parameters code checks. Only
    /// such a tool can be the wrong *method* when its call ran and the result was still
    /// wrong; a typed tool's wrong call is a wrong parameter, corrected call by call.
    pub const fn runs_what_the_model_wrote(self) -> bool {
        matches!(
            self,
            ToolName::Shell | ToolName::Applescript | ToolName::WriteFile
        )
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

/// The tools' names, joined by `sep`, as prose and logs list them.
pub fn join_names<'a, T: fmt::Display + 'a>(
    tools: impl IntoIterator<Item = &'a T>,
    sep: &str,
) -> String {
    tools
        .into_iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

/// A tool of an MCP server, as the executor calls it: `<server>.<tool>`. The server's
/// name never holds a `.` ([`valid_server_name`]), so the first `.` splits
/// the two; the tool's own name is the server's and may hold anything.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct McpToolName {
    /// `<server>.<tool>`, as written.
    name: String,
    /// Where the `.` is.
    dot: usize,
}

impl McpToolName {
    /// The MCP tool `name` means, exactly as written, if it has that shape.
    pub fn parse(name: &str) -> Option<Self> {
        let (server, tool) = name.split_once('.')?;
        (valid_server_name(server) && !tool.is_empty()).then(|| Self {
            name: name.to_string(),
            dot: server.len(),
        })
    }

    /// The server's name (a key of `[mcp.servers]`).
    pub fn server(&self) -> &str {
        &self.name[..self.dot]
    }

    /// The tool's own name on its server.
    pub fn tool(&self) -> &str {
        &self.name[self.dot + 1..]
    }

    /// `<server>.<tool>`.
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

impl fmt::Debug for McpToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "McpToolName({:?})", self.name)
    }
}

/// A tool as anything names it — a record, a plan, a memory, a confirmation, a model:
/// one of the built-in chain, a tool of an MCP server, or a name no tool answers to.
///
/// It is written as the plain name the tool is called by (`shell`, `files.read_text_file`)
/// and read back from it, so stored records, memories and logs keep their strings. A
/// built-in tool's name is read ignoring case and surrounding blanks (as models write
/// it) and written as the chain spells it; any other name is kept exactly as written.
/// Whether an MCP tool's server is connected is not part of the name: a name of MCP
/// shape is [`ToolRef::Mcp`] whether or not its server answers today.
///
/// Ordered by the name as written, so a list of tools sorts as their names do.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "specta", derive(specta::Type), specta(type = String))]
pub enum ToolRef {
    /// A built-in tool.
    Builtin(ToolName),
    /// A tool of a configured MCP server.
    Mcp(McpToolName),
    /// A name that is neither a built-in tool nor of MCP shape, as written.
    Unknown(String),
}

impl ToolRef {
    /// What `name` names (see the type's docs); never fails.
    pub fn parse(name: &str) -> Self {
        if let Some(tool) = ToolName::parse(name) {
            ToolRef::Builtin(tool)
        } else if let Some(tool) = McpToolName::parse(name) {
            ToolRef::Mcp(tool)
        } else {
            ToolRef::Unknown(name.to_string())
        }
    }

    /// The name the tool is called by, as written on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            ToolRef::Builtin(tool) => tool.as_str(),
            ToolRef::Mcp(tool) => tool.as_str(),
            ToolRef::Unknown(name) => name,
        }
    }

    /// The built-in tool this names, if it names one.
    pub fn builtin(&self) -> Option<ToolName> {
        match self {
            ToolRef::Builtin(tool) => Some(*tool),
            _ => None,
        }
    }
}

impl Ord for ToolRef {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let rank = |r: &ToolRef| match r {
            ToolRef::Builtin(_) => 0,
            ToolRef::Mcp(_) => 1,
            ToolRef::Unknown(_) => 2,
        };
        self.as_str()
            .cmp(other.as_str())
            .then_with(|| rank(self).cmp(&rank(other)))
    }
}

impl PartialOrd for ToolRef {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl From<ToolName> for ToolRef {
    fn from(tool: ToolName) -> Self {
        ToolRef::Builtin(tool)
    }
}

impl From<McpToolName> for ToolRef {
    fn from(tool: McpToolName) -> Self {
        ToolRef::Mcp(tool)
    }
}

impl PartialEq<ToolName> for ToolRef {
    fn eq(&self, other: &ToolName) -> bool {
        self.builtin() == Some(*other)
    }
}

impl fmt::Display for ToolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ToolRef {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ToolRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(ToolRef::parse(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_none() {
        for tool in ToolName::CHAIN {
            assert_eq!(ToolName::parse(tool.as_str()), Some(tool));
            assert_eq!(tool.to_string(), tool.as_str());
        }
        assert_eq!(ToolName::parse(" Shell "), Some(ToolName::Shell));
        assert_eq!(ToolName::parse("cloc"), None);
    }

    #[test]
    fn every_built_in_tool_ref_round_trips_through_its_wire_name() {
        for tool in ToolName::CHAIN {
            let r = ToolRef::from(tool);
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", tool.as_str()));
            assert_eq!(serde_json::from_str::<ToolRef>(&json).unwrap(), r);
            assert_eq!(ToolRef::parse(tool.as_str()), r);
            assert_eq!(r.to_string(), tool.as_str());
            assert_eq!(r, tool);
            assert_eq!(r.builtin(), Some(tool));
        }
        // As models write them: read as the tool, written as the chain spells it.
        assert_eq!(ToolRef::parse(" Shell "), ToolName::Shell);
        assert_eq!(
            serde_json::to_string(&serde_json::from_str::<ToolRef>("\"READ_FILE\"").unwrap())
                .unwrap(),
            "\"read_file\""
        );
    }

    #[test]
    fn an_mcp_name_is_its_server_and_tool_and_round_trips() {
        let r = ToolRef::parse("files.read_text_file");
        let ToolRef::Mcp(mcp) = &r else {
            panic!("{r:?} is not an MCP tool");
        };
        assert_eq!(mcp.server(), "files");
        assert_eq!(mcp.tool(), "read_text_file");
        assert_eq!(mcp.as_str(), "files.read_text_file");
        assert_eq!(r.builtin(), None);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, "\"files.read_text_file\"");
        assert_eq!(serde_json::from_str::<ToolRef>(&json).unwrap(), r);
        // The first `.` ends the server's name; the tool's own name keeps the rest.
        let dotted = ToolRef::parse("srv-1.v2.list");
        assert!(
            matches!(&dotted, ToolRef::Mcp(m) if m.server() == "srv-1" && m.tool() == "v2.list"),
            "{dotted:?}"
        );
        assert_eq!(dotted.to_string(), "srv-1.v2.list");
    }

    #[test]
    fn a_name_no_tool_answers_to_stays_unknown_with_its_text() {
        for name in ["cloc", "", " ", "Bash ", ".tool", "srv.", "a b.c", "x/y.z"] {
            let r = ToolRef::parse(name);
            assert_eq!(r, ToolRef::Unknown(name.to_string()), "{name:?}");
            assert_eq!(r.as_str(), name);
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, serde_json::to_string(name).unwrap());
            assert_eq!(serde_json::from_str::<ToolRef>(&json).unwrap(), r);
        }
        assert_eq!(McpToolName::parse("bad server.t"), None);
        assert_eq!(McpToolName::parse("srv."), None);
    }
}
