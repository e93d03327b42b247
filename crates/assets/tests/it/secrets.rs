//! The secrets bundle as `create secrets` writes it, `--with-secrets` runs (byte-identical
//! output, reuse of bundled signers until the expiry margin) and bundle error messages.

use assets::cluster_pki::ClusterPki;
use assets::{CertPolicy, RunSettings};
use pki::{CertId, KubeconfigId, SecretsBundle};
use time::{Duration, OffsetDateTime};

use crate::common::{generate, now, parse, pki, settings_at};

/// Everything a run writes or embeds, in one comparable list.
fn outputs(p: &ClusterPki) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = p
        .tls_files()
        .iter()
        .map(|f| (f.file.path().to_string(), f.content.clone()))
        .collect();
    for id in KubeconfigId::ALL {
        out.push((id.path().to_string(), p.kubeconfig(*id).to_string()));
    }
    out.push(("password".into(), p.password().password.clone()));
    out.push(("hash".into(), p.password().hash.clone()));
    out.push(("ssh".into(), p.bootstrap_ssh().public_key.clone()));
    out.push(("secrets".into(), p.secrets().to_yaml().unwrap()));
    out
}

/// A `--with-secrets` run of `bundle` at `at` with `policy`.
fn rerun(bundle: &SecretsBundle, at: OffsetDateTime, policy: CertPolicy) -> ClusterPki {
    generate(&RunSettings {
        secrets: Some(bundle.clone()),
        policy,
        ..settings_at(at)
    })
}

fn not_before(p: &ClusterPki, id: CertId) -> OffsetDateTime {
    let der = p.cert(id).leaf_der().unwrap();
    parse(&der).validity().not_before.to_datetime()
}

#[test]
fn same_bundle_and_clock_give_byte_identical_output() {
    let yaml = pki().secrets().to_yaml().expect("yaml");
    let bundle = SecretsBundle::from_yaml(&yaml, "secrets.yaml").expect("read back");
    assert_eq!(&bundle, pki().secrets());
    let debug = format!("{bundle:?} {:?}", pki());
    assert!(
        !debug.contains(&bundle.kubeadmin_password) && !debug.contains("PRIVATE KEY"),
        "{debug}"
    );
    let first = rerun(&bundle, now(), CertPolicy::default());
    let second = rerun(&bundle, now(), CertPolicy::default());
    assert_eq!(outputs(&first), outputs(&second));
    // The bundle's keys, signers and password are what the run used.
    assert_eq!(first.secrets(), &bundle);
    assert_eq!(first.password().password, pki().password().password);
    for id in CertId::ALL {
        assert_eq!(first.cert(*id).key_pem(), pki().cert(*id).key_pem(), "{id}");
    }
    for id in CertId::signers() {
        assert_eq!(first.cert(id).cert_pem(), pki().cert(id).cert_pem(), "{id}");
    }
}

#[test]
fn re_signing_signers_from_their_keys_is_also_byte_identical() {
    let mut bundle = pki().secrets().clone();
    bundle.signer_certs.clear();
    let first = rerun(&bundle, now(), CertPolicy::default());
    let second = rerun(&bundle, now(), CertPolicy::default());
    assert_eq!(outputs(&first), outputs(&second));
    for id in CertId::signers() {
        assert_eq!(not_before(&first, id), now(), "{id} signed at the clock");
        assert_eq!(first.cert(id).key_pem(), pki().cert(id).key_pem(), "{id}");
    }
}

#[test]
fn bundled_signers_within_the_margin_are_re_signed_at_the_new_clock() {
    let later = now() + Duration::hours(13);
    let p = rerun(pki().secrets(), later, CertPolicy::default());
    assert_eq!(
        not_before(&p, CertId::KubeletSigner),
        later,
        "1-day signer, 11h left, within the 12h margin: re-signed"
    );
    assert_eq!(not_before(&p, CertId::RootCa), now(), "10-year signer kept");
    assert_eq!(
        p.cert(CertId::RootCa).cert_pem(),
        pki().cert(CertId::RootCa).cert_pem()
    );
}

#[test]
fn only_the_expiry_margin_decides_signer_reuse_not_the_share_of_lifetime_left() {
    // 200 days into a one-year signer's life: far less than half of it is left, far more
    // than the margin, so the bundled certificate is kept.
    let later = now() + Duration::days(200);
    let p = rerun(pki().secrets(), later, CertPolicy::default());
    let year = CertId::KubeApiserverToKubeletSigner;
    assert_eq!(p.cert(year).cert_pem(), pki().cert(year).cert_pem());
    let leaf = CertId::KubeApiserverToKubeletClient;
    assert_eq!(
        not_before(&p, leaf),
        now(),
        "leaf starts with its kept issuer"
    );

    // A wider margin makes a 1-day signer with 19h left due.
    let soon = now() + Duration::hours(5);
    let kept = rerun(pki().secrets(), soon, CertPolicy::default());
    assert_eq!(
        not_before(&kept, CertId::KubeletSigner),
        now(),
        "12h margin"
    );
    let wide = CertPolicy {
        margin_hours: 20,
        ..CertPolicy::default()
    };
    let due = rerun(pki().secrets(), soon, wide);
    assert_eq!(not_before(&due, CertId::KubeletSigner), soon, "20h margin");
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
    let yaml = pki().secrets().to_yaml().unwrap();
    let truncated = &yaml[..yaml.len() / 2];
    let err = bundle_error(truncated);
    assert!(
        err.starts_with("secrets bundle /tmp/x/secrets.yaml: "),
        "{err}"
    );
}

#[test]
fn a_key_that_does_not_match_its_signer_is_an_error_naming_the_entry() {
    let mut bundle = pki().secrets().clone();
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
    let yaml = pki().secrets().to_yaml().unwrap();
    let renamed = yaml.replacen("  bootstrap-ssh:", "  bootstrap-sshx:", 1);
    let err = bundle_error(&renamed);
    assert!(
        err.contains("privateKeys.bootstrap-ssh") && err.contains("missing"),
        "{err}"
    );
}
