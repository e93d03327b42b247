//! A release image built from data only and pushed to the lab's registry: the release's
//! metadata, its `image-references` (the pull spec of each component the boot asks for) and
//! the `image` lookup stand-in ([`crate::standins::IMAGE_LOOKUP`]) run by busybox. It holds
//! no OKD program: the boot can pull it, look components up in it, and then fails for real
//! at the first component it needs, which the registry does not hold.

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::machine::{LAB_ADDRESS, Lab};
use crate::registry::{PORT, Registry};
use crate::run::output_of;
use crate::standins::IMAGE_LOOKUP;

/// Where Debian's busybox-static keeps busybox.
const BUSYBOX: &str = "/bin/busybox";

/// One release component: its name in the release and its pull spec.
#[derive(Debug, Clone)]
pub struct Component {
    /// The tag name, e.g. `machine-config-operator`.
    pub name: String,
    /// Its pull spec.
    pub pull_spec: String,
}

impl Component {
    /// A component whose image nobody holds: `repository@sha256:` of a digest made from its
    /// name, so that it is stable from run to run.
    pub fn absent(name: &str, repository: &str) -> Component {
        let digest = hex::encode(Sha256::digest(format!(
            "okd-install real host: {name}, an image no registry holds"
        )));
        Component {
            name: name.to_string(),
            pull_spec: format!("{repository}@sha256:{digest}"),
        }
    }
}

/// Builds the release image of `version` with `components` under `work` and pushes it to
/// `registry` as `repository` (a path in the registry, e.g. `okd/scos-release`); returns
/// its manifest digest (`sha256:...`).
pub fn push(
    registry: &Registry,
    lab: &Lab,
    repository: &str,
    version: &str,
    components: &[Component],
    work: &Path,
) -> Result<String> {
    let rootfs = work.join("rootfs");
    lay_out(&rootfs, version, components)?;
    let tarball = work.join("rootfs.tar");
    output_of(
        Command::new("tar")
            .args(["--owner=0", "--group=0", "--numeric-owner", "-C"])
            .arg(&rootfs)
            .arg("-cf")
            .arg(&tarball)
            .arg("."),
    )?;
    // The machine's own image store is left alone: a store of the test's own.
    let podman = |lab_net: bool| {
        let mut cmd = if lab_net {
            lab.command("podman")
        } else {
            Command::new("podman")
        };
        cmd.arg("--root")
            .arg(work.join("storage"))
            .arg("--runroot")
            .arg(work.join("run"))
            .args(["--storage-driver", "vfs"]);
        cmd
    };
    let local = format!("localhost/okd-real-host-release:{version}");
    output_of(
        podman(false)
            .args(["import", "--quiet", "--change"])
            .arg(format!(r#"ENTRYPOINT ["{}"]"#, IMAGE_LOOKUP.path))
            .arg(&tarball)
            .arg(&local),
    )?;
    let certs = work.join("certs");
    std::fs::create_dir_all(&certs).map_err(Error::io(&certs))?;
    let ca = certs.join("ca.crt");
    std::fs::write(&ca, &registry.ca_pem).map_err(Error::io(&ca))?;
    let digest_file = work.join("digest");
    output_of(
        podman(true)
            .args(["push", "--quiet", "--cert-dir"])
            .arg(&certs)
            .arg("--creds")
            .arg(format!("{}:{}", registry.spec.user, registry.spec.password))
            .arg("--digestfile")
            .arg(&digest_file)
            .arg(&local)
            .arg(format!(
                "docker://{LAB_ADDRESS}:{PORT}/{repository}:{version}"
            )),
    )?;
    let digest = std::fs::read_to_string(&digest_file).map_err(Error::io(&digest_file))?;
    Ok(digest.trim().to_string())
}

/// The image's files: busybox as `/bin/sh`, the lookup stand-in, the release manifests.
fn lay_out(rootfs: &Path, version: &str, components: &[Component]) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let bin = rootfs.join("bin");
    std::fs::create_dir_all(&bin).map_err(Error::io(&bin))?;
    let busybox = bin.join("busybox");
    std::fs::copy(BUSYBOX, &busybox).map_err(Error::io(BUSYBOX))?;
    let sh = bin.join("sh");
    if !sh.exists() {
        std::os::unix::fs::symlink("busybox", &sh).map_err(Error::io(&sh))?;
    }
    let lookup = rootfs.join(IMAGE_LOOKUP.path.trim_start_matches('/'));
    let manifests = rootfs.join("release-manifests");
    for dir in [lookup.parent().unwrap_or(rootfs), manifests.as_path()] {
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    }
    std::fs::write(&lookup, IMAGE_LOOKUP.script()).map_err(Error::io(&lookup))?;
    std::fs::set_permissions(&lookup, std::fs::Permissions::from_mode(0o755))
        .map_err(Error::io(&lookup))?;
    let metadata = serde_json::json!({
        "kind": "cincinnati-metadata-v0",
        "version": version,
        "previous": [],
        "metadata": {},
    });
    let path = manifests.join("release-metadata");
    std::fs::write(&path, metadata.to_string()).map_err(Error::io(&path))?;
    let path = manifests.join("image-references");
    std::fs::write(&path, image_references(version, components)).map_err(Error::io(&path))
}

/// The release's ImageStream, one tag a line (the lookup stand-in reads it line by line).
fn image_references(version: &str, components: &[Component]) -> String {
    let tags: Vec<String> = components
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name,
                "from": {"kind": "DockerImage", "name": c.pull_spec},
            })
            .to_string()
        })
        .collect();
    format!(
        "{{\"kind\":\"ImageStream\",\"apiVersion\":\"image.openshift.io/v1\",\
         \"metadata\":{{\"name\":\"{version}\"}},\"spec\":{{\"tags\":[\n{}\n]}}}}\n",
        tags.join(",\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_references_are_an_image_stream_the_lookup_reads_line_by_line() {
        let components = [
            Component::absent("machine-config-operator", "quay.io/okd/scos-content"),
            Component::absent("stream-coreos", "quay.io/okd/scos-content"),
        ];
        let text = image_references("5.0.0-okd-scos.0", &components);
        let stream: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(stream["spec"]["tags"][1]["name"], "stream-coreos");
        let line = text
            .lines()
            .find(|l| l.contains("\"name\":\"machine-config-operator\","))
            .expect("one tag a line, name first");
        assert!(line.contains(&components[0].pull_spec), "{line}");
        assert_ne!(components[0].pull_spec, components[1].pull_spec);
    }
}
