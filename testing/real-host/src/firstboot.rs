//! The host's first boot before systemd: the real Ignition writes the bootstrap config into
//! the root, stage by stage, as the CoreOS initramfs runs it (fetch-offline, fetch when the
//! config names remote resources, files). Users and their SSH keys are created, files and
//! units written, and `enabled` units become presets that systemd applies itself on the
//! first boot.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::coreos::ignition_system_dir;
use crate::error::Result;
use crate::run::output_of;

/// Where Debian's `ignition` package keeps the Ignition binary (its dracut module).
pub const IGNITION: &str = "/usr/lib/dracut/modules.d/30ignition/ignition";

/// Runs Ignition's stages for `config` against `root`, its state and log under `work`.
/// Returns Ignition's log of every stage.
pub fn apply(config: &Path, root: &Path, work: &Path) -> Result<String> {
    let system_dir = ignition_system_dir(work)?;
    let neednet = work.join("ignition-neednet");
    let mut log = String::new();
    log.push_str(&stage("fetch-offline", config, root, work, &system_dir)?);
    if neednet.exists() {
        log.push_str(&stage("fetch", config, root, work, &system_dir)?);
    }
    log.push_str(&stage("files", config, root, work, &system_dir)?);
    let path = work.join("ignition.log");
    std::fs::write(&path, &log).map_err(crate::error::Error::io(&path))?;
    Ok(log)
}

/// One Ignition stage on the `file` platform (the config read from `IGNITION_CONFIG_FILE`),
/// with `system_dir` as its system config directory.
fn stage(name: &str, config: &Path, root: &Path, work: &Path, system_dir: &Path) -> Result<String> {
    let at = |file: &str| -> PathBuf { work.join(file) };
    output_of(
        Command::new(IGNITION)
            .env("IGNITION_CONFIG_FILE", config)
            .env("IGNITION_SYSTEM_CONFIG_DIR", system_dir)
            .args([
                "-platform",
                "file",
                "-stage",
                name,
                "-log-to-stdout",
                "-root",
            ])
            .arg(root)
            .arg("-config-cache")
            .arg(at("ignition.json"))
            .arg("-state-file")
            .arg(at("ignition-state"))
            .arg("-neednet")
            .arg(at("ignition-neednet")),
    )
}
