//! The kubeconfig table: which kubeconfigs the installer makes, where each one goes, whom it
//! authenticates as, which CA bundle it trusts and which API endpoint it talks to. Like the
//! certificate table in `spec.rs`, it is the single source of these facts: the asset graph
//! builds one kubeconfig asset per row, the bootstrap config embeds the rows that live on the
//! node, and `verify` checks files against the same rows.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;

use crate::error::Result;
use crate::params::ClusterParams;
use crate::spec::{BundleId, CertId};

/// Which kubeconfig.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KubeconfigId {
    /// The administrator's kubeconfig in the install dir.
    Admin,
    /// The same identity on the bootstrap node, through the internal API name.
    AdminInternal,
    /// The node-bootstrapper identity the bootstrap kubelet uses.
    Kubelet,
    /// The admin identity through `localhost`, for the bootstrap control plane itself.
    Loopback,
}

/// The API endpoint a kubeconfig's `server` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `https://api.<cluster-domain>:6443`, the external load balancer.
    ExternalApi,
    /// `https://api-int.<cluster-domain>:6443`, the internal load balancer.
    InternalApi,
    /// `https://localhost:6443`, the API server on the same host.
    Localhost,
}

impl Endpoint {
    /// The server URL for this cluster.
    pub fn url(self, params: &ClusterParams) -> String {
        match self {
            Endpoint::ExternalApi => format!("https://{}:6443", params.api_host()),
            Endpoint::InternalApi => format!("https://{}:6443", params.api_int_host()),
            Endpoint::Localhost => "https://localhost:6443".to_string(),
        }
    }

    /// The serving certificate a client meets at this endpoint.
    pub fn serving_cert(self) -> CertId {
        match self {
            Endpoint::ExternalApi => CertId::KubeApiserverLbServer,
            Endpoint::InternalApi => CertId::KubeApiserverInternalLbServer,
            Endpoint::Localhost => CertId::KubeApiserverLocalhostServer,
        }
    }
}

/// Where a kubeconfig is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KubeconfigFile {
    /// Exported to the install dir for the administrator (path relative to the dir).
    InstallDir(&'static str),
    /// Embedded in the bootstrap Ignition config (absolute path on the node).
    BootstrapNode(&'static str),
}

/// Everything the kubeconfig table says about one kubeconfig.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KubeconfigSpec {
    /// Where the file goes.
    pub file: KubeconfigFile,
    /// User and context name.
    pub user: &'static str,
    /// The CA bundle placed in `certificate-authority-data`.
    pub ca_bundle: BundleId,
    /// The client certificate and key placed in `client-*-data`.
    pub client: CertId,
    /// The API endpoint of `server`.
    pub endpoint: Endpoint,
}

impl KubeconfigId {
    /// All kubeconfigs, the exported one first.
    pub const ALL: &'static [KubeconfigId] = &[
        KubeconfigId::Admin,
        KubeconfigId::AdminInternal,
        KubeconfigId::Kubelet,
        KubeconfigId::Loopback,
    ];

    /// The table row of this kubeconfig.
    pub const fn spec(self) -> KubeconfigSpec {
        use BundleId::{KubeApiserverCompleteServerCa, KubeApiserverLocalhostCa};
        use CertId::{AdminKubeconfigClient, KubeletClient};
        use KubeconfigFile::{BootstrapNode, InstallDir};
        const fn row(
            file: KubeconfigFile,
            user: &'static str,
            ca_bundle: BundleId,
            client: CertId,
            endpoint: Endpoint,
        ) -> KubeconfigSpec {
            KubeconfigSpec {
                file,
                user,
                ca_bundle,
                client,
                endpoint,
            }
        }
        match self {
            KubeconfigId::Admin => row(
                InstallDir(contract::ADMIN_KUBECONFIG_FILE),
                "admin",
                KubeApiserverCompleteServerCa,
                AdminKubeconfigClient,
                Endpoint::ExternalApi,
            ),
            KubeconfigId::AdminInternal => row(
                BootstrapNode("/opt/openshift/auth/kubeconfig"),
                "admin",
                KubeApiserverCompleteServerCa,
                AdminKubeconfigClient,
                Endpoint::InternalApi,
            ),
            KubeconfigId::Kubelet => row(
                BootstrapNode("/opt/openshift/auth/kubeconfig-kubelet"),
                "kubelet",
                KubeApiserverCompleteServerCa,
                KubeletClient,
                Endpoint::InternalApi,
            ),
            KubeconfigId::Loopback => row(
                BootstrapNode("/opt/openshift/auth/kubeconfig-loopback"),
                "loopback",
                KubeApiserverLocalhostCa,
                AdminKubeconfigClient,
                Endpoint::Localhost,
            ),
        }
    }

    /// Where the file goes: relative to the install dir when exported, else absolute on the
    /// bootstrap node.
    pub fn path(self) -> &'static str {
        match self.spec().file {
            KubeconfigFile::InstallDir(p) | KubeconfigFile::BootstrapNode(p) => p,
        }
    }

    /// User and context name.
    fn user(self) -> &'static str {
        self.spec().user
    }

    /// The API server URL.
    pub fn server(self, params: &ClusterParams) -> String {
        self.spec().endpoint.url(params)
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
            name: &params.names.cluster_name,
        }],
        contexts: [NamedContext {
            context: Context {
                cluster: &params.names.cluster_name,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the file is exported to the install dir's `auth/`.
    fn is_exported(id: KubeconfigId) -> bool {
        matches!(id.spec().file, KubeconfigFile::InstallDir(_))
    }

    #[test]
    fn one_kubeconfig_is_exported_and_every_path_is_distinct() {
        let exported: Vec<_> = KubeconfigId::ALL
            .iter()
            .filter(|id| is_exported(**id))
            .collect();
        assert_eq!(exported, [&KubeconfigId::Admin]);
        let mut paths: Vec<&str> = KubeconfigId::ALL.iter().map(|id| id.path()).collect();
        paths.sort_unstable();
        paths.dedup();
        assert_eq!(paths.len(), KubeconfigId::ALL.len());
        for id in KubeconfigId::ALL {
            let absolute = id.path().starts_with('/');
            assert_eq!(
                absolute,
                !is_exported(*id),
                "{id:?}: node paths are absolute"
            );
        }
    }

    #[test]
    fn endpoints_name_the_matching_server_and_serving_certificate() {
        let params = ClusterParams {
            names: crate::ClusterNames::new("c", "example.com"),
            service_networks: Vec::new(),
            api_vips: Vec::new(),
        };
        let rows = [
            (
                Endpoint::ExternalApi,
                "https://api.c.example.com:6443",
                CertId::KubeApiserverLbServer,
            ),
            (
                Endpoint::InternalApi,
                "https://api-int.c.example.com:6443",
                CertId::KubeApiserverInternalLbServer,
            ),
            (
                Endpoint::Localhost,
                "https://localhost:6443",
                CertId::KubeApiserverLocalhostServer,
            ),
        ];
        for (endpoint, url, cert) in rows {
            assert_eq!(endpoint.url(&params), url);
            assert_eq!(endpoint.serving_cert(), cert);
        }
    }
}
