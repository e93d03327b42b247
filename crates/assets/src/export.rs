//! `create secrets`: one bundle with every key, every signer and the kubeadmin password, so a
//! cluster can be re-rendered later with the same trust (`--with-secrets`).

use asset_graph::{Asset, BoxError, Context, Dep, Parents};
use std::collections::BTreeMap;

use pki::{CertId, KeyPem, SecretsBundle, TlsFile};
use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::auth::KubeadminPassword;
use crate::options::SecretsInput;
use crate::tls::{BootstrapSshKeyPair, ServiceAccountKeyPair, cert_dep, cert_of};

/// The 32-byte seed from which deterministic runs derive serials, ids and salts.
#[derive(Clone, Serialize, Deserialize)]
pub struct RunSeed(pub [u8; 32]);

impl Asset for RunSeed {
    const ID: &'static str = "seed";
    const NAME: &'static str = "Run Seed";

    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<SecretsInput>()]
    }

    fn generate(ctx: &Context, parents: &Parents) -> Result<Self, BoxError> {
        if let Some(bundle) = &parents.get::<SecretsInput>()?.0 {
            return Ok(RunSeed(bundle.seed));
        }
        let mut seed = [0u8; 32];
        ctx.rng(Self::ID).fill_bytes(&mut seed);
        Ok(RunSeed(seed))
    }
}

/// Every secret of the cluster in one value; the binary writes it (mode 0600) where the user
/// asked.
#[derive(Clone, Serialize, Deserialize)]
pub struct SecretsExport {
    /// The bundle in its YAML file form.
    pub yaml: String,
}

impl Asset for SecretsExport {
    const ID: &'static str = "export/secrets";
    const NAME: &'static str = "Secrets Bundle Export";

    fn dependencies() -> Vec<Dep> {
        let mut deps: Vec<Dep> = CertId::ALL.iter().map(|id| cert_dep(*id)).collect();
        deps.extend([
            Dep::of::<ServiceAccountKeyPair>(),
            Dep::of::<BootstrapSshKeyPair>(),
            Dep::of::<KubeadminPassword>(),
            Dep::of::<RunSeed>(),
        ]);
        deps
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let mut cert_keys = BTreeMap::new();
        let mut signer_certs = BTreeMap::new();
        for &id in CertId::ALL {
            let cert = cert_of(parents, id)?;
            cert_keys.insert(id, KeyPem::from_pem(&cert.key_pem, id.key_path())?);
            if id.spec().is_signer() {
                signer_certs.insert(id, cert.cert_pem.clone());
            }
        }
        let sa = &parents.get::<ServiceAccountKeyPair>()?.key_pem;
        let ssh = &parents.get::<BootstrapSshKeyPair>()?.key_pem;
        let bundle = SecretsBundle {
            seed: parents.get::<RunSeed>()?.0,
            kubeadmin_password: parents.get::<KubeadminPassword>()?.password.clone(),
            cert_keys,
            service_account: KeyPem::from_pem(sa, TlsFile::ServiceAccountKey.path())?,
            bootstrap_ssh: KeyPem::from_pem(ssh, "tls/bootstrap-ssh.key")?,
            signer_certs,
        };
        Ok(SecretsExport {
            yaml: bundle.to_yaml()?,
        })
    }
}
