//! Networking rules: plugin, CIDRs, sizes, overlaps, OVN internal subnets, host prefixes and
//! IP families.

use ipnet::IpNet;

use super::Validation;
use crate::errors::FieldError;
use crate::types::{Cidr, InstallConfig, Networking, Platform};

/// Docker's default bridge; overlapping it is only a warning.
pub(super) const DOCKER_BRIDGE: &str = "172.17.0.0/16";

/// True when either network contains the other's base address.
pub(super) fn overlaps(a: &IpNet, b: &IpNet) -> bool {
    a.contains(&b.network()) || b.contains(&a.network())
}

fn net(s: &str) -> IpNet {
    s.parse()
        .unwrap_or_else(|e| panic!("built-in network {s}: {e}"))
}

/// OVN-Kubernetes' default IPv4 join subnet.
pub(super) const OVN_DEFAULT_JOIN_V4: &str = "100.64.0.0/16";

/// Path of the user's IPv4 join subnet.
const JOIN_PATH: &str = "networking.ovnKubernetesConfig.ipv4.internalJoinSubnet";

/// The IPv4 join subnet the user set, if any.
pub fn configured_join_subnet(n: &Networking) -> Option<Cidr> {
    n.ovn_kubernetes_config
        .as_ref()
        .and_then(|o| o.ipv4.as_ref())
        .and_then(|i| i.internal_join_subnet)
}

/// OVN-Kubernetes' default internal subnets of each family: (what, network). A join subnet
/// the user set replaces the IPv4 default and is checked on its own path
/// ([`join_subnet`]), so that an overlap is reported at the field the user wrote.
fn ovn_internal(cfg: &Networking) -> Vec<(&'static str, IpNet)> {
    let mut list = vec![
        ("transit", net("100.88.0.0/16")),
        ("masquerade", net("169.254.0.0/17")),
        ("internal", net("fd98::/64")),
        ("transit", net("fd97::/64")),
        ("masquerade", net("fd69::/112")),
    ];
    if configured_join_subnet(cfg).is_none() {
        list.push(("internal", net(OVN_DEFAULT_JOIN_V4)));
    }
    list
}

/// Every networking rule.
pub(super) fn networking(cfg: &InstallConfig, v: &mut Validation) {
    let n = cfg.networking();
    network_type(n, v);
    required_lists(n, v);
    addresses(n, v);
    service_sizes(n, v);
    overlap_rules(n, v);
    if n.network_type == "OVNKubernetes" {
        ovn_overlaps(n, v);
    }
    ovn_config(n, v);
    host_prefixes(n, v);
    families(cfg, v);
    if let Some(mtu) = n.cluster_network_mtu {
        v.err(FieldError::invalid(
            "networking.clusterNetworkMTU",
            mtu,
            "a cluster network MTU can only be set on AWS; remove it",
        ));
    }
}

fn network_type(n: &Networking, v: &mut Validation) {
    let path = "networking.networkType";
    match n.network_type.as_str() {
        "" => v.err(FieldError::required(
            path,
            "set the network plugin; use OVNKubernetes",
        )),
        "Kuryr" => v.err(FieldError::invalid(
            path,
            "Kuryr",
            "Kuryr was removed after 4.14; use OVNKubernetes",
        )),
        "OpenShiftSDN" => v.err(FieldError::invalid(
            path,
            "OpenShiftSDN",
            "OpenShiftSDN is no longer supported; use OVNKubernetes",
        )),
        _ => {}
    }
}

fn required_lists(n: &Networking, v: &mut Validation) {
    if n.machine_network.is_empty() {
        v.err(FieldError::required(
            "networking.machineNetwork",
            "add at least one machine network",
        ));
    }
    if n.service_network.is_empty() {
        v.err(FieldError::required(
            "networking.serviceNetwork",
            "add a service network, e.g. 172.30.0.0/16",
        ));
    }
    if n.cluster_network.is_empty() {
        v.err(FieldError::required(
            "networking.clusterNetwork",
            "add a cluster network, e.g. 10.128.0.0/14",
        ));
    }
}

/// All CIDRs with their paths: (path, cidr).
fn all_cidrs(n: &Networking) -> Vec<(String, Cidr)> {
    let m = n
        .machine_network
        .iter()
        .enumerate()
        .map(|(i, e)| (format!("networking.machineNetwork[{i}].cidr"), e.cidr));
    let s = n
        .service_network
        .iter()
        .enumerate()
        .map(|(i, c)| (format!("networking.serviceNetwork[{i}]"), *c));
    let c = n
        .cluster_network
        .iter()
        .enumerate()
        .map(|(i, e)| (format!("networking.clusterNetwork[{i}].cidr"), e.cidr));
    m.chain(s).chain(c).collect()
}

fn addresses(n: &Networking, v: &mut Validation) {
    for (path, c) in all_cidrs(n) {
        if c.0.addr().is_unspecified() {
            v.err(FieldError::invalid(
                &path,
                c,
                "the network address must be specified (not 0.0.0.0 or ::)",
            ));
        } else if c.0.addr() != c.0.network() {
            v.err(FieldError::invalid(
                &path,
                c,
                format!(
                    "this is not a network address because host bits are set; use {}",
                    c.masked()
                ),
            ));
        }
    }
}

fn service_sizes(n: &Networking, v: &mut Validation) {
    for (i, c) in n.service_network.iter().enumerate() {
        let path = format!("networking.serviceNetwork[{i}]");
        if c.is_ipv4() && c.prefix_len() < 12 {
            v.err(FieldError::invalid(
                &path,
                c,
                "an IPv4 service network may be at most a /12 (a /16 is recommended)",
            ));
        } else if !c.is_ipv4() && c.prefix_len() < 108 {
            v.err(FieldError::invalid(
                &path,
                c,
                "an IPv6 service network may be at most a /108 (a /112 is recommended)",
            ));
        }
    }
}

fn overlap_rules(n: &Networking, v: &mut Validation) {
    let machines: Vec<IpNet> = n.machine_network.iter().map(|e| e.cidr.masked()).collect();
    let services: Vec<IpNet> = n.service_network.iter().map(Cidr::masked).collect();
    machine_overlaps(&machines, v);
    service_overlaps(&machines, &services, v);
    cluster_overlaps(n, &machines, &services, v);
}

fn machine_overlaps(machines: &[IpNet], v: &mut Validation) {
    for (i, a) in machines.iter().enumerate() {
        for (j, b) in machines.iter().enumerate().take(i) {
            if overlaps(a, b) {
                let detail = format!(
                    "overlaps machine network {j} ({b}); machine networks must be disjoint"
                );
                v.err(FieldError::invalid(
                    format!("networking.machineNetwork[{i}].cidr"),
                    a,
                    detail,
                ));
            }
        }
    }
}

fn service_overlaps(machines: &[IpNet], services: &[IpNet], v: &mut Validation) {
    for (i, s) in services.iter().enumerate() {
        let path = format!("networking.serviceNetwork[{i}]");
        if let Some(m) = machines.iter().find(|m| overlaps(s, m)) {
            let detail =
                format!("overlaps the machine network {m}; pick a range not used by the nodes");
            v.err(FieldError::invalid(&path, s, detail));
        }
        for (j, other) in services.iter().enumerate().take(i) {
            if overlaps(s, other) {
                v.err(FieldError::invalid(
                    &path,
                    s,
                    format!("overlaps service network {j} ({other})"),
                ));
            }
        }
    }
}

fn cluster_overlaps(n: &Networking, machines: &[IpNet], services: &[IpNet], v: &mut Validation) {
    for (i, e) in n.cluster_network.iter().enumerate() {
        let c = e.cidr.masked();
        let path = format!("networking.clusterNetwork[{i}].cidr");
        if let Some(m) = machines.iter().find(|m| overlaps(&c, m)) {
            let detail =
                format!("overlaps the machine network {m}; pod and node networks must be disjoint");
            v.err(FieldError::invalid(&path, c, detail));
        }
        for (j, s) in services.iter().enumerate() {
            if overlaps(&c, s) {
                v.err(FieldError::invalid(
                    &path,
                    c,
                    format!("overlaps service network {j} ({s})"),
                ));
            }
        }
        for (j, other) in n.cluster_network.iter().enumerate().take(i) {
            if overlaps(&c, &other.cidr.masked()) {
                let detail = format!("overlaps cluster network {j} ({})", other.cidr);
                v.err(FieldError::invalid(&path, c, detail));
            }
        }
    }
}

fn ovn_overlaps(n: &Networking, v: &mut Validation) {
    let docker = net(DOCKER_BRIDGE);
    for (path, c) in all_cidrs(n) {
        let c = c.masked();
        for (what, internal) in ovn_internal(n) {
            if overlaps(&c, &internal) {
                v.err(FieldError::invalid(
                    &path,
                    c,
                    format!("overlaps the OVN-Kubernetes {what} subnet {internal}, which the network plugin reserves; choose another range"),
                ));
            }
        }
        if overlaps(&c, &docker) {
            v.warn(&path, format!("{c} overlaps the Docker bridge {DOCKER_BRIDGE}; hosts running Docker may not reach it"));
        }
    }
}

/// ovnKubernetesConfig belongs to the OVNKubernetes plugin; its join subnet must be a usable
/// IPv4 network that collides with nothing and has an address for every possible node.
fn ovn_config(n: &Networking, v: &mut Validation) {
    if n.ovn_kubernetes_config.is_none() {
        return;
    }
    if n.network_type != "OVNKubernetes" {
        v.err(FieldError::invalid(
            "networking.ovnKubernetesConfig",
            &n.network_type,
            "ovnKubernetesConfig only applies to networkType OVNKubernetes; remove it or use OVNKubernetes",
        ));
    }
    if let Some(join) = configured_join_subnet(n) {
        join_subnet(n, join, v);
    }
}

fn join_subnet(n: &Networking, join: Cidr, v: &mut Validation) {
    if !join.is_ipv4() {
        return v.err(FieldError::invalid(
            JOIN_PATH,
            join,
            "the IPv4 join subnet must be an IPv4 network, e.g. 100.65.0.0/16",
        ));
    }
    if join.0.addr() != join.0.network() {
        return v.err(FieldError::invalid(
            JOIN_PATH,
            join,
            format!(
                "this is not a network address because host bits are set; use {}",
                join.masked()
            ),
        ));
    }
    let j = join.masked();
    let others = all_cidrs(n);
    for (path, other) in others.iter().filter(|(_, c)| overlaps(&j, &c.masked())) {
        let field = path.split('[').next().unwrap_or_default();
        v.err(FieldError::invalid(
            JOIN_PATH,
            join,
            format!("overlaps {path} ({other}); pick a join subnet outside every {field}"),
        ));
    }
    if let Some(max) = max_nodes(n).filter(|m| *m >= usable_addresses(&j)) {
        v.err(FieldError::invalid(
            JOIN_PATH,
            join,
            format!("has room for fewer nodes than the cluster networks allow ({max}); use a larger join subnet"),
        ));
    }
}

/// The number of nodes the IPv4 cluster networks can hold (one host subnet each), or None
/// when a host prefix is invalid (reported elsewhere).
fn max_nodes(n: &Networking) -> Option<u128> {
    let mut total: u128 = 0;
    for e in n.cluster_network.iter().filter(|e| e.cidr.is_ipv4()) {
        let bits = u32::try_from(e.host_prefix)
            .ok()?
            .checked_sub(u32::from(e.cidr.prefix_len()))?;
        total = total.checked_add(1u128.checked_shl(bits)?)?;
    }
    Some(total)
}

/// Addresses of an IPv4 network left for nodes after the network, broadcast and gateway
/// addresses.
fn usable_addresses(net: &IpNet) -> u128 {
    (1u128 << (32 - u32::from(net.prefix_len()))).saturating_sub(3)
}

fn host_prefixes(n: &Networking, v: &mut Validation) {
    let ovn = n.network_type == "OVNKubernetes";
    let mut first_v4: Option<i32> = None;
    for (i, e) in n.cluster_network.iter().enumerate() {
        if !ovn && e.host_prefix == 0 {
            continue;
        }
        let path = format!("networking.clusterNetwork[{i}].hostPrefix");
        let hp = e.host_prefix;
        if hp < 0 {
            v.err(FieldError::invalid(
                &path,
                hp,
                "the host prefix must be a positive prefix length, e.g. 23",
            ));
            continue;
        }
        if hp < i32::from(e.cidr.prefix_len()) {
            let detail = format!(
                "each node's subnet (/{hp}) would be larger than the whole network {}; use a host prefix of at least {}",
                e.cidr,
                e.cidr.prefix_len()
            );
            v.err(FieldError::invalid(&path, hp, detail));
        }
        if e.cidr.is_ipv4() {
            match first_v4 {
                None => first_v4 = Some(hp),
                Some(f) if f != hp => v.err(FieldError::invalid(
                    &path,
                    hp,
                    format!("all IPv4 cluster networks must use the same host prefix ({f} here)"),
                )),
                Some(_) => {}
            }
        } else if hp != 64 {
            v.err(FieldError::invalid(
                &path,
                hp,
                "IPv6 cluster networks must use host prefix 64",
            ));
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Families {
    None,
    V4,
    V6,
    Dual,
}

fn families_of<'a>(it: impl Iterator<Item = &'a Cidr>) -> (Families, bool) {
    let list: Vec<bool> = it.map(Cidr::is_ipv4).collect();
    let v4 = list.iter().any(|b| *b);
    let v6 = list.iter().any(|b| !*b);
    let v4_first = list.first().copied().unwrap_or(true);
    let fam = match (v4, v6) {
        (false, false) => Families::None,
        (true, false) => Families::V4,
        (false, true) => Families::V6,
        (true, true) => Families::Dual,
    };
    (fam, v4_first)
}

fn families(cfg: &InstallConfig, v: &mut Validation) {
    let n = cfg.networking();
    let lists = [
        (
            "networking.machineNetwork",
            families_of(n.machine_network.iter().map(|e| &e.cidr)),
        ),
        (
            "networking.serviceNetwork",
            families_of(n.service_network.iter()),
        ),
        (
            "networking.clusterNetwork",
            families_of(n.cluster_network.iter().map(|e| &e.cidr)),
        ),
    ];
    let any = |f: Families| {
        lists
            .iter()
            .any(|(_, (x, _))| *x == f || *x == Families::Dual && f != Families::None)
    };
    let dual = lists.iter().any(|(_, (f, _))| *f == Families::Dual)
        || (any(Families::V4) && any(Families::V6));
    if !dual {
        if n.service_network.len() > 1 {
            v.err(FieldError::invalid(
                "networking.serviceNetwork",
                n.service_network
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
                "a single-stack cluster has exactly one service network; remove the others",
            ));
        }
        return;
    }
    // Some platforms allow IPv6-primary clusters (every list IPv6 first).
    let v6_primary_ok = cfg
        .platform_kind()
        .is_some_and(Platform::allows_ipv6_primary);
    for (path, (fam, v4_first)) in lists {
        if fam != Families::Dual && fam != Families::None {
            v.err(FieldError::invalid(
                path,
                format!("{fam:?}").to_lowercase(),
                "a dual-stack cluster needs one IPv4 and one IPv6 network in every network list",
            ));
        } else if fam == Families::Dual && !v4_first && !v6_primary_ok {
            v.err(FieldError::invalid(
                path,
                "IPv6 first",
                "list the IPv4 network before the IPv6 network (IPv6-primary dual-stack is only supported on baremetal and vsphere)",
            ));
        }
    }
    if n.service_network.len() != 2 {
        v.err(FieldError::invalid(
            "networking.serviceNetwork",
            n.service_network.len(),
            "a dual-stack cluster needs exactly two service networks, one per IP family",
        ));
    }
}

/// True when the machine networks contain both IP families.
pub(super) fn is_dual_stack(n: &Networking) -> bool {
    families_of(n.machine_network.iter().map(|e| &e.cidr)).0 == Families::Dual
}

/// True when the first machine network is IPv4 (or there is none).
pub(super) fn primary_is_v4(n: &Networking) -> bool {
    n.machine_network.first().is_none_or(|e| e.cidr.is_ipv4())
}
