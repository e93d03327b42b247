//! The `baremetal` platform.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cidr::{Cidr, IpAddrString};

/// Bare-metal platform settings. okd-install produces Ignition for these hosts; the
/// provisioning fields are kept so that configs written for the upstream installer load.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BaremetalPlatform {
    /// Virtual IPs of the API (one, or one per IP family). Required.
    #[serde(default, rename = "apiVIPs", skip_serializing_if = "Vec::is_empty")]
    pub api_vips: Vec<IpAddrString>,
    /// Virtual IPs of the default ingress (one, or one per IP family). Required.
    #[serde(default, rename = "ingressVIPs", skip_serializing_if = "Vec::is_empty")]
    pub ingress_vips: Vec<IpAddrString>,
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
    /// The hosts of the cluster.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<BaremetalHost>,
    /// How the provisioning network is handled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_network: Option<ProvisioningNetwork>,
    /// The provisioning network.
    #[serde(
        default,
        rename = "provisioningNetworkCIDR",
        skip_serializing_if = "Option::is_none"
    )]
    pub provisioning_network_cidr: Option<Cidr>,
    /// Gateway the hosts get from the provisioning network's DHCP server (OKD 4.22 and
    /// later), for provisioning networks that are routed. Only with provisioningNetwork
    /// Managed: the address must lie in provisioningNetworkCIDR, outside
    /// provisioningDHCPRange, and differ from clusterProvisioningIP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_network_gateway: Option<IpAddrString>,
    /// Interface of the hosts on the provisioning network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_network_interface: Option<String>,
    /// Bridge of the bootstrap host on the provisioning network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_bridge: Option<String>,
    /// MAC address of the provisioning bridge.
    #[serde(
        default,
        rename = "provisioningMACAddress",
        skip_serializing_if = "Option::is_none"
    )]
    pub provisioning_mac_address: Option<String>,
    /// DHCP range on the provisioning network, "start,end".
    #[serde(
        default,
        rename = "provisioningDHCPRange",
        skip_serializing_if = "Option::is_none"
    )]
    pub provisioning_dhcp_range: Option<String>,
    /// Deprecated: use provisioningNetwork: Unmanaged.
    #[serde(
        default,
        rename = "provisioningDHCPExternal",
        skip_serializing_if = "Option::is_none"
    )]
    pub provisioning_dhcp_external: Option<bool>,
    /// Bridge of the bootstrap host on the external network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_bridge: Option<String>,
    /// MAC address of the external bridge.
    #[serde(
        default,
        rename = "externalMACAddress",
        skip_serializing_if = "Option::is_none"
    )]
    pub external_mac_address: Option<String>,
    /// Provisioning IP of the bootstrap host.
    #[serde(
        default,
        rename = "bootstrapProvisioningIP",
        skip_serializing_if = "Option::is_none"
    )]
    pub bootstrap_provisioning_ip: Option<IpAddrString>,
    /// Provisioning IP of the cluster's provisioning service.
    #[serde(
        default,
        rename = "clusterProvisioningIP",
        skip_serializing_if = "Option::is_none"
    )]
    pub cluster_provisioning_ip: Option<IpAddrString>,
    /// Static IP of the bootstrap host on the external network.
    #[serde(
        default,
        rename = "bootstrapExternalStaticIP",
        skip_serializing_if = "Option::is_none"
    )]
    pub bootstrap_external_static_ip: Option<IpAddrString>,
    /// Gateway of the bootstrap host's static IP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap_external_static_gateway: Option<IpAddrString>,
    /// DNS server of the bootstrap host's static IP.
    #[serde(
        default,
        rename = "bootstrapExternalStaticDNS",
        skip_serializing_if = "Option::is_none"
    )]
    pub bootstrap_external_static_dns: Option<IpAddrString>,
    /// OS image URL for the bootstrap VM.
    #[serde(
        default,
        rename = "bootstrapOSImage",
        skip_serializing_if = "Option::is_none"
    )]
    pub bootstrap_os_image: Option<String>,
    /// OS image URL for the cluster hosts.
    #[serde(
        default,
        rename = "clusterOSImage",
        skip_serializing_if = "Option::is_none"
    )]
    pub cluster_os_image: Option<String>,
    /// Deprecated: libvirt URI of the provisioning host.
    #[serde(
        default,
        rename = "libvirtURI",
        skip_serializing_if = "Option::is_none"
    )]
    pub libvirt_uri: Option<String>,
    /// API/ingress load balancer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balancer: Option<LoadBalancer>,
    /// Extra NTP servers for the hosts.
    #[serde(
        default,
        rename = "additionalNTPServers",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub additional_ntp_servers: Vec<String>,
    /// Who serves the api, api-int and ingress DNS records (OKD 4.21 and later). `External`
    /// turns off the records the nodes serve themselves, so the user's DNS server must
    /// have them; it needs a UserManaged load balancer and the OnPremDNSRecords feature gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "Internal"))]
    pub dns_records_type: Option<DnsRecordsType>,
    /// PEM CA bundle used to verify the BMCs' certificates (OKD 4.21 and later).
    #[serde(
        default,
        rename = "bmcVerifyCA",
        skip_serializing_if = "Option::is_none"
    )]
    pub bmc_verify_ca: Option<String>,
    /// Default pool settings (none today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_machine_platform: Option<super::NonePlatform>,
}

/// How the provisioning network is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ProvisioningNetwork {
    /// The cluster runs DHCP on the provisioning network.
    Managed,
    /// The network exists; DHCP is provided by someone else.
    Unmanaged,
    /// No provisioning network.
    Disabled,
}

/// The API/ingress load balancer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoadBalancer {
    /// Who runs the load balancer.
    #[serde(default, rename = "type")]
    pub lb_type: LoadBalancerType,
}

/// Load balancer kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum LoadBalancerType {
    /// keepalived + haproxy on the nodes.
    #[default]
    OpenShiftManagedDefault,
    /// The user provides the load balancer; VIP checks are relaxed.
    UserManaged,
}

/// Who provides the api, api-int and ingress DNS records of an on-premises platform.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum DnsRecordsType {
    /// The nodes serve the records themselves (CoreDNS next to keepalived).
    #[default]
    Internal,
    /// A DNS server outside the cluster has the records and the nodes use it.
    External,
}

impl LoadBalancer {
    /// True for a user-managed load balancer.
    pub fn is_user_managed(lb: &Option<LoadBalancer>) -> bool {
        lb.as_ref()
            .is_some_and(|l| l.lb_type == LoadBalancerType::UserManaged)
    }
}

/// A bare-metal host.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BaremetalHost {
    /// Host name.
    #[serde(default)]
    pub name: String,
    /// What the host becomes. A host without a role fills the first pool that still needs
    /// hosts (control plane, then arbiter, then compute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<HostRole>,
    /// BMC access.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bmc: Option<Bmc>,
    /// MAC address the host boots from.
    #[serde(
        default,
        rename = "bootMACAddress",
        skip_serializing_if = "Option::is_none"
    )]
    pub boot_mac_address: Option<String>,
    /// Hardware profile name (deprecated upstream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware_profile: Option<String>,
    /// Hints to select the root disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_device_hints: Option<RootDeviceHints>,
    /// Boot mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_mode: Option<BootMode>,
    /// NMState network configuration of the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_config: Option<serde_json::Value>,
}

/// The role of a bare-metal host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HostRole {
    /// A control-plane host.
    Master,
    /// A compute host.
    Worker,
    /// The arbiter host of a two-node-with-arbiter cluster.
    Arbiter,
}

/// Host boot mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum BootMode {
    /// UEFI.
    #[serde(rename = "UEFI")]
    Uefi,
    /// UEFI with secure boot.
    #[serde(rename = "UEFISecureBoot")]
    UefiSecureBoot,
    /// Legacy BIOS.
    #[serde(rename = "legacy")]
    Legacy,
}

/// BMC access details.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Bmc {
    /// BMC user.
    #[serde(default)]
    pub username: String,
    /// BMC password.
    #[serde(default)]
    pub password: String,
    /// BMC address, e.g. redfish://10.0.0.5/redfish/v1/Systems/1.
    #[serde(default)]
    pub address: String,
    /// Skip verification of the BMC's TLS certificate.
    #[serde(default)]
    pub disable_certificate_verification: bool,
}

/// Root disk selection hints.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RootDeviceHints {
    /// Device name, e.g. /dev/sda.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_name: Option<String>,
    /// SCSI host:channel:target:lun.
    #[serde(default, rename = "hctl", skip_serializing_if = "Option::is_none")]
    pub hctl: Option<String>,
    /// Model substring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Vendor substring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<String>,
    /// Serial number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial_number: Option<String>,
    /// Minimum size in GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_size_gigabytes: Option<i64>,
    /// World wide name.
    #[serde(default, rename = "wwn", skip_serializing_if = "Option::is_none")]
    pub wwn: Option<String>,
    /// WWN with vendor extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wwn_with_extension: Option<String>,
    /// WWN vendor extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wwn_vendor_extension: Option<String>,
    /// Rotational (spinning) disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotational: Option<bool>,
}
