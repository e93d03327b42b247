//! The plain input record for manifest generation.
//!
//! This crate does not depend on the install-config crate: the caller maps the defaulted,
//! validated install config (plus the ids, certificates and pointer configs produced by other
//! assets) onto [`ManifestInputs`]. Every field here is read by some generator; nothing is
//! carried "just in case".

use std::net::IpAddr;

use contract::ClusterNames;
use ipnet::IpNet;
use serde::{Deserialize, Serialize};

/// Everything `create manifests` needs to render `manifests/` and `openshift/`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ManifestInputs {
    /// The cluster's names (`metadata.name`, `baseDomain`, the cluster domain, `api.` and
    /// `api-int.`) as the install-config asset made them.
    pub names: ClusterNames,
    /// The target platform and its manifest-relevant settings.
    pub platform: Platform,
    /// Cluster, service and machine networks.
    pub networking: Networking,
    /// Cluster-wide proxy, if any.
    #[serde(default)]
    pub proxy: Option<Proxy>,
    /// PEM bundle from `additionalTrustBundle`.
    #[serde(default)]
    pub additional_trust_bundle: Option<String>,
    /// `additionalTrustBundlePolicy`.
    #[serde(default)]
    pub trust_bundle_policy: TrustBundlePolicy,
    /// The pull secret JSON, exactly as the user gave it.
    pub pull_secret: String,
    /// `sshKey`: one or more authorized_keys lines, kept as a single entry.
    #[serde(default)]
    pub ssh_key: Option<String>,
    /// `fips: true`.
    #[serde(default)]
    pub fips: bool,
    /// The control-plane pool (`name` is ignored; the role is always `master`).
    pub control_plane: Pool,
    /// Compute pools (role `worker`).
    #[serde(default)]
    pub compute: Vec<Pool>,
    /// The arbiter pool of a two-node-with-arbiter cluster.
    #[serde(default)]
    pub arbiter: Option<Pool>,
    /// `capabilities`, passed to the ClusterVersion.
    #[serde(default)]
    pub capabilities: Option<Capabilities>,
    /// `featureSet`; empty means the default set.
    #[serde(default)]
    pub feature_set: String,
    /// `featureGates` entries of the form `Name=true|false` (CustomNoUpgrade only).
    #[serde(default)]
    pub feature_gates: Vec<String>,
    /// `imageDigestSources`.
    #[serde(default)]
    pub image_digest_sources: Vec<ImageDigestSource>,
    /// `cpuPartitioningMode: AllNodes`.
    #[serde(default)]
    pub cpu_partitioning_all_nodes: bool,
    /// The cluster PKI resource's certificate management; `None` where the release has no
    /// such resource or its ConfigurablePKI gate is off (no manifest then).
    #[serde(default)]
    pub pki: Option<PkiManagement>,
    /// The defaulted install config as YAML, pull secret blanked and platform credentials
    /// removed; stored verbatim in `cluster-config.yaml`.
    pub install_config_redacted_yaml: String,
    /// ClusterID (UUID v4 string).
    pub cluster_id: String,
    /// InfraID (`<sanitized name>-<5 chars>`).
    pub infra_id: String,
    /// Certificates and keys that appear in manifests.
    pub tls: TlsInputs,
    /// bcrypt hash of the kubeadmin password.
    pub kubeadmin_password_hash: String,
    /// `master.ign` pointer config JSON.
    pub master_pointer_ign: String,
    /// `worker.ign` pointer config JSON.
    pub worker_pointer_ign: String,
    /// Release-derived update settings for the ClusterVersion.
    pub release: ReleaseInfo,
    /// Installer version string for `openshift-install-manifests`.
    pub installer_version: String,
    /// Who ran the installer (`OPENSHIFT_INSTALL_INVOKER`, default `user`).
    pub invoker: String,
}

/// How the cluster's PKI resource (`config.openshift.io/v1alpha1` `PKI`) manages the
/// certificates the operators make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", deny_unknown_fields)]
pub enum PkiManagement {
    /// The release's recommended profile.
    Default,
    /// The recommended profile with the signers' key the install-config chose.
    Custom {
        /// The signer certificates' key.
        signer: PkiKey,
    },
}

/// A key of the PKI resource's profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum PkiKey {
    /// RSA of `key_size` bits.
    #[serde(rename_all = "camelCase")]
    Rsa {
        /// Bits.
        key_size: u32,
    },
    /// ECDSA on `curve` (`P256`, `P384` or `P521`).
    Ecdsa {
        /// The curve's name as the resource spells it.
        curve: String,
    },
}

/// The platforms this crate renders manifests for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum Platform {
    /// `platform: none` (user-provisioned, no integration).
    None,
    /// `platform: baremetal`.
    BareMetal(BareMetal),
    /// `platform: vsphere`.
    VSphere(VSphere),
}

/// Bare-metal settings used by the Infrastructure and Provisioning manifests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BareMetal {
    /// `apiVIPs` (1 or 2).
    pub api_vips: Vec<IpAddr>,
    /// `ingressVIPs` (1 or 2).
    pub ingress_vips: Vec<IpAddr>,
    /// `loadBalancer.type`, when the user set it.
    #[serde(default)]
    pub load_balancer: Option<LoadBalancerType>,
    /// `dnsRecordsType` for the Infrastructure status: set (defaulted to `Internal`) on
    /// releases that have the field, `None` before, where the status has no such field.
    #[serde(default)]
    pub dns_records_type: Option<DnsRecordsType>,
    /// Provisioning-network settings for the metal3 `Provisioning` object.
    #[serde(default)]
    pub provisioning: BareMetalProvisioning,
}

/// Who runs the API and ingress load balancer (`platform.<p>.loadBalancer.type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoadBalancerType {
    /// keepalived and haproxy on the nodes, managed by the MCO.
    OpenShiftManagedDefault,
    /// The user's own load balancer; the MCO must not run keepalived/haproxy.
    UserManaged,
}

/// Who serves the api, api-int and ingress DNS records (`platform.<p>.dnsRecordsType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DnsRecordsType {
    /// The nodes' own CoreDNS, rendered by the MCO.
    Internal,
    /// The user's DNS server; the MCO leaves the records out.
    External,
}

/// `provisioningNetwork` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ProvisioningNetwork {
    /// The cluster runs DHCP on a dedicated provisioning network.
    #[default]
    Managed,
    /// A provisioning network exists but DHCP is external.
    Unmanaged,
    /// No provisioning network (virtual media only).
    Disabled,
}

/// Bare-metal provisioning-network settings (all optional except the mode).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BareMetalProvisioning {
    /// `provisioningNetwork`.
    #[serde(default)]
    pub network: ProvisioningNetwork,
    /// `provisioningNetworkCIDR`.
    #[serde(default)]
    pub network_cidr: Option<IpNet>,
    /// `provisioningNetworkInterface`.
    #[serde(default)]
    pub interface: Option<String>,
    /// `clusterProvisioningIP`.
    #[serde(default)]
    pub cluster_provisioning_ip: Option<IpAddr>,
    /// `provisioningNetworkGateway` (managed networks, OKD 4.22 and later).
    #[serde(default)]
    pub gateway: Option<IpAddr>,
    /// `provisioningDHCPRange` (`start,end`).
    #[serde(default)]
    pub dhcp_range: Option<String>,
    /// `clusterOSImage` (download URL of the OS image for hosts).
    #[serde(default)]
    pub os_download_url: Option<String>,
    /// `additionalNTPServers`.
    #[serde(default)]
    pub additional_ntp_servers: Vec<String>,
}

/// vSphere settings that end up in the Infrastructure object (no credentials).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VSphere {
    /// `apiVIPs` (empty when an external load balancer is used without VIPs).
    #[serde(default)]
    pub api_vips: Vec<IpAddr>,
    /// `ingressVIPs`.
    #[serde(default)]
    pub ingress_vips: Vec<IpAddr>,
    /// `loadBalancer.type`, when the user set it.
    #[serde(default)]
    pub load_balancer: Option<LoadBalancerType>,
    /// vCenters (servers and datacenters only; credentials are in `credentials`).
    #[serde(default)]
    pub vcenters: Vec<VCenter>,
    /// The user and password of every vCenter, for the `kube-system/vsphere-creds` secret.
    #[serde(default)]
    pub credentials: Vec<VCenterCredentials>,
    /// Failure domains.
    #[serde(default)]
    pub failure_domains: Vec<FailureDomain>,
    /// The VSphereMultiNetworks feature gate is on: the node networking is derived from the
    /// machine networks.
    #[serde(default)]
    pub multi_networks: bool,
}

/// The credentials of one vCenter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VCenterCredentials {
    /// Host name or address of the vCenter (the key prefix in the secret).
    pub server: String,
    /// vCenter user.
    pub username: String,
    /// vCenter password.
    pub password: SecretString,
}

/// A secret value: kept as text for rendering, but `Debug` never prints it, so a logged or
/// panicking `ManifestInputs` does not leak it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SecretString(pub String);

impl std::fmt::Debug for SecretString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// One vCenter as the cluster should know it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VCenter {
    /// Host name or address.
    pub server: String,
    /// Port (443 by default upstream).
    pub port: u16,
    /// Datacenters used by the cluster.
    pub datacenters: Vec<String>,
}

/// One vSphere failure domain: the Infrastructure object's own shape; a domain without a
/// template gets the installer's default path at generation.
pub type FailureDomain = crate::objects::VSphereFailureDomain;

/// Networking settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Networking {
    /// `networkType` (OVNKubernetes by default).
    pub network_type: String,
    /// `clusterNetwork` entries.
    pub cluster_network: Vec<ClusterNetworkEntry>,
    /// `serviceNetwork`; two entries mean dual-stack.
    pub service_network: Vec<IpNet>,
    /// `machineNetwork` CIDRs.
    pub machine_network: Vec<IpNet>,
    /// `ovnKubernetesConfig.ipv4.internalJoinSubnet`, when the user set it.
    #[serde(default)]
    pub ovn_internal_join_subnet: Option<IpNet>,
}

/// One `clusterNetwork` entry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterNetworkEntry {
    /// Pod CIDR.
    pub cidr: IpNet,
    /// Per-node prefix length.
    pub host_prefix: u8,
}

/// The install-config `proxy` block.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Proxy {
    /// `httpProxy`.
    #[serde(default)]
    pub http_proxy: Option<String>,
    /// `httpsProxy`.
    #[serde(default)]
    pub https_proxy: Option<String>,
    /// `noProxy` as the user wrote it (comma separated).
    #[serde(default)]
    pub no_proxy: Option<String>,
}

/// `additionalTrustBundlePolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum TrustBundlePolicy {
    /// Use the bundle cluster-wide only when a proxy is configured.
    #[default]
    Proxyonly,
    /// Always use the bundle cluster-wide.
    Always,
}

/// A machine pool, reduced to what manifests need.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pool {
    /// Pool name (`master`, `worker`, `arbiter` or a custom compute pool name).
    pub name: String,
    /// Replica count after defaulting.
    pub replicas: u32,
    /// `hyperthreading: Disabled`.
    #[serde(default)]
    pub hyperthreading_disabled: bool,
}

/// The install-config `capabilities` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Capabilities {
    /// `baselineCapabilitySet`.
    pub baseline_capability_set: String,
    /// `additionalEnabledCapabilities`.
    #[serde(default)]
    pub additional_enabled_capabilities: Vec<String>,
}

/// One `imageDigestSources` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageDigestSource {
    /// Repository being mirrored.
    pub source: String,
    /// Mirror repositories in preference order.
    #[serde(default)]
    pub mirrors: Vec<String>,
    /// `sourcePolicy` (`AllowContactingSource` / `NeverContactSource`), if set.
    #[serde(default)]
    pub source_policy: Option<String>,
}

/// PEM material that manifests embed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TlsInputs {
    /// Root CA certificate (signs the MCS certificate).
    pub root_ca_cert_pem: String,
    /// Root CA private key (shipped so the MCO can rotate the MCS certificate).
    pub root_ca_key_pem: String,
    /// Machine-config-server serving certificate.
    pub mcs_cert_pem: String,
    /// Machine-config-server serving key.
    pub mcs_key_pem: String,
}

/// Update settings derived from the release image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleaseInfo {
    /// `spec.channel` of the ClusterVersion (e.g. `stable-4.19` or `stable-scos-4`).
    pub channel: String,
    /// `spec.upstream` update-graph URL (OKD sets one; OCP leaves it to the default).
    #[serde(default)]
    pub upstream: Option<String>,
}

impl ManifestInputs {
    /// `<cluster_name>.<base_domain>`.
    pub fn cluster_domain(&self) -> &str {
        &self.names.cluster_domain
    }

    /// Sum of replicas over all compute pools.
    pub fn compute_replicas(&self) -> u32 {
        self.compute.iter().map(|p| p.replicas).sum()
    }

    /// Whether a proxy with an HTTP or HTTPS endpoint is configured.
    pub fn proxy_enabled(&self) -> bool {
        self.proxy.as_ref().is_some_and(|p| {
            p.http_proxy.as_deref().is_some_and(|s| !s.is_empty())
                || p.https_proxy.as_deref().is_some_and(|s| !s.is_empty())
        })
    }
}
