//! Signer keys chosen in install-config (`pki.signerCertificates.key`, OKD 5.0 with the
//! ConfigurablePKI gate): the whole PKI is made with signers of that kind and RSA-2048
//! leaves, `openssl verify` accepts each chain a bootstrap host gets, and `okd-install
//! verify` passes the directory. With the gate and no `pki`, the signers are RSA-4096.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::run;
use crate::golden::RELEASE_IMAGES;
use crate::support::{ign_text, okd, read};

/// `extra` for install-config: ECDSA P-384 signers (with the gate 5.0 needs for them).
pub(crate) const ECDSA_P384: &str = "featureSet: TechPreviewNoUpgrade\npki:\n  \
    signerCertificates:\n    key:\n      algorithm: ECDSA\n      ecdsa:\n        curve: P384\n";

/// The OKD 5.0 release image, the first with `pki.signerCertificates`.
pub(crate) fn okd_5_0() -> &'static str {
    RELEASE_IMAGES.iter().find(|(r, _)| *r == "5.0").unwrap().1
}

/// Creates `dir` with compact-3-node's install-config and `extra` appended to it.
pub(crate) fn install_config_with(dir: &Path, extra: &str) {
    std::fs::create_dir_all(dir).unwrap();
    run(
        okd(dir),
        &[
            "create",
            "install-config",
            "--from-example",
            "compact-3-node",
        ],
    )
    .ok("install-config");
    let path = dir.join("install-config.yaml");
    let text = format!("{}\n{extra}", read(&path));
    std::fs::write(&path, text).unwrap();
}

/// `work/cluster`: a compact-3-node directory on OKD 5.0 with `extra` appended to its
/// install-config, its Ignition configs made with fresh keys and today's clock. Returns the
/// directory and bootstrap.ign.
fn configs_with(work: &Path, extra: &str) -> (PathBuf, String) {
    let dir = &work.join("cluster");
    install_config_with(dir, extra);
    run(
        okd(dir),
        &["create", "ignition-configs", "--release-image", okd_5_0()],
    )
    .ok("ignition-configs with chosen signer keys");
    (dir.clone(), read(&dir.join("bootstrap.ign")))
}

fn openssl(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "openssl {args:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Writes `signer.crt` and `leaf.crt` of the host's `/opt/openshift/tls/` into `dir`,
/// checks the chain with openssl and returns (signer text, leaf text).
fn chain(ign: &str, dir: &Path, signer: &str, leaf: &str) -> (String, String) {
    for (name, file) in [(signer, "signer.crt"), (leaf, "leaf.crt")] {
        let text = ign_text(ign, &format!("/opt/openshift/tls/{name}.crt"));
        std::fs::write(dir.join(file), text).unwrap();
    }
    let verified = openssl(dir, &["verify", "-CAfile", "signer.crt", "leaf.crt"]);
    assert!(
        verified.contains("leaf.crt: OK"),
        "{signer} -> {leaf}: {verified}"
    );
    (
        openssl(dir, &["x509", "-in", "signer.crt", "-noout", "-text"]),
        openssl(dir, &["x509", "-in", "leaf.crt", "-noout", "-text"]),
    )
}

#[test]
fn ecdsa_signers_issue_the_whole_pki_and_verify_accepts_it() {
    if !testkit::require_tool("openssl", "openssl") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (dir, ign) = configs_with(tmp.path(), ECDSA_P384);
    for (signer, leaf) in [
        ("root-ca", "machine-config-server"),
        ("kube-apiserver-lb-signer", "kube-apiserver-lb-server"),
        (
            "kube-control-plane-signer",
            "kube-control-plane-kube-scheduler-client",
        ),
    ] {
        let (signer_text, leaf_text) = chain(&ign, tmp.path(), signer, leaf);
        assert!(
            signer_text.contains("ASN1 OID: secp384r1"),
            "{signer}: {signer_text}"
        );
        assert!(
            leaf_text.contains("Signature Algorithm: ecdsa-with-SHA384"),
            "{leaf}: {leaf_text}"
        );
        assert!(
            leaf_text.contains("Public-Key: (2048 bit)"),
            "{leaf}: {leaf_text}"
        );
    }
    let key = ign_text(&ign, "/opt/openshift/tls/kube-apiserver-lb-signer.key");
    assert!(key.starts_with("-----BEGIN EC PRIVATE KEY-----\n"), "{key}");
    let out = run(okd(&dir), &["verify"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
}

#[test]
fn the_gate_alone_makes_rsa_4096_signers() {
    if !testkit::require_tool("openssl", "openssl") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (_, ign) = configs_with(tmp.path(), "featureSet: TechPreviewNoUpgrade\n");
    let (signer_text, leaf_text) = chain(&ign, tmp.path(), "root-ca", "machine-config-server");
    assert!(
        signer_text.contains("Public-Key: (4096 bit)"),
        "{signer_text}"
    );
    assert!(leaf_text.contains("Public-Key: (2048 bit)"), "{leaf_text}");
}
