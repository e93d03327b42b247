//! Readable dumps of configs.

use ignition::{
    ExplainOptions, NodeFile, PointerHost, Variant, compress, explain_ignition,
    explain_ignition_with, pointer_config, to_json,
};

use crate::util::build;

const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bootstrap@okd";

#[test]
fn explains_files_units_and_users() {
    let extra = vec![
        NodeFile::new(
            "/opt/openshift/tls/a.key",
            0o600,
            "-----BEGIN RSA PRIVATE KEY-----\nX\n",
        ),
        NodeFile::new("/opt/openshift/bin.dat", 0o600, vec![0u8, 159, 146, 150]),
        NodeFile::new("/opt/openshift/no-newline", 0o644, "abc"),
    ];
    let keys = vec![format!("{KEY}\nssh-rsa AAAAB3NzaC1yc2E="), String::new()];
    let config = build(Variant::Bootstrap, extra, keys);
    let text = explain_ignition(&to_json(&config)).unwrap();
    let expected_parts = [
        "ignition 3.2.0\n",
        "== file /etc/motd 0644 root append\nThis is a bootstrap node.\n",
        "== file /root/.docker/config.json 0600 root overwrite\n{\"auths\"",
        "== file /usr/local/bin/bootkube.sh 0555 root overwrite\n#!/bin/bash\necho quay.io/okd/",
        "== file /opt/openshift/tls/a.key 0600 root overwrite\n-----BEGIN RSA PRIVATE KEY-----\nX\n",
        "== file /opt/openshift/bin.dat 0600 root overwrite\n<binary: 4 bytes, sha256 ",
        "== file /opt/openshift/no-newline 0644 root overwrite\nabc\n<no newline at end>\n",
        "== unit kubelet.service enabled\n[Service]\n",
        "== unit systemd-journal-gatewayd.service\n-- dropin certs.conf\n[Service]\nExecStart=\n",
        "== user core\nssh key: ssh-ed25519 SHA256:",
        " bootstrap@okd\nssh key: ssh-rsa SHA256:",
        " (no comment)\n",
    ];
    for part in expected_parts {
        assert!(text.contains(part), "missing {part:?} in\n{text}");
    }
    let redacted = explain_ignition_with(
        &to_json(&config),
        ExplainOptions {
            redact_secrets: true,
        },
    )
    .unwrap();
    assert!(!redacted.contains("BEGIN RSA PRIVATE KEY"));
    assert!(
        !redacted.contains("auths"),
        "the pull secret is redacted too"
    );
    assert!(
        redacted.contains("echo quay.io/okd/"),
        "scripts stay readable"
    );
    assert!(redacted.contains(
        "== file /opt/openshift/tls/a.key 0600 root overwrite\n<secret redacted: 34 bytes, sha256 "
    ));
}

#[test]
fn gzip_contents_are_shown_decompressed() {
    let big: String = "repeat me\n".repeat(200);
    let extra = vec![NodeFile::new("/opt/openshift/big", 0o644, big.clone())];
    let json = to_json(&compress(build(Variant::Bootstrap, extra, vec![])));
    let text = explain_ignition(&json).unwrap();
    let block = format!(
        "== file /opt/openshift/big 0644 root overwrite\n<gzip, 2000 bytes uncompressed>\n{big}"
    );
    assert!(text.contains(&block), "{text}");
}

#[test]
fn explains_pointer_configs_and_rejects_garbage() {
    let json = pointer_config(
        "master",
        PointerHost::ApiInt("api-int.c.example.com".into()),
        "PEM\n",
    );
    assert_eq!(
        explain_ignition(&json).unwrap(),
        "ignition 3.2.0\nmerge config from https://api-int.c.example.com:22623/config/master\n\
         == trusted certificate authority\nPEM\n"
    );
    assert!(explain_ignition("not json").is_err());
}

/// The whole explain output of a fixture config, compared with a reviewed golden file.
/// Refresh with `UPDATE_GOLDEN=1 cargo test -p ignition --test it golden` and review the diff.
#[test]
fn golden_explain_of_fixture_single_node() {
    let extra = vec![
        NodeFile::asset(
            "/opt/openshift/manifests/cluster-config.yaml",
            "kind: ConfigMap\n",
        ),
        // TLS files come with the mode pki's table gives them (the root CA's is public).
        NodeFile::new(
            "/opt/openshift/tls/root-ca.crt",
            0o644,
            "-----BEGIN CERTIFICATE-----\n",
        ),
        NodeFile::asset(
            "/opt/openshift/auth/kubeconfig",
            "client-key-data: c2VjcmV0\n",
        ),
    ];
    let config = build(Variant::SingleNode, extra, vec![KEY.to_string()]);
    let text = explain_ignition_with(
        &to_json(&config),
        ExplainOptions {
            redact_secrets: true,
        },
    )
    .unwrap();
    let path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/it/golden/fixture-single-node.txt"
    ));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &text).unwrap();
    }
    let golden = std::fs::read_to_string(path).expect("golden file; run with UPDATE_GOLDEN=1");
    assert_eq!(
        text, golden,
        "explain output changed; refresh the golden and review"
    );
}
