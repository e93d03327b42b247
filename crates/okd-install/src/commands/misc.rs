//! Small commands: version, completion, graph, explain, explain-ignition.

use std::path::Path;

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::cli::Cli;
use crate::release::DefaultRelease;

/// `okd-install version`.
pub(crate) fn version() {
    let release = DefaultRelease::get();
    println!("okd-install {}", env!("CARGO_PKG_VERSION"));
    match std::env::var("OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE") {
        Ok(image) if !image.is_empty() => {
            println!("release image {image} (from OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE)")
        }
        _ => println!("release image {}", release.image),
    }
    println!("release channel {}", release.channel);
    println!("release architecture amd64");
    println!("node operating system {}", release.os);
    println!(
        "bootstrap content targets OKD {} (the operator render interfaces of that release)",
        ignition::BOOTSTRAP_TARGET_MINOR
    );
}

/// `okd-install completion SHELL`.
pub(crate) fn completion(shell: clap_complete::Shell) {
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "okd-install", &mut std::io::stdout());
}

/// `okd-install graph [--dot]`.
pub(crate) fn graph(dot: bool) -> Result<()> {
    let graph = assets::graph()?;
    if dot {
        emit(&graph.render_dot())?;
    } else {
        emit(&graph.render_tree(None)?)?;
    }
    Ok(())
}

/// Writes `text` to stdout; a closed pipe (`| head`) ends the output quietly instead of
/// panicking.
pub(crate) fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}

/// `okd-install explain installconfig[.path]`.
pub(crate) fn explain(resource: &str) -> Result<()> {
    emit(&installconfig::explain(resource)?)?;
    Ok(())
}

/// `okd-install explain-ignition FILE`.
pub(crate) fn explain_ignition(file: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let out = ignition::explain_ignition(&text)
        .with_context(|| format!("{} is not a readable Ignition config", file.display()))?;
    emit(&out)?;
    Ok(())
}
