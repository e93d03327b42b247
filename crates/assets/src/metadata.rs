//! `metadata.json`: the cluster's identity, which later commands (and `destroy` upstream) read.

use asset_graph::{Asset, BoxError, Context, Dep, File, Parents};
use installconfig::InstallConfig;
use serde::{Deserialize, Serialize};

use crate::config::{ClusterIdAsset, InstallConfigAsset};

/// The feature set as written in install-config (`""` for the default set).
pub(crate) fn feature_set_name(ic: &InstallConfig) -> String {
    Some(installconfig::yaml_name(&ic.feature_set))
        .filter(|s| s != "Default")
        .unwrap_or_default()
}

/// `metadata.json`: the cluster's identity for later commands.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Metadata(pub String);

impl Asset for Metadata {
    const ID: &'static str = "metadata";
    const NAME: &'static str = "Metadata";

    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<InstallConfigAsset>(), Dep::of::<ClusterIdAsset>()]
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let ic = &parents.get::<InstallConfigAsset>()?.config;
        let ids = parents.get::<ClusterIdAsset>()?;
        let platform = if let Some(vs) = &ic.platform.vsphere {
            ignition::MetadataPlatform::VSphere(
                vs.vcenters
                    .iter()
                    .map(|v| ignition::VCenterMetadata {
                        vcenter: v.server.clone(),
                        username: v.user.clone(),
                        password: None,
                    })
                    .collect(),
            )
        } else if let Some(bm) = &ic.platform.baremetal {
            ignition::MetadataPlatform::BareMetal {
                libvirt_uri: bm.libvirt_uri.clone().unwrap_or_default(),
                bootstrap_provisioning_ip: bm
                    .bootstrap_provisioning_ip
                    .as_ref()
                    .map(|ip| ip.0.clone())
                    .unwrap_or_default(),
            }
        } else {
            ignition::MetadataPlatform::None
        };
        let feature_set = feature_set_name(ic);
        Ok(Metadata(ignition::metadata_json(
            &ignition::ClusterMetadata {
                cluster_name: ic.metadata.name.clone(),
                cluster_id: ids.cluster_id.clone(),
                infra_id: ids.infra_id.clone(),
                platform,
                feature_set,
                custom_feature_set: None,
            },
        )))
    }

    fn files(&self) -> Vec<File> {
        vec![File::new(crate::layout::METADATA, self.0.as_bytes())]
    }
}
