//! The four kubeconfigs the installer writes or embeds.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;

use crate::error::Result;
use crate::params::ClusterParams;
use crate::spec::{BundleId, CertId};

/// Which kubeconfig.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KubeconfigId {
    /// `auth/kubeconfig` in the install dir: external API name.
    Admin,
    /// `/opt/openshift/auth/kubeconfig` on the bootstrap node: internal API name.
    AdminInternal,
    /// `/opt/openshift/auth/kubeconfig-kubelet`: node-bootstrapper identity.
    Kubelet,
    /// `/opt/openshift/auth/kubeconfig-loopback`: `localhost`.
    Loopback,
}

impl KubeconfigId {
    /// All kubeconfigs.
    pub const ALL: &'static [KubeconfigId] = &[
        KubeconfigId::Admin,
        KubeconfigId::AdminInternal,
        KubeconfigId::Kubelet,
        KubeconfigId::Loopback,
    ];

    /// Where the file goes: relative to the install dir for [`KubeconfigId::Admin`], absolute on
    /// the bootstrap node for the embedded ones.
    pub fn path(self) -> &'static str {
        match self {
            KubeconfigId::Admin => "auth/kubeconfig",
            KubeconfigId::AdminInternal => "/opt/openshift/auth/kubeconfig",
            KubeconfigId::Kubelet => "/opt/openshift/auth/kubeconfig-kubelet",
            KubeconfigId::Loopback => "/opt/openshift/auth/kubeconfig-loopback",
        }
    }

    /// User and context name.
    pub fn user(self) -> &'static str {
        match self {
            KubeconfigId::Admin | KubeconfigId::AdminInternal => "admin",
            KubeconfigId::Kubelet => "kubelet",
            KubeconfigId::Loopback => "loopback",
        }
    }

    /// The API server URL.
    pub fn server(self, params: &ClusterParams) -> String {
        match self {
            KubeconfigId::Admin => format!("https://{}:6443", params.api_host()),
            KubeconfigId::AdminInternal | KubeconfigId::Kubelet => {
                format!("https://{}:6443", params.api_int_host())
            }
            KubeconfigId::Loopback => "https://localhost:6443".to_string(),
        }
    }

    /// The CA bundle placed in `certificate-authority-data`.
    pub fn ca_bundle(self) -> BundleId {
        match self {
            KubeconfigId::Loopback => BundleId::KubeApiserverLocalhostCa,
            _ => BundleId::KubeApiserverCompleteServerCa,
        }
    }

    /// The client certificate/key.
    pub fn client(self) -> CertId {
        match self {
            KubeconfigId::Kubelet => CertId::KubeletClient,
            _ => CertId::AdminKubeconfigClient,
        }
    }
}

#[derive(Serialize)]
struct Config<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'a str,
    clusters: [NamedCluster<'a>; 1],
    contexts: [NamedContext<'a>; 1],
    #[serde(rename = "current-context")]
    current_context: &'a str,
    kind: &'a str,
    preferences: std::collections::BTreeMap<String, String>,
    users: [NamedUser<'a>; 1],
}

#[derive(Serialize)]
struct NamedCluster<'a> {
    cluster: Cluster,
    name: &'a str,
}

#[derive(Serialize)]
struct Cluster {
    #[serde(rename = "certificate-authority-data")]
    ca_data: String,
    server: String,
}

#[derive(Serialize)]
struct NamedContext<'a> {
    context: Context<'a>,
    name: &'a str,
}

#[derive(Serialize)]
struct Context<'a> {
    cluster: &'a str,
    user: &'a str,
}

#[derive(Serialize)]
struct NamedUser<'a> {
    name: &'a str,
    user: User,
}

#[derive(Serialize)]
struct User {
    #[serde(rename = "client-certificate-data")]
    cert_data: String,
    #[serde(rename = "client-key-data")]
    key_data: String,
}

/// Renders kubeconfig `id` for the cluster: one cluster named `metadata.name`, one user and a
/// context of the same name, `current-context` set; `*-data` fields hold base64 of the PEM.
/// Keys are in the sorted order Kubernetes' own writer produces.
pub fn kubeconfig_yaml(
    id: KubeconfigId,
    params: &ClusterParams,
    ca_pem: &str,
    client_cert_pem: &str,
    client_key_pem: &str,
) -> Result<String> {
    let user = id.user();
    let config = Config {
        api_version: "v1",
        clusters: [NamedCluster {
            cluster: Cluster {
                ca_data: STANDARD.encode(ca_pem),
                server: id.server(params),
            },
            name: &params.cluster_name,
        }],
        contexts: [NamedContext {
            context: Context {
                cluster: &params.cluster_name,
                user,
            },
            name: user,
        }],
        current_context: user,
        kind: "Config",
        preferences: Default::default(),
        users: [NamedUser {
            name: user,
            user: User {
                cert_data: STANDARD.encode(client_cert_pem),
                key_data: STANDARD.encode(client_key_pem),
            },
        }],
    };
    crate::yaml::to_yaml(&config, "kubeconfig")
}
