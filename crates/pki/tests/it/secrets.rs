//! Secrets bundle round trip, deterministic regeneration and bundle error messages.

use pki::{CertId, KubeconfigId, Pki, SecretsBundle, ValidityScale};

use crate::common::{now, params, pki};

fn outputs(p: &Pki) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = p
        .tls_files()
        .unwrap()
        .into_iter()
        .map(|f| (f.path, f.contents))
        .collect();
    for id in KubeconfigId::ALL {
        out.push((id.path().to_string(), p.kubeconfig(*id).unwrap()));
    }
    out.push(("hash".into(), p.password().hash().to_string()));
    out
}

#[test]
fn same_bundle_and_clock_give_byte_identical_output() {
    let yaml = pki().to_secrets().to_yaml().expect("yaml");
    let bundle = SecretsBundle::from_yaml(&yaml, "secrets.yaml").expect("read back");
    assert_eq!(bundle, pki().to_secrets());
    let debug = format!("{bundle:?} {:?}", pki());
    assert!(
        !debug.contains(&bundle.kubeadmin_password) && !debug.contains("PRIVATE KEY"),
        "{debug}"
    );
    let first = Pki::from_secrets(&bundle, &params(), now(), ValidityScale::Normal).unwrap();
    let second = Pki::from_secrets(&bundle, &params(), now(), ValidityScale::Normal).unwrap();
    assert_eq!(outputs(&first), outputs(&second));
    assert_eq!(outputs(&first), outputs(pki()));
}

#[test]
fn re_signing_signers_from_their_keys_is_also_byte_identical() {
    let mut bundle = pki().to_secrets();
    bundle.signer_certs.clear();
    let again = Pki::from_secrets(&bundle, &params(), now(), ValidityScale::Normal).unwrap();
    assert_eq!(outputs(&again), outputs(pki()));
}

#[test]
fn half_spent_bundled_signers_are_re_signed_at_the_new_clock() {
    let later = now() + time::Duration::hours(13);
    let p =
        Pki::from_secrets(&pki().to_secrets(), &params(), later, ValidityScale::Normal).unwrap();
    let nb = |p: &Pki, id: CertId| {
        let der = p.cert(id).leaf_der().unwrap();
        crate::common::parse(&der)
            .validity()
            .not_before
            .to_datetime()
    };
    assert_eq!(
        nb(&p, CertId::KubeletSigner),
        later,
        "1-day signer re-signed"
    );
    assert_eq!(nb(&p, CertId::RootCa), now(), "10-year signer kept");
    assert_eq!(
        p.cert(CertId::RootCa).cert_pem(),
        pki().cert(CertId::RootCa).cert_pem()
    );
}

fn bundle_error(text: &str) -> String {
    SecretsBundle::from_yaml(text, "/tmp/x/secrets.yaml")
        .unwrap_err()
        .to_string()
}

#[test]
fn corrupt_or_foreign_bundles_are_named_and_explained() {
    let err = bundle_error("kind: [unclosed");
    assert!(
        err.starts_with("secrets bundle /tmp/x/secrets.yaml: not valid YAML"),
        "{err}"
    );
    let err = bundle_error("apiVersion: v1\nkind: Pod\n");
    assert!(
        err.contains("/tmp/x/secrets.yaml") && err.contains("not an okd-install secrets bundle"),
        "{err}"
    );
    let err = bundle_error("kind: OkdInstallSecrets\nversion: 7\n");
    assert!(err.contains("version Some(7) is not supported"), "{err}");
    let yaml = pki().to_secrets().to_yaml().unwrap();
    let truncated = &yaml[..yaml.len() / 2];
    let err = bundle_error(truncated);
    assert!(
        err.starts_with("secrets bundle /tmp/x/secrets.yaml: "),
        "{err}"
    );
}

#[test]
fn a_key_that_does_not_match_its_signer_is_an_error_naming_the_entry() {
    let mut bundle = pki().to_secrets();
    let other = bundle.cert_keys[&CertId::AdminKubeconfigClient].clone();
    bundle.cert_keys.insert(CertId::RootCa, other);
    let err = bundle_error(&bundle.to_yaml().unwrap());
    assert!(
        err.contains("signerCertificates.root-ca") && err.contains("privateKeys.root-ca"),
        "{err}"
    );
}

#[test]
fn missing_and_unknown_entries_are_errors() {
    let yaml = pki().to_secrets().to_yaml().unwrap();
    let renamed = yaml.replacen("  bootstrap-ssh:", "  bootstrap-sshx:", 1);
    let err = bundle_error(&renamed);
    assert!(
        err.contains("privateKeys.bootstrap-ssh") && err.contains("missing"),
        "{err}"
    );
}
