//! The OpenShift/OKD assets of okd-install: every generated file as a typed asset of the
//! [`asset_graph`] engine, and the `create` targets built from them.
//!
//! This crate is glue: it maps the install config onto the inputs of the `pki`, `manifests`
//! and `ignition` crates and declares who depends on whom. Generation logic lives in those
//! crates.
#![deny(missing_docs)]

pub mod auth;
pub mod bootstrap;
pub mod cluster_pki;
pub mod config;
mod dir;
mod error;
pub mod export;
pub mod layout;
pub mod lookup;
pub mod manifests;
pub mod metadata;
pub mod options;
pub mod pointer;
pub mod role;
pub mod time;
pub mod tls;

use std::path::Path;

use asset_graph::{Clock, Context, Dep, Graph, GraphError, Store, Target};

pub use dir::AssetDir;
pub use error::Error;
pub use manifests::image_mode_flow;
pub use options::{CertPolicy, IgnitionOptions, ReleaseOptions, SecretsInput};

/// Target names, as used by `okd-install create <target>`.
pub mod targets {
    /// install-config.yaml (load and validate).
    pub const INSTALL_CONFIG: &str = "install-config";
    /// manifests/ and openshift/.
    pub const MANIFESTS: &str = "manifests";
    /// bootstrap.ign (or bootstrap-pivot.ign), master.ign, worker.ign, metadata.json, auth/.
    pub const IGNITION_CONFIGS: &str = "ignition-configs";
    /// bootstrap-in-place-for-live-iso.ign, worker.ign, metadata.json, auth/.
    pub const SINGLE_NODE: &str = "single-node-ignition-config";
    /// tls/ and auth/, for inspection.
    pub const PKI: &str = "pki";
    /// The secrets bundle (written by the binary).
    pub const SECRETS: &str = "secrets";
}

fn targets() -> Vec<Target> {
    use crate::auth::{Admin, KubeadminPassword, Kubeconfig};
    use crate::bootstrap::{BootstrapIgnition, PivotIgnition, SingleNodeIgnition};
    use crate::metadata::Metadata;
    use crate::pointer::{MasterPointer, WorkerPointer};
    let auth = || {
        vec![
            Dep::of::<Kubeconfig<Admin>>(),
            Dep::of::<KubeadminPassword>(),
        ]
    };
    vec![
        Target {
            name: targets::INSTALL_CONFIG,
            assets: vec![Dep::of::<config::InstallConfigAsset>()],
        },
        Target {
            name: targets::MANIFESTS,
            assets: vec![Dep::of::<manifests::ManifestsAsset>()],
        },
        Target {
            name: targets::IGNITION_CONFIGS,
            assets: [
                auth(),
                vec![
                    Dep::of::<MasterPointer>(),
                    Dep::of::<WorkerPointer>(),
                    Dep::of::<BootstrapIgnition>(),
                    Dep::of::<PivotIgnition>(),
                    Dep::of::<Metadata>(),
                ],
            ]
            .concat(),
        },
        Target {
            name: targets::SINGLE_NODE,
            assets: [
                auth(),
                vec![
                    Dep::of::<WorkerPointer>(),
                    Dep::of::<SingleNodeIgnition>(),
                    Dep::of::<Metadata>(),
                ],
            ]
            .concat(),
        },
        Target {
            name: targets::PKI,
            assets: [auth(), vec![Dep::of::<tls::TlsExport>()]].concat(),
        },
        Target {
            name: targets::SECRETS,
            assets: vec![Dep::of::<export::SecretsExport>()],
        },
    ]
}

/// The complete, checked asset graph.
pub fn graph() -> Result<Graph, GraphError> {
    let mut b = Graph::builder()
        .input::<ReleaseOptions>()
        .input::<IgnitionOptions>()
        .input::<SecretsInput>()
        .asset::<config::InstallConfigAsset>()
        .asset::<config::ClusterParamsAsset>()
        .asset::<config::ClusterIdAsset>()
        .asset::<tls::SignerKey>();
    b = tls::register_certs(b);
    b = tls::register_bundles(b)
        .asset::<tls::ServiceAccountKeyPair>()
        .asset::<tls::BootstrapSshKeyPair>()
        .asset::<tls::TlsTree>()
        .asset::<tls::TlsExport>();
    b = auth::register_kubeconfigs(b)
        .asset::<auth::KubeadminPassword>()
        .asset::<manifests::ManifestsAsset>()
        .asset::<pointer::MasterPointer>()
        .asset::<pointer::WorkerPointer>()
        .asset::<bootstrap::BootstrapIgnition>()
        .asset::<bootstrap::PivotIgnition>()
        .asset::<bootstrap::SingleNodeIgnition>()
        .asset::<metadata::Metadata>()
        .asset::<export::RunSeed>()
        .asset::<export::SecretsExport>();
    for t in targets() {
        b = b.target(t);
    }
    b.build()
}

/// Everything a run needs besides the asset directory.
#[derive(Clone, Debug, Default)]
pub struct RunSettings {
    /// Release image, channel and environment values.
    pub release: ReleaseOptions,
    /// Ignition encoding.
    pub ignition: IgnitionOptions,
    /// Secrets to reuse (`--with-secrets`).
    pub secrets: Option<pki::SecretsBundle>,
    /// Certificate expiry margin, lifetimes and user-supplied certificates.
    pub policy: CertPolicy,
    /// A fixed clock (`SOURCE_DATE_EPOCH`); with a secrets bundle this makes runs
    /// byte-identical.
    pub fixed_time: Option<u64>,
}

impl RunSettings {
    /// Deterministic when both the clock is fixed and the secrets (hence the seed) are given.
    pub fn deterministic(&self) -> bool {
        self.fixed_time.is_some() && self.secrets.is_some()
    }

    fn context(&self) -> Context {
        let clock = self.fixed_time.map_or(Clock::System, Clock::fixed_unix);
        let ctx = match (&self.secrets, self.fixed_time) {
            (Some(bundle), Some(_)) => Context::seeded(bundle.seed, clock),
            _ => Context::new(clock, None),
        };
        ctx.with(self.policy.clone())
    }
}

/// Opens the store of `dir` with the inputs of `settings` provided.
pub fn open_store(dir: &Path, settings: &RunSettings) -> Result<Store, GraphError> {
    let mut store = Store::open(graph()?, dir, settings.context())?;
    store.provide(settings.release.clone())?;
    store.provide(settings.ignition.clone())?;
    store.provide(SecretsInput(settings.secrets.clone()))?;
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_is_valid_and_has_every_target() {
        let g = graph().expect("graph");
        let names: Vec<&str> = g.targets().map(|t| t.name).collect();
        for t in [
            targets::INSTALL_CONFIG,
            targets::MANIFESTS,
            targets::IGNITION_CONFIGS,
            targets::SINGLE_NODE,
            targets::PKI,
            targets::SECRETS,
        ] {
            assert!(names.contains(&t), "missing target {t}");
        }
        assert!(g.render_dot().contains("->"));
    }
}
