//! vSphere cloud-provider configuration.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use serde_json::{Map, json};

use super::config::meta;
use super::{Dir, Out};
use crate::error::Error;
use crate::inputs::VSphere;
use crate::yaml::to_yaml;

/// ConfigMap (in openshift-config) the Infrastructure object points the cloud controller at.
pub(crate) const CLOUD_PROVIDER_CONFIG: &str = "cloud-provider-config";
/// Key of the config inside that ConfigMap.
pub(crate) const CLOUD_CONFIG_KEY: &str = "config";
/// Secret the vSphere cloud controller reads vCenter credentials from.
const CREDS_SECRET: &str = "vsphere-creds";

pub(super) fn add(vs: &VSphere, trust_bundle: Option<&str>, out: &mut Out) -> Result<(), Error> {
    let config = cloud_config(vs).map_err(|source| Error::Render {
        file: "manifests/cloud-provider-config.yaml (config)".into(),
        source,
    })?;
    let mut data = BTreeMap::from([(CLOUD_CONFIG_KEY.to_string(), config)]);
    if let Some(bundle) = trust_bundle {
        data.insert("ca-bundle.pem".to_string(), bundle.to_string());
    }
    let cm = ConfigMap {
        metadata: meta("openshift-config", CLOUD_PROVIDER_CONFIG),
        data: Some(data),
        ..ConfigMap::default()
    };
    out.push(Dir::Manifests, "cloud-provider-config.yaml", &cm)?;
    out.warn(credentials_hint(vs));
    Ok(())
}

/// The YAML cloud config of the out-of-tree vSphere cloud provider. It names the vCenters
/// and where credentials live, never the credentials themselves.
fn cloud_config(vs: &VSphere) -> Result<String, serde_saphyr::SerializeError> {
    let vcenters: Map<String, serde_json::Value> = vs
        .vcenters
        .iter()
        .map(|v| {
            let entry = json!({"server": v.server, "port": v.port, "datacenters": v.datacenters});
            (v.server.clone(), entry)
        })
        .collect();
    let mut config = json!({
        "global": {"secretName": CREDS_SECRET, "secretNamespace": "kube-system"},
        "vcenter": vcenters,
    });
    if !vs.failure_domains.is_empty() {
        // Failure domains are expressed as vCenter tags in these categories.
        config["labels"] = json!({"zone": "openshift-zone", "region": "openshift-region"});
    }
    to_yaml(&config)
}

fn credentials_hint(vs: &VSphere) -> String {
    let keys: Vec<String> = vs
        .vcenters
        .iter()
        .map(|v| format!("{0}.username, {0}.password", v.server))
        .collect();
    format!(
        "vSphere credentials are not written to the manifests: add a Secret kube-system/{CREDS_SECRET} \
         with keys {} (for example as a file in openshift/), or the cloud controller cannot reach vCenter",
        keys.join(", ")
    )
}
