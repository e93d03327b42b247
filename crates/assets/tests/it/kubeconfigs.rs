//! Kubeconfigs (§6) as the asset graph makes them, parsed back with kube-rs, and where each
//! one goes.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use kube::config::Kubeconfig;
use pki::{BundleId, CertId, KubeconfigFile, KubeconfigId};

use crate::common::pki;

fn decode(data: Option<&String>) -> String {
    String::from_utf8(
        STANDARD
            .decode(data.expect("data present"))
            .expect("base64"),
    )
    .expect("utf8")
}

#[test]
fn kubeconfigs_parse_with_kube_rs_and_carry_the_reference_values() {
    let table = [
        (
            KubeconfigId::Admin,
            KubeconfigFile::InstallDir("auth/kubeconfig"),
            "https://api.dualstack.example.com:6443",
            BundleId::KubeApiserverCompleteServerCa,
            CertId::AdminKubeconfigClient,
            "admin",
        ),
        (
            KubeconfigId::AdminInternal,
            KubeconfigFile::BootstrapNode("/opt/openshift/auth/kubeconfig"),
            "https://api-int.dualstack.example.com:6443",
            BundleId::KubeApiserverCompleteServerCa,
            CertId::AdminKubeconfigClient,
            "admin",
        ),
        (
            KubeconfigId::Kubelet,
            KubeconfigFile::BootstrapNode("/opt/openshift/auth/kubeconfig-kubelet"),
            "https://api-int.dualstack.example.com:6443",
            BundleId::KubeApiserverCompleteServerCa,
            CertId::KubeletClient,
            "kubelet",
        ),
        (
            KubeconfigId::Loopback,
            KubeconfigFile::BootstrapNode("/opt/openshift/auth/kubeconfig-loopback"),
            "https://localhost:6443",
            BundleId::KubeApiserverLocalhostCa,
            CertId::AdminKubeconfigClient,
            "loopback",
        ),
    ];
    assert_eq!(table.len(), KubeconfigId::ALL.len());
    for (id, file, server, ca, client, user) in table {
        assert_eq!(id.spec().file, file, "{id:?} goes elsewhere");
        let yaml = pki().kubeconfig(id);
        let kc = Kubeconfig::from_yaml(yaml).unwrap_or_else(|e| panic!("{id:?}: {e}\n{yaml}"));
        assert_eq!(kc.api_version.as_deref(), Some("v1"));
        assert_eq!(kc.kind.as_deref(), Some("Config"));
        assert_eq!(kc.current_context.as_deref(), Some(user));
        let [cluster] = kc.clusters.as_slice() else {
            panic!("one cluster")
        };
        assert_eq!(cluster.name, "dualstack");
        let c = cluster.cluster.as_ref().expect("cluster");
        assert_eq!(c.server.as_deref(), Some(server));
        assert_eq!(
            decode(c.certificate_authority_data.as_ref()),
            pki().bundle(ca)
        );
        let [ctx] = kc.contexts.as_slice() else {
            panic!("one context")
        };
        assert_eq!(ctx.name, user);
        let ctx = ctx.context.as_ref().expect("context");
        assert_eq!(
            (ctx.cluster.as_str(), ctx.user.as_deref()),
            ("dualstack", Some(user))
        );
        let [auth] = kc.auth_infos.as_slice() else {
            panic!("one user")
        };
        assert_eq!(auth.name, user);
        let info = auth.auth_info.as_ref().expect("auth info");
        assert_eq!(
            decode(info.client_certificate_data.as_ref()),
            pki().cert(client).cert_pem()
        );
        assert_eq!(
            decode(Some(&client_key_data(info))),
            pki().cert(client).key_pem()
        );
    }
}

/// kube-rs keeps the key in a secrecy wrapper it does not re-export; its serializer exposes it.
pub(crate) fn client_key_data(info: &kube::config::AuthInfo) -> String {
    let value = serde_json::to_value(info).expect("serialize auth info");
    value["client-key-data"]
        .as_str()
        .expect("client-key-data")
        .to_string()
}

#[test]
fn admin_kubeconfig_keys_come_in_sorted_order() {
    let yaml = pki().kubeconfig(KubeconfigId::Admin);
    let top: Vec<&str> = yaml
        .lines()
        .filter(|l| !l.starts_with([' ', '-']))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        top,
        [
            "apiVersion",
            "clusters",
            "contexts",
            "current-context",
            "kind",
            "preferences",
            "users"
        ]
    );
}
