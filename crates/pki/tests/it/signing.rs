//! What the signing functions refuse, and the Ironic certificate (which no table row makes).

use pki::{CertId, ClusterParams, KeyPem};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use x509_parser::prelude::{FromDer as _, X509Certificate};

const NOW: OffsetDateTime = datetime!(2026-01-01 00:00 UTC);

fn params() -> ClusterParams {
    ClusterParams {
        cluster_name: "demo".into(),
        base_domain: "example.com".into(),
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

#[test]
fn ironic_certificate_is_self_signed_non_ca_without_sans() {
    let ck = pki::sign_ironic(&key(), NOW, Default::default(), 5).expect("ironic");
    let der = ck.leaf_der().unwrap();
    let cert = X509Certificate::from_der(&der).expect("x509").1;
    assert_eq!(cert.subject().to_string(), "OU=openshift, CN=ironic");
    assert_eq!(cert.issuer(), cert.subject());
    cert.verify_signature(None).expect("self-signed");
    let bc = cert
        .basic_constraints()
        .unwrap()
        .expect("basic constraints");
    assert!(!bc.value.ca);
    let ku = cert.key_usage().unwrap().expect("ku").value;
    assert!(ku.digital_signature() && ku.key_encipherment() && !ku.key_cert_sign());
    assert!(cert.subject_alternative_name().unwrap().is_none());
    assert!(cert.extended_key_usage().unwrap().is_none());
    assert_eq!(
        cert.validity().not_after.to_datetime(),
        NOW + Duration::hours(24)
    );
}
