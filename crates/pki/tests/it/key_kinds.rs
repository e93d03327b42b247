//! Every key kind a signer may have (upstream 5.0's `pki.signerCertificates.key`): RSA of
//! 2048, 3072, 4096 and 8192 bits and ECDSA on P-256, P-384 and P-521. Each key round-trips
//! through its PEM form, and a signer of each kind issues the RSA-2048 leaves that the real
//! `openssl verify` accepts, signed with the hash Go pairs with the key.

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

#[test]
fn rsa_sizes_aws_lc_cannot_make_are_refused_with_the_sizes_it_can() {
    let err = pki::generate_key(KeyKind::Rsa { bits: 5120 }).unwrap_err();
    assert!(
        err.to_string().contains("2048, 3072, 4096 and 8192"),
        "{err}"
    );
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
        let ca = pki::sign_self(CertId::RootCa, &ca_key, NOW, Default::default(), 1).unwrap();
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
        std::fs::write(dir.path().join("ca.crt"), ca.cert_pem()).unwrap();
        std::fs::write(dir.path().join("ca.key"), ca.key_pem()).unwrap();
        std::fs::write(dir.path().join("leaf.crt"), leaf.leaf_pem().unwrap()).unwrap();
        let at = NOW.unix_timestamp() + 3600;
        let verified = openssl(
            dir.path(),
            &[
                "verify",
                "-attime",
                &at.to_string(),
                "-CAfile",
                "ca.crt",
                "leaf.crt",
            ],
        );
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
