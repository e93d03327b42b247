//! The host's first boot before systemd: the real Ignition writes the bootstrap config into
//! the root, stage by stage, as the CoreOS initramfs runs it (fetch-offline, fetch when the
//! config names remote resources, files). Users and their SSH keys are created, files and
//! units written, and `enabled` units become presets that systemd applies itself on the
//! first boot.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::coreos::ignition_system_dir;
use crate::error::{Error, Result};
use crate::run::{command_line, tail};

/// Where Debian's `ignition` package keeps the Ignition binary (its dracut module).
pub const IGNITION: &str = "/usr/lib/dracut/modules.d/30ignition/ignition";

/// Runs Ignition's stages for `config` against `root`, its state and log under `work`.
/// Returns Ignition's log of every stage.
pub fn apply(config: &Path, root: &Path, work: &Path) -> Result<String> {
    apply_in(&[], config, root, work)
}

/// Like [`apply`], each stage started through `wrapper` (a command and its arguments that
/// end by running the rest, e.g. `nsenter --net=... timeout 30`).
pub fn apply_in(wrapper: &[String], config: &Path, root: &Path, work: &Path) -> Result<String> {
    let system_dir = ignition_system_dir(work)?;
    let neednet = work.join("ignition-neednet");
    let mut log = String::new();
    let run = |name: &str| stage(wrapper, name, config, root, work, &system_dir);
    log.push_str(&run("fetch-offline")?);
    if neednet.exists() {
        log.push_str(&run("fetch")?);
    }
    log.push_str(&run("files")?);
    let path = work.join("ignition.log");
    std::fs::write(&path, &log).map_err(Error::io(&path))?;
    Ok(log)
}

/// One Ignition stage on the `file` platform (the config read from `IGNITION_CONFIG_FILE`),
/// with `system_dir` as its system config directory, started through `wrapper`.
fn stage(
    wrapper: &[String],
    name: &str,
    config: &Path,
    root: &Path,
    work: &Path,
    system_dir: &Path,
) -> Result<String> {
    let at = |file: &str| -> PathBuf { work.join(file) };
    let mut cmd = match wrapper.split_first() {
        Some((program, args)) => {
            let mut cmd = Command::new(program);
            cmd.args(args).arg(IGNITION);
            cmd
        }
        None => Command::new(IGNITION),
    };
    cmd.env("IGNITION_CONFIG_FILE", config)
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
        .arg(at("ignition-neednet"));
    let out = cmd.output().map_err(|source| Error::Spawn {
        command: command_line(&cmd),
        source,
    })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Each stage's whole output is kept: an error keeps only its end.
    let log = at(&format!("ignition-{name}.log"));
    std::fs::write(&log, &text).map_err(Error::io(&log))?;
    if !out.status.success() {
        return Err(Error::Command {
            command: command_line(&cmd),
            status: out.status.to_string(),
            output: tail(&text, 40),
        });
    }
    Ok(text)
}

/// The lines of every stage's log under `work` that say what went wrong (Ignition's
/// `CRITICAL` and `ERROR` lines and Go's errors), in stage order.
pub fn errors(work: &Path) -> Vec<String> {
    ["fetch-offline", "fetch", "files"]
        .iter()
        .filter_map(|stage| {
            std::fs::read_to_string(work.join(format!("ignition-{stage}.log"))).ok()
        })
        .flat_map(|text| {
            text.lines()
                .filter(|l| l.contains("CRITICAL") || l.contains("ERROR") || l.contains("error"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}
