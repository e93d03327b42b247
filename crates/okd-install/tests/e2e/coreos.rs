//! `coreos print-stream-json` and `coreos download`: the release's stream metadata as
//! stored, and the boot image cache used offline (no test here connects anywhere).

use crate::common::run;
use crate::support::{okd, repo_root};

/// The stored stream file of release `version`.
fn stored_stream(version: &str) -> String {
    let release = releases::table().get(version.parse().unwrap()).unwrap();
    let file = release.coreos_stream.as_deref().unwrap();
    std::fs::read_to_string(repo_root().join("data/coreos-streams").join(file)).unwrap()
}

#[test]
fn print_stream_json_prints_each_release_stream_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    for release in &releases::table().releases {
        let version = release.version.to_string();
        let out = run(
            okd(tmp.path()),
            &["coreos", "print-stream-json", "--release-version", &version],
        )
        .ok(&format!("print-stream-json {version}"));
        assert_eq!(out.stdout, stored_stream(&version), "{version}");
    }
    let out = run(
        okd(tmp.path()),
        &["coreos", "print-stream-json", "--release-version", "4.19"],
    );
    assert!(out.stdout.contains("\"stream\": \"c9s\""));
}

#[test]
fn print_stream_json_follows_the_release_image_and_the_default() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(okd(tmp.path()), &["coreos", "print-stream-json"]).ok("default release");
    let newest = releases::table()
        .releases
        .last()
        .unwrap()
        .version
        .to_string();
    assert_eq!(out.stdout, stored_stream(&newest));

    let image = "quay.io/okd/scos-release:4.20.0-okd-scos.6";
    let out = run(
        okd(tmp.path()),
        &["coreos", "print-stream-json", "--release-image", image],
    )
    .ok("a tagged release image");
    assert_eq!(out.stdout, stored_stream("4.20"));

    let mut cmd = okd(tmp.path());
    cmd.env("OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE", image);
    let out = run(cmd, &["coreos", "print-stream-json"]).ok("the override variable");
    assert_eq!(out.stdout, stored_stream("4.20"));
}

#[test]
fn print_stream_json_refuses_an_unsupported_release() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(
        okd(tmp.path()),
        &["coreos", "print-stream-json", "--release-version", "4.18"],
    )
    .expect_code(3, "an unsupported release");
    out.stderr_has(&["4.18", "4.19, 4.20, 4.21, 4.22, 5.0"]);
    assert!(out.stdout.is_empty());
}

#[test]
fn download_offline_without_the_file_names_it_and_the_way_out() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = run(
        okd(tmp.path()),
        &[
            "coreos",
            "download",
            "--release-version",
            "4.19",
            "--arch",
            "amd64",
            "--offline",
            "--cache-dir",
            cache.to_str().unwrap(),
        ],
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    out.stderr_has(&[
        "scos-9.0.20250510-0-live-iso.x86_64.iso",
        "--iso FILE",
        "online",
    ]);
    assert!(!cache.exists() || std::fs::read_dir(&cache).unwrap().next().is_none());
}

/// A file under its cache name is used without any connection (the name is the proof of its
/// sha256: only a verified download is ever renamed to it).
#[test]
fn download_offline_finds_the_cached_pxe_files() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    let release = releases::table().get("5.0".parse().unwrap()).unwrap();
    let m = release
        .coreos_stream()
        .unwrap()
        .artifacts("aarch64")
        .unwrap();
    let mut expected = String::new();
    for a in [&m.kernel, &m.initramfs, &m.rootfs] {
        let path = cache.join(format!("{}-{}", a.sha256, a.file_name()));
        std::fs::write(&path, b"cached").unwrap();
        expected.push_str(&format!("{}\n", path.display()));
    }
    let mut cmd = okd(tmp.path());
    cmd.env("OKD_INSTALL_CACHE_DIR", &cache);
    let out = run(
        cmd,
        &[
            "coreos",
            "download",
            "--release-version",
            "5.0",
            "--artifact",
            "pxe",
            "--arch",
            "aarch64",
            "--offline",
        ],
    )
    .ok("offline from the cache");
    assert_eq!(out.stdout, expected);
}
