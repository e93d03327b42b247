//! The installer's own PKI, made by the asset graph as `okd-install create pki` makes it: its
//! admin kubeconfig (RSA PKCS#1 client key, the three-signer server CA bundle) works with this
//! client against a server presenting the `kube-apiserver-lb-server` certificate and trusting
//! the admin kubeconfig signer.

use assets::RunSettings;
use assets::cluster_pki::ClusterPki;
use assets::config::InstallConfigAsset;
use pki::{CertId, KubeconfigId};
use serde_json::Value;
use testkit::api::TestApiServer;
use testkit::api::objects::{configmap, etcd};
use testkit::api::pki::write_kubeconfig;
use wait_for::{Cluster, Phase, wait_bootstrap_complete};

use crate::support::{Recorder, never};

/// Point the installer's kubeconfig at the local server, keeping the name it verifies.
fn local_kubeconfig(yaml: &str, url: &str, api_host: &str) -> String {
    let mut doc: Value = serde_saphyr::from_str(yaml).expect("installer kubeconfig parses");
    let cluster = &mut doc["clusters"][0]["cluster"];
    assert_eq!(cluster["server"], format!("https://{api_host}:6443"));
    cluster["server"] = url.into();
    cluster["tls-server-name"] = api_host.into();
    serde_saphyr::to_string(&doc).expect("serialize")
}

#[tokio::test]
async fn installer_admin_kubeconfig_talks_to_installer_serving_cert() {
    let example = include_str!("../../../../examples/compact-3-node.yaml");
    let ic = InstallConfigAsset::parse(example.to_string(), "compact-3-node.yaml")
        .expect("the example parses");
    let pki = ClusterPki::generate(ic, &RunSettings::default()).expect("installer PKI");
    let serving = pki.cert(CertId::KubeApiserverLbServer);
    let client_ca = pki.cert(CertId::AdminKubeconfigSigner);
    let server =
        TestApiServer::start(serving.cert_pem(), serving.key_pem(), client_ca.cert_pem()).await;
    server.apply(configmap(
        "kube-system",
        "bootstrap",
        &[("status", "complete")],
    ));
    server.apply(etcd("True"));

    let dir = tempfile::tempdir().expect("tempdir");
    let yaml = pki.kubeconfig(KubeconfigId::Admin);
    let path = write_kubeconfig(
        dir.path(),
        &local_kubeconfig(yaml, &server.url(), pki.params().api_host()),
    );
    let cluster = Cluster::from_kubeconfig(&path).await.expect("client");
    let rec = Recorder::default();
    let mut opts = wait_for::BootstrapWaitOptions::new(
        std::time::Duration::from_secs(45 * 60),
        Default::default(),
    );
    opts.api_timeout = std::time::Duration::from_secs(5);
    let summary = wait_bootstrap_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .expect("bootstrap completes with the installer's certificates");
    assert_eq!(summary.phases.len(), 3);
    assert!(
        rec.statuses(Phase::Api).is_empty(),
        "{:?}",
        rec.statuses(Phase::Api)
    );
}
