//! `artoo mcp …`: list the configured servers and their tools, import an `mcpServers`
//! JSON config into the settings, list and revoke standing grants.
//!
//! **Invariant:** the settings file and the grant store are changed only by the
//! subcommand the user typed (`import`, `revoke`); `list` and `grants` only read.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use artoo::config::Config;
use artoo::laws::grants::GrantStore;
use artoo::mcp::{McpHub, import_mcp_servers};

#[derive(Args, Debug)]
pub struct McpArgs {
    #[command(subcommand)]
    pub command: McpCommand,
}

#[derive(Subcommand, Debug)]
pub enum McpCommand {
    /// Connect to every configured server and list the tools it offers.
    List,
    /// Add the servers of a Claude Desktop / Cursor style JSON config (its `mcpServers`
    /// block) to settings.toml; a name already configured is kept as it is.
    Import {
        /// e.g. ~/Library/Application Support/Claude/claude_desktop_config.json
        file: PathBuf,
    },
    /// List the standing "always allow" grants.
    Grants,
    /// Revoke the standing grants of a server, or of one tool of it.
    Revoke {
        server: String,
        /// The tool's own name on its server (all of the server's grants when left out).
        tool: Option<String>,
    },
}

pub fn run(config: &Config, args: McpArgs) -> anyhow::Result<()> {
    match args.command {
        McpCommand::List => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?;
            let status = rt.block_on(async {
                let hub = McpHub::connect(config).await;
                let status = hub.status();
                hub.close().await;
                status
            });
            if status.is_empty() {
                println!("No MCP servers are configured ([mcp.servers] in settings.toml).");
            }
            for server in status {
                let state = match (&server.error, server.enabled) {
                    (_, false) => "disabled".to_string(),
                    (Some(e), _) => format!("not connected: {e}"),
                    (None, _) => format!("{} tool(s)", server.tools.len()),
                };
                println!("{}  ({})  {state}", server.name, server.origin);
                for tool in server.tools {
                    let gate = if tool.changed {
                        "asks: changed since first trusted"
                    } else if tool.read_only {
                        "read-only"
                    } else {
                        "asks"
                    };
                    println!("  {}  [{gate}]  {}", tool.name, tool.summary);
                }
            }
            Ok(())
        }
        McpCommand::Import { file } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let import = import_mcp_servers(&text).map_err(anyhow::Error::msg)?;
            let mut settings = config.settings();
            let mut added = Vec::new();
            for (name, server) in import.servers {
                if settings.mcp.servers.contains_key(&name) {
                    println!("kept: {name} (already configured)");
                    continue;
                }
                added.push(name.clone());
                settings.mcp.servers.insert(name, server);
            }
            for why in &import.skipped {
                println!("skipped: {why}");
            }
            config.save_settings(&settings)?;
            println!(
                "added {} server(s){}{} to {}",
                added.len(),
                if added.is_empty() { "" } else { ": " },
                added.join(", "),
                config.settings_path().display()
            );
            Ok(())
        }
        McpCommand::Grants => {
            let grants = GrantStore::in_dir(&config.data_dir).list()?;
            if grants.is_empty() {
                println!("No standing grants: every gated MCP call asks.");
            }
            for g in grants {
                println!(
                    "{}.{}  ({})  since {}",
                    g.subject.server,
                    g.subject.tool,
                    g.subject.origin,
                    g.granted_at.format("%Y-%m-%d %H:%M UTC")
                );
            }
            Ok(())
        }
        McpCommand::Revoke { server, tool } => {
            let store = GrantStore::in_dir(&config.data_dir);
            let removed = match tool {
                None => store.revoke_server(&server)?,
                Some(tool) => {
                    let mut n = 0;
                    for g in store.list()? {
                        if g.subject.server == server
                            && g.subject.tool == tool
                            && store.revoke(&g.subject)?
                        {
                            n += 1;
                        }
                    }
                    n
                }
            };
            println!("revoked {removed} grant(s)");
            Ok(())
        }
    }
}
