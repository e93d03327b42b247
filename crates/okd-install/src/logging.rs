//! Console and log-file output.
//!
//! The console gets plain lines without timestamps at the chosen level, and only from this
//! workspace's crates: what kube, hyper, rustls or russh log about their own retries is noise
//! to the person at the terminal (the waits report the same facts once, in their own words).
//! Those lines reach the console only at `--log-level debug` or `trace`. The log file
//! `<dir>/.okd-install.log` gets everything at debug with RFC 3339 timestamps, dependencies
//! included, so a support case can be reconstructed afterwards. Nothing secret is ever passed
//! to `tracing`: asset values (keys, pull secret, passwords) are never formatted into log lines.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result};
use tracing::Metadata;
use tracing_subscriber::filter::{FilterFn, LevelFilter};
use tracing_subscriber::fmt::time::UtcTime;
use tracing_subscriber::prelude::*;

use assets::layout::LOG_FILE;

use crate::cli::LogLevel;
use crate::console;

/// The workspace's library crates and this binary (as Rust names them in log targets); a
/// unit test keeps the list in step with `crates/`.
const OUR_CRATES: &[&str] = &[
    "asset_graph",
    "assets",
    "atomic_file",
    "bootmedia",
    "bundle_analysis",
    "contract",
    "download",
    "gather",
    "ignition",
    "installconfig",
    "manifests",
    "okd_install",
    "pki",
    "registry_probe",
    "releases",
    "tls_peer",
    "verify",
    "wait_for",
];

fn level(l: LogLevel) -> LevelFilter {
    match l {
        LogLevel::Error => LevelFilter::ERROR,
        LogLevel::Warn => LevelFilter::WARN,
        LogLevel::Info => LevelFilter::INFO,
        LogLevel::Debug => LevelFilter::DEBUG,
        LogLevel::Trace => LevelFilter::TRACE,
    }
}

/// Whether the user asked for the dependencies' lines on the console too.
fn with_dependencies(chosen: LogLevel) -> bool {
    matches!(chosen, LogLevel::Debug | LogLevel::Trace)
}

/// Whether a log line comes from this workspace (its target is one of [`OUR_CRATES`] or a
/// module inside one). Lines forwarded from the `log` crate carry their crate's target too.
fn is_ours(target: &str) -> bool {
    let krate = target.split("::").next().unwrap_or(target);
    OUR_CRATES.contains(&krate)
}

/// Whether the console shows a line: ours at the chosen level; a dependency's only when the
/// user asked for debug or trace.
fn console_shows(chosen: LogLevel, meta: &Metadata<'_>) -> bool {
    level(chosen) >= *meta.level() && (with_dependencies(chosen) || is_ours(meta.target()))
}

/// Install the console layer and, when `dir` is given, the log-file layer.
pub(crate) fn init(chosen: LogLevel, dir: Option<&Path>) -> Result<()> {
    // Targets are noise on our own lines; among a dependency's (debug, trace) they say whose
    // line it is.
    let console_layer = tracing_subscriber::fmt::layer()
        .without_time()
        .with_target(with_dependencies(chosen))
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(console::Stderr)
        .with_filter(
            FilterFn::new(move |meta| console_shows(chosen, meta))
                .with_max_level_hint(level(chosen)),
        );
    let file_layer = match dir {
        Some(dir) => Some(file_layer(dir)?),
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

/// The debug log in `dir` (created 0600, appended to): everything at debug, with times.
fn file_layer<S>(dir: &Path) -> Result<impl tracing_subscriber::Layer<S>>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    std::fs::create_dir_all(dir)
        .with_context(|| format!("creating asset directory {}", dir.display()))?;
    let path = dir.join(LOG_FILE);
    let file = atomic_file::input::open_append_no_follow(&path, 0o600)
        .with_context(|| format!("opening log file {}", path.display()))?;
    Ok(tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_timer(UtcTime::rfc_3339())
        .with_writer(Mutex::new(file))
        .with_filter(LevelFilter::DEBUG))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_workspace_crate_counts_as_ours() {
        let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut names: Vec<String> = std::fs::read_dir(&crates)
            .expect("list crates/")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("Cargo.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().replace('-', "_"))
            .collect();
        names.sort();
        assert_eq!(names, OUR_CRATES);
    }

    #[test]
    fn dependency_targets_are_not_ours() {
        assert!(is_ours("wait_for::report"));
        assert!(is_ours("okd_install"));
        for dep in [
            "kube_client::client",
            "hyper_util::client",
            "rustls",
            "russh::client",
        ] {
            assert!(!is_ours(dep), "{dep}");
        }
        // A crate whose name merely starts like ours is still a dependency.
        assert!(!is_ours("pki_types::pem"));
    }
}
