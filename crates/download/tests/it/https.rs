//! HTTPS is verified: a server whose certificate no trusted CA signed is refused before any
//! request, and the same server is used once its CA is trusted (through `SSL_CERT_FILE`, which
//! the system trust store honours, as on a machine with a private mirror).

use std::path::Path;
use std::process::Command;

use download::fetch;
use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::server::Server;
use crate::{content, files, options, sha256};

/// A CA (its PEM) and a server certificate for 127.0.0.1 it signed, with the server's key.
fn mirror_pki() -> (String, CertificateDer<'static>, PrivateKeyDer<'static>) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_string()])
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    (ca_cert.pem(), leaf.der().clone(), key)
}

#[test]
fn a_server_no_trusted_ca_vouches_for_is_refused_before_any_request() {
    let (_, cert, key) = mirror_pki();
    let server = Server::start_tls(content(), vec![cert], key);
    let cache = tempfile::tempdir().unwrap();
    let data = content();
    let err = fetch(
        &server.url("/files/live.iso"),
        &sha256(&data),
        &options(cache.path()),
        &mut |_| {},
    )
    .unwrap_err();
    let text = format!("{err}: {:?}", std::error::Error::source(&err));
    assert!(
        matches!(err, download::DownloadError::Untrusted { .. }),
        "refused at once, not retried: {text}"
    );
    assert!(
        text.contains("certificate is not trusted") && text.contains("UnknownIssuer"),
        "the error names the certificate and rustls's verdict: {text}"
    );
    assert!(server.seen().is_empty(), "{:?}", server.seen());
    assert_eq!(
        files(cache.path()),
        Vec::<String>::new(),
        "nothing is cached"
    );
}

/// Runs in a child of this test binary, because the trust store's `SSL_CERT_FILE` is a
/// process-wide setting: the parent serves and checks, the child (the same test, with
/// `OKD_TEST_HTTPS_URL` set) fetches.
#[test]
fn a_server_whose_ca_is_trusted_is_used() {
    let data = content();
    if let Ok(url) = std::env::var("OKD_TEST_HTTPS_URL") {
        let cache = tempfile::tempdir().unwrap();
        let path = fetch(&url, &sha256(&data), &options(cache.path()), &mut |_| {})
            .unwrap_or_else(|e| panic!("{e}: {:?}", std::error::Error::source(&e)));
        assert_eq!(std::fs::read(path).unwrap(), data);
        return;
    }
    let (ca, cert, key) = mirror_pki();
    let server = Server::start_tls(data, vec![cert], key);
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("mirror-ca.pem");
    std::fs::write(&ca_file, ca).unwrap();
    let out = child("https::a_server_whose_ca_is_trusted_is_used")
        .env("SSL_CERT_FILE", &ca_file)
        .env("OKD_TEST_HTTPS_URL", server.url("/files/live.iso"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(server.seen().len(), 1, "{:?}", server.seen());
}

/// This test binary, running only `test`.
fn child(test: &str) -> Command {
    let exe = std::env::current_exe().unwrap();
    assert!(Path::new(&exe).is_file());
    let mut cmd = Command::new(exe);
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"]);
    cmd
}
