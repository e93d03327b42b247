//! What a host booted, from `rpm-ostree status --json` or `bootc status --json` as the gather
//! scripts save them (`.../os-image/<tool>-status.json`).
//!
//! Only the fields that say which deployment is booted and which is staged for the next boot
//! are read; everything else in the documents is ignored, so newer tool versions still parse.

use serde::{Deserialize, Serialize};

/// The tool that reported a host's booted image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OsTool {
    /// `rpm-ostree status --json`: what the machine-config daemon of 4.19 rebases with.
    RpmOstree,
    /// `bootc status --json`.
    Bootc,
}

impl OsTool {
    /// Both tools, in the order the analysis prefers them.
    pub(crate) const ALL: [OsTool; 2] = [OsTool::RpmOstree, OsTool::Bootc];

    /// The command's name, which also names its files in the bundle.
    pub fn name(self) -> &'static str {
        match self {
            OsTool::RpmOstree => "rpm-ostree",
            OsTool::Bootc => "bootc",
        }
    }
}

/// One deployment: the container image it came from, or what it is when not from an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Deployment {
    /// Deployed from a container image.
    Image {
        /// The reference as the tool wrote it (with rpm-ostree's prefix, if any).
        reference: String,
        /// The manifest digest the tool resolved, when it reports one apart.
        digest: Option<String>,
    },
    /// An OSTree commit not from a container image (e.g. a host installed from an OSTree
    /// remote and never rebased): its origin or checksum.
    Commit(String),
}

/// The booted deployment, and the one staged for the next boot if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostDeployments {
    pub booted: Deployment,
    pub staged: Option<Deployment>,
}

/// Why a status document said nothing usable.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StatusError {
    /// Not the JSON the tool writes (often the tool's error message instead).
    #[error("not {tool} status JSON ({error}); it starts with: {start}")]
    NotJson {
        tool: &'static str,
        error: serde_json::Error,
        start: String,
    },
    /// Parsed, but no deployment is marked booted.
    #[error("{0} reports no booted deployment")]
    NoBooted(&'static str),
}

/// Reads the booted and staged deployments out of `tool`'s status document.
pub(crate) fn parse_status(tool: OsTool, text: &str) -> Result<HostDeployments, StatusError> {
    let not_json = |error| StatusError::NotJson {
        tool: tool.name(),
        error,
        start: text
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(160)
            .collect(),
    };
    let deployments = match tool {
        OsTool::RpmOstree => {
            let status: RpmOstreeStatus = crate::shown::json_value(text)
                .and_then(serde_json::from_value)
                .map_err(not_json)?;
            rpm_ostree_deployments(status)
        }
        OsTool::Bootc => {
            let host: BootcHost = crate::shown::json_value(text)
                .and_then(serde_json::from_value)
                .map_err(not_json)?;
            bootc_deployments(host)
        }
    };
    deployments.ok_or(StatusError::NoBooted(tool.name()))
}

#[derive(Deserialize)]
struct RpmOstreeStatus {
    #[serde(default)]
    deployments: Vec<RpmOstreeDeployment>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RpmOstreeDeployment {
    #[serde(default)]
    booted: bool,
    #[serde(default)]
    staged: bool,
    container_image_reference: Option<String>,
    container_image_reference_digest: Option<String>,
    origin: Option<String>,
    checksum: Option<String>,
}

impl RpmOstreeDeployment {
    fn deployment(self) -> Deployment {
        match self.container_image_reference {
            Some(reference) => Deployment::Image {
                reference,
                digest: self.container_image_reference_digest,
            },
            None => Deployment::Commit(
                self.origin
                    .or(self.checksum.map(|c| format!("commit {c}")))
                    .unwrap_or_else(|| "an OSTree commit of unknown origin".to_string()),
            ),
        }
    }
}

fn rpm_ostree_deployments(status: RpmOstreeStatus) -> Option<HostDeployments> {
    let mut booted = None;
    let mut staged = None;
    for d in status.deployments {
        if d.booted {
            booted = Some(d.deployment());
        } else if d.staged {
            staged = Some(d.deployment());
        }
    }
    Some(HostDeployments {
        booted: booted?,
        staged,
    })
}

#[derive(Deserialize)]
struct BootcHost {
    status: Option<BootcStatus>,
}

#[derive(Deserialize)]
struct BootcStatus {
    booted: Option<BootcEntry>,
    staged: Option<BootcEntry>,
}

#[derive(Deserialize)]
struct BootcEntry {
    image: Option<BootcImageStatus>,
    ostree: Option<BootcOstree>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BootcImageStatus {
    image: BootcImageReference,
    image_digest: Option<String>,
}

#[derive(Deserialize)]
struct BootcImageReference {
    image: String,
}

#[derive(Deserialize)]
struct BootcOstree {
    checksum: Option<String>,
}

impl BootcEntry {
    fn deployment(self) -> Deployment {
        match self.image {
            Some(image) => Deployment::Image {
                reference: image.image.image,
                digest: image.image_digest,
            },
            None => Deployment::Commit(
                self.ostree
                    .and_then(|o| o.checksum)
                    .map_or("a deployment not from a container image".to_string(), |c| {
                        format!("commit {c}")
                    }),
            ),
        }
    }
}

fn bootc_deployments(host: BootcHost) -> Option<HostDeployments> {
    let status = host.status?;
    Some(HostDeployments {
        booted: status.booted?.deployment(),
        staged: status.staged.map(BootcEntry::deployment),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpm_ostree_booted_and_staged_deployments() {
        let text = r#"{"deployments": [
            {"booted": false, "staged": true, "checksum": "c2",
             "container-image-reference": "ostree-unverified-registry:quay.io/okd/master@sha256:bb"},
            {"booted": true, "staged": false, "checksum": "c1", "origin": "fedora:fedora/x86_64/coreos/stable"}
        ], "transaction": null}"#;
        let d = parse_status(OsTool::RpmOstree, text).unwrap();
        assert_eq!(
            d.booted,
            Deployment::Commit("fedora:fedora/x86_64/coreos/stable".into())
        );
        assert_eq!(
            d.staged,
            Some(Deployment::Image {
                reference: "ostree-unverified-registry:quay.io/okd/master@sha256:bb".into(),
                digest: None
            })
        );
    }

    #[test]
    fn bootc_booted_image_and_digest() {
        let text = r#"{"apiVersion": "org.containers.bootc/v1", "kind": "BootcHost",
            "status": {"staged": null, "rollback": null, "booted": {"image": {
                "image": {"image": "quay.io/okd/master:4.19", "transport": "registry"},
                "imageDigest": "sha256:aa", "version": "9.0"}, "pinned": false}}}"#;
        let d = parse_status(OsTool::Bootc, text).unwrap();
        assert_eq!(
            d.booted,
            Deployment::Image {
                reference: "quay.io/okd/master:4.19".into(),
                digest: Some("sha256:aa".into())
            }
        );
        assert_eq!(d.staged, None);
    }

    #[test]
    fn a_tool_error_instead_of_json_is_named() {
        let err = parse_status(
            OsTool::RpmOstree,
            "error: Failed to activate service 'org.projectatomic.rpmostree1': timed out\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("not rpm-ostree status JSON"), "{err}");
        assert!(err.ends_with("rpmostree1': timed out"), "{err}");
        let none = parse_status(OsTool::Bootc, r#"{"status": {"booted": null}}"#).unwrap_err();
        assert_eq!(none.to_string(), "bootc reports no booted deployment");
    }
}
