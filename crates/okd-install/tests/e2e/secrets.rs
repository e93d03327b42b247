//! `create secrets` and `--with-secrets`: a private bundle, reused trust, clear refusals.

use std::path::Path;

use crate::common::{EPOCH, GOLDEN_RELEASE_IMAGE, run, secrets_bundle};
use crate::signers::{ECDSA_P384, install_config_with, okd_5_0};
use crate::support::{ign_files, okd, read};

/// The root CA from the data URL inside a pointer config.
fn root_ca_of(master_ign: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(master_ign).expect("JSON");
    let source = value
        .pointer("/ignition/security/tls/certificateAuthorities/0/source")
        .and_then(|s| s.as_str())
        .expect("a certificate authority");
    String::from_utf8(ignition::decode_data_url(source).expect("data URL")).expect("PEM")
}

/// What a refused run may leave: the copied example and its log, nothing generated.
fn assert_no_outputs(dir: &Path) {
    for f in [
        "manifests",
        "openshift",
        "auth",
        "master.ign",
        "bootstrap.ign",
        "metadata.json",
    ] {
        assert!(!dir.join(f).exists(), "{f} was written");
    }
}

#[test]
fn bundle_is_private_reused_across_directories_and_never_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("bundle.yaml");
    let bundle_arg = bundle.display().to_string();
    let src = tmp.path().join("src");
    run(
        okd(&src),
        &["create", "secrets", "--from-example", "compact-3-node"],
    )
    .ok("create secrets (default file name)");
    let default = src.join("secrets.yaml");
    assert_eq!(crate::common::mode(&default), 0o600);
    std::fs::rename(&default, &bundle).unwrap();
    let text = read(&bundle);
    assert!(text.starts_with("kind: OkdInstallSecrets\n"), "{text:.80}");
    pki::SecretsBundle::from_yaml(&text, &bundle_arg).expect("a readable bundle");

    let roots: Vec<String> = ["a", "b"]
        .iter()
        .map(|d| {
            let dir = tmp.path().join(d);
            run(
                okd(&dir),
                &[
                    "create",
                    "ignition-configs",
                    "--from-example",
                    "compact-3-node",
                    "--with-secrets",
                    &bundle_arg,
                ],
            )
            .ok("ignition-configs with the bundle");
            root_ca_of(&read(&dir.join("master.ign")))
        })
        .collect();
    assert_eq!(roots[0], roots[1], "the root CA was not reused");

    // The same bundle again (a rerun after a kill that came after the write) is done; a file
    // with anything else is never overwritten.
    run(
        okd(&src),
        &["create", "secrets", "--output-file", &bundle_arg],
    )
    .ok("the same bundle again")
    .stderr_has(&["already holds this secrets bundle"]);
    let other = format!("{text}# mine\n");
    std::fs::write(&bundle, &other).unwrap();
    let out = run(
        okd(&src),
        &["create", "secrets", "--output-file", &bundle_arg],
    )
    .expect_code(1, "overwriting a bundle");
    out.stderr_has(&[&bundle_arg, "already exists"]);
    assert_eq!(read(&bundle), other, "the bundle was overwritten");
}

/// A bundle exported outside DIR by a run killed just before its rename leaves its 0600
/// temporary copy there, where no cleaner of DIR looks; the next run removes it, names it,
/// and writes the bundle. (The run is killed at each rename in turn until one is the
/// bundle's: the committed secrets make every run fast and alike.)
#[test]
fn a_bundle_export_killed_before_its_rename_leaves_nothing_after_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("elsewhere");
    std::fs::create_dir(&out_dir).unwrap();
    let bundle = out_dir.join("bundle.yaml");
    let with = secrets_bundle().display().to_string();
    let args = |output: &str| {
        vec![
            "create".to_string(),
            "secrets".into(),
            "--from-example".into(),
            "compact-3-node".into(),
            "--with-secrets".into(),
            with.clone(),
            "--output-file".into(),
            output.to_string(),
        ]
    };
    let bundle_arg = bundle.display().to_string();
    let temps = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&out_dir)
            .unwrap()
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p != &bundle)
            .collect()
    };
    let mut left = Vec::new();
    for n in 1..=40 {
        let dir = tmp.path().join(format!("dir-{n}"));
        let mut cmd = okd(&dir);
        cmd.env(atomic_file::fault::KILL_BEFORE_RENAME, n.to_string());
        let argv = args(&bundle_arg);
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let killed = run(cmd, &argv);
        assert_ne!(
            killed.code, 0,
            "never reached the bundle's rename: {}",
            killed.stderr
        );
        left = temps();
        if !left.is_empty() {
            break;
        }
    }
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(
        crate::common::mode(&left[0]),
        0o600,
        "a secret while it waits"
    );
    assert!(!bundle.exists());
    let argv = args(&bundle_arg);
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let again = run(okd(&tmp.path().join("rerun")), &argv).ok("the next run");
    again.stderr_has(&[&left[0].display().to_string()]);
    assert!(temps().is_empty(), "{:?}", temps());
    assert_eq!(crate::common::mode(&bundle), 0o600);
}

fn refused_bundle(contents: &str, needles: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("bad-bundle.yaml");
    std::fs::write(&bundle, contents).unwrap();
    let dir = tmp.path().join("out");
    let bundle_arg = bundle.display().to_string();
    let out = run(
        okd(&dir),
        &[
            "create",
            "ignition-configs",
            "--from-example",
            "compact-3-node",
            "--with-secrets",
            &bundle_arg,
        ],
    );
    assert_ne!(out.code, 0, "accepted a bad bundle:\n{}", out.stderr);
    out.stderr_has(&[&bundle_arg]);
    out.stderr_has(needles);
    assert_no_outputs(&dir);
}

#[test]
fn truncated_bundle_is_refused_naming_the_file() {
    let text = read(&secrets_bundle());
    let cut = text.find("signerCertificates:").expect("signer section");
    refused_bundle(&text[..cut], &["signerCertificates"]);
}

#[test]
fn foreign_yaml_is_refused_as_not_a_bundle() {
    let config = read(&crate::support::repo_root().join("examples/compact-3-node.yaml"));
    refused_bundle(&config, &["not an okd-install secrets bundle"]);
}

#[test]
fn bundle_with_a_damaged_seed_is_refused_naming_the_field() {
    let text = read(&secrets_bundle());
    let seed_line = text.lines().find(|l| l.starts_with("seed: ")).unwrap();
    refused_bundle(&text.replace(seed_line, "seed: 00ff"), &["seed"]);
}

#[test]
fn missing_bundle_file_is_refused_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nowhere.yaml").display().to_string();
    let dir = tmp.path().join("out");
    let out = run(
        okd(&dir),
        &["create", "manifests", "--from-example", "compact-3-node"]
            .into_iter()
            .chain(["--with-secrets", &missing])
            .collect::<Vec<_>>(),
    );
    assert_ne!(out.code, 0);
    out.stderr_has(&[&missing]);
    assert_no_outputs(&dir);
}

/// `create ignition-configs` in `dir` on `image` at the fixed clock, with `bundle` if given.
fn configs_at_epoch(dir: &Path, image: &str, bundle: Option<&Path>) -> String {
    let mut cmd = okd(dir);
    cmd.env("SOURCE_DATE_EPOCH", EPOCH.to_string());
    let mut args = vec!["create", "ignition-configs", "--release-image", image];
    let bundle = bundle.map(|b| b.display().to_string());
    if let Some(b) = &bundle {
        args.extend(["--with-secrets", b]);
    }
    run(cmd, &args).ok("ignition-configs at the fixed clock");
    read(&dir.join("bootstrap.ign"))
}

/// The bootstrap host's keys and signer certificates in `ign`, by path.
fn keys_and_signers(ign: &str) -> Vec<(String, Vec<u8>)> {
    let signers: Vec<String> = pki::CertId::signers()
        .map(|id| format!("/opt/openshift/{}", id.cert_path()))
        .collect();
    ign_files(ign)
        .into_iter()
        .filter(|(p, _)| p.ends_with(".key") || signers.contains(p))
        .collect()
}

/// A cluster made with fresh keys at the fixed clock, its bundle from `create secrets`, and
/// two fresh directories made from that bundle: the two are byte-identical (bootstrap.ign,
/// which holds the PKI, and the admin kubeconfig), and they hold the original's keys and
/// signers. Returns the original bootstrap.ign.
fn reproduced_from_its_bundle(extra: &str, image: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original");
    install_config_with(&original, extra);
    let first = configs_at_epoch(&original, image, None);
    let bundle = tmp.path().join("bundle.yaml");
    let bundle_arg = bundle.display().to_string();
    // At the same clock: later, its one-day signers would be due and re-made first.
    let mut export = okd(&original);
    export.env("SOURCE_DATE_EPOCH", EPOCH.to_string());
    run(
        export,
        &[
            "create",
            "secrets",
            "--release-image",
            image,
            "--output-file",
            &bundle_arg,
        ],
    )
    .ok("create secrets from the cluster");
    let copies: Vec<_> = ["a", "b"]
        .iter()
        .map(|name| {
            let dir = tmp.path().join(name);
            install_config_with(&dir, extra);
            (configs_at_epoch(&dir, image, Some(&bundle)), dir)
        })
        .collect();
    let ((a, a_dir), (b, b_dir)) = (&copies[0], &copies[1]);
    assert!(
        a == b,
        "bootstrap.ign differs between two runs of one bundle"
    );
    let kubeconfig = |d: &Path| read(&d.join("auth/kubeconfig"));
    assert_eq!(kubeconfig(a_dir), kubeconfig(b_dir));
    let (mine, theirs) = (keys_and_signers(a), keys_and_signers(&first));
    assert!(mine.len() > 20, "only {} keys and signers", mine.len());
    assert_eq!(mine.len(), theirs.len());
    let differing: Vec<&str> = mine
        .iter()
        .zip(&theirs)
        .filter(|(m, t)| m != t)
        .map(|(m, _)| m.0.as_str())
        .collect();
    assert!(differing.is_empty(), "not the cluster's: {differing:?}");
    first
}

#[test]
fn a_bundle_reproduces_its_cluster_byte_for_byte() {
    reproduced_from_its_bundle("", GOLDEN_RELEASE_IMAGE);
}

#[test]
fn a_bundle_of_ecdsa_signers_reproduces_its_cluster_byte_for_byte() {
    let ign = reproduced_from_its_bundle(ECDSA_P384, okd_5_0());
    let key = crate::support::ign_text(&ign, "/opt/openshift/tls/kube-apiserver-lb-signer.key");
    assert!(key.starts_with("-----BEGIN EC PRIVATE KEY-----\n"), "{key}");
}
