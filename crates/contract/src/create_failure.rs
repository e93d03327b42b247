//! cluster-bootstrap's failures to create a manifest, as it writes them on the bootstrap host.
//!
//! cluster-bootstrap creates every file of `/opt/openshift/manifests` (okd-install's, the
//! renders', and the user's from `manifests/` and `openshift/`) and tries the ones refused
//! again until all are taken; the bootstrap cannot complete before. Each refusal reaches
//! bootkube's journal in one of two shapes, both read here:
//!
//! - `Failed to create "FILE" RESOURCE.VERSION.GROUP/NAME -n NAMESPACE: REASON`, and
//! - after `[#N] failed to create some manifests:`,
//!   `"FILE": failed to create RESOURCE.VERSION.GROUP/NAME -n NAMESPACE: REASON`.
//!
//! The namespace is empty for a cluster-scoped object. Whatever stands before either shape
//! (the journal's time, host and unit) is left out of the failure and kept as its prefix.

use serde::{Deserialize, Serialize};

/// Why the API server refused the object, in the kinds a person acts on differently.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Refusal {
    /// `namespaces "NS" not found`: the object's namespace does not exist (yet).
    NamespaceMissing {
        /// The namespace.
        namespace: String,
    },
    /// `no matches for kind "K" in version "G/V"`: no CRD serves the kind.
    KindUnknown {
        /// The API group of the kind (empty for the core group).
        group: String,
    },
    /// `the server could not find the requested resource`: the kind's CRD is registered but
    /// its API is not served yet.
    NotServed,
    /// `... is invalid: ...`: the API server rejects a field of the object.
    Invalid,
    /// `... is forbidden: ...`: an admission plugin or policy refuses the object.
    Forbidden,
    /// Any other reason.
    Other,
}

impl Refusal {
    /// The reason in the user's words.
    pub fn words(&self) -> String {
        match self {
            Refusal::NamespaceMissing { namespace } => {
                format!("its namespace {namespace} does not exist")
            }
            Refusal::KindUnknown { group } if group.is_empty() => {
                "its kind is not known to the API server".into()
            }
            Refusal::KindUnknown { group } => {
                format!("its kind is not known: no CustomResourceDefinition serves {group}")
            }
            Refusal::NotServed => "its kind's API is not served (yet)".into(),
            Refusal::Invalid => "the API server rejects the object as invalid".into(),
            Refusal::Forbidden => "the API server forbids creating it".into(),
            Refusal::Other => "the API server refused it".into(),
        }
    }
}

/// One refusal cluster-bootstrap wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateFailure {
    /// The manifest file, as named in `/opt/openshift/manifests`.
    pub file: String,
    /// The plural resource (`configmaps`).
    pub resource: String,
    /// The API version (`v1`).
    pub version: String,
    /// The API group (empty for the core group).
    pub group: String,
    /// The object's name.
    pub name: String,
    /// The object's namespace (empty for a cluster-scoped object).
    pub namespace: String,
    /// The API server's reason, as written.
    pub reason: String,
    /// The reason's kind.
    pub refusal: Refusal,
}

impl CreateFailure {
    /// The failure `line` holds in either shape, and what stands before it (the journal's
    /// time and unit, or nothing).
    pub fn parse(line: &str) -> Option<(&str, CreateFailure)> {
        const ONE: &str = "Failed to create \"";
        const TWO: &str = "\": failed to create ";
        let (prefix, file, rest) = if let Some(at) = line.find(ONE) {
            let after = &line[at + ONE.len()..];
            let (file, rest) = after.split_once("\" ")?;
            (&line[..at], file, rest)
        } else {
            let at = line.find(TWO)?;
            let open = line[..at].rfind('"')?;
            (&line[..open], &line[open + 1..at], &line[at + TWO.len()..])
        };
        let (object, rest) = rest.split_once(" -n ")?;
        let (namespace, reason) = rest.split_once(": ")?;
        let (typed, name) = object.split_once('/')?;
        let (resource, version_group) = typed.split_once('.')?;
        let (version, group) = version_group.split_once('.').unwrap_or((version_group, ""));
        if file.is_empty() || resource.is_empty() || name.is_empty() {
            return None;
        }
        let reason = reason.trim().to_string();
        Some((
            prefix.trim_end(),
            CreateFailure {
                file: file.to_string(),
                resource: resource.to_string(),
                version: version.to_string(),
                group: group.to_string(),
                name: name.to_string(),
                namespace: namespace.trim().to_string(),
                refusal: refusal(&reason),
                reason,
            },
        ))
    }

    /// The object in words: `configmaps heldout-probe in namespace X` (or without the
    /// namespace for a cluster-scoped one), with its group when it has one.
    pub fn object(&self) -> String {
        let kind = match self.group.as_str() {
            "" => self.resource.clone(),
            g => format!("{}.{g}", self.resource),
        };
        match self.namespace.as_str() {
            "" => format!("{kind} {}", self.name),
            ns => format!("{kind} {} in namespace {ns}", self.name),
        }
    }
}

/// The kind of `reason`, from the API server's own words.
fn refusal(reason: &str) -> Refusal {
    let l = reason.to_ascii_lowercase();
    if let Some(ns) = l
        .strip_prefix("namespaces \"")
        .or_else(|| l.split_once(" namespaces \"").map(|(_, ns)| ns))
        .and_then(|r| r.split_once("\" not found"))
        .map(|(ns, _)| ns)
    {
        // The namespace's name as written (names are lower case anyway).
        return Refusal::NamespaceMissing {
            namespace: ns.to_string(),
        };
    }
    if l.contains("no matches for kind") {
        let group = reason
            .split("in version \"")
            .nth(1)
            .and_then(|v| v.split('"').next())
            .and_then(|gv| gv.rsplit_once('/').map(|(g, _)| g))
            .unwrap_or_default();
        return Refusal::KindUnknown {
            group: group.to_string(),
        };
    }
    if l.contains("the server could not find the requested resource") {
        return Refusal::NotServed;
    }
    if l.contains(" is invalid:") || l.contains("invalid value") {
        return Refusal::Invalid;
    }
    if l.contains(" is forbidden:") || l.contains("forbidden:") {
        return Refusal::Forbidden;
    }
    Refusal::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two shapes the 4.19 bootstrap wrote for one manifest in a namespace nothing
    /// creates (from the issue's bundle), with the journal's prefix of `journalctl -o short`.
    #[test]
    fn both_shapes_read_the_same() {
        let one = r#"Nov 28 08:14:02 bootstrap bootkube.sh[2301]: Failed to create "99-heldout-probe.yaml" configmaps.v1./heldout-probe -n heldout-never-created: namespaces "heldout-never-created" not found"#;
        let two = r#""99-heldout-probe.yaml": failed to create configmaps.v1./heldout-probe -n heldout-never-created: namespaces "heldout-never-created" not found"#;
        let (prefix, a) = CreateFailure::parse(one).expect("first shape");
        assert_eq!(prefix, "Nov 28 08:14:02 bootstrap bootkube.sh[2301]:");
        let (none, b) = CreateFailure::parse(two).expect("second shape");
        assert_eq!(none, "");
        assert_eq!(a, b);
        assert_eq!(a.file, "99-heldout-probe.yaml");
        assert_eq!(
            (a.resource.as_str(), a.version.as_str()),
            ("configmaps", "v1")
        );
        assert_eq!(a.group, "");
        assert_eq!(a.name, "heldout-probe");
        assert_eq!(a.namespace, "heldout-never-created");
        assert_eq!(
            a.refusal,
            Refusal::NamespaceMissing {
                namespace: "heldout-never-created".into()
            }
        );
        assert_eq!(
            a.object(),
            "configmaps heldout-probe in namespace heldout-never-created"
        );
    }

    #[test]
    fn reasons_are_told_apart() {
        let cases = [
            (
                r#"Failed to create "99-user-widget.yaml" widgets.v1.widgets.example.com/my-widget -n default: no matches for kind "Widget" in version "widgets.example.com/v1""#,
                Refusal::KindUnknown {
                    group: "widgets.example.com".into(),
                },
            ),
            (
                r#"Failed to create "99-bad-configmap.yaml" configmaps.v1./Not_A_DNS_Name -n kube-system: ConfigMap "Not_A_DNS_Name" is invalid: metadata.name: Invalid value: "Not_A_DNS_Name": a lowercase RFC 1123 subdomain"#,
                Refusal::Invalid,
            ),
            (
                r#""99-quota.yaml": failed to create pods.v1./p -n kube-system: pods "p" is forbidden: exceeded quota: q"#,
                Refusal::Forbidden,
            ),
            (
                r#"Failed to create "99_openshift-machineconfig_99-worker-ssh.yaml" machineconfigs.v1.machineconfiguration.openshift.io/99-worker-ssh -n : the server could not find the requested resource"#,
                Refusal::NotServed,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: Internal error occurred: etcdserver: request timed out"#,
                Refusal::Other,
            ),
        ];
        for (line, want) in cases.clone() {
            let (_, f) = CreateFailure::parse(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(f.refusal, want, "{line}");
        }
        let (_, mc) = CreateFailure::parse(cases[3].0).unwrap();
        assert_eq!(mc.namespace, "");
        assert_eq!(mc.group, "machineconfiguration.openshift.io");
        assert_eq!(
            mc.object(),
            "machineconfigs.machineconfiguration.openshift.io 99-worker-ssh"
        );
    }

    #[test]
    fn other_lines_are_no_failure() {
        for line in [
            "[#499] failed to create some manifests:",
            r#"Created "99-heldout-probe.yaml" configmaps.v1./heldout-probe -n heldout-never-created"#,
            "Failed to create pod sandbox",
            "",
        ] {
            assert_eq!(CreateFailure::parse(line), None, "{line}");
        }
    }
}
