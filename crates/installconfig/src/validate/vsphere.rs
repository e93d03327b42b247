//! vSphere field rules: vCenters and failure domains.

use super::Validation;
use crate::errors::FieldError;
use crate::types::InstallConfig;

/// vCenter and failure-domain rules.
pub fn vsphere(cfg: &InstallConfig, v: &mut Validation) {
    let Some(vs) = &cfg.platform.vsphere else {
        return;
    };
    if vs.vcenters.is_empty() {
        v.err(FieldError::required(
            "platform.vsphere.vcenters",
            "add a vCenter with server, user, password and datacenters",
        ));
    }
    for (i, vc) in vs.vcenters.iter().enumerate() {
        let base = format!("platform.vsphere.vcenters[{i}]");
        let fields = [
            ("server", &vc.server),
            ("user", &vc.user),
            ("password", &vc.password),
        ];
        require_all(&base, &fields, "the vCenter", v);
        if vc.datacenters.is_empty() {
            v.err(FieldError::required(
                format!("{base}.datacenters"),
                "list the datacenters the cluster uses",
            ));
        }
        if vc.port == Some(0) {
            v.err(FieldError::invalid(
                format!("{base}.port"),
                0,
                "use the vCenter HTTPS port, usually 443",
            ));
        }
    }
    if vs.failure_domains.is_empty() {
        v.err(FieldError::required(
            "platform.vsphere.failureDomains",
            "add a failure domain naming datacenter, computeCluster, datastore and networks",
        ));
    }
    for (i, fd) in vs.failure_domains.iter().enumerate() {
        let base = format!("platform.vsphere.failureDomains[{i}]");
        let fields = [
            ("name", &fd.name),
            ("region", &fd.region),
            ("zone", &fd.zone),
            ("server", &fd.server),
        ];
        require_all(&base, &fields, "the failure domain's", v);
        if !fd.server.is_empty() && !vs.vcenters.iter().any(|vc| vc.server == fd.server) {
            v.err(FieldError::invalid(
                format!("{base}.server"),
                &fd.server,
                "must be the server of one of platform.vsphere.vcenters",
            ));
        }
        topology(&fd.topology, &format!("{base}.topology"), v);
    }
}

/// Reports each of `fields` under `base` that is empty, asking to "set <owner> <field>".
fn require_all(base: &str, fields: &[(&str, &String)], owner: &str, v: &mut Validation) {
    for (field, value) in fields {
        if value.trim().is_empty() {
            v.err(FieldError::required(
                format!("{base}.{field}"),
                format!("set {owner} {field}"),
            ));
        }
    }
}

fn topology(t: &crate::types::Topology, base: &str, v: &mut Validation) {
    if t.datacenter.trim().is_empty() {
        v.err(FieldError::required(
            format!("{base}.datacenter"),
            "set the datacenter name",
        ));
    }
    for (field, value, kind) in [
        ("computeCluster", &t.compute_cluster, "host"),
        ("datastore", &t.datastore, "datastore"),
    ] {
        let path = format!("{base}.{field}");
        if value.trim().is_empty() {
            v.err(FieldError::required(
                path,
                format!("set the full path, e.g. /{}/{kind}/<name>", t.datacenter),
            ));
        } else if !value.starts_with('/') {
            v.err(FieldError::invalid(
                path,
                value,
                format!(
                    "use the full inventory path, e.g. /{}/{kind}/{value}",
                    t.datacenter
                ),
            ));
        }
    }
    if t.networks.is_empty() {
        v.err(FieldError::required(
            format!("{base}.networks"),
            "name the port group the machines attach to",
        ));
    }
}
