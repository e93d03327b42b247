//! Install-time image mode: generated MachineOSConfigs and OS-image MachineConfigs, skeletons,
//! and their validation.

use std::path::Path;

use manifests::imagemode::{
    PRE_BUILT_IMAGE, image_reference, os_image_config_name, os_image_file_name,
    pre_built_image_credentials, skeleton_name,
};
use manifests::user::{UserFile, parse_objects};
use manifests::{
    Dir, ImageModeFlow, ManifestFile, PoolImage, image_mode_manifests, validate_machine_os_configs,
};
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

/// The OS-image MachineConfig of `pool` naming `image`.
fn os_image(pool: &str, image: &str) -> Value {
    json!({
        "apiVersion": "machineconfiguration.openshift.io/v1",
        "kind": "MachineConfig",
        "metadata": {
            "name": os_image_config_name(pool),
            "labels": {"machineconfiguration.openshift.io/role": pool},
        },
        "spec": {"config": {"ignition": {"version": "3.2.0"}}, "osImageURL": image},
    })
}

/// Both objects of each pool, agreeing.
fn complete(pools: &[&str]) -> Vec<UserFile> {
    pools
        .iter()
        .flat_map(|p| {
            [
                file(&format!("mosc-{p}.yaml"), &valid(p)),
                file(&format!("mc-{p}.yaml"), &os_image(p, DIGEST)),
            ]
        })
        .collect()
}

fn messages(report: &manifests::ImageModeReport) -> Vec<String> {
    report.errors.iter().map(ToString::to_string).collect()
}

fn given(pool: &str) -> PoolImage {
    PoolImage {
        pool: pool.into(),
        pre_built_image: format!(
            "registry.example.com:5000/os/{pool}@sha256:{}",
            "5e".repeat(32)
        ),
        containerfile: "FROM configs AS final\nRUN dnf install -y tmux && dnf clean all\n".into(),
        rendered_image_push_spec: format!("registry.example.com:5000/os/{pool}:latest"),
        rendered_image_push_secret: "push-credentials".into(),
    }
}

/// Generated files as they would be loaded back from disk.
fn loaded(files: &[ManifestFile]) -> Vec<UserFile> {
    files
        .iter()
        .map(|f| UserFile {
            dir: f.dir,
            name: f.name.clone(),
            data: f.data.clone(),
            objects: parse_objects(Path::new(&f.rel_path()), &f.data).unwrap(),
        })
        .collect()
}

fn errors_for(value: Value) -> Vec<String> {
    let mut files = complete(&["worker"]);
    files.push(file("mosc.yaml", &value));
    files.push(file("mc-master.yaml", &os_image("master", DIGEST)));
    validate_machine_os_configs(&files, true, POOLS, ImageModeFlow::OsImageMachineConfig)
        .errors
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn every_pool_gets_a_machine_os_config_and_an_os_image_machine_config() {
    let files = image_mode_manifests(
        POOLS,
        &[given("worker")],
        ImageModeFlow::OsImageMachineConfig,
    );
    let paths: Vec<String> = files.iter().map(ManifestFile::rel_path).collect();
    assert_eq!(
        paths,
        [
            format!("manifests/{}", skeleton_name("master")),
            format!("openshift/{}", os_image_file_name("master")),
            format!("manifests/{}", skeleton_name("worker")),
            format!("openshift/{}", os_image_file_name("worker")),
        ]
    );
    assert_eq!(
        os_image_file_name("worker"),
        "99_openshift-machineconfig_99-worker-okd-install-os-image.yaml"
    );
}

#[test]
fn given_values_fill_both_objects_with_the_same_image() {
    let values = given("worker");
    let files = image_mode_manifests(
        &["worker"],
        std::slice::from_ref(&values),
        ImageModeFlow::OsImageMachineConfig,
    );
    let mosc: Value = serde_saphyr::from_slice(&files[0].data).unwrap();
    let mc: Value = serde_saphyr::from_slice(&files[1].data).unwrap();
    assert_eq!(
        mosc["metadata"]["annotations"][PRE_BUILT_IMAGE],
        values.pre_built_image
    );
    assert_eq!(
        mosc["spec"]["containerFile"][0]["content"],
        values.containerfile
    );
    assert_eq!(
        mosc["spec"]["renderedImagePushSpec"],
        values.rendered_image_push_spec
    );
    assert_eq!(
        mosc["spec"]["renderedImagePushSecret"]["name"],
        values.rendered_image_push_secret
    );
    assert_eq!(mc["kind"], "MachineConfig");
    assert_eq!(mc["metadata"]["name"], "99-worker-okd-install-os-image");
    assert_eq!(
        mc["metadata"]["labels"]["machineconfiguration.openshift.io/role"],
        "worker"
    );
    assert_eq!(mc["spec"]["osImageURL"], values.pre_built_image);
    assert!(!String::from_utf8_lossy(&files[0].data).contains("REPLACE-ME"));
    let report = validate_machine_os_configs(
        &loaded(&files),
        true,
        &["worker"],
        ImageModeFlow::OsImageMachineConfig,
    );
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    assert_eq!(report.agreed.len(), 1);
    assert_eq!(report.agreed[0].image, values.pre_built_image);
    assert_eq!(
        report.agreed[0].machine_configs,
        [format!("openshift/{}", os_image_file_name("worker"))]
    );
}

#[test]
fn skeleton_os_image_machine_config_is_refused_until_filled() {
    let files = loaded(&image_mode_manifests(
        &["master"],
        &[],
        ImageModeFlow::OsImageMachineConfig,
    ));
    let errors = messages(&validate_machine_os_configs(
        &files,
        true,
        &["master"],
        ImageModeFlow::OsImageMachineConfig,
    ));
    let mc_path = format!("openshift/{}", os_image_file_name("master"));
    assert!(
        errors.iter().any(|e| e.starts_with(&mc_path)
            && e.contains("spec.osImageURL")
            && e.contains("REPLACE-ME")),
        "{errors:#?}"
    );
}

/// Asserts that `errors` is one error, at `at`, mentioning every one of `words`.
fn only_error(errors: &[String], at: &str, words: &[&str]) {
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].starts_with(at), "not at {at}: {}", errors[0]);
    for w in words {
        assert!(errors[0].contains(w), "{w:?} missing: {}", errors[0]);
    }
}

#[test]
fn a_machine_config_naming_another_image_is_an_error_at_its_file() {
    let mut files = complete(POOLS);
    let other = format!("quay.io/example/other@sha256:{}", "7".repeat(64));
    files.push(file("late.yaml", &os_image("worker", &other)));
    let report =
        validate_machine_os_configs(&files, true, POOLS, ImageModeFlow::OsImageMachineConfig);
    only_error(
        &messages(&report),
        "manifests/late.yaml:1:1",
        &[&other, DIGEST, "manifests/mosc-worker.yaml"],
    );
    let agreed: Vec<&str> = report.agreed.iter().map(|a| a.pool.as_str()).collect();
    assert_eq!(agreed, ["master"]);
}

#[test]
fn a_pool_without_an_os_image_machine_config_is_an_error() {
    let files: Vec<UserFile> = complete(POOLS)
        .into_iter()
        .filter(|f| f.name != "mc-master.yaml")
        .collect();
    let errors = messages(&validate_machine_os_configs(
        &files,
        true,
        POOLS,
        ImageModeFlow::OsImageMachineConfig,
    ));
    let mc = os_image_file_name("master");
    only_error(
        &errors,
        "manifests/mosc-master.yaml",
        &[&mc, "stock OS image"],
    );
}

#[test]
fn a_placeholder_os_image_is_an_error_even_with_image_mode_off() {
    let files = [file(
        "mc.yaml",
        &os_image("worker", "REPLACE-ME: the image"),
    )];
    let errors = messages(&validate_machine_os_configs(
        &files,
        false,
        POOLS,
        ImageModeFlow::OsImageMachineConfig,
    ));
    only_error(
        &errors,
        "manifests/mc.yaml",
        &["spec.osImageURL still contains"],
    );
}

#[test]
fn skeleton_has_every_field_and_is_rejected_until_filled() {
    let skel = &image_mode_manifests(&["master"], &[], ImageModeFlow::OsImageMachineConfig)[0];
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
    let report = validate_machine_os_configs(
        &[loaded],
        true,
        &["master"],
        ImageModeFlow::OsImageMachineConfig,
    );
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
    let report = validate_machine_os_configs(
        &complete(POOLS),
        true,
        POOLS,
        ImageModeFlow::OsImageMachineConfig,
    );
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert!(report.warnings.is_empty());
    let agreed: Vec<&str> = report.agreed.iter().map(|a| a.pool.as_str()).collect();
    assert_eq!(agreed, POOLS);
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
        file("mc.yaml", &os_image("master", DIGEST)),
    ];
    let report =
        validate_machine_os_configs(&files, true, POOLS, ImageModeFlow::OsImageMachineConfig);
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

    let none = validate_machine_os_configs(&[], true, POOLS, ImageModeFlow::OsImageMachineConfig);
    assert!(none.errors[0].message.contains("no MachineOSConfig"));
    // Custom compute pools are valid targets.
    let custom = [
        file("c.yaml", &valid("gpu")),
        file("mc.yaml", &os_image("gpu", DIGEST)),
    ];
    assert!(
        validate_machine_os_configs(
            &custom,
            true,
            &["master", "worker", "gpu"],
            ImageModeFlow::OsImageMachineConfig
        )
        .errors
        .is_empty()
    );
}

#[test]
fn image_mode_off_only_warns() {
    let mut broken = valid("master");
    broken["spec"]["imageBuilder"] = json!({});
    let report = validate_machine_os_configs(
        &[file("m.yaml", &broken)],
        false,
        POOLS,
        ImageModeFlow::OsImageMachineConfig,
    );
    assert!(report.errors.is_empty());
    assert_eq!(report.warnings.len(), 1);
    assert!(
        report.warnings[0].contains("after install"),
        "{}",
        report.warnings[0]
    );
    assert!(report.warnings[0].contains("not used during bootstrap"));
    assert!(
        validate_machine_os_configs(&[], false, POOLS, ImageModeFlow::OsImageMachineConfig)
            == Default::default()
    );
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
    let files = image_mode_manifests(&["worker"], &[], ImageModeFlow::OsImageMachineConfig);
    let both: Vec<String> = files
        .iter()
        .map(|f| format!("--- {}\n{}", f.rel_path(), String::from_utf8_lossy(&f.data)))
        .collect();
    insta::assert_snapshot!(both.join(""));
}

const BOOTSTRAP: ImageModeFlow = ImageModeFlow::BootstrapMachineOsConfig;

/// From 4.21 the MCO bootstrap applies the MachineOSConfig itself: only that is written,
/// carrying the digest-pinned image in the pre-built-image annotation.
#[test]
fn where_the_bootstrap_applies_it_only_the_machine_os_config_is_written() {
    let files = image_mode_manifests(POOLS, &[given("worker")], BOOTSTRAP);
    let names: Vec<String> = files.iter().map(ManifestFile::rel_path).collect();
    assert_eq!(
        names,
        [
            "manifests/machineosconfig-master.yaml",
            "manifests/machineosconfig-worker.yaml"
        ]
    );
    let loaded = loaded(&files);
    let worker = &loaded[1].objects[0];
    assert_eq!(
        worker.value["metadata"]["annotations"][PRE_BUILT_IMAGE],
        given("worker").pre_built_image
    );
    let text = String::from_utf8_lossy(&files[1].data).into_owned();
    assert!(
        text.contains("machine-config operator's bootstrap applies"),
        "{text}"
    );
    // The skeleton of the master pool still needs the user's values, and no MachineConfig
    // is asked for.
    let report = validate_machine_os_configs(&loaded, true, POOLS, BOOTSTRAP);
    let errors = messages(&report);
    assert!(
        errors
            .iter()
            .all(|e| e.contains("machineosconfig-master.yaml")),
        "{errors:#?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("REPLACE-ME")),
        "{errors:#?}"
    );
    assert!(
        !errors.iter().any(|e| e.contains("no MachineConfig")),
        "{errors:#?}"
    );
    // Filled in for both pools it passes, and both pools are agreed on.
    let both = loaded_both();
    let report = validate_machine_os_configs(&both, true, POOLS, BOOTSTRAP);
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    assert_eq!(report.agreed.len(), 2);
    // The same files on a release whose bootstrap ignores MachineOSConfigs lack the
    // osImageURL MachineConfigs.
    let report =
        validate_machine_os_configs(&both, true, POOLS, ImageModeFlow::OsImageMachineConfig);
    assert!(
        messages(&report)
            .iter()
            .any(|e| e.contains("no MachineConfig sets spec.osImageURL"))
    );
}

fn loaded_both() -> Vec<UserFile> {
    loaded(&image_mode_manifests(
        POOLS,
        &[given("master"), given("worker")],
        BOOTSTRAP,
    ))
}

/// A user's MachineOSConfig is checked even with image mode off, where the bootstrap applies
/// it: a missing annotation, a tag instead of a digest and an unknown pool each name the file.
#[test]
fn where_the_bootstrap_applies_them_every_machine_os_config_is_checked() {
    let mut no_annotation = valid("master");
    no_annotation["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("annotations");
    let mut by_tag = valid("worker");
    by_tag["metadata"]["annotations"][PRE_BUILT_IMAGE] = json!("quay.io/example/okd-custom:latest");
    let mut unknown_pool = valid("infra");
    unknown_pool["metadata"]["name"] = json!("infra");
    for (name, value, want) in [
        ("a.yaml", no_annotation, PRE_BUILT_IMAGE),
        ("b.yaml", by_tag, "digest"),
        ("c.yaml", unknown_pool, "is not a pool of this cluster"),
    ] {
        let files = [file(name, &value)];
        let report = validate_machine_os_configs(&files, false, POOLS, BOOTSTRAP);
        let errors = messages(&report);
        assert!(
            errors.iter().any(|e| e.contains(name) && e.contains(want)),
            "{name}: {errors:#?}"
        );
        // Before 4.21 the bootstrap skips them: a warning only.
        let before =
            validate_machine_os_configs(&files, false, POOLS, ImageModeFlow::OsImageMachineConfig);
        assert!(before.errors.is_empty(), "{name}: {:#?}", before.errors);
        assert_eq!(before.warnings.len(), 1);
    }
    // No MachineOSConfig at all with image mode off is fine.
    assert!(validate_machine_os_configs(&[], false, POOLS, BOOTSTRAP) == Default::default());
}
