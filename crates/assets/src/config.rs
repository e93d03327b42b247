//! The user's install-config.yaml and the small assets derived from it.
//!
//! Derived assets carry only what their dependants read (e.g. [`ClusterParamsAsset`] holds the
//! values that go into certificates), so an edit of an unrelated field, such as the number of
//! workers, does not re-sign a single certificate.

use crate::Error;
use crate::layout::INSTALL_CONFIG;
use std::net::IpAddr;

use asset_graph::{Asset, BoxError, Context, Dep, Fetcher, File, Parents};
use installconfig::{ClusterNames, InstallConfig};
use serde::{Deserialize, Serialize};

/// install-config.yaml: loaded from the asset directory, defaulted and validated.
///
/// The file is the user's: okd-install reads it, keeps it in place, and never rewrites it
/// (upstream deletes it after use; we track its fingerprint instead).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InstallConfigAsset {
    /// The defaulted, validated configuration.
    pub config: InstallConfig,
    /// The file exactly as the user wrote it.
    pub raw: String,
    /// Warnings found while validating (shown once per run that loads the file).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The cluster's DNS names (cluster domain, `api.`, `api-int.`), derived once here so the
    /// certificates, the manifests, the pointer configs and the bootstrap templates cannot
    /// spell them differently.
    pub names: ClusterNames,
}

impl InstallConfigAsset {
    /// Parses, defaults and validates `raw` (named `file` in messages).
    pub fn parse(raw: String, file: &str) -> Result<Self, installconfig::LoadError> {
        let loaded = installconfig::parse_str(&raw, file)?;
        Ok(InstallConfigAsset {
            names: loaded.config.names(),
            config: loaded.config,
            warnings: loaded.warnings.iter().map(ToString::to_string).collect(),
            raw,
        })
    }
}

impl Asset for InstallConfigAsset {
    const ID: &'static str = "install-config";
    const NAME: &'static str = "Install Config";

    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }

    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        Err(Error::MissingInstallConfig {
            file: INSTALL_CONFIG,
        }
        .into())
    }

    fn files(&self) -> Vec<File> {
        vec![File::secret(INSTALL_CONFIG, self.raw.as_bytes())]
    }

    fn load(dir: &Fetcher) -> Result<Option<Self>, BoxError> {
        let Some(raw) = dir.read_string(INSTALL_CONFIG)? else {
            return Ok(None);
        };
        let path = dir.dir().join(INSTALL_CONFIG);
        Ok(Some(InstallConfigAsset::parse(
            raw,
            &path.display().to_string(),
        )?))
    }
}

/// The install-config values that certificates and kubeconfigs depend on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClusterParamsAsset(pub pki::ClusterParams);

impl ClusterParamsAsset {
    /// Extracts the certificate-relevant values; the API VIPs (on platforms that serve on
    /// VIPs) are named in the API serving certificates.
    pub fn from_config(ic: &InstallConfig, names: &ClusterNames) -> Result<Self, BoxError> {
        let api_vips = ic
            .api_vips()
            .iter()
            .map(|v| {
                v.parse::<IpAddr>().map_err(|e| Error::BadVip {
                    what: "API VIP",
                    value: v.clone(),
                    reason: e.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ClusterParamsAsset(pki::ClusterParams {
            names: names.clone(),
            service_networks: ic
                .networking()
                .service_network
                .iter()
                .map(|c| c.0)
                .collect(),
            api_vips,
        }))
    }
}

impl Asset for ClusterParamsAsset {
    const ID: &'static str = "cluster-params";
    const NAME: &'static str = "Cluster Parameters";

    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<InstallConfigAsset>()]
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let ic = parents.get::<InstallConfigAsset>()?;
        ClusterParamsAsset::from_config(&ic.config, &ic.names)
    }
}

/// The cluster's identity: a UUID for the ClusterVersion and the infrastructure name.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClusterIdAsset {
    /// UUID v4.
    pub cluster_id: String,
    /// `<sanitized name>-<5 random chars>`.
    pub infra_id: String,
}

impl Asset for ClusterIdAsset {
    const ID: &'static str = "cluster-id";
    const NAME: &'static str = "Cluster ID";

    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<ClusterParamsAsset>()]
    }

    fn generate(ctx: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let name = &parents.get::<ClusterParamsAsset>()?.0.names.cluster_name;
        let mut rng = ctx.rng(Self::ID);
        let (infra_id, warning) = manifests::infra_id(name, &mut rng);
        if let Some(w) = warning {
            tracing::warn!("{w}");
        }
        Ok(ClusterIdAsset {
            cluster_id: manifests::cluster_id(&mut rng),
            infra_id,
        })
    }
}
