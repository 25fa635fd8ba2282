//! The `[mcp]` section of `settings.toml` and the import of an `mcpServers` block from a
//! Claude Desktop / Cursor style JSON config.
//!
//! ```toml
//! [mcp.servers.files]
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
//!
//! [mcp.servers.everything]
//! url = "http://127.0.0.1:3001/mcp"
//! ```
//!
//! **Invariant:** a server that passes [`McpServerConfig::validate`] has exactly one way
//! to reach it (a command or an `http(s)` URL) and a name usable in a tool name.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::contracts::{MAX_SERVER_NAME, valid_server_name};

/// `[mcp]`: the MCP servers artoo connects to at start, and the bounds of their calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct McpConfig {
    /// How long one server may take to start and list its tools.
    pub connect_timeout_secs: u64,
    /// How long one tool call may take.
    pub call_timeout_secs: u64,
    /// By name; the name prefixes the server's tools (`files.read_text_file`).
    pub servers: BTreeMap<String, McpServerConfig>,
}

impl Default for McpConfig {
    fn default() -> Self {
        Self {
            connect_timeout_secs: 30,
            call_timeout_secs: 60,
            servers: BTreeMap::new(),
        }
    }
}

/// One server: a program speaking MCP over stdio, or a Streamable HTTP endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default, deny_unknown_fields)]
pub struct McpServerConfig {
    /// The program of a stdio server (looked up on `PATH`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The arguments of a stdio server's program.
    pub args: Vec<String>,
    /// Extra environment variables of a stdio server (kept in settings.toml as written).
    pub env: BTreeMap<String, String>,
    /// The endpoint of a Streamable HTTP server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Only these tools of the server are offered (all when empty).
    pub tools: Vec<String>,
    /// Whether the server is started; a disabled one keeps its settings.
    pub enabled: bool,
}

impl Default for McpServerConfig {
    fn default() -> Self {
        Self {
            command: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            url: None,
            tools: Vec::new(),
            enabled: true,
        }
    }
}

/// How a server is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport<'a> {
    /// A child process speaking MCP on stdin and stdout.
    Stdio {
        /// The program.
        command: &'a str,
        /// Its arguments.
        args: &'a [String],
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint's URL.
        url: &'a str,
    },
}

impl McpServerConfig {
    /// A stdio server running `command` with `args`; the other fields keep their defaults.
    pub fn stdio(command: impl Into<String>, args: &[&str]) -> Self {
        Self {
            command: Some(command.into()),
            args: args.iter().map(|a| a.to_string()).collect(),
            ..Self::default()
        }
    }

    /// An HTTP server at `url`; the other fields keep their defaults.
    pub fn http(url: impl Into<String>) -> Self {
        Self {
            url: Some(url.into()),
            ..Self::default()
        }
    }

    /// The transport; `None` when the config names neither or both.
    pub fn transport(&self) -> Option<Transport<'_>> {
        let command = self
            .command
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty());
        let url = self.url.as_deref().map(str::trim).filter(|u| !u.is_empty());
        match (command, url) {
            (Some(command), None) => Some(Transport::Stdio {
                command,
                args: &self.args,
            }),
            (None, Some(url)) => Some(Transport::Http { url }),
            _ => None,
        }
    }

    /// What the server is bound to for trust and grants: its command line or its URL.
    pub fn origin(&self) -> String {
        match self.transport() {
            Some(Transport::Stdio { command, args }) => std::iter::once(command)
                .chain(args.iter().map(String::as_str))
                .map(quote_arg)
                .collect::<Vec<_>>()
                .join(" "),
            Some(Transport::Http { url }) => url.to_string(),
            None => String::new(),
        }
    }

    /// Checks one server; the error says what is wrong in words.
    pub fn validate(&self, name: &str) -> Result<(), String> {
        if !valid_server_name(name) {
            return Err(format!(
                "the server name `{name}` must be 1 to {MAX_SERVER_NAME} letters, digits, `-` or `_`"
            ));
        }
        match self.transport() {
            None if self.command.is_some() && self.url.is_some() => Err(format!(
                "server `{name}` names both a command and a url; give one"
            )),
            None => Err(format!("server `{name}` needs a command or a url")),
            Some(Transport::Http { url }) => match url::Url::parse(url) {
                Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(()),
                Ok(u) => Err(format!(
                    "server `{name}`: the url must be http or https, not {}",
                    u.scheme()
                )),
                Err(e) => Err(format!("server `{name}`: the url is not valid ({e})")),
            },
            Some(Transport::Stdio { .. }) => Ok(()),
        }
    }
}

/// One word of a command line as a shell would need it written.
fn quote_arg(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// A name made usable as a server name (other characters become `-`).
fn usable_name(raw: &str) -> String {
    let name: String = raw
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(MAX_SERVER_NAME)
        .collect();
    if name.is_empty() {
        "server".into()
    } else {
        name
    }
}

/// What an import found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct McpImport {
    /// Usable servers by (possibly adjusted) name.
    pub servers: BTreeMap<String, McpServerConfig>,
    /// Entries left out, each with why.
    pub skipped: Vec<String>,
}

/// Reads the `mcpServers` block of a Claude Desktop / Cursor style config (or a VS Code
/// style `servers` block): `{"mcpServers": {"name": {"command", "args", "env"} | {"url"}}}`.
/// Entries artoo cannot use (legacy SSE, neither command nor url) are listed in
/// `skipped`; a disabled entry comes in disabled.
pub fn import_mcp_servers(json: &str) -> Result<McpImport, String> {
    let root: Value = serde_json::from_str(json).map_err(|e| format!("not a JSON config: {e}"))?;
    let block = root
        .get("mcpServers")
        .or_else(|| root.get("servers"))
        .and_then(Value::as_object)
        .ok_or("the config has no \"mcpServers\" object")?;
    let mut out = McpImport::default();
    for (raw_name, entry) in block {
        let mut name = usable_name(raw_name);
        let mut n = 2;
        while out.servers.contains_key(&name) {
            name = format!("{}-{n}", usable_name(raw_name));
            n += 1;
        }
        match import_entry(entry) {
            Ok(server) => match server.validate(&name) {
                Ok(()) => {
                    out.servers.insert(name, server);
                }
                Err(why) => out.skipped.push(format!("{raw_name}: {why}")),
            },
            Err(why) => out.skipped.push(format!("{raw_name}: {why}")),
        }
    }
    Ok(out)
}

fn import_entry(entry: &Value) -> Result<McpServerConfig, String> {
    let obj = entry.as_object().ok_or("not an object")?;
    let text = |key: &str| obj.get(key).and_then(Value::as_str).map(str::to_string);
    let kind = text("type")
        .or_else(|| text("transport"))
        .unwrap_or_default();
    if kind.eq_ignore_ascii_case("sse") {
        return Err("a legacy SSE server; artoo speaks Streamable HTTP and stdio".into());
    }
    let args = match obj.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|a| {
                a.as_str()
                    .map(str::to_string)
                    .ok_or("an argument is not a string")
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`args` is not a list".into()),
    };
    let env = match obj.get("env") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(vars)) => vars
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Ok((k.clone(), other.to_string())),
            })
            .collect::<Result<_, String>>()?,
        Some(_) => return Err("`env` is not an object".into()),
    };
    let disabled = obj
        .get("disabled")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(McpServerConfig {
        command: text("command"),
        args,
        env,
        url: text("url"),
        tools: Vec::new(),
        enabled: !disabled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claude_desktop_config_comes_in_with_its_servers() {
        let json = r#"{
          "mcpServers": {
            "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]},
            "github": {"command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"], "env": {"GITHUB_TOKEN": "x"}},
            "remote": {"type": "http", "url": "https://example.invalid/mcp"},
            "old": {"type": "sse", "url": "https://example.invalid/sse"},
            "off": {"command": "uvx", "args": ["mcp-server-time"], "disabled": true},
            "my server!": {"command": "node", "args": ["s.js"]},
            "broken": {"args": ["x"]}
          },
          "globalShortcut": "Ctrl+Space"
        }"#;
        let import = import_mcp_servers(json).unwrap();
        let names: Vec<&str> = import.servers.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["filesystem", "github", "my-server-", "off", "remote"]
        );
        let fs = &import.servers["filesystem"];
        assert_eq!(
            fs.origin(),
            "npx -y @modelcontextprotocol/server-filesystem /Users/me/Desktop"
        );
        assert_eq!(import.servers["github"].env["GITHUB_TOKEN"], "x");
        assert_eq!(
            import.servers["remote"].transport(),
            Some(Transport::Http {
                url: "https://example.invalid/mcp"
            })
        );
        assert!(!import.servers["off"].enabled);
        assert_eq!(import.skipped.len(), 2, "{:?}", import.skipped);
        assert!(
            import
                .skipped
                .iter()
                .any(|s| s.starts_with("old: a legacy SSE"))
        );
        assert!(import.skipped.iter().any(|s| s.starts_with("broken:")));
    }

    #[test]
    fn a_config_without_servers_is_an_error() {
        assert!(import_mcp_servers("{\"x\": 1}").is_err());
        assert!(import_mcp_servers("not json").is_err());
    }

    #[test]
    fn a_server_needs_one_way_in_and_a_usable_name() {
        assert!(
            McpServerConfig::stdio("node", &["s.js"])
                .validate("ok_1")
                .is_ok()
        );
        assert!(
            McpServerConfig::http("http://127.0.0.1:1/mcp")
                .validate("h")
                .is_ok()
        );
        assert!(McpServerConfig::http("ftp://x/mcp").validate("h").is_err());
        assert!(McpServerConfig::default().validate("none").is_err());
        let both = McpServerConfig {
            url: Some("http://x/mcp".into()),
            ..McpServerConfig::stdio("node", &[])
        };
        assert!(both.validate("both").unwrap_err().contains("both"));
        assert!(McpServerConfig::stdio("node", &[]).validate("a.b").is_err());
        assert!(McpServerConfig::stdio("node", &[]).validate("").is_err());
    }

    #[test]
    fn the_origin_quotes_what_a_shell_would_split() {
        let s = McpServerConfig::stdio("node", &["my server.js", "it's"]);
        assert_eq!(s.origin(), r"node 'my server.js' 'it'\''s'");
    }

    #[test]
    fn settings_toml_round_trips_a_server() {
        let mut config = McpConfig::default();
        config.servers.insert(
            "files".into(),
            McpServerConfig::stdio("mcp-server-filesystem", &["/tmp"]),
        );
        let text = toml::to_string(&config).unwrap();
        let back: McpConfig = toml::from_str(&text).unwrap();
        assert_eq!(back, config);
        let typo = toml::from_str::<McpConfig>("[servers.x]\ncomand = \"node\"\n");
        assert!(typo.is_err());
    }
}
