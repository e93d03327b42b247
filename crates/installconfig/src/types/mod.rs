//! The install-config.yaml object model (apiVersion v1).
//!
//! The doc comments on these types are the user documentation: `explain` prints them from the
//! schemars schema, so there is no second copy of the field descriptions anywhere.

mod baremetal;
mod cidr;
mod network;
mod platform;
mod pool;
mod unsupported;
mod vips;
mod vsphere;

use std::collections::BTreeMap;

use contract::ClusterNames;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use baremetal::*;
pub use cidr::{Cidr, IpAddrString};
pub use network::*;
pub use platform::{Platform, WaitBudgets};
pub use pool::*;
pub use unsupported::{UNSUPPORTED_PLATFORMS, UnsupportedPlatform, UnsupportedPlatforms};
pub use vips::{DeprecatedVip, VipPlatform};
pub use vsphere::*;

/// How a unit-variant enum value is spelled in install-config.yaml (its serde name), e.g.
/// `vCurrent` for a capability set; empty for a value that does not serialize to a string.
pub fn yaml_name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The only install-config apiVersion okd-install reads.
pub const API_VERSION: &str = "v1";

/// The install configuration: everything a user decides before a cluster is created.
///
/// It is read from install-config.yaml in the asset directory, defaulted, validated, and then
/// drives every generated manifest and Ignition config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "InstallConfig")]
pub struct InstallConfig {
    /// Version of this schema. Must be "v1".
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub api_version: String,
    /// Object kind. Optional; when given it should be "InstallConfig".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Object metadata. Only `name` (the cluster name) is used.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub metadata: ObjectMeta,
    /// PEM-encoded X.509 certificates that nodes (and, depending on
    /// additionalTrustBundlePolicy, the cluster proxy configuration) must trust in addition
    /// to the system roots, e.g. for a mirror registry or an intercepting proxy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_trust_bundle: Option<String>,
    /// When the additional trust bundle is distributed cluster-wide: `Proxyonly` only when a
    /// proxy is configured, `Always` in any case.
    #[serde(default)]
    pub additional_trust_bundle_policy: TrustBundlePolicy,
    /// OpenSSH public keys (authorized_keys lines, one per line) allowed to log in as the
    /// `core` user on every node.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ssh_key: String,
    /// The base DNS domain of the cluster. All DNS records are sub-domains of this base and
    /// include the cluster name: `<metadata.name>.<baseDomain>`.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub base_domain: String,
    /// Cluster networking: pod, service and machine networks and the network plugin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = {"networkType": network::DEFAULT_NETWORK_TYPE}))]
    pub networking: Option<Networking>,
    /// The control-plane (master) machine pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = {"name": pool::MASTER_POOL, "replicas": pool::DEFAULT_REPLICAS}))]
    pub control_plane: Option<MachinePool>,
    /// The arbiter machine pool of a two-node-with-arbiter cluster (feature-gated, baremetal
    /// only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arbiter: Option<MachinePool>,
    /// The compute (worker) machine pools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = [{"name": pool::WORKER_POOL, "replicas": pool::DEFAULT_REPLICAS}]))]
    pub compute: Vec<MachinePool>,
    /// The infrastructure the cluster runs on. Exactly one platform must be set.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub platform: PlatformSection,
    /// The Docker config JSON (with an `auths` object) used to pull the release images.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub pull_secret: String,
    /// Cluster-wide HTTP(S) proxy settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<Proxy>,
    /// Deprecated: use imageDigestSources. Mirror repositories for release content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_content_sources: Vec<ImageContentSource>,
    /// Mirror repositories for release content, matched by image digest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_digest_sources: Vec<ImageDigestSource>,
    /// How the cluster's user-facing endpoints are exposed.
    #[serde(default)]
    pub publish: PublishingStrategy,
    /// Per-operator publishing (only with `publish: Mixed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator_publishing_strategy: Option<OperatorPublishingStrategy>,
    /// Run the cluster with FIPS-validated cryptography. Cannot be changed after install.
    #[serde(default)]
    pub fips: bool,
    /// Workload partitioning mode set at install time.
    #[serde(default)]
    pub cpu_partitioning_mode: CpuPartitioningMode,
    /// How the cloud credential operator handles cloud credentials. Leave unset on
    /// none, baremetal and vsphere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials_mode: Option<CredentialsMode>,
    /// Single-node bootstrap-in-place settings (used by `create single-node-ignition-config`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap_in_place: Option<BootstrapInPlace>,
    /// Which optional cluster capabilities are installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = {"baselineCapabilitySet": "vCurrent"}))]
    pub capabilities: Option<Capabilities>,
    /// The feature set of the cluster. The empty string is the default feature set.
    #[serde(default, skip_serializing_if = "FeatureSet::is_default")]
    pub feature_set: FeatureSet,
    /// Feature gates (`Name=true|false`), only with featureSet CustomNoUpgrade.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub feature_gates: Vec<String>,
    /// The OS image stream the nodes boot (OKD 5.0 and later; OKD's one stream is
    /// `centos-10`, CentOS Stream 10 CoreOS). Empty: the release's default stream.
    /// Earlier OKD releases have no stream choice and refuse the field. The bootstrap finds
    /// the stream's node image with the machine-config operator's osimagestream helper. No
    /// OSImageStream manifest is written: OKD's only stream is also the operator's built-in
    /// default for it, and upstream's 5.0 installer writes none for OKD either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_image_stream: Option<String>,
    /// Key algorithm and size of the cluster's signer (CA) certificates: RSA of 2048 to 8192
    /// bits (a multiple of 1024) or ECDSA on P256, P384 or P521 (OKD 5.0 and later, with the
    /// feature gate ConfigurablePKI: featureSet TechPreviewNoUpgrade, or CustomNoUpgrade with
    /// ConfigurablePKI=true). With the gate on and no pki, the signers are RSA-4096; without
    /// the gate, RSA-2048. Leaf certificates keep RSA-2048 keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pki: Option<Pki>,
    /// okd-install extension: install-time image mode (on-cluster layering). The master and
    /// worker pools boot pre-built OS images (see pools) from the first boot. It needs the
    /// MachineConfiguration machinery on both default pools, so every compute pool must be
    /// named `worker`; it is refused with an arbiter pool (no image is built for it) and
    /// with bootstrapInPlace (a single node has no peer to keep the cluster up while it
    /// reboots into its layered image).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_mode: Option<ImageMode>,
    /// okd-install extension: a three-node cluster without a separate bootstrap machine. One
    /// control-plane host boots bootstrap-pivot.ign, acts as bootstrap, and then installs
    /// itself onto `installationDisk` as the third master. Needs exactly 3 control-plane
    /// replicas, platform none or baremetal, and cannot be combined with bootstrapInPlace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap_pivot: Option<BootstrapPivot>,
}

/// The subset of Kubernetes object metadata an install config carries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ObjectMeta {
    /// The cluster name: a lower-case DNS label-like name of at most 54 characters.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub name: String,
    /// Annotations; used internally (e.g. to record a skipped host crypto check).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Labels; accepted for compatibility and otherwise ignored.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Namespace; accepted for compatibility and otherwise ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Written as `null` by configs that other tools generated; accepted and ignored.
    #[serde(default, skip_serializing)]
    pub creation_timestamp: Option<serde_json::Value>,
}

/// When the additional trust bundle is applied cluster-wide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TrustBundlePolicy {
    /// Only when a proxy is configured.
    #[default]
    Proxyonly,
    /// Always.
    Always,
}

/// Publishing strategy of the cluster's endpoints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum PublishingStrategy {
    /// Reachable from outside the cluster's networks.
    #[default]
    External,
    /// Reachable only from the cluster's networks (cloud platforms only).
    Internal,
    /// Set per operator with operatorPublishingStrategy (Azure only).
    Mixed,
}

/// Publishing of a single operator's endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum EndpointPublishing {
    /// Public endpoint.
    #[default]
    External,
    /// Private endpoint.
    Internal,
}

/// Per-operator publishing strategy used with `publish: Mixed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OperatorPublishingStrategy {
    /// Publishing of the default ingress controller.
    #[serde(default)]
    pub ingress: EndpointPublishing,
    /// Publishing of the API server.
    #[serde(default, rename = "apiserver")]
    pub api_server: EndpointPublishing,
}

/// Workload partitioning at install time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum CpuPartitioningMode {
    /// No workload partitioning.
    #[default]
    None,
    /// Partition management workloads on every node.
    AllNodes,
}

/// Mode of the cloud credential operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum CredentialsMode {
    /// Mint narrowly scoped credentials from an admin credential.
    Mint,
    /// Pass the admin credential through to components.
    Passthrough,
    /// The user manages credentials.
    Manual,
}

/// Settings for a single-node bootstrap-in-place installation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BootstrapInPlace {
    /// The disk the node installs itself onto, e.g. /dev/sda.
    #[serde(default)]
    pub installation_disk: String,
}

/// okd-install extension: install-time image mode for the master and worker pools.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageMode {
    /// okd-install extension: turn image mode on for the master and worker pools.
    #[serde(default)]
    pub enabled: bool,
    /// okd-install extension: the pre-built image of each pool, one entry per pool (master,
    /// worker). From OKD 4.21, `create manifests` turns an entry into a complete
    /// MachineOSConfig in manifests/ with the annotation
    /// `machineconfiguration.openshift.io/pre-built-image`, which the release's
    /// machine-config operator applies at bootstrap (upstream's install-time image mode).
    /// On 4.19 and 4.20, whose bootstrap ignores MachineOSConfigs, it also writes the
    /// MachineConfig `99-<pool>-okd-install-os-image` in openshift/, which sets the pool's
    /// osImageURL to the same image: the bootstrap machine-config controller renders it into
    /// the pool's first-boot config, so nodes boot into the image. A pool without an entry
    /// gets skeletons whose REPLACE-ME values you fill in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pools: Vec<ImageModePool>,
}

/// okd-install extension: one pool's pre-built OS image and the settings of later on-cluster
/// builds.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageModePool {
    /// okd-install extension: the pool, `master` or `worker`.
    #[serde(default)]
    pub name: String,
    /// okd-install extension: the image you built and pushed for this pool, pinned by digest
    /// (`<registry>/<repository>@sha256:<64 hex digits>`). Nodes of the pool boot into it on
    /// first boot; the pull secret needs credentials for its registry.
    #[serde(default)]
    pub pre_built_image: String,
    /// okd-install extension: the Containerfile the pre-built image was built from (it starts
    /// `FROM configs AS final`). On-cluster builds after install use it again.
    #[serde(default)]
    pub containerfile: String,
    /// okd-install extension: where on-cluster builds after install push the images they
    /// build (`<registry>/<repository>:<tag>`).
    #[serde(default)]
    pub rendered_image_push_spec: String,
    /// okd-install extension: name of the Secret in openshift-machine-config-operator with
    /// push credentials for renderedImagePushSpec. Create it after install, before the first
    /// on-cluster build.
    #[serde(default)]
    pub rendered_image_push_secret: String,
}

/// okd-install extension: three-node install where one master acts as bootstrap first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BootstrapPivot {
    /// okd-install extension: absolute /dev/... path of the disk the pivoting host installs
    /// itself onto once bootstrapping has finished.
    #[serde(default)]
    pub installation_disk: String,
}

/// Optional cluster capabilities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Capabilities {
    /// The base set of capabilities to enable.
    #[serde(default)]
    pub baseline_capability_set: BaselineCapabilitySet,
    /// Capabilities enabled in addition to the baseline set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_enabled_capabilities: Vec<Capability>,
}

/// A named baseline of capabilities.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum BaselineCapabilitySet {
    /// No optional capability.
    None,
    /// The capabilities of 4.11.
    #[serde(rename = "v4.11")]
    V4_11,
    /// The capabilities of 4.12.
    #[serde(rename = "v4.12")]
    V4_12,
    /// The capabilities of 4.13.
    #[serde(rename = "v4.13")]
    V4_13,
    /// The capabilities of 4.14.
    #[serde(rename = "v4.14")]
    V4_14,
    /// The capabilities of 4.15.
    #[serde(rename = "v4.15")]
    V4_15,
    /// The capabilities of 4.16.
    #[serde(rename = "v4.16")]
    V4_16,
    /// The capabilities of 4.17.
    #[serde(rename = "v4.17")]
    V4_17,
    /// The capabilities of 4.18 (the newest named set a 4.19 release knows).
    #[serde(rename = "v4.18")]
    V4_18,
    /// Every capability of the release being installed (follows upgrades).
    #[default]
    #[serde(rename = "vCurrent")]
    VCurrent,
}

/// An optional cluster capability.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum Capability {
    /// Bare-metal host management (metal3).
    #[serde(rename = "baremetal")]
    Baremetal,
    /// The web console.
    Console,
    /// Insights reporting.
    Insights,
    /// The OperatorHub marketplace (needs OperatorLifecycleManager).
    #[serde(rename = "marketplace")]
    Marketplace,
    /// Cluster storage operator.
    Storage,
    /// The samples operator.
    #[serde(rename = "openshift-samples")]
    OpenshiftSamples,
    /// Volume snapshot controller.
    #[serde(rename = "CSISnapshot")]
    CsiSnapshot,
    /// Node tuning operator.
    NodeTuning,
    /// Machine API.
    #[serde(rename = "MachineAPI")]
    MachineApi,
    /// Builds.
    Build,
    /// DeploymentConfigs.
    DeploymentConfig,
    /// The image registry.
    ImageRegistry,
    /// Operator Lifecycle Manager (v0).
    OperatorLifecycleManager,
    /// Operator Lifecycle Manager v1.
    #[serde(rename = "OperatorLifecycleManagerV1")]
    OperatorLifecycleManagerV1,
    /// Cloud credential operator.
    CloudCredential,
    /// Ingress (cannot be disabled).
    Ingress,
    /// Cloud controller manager.
    CloudControllerManager,
}

/// `pki`: upstream's signer-key settings (see [`InstallConfig::pki`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pki {
    /// Settings of the signer (CA) certificates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signer_certificates: Option<SignerCertificates>,
}

/// `pki.signerCertificates`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SignerCertificates {
    /// The signers' key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<SignerKey>,
}

/// `pki.signerCertificates.key`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SignerKey {
    /// `RSA` or `ECDSA`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    /// RSA settings: `keySize` (2048 to 8192, a multiple of 1024).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rsa: Option<RsaKeySettings>,
    /// ECDSA settings: `curve` (`P256`, `P384` or `P521`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecdsa: Option<EcdsaKeySettings>,
}

/// `pki.signerCertificates.key.rsa`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RsaKeySettings {
    /// Key size in bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_size: Option<u32>,
}

/// `pki.signerCertificates.key.ecdsa`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EcdsaKeySettings {
    /// The curve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve: Option<String>,
}

/// The cluster feature set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum FeatureSet {
    /// The default, supported feature set.
    #[default]
    #[serde(rename = "")]
    Default,
    /// Technology-preview features; the cluster can no longer be upgraded.
    TechPreviewNoUpgrade,
    /// Development-preview features; the cluster can no longer be upgraded.
    DevPreviewNoUpgrade,
    /// Features chosen with featureGates; the cluster can no longer be upgraded.
    CustomNoUpgrade,
}

impl FeatureSet {
    /// True for the default (empty) feature set.
    pub fn is_default(&self) -> bool {
        *self == FeatureSet::Default
    }
}

/// Cluster-wide proxy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Proxy {
    /// Proxy URL for HTTP requests (scheme http).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub http_proxy: String,
    /// Proxy URL for HTTPS requests (scheme http or https).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub https_proxy: String,
    /// Comma-separated destinations that bypass the proxy: `*`, IPs, CIDRs or domains
    /// (a leading `.` matches sub-domains).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub no_proxy: String,
}

/// Deprecated mirror entry (use imageDigestSources).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageContentSource {
    /// Repository that users refer to, e.g. in image pull specifications.
    #[serde(default)]
    pub source: String,
    /// Repositories that may also contain the same images.
    #[serde(default)]
    pub mirrors: Vec<String>,
}

/// A mirror entry matched by image digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageDigestSource {
    /// Repository that users refer to, e.g. in image pull specifications.
    #[serde(default)]
    pub source: String,
    /// Repositories that may also contain the same images.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<String>,
    /// Whether the source may still be contacted when mirrors fail (OKD 4.21 and later;
    /// `NeverContactSource` also blocks the source on the bootstrap host and needs a mirror).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_policy: Option<SourcePolicy>,
}

/// Fallback policy for a mirrored source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SourcePolicy {
    /// Fall back to the source when no mirror answers.
    AllowContactingSource,
    /// Never contact the source.
    NeverContactSource,
}

/// The infrastructure platform. Exactly one key may be set; okd-install implements `none`,
/// `baremetal` and `vsphere`, the other keys are recognised only to explain that they are
/// not supported.
// The section of the file; the platform as a value with its rules is [`Platform`]. Serde
// and the schema keep the name "Platform" users see in messages and `explain`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "Platform", rename_all = "camelCase", deny_unknown_fields)]
pub struct PlatformSection {
    /// No platform integration: user-provided load balancers and DNS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none: Option<NonePlatform>,
    /// Bare-metal hosts (user-provisioned through Ignition with okd-install).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baremetal: Option<BaremetalPlatform>,
    /// VMware vSphere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vsphere: Option<VspherePlatform>,
    /// The platforms okd-install recognises but does not implement, one optional key each
    /// ([`UNSUPPORTED_PLATFORMS`]).
    #[serde(flatten)]
    pub unsupported: UnsupportedPlatforms<false>,
}

/// The `none` platform has no settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NonePlatform {}

impl PlatformSection {
    /// Names of every platform key that is set, in declaration order.
    pub fn set_names(&self) -> Vec<&'static str> {
        let mut names = set_keys(&[
            (Platform::None.name(), self.none.is_some()),
            (Platform::Baremetal.name(), self.baremetal.is_some()),
            (Platform::Vsphere.name(), self.vsphere.is_some()),
        ]);
        names.extend(self.unsupported.set_names());
        names
    }

    /// The VIP-based platform that is set (baremetal before vsphere), if any.
    pub fn vip_platform(&self) -> Option<&dyn VipPlatform> {
        match (&self.baremetal, &self.vsphere) {
            (Some(b), _) => Some(b),
            (_, Some(v)) => Some(v),
            _ => None,
        }
    }

    /// The name of the (first) platform set, or "" when none is set.
    pub fn name(&self) -> &'static str {
        self.set_names().first().copied().unwrap_or("")
    }

    /// The (first) platform set, `None` when it is one okd-install does not implement or
    /// when none is set (validation reports both).
    pub fn kind(&self) -> Option<Platform> {
        Platform::from_name(self.name())
    }
}

impl InstallConfig {
    /// The cluster's DNS names ([`ClusterNames`]): made here, where the install-config is
    /// read, and passed on as they are to the certificates, manifests and templates.
    pub fn names(&self) -> ClusterNames {
        ClusterNames::new(&self.metadata.name, &self.base_domain)
    }

    /// The names of the control-plane pool and of every compute pool, in that order.
    pub fn pool_names(&self) -> Vec<&str> {
        std::iter::once(MASTER_POOL)
            .chain(self.compute.iter().map(|p| p.name.as_str()))
            .collect()
    }

    /// The cluster domain `<metadata.name>.<baseDomain>` used for api, api-int and *.apps.
    pub fn cluster_domain(&self) -> String {
        self.names().cluster_domain
    }

    /// The platform name ("none", "baremetal", "vsphere", ...), "" when unset: for messages,
    /// which also name platforms okd-install does not implement.
    pub fn platform_name(&self) -> &'static str {
        self.platform.name()
    }

    /// The platform, `None` when unset or not implemented (validation reports both).
    pub fn platform_kind(&self) -> Option<Platform> {
        self.platform.kind()
    }

    /// The networking section; present after defaulting.
    pub fn networking(&self) -> &Networking {
        static EMPTY: std::sync::OnceLock<Networking> = std::sync::OnceLock::new();
        self.networking
            .as_ref()
            .unwrap_or_else(|| EMPTY.get_or_init(Networking::default))
    }

    /// API virtual IPs of the platform (empty unless it [serves on
    /// VIPs](Platform::serves_on_vips)).
    pub fn api_vips(&self) -> Vec<String> {
        self.platform_vips(|p| p.api_vips())
    }

    /// The API VIP through which machines reach the Machine Config Server: the first API
    /// VIP. `None` where they use `api-int` (no VIPs, e.g. platform none or vSphere without
    /// VIPs); the bootstrap host runs the on-prem DNS set-up exactly when this is `Some`.
    pub fn machine_config_vip(&self) -> Option<String> {
        self.api_vips().into_iter().next()
    }

    /// Ingress virtual IPs of the platform (empty unless it [serves on
    /// VIPs](Platform::serves_on_vips)).
    pub fn ingress_vips(&self) -> Vec<String> {
        self.platform_vips(|p| p.ingress_vips())
    }

    fn platform_vips(&self, list: fn(&dyn VipPlatform) -> &[IpAddrString]) -> Vec<String> {
        if !self.platform_kind().is_some_and(Platform::serves_on_vips) {
            return Vec::new();
        }
        self.platform
            .vip_platform()
            .map(|p| list(p).iter().map(|v| v.0.clone()).collect())
            .unwrap_or_default()
    }

    /// The control-plane pool; present after defaulting.
    pub fn control_plane(&self) -> Option<&MachinePool> {
        self.control_plane.as_ref()
    }

    /// Control-plane replicas after defaulting (3 when unset).
    pub fn control_plane_replicas(&self) -> i64 {
        self.control_plane
            .as_ref()
            .and_then(|p| p.replicas)
            .unwrap_or(pool::DEFAULT_REPLICAS)
    }

    /// Compute replicas the install-config states, summed over its pools (unset counts 0).
    pub fn compute_replicas(&self) -> i64 {
        self.compute.iter().filter_map(|p| p.replicas).sum()
    }

    /// True when image mode (okd-install extension) is enabled.
    pub fn image_mode_enabled(&self) -> bool {
        self.image_mode.as_ref().is_some_and(|m| m.enabled)
    }
}

/// The keys whose flag is set, in the order given: the keys of a platform section that are
/// present.
pub(crate) fn set_keys(keys: &[(&'static str, bool)]) -> Vec<&'static str> {
    keys.iter()
        .filter(|(_, set)| *set)
        .map(|(k, _)| *k)
        .collect()
}
