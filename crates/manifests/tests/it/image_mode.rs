//! Install-time image mode: skeletons and MachineOSConfig validation.

use std::path::Path;

use manifests::imagemode::{
    PRE_BUILT_IMAGE, image_reference, pre_built_image_credentials, skeleton_name,
};
use manifests::user::{UserFile, parse_objects};
use manifests::{Dir, image_mode_skeletons, validate_machine_os_configs};
use serde_json::{Value, json};

const POOLS: &[&str] = &["master", "worker"];
const DIGEST: &str = "quay.io/example/okd-custom@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn file(name: &str, value: &Value) -> UserFile {
    let data = manifests::yaml::to_yaml(value).unwrap().into_bytes();
    let objects = parse_objects(Path::new(name), &data).unwrap();
    UserFile {
        dir: Dir::Manifests,
        name: name.into(),
        data,
        objects,
    }
}

fn valid(pool: &str) -> Value {
    json!({
        "apiVersion": "machineconfiguration.openshift.io/v1",
        "kind": "MachineOSConfig",
        "metadata": {"name": pool, "annotations": {PRE_BUILT_IMAGE: DIGEST}},
        "spec": {
            "machineConfigPool": {"name": pool},
            "imageBuilder": {"imageBuilderType": "Job"},
            "containerFile": [{"containerfileArch": "NoArch", "content": "FROM configs AS final\nRUN dnf install -y tmux\n"}],
            "renderedImagePushSpec": "registry.example.com:5000/okd/os:latest",
            "renderedImagePushSecret": {"name": "push-secret"},
        },
    })
}

fn errors_for(value: Value) -> Vec<String> {
    let files = [file("mosc.yaml", &value), file("w.yaml", &valid("worker"))];
    validate_machine_os_configs(&files, true, POOLS)
        .errors
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn skeletons_only_for_pools_without_one() {
    let all = image_mode_skeletons(&[], POOLS);
    assert_eq!(
        all.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
        [skeleton_name("master"), skeleton_name("worker")]
    );
    let existing = [file("mine.yaml", &valid("worker"))];
    let some = image_mode_skeletons(&existing, POOLS);
    assert_eq!(some.len(), 1);
    assert_eq!(some[0].name, "machineosconfig-master.yaml");
    assert_eq!(some[0].dir, Dir::Manifests);
}

#[test]
fn skeleton_has_every_field_and_is_rejected_until_filled() {
    let skel = &image_mode_skeletons(&[], &["master"])[0];
    let v: Value = serde_saphyr::from_slice(&skel.data).unwrap();
    assert_eq!(v["apiVersion"], "machineconfiguration.openshift.io/v1");
    assert_eq!(v["kind"], "MachineOSConfig");
    assert_eq!(v["spec"]["machineConfigPool"]["name"], "master");
    assert_eq!(v["spec"]["imageBuilder"]["imageBuilderType"], "Job");
    assert_eq!(v["spec"]["containerFile"][0]["containerfileArch"], "NoArch");
    for ptr in [
        "/spec/renderedImagePushSpec",
        "/spec/renderedImagePushSecret/name",
        "/spec/containerFile/0/content",
    ] {
        assert!(
            v.pointer(ptr)
                .unwrap()
                .as_str()
                .unwrap()
                .contains("REPLACE-ME"),
            "{ptr}"
        );
    }
    assert!(
        v["metadata"]["annotations"][PRE_BUILT_IMAGE]
            .as_str()
            .unwrap()
            .contains("REPLACE-ME")
    );

    let loaded = file("machineosconfig-master.yaml", &v);
    let report = validate_machine_os_configs(&[loaded], true, &["master"]);
    let text: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    for field in [
        "metadata.annotations.machineconfiguration.openshift.io/pre-built-image",
        "spec.renderedImagePushSpec",
        "spec.renderedImagePushSecret.name",
        "spec.containerFile[0].content",
    ] {
        assert!(
            text.iter()
                .any(|e| e.contains(field) && e.contains("REPLACE-ME")),
            "{field}: {text:#?}"
        );
    }
}

#[test]
fn complete_configs_pass() {
    let files = [
        file("m.yaml", &valid("master")),
        file("w.yaml", &valid("worker")),
    ];
    let report = validate_machine_os_configs(&files, true, POOLS);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert!(report.warnings.is_empty());
}

/// A change that breaks one rule.
type Mutation = Box<dyn Fn(&mut Value)>;

#[test]
fn each_rule_is_enforced() {
    let cases: Vec<(&str, Mutation)> = vec![
        (
            "apiVersion must be",
            Box::new(|v| v["apiVersion"] = json!("machineconfiguration.openshift.io/v1alpha1")),
        ),
        (
            "spec.machineConfigPool.name is required",
            Box::new(|v| v["spec"]["machineConfigPool"] = json!({})),
        ),
        (
            "not a pool of this cluster",
            Box::new(|v| v["spec"]["machineConfigPool"]["name"] = json!("infra")),
        ),
        (
            "annotation machineconfiguration.openshift.io/pre-built-image is required",
            Box::new(|v| v["metadata"]["annotations"] = json!({})),
        ),
        (
            "pinned by digest",
            Box::new(|v| {
                v["metadata"]["annotations"][PRE_BUILT_IMAGE] = json!("quay.io/example/os:latest")
            }),
        ),
        (
            "64 lowercase hex",
            Box::new(|v| {
                v["metadata"]["annotations"][PRE_BUILT_IMAGE] =
                    json!("quay.io/example/os@sha256:abc")
            }),
        ),
        (
            "imageBuilderType must be Job",
            Box::new(|v| v["spec"]["imageBuilder"]["imageBuilderType"] = json!("PodImageBuilder")),
        ),
        (
            "spec.containerFile needs",
            Box::new(|v| v["spec"]["containerFile"] = json!([])),
        ),
        (
            "spec.renderedImagePushSpec is required",
            Box::new(|v| {
                v["spec"]
                    .as_object_mut()
                    .unwrap()
                    .remove("renderedImagePushSpec")
                    .map(drop)
                    .unwrap()
            }),
        ),
        (
            "spec.renderedImagePushSpec: ",
            Box::new(|v| {
                v["spec"]["renderedImagePushSpec"] = json!("Registry.Example.com/UPPER/case:tag")
            }),
        ),
        (
            "spec.renderedImagePushSecret.name is required",
            Box::new(|v| v["spec"]["renderedImagePushSecret"] = json!({"name": ""})),
        ),
    ];
    for (expected, mutate) in cases {
        let mut v = valid("master");
        mutate(&mut v);
        let errors = errors_for(v);
        assert!(
            errors
                .iter()
                .any(|e| e.contains(expected) && e.starts_with("manifests/mosc.yaml:1:1")),
            "{expected}: {errors:#?}"
        );
    }
}

#[test]
fn duplicates_and_missing_pools() {
    let files = [
        file("a.yaml", &valid("master")),
        file("b.yaml", &valid("master")),
    ];
    let report = validate_machine_os_configs(&files, true, POOLS);
    assert_eq!(report.errors.len(), 1);
    assert!(
        report.errors[0]
            .message
            .contains("already has a MachineOSConfig in manifests/a.yaml")
    );
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("\"worker\" has no MachineOSConfig"))
    );

    let none = validate_machine_os_configs(&[], true, POOLS);
    assert!(none.errors[0].message.contains("no MachineOSConfig"));
    // Custom compute pools are valid targets.
    let custom = [file("c.yaml", &valid("gpu"))];
    assert!(
        validate_machine_os_configs(&custom, true, &["master", "worker", "gpu"])
            .errors
            .is_empty()
    );
}

#[test]
fn image_mode_off_only_warns() {
    let mut broken = valid("master");
    broken["spec"]["imageBuilder"] = json!({});
    let report = validate_machine_os_configs(&[file("m.yaml", &broken)], false, POOLS);
    assert!(report.errors.is_empty());
    assert_eq!(report.warnings.len(), 1);
    assert!(
        report.warnings[0].contains("after install"),
        "{}",
        report.warnings[0]
    );
    assert!(report.warnings[0].contains("not used during bootstrap"));
    assert!(validate_machine_os_configs(&[], false, POOLS) == Default::default());
}

#[test]
fn image_references() {
    let ok = |r: &str, d: bool| image_reference(r, d).map_err(|e| format!("{r}: {e}"));
    ok(DIGEST, true).unwrap();
    ok("registry.example.com:5000/a/b:v1.2", false).unwrap();
    ok("localhost/os", false).unwrap();
    ok(
        "quay.io/a/b:tag@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        true,
    )
    .unwrap();
    for bad in [
        "",
        "quay.io/",
        "quay.io/A/b",
        "quay.io/a/b:",
        "quay.io/a//b",
        "quay.io/a/b@md5:00",
        ":5000/a",
    ] {
        assert!(image_reference(bad, false).is_err(), "{bad:?} accepted");
    }
}

#[test]
fn pre_built_image_needs_pull_credentials() {
    let files = [file("m.yaml", &valid("master"))];
    let with = r#"{"auths":{"quay.io":{"auth":"eA=="}}}"#;
    assert!(pre_built_image_credentials(&files, with).is_empty());
    let scoped = r#"{"auths":{"quay.io/example":{"auth":"eA=="}}}"#;
    assert!(pre_built_image_credentials(&files, scoped).is_empty());
    let other = r#"{"auths":{"registry.example.com":{"auth":"eA=="}}}"#;
    let warnings = pre_built_image_credentials(&files, other);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("\"quay.io\""), "{}", warnings[0]);
}

#[test]
fn skeleton_snapshot() {
    let skel = &image_mode_skeletons(&[], &["worker"])[0];
    insta::assert_snapshot!(String::from_utf8_lossy(&skel.data));
}
