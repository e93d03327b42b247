//! Boot media in the directory, named by role (`master.iso`, `worker.ign.img`,
//! `bootstrap.ipxe`, ...): the config a machine booted from them gets must be byte for byte
//! the role's `.ign` in the directory now (media made before a re-run carry the old PKI and
//! fail at the first TLS handshake), and the live kernel arguments must start Ignition.

use std::path::Path;

use assets::role::Role;
use bootmedia::inspect::{self, Embedded};
use bootmedia::{REQUIRED_KARGS, kargs, pxe};

use crate::material::Material;
use crate::report::Report;

/// Checks every role-named boot medium in the directory.
pub(crate) fn check_all(m: &Material, report: &mut Report) {
    for (name, role) in media_files(&m.dir) {
        let path = m.dir.join(&name);
        if name.ends_with(".iso") {
            check_iso(&m.dir, &name, role, report);
        } else if name.ends_with(".ign.img") {
            match inspect::read_config_image(&path) {
                Ok(e) => check_config(&m.dir, &name, role, &e, report),
                Err(e) => report.error("media.read", &name, e.to_string()),
            }
        } else {
            check_ipxe(&m.dir, &name, report);
        }
    }
}

/// `(file name, role)` of the media files, sorted.
fn media_files(dir: &Path) -> Vec<(String, Role)> {
    let mut found: Vec<(String, Role)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| Role::from_media_file(&n).map(|r| (n, r)))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn check_iso(dir: &Path, name: &str, role: Role, report: &mut Report) {
    let embedded = match inspect::read_iso(&dir.join(name)) {
        Ok(e) => e,
        Err(e) => return report.error("media.read", name, e.to_string()),
    };
    check_config(dir, name, role, &embedded, report);
    match &embedded.kargs {
        None => report.warn(
            "media.kargs",
            name,
            "the ISO has no kernel-argument areas, so its kernel arguments cannot be checked",
        ),
        Some(k) => {
            let missing = kargs::missing(k, REQUIRED_KARGS);
            if missing.is_empty() {
                report.ok(
                    "media.kargs",
                    name,
                    "the live kernel arguments start Ignition",
                );
            } else {
                report.error(
                    "media.kargs",
                    name,
                    format!(
                        "the live kernel arguments lack {}: the machine would boot and skip \
                         Ignition; re-run {} without --delete-karg for them",
                        missing.join(" "),
                        rerun(dir, name, role, &embedded)
                    ),
                );
            }
        }
    }
}

fn check_config(dir: &Path, name: &str, role: Role, embedded: &Embedded, report: &mut Report) {
    let Ok(want) = assets::AssetDir::new(dir).ignition_config(role) else {
        return report.warn(
            "media.config",
            name,
            format!(
                "{} is not in the directory to compare with",
                role.ign_file()
            ),
        );
    };
    let again = rerun(dir, name, role, embedded);
    match embedded.machine_config() {
        None => report.error(
            "media.config",
            name,
            format!("carries no Ignition config for the machine; run {again}"),
        ),
        Some(got) if got == want => report.ok(
            "media.config",
            name,
            format!("carries {} byte for byte", role.ign_file()),
        ),
        Some(_) => report.error(
            "media.config",
            name,
            format!(
                "carries a config other than {} now (made before the last run?); a machine \
                 booted from it would not join this cluster: run {again}",
                role.ign_file()
            ),
        ),
    }
}

fn check_ipxe(dir: &Path, name: &str, report: &mut Report) {
    let script = match crate::material::read_text(dir, name) {
        Ok(script) => script,
        Err(why) => return report.error("media.read", name, why),
    };
    let missing = pxe::missing_kargs(&script);
    if missing.is_empty() {
        report.ok("media.kargs", name, "the kernel line starts Ignition");
    } else {
        report.error(
            "media.kargs",
            name,
            format!(
                "the kernel line lacks {}: the machine would boot and skip Ignition; \
                 re-run okd-install create pxe-files",
                missing.join(" ")
            ),
        );
    }
}

/// The command that rewrites `name`.
fn rerun(dir: &Path, name: &str, role: Role, embedded: &Embedded) -> String {
    let dir = dir.display();
    let r = role.name();
    if name.ends_with(".iso") {
        let dest = embedded
            .install()
            .and_then(|i| i.dest_device)
            .map_or(String::new(), |d| format!(" --dest-device {d}"));
        format!("`okd-install create live-iso --role {r}{dest} --iso LIVE.iso --dir {dir}`")
    } else {
        format!("`okd-install create pxe-files --role {r} --base-url URL --dir {dir}`")
    }
}
