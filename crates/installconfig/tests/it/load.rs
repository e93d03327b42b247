use installconfig::{ErrorKind, LoadError, parse_str};

use crate::{fixture, fixture_text};

fn errors(text: &str) -> Vec<installconfig::FieldError> {
    match parse_str(text, "install-config.yaml") {
        Err(LoadError::Invalid { errors, .. }) => errors,
        other => panic!("expected field errors, got {other:?}"),
    }
}

#[test]
fn every_fixture_loads() {
    for name in [
        "none-sno.yaml",
        "baremetal-compact.yaml",
        "vsphere-ha.yaml",
        "vsphere-deprecated.yaml",
    ] {
        let loaded = installconfig::load(fixture(name));
        assert!(loaded.is_ok(), "{name}: {}", loaded.unwrap_err());
    }
}

#[test]
fn defaults_are_applied() {
    let text = "apiVersion: v1\nbaseDomain: example.com.\nmetadata: {name: c1}\nplatform: {none: {}}\npullSecret: '{\"auths\":{\"q\":{\"auth\":\"eDp5\"}}}'\n";
    let cfg = parse_str(text, "install-config.yaml").unwrap().config;
    let net = cfg.networking();
    assert_eq!(net.network_type, "OVNKubernetes");
    assert_eq!(net.cluster_network[0].cidr.to_string(), "10.128.0.0/14");
    assert_eq!(net.cluster_network[0].host_prefix, 23);
    assert_eq!(net.machine_network[0].cidr.to_string(), "10.0.0.0/16");
    assert_eq!(net.service_network[0].to_string(), "172.30.0.0/16");
    assert_eq!(cfg.publish, installconfig::PublishingStrategy::External);
    let cp = cfg.control_plane().unwrap();
    assert_eq!((cp.name.as_str(), cp.replicas), ("master", Some(3)));
    assert_eq!(cp.hyperthreading, installconfig::Hyperthreading::Enabled);
    assert_eq!(cp.architecture, installconfig::Architecture::Amd64);
    assert_eq!(cfg.compute.len(), 1);
    assert_eq!(
        (cfg.compute[0].name.as_str(), cfg.compute[0].replicas),
        ("worker", Some(3))
    );
    assert_eq!(
        cfg.additional_trust_bundle_policy,
        installconfig::TrustBundlePolicy::Proxyonly
    );
    assert_eq!(
        cfg.cpu_partitioning_mode,
        installconfig::CpuPartitioningMode::None
    );
    let caps = cfg.capabilities.as_ref().unwrap();
    assert_eq!(
        caps.baseline_capability_set,
        installconfig::BaselineCapabilitySet::VCurrent
    );
    assert_eq!(cfg.base_domain, "example.com");
    assert_eq!(cfg.cluster_domain(), "c1.example.com");
    assert_eq!(cfg.platform_name(), "none");
    assert!(cfg.credentials_mode.is_none());
}

#[test]
fn deprecated_fields_are_converted() {
    let loaded = installconfig::load(fixture("vsphere-deprecated.yaml")).unwrap();
    let cfg = loaded.config;
    let net = cfg.networking();
    assert_eq!(net.machine_network[0].cidr.to_string(), "10.0.20.0/24");
    assert_eq!(net.cluster_network[0].host_prefix, 23);
    assert!(net.machine_cidr.is_none() && net.cluster_networks.is_empty());
    let vs = cfg.platform.vsphere.as_ref().unwrap();
    assert_eq!(vs.vcenters[0].server, "vcenter.example.com");
    assert_eq!(vs.vcenters[0].port, Some(443));
    assert_eq!(vs.vcenters[0].datacenters, vec!["dc1".to_string()]);
    let topo = &vs.failure_domains[0].topology;
    assert_eq!(topo.compute_cluster, "/dc1/host/cluster1");
    assert_eq!(topo.datastore, "/dc1/datastore/ds1");
    assert_eq!(topo.networks, vec!["VM Network".to_string()]);
    assert_eq!(cfg.api_vips(), vec!["10.0.20.5".to_string()]);
    assert_eq!(cfg.ingress_vips(), vec!["10.0.20.6".to_string()]);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.path == "networking.machineCIDR")
    );
    let yaml = cfg.to_yaml();
    assert!(
        !yaml.contains("machineCIDR") && !yaml.contains("vCenter:"),
        "{yaml}"
    );
}

#[test]
fn unknown_field_suggests_nearest() {
    let text = fixture_text("none-sno.yaml").replace("  clusterNetwork:", "  clusterNetwrok:");
    let errs = errors(&text);
    let e = errs.iter().find(|e| e.kind == ErrorKind::Unknown).unwrap();
    assert_eq!(e.path, "networking.clusterNetwrok");
    assert!(
        e.to_string().starts_with(
            "networking.clusterNetwrok: unknown field; did you mean \"clusterNetwork\"?"
        ),
        "{e}"
    );
    assert_eq!(e.position.unwrap().line, 13);
}

#[test]
fn three_faults_three_errors() {
    let text = fixture_text("none-sno.yaml")
        .replace("  name: sno", "  name: sno\n  nmae: x")
        .replace("hostPrefix: 23", "hostPrefix: abc")
        .replace("networkType: OVNKubernetes", "networkType: OpenShiftSDN");
    let errs = errors(&text);
    let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(errs.len(), 3, "{errs:#?}");
    assert!(paths.contains(&"metadata.nmae"));
    assert!(paths.contains(&"networking.clusterNetwork[0].hostPrefix"));
    assert!(paths.contains(&"networking.networkType"));
}

#[test]
fn yaml_syntax_error_has_file_line_column() {
    let err = parse_str(
        "apiVersion: v1\nmetadata:\n  name: [a\nbaseDomain: x\n",
        "ic.yaml",
    )
    .unwrap_err();
    let LoadError::Syntax { position, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(position.line >= 3);
    let shown = err.to_string();
    assert!(
        shown.starts_with(&format!(
            "ic.yaml:{}:{}: invalid YAML: ",
            position.line, position.column
        )),
        "{shown}"
    );
    assert!(!shown.contains(" at line "), "{shown}");
    let err = parse_str("apiVersion: v1\n---\nb: 2\n", "ic.yaml").unwrap_err();
    assert!(
        err.to_string().contains("more than one YAML document"),
        "{err}"
    );
}

#[test]
fn wrong_api_version_says_what_to_change() {
    let errs = errors("apiVersion: v1beta4\nmetadata: {name: a}\n");
    assert_eq!(errs[0].path, "apiVersion");
    assert!(errs[0].detail.contains("change apiVersion to v1"));
    let errs = errors("metadata: {name: a}\nbaseDomian: x\n");
    assert!(
        errs.iter().any(|e| e.path == "baseDomian"),
        "the rest is still checked: {errs:?}"
    );
    assert_eq!(
        (errs[0].path.as_str(), errs[0].kind),
        ("apiVersion", ErrorKind::Required)
    );
}

#[test]
fn unsupported_platform_is_named() {
    let text = fixture_text("none-sno.yaml").replace("  none: {}", "  aws:\n    region: us-east-1");
    let errs = errors(&text);
    let e = errs.iter().find(|e| e.path == "platform.aws").unwrap();
    assert_eq!(e.kind, ErrorKind::NotSupported);
    assert!(e.detail.contains(
        "platform aws is not supported by okd-install; supported: none, baremetal, vsphere"
    ));
}

#[test]
fn redacted_removes_secrets() {
    let cfg = installconfig::load(fixture("vsphere-ha.yaml"))
        .unwrap()
        .config;
    let red = cfg.redacted();
    assert!(red.pull_secret.is_empty());
    assert!(
        red.platform.vsphere.as_ref().unwrap().vcenters[0]
            .password
            .is_empty()
    );
    let yaml = red.to_yaml();
    assert!(
        !yaml.contains("secret-password") && !yaml.contains("dXNlcjpwYXNz"),
        "{yaml}"
    );
}

#[test]
fn to_yaml_round_trips() {
    let cfg = installconfig::load(fixture("baremetal-compact.yaml"))
        .unwrap()
        .config;
    let again = parse_str(&cfg.to_yaml(), "again.yaml").unwrap().config;
    assert_eq!(cfg, again);
}

#[test]
fn misindented_top_level_field_is_explained() {
    let text = fixture_text("none-sno.yaml").replace("networking:\n", "");
    let errs = errors(&text);
    let e = errs
        .iter()
        .find(|e| e.path == "compute[0].networkType")
        .unwrap();
    assert!(
        e.detail
            .contains("belongs at networking.networkType, check the indentation"),
        "{e}"
    );
    let e = errs
        .iter()
        .find(|e| e.path == "compute[0].clusterNetwork")
        .unwrap();
    assert_eq!(e.kind, ErrorKind::Unknown);
}

#[test]
fn type_errors_and_enums_are_reported_with_positions() {
    let text = fixture_text("none-sno.yaml")
        .replace("name: master", "name: master\n  hyperthreading: Enable")
        .replace(
            "platform:\n  none: {}",
            "platform:\n  none: {}\nfips: maybe\npublish: [External]",
        );
    let errs = errors(&text);
    let ht = errs
        .iter()
        .find(|e| e.path == "controlPlane.hyperthreading")
        .unwrap();
    assert_eq!(ht.kind, ErrorKind::NotSupported);
    assert!(ht.detail.contains("did you mean \"Enabled\"?"), "{ht}");
    assert_eq!(ht.position.unwrap().line, 7);
    let fips = errs.iter().find(|e| e.path == "fips").unwrap();
    assert_eq!(fips.kind, ErrorKind::Invalid);
    assert!(errs.iter().any(|e| e.path == "publish"));
}

#[test]
fn duplicate_keys_are_reported() {
    let text = fixture_text("none-sno.yaml").replace(
        "baseDomain: example.com",
        "baseDomain: example.com\nbaseDomain: example.org",
    );
    let errs = errors(&text);
    let e = errs
        .iter()
        .find(|e| e.kind == ErrorKind::Duplicate)
        .unwrap();
    assert_eq!(
        (e.path.as_str(), e.position.unwrap().line),
        ("baseDomain", 3)
    );
}

#[test]
fn load_error_lists_every_problem_on_its_own_line() {
    let text = fixture_text("none-sno.yaml")
        .replace("  name: sno", "  name: Sno_1")
        .replace("hostPrefix: 23", "hostPrefix: 12");
    let err = parse_str(&text, "install-config.yaml").unwrap_err();
    let shown = err.to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(
        lines[0], "invalid \"install-config.yaml\" file (2 problems):",
        "{shown}"
    );
    assert!(
        lines[1].starts_with("  metadata.name: Invalid value: \"Sno_1\": "),
        "{shown}"
    );
    assert!(
        lines[2].starts_with("  networking.clusterNetwork[0].hostPrefix: Invalid value: 12: "),
        "{shown}"
    );
}

#[test]
fn empty_none_platform_value_means_none() {
    let text = fixture_text("none-sno.yaml").replace("  none: {}", "  none:");
    let cfg = parse_str(&text, "install-config.yaml").unwrap().config;
    assert_eq!(cfg.platform_name(), "none");
}

#[test]
fn metadata_written_by_other_tools_is_accepted() {
    let text = fixture_text("none-sno.yaml").replace(
        "metadata:\n",
        "metadata:\n  creationTimestamp: null\n  namespace: default\n",
    );
    let cfg = parse_str(&text, "install-config.yaml").unwrap().config;
    assert!(!cfg.to_yaml().contains("creationTimestamp"));
}

#[test]
fn deprecated_baremetal_fields_are_converted() {
    let text = fixture_text("baremetal-compact.yaml").replace(
        "    apiVIPs:\n    - 192.168.50.5\n    ingressVIPs:\n    - 192.168.50.6\n",
        "    apiVIP: 192.168.50.5\n    ingressVIP: 192.168.50.6\n    provisioningDHCPExternal: true\n",
    );
    let loaded = parse_str(&text, "install-config.yaml").unwrap();
    let bm = loaded.config.platform.baremetal.as_ref().unwrap();
    assert_eq!(loaded.config.api_vips(), vec!["192.168.50.5".to_string()]);
    assert_eq!(
        bm.provisioning_network,
        Some(installconfig::ProvisioningNetwork::Unmanaged)
    );
    assert!(bm.api_vip.is_none() && bm.provisioning_dhcp_external.is_none());
    let text = fixture_text("baremetal-compact.yaml")
        .replace("    apiVIPs:", "    apiVIP: 192.168.50.9\n    apiVIPs:");
    let errs = errors(&text);
    assert!(
        errs.iter()
            .any(|e| e.path == "platform.baremetal.apiVIP" && e.kind == ErrorKind::Invalid),
        "{errs:?}"
    );
}

#[test]
fn load_reports_unreadable_files() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("install-config.yaml");
    let err = installconfig::load(&missing).unwrap_err();
    assert!(
        matches!(err, LoadError::Io { ref file, .. } if *file == missing),
        "{err}"
    );
    std::fs::write(&missing, [0xff, 0xfe, b'a', b':']).unwrap();
    let err = installconfig::load(&missing).unwrap_err();
    assert!(err.to_string().contains("install-config.yaml"), "{err}");
}

#[test]
fn feature_rich_fixture_loads_without_warnings() {
    let loaded = installconfig::load(fixture("none-disconnected.yaml")).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let cfg = loaded.config;
    assert!(cfg.image_mode_enabled());
    assert_eq!(
        cfg.image_digest_sources[1].source_policy,
        Some(installconfig::SourcePolicy::NeverContactSource)
    );
    assert!(
        cfg.additional_trust_bundle
            .as_deref()
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----")
    );
    let pivot = installconfig::load(fixture("baremetal-pivot.yaml"))
        .unwrap()
        .config;
    assert_eq!(
        pivot.bootstrap_pivot.unwrap().installation_disk,
        "/dev/disk/by-id/nvme-example-0001"
    );
}

#[test]
fn closed_value_sets_are_checked_while_parsing() {
    let text = fixture_text("none-sno.yaml").replace(
        "platform:\n  none: {}",
        "platform:\n  none: {}\nfeatureSet: TechPreview\ncapabilities:\n  baselineCapabilitySet: v4.99\n  additionalEnabledCapabilities: [Consol]\nadditionalTrustBundlePolicy: Never\ncredentialsMode: Mints\nimageDigestSources:\n- source: quay.io/a\n  sourcePolicy: Sometimes",
    );
    let errs = errors(&text);
    for (path, hint) in [
        ("featureSet", Some("TechPreviewNoUpgrade")),
        ("capabilities.baselineCapabilitySet", None),
        (
            "capabilities.additionalEnabledCapabilities[0]",
            Some("Console"),
        ),
        ("additionalTrustBundlePolicy", None),
        ("credentialsMode", Some("Mint")),
        ("imageDigestSources[0].sourcePolicy", None),
    ] {
        let e = errs
            .iter()
            .find(|e| e.path == path)
            .unwrap_or_else(|| panic!("{path}: {errs:#?}"));
        assert_eq!(e.kind, ErrorKind::NotSupported, "{e}");
        if let Some(h) = hint {
            assert!(e.detail.contains(&format!("did you mean {h:?}?")), "{e}");
        }
    }
    assert_eq!(errs.len(), 6, "{errs:#?}");
}

/// A misspelt certificateVerification is refused while parsing, at its path, with the two
/// values it may take; a correct one is read.
#[test]
fn fencing_certificate_verification_is_a_closed_set() {
    let credential = |value: &str| {
        fixture_text("none-sno.yaml").replace(
            "name: master",
            &format!(
                "name: master\n  fencing:\n    credentials:\n    - hostName: m0\n      certificateVerification: {value}"
            ),
        )
    };
    let errs = errors(&credential("disabled"));
    let e = errs
        .iter()
        .find(|e| e.path == "controlPlane.fencing.credentials[0].certificateVerification")
        .unwrap_or_else(|| panic!("{errs:#?}"));
    assert_eq!(e.kind, ErrorKind::NotSupported, "{e}");
    assert!(e.detail.contains("\"Enabled\", \"Disabled\""), "{e}");
    assert!(e.detail.contains("did you mean \"Disabled\"?"), "{e}");
    // The right spelling gets past parsing (the single-node fixture then fails the
    // topology rules, which are not what this test is about).
    let errs = match parse_str(&credential("Disabled"), "install-config.yaml") {
        Err(LoadError::Invalid { errors, .. }) => errors,
        other => panic!("expected the topology errors, got {other:?}"),
    };
    assert!(
        !errs
            .iter()
            .any(|e| e.path.ends_with("certificateVerification")),
        "{errs:#?}"
    );
}

/// A capabilities section without its baseline is refused at that path, as upstream does,
/// instead of being read as vCurrent.
#[test]
fn capabilities_need_their_baseline() {
    let text = fixture_text("none-sno.yaml").replace(
        "platform:\n  none: {}",
        "platform:\n  none: {}\ncapabilities:\n  additionalEnabledCapabilities: [Console]",
    );
    let errs = errors(&text);
    let e = errs
        .iter()
        .find(|e| e.path == "capabilities.baselineCapabilitySet")
        .unwrap_or_else(|| panic!("{errs:#?}"));
    assert_eq!(e.kind, ErrorKind::Required, "{e}");
    assert!(e.detail.contains("baselineCapabilitySet: vCurrent"), "{e}");
    assert!(e.position.is_some(), "{e}");
    let with = text.replace(
        "capabilities:\n",
        "capabilities:\n  baselineCapabilitySet: vCurrent\n",
    );
    parse_str(&with, "install-config.yaml").unwrap();
}

/// The value of a secret field never appears in an error, whatever its YAML type: a numeric
/// vCenter or BMC password, a pull secret written as a number or a list.
#[test]
fn secret_values_are_never_shown() {
    let cases = [
        (
            "vsphere-ha.yaml",
            "password: secret-password",
            "password: 8675309123",
        ),
        (
            "vsphere-ha.yaml",
            "password: secret-password",
            "password: 8675309.123",
        ),
        (
            "baremetal-compact.yaml",
            "password: fixture-only",
            "password: 8675309123",
        ),
        (
            "none-sno.yaml",
            r#"pullSecret: '{"auths":{"registry.example.com":{"auth":"dXNlcjpwYXNz"}}}'"#,
            "pullSecret: 8675309123",
        ),
        (
            "none-sno.yaml",
            r#"pullSecret: '{"auths":{"registry.example.com":{"auth":"dXNlcjpwYXNz"}}}'"#,
            "pullSecret: [8675309123]",
        ),
        (
            "none-sno.yaml",
            r#"pullSecret: '{"auths":{"registry.example.com":{"auth":"dXNlcjpwYXNz"}}}'"#,
            r#"pullSecret: '{"auths":{"registry.example.com":{"auth":"8675309123"}}}'"#,
        ),
    ];
    for (fixture_name, from, to) in cases {
        let text = fixture_text(fixture_name).replacen(from, to, 1);
        assert_ne!(text, fixture_text(fixture_name), "{to}");
        let err = parse_str(&text, "install-config.yaml")
            .unwrap_err()
            .to_string();
        assert!(!err.contains("8675309"), "{to}: {err}");
        assert!(
            err.contains("assword") || err.contains("pullSecret"),
            "{err}"
        );
    }
}

#[test]
fn secret_paths_are_recognised_by_name() {
    use installconfig::errors::is_secret_path;
    for p in [
        "platform.vsphere.vcenters[0].password",
        "platform.baremetal.hosts[2].bmc.password",
        "controlPlane.fencing.credentials[0].password",
        "pullSecret",
        "platform.vsphere.password",
    ] {
        assert!(is_secret_path(p), "{p}");
    }
    for p in [
        "sshKey",
        "platform.vsphere.vcenters[0].user",
        "metadata.name",
        "passwordless",
    ] {
        assert!(!is_secret_path(p), "{p}");
    }
}

/// A file that is not an install config (here shaped like a password file that YAML reads
/// as a mapping) gets one line, never its keys or values echoed back.
#[test]
fn another_file_is_not_echoed_back() {
    let text = "root: x:0:0:root-secret-hash\ndaemon: x:1:1:daemon-secret-hash\nbin: x:2:2\n";
    let errs = errors(text);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    let shown = errs[0].to_string();
    assert!(
        shown.contains("this is not an install-config.yaml"),
        "{shown}"
    );
    assert!(
        !shown.contains("secret-hash") && !shown.contains("daemon"),
        "{shown}"
    );
    let scalar = errors("root:$6$secret-hash:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n");
    assert!(
        !format!("{scalar:?}").contains("secret-hash"),
        "{scalar:#?}"
    );
}

/// An integer beyond 64 bits is shown as written, not rounded as a float.
#[test]
fn huge_integers_are_shown_as_written() {
    let text = fixture_text("none-sno.yaml").replacen(
        "baseDomain: ",
        "baseDomain: 99999999999999999999999\nx-old-baseDomain: ",
        1,
    );
    let err = parse_str(&text, "install-config.yaml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("99999999999999999999999"), "{err}");
    assert!(!err.contains("100000000000000000000000"), "{err}");
}
