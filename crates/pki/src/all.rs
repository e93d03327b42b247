//! The whole PKI in one value: generate every key in parallel, sign everything, and produce
//! bundles, kubeconfigs, the password and the secrets bundle. The asset graph does the same
//! steps one asset at a time; this is for tests, benchmarks and simple callers.

use std::collections::BTreeMap;
use std::fmt;

use rand::{CryptoRng, RngCore, SeedableRng as _};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use sha2::{Digest as _, Sha256};
use time::OffsetDateTime;

use crate::bundle::bundle_pem;
use crate::error::Result;
use crate::key::{KeyPem, generate_rsa_key};
use crate::kubeconfig::{KubeconfigId, kubeconfig_yaml};
use crate::params::ClusterParams;
use crate::password::{KubeadminPassword, generate_password};
use crate::secrets::SecretsBundle;
use crate::sign::{CertKey, derive_serial, sign_leaf, sign_self};
use crate::spec::{BundleId, BundleMember, CertId, ValidityScale};

/// Every generated item of one installation. `Debug` lists certificate names only.
#[derive(Clone, PartialEq, Eq)]
pub struct Pki {
    params: ClusterParams,
    certs: BTreeMap<CertId, CertKey>,
    service_account: KeyPem,
    bootstrap_ssh: KeyPem,
    password: KubeadminPassword,
    seed: [u8; 32],
}

/// A file of the `tls/` tree. `Debug` hides the content of secret files.
#[derive(Clone, PartialEq, Eq)]
pub struct PkiFile {
    /// Path relative to the asset directory, such as `tls/root-ca.key`.
    pub path: String,
    /// File content.
    pub contents: String,
    /// True for private keys: write them with mode 0600.
    pub secret: bool,
}

impl fmt::Debug for Pki {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pki")
            .field("params", &self.params)
            .field("certs", &self.certs.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for PkiFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let contents = if self.secret {
            "[secret]"
        } else {
            self.contents.as_str()
        };
        f.debug_struct("PkiFile")
            .field("path", &self.path)
            .field("contents", &contents)
            .finish()
    }
}

/// A ChaCha20 stream derived from the seed and a purpose label, so each use of randomness is
/// reproducible and independent of the others.
pub fn seeded_rng(seed: &[u8; 32], purpose: &str) -> ChaCha20Rng {
    let digest: [u8; 32] = Sha256::new()
        .chain_update(seed)
        .chain_update(purpose.as_bytes())
        .finalize()
        .into();
    ChaCha20Rng::from_seed(digest)
}

/// Label of the password-hash salt stream.
const HASH_SALT: &str = "kubeadmin-password-salt";

/// Generates all 26 RSA keys (24 certificates, service account, bootstrap SSH) in parallel.
pub fn generate_keys() -> Result<SecretsKeys> {
    let (cert_keys, (service_account, bootstrap_ssh)) = rayon::join(
        || {
            CertId::ALL
                .par_iter()
                .map(|id| Ok((*id, generate_rsa_key()?)))
                .collect::<Result<BTreeMap<_, _>>>()
        },
        || rayon::join(generate_rsa_key, generate_rsa_key),
    );
    Ok(SecretsKeys {
        cert_keys: cert_keys?,
        service_account: service_account?,
        bootstrap_ssh: bootstrap_ssh?,
    })
}

/// The key material of one installation, before any certificate is signed.
#[derive(Debug, Clone)]
pub struct SecretsKeys {
    /// One key per certificate.
    pub cert_keys: BTreeMap<CertId, KeyPem>,
    /// Service-account signing key.
    pub service_account: KeyPem,
    /// Bootstrap SSH key.
    pub bootstrap_ssh: KeyPem,
}

/// Generates a complete PKI: keys from aws-lc in parallel, seed and password from `rng`,
/// serials derived from the seed, lifetimes starting at `now`.
pub fn generate_all(
    params: &ClusterParams,
    now: OffsetDateTime,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<Pki> {
    let keys = generate_keys()?;
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let secrets = SecretsBundle {
        seed,
        kubeadmin_password: generate_password(&mut seeded_rng(&seed, "kubeadmin-password")),
        cert_keys: keys.cert_keys,
        service_account: keys.service_account,
        bootstrap_ssh: keys.bootstrap_ssh,
        signer_certs: BTreeMap::new(),
    };
    Pki::from_secrets(&secrets, params, now, ValidityScale::Normal)
}

impl Pki {
    /// Builds the PKI from existing secrets: the same secrets, parameters and clock give
    /// byte-identical output. A bundled signer certificate is reused (keeping the trust
    /// roots stable across runs) while at least half of its lifetime is left at `now`;
    /// otherwise, or if absent, the signer is re-signed at `now` with its bundled key, so
    /// leaves are never issued from a signer about to expire.
    pub fn from_secrets(
        secrets: &SecretsBundle,
        params: &ClusterParams,
        now: OffsetDateTime,
        scale: ValidityScale,
    ) -> Result<Pki> {
        let mut certs = BTreeMap::new();
        for id in CertId::ALL.iter().copied() {
            let key = secrets.cert_keys.get(&id).ok_or_else(|| {
                crate::Error::Usage(format!("the secrets hold no private key for {id}"))
            })?;
            let serial = derive_serial(&secrets.seed, id);
            let cert = match (id.spec().issuer, secrets.signer_certs.get(&id)) {
                (None, Some(text)) if fresh_at(text, now) => {
                    CertKey::new(text.clone(), key.clone())
                }
                (None, _) => sign_self(id, key, now, scale, serial)?,
                (Some(issuer), _) => {
                    sign_leaf(id, key, &certs[&issuer], params, now, scale, serial)?
                }
            };
            certs.insert(id, cert);
        }
        let password = KubeadminPassword::from_plain(
            secrets.kubeadmin_password.clone(),
            &mut seeded_rng(&secrets.seed, HASH_SALT),
        )?;
        Ok(Pki {
            params: params.clone(),
            certs,
            service_account: secrets.service_account.clone(),
            bootstrap_ssh: secrets.bootstrap_ssh.clone(),
            password,
            seed: secrets.seed,
        })
    }

    /// The certificate and key of `id`.
    pub fn cert(&self, id: CertId) -> &CertKey {
        &self.certs[&id]
    }

    /// The cluster parameters the PKI was made for.
    pub fn params(&self) -> &ClusterParams {
        &self.params
    }

    /// The service-account signing key (`tls/service-account.{key,pub}`).
    pub fn service_account(&self) -> &KeyPem {
        &self.service_account
    }

    /// The bootstrap SSH key (`tls/bootstrap-ssh.{key,pub}`).
    pub fn bootstrap_ssh(&self) -> &KeyPem {
        &self.bootstrap_ssh
    }

    /// The kubeadmin password and hash.
    pub fn password(&self) -> &KubeadminPassword {
        &self.password
    }

    /// The content of CA bundle `id`.
    pub fn bundle(&self, id: BundleId) -> Result<String> {
        let texts = id
            .members()
            .iter()
            .map(|m| match m {
                BundleMember::Cert(c) => Ok(self.cert(*c).cert_pem().to_string()),
                BundleMember::Bundle(b) => self.bundle(*b),
            })
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        bundle_pem(&refs, &id.path())
    }

    /// The YAML of kubeconfig `id`.
    pub fn kubeconfig(&self, id: KubeconfigId) -> Result<String> {
        let client = self.cert(id.client());
        kubeconfig_yaml(
            id,
            &self.params,
            &self.bundle(id.ca_bundle())?,
            client.cert_pem(),
            client.key_pem(),
        )
    }

    /// Everything needed to reproduce this PKI; write it with mode 0600.
    pub fn to_secrets(&self) -> SecretsBundle {
        SecretsBundle {
            seed: self.seed,
            kubeadmin_password: self.password.plain().to_string(),
            cert_keys: self
                .certs
                .iter()
                .map(|(id, c)| (*id, c.key().clone()))
                .collect(),
            service_account: self.service_account.clone(),
            bootstrap_ssh: self.bootstrap_ssh.clone(),
            signer_certs: CertId::signers()
                .map(|id| (id, self.cert(id).cert_pem().to_string()))
                .collect(),
        }
    }

    /// Every file of the `tls/` tree: certificate/key pairs, bundles and key pairs.
    pub fn tls_files(&self) -> Result<Vec<PkiFile>> {
        let file = |path: String, contents: String, secret| PkiFile {
            path,
            contents,
            secret,
        };
        let mut files = Vec::new();
        for (id, ck) in &self.certs {
            files.push(file(id.key_path(), ck.key_pem().to_string(), true));
            files.push(file(id.cert_path(), ck.cert_pem().to_string(), false));
        }
        for id in BundleId::ALL {
            files.push(file(id.path(), self.bundle(*id)?, false));
        }
        let sa = &self.service_account;
        files.push(file(
            "tls/service-account.key".into(),
            sa.pem().into(),
            true,
        ));
        files.push(file(
            "tls/service-account.pub".into(),
            sa.public_pem(),
            false,
        ));
        let ssh = &self.bootstrap_ssh;
        files.push(file("tls/bootstrap-ssh.key".into(), ssh.pem().into(), true));
        files.push(file(
            "tls/bootstrap-ssh.pub".into(),
            ssh.ssh_public_key(),
            false,
        ));
        Ok(files)
    }
}

/// True when the certificate has started and at least half of its lifetime remains at `now`.
fn fresh_at(cert_pem: &str, now: OffsetDateTime) -> bool {
    let Ok(der) = crate::pem::first_certificate(cert_pem, "signer") else {
        return false;
    };
    x509_parser::parse_x509_certificate(&der).is_ok_and(|(_, c)| {
        let (start, end) = (
            c.validity().not_before.to_datetime(),
            c.validity().not_after.to_datetime(),
        );
        start <= now && (end - now) * 2 >= end - start
    })
}
