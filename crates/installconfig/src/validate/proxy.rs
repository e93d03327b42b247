//! Proxy and noProxy rules.

use std::net::IpAddr;

use ipnet::IpNet;

use super::Validation;
use super::network::{OVN_DEFAULT_JOIN_V4, configured_join_subnet};
use crate::errors::FieldError;
use crate::types::InstallConfig;

/// The parts of a proxy URL that the rules need.
struct ProxyUrl {
    scheme: String,
    host: String,
}

fn parse_url(s: &str) -> Result<ProxyUrl, String> {
    let (scheme, rest) = s
        .split_once("://")
        .ok_or("is not a URL; write it as http://host:port")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return Err("has an invalid scheme".into());
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match hostport.strip_prefix('[') {
        Some(v6) => {
            let (h, after) = v6
                .split_once(']')
                .ok_or("has an unterminated IPv6 address")?;
            (h, after.strip_prefix(':').unwrap_or_default())
        }
        None => hostport.split_once(':').unwrap_or((hostport, "")),
    };
    if host.is_empty() {
        return Err("has no host".into());
    }
    if !port.is_empty() && port.parse::<u16>().is_err() {
        return Err(format!("has an invalid port {port:?}"));
    }
    Ok(ProxyUrl {
        scheme: scheme.to_ascii_lowercase(),
        host: host.to_string(),
    })
}

/// Every proxy rule.
pub(super) fn proxy(cfg: &InstallConfig, v: &mut Validation) {
    let Some(p) = &cfg.proxy else { return };
    if p.http_proxy.is_empty() && p.https_proxy.is_empty() {
        v.err(FieldError::required(
            "proxy",
            "set httpProxy or httpsProxy (or remove the proxy section)",
        ));
    }
    for (path, value, schemes) in [
        ("proxy.httpProxy", &p.http_proxy, &["http"][..]),
        ("proxy.httpsProxy", &p.https_proxy, &["http", "https"][..]),
    ] {
        if !value.is_empty() {
            one_proxy(cfg, path, value, schemes, v);
        }
    }
    if !p.no_proxy.is_empty() {
        no_proxy(&p.no_proxy, v);
    }
}

fn one_proxy(cfg: &InstallConfig, path: &str, value: &str, schemes: &[&str], v: &mut Validation) {
    let url = match parse_url(value) {
        Ok(u) => u,
        Err(e) => return v.err(FieldError::invalid(path, value, format!("the proxy {e}"))),
    };
    if !schemes.contains(&url.scheme.as_str()) {
        v.err(FieldError::not_supported(path, &url.scheme, schemes));
    }
    let Ok(ip) = url.host.parse::<IpAddr>() else {
        return;
    };
    let n = cfg.networking();
    let inside = |nets: Vec<IpNet>| nets.iter().any(|c| c.contains(&ip));
    if inside(n.cluster_network.iter().map(|c| c.cidr.masked()).collect()) {
        v.err(FieldError::invalid(
            path,
            value,
            "the proxy address lies in a cluster (pod) network; nodes could not reach it",
        ));
    }
    if inside(n.service_network.iter().map(|c| c.masked()).collect()) {
        v.err(FieldError::invalid(
            path,
            value,
            "the proxy address lies in the service network; nodes could not reach it",
        ));
    }
    let join = configured_join_subnet(n).map_or_else(
        || OVN_DEFAULT_JOIN_V4.parse::<IpNet>().ok(),
        |c| Some(c.masked()),
    );
    if join.is_some_and(|j| j.contains(&ip)) {
        v.err(FieldError::invalid(
            path,
            value,
            "the proxy address lies in the OVN-Kubernetes join subnet; nodes could not reach it",
        ));
    }
}

fn no_proxy(value: &str, v: &mut Validation) {
    let path = "proxy.noProxy";
    if value == "*" {
        return;
    }
    if value.contains(char::is_whitespace) {
        v.err(FieldError::invalid(
            path,
            value,
            "noProxy is a comma-separated list without spaces; remove the spaces",
        ));
        return;
    }
    for (i, item) in value.split(',').enumerate().filter(|(_, s)| !s.is_empty()) {
        if item.parse::<IpAddr>().is_ok()
            || item.parse::<IpNet>().is_ok()
            || is_no_proxy_domain(item)
        {
            continue;
        }
        v.err(FieldError::invalid(
            path,
            value,
            format!("element {i} ({item:?}) is not an IP, a CIDR or a domain; wildcards are not allowed (use .example.com to match sub-domains)"),
        ));
    }
}

fn is_no_proxy_domain(s: &str) -> bool {
    let d = s
        .strip_prefix('.')
        .unwrap_or(s)
        .trim_end_matches('.')
        .to_ascii_lowercase();
    super::names::dns_subdomain_problem(&d).is_none()
}
