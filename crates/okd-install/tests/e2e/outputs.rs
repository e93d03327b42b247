//! The generated Ignition configs themselves: valid for Ignition, and pointer configs in the
//! exact shape of the reference (ignition.md §6), including the host rule per platform.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::common::{EPOCH, create_at, files_below, secrets_bundle};
use crate::fixture;
use crate::support::{ign_files, read};

/// The root CA certificate of the committed bundle.
fn bundle_root_ca() -> String {
    let path = secrets_bundle();
    let bundle = pki::SecretsBundle::from_yaml(&read(&path), "secrets.yaml").expect("bundle");
    bundle.signer_certs[&pki::CertId::RootCa].clone()
}

/// The pointer config the reference prescribes, byte for byte (compact, key order as there).
fn expected_pointer(host: &str, role: &str, root_ca: &str) -> String {
    format!(
        concat!(
            r#"{{"ignition":{{"config":{{"merge":[{{"source":"https://{}:22623/config/{}"}}]}},"#,
            r#""security":{{"tls":{{"certificateAuthorities":[{{"source":"#,
            r#""data:text/plain;charset=utf-8;base64,{}"}}]}}}},"version":"3.2.0"}}}}"#
        ),
        host,
        role,
        STANDARD.encode(root_ca)
    )
}

#[test]
fn every_generated_ign_passes_check_json_and_parses() {
    let mut checked = 0;
    for g in fixture::all() {
        for f in files_below(&g.dir).iter().filter(|f| f.ends_with(".ign")) {
            let text = read(&g.dir.join(f));
            let problems = ignition::check_json(&text);
            assert!(
                problems.is_empty(),
                "{}/{f}: {}",
                g.example,
                problems
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            let parsed = ignition::parse(&text).unwrap_or_else(|e| panic!("{f}: {e}"));
            assert_eq!(parsed.version, "3.2.0", "{}/{f}", g.example);
            assert!(parsed.warnings.is_empty(), "{f}: {:?}", parsed.warnings);
            checked += 1;
        }
    }
    // 8 examples with master, worker and bootstrap; single-node with worker and its own.
    assert_eq!(checked, 8 * 3 + 2);
}

#[test]
fn pointer_configs_match_the_reference_shape_per_platform() {
    let root_ca = bundle_root_ca();
    let cases = [
        ("image-mode", "api-int.imagemode.example.com"),
        ("proxy-trust-bundle", "api-int.proxied.example.com"),
        ("compact-3-node", "192.168.111.5"),
        ("ha-workers", "10.0.0.5"),
    ];
    for (example, host) in cases {
        let g = fixture::example(example);
        for role in ["master", "worker"] {
            let got = read(&g.dir.join(format!("{role}.ign")));
            assert_eq!(
                got,
                expected_pointer(host, role, &root_ca),
                "{example}/{role}.ign"
            );
        }
    }
}

#[test]
fn single_node_worker_pointer_uses_api_int() {
    let g = fixture::example("single-node");
    let got = read(&g.dir.join("worker.ign"));
    let value: serde_json::Value = serde_json::from_str(&got).unwrap();
    let source = value["ignition"]["config"]["merge"][0]["source"]
        .as_str()
        .unwrap();
    assert!(
        source.starts_with("https://api-int.") && source.ends_with(":22623/config/worker"),
        "{source}"
    );
}

/// An IPv6 single-stack bare-metal config with its three control-plane hosts.
fn ipv6_config() -> String {
    let hosts: String = (0..3)
        .map(|i| {
            format!(
                "    - name: master-{i}\n      role: master\n      bootMACAddress: 52:54:00:00:06:0{i}\n      bmc:\n        address: redfish-virtualmedia://[fd2e:6f44:5dd8:c956::2{i}]/redfish/v1/Systems/1\n        username: admin\n        password: pw\n"
            )
        })
        .collect();
    format!("{IPV6_HEAD}    hosts:\n{hosts}{IPV6_TAIL}")
}

const IPV6_HEAD: &str = "apiVersion: v1
baseDomain: example.com
metadata:
  name: six
controlPlane:
  name: master
  replicas: 3
compute:
- name: worker
  replicas: 0
networking:
  networkType: OVNKubernetes
  clusterNetwork:
  - cidr: fd01::/48
    hostPrefix: 64
  machineNetwork:
  - cidr: fd2e:6f44:5dd8:c956::/120
  serviceNetwork:
  - fd02::/112
platform:
  baremetal:
    apiVIPs:
    - fd2e:6f44:5dd8:c956::5
    ingressVIPs:
    - fd2e:6f44:5dd8:c956::4
";
const IPV6_TAIL: &str = "pullSecret: '{\"auths\":{\"quay.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}'
sshKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBiDNXM5oZcwzEL1nlEOYaRfGapUeRro0GQDOjOPmSKO a@b
";

#[test]
fn ipv6_api_vip_is_bracketed_in_pointer_configs() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("install-config.yaml"), ipv6_config()).unwrap();
    create_at(tmp.path(), EPOCH, &["ignition-configs"]).ok("IPv6 cluster");
    let root_ca = bundle_root_ca();
    for role in ["master", "worker"] {
        assert_eq!(
            read(&tmp.path().join(format!("{role}.ign"))),
            expected_pointer("[fd2e:6f44:5dd8:c956::5]", role, &root_ca),
        );
    }
}

#[test]
fn metadata_json_names_the_cluster_and_matches_the_manifests() {
    for g in fixture::all() {
        let meta: serde_json::Value =
            serde_json::from_str(&read(&g.dir.join("metadata.json"))).unwrap();
        let cvo =
            String::from_utf8_lossy(&g.manifests["manifests/cvo-overrides.yaml"]).into_owned();
        let cluster_id = meta["clusterID"].as_str().expect("clusterID");
        assert!(cvo.contains(cluster_id), "{}: clusterID", g.example);
        let name = meta["clusterName"].as_str().expect("clusterName");
        let infra_id = meta["infraID"].as_str().expect("infraID");
        assert!(infra_id.starts_with(name), "{}: {infra_id}", g.example);
    }
}

/// The root CA in master.ign is the bundle's: a deterministic run reused it (and so the
/// pointer configs of every example trust the same CA).
#[test]
fn pointer_trust_is_the_bundle_root_ca() {
    let root_ca = bundle_root_ca();
    let g = fixture::example("dual-stack");
    let value: serde_json::Value = serde_json::from_str(&read(&g.dir.join("master.ign"))).unwrap();
    let url = value
        .pointer("/ignition/security/tls/certificateAuthorities/0/source")
        .and_then(|s| s.as_str())
        .unwrap();
    assert_eq!(ignition::decode_data_url(url).unwrap(), root_ca.as_bytes());
}

/// `--compress` stores gzip where smaller: the config stays valid, shrinks, and every file
/// decodes to the same bytes as without compression.
#[test]
fn compressed_bootstrap_is_valid_smaller_and_decodes_to_the_same_files() {
    let plain_dir = fixture::example("compact-3-node");
    let plain = read(&plain_dir.dir.join("bootstrap.ign"));
    let tmp = tempfile::tempdir().unwrap();
    let args = [
        "ignition-configs",
        "--from-example",
        "compact-3-node",
        "--compress",
    ];
    create_at(tmp.path(), EPOCH, &args).ok("compressed ignition-configs");
    let packed = read(&tmp.path().join("bootstrap.ign"));
    assert!(ignition::check_json(&packed).is_empty());
    assert!(
        packed.len() < plain.len(),
        "{} >= {}",
        packed.len(),
        plain.len()
    );
    assert!(packed.contains("\"compression\":\"gzip\""));
    assert_eq!(file_paths(&plain), file_paths(&packed));
    assert_eq!(ign_files(&packed), ign_files(&plain));
}

/// The path of every file entry of an Ignition config, in order.
fn file_paths(ign: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(ign).unwrap();
    v["storage"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn release_image_flag_reaches_bootstrap_and_is_warned_about() {
    let image = "registry.example.com:5000/okd/release@sha256:".to_string() + &"c3".repeat(32);
    let tmp = tempfile::tempdir().unwrap();
    let args = [
        "ignition-configs",
        "--from-example",
        "disconnected-mirror",
        "--release-image",
        &image,
        "--release-version",
        "4.19.0-okd-scos.20",
    ];
    let out = create_at(tmp.path(), EPOCH, &args).ok("ignition-configs with a release image");
    out.stderr_has(&[&image, "instead of the built-in default"]);
    let boot = read(&tmp.path().join("bootstrap.ign"));
    let carriers: Vec<String> = ign_files(&boot)
        .into_iter()
        .filter(|(_, data)| String::from_utf8_lossy(data).contains(&image))
        .map(|(path, _)| path)
        .collect();
    assert!(
        !carriers.is_empty(),
        "the release image is in no bootstrap file"
    );
    let default = fixture::example("disconnected-mirror");
    let default_boot = read(&default.dir.join("bootstrap.ign"));
    assert!(
        ign_files(&default_boot)
            .iter()
            .all(|(_, d)| !String::from_utf8_lossy(d).contains(&image))
    );
}

#[test]
fn no_bootstrap_config_carries_a_signer_key_upstream_keeps_off_the_host() {
    for g in fixture::all() {
        let file = crate::common::bootstrap_file(g.example);
        let ign = read(&g.dir.join(file));
        let shipped = file_paths(&ign);
        assert!(
            shipped
                .iter()
                .any(|p| p == "/opt/openshift/tls/kube-control-plane-signer.key")
        );
        for key in [
            "root-ca",
            "admin-kubeconfig-signer",
            "kubelet-bootstrap-kubeconfig-signer",
        ] {
            let path = format!("/opt/openshift/tls/{key}.key");
            assert!(
                !shipped.contains(&path),
                "{}: {file} ships {path}",
                g.example
            );
            // The certificate stays: bundles and renders refer to it.
            assert!(
                ign.contains(&format!("/opt/openshift/tls/{key}.crt")),
                "{}: {key}.crt",
                g.example
            );
        }
    }
}

/// `create install-config` in a fresh directory with `extra` flags.
fn install_config_with(extra: &[&str]) -> crate::common::Run {
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec!["install-config", "--from-example", "compact-3-node"];
    args.extend_from_slice(extra);
    create_at(tmp.path(), EPOCH, &args)
}

#[test]
fn the_release_image_tag_names_the_release_and_any_z_stream_is_fine() {
    for (image, release) in [
        ("quay.io/okd/scos-release:4.22.0-okd-scos.3", "4.22"),
        ("quay.io/okd/scos-release:4.20.0-okd-scos.ec.3", "4.20"),
        ("localhost/okd-payload/release:4.19", "4.19"),
        ("quay.io/okd/scos-release:5.0.0-okd-scos.0", "5.0"),
    ] {
        let out = install_config_with(&["--release-image", image]).ok(image);
        out.stderr_has(&[&format!("is OKD {release} ")]);
    }
}

#[test]
fn an_unknown_release_exits_3_and_names_the_flag() {
    let digest = "quay.io/okd/scos-release@sha256:".to_string() + &"00".repeat(32);
    let out = install_config_with(&["--release-image", &digest])
        .expect_code(3, "a digest of no known release");
    out.stderr_has(&[&digest, "--release-version"]);
    // With the flag it is fine.
    install_config_with(&["--release-image", &digest, "--release-version", "4.21"])
        .ok("the same digest with --release-version")
        .stderr_has(&["is OKD 4.21 "]);
}

#[test]
fn a_release_outside_the_table_is_refused_with_the_supported_list() {
    for image in [
        "quay.io/okd/scos-release:4.17.0-0.okd-scos-2024-09-30-101739",
        "quay.io/okd/scos-release:4.18.0-okd-scos.9",
    ] {
        let out = install_config_with(&["--release-image", image]).expect_code(3, image);
        out.stderr_has(&[
            "not a release okd-install installs",
            "supported: 4.19, 4.20, 4.21, 4.22, 5.0",
        ]);
    }
    // A flag that contradicts the tag is refused too.
    install_config_with(&[
        "--release-image",
        "quay.io/okd/scos-release:4.21.0-okd-scos.8",
        "--release-version",
        "4.22",
    ])
    .expect_code(3, "contradicting flag")
    .stderr_has(&["contradicts"]);
}

/// A field a later release introduced is refused on an earlier one, naming that release, with
/// its field path and exit code 3.
#[test]
fn install_config_fields_of_newer_releases_are_refused_on_older_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    create_at(
        dir,
        EPOCH,
        &["install-config", "--from-example", "compact-3-node"],
    )
    .ok("install-config");
    let path = dir.join("install-config.yaml");
    let text = read(&path);
    std::fs::write(&path, format!("{text}osImageStream: centos-10\n")).unwrap();
    let out = create_at(
        dir,
        EPOCH,
        &[
            "manifests",
            "--release-image",
            "quay.io/okd/scos-release:4.22.0-okd-scos.7",
        ],
    )
    .expect_code(3, "osImageStream on 4.22");
    out.stderr_has(&["osImageStream", "OKD 5.0 and later"]);
    create_at(
        dir,
        EPOCH,
        &[
            "manifests",
            "--release-image",
            "quay.io/okd/scos-release:5.0.0-okd-scos.0",
        ],
    )
    .ok("osImageStream centos-10 on 5.0");
    std::fs::write(&path, format!("{text}osImageStream: rhel-10\n")).unwrap();
    let other = tempfile::tempdir().unwrap();
    std::fs::copy(&path, other.path().join("install-config.yaml")).unwrap();
    create_at(
        other.path(),
        EPOCH,
        &[
            "manifests",
            "--release-image",
            "quay.io/okd/scos-release:5.0.0-okd-scos.0",
        ],
    )
    .expect_code(3, "rhel-10 on OKD 5.0")
    .stderr_has(&["osImageStream", "centos-10"]);
}

#[test]
fn the_default_release_is_the_newest_and_version_lists_the_supported_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let out = crate::support::okd(tmp.path())
        .arg("version")
        .output()
        .unwrap();
    let text = crate::support::stdout(&out);
    assert!(out.status.success(), "{text}");
    for needle in [
        "release OKD 5.0 (version 5.0.0-okd-scos.0 from the known release digests)",
        "  4.19: Kubernetes 1.32",
        "  5.0: Kubernetes 1.36",
        "Konnectivity",
    ] {
        assert!(text.contains(needle), "{needle:?} missing:\n{text}");
    }
    let out = crate::support::okd(tmp.path())
        .args(["explain", "releases"])
        .output()
        .unwrap();
    let text = crate::support::stdout(&out);
    assert!(
        text.contains("kubelet without --pod-infra-container-image: 4.22"),
        "{text}"
    );
}

/// Secrets never reach the console or the debug log file.
#[test]
fn no_password_or_private_key_in_logs_or_console() {
    let path = secrets_bundle();
    let bundle = pki::SecretsBundle::from_yaml(&read(&path), "secrets.yaml").expect("bundle");
    let password = &bundle.kubeadmin_password;
    for g in fixture::all() {
        let log = read(&g.dir.join(".okd-install.log"));
        assert!(
            log.contains("DEBUG"),
            "{}: the log has no debug lines",
            g.example
        );
        for (what, text) in [
            ("log file", log.as_str()),
            ("manifests stderr", g.manifests_run.stderr.as_str()),
            ("ignition stderr", g.ignition_run.stderr.as_str()),
            ("ignition stdout", g.ignition_run.stdout.as_str()),
        ] {
            assert!(
                !text.contains(password.as_str()),
                "{}: password in {what}",
                g.example
            );
            assert!(
                !text.contains("PRIVATE KEY"),
                "{}: key in {what}",
                g.example
            );
        }
    }
}

/// `imageDigestSources[].sourcePolicy: NeverContactSource` blocks the source in the bootstrap
/// host's registries.conf from OKD 4.21; 4.20 refuses the field (exit 3, field path).
#[test]
fn never_contact_source_blocks_the_source_in_registries_conf_from_4_21() {
    let example = read(&crate::support::repo_root().join("examples/disconnected-mirror.yaml"));
    let edited = example.replacen(
        "- source: quay.io/okd/scos-release\n  mirrors:",
        "- source: quay.io/okd/scos-release\n  sourcePolicy: NeverContactSource\n  mirrors:",
        1,
    );
    assert_ne!(edited, example);
    for (image, ok) in [
        ("quay.io/okd/scos-release:4.21.0-okd-scos.8", true),
        ("quay.io/okd/scos-release:4.20.0-okd-scos.16", false),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("install-config.yaml"), &edited).unwrap();
        let run = create_at(
            tmp.path(),
            EPOCH,
            &["ignition-configs", "--release-image", image],
        );
        if !ok {
            run.expect_code(3, image)
                .stderr_has(&["imageDigestSources[0].sourcePolicy", "OKD 4.21 and later"]);
            continue;
        }
        run.ok(image);
        let boot = read(&tmp.path().join("bootstrap.ign"));
        let conf = crate::support::ign_text(&boot, "/etc/containers/registries.conf");
        let blocked = "location = \"quay.io/okd/scos-release\"\nmirror-by-digest-only = true\nblocked = true\n";
        assert!(conf.contains(blocked), "{conf}");
        assert_eq!(conf.matches("blocked = true").count(), 1, "{conf}");
    }
}

/// A source given again, once under `NeverContactSource`: registries.conf has the source once,
/// with the mirrors of all its entries in upstream's group order (from 4.21 the entries without
/// a policy first, then the blocked one's) and blocked from 4.21. On 4.20, which has no
/// sourcePolicy, the same entries without it merge per source and block nothing.
#[test]
fn a_source_under_two_policies_is_one_registry_entry() {
    let example = read(&crate::support::repo_root().join("examples/disconnected-mirror.yaml"));
    let more = |policy: &str| {
        format!(
            "- source: quay.io/okd/scos-release\n{policy}  mirrors:\n  - backup.example.com/okd\n\
             - source: quay.io/okd/scos-release\n  mirrors:\n  - registry.example.com:5000/okd/scos-release\n\
             - source: quay.io/okd/scos-release\n  mirrors:\n  - late.example.com/okd\n"
        )
    };
    let never = "  sourcePolicy: NeverContactSource\n";
    for (image, policy, mirrors, blocked) in [
        (
            "quay.io/okd/scos-release:4.21.0-okd-scos.8",
            never,
            [
                "registry.example.com:5000/okd/scos-release",
                "late.example.com/okd",
                "backup.example.com/okd",
            ],
            "blocked = true\n",
        ),
        (
            "quay.io/okd/scos-release:4.20.0-okd-scos.16",
            "",
            [
                "registry.example.com:5000/okd/scos-release",
                "backup.example.com/okd",
                "late.example.com/okd",
            ],
            "",
        ),
    ] {
        let edited = example.replacen("pullSecret:", &format!("{}pullSecret:", more(policy)), 1);
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("install-config.yaml"), &edited).unwrap();
        create_at(
            tmp.path(),
            EPOCH,
            &["ignition-configs", "--release-image", image],
        )
        .ok(image);
        let boot = read(&tmp.path().join("bootstrap.ign"));
        let conf = crate::support::ign_text(&boot, "/etc/containers/registries.conf");
        let mirrors: String = mirrors
            .iter()
            .map(|m| format!("\n[[registry.mirror]]\nlocation = \"{m}\"\n"))
            .collect();
        let entry = format!(
            "location = \"quay.io/okd/scos-release\"\nmirror-by-digest-only = true\n{blocked}{mirrors}"
        );
        assert!(conf.contains(&entry), "{image}:\n{conf}");
        assert_eq!(
            conf.matches("location = \"quay.io/okd/scos-release\"")
                .count(),
            1,
            "{conf}"
        );
    }
}

/// Every shipped example makes its Ignition configs for every supported release, and each
/// bootstrap config's bootkube.sh is the one of that release.
#[test]
fn every_example_generates_for_every_release() {
    let images = [
        ("4.19", "quay.io/okd/scos-release:4.19.0-okd-scos.19"),
        ("4.20", "quay.io/okd/scos-release:4.20.0-okd-scos.16"),
        ("4.21", "quay.io/okd/scos-release:4.21.0-okd-scos.8"),
        ("4.22", "quay.io/okd/scos-release:4.22.0-okd-scos.7"),
        ("5.0", "quay.io/okd/scos-release:5.0.0-okd-scos.0"),
    ];
    for (release, image) in images {
        for example in crate::common::EXAMPLES {
            let tmp = tempfile::tempdir().unwrap();
            let target = crate::common::ignition_target(example);
            let args = [target, "--from-example", example, "--release-image", image];
            create_at(tmp.path(), EPOCH, &args).ok(&format!("{example} on OKD {release}"));
            let boot = read(&tmp.path().join(crate::common::bootstrap_file(example)));
            let script = crate::support::ign_text(&boot, "/usr/local/bin/bootkube.sh");
            assert!(
                script.contains(&format!("TARGET_MINOR='{release}'")),
                "{example} on {release}"
            );
        }
    }
}
