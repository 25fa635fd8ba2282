//! Tracing set-up: a daily rolling file in `<data_dir>/logs/`, and a quiet stderr
//! (warnings only) that `-v`/`-vv` make louder.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::writer::MakeWriterExt;
use tracing_subscriber::prelude::*;

/// Installs the global subscriber. Keep the returned guard alive for the whole process:
/// dropping it flushes the file writer.
pub fn init(data_dir: &Path, verbosity: u8) -> std::io::Result<WorkerGuard> {
    let dir = data_dir.join("logs");
    std::fs::create_dir_all(&dir)?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("artoo")
        .filename_suffix("log")
        .max_log_files(14)
        .build(&dir)
        .map_err(std::io::Error::other)?;
    let (file_writer, guard) = tracing_appender::non_blocking(appender);

    let (file_level, stderr_level) = match verbosity {
        0 => ("info", tracing::Level::WARN),
        1 => ("debug", tracing::Level::INFO),
        _ => ("trace", tracing::Level::DEBUG),
    };
    // Dependencies stay at warn in the file unless asked for: they are chatty.
    let file_filter = EnvFilter::new(format!(
        "warn,artoo={file_level},artoo_desktop={file_level}"
    ));
    let file_layer = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_writer(file_writer)
        .with_filter(file_filter);
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_target(false)
        .without_time()
        .with_writer(std::io::stderr.with_max_level(stderr_level));
    // A second init (tests, embedding) keeps the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(file_layer)
        .with(stderr_layer)
        .try_init();
    Ok(guard)
}
