//! Defaults applied after conversion and before validation.

use crate::types::*;

/// Fills in every default the reference lists. Lists are defaulted only when empty.
pub fn apply(cfg: &mut InstallConfig) {
    if cfg.base_domain.ends_with('.') {
        cfg.base_domain = cfg.base_domain.trim_end_matches('.').to_string();
    }
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
