//! `pki.signerCertificates.key` (OKD 5.0, ConfigurablePKI): every malformed key named at its
//! field path with the allowed values, the gate required, and the signers' key upstream's
//! way: RSA-2048 without the gate, RSA-4096 with it and no `pki`, else the chosen one.

use installconfig::validate::{SignerKeyChoice, signer_key};
use installconfig::*;

use crate::validate::{bad, none, ok};

const KEY: &str = "pki.signerCertificates.key";

fn release(minor: &str) -> &'static releases::Release {
    releases::table().get(minor.parse().unwrap()).unwrap()
}

/// The compact example with TechPreviewNoUpgrade and `key` (YAML of
/// `pki.signerCertificates.key`, `None` for no `pki` at all).
fn with_key(key: Option<&str>) -> InstallConfig {
    let mut cfg = none();
    cfg.feature_set = FeatureSet::TechPreviewNoUpgrade;
    cfg.pki = key.map(|yaml| {
        let text = format!("signerCertificates:\n  key: {yaml}\n");
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
    });
    cfg
}

#[test]
fn each_supported_key_passes_and_is_what_the_signers_get() {
    let cases = [
        (
            "{algorithm: RSA, rsa: {keySize: 4096}}",
            SignerKeyChoice::Rsa(4096),
        ),
        (
            "{algorithm: RSA, rsa: {keySize: 8192}}",
            SignerKeyChoice::Rsa(8192),
        ),
        (
            "{algorithm: ECDSA, ecdsa: {curve: P256}}",
            SignerKeyChoice::Ecdsa("P256"),
        ),
        (
            "{algorithm: ECDSA, ecdsa: {curve: P521}}",
            SignerKeyChoice::Ecdsa("P521"),
        ),
    ];
    for (key, wanted) in cases {
        let cfg = with_key(Some(key));
        ok(&cfg);
        assert_eq!(signer_key(&cfg, release("5.0")), wanted, "{key}");
        // A release without the gate makes RSA-2048 signers (and refuses pki, see release.rs).
        assert_eq!(
            signer_key(&cfg, release("4.22")),
            SignerKeyChoice::Rsa(2048)
        );
    }
}

#[test]
fn the_default_is_rsa_2048_and_rsa_4096_with_the_gate() {
    assert_eq!(
        signer_key(&none(), release("5.0")),
        SignerKeyChoice::Rsa(2048)
    );
    let gated = with_key(None);
    ok(&gated);
    assert_eq!(
        signer_key(&gated, release("5.0")),
        SignerKeyChoice::Rsa(4096)
    );
    let mut custom = none();
    custom.feature_set = FeatureSet::CustomNoUpgrade;
    custom.feature_gates = vec!["ConfigurablePKI=true".into()];
    assert_eq!(
        signer_key(&custom, release("5.0")),
        SignerKeyChoice::Rsa(4096)
    );
}

#[test]
fn every_malformed_key_is_named_with_what_to_use() {
    let cases: [(&str, &str, ErrorKind, &[&str]); 8] = [
        ("{}", "algorithm", ErrorKind::Required, &["RSA or ECDSA"]),
        (
            "{algorithm: DSA}",
            "algorithm",
            ErrorKind::NotSupported,
            &["\"RSA\"", "\"ECDSA\""],
        ),
        ("{algorithm: RSA}", "rsa", ErrorKind::Required, &["rsa"]),
        (
            "{algorithm: RSA, rsa: {keySize: 4096}, ecdsa: {curve: P256}}",
            "ecdsa",
            ErrorKind::Forbidden,
            &["remove"],
        ),
        (
            "{algorithm: ECDSA}",
            "ecdsa",
            ErrorKind::Required,
            &["ecdsa"],
        ),
        (
            "{algorithm: RSA, rsa: {keySize: 3000}}",
            "rsa.keySize",
            ErrorKind::Invalid,
            &["multiple of 1024", "2048", "8192"],
        ),
        (
            "{algorithm: RSA, rsa: {keySize: 9216}}",
            "rsa.keySize",
            ErrorKind::Invalid,
            &["8192"],
        ),
        (
            "{algorithm: ECDSA, ecdsa: {curve: P224}}",
            "ecdsa.curve",
            ErrorKind::NotSupported,
            &["\"P256\"", "\"P384\"", "\"P521\""],
        ),
    ];
    for (key, field, kind, says) in cases {
        let e = bad(&with_key(Some(key)), &format!("{KEY}.{field}"), kind);
        for s in says {
            assert!(e.detail.contains(s), "{key}: {:?} lacks {s}", e.detail);
        }
    }
}

#[test]
fn pki_needs_the_configurable_pki_gate() {
    let mut cfg = with_key(Some("{algorithm: ECDSA, ecdsa: {curve: P384}}"));
    cfg.feature_set = FeatureSet::Default;
    let e = bad(&cfg, "pki", ErrorKind::Forbidden);
    for s in ["ConfigurablePKI", "TechPreviewNoUpgrade", "CustomNoUpgrade"] {
        assert!(e.detail.contains(s), "{}", e.detail);
    }
}

/// The PKI resource is written only where the gate is on: `Default` without `pki`, `Custom`
/// with the chosen key, and nothing on a release without the gate.
#[test]
fn pki_management_follows_the_gate_and_the_field() {
    use installconfig::validate::{PkiManagement, pki_management};
    assert_eq!(pki_management(&none(), release("5.0")), None);
    assert_eq!(
        pki_management(&with_key(None), release("5.0")),
        Some(PkiManagement::Default)
    );
    let ecdsa = with_key(Some("{algorithm: ECDSA, ecdsa: {curve: P384}}"));
    assert_eq!(
        pki_management(&ecdsa, release("5.0")),
        Some(PkiManagement::Custom(SignerKeyChoice::Ecdsa("P384")))
    );
    assert_eq!(pki_management(&ecdsa, release("4.22")), None);
}
