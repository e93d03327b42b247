//! Pointer configs (`master.ign`, `worker.ign`, `arbiter.ign`): a merge directive that
//! fetches the real config from the Machine Config Server, trusting only the root CA.

use std::fmt;
use std::net::IpAddr;

use serde_json::json;

use crate::{SPEC_VERSION, encode_data_url};

/// Port of the Machine Config Server's TLS endpoint.
pub const MCS_PORT: u16 = 22623;

/// The host part of the merge source URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PointerHost {
    /// `api-int.<cluster domain>`, the name itself ([`contract::ClusterNames::api_int`]).
    ApiInt(String),
    /// An API virtual IP (written in brackets if IPv6).
    Vip(IpAddr),
    /// A literal host name or address, e.g. a load balancer address known after
    /// infrastructure creation.
    Literal(String),
}

impl PointerHost {
    /// The API VIP machines reach the Machine Config Server through, when the platform
    /// has one (the install config decides: machines on VIP platforms boot before cluster
    /// DNS answers), else `api_int`, the cluster's `api-int.<cluster domain>` name.
    ///
    /// A VIP that is not an IP address is used verbatim (install-config validation reports
    /// it separately).
    pub fn new(api_int: &str, api_vip: Option<&str>) -> Self {
        match api_vip {
            Some(vip) => match vip.parse::<IpAddr>() {
                Ok(ip) => PointerHost::Vip(ip),
                Err(_) => PointerHost::Literal(vip.to_string()),
            },
            None => PointerHost::ApiInt(api_int.to_string()),
        }
    }
}

impl fmt::Display for PointerHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PointerHost::ApiInt(name) => f.write_str(name),
            PointerHost::Vip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
            PointerHost::Vip(IpAddr::V4(ip)) => write!(f, "{ip}"),
            PointerHost::Literal(host) => f.write_str(host),
        }
    }
}

/// Compact pointer config for `role` (`master`, `worker`, `arbiter`).
///
/// Shape: `ignition.config.merge[0].source` = `https://<host>:22623/config/<role>`,
/// `ignition.security.tls.certificateAuthorities[0].source` = the root CA PEM as a data URL,
/// `ignition.version` = 3.2.0, in that key order.
pub fn pointer_config(role: &str, host: PointerHost, root_ca_pem: &str) -> String {
    let value = json!({
        "ignition": {
            "config": {
                "merge": [{ "source": format!("https://{host}:{MCS_PORT}/config/{role}") }]
            },
            "security": {
                "tls": {
                    "certificateAuthorities": [{ "source": encode_data_url(root_ca_pem.as_bytes()) }]
                }
            },
            "version": SPEC_VERSION
        }
    });
    value.to_string()
}
