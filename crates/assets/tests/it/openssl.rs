//! Every leaf verified against its issuer with the real `openssl verify`.

use std::path::Path;

use pki::CertId;

use crate::common::{now, pki, run};

fn write(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).expect("write");
    name.to_string()
}

fn purpose(id: CertId) -> &'static str {
    use pki::ExtKeyUsage::*;
    match id.spec().ext_key_usage {
        Server => "sslserver",
        Client => "sslclient",
        ServerAndClient | None => "any",
    }
}

#[test]
fn openssl_verifies_every_leaf_against_its_issuer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let at = (now() + time::Duration::minutes(5))
        .unix_timestamp()
        .to_string();
    for id in CertId::leaves() {
        let issuer = id.spec().issuer.expect("leaf has issuer");
        let ca = write(
            dir.path(),
            &format!("{issuer}.crt"),
            pki().cert(issuer).cert_pem(),
        );
        let leaf = write(dir.path(), &format!("{id}.crt"), pki().cert(id).cert_pem());
        let args = [
            "verify",
            "-x509_strict",
            "-purpose",
            purpose(id),
            "-attime",
            &at,
            "-CAfile",
            &ca,
            &leaf,
        ];
        let Some(out) = run("openssl", "openssl", &args, dir.path()) else {
            return;
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(": OK"),
            "{id}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn openssl_accepts_signers_as_roots_and_keys_as_pkcs1() {
    let dir = tempfile::tempdir().expect("tempdir");
    let at = (now() + time::Duration::minutes(5))
        .unix_timestamp()
        .to_string();
    for id in CertId::signers() {
        let ca = write(dir.path(), &format!("{id}.crt"), pki().cert(id).cert_pem());
        let args = [
            "verify",
            "-x509_strict",
            "-check_ss_sig",
            "-attime",
            &at,
            "-CAfile",
            &ca,
            &ca,
        ];
        let Some(out) = run("openssl", "openssl", &args, dir.path()) else {
            return;
        };
        assert!(
            out.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let key = write(dir.path(), &format!("{id}.key"), pki().cert(id).key_pem());
        let Some(out) = run(
            "openssl",
            "openssl",
            &["rsa", "-check", "-noout", "-in", &key],
            dir.path(),
        ) else {
            return;
        };
        assert!(
            out.status.success(),
            "{id} key: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn openssl_rejects_a_leaf_checked_against_the_wrong_signer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = write(
        dir.path(),
        "wrong.crt",
        pki().cert(CertId::RootCa).cert_pem(),
    );
    let leaf = write(
        dir.path(),
        "leaf.crt",
        pki().cert(CertId::AdminKubeconfigClient).cert_pem(),
    );
    let Some(out) = run(
        "openssl",
        "openssl",
        &["verify", "-CAfile", &ca, &leaf],
        dir.path(),
    ) else {
        return;
    };
    assert!(!out.status.success());
}
