//! `artoo-scripted-llm --script FILE [--port N]`: serves a scripted OpenAI-compatible
//! endpoint on 127.0.0.1 for UI tests and demos, until Ctrl+C or SIGTERM. Prints the base
//! URL (`http://127.0.0.1:<port>/v1`) as its first line of output.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;

use artoo::testkit::{Script, ScriptedServer};

#[derive(Parser)]
#[command(
    name = "artoo-scripted-llm",
    version,
    about = "A scripted OpenAI-compatible endpoint for tests and demos"
)]
struct Args {
    /// Script file (JSON; see tests/fixtures/llm/).
    #[arg(long)]
    script: PathBuf,
    /// Port on 127.0.0.1; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let script = Script::from_file(&args.script)?;
    let server = ScriptedServer::start_on(args.port, script)
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", server.base_url())?;
    out.flush()?;
    drop(out);
    stopped().await?;
    server.shutdown().await;
    Ok(())
}

#[cfg(unix)]
async fn stopped() -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r?,
        _ = term.recv() => {}
    }
    Ok(())
}

#[cfg(not(unix))]
async fn stopped() -> anyhow::Result<()> {
    tokio::signal::ctrl_c().await?;
    Ok(())
}
