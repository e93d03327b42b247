//! One injected fault per test: verify must name it and fail.

use std::path::Path;

use pki::{CertId, ClusterParams, KeyPem, ValidityScale};
use serde_json::Value;
use time::{Duration, OffsetDateTime};
use verify::Status;

use crate::{
    assert_error, base, copy_dir, example, findings, generate, now_opts, run_target, state_cert,
};

const STATE: &str = ".okd-install-state.json";

/// Rewrites the state file through `edit` (given the `assets` object).
fn edit_state(dir: &Path, edit: impl FnOnce(&mut serde_json::Map<String, Value>)) {
    let path = dir.join(STATE);
    let mut state: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("state")).expect("json");
    edit(state["assets"].as_object_mut().expect("assets"));
    std::fs::write(&path, serde_json::to_string(&state).expect("encode")).expect("write");
}

/// The certificate value (`cert_pem`, `key_pem`, ...) of `id` in a state's assets.
fn cert_value(assets: &mut serde_json::Map<String, Value>, id: CertId) -> &mut Value {
    &mut assets[id.cert_path()]["value"][0]
}

#[test]
fn expired_and_expiring_certificates_are_reported_with_the_time() {
    let mut opts = now_opts();
    opts.now = OffsetDateTime::now_utc() + Duration::days(365 * 20);
    let report = verify::verify(base(0), &opts);
    assert_error(
        &report,
        "cert.expiry",
        "tls/root-ca.crt",
        &["expired at", "ago"],
    );
    let expired = findings(&report, "cert.expiry", Status::Error);
    assert_eq!(expired.len(), CertId::ALL.len(), "{expired:#?}");

    opts.now = OffsetDateTime::now_utc() + Duration::days(3650) - Duration::hours(12);
    let report = verify::verify(base(0), &opts);
    let warned = findings(&report, "cert.expiry", Status::Warning);
    assert!(
        warned
            .iter()
            .any(|w| w.contains("tls/root-ca.crt") && w.contains(", in 1")),
        "{}",
        report.render_text()
    );
    assert_error(
        &report,
        "cert.expiry",
        "tls/kubelet-signer.crt",
        &["expired at"],
    );
}

#[test]
fn pointer_config_with_another_ca_is_named() {
    let dir = copy_dir(base(0));
    let (other_ca, _) = state_cert(base(1), CertId::RootCa);
    let path = dir.path().join("master.ign");
    let mut json: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    json["ignition"]["security"]["tls"]["certificateAuthorities"][0]["source"] =
        Value::String(ignition::encode_data_url(other_ca.as_bytes()));
    std::fs::write(&path, json.to_string()).expect("write");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "pointer.ca",
        "master.ign",
        &[
            "did not issue",
            "machine-config-server.crt",
            "signed by unknown authority",
        ],
    );
    assert_error(
        &report,
        "consistency.stale",
        "",
        &["mixes files of two clusters", "master.ign"],
    );
    assert!(findings(&report, "pointer.ca", Status::Error).len() == 1);
}

#[test]
fn stale_files_of_another_cluster_are_listed() {
    let other = generate(
        &example("compact-3-node").replace("name: compact", "name: other"),
        "ignition-configs",
    );
    let dir = copy_dir(base(0));
    for file in ["master.ign", "metadata.json", "auth/kubeconfig"] {
        std::fs::copy(other.path().join(file), dir.path().join(file)).expect("copy");
    }
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "consistency.stale",
        "",
        &[
            "mixes files of two clusters",
            "cluster name",
            "other in metadata.json",
            "auth/kubeconfig",
            "root CA",
            "master.ign",
        ],
    );
    assert_error(&report, "pointer.ca", "master.ign", &["did not issue"]);
    assert_error(
        &report,
        "kubeconfig.server",
        "auth/kubeconfig",
        &["belongs to another cluster"],
    );
    assert_error(
        &report,
        "kubeconfig.ca",
        "auth/kubeconfig",
        &["does not trust"],
    );
}

#[test]
fn mismatched_key_is_named() {
    let dir = copy_dir(base(0));
    let (_, wrong_key) = state_cert(base(0), CertId::KubeletClient);
    edit_state(dir.path(), |a| {
        cert_value(a, CertId::AdminKubeconfigClient)["key_pem"] = Value::String(wrong_key);
    });
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "cert.chain",
        "tls/admin-kubeconfig-client.crt",
        &["admin-kubeconfig-client.key does not belong to this certificate"],
    );
    assert_error(
        &report,
        "consistency.tls",
        "bootstrap.ign",
        &["admin-kubeconfig-client.key"],
    );
}

#[test]
fn missing_san_is_named() {
    let dir = copy_dir(base(0));
    let (signer_pem, signer_key) = state_cert(base(0), CertId::KubeApiserverLbSigner);
    let (_, leaf_key) = state_cert(base(0), CertId::KubeApiserverLbServer);
    let issuer = pki::CertKey::new(
        signer_pem,
        KeyPem::from_pem(&signer_key, "signer").expect("key"),
    );
    let params = ClusterParams {
        names: pki::ClusterNames::new("compact", "elsewhere.org"),
        service_networks: vec!["172.30.0.0/16".parse().expect("net")],
        api_vips: Vec::new(),
    };
    let leaf = pki::sign_leaf(
        CertId::KubeApiserverLbServer,
        &KeyPem::from_pem(&leaf_key, "leaf").expect("key"),
        &issuer,
        &params,
        OffsetDateTime::now_utc(),
        ValidityScale::Normal,
        7,
    )
    .expect("sign");
    edit_state(dir.path(), |a| {
        cert_value(a, CertId::KubeApiserverLbServer)["cert_pem"] =
            Value::String(leaf.cert_pem().to_string());
    });
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "cert.chain",
        "tls/kube-apiserver-lb-server.crt",
        &[
            "SAN DNS:api.compact.example.com missing",
            "DNS:api.compact.elsewhere.org",
        ],
    );
    let chain = report
        .checks
        .iter()
        .find(|c| c.id == "cert.chain" && c.subject.ends_with("kube-apiserver-lb-server.crt"))
        .expect("check");
    assert!(
        chain.message.starts_with("SAN "),
        "only the SAN is wrong: {}",
        chain.message
    );
}

#[test]
fn oversized_ignition_is_an_error_for_a_platform_with_a_limit() {
    let dir = copy_dir(base(0));
    let mut opts = now_opts();
    opts.platform = Some("aws".into());
    let report = verify::verify(dir.path(), &opts);
    assert!(
        findings(&report, "ignition.size", Status::Ok)
            .iter()
            .any(|l| l.starts_with("master.ign"))
    );
    assert_error(
        &report,
        "ignition.size",
        "bootstrap.ign",
        &["exceeds the aws limit"],
    );

    let path = dir.path().join("master.ign");
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str(&" ".repeat(20_000));
    std::fs::write(&path, text).expect("write");
    let report = verify::verify(dir.path(), &opts);
    assert_error(
        &report,
        "ignition.size",
        "master.ign",
        &["exceeds", "16384"],
    );
}

#[test]
fn broken_ignition_and_missing_ssh_key_are_named() {
    let dir = copy_dir(base(0));
    let path = dir.path().join("worker.ign");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(
        &path,
        text.replace("\"version\":\"3.2.0\"", "\"version\":\"3.9.9\""),
    )
    .expect("write");
    let ic_path = dir.path().join("install-config.yaml");
    let ic = std::fs::read_to_string(&ic_path).expect("read");
    let new_key = pki::generate_rsa_key()
        .expect("key")
        .ssh_public_key()
        .expect("an RSA key");
    let new_key = new_key.trim();
    let ic: String = ic
        .lines()
        .map(|l| {
            if l.starts_with("sshKey:") {
                format!("sshKey: {new_key}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&ic_path, ic).expect("write");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(&report, "ignition.check", "worker.ign", &["3.9.9"]);
    let shown: String = new_key.chars().take(40).collect();
    assert_error(&report, "ignition.ssh", "bootstrap.ign", &["lacks", &shown]);
    let warned = findings(&report, "consistency.install-config", Status::Warning);
    assert_eq!(warned.len(), 1, "{}", report.render_text());
}

#[test]
fn edited_cluster_config_and_broken_manifests_are_named() {
    let dir = copy_dir(base(0));
    run_target(dir.path(), "manifests");
    let path = dir.path().join("manifests/cluster-config.yaml");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("hostPrefix: 23"), "{text}");
    std::fs::write(&path, text.replace("hostPrefix: 23", "hostPrefix: 24")).expect("write");
    std::fs::write(
        dir.path().join("openshift/99-extra.yaml"),
        "kind: [unclosed\n",
    )
    .expect("write");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "consistency.cluster-config",
        "manifests/cluster-config.yaml",
        &["networking.clusterNetwork[0].hostPrefix is 24 there but 23"],
    );
    assert_error(&report, "manifests.parse", "99-extra.yaml", &[]);
}

#[test]
fn missing_signer_and_incomplete_bundle_are_named() {
    let dir = copy_dir(base(0));
    let (other_signer, _) = state_cert(base(1), CertId::KubeletSigner);
    edit_state(dir.path(), |a| {
        a.remove(CertId::KubeletBootstrapKubeconfigSigner.cert_path());
        let bundle = "tls/kubelet-client-ca-bundle.crt";
        a[bundle]["value"][0] = Value::String(other_signer);
    });
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "cert.chain",
        "tls/kubelet-client.crt",
        &["signer kubelet-bootstrap-kubeconfig-signer is missing"],
    );
    assert_error(
        &report,
        "cert.present",
        "kubelet-bootstrap-kubeconfig-signer",
        &["missing"],
    );
    assert_error(
        &report,
        "cert.bundle",
        "tls/kubelet-client-ca-bundle.crt",
        &["lacks the signer certificate of kubelet-signer"],
    );
}

#[test]
fn tls_directory_from_create_pki_is_the_source_when_present() {
    let dir = copy_dir(base(0));
    run_target(dir.path(), "pki");
    assert!(dir.path().join("tls/root-ca.crt").is_file());
    let report = verify::verify(dir.path(), &now_opts());
    crate::assert_clean(&report, "with tls/");
    assert!(report.checks.iter().any(|c| c.subject == "tls/root-ca.crt"));
    let key = dir.path().join("tls/kube-apiserver-lb-server.key");
    let other = dir.path().join("tls/kube-apiserver-internal-lb-server.key");
    std::fs::copy(other, key).expect("swap key");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "cert.chain",
        "tls/kube-apiserver-lb-server.crt",
        &["does not belong"],
    );
}

#[test]
fn kubeadmin_password_of_another_run_is_named() {
    let dir = copy_dir(base(0));
    let report = verify::verify(dir.path(), &now_opts());
    assert_eq!(
        findings(&report, "auth.password", Status::Ok).len(),
        1,
        "{}",
        report.render_text()
    );
    let file = "auth/kubeadmin-password";
    std::fs::copy(base(1).join(file), dir.path().join(file)).expect("copy");
    std::fs::write(dir.path().join("metadata.json"), "{not json").expect("write");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "auth.password",
        file,
        &["does not match the hash", "bootstrap.ign"],
    );
    assert_error(
        &report,
        "consistency.stale",
        "metadata.json",
        &["is not JSON"],
    );
}

#[test]
fn unreadable_files_are_findings_not_crashes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    std::fs::write(p.join("install-config.yaml"), example("single-node")).expect("write");
    std::fs::write(
        p.join("bootstrap.ign"),
        "{\"ignition\":{\"version\":\"3.2.0\"}}",
    )
    .expect("write");
    std::fs::write(p.join("master.ign"), "garbage").expect("write");
    std::fs::create_dir(p.join("auth")).expect("mkdir");
    std::fs::write(p.join("auth/kubeconfig"), "clusters: [").expect("write");
    std::fs::write(p.join(".okd-install-state.json"), "{\"version\":1}").expect("write");
    let report = verify::verify(p, &now_opts());
    assert_error(&report, "config.tls", "", &["no TLS material found"]);
    assert_error(&report, "config.state", STATE, &["no \"assets\""]);
    assert_error(&report, "pointer.url", "master.ign", &["not JSON"]);
    assert_error(&report, "ignition.check", "master.ign", &[]);
    assert_error(
        &report,
        "kubeconfig.server",
        "auth/kubeconfig",
        &["not YAML"],
    );
    assert!(findings(&report, "config.install-config", Status::Ok).len() == 1);
}

#[test]
fn a_leaf_in_place_of_a_signer_is_named() {
    let dir = copy_dir(base(0));
    let (leaf, key) = state_cert(base(0), CertId::AggregatorClient);
    edit_state(dir.path(), |a| {
        let v = cert_value(a, CertId::AggregatorCa);
        v["cert_pem"] = Value::String(leaf);
        v["key_pem"] = Value::String(key);
    });
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "cert.chain",
        "tls/aggregator-ca.crt",
        &["must be self-signed", "CA flag is false", "subject is"],
    );
    assert_error(
        &report,
        "cert.chain",
        "tls/apiserver-proxy.crt",
        &["not issued by"],
    );
}

/// `create manifests` for `example`, then `remove` deleted from the directory (as a user
/// might), then `create ignition-configs`: the bootstrap config lacks the object.
fn without_manifest(example_name: &str, remove: &str) -> tempfile::TempDir {
    let dir = generate(&example(example_name), "manifests");
    std::fs::remove_file(dir.path().join(remove)).expect("remove");
    run_target(dir.path(), "ignition-configs");
    dir
}

#[test]
fn vsphere_credentials_secret_is_required() {
    let ok = generate(&example("ha-workers"), "ignition-configs");
    let report = verify::verify(ok.path(), &now_opts());
    assert_eq!(
        findings(&report, "platform.vsphere-credentials", Status::Ok).len(),
        1,
        "{}",
        report.render_text()
    );
    assert!(!report.render_text().contains("not-a-real-password"));

    let dir = without_manifest("ha-workers", "openshift/99_cloud-creds-secret.yaml");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "platform.vsphere-credentials",
        "bootstrap.ign",
        &["kube-system/vsphere-creds", "create manifests"],
    );
}

#[test]
fn provisioning_cr_is_required_on_baremetal() {
    let report = verify::verify(base(0), &now_opts());
    assert_eq!(
        findings(&report, "platform.provisioning", Status::Ok).len(),
        1,
        "{}",
        report.render_text()
    );
    let dir = without_manifest(
        "compact-3-node",
        "openshift/99_baremetal-provisioning-config.yaml",
    );
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "platform.provisioning",
        "bootstrap.ign",
        &["provisioning-configuration"],
    );
}

/// A cluster with workers and no worker.ign fails verify, naming the file and the command.
#[test]
fn a_missing_role_config_is_named() {
    let dir = generate(&example("ha-workers"), "ignition-configs");
    std::fs::remove_file(dir.path().join("worker.ign")).expect("remove");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "ignition.roles",
        "worker.ign",
        &["is missing", "worker machine", "create ignition-configs"],
    );
}

/// additionalTrustBundle certificates out of their validity are an error in verify (a
/// warning at create); a link out of the directory in place of a .ign is refused unread.
#[test]
fn an_expired_trust_bundle_and_a_linked_config_are_named() {
    let dir = generate(&example("proxy-trust-bundle"), "ignition-configs");
    // The example's CA is valid from 2026-11-21 to 2036-11-18.
    let late = verify::Options::at(OffsetDateTime::from_unix_timestamp(2_200_000_000).unwrap());
    let report = verify::verify(dir.path(), &late);
    assert_error(
        &report,
        "config.trust-bundle",
        "additionalTrustBundle",
        &["certificate 1", "expired on"],
    );
    let report = verify::verify(dir.path(), &now_opts());
    assert!(
        findings(&report, "config.trust-bundle", Status::Error).is_empty(),
        "{}",
        report.render_text()
    );
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("shadow"), "root:secret-hash").expect("write");
    std::fs::remove_file(dir.path().join("worker.ign")).expect("remove");
    std::os::unix::fs::symlink(outside.path().join("shadow"), dir.path().join("worker.ign"))
        .expect("link");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "ignition.check",
        "worker.ign",
        &["symbolic link", "outside"],
    );
    assert!(!report.render_text().contains("secret-hash"));
}
