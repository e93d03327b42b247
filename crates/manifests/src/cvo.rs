//! The bootstrap-only copy of `cvo-overrides.yaml` (CVOIgnore).
//!
//! During bootstrap the cluster-version operator must not fight the installer over objects
//! the installer itself creates, so the bootstrap copy of the ClusterVersion lists every
//! installer-provided object as `unmanaged`. A JSON merge patch restores the user's original
//! overrides once bootstrap is done.

use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::user::parse_objects;
use crate::yaml::to_yaml;

/// Relative path of the ClusterVersion manifest.
pub const CVO_OVERRIDES: &str = "manifests/cvo-overrides.yaml";

/// Output of [`cvo_ignore`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CvoIgnore {
    /// Replacement for `manifests/cvo-overrides.yaml`, only inside bootstrap.ign.
    pub cvo_overrides: Vec<u8>,
    /// `original_cvo_overrides.patch`: `{"spec":{"overrides": <original or null>}}`.
    pub original_patch: Vec<u8>,
}

/// Build the bootstrap ClusterVersion from every manifest file, given as
/// (`manifests/<name>` or `openshift/<name>`, content) in the order they are delivered.
///
/// Each object of each file except `manifests/cvo-overrides.yaml` becomes one override
/// {kind, group, namespace, name, unmanaged: true}; overrides the user already had follow.
/// Upstream passes only the Manifests and Openshift asset files, i.e. without the files for
/// which [`crate::owned_by_machine_assets`] is true; listing those too is harmless since the
/// CVO does not manage MachineConfigs or user-data secrets.
pub fn cvo_ignore(files: &[(&str, &[u8])]) -> Result<CvoIgnore, Error> {
    let (_, cvo_data) = files
        .iter()
        .find(|(path, _)| *path == CVO_OVERRIDES)
        .ok_or_else(|| cvo_error("missing from the manifests; re-run create manifests"))?;
    let mut cluster_version = parse_cluster_version(cvo_data)?;
    let mut overrides = Vec::new();
    for (path, data) in files.iter().filter(|(p, _)| *p != CVO_OVERRIDES) {
        let objects = parse_objects(path.as_ref(), data).map_err(|e| Error::Input {
            field: path.to_string(),
            reason: e.to_string(),
        })?;
        for o in objects {
            overrides.push(json!({
                "kind": o.kind,
                "group": o.group(),
                "namespace": o.namespace.clone().unwrap_or_default(),
                "name": o.name,
                "unmanaged": true,
            }));
        }
    }
    let spec = spec_mut(&mut cluster_version)?;
    let original = spec.get("overrides").cloned().unwrap_or(Value::Null);
    if let Value::Array(existing) = &original {
        overrides.extend(existing.iter().cloned());
    }
    spec.insert("overrides".to_string(), Value::Array(overrides));
    let rendered = to_yaml(&cluster_version).map_err(|source| Error::Render {
        file: CVO_OVERRIDES.to_string(),
        source,
    })?;
    let patch = json!({"spec": {"overrides": original}});
    Ok(CvoIgnore {
        cvo_overrides: rendered.into_bytes(),
        original_patch: serde_json::to_vec(&patch).expect("a JSON value always serializes"),
    })
}

fn cvo_error(reason: &str) -> Error {
    Error::CvoOverrides {
        reason: reason.to_string(),
    }
}

fn parse_cluster_version(data: &[u8]) -> Result<Value, Error> {
    let objects = parse_objects(CVO_OVERRIDES.as_ref(), data)
        .map_err(|e| Error::CvoOverrides { reason: e.message })?;
    match objects.as_slice() {
        [one] if one.kind == "ClusterVersion" => Ok(one.value.clone()),
        _ => Err(cvo_error("must hold exactly one ClusterVersion object")),
    }
}

fn spec_mut(cluster_version: &mut Value) -> Result<&mut Map<String, Value>, Error> {
    let root = cluster_version
        .as_object_mut()
        .ok_or_else(|| cvo_error("not a mapping"))?;
    root.entry("spec")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| cvo_error("spec is not a mapping"))
}
