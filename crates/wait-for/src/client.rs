//! Building the Kubernetes client from the admin kubeconfig.
//!
//! Two readers of the same file: kube builds the client, and [`Endpoint`] keeps the pieces the
//! TLS probe needs (server name, trusted CAs, client identity) to explain a failed handshake.
//! The file is validated first so that a kubeconfig which would make kube fall back to another
//! trust source (no CA, `insecure-skip-tls-verify`) is refused with the field to fix.

use std::fmt;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use kube::config::{KubeConfigOptions, Kubeconfig};
use rustls_pki_types::CertificateDer;
use serde_json::Value;

use contract::registry_error::MirrorRule;

use crate::error::WaitError;
use crate::kubeconfig::parse_pem_bundle;

/// Where the API is and how to authenticate to it, as far as the TLS probe needs it.
#[derive(Clone)]
pub(crate) struct Endpoint {
    pub server: String,
    pub host: String,
    pub port: u16,
    /// Name the server certificate must match (`tls-server-name` or the URL host).
    pub server_name: String,
    pub trusted: Vec<CertificateDer<'static>>,
    /// Client certificate chain, then key, both PEM.
    pub client_cert_pem: Vec<u8>,
    pub client_key_pem: Vec<u8>,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The client key is a secret: never printed.
        f.debug_struct("Endpoint")
            .field("server", &self.server)
            .field("server_name", &self.server_name)
            .field("trusted", &self.trusted.len())
            .finish_non_exhaustive()
    }
}

/// A connected-in-principle cluster: the kube client plus what is needed to explain failures.
#[derive(Clone)]
pub struct Cluster {
    pub(crate) client: kube::Client,
    pub(crate) endpoint: Endpoint,
    kubeconfig: PathBuf,
    /// The cluster's mirror rules (install-config's `imageDigestSources`): a pull error the
    /// kubelet reports often names no registry, and without them it would be blamed on the
    /// image's own registry when the node pulled from a mirror.
    pub(crate) mirror_rules: Vec<MirrorRule>,
}

impl fmt::Debug for Cluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cluster")
            .field("kubeconfig", &self.kubeconfig)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

/// Larger than any kubeconfig or certificate file it names: such a file is not read whole.
const MAX_KUBECONFIG: u64 = 16 << 20;

impl Cluster {
    /// Build a client from a kubeconfig file (normally `<dir>/auth/kubeconfig`, see
    /// [`crate::kubeconfig::default_path`]). Uses the current context; requires embedded or
    /// file CA data and a client certificate; refuses `insecure-skip-tls-verify`.
    pub async fn from_kubeconfig(path: &Path) -> Result<Self, WaitError> {
        // kube needs a process-wide rustls provider; aws-lc-rs is the only backend we link.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        // Links followed (the user named it), but a FIFO or device is refused, never waited on.
        let text = atomic_file::input::read_named(path, MAX_KUBECONFIG)
            .map_err(|e| WaitError::kubeconfig(path, format!("cannot read: {e}")))
            .and_then(|bytes| {
                String::from_utf8(bytes)
                    .map_err(|_| WaitError::kubeconfig(path, "is not UTF-8 text".to_string()))
            })?;
        let endpoint = endpoint_from_yaml(path, &text)?;
        let kc =
            Kubeconfig::read_from(path).map_err(|e| WaitError::kubeconfig(path, e.to_string()))?;
        let config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
            .await
            .map_err(|e| WaitError::kubeconfig(path, e.to_string()))?;
        if config.accept_invalid_certs || config.root_cert.is_none() {
            return Err(WaitError::kubeconfig(
                path,
                "the client would not verify the server with the kubeconfig's CA",
            ));
        }
        let client = kube::Client::try_from(config)
            .map_err(|e| WaitError::kubeconfig(path, format!("building the client: {e}")))?;
        Ok(Cluster {
            client,
            endpoint,
            kubeconfig: path.to_path_buf(),
            mirror_rules: Vec::new(),
        })
    }

    /// The same cluster, its pull errors read with the cluster's mirror rules.
    pub fn with_mirror_rules(mut self, rules: Vec<MirrorRule>) -> Self {
        self.mirror_rules = rules;
        self
    }

    /// The kubeconfig this client was built from (and that install-complete updates).
    pub fn kubeconfig_path(&self) -> &Path {
        &self.kubeconfig
    }

    /// The API server URL.
    pub fn server(&self) -> &str {
        &self.endpoint.server
    }

    /// The underlying kube client, for callers that need more than the waits.
    pub fn client(&self) -> &kube::Client {
        &self.client
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Find `list[].name == name` and return its `inner` object.
fn named<'a>(doc: &'a Value, list: &str, inner: &str, name: &str) -> Option<(usize, &'a Value)> {
    doc.get(list)?
        .as_array()?
        .iter()
        .enumerate()
        .find(|(_, e)| str_at(e, "name") == Some(name))
        .and_then(|(i, e)| e.get(inner).map(|v| (i, v)))
}

/// Inline `<key>-data` (base64) or file `<key>` (relative to the kubeconfig's directory).
fn data_or_file(path: &Path, obj: &Value, key: &str, field: &str) -> Result<Vec<u8>, WaitError> {
    if let Some(b64) = str_at(obj, &format!("{key}-data")) {
        return STANDARD.decode(b64.trim()).map_err(|e| {
            WaitError::kubeconfig(path, format!("{field}.{key}-data: not base64: {e}"))
        });
    }
    if let Some(file) = str_at(obj, key) {
        let base = path.parent().unwrap_or(Path::new("."));
        let file = base.join(file);
        return atomic_file::input::read_named(&file, MAX_KUBECONFIG).map_err(|e| {
            WaitError::kubeconfig(path, format!("{field}.{key}: {}: {e}", file.display()))
        });
    }
    Err(WaitError::kubeconfig(
        path,
        format!("{field}: neither {key}-data nor {key} is set"),
    ))
}

/// Resolve the current context and pull out what the probe needs, validating as we go.
pub(crate) fn endpoint_from_yaml(path: &Path, text: &str) -> Result<Endpoint, WaitError> {
    let bad = |msg: String| WaitError::kubeconfig(path, msg);
    let doc: Value =
        serde_saphyr::from_str(text).map_err(|e| bad(format!("not valid YAML: {e}")))?;
    let ctx_name =
        str_at(&doc, "current-context").ok_or_else(|| bad("current-context: not set".into()))?;
    let (ci, ctx) = named(&doc, "contexts", "context", ctx_name)
        .ok_or_else(|| bad(format!("contexts: no context named {ctx_name:?}")))?;
    let cluster_name = str_at(ctx, "cluster")
        .ok_or_else(|| bad(format!("contexts[{ci}].context.cluster: not set")))?;
    let user_name =
        str_at(ctx, "user").ok_or_else(|| bad(format!("contexts[{ci}].context.user: not set")))?;
    let (ki, cluster) = named(&doc, "clusters", "cluster", cluster_name)
        .ok_or_else(|| bad(format!("clusters: no cluster named {cluster_name:?}")))?;
    let (ui, user) = named(&doc, "users", "user", user_name)
        .ok_or_else(|| bad(format!("users: no user named {user_name:?}")))?;
    let cfield = format!("clusters[{ki}].cluster");
    let ufield = format!("users[{ui}].user");
    if cluster
        .get("insecure-skip-tls-verify")
        .and_then(Value::as_bool)
        == Some(true)
    {
        return Err(bad(format!(
            "{cfield}.insecure-skip-tls-verify: true is refused; the installer's kubeconfig \
             pins the cluster CA, remove the field"
        )));
    }
    let server = str_at(cluster, "server")
        .ok_or_else(|| bad(format!("{cfield}.server: not set")))?
        .to_string();
    let (host, port) = split_server(&server).map_err(|e| bad(format!("{cfield}.server: {e}")))?;
    let ca = data_or_file(path, cluster, "certificate-authority", &cfield)?;
    let trusted = parse_pem_bundle(&ca)
        .map_err(|e| bad(format!("{cfield}.certificate-authority-data: {e}")))?;
    let client_cert_pem = data_or_file(path, user, "client-certificate", &ufield)?;
    let client_key_pem = data_or_file(path, user, "client-key", &ufield)?;
    let server_name = str_at(cluster, "tls-server-name")
        .unwrap_or(&host)
        .to_string();
    Ok(Endpoint {
        server,
        host,
        port,
        server_name,
        trusted,
        client_cert_pem,
        client_key_pem,
    })
}

/// `https://host:port` → (host, port); IPv6 brackets removed; port defaults to 443.
fn split_server(server: &str) -> Result<(String, u16), String> {
    let rest = server
        .strip_prefix("https://")
        .ok_or("must start with https://")?;
    let authority = rest.split('/').next().unwrap_or_default();
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, p) = v6.split_once(']').ok_or("unclosed [ in IPv6 address")?;
        (h, p.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err("no host".into());
    }
    let port = match port {
        Some(p) => p.parse().map_err(|_| format!("bad port {p:?}"))?,
        None => 443,
    };
    Ok((host.to_string(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_urls_split() {
        assert_eq!(
            split_server("https://api.c.example.com:6443").unwrap(),
            ("api.c.example.com".into(), 6443)
        );
        assert_eq!(
            split_server("https://[::1]:6443/").unwrap(),
            ("::1".into(), 6443)
        );
        assert_eq!(split_server("https://h").unwrap(), ("h".into(), 443));
        assert!(split_server("http://h:1").is_err());
    }

    #[test]
    fn insecure_kubeconfig_is_refused_with_field() {
        let yaml = "apiVersion: v1\nkind: Config\ncurrent-context: admin\n\
            contexts:\n- name: admin\n  context: {cluster: c, user: admin}\n\
            clusters:\n- name: c\n  cluster: {server: 'https://h:6443', insecure-skip-tls-verify: true}\n\
            users:\n- name: admin\n  user: {}\n";
        let err = endpoint_from_yaml(Path::new("kc"), yaml).unwrap_err();
        assert!(
            err.to_string()
                .contains("clusters[0].cluster.insecure-skip-tls-verify"),
            "{err}"
        );
    }
}
