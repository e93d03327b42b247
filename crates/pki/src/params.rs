//! Cluster facts the certificates depend on (names, service networks, VIPs).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use contract::ClusterNames;

use crate::spec::SanRule;

/// The install-config values that end up in certificate SANs and kubeconfig URLs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterParams {
    /// The cluster's names as the install-config asset made them: `cluster_name` is the
    /// kubeconfigs' cluster name, `api` and `api_int` the SANs and kubeconfig URLs.
    pub names: ClusterNames,
    /// `networking.serviceNetwork`, in order; each contributes its first host address.
    pub service_networks: Vec<IpNet>,
    /// `platform.<p>.apiVIPs`; set only on platforms that own their VIPs (baremetal, nutanix,
    /// openstack, ovirt, vsphere), empty elsewhere.
    pub api_vips: Vec<IpAddr>,
}

/// One subject alternative name, in certificate order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum San {
    /// A dNSName entry.
    Dns(String),
    /// An iPAddress entry.
    Ip(IpAddr),
}

const SERVICE_NAMES: &[&str] = &[
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
    "openshift",
    "openshift.default",
    "openshift.default.svc",
    "openshift.default.svc.cluster.local",
];

impl ClusterParams {
    /// `<cluster_name>.<base_domain>`.
    pub fn cluster_domain(&self) -> &str {
        &self.names.cluster_domain
    }

    /// `api.<cluster-domain>`, the external API name.
    pub fn api_host(&self) -> &str {
        &self.names.api
    }

    /// `api-int.<cluster-domain>`, the internal API name.
    pub fn api_int_host(&self) -> &str {
        &self.names.api_int
    }

    /// The SANs `rule` yields for this cluster: DNS names first, then IPs, the order Go's
    /// x509 package writes them in.
    pub fn sans(&self, rule: SanRule) -> Vec<San> {
        let dns = |names: &[&str]| names.iter().map(|n| San::Dns((*n).to_string())).collect();
        match rule {
            SanRule::None => Vec::new(),
            SanRule::Localhost => vec![
                San::Dns("localhost".into()),
                San::Ip(IpAddr::V4(Ipv4Addr::LOCALHOST)),
                San::Ip(IpAddr::V6(Ipv6Addr::LOCALHOST)),
            ],
            SanRule::ServiceNetwork => {
                let mut sans: Vec<San> = dns(SERVICE_NAMES);
                sans.extend(self.service_networks.iter().map(|n| San::Ip(first_host(n))));
                sans
            }
            SanRule::ExternalApi => vec![San::Dns(self.names.api.clone())],
            SanRule::InternalApi => vec![San::Dns(self.names.api_int.clone())],
            SanRule::MachineConfigServer => {
                let mut sans = vec![San::Dns(self.names.api_int.clone())];
                sans.extend(self.api_vips.iter().map(|ip| San::Dns(ip.to_string())));
                sans.extend(self.api_vips.iter().map(|ip| San::Ip(*ip)));
                sans
            }
        }
    }
}

/// The first host address of a network: its network address plus one (`.1` / `::1`).
pub fn first_host(net: &IpNet) -> IpAddr {
    match net.network() {
        IpAddr::V4(a) => IpAddr::V4(Ipv4Addr::from(u32::from(a).wrapping_add(1))),
        IpAddr::V6(a) => IpAddr::V6(Ipv6Addr::from(u128::from(a).wrapping_add(1))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_host_uses_the_network_address_not_the_given_one() {
        let v4: IpNet = "172.30.7.9/16".parse().expect("net");
        assert_eq!(first_host(&v4).to_string(), "172.30.0.1");
        let v6: IpNet = "fd02::/112".parse().expect("net");
        assert_eq!(first_host(&v6).to_string(), "fd02::1");
    }
}
