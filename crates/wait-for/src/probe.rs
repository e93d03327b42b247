//! A diagnostic TLS connection that remembers what the server presented.
//!
//! kube's errors say "invalid peer certificate: UnknownIssuer" and stop there. When the API
//! phase sees a connection-level error, this probe connects once more with the same trust
//! anchors, server name and client certificate, but through a verifier that records the
//! server's certificate and the verdict. The verdict is the real one (the kubeconfig's CA
//! only): the probe never accepts a certificate the client would reject, and it only sends
//! `GET /version`.

use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{CertificateError, ClientConfig};
use tls_peer::PeerRecorder;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

use crate::client::Endpoint;

const STEP: Duration = Duration::from_secs(5);

/// Subject, issuer and names of a certificate, as people read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CertInfo {
    pub subject: String,
    pub issuer: String,
    pub names: Vec<String>,
    pub not_before: String,
    pub not_after: String,
}

impl CertInfo {
    pub(crate) fn from_der(der: &[u8]) -> CertInfo {
        let Ok((_, cert)) = x509_parser::parse_x509_certificate(der) else {
            return CertInfo {
                subject: "<unparsable certificate>".into(),
                issuer: "<unknown>".into(),
                names: vec![],
                not_before: String::new(),
                not_after: String::new(),
            };
        };
        let mut names = Vec::new();
        if let Ok(Some(san)) = cert.subject_alternative_name() {
            for n in &san.value.general_names {
                match n {
                    x509_parser::extensions::GeneralName::DNSName(d) => names.push(d.to_string()),
                    x509_parser::extensions::GeneralName::IPAddress(ip) => names.push(ip_text(ip)),
                    _ => {}
                }
            }
        }
        CertInfo {
            subject: cert.subject().to_string(),
            issuer: cert.issuer().to_string(),
            names,
            not_before: rfc3339(&cert.validity().not_before),
            not_after: rfc3339(&cert.validity().not_after),
        }
    }
}

fn rfc3339(t: &x509_parser::time::ASN1Time) -> String {
    t.to_datetime()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| t.to_string())
}

/// This machine's time, as Go's x509 error prints "current time".
fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

fn ip_text(b: &[u8]) -> String {
    match b.len() {
        4 => std::net::Ipv4Addr::new(b[0], b[1], b[2], b[3]).to_string(),
        16 => {
            let a: [u8; 16] = b.try_into().unwrap_or([0; 16]);
            std::net::Ipv6Addr::from(a).to_string()
        }
        _ => format!("{b:?}"),
    }
}

/// What one probe connection found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ProbeOutcome {
    /// TLS worked and the server answered `GET /version` with this HTTP status.
    Http(u16),
    /// Nothing listens on the port.
    Refused,
    /// The host name does not resolve.
    Dns(String),
    /// No answer (filtered, routed nowhere, machine down).
    Unreachable(String),
    /// The kubeconfig's CA does not accept the server's certificate.
    ServerCertRejected {
        presented: CertInfo,
        error: CertificateError,
        trusted: Vec<String>,
        server_name: String,
    },
    /// The server refused our client certificate (TLS alert, closed connection, 401/403).
    ClientCertRejected { how: String, client: CertInfo },
    /// Anything else.
    Other(String),
}

impl ProbeOutcome {
    /// One line naming the certificate and the disagreement.
    pub(crate) fn message(&self) -> String {
        match self {
            ProbeOutcome::Http(code) => format!("TLS handshake fine, HTTP {code}"),
            ProbeOutcome::Refused => "connection refused".into(),
            ProbeOutcome::Dns(e) => format!("DNS lookup failed: {e}"),
            ProbeOutcome::Unreachable(e) => format!("no answer: {e}"),
            ProbeOutcome::ServerCertRejected {
                presented,
                error,
                trusted,
                server_name,
            } => server_cert_message(presented, error, trusted, server_name),
            ProbeOutcome::ClientCertRejected { how, client } => format!(
                "the API server rejected the kubeconfig's client certificate {} (issued by \"{}\"): {how}",
                presented_name(client),
                client.issuer
            ),
            ProbeOutcome::Other(e) => e.clone(),
        }
    }
}

fn presented_name(c: &CertInfo) -> String {
    format!("\"{}\"", c.subject)
}

fn server_cert_message(
    p: &CertInfo,
    error: &CertificateError,
    trusted: &[String],
    server_name: &str,
) -> String {
    let cert = presented_name(p);
    match error {
        CertificateError::UnknownIssuer | CertificateError::BadSignature => format!(
            "x509: unknown authority: server certificate {cert} issued by \"{}\", \
             kubeconfig trusts {}",
            p.issuer,
            trusted
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
            format!(
                "x509: server certificate {cert} (issued by \"{}\") is valid for [{}], not for \
                 \"{server_name}\"",
                p.issuer,
                p.names.join(", ")
            )
        }
        // Go's crypto/x509 words (what the bootstrap host's own components log for the
        // same certificate), then which certificate and its validity.
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => format!(
            "x509: certificate has expired or is not yet valid: current time {} is after {}: \
             server certificate {cert} valid from {} to {}",
            now_rfc3339(),
            p.not_after,
            p.not_before,
            p.not_after
        ),
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => format!(
            "x509: certificate has expired or is not yet valid: current time {} is before {}: \
             server certificate {cert} valid from {} to {}",
            now_rfc3339(),
            p.not_before,
            p.not_before,
            p.not_after
        ),
        other => format!(
            "x509: server certificate {cert} issued by \"{}\" rejected: {other:?}",
            p.issuer
        ),
    }
}

fn tls_config(ep: &Endpoint, recorder: &Arc<PeerRecorder>) -> Result<ClientConfig, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&ep.client_cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("client certificate: {e}"))?;
    let key = PrivateKeyDer::from_pem_slice(&ep.client_key_pem)
        .map_err(|e| format!("client key: {e}"))?;
    recorder
        .client_config()
        .map_err(|e| e.to_string())?
        .with_client_auth_cert(chain, key)
        .map_err(|e| format!("client certificate/key: {e}"))
}

/// Judges like the real client (webpki, the kubeconfig's CAs only) and remembers what the
/// server presented.
fn recorder(ep: &Endpoint) -> Result<Arc<PeerRecorder>, String> {
    PeerRecorder::judging(&ep.trusted)
        .map(Arc::new)
        .map_err(|e| format!("kubeconfig CA: {e}"))
}

fn rustls_inner(e: &std::io::Error) -> Option<&rustls::Error> {
    e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>())
}

fn client_info(ep: &Endpoint) -> CertInfo {
    CertificateDer::pem_slice_iter(&ep.client_cert_pem)
        .next()
        .and_then(Result::ok)
        .map(|c| CertInfo::from_der(&c))
        .unwrap_or_else(|| CertInfo::from_der(&[]))
}

/// Connect, handshake, `GET /version`, and say what happened.
pub(crate) async fn probe(ep: &Endpoint) -> ProbeOutcome {
    let tcp = match timeout(STEP, TcpStream::connect((ep.host.as_str(), ep.port))).await {
        Err(_) => return ProbeOutcome::Unreachable(format!("no TCP answer within {STEP:?}")),
        Ok(Err(e)) => return connect_error(e),
        Ok(Ok(s)) => s,
    };
    let rec = match recorder(ep) {
        Ok(r) => r,
        Err(e) => return ProbeOutcome::Other(e),
    };
    let config = match tls_config(ep, &rec) {
        Ok(c) => c,
        Err(e) => return ProbeOutcome::Other(e),
    };
    let Ok(name) = ServerName::try_from(ep.server_name.clone()) else {
        return ProbeOutcome::Other(format!("invalid server name {:?}", ep.server_name));
    };
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tls = match timeout(STEP, connector.connect(name, tcp)).await {
        Err(_) => return ProbeOutcome::Unreachable("TLS handshake timed out".into()),
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return handshake_error(ep, &rec, &e),
    };
    request_version(ep, tls).await
}

fn connect_error(e: std::io::Error) -> ProbeOutcome {
    let text = e.to_string();
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => ProbeOutcome::Refused,
        _ if text.contains("lookup") || text.contains("resolve") => ProbeOutcome::Dns(text),
        _ => ProbeOutcome::Unreachable(text),
    }
}

fn handshake_error(ep: &Endpoint, rec: &PeerRecorder, e: &std::io::Error) -> ProbeOutcome {
    if let Some(seen) = rec.presented()
        && let Some(rustls::Error::InvalidCertificate(error)) = seen.rejection()
    {
        return ProbeOutcome::ServerCertRejected {
            presented: CertInfo::from_der(seen.leaf()),
            error: error.clone(),
            trusted: ep
                .trusted
                .iter()
                .map(|c| CertInfo::from_der(c).subject)
                .collect(),
            server_name: ep.server_name.clone(),
        };
    }
    match rustls_inner(e) {
        Some(rustls::Error::AlertReceived(alert)) => ProbeOutcome::ClientCertRejected {
            how: format!("TLS alert {alert:?} during the handshake"),
            client: client_info(ep),
        },
        Some(other) => ProbeOutcome::Other(format!("TLS handshake failed: {other}")),
        None => ProbeOutcome::Other(format!("TLS handshake failed: {e}")),
    }
}

async fn request_version(
    ep: &Endpoint,
    mut tls: tokio_rustls::client::TlsStream<TcpStream>,
) -> ProbeOutcome {
    let req = format!(
        "GET /version HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
        ep.server_name
    );
    if let Err(e) = tls.write_all(req.as_bytes()).await {
        return after_handshake_error(ep, &e);
    }
    let mut buf = Vec::new();
    match timeout(STEP, tls.read_to_end(&mut buf)).await {
        Err(_) => ProbeOutcome::Unreachable("no HTTP answer after the TLS handshake".into()),
        Ok(Err(e)) if buf.is_empty() => after_handshake_error(ep, &e),
        Ok(_) => http_outcome(ep, &buf),
    }
}

fn after_handshake_error(ep: &Endpoint, e: &std::io::Error) -> ProbeOutcome {
    let how = match rustls_inner(e) {
        Some(rustls::Error::AlertReceived(alert)) => format!("TLS alert {alert:?}"),
        _ => format!("connection closed right after the TLS handshake ({e})"),
    };
    ProbeOutcome::ClientCertRejected {
        how,
        client: client_info(ep),
    }
}

fn http_outcome(ep: &Endpoint, buf: &[u8]) -> ProbeOutcome {
    let head = String::from_utf8_lossy(&buf[..buf.len().min(64)]).to_string();
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse::<u16>().ok());
    match code {
        Some(c @ (401 | 403)) => ProbeOutcome::ClientCertRejected {
            how: format!(
                "HTTP {c} {}",
                if c == 401 {
                    "Unauthorized"
                } else {
                    "Forbidden"
                }
            ),
            client: client_info(ep),
        },
        Some(c) => ProbeOutcome::Http(c),
        None if buf.is_empty() => ProbeOutcome::ClientCertRejected {
            how: "connection closed right after the TLS handshake without an answer".into(),
            client: client_info(ep),
        },
        None => ProbeOutcome::Other(format!("not an HTTP answer: {head:?}")),
    }
}
