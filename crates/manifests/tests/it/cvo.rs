//! The bootstrap copy of cvo-overrides.yaml.

use manifests::{cvo_ignore, generate};
use serde_json::{Value, json};

use crate::common;

fn inputs_with(extra: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = generate(&common::sno())
        .unwrap()
        .files
        .into_iter()
        .map(|f| (f.rel_path(), f.data))
        .collect();
    files.extend(
        extra
            .iter()
            .map(|(p, d)| (p.to_string(), d.as_bytes().to_vec())),
    );
    files
}

fn run(files: &[(String, Vec<u8>)]) -> (Value, Value) {
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, d)| (p.as_str(), d.as_slice()))
        .collect();
    let out = cvo_ignore(&refs).unwrap();
    let cv: Value = serde_saphyr::from_slice(&out.cvo_overrides).unwrap();
    let patch: Value = serde_json::from_slice(&out.original_patch).unwrap();
    (cv, patch)
}

#[test]
fn one_unmanaged_override_per_object_in_file_order() {
    let files = inputs_with(&[(
        "openshift/99_multi.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: ns\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n",
    )]);
    let (cv, patch) = run(&files);
    let overrides = cv["spec"]["overrides"].as_array().unwrap();
    let object_count = files.len() - 1 + 1; // every file but cvo-overrides, plus the 2nd doc
    assert_eq!(overrides.len(), object_count);
    assert_eq!(
        overrides[0],
        json!({"kind": "ConfigMap", "group": "", "namespace": "kube-system", "name": "cluster-config-v1", "unmanaged": true})
    );
    let last_two = &overrides[overrides.len() - 2..];
    assert_eq!(
        last_two[0],
        json!({"kind": "Deployment", "group": "apps", "namespace": "ns", "name": "d", "unmanaged": true})
    );
    assert_eq!(last_two[1]["namespace"], "");
    assert!(overrides.iter().all(|o| o["kind"] != "ClusterVersion"));
    let dns = overrides.iter().find(|o| o["kind"] == "DNS").unwrap();
    assert_eq!(dns["group"], "config.openshift.io");
    // The rest of the ClusterVersion is untouched.
    assert_eq!(cv["spec"]["clusterID"], common::sno().cluster_id);
    assert_eq!(patch, json!({"spec": {"overrides": null}}));
}

#[test]
fn user_overrides_are_kept_after_ours_and_restored_by_the_patch() {
    let mut files = inputs_with(&[]);
    let user = json!({"kind": "Deployment", "group": "apps", "namespace": "openshift-monitoring", "name": "x", "unmanaged": true});
    let cvo = files
        .iter_mut()
        .find(|(p, _)| p == "manifests/cvo-overrides.yaml")
        .unwrap();
    let mut cv: Value = serde_saphyr::from_slice(&cvo.1).unwrap();
    cv["spec"]["overrides"] = json!([user.clone()]);
    cvo.1 = serde_json::to_vec(&cv).unwrap();
    let (out, patch) = run(&files);
    let overrides = out["spec"]["overrides"].as_array().unwrap();
    assert_eq!(overrides.last().unwrap(), &user);
    assert_eq!(overrides.len(), files.len());
    assert_eq!(patch, json!({"spec": {"overrides": [user]}}));
}

#[test]
fn broken_or_missing_inputs_fail_with_the_file_name() {
    let files = inputs_with(&[("openshift/bad.yaml", "kind: [\n")]);
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, d)| (p.as_str(), d.as_slice()))
        .collect();
    assert!(
        cvo_ignore(&refs)
            .unwrap_err()
            .to_string()
            .contains("openshift/bad.yaml")
    );
    let without: Vec<(&str, &[u8])> = refs
        .iter()
        .copied()
        .filter(|(p, _)| !p.ends_with("cvo-overrides.yaml"))
        .collect();
    assert!(
        cvo_ignore(&without)
            .unwrap_err()
            .to_string()
            .contains("cvo-overrides.yaml")
    );
}
