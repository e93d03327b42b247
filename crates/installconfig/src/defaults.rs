//! Defaults applied after conversion and before validation.

use crate::types::*;

/// Fills in every default the reference lists. Lists are defaulted only when empty.
pub fn apply(cfg: &mut InstallConfig) {
    cfg.base_domain = contract::ClusterNames::base_domain_of(&cfg.base_domain).to_string();
    let net = cfg.networking.get_or_insert_with(Networking::default);
    networking(net);

    let cp = cfg
        .control_plane
        .get_or_insert_with(|| MachinePool::named(MASTER_POOL));
    cp.name = MASTER_POOL.to_string();
    cp.replicas.get_or_insert(DEFAULT_REPLICAS);

    if !cfg.compute.iter().any(|p| p.name == WORKER_POOL) {
        cfg.compute.push(MachinePool::named(WORKER_POOL));
    }
    for pool in &mut cfg.compute {
        pool.replicas.get_or_insert(DEFAULT_REPLICAS);
    }
    if cfg.capabilities.is_none() {
        cfg.capabilities = Some(Capabilities {
            baseline_capability_set: BaselineCapabilitySet::VCurrent,
            additional_enabled_capabilities: Vec::new(),
        });
    }
    if let Some(vs) = cfg.platform.vsphere.as_mut() {
        for vc in &mut vs.vcenters {
            vc.port.get_or_insert(DEFAULT_VCENTER_PORT);
        }
    }
    let machine_networks: Vec<Cidr> = cfg
        .networking()
        .machine_network
        .iter()
        .map(|m| m.cidr)
        .collect();
    if let Some(bm) = cfg.platform.baremetal.as_mut() {
        baremetal::apply(bm, &machine_networks);
    }
}

fn networking(net: &mut Networking) {
    if net.network_type.is_empty() {
        net.network_type = DEFAULT_NETWORK_TYPE.to_string();
    }
    if net.machine_network.is_empty() {
        net.machine_network.push(MachineNetworkEntry {
            cidr: cidr(DEFAULT_MACHINE_NETWORK),
        });
    }
    if net.cluster_network.is_empty() {
        net.cluster_network.push(ClusterNetworkEntry {
            cidr: cidr(DEFAULT_CLUSTER_NETWORK),
            host_prefix: DEFAULT_HOST_PREFIX,
        });
    }
    if net.service_network.is_empty() {
        net.service_network.push(cidr(DEFAULT_SERVICE_NETWORK));
    }
}

fn cidr(s: &str) -> Cidr {
    // The defaults are constants known to parse.
    Cidr::parse(s).unwrap_or_else(|e| panic!("built-in default {s}: {e}"))
}

/// The bare-metal provisioning defaults of the upstream installer. They end up in the
/// Provisioning object, which the cluster-baremetal-operator rejects without a provisioning
/// IP, network and (when managed) DHCP range.
mod baremetal {
    use std::net::IpAddr;

    use ipnet::IpNet;

    use crate::types::*;

    /// Provisioning network of a managed or unmanaged install that does not name one.
    pub(super) const PROVISIONING_NETWORK_CIDR: &str = "172.22.0.0/24";
    /// Bridge of the (IPI) bootstrap VM on the external network.
    pub(super) const EXTERNAL_BRIDGE: &str = "baremetal";
    /// Bridge of the (IPI) bootstrap VM on the provisioning network.
    pub(super) const PROVISIONING_BRIDGE: &str = "provisioning";
    /// libvirt URI of the (IPI) provisioning host.
    pub(super) const LIBVIRT_URI: &str = "qemu:///system";
    /// Hardware profile of hosts that do not name one.
    pub(super) const HARDWARE_PROFILE: &str = "default";

    pub(super) fn apply(bm: &mut BaremetalPlatform, machine_networks: &[Cidr]) {
        bm.libvirt_uri.get_or_insert_with(|| LIBVIRT_URI.into());
        let mode = *bm
            .provisioning_network
            .get_or_insert(ProvisioningNetwork::Managed);
        if mode == ProvisioningNetwork::Disabled {
            disabled_network(bm, machine_networks);
        } else {
            provisioning_addresses(bm);
        }
        if mode == ProvisioningNetwork::Managed && bm.provisioning_dhcp_range.is_none() {
            bm.provisioning_dhcp_range = bm.provisioning_network_cidr.and_then(dhcp_range);
        }
        bm.external_bridge
            .get_or_insert_with(|| EXTERNAL_BRIDGE.into());
        for host in &mut bm.hosts {
            host.hardware_profile
                .get_or_insert_with(|| HARDWARE_PROFILE.into());
            host.boot_mode.get_or_insert(BootMode::Uefi);
        }
    }

    /// Without a provisioning network the provisioning services run on the machine network
    /// that holds clusterProvisioningIP.
    fn disabled_network(bm: &mut BaremetalPlatform, machine_networks: &[Cidr]) {
        let Some(ip) = bm.cluster_provisioning_ip.as_ref().and_then(|i| i.ip()) else {
            return;
        };
        if let Some(net) = machine_networks.iter().find(|n| n.masked().contains(&ip)) {
            bm.provisioning_network_cidr = Some(*net);
        }
    }

    fn provisioning_addresses(bm: &mut BaremetalPlatform) {
        let cidr = *bm
            .provisioning_network_cidr
            .get_or_insert_with(|| super::cidr(PROVISIONING_NETWORK_CIDR));
        let host = |n| nth_host(cidr.masked(), n).map(|ip| IpAddrString(ip.to_string()));
        if bm.bootstrap_provisioning_ip.is_none() {
            bm.bootstrap_provisioning_ip = host(2);
        }
        if bm.cluster_provisioning_ip.is_none() {
            bm.cluster_provisioning_ip = host(3);
        }
        bm.provisioning_bridge
            .get_or_insert_with(|| PROVISIONING_BRIDGE.into());
    }

    /// From the 10th address to the one before the broadcast address.
    fn dhcp_range(cidr: Cidr) -> Option<String> {
        let net = cidr.masked();
        let start = nth_host(net, 10)?;
        let end = step_back(net.broadcast())?;
        Some(format!("{start},{end}"))
    }

    /// The `n`th address of `net` (the network address is the 0th), if it lies inside.
    pub(super) fn nth_host(net: IpNet, n: u128) -> Option<IpAddr> {
        let ip = match net.network() {
            IpAddr::V4(a) => IpAddr::from(
                u32::try_from(u128::from(u32::from(a)) + n)
                    .ok()?
                    .to_be_bytes(),
            ),
            IpAddr::V6(a) => IpAddr::from(u128::from(a).checked_add(n)?.to_be_bytes()),
        };
        net.contains(&ip).then_some(ip)
    }

    fn step_back(ip: IpAddr) -> Option<IpAddr> {
        Some(match ip {
            IpAddr::V4(a) => IpAddr::from(u32::from(a).checked_sub(1)?.to_be_bytes()),
            IpAddr::V6(a) => IpAddr::from(u128::from(a).checked_sub(1)?.to_be_bytes()),
        })
    }
}
