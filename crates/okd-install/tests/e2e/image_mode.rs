//! Install-time image mode: the example runs end to end from install-config alone, both
//! objects of each pool land in bootstrap.ign naming the same image, and image-mode objects
//! that still need values or disagree stop `create ignition-configs` with exit code 3.

use std::path::Path;

use crate::common::{EPOCH, create_at};
use crate::fixture;
use crate::support::{ign_text, read};

const POOLS: &[&str] = &["master", "worker"];

fn mosc_path(pool: &str) -> String {
    format!("manifests/machineosconfig-{pool}.yaml")
}

fn os_image_path(pool: &str) -> String {
    format!("openshift/99_openshift-machineconfig_99-{pool}-okd-install-os-image.yaml")
}

/// `(pool, preBuiltImage)` from the example's install-config, read with the real parser.
fn example_images() -> Vec<(String, String)> {
    let text = read(&crate::support::repo_root().join("examples/image-mode.yaml"));
    let ic = installconfig::parse_str(&text, "image-mode.yaml").expect("the example is valid");
    let pools = ic.config.image_mode.expect("imageMode").pools;
    pools
        .into_iter()
        .map(|p| (p.name, p.pre_built_image))
        .collect()
}

/// The example without `imageMode.pools`, in `dir/install-config.yaml`: the skeleton flow.
fn write_example_without_pools(dir: &Path) {
    let text = read(&crate::support::repo_root().join("examples/image-mode.yaml"));
    let start = text.find("  pools:\n").expect("the example lists pools");
    let end = text
        .find("\npullSecret:")
        .expect("pullSecret follows imageMode");
    let stripped = format!("{}{}", &text[..start], &text[end + 1..]);
    assert!(!stripped.contains("preBuiltImage"), "{stripped}");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("install-config.yaml"), stripped).unwrap();
}

fn example_manifests() -> tempfile::TempDir {
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
fn the_example_needs_no_edit_and_both_objects_name_each_pool_image() {
    let g = fixture::example("image-mode");
    let boot = read(&g.dir.join("bootstrap.ign"));
    let images = example_images();
    assert_eq!(
        images.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        POOLS
    );
    for (pool, image) in images {
        for rel in [mosc_path(&pool), os_image_path(&pool)] {
            let written = String::from_utf8(g.manifests[&rel].clone()).unwrap();
            assert!(!written.contains("REPLACE-ME"), "{rel}: {written}");
            assert!(written.contains(&image), "{rel} names {image}: {written}");
            assert_eq!(ign_text(&boot, &format!("/opt/openshift/{rel}")), written);
        }
        let mc = read(&g.dir.join(os_image_path(&pool)));
        assert!(mc.contains(&format!("osImageURL: {image}")), "{mc}");
    }
}

#[test]
fn skeletons_are_written_and_ignition_configs_refuses_naming_the_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_example_without_pools(dir);
    create_at(dir, EPOCH, &["manifests"]).ok("create manifests with skeletons");
    for pool in POOLS {
        for rel in [mosc_path(pool), os_image_path(pool)] {
            assert!(read(&dir.join(&rel)).contains("REPLACE-ME"), "{rel}");
        }
    }
    let out = create_at(dir, EPOCH, &["ignition-configs"]).expect_code(3, "unfilled skeletons");
    for pool in POOLS {
        out.stderr_has(&[&mosc_path(pool), &os_image_path(pool)]);
    }
    out.stderr_has(&[
        "machineconfiguration.openshift.io/pre-built-image",
        "spec.renderedImagePushSpec",
        "spec.renderedImagePushSecret.name",
        "spec.containerFile[0].content",
        "spec.osImageURL",
        "REPLACE-ME",
    ]);
    assert!(!dir.join("bootstrap.ign").exists());
}

#[test]
fn a_tag_instead_of_a_digest_is_refused() {
    let tmp = example_manifests();
    let dir = tmp.path();
    let path = dir.join(mosc_path("worker"));
    let text = read(&path);
    let start = text.find("@sha256:").unwrap();
    let end = start + "@sha256:".len() + 64;
    std::fs::write(&path, format!("{}:v1{}", &text[..start], &text[end..])).unwrap();
    let out = create_at(dir, EPOCH, &["ignition-configs"]).expect_code(3, "tag reference");
    out.stderr_has(&[&mosc_path("worker"), "digest"]);
    assert!(!out.stderr.contains(&mosc_path("master")), "{}", out.stderr);
    assert!(!dir.join("bootstrap.ign").exists());
}

#[test]
fn an_os_image_that_differs_from_the_machine_os_config_is_refused() {
    let tmp = example_manifests();
    let dir = tmp.path();
    let (_, image) = example_images()
        .into_iter()
        .find(|(p, _)| p == "master")
        .unwrap();
    let other = format!("quay.io/example/other@sha256:{}", "d".repeat(64));
    let path = dir.join(os_image_path("master"));
    std::fs::write(&path, read(&path).replace(&image, &other)).unwrap();
    let out = create_at(dir, EPOCH, &["ignition-configs"]).expect_code(3, "disagreement");
    out.stderr_has(&[
        &os_image_path("master"),
        &other,
        &image,
        &mosc_path("master"),
    ]);
    assert!(!dir.join("bootstrap.ign").exists());
}

#[test]
fn a_bad_pool_value_in_install_config_is_refused_before_any_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let text = read(&crate::support::repo_root().join("examples/image-mode.yaml"));
    let (_, image) = example_images()
        .into_iter()
        .find(|(p, _)| p == "worker")
        .unwrap();
    let tagged = image.split('@').next().unwrap().to_string() + ":latest";
    std::fs::write(
        dir.join("install-config.yaml"),
        text.replace(&image, &tagged),
    )
    .unwrap();
    let out = create_at(dir, EPOCH, &["manifests"]).expect_code(3, "tagged preBuiltImage");
    out.stderr_has(&["imageMode.pools[1].preBuiltImage", "digest"]);
    assert!(!dir.join("manifests").exists());
}

/// `create manifests` then `create ignition-configs` of the image-mode example on `image`.
fn example_on(image: &str) -> (tempfile::TempDir, crate::common::Run) {
    let tmp = tempfile::tempdir().unwrap();
    let args = [
        "manifests",
        "--from-example",
        "image-mode",
        "--release-image",
        image,
    ];
    create_at(tmp.path(), EPOCH, &args).ok("create manifests for image mode");
    let run = create_at(
        tmp.path(),
        EPOCH,
        &["ignition-configs", "--release-image", image],
    );
    (tmp, run)
}

/// On 4.21 and later the MCO bootstrap applies the MachineOSConfig, so it is all okd-install
/// writes per pool; 4.20 keeps the OS-image MachineConfig.
#[test]
fn from_4_21_the_machine_os_config_alone_carries_the_pre_built_image() {
    let (tmp, run) = example_on("quay.io/okd/scos-release:4.21.0-okd-scos.8");
    run.ok("ignition-configs for image mode on 4.21");
    let boot = read(&tmp.path().join("bootstrap.ign"));
    for (pool, image) in example_images() {
        assert!(!tmp.path().join(os_image_path(&pool)).exists(), "{pool}");
        let mosc = read(&tmp.path().join(mosc_path(&pool)));
        assert!(
            mosc.contains(&format!(
                "machineconfiguration.openshift.io/pre-built-image: {image}"
            )),
            "{mosc}"
        );
        let shipped = ign_text(&boot, &format!("/opt/openshift/{}", mosc_path(&pool)));
        assert_eq!(shipped, mosc);
    }
    let (tmp, run) = example_on("quay.io/okd/scos-release:4.20.0-okd-scos.16");
    run.ok("ignition-configs for image mode on 4.20");
    for pool in POOLS {
        assert!(tmp.path().join(os_image_path(pool)).exists(), "{pool}");
    }
}

/// A user's MachineOSConfig pinned by tag stops `create ignition-configs` on 4.22 with exit
/// code 3 naming the file, even with image mode off in install-config; on 4.20 the bootstrap
/// ignores it and a warning is all.
#[test]
fn a_users_machine_os_config_by_tag_is_refused_where_the_bootstrap_applies_it() {
    for (image, code) in [
        ("quay.io/okd/scos-release:4.22.0-okd-scos.7", 3),
        ("quay.io/okd/scos-release:4.20.0-okd-scos.16", 0),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let args = [
            "manifests",
            "--from-example",
            "compact-3-node",
            "--release-image",
            image,
        ];
        create_at(dir, EPOCH, &args).ok("create manifests");
        let mosc = "apiVersion: machineconfiguration.openshift.io/v1\n\
kind: MachineOSConfig\n\
metadata:\n  name: worker\n  annotations:\n    \
machineconfiguration.openshift.io/pre-built-image: registry.example.com/os/worker:latest\n\
spec:\n  machineConfigPool:\n    name: worker\n  imageBuilder:\n    imageBuilderType: Job\n  \
containerFile:\n  - content: |\n      FROM configs AS final\n  \
renderedImagePushSpec: registry.example.com/os/worker:latest\n  \
renderedImagePushSecret:\n    name: push\n";
        std::fs::write(dir.join("manifests/my-mosc.yaml"), mosc).unwrap();
        let run = create_at(dir, EPOCH, &["ignition-configs", "--release-image", image])
            .expect_code(code, image);
        if code == 3 {
            run.stderr_has(&["manifests/my-mosc.yaml", "digest", "OKD 4.22 bootstrap"]);
        } else {
            run.stderr_has(&["my-mosc.yaml", "not used during bootstrap"]);
        }
    }
}
