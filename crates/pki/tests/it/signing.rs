//! What the signing functions refuse: a leaf signed as its own root, a serial out of range, a
//! signer signed as a leaf.

use pki::{CertId, ClusterParams, KeyPem};
use time::OffsetDateTime;
use time::macros::datetime;

const NOW: OffsetDateTime = datetime!(2026-01-01 00:00 UTC);

fn params() -> ClusterParams {
    ClusterParams {
        names: pki::ClusterNames::new("demo", "example.com"),
        service_networks: vec!["172.30.0.0/16".parse().unwrap()],
        api_vips: Vec::new(),
    }
}

fn key() -> KeyPem {
    pki::generate_rsa_key().expect("key")
}

#[test]
fn signing_rules_reject_misuse() {
    let key = key();
    let err = pki::sign_self(
        CertId::MachineConfigServer,
        &key,
        NOW,
        Default::default(),
        1,
    )
    .unwrap_err();
    assert!(err.to_string().contains("not a signer"), "{err}");
    let err = pki::sign_self(CertId::RootCa, &key, NOW, Default::default(), u64::MAX).unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");
    let root = pki::sign_self(CertId::RootCa, &key, NOW, Default::default(), 1).expect("root");
    let err = pki::sign_leaf(
        CertId::RootCa,
        &key,
        &root,
        &params(),
        NOW,
        Default::default(),
        2,
    )
    .unwrap_err();
    assert!(err.to_string().contains("is a signer"), "{err}");
}
