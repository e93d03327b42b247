//! Small helpers over x509-parser: parsing PEM, "did A sign B", SAN lists, descriptions.

use std::net::IpAddr;

use pki::San;
use x509_parser::extensions::GeneralName;
use x509_parser::prelude::{FromDer as _, X509Certificate};

/// DER of every certificate in a PEM text; an error names `file`.
pub(crate) fn ders(pem: &str, file: &str) -> Result<Vec<Vec<u8>>, String> {
    let ders = pki::pem::certificates(pem, file).map_err(|e| e.to_string())?;
    if ders.is_empty() {
        return Err(format!("{file}: no PEM CERTIFICATE block found"));
    }
    Ok(ders)
}

/// Parses one DER certificate.
pub(crate) fn parse<'a>(der: &'a [u8], file: &str) -> Result<X509Certificate<'a>, String> {
    X509Certificate::from_der(der)
        .map(|(_, c)| c)
        .map_err(|e| format!("{file}: not a valid X.509 certificate: {e}"))
}

/// Whether `signer` issued `leaf`: the issuer name matches the signer's subject and the
/// signature verifies with the signer's public key. The error says which part failed.
pub(crate) fn signed_by(leaf: &X509Certificate, signer: &X509Certificate) -> Result<(), String> {
    if leaf.issuer().as_raw() != signer.subject().as_raw() {
        return Err(format!(
            "its issuer is \"{}\" but the signer is \"{}\"",
            leaf.issuer(),
            signer.subject()
        ));
    }
    leaf.verify_signature(Some(signer.public_key()))
        .map_err(|e| {
            format!(
                "the issuer name matches \"{}\" but the signature does not verify with that \
                 certificate's key ({e}): it was signed by another key with the same name",
                signer.subject()
            )
        })
}

/// Whether any certificate in `cas` issued `leaf`.
pub(crate) fn signed_by_any(leaf: &X509Certificate, cas: &[Vec<u8>]) -> bool {
    cas.iter()
        .any(|der| X509Certificate::from_der(der).is_ok_and(|(_, ca)| signed_by(leaf, &ca).is_ok()))
}

/// `"<subject>" (serial <hex>)`, enough to tell two certificates with the same name apart.
pub(crate) fn describe(cert: &X509Certificate) -> String {
    format!(
        "\"{}\" (serial {})",
        cert.subject(),
        cert.raw_serial_as_string()
    )
}

/// Describes every certificate of a DER list.
pub(crate) fn describe_all(ders: &[Vec<u8>]) -> String {
    let names: Vec<String> = ders
        .iter()
        .map(|d| parse(d, "").map_or_else(|e| e, |c| describe(&c)))
        .collect();
    names.join(", ")
}

/// The SANs of a certificate in order (DNS and IP entries; other kinds are ignored).
pub(crate) fn sans(cert: &X509Certificate) -> Vec<San> {
    let Ok(Some(ext)) = cert.subject_alternative_name() else {
        return Vec::new();
    };
    ext.value
        .general_names
        .iter()
        .filter_map(|name| match name {
            GeneralName::DNSName(dns) => Some(San::Dns((*dns).to_string())),
            GeneralName::IPAddress(bytes) => ip_from(bytes).map(San::Ip),
            _ => None,
        })
        .collect()
}

fn ip_from(bytes: &[u8]) -> Option<IpAddr> {
    match bytes.len() {
        4 => <[u8; 4]>::try_from(bytes).ok().map(IpAddr::from),
        16 => <[u8; 16]>::try_from(bytes).ok().map(IpAddr::from),
        _ => None,
    }
}

/// Whether `host` (a DNS name or an IP address, IPv6 possibly in brackets) is one of `sans`.
pub(crate) fn host_matches(host: &str, sans: &[San]) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let ip = bare.parse::<IpAddr>().ok();
    sans.iter().any(|san| match (san, ip) {
        (San::Ip(a), Some(b)) => *a == b,
        (San::Dns(name), _) => name.eq_ignore_ascii_case(bare),
        _ => false,
    })
}

/// SANs as text for messages.
pub(crate) fn san_text(sans: &[San]) -> String {
    if sans.is_empty() {
        return "none".into();
    }
    let items: Vec<String> = sans.iter().map(san_one).collect();
    items.join(", ")
}

/// One SAN as `DNS:x` or `IP:y`.
pub(crate) fn san_one(san: &San) -> String {
    match san {
        San::Dns(d) => format!("DNS:{d}"),
        San::Ip(ip) => format!("IP:{ip}"),
    }
}

/// Host part of an `https://host[:port]/path` URL and its port (default 443).
pub(crate) fn url_host_port(url: &str) -> Option<(String, u16)> {
    let rest = url.strip_prefix("https://")?;
    let authority = rest.split('/').next()?;
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        (h.to_string(), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    let port = match port {
        Some(p) => p.parse().ok()?,
        None => 443,
    };
    Some((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_host_matching() {
        assert_eq!(
            url_host_port("https://api-int.a.b:22623/config/master"),
            Some(("api-int.a.b".into(), 22623))
        );
        assert_eq!(
            url_host_port("https://[fd00::5]:22623/config/worker"),
            Some(("fd00::5".into(), 22623))
        );
        assert_eq!(url_host_port("http://x/"), None);
        let sans = vec![
            San::Dns("API.a.b".into()),
            San::Ip("10.0.0.5".parse().unwrap()),
        ];
        assert!(host_matches("api.a.b", &sans));
        assert!(host_matches("10.0.0.5", &sans));
        assert!(!host_matches("10.0.0.6", &sans));
        assert_eq!(san_text(&sans), "DNS:API.a.b, IP:10.0.0.5");
    }
}
