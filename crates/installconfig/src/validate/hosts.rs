//! Bare-metal host list rules.
//!
//! The hosts become the cluster's BareMetalHost inventory, so (as upstream) they are required
//! and checked whenever the MachineAPI capability is on: enough hosts for every pool, unique
//! names and boot MACs, and settings the bare-metal operator can act on.

use std::collections::BTreeSet;

use super::Validation;
use super::features::enabled_capabilities;
use super::names::dns_subdomain_problem;
use crate::errors::FieldError;
use crate::types::{
    BaremetalHost, BaremetalPlatform, BootMode, Capability, HostRole, InstallConfig, yaml_name,
};

/// Path of the host list.
const HOSTS: &str = "platform.baremetal.hosts";

/// How to write a MAC address, for every message that refuses one.
pub const MAC_HINT: &str = "write the MAC address as six hex pairs, e.g. 52:54:00:12:34:56";

/// True for `aa:bb:cc:dd:ee:ff` (hex pairs separated by colons).
pub fn is_mac(s: &str) -> bool {
    let parts: Vec<&str> = s.split(':').collect();
    parts.len() == 6
        && parts
            .iter()
            .all(|p| p.len() == 2 && p.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Every host rule of platform baremetal.
pub(super) fn hosts(cfg: &InstallConfig, v: &mut Validation) {
    let Some(bm) = &cfg.platform.baremetal else {
        return;
    };
    if !enabled_capabilities(cfg).contains(&Capability::MachineApi) {
        return;
    }
    host_count(cfg, bm, v);
    let mut names = BTreeSet::new();
    let mut macs = BTreeSet::new();
    for (i, h) in bm.hosts.iter().enumerate() {
        let base = format!("{HOSTS}[{i}]");
        host_name(h, &base, &mut names, v);
        boot_mac(h, &base, &mut macs, v);
        boot_mode(h, &base, v);
        root_device(h, &base, v);
        network_config(h, &base, v);
    }
}

/// Hosts needed per pool: (role, replicas wanted, pool path).
fn pool_needs(cfg: &InstallConfig) -> [(HostRole, i64, &'static str); 3] {
    let arbiter = cfg.arbiter.as_ref().and_then(|a| a.replicas).unwrap_or(0);
    let compute = cfg.compute_replicas();
    [
        (
            HostRole::Master,
            cfg.control_plane_replicas(),
            "controlPlane",
        ),
        (HostRole::Arbiter, arbiter, "arbiter"),
        (HostRole::Worker, compute, "compute"),
    ]
}

/// Hosts with a role count for that pool; hosts without one fill the control plane first,
/// then the arbiter pool, then compute.
fn host_count(cfg: &InstallConfig, bm: &BaremetalPlatform, v: &mut Validation) {
    let needs = pool_needs(cfg);
    let mut have = [0i64; 3];
    for h in &bm.hosts {
        let slot = match h.role {
            Some(role) => needs.iter().position(|(r, _, _)| *r == role),
            None => (0..3).find(|&i| have[i] < needs[i].1),
        };
        if let Some(i) = slot {
            have[i] += 1;
        }
    }
    if bm.hosts.is_empty() {
        let total: i64 = needs.iter().map(|(_, n, _)| n).sum();
        return v.err(FieldError::required(
            HOSTS,
            format!(
                "list the {total} bare-metal hosts (name, role, bootMACAddress, bmc) of the cluster; without the MachineAPI capability no hosts are needed"
            ),
        ));
    }
    for ((role, wanted, pool), got) in needs.iter().zip(have) {
        if got < *wanted {
            v.err(FieldError::required(
                HOSTS,
                format!(
                    "{got} host(s) for the {wanted} {pool} replicas; add hosts with role {} (or without a role)",
                    yaml_name(role)
                ),
            ));
        }
    }
}

fn host_name(h: &BaremetalHost, base: &str, seen: &mut BTreeSet<String>, v: &mut Validation) {
    let path = format!("{base}.name");
    if h.name.trim().is_empty() {
        return v.err(FieldError::required(path, "give every host a name"));
    }
    if let Some(p) = dns_subdomain_problem(&h.name) {
        v.err(FieldError::invalid(
            &path,
            &h.name,
            format!("the host name becomes a BareMetalHost name and {p}"),
        ));
    }
    if !seen.insert(h.name.clone()) {
        v.err(FieldError::duplicate(
            path,
            &h.name,
            "host names must be unique",
        ));
    }
}

fn boot_mac(h: &BaremetalHost, base: &str, seen: &mut BTreeSet<String>, v: &mut Validation) {
    let path = format!("{base}.bootMACAddress");
    let Some(mac) = h.boot_mac_address.as_deref().filter(|m| !m.is_empty()) else {
        return v.err(FieldError::required(
            path,
            "set the MAC address the host boots from, e.g. 52:54:00:12:34:56",
        ));
    };
    if !is_mac(mac) {
        v.err(FieldError::invalid(path, mac, MAC_HINT));
    } else if !seen.insert(mac.to_ascii_lowercase()) {
        v.err(FieldError::duplicate(
            path,
            mac,
            "every host needs its own boot MAC address",
        ));
    }
}

/// BMC drivers that cannot boot a host in UEFI secure-boot mode.
const NO_SECURE_BOOT_DRIVERS: [&str; 2] = ["ipmi", "ilo4"];

fn boot_mode(h: &BaremetalHost, base: &str, v: &mut Validation) {
    if h.boot_mode != Some(BootMode::UefiSecureBoot) {
        return;
    }
    let driver = h
        .bmc
        .as_ref()
        .and_then(|b| b.address.split_once("://").map(|(scheme, _)| scheme))
        .map(|scheme| scheme.split('+').next().unwrap_or(scheme));
    if let Some(d) = driver.filter(|d| NO_SECURE_BOOT_DRIVERS.contains(d)) {
        v.err(FieldError::invalid(
            format!("{base}.bootMode"),
            "UEFISecureBoot",
            format!("BMC driver {d} does not support UEFI secure boot; use UEFI, or a Redfish BMC address"),
        ));
    }
}

/// The root device name must be a /dev path, directly or under /dev/disk/by-path/.
fn root_device(h: &BaremetalHost, base: &str, v: &mut Validation) {
    let Some(dev) = h
        .root_device_hints
        .as_ref()
        .and_then(|r| r.device_name.as_deref())
        .filter(|d| !d.is_empty())
    else {
        return;
    };
    let path = format!("{base}.rootDeviceHints.deviceName");
    let Some(rest) = dev.strip_prefix("/dev/") else {
        return v.err(FieldError::invalid(
            path,
            dev,
            "the root device name must be a /dev/ path, e.g. /dev/sda",
        ));
    };
    if rest.trim_start_matches("disk/by-path/").contains('/') {
        v.err(FieldError::invalid(
            path,
            dev,
            "use a device directly in /dev/ or in /dev/disk/by-path/ (other links are not stable hints)",
        ));
    }
}

/// NMState reads `mtu` as an integer; a quoted number is refused by the host's network setup.
fn network_config(h: &BaremetalHost, base: &str, v: &mut Validation) {
    let Some(interfaces) = h
        .network_config
        .as_ref()
        .and_then(|c| c.get("interfaces"))
        .and_then(|i| i.as_array())
    else {
        return;
    };
    for (i, iface) in interfaces.iter().enumerate() {
        let Some(mtu) = iface.get("mtu") else {
            continue;
        };
        if !(mtu.is_u64() || mtu.is_i64()) {
            v.err(FieldError::invalid(
                format!("{base}.networkConfig.interfaces[{i}].mtu"),
                mtu,
                "the MTU must be an integer, e.g. 9000 (not a quoted string)",
            ));
        }
    }
}
