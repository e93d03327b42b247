//! API and ingress virtual IP rules (baremetal and vsphere).

use std::net::IpAddr;

use super::Validation;
use super::network::{is_dual_stack, primary_is_v4};
use crate::errors::FieldError;
use crate::types::{DnsRecordsType, InstallConfig, IpAddrString, LoadBalancer, VipPlatform};

struct VipSet<'a> {
    platform: &'static str,
    api: &'a [IpAddrString],
    ingress: &'a [IpAddrString],
    user_managed_lb: bool,
    required: bool,
    in_machine_network: bool,
}

/// Checks the VIPs of the configured platform.
pub(super) fn vips(cfg: &InstallConfig, v: &mut Validation) {
    // Baremetal needs its VIPs inside the machine network (keepalived announces them there)
    // unless the user runs the load balancer; vSphere VIPs are optional.
    let (p, required): (&dyn VipPlatform, bool) =
        match (&cfg.platform.baremetal, &cfg.platform.vsphere) {
            (Some(b), _) => (b, true),
            (_, Some(s)) => (s, false),
            _ => return,
        };
    let um = LoadBalancer::is_user_managed(p.load_balancer());
    let set = VipSet {
        platform: p.key(),
        api: p.api_vips(),
        ingress: p.ingress_vips(),
        user_managed_lb: um,
        required,
        in_machine_network: required && !um,
    };
    let base = format!("platform.{}", set.platform);
    external_dns_records(p, um, &base, v);
    let api_path = format!("{base}.apiVIPs");
    let ing_path = format!("{base}.ingressVIPs");
    presence(&set, &api_path, &ing_path, v);
    let api = one_list(cfg, &set, set.api, &api_path, "API", v);
    let ingress = one_list(cfg, &set, set.ingress, &ing_path, "Ingress", v);
    if !set.user_managed_lb {
        for (i, a) in api.iter().enumerate() {
            if ingress.contains(a) {
                v.err(FieldError::invalid(
                    format!("{api_path}[{i}]"),
                    a,
                    "the API VIP must differ from every ingress VIP; pick another free address",
                ));
            }
        }
    }
}

/// With `External` DNS records the nodes stop answering for api and api-int, and the
/// keepalived VIPs that those names would point at are only announced by an
/// OpenShift-managed load balancer; upstream therefore allows External only with a
/// UserManaged one, whose addresses the user's DNS server knows.
fn external_dns_records(p: &dyn VipPlatform, user_managed: bool, base: &str, v: &mut Validation) {
    if p.dns_records_type() == Some(DnsRecordsType::External) && !user_managed {
        v.err(FieldError::invalid(
            format!("{base}.dnsRecordsType"),
            "External",
            format!(
                "external DNS records need a load balancer you run yourself; set {base}.loadBalancer.type: UserManaged, or use Internal"
            ),
        ));
    }
}

fn presence(set: &VipSet, api_path: &str, ing_path: &str, v: &mut Validation) {
    match (set.api.is_empty(), set.ingress.is_empty()) {
        (true, true) if set.required => {
            v.err(FieldError::required(
                api_path,
                "set at least one API VIP (a free address in the machine network)",
            ));
            v.err(FieldError::required(
                ing_path,
                "set at least one ingress VIP (a free address in the machine network)",
            ));
        }
        (false, true) => v.err(FieldError::required(
            ing_path,
            "an ingress VIP is needed when an API VIP is set",
        )),
        (true, false) => v.err(FieldError::required(
            api_path,
            "an API VIP is needed when an ingress VIP is set",
        )),
        _ => {}
    }
}

/// Checks one list and returns the addresses that parsed.
fn one_list(
    cfg: &InstallConfig,
    set: &VipSet,
    list: &[IpAddrString],
    path: &str,
    what: &str,
    v: &mut Validation,
) -> Vec<IpAddr> {
    if list.len() > 2 {
        v.err(FieldError::too_many(path, list.len(), 2));
    }
    let mut ips = Vec::new();
    for (i, raw) in list.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let Some(ip) = raw.ip() else {
            v.err(FieldError::invalid(
                &p,
                raw,
                format!("{raw} is not an IP address; write the {what} VIP as e.g. 192.168.1.5"),
            ));
            continue;
        };
        if ip.to_canonical().is_unspecified() {
            v.err(FieldError::invalid(
                &p,
                raw,
                format!(
                    "{raw} is the unspecified address (any address), which no machine can \
                     announce as the {what} VIP; pick a free address in the machine network"
                ),
            ));
            continue;
        }
        if set.in_machine_network && !set.user_managed_lb {
            in_machine_network(cfg, ip, &p, v);
        }
        ips.push(ip);
    }
    let n = cfg.networking();
    match ips.as_slice() {
        [a, b] if a.is_ipv4() == b.is_ipv4() => v.err(FieldError::invalid(
            path,
            format!("{a},{b}"),
            format!("two {what} VIPs must be one IPv4 and one IPv6 address"),
        )),
        [a, _] if a.is_ipv6() && primary_is_v4(n) => v.err(FieldError::invalid(path, a, "list the IPv4 VIP before the IPv6 VIP")),
        [a] if is_dual_stack(n) && a.is_ipv4() != primary_is_v4(n) => v.err(FieldError::invalid(
            format!("{path}[0]"),
            a,
            format!("a single {what} VIP must have the IP family of the first machine network; add the other family as a second VIP or reorder"),
        )),
        _ => {}
    }
    ips
}

fn in_machine_network(cfg: &InstallConfig, ip: IpAddr, path: &str, v: &mut Validation) {
    let nets = &cfg.networking().machine_network;
    if !nets.iter().any(|m| m.cidr.masked().contains(&ip)) {
        let list: Vec<String> = nets.iter().map(|m| m.cidr.to_string()).collect();
        v.err(FieldError::invalid(
            path,
            ip,
            format!(
                "the VIP must lie inside a machine network ({})",
                list.join(", ")
            ),
        ));
    }
}
