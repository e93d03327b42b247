//! Console and log-file output.
//!
//! The console gets plain lines without timestamps at the chosen level; the log file
//! `<dir>/.okd-install.log` gets everything at debug with RFC 3339 timestamps, so a support
//! case can be reconstructed afterwards. Nothing secret is ever passed to `tracing`: asset
//! values (keys, pull secret, passwords) are never formatted into log lines.

use std::fs::OpenOptions;
use std::io::IsTerminal;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::time::UtcTime;
use tracing_subscriber::prelude::*;

use crate::cli::LogLevel;

/// Name of the debug log inside the asset directory.
pub const LOG_FILE: &str = ".okd-install.log";

fn level(l: LogLevel) -> LevelFilter {
    match l {
        LogLevel::Error => LevelFilter::ERROR,
        LogLevel::Warn => LevelFilter::WARN,
        LogLevel::Info => LevelFilter::INFO,
        LogLevel::Debug => LevelFilter::DEBUG,
        LogLevel::Trace => LevelFilter::TRACE,
    }
}

/// Install the console layer and, when `dir` is given, the log-file layer.
pub fn init(console: LogLevel, dir: Option<&Path>) -> Result<()> {
    let console_layer = tracing_subscriber::fmt::layer()
        .without_time()
        .with_target(false)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .with_filter(level(console));
    let file_layer = match dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating asset directory {}", dir.display()))?;
            let path = dir.join(LOG_FILE);
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(&path)
                .with_context(|| format!("opening log file {}", path.display()))?;
            Some(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_timer(UtcTime::rfc_3339())
                    .with_writer(Mutex::new(file))
                    .with_filter(LevelFilter::DEBUG),
            )
        }
        None => None,
    };
    tracing_subscriber::registry()
        .with(console_layer)
        .with(file_layer)
        .try_init()
        .context("setting up logging")?;
    tracing::debug!(version = env!("CARGO_PKG_VERSION"), "okd-install started");
    Ok(())
}
