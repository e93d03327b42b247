//! A payload stand-in in podman, from the directory `$OKD_PAYLOAD_DIR` names (none ships with
//! the project).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::error::{Error, tail};
use crate::{Result, host::command_line};

/// The annotation the stand-in payload puts on image-references tags that point at its
/// busybox placeholder.
const PLACEHOLDER_ANNOTATION: &str = "okd-payload.stand-in/placeholder";

/// The payload, imported into podman's local storage.
#[derive(Debug, Clone)]
pub struct Payload {
    /// Pull spec of the release image (`localhost/okd-payload/release:4.19`).
    pub release_image: String,
    /// The supported release it is, as okd-install resolves its pull spec: what the
    /// generated bootstrap targets, and which per-release flags the checks expect.
    pub release: &'static releases::Release,
    /// The containers.conf `load.sh` wrote; every podman call of the harness uses it.
    pub containers_conf: PathBuf,
    /// `/release-manifests/image-references`, read on first use: every read is a `podman
    /// run`, and the checks ask for it per stage and per pool.
    image_references: OnceLock<Value>,
    /// `/release-manifests/release-metadata`, read on first use for the same reason.
    release_metadata: OnceLock<Value>,
}

/// The environment variable that names a payload directory. No payload ships with the
/// project (its operator binaries were built from public sources, which the project never
/// keeps), so the payload harness runs only on a developer's machine that has one.
pub const PAYLOAD_DIR_VAR: &str = "OKD_PAYLOAD_DIR";

/// `$OKD_PAYLOAD_DIR`, the payload directory a developer named, or the one line that says
/// how to name one.
pub fn payload_dir() -> Result<PathBuf> {
    match std::env::var_os(PAYLOAD_DIR_VAR) {
        Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
        _ => Err(Error::NoPayload),
    }
}

impl Payload {
    /// Runs the payload's `load.sh` (it installs podman, runc and xz when missing, imports
    /// every image once and skips images already imported) and reads what it printed.
    pub fn load(dir: &Path) -> Result<Payload> {
        let script = dir.join("load.sh");
        if !script.is_file() {
            return Err(Error::Io {
                path: script,
                error: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "the payload directory has no load.sh",
                ),
            });
        }
        let mut cmd = Command::new("bash");
        cmd.arg(&script);
        let out = cmd.output().map_err(|source| Error::Spawn {
            command: command_line(&cmd),
            source,
        })?;
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let combined = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            return Err(Error::Command {
                command: command_line(&cmd),
                status: out.status.to_string(),
                output: tail(&combined, 30),
            });
        }
        let missing = |what| Error::LoadOutput {
            script: script.clone(),
            what,
            output: tail(&combined, 30),
        };
        let containers_conf = stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("export CONTAINERS_CONF="))
            .map(|v| PathBuf::from(v.trim_matches(['"', '\''])))
            .ok_or_else(|| missing("`export CONTAINERS_CONF=...` line"))?;
        let release_image = stdout
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .filter(|l| l.contains("/release:"))
            .map(str::to_string)
            .ok_or_else(|| missing("release pull spec as its last line"))?;
        let release = releases::resolve(&release_image, None)
            .map_err(|e| Error::LoadOutput {
                script: script.clone(),
                what: "release pull spec of a supported release",
                output: e.to_string(),
            })?
            .release;
        Ok(Payload {
            release_image,
            release,
            containers_conf,
            image_references: OnceLock::new(),
            release_metadata: OnceLock::new(),
        })
    }

    /// A podman command that uses the payload's containers.conf.
    pub fn podman(&self) -> Command {
        let mut cmd = Command::new("podman");
        cmd.env("CONTAINERS_CONF", &self.containers_conf);
        cmd
    }

    /// A file of the release image's `/release-manifests` directory.
    pub fn release_manifest(&self, name: &str) -> Result<String> {
        let mut cmd = self.podman();
        cmd.args(["run", "--quiet", "--rm", "--net=none", "--entrypoint=cat"])
            .arg(&self.release_image)
            .arg(format!("/release-manifests/{name}"));
        crate::host::output_of(&mut cmd)
    }

    /// A JSON file of the release image's `/release-manifests`.
    fn release_json(&self, name: &str) -> Result<Value> {
        let text = self.release_manifest(name)?;
        serde_json::from_str(&text).map_err(|e| Error::Command {
            command: format!("/release-manifests/{name}"),
            status: "not JSON".into(),
            output: e.to_string(),
        })
    }

    /// The JSON file `name` of `/release-manifests`, kept in `cell` once read; a failed read
    /// is not kept, so the next call tries again and reports its own error.
    fn cached_json<'a>(&self, cell: &'a OnceLock<Value>, name: &str) -> Result<&'a Value> {
        if let Some(value) = cell.get() {
            return Ok(value);
        }
        let value = self.release_json(name)?;
        Ok(cell.get_or_init(|| value))
    }

    /// The image-references tag of `component`.
    fn tag(&self, component: &str) -> Result<Option<&Value>> {
        let stream = self.cached_json(&self.image_references, "image-references")?;
        Ok(stream["spec"]["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["name"] == component))
    }

    /// The pull spec the release names for `component` (its `image-references`).
    pub fn image_for(&self, component: &str) -> Result<Option<String>> {
        Ok(self
            .tag(component)?
            .and_then(|t| t["from"]["name"].as_str().map(str::to_string)))
    }

    /// Pull specs the stand-in payload marks as placeholders (busybox with nothing to run).
    pub fn placeholders(&self) -> Result<std::collections::HashSet<String>> {
        let stream = self.cached_json(&self.image_references, "image-references")?;
        Ok(stream["spec"]["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["annotations"][PLACEHOLDER_ANNOTATION] == "true")
            .filter_map(|t| t["from"]["name"].as_str().map(str::to_string))
            .collect())
    }

    /// Every YAML manifest of `/release-manifests`, one document stream.
    pub fn release_manifests_text(&self) -> Result<String> {
        let mut cmd = self.podman();
        cmd.args(["run", "--quiet", "--rm", "--net=none", "--entrypoint=sh"])
            .arg(&self.release_image)
            .args([
                "-c",
                "for f in /release-manifests/*.yaml /release-manifests/*.yml; do [ -f \"$f\" ] && { echo '---'; cat \"$f\"; echo; }; done; true",
            ]);
        crate::host::output_of(&mut cmd)
    }

    /// The release version (release-metadata) and the Kubernetes version of its hyperkube
    /// image (`kubernetes=` in that tag's `io.openshift.build.versions`), as `oc adm release
    /// info` reports them.
    pub fn versions(&self) -> Result<(String, String)> {
        let version = self.cached_json(&self.release_metadata, "release-metadata")?["version"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let kubernetes = self
            .tag("hyperkube")?
            .and_then(|t| {
                t["annotations"]["io.openshift.build.versions"]
                    .as_str()?
                    .split(',')
                    .find_map(|v| v.strip_prefix("kubernetes="))
                    .map(str::to_string)
            })
            .unwrap_or_default();
        Ok((version, kubernetes))
    }
}
