//! Whether the objects the bootstrap creates exist in the API server, by kind, namespace and
//! name, with the API server's own reason for each one that does not.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::check::read_objects;
use crate::host::output_of;
use crate::standins::Access;
use crate::{Finding, Host, Payload};

/// The cluster profile the bootstrap renders with (bootkube.sh's default).
const PROFILE_ANNOTATION: &str = "include.release.openshift.io/self-managed-high-availability";

/// An object's identity: API group, kind, namespace, name.
type Key = (String, String, String, String);

fn key(object: &Value) -> Key {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let group = api_version
        .rsplit_once('/')
        .map(|(g, _)| g)
        .unwrap_or_default();
    (
        group.to_string(),
        object["kind"].as_str().unwrap_or_default().to_string(),
        object["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

fn describe((group, kind, namespace, name): &Key) -> String {
    let kind = if group.is_empty() {
        kind.clone()
    } else {
        format!("{kind}.{group}")
    };
    if namespace.is_empty() {
        format!("{kind} {name}")
    } else {
        format!("{kind} {namespace}/{name}")
    }
}

/// Every object of `/opt/openshift/manifests` (the generated manifests, `openshift/` and
/// every render's output, which is what cluster-bootstrap creates) that the API server does
/// not have; for each, what the API server says when asked to create it (a server-side dry
/// run), so a rejected manifest names its reason.
pub(crate) fn missing_manifests(access: &Access, host: &Host) -> Vec<Finding> {
    let dir = host.path("/opt/openshift/manifests");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let present = present_in(access, "/opt/openshift/manifests");
    let mut findings = Vec::new();
    for file in files {
        for object in read_objects(&file) {
            if object["kind"].as_str().is_none_or(|k| k.ends_with("List")) {
                continue;
            }
            let key = key(&object);
            // A manifest may name a namespace for a cluster-scoped object (cvo-overrides.yaml
            // does): the API server ignores it.
            let cluster_scoped = (key.0.clone(), key.1.clone(), String::new(), key.3.clone());
            if !present.contains(&key) && !present.contains(&cluster_scoped) {
                findings.push(Finding {
                    stage: "cb-bootstrap",
                    problem: format!(
                        "{} of {} is not in the API server: {}",
                        describe(&key),
                        file.file_name().unwrap_or_default().to_string_lossy(),
                        server_verdict(access, &file)
                    ),
                });
            }
        }
    }
    findings
}

/// The objects of the node path `dir` (or file) that the API server has.
fn present_in(access: &Access, path: &str) -> BTreeSet<Key> {
    let mut cmd = access.kubectl();
    cmd.args(["get", "--output=json", "--ignore-not-found", "-f", path]);
    let out = cmd.output().map(|o| o.stdout).unwrap_or_default();
    let list: Value = serde_json::from_slice(&out).unwrap_or_default();
    let items = match list["kind"].as_str() {
        Some("List") => list["items"].as_array().cloned().unwrap_or_default(),
        Some(_) => vec![list],
        None => Vec::new(),
    };
    items.iter().map(key).collect()
}

/// What the API server answers to creating the objects of `file` (node path of the same
/// name inside the sandbox).
fn server_verdict(access: &Access, file: &Path) -> String {
    let node_path = file
        .strip_prefix(&access.host.root)
        .map(|p| Path::new("/").join(p))
        .unwrap_or_else(|_| file.to_path_buf());
    let mut cmd = access.kubectl();
    cmd.args(["create", "--dry-run=server", "--output=name", "-f"])
        .arg(&node_path);
    match output_of(&mut cmd) {
        Ok(_) => "the API server would accept it now; cluster-bootstrap did not create it".into(),
        Err(e) => crate::error::tail(&e.to_string(), 3),
    }
}

/// Every Namespace and CRD of the release's `/release-manifests` that the CVO creates for
/// this cluster (the bootstrap's profile, the default feature set, not marked for deletion)
/// and the API server does not have.
pub(crate) fn missing_payload_objects(access: &Access, payload: &Payload) -> Vec<Finding> {
    let text = match payload.release_manifests_text() {
        Ok(text) => text,
        Err(e) => {
            return vec![Finding {
                stage: "cvo",
                problem: format!("cannot read /release-manifests: {e}"),
            }];
        }
    };
    let wanted: Vec<Value> = text
        .split("\n---")
        .filter_map(|doc| serde_saphyr::from_str::<Value>(doc).ok())
        .filter(|o| {
            matches!(
                o["kind"].as_str(),
                Some("Namespace" | "CustomResourceDefinition")
            )
        })
        .filter(created_by_the_cvo)
        .collect();
    if wanted.is_empty() {
        return vec![Finding {
            stage: "cvo",
            problem: "/release-manifests holds no Namespace or CRD for this profile".into(),
        }];
    }
    let mut findings = Vec::new();
    for kind in ["namespaces", "customresourcedefinitions"] {
        let mut cmd = access.kubectl();
        cmd.args(["get", kind, "--output=json"]);
        let list: Value = output_of(&mut cmd)
            .ok()
            .and_then(|o| serde_json::from_str(&o).ok())
            .unwrap_or_default();
        let present: BTreeSet<String> = list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_string))
            .collect();
        let is_kind = |o: &&Value| match kind {
            "namespaces" => o["kind"] == "Namespace",
            _ => o["kind"] == "CustomResourceDefinition",
        };
        for object in wanted.iter().filter(is_kind) {
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            if !present.contains(name) {
                findings.push(Finding {
                    stage: "cvo",
                    problem: format!(
                        "{} {name} of the release payload was not created by the CVO",
                        object["kind"].as_str().unwrap_or_default()
                    ),
                });
            }
        }
    }
    findings
}

/// Whether the CVO applies `object` on this cluster: included in the bootstrap's profile, in
/// the default feature set, and not a deletion.
fn created_by_the_cvo(object: &Value) -> bool {
    let annotations = &object["metadata"]["annotations"];
    let in_profile = annotations[PROFILE_ANNOTATION] == "true";
    let feature_set = annotations["release.openshift.io/feature-set"]
        .as_str()
        .is_none_or(|sets| sets.split(',').any(|s| s.trim() == "Default"));
    let deleted = annotations["release.openshift.io/delete"] == "true";
    in_profile && feature_set && !deleted
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_objects_of_the_profile_and_the_default_feature_set_are_expected() {
        let object = |annotations: Value| json!({"kind": "Namespace", "metadata": {"name": "n", "annotations": annotations}});
        assert!(created_by_the_cvo(&object(
            json!({PROFILE_ANNOTATION: "true"})
        )));
        assert!(!created_by_the_cvo(&object(json!({}))));
        assert!(!created_by_the_cvo(&object(json!({
            PROFILE_ANNOTATION: "true",
            "release.openshift.io/feature-set": "TechPreviewNoUpgrade,DevPreviewNoUpgrade",
        }))));
        assert!(created_by_the_cvo(&object(json!({
            PROFILE_ANNOTATION: "true",
            "release.openshift.io/feature-set": "Default,TechPreviewNoUpgrade",
        }))));
        assert!(!created_by_the_cvo(&object(json!({
            PROFILE_ANNOTATION: "true",
            "release.openshift.io/delete": "true",
        }))));
    }

    #[test]
    fn objects_are_named_by_group_kind_namespace_and_name() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret",
                            "metadata": {"name": "pull-secret", "namespace": "openshift-config"}});
        assert_eq!(
            describe(&key(&secret)),
            "Secret openshift-config/pull-secret"
        );
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                         "metadata": {"name": "networks.operator.openshift.io"}});
        assert_eq!(
            describe(&key(&crd)),
            "CustomResourceDefinition.apiextensions.k8s.io networks.operator.openshift.io"
        );
    }
}
