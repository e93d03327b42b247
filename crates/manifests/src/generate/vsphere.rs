//! vSphere cloud-provider configuration and vCenter credentials.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use k8s_openapi::api::rbac::v1::{PolicyRule, Role};
use serde_json::{Map, json};

use super::{Dir, Out};
use crate::error::Error;
use crate::inputs::VSphere;
use crate::objects::meta;
use crate::yaml::to_yaml;

/// ConfigMap (in openshift-config) the Infrastructure object points the cloud controller at.
pub(crate) const CLOUD_PROVIDER_CONFIG: &str = "cloud-provider-config";
/// Key of the config inside that ConfigMap.
pub(crate) const CLOUD_CONFIG_KEY: &str = "config";
/// Secret the vSphere cloud controller, CSI driver, machine API and cloud credential operator
/// read vCenter credentials from.
pub const CREDS_SECRET: &str = "vsphere-creds";
/// Namespace of that secret.
pub const CREDS_NAMESPACE: &str = "kube-system";
/// File of the credentials secret in `openshift/`.
pub const CREDS_FILE: &str = "99_cloud-creds-secret.yaml";
/// File of the Role that may read the credentials secret.
pub(super) const CREDS_READER_FILE: &str = "99_role-cloud-creds-secret-reader.yaml";
/// Name of that Role.
const CREDS_READER_ROLE: &str = "vsphere-creds-secret-reader";

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
    out.push(Dir::Openshift, CREDS_FILE, &credentials_secret(vs))?;
    out.push(Dir::Openshift, CREDS_READER_FILE, &credentials_reader())?;
    Ok(())
}

/// The YAML cloud config of the out-of-tree vSphere cloud provider. It names the vCenters
/// and where credentials live, never the credentials themselves. `insecureFlag` is set as the
/// upstream installer sets it: the cloud provider does not verify the vCenter certificate
/// unless an administrator configures a CA later.
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
        "global": {
            "insecureFlag": true,
            "secretName": CREDS_SECRET,
            "secretNamespace": CREDS_NAMESPACE,
        },
        "vcenter": vcenters,
    });
    if vs.failure_domains.len() > 1 {
        // Several failure domains are told apart by vCenter tags in these categories.
        config["labels"] = json!({"zone": "openshift-zone", "region": "openshift-region"});
    }
    to_yaml(&config)
}

/// The two keys of one vCenter in `kube-system/vsphere-creds`: `<server>.username` and
/// `<server>.password`, as the cloud credential operator and the vSphere components read them.
pub fn creds_keys(server: &str) -> [String; 2] {
    [format!("{server}.username"), format!("{server}.password")]
}

/// `kube-system/vsphere-creds`: the [`creds_keys`] of every vCenter.
fn credentials_secret(vs: &VSphere) -> Secret {
    let mut data = BTreeMap::new();
    for c in &vs.credentials {
        let [user_key, password_key] = creds_keys(&c.server);
        let bytes = |v: &str| k8s_openapi::ByteString(v.as_bytes().to_vec());
        data.insert(user_key, bytes(&c.username));
        data.insert(password_key, bytes(&c.password.0));
    }
    Secret {
        metadata: meta(CREDS_NAMESPACE, CREDS_SECRET),
        data: Some(data),
        ..Secret::default()
    }
}

/// The Role that may read (only) the credentials secret.
fn credentials_reader() -> Role {
    Role {
        metadata: meta(CREDS_NAMESPACE, CREDS_READER_ROLE),
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["secrets".to_string()]),
            resource_names: Some(vec![CREDS_SECRET.to_string()]),
            verbs: vec!["get".to_string()],
            ..PolicyRule::default()
        }]),
    }
}
