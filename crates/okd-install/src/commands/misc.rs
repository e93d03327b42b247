//! Small commands: version, completion, graph, explain, explain-ignition.

use std::path::Path;

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::cli::Cli;

/// `okd-install version`.
pub(crate) fn version() {
    println!("okd-install {}", env!("CARGO_PKG_VERSION"));
    let image = std::env::var("OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE").ok();
    let source = match image.as_deref() {
        Some(i) if !i.trim().is_empty() => " (from OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE)",
        _ => " (built-in default)",
    };
    match crate::release::choose(image.as_deref(), None) {
        Ok(chosen) => {
            let r = chosen.resolved.release;
            println!("release image {}{source}", chosen.image);
            println!(
                "release OKD {} (version {} from {})",
                r.version, chosen.resolved.version, chosen.resolved.from
            );
            println!("release channel {}", r.channel);
            println!("node operating system {}", r.node_os);
            println!(
                "bootstrap content targets OKD {} (the operator render interfaces of that release)",
                r.version
            );
        }
        Err(e) => {
            println!("release image {}{source}", image.unwrap_or_default());
            println!("release unknown: {e}");
        }
    }
    println!("release architecture amd64");
    print!("{}", crate::release::supported_text());
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
    if resource == "releases" {
        return emit(&crate::release::supported_text());
    }
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
