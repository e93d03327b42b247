//! The OKD releases okd-install installs, and which of them a release image is.
//!
//! Each OKD minor release changes a few things the bootstrap must do (a render flag the
//! payload's operator accepts, a kubelet flag its Kubernetes removed, how the node image is
//! found). Those differences live in one table, `data/releases.toml`, parsed once into
//! [`Table`]; generators ask a [`Release`] whether it [`has`](Release::has) a [`Feature`]
//! instead of comparing version numbers, so adding a release is a table edit.
//!
//! [`resolve`] decides which release a pull spec installs: from its tag, from the table of
//! known digests, or from the version the user gave. Guessing is never an option: a wrong
//! guess writes a bootstrap that fails on the host, long after generation.

#![deny(missing_docs)]

pub mod namespaces;
mod stream;

pub use stream::{Artifact, MetalArtifacts, Stream, StreamError, coreos_arch};

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The flag that names the release version when the pull spec does not.
pub const VERSION_FLAG: &str = "--release-version";

/// A `MAJOR.MINOR` release number such as `4.22` or `5.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Minor {
    /// Major version.
    pub major: u16,
    /// Minor version.
    pub minor: u16,
}

impl fmt::Display for Minor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl Minor {
    /// The minor a version string starts with: `4.22.0-okd-scos.7`, `4.20.0-okd-scos.ec.3`,
    /// `4.17.0-0.okd-scos-2024-09-30-101739` and the bare `4.19` all name theirs; `latest` or
    /// `v4` do not.
    pub fn of_version(version: &str) -> Option<Minor> {
        let mut parts = version.split(['.', '-', '_']);
        let number = |p: Option<&str>| {
            p.filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))?
                .parse::<u16>()
                .ok()
        };
        Some(Minor {
            major: number(parts.next())?,
            minor: number(parts.next())?,
        })
    }
}

impl FromStr for Minor {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Minor::of_version(s)
            .filter(|m| m.to_string() == s)
            .ok_or_else(|| format!("{s:?} is not MAJOR.MINOR"))
    }
}

impl Serialize for Minor {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The oldest supported release: what a setting made before releases were chosen (an older
/// state file, a test's default options) was generated for.
impl Default for Minor {
    fn default() -> Self {
        oldest().version
    }
}

/// The oldest supported release (see [`Minor`]'s `Default`).
pub fn oldest() -> &'static Release {
    &table().releases[0]
}

/// Serde for a `&'static Release` field (`#[serde(with = "releases::by_version")]`): written
/// as its `MAJOR.MINOR`, read back as the table's entry, so a stored setting holds the
/// release itself and no reader looks it up again.
pub mod by_version {
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};

    use super::{Minor, Release, table};

    /// Writes the release's `MAJOR.MINOR`.
    pub fn serialize<S: Serializer>(release: &&'static Release, s: S) -> Result<S::Ok, S::Error> {
        release.version.serialize(s)
    }

    /// Reads a `MAJOR.MINOR` and returns the table's entry; an unsupported one is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static Release, D::Error> {
        let minor = Minor::deserialize(d)?;
        let table = table();
        table.get(minor).ok_or_else(|| {
            D::Error::custom(format!(
                "OKD {minor} is not a release okd-install installs; supported: {}",
                table.supported()
            ))
        })
    }
}

impl<'de> Deserialize<'de> for Minor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// The CentOS Stream CoreOS generation a release's node image is built on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeOs {
    /// CentOS Stream 9 CoreOS (OKD 4.19).
    #[serde(rename = "scos-9")]
    Scos9,
    /// CentOS Stream 10 CoreOS (OKD 4.20 and later).
    #[serde(rename = "scos-10")]
    Scos10,
}

impl fmt::Display for NodeOs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NodeOs::Scos9 => "CentOS Stream CoreOS 9",
            NodeOs::Scos10 => "CentOS Stream CoreOS 10",
        })
    }
}

/// How the bootstrap host finds the payload's node image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeImage {
    /// The first of the node image tag and `rhel-coreos` that the payload names (works for
    /// OKD and OpenShift payloads alike).
    FirstListed,
    /// Exactly the release's node image tag (4.22 picks the tag by OS image stream).
    Tag,
    /// The MCO image's `machine-config-osimagestream` helper picks the image of the OS image
    /// stream by its labels (5.0 has no fixed tag any more).
    StreamHelper,
}

/// A bootstrap or install-config difference that a release turns on. Absent means the 4.19
/// behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Feature {
    /// bootkube.sh copies the payload's image-references into /etc/mcc/bootstrap: the 4.21+
    /// bootstrap controller reads the payload ImageStream there.
    MccImageReferences,
    /// `imageDigestSources[].sourcePolicy` is accepted, `NeverContactSource` writes
    /// `blocked = true` for the source in registries.conf, and mirror entries are merged per
    /// source and policy instead of per source (one upstream change, 4.21).
    RegistrySourcePolicy,
    /// The MCO bootstrap applies a MachineOSConfig carrying a pre-built image annotation, so
    /// image mode is written the upstream way (a MachineOSConfig per pool).
    MachineOsConfigBootstrap,
    /// Baremetal `bmcVerifyCA` is accepted.
    BmcVerifyCa,
    /// The CVO render takes `--cluster-version-manifest-path` (the CVO before 4.22 rejects it).
    CvoClusterVersionManifestPath,
    /// The kubelet runs without `--pod-infra-container-image` (Kubernetes 1.35 removed it and
    /// the kubelet exits when given it).
    KubeletWithoutPodInfraImage,
    /// node-image-finish.service has `KillMode=none`, so isolating multi-user.target does not
    /// kill the unit that asked for it.
    NodeImageFinishKillModeNone,
    /// The node-image overlay leaves /etc/crypto-policies as booted.
    OverlayExcludesCryptoPolicies,
    /// A live system keeps the node image in a tmpfs at `/var/ostreecontainer`
    /// (`var-ostreecontainer.mount`); before, the z-stream backports of 4.19 and 4.20 named
    /// it `/var/ostree-container`. Only the bootstrap host refers to the path, but it is the
    /// release's own name, and people debugging a host look for that one.
    VarOstreecontainerMount,
    /// The live-system tmpfs is skipped when `/etc/no-var-tmpfs` exists: upstream's baremetal
    /// bootstrap VM boots the live ISO with a real disk for /var and writes that file.
    NoVarTmpfsCondition,
    /// The node-image overlay try-restarts sshd, whose binary the node image may have
    /// replaced (upstream 4.22, for an sshd upgrade within RHEL 9).
    OverlayRestartsSshd,
    /// The sshd try-restart after the overlay is gone again (upstream 5.0). A feature of its
    /// own because features only ever turn on: the restart is done by releases that have
    /// [`Feature::OverlayRestartsSshd`] and not this one, see [`Release::overlay_restarts_sshd`].
    OverlayWithoutSshdRestart,
    /// A fencing credential may name its host by `macAddress`.
    FencingMacAddress,
    /// A fencing credential may turn off the verification of its BMC's certificate
    /// (`certificateVerification`).
    FencingCertificateVerification,
    /// Bare metal and vSphere take `dnsRecordsType`, and bare metal's Infrastructure status
    /// carries it for the machine-config operator.
    DnsRecordsType,
    /// Bare metal takes `provisioningNetworkGateway`, passed to the metal3 Provisioning.
    ProvisioningNetworkGateway,
    /// `pki.signerCertificates.key` chooses the key of the signer certificates (upstream 5.0,
    /// behind the ConfigurablePKI feature gate, on by default with the gate: RSA-4096).
    ConfigurablePki,
    /// The etcd render takes `--rendered-manifest-files` and `--payload-version`. No release's
    /// etcd operator accepts them yet (upstream's installer passes them from 2026-07, the
    /// operator of 5.0 does not define them), so no release lists it.
    EtcdRenderManifestFlags,
}

impl Feature {
    /// Every feature, for listings and tests.
    pub const ALL: &[Feature] = &[
        Feature::MccImageReferences,
        Feature::RegistrySourcePolicy,
        Feature::MachineOsConfigBootstrap,
        Feature::BmcVerifyCa,
        Feature::CvoClusterVersionManifestPath,
        Feature::KubeletWithoutPodInfraImage,
        Feature::NodeImageFinishKillModeNone,
        Feature::OverlayExcludesCryptoPolicies,
        Feature::VarOstreecontainerMount,
        Feature::NoVarTmpfsCondition,
        Feature::OverlayRestartsSshd,
        Feature::OverlayWithoutSshdRestart,
        Feature::FencingMacAddress,
        Feature::FencingCertificateVerification,
        Feature::DnsRecordsType,
        Feature::ProvisioningNetworkGateway,
        Feature::ConfigurablePki,
        Feature::EtcdRenderManifestFlags,
    ];

    /// One line for `version` and `explain`.
    pub fn describe(self) -> &'static str {
        match self {
            Feature::MccImageReferences => {
                "bootkube.sh copies image-references into /etc/mcc/bootstrap"
            }
            Feature::RegistrySourcePolicy => {
                "imageDigestSources[].sourcePolicy (NeverContactSource blocks the source; \
                 mirror entries merge per source and policy)"
            }
            Feature::MachineOsConfigBootstrap => {
                "image mode by MachineOSConfig with the pre-built-image annotation"
            }
            Feature::BmcVerifyCa => "platform.baremetal.bmcVerifyCA",
            Feature::CvoClusterVersionManifestPath => {
                "CVO render with --cluster-version-manifest-path"
            }
            Feature::KubeletWithoutPodInfraImage => "kubelet without --pod-infra-container-image",
            Feature::NodeImageFinishKillModeNone => "node-image-finish.service KillMode=none",
            Feature::OverlayExcludesCryptoPolicies => {
                "node-image overlay keeps /etc/crypto-policies"
            }
            Feature::VarOstreecontainerMount => {
                "live-system node-image tmpfs var-ostreecontainer.mount at /var/ostreecontainer \
                 (earlier releases: var-ostree\\x2dcontainer.mount at /var/ostree-container)"
            }
            Feature::NoVarTmpfsCondition => {
                "live-system tmpfs skipped when /etc/no-var-tmpfs exists"
            }
            Feature::OverlayRestartsSshd => "sshd try-restart after the node-image overlay",
            Feature::OverlayWithoutSshdRestart => {
                "sshd try-restart after the node-image overlay dropped again"
            }
            Feature::FencingMacAddress => "controlPlane.fencing.credentials[].macAddress",
            Feature::FencingCertificateVerification => {
                "controlPlane.fencing.credentials[].certificateVerification"
            }
            Feature::DnsRecordsType => {
                "platform.baremetal/vsphere.dnsRecordsType (bare metal: also in the Infrastructure status)"
            }
            Feature::ProvisioningNetworkGateway => {
                "platform.baremetal.provisioningNetworkGateway (metal3 Provisioning)"
            }
            Feature::ConfigurablePki => {
                "pki.signerCertificates.key: RSA 2048-8192 or ECDSA signers (ConfigurablePKI gate)"
            }
            Feature::EtcdRenderManifestFlags => {
                "etcd render with --rendered-manifest-files/--payload-version"
            }
        }
    }
}

/// install-config `osImageStream` of OKD on a release.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OsImageStreams {
    /// The stream used when install-config names none.
    pub default: String,
    /// Every accepted value.
    pub values: Vec<String>,
}

/// One supported OKD minor release.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// `MAJOR.MINOR`.
    pub version: Minor,
    /// The Kubernetes minor of the payload.
    pub kubernetes: String,
    /// The OS the payload's node image is built on.
    pub node_os: NodeOs,
    /// The payload tag holding the node image.
    pub node_image_tag: String,
    /// How the bootstrap host finds the node image.
    pub node_image: NodeImage,
    /// The ClusterVersion's update channel.
    pub channel: String,
    /// install-config `osImageStream` on this release; `None`: the field is refused.
    #[serde(default)]
    pub os_image_stream: Option<OsImageStreams>,
    /// What this release turns on.
    pub features: BTreeSet<Feature>,
    /// The file of `data/coreos-streams/` holding the CoreOS stream metadata its installer
    /// embeds; `None`: none was found upstream (read through [`Release::coreos_stream`]).
    #[serde(default)]
    pub coreos_stream: Option<String>,
}

impl Release {
    /// Whether this release turns `feature` on.
    pub fn has(&self, feature: Feature) -> bool {
        self.features.contains(&feature)
    }

    /// The tmpfs in which a live system keeps the node image's repository and checkout
    /// ([`Feature::VarOstreecontainerMount`]).
    pub fn node_image_live_dir(&self) -> &'static str {
        if self.has(Feature::VarOstreecontainerMount) {
            "/var/ostreecontainer"
        } else {
            "/var/ostree-container"
        }
    }

    /// The CoreOS stream metadata of this release: the boot images its installer pins, among
    /// them the live ISO and PXE files of each architecture.
    pub fn coreos_stream(&self) -> Result<&'static Stream, StreamError> {
        let release = self.version.to_string();
        let file = self
            .coreos_stream
            .as_deref()
            .ok_or_else(|| StreamError::None {
                release: release.clone(),
            })?;
        stream::by_file(&release, file)
    }

    /// Whether the node-image overlay try-restarts sshd: upstream did so in one release only,
    /// which the table says with a feature that turns it on and one that turns it off again.
    pub fn overlay_restarts_sshd(&self) -> bool {
        self.has(Feature::OverlayRestartsSshd) && !self.has(Feature::OverlayWithoutSshdRestart)
    }
}

/// The release okd-install installs by default.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefaultRelease {
    /// Release image pull spec.
    pub image: String,
    /// Update graph URL for the ClusterVersion.
    pub upstream: String,
}

/// A release image digest whose version is known.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownDigest {
    /// `sha256:<64 hex digits>`.
    pub digest: String,
    /// The release version of that image.
    pub version: String,
}

/// `data/releases.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// The default release.
    pub default: DefaultRelease,
    /// Digests with a known version.
    #[serde(default, rename = "known_digest")]
    pub known_digests: Vec<KnownDigest>,
    /// Supported releases, oldest first.
    #[serde(rename = "release")]
    pub releases: Vec<Release>,
}

/// The table embedded at build time (parsed once).
pub fn table() -> &'static Table {
    static CELL: OnceLock<Table> = OnceLock::new();
    CELL.get_or_init(|| {
        toml::from_str(include_str!("../../../data/releases.toml"))
            .expect("data/releases.toml is checked by this crate's tests")
    })
}

impl Table {
    /// The release `minor`, if supported.
    pub fn get(&self, minor: Minor) -> Option<&Release> {
        self.releases.iter().find(|r| r.version == minor)
    }

    /// `4.19, 4.20, …` for messages.
    pub fn supported(&self) -> String {
        self.releases
            .iter()
            .map(|r| r.version.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The first release that turns `feature` on, for messages that name it.
    pub fn first_with(&self, feature: Feature) -> Option<&Release> {
        self.releases.iter().find(|r| r.has(feature))
    }

    /// The first release that accepts install-config `osImageStream`.
    pub fn first_with_os_image_stream(&self) -> Option<&Release> {
        self.releases.iter().find(|r| r.os_image_stream.is_some())
    }

    /// The version of a known digest.
    pub fn digest_version(&self, digest: &str) -> Option<&str> {
        self.known_digests
            .iter()
            .find(|d| d.digest == digest)
            .map(|d| d.version.as_str())
    }
}

/// Where the release version was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionSource {
    /// The `--release-version` flag.
    Flag,
    /// The pull spec's tag.
    Tag,
    /// The table of known digests.
    KnownDigest,
}

impl fmt::Display for VersionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VersionSource::Flag => VERSION_FLAG,
            VersionSource::Tag => "the release image tag",
            VersionSource::KnownDigest => "the known release digests",
        })
    }
}

/// A release image with its supported release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedRelease {
    /// The supported release.
    pub release: &'static Release,
    /// The version as known (`4.22.0-okd-scos.7`, or just `4.19` from a `:4.19` tag).
    pub version: String,
    /// Where [`Self::version`] came from.
    pub from: VersionSource,
}

/// Why the release of a pull spec is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// Neither the tag nor a known digest says the version.
    #[error(
        "cannot tell which OKD release {image} is (its tag names no version and its digest is \
         not a known release); give it with {VERSION_FLAG} (e.g. {VERSION_FLAG} {newest})"
    )]
    Unknown {
        /// The pull spec.
        image: String,
        /// The newest supported release, as an example.
        newest: Minor,
    },
    /// The version is not `MAJOR.MINOR…`.
    #[error("{VERSION_FLAG} {value:?} is not a release version such as 4.22 or 5.0.0-okd-scos.0")]
    BadVersion {
        /// The flag's value.
        value: String,
    },
    /// The flag and the pull spec name different releases.
    #[error("{VERSION_FLAG} {flag} contradicts {from} of {image}, which is {found}")]
    Contradiction {
        /// The flag's value.
        flag: String,
        /// The pull spec.
        image: String,
        /// What the pull spec says.
        found: String,
        /// Where that was read.
        from: VersionSource,
    },
    /// A release outside the table.
    #[error(
        "OKD {minor} ({version}, from {from}) is not a release okd-install installs; \
         supported: {supported}"
    )]
    Unsupported {
        /// The release's minor.
        minor: Minor,
        /// The version as known.
        version: String,
        /// Where it was read.
        from: VersionSource,
        /// The supported releases.
        supported: String,
    },
}

/// The tag of a pull spec (`None` for a digest-only or untagged one).
fn tag_of(image: &str) -> Option<&str> {
    let name = image.split('@').next()?;
    name.rsplit_once(':')
        .map(|(_, t)| t)
        .filter(|t| !t.contains('/'))
}

/// The version a pull spec names by itself: its tag, else a known digest.
fn version_of_image(table: &Table, image: &str) -> Option<(String, VersionSource)> {
    if let Some(tag) = tag_of(image).filter(|t| Minor::of_version(t).is_some()) {
        return Some((tag.to_string(), VersionSource::Tag));
    }
    let digest = image.split_once('@')?.1;
    table
        .digest_version(digest)
        .map(|v| (v.to_string(), VersionSource::KnownDigest))
}

/// Which supported release `image` installs; `flag` is the `--release-version` value.
pub fn resolve(image: &str, flag: Option<&str>) -> Result<ResolvedRelease, ResolveError> {
    resolve_in(table(), image, flag)
}

/// The supported release a `--release-version` value names when no release image is given
/// (commands about a release rather than an install, such as `coreos print-stream-json`).
pub fn resolve_version(version: &str) -> Result<ResolvedRelease, ResolveError> {
    resolve_in(table(), "", Some(version))
}

/// [`resolve`] against another table (tests).
pub fn resolve_in(
    table: &'static Table,
    image: &str,
    flag: Option<&str>,
) -> Result<ResolvedRelease, ResolveError> {
    let from_image = version_of_image(table, image);
    let (version, source) = match (flag.map(str::trim).filter(|f| !f.is_empty()), from_image) {
        (Some(flag), found) => {
            let minor = Minor::of_version(flag).ok_or_else(|| ResolveError::BadVersion {
                value: flag.to_string(),
            })?;
            if let Some((found, source)) =
                found.filter(|(v, _)| Minor::of_version(v) != Some(minor))
            {
                return Err(ResolveError::Contradiction {
                    flag: flag.to_string(),
                    image: image.to_string(),
                    found,
                    from: source,
                });
            }
            (flag.to_string(), VersionSource::Flag)
        }
        (None, Some(found)) => found,
        (None, None) => {
            return Err(ResolveError::Unknown {
                image: image.to_string(),
                newest: table.releases.last().map(|r| r.version).unwrap_or(Minor {
                    major: 4,
                    minor: 19,
                }),
            });
        }
    };
    let minor = Minor::of_version(&version).expect("checked above");
    let release = table.get(minor).ok_or_else(|| ResolveError::Unsupported {
        minor,
        version: version.clone(),
        from: source,
        supported: table.supported(),
    })?;
    Ok(ResolvedRelease {
        release,
        version,
        from: source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Minor {
        s.parse().unwrap()
    }

    #[test]
    fn the_table_lists_the_five_releases_oldest_first() {
        let t = table();
        let names: Vec<String> = t.releases.iter().map(|r| r.version.to_string()).collect();
        assert_eq!(names, ["4.19", "4.20", "4.21", "4.22", "5.0"]);
        assert_eq!(t.supported(), "4.19, 4.20, 4.21, 4.22, 5.0");
        assert_eq!(t.get(m("4.22")).unwrap().kubernetes, "1.35");
        assert_eq!(t.get(m("5.0")).unwrap().kubernetes, "1.36");
        assert_eq!(t.get(m("4.19")).unwrap().node_os, NodeOs::Scos9);
        assert_eq!(t.get(m("4.20")).unwrap().node_os, NodeOs::Scos10);
    }

    /// Every feature is an addition: once a release has it, every later one does too, so
    /// "from release X" in messages and documentation is true.
    #[test]
    fn features_once_on_stay_on() {
        let t = table();
        for pair in t.releases.windows(2) {
            for f in &pair[0].features {
                assert!(
                    pair[1].has(*f),
                    "{f:?} is on in {} but off in {}",
                    pair[0].version,
                    pair[1].version
                );
            }
        }
        for f in Feature::ALL {
            assert!(!f.describe().is_empty());
        }
    }

    /// The facts of reference/releases.md §3 and §9, one per feature.
    #[test]
    fn features_start_where_upstream_starts_them() {
        let t = table();
        let first = |f| t.first_with(f).map(|r| r.version.to_string());
        assert_eq!(first(Feature::MccImageReferences).as_deref(), Some("4.21"));
        assert_eq!(
            first(Feature::RegistrySourcePolicy).as_deref(),
            Some("4.21")
        );
        assert_eq!(
            first(Feature::MachineOsConfigBootstrap).as_deref(),
            Some("4.21")
        );
        assert_eq!(first(Feature::BmcVerifyCa).as_deref(), Some("4.21"));
        assert_eq!(
            first(Feature::CvoClusterVersionManifestPath).as_deref(),
            Some("4.22")
        );
        assert_eq!(
            first(Feature::KubeletWithoutPodInfraImage).as_deref(),
            Some("4.22")
        );
        assert_eq!(
            first(Feature::NodeImageFinishKillModeNone).as_deref(),
            Some("4.22")
        );
        assert_eq!(
            first(Feature::OverlayExcludesCryptoPolicies).as_deref(),
            Some("5.0")
        );
        assert_eq!(
            first(Feature::VarOstreecontainerMount).as_deref(),
            Some("4.21")
        );
        assert_eq!(first(Feature::NoVarTmpfsCondition).as_deref(), Some("4.22"));
        assert_eq!(first(Feature::OverlayRestartsSshd).as_deref(), Some("4.22"));
        assert_eq!(
            first(Feature::OverlayWithoutSshdRestart).as_deref(),
            Some("5.0")
        );
        assert_eq!(first(Feature::FencingMacAddress).as_deref(), Some("5.0"));
        assert_eq!(
            first(Feature::FencingCertificateVerification).as_deref(),
            Some("4.20")
        );
        assert_eq!(first(Feature::DnsRecordsType).as_deref(), Some("4.21"));
        assert_eq!(
            first(Feature::ProvisioningNetworkGateway).as_deref(),
            Some("4.22")
        );
        assert_eq!(first(Feature::ConfigurablePki).as_deref(), Some("5.0"));
        assert_eq!(first(Feature::EtcdRenderManifestFlags), None);
        assert_eq!(
            t.first_with_os_image_stream()
                .map(|r| r.version.to_string()),
            Some("5.0".into())
        );
    }

    /// The values derived from features, per release (reference/releases.md §1, §2: the
    /// z-stream backports of 4.19/4.20, the 4.21 rename, the sshd restart of 4.22 only).
    #[test]
    fn derived_values_follow_the_releases() {
        let t = table();
        let at = |v: &str| t.get(m(v)).unwrap();
        for (v, dir, sshd) in [
            ("4.19", "/var/ostree-container", false),
            ("4.20", "/var/ostree-container", false),
            ("4.21", "/var/ostreecontainer", false),
            ("4.22", "/var/ostreecontainer", true),
            ("5.0", "/var/ostreecontainer", false),
        ] {
            assert_eq!(at(v).node_image_live_dir(), dir, "{v}");
            assert_eq!(at(v).overlay_restarts_sshd(), sshd, "{v}");
        }
    }

    #[test]
    fn the_default_is_the_newest_release_pinned_by_a_known_digest() {
        let t = table();
        let r = resolve(&t.default.image, None).unwrap();
        assert_eq!(r.release.version, t.releases.last().unwrap().version);
        assert_eq!(r.from, VersionSource::KnownDigest);
        assert_eq!(r.version, "5.0.0-okd-scos.0");
    }

    #[test]
    fn tags_name_their_release() {
        for (image, minor, version) in [
            (
                "quay.io/okd/scos-release:4.22.0-okd-scos.7",
                "4.22",
                "4.22.0-okd-scos.7",
            ),
            (
                "quay.io/okd/scos-release:5.0.0-okd-scos.0",
                "5.0",
                "5.0.0-okd-scos.0",
            ),
            (
                "quay.io/okd/scos-release:4.20.0-okd-scos.ec.3",
                "4.20",
                "4.20.0-okd-scos.ec.3",
            ),
            ("localhost/okd-payload/release:4.19", "4.19", "4.19"),
            (
                "registry.example.com:5000/okd/release:4.21.0-okd-scos.8",
                "4.21",
                "4.21.0-okd-scos.8",
            ),
        ] {
            let r = resolve(image, None).unwrap_or_else(|e| panic!("{image}: {e}"));
            assert_eq!(r.release.version, m(minor), "{image}");
            assert_eq!(r.version, version);
            assert_eq!(r.from, VersionSource::Tag);
        }
    }

    #[test]
    fn a_release_outside_the_table_is_refused_with_the_supported_list() {
        let e = resolve(
            "quay.io/okd/scos-release:4.17.0-0.okd-scos-2024-09-30-101739",
            None,
        )
        .unwrap_err();
        assert!(matches!(e, ResolveError::Unsupported { minor, .. } if minor == m("4.17")));
        let text = e.to_string();
        assert!(
            text.contains("4.17.0-0.okd-scos-2024-09-30-101739"),
            "{text}"
        );
        assert!(
            text.contains("supported: 4.19, 4.20, 4.21, 4.22, 5.0"),
            "{text}"
        );
    }

    #[test]
    fn an_unknown_version_asks_for_the_flag() {
        for image in [
            "quay.io/okd/scos-release@sha256:0000000000000000000000000000000000000000000000000000000000000000",
            "quay.io/okd/scos-release:latest",
            "registry.example.com:5000/okd/release",
        ] {
            let e = resolve(image, None).unwrap_err();
            assert!(matches!(e, ResolveError::Unknown { .. }), "{image}: {e}");
            assert!(e.to_string().contains("--release-version"), "{e}");
        }
    }

    #[test]
    fn the_flag_names_the_release_of_an_unknown_digest_but_may_not_contradict_a_tag() {
        let digest = "quay.io/okd/scos-release@sha256:1111111111111111111111111111111111111111111111111111111111111111";
        let r = resolve(digest, Some("4.22.0-okd-scos.7")).unwrap();
        assert_eq!(r.release.version, m("4.22"));
        assert_eq!(r.from, VersionSource::Flag);
        // Another z-stream of the same minor is fine.
        let r = resolve("quay.io/okd/scos-release:4.22.0-okd-scos.3", Some("4.22")).unwrap();
        assert_eq!(r.release.version, m("4.22"));
        let e = resolve("quay.io/okd/scos-release:4.21.0-okd-scos.8", Some("4.22")).unwrap_err();
        assert!(matches!(e, ResolveError::Contradiction { .. }), "{e}");
        let e = resolve(digest, Some("four")).unwrap_err();
        assert!(matches!(e, ResolveError::BadVersion { .. }), "{e}");
        let e = resolve(digest, Some("4.18")).unwrap_err();
        assert!(matches!(e, ResolveError::Unsupported { .. }), "{e}");
    }

    #[test]
    fn a_version_alone_names_its_release() {
        let r = resolve_version("4.19.0-okd-scos.3").unwrap();
        assert_eq!(r.release.version, m("4.19"));
        assert_eq!(r.from, VersionSource::Flag);
        let e = resolve_version("4.18").unwrap_err();
        assert!(matches!(e, ResolveError::Unsupported { .. }), "{e}");
        let e = resolve_version("four").unwrap_err();
        assert!(matches!(e, ResolveError::BadVersion { .. }), "{e}");
    }

    #[test]
    fn minors_parse_strictly() {
        assert_eq!(Minor::of_version("5.0.0-okd-scos.0"), Some(m("5.0")));
        assert_eq!(Minor::of_version("latest"), None);
        assert_eq!(Minor::of_version("4"), None);
        assert!("4.19.0".parse::<Minor>().is_err());
        assert!(m("4.22") < m("5.0"));
    }
}
