//! The whole PKI of one installation as one typed value, for callers that want the material
//! rather than files: tests, the benchmark, test API servers.
//!
//! It runs the very graph `okd-install create` runs ([`crate::open_store`] with the same
//! settings) in a scratch directory, so the rules are the shipped ones: keys as separate
//! assets generated in parallel, random serials (seeded in deterministic mode), signers from a
//! secrets bundle reused until they come within the expiry margin, bundles, kubeconfigs and
//! the password from their assets. Nothing is generated twice: every value below is read from
//! the one run.

use std::collections::BTreeMap;
use std::fmt;

use asset_graph::{Asset as _, BoxError, Dep, GraphError, Store};
use pki::{BundleId, CertId, CertKey, ClusterParams, KubeconfigId, SecretsBundle};

use crate::auth::{KubeadminPassword, kubeconfig_dep, kubeconfig_of};
use crate::config::{ClusterParamsAsset, InstallConfigAsset};
use crate::export::SecretsExport;
use crate::lookup::Resolved;
use crate::tls::{BootstrapSshKeyPair, ServiceAccountKeyPair, TlsTree, bundle_of, cert_of};
use crate::{RunSettings, open_store};

/// Why the PKI could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ClusterPkiError {
    /// The scratch directory the graph runs in could not be created.
    #[error("could not create a scratch directory for the asset graph")]
    Scratch(#[source] std::io::Error),
    /// The graph failed (a generator, the state file, the directory lock).
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// A resolved value could not be read back (not resolved, or not the expected form).
    #[error("{0}")]
    Value(BoxError),
}

/// Every TLS and auth asset of one installation. `Debug` lists certificate names only.
pub struct ClusterPki {
    params: ClusterParams,
    certs: BTreeMap<CertId, CertKey>,
    bundles: BTreeMap<BundleId, String>,
    kubeconfigs: BTreeMap<KubeconfigId, String>,
    service_account: ServiceAccountKeyPair,
    bootstrap_ssh: BootstrapSshKeyPair,
    password: KubeadminPassword,
    tls: TlsTree,
    secrets: SecretsBundle,
}

impl fmt::Debug for ClusterPki {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterPki")
            .field("params", &self.params)
            .field("certs", &self.certs.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The assets whose values make up a [`ClusterPki`]; certificates, keys and bundles come
/// along as their parents.
fn roots() -> Vec<Dep> {
    let mut deps = vec![
        Dep::of::<TlsTree>(),
        Dep::of::<BootstrapSshKeyPair>(),
        Dep::of::<KubeadminPassword>(),
        Dep::of::<SecretsExport>(),
    ];
    deps.extend(KubeconfigId::ALL.iter().map(|id| kubeconfig_dep(*id)));
    deps
}

impl ClusterPki {
    /// Resolves the PKI for `install_config` with the flags and inputs of `settings` (secrets
    /// bundle, fixed clock, certificate policy), exactly as `okd-install create pki` would in
    /// an empty directory.
    pub fn generate(
        install_config: InstallConfigAsset,
        settings: &RunSettings,
    ) -> Result<ClusterPki, ClusterPkiError> {
        let scratch = tempfile::tempdir().map_err(ClusterPkiError::Scratch)?;
        let mut store = open_store(scratch.path(), settings)?;
        store.provide(install_config)?;
        store.resolve(&roots())?;
        ClusterPki::read(&store).map_err(ClusterPkiError::Value)
    }

    fn read(store: &Store) -> Result<ClusterPki, BoxError> {
        let from = store;
        let mut certs = BTreeMap::new();
        for &id in CertId::ALL {
            certs.insert(id, cert_of(&from, id)?.cert_key(id.key_path())?);
        }
        let mut bundles = BTreeMap::new();
        for &id in BundleId::ALL {
            bundles.insert(id, bundle_of(&from, id)?.to_string());
        }
        let mut kubeconfigs = BTreeMap::new();
        for &id in KubeconfigId::ALL {
            kubeconfigs.insert(id, kubeconfig_of(&from, id)?.to_string());
        }
        let export = from.value::<SecretsExport>()?;
        Ok(ClusterPki {
            params: from.value::<ClusterParamsAsset>()?.0.clone(),
            certs,
            bundles,
            kubeconfigs,
            service_account: from.value::<ServiceAccountKeyPair>()?.clone(),
            bootstrap_ssh: from.value::<BootstrapSshKeyPair>()?.clone(),
            password: from.value::<KubeadminPassword>()?.clone(),
            tls: from.value::<TlsTree>()?.clone(),
            secrets: SecretsBundle::from_yaml(&export.yaml, SecretsExport::ID)?,
        })
    }

    /// The certificate-relevant values of the install config.
    pub fn params(&self) -> &ClusterParams {
        &self.params
    }

    /// The certificate file content and key of `id`.
    pub fn cert(&self, id: CertId) -> &CertKey {
        &self.certs[&id]
    }

    /// The content of CA bundle `id`.
    pub fn bundle(&self, id: BundleId) -> &str {
        &self.bundles[&id]
    }

    /// The YAML of kubeconfig `id`.
    pub fn kubeconfig(&self, id: KubeconfigId) -> &str {
        &self.kubeconfigs[&id]
    }

    /// `tls/service-account.{key,pub}`.
    pub fn service_account(&self) -> &ServiceAccountKeyPair {
        &self.service_account
    }

    /// The bootstrap SSH key pair.
    pub fn bootstrap_ssh(&self) -> &BootstrapSshKeyPair {
        &self.bootstrap_ssh
    }

    /// The kubeadmin password and its hash.
    pub fn password(&self) -> &KubeadminPassword {
        &self.password
    }

    /// The `tls/` tree as `create pki` writes it.
    pub fn tls_files(&self) -> &[crate::tls::TlsFileContent] {
        &self.tls.files
    }

    /// The secrets bundle `create secrets` would write for this PKI.
    pub fn secrets(&self) -> &SecretsBundle {
        &self.secrets
    }
}
