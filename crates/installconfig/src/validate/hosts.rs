//! Bare-metal host list rules.

use super::Validation;
use crate::errors::FieldError;
use crate::types::InstallConfig;

/// Roles a bare-metal host may have.
pub const HOST_ROLES: [&str; 3] = ["master", "worker", "arbiter"];

fn is_mac(s: &str) -> bool {
    let parts: Vec<&str> = s.split(':').collect();
    parts.len() == 6
        && parts
            .iter()
            .all(|p| p.len() == 2 && p.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Host names and boot MACs are unique, MACs are well-formed, roles are known.
pub fn hosts(cfg: &InstallConfig, v: &mut Validation) {
    let Some(bm) = &cfg.platform.baremetal else {
        return;
    };
    let mut names: Vec<&str> = Vec::new();
    let mut macs: Vec<String> = Vec::new();
    for (i, h) in bm.hosts.iter().enumerate() {
        let base = format!("platform.baremetal.hosts[{i}]");
        if h.name.trim().is_empty() {
            v.err(FieldError::required(
                format!("{base}.name"),
                "give every host a name",
            ));
        } else if names.contains(&h.name.as_str()) {
            v.err(FieldError::duplicate(
                format!("{base}.name"),
                &h.name,
                "host names must be unique",
            ));
        }
        names.push(&h.name);
        if let Some(mac) = &h.boot_mac_address {
            let lower = mac.to_ascii_lowercase();
            if !is_mac(mac) {
                v.err(FieldError::invalid(
                    format!("{base}.bootMACAddress"),
                    mac,
                    "write the MAC address as six hex pairs, e.g. 52:54:00:12:34:56",
                ));
            } else if macs.contains(&lower) {
                v.err(FieldError::duplicate(
                    format!("{base}.bootMACAddress"),
                    mac,
                    "every host needs its own boot MAC address",
                ));
            }
            macs.push(lower);
        }
        if let Some(role) = h.role.as_deref().filter(|r| !HOST_ROLES.contains(r)) {
            v.err(FieldError::not_supported(
                format!("{base}.role"),
                role,
                &HOST_ROLES,
            ));
        }
    }
}
