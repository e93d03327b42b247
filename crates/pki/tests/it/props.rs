//! Property tests for the parsers that read user or on-disk input.

use pki::SecretsBundle;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any text yields a bundle or an error that names the file; never a panic.
    #[test]
    fn secrets_reader_never_panics(text in "\\PC{0,200}") {
        if let Err(e) = SecretsBundle::from_yaml(&text, "s.yaml") {
            prop_assert!(e.to_string().starts_with("secrets bundle s.yaml: "));
        }
    }

    /// PEM-looking garbage is decoded or rejected with the file name.
    #[test]
    fn pem_reader_never_panics(body in "[A-Za-z0-9+/=\\n-]{0,200}") {
        let text = format!("-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n");
        if let Err(e) = pki::pem::decode_all(&text, "f.crt") {
            prop_assert!(e.to_string().starts_with("f.crt: "));
        }
        let _ = pki::check_pair(&text, &text, "f.crt");
        let _ = pki::expiry_problem(&text, "f.crt", time::OffsetDateTime::UNIX_EPOCH, time::Duration::ZERO);
    }
}
