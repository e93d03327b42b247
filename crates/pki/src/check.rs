//! Checks on certificates the user supplies: the key must belong to the certificate.

use rcgen::{KeyPair, PublicKeyData as _};
use x509_parser::prelude::{FromDer as _, X509Certificate};

use crate::error::{Error, Result};
use crate::key::KeyPem;
use crate::pem;

/// Checks that `key_pem` is the private key of the first certificate in `cert_pem`.
/// Any key type rcgen/aws-lc can read is accepted; `file` names the pair in errors.
pub fn check_pair(cert_pem: &str, key_pem: &str, file: &str) -> Result<()> {
    let spki = cert_spki(cert_pem, file)?;
    let blocks = pem::decode_all(key_pem, file)?;
    let block = blocks
        .iter()
        .find(|b| b.label.ends_with("PRIVATE KEY"))
        .ok_or_else(|| {
            Error::parse(
                file,
                "no PEM private key block found next to the certificate",
            )
        })?;
    let key_spki = match block.label.as_str() {
        crate::key::RSA_PRIVATE_KEY => KeyPem::from_pkcs1_der(block.der.clone(), file)?
            .public_spki_der()
            .to_vec(),
        _ => KeyPair::try_from(block.der.as_slice())
            .map_err(|e| Error::parse(file, format!("unreadable private key: {e}")))?
            .subject_public_key_info(),
    };
    if key_spki != spki {
        return Err(Error::KeyMismatch {
            file: file.to_string(),
        });
    }
    Ok(())
}

pub(crate) fn check_cert_key(cert_pem: &str, key: &KeyPem, file: &str) -> Result<()> {
    if cert_spki(cert_pem, file)? != key.public_spki_der() {
        return Err(Error::KeyMismatch {
            file: file.to_string(),
        });
    }
    Ok(())
}

fn cert_spki(cert_pem: &str, file: &str) -> Result<Vec<u8>> {
    let der = pem::first_certificate(cert_pem, file)?;
    let (_, cert) = X509Certificate::from_der(&der)
        .map_err(|e| Error::parse(file, format!("not a valid X.509 certificate: {e}")))?;
    Ok(cert.public_key().raw.to_vec())
}
