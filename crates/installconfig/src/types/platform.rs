//! [`Platform`]: the platforms okd-install implements, and what differs between them.
//!
//! Every rule that depends on the platform is a method here, so that validation, asset
//! generation, templates and the wait commands ask the type instead of comparing platform
//! names; the names themselves are spelt once, in [`Platform::name`].

use std::fmt;
use std::time::Duration;

use super::Capability;

/// A platform okd-install implements: the key set under `platform` in install-config.yaml.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Platform {
    /// `none`: user-provided load balancers and DNS, no platform integration.
    None,
    /// `baremetal`: hosts the user provisions, API and ingress on virtual IPs.
    Baremetal,
    /// `vsphere`: VMware vSphere, API and ingress on virtual IPs when given.
    Vsphere,
}

impl Platform {
    /// Every implemented platform, in the order they are offered to users.
    pub const ALL: [Platform; 3] = [Platform::None, Platform::Baremetal, Platform::Vsphere];

    /// The key under `platform` in install-config.yaml (also the name in messages and in
    /// the platform-limits table).
    pub const fn name(self) -> &'static str {
        match self {
            Platform::None => "none",
            Platform::Baremetal => "baremetal",
            Platform::Vsphere => "vsphere",
        }
    }

    /// The platform whose key is `name`; `None` for keys okd-install does not implement.
    pub fn from_name(name: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The API and ingress are served on virtual IPs (`apiVIPs`, `ingressVIPs`) that the
    /// hosts' keepalived moves around. Where VIPs are set, machines boot before cluster DNS
    /// answers, so they reach the Machine Config Server through the first API VIP, the
    /// certificates name the VIPs, and the bootstrap host runs the on-prem DNS set-up.
    pub const fn serves_on_vips(self) -> bool {
        matches!(self, Platform::Baremetal | Platform::Vsphere)
    }

    /// A one-node control plane (single node, bootstrap in place) is supported.
    pub const fn allows_single_node(self) -> bool {
        matches!(self, Platform::None)
    }

    /// The cluster name may contain dots. On VIP platforms the name becomes part of host
    /// and object names where a dot is not allowed.
    pub const fn allows_dotted_cluster_name(self) -> bool {
        !self.serves_on_vips()
    }

    /// Dual-stack networks may list IPv6 first (an IPv6-primary cluster).
    pub const fn allows_ipv6_primary(self) -> bool {
        self.serves_on_vips()
    }

    /// An arbiter pool (two masters plus a small arbiter node) is supported.
    pub const fn allows_arbiter(self) -> bool {
        matches!(self, Platform::Baremetal)
    }

    /// Hosts boot exactly the Ignition config they are given, which `bootstrapPivot` needs
    /// (the bootstrap host later becomes a control-plane node).
    pub const fn boots_given_ignition(self) -> bool {
        matches!(self, Platform::None | Platform::Baremetal)
    }

    /// No cloud provider: the CloudCredential and CloudControllerManager capabilities may
    /// be disabled.
    pub const fn cloud_free(self) -> bool {
        matches!(self, Platform::None | Platform::Baremetal)
    }

    /// The capability the platform's operators need, which must stay enabled.
    pub const fn required_capability(self) -> Option<Capability> {
        match self {
            Platform::Baremetal => Some(Capability::Baremetal),
            Platform::None | Platform::Vsphere => None,
        }
    }

    /// The bootstrap host takes its hostname from DHCP only and keeps stable DHCPv6
    /// identities. Baremetal hosts hold the API VIP at times: with a PTR record for the API
    /// name, a reverse lookup would otherwise make the API name the host's hostname.
    pub const fn hostname_from_dhcp_only(self) -> bool {
        matches!(self, Platform::Baremetal)
    }
}

/// How long `wait-for` waits by default where the platform matters (upstream's budgets):
/// `wait-for` takes them as settings, so it needs no install-config types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitBudgets {
    /// The bootstrap phase of `wait-for bootstrap-complete`: 45 minutes, 60 on bare metal and
    /// vSphere.
    pub bootstrap: Duration,
    /// Cluster initialization in `wait-for install-complete`: 40 minutes, 60 on bare metal.
    pub cluster_initialization: Duration,
}

impl WaitBudgets {
    /// The budgets on `platform` (`None` when it is not known).
    pub fn for_platform(platform: Option<Platform>) -> WaitBudgets {
        let slow_bootstrap = matches!(platform, Some(Platform::Baremetal | Platform::Vsphere));
        let slow_install = platform == Some(Platform::Baremetal);
        let minutes = |m: u64| Duration::from_secs(m * 60);
        WaitBudgets {
            bootstrap: minutes(if slow_bootstrap { 60 } else { 45 }),
            cluster_initialization: minutes(if slow_install { 60 } else { 40 }),
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::PlatformSection;

    /// `name` is the serde spelling of the section key: a section with only that key set
    /// parses back to the same platform.
    #[test]
    fn names_are_the_install_config_keys() {
        for p in Platform::ALL {
            let yaml = format!("{}: {{}}\n", p.name());
            let section: PlatformSection =
                serde_saphyr::from_str(&yaml).unwrap_or_else(|e| panic!("{yaml}: {e}"));
            assert_eq!(section.kind(), Some(p), "{yaml}");
            assert_eq!(section.name(), p.name());
            assert_eq!(Platform::from_name(p.name()), Some(p));
            assert_eq!(p.to_string(), p.name());
        }
        assert_eq!(Platform::from_name("aws"), None);
    }
}
