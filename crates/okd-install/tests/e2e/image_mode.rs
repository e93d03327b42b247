//! Install-time image mode: skeleton MachineOSConfigs, refusal until they are filled in,
//! and delivery inside bootstrap.ign once they are.

use crate::common::{EPOCH, create_at, fill_machine_os_configs, ign_text, read};
use crate::fixture;

const POOLS: &[&str] = &["master", "worker"];

fn skeletons() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    create_at(
        tmp.path(),
        EPOCH,
        &["manifests", "--from-example", "image-mode"],
    )
    .ok("create manifests for image mode");
    tmp
}

#[test]
fn skeletons_are_written_and_ignition_configs_refuses_naming_the_fields() {
    let tmp = skeletons();
    let dir = tmp.path();
    for pool in POOLS {
        let text = read(&dir.join(format!("manifests/machineosconfig-{pool}.yaml")));
        assert!(text.contains("kind: MachineOSConfig"), "{text}");
        assert!(text.contains("REPLACE-ME"), "{text}");
    }
    let out = create_at(dir, EPOCH, &["ignition-configs"]).expect_code(1, "unfilled skeletons");
    for pool in POOLS {
        out.stderr_has(&[&format!("manifests/machineosconfig-{pool}.yaml")]);
    }
    out.stderr_has(&[
        "machineconfiguration.openshift.io/pre-built-image",
        "spec.renderedImagePushSpec",
        "spec.renderedImagePushSecret.name",
        "spec.containerFile[0].content",
        "REPLACE-ME",
    ]);
    assert!(!dir.join("bootstrap.ign").exists());
}

#[test]
fn a_tag_instead_of_a_digest_is_refused() {
    let tmp = skeletons();
    let dir = tmp.path();
    fill_machine_os_configs(dir);
    let path = dir.join("manifests/machineosconfig-worker.yaml");
    let text = read(&path);
    let start = text.find("@sha256:").unwrap();
    let end = start + "@sha256:".len() + 64;
    std::fs::write(&path, format!("{}:v1{}", &text[..start], &text[end..])).unwrap();
    let out = create_at(dir, EPOCH, &["ignition-configs"]).expect_code(1, "tag reference");
    out.stderr_has(&["manifests/machineosconfig-worker.yaml", "digest"]);
    assert!(
        !out.stderr.contains("machineosconfig-master.yaml"),
        "{}",
        out.stderr
    );
    assert!(!dir.join("bootstrap.ign").exists());
}

/// The shared fixture fills the skeletons of the image-mode example before its Ignition run.
#[test]
fn filled_machine_os_configs_are_inside_bootstrap() {
    let g = fixture::example("image-mode");
    let boot = read(&g.dir.join("bootstrap.ign"));
    for pool in POOLS {
        let rel = format!("manifests/machineosconfig-{pool}.yaml");
        let on_disk = read(&g.dir.join(&rel));
        assert!(!on_disk.contains("REPLACE-ME"));
        assert_eq!(ign_text(&boot, &format!("/opt/openshift/{rel}")), on_disk);
    }
}
