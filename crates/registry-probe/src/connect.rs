//! The transport steps of a pull, each with its own bounded wait and its own fault: the
//! name (or the `--resolve` override), TCP, the proxy's CONNECT tunnel, TLS against the
//! host's trust; then an HTTP/1.1 connection over it.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use contract::registry_error::RegistryFault;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use rustls::CertificateError;
use rustls_pki_types::ServerName;
use tls_peer::PeerRecorder;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

use crate::{Failure, Settings};

/// One HTTP/1.1 connection to a registry (or a host it sends the client to).
pub(crate) type Conn = SendRequest<Full<Bytes>>;

/// Opens an HTTPS connection to `host:port`, through the proxy when it applies; every
/// failure is named for `registry` (how the pull names the registry).
pub(crate) async fn open(
    settings: &Settings,
    registry: &str,
    host: &str,
    port: u16,
) -> Result<Conn, Failure> {
    let fail = |fault, detail: String| Failure::new(registry, Some(fault), Some(detail));
    let tcp = match settings.proxy.as_ref().filter(|p| p.applies_to(host, port)) {
        None => {
            let addrs = resolve(settings, host, port)
                .await
                .map_err(|(f, d)| fail(f, d))?;
            dial(settings, &addrs).await.map_err(|(f, d)| fail(f, d))?
        }
        Some(proxy) => {
            let at_proxy = |(f, d): (RegistryFault, String)| {
                Failure::at_proxy(registry, format!("{}:{}", proxy.host, proxy.port), f, d)
            };
            let addrs = resolve(settings, &proxy.host, proxy.port)
                .await
                .map_err(at_proxy)?;
            let mut tcp = dial(settings, &addrs).await.map_err(at_proxy)?;
            tunnel(settings, &mut tcp, host, port)
                .await
                .map_err(at_proxy)?;
            tcp
        }
    };
    let tls = handshake(settings, registry, host, tcp).await?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .map_err(|e| Failure::new(registry, None, Some(format!("HTTP over TLS failed: {e}"))))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// The addresses to dial for `host:port`: a `--resolve` override (`host:port` first, then
/// `host`; a port 0 takes `port`), else the system resolver, within the connect timeout.
async fn resolve(
    settings: &Settings,
    host: &str,
    port: u16,
) -> Result<Vec<SocketAddr>, (RegistryFault, String)> {
    let with_port = |a: SocketAddr| match a.port() {
        0 => SocketAddr::new(a.ip(), port),
        _ => a,
    };
    if let Some(addr) = settings.overrides.get(&format!("{host}:{port}")) {
        return Ok(vec![*addr]);
    }
    if let Some(addr) = settings.overrides.get(host) {
        return Ok(vec![with_port(*addr)]);
    }
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    match timeout(
        settings.connect_timeout,
        tokio::net::lookup_host((host, port)),
    )
    .await
    {
        Err(_) => Err((
            RegistryFault::Timeout,
            format!(
                "resolving {host} took longer than {}s",
                settings.connect_timeout.as_secs()
            ),
        )),
        // getaddrinfo's EAI_AGAIN: no name server answered, which is not a missing record.
        Ok(Err(e))
            if e.to_string()
                .contains("Temporary failure in name resolution") =>
        {
            Err((
                RegistryFault::ResolverUnreachable,
                format!("no name server answered the lookup of {host}: {e}"),
            ))
        }
        Ok(Err(e)) => Err((
            RegistryFault::NameNotResolved,
            format!("the resolver said: {e}"),
        )),
        Ok(Ok(addrs)) => {
            let addrs: Vec<SocketAddr> = addrs.collect();
            if addrs.is_empty() {
                return Err((
                    RegistryFault::NameNotResolved,
                    "it resolves to no address".into(),
                ));
            }
            Ok(addrs)
        }
    }
}

/// TCP to the first address that accepts, each within the connect timeout.
async fn dial(
    settings: &Settings,
    addrs: &[SocketAddr],
) -> Result<TcpStream, (RegistryFault, String)> {
    let mut last = (RegistryFault::Unreachable, "no address to dial".to_string());
    for addr in addrs {
        match timeout(settings.connect_timeout, TcpStream::connect(addr)).await {
            Ok(Ok(s)) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Ok(Err(e)) => {
                let fault = match e.kind() {
                    io::ErrorKind::ConnectionRefused => RegistryFault::ConnectionRefused,
                    io::ErrorKind::TimedOut => RegistryFault::Timeout,
                    _ => RegistryFault::Unreachable,
                };
                last = (fault, format!("dialled {addr}: {e}"));
            }
            Err(_) => {
                last = (
                    RegistryFault::Timeout,
                    format!(
                        "dialled {addr}, no answer in {}s",
                        settings.connect_timeout.as_secs()
                    ),
                )
            }
        }
    }
    Err(last)
}

/// `CONNECT host:port` through the proxy; anything but a 2xx answer means the proxy could
/// not (or would not) reach the registry.
async fn tunnel(
    settings: &Settings,
    tcp: &mut TcpStream,
    host: &str,
    port: u16,
) -> Result<(), (RegistryFault, String)> {
    let authority = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let ask = async {
        tcp.write_all(
            format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n").as_bytes(),
        )
        .await?;
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
            if tcp.read(&mut byte).await? == 0 {
                break;
            }
            head.push(byte[0]);
        }
        Ok::<_, io::Error>(String::from_utf8_lossy(&head).into_owned())
    };
    let head = match timeout(settings.request_timeout, ask).await {
        Err(_) => {
            return Err((
                RegistryFault::Timeout,
                "the proxy did not answer CONNECT".into(),
            ));
        }
        Ok(Err(e)) => return Err((RegistryFault::Unreachable, format!("CONNECT failed: {e}"))),
        Ok(Ok(h)) => h,
    };
    let status = head.lines().next().unwrap_or_default().trim().to_string();
    let code = status.split_whitespace().nth(1).unwrap_or_default();
    if code.starts_with('2') {
        return Ok(());
    }
    Err((
        RegistryFault::Unreachable,
        format!("the proxy answered CONNECT {authority} with `{status}`"),
    ))
}

/// TLS to `host` trusting exactly the settings' anchors (the host's trust); a rejected
/// certificate is named by what webpki found wrong with it.
async fn handshake(
    settings: &Settings,
    registry: &str,
    host: &str,
    tcp: TcpStream,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, Failure> {
    let other = |d: String| Failure::new(registry, None, Some(d));
    let recorder = Arc::new(
        PeerRecorder::judging(&settings.anchors)
            .map_err(|e| other(format!("the trust anchors cannot be used: {e}")))?,
    );
    let config = recorder
        .client_config()
        .map_err(|e| other(e.to_string()))?
        .with_no_client_auth();
    let name = ServerName::try_from(host.to_string())
        .map_err(|e| other(format!("{host} is not a valid TLS name: {e}")))?;
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    match timeout(settings.request_timeout, connector.connect(name, tcp)).await {
        Ok(Ok(tls)) => Ok(tls),
        Err(_) => Err(Failure::new(
            registry,
            Some(RegistryFault::Timeout),
            Some("the TLS handshake did not finish in time".into()),
        )),
        Ok(Err(e)) => Err(match recorder.presented() {
            Some(p) if p.rejection().is_some() => {
                certificate_failure(registry, host, p.leaf(), p.rejection())
            }
            _ => Failure::new(
                registry,
                Some(RegistryFault::TlsHandshake),
                Some(format!("the TLS handshake failed: {e}")),
            ),
        }),
    }
}

/// The fault of a certificate webpki rejected, with the names or dates it has.
fn certificate_failure(
    registry: &str,
    host: &str,
    leaf: &[u8],
    rejection: Option<&rustls::Error>,
) -> Failure {
    use x509_parser::prelude::{FromDer, GeneralName, X509Certificate};
    let parsed = X509Certificate::from_der(leaf).ok().map(|(_, c)| c);
    let (fault, detail) = match rejection {
        Some(rustls::Error::InvalidCertificate(e)) => match e {
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                let names: Vec<String> = parsed
                    .as_ref()
                    .and_then(|c| c.subject_alternative_name().ok().flatten())
                    .map(|san| {
                        san.value
                            .general_names
                            .iter()
                            .filter_map(|n| match n {
                                GeneralName::DNSName(d) => Some(d.to_string()),
                                GeneralName::IPAddress(ip) => ip_text(ip),
                                _ => None,
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                (
                    RegistryFault::CertificateForOtherName,
                    Some(format!("it is valid for {}, not {host}", names.join(", "))),
                )
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => (
                RegistryFault::CertificateExpired,
                parsed.map(|c| format!("it expired {}", c.validity().not_after)),
            ),
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => (
                RegistryFault::CertificateNotYetValid,
                parsed.map(|c| format!("it is valid from {}", c.validity().not_before)),
            ),
            _ => (
                RegistryFault::UntrustedCertificate,
                parsed.map(|c| format!("issued by \"{}\"", c.issuer())),
            ),
        },
        other => (
            RegistryFault::UntrustedCertificate,
            other.map(|e| e.to_string()),
        ),
    };
    Failure::new(registry, Some(fault), detail)
}

fn ip_text(bytes: &[u8]) -> Option<String> {
    match bytes.len() {
        4 => <[u8; 4]>::try_from(bytes)
            .ok()
            .map(|b| std::net::Ipv4Addr::from(b).to_string()),
        16 => <[u8; 16]>::try_from(bytes)
            .ok()
            .map(|b| std::net::Ipv6Addr::from(b).to_string()),
        _ => None,
    }
}
