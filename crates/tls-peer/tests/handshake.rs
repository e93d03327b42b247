//! Real TLS handshakes on 127.0.0.1: a rustls server presents a leaf and its intermediate,
//! and the recorder is checked for what it saw and what it decided. ECDSA P-256 keys keep
//! generation instant.

use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::server::ResolvesServerCert;
use rustls::sign::{CertifiedKey, SingleCertAndKey};
use rustls::{CertificateError, ClientConnection, ServerConfig, ServerConnection};
use tls_peer::PeerRecorder;

const HOST: &str = "peer.test";

/// A CA named `cn`.
fn ca(cn: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut p = CertificateParams::default();
    p.distinguished_name.push(DnType::CommonName, cn);
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    CertifiedIssuer::self_signed(p, KeyPair::generate().expect("CA key")).expect("self-sign CA")
}

/// What a server presents: leaf for [`HOST`], its intermediate, the leaf's key, and the root.
struct ServerPki {
    root: CertifiedIssuer<'static, KeyPair>,
    chain: Vec<CertificateDer<'static>>,
    key: KeyPair,
}

impl ServerPki {
    /// root CA `root_cn` -> intermediate CA -> leaf for [`HOST`].
    fn new(root_cn: &str) -> ServerPki {
        let root = ca(root_cn);
        let mut p = CertificateParams::default();
        p.distinguished_name
            .push(DnType::CommonName, "intermediate");
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let mid = CertifiedIssuer::signed_by(p, KeyPair::generate().expect("key"), &root)
            .expect("sign intermediate");
        let mut p = CertificateParams::new(vec![HOST.to_string()]).expect("leaf params");
        p.distinguished_name.push(DnType::CommonName, HOST);
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate().expect("leaf key");
        let leaf = p.signed_by(&key, &mid).expect("sign leaf");
        ServerPki {
            root,
            chain: vec![leaf.der().clone(), mid.der().clone()],
            key,
        }
    }

    fn chain_der(&self) -> Vec<Vec<u8>> {
        self.chain.iter().map(|c| c.to_vec()).collect()
    }

    /// A server config presenting the chain and signing with `key` (the leaf's own, or not).
    fn config(&self, key: &KeyPair) -> Arc<ServerConfig> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let signer = provider
            .key_provider
            .load_private_key(der)
            .expect("load key");
        // `CertifiedKey::new` does not check that the key matches the leaf, which lets a test
        // play a server that replays someone else's certificate.
        let certified = CertifiedKey::new(self.chain.clone(), signer);
        let resolver: Arc<dyn ResolvesServerCert> = Arc::new(SingleCertAndKey::from(certified));
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_no_client_auth()
            .with_cert_resolver(resolver);
        Arc::new(config)
    }
}

/// One handshake against a server thread on 127.0.0.1; the client's TLS error if it failed.
fn handshake(server: Arc<ServerConfig>, recorder: &Arc<PeerRecorder>) -> Option<rustls::Error> {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let serving = thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        let mut conn = ServerConnection::new(server).expect("server connection");
        while conn.is_handshaking() && conn.complete_io(&mut stream).is_ok() {}
    });
    let config = recorder
        .client_config()
        .expect("client config")
        .with_no_client_auth();
    let name = ServerName::try_from(HOST).expect("name");
    let mut conn = ClientConnection::new(Arc::new(config), name).expect("client connection");
    let mut sock = TcpStream::connect(addr).expect("connect");
    let mut failure = None;
    while conn.is_handshaking() {
        if let Err(e) = conn.complete_io(&mut sock) {
            let tls = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
            failure = Some(
                tls.cloned()
                    .unwrap_or_else(|| panic!("not a TLS error: {e}")),
            );
            break;
        }
    }
    drop(sock);
    serving.join().expect("server thread");
    failure
}

#[test]
fn judging_accepts_a_chain_to_its_anchor_and_records_it() {
    let pki = ServerPki::new("right root");
    let recorder = Arc::new(PeerRecorder::judging(&[pki.root.der().clone()]).expect("recorder"));
    assert_eq!(handshake(pki.config(&pki.key), &recorder), None);
    let seen = recorder.presented().expect("something presented");
    assert_eq!(seen.clone().into_chain(), pki.chain_der());
    assert_eq!(seen.leaf(), pki.chain[0].as_ref());
    assert_eq!(seen.rejection(), None);
}

#[test]
fn judging_rejects_a_foreign_chain_and_says_why() {
    let pki = ServerPki::new("their root");
    let ours = ca("our root");
    let recorder = Arc::new(PeerRecorder::judging(&[ours.der().clone()]).expect("recorder"));
    let unknown = rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer);
    assert_eq!(
        handshake(pki.config(&pki.key), &recorder),
        Some(unknown.clone())
    );
    let seen = recorder.presented().expect("something presented");
    assert_eq!(seen.leaf(), pki.chain[0].as_ref());
    assert_eq!(seen.clone().into_chain(), pki.chain_der());
    assert_eq!(seen.rejection(), Some(&unknown));
}

#[test]
fn judging_needs_an_anchor() {
    let err = PeerRecorder::judging(&[]).expect_err("no anchors");
    assert_eq!(err.to_string(), "no root trust anchors were provided");
}

#[test]
fn accepting_records_leaf_and_intermediates_of_any_chain() {
    let pki = ServerPki::new("nobody's root");
    let recorder = Arc::new(PeerRecorder::accepting());
    assert_eq!(recorder.presented(), None);
    assert_eq!(handshake(pki.config(&pki.key), &recorder), None);
    let seen = recorder.presented().expect("something presented");
    assert_eq!(seen.rejection(), None);
    assert_eq!(seen.clone().into_chain(), pki.chain_der());
}

#[test]
fn accepting_still_checks_that_the_server_holds_the_leaf_key() {
    let pki = ServerPki::new("replayed root");
    let impostor = KeyPair::generate().expect("impostor key");
    let recorder = Arc::new(PeerRecorder::accepting());
    let failure = handshake(pki.config(&impostor), &recorder).expect("handshake must fail");
    assert_eq!(
        failure,
        rustls::Error::InvalidCertificate(CertificateError::BadSignature)
    );
    // The chain was presented (and recorded) before the forged signature was seen.
    let seen = recorder.presented().expect("something presented");
    assert_eq!(seen.clone().into_chain(), pki.chain_der());
}
