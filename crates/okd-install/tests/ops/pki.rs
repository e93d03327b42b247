//! `create pki` checked with the real openssl CLI, and user-supplied certificates loaded with
//! `--load-cluster-certs`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use pki::CertId;

use crate::common::ign_files;
use crate::support::{both, ign_file, okd, read, stderr};

const MCS_CERT_ON_NODE: &str = "/opt/openshift/tls/machine-config-server.crt";

/// `okd-install create <target> --dir dir <extra>`, asserting nothing.
fn create(dir: &Path, target: &str, extra: &[&str]) -> Output {
    okd(dir)
        .args(["create", target])
        .args(extra)
        .output()
        .expect("run okd-install create")
}

/// The compact example's PKI written by `create pki`, generated once per test process (key
/// generation is the slow part) under Cargo's per-target temp dir. Tests only read it; each
/// one copies what it changes. Leftovers of earlier runs older than an hour are removed.
fn shared_pki() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
        remove_stale(root);
        let dir = root.join(format!("ops-pki-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = create(&dir, "pki", &["--from-example", "compact-3-node"]);
        assert_eq!(out.status.code(), Some(0), "{}", both(&out));
        dir
    })
}

fn remove_stale(root: &Path) {
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
        let stale = entry.file_name().to_string_lossy().starts_with("ops-pki-")
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < hour_ago);
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A new directory with `source`'s install-config.yaml and a copy of its tls/.
fn copy_inputs(source: &Path) -> tempfile::TempDir {
    let dest = tempfile::tempdir().unwrap();
    std::fs::copy(
        source.join("install-config.yaml"),
        dest.path().join("install-config.yaml"),
    )
    .unwrap();
    std::fs::create_dir(dest.path().join("tls")).unwrap();
    for entry in std::fs::read_dir(source.join("tls")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(
            entry.path(),
            dest.path().join("tls").join(entry.file_name()),
        )
        .unwrap();
    }
    dest
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

fn openssl_verify(tls: &Path, signer: &str, cert: &str) -> Output {
    Command::new("openssl")
        .args(["verify", "-partial_chain", "-CAfile"])
        .arg(tls.join(format!("{signer}.crt")))
        .arg(tls.join(format!("{cert}.crt")))
        .output()
        .expect("run openssl verify")
}

#[test]
fn create_pki_writes_every_pair_and_openssl_verifies_each_against_its_signer() {
    if !testkit::require_tool("openssl", "openssl") {
        return;
    }
    let dir = shared_pki();
    let tls = dir.join("tls");
    let mut failures = Vec::new();
    for id in CertId::ALL {
        let spec = id.spec();
        let key = dir.join(id.key_path());
        assert_eq!(mode(&key), 0o600, "{}", key.display());
        assert!(dir.join(id.cert_path()).is_file(), "{}", id.cert_path());
        let signer = spec.issuer.map_or(spec.name, |issuer| issuer.spec().name);
        let out = openssl_verify(&tls, signer, spec.name);
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !text.trim_end().ends_with(": OK") {
            failures.push(format!("{} against {signer}: {}", spec.name, both(&out)));
        }
    }
    let wrong = openssl_verify(&tls, "kubelet-signer", "machine-config-server");
    assert!(
        !wrong.status.success(),
        "openssl must reject a leaf checked against a signer that did not issue it: {}",
        both(&wrong)
    );
    for bundle in pki::BundleId::ALL {
        assert!(dir.join(bundle.path()).is_file(), "{}", bundle.path());
    }
    assert!(
        failures.is_empty(),
        "openssl verify failed:\n{}",
        failures.join("\n")
    );
    for entry in std::fs::read_dir(&tls).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "key") {
            assert_eq!(mode(&path), 0o600, "{}", path.display());
        }
    }
}

#[test]
fn a_key_that_does_not_match_its_certificate_is_refused() {
    let user = copy_inputs(shared_pki());
    let tls = user.path().join("tls");
    std::fs::copy(
        tls.join("journal-gatewayd.key"),
        tls.join("machine-config-server.key"),
    )
    .unwrap();
    let out = create(user.path(), "ignition-configs", &["--load-cluster-certs"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let err = stderr(&out);
    assert!(err.contains("tls/machine-config-server.key"), "{err}");
    assert!(err.contains("tls/machine-config-server.crt"), "{err}");
    assert!(err.contains("does not match"), "{err}");
    assert_eq!(ign_files(user.path()), Vec::<String>::new());
}

/// Replaces tls/journal-gatewayd.crt via `spoil`, runs with --load-cluster-certs and expects
/// an error (exit `code`) that names the file and says `reason`, and no Ignition config
/// written.
fn unreadable_certificate_is_named(spoil: impl FnOnce(&Path), code: i32, reason: &str) {
    let user = copy_inputs(shared_pki());
    let file = user.path().join("tls/journal-gatewayd.crt");
    std::fs::remove_file(&file).unwrap();
    spoil(&file);
    let out = create(user.path(), "ignition-configs", &["--load-cluster-certs"]);
    assert_eq!(out.status.code(), Some(code), "{reason}: {}", both(&out));
    let err = stderr(&out);
    assert!(err.contains("tls/journal-gatewayd.crt"), "{err}");
    assert!(err.contains(reason), "{err}");
    assert_eq!(ign_files(user.path()), Vec::<String>::new(), "{reason}");
}

#[test]
fn a_directory_in_place_of_a_certificate_is_named() {
    // A file of DIR that is not a file is an input to fix (exit 3), with the fix.
    unreadable_certificate_is_named(
        |f| std::fs::create_dir(f).unwrap(),
        3,
        "is a directory, not a regular file; put the file itself there",
    );
}

#[test]
fn a_certificate_that_is_not_utf8_is_named() {
    let bytes = b"-----BEGIN CERTIFICATE-----\nnot base64 \xff\xfe\n-----END CERTIFICATE-----\n";
    unreadable_certificate_is_named(|f| std::fs::write(f, bytes).unwrap(), 1, "invalid utf-8");
}

#[test]
fn a_pem_block_that_is_not_a_certificate_is_named() {
    // Valid PEM armour around base64 of a short text: parses as PEM, fails as X.509.
    let pem = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n";
    unreadable_certificate_is_named(
        |f| std::fs::write(f, pem).unwrap(),
        1,
        "not a valid X.509 certificate",
    );
}

#[test]
fn a_matching_user_pair_is_used_as_is_and_kept_on_rerun() {
    let user = copy_inputs(shared_pki());
    let supplied = std::fs::read(user.path().join("tls/machine-config-server.crt")).unwrap();
    let out = create(user.path(), "ignition-configs", &["--load-cluster-certs"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let bootstrap = user.path().join("bootstrap.ign");
    let in_ign = ign_file(&read(&bootstrap), MCS_CERT_ON_NODE).expect("MCS cert in bootstrap.ign");
    assert_eq!(
        String::from_utf8_lossy(&in_ign),
        String::from_utf8_lossy(&supplied)
    );
    std::fs::remove_file(&bootstrap).unwrap();
    let out = create(user.path(), "ignition-configs", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let again = ign_file(&read(&bootstrap), MCS_CERT_ON_NODE).expect("MCS cert after rerun");
    assert_eq!(
        again, supplied,
        "the rerun replaced the supplied certificate"
    );
    let on_disk = std::fs::read(user.path().join("tls/machine-config-server.crt")).unwrap();
    assert_eq!(on_disk, supplied);
}
