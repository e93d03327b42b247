//! vSphere field rules: vCenters, failure domains and static-IP hosts.

use std::collections::BTreeSet;
use std::net::IpAddr;

use super::Validation;
use super::names::dns_subdomain_problem;
use crate::errors::FieldError;
use crate::types::{
    FailureDomain, InstallConfig, RegionType, Topology, VCenter, VsphereHost, VsphereHostRole,
    VsphereMachinePool, VspherePlatform, ZoneType, yaml_name,
};

const BASE: &str = "platform.vsphere";
/// Most tags a failure domain may attach to its machines.
const MAX_TAGS: usize = 10;
/// Most DNS servers a static-IP host may list.
const MAX_NAMESERVERS: usize = 3;

/// vCenter, failure-domain and host rules.
pub(super) fn vsphere(cfg: &InstallConfig, v: &mut Validation) {
    let Some(vs) = &cfg.platform.vsphere else {
        return;
    };
    if vs.vcenters.is_empty() {
        v.err(FieldError::required(
            format!("{BASE}.vcenters"),
            "add a vCenter with server, user, password and datacenters",
        ));
    }
    for (i, vc) in vs.vcenters.iter().enumerate() {
        vcenter(vc, &format!("{BASE}.vcenters[{i}]"), v);
    }
    if vs.failure_domains.is_empty() {
        v.err(FieldError::required(
            format!("{BASE}.failureDomains"),
            "add a failure domain naming datacenter, computeCluster, datastore and networks",
        ));
    }
    let mut names = BTreeSet::new();
    for (i, fd) in vs.failure_domains.iter().enumerate() {
        let base = format!("{BASE}.failureDomains[{i}]");
        if !fd.name.is_empty() && !names.insert(fd.name.as_str()) {
            v.err(FieldError::duplicate(
                format!("{base}.name"),
                &fd.name,
                "failure domain names must be unique",
            ));
        }
        failure_domain(vs, fd, &base, v);
    }
    if !vs.hosts.is_empty() {
        hosts(cfg, vs, v);
    }
    machine_pools(cfg, vs, v);
}

/// CPUs and cores per socket of a VM that does not set them.
const DEFAULT_CPUS: i32 = 4;
const DEFAULT_CORES_PER_SOCKET: i32 = 4;

/// The vSphere settings of every pool and of defaultMachinePlatform.
fn machine_pools(cfg: &InstallConfig, vs: &VspherePlatform, v: &mut Validation) {
    let pools = cfg
        .control_plane
        .iter()
        .map(|p| ("controlPlane".to_string(), p.platform.vsphere.as_ref()))
        .chain(
            cfg.compute
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("compute[{i}]"), p.platform.vsphere.as_ref())),
        )
        .map(|(path, pool)| (format!("{path}.platform.vsphere"), pool))
        .chain(std::iter::once((
            format!("{BASE}.defaultMachinePlatform"),
            vs.default_machine_platform.as_ref(),
        )));
    for (path, pool) in pools {
        if let Some(pool) = pool {
            machine_pool(vs, pool, &path, v);
        }
    }
}

fn machine_pool(vs: &VspherePlatform, p: &VsphereMachinePool, base: &str, v: &mut Validation) {
    let disk = p
        .os_disk
        .as_ref()
        .and_then(|d| d.disk_size_gb)
        .map(i64::from);
    for (field, value) in [
        ("osDisk.diskSizeGB", disk),
        ("memoryMB", p.memory_mb),
        ("cpus", p.cpus.map(i64::from)),
        ("coresPerSocket", p.cores_per_socket.map(i64::from)),
    ] {
        if let Some(n) = value.filter(|n| *n < 0) {
            v.err(FieldError::invalid(
                format!("{base}.{field}"),
                n,
                "must not be negative",
            ));
        }
    }
    let cpus = p.cpus.filter(|n| *n > 0).unwrap_or(DEFAULT_CPUS);
    let cores = p
        .cores_per_socket
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_CORES_PER_SOCKET);
    if cores > cpus {
        v.err(FieldError::invalid(
            format!("{base}.coresPerSocket"),
            cores,
            format!("exceeds the number of CPUs ({cpus}; {DEFAULT_CPUS} when cpus is not set)"),
        ));
    } else if cpus % cores != 0 {
        v.err(FieldError::invalid(
            format!("{base}.cpus"),
            cpus,
            format!("must be a multiple of coresPerSocket ({cores}; {DEFAULT_CORES_PER_SOCKET} when not set)"),
        ));
    }
    for (i, zone) in p.zones.iter().enumerate() {
        failure_domain_named(vs, zone, format!("{base}.zones[{i}]"), v);
    }
    for (i, d) in p.data_disks.iter().enumerate() {
        let path = format!("{base}.dataDisks[{i}]");
        if d.name.trim().is_empty() {
            v.err(FieldError::required(
                format!("{path}.name"),
                "name the data disk",
            ));
        }
        if d.size_gib <= 0 {
            v.err(FieldError::invalid(
                format!("{path}.sizeGiB"),
                d.size_gib,
                "must be positive",
            ));
        }
    }
}

/// True for a domain name or an IP address.
fn is_host(s: &str) -> bool {
    s.parse::<IpAddr>().is_ok() || dns_subdomain_problem(&s.to_ascii_lowercase()).is_none()
}

fn vcenter(vc: &VCenter, base: &str, v: &mut Validation) {
    let fields = [
        ("server", &vc.server),
        ("user", &vc.user),
        ("password", &vc.password),
    ];
    require_all(base, &fields, "the vCenter", v);
    if !vc.server.trim().is_empty() && !is_host(&vc.server) {
        v.err(FieldError::invalid(
            format!("{base}.server"),
            &vc.server,
            "must be the domain name or IP address of the vCenter (no scheme, port or path)",
        ));
    }
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

fn failure_domain(vs: &VspherePlatform, fd: &FailureDomain, base: &str, v: &mut Validation) {
    let fields = [
        ("name", &fd.name),
        ("region", &fd.region),
        ("zone", &fd.zone),
        ("server", &fd.server),
    ];
    require_all(base, &fields, "the failure domain's", v);
    if !fd.server.is_empty() && !vs.vcenters.iter().any(|vc| vc.server == fd.server) {
        v.err(FieldError::invalid(
            format!("{base}.server"),
            &fd.server,
            "must be the server of one of platform.vsphere.vcenters",
        ));
    }
    zone_types(fd, base, v);
    topology(&fd.topology, &format!("{base}.topology"), v);
}

/// regionType and zoneType come as a pair; a compute-cluster region needs host-group zones,
/// and host-group zones need the host group.
fn zone_types(fd: &FailureDomain, base: &str, v: &mut Validation) {
    match (fd.region_type, fd.zone_type) {
        (Some(_), None) => v.err(FieldError::required(
            format!("{base}.zoneType"),
            "set zoneType together with regionType",
        )),
        (None, Some(_)) => v.err(FieldError::required(
            format!("{base}.regionType"),
            "set regionType together with zoneType",
        )),
        (Some(RegionType::ComputeCluster), Some(ZoneType::ComputeCluster)) => {
            v.err(FieldError::invalid(
                format!("{base}.zoneType"),
                "ComputeCluster",
                "a ComputeCluster region needs zoneType HostGroup",
            ))
        }
        _ => {}
    }
    let host_group = fd.topology.host_group.as_deref().unwrap_or_default();
    if fd.zone_type == Some(ZoneType::HostGroup) && host_group.is_empty() {
        v.err(FieldError::required(
            format!("{base}.topology.hostGroup"),
            "name the host group of a HostGroup zone",
        ));
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

/// Splits an inventory path `/<datacenter>/<kind>/<rest>` into (datacenter, rest).
fn inventory_path<'a>(value: &'a str, kind: &str) -> Option<(&'a str, &'a str)> {
    let (dc, rest) = value.strip_prefix('/')?.split_once(&format!("/{kind}/"))?;
    (!dc.is_empty() && !rest.is_empty()).then_some((dc, rest))
}

/// True when the datacenter named in a path is the failure domain's datacenter (either may
/// carry the folders the datacenter sits in).
fn same_datacenter(in_path: &str, datacenter: &str) -> bool {
    in_path == datacenter
        || in_path.ends_with(&format!("/{datacenter}"))
        || datacenter.ends_with(&format!("/{in_path}"))
}

fn topology(t: &Topology, base: &str, v: &mut Validation) {
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
        } else {
            inventory(t, &path, value, kind, v);
        }
    }
    for (field, value, kind) in [
        ("folder", &t.folder, "vm"),
        ("resourcePool", &t.resource_pool, "host"),
    ] {
        if let Some(value) = value.as_deref().filter(|s| !s.is_empty()) {
            inventory(t, &format!("{base}.{field}"), value, kind, v);
        }
    }
    resource_pool_cluster(t, base, v);
    if t.networks.is_empty() {
        v.err(FieldError::required(
            format!("{base}.networks"),
            "name the port group the machines attach to",
        ));
    }
    tags(t, base, v);
}

/// An inventory path must be `/<datacenter>/<kind>/...` in the failure domain's datacenter.
fn inventory(t: &Topology, path: &str, value: &str, kind: &str, v: &mut Validation) {
    let example = format!("/{}/{kind}/{}", t.datacenter, value.trim_start_matches('/'));
    match inventory_path(value, kind) {
        None => v.err(FieldError::invalid(
            path,
            value,
            format!("use the full inventory path /<datacenter>/{kind}/<name>, e.g. {example}"),
        )),
        Some((dc, _)) if !t.datacenter.is_empty() && !same_datacenter(dc, &t.datacenter) => {
            v.err(FieldError::invalid(
                path,
                value,
                format!(
                    "is in datacenter {dc:?}, not in the failure domain's datacenter {:?}",
                    t.datacenter
                ),
            ))
        }
        Some(_) => {}
    }
}

/// A resource pool lives inside the failure domain's compute cluster.
fn resource_pool_cluster(t: &Topology, base: &str, v: &mut Validation) {
    let Some(pool) = t.resource_pool.as_deref() else {
        return;
    };
    let (Some((_, pool_rest)), Some((_, cluster))) = (
        inventory_path(pool, "host"),
        inventory_path(&t.compute_cluster, "host"),
    ) else {
        return;
    };
    let pool_cluster = pool_rest.split('/').next().unwrap_or_default();
    if !cluster.split('/').any(|c| c == pool_cluster) {
        v.err(FieldError::invalid(
            format!("{base}.resourcePool"),
            pool,
            format!("must be inside the compute cluster {}", t.compute_cluster),
        ));
    }
}

fn tags(t: &Topology, base: &str, v: &mut Validation) {
    let path = format!("{base}.tagIDs");
    if t.tag_ids.len() > MAX_TAGS {
        v.err(FieldError::too_many(&path, t.tag_ids.len(), MAX_TAGS));
    }
    for (i, tag) in t.tag_ids.iter().enumerate() {
        if !is_tag_urn(tag) {
            v.err(FieldError::invalid(
                format!("{path}[{i}]"),
                tag,
                "write a tag ID as urn:vmomi:InventoryServiceTag:<UUID>:GLOBAL",
            ));
        }
    }
}

/// `urn:vmomi:InventoryServiceTag:<8-4-4-4-12 hex UUID>:<scope>`.
fn is_tag_urn(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("urn:vmomi:InventoryServiceTag:") else {
        return false;
    };
    let Some((uuid, scope)) = rest.split_once(':') else {
        return false;
    };
    let groups: Vec<&str> = uuid.split('-').collect();
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    lens == [8, 4, 4, 4, 12]
        && groups
            .iter()
            .all(|g| g.chars().all(|c| c.is_ascii_hexdigit()))
        && !scope.is_empty()
        && !scope.contains(':')
}

/// Static-IP hosts: one bootstrap host, one per control-plane and compute replica, each with
/// addresses the machine can configure.
fn hosts(cfg: &InstallConfig, vs: &VspherePlatform, v: &mut Validation) {
    let path = format!("{BASE}.hosts");
    let count = |role| vs.hosts.iter().filter(|h| h.role == role).count() as i64;
    let compute = cfg.compute_replicas();
    let wanted = [
        (
            VsphereHostRole::Bootstrap,
            1,
            "exactly one host with role bootstrap",
        ),
        (
            VsphereHostRole::ControlPlane,
            cfg.control_plane_replicas(),
            "one control-plane host per controlPlane replica",
        ),
        (
            VsphereHostRole::Compute,
            compute,
            "one compute host per compute replica",
        ),
    ];
    for (role, want, rule) in wanted {
        let got = count(role);
        if got != want {
            v.err(FieldError::invalid(
                &path,
                format!("{got} {}", yaml_name(&role)),
                format!("list {rule} ({want})"),
            ));
        }
    }
    for (i, h) in vs.hosts.iter().enumerate() {
        host(vs, h, &format!("{path}[{i}]"), v);
    }
}

/// `name` at `path` must name one of the platform's failure domains.
fn failure_domain_named(vs: &VspherePlatform, name: &str, path: String, v: &mut Validation) {
    if !vs.failure_domains.iter().any(|f| f.name == name) {
        v.err(FieldError::invalid(
            path,
            name,
            "must be the name of one of platform.vsphere.failureDomains",
        ));
    }
}

fn host(vs: &VspherePlatform, h: &VsphereHost, base: &str, v: &mut Validation) {
    if let Some(fd) = h.failure_domain.as_deref() {
        failure_domain_named(vs, fd, format!("{base}.failureDomain"), v);
    }
    let Some(dev) = &h.network_device else {
        return v.err(FieldError::required(
            format!("{base}.networkDevice"),
            "give the host's ipAddrs, gateway and nameservers",
        ));
    };
    let dev_path = format!("{base}.networkDevice");
    if dev.ip_addrs.is_empty() {
        v.err(FieldError::required(
            format!("{dev_path}.ipAddrs"),
            "give the host's address in CIDR form, e.g. 10.0.0.20/24",
        ));
    }
    for (i, a) in dev.ip_addrs.iter().enumerate() {
        if a.parse::<ipnet::IpNet>().is_err() {
            v.err(FieldError::invalid(
                format!("{dev_path}.ipAddrs[{i}]"),
                a,
                "write the address with its prefix length, e.g. 10.0.0.20/24",
            ));
        }
    }
    if dev.nameservers.len() > MAX_NAMESERVERS {
        v.err(FieldError::too_many(
            format!("{dev_path}.nameservers"),
            dev.nameservers.len(),
            MAX_NAMESERVERS,
        ));
    }
    let named_ips = dev
        .nameservers
        .iter()
        .enumerate()
        .map(|(i, n)| (format!("{dev_path}.nameservers[{i}]"), n.as_str()))
        .chain(
            dev.gateway
                .iter()
                .map(|g| (format!("{dev_path}.gateway"), g.as_str())),
        );
    for (path, ip) in named_ips {
        if !ip.is_empty() && ip.parse::<IpAddr>().is_err() {
            v.err(FieldError::invalid(path, ip, "is not an IP address"));
        }
    }
}
