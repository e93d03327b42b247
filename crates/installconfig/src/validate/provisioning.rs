//! Bare-metal provisioning network rules.
//!
//! These settings end up in the metal3 Provisioning object, which the
//! cluster-baremetal-operator validates again: an address outside the provisioning network or
//! a malformed DHCP range stops metal3 from starting. Checking them here reports the problem
//! at the install-config field instead of a degraded operator after the install.

use std::net::IpAddr;

use ipnet::IpNet;

use super::Validation;
use super::hosts::is_mac;
use super::names::dns_subdomain_problem;
use crate::errors::FieldError;
use crate::types::{BaremetalPlatform, Cidr, InstallConfig, IpAddrString, ProvisioningNetwork};

const BASE: &str = "platform.baremetal";

/// Every provisioning rule of platform baremetal.
pub(super) fn provisioning(cfg: &InstallConfig, v: &mut Validation) {
    let Some(bm) = &cfg.platform.baremetal else {
        return;
    };
    let machine: Vec<IpNet> = cfg
        .networking()
        .machine_network
        .iter()
        .map(|m| m.cidr.masked())
        .collect();
    let cluster_ip = ip_field(&bm.cluster_provisioning_ip, "clusterProvisioningIP", v);
    let bootstrap_ip = ip_field(&bm.bootstrap_provisioning_ip, "bootstrapProvisioningIP", v);
    let gateway = ip_field(
        &bm.provisioning_network_gateway,
        "provisioningNetworkGateway",
        v,
    );
    let mode = bm
        .provisioning_network
        .unwrap_or(ProvisioningNetwork::Managed);
    if let Some(gw) = gateway {
        gateway_rules(bm, mode, gw, cluster_ip, v);
    }
    if mode == ProvisioningNetwork::Disabled {
        for (ip, field) in [
            (cluster_ip, "clusterProvisioningIP"),
            (bootstrap_ip, "bootstrapProvisioningIP"),
        ] {
            if let Some(ip) = ip.filter(|ip| !machine.iter().any(|m| m.contains(ip))) {
                v.err(FieldError::invalid(
                    format!("{BASE}.{field}"),
                    ip,
                    "with provisioningNetwork Disabled the provisioning services run on the machine network; use an address inside a machine network",
                ));
            }
        }
    } else if let Some(cidr) = bm.provisioning_network_cidr {
        network(mode, cidr, &machine, v);
        addresses(cidr, cluster_ip, bootstrap_ip, &machine, v);
        if let Some(range) = &bm.provisioning_dhcp_range {
            dhcp_range(range, cidr, [cluster_ip, bootstrap_ip], v);
        }
    }
    ntp_servers(bm, v);
    macs(bm, v);
    os_images(bm, v);
}

/// Parses an optional IP field, reporting text that is not an address.
fn ip_field(value: &Option<IpAddrString>, field: &str, v: &mut Validation) -> Option<IpAddr> {
    let raw = value.as_ref()?;
    let ip = raw.ip();
    if ip.is_none() {
        v.err(FieldError::invalid(
            format!("{BASE}.{field}"),
            raw,
            "is not an IP address",
        ));
    }
    ip
}

fn network(mode: ProvisioningNetwork, cidr: Cidr, machine: &[IpNet], v: &mut Validation) {
    let path = format!("{BASE}.provisioningNetworkCIDR");
    if cidr.0.addr() != cidr.0.network() {
        v.err(FieldError::invalid(
            &path,
            cidr,
            format!("host bits are set; use {}", cidr.masked()),
        ));
    }
    if mode == ProvisioningNetwork::Managed && !cidr.is_ipv4() && cidr.prefix_len() < 64 {
        v.err(FieldError::invalid(
            &path,
            cidr,
            "a managed IPv6 provisioning network may be at most a /64 (the DHCP server cannot serve more)",
        ));
    }
    let net = cidr.masked();
    if let Some(m) = machine.iter().find(|m| super::network::overlaps(m, &net)) {
        v.err(FieldError::invalid(
            &path,
            cidr,
            format!("overlaps the machine network {m}; the provisioning network must be separate"),
        ));
    }
}

fn addresses(
    cidr: Cidr,
    cluster_ip: Option<IpAddr>,
    bootstrap_ip: Option<IpAddr>,
    machine: &[IpNet],
    v: &mut Validation,
) {
    let net = cidr.masked();
    for (ip, field) in [
        (cluster_ip, "clusterProvisioningIP"),
        (bootstrap_ip, "bootstrapProvisioningIP"),
    ] {
        let Some(ip) = ip else { continue };
        let path = format!("{BASE}.{field}");
        if !net.contains(&ip) {
            v.err(FieldError::invalid(
                &path,
                ip,
                format!("is not in the provisioning network {cidr}; pick an address inside it"),
            ));
        } else if machine.iter().any(|m| m.contains(&ip)) {
            v.err(FieldError::invalid(
                &path,
                ip,
                "must not be in a machine network",
            ));
        }
    }
}

/// Why a `provisioningDHCPRange` value is not a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DhcpRangeError {
    /// Not two comma-separated parts.
    Shape,
    /// A part is not an IP address.
    NotIp,
}

/// The two ends of a `provisioningDHCPRange` (`start_ip,end_ip`, spaces around an end
/// allowed), as install-config validation and `verify`'s Provisioning check read it.
pub fn parse_dhcp_range(range: &str) -> Result<(IpAddr, IpAddr), DhcpRangeError> {
    let parts: Vec<&str> = range.split(',').map(str::trim).collect();
    let [start, end] = parts.as_slice() else {
        return Err(DhcpRangeError::Shape);
    };
    match (start.parse(), end.parse()) {
        (Ok(start), Ok(end)) => Ok((start, end)),
        _ => Err(DhcpRangeError::NotIp),
    }
}

fn dhcp_range(range: &str, cidr: Cidr, fixed: [Option<IpAddr>; 2], v: &mut Validation) {
    let path = format!("{BASE}.provisioningDHCPRange");
    let (start, end) = match parse_dhcp_range(range) {
        Ok(ends) => ends,
        Err(DhcpRangeError::Shape) => {
            return v.err(FieldError::invalid(
                path,
                range,
                "write the range as start_ip,end_ip, e.g. 172.22.0.10,172.22.0.254",
            ));
        }
        Err(DhcpRangeError::NotIp) => {
            return v.err(FieldError::invalid(
                path,
                range,
                "both ends of the range must be IP addresses",
            ));
        }
    };
    let net = cidr.masked();
    if !net.contains(&start) || !net.contains(&end) {
        return v.err(FieldError::invalid(
            path,
            range,
            format!("the range must lie inside the provisioning network {cidr}"),
        ));
    }
    for (ip, field) in fixed
        .into_iter()
        .zip(["clusterProvisioningIP", "bootstrapProvisioningIP"])
    {
        if let Some(ip) = ip.filter(|ip| *ip >= start && *ip <= end) {
            v.err(FieldError::invalid(
                format!("{BASE}.{field}"),
                ip,
                format!("lies in the DHCP range {range}; move it or the range"),
            ));
        }
    }
}

/// `provisioningNetworkGateway` goes into the metal3 Provisioning, whose operator refuses it
/// unless the network is Managed (only then does the cluster run the DHCP server that hands
/// it out), and unless it is a host address of provisioningNetworkCIDR outside the DHCP range
/// and other than the provisioning IP. The same checks here name the install-config field.
fn gateway_rules(
    bm: &BaremetalPlatform,
    mode: ProvisioningNetwork,
    gw: IpAddr,
    cluster_ip: Option<IpAddr>,
    v: &mut Validation,
) {
    let path = format!("{BASE}.provisioningNetworkGateway");
    if mode != ProvisioningNetwork::Managed {
        return v.err(FieldError::invalid(
            path,
            gw,
            format!(
                "a gateway is handed out by the cluster's DHCP server, which runs only with provisioningNetwork Managed (here {mode:?}); remove it or use Managed"
            ),
        ));
    }
    let Some(cidr) = bm.provisioning_network_cidr else {
        return;
    };
    if let Some(problem) = gateway_problem(gw, cidr.masked(), cluster_ip, bm) {
        v.err(FieldError::invalid(path, gw, problem));
    }
}

/// Why `gw` cannot be the gateway of the provisioning network `net`.
fn gateway_problem(
    gw: IpAddr,
    net: IpNet,
    cluster_ip: Option<IpAddr>,
    bm: &BaremetalPlatform,
) -> Option<String> {
    if !net.contains(&gw) {
        return Some(format!(
            "is not in the provisioning network {net}; the gateway must be an address on it"
        ));
    }
    if cluster_ip == Some(gw) {
        return Some("is the clusterProvisioningIP; the gateway must be another address".into());
    }
    // A /31 or /32 (and any IPv6 prefix) has no network and broadcast addresses to avoid.
    let ends = net.prefix_len() < 31 && matches!(net, IpNet::V4(_));
    if ends && (gw == net.network() || gw == net.broadcast()) {
        return Some(format!(
            "is the network or broadcast address of {net}; use a host address"
        ));
    }
    let range = bm.provisioning_dhcp_range.as_deref()?;
    let (start, end) = parse_dhcp_range(range).ok()?;
    (gw >= start && gw <= end).then(|| {
        format!("lies in the DHCP range {range}; the DHCP server would hand it out to a host")
    })
}

fn ntp_servers(bm: &BaremetalPlatform, v: &mut Validation) {
    for (i, s) in bm.additional_ntp_servers.iter().enumerate() {
        if s.parse::<IpAddr>().is_err() && dns_subdomain_problem(s.trim_end_matches('.')).is_some()
        {
            v.err(FieldError::invalid(
                format!("{BASE}.additionalNTPServers[{i}]"),
                s,
                "an NTP server must be an IP address or a domain name",
            ));
        }
    }
}

fn macs(bm: &BaremetalPlatform, v: &mut Validation) {
    for (mac, field) in [
        (&bm.external_mac_address, "externalMACAddress"),
        (&bm.provisioning_mac_address, "provisioningMACAddress"),
    ] {
        if let Some(m) = mac.as_deref().filter(|m| !is_mac(m)) {
            v.err(FieldError::invalid(
                format!("{BASE}.{field}"),
                m,
                super::hosts::MAC_HINT,
            ));
        }
    }
    if let (Some(p), Some(e)) = (&bm.provisioning_mac_address, &bm.external_mac_address)
        && p.eq_ignore_ascii_case(e)
    {
        v.err(FieldError::duplicate(
            format!("{BASE}.provisioningMACAddress"),
            p,
            "the provisioning and external MAC addresses must differ",
        ));
    }
}

/// OS image URLs are downloaded by the provisioning services and checked against the
/// `sha256` query parameter; the cluster image must also be a compressed qcow2.
fn os_images(bm: &BaremetalPlatform, v: &mut Validation) {
    for (url, field, qcow2) in [
        (&bm.bootstrap_os_image, "bootstrapOSImage", false),
        (&bm.cluster_os_image, "clusterOSImage", true),
    ] {
        let Some(url) = url.as_deref() else { continue };
        if let Some(p) = os_image_problem(url, qcow2) {
            v.err(FieldError::invalid(format!("{BASE}.{field}"), url, p));
        }
    }
}

fn os_image_problem(url: &str, qcow2: bool) -> Option<String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Some("is not a URL; use http(s)://host/path?sha256=<64 hex digits>".into());
    };
    if !matches!(scheme, "http" | "https") {
        return Some("must be an http or https URL".into());
    }
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let sha = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("sha256="))
        .unwrap_or_default();
    if sha.len() != 64 || !sha.chars().all(|c| c.is_ascii_hexdigit()) {
        return Some(
            "needs a sha256=<64 hex digits> query parameter with the image checksum".into(),
        );
    }
    let compressed = path.ends_with(".qcow2.gz") || path.ends_with(".qcow2.xz");
    (qcow2 && !compressed).then(|| "must name a .qcow2.gz or .qcow2.xz image".into())
}
