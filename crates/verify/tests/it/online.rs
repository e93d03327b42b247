//! `--online` against real rustls servers on 127.0.0.1, one serving this directory's
//! certificate and one serving another cluster's.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;

use pki::CertId;
use rustls::{ServerConfig, ServerConnection};
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use verify::Status;

use crate::{assert_error, base, findings, now_opts, state_cert};

const API: &str = "api.compact.example.com";
const API_INT: &str = "api-int.compact.example.com";
const APPS: &str = "console-openshift-console.apps.compact.example.com";

/// A TLS server on 127.0.0.1 presenting `id` of `dir`; runs until the test process ends.
fn serve(dir: &Path, id: CertId) -> SocketAddr {
    let (cert_pem, key_pem) = state_cert(dir, id);
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem.as_bytes())
        .collect::<Result<_, _>>()
        .expect("certificates");
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes()).expect("key");
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("server config");
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let Ok(mut conn) = ServerConnection::new(config.clone()) else {
                continue;
            };
            while conn.is_handshaking() {
                if conn.complete_io(&mut stream).is_err() {
                    break;
                }
            }
        }
    });
    addr
}

/// The API endpoint was reached and its certificate judged good.
#[track_caller]
fn assert_api_served(report: &verify::Report) {
    let ok = findings(report, "online.tls", Status::Ok);
    assert!(
        ok.iter()
            .any(|l| l.starts_with(&format!("{API}:6443: served by"))),
        "{}",
        report.render_text()
    );
}

fn overrides(
    api: SocketAddr,
    api_int: SocketAddr,
    mcs: SocketAddr,
) -> BTreeMap<String, SocketAddr> {
    BTreeMap::from([
        (API.to_string(), api),
        (API_INT.to_string(), api_int),
        (APPS.to_string(), api),
        (format!("{API}:6443"), api),
        (format!("{API_INT}:6443"), api_int),
        (format!("{API_INT}:22623"), mcs),
    ])
}

#[test]
fn served_certificates_are_judged_against_the_directory() {
    let api = serve(base(0), CertId::KubeApiserverLbServer);
    let foreign = serve(base(1), CertId::KubeApiserverInternalLbServer);
    let mcs = serve(base(0), CertId::MachineConfigServer);
    let mut opts = now_opts();
    opts.online = true;
    opts.online_checks = verify::OnlineChecks::Endpoints;
    opts.endpoints = overrides(api, foreign, mcs);
    let report = verify::verify(base(0), &opts);
    assert_eq!(
        findings(&report, "online.dns", Status::Ok).len(),
        3,
        "{}",
        report.render_text()
    );
    assert_api_served(&report);
    let ok = findings(&report, "online.tls", Status::Ok);
    assert!(
        ok.iter()
            .any(|l| l.starts_with(&format!("{API_INT}:22623:"))),
        "{ok:#?}"
    );
    assert_error(
        &report,
        "online.tls",
        &format!("{API_INT}:6443"),
        &[
            "signed by unknown authority",
            "served by \"O=kube-master, CN=system:kube-apiserver\"",
            "issued by \"OU=openshift, CN=kube-apiserver-lb-signer\"",
            "this directory's CA is",
        ],
    );

    opts.now = time::OffsetDateTime::now_utc() + time::Duration::days(2);
    let report = verify::verify(base(0), &opts);
    assert_error(
        &report,
        "online.tls",
        &format!("{API}:6443"),
        &["certificate has expired"],
    );
}

#[test]
fn a_name_overridden_with_ip_and_port_is_reached_on_that_port() {
    let api = serve(base(0), CertId::KubeApiserverLbServer);
    let mut opts = now_opts();
    opts.online = true;
    opts.online_checks = verify::OnlineChecks::Endpoints;
    opts.connect_timeout = std::time::Duration::from_secs(1);
    // `--resolve api.<domain>=127.0.0.1:<port>`: no per-port entry, the address's port counts.
    opts.endpoints = BTreeMap::from([(API.to_string(), api)]);
    let report = verify::verify(base(0), &opts);
    assert_api_served(&report);
}

#[test]
fn a_certificate_for_another_name_is_named_and_a_closed_port_is_an_error() {
    let wrong_name = serve(base(0), CertId::KubeApiserverInternalLbServer);
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr")
    };
    let mcs = serve(base(0), CertId::MachineConfigServer);
    let mut opts = now_opts();
    opts.online = true;
    opts.online_checks = verify::OnlineChecks::Endpoints;
    opts.connect_timeout = std::time::Duration::from_secs(1);
    opts.endpoints = overrides(wrong_name, closed, mcs);
    let report = verify::verify(base(0), &opts);
    assert_error(
        &report,
        "online.tls",
        &format!("{API}:6443"),
        &[
            "not valid for api.compact.example.com",
            "DNS:api-int.compact.example.com",
        ],
    );
    assert_error(
        &report,
        "online.tls",
        &format!("{API_INT}:6443"),
        &["cannot connect"],
    );
}
