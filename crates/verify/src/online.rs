//! `--online`: resolve the cluster's names, connect to the API and the Machine Config Server
//! and check that the certificates they serve belong to this directory.
//!
//! The TLS client records the served chain and accepts it for the handshake only; the
//! verdict is computed afterwards against this directory's CAs, so a wrong certificate is
//! named ("served by X issued by Y; this directory's CA is Z") instead of ending in an opaque
//! handshake error.

use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;

use pki::{BundleId, CertId};
use rustls::ClientConnection;
use rustls_pki_types::ServerName;
use tls_peer::{PeerRecorder, Presented};

use crate::Options;
use crate::material::Material;
use crate::report::Report;
use crate::x509;

/// Kubernetes API port.
const API_PORT: u16 = 6443;

/// Runs the online checks.
pub(crate) fn check_all(m: &Material, opts: &Options, report: &mut Report) {
    let Some(params) = &m.params else {
        return report.error(
            "online.dns",
            assets::layout::INSTALL_CONFIG,
            "needed for the online checks",
        );
    };
    let apps = format!("console-openshift-console.apps.{}", params.cluster_domain());
    for name in [params.api_host(), params.api_int_host(), &apps] {
        match resolve(name, 443, opts) {
            Ok(addrs) => report.ok(
                "online.dns",
                name,
                format!("resolves to {}", addr_list(&addrs)),
            ),
            Err(e) => report.error(
                "online.dns",
                name,
                format!(
                    "{e}; create the DNS record (or the wildcard *.apps record) before installing"
                ),
            ),
        }
    }
    let Some(set) = &m.certs else {
        return;
    };
    let server_cas = set
        .bundle_ders(BundleId::KubeApiserverCompleteServerCa)
        .unwrap_or_default();
    let root = set.ders(CertId::RootCa).unwrap_or_default();
    endpoint(params.api_host(), API_PORT, &server_cas, opts, report);
    endpoint(params.api_int_host(), API_PORT, &server_cas, opts, report);
    endpoint(
        params.api_int_host(),
        ignition::MCS_PORT,
        &root,
        opts,
        report,
    );
}

fn addr_list(addrs: &[SocketAddr]) -> String {
    let ips: Vec<String> = addrs.iter().map(|a| a.ip().to_string()).collect();
    ips.join(", ")
}

/// Addresses of `name`: the override if one is set, else the system resolver.
fn resolve(name: &str, port: u16, opts: &Options) -> Result<Vec<SocketAddr>, String> {
    if let Some(addr) = opts.endpoints.get(name) {
        return Ok(vec![*addr]);
    }
    let addrs: Vec<SocketAddr> = (name, port)
        .to_socket_addrs()
        .map_err(|e| format!("does not resolve ({e})"))?
        .collect();
    if addrs.is_empty() {
        return Err("resolves to no address".into());
    }
    Ok(addrs)
}

/// Connects to `host:port` and judges the served certificate against `cas`.
fn endpoint(host: &str, port: u16, cas: &[Vec<u8>], opts: &Options, report: &mut Report) {
    let subject = format!("{host}:{port}");
    let addrs = match opts.endpoints.get(&subject) {
        Some(a) => vec![*a],
        None => match resolve(host, port, opts) {
            // An override given as a bare IP (port 0) takes the endpoint's port; one with its
            // own port (`NAME=IP:PORT`) is connected to there.
            Ok(a) => a
                .into_iter()
                .map(|a| match a.port() {
                    0 => SocketAddr::new(a.ip(), port),
                    _ => a,
                })
                .collect(),
            Err(_) => return,
        },
    };
    let chain = match fetch_chain(&addrs, host, opts.connect_timeout) {
        Ok(c) => c,
        Err(e) => {
            return report.error(
                "online.tls",
                &subject,
                format!(
                    "{e}; is the load balancer (or the bootstrap node) up and forwarding this port?"
                ),
            );
        }
    };
    match judge(host, &chain, cas, opts.now) {
        Ok(msg) => report.ok("online.tls", &subject, msg),
        Err(msg) => report.error("online.tls", &subject, msg),
    }
}

/// Whether the served chain is trusted by `cas` and names `host`.
fn judge(
    host: &str,
    chain: &[Vec<u8>],
    cas: &[Vec<u8>],
    now: time::OffsetDateTime,
) -> Result<String, String> {
    let leaf_der = chain.first().ok_or("the server sent no certificate")?;
    let leaf = x509::parse(leaf_der, host)?;
    let served = format!(
        "served by {} issued by \"{}\"",
        x509::describe(&leaf),
        leaf.issuer()
    );
    let trusted = x509::signed_by_any(&leaf, cas)
        || chain[1..].iter().any(|mid| {
            x509::parse(mid, host)
                .is_ok_and(|m| x509::signed_by(&leaf, &m).is_ok() && x509::signed_by_any(&m, cas))
        });
    if !trusted {
        return Err(format!(
            "x509: certificate signed by unknown authority: {served}; this directory's CA is {}. \
             The endpoint runs with another cluster's certificates (a stale bootstrap node or \
             load balancer target), or this directory is not the one it was installed from",
            x509::describe_all(cas)
        ));
    }
    let sans = x509::sans(&leaf);
    if !x509::host_matches(host, &sans) {
        return Err(format!(
            "x509: certificate is not valid for {host}: {served} with SANs {}",
            x509::san_text(&sans)
        ));
    }
    let not_after = leaf.validity().not_after.to_datetime();
    if not_after <= now {
        return Err(format!(
            "x509: certificate has expired: {served} expired {} ago; the endpoint still runs \
             with certificates from an earlier run, restart it with this directory's files",
            pki::human(now - not_after)
        ));
    }
    Ok(format!(
        "{served}, trusted by this directory and valid for {host}"
    ))
}

/// Completes a TLS handshake and returns the chain the server sent (leaf first).
fn fetch_chain(
    addrs: &[SocketAddr],
    host: &str,
    timeout: std::time::Duration,
) -> Result<Vec<Vec<u8>>, String> {
    let mut last = String::from("no address to connect to");
    let mut sock = None;
    for addr in addrs {
        match TcpStream::connect_timeout(addr, timeout) {
            Ok(s) => {
                sock = Some(s);
                break;
            }
            Err(e) => last = format!("cannot connect to {addr}: {e}"),
        }
    }
    let mut sock = sock.ok_or(last)?;
    sock.set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    sock.set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    // Any chain passes the handshake (its signatures are still checked); `judge` decides.
    let recorder = Arc::new(PeerRecorder::accepting());
    let config = recorder
        .client_config()
        .map_err(|e| e.to_string())?
        .with_no_client_auth();
    let bare = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let name =
        ServerName::try_from(bare).map_err(|e| format!("{host} is not a valid TLS name: {e}"))?;
    let mut conn = ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
    while conn.is_handshaking() {
        conn.complete_io(&mut sock)
            .map_err(|e| format!("TLS handshake with {host} failed: {e}"))?;
    }
    Ok(recorder
        .presented()
        .map(Presented::into_chain)
        .unwrap_or_default())
}
