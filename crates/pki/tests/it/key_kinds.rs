//! Every key kind a signer may have (upstream 5.0's `pki.signerCertificates.key`): RSA of
//! 2048 to 8192 bits (aws-lc makes 2048, 3072, 4096 and 8192, the `rsa` crate the others)
//! and ECDSA on P-256, P-384 and P-521. Each key round-trips through its PEM form, and a
//! signer of each kind issues the RSA-2048 leaves that the real `openssl verify` accepts,
//! signed with the hash Go pairs with the key.

use std::path::Path;
use std::process::Command;

use pki::{CertId, ClusterParams, Curve, KeyKind, KeyPem};
use time::OffsetDateTime;
use time::macros::datetime;

const NOW: OffsetDateTime = datetime!(2026-01-01 00:00 UTC);

const ECDSA: [(Curve, &str, &str); 3] = [
    (Curve::P256, "prime256v1", "ecdsa-with-SHA256"),
    (Curve::P384, "secp384r1", "ecdsa-with-SHA384"),
    (Curve::P521, "secp521r1", "ecdsa-with-SHA512"),
];

fn params() -> ClusterParams {
    ClusterParams {
        names: pki::ClusterNames::new("demo", "example.com"),
        service_networks: vec!["172.30.0.0/16".parse().unwrap()],
        api_vips: Vec::new(),
    }
}

fn openssl(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running openssl");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "openssl {args:?}: {text}");
    text
}

#[test]
fn keys_of_every_kind_round_trip_through_their_pem() {
    let kinds = [KeyKind::RSA_2048, KeyKind::Rsa { bits: 3072 }]
        .into_iter()
        .chain(ECDSA.iter().map(|(c, _, _)| KeyKind::Ecdsa(*c)));
    for kind in kinds {
        let key = pki::generate_key(kind).expect("keygen");
        assert_eq!(key.kind(), kind);
        let label = match kind {
            KeyKind::Rsa { .. } => pki::RSA_PRIVATE_KEY,
            KeyKind::Ecdsa(_) => pki::EC_PRIVATE_KEY,
        };
        assert!(
            key.pem().starts_with(&format!("-----BEGIN {label}-----\n")),
            "{kind}"
        );
        assert_eq!(KeyPem::from_pem(key.pem(), "k").expect("parse"), key);
    }
}

// aws-lc does not generate RSA keys of 5120, 6144 or 7168 bits; the `rsa` crate makes them
// (seconds each, so one test per size, run in parallel), and aws-lc, through rcgen, must still
// sign with them.

#[test]
fn an_rsa_5120_signer_issues_a_leaf_openssl_verifies() {
    rsa_signer_made_without_aws_lc(5120);
}

#[test]
fn an_rsa_6144_signer_issues_a_leaf_openssl_verifies() {
    rsa_signer_made_without_aws_lc(6144);
}

#[test]
fn an_rsa_7168_signer_issues_a_leaf_openssl_verifies() {
    rsa_signer_made_without_aws_lc(7168);
}

fn rsa_signer_made_without_aws_lc(bits: u16) {
    let kind = KeyKind::Rsa { bits };
    let ca_key = pki::generate_key(kind).expect("keygen");
    assert_eq!(ca_key.kind(), kind);
    assert!(
        ca_key
            .pem()
            .starts_with("-----BEGIN RSA PRIVATE KEY-----\n")
    );
    assert_eq!(KeyPem::from_pem(ca_key.pem(), "k").expect("parse"), ca_key);
    if !testkit::require_tool("openssl", "openssl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let verified = issue_and_verify(dir.path(), &ca_key);
    assert!(verified.contains("leaf.crt: OK"), "{kind}: {verified}");
    let ca_text = openssl(dir.path(), &["x509", "-in", "ca.crt", "-noout", "-text"]);
    assert!(
        ca_text.contains(&format!("Public-Key: ({bits} bit)")),
        "{ca_text}"
    );
    let check = openssl(dir.path(), &["rsa", "-in", "ca.key", "-check", "-noout"]);
    assert!(check.contains("RSA key ok"), "{kind}: {check}");
}

#[test]
fn rsa_sizes_install_config_refuses_are_not_generated() {
    for bits in [1024, 2560, 9216] {
        let err = pki::generate_key(KeyKind::Rsa { bits }).unwrap_err();
        assert!(
            err.to_string().contains("multiple of 1024"),
            "{bits}: {err}"
        );
    }
}

/// Makes a root CA from `ca_key` and a machine-config-server leaf it signs in `dir`
/// (`ca.crt`, `ca.key`, `leaf.crt`), and returns what `openssl verify` says of the leaf.
fn issue_and_verify(dir: &Path, ca_key: &KeyPem) -> String {
    let ca = pki::sign_self(CertId::RootCa, ca_key, NOW, Default::default(), 1).unwrap();
    let leaf_key = pki::generate_rsa_key().unwrap();
    let leaf = pki::sign_leaf(
        CertId::MachineConfigServer,
        &leaf_key,
        &ca,
        &params(),
        NOW,
        Default::default(),
        2,
    )
    .unwrap();
    std::fs::write(dir.join("ca.crt"), ca.cert_pem()).unwrap();
    std::fs::write(dir.join("ca.key"), ca.key_pem()).unwrap();
    std::fs::write(dir.join("leaf.crt"), leaf.leaf_pem().unwrap()).unwrap();
    let at = NOW.unix_timestamp() + 3600;
    openssl(
        dir,
        &[
            "verify",
            "-attime",
            &at.to_string(),
            "-CAfile",
            "ca.crt",
            "leaf.crt",
        ],
    )
}

#[test]
fn signers_of_every_kind_issue_leaves_openssl_verifies() {
    if !testkit::require_tool("openssl", "openssl") {
        return;
    }
    let kinds = ECDSA
        .iter()
        .map(|(c, curve, algorithm)| (KeyKind::Ecdsa(*c), Some(*curve), *algorithm))
        .chain([(KeyKind::Rsa { bits: 4096 }, None, "sha256WithRSAEncryption")]);
    for (kind, curve, algorithm) in kinds {
        let dir = tempfile::tempdir().unwrap();
        let ca_key = pki::generate_key(kind).unwrap();
        let verified = issue_and_verify(dir.path(), &ca_key);
        assert!(verified.contains("leaf.crt: OK"), "{kind}: {verified}");
        let text = openssl(dir.path(), &["x509", "-in", "leaf.crt", "-noout", "-text"]);
        assert!(
            text.contains(&format!("Signature Algorithm: {algorithm}")),
            "{kind}: {text}"
        );
        let ca_text = openssl(dir.path(), &["x509", "-in", "ca.crt", "-noout", "-text"]);
        assert_eq!(
            ca_text.contains("Key Encipherment"),
            curve.is_none(),
            "{kind}: an ECDSA signer claims no key encipherment, an RSA one does:\n{ca_text}"
        );
        if let Some(curve) = curve {
            // The SEC 1 file names its curve, which Go's x509.ParseECPrivateKey needs.
            let key_text = openssl(dir.path(), &["ec", "-in", "ca.key", "-noout", "-text"]);
            assert!(
                key_text.contains(&format!("ASN1 OID: {curve}")),
                "{key_text}"
            );
        }
    }
}

#[test]
fn a_pkcs8_ecdsa_key_is_read_and_written_back_as_sec1() {
    if !testkit::require_tool("openssl", "openssl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let key = pki::generate_key(KeyKind::Ecdsa(Curve::P384)).unwrap();
    std::fs::write(dir.path().join("ec.key"), key.pem()).unwrap();
    let pkcs8 = openssl(
        dir.path(),
        &["pkcs8", "-topk8", "-nocrypt", "-in", "ec.key"],
    );
    assert!(pkcs8.starts_with("-----BEGIN PRIVATE KEY-----"), "{pkcs8}");
    let loaded = KeyPem::from_pem(&pkcs8, "user/ec.key").expect("PKCS#8 ECDSA accepted");
    assert_eq!(loaded.kind(), KeyKind::Ecdsa(Curve::P384));
    assert_eq!(loaded.public_spki_der(), key.public_spki_der());
    assert!(loaded.pem().starts_with("-----BEGIN EC PRIVATE KEY-----\n"));
}

/// Deterministic runs promise the same bytes from the same keys and clock; an ECDSA
/// signature with a random nonce would break that (RSA PKCS#1 v1.5 has no nonce).
#[test]
fn signing_twice_with_the_same_key_gives_the_same_certificate() {
    let kinds = ECDSA
        .iter()
        .map(|(c, _, _)| KeyKind::Ecdsa(*c))
        .chain([KeyKind::RSA_2048]);
    for kind in kinds {
        let key = pki::generate_key(kind).unwrap();
        let sign = || pki::sign_self(CertId::RootCa, &key, NOW, Default::default(), 7).unwrap();
        assert_eq!(sign().cert_pem(), sign().cert_pem(), "{kind}");
    }
}
