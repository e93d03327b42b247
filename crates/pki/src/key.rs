//! RSA key pairs: generation with aws-lc (via rcgen), the PKCS#1 PEM form the installer writes,
//! and the derived public encodings (PKIX in an `RSA PUBLIC KEY` block, OpenSSH line).

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rcgen::{KeyPair, PKCS_RSA_SHA256, PublicKeyData as _, RsaKeySize};
use rustls_pki_types::PrivateKeyDer;

use crate::der;
use crate::error::{Error, Result};
use crate::pem;

/// PEM label of PKCS#1 private keys, as every `tls/*.key` file uses.
pub const RSA_PRIVATE_KEY: &str = "RSA PRIVATE KEY";
/// PEM label the installer uses for public keys, even though the DER inside is PKIX.
pub const RSA_PUBLIC_KEY: &str = "RSA PUBLIC KEY";

/// An RSA private key held as PKCS#1 DER, with its public halves precomputed.
///
/// `Debug` never prints the key material.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyPem {
    pkcs1_der: Vec<u8>,
    pem: String,
    public_pkcs1: Vec<u8>,
    public_spki: Vec<u8>,
}

impl fmt::Debug for KeyPem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyPem")
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
    let pair = KeyPair::generate_rsa_for(&PKCS_RSA_SHA256, RsaKeySize::_2048)
        .map_err(|e| Error::KeyGeneration(e.to_string()))?;
    let pkcs1 = der::pkcs8_to_pkcs1(pair.serialized_der()).ok_or_else(|| {
        Error::KeyGeneration("aws-lc returned a key that is not RSA PKCS#8".into())
    })?;
    Ok(KeyPem::from_parts(pkcs1, &pair))
}

/// Generates a fresh key of `kind` (the certificate table's [`crate::CertSpec::key`]).
pub fn generate_key(kind: crate::KeyKind) -> Result<KeyPem> {
    match kind {
        crate::KeyKind::Rsa2048 => generate_rsa_key(),
    }
}

impl KeyPem {
    fn from_parts(pkcs1_der: Vec<u8>, pair: &KeyPair) -> Self {
        KeyPem {
            pem: pem::encode(RSA_PRIVATE_KEY, &pkcs1_der),
            pkcs1_der,
            public_pkcs1: pair.der_bytes().to_vec(),
            public_spki: pair.subject_public_key_info(),
        }
    }

    /// Builds a key from PKCS#1 `RSAPrivateKey` DER; `file` names the source in errors.
    pub fn from_pkcs1_der(pkcs1_der: Vec<u8>, file: &str) -> Result<Self> {
        let pair = load_pair(&pkcs1_der, file)?;
        Ok(Self::from_parts(pkcs1_der, &pair))
    }

    /// Reads an RSA private key from PEM: `RSA PRIVATE KEY` (PKCS#1) or `PRIVATE KEY`
    /// (PKCS#8 holding RSA). The key is normalised to PKCS#1, the form the installer writes.
    pub fn from_pem(text: &str, file: &str) -> Result<Self> {
        let blocks = pem::decode_all(text, file)?;
        let block = blocks
            .iter()
            .find(|b| b.label.ends_with("PRIVATE KEY"))
            .ok_or_else(|| Error::parse(file, "no PEM private key block found"))?;
        let pkcs1 = match block.label.as_str() {
            RSA_PRIVATE_KEY => block.der.clone(),
            "PRIVATE KEY" => der::pkcs8_to_pkcs1(&block.der).ok_or_else(|| {
                Error::parse(
                    file,
                    "the PKCS#8 private key is not an RSA key; use RSA 2048",
                )
            })?,
            other => {
                return Err(Error::parse(
                    file,
                    format!("unsupported private key type {other}; use an RSA key"),
                ));
            }
        };
        Self::from_pkcs1_der(pkcs1, file)
    }

    /// The `RSA PRIVATE KEY` PEM text, as written to `tls/<name>.key`.
    pub fn pem(&self) -> &str {
        &self.pem
    }

    /// PKCS#1 `RSAPrivateKey` DER.
    pub fn pkcs1_der(&self) -> &[u8] {
        &self.pkcs1_der
    }

    /// PKCS#1 `RSAPublicKey` DER; its SHA-1 is the certificates' Subject Key Identifier.
    pub fn public_pkcs1_der(&self) -> &[u8] {
        &self.public_pkcs1
    }

    /// PKIX `SubjectPublicKeyInfo` DER.
    pub fn public_spki_der(&self) -> &[u8] {
        &self.public_spki
    }

    /// The public key file content: PEM label `RSA PUBLIC KEY` around PKIX DER, which is what
    /// the installer has always written (consumers parse it as PKIX).
    pub fn public_pem(&self) -> String {
        pem::encode(RSA_PUBLIC_KEY, &self.public_spki)
    }

    /// The public key as one OpenSSH `authorized_keys` line (`ssh-rsa AAAA...` plus newline).
    pub fn ssh_public_key(&self) -> String {
        let (n, e) = der::rsa_public_parts(&self.public_pkcs1).unwrap_or((&[], &[]));
        let mut wire = Vec::with_capacity(n.len() + 32);
        put_string(&mut wire, b"ssh-rsa");
        put_mpint(&mut wire, e);
        put_mpint(&mut wire, n);
        format!("ssh-rsa {}\n", STANDARD.encode(wire))
    }

    /// Loads the key into rcgen for signing (SHA-256 with RSA, as Go's x509 package uses).
    pub(crate) fn key_pair(&self, file: &str) -> Result<KeyPair> {
        load_pair(&self.pkcs1_der, file)
    }
}

fn load_pair(pkcs1_der: &[u8], file: &str) -> Result<KeyPair> {
    KeyPair::from_der_and_sign_algo(&PrivateKeyDer::Pkcs1(pkcs1_der.into()), &PKCS_RSA_SHA256)
        .map_err(|e| Error::parse(file, format!("not a usable RSA private key: {e}")))
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
