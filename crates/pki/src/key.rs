//! Private keys: RSA (PKCS#1 PEM, the form the installer writes every key in) and ECDSA on
//! P-256, P-384 or P-521 (SEC 1 PEM naming its curve, as Go writes them), generated with
//! aws-lc (RSA of 5120, 6144 and 7168 bits with the `rsa` crate), and the derived public
//! encodings (PKIX in a PEM block, the OpenSSH line of an RSA key).

use std::fmt;

use aws_lc_rs::encoding::AsDer as _;
use aws_lc_rs::signature::{self as sig, EcdsaKeyPair, EcdsaSigningAlgorithm};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rcgen::{KeyPair, PublicKeyData as _, SignatureAlgorithm};
use rustls_pki_types::PrivateKeyDer;

use crate::der;
use crate::error::{Error, Result};
use crate::pem;
use crate::spec::{Curve, KeyKind};

/// PEM label of PKCS#1 private keys, as every RSA `tls/*.key` file uses.
pub const RSA_PRIVATE_KEY: &str = "RSA PRIVATE KEY";
/// PEM label of SEC 1 private keys, as every ECDSA `tls/*.key` file uses.
pub const EC_PRIVATE_KEY: &str = "EC PRIVATE KEY";
/// PEM label the installer uses for public keys, even though the DER inside is PKIX.
pub const RSA_PUBLIC_KEY: &str = "RSA PUBLIC KEY";

/// A private key held as DER (PKCS#1 for RSA, SEC 1 for ECDSA), with its public halves
/// precomputed.
///
/// `Debug` never prints the key material.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyPem {
    kind: KeyKind,
    der: Vec<u8>,
    pem: String,
    public_raw: Vec<u8>,
    public_spki: Vec<u8>,
}

impl fmt::Debug for KeyPem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyPem")
            .field("kind", &self.kind)
            .field("public_spki_sha256", &hex_sha256(&self.public_spki))
            .finish_non_exhaustive()
    }
}

fn hex_sha256(data: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(data))
}

/// Generates a fresh RSA-2048 key with aws-lc's generator and returns it as PKCS#1.
///
/// aws-lc draws from the operating system's RNG; that is the one randomness source this crate
/// cannot inject, which is why deterministic runs reuse keys from a [`crate::SecretsBundle`].
pub fn generate_rsa_key() -> Result<KeyPem> {
    generate_key(KeyKind::RSA_2048)
}

/// Generates a fresh key of `kind` (the certificate table's [`crate::CertSpec::key`], or the
/// kind a caller chose for a signer). RSA keys are 2048 to 8192 bits in steps of 1024, the
/// sizes install-config allows.
pub fn generate_key(kind: KeyKind) -> Result<KeyPem> {
    let failed = |e: &dyn fmt::Display| Error::KeyGeneration(format!("{kind}: {e}"));
    match kind {
        KeyKind::Rsa { bits } => {
            let pkcs1 = match aws_lc_size(bits) {
                Some(size) => generate_rsa_aws_lc(size),
                None => generate_rsa_other(bits),
            }
            .map_err(|e| failed(&e))?;
            KeyPem::from_der(kind, pkcs1, "generated key")
        }
        KeyKind::Ecdsa(curve) => {
            let pair = EcdsaKeyPair::generate(signing(curve)).map_err(|e| failed(&e))?;
            let sec1 = pair.private_key().as_der().map_err(|e| failed(&e))?;
            KeyPem::from_der(kind, sec1.as_ref().to_vec(), "generated key")
        }
    }
}

/// The sizes aws-lc generates itself; it is several times faster than the `rsa` crate, which
/// makes the others.
fn aws_lc_size(bits: u16) -> Option<aws_lc_rs::rsa::KeySize> {
    use aws_lc_rs::rsa::KeySize;
    match bits {
        2048 => Some(KeySize::Rsa2048),
        3072 => Some(KeySize::Rsa3072),
        4096 => Some(KeySize::Rsa4096),
        8192 => Some(KeySize::Rsa8192),
        _ => None,
    }
}

/// An RSA key from aws-lc, as PKCS#1 DER.
fn generate_rsa_aws_lc(size: aws_lc_rs::rsa::KeySize) -> std::result::Result<Vec<u8>, String> {
    let pair = aws_lc_rs::rsa::KeyPair::generate(size).map_err(|e| e.to_string())?;
    let pkcs8 = pair.as_der().map_err(|e| e.to_string())?;
    der::pkcs8_to_pkcs1(pkcs8.as_ref()).ok_or_else(|| "aws-lc returned a non-RSA key".to_owned())
}

/// An RSA key of a size aws-lc does not generate (5120, 6144 or 7168 bits), made by the
/// `rsa` crate from aws-lc's randomness, as PKCS#1 DER. aws-lc signs with it all the same.
fn generate_rsa_other(bits: u16) -> std::result::Result<Vec<u8>, String> {
    use rsa::pkcs1::EncodeRsaPrivateKey as _;
    if !(2048..=8192).contains(&bits) || !bits.is_multiple_of(1024) {
        return Err("RSA keys are 2048 to 8192 bits, a multiple of 1024".to_owned());
    }
    let mut rng = rsa::rand_core::UnwrapErr(AwsLcRandom);
    let key = rsa::RsaPrivateKey::new(&mut rng, usize::from(bits)).map_err(|e| e.to_string())?;
    let pkcs1 = key.to_pkcs1_der().map_err(|e| e.to_string())?;
    Ok(pkcs1.as_bytes().to_vec())
}

/// aws-lc's system randomness, for the `rsa` crate: one randomness source for every key.
struct AwsLcRandom;

impl rsa::rand_core::TryRng for AwsLcRandom {
    type Error = aws_lc_rs::error::Unspecified;

    fn try_next_u32(&mut self) -> std::result::Result<u32, Self::Error> {
        let mut bytes = [0; 4];
        self.try_fill_bytes(&mut bytes)?;
        Ok(u32::from_le_bytes(bytes))
    }

    fn try_next_u64(&mut self) -> std::result::Result<u64, Self::Error> {
        let mut bytes = [0; 8];
        self.try_fill_bytes(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> std::result::Result<(), Self::Error> {
        aws_lc_rs::rand::fill(dst)
    }
}

impl rsa::rand_core::TryCryptoRng for AwsLcRandom {}

/// aws-lc's signing algorithm of a curve, with the hash Go pairs with it.
fn signing(curve: Curve) -> &'static EcdsaSigningAlgorithm {
    match curve {
        Curve::P256 => &sig::ECDSA_P256_SHA256_ASN1_SIGNING,
        Curve::P384 => &sig::ECDSA_P384_SHA384_ASN1_SIGNING,
        Curve::P521 => &sig::ECDSA_P521_SHA512_ASN1_SIGNING,
    }
}

/// The algorithm certificates signed by a key of `kind` carry, as Go's x509 picks it.
fn signature_algorithm(kind: KeyKind) -> &'static SignatureAlgorithm {
    match kind {
        KeyKind::Rsa { .. } => &rcgen::PKCS_RSA_SHA256,
        KeyKind::Ecdsa(Curve::P256) => &rcgen::PKCS_ECDSA_P256_SHA256,
        KeyKind::Ecdsa(Curve::P384) => &rcgen::PKCS_ECDSA_P384_SHA384,
        KeyKind::Ecdsa(Curve::P521) => &rcgen::PKCS_ECDSA_P521_SHA512,
    }
}

const CURVES: [Curve; 3] = [Curve::P256, Curve::P384, Curve::P521];

impl KeyPem {
    /// A key of `kind` from its DER (PKCS#1 for RSA, SEC 1 for ECDSA); `file` names the
    /// source in errors.
    fn from_der(kind: KeyKind, der: Vec<u8>, file: &str) -> Result<Self> {
        let pair = load_pair(kind, &der, file)?;
        let kind = match kind {
            KeyKind::Rsa { .. } => KeyKind::Rsa {
                bits: rsa_bits(pair.der_bytes()),
            },
            ecdsa => ecdsa,
        };
        let label = match kind {
            KeyKind::Rsa { .. } => RSA_PRIVATE_KEY,
            KeyKind::Ecdsa(_) => EC_PRIVATE_KEY,
        };
        Ok(KeyPem {
            kind,
            pem: pem::encode(label, &der),
            der,
            public_raw: pair.der_bytes().to_vec(),
            public_spki: pair.subject_public_key_info(),
        })
    }

    /// Builds an RSA key from PKCS#1 `RSAPrivateKey` DER; `file` names the source in errors.
    pub fn from_pkcs1_der(pkcs1_der: Vec<u8>, file: &str) -> Result<Self> {
        Self::from_der(KeyKind::RSA_2048, pkcs1_der, file)
    }

    /// Reads a private key from PEM: `RSA PRIVATE KEY` (PKCS#1), `EC PRIVATE KEY` (SEC 1) or
    /// `PRIVATE KEY` (PKCS#8 holding either). PKCS#8 is normalised to the form the installer
    /// writes (PKCS#1 or SEC 1).
    pub fn from_pem(text: &str, file: &str) -> Result<Self> {
        let blocks = pem::decode_all(text, file)?;
        let block = blocks
            .iter()
            .find(|b| b.label.ends_with("PRIVATE KEY"))
            .ok_or_else(|| Error::parse(file, "no PEM private key block found"))?;
        match block.label.as_str() {
            RSA_PRIVATE_KEY => Self::from_pkcs1_der(block.der.clone(), file),
            EC_PRIVATE_KEY => {
                let curve = CURVES
                    .into_iter()
                    .find(|c| EcdsaKeyPair::from_private_key_der(signing(*c), &block.der).is_ok())
                    .ok_or_else(|| {
                        Error::parse(file, "not an ECDSA key on P-256, P-384 or P-521")
                    })?;
                Self::from_der(KeyKind::Ecdsa(curve), block.der.clone(), file)
            }
            "PRIVATE KEY" => Self::from_pkcs8(&block.der, file),
            other => Err(Error::parse(
                file,
                format!("unsupported private key type {other}; use an RSA or ECDSA key"),
            )),
        }
    }

    fn from_pkcs8(pkcs8: &[u8], file: &str) -> Result<Self> {
        if let Some(pkcs1) = der::pkcs8_to_pkcs1(pkcs8) {
            return Self::from_pkcs1_der(pkcs1, file);
        }
        for curve in CURVES {
            if let Ok(pair) = EcdsaKeyPair::from_pkcs8(signing(curve), pkcs8) {
                let sec1 = pair.private_key().as_der().map_err(|e| {
                    Error::parse(file, format!("the ECDSA key cannot be re-encoded: {e}"))
                })?;
                return Self::from_der(KeyKind::Ecdsa(curve), sec1.as_ref().to_vec(), file);
            }
        }
        Err(Error::parse(
            file,
            "the PKCS#8 private key is neither RSA nor ECDSA on P-256, P-384 or P-521",
        ))
    }

    /// The key's kind (for RSA, with the modulus size it really has).
    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// The PEM text, as written to `tls/<name>.key`.
    pub fn pem(&self) -> &str {
        &self.pem
    }

    /// The private key DER: PKCS#1 `RSAPrivateKey` or SEC 1 `ECPrivateKey`.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// The public key bytes Go hashes for the Subject Key Identifier: PKCS#1
    /// `RSAPublicKey` DER, or the uncompressed point of an ECDSA key.
    pub fn public_key_bytes(&self) -> &[u8] {
        &self.public_raw
    }

    /// PKIX `SubjectPublicKeyInfo` DER.
    pub fn public_spki_der(&self) -> &[u8] {
        &self.public_spki
    }

    /// The public key file content: PKIX DER under the label `RSA PUBLIC KEY` for RSA, which
    /// is what the installer has always written (consumers parse it as PKIX), and `PUBLIC KEY`
    /// otherwise.
    pub fn public_pem(&self) -> String {
        let label = match self.kind {
            KeyKind::Rsa { .. } => RSA_PUBLIC_KEY,
            KeyKind::Ecdsa(_) => "PUBLIC KEY",
        };
        pem::encode(label, &self.public_spki)
    }

    /// The public key as one OpenSSH `authorized_keys` line (`ssh-rsa AAAA...` plus newline);
    /// SSH keys are RSA.
    pub fn ssh_public_key(&self) -> Result<String> {
        let parts = matches!(self.kind, KeyKind::Rsa { .. })
            .then(|| der::rsa_public_parts(&self.public_raw))
            .flatten();
        let Some((n, e)) = parts else {
            return Err(Error::Usage(format!(
                "an SSH public key is made from an RSA key, not {}",
                self.kind
            )));
        };
        let mut wire = Vec::with_capacity(n.len() + 32);
        put_string(&mut wire, b"ssh-rsa");
        put_mpint(&mut wire, e);
        put_mpint(&mut wire, n);
        Ok(format!("ssh-rsa {}\n", STANDARD.encode(wire)))
    }

    /// Loads the key for signing with rcgen, with the algorithm Go's x509 pairs with it.
    pub(crate) fn key_pair(&self, file: &str) -> Result<Signer> {
        let pair = load_pair(self.kind, &self.der, file)?;
        Ok(match self.kind {
            KeyKind::Rsa { .. } => Signer::Rsa(pair),
            KeyKind::Ecdsa(curve) => Signer::Ecdsa {
                public: pair,
                curve,
                sec1: self.der.clone(),
            },
        })
    }
}

/// A key rcgen signs certificates with. RSA (PKCS#1 v1.5) signatures are deterministic with
/// aws-lc; ECDSA ones are not (aws-lc draws each nonce at random), so ECDSA signs with RFC
/// 6979 nonces derived from the key and the message: the same bundle and clock then give the
/// same certificates, as deterministic runs promise.
pub(crate) enum Signer {
    /// aws-lc signs.
    Rsa(KeyPair),
    /// The RustCrypto curve signs; `public` only answers for the public key.
    Ecdsa {
        public: KeyPair,
        curve: Curve,
        sec1: Vec<u8>,
    },
}

impl Signer {
    fn public(&self) -> &KeyPair {
        match self {
            Signer::Rsa(pair) | Signer::Ecdsa { public: pair, .. } => pair,
        }
    }
}

impl rcgen::PublicKeyData for Signer {
    fn der_bytes(&self) -> &[u8] {
        self.public().der_bytes()
    }

    fn algorithm(&self) -> &'static SignatureAlgorithm {
        self.public().algorithm()
    }
}

impl rcgen::SigningKey for Signer {
    fn sign(&self, msg: &[u8]) -> std::result::Result<Vec<u8>, rcgen::Error> {
        match self {
            Signer::Rsa(pair) => pair.sign(msg),
            // The key loaded into aws-lc already, so it is a valid scalar on its curve.
            Signer::Ecdsa { curve, sec1, .. } => {
                sign_rfc6979(*curve, sec1, msg).ok_or(rcgen::Error::RemoteKeyError)
            }
        }
    }
}

/// An ASN.1 ECDSA signature of `msg` by the SEC 1 key `sec1` on `curve`, hashed the way
/// Go pairs with the curve (SHA-256, SHA-384, SHA-512), with an RFC 6979 nonce.
fn sign_rfc6979(curve: Curve, sec1: &[u8], msg: &[u8]) -> Option<Vec<u8>> {
    use p256::ecdsa::signature::Signer as _;
    Some(match curve {
        Curve::P256 => {
            let key = p256::ecdsa::SigningKey::from(p256::SecretKey::from_sec1_der(sec1).ok()?);
            let sig: p256::ecdsa::DerSignature = key.try_sign(msg).ok()?;
            sig.as_bytes().to_vec()
        }
        Curve::P384 => {
            let key = p384::ecdsa::SigningKey::from(p384::SecretKey::from_sec1_der(sec1).ok()?);
            let sig: p384::ecdsa::DerSignature = key.try_sign(msg).ok()?;
            sig.as_bytes().to_vec()
        }
        Curve::P521 => {
            let key = p521::ecdsa::SigningKey::from(p521::SecretKey::from_sec1_der(sec1).ok()?);
            let sig: p521::ecdsa::DerSignature = key.try_sign(msg).ok()?;
            sig.as_bytes().to_vec()
        }
    })
}

fn load_pair(kind: KeyKind, der: &[u8], file: &str) -> Result<KeyPair> {
    let key = match kind {
        KeyKind::Rsa { .. } => PrivateKeyDer::Pkcs1(der.to_vec().into()),
        KeyKind::Ecdsa(_) => PrivateKeyDer::Sec1(der.to_vec().into()),
    };
    KeyPair::from_der_and_sign_algo(&key, signature_algorithm(kind))
        .map_err(|e| Error::parse(file, format!("not a usable {kind} private key: {e}")))
}

/// The modulus size of a PKCS#1 `RSAPublicKey`.
fn rsa_bits(public_pkcs1: &[u8]) -> u16 {
    let modulus = der::rsa_public_parts(public_pkcs1).map_or(&[][..], |(n, _)| n);
    let significant = modulus.iter().skip_while(|b| **b == 0).count();
    u16::try_from(significant * 8).unwrap_or(u16::MAX)
}

/// SSH wire `string`: u32 length then bytes.
fn put_string(out: &mut Vec<u8>, data: &[u8]) {
    out.extend_from_slice(&u32::try_from(data.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(data);
}

/// SSH wire `mpint`: minimal big-endian two's complement, so a set top bit needs a zero byte.
fn put_mpint(out: &mut Vec<u8>, magnitude: &[u8]) {
    let start = magnitude
        .iter()
        .position(|b| *b != 0)
        .unwrap_or(magnitude.len());
    let trimmed = &magnitude[start..];
    if trimmed.first().is_some_and(|b| b & 0x80 != 0) {
        let mut padded = Vec::with_capacity(trimmed.len() + 1);
        padded.push(0);
        padded.extend_from_slice(trimmed);
        put_string(out, &padded);
    } else {
        put_string(out, trimmed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpint_encoding_follows_rfc4251_examples() {
        let mut out = Vec::new();
        put_mpint(&mut out, &[0x00, 0x80]);
        assert_eq!(out, [0, 0, 0, 2, 0x00, 0x80]);
        out.clear();
        put_mpint(&mut out, &[0x00]);
        assert_eq!(out, [0, 0, 0, 0]);
        out.clear();
        put_mpint(&mut out, &[0x09, 0xa3]);
        assert_eq!(out, [0, 0, 0, 2, 0x09, 0xa3]);
    }

    #[test]
    fn generated_key_round_trips_through_pem() {
        let key = generate_rsa_key().expect("keygen");
        assert!(key.pem().starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
        let again = KeyPem::from_pem(key.pem(), "k").expect("parse");
        assert_eq!(again, key);
        assert!(
            key.public_pem()
                .starts_with("-----BEGIN RSA PUBLIC KEY-----\n")
        );
        assert_eq!(key.kind(), KeyKind::RSA_2048);
        assert!(!format!("{key:?}").contains(&key.pem()[40..80]));
    }

    #[test]
    fn rejects_non_key_pem_naming_the_file() {
        let err = KeyPem::from_pem("hello", "tls/x.key")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("tls/x.key: "), "{err}");
    }
}
