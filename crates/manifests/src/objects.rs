//! Serde types for the OpenShift objects this crate writes.
//!
//! k8s-openapi has no OpenShift types, so the config.openshift.io, machineconfiguration and
//! metal3 objects are modelled here with only the fields we emit. They reject unknown fields
//! so that tests reading our output back catch typos in field names.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

/// A Kubernetes object with a spec and an optional status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    bound(deserialize = "S: Deserialize<'de>, T: Deserialize<'de>")
)]
pub struct Object<S, T = NoStatus> {
    /// `group/version`.
    pub api_version: String,
    /// Kind.
    pub kind: String,
    /// Metadata.
    pub metadata: ObjectMeta,
    /// Desired state.
    pub spec: S,
    /// Observed state (config objects seeded by the installer carry one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<T>,
}

/// Placeholder status type for objects that never carry one.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoStatus {}

/// Group/version of the cluster config API.
pub const CONFIG_V1: &str = "config.openshift.io/v1";
/// Group/version of MachineConfig and MachineOSConfig.
pub const MCO_V1: &str = "machineconfiguration.openshift.io/v1";

impl<S, T> Object<S, T> {
    /// A cluster-scoped object named `name`.
    pub fn cluster_scoped(api_version: &str, kind: &str, name: &str, spec: S) -> Self {
        Object {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            metadata: ObjectMeta {
                name: Some(name.to_string()),
                ..ObjectMeta::default()
            },
            spec,
            status: None,
        }
    }
}

/// Infrastructure `cluster`.
pub type Infrastructure = Object<InfrastructureSpec, InfrastructureStatus>;

/// Infrastructure spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InfrastructureSpec {
    /// Reference to the cloud config ConfigMap (empty name when there is none).
    pub cloud_config: ConfigMapFileReference,
    /// Platform-specific desired configuration.
    pub platform_spec: PlatformSpec,
}

/// `{name, key}` reference to a ConfigMap key.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConfigMapFileReference {
    /// ConfigMap name (in openshift-config).
    pub name: String,
    /// Key inside it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
}

/// `spec.platformSpec`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlatformSpec {
    /// `None`, `BareMetal` or `VSphere`.
    #[serde(rename = "type")]
    pub type_: String,
    /// Bare-metal spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baremetal: Option<VipSpec>,
    /// vSphere spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vsphere: Option<VSpherePlatformSpec>,
}

/// VIPs and machine networks as declared in a platform spec.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VipSpec {
    /// API VIPs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub api_server_internal_i_ps: Vec<String>,
    /// Ingress VIPs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ingress_i_ps: Vec<String>,
    /// Machine network CIDRs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub machine_networks: Vec<String>,
}

/// vSphere platform spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VSpherePlatformSpec {
    /// VIPs and machine networks.
    #[serde(flatten)]
    pub vips: VipSpec,
    /// vCenters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vcenters: Vec<VSphereVCenter>,
    /// Failure domains.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failure_domains: Vec<VSphereFailureDomain>,
    /// Node networking (machine networks as external and internal subnets).
    pub node_networking: VSphereNodeNetworking,
}

/// One vCenter in the Infrastructure spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VSphereVCenter {
    /// Server.
    pub server: String,
    /// Port.
    pub port: u16,
    /// Datacenters.
    pub datacenters: Vec<String>,
}

/// One vSphere failure domain in the Infrastructure spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VSphereFailureDomain {
    /// Name.
    pub name: String,
    /// Region.
    pub region: String,
    /// Zone.
    pub zone: String,
    /// vCenter server.
    pub server: String,
    /// Placement.
    pub topology: VSphereTopology,
}

/// Placement of a vSphere failure domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VSphereTopology {
    /// Datacenter.
    pub datacenter: String,
    /// Compute cluster.
    pub compute_cluster: String,
    /// Networks.
    pub networks: Vec<String>,
    /// Datastore.
    pub datastore: String,
    /// Resource pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_pool: Option<String>,
    /// Folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// VM template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
}

/// vSphere node networking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VSphereNodeNetworking {
    /// Subnets for external node addresses.
    pub external: NetworkSubnets,
    /// Subnets for internal node addresses.
    pub internal: NetworkSubnets,
}

/// A list of subnets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NetworkSubnets {
    /// CIDRs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network_subnet_cidr: Vec<String>,
}

/// Infrastructure status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InfrastructureStatus {
    /// InfraID.
    pub infrastructure_name: String,
    /// `https://api.<domain>:6443`.
    #[serde(rename = "apiServerURL")]
    pub api_server_url: String,
    /// `https://api-int.<domain>:6443`.
    #[serde(rename = "apiServerInternalURI")]
    pub api_server_internal_uri: String,
    /// Legacy platform name.
    pub platform: String,
    /// Platform status.
    pub platform_status: PlatformStatus,
    /// `SingleReplica`, `DualReplica`, `HighlyAvailable` or `HighlyAvailableArbiter`.
    pub control_plane_topology: String,
    /// `SingleReplica` or `HighlyAvailable`.
    pub infrastructure_topology: String,
    /// `None` or `AllNodes`.
    pub cpu_partitioning: String,
}

/// `status.platformStatus`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlatformStatus {
    /// Platform type.
    #[serde(rename = "type")]
    pub type_: String,
    /// Bare-metal status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baremetal: Option<VipStatus>,
    /// vSphere status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vsphere: Option<VipStatus>,
}

/// VIP-based platform status (bare metal and vSphere share the shape).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VipStatus {
    /// First API VIP (deprecated singular field, still read by older components).
    #[serde(
        rename = "apiServerInternalIP",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub api_server_internal_ip: Option<String>,
    /// All API VIPs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub api_server_internal_i_ps: Vec<String>,
    /// `Internal` or `External`: whether the nodes serve the api, api-int and ingress
    /// records themselves (bare metal from OKD 4.21; the machine-config operator reads it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns_records_type: Option<String>,
    /// First ingress VIP (deprecated singular field).
    #[serde(rename = "ingressIP", default, skip_serializing_if = "Option::is_none")]
    pub ingress_ip: Option<String>,
    /// All ingress VIPs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ingress_i_ps: Vec<String>,
    /// Load balancer ownership, when the user chose it (the API defaults it to
    /// `OpenShiftManagedDefault`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balancer: Option<LoadBalancer>,
    /// Machine network CIDRs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub machine_networks: Vec<String>,
}

/// `loadBalancer.type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoadBalancer {
    /// `OpenShiftManagedDefault` or `UserManaged`.
    #[serde(rename = "type")]
    pub type_: String,
}

/// DNS `cluster`.
pub type Dns = Object<DnsSpec>;

/// DNS spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DnsSpec {
    /// The cluster domain.
    pub base_domain: String,
}

/// Ingress `cluster`.
pub type Ingress = Object<IngressSpec, IngressStatus>;

/// Ingress spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngressSpec {
    /// `apps.<cluster-domain>`.
    pub domain: String,
}

/// Ingress status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngressStatus {
    /// `Workers` or `ControlPlane`.
    pub default_placement: String,
}

/// Network `cluster` (config API).
pub type Network = Object<NetworkSpec>;

/// Network spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NetworkSpec {
    /// Pod networks.
    pub cluster_network: Vec<ClusterNetwork>,
    /// Service networks.
    pub service_network: Vec<String>,
    /// Network plugin.
    pub network_type: String,
    /// Which Service externalIPs are allowed; the empty policy the installer writes blocks
    /// them all.
    #[serde(rename = "externalIP")]
    pub external_ip: ExternalIpConfig,
}

/// `spec.externalIP` of the Network config.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExternalIpConfig {
    /// The policy (empty: no externalIP is allowed).
    pub policy: ExternalIpPolicy,
}

/// `spec.externalIP.policy`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExternalIpPolicy {
    /// Allowed CIDRs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_cidrs: Vec<String>,
    /// Rejected CIDRs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected_cidrs: Vec<String>,
}

/// Group/version of the operator configuration API.
pub const OPERATOR_V1: &str = "operator.openshift.io/v1";

/// Network `cluster` of the cluster network operator (operator.openshift.io/v1).
pub type OperatorNetwork = Object<OperatorNetworkSpec>;

/// Operator Network spec: the subset the installer sets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OperatorNetworkSpec {
    /// `Managed`.
    pub management_state: String,
    /// Pod networks (the same as in the config API Network).
    pub cluster_network: Vec<ClusterNetwork>,
    /// Service networks.
    pub service_network: Vec<String>,
    /// The default pod network.
    pub default_network: DefaultNetwork,
}

/// `spec.defaultNetwork`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefaultNetwork {
    /// `OVNKubernetes`.
    #[serde(rename = "type")]
    pub type_: String,
    /// OVN-Kubernetes settings.
    pub ovn_kubernetes_config: OvnKubernetesConfig,
}

/// `spec.defaultNetwork.ovnKubernetesConfig`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OvnKubernetesConfig {
    /// IPv4 settings.
    pub ipv4: OvnIpv4Config,
}

/// `ovnKubernetesConfig.ipv4`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OvnIpv4Config {
    /// The join subnet OVN uses between its routers.
    pub internal_join_subnet: String,
}

/// One pod network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterNetwork {
    /// CIDR.
    pub cidr: String,
    /// Per-node prefix.
    pub host_prefix: u8,
}

/// Proxy `cluster`.
pub type ProxyObject = Object<ProxySpec, ProxyStatus>;

/// Proxy spec (empty when no proxy is configured).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProxySpec {
    /// HTTP proxy URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_proxy: Option<String>,
    /// HTTPS proxy URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub https_proxy: Option<String>,
    /// User noProxy, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_proxy: Option<String>,
    /// ConfigMap holding extra trusted CAs.
    #[serde(rename = "trustedCA", default, skip_serializing_if = "Option::is_none")]
    pub trusted_ca: Option<ConfigMapNameReference>,
}

/// `{name}` reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigMapNameReference {
    /// ConfigMap name in openshift-config.
    pub name: String,
}

/// Proxy status.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProxyStatus {
    /// HTTP proxy URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_proxy: Option<String>,
    /// HTTPS proxy URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub https_proxy: Option<String>,
    /// Computed noProxy list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_proxy: Option<String>,
}

/// Scheduler `cluster`.
pub type Scheduler = Object<SchedulerSpec>;

/// Scheduler spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SchedulerSpec {
    /// Whether control-plane nodes accept ordinary workloads.
    pub masters_schedulable: bool,
}

/// ClusterVersion `version`.
pub type ClusterVersion = Object<ClusterVersionSpec>;

/// ClusterVersion spec. `overrides` is kept as raw JSON so user entries survive unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterVersionSpec {
    /// Update channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Update-graph URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    /// ClusterID.
    #[serde(rename = "clusterID")]
    pub cluster_id: String,
    /// Enabled capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<ClusterVersionCapabilities>,
    /// Component overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overrides: Option<Vec<serde_json::Value>>,
    /// Anything else a user added (desiredUpdate, signatureStores, ...), kept verbatim.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// ClusterVersion capabilities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterVersionCapabilities {
    /// Baseline set.
    pub baseline_capability_set: String,
    /// Extra capabilities.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_enabled_capabilities: Vec<String>,
}

/// The alpha config group, home of the PKI resource.
pub const CONFIG_V1ALPHA1: &str = "config.openshift.io/v1alpha1";

/// PKI `cluster`.
pub type Pki = Object<PkiSpec>;

/// PKI spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PkiSpec {
    /// How certificates are managed.
    pub certificate_management: PkiCertificateManagement,
}

/// PKI certificate management: a mode, and the profile when the mode is `Custom`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PkiCertificateManagement {
    /// `Default` or `Custom` (the installer never writes `Unmanaged`).
    pub mode: String,
    /// The profile, present exactly when `mode` is `Custom`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<PkiProfile>,
}

/// A PKI profile: the key for every certificate, and for the signers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PkiProfile {
    /// What every certificate gets unless its category says otherwise.
    pub defaults: PkiCertificateConfig,
    /// What the signer (CA) certificates get.
    pub signer_certificates: PkiCertificateConfig,
}

/// The settings of a class of certificates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PkiCertificateConfig {
    /// Their key.
    pub key: PkiKeyConfig,
}

/// A key as the PKI resource spells it: the algorithm, and the settings of that algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PkiKeyConfig {
    /// `RSA` or `ECDSA`.
    pub algorithm: String,
    /// RSA's settings, exactly when the algorithm is RSA.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rsa: Option<PkiRsaKey>,
    /// ECDSA's settings, exactly when the algorithm is ECDSA.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecdsa: Option<PkiEcdsaKey>,
}

/// RSA key settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PkiRsaKey {
    /// Bits.
    pub key_size: u32,
}

/// ECDSA key settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PkiEcdsaKey {
    /// `P256`, `P384` or `P521`.
    pub curve: String,
}

/// FeatureGate `cluster`.
pub type FeatureGate = Object<FeatureGateSpec>;

/// FeatureGate spec.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FeatureGateSpec {
    /// Feature set; absent means Default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_set: Option<String>,
    /// Custom gates (CustomNoUpgrade only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_no_upgrade: Option<CustomFeatureGates>,
}

/// Custom feature gates.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomFeatureGates {
    /// Gates switched on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enabled: Vec<String>,
    /// Gates switched off.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled: Vec<String>,
}

/// ImageDigestMirrorSet.
pub type ImageDigestMirrorSet = Object<ImageDigestMirrorSetSpec>;

/// ImageDigestMirrorSet spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageDigestMirrorSetSpec {
    /// Mirror rules.
    pub image_digest_mirrors: Vec<ImageDigestMirrors>,
}

/// One mirror rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageDigestMirrors {
    /// Source repository.
    pub source: String,
    /// Mirrors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<String>,
    /// Fallback policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mirror_source_policy: Option<String>,
}

/// MachineConfig.
pub type MachineConfig = Object<MachineConfigSpec>;

/// MachineConfig spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MachineConfigSpec {
    /// Ignition config (kept as JSON so any spec version round-trips).
    pub config: serde_json::Value,
    /// Enable FIPS mode.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fips: bool,
    /// Extra kernel arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kernel_arguments: Vec<String>,
    /// OS image of the pool; the last MachineConfig (by name) that sets one wins over the
    /// release's base OS image when the MCO renders the pool's config.
    #[serde(
        default,
        rename = "osImageURL",
        skip_serializing_if = "Option::is_none"
    )]
    pub os_image_url: Option<String>,
}

/// metal3 Provisioning `provisioning-configuration`.
pub type Provisioning = Object<ProvisioningSpec>;

/// Provisioning spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProvisioningSpec {
    /// `Managed`, `Unmanaged` or `Disabled`.
    pub provisioning_network: String,
    /// NTP servers handed to the hosts while they are provisioned.
    #[serde(
        rename = "additionalNTPServers",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub additional_ntp_servers: Vec<String>,
    /// Interface on the control-plane hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_interface: Option<String>,
    /// Address of the cluster's provisioning services.
    #[serde(
        rename = "provisioningIP",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub provisioning_ip: Option<String>,
    /// Provisioning network CIDR.
    #[serde(
        rename = "provisioningNetworkCIDR",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub provisioning_network_cidr: Option<String>,
    /// Gateway the DHCP server hands out on a managed provisioning network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_network_gateway: Option<String>,
    /// DHCP range.
    #[serde(
        rename = "provisioningDHCPRange",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub provisioning_dhcp_range: Option<String>,
    /// OS image URL.
    #[serde(
        rename = "provisioningOSDownloadURL",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub provisioning_os_download_url: Option<String>,
    /// Watch BareMetalHosts in every namespace (the installer leaves it off).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub watch_all_namespaces: bool,
}

/// The metadata of a namespaced object: its namespace and name, nothing else.
pub(crate) fn meta(namespace: &str, name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: Some(namespace.to_string()),
        ..ObjectMeta::default()
    }
}
