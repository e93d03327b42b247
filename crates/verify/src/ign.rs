//! Every `.ign` in the directory: parses, passes the semantic rules, fits the platform's
//! user-data limit; and the bootstrap config lets the install-config's SSH key in.

use std::path::Path;

use assets::layout;
use serde_json::Value;

use crate::Options;
use crate::material::Material;
use crate::report::{Report, Status};

/// How many Ignition problems one check line lists before summarizing the rest.
const MAX_LISTED: usize = 5;

/// Larger than any config okd-install writes; such a file is refused before it is read.
const MAX_IGN: u64 = 64 << 20;

/// The `.ign` entries directly in the directory that are not directories, sorted: links and
/// special files too, so that reading them reports what they are.
fn ign_files(m: &Material) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(&m.dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| !e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".ign"))
        .collect();
    names.sort();
    names
}

/// Checks every Ignition config.
pub(crate) fn check_all(m: &Material, opts: &Options, report: &mut Report) {
    let platform = match &opts.platform {
        Some(p) => p.as_str(),
        None => m
            .install_config
            .as_ref()
            .map_or(installconfig::Platform::None.name(), |ic| {
                ic.platform_name()
            }),
    };
    let names = ign_files(m);
    for name in &names {
        let text = match atomic_file::input::read_in_dir(&m.dir, Path::new(name), MAX_IGN) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(_) => {
                    report.error("ignition.check", name, "cannot be read as UTF-8 text");
                    continue;
                }
            },
            Err(e) => {
                report.error("ignition.check", name, e.to_string());
                continue;
            }
        };
        check_rules(name, &text, report);
        let line = ignition::size_report(name, text.len() as u64, platform);
        let full = line.to_string();
        let message = full.strip_prefix(&format!("{name}: ")).unwrap_or(&full);
        let status = if line.over { Status::Error } else { Status::Ok };
        report.add("ignition.size", name, status, message);
    }
    check_roles(m, &names, report);
    check_ssh(m, report);
}

/// Each machine role the cluster has needs its config once any config was generated: a
/// cluster with workers and no worker.ign cannot grow, and the others cannot boot.
fn check_roles(m: &Material, present: &[String], report: &mut Report) {
    let Some(ic) = &m.install_config else {
        return;
    };
    if present.is_empty() {
        return;
    }
    let single_node = m
        .bootstrap
        .as_ref()
        .is_some_and(|b| b.name == ignition::Variant::SingleNode.file_name());
    let workers: i64 = ic.compute.iter().filter_map(|p| p.replicas).sum();
    let command = if single_node {
        "okd-install create single-node-ignition-config"
    } else {
        "okd-install create ignition-configs"
    };
    let mut wanted: Vec<(&str, String)> = Vec::new();
    if !single_node {
        wanted.push((
            layout::MASTER_IGN,
            "the control-plane machines boot from it".into(),
        ));
    }
    if workers > 0 {
        wanted.push((
            layout::WORKER_IGN,
            format!("install-config.yaml asks for {workers} worker machine(s), which boot from it"),
        ));
    }
    for (name, why) in wanted {
        if !present.iter().any(|p| p == name) {
            report.error(
                "ignition.roles",
                name,
                format!(
                    "is missing: {why}; run `{command} --dir {}` again",
                    m.dir.display()
                ),
            );
        }
    }
}

fn check_rules(name: &str, text: &str, report: &mut Report) {
    let problems = ignition::check_json(text);
    if problems.is_empty() {
        return report.ok(
            "ignition.check",
            name,
            "parses as Ignition 3.2.0 and passes every rule",
        );
    }
    let mut listed: Vec<String> = problems
        .iter()
        .take(MAX_LISTED)
        .map(ToString::to_string)
        .collect();
    if problems.len() > MAX_LISTED {
        listed.push(format!("and {} more", problems.len() - MAX_LISTED));
    }
    report.error(
        "ignition.check",
        name,
        format!(
            "{}; a node would stop in the initramfs with this config, fix the entries or \
             regenerate the file",
            listed.join("; ")
        ),
    );
}

/// `type base64` of an authorized_keys line (comment and options are not compared).
fn key_material(line: &str) -> Option<String> {
    let parts: Vec<&str> = line.split_whitespace().collect();
    let at = parts
        .iter()
        .position(|p| p.starts_with("ssh-") || p.starts_with("ecdsa-") || p.starts_with("sk-"))?;
    Some(format!("{} {}", parts[at], parts.get(at + 1)?))
}

/// The keys (type and data) of install-config's `sshKey`, one per non-comment line.
fn wanted_keys(ssh_key: &str) -> Vec<String> {
    ssh_key
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter_map(key_material)
        .collect()
}

/// The keys the bootstrap config's `core` user accepts.
fn core_keys(json: &Value) -> Vec<String> {
    ignition::core_authorized_keys(json)
        .iter()
        .filter_map(|line| key_material(line))
        .collect()
}

fn check_ssh(m: &Material, report: &mut Report) {
    let (Some(b), Some(ic)) = (&m.bootstrap, &m.install_config) else {
        return;
    };
    let wanted = wanted_keys(&ic.ssh_key);
    if wanted.is_empty() {
        return report.ok(
            "ignition.ssh",
            &b.name,
            "install-config.yaml sets no sshKey",
        );
    }
    let accepted = core_keys(&b.json);
    let missing: Vec<String> = wanted
        .iter()
        .filter(|k| !accepted.contains(k))
        .map(|k| k.chars().take(40).collect::<String>() + "…")
        .collect();
    if missing.is_empty() {
        report.ok(
            "ignition.ssh",
            &b.name,
            "the core user accepts install-config.yaml's sshKey",
        );
    } else {
        report.error(
            "ignition.ssh",
            &b.name,
            format!(
                "the core user lacks install-config.yaml's key(s) {}: you could not log in \
                 to debug the bootstrap node; regenerate the configs after editing sshKey",
                missing.join(", ")
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_material_ignores_comments_and_options() {
        assert_eq!(
            key_material("ssh-ed25519 AAAA me@host").as_deref(),
            Some("ssh-ed25519 AAAA")
        );
        assert_eq!(
            key_material("no-pty ssh-rsa BBBB").as_deref(),
            Some("ssh-rsa BBBB")
        );
        assert_eq!(key_material("garbage"), None);
    }
}
