//! Expiry detection with an injected clock and key/certificate pair checks.

use pki::{CertId, Error, check_pair, expiry_problem, not_after};
use time::Duration;

use crate::common::{now, pki};

#[test]
fn expiry_is_reported_within_the_margin_and_after_the_end() {
    let cert = pki().cert(CertId::AggregatorSigner).cert_pem();
    let file = "tls/aggregator-signer.crt";
    let end = not_after(cert, file).unwrap();
    assert_eq!(end, now() + Duration::hours(24));
    let margin = Duration::hours(12);
    assert_eq!(expiry_problem(cert, file, now(), margin).unwrap(), None);
    let msg = expiry_problem(cert, file, now() + Duration::hours(21), margin)
        .unwrap()
        .unwrap();
    let at = end
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    assert_eq!(
        msg,
        format!("expires at {at} (in 3h), within the 12h margin")
    );
    let msg = expiry_problem(cert, file, end, margin).unwrap().unwrap();
    assert_eq!(msg, format!("expired at {at}"));
}

/// A certificate made on a clock ahead of this one (configs made with SOURCE_DATE_EPOCH in
/// the future, or on a machine whose clock is ahead) is a problem before its expiry is: no
/// host whose clock is right accepts it, so a re-run must make it again.
#[test]
fn a_certificate_not_valid_yet_is_reported_with_its_start() {
    let cert = pki().cert(CertId::AggregatorSigner).cert_pem();
    let margin = Duration::hours(1);
    let earlier = now() - Duration::hours(48);
    let msg = expiry_problem(cert, "f", earlier, margin).unwrap().unwrap();
    assert!(msg.starts_with("not valid until "), "{msg}");
    assert!(msg.contains("(2d from now)"), "{msg}");
    assert_eq!(expiry_problem(cert, "f", now(), margin).unwrap(), None);
}

#[test]
fn chained_files_report_the_earliest_expiry() {
    // The localhost serving cert lives a day, its appended signer ten years.
    let cert = pki().cert(CertId::KubeApiserverLocalhostServer).cert_pem();
    let msg = expiry_problem(cert, "f", now() + Duration::hours(30), Duration::hours(1)).unwrap();
    assert!(msg.unwrap().starts_with("expired at"));
}

#[test]
fn check_pair_accepts_matching_and_names_the_file_otherwise() {
    let ck = pki().cert(CertId::JournalGatewayd);
    check_pair(ck.cert_pem(), ck.key_pem(), "journal-gatewayd.crt").expect("matching pair");
    let other = pki().cert(CertId::RootCa).key_pem();
    let err = check_pair(ck.cert_pem(), other, "user/tls.crt").unwrap_err();
    assert!(matches!(err, Error::KeyMismatch { .. }));
    assert!(
        err.to_string()
            .starts_with("user/tls.crt: the private key does not match"),
        "{err}"
    );
    let err = check_pair("not a cert", ck.key_pem(), "user/tls.crt").unwrap_err();
    assert!(err.to_string().starts_with("user/tls.crt: "), "{err}");
}

#[test]
fn check_pair_accepts_pkcs8_keys() {
    let ck = pki().cert(CertId::JournalGatewayd);
    let pkcs8 = pkcs8_wrap(ck.key().der());
    check_pair(ck.cert_pem(), &pki::pem::encode("PRIVATE KEY", &pkcs8), "f")
        .expect("pkcs8 accepted");
    let loaded =
        pki::CertKey::load(ck.cert_pem(), &pki::pem::encode("PRIVATE KEY", &pkcs8), "f").unwrap();
    assert_eq!(loaded.key_pem(), ck.key_pem(), "normalised to PKCS#1");
}

/// PKCS#8 PrivateKeyInfo around a PKCS#1 key (lengths are long-form, two bytes).
fn pkcs8_wrap(pkcs1: &[u8]) -> Vec<u8> {
    let tlv = |tag: u8, body: &[u8]| {
        let mut v = vec![tag, 0x82];
        v.extend_from_slice(&u16::try_from(body.len()).unwrap().to_be_bytes());
        v.extend_from_slice(body);
        v
    };
    let mut inner = vec![0x02, 0x01, 0x00];
    inner.extend_from_slice(&[
        0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
    ]);
    inner.extend(tlv(0x04, pkcs1));
    tlv(0x30, &inner)
}
