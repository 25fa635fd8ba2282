//! The `artoo` command line.

use anyhow::Context;
use clap::{Parser, Subcommand};

use artoo::Config;

#[derive(Parser)]
#[command(
    name = "artoo",
    version,
    about = "artoo — a local multi-agent task runner"
)]
struct Cli {
    /// More output on stderr (-v info, -vv debug). The log file is always written.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Show the effective configuration (API keys redacted) and where it came from.
    Config,
    /// Inspect the audit log: verify its hash chain, show reports, events, task
    /// timelines and the calibration view.
    Audit(artoo::auditor::cli::AuditArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let config = Config::from_process_env().context("configuration")?;
    let _guard = artoo::telemetry::init(&config.data_dir, cli.verbose)
        .with_context(|| format!("cannot write logs under {}", config.data_dir.display()))?;
    match cli.command {
        Some(Command::Config) | None => print_config(&config),
        Some(Command::Audit(args)) => artoo::auditor::cli::run(&config, args),
    }
}

fn print_config(config: &Config) -> anyhow::Result<()> {
    println!("data dir:  {}", config.data_dir.display());
    println!("workspace: {}", config.workspace.display());
    println!("settings:  {}", config.settings_path().display());
    for (name, tier) in [("brain", &config.llm.brain), ("tool", &config.llm.tool)] {
        println!(
            "{name:5} tier: {} model {} key {}",
            tier.base_url.as_deref().unwrap_or("(no base URL)"),
            tier.model.as_deref().unwrap_or("(no model)"),
            if tier.api_key.is_some() {
                "set"
            } else {
                "not set"
            }
        );
    }
    let settings = toml::to_string_pretty(&config.settings())?;
    println!("\n{settings}");
    Ok(())
}
