use installconfig::{ExplainError, explain};

#[test]
fn root_lists_every_top_level_field() {
    let out = explain("installconfig").unwrap();
    assert!(
        out.starts_with("KIND:     InstallConfig\nVERSION:  v1\n\nRESOURCE: <object>\n"),
        "{out}"
    );
    assert!(out.contains("\nFIELDS:\n"));
    let fields: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("    ") && !l.starts_with("      "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let mut sorted = fields.clone();
    sorted.sort();
    assert_eq!(fields, sorted, "fields are listed alphabetically");
    for f in [
        "apiVersion",
        "baseDomain",
        "networking",
        "platform",
        "pullSecret",
        "imageMode",
        "bootstrapPivot",
        "featureGates",
    ] {
        assert!(fields.contains(&f), "{f} missing from {fields:?}");
    }
    assert!(
        out.contains("    baseDomain <string> -required-\n"),
        "{out}"
    );
    assert!(out.contains("    compute <[]object>\n"), "{out}");
}

#[test]
fn cluster_network_shows_item_fields_and_default() {
    let out = explain("installconfig.networking.clusterNetwork").unwrap();
    assert!(out.contains("RESOURCE: clusterNetwork <[]object>"), "{out}");
    assert!(
        out.contains(r#"Default: [{"cidr":"10.128.0.0/14","hostPrefix":23}]"#),
        "{out}"
    );
    assert!(
        out.contains("    cidr <string> -required-\n      Format: cidr\n"),
        "{out}"
    );
    assert!(out.contains("    hostPrefix <integer>"), "{out}");
}

#[test]
fn enum_field_lists_valid_values_and_default() {
    let out = explain("installconfig.publish").unwrap();
    assert!(out.contains("RESOURCE: publish <string>"), "{out}");
    assert!(
        out.contains(r#"Valid Values: "External", "Internal", "Mixed""#),
        "{out}"
    );
    assert!(out.contains("Default: \"External\""), "{out}");
    let out = explain("installconfig.controlPlane.hyperthreading").unwrap();
    assert!(
        out.contains(r#"Valid Values: "Enabled", "Disabled""#),
        "{out}"
    );
    let out = explain("installconfig.controlPlane").unwrap();
    assert!(out.contains("architecture <string>\n      Default: \"amd64\"\n      Valid Values: \"amd64\", \"arm64\", \"ppc64le\", \"s390x\""), "{out}");
}

#[test]
fn trailing_dot_and_case_are_accepted() {
    assert_eq!(
        explain("installconfig.networking.").unwrap(),
        explain("InstallConfig.networking").unwrap()
    );
}

#[test]
fn unknown_path_is_a_clear_error() {
    let err = explain("installconfig.networking.clusterNetwrok").unwrap_err();
    assert_eq!(
        err,
        ExplainError::UnknownField {
            path: "installconfig.networking.clusterNetwrok".into(),
            field: "clusterNetwrok".into(),
            suggestion: Some("clusterNetwork".into()),
        }
    );
    assert!(err.to_string().contains("did you mean \"clusterNetwork\"?"));
    assert_eq!(
        explain("pods").unwrap_err(),
        ExplainError::UnsupportedResource("pods".into())
    );
    assert_eq!(explain("  ").unwrap_err(), ExplainError::Empty);
}

#[test]
fn extensions_say_they_are_extensions() {
    for path in [
        "installconfig.imageMode",
        "installconfig.imageMode.pools",
        "installconfig.imageMode.pools.preBuiltImage",
        "installconfig.imageMode.pools.containerfile",
        "installconfig.imageMode.pools.renderedImagePushSpec",
        "installconfig.imageMode.pools.renderedImagePushSecret",
        "installconfig.bootstrapPivot",
        "installconfig.bootstrapPivot.installationDisk",
    ] {
        let out = explain(path).unwrap();
        assert!(out.contains("okd-install extension"), "{path}: {out}");
    }
    let root = explain("installconfig").unwrap();
    let after = root.split("    imageMode <object>").nth(1).unwrap();
    assert!(
        after.trim_start().starts_with("okd-install extension"),
        "{after}"
    );
}

#[test]
fn image_mode_pools_explain_the_os_image_machine_config() {
    let out = explain("installconfig.imageMode").unwrap();
    assert!(out.contains("    pools <[]object>"), "{out}");
    let pools = explain("installconfig.imageMode.pools").unwrap();
    for field in [
        "name",
        "preBuiltImage",
        "containerfile",
        "renderedImagePushSpec",
        "renderedImagePushSecret",
    ] {
        assert!(pools.contains(&format!("    {field} <string>")), "{pools}");
    }
    assert!(pools.contains("99-<pool>-okd-install-os-image"), "{pools}");
    assert!(pools.contains("osImageURL"), "{pools}");
    let image = explain("installconfig.imageMode.pools.preBuiltImage").unwrap();
    assert!(image.contains("@sha256:"), "{image}");
}

#[test]
fn unsupported_platforms_are_documented_as_such() {
    let out = explain("installconfig.platform").unwrap();
    assert!(
        out.contains("    aws <any>\n      Not supported by okd-install"),
        "{out}"
    );
    assert!(out.contains("    vsphere <object>"), "{out}");
}

#[test]
fn list_of_enums_and_nested_defaults() {
    let out = explain("installconfig.capabilities").unwrap();
    assert!(out.contains("    additionalEnabledCapabilities <[]string>\n      Valid Values: \"baremetal\", \"Console\""), "{out}");
    let out = explain("installconfig.platform.vsphere.vcenters.port").unwrap();
    assert!(
        out.contains("RESOURCE: port <integer>") && out.contains("Default: 443"),
        "{out}"
    );
    let out = explain("installconfig.compute.platform.vsphere.osDisk").unwrap();
    assert!(out.contains("    diskSizeGB <integer>"), "{out}");
}

#[test]
fn fencing_certificate_verification_is_explained_with_values_and_default() {
    let out =
        explain("installconfig.controlPlane.fencing.credentials.certificateVerification").unwrap();
    assert!(
        out.contains("RESOURCE: certificateVerification <string>"),
        "{out}"
    );
    assert!(
        out.contains(r#"Valid Values: "Enabled", "Disabled""#),
        "{out}"
    );
    assert!(out.contains(r#"Default: "Enabled""#), "{out}");
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("(OKD 4.20 and later)"), "{out}");
}

#[test]
fn dns_records_type_is_explained_on_both_platforms() {
    for platform in ["baremetal", "vsphere"] {
        let out = explain(&format!("installconfig.platform.{platform}.dnsRecordsType")).unwrap();
        assert!(
            out.contains(r#"Valid Values: "Internal", "External""#),
            "{out}"
        );
        assert!(out.contains(r#"Default: "Internal""#), "{out}");
        let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("(OKD 4.21 and later)"), "{out}");
        assert!(words.contains("UserManaged load balancer"), "{out}");
    }
}

#[test]
fn provisioning_network_gateway_is_explained() {
    let out = explain("installconfig.platform.baremetal.provisioningNetworkGateway").unwrap();
    assert!(
        out.contains("RESOURCE: provisioningNetworkGateway <string>"),
        "{out}"
    );
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("(OKD 4.22 and later)"), "{out}");
    assert!(words.contains("provisioningNetwork Managed"), "{out}");
}

#[test]
fn signer_key_settings_say_what_they_take_and_need() {
    let out = explain("installconfig.pki").unwrap();
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("ConfigurablePKI"), "{out}");
    assert!(words.contains("OKD 5.0 and later"), "{out}");
    assert!(words.contains("RSA-4096"), "{out}");
    let out = explain("installconfig.pki.signerCertificates.key.ecdsa").unwrap();
    assert!(out.contains("curve"), "{out}");
}
