//! `create live-iso`, `create pxe-files` and `verify` on boot media: a live ISO in the real
//! layout (testkit::liveiso, built with xorriso), read back by the real coreos-installer.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use testkit::liveiso::{LiveIso, LiveIsoSpec};

use crate::common::{EPOCH, Run, create_at, run};
use crate::support::okd;

/// Ignition configs of the compact example in a temp dir, and the fixture ISO beside it;
/// None (skip) without xorriso.
fn setup(spec: &LiveIsoSpec, example: &str) -> Option<(tempfile::TempDir, LiveIso)> {
    if !testkit::require_tool("xorriso", "xorriso") {
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    let target = crate::common::ignition_target(example);
    create_at(&dir, EPOCH, &[target, "--from-example", example]).ok("ignition configs");
    let iso = spec.build(tmp.path(), "live.iso");
    Some((tmp, iso))
}

fn okd_in(dir: &Path, args: &[&str]) -> Run {
    run(okd(dir), args)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn coreos_installer(args: &[&str]) -> Option<Vec<u8>> {
    if !testkit::require_tool(
        "coreos-installer",
        "coreos-installer (cargo install --locked coreos-installer)",
    ) {
        return None;
    }
    let out = Command::new("coreos-installer")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The `media` lines of a verify run.
fn media_lines(out: &Run) -> Vec<String> {
    out.stdout
        .lines()
        .skip_while(|l| *l != "media:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(str::to_string)
        .collect()
}

#[test]
fn live_isos_carry_the_role_config_and_a_stale_one_is_caught_and_replaced() {
    let Some((tmp, iso)) = setup(&LiveIsoSpec::default(), "compact-3-node") else {
        return;
    };
    let dir = tmp.path().join("cluster");
    let args = [
        "create",
        "live-iso",
        "--role",
        "master",
        "--iso",
        s(&iso.path),
        "--karg",
        "console=ttyS0",
    ];
    okd_in(&dir, &args).ok("master ISO");
    okd_in(
        &dir,
        &[
            "create",
            "live-iso",
            "--role",
            "bootstrap",
            "--iso",
            s(&iso.path),
        ],
    )
    .ok("bootstrap ISO");
    let master_iso = dir.join("master.iso");
    assert_eq!(mode(&master_iso), 0o644);
    assert_eq!(
        mode(&dir.join("bootstrap.iso")),
        0o600,
        "the bootstrap config holds the PKI"
    );
    let master_ign = std::fs::read(dir.join("master.ign")).unwrap();
    if let Some(shown) = coreos_installer(&["iso", "ignition", "show", s(&master_iso)]) {
        assert_eq!(
            shown, master_ign,
            "coreos-installer reads our config byte for byte"
        );
        let kargs = coreos_installer(&["iso", "kargs", "show", s(&master_iso)]).unwrap();
        assert_eq!(
            String::from_utf8(kargs).unwrap().trim(),
            format!("{} console=ttyS0", iso.default_kargs)
        );
    }
    let verified = okd_in(&dir, &["verify"]);
    let lines = media_lines(&verified);
    assert_eq!(lines.len(), 4, "{}", verified.stdout);
    assert!(
        lines.iter().all(|l| l.trim_start().starts_with("ok")),
        "{lines:?}"
    );

    // A re-run that changes master.ign makes master.iso stale.
    let mut changed = master_ign.clone();
    changed.extend_from_slice(b"\n");
    std::fs::write(dir.join("master.ign"), &changed).unwrap();
    let stale = okd_in(&dir, &["verify"]).expect_code(9, "stale ISO");
    let lines = media_lines(&stale);
    let line = lines
        .iter()
        .find(|l| l.contains("master.iso") && l.contains("error"))
        .unwrap();
    assert!(
        line.contains("okd-install create live-iso --role master"),
        "{line}"
    );
    okd_in(&dir, &args).ok("re-run");
    let embedded = bootmedia::inspect::read_iso(&master_iso).unwrap();
    assert_eq!(embedded.config().unwrap(), changed);
    let again = okd_in(&dir, &["verify"]);
    assert!(
        media_lines(&again)
            .iter()
            .all(|l| l.trim_start().starts_with("ok")),
        "{}",
        again.stdout
    );
}

#[test]
fn an_installing_iso_holds_the_installer_config_for_the_role() {
    let Some((tmp, iso)) = setup(&LiveIsoSpec::default(), "compact-3-node") else {
        return;
    };
    let dir = tmp.path().join("cluster");
    let keyfile = tmp.path().join("eno1.nmconnection");
    std::fs::write(&keyfile, "[connection]\nid=eno1\ntype=ethernet\n").unwrap();
    let out = okd_in(
        &dir,
        &[
            "create",
            "live-iso",
            "--role",
            "worker",
            "--iso",
            s(&iso.path),
            "--dest-device",
            "/dev/disk/by-id/wwn-0x5000",
            "--dest-karg-append",
            "nosmt",
            "--network-keyfile",
            s(&keyfile),
        ],
    )
    .ok("installing ISO");
    out.stderr_has(&["installs to /dev/disk/by-id/wwn-0x5000 and reboots"]);
    let worker = dir.join("worker.iso");
    assert_eq!(mode(&worker), 0o600, "keyfiles may hold network secrets");
    let embedded = bootmedia::inspect::read_iso(&worker).unwrap();
    let install = embedded.install().unwrap();
    assert_eq!(
        install.dest_device.as_deref(),
        Some("/dev/disk/by-id/wwn-0x5000")
    );
    assert_eq!(
        install.dest_config.unwrap(),
        std::fs::read(dir.join("worker.ign")).unwrap()
    );
    let yaml = &install.configs[0].1;
    assert!(
        yaml.contains("copy-network: true") && yaml.contains("\"nosmt\""),
        "{yaml}"
    );
    assert_eq!(embedded.keyfiles(), ["eno1.nmconnection"]);
    let verified = okd_in(&dir, &["verify"]);
    assert!(
        media_lines(&verified)
            .iter()
            .all(|l| l.trim_start().starts_with("ok")),
        "{}",
        verified.stdout
    );
}

#[test]
fn unusable_inputs_exit_3_with_the_fix() {
    let small = LiveIsoSpec {
        ignition_area: 8192,
        ..LiveIsoSpec::default()
    };
    let Some((tmp, iso)) = setup(&small, "single-node") else {
        return;
    };
    let dir = tmp.path().join("cluster");
    let iso_arg = s(&iso.path);
    let out = okd_in(
        &dir,
        &[
            "create",
            "live-iso",
            "--role",
            "controller",
            "--iso",
            iso_arg,
        ],
    )
    .expect_code(3, "role");
    out.stderr_has(&[
        "unknown role \"controller\"",
        "single-node, bootstrap, master, worker",
    ]);
    let out = okd_in(
        &dir,
        &["create", "live-iso", "--role", "master", "--iso", iso_arg],
    )
    .expect_code(3, "no master.ign");
    out.stderr_has(&[
        "master.ign does not exist",
        "okd-install create ignition-configs --dir",
    ]);
    // Without --iso the release's stream ISO is used; offline with an empty cache, the error
    // names the ISO of the stream and the two ways to get it (never a network access here).
    let cache = dir.join("empty-cache");
    let cache_arg = cache.to_str().expect("utf-8 path");
    let out = okd_in(
        &dir,
        &[
            "create",
            "live-iso",
            "--role",
            "single-node",
            "--offline",
            "--cache-dir",
            cache_arg,
        ],
    )
    .expect_code(1, "no --iso, offline, empty cache");
    out.stderr_has(&["live-iso", "offline", "--iso FILE"]);
    let out = okd_in(
        &dir,
        &[
            "create",
            "live-iso",
            "--role",
            "single-node",
            "--iso",
            iso_arg,
            "--dest-device",
            "/dev/sdb",
        ],
    )
    .expect_code(3, "single node disk");
    out.stderr_has(&[
        "bootstrapInPlace.installationDisk",
        "create single-node-ignition-config",
    ]);
    let out = okd_in(
        &dir,
        &[
            "create",
            "live-iso",
            "--role",
            "single-node",
            "--iso",
            iso_arg,
        ],
    )
    .expect_code(3, "too large");
    out.stderr_has(&["area holds 8192 bytes", "bytes but the ISO"]);
    assert!(!dir.join("single-node.iso").exists(), "no output at all");
    let plain = LiveIsoSpec {
        live: false,
        ..LiveIsoSpec::default()
    }
    .build(tmp.path(), "plain.iso");
    let out = okd_in(
        &dir,
        &[
            "create",
            "live-iso",
            "--role",
            "single-node",
            "--iso",
            s(&plain.path),
        ],
    )
    .expect_code(3, "not live");
    out.stderr_has(&["plain.iso is not a CoreOS live ISO", "--iso"]);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".iso") || n.starts_with(".okd-tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn pxe_files_boot_with_ignition_and_coreos_installer_unwraps_the_config() {
    let Some((tmp, _iso)) = setup(&LiveIsoSpec::default(), "single-node") else {
        return;
    };
    let dir = tmp.path().join("cluster");
    okd_in(&dir, &["create", "pxe-files", "--role", "single-node"]).expect_code(3, "no URLs");
    okd_in(
        &dir,
        &[
            "create",
            "pxe-files",
            "--role",
            "single-node",
            "--base-url",
            "http://pxe.example/okd/",
            "--karg",
            "console=ttyS0",
        ],
    )
    .ok("pxe files");
    let image = dir.join("single-node.ign.img");
    assert_eq!(mode(&image), 0o600);
    let ign = std::fs::read(dir.join("bootstrap-in-place-for-live-iso.ign")).unwrap();
    if let Some(unwrapped) = coreos_installer(&["pxe", "ignition", "unwrap", s(&image)]) {
        assert_eq!(unwrapped, ign);
    }
    let script = std::fs::read_to_string(dir.join("single-node.ipxe")).unwrap();
    assert!(
        script.contains("coreos.live.rootfs_url=http://pxe.example/okd/rootfs.img"),
        "{script}"
    );
    assert!(
        script.contains("ignition.firstboot ignition.platform.id=metal console=ttyS0"),
        "{script}"
    );
    assert!(
        script.contains("initrd --name config http://pxe.example/okd/single-node.ign.img"),
        "{script}"
    );
    let verified = okd_in(&dir, &["verify"]);
    let lines = media_lines(&verified);
    assert_eq!(lines.len(), 2, "{}", verified.stdout);
    assert!(
        lines.iter().all(|l| l.trim_start().starts_with("ok")),
        "{lines:?}"
    );
    std::fs::write(
        dir.join("single-node.ipxe"),
        script.replace(" ignition.firstboot", ""),
    )
    .unwrap();
    let broken = okd_in(&dir, &["verify"]).expect_code(9, "ipxe without firstboot");
    assert!(
        media_lines(&broken)
            .iter()
            .any(|l| l.contains("lacks ignition.firstboot")),
        "{}",
        broken.stdout
    );
}

/// Ctrl-C in the middle of copying a large ISO: exit 8, and neither the half-written copy
/// (its temporary file) nor a `worker.iso` is left in the directory; the input is untouched.
#[test]
fn ctrl_c_during_a_live_iso_copy_leaves_no_partial_file() {
    let spec = LiveIsoSpec {
        filler: 768 << 20,
        ..LiveIsoSpec::default()
    };
    let Some((tmp, iso)) = setup(&spec, "compact-3-node") else {
        return;
    };
    let dir = tmp.path().join("cluster");
    let before = std::fs::metadata(&iso.path).unwrap().len();
    let temp_files = || {
        std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(atomic_file::TEMP_PREFIX)
            })
            .count()
    };
    let mut child = Command::new(crate::support::bin_path())
        .args([
            "create",
            "live-iso",
            "--role",
            "worker",
            "--iso",
            s(&iso.path),
            "--dir",
        ])
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while temp_files() == 0 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the copy ended before it could be interrupted"
        );
        assert!(std::time::Instant::now() < deadline, "no copy started");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(8), "{err}");
    assert_eq!(temp_files(), 0, "a temporary file is left: {err}");
    assert!(!dir.join("worker.iso").exists());
    assert_eq!(std::fs::metadata(&iso.path).unwrap().len(), before);
}

/// `create pxe-files --download`: the release's kernel, initramfs and rootfs land in DIR from
/// the cache (seeded here under the names only a verified download gets; no connection), and
/// ROLE.ipxe names every part beside itself, the rootfs as one more initrd, so DIR is served
/// as it is; `verify` accepts the script.
#[test]
fn pxe_files_with_download_serve_the_directory_as_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    create_at(
        &dir,
        EPOCH,
        &["ignition-configs", "--from-example", "compact-3-node"],
    )
    .ok("ignition configs");
    let cache = tmp.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    for release in &releases::table().releases {
        let Some(m) = release
            .coreos_stream()
            .ok()
            .and_then(|s| s.artifacts("x86_64"))
        else {
            continue;
        };
        for (a, part) in [
            (&m.kernel, "kernel"),
            (&m.initramfs, "initramfs"),
            (&m.rootfs, "rootfs"),
        ] {
            let name = format!("{}-{}", a.sha256, a.file_name());
            std::fs::write(cache.join(name), format!("{part} of {}", release.version)).unwrap();
        }
    }
    let mut cmd = okd(&dir);
    cmd.env("OKD_INSTALL_CACHE_DIR", &cache);
    run(
        cmd,
        &[
            "create",
            "pxe-files",
            "--role",
            "worker",
            "--download",
            "--offline",
        ],
    )
    .ok("pxe-files --download from the cache");
    for (file, part) in [
        ("kernel", "kernel"),
        ("initramfs.img", "initramfs"),
        ("rootfs.img", "rootfs"),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.starts_with(&format!("{part} of ")), "{file}: {text}");
    }
    let script = std::fs::read_to_string(dir.join("worker.ipxe")).unwrap();
    for line in [
        "initrd --name main initramfs.img",
        "initrd --name rootfs rootfs.img",
        "initrd --name config worker.ign.img",
    ] {
        assert!(script.lines().any(|l| l == line), "{line}:\n{script}");
    }
    assert!(
        script
            .lines()
            .any(|l| l.starts_with("kernel kernel initrd=main initrd=rootfs"))
    );
    assert!(!script.contains("rootfs_url"), "{script}");
    // The configs are dated EPOCH, so verify fails on their certificates; the media pass.
    let out = okd_in(&dir, &["verify"]);
    let media = media_lines(&out);
    assert!(
        media.iter().any(|l| l.contains("worker.ipxe")) && media.iter().all(|l| l.contains(" ok ")),
        "{}",
        out.stdout
    );
}
