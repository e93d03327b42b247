//! A rustls server-certificate verifier that remembers what the server presented.
//!
//! A TLS client that fails on a certificate says "invalid peer certificate: UnknownIssuer"
//! and stops there. To tell people *which* certificate a server sent (its subject, issuer,
//! names), a client has to keep the chain the handshake saw. Two commands need that:
//! `wait-for`'s diagnostic probe, which wants webpki's own verdict against the kubeconfig's
//! CAs plus the certificate it was about, and `verify --online`, which lets any chain through
//! the handshake and judges it afterwards against an asset directory's CAs. [`PeerRecorder`]
//! is the one verifier both use; what they make of the chain stays with them.
//!
//! Either way the handshake signatures are verified against the presented leaf, so the
//! recorded chain is the one the peer holds the key for, not one it merely replayed.

use std::sync::{Arc, Mutex, PoisonError};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{VerifierBuilderError, WantsClientCert};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms, aws_lc_rs};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, ConfigBuilder, DigitallySignedStruct, RootCertStore, SignatureScheme};

/// Why a judging recorder could not be built from the given trust anchors.
///
/// Displays as the underlying rustls error, so callers can prefix their own context
/// ("kubeconfig CA: …").
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// A trust anchor is not a certificate webpki can use.
    #[error(transparent)]
    Anchor(rustls::Error),
    /// webpki refused the set of anchors (for example: none at all).
    #[error(transparent)]
    Verifier(VerifierBuilderError),
}

/// Who decides whether the presented chain is good enough for the handshake.
#[derive(Debug)]
enum Verdict {
    /// webpki, against fixed trust anchors: the handshake fails exactly when a normal client's
    /// would.
    WebPki(Arc<WebPkiServerVerifier>),
    /// Nobody: every chain passes, the caller judges the recorded one afterwards.
    AcceptAny,
}

/// What the server presented in one handshake and the verdict on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Presented {
    /// Leaf first, then the intermediates in the order the server sent them; never empty.
    chain: Vec<Vec<u8>>,
    rejection: Option<rustls::Error>,
}

impl Presented {
    /// The server's own certificate (DER).
    pub fn leaf(&self) -> &[u8] {
        self.chain.first().map_or(&[], Vec::as_slice)
    }

    /// The chain, leaf first, for callers that keep it.
    pub fn into_chain(self) -> Vec<Vec<u8>> {
        self.chain
    }

    /// Why the verifier rejected the chain, or `None` when it passed.
    pub fn rejection(&self) -> Option<&rustls::Error> {
        self.rejection.as_ref()
    }
}

/// A [`ServerCertVerifier`] that records the chain a server presents and the verdict on it.
///
/// Build it with [`PeerRecorder::judging`] (webpki decides) or [`PeerRecorder::accepting`]
/// (every chain passes), hand it to a client config with [`PeerRecorder::client_config`], and
/// read [`PeerRecorder::presented`] after the handshake, whether it succeeded or not.
#[derive(Debug)]
pub struct PeerRecorder {
    provider: Arc<CryptoProvider>,
    verdict: Verdict,
    seen: Mutex<Option<Presented>>,
}

impl PeerRecorder {
    /// A recorder whose verdict is webpki's against `anchors`: a certificate this rejects is
    /// one any client trusting only `anchors` would reject, and the rejection is recorded.
    pub fn judging(anchors: &[CertificateDer<'_>]) -> Result<PeerRecorder, TrustError> {
        let mut roots = RootCertStore::empty();
        for anchor in anchors {
            roots.add(anchor.clone()).map_err(TrustError::Anchor)?;
        }
        let provider = provider();
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(TrustError::Verifier)?;
        Ok(PeerRecorder::with(provider, Verdict::WebPki(webpki)))
    }

    /// A recorder that lets every chain through the handshake (still checking the handshake
    /// signatures), for callers that judge the recorded chain themselves.
    pub fn accepting() -> PeerRecorder {
        PeerRecorder::with(provider(), Verdict::AcceptAny)
    }

    fn with(provider: Arc<CryptoProvider>, verdict: Verdict) -> PeerRecorder {
        PeerRecorder {
            provider,
            verdict,
            seen: Mutex::new(None),
        }
    }

    /// A client config builder on this recorder's crypto provider and safe protocol versions
    /// that verifies the server through this recorder; the caller picks the client auth.
    pub fn client_config(
        self: &Arc<Self>,
    ) -> Result<ConfigBuilder<ClientConfig, WantsClientCert>, rustls::Error> {
        Ok(ClientConfig::builder_with_provider(self.provider.clone())
            .with_safe_default_protocol_versions()?
            .dangerous()
            .with_custom_certificate_verifier(self.clone()))
    }

    /// What the server presented in the last handshake, `None` if it never got that far.
    pub fn presented(&self) -> Option<Presented> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The signature algorithms the handshake may use, the provider's.
    fn algorithms(&self) -> &WebPkiSupportedAlgorithms {
        &self.provider.signature_verification_algorithms
    }

    fn record(&self, presented: Presented) {
        *self.seen.lock().unwrap_or_else(PoisonError::into_inner) = Some(presented);
    }
}

/// aws-lc-rs, the provider the rest of the workspace uses.
fn provider() -> Arc<CryptoProvider> {
    Arc::new(aws_lc_rs::default_provider())
}

impl ServerCertVerifier for PeerRecorder {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let verdict = match &self.verdict {
            Verdict::WebPki(webpki) => webpki.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            ),
            Verdict::AcceptAny => Ok(ServerCertVerified::assertion()),
        };
        let chain = std::iter::once(end_entity)
            .chain(intermediates)
            .map(|c| c.to_vec())
            .collect();
        self.record(Presented {
            chain,
            rejection: verdict.as_ref().err().cloned(),
        });
        verdict
    }

    // The signature checks below are what `WebPkiServerVerifier` does with the same provider,
    // so a judging recorder behaves like webpki in every step.
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, self.algorithms())
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, self.algorithms())
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms().supported_schemes()
    }
}
