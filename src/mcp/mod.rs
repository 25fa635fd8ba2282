//! artoo as an MCP client (the official Rust SDK, `rmcp`): the servers of `[mcp]` in the
//! settings are started (stdio, as child processes) or reached (Streamable HTTP) when the
//! runtime starts, their tools listed, and each tool offered to R3 as one more [`Tool`]
//! after the built-in chain, named `<server>.<tool>`.
//!
//! - [`config`]: the settings section and the import of an `mcpServers` JSON block.
//! - [`trust`]: trust on first use of tool definitions, bound to the server's origin.
//! - [`McpHub::connect`] connects every enabled server at once, each bounded by
//!   `mcp.connect_timeout_secs`; a server that fails is reported in
//!   [`McpHub::status`] and left out, never an error of the runtime.
//! - [`McpTool`] turns a server's tool into a spec the executor's prompt and step schema
//!   can carry (a short summary, parameters from the input schema, both bounded), and
//!   every call into a [`Law1Action::Mcp`] for the toolbox's Law 1 gate
//!   ([`crate::laws::mcp`]), then into text for the model and the evidence record.
//!
//! **Invariant:** a server's tool is called only through the toolbox (so through every
//! guard and the Law 1 gate), with arguments that name every required parameter, and
//! never after the runtime closed the hub; a stdio server's process does not outlive it.

pub mod trust;

use std::borrow::Cow;
use std::fmt::Write as _;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::task::AbortOnDropHandle;

pub use crate::config::mcp::{
    McpConfig, McpImport, McpServerConfig, Transport, import_mcp_servers,
};
pub use trust::fingerprint;
pub(crate) use trust::{TrustStore, Untrusted};

use crate::config::Config;
use crate::contracts::EVIDENCE_HEAD_CHARS;
use crate::laws::mcp::{McpGate, McpTrust};
use crate::tools::{
    Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolRef, ToolSpec,
};

/// The chain position of every MCP tool: after the eight built-in tools.
pub const MCP_PRIORITY: u8 = 9;
/// Characters of a tool's summary in the executor's prompt.
pub const MAX_SUMMARY_CHARS: usize = 160;
/// Characters of one parameter's description in the executor's prompt.
pub const MAX_PARAM_CHARS: usize = 80;
/// Parameters of one tool shown to the model: every required one, then optional ones
/// up to this many in all.
pub const MAX_PARAMS: usize = 8;
/// Lines of a stdio server's stderr kept for a failed connection's message.
const STDERR_LINES: usize = 20;

/// A connected server.
struct Server {
    name: String,
    origin: String,
    service: RunningService<RoleClient, ()>,
    call_timeout: Duration,
    /// The reader of a stdio server's stderr: it goes with the server.
    _stderr: Option<AbortOnDropHandle<()>>,
}

impl Server {
    async fn call(&self, tool: &str, arguments: JsonObject) -> Result<String, ToolError> {
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let result = tokio::time::timeout(self.call_timeout, self.service.peer().call_tool(params))
            .await
            .map_err(|_| {
                ToolError::Failed(format!(
                    "the MCP server `{}` did not answer within {} s",
                    self.name,
                    self.call_timeout.as_secs()
                ))
            })?
            .map_err(|e| {
                ToolError::Failed(format!("the MCP server `{}` failed: {e}", self.name))
            })?;
        let text = result_text(&result);
        if result.is_error == Some(true) {
            return Err(ToolError::Failed(if text.is_empty() {
                format!(
                    "`{tool}` of the MCP server `{}` reported an error",
                    self.name
                )
            } else {
                text
            }));
        }
        Ok(text)
    }
}

/// A tool of one server, as R3's toolbox runs it.
pub struct McpTool {
    server: Arc<Server>,
    /// The tool's own name on its server.
    tool: String,
    spec: ToolSpec,
    required: Vec<String>,
    fingerprint: String,
    read_only_hint: Option<bool>,
    destructive_hint: Option<bool>,
    /// The definition is not a trusted one (until the user approves a call of it).
    untrusted: AtomicBool,
    /// Why, when it was untrusted at connection: never approved, or changed since.
    why_untrusted: Option<Untrusted>,
    trust: TrustStore,
}

impl McpTool {
    /// Its definition changed since a call of it was approved, and no call of the new
    /// one was approved yet.
    fn changed(&self) -> bool {
        self.untrusted.load(Ordering::SeqCst) && self.why_untrusted == Some(Untrusted::Changed)
    }

    fn gate(&self, arguments: &Value) -> McpGate {
        McpGate {
            server: self.server.name.clone(),
            origin: self.server.origin.clone(),
            tool: self.tool.clone(),
            fingerprint: self.fingerprint.clone(),
            read_only_hint: self.read_only_hint,
            destructive_hint: self.destructive_hint,
            trust: if self.untrusted.load(Ordering::SeqCst) {
                match self.why_untrusted {
                    Some(Untrusted::New) => McpTrust::New,
                    _ => McpTrust::Changed,
                }
            } else {
                McpTrust::Trusted
            },
            description: self.spec.summary.to_string(),
            call: format!("{} {arguments}", self.spec.name),
        }
    }
}

impl Tool for McpTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn prepare(&self, input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let Value::Object(map) = input else {
            return Err(ToolError::InvalidInput(
                "the parameters must be a JSON object".into(),
            ));
        };
        // Small models write `null` for optional parameters they do not use; servers
        // that validate their input reject it, so an optional null is left out.
        let arguments: JsonObject = map
            .iter()
            .filter(|(k, v)| !v.is_null() || self.required.contains(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(missing) = self.required.iter().find(|r| !arguments.contains_key(*r)) {
            return Err(ToolError::InvalidInput(format!("`{missing}` is required")));
        }
        let input = Value::Object(arguments);
        Ok(Prepared {
            tool: self.spec.name.clone(),
            target: target_of(&input),
            action: Some(Law1Action::Mcp(self.gate(&input))),
            input,
            note: None,
            approved: false,
            sandbox: None,
        })
    }

    fn run<'a>(&'a self, call: &'a Prepared, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            if call.approved && self.untrusted.swap(false, Ordering::SeqCst) {
                // The user saw this definition (new, or changed) and approved a call of it.
                self.trust
                    .accept(&self.server.origin, &self.tool, &self.fingerprint);
            }
            let arguments = match &call.input {
                Value::Object(map) => map.clone(),
                _ => JsonObject::new(),
            };
            self.server.call(&self.tool, arguments).await
        })
    }
}

/// The primary target of a call: the first path, URI, query or name among the
/// arguments, else the arguments themselves.
fn target_of(input: &Value) -> String {
    const KEYS: [&str; 10] = [
        "path",
        "source",
        "destination",
        "uri",
        "url",
        "query",
        "pattern",
        "name",
        "command",
        "message",
    ];
    KEYS.iter()
        .find_map(|k| input.get(k).and_then(Value::as_str))
        .map(str::to_string)
        .unwrap_or_else(|| input.to_string())
        .chars()
        .take(EVIDENCE_HEAD_CHARS)
        .collect()
}

/// The text of a result for the model and the evidence record: text blocks as they
/// are, other blocks named with their size, the structured content when there is no
/// text.
pub fn result_text(result: &CallToolResult) -> String {
    let mut out = String::new();
    for block in &result.content {
        let Ok(value) = serde_json::to_value(block) else {
            continue;
        };
        if !out.is_empty() {
            out.push('\n');
        }
        let field = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or_default();
        match field("type") {
            "text" => out.push_str(field("text")),
            "image" | "audio" => {
                let _ = write!(
                    out,
                    "[{} {}, {} bytes]",
                    field("type"),
                    field("mimeType"),
                    field("data").len() / 4 * 3
                );
            }
            "resource" => {
                let resource = value.get("resource").cloned().unwrap_or_default();
                match resource.get("text").and_then(Value::as_str) {
                    Some(text) => out.push_str(text),
                    None => {
                        let _ = write!(
                            out,
                            "[resource {}]",
                            resource.get("uri").and_then(Value::as_str).unwrap_or("")
                        );
                    }
                }
            }
            "resource_link" => {
                let _ = write!(out, "[link {} {}]", field("name"), field("uri"));
            }
            _ => out.push_str(&value.to_string()),
        }
    }
    if out.is_empty()
        && let Some(structured) = &result.structured_content
    {
        out = structured.to_string();
    }
    out
}

/// One sentence, whitespace folded, cut to `max` characters.
fn short(text: &str, max: usize) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = match folded.find(". ") {
        Some(end) => &folded[..=end],
        None => folded.as_str(),
    };
    if sentence.chars().count() <= max {
        sentence.to_string()
    } else {
        let mut cut: String = sentence.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// The JSON Schema type of one property, as a parameter kind.
fn kind_of(property: &Value) -> &'static str {
    let ty = match property.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        _ => "string",
    };
    match ty {
        "integer" => "integer",
        "number" => "number",
        "boolean" => "boolean",
        "array" => "array",
        "object" => "object",
        _ => "string",
    }
}

/// The spec the model sees: `<server>.<tool>`, a short summary, parameters from the
/// input schema (every required one, optional ones up to [`MAX_PARAMS`]).
pub fn spec_of(server: &str, tool: &rmcp::model::Tool) -> (ToolSpec, Vec<String>) {
    let schema = &tool.input_schema;
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut params: Vec<Param> = Vec::new();
    let describe = |name: &String, property: &Value, is_required: bool| {
        let mut about = short(
            property
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or(""),
            MAX_PARAM_CHARS,
        );
        if let Some(choices) = property.get("enum").and_then(Value::as_array)
            && choices.len() <= 6
        {
            let choices: Vec<String> = choices.iter().map(Value::to_string).collect();
            let _ = write!(
                about,
                "{}one of {}",
                if about.is_empty() { "" } else { "; " },
                choices.join(", ")
            );
        }
        Param {
            name: Cow::Owned(name.clone()),
            kind: Cow::Borrowed(kind_of(property)),
            required: is_required,
            about: Cow::Owned(about),
            choices: crate::tools::Choices::Open,
        }
    };
    if let Some(properties) = properties {
        for (name, property) in properties.iter().filter(|(n, _)| required.contains(n)) {
            params.push(describe(name, property, true));
        }
        for (name, property) in properties.iter().filter(|(n, _)| !required.contains(n)) {
            if params.len() >= MAX_PARAMS {
                break;
            }
            params.push(describe(name, property, false));
        }
    }
    let summary = tool
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
        .or(tool.title.as_deref())
        .unwrap_or(&tool.name);
    let spec = ToolSpec {
        name: ToolRef::parse(&format!("{server}.{}", tool.name)),
        priority: MCP_PRIORITY,
        summary: Cow::Owned(short(summary, MAX_SUMMARY_CHARS)),
        params: Cow::Owned(params),
        forms: &[],
    };
    (spec, required)
}

/// What Settings and `artoo mcp list` show of one server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct McpServerStatus {
    /// The server's name in the settings; tools are called `<name>.<tool>`.
    pub name: String,
    /// Its command line or URL.
    pub origin: String,
    /// The settings turn it on; a disabled server is not started.
    pub enabled: bool,
    /// It started and listed its tools.
    pub connected: bool,
    /// Why it is not connected.
    pub error: Option<String>,
    /// The tools it offers; empty while it is not connected.
    pub tools: Vec<McpToolStatus>,
}

/// One offered tool of a connected server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct McpToolStatus {
    /// The name the executor calls it by (`<server>.<tool>`).
    pub name: ToolRef,
    /// The tool's description as the server gave it, cut to one short line.
    pub summary: String,
    /// Declares `readOnlyHint: true` (runs without asking once a call of this
    /// definition was approved).
    pub read_only: bool,
    /// Its definition changed since a call of it was approved (asks before each call).
    pub changed: bool,
}

/// The connected servers of one runtime and their tools.
#[derive(Default)]
pub struct McpHub {
    servers: Vec<Arc<Server>>,
    tools: Vec<Arc<McpTool>>,
    status: Vec<McpServerStatus>,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.status.iter().map(|s| (&s.name, s.connected)))
            .finish()
    }
}

impl McpHub {
    /// Connects every enabled server of `config.mcp` at once; failures are reported in
    /// [`McpHub::status`], never raised.
    pub async fn connect(config: &Config) -> McpHub {
        let trust = TrustStore::in_dir(&config.data_dir);
        let connecting = config.mcp.servers.iter().map(|(name, server)| {
            let trust = trust.clone();
            async move {
                if !server.enabled {
                    return Err(McpServerStatus {
                        name: name.clone(),
                        origin: server.origin(),
                        enabled: false,
                        connected: false,
                        error: None,
                        tools: Vec::new(),
                    });
                }
                let bound = Duration::from_secs(config.mcp.connect_timeout_secs);
                match tokio::time::timeout(bound, connect_one(name, server, config)).await {
                    Ok(Ok((connected, defs))) => Ok(offer(connected, defs, server, &trust)),
                    Ok(Err(error)) => Err(failed(name, server, error)),
                    Err(_) => Err(failed(
                        name,
                        server,
                        format!(
                            "did not start and list its tools within {} s",
                            bound.as_secs()
                        ),
                    )),
                }
            }
        });
        let mut hub = McpHub::default();
        for outcome in futures::future::join_all(connecting).await {
            match outcome {
                Ok((server, tools, status)) => {
                    hub.servers.push(server);
                    hub.tools.extend(tools);
                    hub.status.push(status);
                }
                Err(status) => {
                    if let Some(error) = &status.error {
                        tracing::warn!(server = %status.name, %error, "MCP server not connected");
                    }
                    hub.status.push(status);
                }
            }
        }
        hub
    }

    /// The tools of every connected server, for [`crate::tools::Toolbox::extended`].
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .map(|t| Arc::clone(t) as Arc<dyn Tool>)
            .collect()
    }

    /// Every configured server: connected or why not, with its offered tools.
    pub fn status(&self) -> Vec<McpServerStatus> {
        let mut status = self.status.clone();
        for server in &mut status {
            for tool in &mut server.tools {
                tool.changed = self
                    .tools
                    .iter()
                    .find(|t| t.spec.name == tool.name)
                    .is_some_and(|t| t.changed());
            }
        }
        status
    }

    /// Closes every connection; stdio servers are stopped.
    pub async fn close(&self) {
        for server in &self.servers {
            server.service.cancellation_token().cancel();
        }
    }
}

fn failed(name: &str, server: &McpServerConfig, error: String) -> McpServerStatus {
    McpServerStatus {
        name: name.to_string(),
        origin: server.origin(),
        enabled: true,
        connected: false,
        error: Some(error),
        tools: Vec::new(),
    }
}

/// The offered tools of one connected server, with its status.
fn offer(
    server: Server,
    defs: Vec<rmcp::model::Tool>,
    config: &McpServerConfig,
    trust: &TrustStore,
) -> (Arc<Server>, Vec<Arc<McpTool>>, McpServerStatus) {
    let server = Arc::new(server);
    let defs: Vec<rmcp::model::Tool> = defs
        .into_iter()
        .filter(|t| config.tools.is_empty() || config.tools.iter().any(|n| *n == t.name))
        .collect();
    let fingerprints: Vec<(String, String)> = defs
        .iter()
        .map(|t| (t.name.to_string(), fingerprint(t)))
        .collect();
    let untrusted = trust.untrusted(&server.origin, &fingerprints);
    let mut tools = Vec::new();
    for (def, (_, fp)) in defs.iter().zip(fingerprints) {
        let (spec, required) = spec_of(&server.name, def);
        let hints = def.annotations.as_ref();
        tools.push(Arc::new(McpTool {
            server: Arc::clone(&server),
            tool: def.name.to_string(),
            spec,
            required,
            fingerprint: fp,
            read_only_hint: hints.and_then(|a| a.read_only_hint),
            destructive_hint: hints.and_then(|a| a.destructive_hint),
            untrusted: AtomicBool::new(untrusted.contains_key(def.name.as_ref())),
            why_untrusted: untrusted.get(def.name.as_ref()).copied(),
            trust: trust.clone(),
        }));
    }
    let status = McpServerStatus {
        name: server.name.clone(),
        origin: server.origin.clone(),
        enabled: true,
        connected: true,
        error: None,
        tools: tools
            .iter()
            .map(|t| McpToolStatus {
                name: t.spec.name.clone(),
                summary: t.spec.summary.to_string(),
                read_only: t.read_only_hint == Some(true),
                changed: t.changed(),
            })
            .collect(),
    };
    (server, tools, status)
}

/// Starts or reaches one server and lists its tools.
async fn connect_one(
    name: &str,
    server: &McpServerConfig,
    config: &Config,
) -> Result<(Server, Vec<rmcp::model::Tool>), String> {
    let transport = server
        .transport()
        .ok_or_else(|| format!("server `{name}` needs exactly one of a command or a url"))?;
    let (service, stderr, reader) = match transport {
        Transport::Stdio { command, args } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .env_clear()
                .envs(crate::tools::scrub_env(std::env::vars_os()))
                .envs(&server.env)
                .kill_on_drop(true);
            if config.workspace.is_dir() {
                cmd.current_dir(&config.workspace);
            }
            let (child, stderr) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("`{command}` could not be started: {e}"))?;
            let lines = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
            let reader = stderr.map(|stderr| {
                let lines = Arc::clone(&lines);
                let name = name.to_string();
                AbortOnDropHandle::new(tokio::spawn(async move {
                    let mut reader = BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = reader.next_line().await {
                        tracing::debug!(server = %name, "{line}");
                        let mut kept = crate::sync::lock(&lines);
                        if kept.len() < STDERR_LINES {
                            kept.push(line);
                        }
                    }
                }))
            });
            match ().serve(child).await {
                Ok(service) => (service, lines, reader),
                Err(e) => {
                    // Give the reader a moment to collect why the program stopped.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    let said = crate::sync::lock(&lines).join(" | ");
                    return Err(if said.is_empty() {
                        format!("`{command}` did not speak MCP: {e}")
                    } else {
                        format!("`{command}` did not speak MCP: {e} ({said})")
                    });
                }
            }
        }
        Transport::Http { url } => {
            let transport = StreamableHttpClientTransport::from_uri(url.to_string());
            let service = ().serve(transport).await.map_err(|e| {
                format!("{url} did not answer as a Streamable HTTP MCP server: {e}")
            })?;
            (service, Arc::default(), None)
        }
    };
    drop(stderr);
    let tools = service
        .peer()
        .list_all_tools()
        .await
        .map_err(|e| format!("listing its tools failed: {e}"))?;
    Ok((
        Server {
            name: name.to_string(),
            origin: server.origin(),
            service,
            call_timeout: Duration::from_secs(config.mcp.call_timeout_secs),
            _stderr: reader,
        },
        tools,
    ))
}

#[cfg(test)]
mod tests;
