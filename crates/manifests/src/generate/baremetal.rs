//! The metal3 `Provisioning` object for platform baremetal.

use super::{Dir, Out};
use crate::error::Error;
use crate::inputs::{BareMetal, ProvisioningNetwork};
use crate::objects::{Object, Provisioning, ProvisioningSpec};

/// File of the Provisioning object in `openshift/`.
pub const PROVISIONING_FILE: &str = "99_baremetal-provisioning-config.yaml";
/// The one Provisioning object the cluster-baremetal-operator reads.
pub const PROVISIONING_NAME: &str = "provisioning-configuration";

pub(super) fn add(bm: &BareMetal, out: &mut Out) -> Result<(), Error> {
    out.push(Dir::Openshift, PROVISIONING_FILE, &provisioning(bm))
}

/// Tells the cluster-baremetal-operator how hosts are provisioned after install. The
/// install config's provisioning settings, defaulted as upstream defaults them (a managed
/// 172.22.0.0/24 network with its IPs and DHCP range), are what the operator needs: in managed
/// mode it refuses a Provisioning without IP, network and DHCP range. Unset values are left
/// out rather than written empty.
fn provisioning(bm: &BareMetal) -> Provisioning {
    let p = &bm.provisioning;
    let mode = match p.network {
        ProvisioningNetwork::Managed => "Managed",
        ProvisioningNetwork::Unmanaged => "Unmanaged",
        ProvisioningNetwork::Disabled => "Disabled",
    };
    let spec = ProvisioningSpec {
        provisioning_network: mode.to_string(),
        additional_ntp_servers: p.additional_ntp_servers.clone(),
        provisioning_interface: p.interface.clone(),
        provisioning_ip: p.cluster_provisioning_ip.map(|ip| ip.to_string()),
        provisioning_network_cidr: p.network_cidr.map(|n| n.to_string()),
        provisioning_network_gateway: p.gateway.map(|ip| ip.to_string()),
        provisioning_dhcp_range: p.dhcp_range.clone(),
        provisioning_os_download_url: p.os_download_url.clone(),
        watch_all_namespaces: false,
    };
    Object::cluster_scoped(
        "metal3.io/v1alpha1",
        "Provisioning",
        PROVISIONING_NAME,
        spec,
    )
}
