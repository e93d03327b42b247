//! The secrets bundle: every private key, every signer certificate, the kubeadmin password and
//! a seed, so that a later run can reproduce the same PKI byte for byte (the idea of
//! `talosctl gen config --with-secrets`). The file is as sensitive as the keys it holds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::check::check_cert_key;
use crate::error::{Error, Result};
use crate::key::KeyPem;
use crate::spec::CertId;

/// `kind` value that marks our bundles.
pub const SECRETS_KIND: &str = "OkdInstallSecrets";
/// The bundle format version this crate reads and writes.
pub const SECRETS_VERSION: u32 = 1;
/// Entry name of the service-account signing key.
pub const SERVICE_ACCOUNT: &str = "service-account";
/// Entry name of the bootstrap SSH key.
pub const BOOTSTRAP_SSH: &str = "bootstrap-ssh";

/// Parsed and checked secrets bundle. `Debug` shows entry names only.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretsBundle {
    /// 32 random bytes from which serials and the password's bcrypt salt are derived.
    pub seed: [u8; 32],
    /// The kubeadmin password in plain text.
    pub kubeadmin_password: String,
    /// Private key of every certificate.
    pub cert_keys: BTreeMap<CertId, KeyPem>,
    /// Service-account token signing key.
    pub service_account: KeyPem,
    /// Bootstrap SSH key.
    pub bootstrap_ssh: KeyPem,
    /// The PEM certificate of every signer.
    pub signer_certs: BTreeMap<CertId, String>,
}

impl std::fmt::Debug for SecretsBundle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretsBundle")
            .field("cert_keys", &self.cert_keys.keys().collect::<Vec<_>>())
            .field(
                "signer_certs",
                &self.signer_certs.keys().collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Wire {
    kind: String,
    version: u32,
    seed: String,
    kubeadmin_password: String,
    private_keys: BTreeMap<String, String>,
    signer_certificates: BTreeMap<String, String>,
}

/// Only what identifies the file, read before anything else so that a foreign YAML file gets
/// a "not a secrets bundle" error rather than a confusing field error.
#[derive(Deserialize)]
struct Header {
    kind: Option<String>,
    version: Option<u32>,
}

impl SecretsBundle {
    /// Serialises the bundle; write it with mode 0600.
    pub fn to_yaml(&self) -> Result<String> {
        let mut keys: BTreeMap<String, String> = self
            .cert_keys
            .iter()
            .map(|(id, k)| (id.spec().name.to_string(), k.pem().to_string()))
            .collect();
        keys.insert(SERVICE_ACCOUNT.into(), self.service_account.pem().into());
        keys.insert(BOOTSTRAP_SSH.into(), self.bootstrap_ssh.pem().into());
        let wire = Wire {
            kind: SECRETS_KIND.into(),
            version: SECRETS_VERSION,
            seed: hex::encode(self.seed),
            kubeadmin_password: self.kubeadmin_password.clone(),
            private_keys: keys,
            signer_certificates: self
                .signer_certs
                .iter()
                .map(|(id, c)| (id.spec().name.to_string(), c.clone()))
                .collect(),
        };
        crate::yaml::to_yaml(&wire, "secrets bundle")
    }

    /// Reads and checks a bundle; `path` names the file in every error.
    pub fn from_yaml(text: &str, path: &str) -> Result<Self> {
        let err = |reason: String| Error::Bundle {
            path: path.to_string(),
            reason,
        };
        let header: Header =
            serde_saphyr::from_str(text).map_err(|e| err(withheld("not valid YAML", &e)))?;
        if header.kind.as_deref() != Some(SECRETS_KIND) {
            return Err(err(format!(
                "kind is {:?}, expected {SECRETS_KIND}; this is not an okd-install secrets bundle",
                header.kind.unwrap_or_default()
            )));
        }
        if header.version != Some(SECRETS_VERSION) {
            return Err(err(format!(
                "version {:?} is not supported; this okd-install reads version {SECRETS_VERSION}",
                header.version
            )));
        }
        let wire: Wire = serde_saphyr::from_str(text)
            .map_err(|e| err(withheld("not a complete secrets bundle", &e)))?;
        from_wire(wire).map_err(|e| match e {
            Error::Bundle { .. } => e,
            other => err(other.to_string()),
        })
    }
}

fn from_wire(mut wire: Wire) -> Result<SecretsBundle> {
    let seed = hex::decode(&wire.seed)
        .ok()
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .ok_or_else(|| Error::parse("seed", "must be 64 hexadecimal digits (32 bytes)"))?;
    let mut take_key = |name: &str| -> Result<KeyPem> {
        let text = wire
            .private_keys
            .remove(name)
            .ok_or_else(|| Error::parse(format!("privateKeys.{name}"), "entry is missing"))?;
        KeyPem::from_pem(&text, &format!("privateKeys.{name}"))
    };
    let mut cert_keys = BTreeMap::new();
    for id in CertId::ALL {
        cert_keys.insert(*id, take_key(id.spec().name)?);
    }
    let service_account = take_key(SERVICE_ACCOUNT)?;
    let bootstrap_ssh = take_key(BOOTSTRAP_SSH)?;
    if let Some(extra) = wire.private_keys.keys().next() {
        return Err(Error::parse(
            format!("privateKeys.{extra}"),
            "not a known key name",
        ));
    }
    let signer_certs = signer_certs(wire.signer_certificates, &cert_keys)?;
    Ok(SecretsBundle {
        seed,
        kubeadmin_password: wire.kubeadmin_password,
        cert_keys,
        service_account,
        bootstrap_ssh,
        signer_certs,
    })
}

fn signer_certs(
    mut certs: BTreeMap<String, String>,
    keys: &BTreeMap<CertId, KeyPem>,
) -> Result<BTreeMap<CertId, String>> {
    let mut out = BTreeMap::new();
    for id in CertId::signers() {
        let entry = format!("signerCertificates.{id}");
        let text = certs
            .remove(id.spec().name)
            .ok_or_else(|| Error::parse(&entry, "entry is missing"))?;
        check_cert_key(&text, &keys[&id], &entry).map_err(|e| match e {
            Error::KeyMismatch { .. } => Error::parse(
                &entry,
                format!("does not match privateKeys.{id}; the bundle was edited or mixed up"),
            ),
            other => other,
        })?;
        out.insert(id, text);
    }
    if let Some(extra) = certs.keys().next() {
        return Err(Error::parse(
            format!("signerCertificates.{extra}"),
            "not a signer name",
        ));
    }
    Ok(out)
}

/// A parse problem without the parser's source snippet and with every quoted value blanked:
/// the input here is private keys and the kubeadmin password. Field names (in backticks, as
/// in "missing field `signerCertificates`") stay, because they say what to fix.
fn withheld(what: &str, e: &serde_saphyr::Error) -> String {
    let message = blank_quoted(&e.without_snippet().to_string());
    format!(
        "{what}: {message} (values withheld: the file holds secrets); restore it from your \
         copy or create a new one with `okd-install create secrets`"
    )
}

/// Replaces the text between double quotes with `…`.
fn blank_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut inside = false;
    for c in message.chars() {
        match (c, inside) {
            ('"', false) => {
                out.push_str("\"…");
                inside = true;
            }
            ('"', true) => {
                out.push('"');
                inside = false;
            }
            (_, true) => {}
            (c, false) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod withheld_tests {
    use super::*;

    #[test]
    fn parse_errors_never_quote_the_bundle() {
        let text = "kind: OkdInstallSecrets\nversion: 1\nkubeadminPassword: abcde-fghij-klmno-pqrst\nprivateKeys: [zzsecretzz\n";
        let message = SecretsBundle::from_yaml(text, "s.yaml")
            .unwrap_err()
            .to_string();
        assert!(message.contains("s.yaml"), "{message}");
        assert!(
            message.contains("line") || message.contains("privateKeys"),
            "{message}"
        );
        assert!(!message.contains("abcde"), "password quoted: {message}");
        assert!(!message.contains("zzsecretzz"), "input quoted: {message}");
    }
}

#[cfg(test)]
mod blank_tests {
    #[test]
    fn quoted_values_are_blanked_and_field_names_kept() {
        assert_eq!(
            super::blank_quoted("invalid type: string \"s3cret\", expected `seed`"),
            "invalid type: string \"…\", expected `seed`"
        );
    }
}
