//! The metal3 `Provisioning` object for platform baremetal.

use super::{Dir, Out};
use crate::error::Error;
use crate::inputs::{BareMetal, ProvisioningNetwork};
use crate::objects::{Object, Provisioning, ProvisioningSpec};

pub(super) fn add(bm: &BareMetal, out: &mut Out) -> Result<(), Error> {
    out.push(
        Dir::Openshift,
        "99_baremetal-provisioning-config.yaml",
        &provisioning(bm),
    )
}

/// Tells the cluster-baremetal-operator how hosts are provisioned after install. Only the
/// settings the user gave are written; the operator defaults the rest.
fn provisioning(bm: &BareMetal) -> Provisioning {
    let p = &bm.provisioning;
    let mode = match p.network {
        ProvisioningNetwork::Managed => "Managed",
        ProvisioningNetwork::Unmanaged => "Unmanaged",
        ProvisioningNetwork::Disabled => "Disabled",
    };
    let spec = ProvisioningSpec {
        provisioning_network: mode.to_string(),
        provisioning_interface: p.interface.clone(),
        provisioning_ip: p.cluster_provisioning_ip.map(|ip| ip.to_string()),
        provisioning_network_cidr: p.network_cidr.map(|n| n.to_string()),
        provisioning_dhcp_range: p.dhcp_range.clone(),
        provisioning_os_download_url: p.os_download_url.clone(),
        watch_all_namespaces: false,
    };
    Object::cluster_scoped(
        "metal3.io/v1alpha1",
        "Provisioning",
        "provisioning-configuration",
        spec,
    )
}
