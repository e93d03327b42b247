//! The `networking` section.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cidr::Cidr;

/// Default network plugin.
pub const DEFAULT_NETWORK_TYPE: &str = "OVNKubernetes";
/// Default pod network.
pub const DEFAULT_CLUSTER_NETWORK: &str = "10.128.0.0/14";
/// Default per-node pod subnet size.
pub const DEFAULT_HOST_PREFIX: i32 = 23;
/// Default machine network.
pub const DEFAULT_MACHINE_NETWORK: &str = "10.0.0.0/16";
/// Default service network.
pub const DEFAULT_SERVICE_NETWORK: &str = "172.30.0.0/16";

/// Cluster networking.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Networking {
    /// The network plugin. Only OVNKubernetes is supported.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(extend("default" = DEFAULT_NETWORK_TYPE))]
    pub network_type: String,
    /// Networks the nodes' addresses come from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = [{"cidr": DEFAULT_MACHINE_NETWORK}]))]
    pub machine_network: Vec<MachineNetworkEntry>,
    /// Networks pod IPs are allocated from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = [{"cidr": DEFAULT_CLUSTER_NETWORK, "hostPrefix": DEFAULT_HOST_PREFIX}]))]
    pub cluster_network: Vec<ClusterNetworkEntry>,
    /// Networks service IPs are allocated from: one entry, or one per IP family for
    /// dual-stack.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = [DEFAULT_SERVICE_NETWORK]))]
    pub service_network: Vec<Cidr>,
    /// MTU of the cluster network (AWS only; rejected on other platforms).
    #[serde(
        default,
        rename = "clusterNetworkMTU",
        skip_serializing_if = "Option::is_none"
    )]
    pub cluster_network_mtu: Option<u32>,
    /// OVN-Kubernetes specific settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_kubernetes_config: Option<OvnKubernetesConfig>,
    /// Deprecated: use machineNetwork. Converted when read.
    #[serde(
        default,
        rename = "machineCIDR",
        skip_serializing_if = "Option::is_none"
    )]
    pub machine_cidr: Option<Cidr>,
    /// Deprecated: use serviceNetwork. Converted when read.
    #[serde(
        default,
        rename = "serviceCIDR",
        skip_serializing_if = "Option::is_none"
    )]
    pub service_cidr: Option<Cidr>,
    /// Deprecated: use networkType. Converted when read.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub deprecated_type: Option<String>,
    /// Deprecated: use clusterNetwork. Converted when read (hostSubnetLength n becomes
    /// hostPrefix 32-n).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_networks: Vec<DeprecatedClusterNetworkEntry>,
}

/// A machine network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MachineNetworkEntry {
    /// The network, e.g. 10.0.0.0/16.
    pub cidr: Cidr,
}

/// A pod network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterNetworkEntry {
    /// The network pod IPs come from, e.g. 10.128.0.0/14.
    pub cidr: Cidr,
    /// Prefix length of the subnet each node gets (23 gives 510 pod IPs per node; 64 for
    /// IPv6). Set it on every entry you write: an omitted value is 0, which OVNKubernetes
    /// rejects.
    #[serde(default)]
    pub host_prefix: i32,
}

/// Deprecated pod network entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeprecatedClusterNetworkEntry {
    /// The network pod IPs come from.
    pub cidr: Cidr,
    /// Host bits of each node's subnet (32 minus the host prefix for IPv4).
    #[serde(default)]
    pub host_subnet_length: u32,
}

/// OVN-Kubernetes settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OvnKubernetesConfig {
    /// IPv4 settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv4: Option<OvnIpv4Config>,
}

/// IPv4 settings of OVN-Kubernetes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OvnIpv4Config {
    /// The join subnet OVN uses internally; must not overlap any other network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "100.64.0.0/16"))]
    pub internal_join_subnet: Option<Cidr>,
}
