//! Mutual TLS with tokio-rustls: a client configured only from the admin kubeconfig talks to a
//! server presenting the external LB serving chain and requiring admin-kubeconfig client certs.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use kube::config::Kubeconfig;
use pki::{BundleId, CertId, KubeconfigId};
use rustls::crypto::CryptoProvider;
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig};
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio_rustls::{TlsAcceptor, TlsConnector};

use crate::common::pki;
use crate::kubeconfigs::client_key_data;

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

fn certs(pem: &[u8]) -> Vec<CertificateDer<'static>> {
    CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .expect("certs")
}

fn roots(pem: &[u8]) -> Arc<RootCertStore> {
    let mut store = RootCertStore::empty();
    for cert in certs(pem) {
        store.add(cert).expect("root");
    }
    Arc::new(store)
}

/// Client credentials and trust, taken from a kubeconfig as a Kubernetes client would.
struct KubeconfigClient {
    ca: Vec<u8>,
    cert: Vec<u8>,
    key: Vec<u8>,
}

fn from_kubeconfig(id: KubeconfigId) -> KubeconfigClient {
    let kc = Kubeconfig::from_yaml(pki().kubeconfig(id)).unwrap();
    let cluster = kc.clusters[0].cluster.as_ref().unwrap();
    let info = kc.auth_infos[0].auth_info.as_ref().unwrap();
    let decode = |s: &str| STANDARD.decode(s).unwrap();
    KubeconfigClient {
        ca: decode(cluster.certificate_authority_data.as_ref().unwrap()),
        cert: decode(info.client_certificate_data.as_ref().unwrap()),
        key: decode(&client_key_data(info)),
    }
}

fn server_config() -> Arc<ServerConfig> {
    let lb = pki().cert(CertId::KubeApiserverLbServer);
    let client_roots = roots(pki().bundle(BundleId::AdminKubeconfigCa).as_bytes());
    let verifier = WebPkiClientVerifier::builder_with_provider(client_roots, provider())
        .build()
        .unwrap();
    let chain = certs(lb.cert_pem().as_bytes());
    assert_eq!(chain.len(), 2, "leaf + lb signer");
    let config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            chain,
            PrivateKeyDer::from_pem_slice(lb.key_pem().as_bytes()).unwrap(),
        )
        .unwrap();
    Arc::new(config)
}

fn client_config(client: &KubeconfigClient) -> Arc<ClientConfig> {
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots(&client.ca))
        .with_client_auth_cert(
            certs(&client.cert),
            PrivateKeyDer::from_pem_slice(&client.key).unwrap(),
        )
        .unwrap();
    Arc::new(config)
}

/// Runs one handshake plus a one-byte echo; returns the CN-bearing client certificate the
/// server saw, or the first error from either side.
async fn handshake(client: &KubeconfigClient, name: &str) -> Result<Vec<u8>, String> {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let acceptor = TlsAcceptor::from(server_config());
    let server = tokio::spawn(async move {
        let mut tls = acceptor
            .accept(server_io)
            .await
            .map_err(|e| format!("server: {e}"))?;
        let peer = tls
            .get_ref()
            .1
            .peer_certificates()
            .map(|c| c[0].to_vec())
            .unwrap_or_default();
        let mut byte = [0u8; 1];
        tls.read_exact(&mut byte)
            .await
            .map_err(|e| format!("server read: {e}"))?;
        tls.write_all(&byte)
            .await
            .map_err(|e| format!("server write: {e}"))?;
        tls.shutdown().await.ok();
        Ok::<_, String>(peer)
    });
    let connector = TlsConnector::from(client_config(client));
    let server_name = ServerName::try_from(name.to_string()).unwrap();
    let client_side = async {
        let mut tls = connector
            .connect(server_name, client_io)
            .await
            .map_err(|e| format!("client: {e}"))?;
        tls.write_all(b"k")
            .await
            .map_err(|e| format!("client write: {e}"))?;
        let mut byte = [0u8; 1];
        tls.read_exact(&mut byte)
            .await
            .map_err(|e| format!("client read: {e}"))?;
        Ok::<_, String>(())
    };
    let client_result = client_side.await;
    let server_result = server.await.unwrap();
    client_result?;
    server_result
}

#[tokio::test]
async fn admin_kubeconfig_client_completes_mutual_tls_with_the_api_lb_cert() {
    let client = from_kubeconfig(KubeconfigId::Admin);
    let peer = handshake(&client, "api.dualstack.example.com")
        .await
        .expect("handshake");
    assert_eq!(
        peer,
        certs(
            pki()
                .cert(CertId::AdminKubeconfigClient)
                .cert_pem()
                .as_bytes()
        )[0]
        .to_vec()
    );
}

#[tokio::test]
async fn wrong_server_name_is_rejected() {
    let client = from_kubeconfig(KubeconfigId::Admin);
    let err = handshake(&client, "api-int.dualstack.example.com")
        .await
        .unwrap_err();
    assert!(
        err.starts_with("client:") && err.contains("not valid for name"),
        "{err}"
    );
}

#[tokio::test]
async fn client_cert_from_another_signer_is_rejected_by_the_server() {
    let mut client = from_kubeconfig(KubeconfigId::Admin);
    let kubelet = from_kubeconfig(KubeconfigId::Kubelet);
    client.cert = kubelet.cert;
    client.key = kubelet.key;
    let err = handshake(&client, "api.dualstack.example.com")
        .await
        .unwrap_err();
    assert!(
        err.contains("UnknownIssuer") || err.contains("alert"),
        "{err}"
    );
}
