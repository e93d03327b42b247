//! Image mode: each pool's MachineOSConfig and OS-image MachineConfig must name the same
//! image, on disk and inside the bootstrap config.

use std::path::Path;

use serde_json::Value;
use verify::Status;

use crate::{assert_error, example, findings, generate, now_opts, run_target};

/// `(pool, preBuiltImage)` of every `imageMode.pools` entry of the image-mode example.
fn example_images() -> Vec<(String, String)> {
    let ic: Value = serde_saphyr::from_str(&example("image-mode")).expect("example parses");
    let pools = ic["imageMode"]["pools"]
        .as_array()
        .expect("the example has pools");
    pools
        .iter()
        .map(|p| {
            let field = |k: &str| p[k].as_str().expect("a string").to_string();
            (field("name"), field("preBuiltImage"))
        })
        .collect()
}

/// The image-mode example without `imageMode.pools`: `create manifests` writes skeletons.
fn example_without_pools() -> String {
    let mut ic: Value = serde_saphyr::from_str(&example("image-mode")).expect("example parses");
    ic["imageMode"]
        .as_object_mut()
        .expect("imageMode is a map")
        .remove("pools");
    serde_saphyr::to_string(&ic).expect("renders")
}

/// Asserts one ok line per pool of the example, on a subject starting with `prefix`, that
/// names the pool's image.
fn assert_pools_agree(dir: &Path, prefix: &str) {
    let report = verify::verify(dir, &now_opts());
    let oks = findings(&report, "manifests.image-mode", Status::Ok);
    let images = example_images();
    assert_eq!(oks.len(), images.len(), "{oks:#?}");
    for (pool, image) in images {
        let subject = format!("{prefix}manifests/machineosconfig-{pool}.yaml: pool {pool}:");
        assert!(
            oks.iter()
                .any(|l| l.starts_with(&subject) && l.contains(&image)),
            "{subject} {image}: {oks:#?}"
        );
    }
    assert!(report.exit_ok(), "{}", report.render_text());
}

#[test]
fn the_example_agrees_inside_the_bootstrap_config() {
    let dir = generate(&example("image-mode"), "ignition-configs");
    assert!(!dir.path().join("manifests").exists());
    assert_pools_agree(dir.path(), "bootstrap.ign:/opt/openshift/");
}

#[test]
fn the_example_agrees_on_disk() {
    let dir = generate(&example("image-mode"), "manifests");
    run_target(dir.path(), "ignition-configs");
    assert_pools_agree(dir.path(), "");
}

#[test]
fn a_machine_config_naming_another_image_is_an_error() {
    let dir = generate(&example("image-mode"), "manifests");
    let (_, worker_image) = example_images()
        .into_iter()
        .find(|(p, _)| p == "worker")
        .expect("a worker pool");
    let rel = "openshift/99_openshift-machineconfig_99-worker-okd-install-os-image.yaml";
    let path = dir.path().join(rel);
    let text = std::fs::read_to_string(&path).expect("the OS-image MachineConfig exists");
    let other = format!("quay.io/example/other@sha256:{}", "c".repeat(64));
    assert!(text.contains(&worker_image), "{text}");
    std::fs::write(&path, text.replace(&worker_image, &other)).expect("edit");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "manifests.image-mode",
        rel,
        &[
            &other,
            &worker_image,
            "manifests/machineosconfig-worker.yaml",
        ],
    );
    let oks = findings(&report, "manifests.image-mode", Status::Ok);
    assert_eq!(oks.len(), 1, "only master still agrees: {oks:#?}");
}

#[test]
fn skeletons_are_refused_with_every_placeholder() {
    let dir = generate(&example_without_pools(), "manifests");
    let report = verify::verify(dir.path(), &now_opts());
    assert_error(
        &report,
        "manifests.image-mode",
        "machineosconfig-master.yaml",
        &["REPLACE-ME", "pre-built-image"],
    );
    assert_error(
        &report,
        "manifests.image-mode",
        "99-master-okd-install-os-image.yaml",
        &["REPLACE-ME", "spec.osImageURL"],
    );
}

#[test]
fn filled_skeletons_agree_once_ignition_configs_ran() {
    let dir = generate(&example_without_pools(), "manifests");
    for (pool, image) in example_images() {
        for rel in [
            format!("manifests/machineosconfig-{pool}.yaml"),
            format!("openshift/99_openshift-machineconfig_99-{pool}-okd-install-os-image.yaml"),
        ] {
            let path = dir.path().join(rel);
            let text = std::fs::read_to_string(&path).expect("skeleton");
            std::fs::write(&path, fill(&text, &image)).expect("fill");
        }
    }
    run_target(dir.path(), "ignition-configs");
    assert_pools_agree(dir.path(), "");
}

/// Replaces every placeholder line's value the way a person would.
fn fill(text: &str, image: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("# REPLACE-ME"))
        .map(|l| match l.split_once(": \"REPLACE-ME") {
            Some((key, _)) if key.trim_end().ends_with("renderedImagePushSpec") => {
                format!("{key}: registry.example.com:5000/os/build:latest")
            }
            Some((key, _)) if key.trim() == "name" => format!("{key}: push-credentials"),
            Some((key, _)) => format!("{key}: {image}"),
            None => l.to_string(),
        })
        .map(|l| format!("{l}\n"))
        .collect()
}
