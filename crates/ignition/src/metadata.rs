//! `metadata.json`: the cluster's identity, kept for later `destroy`/`gather` runs.

use serde_json::{Map, Value, json};

/// Inputs of `metadata.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterMetadata {
    /// `metadata.name` of the install-config.
    pub cluster_name: String,
    /// Cluster ID (a UUID).
    pub cluster_id: String,
    /// Infrastructure ID (`<name prefix>-<5 random chars>`).
    pub infra_id: String,
    /// Platform-specific object, if the platform has one.
    pub platform: MetadataPlatform,
    /// install-config `featureSet` (empty for the default set); always written.
    pub feature_set: String,
    /// install-config `featureGates`-style custom set, written only when present.
    pub custom_feature_set: Option<Value>,
}

/// The platform object of `metadata.json`.
#[derive(Debug, Clone, PartialEq)]
pub enum MetadataPlatform {
    /// `none` or `external`: no platform object.
    None,
    /// `baremetal` object.
    BareMetal {
        /// Libvirt URI of the provisioning host (empty when not used).
        libvirt_uri: String,
        /// Provisioning IP of the bootstrap host (empty when not used).
        bootstrap_provisioning_ip: String,
    },
    /// `vsphere` object, one entry per vCenter.
    VSphere(Vec<VCenterMetadata>),
}

/// One vCenter in the vSphere metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VCenterMetadata {
    /// vCenter server host name.
    pub vcenter: String,
    /// User name for that vCenter.
    pub username: String,
    /// Password; written only when given (then the file must be private, mode 0600).
    pub password: Option<String>,
}

/// Compact `metadata.json` with keys in upstream order: `clusterName`, `clusterID`,
/// `infraID`, the platform object (absent for none/external), `featureSet`,
/// `customFeatureSet` (only when set).
pub fn metadata_json(meta: &ClusterMetadata) -> String {
    let mut map = Map::new();
    map.insert("clusterName".into(), json!(meta.cluster_name));
    map.insert("clusterID".into(), json!(meta.cluster_id));
    map.insert("infraID".into(), json!(meta.infra_id));
    if let Some((key, object)) = platform_object(&meta.platform) {
        map.insert(key.into(), object);
    }
    map.insert("featureSet".into(), json!(meta.feature_set));
    if let Some(custom) = &meta.custom_feature_set {
        map.insert("customFeatureSet".into(), custom.clone());
    }
    Value::Object(map).to_string()
}

fn platform_object(platform: &MetadataPlatform) -> Option<(&'static str, Value)> {
    match platform {
        MetadataPlatform::None => None,
        MetadataPlatform::BareMetal {
            libvirt_uri,
            bootstrap_provisioning_ip,
        } => Some((
            "baremetal",
            json!({
                "libvirtURI": libvirt_uri,
                "bootstrapProvisioningIP": bootstrap_provisioning_ip,
            }),
        )),
        MetadataPlatform::VSphere(vcenters) => {
            let list: Vec<Value> = vcenters.iter().map(vcenter_object).collect();
            Some(("vsphere", json!({ "VCenters": list })))
        }
    }
}

fn vcenter_object(vc: &VCenterMetadata) -> Value {
    let mut map = Map::new();
    map.insert("vCenter".into(), json!(vc.vcenter));
    map.insert("username".into(), json!(vc.username));
    if let Some(password) = &vc.password {
        map.insert("password".into(), json!(password));
    }
    Value::Object(map)
}
