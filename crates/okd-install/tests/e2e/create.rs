//! `create manifests` and the Ignition targets on every example; install-config errors and
//! their exit codes.

use std::collections::BTreeSet;

use crate::common::{bootstrap_file, files_below, run};
use crate::fixture;
use crate::support::{okd, read};

/// `manifests/` files every example gets.
const COMMON_MANIFESTS: &[&str] = &[
    "cluster-config.yaml",
    "cluster-dns-02-config.yml",
    "cluster-infrastructure-02-config.yml",
    "cluster-ingress-02-config.yml",
    "cluster-network-02-config.yml",
    "cluster-proxy-01-config.yaml",
    "cluster-scheduler-02-config.yml",
    "cvo-overrides.yaml",
    "kube-cloud-config.yaml",
    "kube-system-configmap-root-ca.yaml",
    "machine-config-server-ca-configmap.yaml",
    "machine-config-server-ca-secret.yaml",
    "machine-config-server-tls-secret.yaml",
    "openshift-config-secret-pull-secret.yaml",
];

/// `openshift/` files every example gets (all examples set an SSH key).
const COMMON_OPENSHIFT: &[&str] = &[
    "99_feature-gate.yaml",
    "99_kubeadmin-password-secret.yaml",
    "99_openshift-cluster-api_master-user-data-secret.yaml",
    "99_openshift-cluster-api_worker-user-data-secret.yaml",
    "99_openshift-machineconfig_99-master-ssh.yaml",
    "99_openshift-machineconfig_99-worker-ssh.yaml",
    "openshift-install-manifests.yaml",
];

/// Files an example adds to the common set, by platform and feature.
fn extra_manifests(example: &str) -> Vec<&'static str> {
    let baremetal = "openshift/99_baremetal-provisioning-config.yaml";
    match example {
        "compact-3-node" | "bootstrap-pivot" => vec![baremetal],
        "baremetal-hosts" => vec![baremetal, "manifests/cluster-network-03-config.yml"],
        "disconnected-mirror" => vec![baremetal, "manifests/image-digest-mirror-set.yaml"],
        "dual-stack" => vec![
            baremetal,
            "openshift/99_openshift-machineconfig_99-dual-stack-master.yaml",
            "openshift/99_openshift-machineconfig_99-dual-stack-worker.yaml",
        ],
        "ha-workers" => vec![
            "manifests/cloud-provider-config.yaml",
            "openshift/99_cloud-creds-secret.yaml",
            "openshift/99_role-cloud-creds-secret-reader.yaml",
        ],
        "image-mode" => vec![
            "manifests/machineosconfig-master.yaml",
            "manifests/machineosconfig-worker.yaml",
            "openshift/99_openshift-machineconfig_99-master-okd-install-os-image.yaml",
            "openshift/99_openshift-machineconfig_99-worker-okd-install-os-image.yaml",
        ],
        "proxy-trust-bundle" => vec!["manifests/user-ca-bundle-config.yaml"],
        _ => Vec::new(),
    }
}

fn expected_manifests(example: &str) -> BTreeSet<String> {
    let common = COMMON_MANIFESTS
        .iter()
        .map(|f| format!("manifests/{f}"))
        .chain(COMMON_OPENSHIFT.iter().map(|f| format!("openshift/{f}")));
    common
        .chain(extra_manifests(example).into_iter().map(String::from))
        .collect()
}

/// What the Ignition target leaves in the directory besides manifests and the inputs.
fn expected_ignition_outputs(example: &str) -> BTreeSet<String> {
    let mut files: BTreeSet<String> = [
        "auth/kubeconfig",
        "auth/kubeadmin-password",
        "worker.ign",
        "metadata.json",
        bootstrap_file(example),
    ]
    .into_iter()
    .map(String::from)
    .collect();
    if example != "single-node" {
        files.insert("master.ign".into());
    }
    files
}

#[test]
fn create_manifests_writes_the_expected_files_for_every_example() {
    for g in fixture::all() {
        let written: BTreeSet<String> = g.manifests.keys().cloned().collect();
        assert_eq!(
            written,
            expected_manifests(g.example),
            "manifests of example {}",
            g.example
        );
        g.manifests_run.stderr_has(&["manifests: wrote"]);
    }
}

#[test]
fn ignition_targets_write_the_expected_outputs_for_every_example() {
    for g in fixture::all() {
        let outputs: BTreeSet<String> = files_below(&g.dir)
            .into_iter()
            .filter(|f| {
                !f.starts_with("manifests/")
                    && !f.starts_with("openshift/")
                    && !f.starts_with('.')
                    && f != "install-config.yaml"
            })
            .collect();
        assert_eq!(
            outputs,
            expected_ignition_outputs(g.example),
            "outputs of example {}",
            g.example
        );
        let boot = bootstrap_file(g.example);
        g.ignition_run.stderr_has(&[boot, "metadata.json"]);
    }
}

#[test]
fn three_faults_are_all_reported_with_field_paths_and_exit_3() {
    let tmp = tempfile::tempdir().unwrap();
    let example = read(&crate::support::repo_root().join("examples/compact-3-node.yaml"));
    let broken = example
        .replace("- 172.30.0.0/16", "- 172.30.0.0/99")
        .lines()
        .map(|l| match l {
            l if l.starts_with("pullSecret:") => "pullSecret: 'not-json'".to_string(),
            l if l.starts_with("sshKey:") => "sshKey: not-a-key".to_string(),
            l => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(tmp.path().join("install-config.yaml"), broken).unwrap();
    let out = run(okd(tmp.path()), &["create", "manifests"]).expect_code(3, "invalid config");
    out.stderr_has(&[
        "3 problems",
        "networking.serviceNetwork[0]",
        "172.30.0.0/99",
        "pullSecret",
        "sshKey",
        "install-config.yaml",
    ]);
    assert!(!tmp.path().join("manifests").exists());
}

#[test]
fn yaml_syntax_error_names_file_line_and_column_and_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: [oops\n  x: y\n";
    std::fs::write(tmp.path().join("install-config.yaml"), text).unwrap();
    let out = run(okd(tmp.path()), &["create", "manifests"]).expect_code(3, "YAML error");
    // The position is the parser's (where it noticed), reported as file:line:column.
    let file = tmp.path().join("install-config.yaml");
    let prefix = format!("{}:", file.display());
    let located = out.stderr.match_indices(&prefix).any(|(at, _)| {
        let mut parts = out.stderr[at + prefix.len()..].splitn(3, ':');
        let line = parts.next().and_then(|p| p.parse::<u32>().ok());
        let column = parts.next().and_then(|p| p.parse::<u32>().ok());
        line.is_some_and(|l| (4..=5).contains(&l)) && column.is_some()
    });
    assert!(located, "no {prefix}LINE:COLUMN in:\n{}", out.stderr);
    // One hint, from the parser's error; the wrapper naming the asset adds none of its own.
    assert_eq!(
        out.stderr.matches("fix the syntax").count(),
        1,
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("move it away"), "{}", out.stderr);
}

#[test]
fn a_binary_install_config_exits_3_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("install-config.yaml");
    std::fs::write(&file, [0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x00, 0x01]).unwrap();
    let out = run(okd(tmp.path()), &["create", "manifests"]).expect_code(3, "binary file");
    out.stderr_has(&[&file.display().to_string(), "not UTF-8 text"]);
    assert!(!tmp.path().join("manifests").exists());
}

#[test]
fn an_install_config_that_cannot_be_read_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    // A directory in its place: unreadable whoever runs the test (root reads any mode).
    let file = tmp.path().join("install-config.yaml");
    std::fs::create_dir(&file).unwrap();
    let out = run(okd(tmp.path()), &["create", "manifests"]).expect_code(3, "unreadable");
    out.stderr_has(&[&file.display().to_string()]);
}

#[test]
fn zero_compute_replicas_is_warned_once_in_text_and_json_output() {
    for output in ["text", "json"] {
        let tmp = tempfile::tempdir().unwrap();
        let args = [
            "ignition-configs",
            "--from-example",
            "compact-3-node",
            "--output",
            output,
        ];
        let out =
            crate::common::create_at(tmp.path(), crate::common::EPOCH, &args).ok("compact 3-node");
        let warnings: Vec<&str> = out
            .stderr
            .lines()
            .filter(|l| l.contains("compute replicas"))
            .collect();
        assert_eq!(warnings.len(), 1, "{output}:\n{}", out.stderr);
        assert!(warnings[0].starts_with(" WARN "), "{}", warnings[0]);
        assert!(!out.stdout.contains("compute replicas"), "{}", out.stdout);
    }
}

#[test]
fn missing_install_config_without_a_terminal_points_at_from_example() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(okd(tmp.path()), &["create", "install-config"]).expect_code(1, "no input");
    out.stderr_has(&["install-config.yaml", "not a terminal", "--from-example"]);
    for name in crate::common::EXAMPLES {
        assert!(out.stderr.contains(name), "example {name} not offered");
    }
    assert!(!tmp.path().join("install-config.yaml").exists());
    let out = run(okd(tmp.path()), &["create", "manifests"]).expect_code(1, "no input");
    out.stderr_has(&["install-config.yaml", "--from-example"]);
}

#[test]
fn create_install_config_from_example_copies_it_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("new");
    run(
        okd(&dir),
        &["create", "install-config", "--from-example", "ha-workers"],
    )
    .ok("install-config from example");
    let shipped = read(&crate::support::repo_root().join("examples/ha-workers.yaml"));
    assert_eq!(read(&dir.join("install-config.yaml")), shipped);
}

#[test]
fn unknown_example_lists_the_shipped_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(
        okd(tmp.path()),
        &["create", "manifests", "--from-example", "no-such-example"],
    )
    .expect_code(1, "unknown example");
    out.stderr_has(&["no-such-example", "compact-3-node", "single-node"]);
}

#[test]
fn single_node_target_refuses_a_multi_node_config_with_exit_3() {
    let tmp = tempfile::tempdir().unwrap();
    let args = [
        "single-node-ignition-config",
        "--from-example",
        "compact-3-node",
    ];
    let out = crate::common::create_at(tmp.path(), crate::common::EPOCH, &args)
        .expect_code(3, "single node from a three-node config");
    out.stderr_has(&["controlPlane.replicas", "bootstrapInPlace"]);
    assert!(!tmp.path().join(bootstrap_file("single-node")).exists());
}

#[test]
fn create_pki_writes_every_key_with_mode_0600() {
    let tmp = tempfile::tempdir().unwrap();
    let args = ["pki", "--from-example", "compact-3-node"];
    crate::common::create_at(tmp.path(), crate::common::EPOCH, &args).ok("create pki");
    let files = files_below(&tmp.path().join("tls"));
    let keys: Vec<&String> = files.iter().filter(|f| f.ends_with(".key")).collect();
    assert!(keys.len() >= 24, "{files:?}");
    for k in keys {
        let path = tmp.path().join("tls").join(k);
        assert_eq!(crate::common::mode(&path), 0o600, "{k}");
        assert!(read(&path).contains("PRIVATE KEY-----"), "{k}");
    }
    assert!(files.contains("root-ca.crt"));
}

#[test]
fn json_output_is_one_object_per_line_ending_with_done() {
    let tmp = tempfile::tempdir().unwrap();
    let args = [
        "manifests",
        "--from-example",
        "ha-workers",
        "--output",
        "json",
    ];
    let out = crate::common::create_at(tmp.path(), crate::common::EPOCH, &args).ok("JSON output");
    let lines: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let last = lines.last().expect("at least one line");
    assert_eq!(last["event"], "done");
    assert_eq!(last["target"], "manifests");
    assert!(lines.iter().any(|l| l["event"] == "asset"));
}
