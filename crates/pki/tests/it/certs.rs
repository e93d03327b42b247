//! Signers and leaves checked row by row against the certificate table.

use pki::{CertId, ValidityScale, generate_rsa_key, sign_self};
use time::macros::datetime;
use x509_parser::prelude::{FromDer as _, X509Certificate};

#[test]
fn root_ca_is_self_signed_ca_with_table_subject() {
    let key = generate_rsa_key().expect("key");
    let now = datetime!(2026-11-21 10:00:00 UTC);
    let ck = sign_self(CertId::RootCa, &key, now, ValidityScale::Normal, 42).expect("sign");
    let der = ck.leaf_der().expect("der");
    let (_, cert) = X509Certificate::from_der(&der).expect("parse");
    assert_eq!(cert.subject().to_string(), "OU=openshift, CN=root-ca");
    assert_eq!(cert.issuer(), cert.subject());
    assert!(cert.is_ca());
    cert.verify_signature(None)
        .expect("self signature verifies");
}
