//! Conversion of deprecated fields to their current replacements.
//!
//! Runs after parsing and before defaulting, so a config written for an older installer keeps
//! working and everything later sees only the current fields.

use crate::errors::{FieldError, Warning};
use crate::types::*;

/// Outcome of the conversion.
#[derive(Default)]
pub struct Converted {
    /// Conflicts between a deprecated field and its replacement.
    pub errors: Vec<FieldError>,
    /// Notes about deprecated fields that were converted or ignored.
    pub warnings: Vec<Warning>,
}

/// Converts every deprecated field in place and clears it.
pub fn convert(cfg: &mut InstallConfig) -> Converted {
    let mut out = Converted::default();
    if let Some(net) = cfg.networking.as_mut() {
        convert_networking(net, &mut out);
    }
    if let Some(bm) = cfg.platform.baremetal.as_mut() {
        convert_vips(bm, &mut out);
        if let Some(external) = bm.provisioning_dhcp_external.take() {
            deprecated(
                &mut out,
                "platform.baremetal.provisioningDHCPExternal",
                "platform.baremetal.provisioningNetwork",
            );
            if external && bm.provisioning_network.is_none() {
                bm.provisioning_network = Some(ProvisioningNetwork::Unmanaged);
            }
        }
    }
    if let Some(vs) = cfg.platform.vsphere.as_mut() {
        convert_vips(vs, &mut out);
        convert_vsphere(vs, &mut out);
    }
    out
}

fn deprecated(out: &mut Converted, path: &str, replacement: &str) {
    out.warnings.push(Warning {
        path: path.to_string(),
        message: format!("deprecated field converted to {replacement}; please update the file"),
    });
}

fn convert_networking(net: &mut Networking, out: &mut Converted) {
    if let Some(t) = net.deprecated_type.take() {
        deprecated(out, "networking.type", "networking.networkType");
        if net.network_type.is_empty() {
            net.network_type = t;
        }
    }
    if let Some(c) = net.machine_cidr.take() {
        deprecated(out, "networking.machineCIDR", "networking.machineNetwork");
        if net.machine_network.is_empty() {
            net.machine_network.push(MachineNetworkEntry { cidr: c });
        }
    }
    if let Some(c) = net.service_cidr.take() {
        deprecated(out, "networking.serviceCIDR", "networking.serviceNetwork");
        if net.service_network.is_empty() {
            net.service_network.push(c);
        }
    }
    let old = std::mem::take(&mut net.cluster_networks);
    if !old.is_empty() {
        deprecated(
            out,
            "networking.clusterNetworks",
            "networking.clusterNetwork",
        );
    }
    if net.cluster_network.is_empty() {
        for entry in old {
            let bits: u32 = if entry.cidr.is_ipv4() { 32 } else { 128 };
            let prefix = bits.saturating_sub(entry.host_subnet_length);
            net.cluster_network.push(ClusterNetworkEntry {
                cidr: entry.cidr,
                host_prefix: prefix as i32,
            });
        }
    }
}

/// Moves the deprecated apiVIP and ingressVIP of a VIP platform into their lists.
fn convert_vips(platform: &mut dyn VipPlatform, out: &mut Converted) {
    let path = format!("platform.{}", platform.key());
    for (field, old, new) in platform.deprecated_vips_mut() {
        convert_vip(old.take(), new, &format!("{path}.{field}"), out);
    }
}

fn convert_vip(
    old: Option<IpAddrString>,
    new: &mut Vec<IpAddrString>,
    path: &str,
    out: &mut Converted,
) {
    let Some(old) = old else { return };
    let plural = format!("{path}s");
    if new.is_empty() {
        deprecated(out, path, &plural);
        new.push(old);
    } else if !new.contains(&old) {
        out.errors.push(FieldError::invalid(
            path,
            &old.0,
            format!("the deprecated field names a VIP that is not in {plural}; remove it and keep only {plural}"),
        ));
    } else {
        deprecated(out, path, &plural);
    }
}

/// Name given to the failure domain built from the deprecated flat fields.
pub const GENERATED_FAILURE_DOMAIN: &str = "generated-failure-domain";

fn convert_vsphere(vs: &mut VspherePlatform, out: &mut Converted) {
    let server = vs.deprecated_vcenter.take();
    let user = vs.deprecated_username.take();
    let password = vs.deprecated_password.take();
    let dc = vs.deprecated_datacenter.take();
    let ds = vs.deprecated_default_datastore.take();
    let folder = vs.deprecated_folder.take();
    let cluster = vs.deprecated_cluster.take();
    let pool = vs.deprecated_resource_pool.take();
    let network = vs.deprecated_network.take();
    let any_topology = dc.is_some()
        || ds.is_some()
        || folder.is_some()
        || cluster.is_some()
        || pool.is_some()
        || network.is_some();
    if server.is_some() || user.is_some() || password.is_some() {
        deprecated(out, "platform.vsphere.vCenter", "platform.vsphere.vcenters");
    }
    if vs.vcenters.is_empty()
        && let Some(server) = server.clone()
    {
        vs.vcenters.push(VCenter {
            server,
            port: Some(DEFAULT_VCENTER_PORT),
            user: user.unwrap_or_default(),
            password: password.unwrap_or_default(),
            datacenters: dc.iter().cloned().collect(),
        });
    }
    if !any_topology {
        return;
    }
    deprecated(
        out,
        "platform.vsphere.datacenter",
        "platform.vsphere.failureDomains",
    );
    if !vs.failure_domains.is_empty() {
        return;
    }
    let dc = dc.unwrap_or_default();
    let expand = |kind: &str, v: Option<String>| {
        v.map(|v| {
            if v.starts_with('/') {
                v
            } else {
                format!("/{dc}/{kind}/{v}")
            }
        })
    };
    vs.failure_domains.push(FailureDomain {
        name: GENERATED_FAILURE_DOMAIN.into(),
        region: "generated-region".into(),
        zone: "generated-zone".into(),
        server: server.unwrap_or_default(),
        topology: Topology {
            datacenter: dc.clone(),
            compute_cluster: expand("host", cluster).unwrap_or_default(),
            networks: network.into_iter().collect(),
            datastore: expand("datastore", ds).unwrap_or_default(),
            resource_pool: pool,
            folder: expand("vm", folder),
            template: None,
            tag_ids: Vec::new(),
            host_group: None,
        },
        region_type: None,
        zone_type: None,
    });
}
