//! Fields a release introduced: accepted from that release on, refused (naming the release)
//! one release earlier. The releases are written here, not read from the table, so a table
//! entry that is off by one release fails.

use installconfig::*;

use crate::validate::{bm, none};

fn release(minor: &str) -> &'static releases::Release {
    releases::table()
        .get(minor.parse().unwrap())
        .unwrap_or_else(|| panic!("{minor} is not supported"))
}

/// The errors at `path` for `cfg` on `minor`.
fn at(cfg: &InstallConfig, minor: &str, path: &str) -> Vec<FieldError> {
    validate_for_release(cfg, release(minor))
        .into_iter()
        .filter(|e| e.path == path)
        .collect()
}

/// `cfg` passes on `first` and is refused at `path` on `before`, with a message naming
/// `first` as the release that has the field.
#[track_caller]
fn starts_at(cfg: &InstallConfig, path: &str, first: &str, before: &str) {
    assert!(
        validate_for_release(cfg, release(first)).is_empty(),
        "{path} on {first}: {:#?}",
        validate_for_release(cfg, release(first))
    );
    let errors = at(cfg, before, path);
    assert_eq!(errors.len(), 1, "{path} on {before}: {errors:#?}");
    assert_eq!(errors[0].kind, ErrorKind::Forbidden);
    assert!(
        errors[0].detail.contains(&format!("OKD {first} and later")),
        "{}",
        errors[0].detail
    );
    assert!(errors[0].detail.contains(before), "{}", errors[0].detail);
}

#[test]
fn source_policy_starts_at_4_21() {
    let mut c = none();
    c.image_digest_sources = vec![ImageDigestSource {
        source: "quay.io/okd/scos-release".into(),
        mirrors: vec!["mirror.example.com:5000/okd/scos-release".into()],
        source_policy: Some(SourcePolicy::NeverContactSource),
    }];
    starts_at(&c, "imageDigestSources[0].sourcePolicy", "4.21", "4.20");
    // Never contacting a source needs a mirror.
    c.image_digest_sources[0].mirrors.clear();
    let errors = at(&c, "4.21", "imageDigestSources[0].sourcePolicy");
    assert_eq!(errors[0].kind, ErrorKind::Invalid, "{errors:#?}");
}

#[test]
fn bmc_verify_ca_starts_at_4_21() {
    let mut c = bm();
    c.platform.baremetal.as_mut().unwrap().bmc_verify_ca =
        Some("-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n".into());
    starts_at(&c, "platform.baremetal.bmcVerifyCA", "4.21", "4.20");
}

#[test]
fn dns_records_type_starts_at_4_21_on_both_platforms() {
    let mut c = bm();
    c.platform.baremetal.as_mut().unwrap().dns_records_type = Some(DnsRecordsType::Internal);
    starts_at(&c, "platform.baremetal.dnsRecordsType", "4.21", "4.20");
    let mut c = crate::validate::vs();
    c.platform.vsphere.as_mut().unwrap().dns_records_type = Some(DnsRecordsType::Internal);
    starts_at(&c, "platform.vsphere.dnsRecordsType", "4.21", "4.20");
}

#[test]
fn provisioning_network_gateway_starts_at_4_22() {
    let mut c = bm();
    c.platform
        .baremetal
        .as_mut()
        .unwrap()
        .provisioning_network_gateway = Some(IpAddrString("172.22.0.1".into()));
    starts_at(
        &c,
        "platform.baremetal.provisioningNetworkGateway",
        "4.22",
        "4.21",
    );
}

#[test]
fn fencing_mac_address_starts_at_5_0() {
    let mut c = bm();
    let credential = |host: &str, mac: Option<&str>| FencingCredential {
        host_name: host.into(),
        mac_address: mac.map(Into::into),
        username: "admin".into(),
        password: "secret".into(),
        address: "redfish+https://192.0.2.10:8000/redfish/v1/Systems/1".into(),
        certificate_verification: None,
    };
    c.control_plane.as_mut().unwrap().fencing = Some(Fencing {
        credentials: vec![credential("", Some("52:54:00:aa:bb:01"))],
    });
    starts_at(
        &c,
        "controlPlane.fencing.credentials[0].macAddress",
        "5.0",
        "4.22",
    );
    // Neither hostName nor macAddress names no host.
    c.control_plane.as_mut().unwrap().fencing = Some(Fencing {
        credentials: vec![credential("", None)],
    });
    let errors = at(&c, "5.0", "controlPlane.fencing.credentials[0].hostName");
    assert_eq!(errors[0].kind, ErrorKind::Required, "{errors:#?}");
    // A malformed MAC is named.
    c.control_plane.as_mut().unwrap().fencing = Some(Fencing {
        credentials: vec![credential("", Some("not-a-mac"))],
    });
    let errors = at(&c, "5.0", "controlPlane.fencing.credentials[0].macAddress");
    assert_eq!(errors[0].kind, ErrorKind::Invalid, "{errors:#?}");
}

#[test]
fn fencing_certificate_verification_starts_at_4_20() {
    let mut c = bm();
    c.control_plane.as_mut().unwrap().fencing = Some(Fencing {
        credentials: vec![FencingCredential {
            host_name: "master-0".into(),
            mac_address: None,
            username: "admin".into(),
            password: "secret".into(),
            address: "redfish+https://192.0.2.10:8000/redfish/v1/Systems/1".into(),
            certificate_verification: Some(CertificateVerification::Disabled),
        }],
    });
    starts_at(
        &c,
        "controlPlane.fencing.credentials[0].certificateVerification",
        "4.20",
        "4.19",
    );
}

#[test]
fn os_image_stream_starts_at_5_0_with_the_okd_stream_only() {
    let mut c = none();
    c.os_image_stream = Some("centos-10".into());
    let errors = at(&c, "4.22", "osImageStream");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].kind, ErrorKind::Forbidden);
    assert!(
        errors[0].detail.contains("OKD 5.0 and later"),
        "{}",
        errors[0].detail
    );
    assert!(validate_for_release(&c, release("5.0")).is_empty());
    // OpenShift's streams are not OKD's.
    c.os_image_stream = Some("rhel-10".into());
    let errors = at(&c, "5.0", "osImageStream");
    assert_eq!(errors[0].kind, ErrorKind::NotSupported, "{errors:#?}");
    assert!(
        errors[0].detail.contains("centos-10"),
        "{}",
        errors[0].detail
    );
    // The default: the release's stream, none before 5.0.
    c.os_image_stream = None;
    assert_eq!(os_image_stream(&c, release("5.0")), "centos-10");
    assert_eq!(os_image_stream(&c, release("4.22")), "");
}

/// A 4.19 config without any newer field is fine on every release.
#[test]
fn a_plain_config_fits_every_release() {
    for r in &releases::table().releases {
        assert!(validate_for_release(&bm(), r).is_empty(), "{}", r.version);
        assert!(validate_for_release(&none(), r).is_empty(), "{}", r.version);
    }
}

#[test]
fn signer_key_settings_are_for_5_0_and_later() {
    let text = "apiVersion: v1\nbaseDomain: example.com\nmetadata: {name: c1}\nplatform: {none: {}}\n\
                pullSecret: '{\"auths\":{\"q\":{\"auth\":\"eDp5\"}}}'\n\
                featureSet: TechPreviewNoUpgrade\n\
                pki:\n  signerCertificates:\n    key:\n      algorithm: ECDSA\n      ecdsa: {curve: P384}\n";
    let cfg = parse_str(text, "install-config.yaml")
        .expect("upstream's 5.0 pki field parses")
        .config;
    starts_at(&cfg, "pki", "5.0", "4.22");
}
