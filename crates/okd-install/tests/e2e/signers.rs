//! Signer keys chosen in install-config (`pki.signerCertificates.key`, OKD 5.0 with the
//! ConfigurablePKI gate): the whole PKI is made with signers of that kind and RSA-2048
//! leaves, `openssl verify` accepts each chain a bootstrap host gets, and `okd-install
//! verify` passes the directory. With the gate and no `pki`, the signers are RSA-4096 (and
//! pass the same checks). `--load-cluster-certs` keeps a user's ECDSA root CA on any release.

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

/// Signer and leaf pairs checked with openssl: one per signer family a bootstrap host
/// holds a leaf of (machine config, API load balancer, control plane clients).
const CHAINS: [(&str, &str); 3] = [
    ("root-ca", "machine-config-server"),
    ("kube-apiserver-lb-signer", "kube-apiserver-lb-server"),
    (
        "kube-control-plane-signer",
        "kube-control-plane-kube-scheduler-client",
    ),
];

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
    chain_at(ign, dir, signer, leaf, None)
}

/// [`chain`], checked at `at` (seconds since 1970) instead of now when given.
pub(crate) fn chain_at(
    ign: &str,
    dir: &Path,
    signer: &str,
    leaf: &str,
    at: Option<u64>,
) -> (String, String) {
    for (name, file) in [(signer, "signer.crt"), (leaf, "leaf.crt")] {
        let text = ign_text(ign, &format!("/opt/openshift/tls/{name}.crt"));
        std::fs::write(dir.join(file), text).unwrap();
    }
    let at = at.map(|t| t.to_string());
    let mut args = vec!["verify", "-CAfile", "signer.crt"];
    if let Some(t) = &at {
        args.extend(["-attime", t]);
    }
    args.push("leaf.crt");
    let verified = openssl(dir, &args);
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
    for (signer, leaf) in CHAINS {
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
fn the_gate_alone_makes_rsa_4096_signers_and_verify_accepts_them() {
    if !testkit::require_tool("openssl", "openssl") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (dir, ign) = configs_with(tmp.path(), "featureSet: TechPreviewNoUpgrade\n");
    for (signer, leaf) in CHAINS {
        let (signer_text, leaf_text) = chain(&ign, tmp.path(), signer, leaf);
        assert!(
            signer_text.contains("Public-Key: (4096 bit)"),
            "{signer}: {signer_text}"
        );
        assert!(
            leaf_text.contains("Signature Algorithm: sha256WithRSAEncryption"),
            "{leaf}: {leaf_text}"
        );
        assert!(
            leaf_text.contains("Public-Key: (2048 bit)"),
            "{leaf}: {leaf_text}"
        );
    }
    let out = run(okd(&dir), &["verify"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
}

/// A root CA the user made with openssl: ECDSA P-256, its key in PKCS#8 (`PRIVATE KEY`), as
/// `openssl genpkey` writes it.
fn openssl_ecdsa_root_ca(tls: &Path) {
    std::fs::create_dir_all(tls).unwrap();
    let key = "-pkeyopt=ec_paramgen_curve:P-256";
    openssl(
        tls,
        &["genpkey", "-algorithm", "EC", key, "-out", "root-ca.key"],
    );
    openssl(
        tls,
        &[
            "req",
            "-x509",
            "-new",
            "-key",
            "root-ca.key",
            "-subj",
            "/OU=openshift/CN=root-ca",
            "-days",
            "3650",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
            "-out",
            "root-ca.crt",
        ],
    );
}

/// `--load-cluster-certs` keeps the user's ECDSA root CA whatever the release (here 4.19,
/// whose own signers are RSA-2048): its files stay as written, and the certificates it
/// issues chain to it, signed with ECDSA.
#[test]
fn a_users_ecdsa_root_ca_is_kept_and_signs_its_leaves() {
    if !testkit::require_tool("openssl", "openssl") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    install_config_with(&dir, "");
    openssl_ecdsa_root_ca(&dir.join("tls"));
    let (crt, key) = (
        read(&dir.join("tls/root-ca.crt")),
        read(&dir.join("tls/root-ca.key")),
    );
    assert!(key.starts_with("-----BEGIN PRIVATE KEY-----"), "{key}");
    let out = run(
        okd(&dir),
        &[
            "create",
            "ignition-configs",
            "--load-cluster-certs",
            "--release-image",
            crate::common::GOLDEN_RELEASE_IMAGE,
        ],
    )
    .ok("ignition-configs with the user's root CA");
    out.stderr_has(&["using your Certificate (root-ca)"]);
    assert_eq!(
        read(&dir.join("tls/root-ca.key")),
        key,
        "the key was rewritten"
    );
    let ign = read(&dir.join("bootstrap.ign"));
    assert_eq!(ign_text(&ign, "/opt/openshift/tls/root-ca.crt"), crt);
    let (_, leaf_text) = chain(&ign, tmp.path(), "root-ca", "machine-config-server");
    assert!(
        leaf_text.contains("Signature Algorithm: ecdsa-with-SHA256"),
        "{leaf_text}"
    );
    // The signers okd-install makes on 4.19 stay RSA-2048.
    let (signer_text, _) = chain(
        &ign,
        tmp.path(),
        "kube-apiserver-lb-signer",
        "kube-apiserver-lb-server",
    );
    assert!(
        signer_text.contains("Public-Key: (2048 bit)"),
        "{signer_text}"
    );
    // tls/ holds only the user's CA; verify checks the whole PKI the state file keeps.
    run(okd(&dir), &["verify"]).ok("verify with the user's root CA");
}
