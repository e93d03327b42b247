//! The host's HTTPS proxy and its `NO_PROXY` list, matched as Go's net/http (and so podman
//! and CRI-O) match them.

use std::net::IpAddr;

use ipnet::IpNet;

/// An HTTPS proxy and the destinations that bypass it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proxy {
    /// The proxy's host and port (`http://` proxies only: the CONNECT tunnel is plain text).
    pub host: String,
    /// Its port.
    pub port: u16,
    /// `NO_PROXY`'s entries.
    no_proxy: Vec<String>,
}

/// Why a proxy URL cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProxyError {
    /// Not `http://host[:port]`.
    #[error(
        "the HTTPS proxy `{0}` is not http://HOST[:PORT] (the preflight tunnels through plain-HTTP proxies only)"
    )]
    Unsupported(String),
}

impl Proxy {
    /// The proxy of `https_proxy` (`http://[user:pass@]host[:port][/]`) bypassed for
    /// `no_proxy` (comma-separated); `None` when `https_proxy` is empty.
    pub fn new(https_proxy: &str, no_proxy: &str) -> Result<Option<Proxy>, ProxyError> {
        let url = https_proxy.trim();
        if url.is_empty() {
            return Ok(None);
        }
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| ProxyError::Unsupported(redact(url)))?;
        let authority = rest.split('/').next().unwrap_or_default();
        let host_port = authority.rsplit('@').next().unwrap_or_default();
        let (host, port) = crate::reference::endpoint(host_port);
        let port = if host_port.ends_with(&format!(":{port}")) {
            port
        } else {
            80
        };
        if host.is_empty() {
            return Err(ProxyError::Unsupported(redact(url)));
        }
        let no_proxy = no_proxy
            .split(',')
            .map(|e| e.trim().to_ascii_lowercase())
            .filter(|e| !e.is_empty())
            .collect();
        Ok(Some(Proxy {
            host,
            port,
            no_proxy,
        }))
    }

    /// Whether a connection to `host:port` goes through the proxy: not when `NO_PROXY` is
    /// `*`, names the host or a parent domain (`example.com` and `.example.com` both cover
    /// `a.example.com`), the IP, or a network holding the IP; an entry with a port covers
    /// that port only.
    pub fn applies_to(&self, host: &str, port: u16) -> bool {
        let host = host.to_ascii_lowercase();
        let ip: Option<IpAddr> = host.parse().ok();
        !self.no_proxy.iter().any(|entry| {
            if entry == "*" {
                return true;
            }
            if let Ok(net) = entry.parse::<IpNet>() {
                return ip.is_some_and(|ip| net.contains(&ip));
            }
            let (name, entry_port) = match entry.rsplit_once(':') {
                Some((n, p)) if p.parse::<u16>().is_ok() && !n.contains(':') => {
                    (n, p.parse::<u16>().ok())
                }
                _ => (entry.as_str(), None),
            };
            if entry_port.is_some_and(|p| p != port) {
                return false;
            }
            if let Ok(entry_ip) = name.trim_matches(['[', ']']).parse::<IpAddr>() {
                return ip == Some(entry_ip);
            }
            let domain = name.trim_start_matches("*.").trim_start_matches('.');
            host == domain || host.ends_with(&format!(".{domain}"))
        })
    }
}

/// The URL without its user information, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}<credentials>{}", &url[..s + 3], &url[at..]),
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_proxy_matches_as_go_matches_it() {
        let proxy = Proxy::new(
            "http://user:pw@proxy.example.com:3128/",
            "localhost, .svc,example.net,10.0.0.0/8,192.0.2.7,mirror.example.org:5000",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (proxy.host.as_str(), proxy.port),
            ("proxy.example.com", 3128)
        );
        assert!(proxy.applies_to("quay.io", 443));
        assert!(!proxy.applies_to("localhost", 5000));
        assert!(!proxy.applies_to("a.svc", 443));
        assert!(!proxy.applies_to("registry.example.net", 443));
        assert!(!proxy.applies_to("example.net", 443));
        assert!(proxy.applies_to("notexample.net", 443));
        assert!(!proxy.applies_to("10.1.2.3", 5000));
        assert!(!proxy.applies_to("192.0.2.7", 443));
        assert!(!proxy.applies_to("mirror.example.org", 5000));
        assert!(proxy.applies_to("mirror.example.org", 443));
        let all = Proxy::new("http://p:8080", "*").unwrap().unwrap();
        assert!(!all.applies_to("quay.io", 443));
        assert_eq!(Proxy::new("", "x").unwrap(), None);
        let https = Proxy::new("https://u:secret@p:3128", "").unwrap_err();
        assert!(!https.to_string().contains("secret"), "{https}");
    }
}
