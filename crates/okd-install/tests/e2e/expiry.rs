//! Certificate expiry on re-runs: short-lived certificates inside the margin are re-signed
//! and the report says why; long-lived signers stay.

use std::path::Path;

use crate::common::{EPOCH, create_at, run};
use crate::signers::{ECDSA_P384, chain_at, install_config_with, okd_5_0};
use crate::support::{ign_text, okd, read};

const HOUR: u64 = 3600;

fn generate_at(epoch: u64, args: &[&str]) -> (tempfile::TempDir, crate::common::Run) {
    let tmp = tempfile::tempdir().unwrap();
    let mut all = vec!["ignition-configs", "--from-example", "compact-3-node"];
    all.extend_from_slice(args);
    let out = create_at(tmp.path(), epoch, &all).ok("first ignition-configs");
    (tmp, out)
}

#[test]
fn one_day_certificates_inside_the_margin_are_regenerated_and_signers_kept() {
    let (tmp, _) = generate_at(EPOCH, &[]);
    let dir = tmp.path();
    let (master, boot) = (
        read(&dir.join("master.ign")),
        read(&dir.join("bootstrap.ign")),
    );

    let out = create_at(dir, EPOCH + 23 * HOUR, &["ignition-configs"]).ok("rerun at T+23h");
    out.stderr_has(&[
        "regenerated Certificate (kube-apiserver-localhost-server)",
        "regenerated Certificate (aggregator-signer)",
        "expires at 2026-01-02T00:00:00Z",
        "within the 12h margin",
        "regenerated Bootstrap Ignition Config",
        "wrote bootstrap.ign",
    ]);
    assert!(!out.stderr.contains("(root-ca)"), "{}", out.stderr);
    assert_eq!(read(&dir.join("master.ign")), master, "root CA changed");

    let new_boot = read(&dir.join("bootstrap.ign"));
    assert_ne!(new_boot, boot, "bootstrap.ign did not change");
    let root = "/opt/openshift/tls/root-ca.crt";
    assert_eq!(ign_text(&new_boot, root), ign_text(&boot, root));
    let short = "/opt/openshift/tls/kube-apiserver-localhost-server.crt";
    assert_ne!(ign_text(&new_boot, short), ign_text(&boot, short));
}

#[test]
fn zero_margin_one_hour_later_regenerates_nothing() {
    let (tmp, _) = generate_at(EPOCH, &[]);
    let dir = tmp.path();
    let boot = read(&dir.join("bootstrap.ign"));
    let out = create_at(
        dir,
        EPOCH + HOUR,
        &["ignition-configs", "--expiry-margin-hours", "0"],
    )
    .ok("rerun at T+1h");
    assert!(!out.stderr.contains("regenerated"), "{}", out.stderr);
    out.stderr_has(&["nothing changed"]);
    assert_eq!(read(&dir.join("bootstrap.ign")), boot);
}

/// Configs made on a clock two days ahead (the clock-behind fault of the troubleshooting
/// table): every certificate the run made starts in the future, and no host with the right
/// clock takes them. A re-run at the right time makes each of them again, signers included,
/// and says why. (The long-lived signers here come from the committed bundle, valid then.)
#[test]
fn certificates_made_on_a_clock_ahead_are_all_made_again() {
    let (tmp, _) = generate_at(EPOCH + 48 * HOUR, &[]);
    let dir = tmp.path();
    let boot = read(&dir.join("bootstrap.ign"));
    let out = create_at(dir, EPOCH, &["ignition-configs"]).ok("rerun two days earlier");
    out.stderr_has(&[
        "regenerated Certificate (aggregator-signer)",
        "regenerated Certificate (kubelet-signer)",
        "not valid until 2026-01-03T00:00:00Z (2d from now)",
        "made on a clock ahead of this one",
        "wrote bootstrap.ign",
    ]);
    let new_boot = read(&dir.join("bootstrap.ign"));
    for file in ["aggregator-signer", "kubelet-signer"] {
        let path = format!("/opt/openshift/tls/{file}.crt");
        assert_ne!(ign_text(&new_boot, &path), ign_text(&boot, &path), "{file}");
    }
    let out = create_at(dir, EPOCH, &["ignition-configs"]).ok("third run");
    assert!(!out.stderr.contains("regenerated"), "{}", out.stderr);
}

/// `create ignition-configs` on OKD 5.0 at `epoch`, keys from the run (no bundle).
fn ecdsa_configs_at(dir: &Path, epoch: u64) -> crate::common::Run {
    let mut cmd = okd(dir);
    cmd.env("SOURCE_DATE_EPOCH", epoch.to_string());
    let args = ["create", "ignition-configs", "--release-image", okd_5_0()];
    run(cmd, &args).ok("ignition-configs with ECDSA signers")
}

/// With ECDSA signers, the one-day leaf and signer re-made near expiry are signed by ECDSA
/// again and chain to the signers, at the new clock.
#[test]
fn certificates_regenerated_under_ecdsa_signers_still_chain_to_them() {
    if !testkit::require_tool("openssl", "openssl") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    install_config_with(&dir, ECDSA_P384);
    ecdsa_configs_at(&dir, EPOCH);
    let boot = read(&dir.join("bootstrap.ign"));

    let later = EPOCH + 23 * HOUR;
    let out = ecdsa_configs_at(&dir, later);
    out.stderr_has(&[
        "regenerated Certificate (kube-apiserver-localhost-server)",
        "regenerated Certificate (aggregator-signer)",
    ]);
    let new_boot = read(&dir.join("bootstrap.ign"));
    let short = "/opt/openshift/tls/kube-apiserver-localhost-server.crt";
    assert_ne!(ign_text(&new_boot, short), ign_text(&boot, short));
    let signer = "/opt/openshift/tls/kube-apiserver-localhost-signer.crt";
    assert_eq!(ign_text(&new_boot, signer), ign_text(&boot, signer));
    let leaf = |signer, leaf| chain_at(&new_boot, tmp.path(), signer, leaf, Some(later));
    let (kept, server) = leaf(
        "kube-apiserver-localhost-signer",
        "kube-apiserver-localhost-server",
    );
    let (renewed, client) = leaf("aggregator-signer", "aggregator-client");
    for text in [&kept, &renewed] {
        assert!(text.contains("ASN1 OID: secp384r1"), "{text}");
    }
    for text in [&server, &client] {
        assert!(
            text.contains("Signature Algorithm: ecdsa-with-SHA384"),
            "{text}"
        );
    }
}
