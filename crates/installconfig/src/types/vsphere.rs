//! The `vsphere` platform.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::baremetal::{DnsRecordsType, LoadBalancer};
use super::cidr::IpAddrString;

/// Default vCenter port.
pub const DEFAULT_VCENTER_PORT: u16 = 443;

/// VMware vSphere settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VspherePlatform {
    /// The vCenter servers the cluster uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vcenters: Vec<VCenter>,
    /// Failure domains (region/zone to datacenter, cluster, datastore and networks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failure_domains: Vec<FailureDomain>,
    /// Virtual IPs of the API (one, or one per IP family).
    #[serde(default, rename = "apiVIPs", skip_serializing_if = "Vec::is_empty")]
    pub api_vips: Vec<IpAddrString>,
    /// Virtual IPs of the default ingress (one, or one per IP family).
    #[serde(default, rename = "ingressVIPs", skip_serializing_if = "Vec::is_empty")]
    pub ingress_vips: Vec<IpAddrString>,
    /// Disk provisioning of the virtual machines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_type: Option<DiskType>,
    /// API/ingress load balancer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balancer: Option<LoadBalancer>,
    /// Who serves the api, api-int and ingress DNS records (OKD 4.21 and later). `External`
    /// turns off the records the nodes serve themselves, so the user's DNS server must
    /// have them; it needs a UserManaged load balancer and the OnPremDNSRecords feature gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "Internal"))]
    pub dns_records_type: Option<DnsRecordsType>,
    /// OS image (OVA) URL used for the virtual machines.
    #[serde(
        default,
        rename = "clusterOSImage",
        skip_serializing_if = "Option::is_none"
    )]
    pub cluster_os_image: Option<String>,
    /// Default settings of every machine pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_machine_platform: Option<VsphereMachinePool>,
    /// Static IP settings of hosts (feature-gated).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<VsphereHost>,
    /// Node networking settings (opaque to okd-install).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_networking: Option<serde_json::Value>,
    /// Deprecated: use vcenters[].server. Converted when read.
    #[serde(default, rename = "vCenter", skip_serializing_if = "Option::is_none")]
    pub deprecated_vcenter: Option<String>,
    /// Deprecated: use vcenters[].user. Converted when read.
    #[serde(default, rename = "username", skip_serializing_if = "Option::is_none")]
    pub deprecated_username: Option<String>,
    /// Deprecated: use vcenters[].password. Converted when read.
    #[serde(default, rename = "password", skip_serializing_if = "Option::is_none")]
    pub deprecated_password: Option<String>,
    /// Deprecated: use failureDomains[].topology.datacenter. Converted when read.
    #[serde(
        default,
        rename = "datacenter",
        skip_serializing_if = "Option::is_none"
    )]
    pub deprecated_datacenter: Option<String>,
    /// Deprecated: use failureDomains[].topology.datastore. Converted when read.
    #[serde(
        default,
        rename = "defaultDatastore",
        skip_serializing_if = "Option::is_none"
    )]
    pub deprecated_default_datastore: Option<String>,
    /// Deprecated: use failureDomains[].topology.folder. Converted when read.
    #[serde(default, rename = "folder", skip_serializing_if = "Option::is_none")]
    pub deprecated_folder: Option<String>,
    /// Deprecated: use failureDomains[].topology.computeCluster. Converted when read.
    #[serde(default, rename = "cluster", skip_serializing_if = "Option::is_none")]
    pub deprecated_cluster: Option<String>,
    /// Deprecated: use failureDomains[].topology.resourcePool. Converted when read.
    #[serde(
        default,
        rename = "resourcePool",
        skip_serializing_if = "Option::is_none"
    )]
    pub deprecated_resource_pool: Option<String>,
    /// Deprecated: use failureDomains[].topology.networks. Converted when read.
    #[serde(default, rename = "network", skip_serializing_if = "Option::is_none")]
    pub deprecated_network: Option<String>,
    /// Deprecated: use apiVIPs. Converted when read.
    #[serde(default, rename = "apiVIP", skip_serializing_if = "Option::is_none")]
    pub api_vip: Option<IpAddrString>,
    /// Deprecated: use ingressVIPs. Converted when read.
    #[serde(
        default,
        rename = "ingressVIP",
        skip_serializing_if = "Option::is_none"
    )]
    pub ingress_vip: Option<IpAddrString>,
}

/// A vCenter server and its credentials.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VCenter {
    /// Fully-qualified host name or IP of the vCenter.
    #[serde(default)]
    pub server: String,
    /// HTTPS port of the vCenter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = DEFAULT_VCENTER_PORT))]
    pub port: Option<u16>,
    /// vCenter user.
    #[serde(default)]
    pub user: String,
    /// vCenter password.
    #[serde(default)]
    pub password: String,
    /// Datacenters of this vCenter the cluster uses.
    #[serde(default)]
    pub datacenters: Vec<String>,
}

/// A failure domain.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FailureDomain {
    /// Name of the failure domain.
    #[serde(default)]
    pub name: String,
    /// Region tag value.
    #[serde(default)]
    pub region: String,
    /// Zone tag value.
    #[serde(default)]
    pub zone: String,
    /// vCenter server of this failure domain (one of vcenters[].server).
    #[serde(default)]
    pub server: String,
    /// Where the virtual machines of this failure domain live.
    #[serde(default)]
    pub topology: Topology,
    /// Object type the region tag is attached to. Set it together with zoneType.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region_type: Option<RegionType>,
    /// Object type the zone tag is attached to. `HostGroup` needs topology.hostGroup and the
    /// VSphereHostVMGroupZonal feature gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_type: Option<ZoneType>,
}

/// What a failure domain's region tag is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RegionType {
    /// A datacenter.
    Datacenter,
    /// A compute cluster (only with zoneType HostGroup).
    ComputeCluster,
}

/// What a failure domain's zone tag is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ZoneType {
    /// A compute cluster.
    ComputeCluster,
    /// A host group inside a compute cluster (feature-gated).
    HostGroup,
}

/// Placement of a failure domain's virtual machines.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Topology {
    /// Datacenter name.
    #[serde(default)]
    pub datacenter: String,
    /// Path of the compute cluster, e.g. /dc1/host/cluster1.
    #[serde(default)]
    pub compute_cluster: String,
    /// Port groups the virtual machines attach to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub networks: Vec<String>,
    /// Path of the datastore, e.g. /dc1/datastore/ds1.
    #[serde(default)]
    pub datastore: String,
    /// Path of the resource pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_pool: Option<String>,
    /// Path of the VM folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// Path of a pre-existing template VM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// Tags attached to the virtual machines (at most 10, each
    /// `urn:vmomi:InventoryServiceTag:<UUID>:GLOBAL`).
    #[serde(default, rename = "tagIDs", skip_serializing_if = "Vec::is_empty")]
    pub tag_ids: Vec<String>,
    /// Host group of the zone, with zoneType HostGroup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_group: Option<String>,
}

/// Disk provisioning of virtual machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DiskType {
    /// Thin provisioning.
    Thin,
    /// Thick provisioning.
    Thick,
    /// Eagerly zeroed thick provisioning.
    EagerZeroedThick,
}

/// vSphere virtual machine settings of a pool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VsphereMachinePool {
    /// Virtual CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<i32>,
    /// Cores per virtual socket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores_per_socket: Option<i32>,
    /// Memory in MiB.
    #[serde(default, rename = "memoryMB", skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<i64>,
    /// Root disk.
    #[serde(default, rename = "osDisk", skip_serializing_if = "Option::is_none")]
    pub os_disk: Option<OsDisk>,
    /// Failure domains the pool's machines are spread over.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<String>,
    /// Additional data disks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub data_disks: Vec<DataDisk>,
}

/// Root disk of a virtual machine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OsDisk {
    /// Size in GiB.
    #[serde(
        default,
        rename = "diskSizeGB",
        skip_serializing_if = "Option::is_none"
    )]
    pub disk_size_gb: Option<i32>,
}

/// An additional disk.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DataDisk {
    /// Name of the disk.
    #[serde(default)]
    pub name: String,
    /// Size in GiB.
    #[serde(default, rename = "sizeGiB")]
    pub size_gib: i32,
}

/// Static IP settings of one vSphere host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VsphereHost {
    /// Which machine this host is: exactly one `bootstrap`, one `control-plane` per
    /// control-plane replica and one `compute` per compute replica.
    pub role: VsphereHostRole,
    /// Failure domain of the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_domain: Option<String>,
    /// Network device settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_device: Option<NetworkDevice>,
}

/// The machine a static-IP vSphere host describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum VsphereHostRole {
    /// The bootstrap machine.
    Bootstrap,
    /// A control-plane machine.
    ControlPlane,
    /// A compute machine.
    Compute,
}

/// Static network device settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NetworkDevice {
    /// Addresses in CIDR form.
    #[serde(default, rename = "ipAddrs")]
    pub ip_addrs: Vec<String>,
    /// IPv4 gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<String>,
    /// DNS servers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nameservers: Vec<String>,
}
