//! One test per validation rule: a valid and an invalid variant, asserting path and kind.

use installconfig::validate::{trust_bundle_validity, validate};
use installconfig::*;

use crate::{fixture, fixture_text};

pub(crate) fn base(name: &str) -> InstallConfig {
    load(fixture(name)).unwrap_or_else(|e| panic!("{e}")).config
}
pub(crate) fn none() -> InstallConfig {
    base("none-sno.yaml")
}
pub(crate) fn bm() -> InstallConfig {
    base("baremetal-compact.yaml")
}
pub(crate) fn vs() -> InstallConfig {
    base("vsphere-ha.yaml")
}

#[track_caller]
pub(crate) fn ok(cfg: &InstallConfig) {
    let v = validate(cfg);
    assert!(v.errors.is_empty(), "unexpected errors: {:#?}", v.errors);
}

#[track_caller]
pub(crate) fn bad(cfg: &InstallConfig, path: &str, kind: ErrorKind) -> FieldError {
    let v = validate(cfg);
    v.errors
        .iter()
        .find(|e| e.path == path && e.kind == kind)
        .cloned()
        .unwrap_or_else(|| panic!("no {kind:?} error at {path}; got {:#?}", v.errors))
}

pub(crate) fn cidr(s: &str) -> Cidr {
    Cidr::parse(s).unwrap()
}
pub(crate) fn ip(s: &str) -> IpAddrString {
    IpAddrString(s.to_string())
}
pub(crate) fn net(c: &mut InstallConfig) -> &mut Networking {
    c.networking.as_mut().unwrap()
}

// ---- names and domains ----

#[test]
fn cluster_name_must_be_dns_subdomain() {
    let mut c = none();
    c.metadata.name = "My_Cluster".into();
    bad(&c, "metadata.name", ErrorKind::Invalid);
    c.metadata.name = "my-cluster".into();
    ok(&c);
}

#[test]
fn cluster_name_length_limit() {
    let mut c = none();
    c.metadata.name = "a".repeat(55);
    let e = bad(&c, "metadata.name", ErrorKind::Invalid);
    assert!(e.detail.contains("54"));
    c.metadata.name = "a".repeat(54);
    ok(&c);
}

#[test]
fn cluster_name_required() {
    let mut c = none();
    c.metadata.name.clear();
    bad(&c, "metadata.name", ErrorKind::Required);
}

#[test]
fn dotted_name_rejected_on_baremetal_only() {
    let mut c = bm();
    c.metadata.name = "a.b".into();
    bad(&c, "metadata.name", ErrorKind::Invalid);
    let mut n = none();
    n.metadata.name = "a.b".into();
    ok(&n);
}

#[test]
fn base_domain_rules() {
    let mut c = none();
    c.base_domain = "Bad_Domain".into();
    bad(&c, "baseDomain", ErrorKind::Invalid);
    c.base_domain = format!("{}.com", "a".repeat(250));
    bad(&c, "baseDomain", ErrorKind::Invalid);
    c.base_domain.clear();
    bad(&c, "baseDomain", ErrorKind::Required);
}

#[test]
fn cluster_domain_must_fit() {
    let mut c = none();
    let label = "b".repeat(62);
    c.base_domain = [label.as_str(); 4].join(".");
    let e = bad(&c, "baseDomain", ErrorKind::Invalid);
    assert!(e.value.unwrap().starts_with("sno."));
}

// ---- networking ----

#[test]
fn network_type_rules() {
    let mut c = none();
    net(&mut c).network_type = "OpenShiftSDN".into();
    bad(&c, "networking.networkType", ErrorKind::Invalid);
    net(&mut c).network_type = "Kuryr".into();
    bad(&c, "networking.networkType", ErrorKind::Invalid);
    net(&mut c).network_type = String::new();
    bad(&c, "networking.networkType", ErrorKind::Required);
    net(&mut c).network_type = "OVNKubernetes".into();
    ok(&c);
}

#[test]
fn network_lists_required() {
    let mut c = none();
    net(&mut c).machine_network.clear();
    net(&mut c).service_network.clear();
    net(&mut c).cluster_network.clear();
    bad(&c, "networking.machineNetwork", ErrorKind::Required);
    bad(&c, "networking.serviceNetwork", ErrorKind::Required);
    bad(&c, "networking.clusterNetwork", ErrorKind::Required);
}

#[test]
fn cidr_must_be_network_address() {
    let mut c = none();
    net(&mut c).machine_network[0].cidr = cidr("192.168.111.5/24");
    let e = bad(&c, "networking.machineNetwork[0].cidr", ErrorKind::Invalid);
    assert!(e.detail.contains("192.168.111.0/24"));
    net(&mut c).machine_network[0].cidr = cidr("0.0.0.0/16");
    bad(&c, "networking.machineNetwork[0].cidr", ErrorKind::Invalid);
}

#[test]
fn service_network_size() {
    let mut c = none();
    net(&mut c).service_network[0] = cidr("172.0.0.0/8");
    bad(&c, "networking.serviceNetwork[0]", ErrorKind::Invalid);
    net(&mut c).service_network[0] = cidr("172.16.0.0/12");
    ok(&c);
}

#[test]
fn machine_networks_must_not_overlap() {
    let mut c = none();
    net(&mut c).machine_network.push(MachineNetworkEntry {
        cidr: cidr("192.168.0.0/16"),
    });
    bad(&c, "networking.machineNetwork[1].cidr", ErrorKind::Invalid);
}

#[test]
fn service_network_must_not_overlap_machine_network() {
    let mut c = none();
    net(&mut c).service_network[0] = cidr("192.168.111.0/24");
    bad(&c, "networking.serviceNetwork[0]", ErrorKind::Invalid);
}

#[test]
fn cluster_network_overlaps() {
    let mut c = none();
    net(&mut c).cluster_network.push(ClusterNetworkEntry {
        cidr: cidr("10.130.0.0/16"),
        host_prefix: 23,
    });
    bad(&c, "networking.clusterNetwork[1].cidr", ErrorKind::Invalid);
    let mut c = none();
    net(&mut c).cluster_network[0].cidr = cidr("172.30.0.0/16");
    bad(&c, "networking.clusterNetwork[0].cidr", ErrorKind::Invalid);
}

#[test]
fn ovn_internal_subnets_reserved_unless_overridden() {
    let mut c = none();
    net(&mut c).machine_network[0].cidr = cidr("100.64.0.0/24");
    bad(&c, "networking.machineNetwork[0].cidr", ErrorKind::Invalid);
    net(&mut c).ovn_kubernetes_config = Some(OvnKubernetesConfig {
        ipv4: Some(OvnIpv4Config {
            internal_join_subnet: Some(cidr("100.66.0.0/16")),
        }),
    });
    ok(&c);
    net(&mut c).machine_network[0].cidr = cidr("100.88.0.0/24");
    bad(&c, "networking.machineNetwork[0].cidr", ErrorKind::Invalid);
}

#[test]
fn docker_bridge_overlap_is_a_warning() {
    let mut c = none();
    net(&mut c).machine_network[0].cidr = cidr("172.17.0.0/24");
    let v = validate(&c);
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    assert!(
        v.warnings
            .iter()
            .any(|w| w.path == "networking.machineNetwork[0].cidr")
    );
}

#[test]
fn host_prefix_rules() {
    let mut c = none();
    net(&mut c).cluster_network[0].host_prefix = 12;
    bad(
        &c,
        "networking.clusterNetwork[0].hostPrefix",
        ErrorKind::Invalid,
    );
    net(&mut c).cluster_network[0].host_prefix = -1;
    bad(
        &c,
        "networking.clusterNetwork[0].hostPrefix",
        ErrorKind::Invalid,
    );
    net(&mut c).cluster_network[0].host_prefix = 23;
    net(&mut c).cluster_network.push(ClusterNetworkEntry {
        cidr: cidr("10.132.0.0/14"),
        host_prefix: 24,
    });
    bad(
        &c,
        "networking.clusterNetwork[1].hostPrefix",
        ErrorKind::Invalid,
    );
}

pub(crate) fn dual(c: &mut InstallConfig) {
    let n = net(c);
    n.machine_network.push(MachineNetworkEntry {
        cidr: cidr("fd00:1::/64"),
    });
    n.service_network.push(cidr("fd02::/112"));
    n.cluster_network.push(ClusterNetworkEntry {
        cidr: cidr("fd01::/48"),
        host_prefix: 64,
    });
}

#[test]
fn ipv6_host_prefix_must_be_64() {
    let mut c = none();
    dual(&mut c);
    ok(&c);
    net(&mut c).cluster_network[1].host_prefix = 56;
    bad(
        &c,
        "networking.clusterNetwork[1].hostPrefix",
        ErrorKind::Invalid,
    );
}

#[test]
fn single_stack_has_one_service_network() {
    let mut c = none();
    net(&mut c).service_network.push(cidr("172.31.0.0/16"));
    bad(&c, "networking.serviceNetwork", ErrorKind::Invalid);
}

#[test]
fn dual_stack_needs_both_families_everywhere() {
    let mut c = none();
    dual(&mut c);
    net(&mut c).cluster_network.pop();
    bad(&c, "networking.clusterNetwork", ErrorKind::Invalid);
}

#[test]
fn dual_stack_lists_ipv4_first() {
    let mut c = none();
    dual(&mut c);
    net(&mut c).machine_network.reverse();
    bad(&c, "networking.machineNetwork", ErrorKind::Invalid);
}

#[test]
fn cluster_network_mtu_is_aws_only() {
    let mut c = none();
    net(&mut c).cluster_network_mtu = Some(1400);
    bad(&c, "networking.clusterNetworkMTU", ErrorKind::Invalid);
}

// ---- VIPs ----

pub(crate) fn bm_platform(c: &mut InstallConfig) -> &mut BaremetalPlatform {
    c.platform.baremetal.as_mut().unwrap()
}

#[test]
fn baremetal_vips_required() {
    let mut c = bm();
    bm_platform(&mut c).api_vips.clear();
    bm_platform(&mut c).ingress_vips.clear();
    bad(&c, "platform.baremetal.apiVIPs", ErrorKind::Required);
    bad(&c, "platform.baremetal.ingressVIPs", ErrorKind::Required);
}

#[test]
fn api_vip_needs_ingress_vip() {
    let mut c = bm();
    bm_platform(&mut c).ingress_vips.clear();
    bad(&c, "platform.baremetal.ingressVIPs", ErrorKind::Required);
}

#[test]
fn at_most_two_vips() {
    let mut c = bm();
    let p = bm_platform(&mut c);
    p.api_vips = vec![ip("192.168.50.5"), ip("192.168.50.7"), ip("192.168.50.8")];
    bad(&c, "platform.baremetal.apiVIPs", ErrorKind::TooMany);
}

#[test]
fn vip_must_be_an_ip() {
    let mut c = bm();
    bm_platform(&mut c).api_vips = vec![ip("api.example.com")];
    bad(&c, "platform.baremetal.apiVIPs[0]", ErrorKind::Invalid);
}

#[test]
fn unspecified_addresses_are_never_vips() {
    for any in ["::", "0.0.0.0", "0:0::0", "::ffff:0.0.0.0"] {
        let mut c = bm();
        bm_platform(&mut c).api_vips = vec![ip(any)];
        let e = bad(&c, "platform.baremetal.apiVIPs[0]", ErrorKind::Invalid);
        assert!(e.to_string().contains("unspecified address"), "{e}");
        let mut c = vs();
        c.platform.vsphere.as_mut().unwrap().ingress_vips = vec![ip(any)];
        bad(&c, "platform.vsphere.ingressVIPs[0]", ErrorKind::Invalid);
    }
}

#[test]
fn api_and_ingress_vips_differ_unless_user_managed() {
    let mut c = bm();
    bm_platform(&mut c).ingress_vips = vec![ip("192.168.50.5")];
    bad(&c, "platform.baremetal.apiVIPs[0]", ErrorKind::Invalid);
    bm_platform(&mut c).load_balancer = Some(LoadBalancer {
        lb_type: LoadBalancerType::UserManaged,
    });
    ok(&c);
}

#[test]
fn baremetal_vip_inside_machine_network() {
    let mut c = bm();
    bm_platform(&mut c).api_vips = vec![ip("10.9.9.9")];
    bad(&c, "platform.baremetal.apiVIPs[0]", ErrorKind::Invalid);
    // vSphere does not require it (only agent installs do).
    let mut v = vs();
    v.platform.vsphere.as_mut().unwrap().api_vips = vec![ip("10.9.9.9")];
    ok(&v);
}

#[test]
fn two_vips_are_one_per_family() {
    let mut c = bm();
    bm_platform(&mut c).api_vips = vec![ip("192.168.50.5"), ip("192.168.50.9")];
    bad(&c, "platform.baremetal.apiVIPs", ErrorKind::Invalid);
}

// ---- machine pools ----

#[test]
fn control_plane_replicas_positive() {
    let mut c = bm();
    c.control_plane.as_mut().unwrap().replicas = Some(0);
    bad(&c, "controlPlane.replicas", ErrorKind::Invalid);
}

#[test]
fn single_replica_only_on_none() {
    let mut c = bm();
    c.control_plane.as_mut().unwrap().replicas = Some(1);
    let e = bad(&c, "controlPlane.replicas", ErrorKind::Invalid);
    assert!(e.detail.contains("platform none"));
    ok(&none());
}

#[test]
fn compute_pool_names() {
    let mut c = bm();
    c.compute[0].name = "edge".into();
    bad(&c, "compute[0].name", ErrorKind::NotSupported);
    let mut c = bm();
    c.compute.push(c.compute[0].clone());
    bad(&c, "compute[1].name", ErrorKind::Duplicate);
}

#[test]
fn compute_replicas_not_negative() {
    let mut c = bm();
    c.compute[0].replicas = Some(-1);
    bad(&c, "compute[0].replicas", ErrorKind::Invalid);
}

#[test]
fn compute_architecture_matches_control_plane() {
    let mut c = bm();
    c.compute[0].architecture = Architecture::Arm64;
    bad(&c, "compute[0].architecture", ErrorKind::Invalid);
}

#[test]
fn pool_platform_must_match_cluster_platform() {
    let mut c = bm();
    c.compute[0].platform.vsphere = Some(VsphereMachinePool::default());
    bad(&c, "compute[0].platform.vsphere", ErrorKind::Invalid);
    ok(&vs());
}

#[test]
fn zero_workers_is_valid_and_left_to_the_manifests_to_warn_about() {
    let v = validate(&bm());
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    assert!(
        !v.warnings.iter().any(|w| w.path == "compute"),
        "{:?}",
        v.warnings
    );
}

fn arbiter_pool() -> MachinePool {
    let mut a = MachinePool::named("arbiter");
    a.replicas = Some(1);
    a
}

#[test]
fn arbiter_needs_feature_gate() {
    let mut c = bm();
    c.arbiter = Some(arbiter_pool());
    c.control_plane.as_mut().unwrap().replicas = Some(2);
    bm_platform(&mut c).hosts[2].role = Some(HostRole::Arbiter);
    bad(&c, "arbiter", ErrorKind::Forbidden);
    c.feature_set = FeatureSet::CustomNoUpgrade;
    c.feature_gates = vec!["HighlyAvailableArbiter=true".into()];
    ok(&c);
}

#[test]
fn arbiter_rules() {
    let mut c = none();
    c.feature_set = FeatureSet::TechPreviewNoUpgrade;
    let mut a = arbiter_pool();
    a.replicas = Some(0);
    c.arbiter = Some(a);
    bad(&c, "arbiter", ErrorKind::Invalid);
    bad(&c, "arbiter.replicas", ErrorKind::Invalid);
    bad(&c, "controlPlane.replicas", ErrorKind::Invalid);
}

#[test]
fn two_masters_need_arbiter_or_fencing() {
    let mut c = bm();
    c.control_plane.as_mut().unwrap().replicas = Some(2);
    bad(&c, "controlPlane.replicas", ErrorKind::Invalid);
}

#[test]
fn fencing_needs_gate_and_two_credentials() {
    let mut c = bm();
    let cp = c.control_plane.as_mut().unwrap();
    cp.replicas = Some(2);
    cp.fencing = Some(Fencing {
        credentials: vec![],
    });
    bad(&c, "controlPlane.fencing", ErrorKind::Forbidden);
    bad(&c, "controlPlane.fencing.credentials", ErrorKind::Invalid);
}

// ---- pull secret, SSH key, trust bundle ----

#[test]
fn pull_secret_rules() {
    let mut c = none();
    c.pull_secret.clear();
    bad(&c, "pullSecret", ErrorKind::Required);
    c.pull_secret = "{not json".into();
    bad(&c, "pullSecret", ErrorKind::Invalid);
    c.pull_secret = r#"{"auths":{}}"#.into();
    bad(&c, "pullSecret", ErrorKind::Invalid);
    c.pull_secret = r#"{"auths":{"quay.io":{"email":"x"}}}"#.into();
    let e = bad(&c, "pullSecret", ErrorKind::Invalid);
    assert!(e.detail.contains("quay.io"));
    c.pull_secret = r#"{"auths":{"quay.io":{"credsStore":"x"}}}"#.into();
    ok(&c);
    // `auth` is base64 of user:password, padded or not; anything else is refused without
    // echoing the value.
    for auth in ["not base64 at all!", "c2VjcmV0LXRva2Vu", "//79"] {
        c.pull_secret = format!(r#"{{"auths":{{"quay.io":{{"auth":"{auth}"}}}}}}"#);
        let e = bad(&c, "pullSecret", ErrorKind::Invalid);
        assert!(
            e.detail
                .contains("not the base64 encoding of user:password"),
            "{e}"
        );
        assert!(!e.to_string().contains(auth), "{e}");
    }
    for auth in ["dXNlcjpwYXNz", "dXNlcjpwYXNzMQ", "dXNlcjpwYXNzMQ=="] {
        c.pull_secret = format!(r#"{{"auths":{{"quay.io":{{"auth":"{auth}"}}}}}}"#);
        ok(&c);
    }
}

#[test]
fn ssh_key_must_parse() {
    let mut c = none();
    c.ssh_key = "not a key".into();
    bad(&c, "sshKey", ErrorKind::Invalid);
    c.ssh_key = "ssh-ed25519 !!!notbase64".into();
    bad(&c, "sshKey", ErrorKind::Invalid);
    let ed = fixture_text("ed25519.pub");
    let blob = ed.split_whitespace().nth(1).unwrap();
    c.ssh_key = format!("ssh-rsa {blob} mislabelled");
    let e = bad(&c, "sshKey", ErrorKind::Invalid);
    assert!(e.detail.contains("ssh-ed25519"));
    c.ssh_key = format!(
        "no-pty,command=\"echo a b\" {ed}\n# comment\n{}",
        fixture_text("rsa.pub")
    );
    ok(&c);
}

#[test]
fn fips_restricts_key_types() {
    let mut c = none();
    c.fips = true;
    c.ssh_key = fixture_text("ed25519.pub");
    let e = bad(&c, "sshKey", ErrorKind::Invalid);
    assert!(e.detail.contains("FIPS"));
    c.ssh_key = fixture_text("rsa.pub");
    ok(&c);
}

#[test]
fn trust_bundle_must_be_certificates() {
    let mut c = none();
    c.additional_trust_bundle = Some(fixture_text("ca.pem"));
    ok(&c);
    c.additional_trust_bundle = Some("hello".into());
    bad(&c, "additionalTrustBundle", ErrorKind::Invalid);
    c.additional_trust_bundle =
        Some("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".into());
    bad(&c, "additionalTrustBundle", ErrorKind::Invalid);
    let broken = fixture_text("ca.pem").replace("MII", "XXX");
    c.additional_trust_bundle = Some(broken);
    bad(&c, "additionalTrustBundle", ErrorKind::Invalid);
    // A certificate cut short says so in words, not in the parser's internals.
    let pem = fixture_text("ca.pem");
    let mut lines: Vec<&str> = pem.lines().collect();
    lines.drain(3..6);
    c.additional_trust_bundle = Some(lines.join("\n"));
    let e = bad(&c, "additionalTrustBundle", ErrorKind::Invalid);
    assert!(e.detail.contains("cut short or corrupt"), "{e}");
    assert!(!e.detail.contains("Nom"), "{e}");
}

#[test]
fn trust_bundle_certificates_out_of_their_validity_are_named() {
    let pem = fixture_text("ca.pem");
    // The fixture is valid from 2026-11-21 to 2126-10-28.
    assert!(trust_bundle_validity(&pem, 1_800_000_000).is_empty());
    let early = trust_bundle_validity(&pem, 1_700_000_000);
    assert_eq!(early.len(), 1);
    assert!(
        early[0].contains("certificate 1 (CN=test mirror CA) is not valid before"),
        "{early:?}"
    );
    let late = trust_bundle_validity(&format!("{pem}{pem}"), 5_000_000_000);
    assert_eq!(late.len(), 2);
    assert!(
        late[1].starts_with("certificate 2 (CN=test mirror CA) expired on"),
        "{late:?}"
    );
}

// ---- proxy ----

fn with_proxy(http: &str, https: &str, no: &str) -> InstallConfig {
    let mut c = none();
    c.proxy = Some(Proxy {
        http_proxy: http.into(),
        https_proxy: https.into(),
        no_proxy: no.into(),
    });
    c
}

#[test]
fn proxy_needs_a_url() {
    bad(
        &with_proxy("", "", ".example.com"),
        "proxy",
        ErrorKind::Required,
    );
    ok(&with_proxy("http://proxy.example.com:3128", "", ""));
}

#[test]
fn proxy_schemes() {
    bad(
        &with_proxy("https://p:3128", "", ""),
        "proxy.httpProxy",
        ErrorKind::NotSupported,
    );
    bad(
        &with_proxy("", "ftp://p", ""),
        "proxy.httpsProxy",
        ErrorKind::NotSupported,
    );
    bad(
        &with_proxy("p:3128", "", ""),
        "proxy.httpProxy",
        ErrorKind::Invalid,
    );
    ok(&with_proxy(
        "http://user:pw@p:3128",
        "https://[fd00::1]:8443",
        "",
    ));
}

#[test]
fn proxy_ip_outside_cluster_networks() {
    bad(
        &with_proxy("http://10.128.0.5:3128", "", ""),
        "proxy.httpProxy",
        ErrorKind::Invalid,
    );
    bad(
        &with_proxy("http://172.30.0.9:3128", "", ""),
        "proxy.httpProxy",
        ErrorKind::Invalid,
    );
    bad(
        &with_proxy("http://100.64.0.9:3128", "", ""),
        "proxy.httpProxy",
        ErrorKind::Invalid,
    );
    ok(&with_proxy("http://192.168.111.9:3128", "", ""));
}

#[test]
fn no_proxy_rules() {
    bad(
        &with_proxy("http://p", "", "a.com, b.com"),
        "proxy.noProxy",
        ErrorKind::Invalid,
    );
    let e = bad(
        &with_proxy("http://p", "", "a.com,*.b.com"),
        "proxy.noProxy",
        ErrorKind::Invalid,
    );
    assert!(e.detail.contains("element 1"));
    ok(&with_proxy("http://p", "", "*"));
    ok(&with_proxy(
        "http://p",
        "",
        ".example.com,10.0.0.0/8,192.168.1.1,fd00::/8,localhost",
    ));
}

// ---- mirrors, publish, credentials ----

#[test]
fn mirror_names_are_repositories() {
    let mut c = none();
    c.image_digest_sources = vec![ImageDigestSource {
        source: "quay.io/okd/scos-release:4.20".into(),
        mirrors: vec![
            "mirror.local:5000/okd@sha256:abc".into(),
            "mirror.local:5000".into(),
        ],
        source_policy: None,
    }];
    bad(&c, "imageDigestSources[0].source", ErrorKind::Invalid);
    bad(&c, "imageDigestSources[0].mirrors[0]", ErrorKind::Invalid);
    assert!(
        !validate(&c)
            .errors
            .iter()
            .any(|e| e.path == "imageDigestSources[0].mirrors[1]")
    );
    c.image_digest_sources[0].source = "quay.io/okd/scos-release".into();
    c.image_digest_sources[0].mirrors.remove(0);
    ok(&c);
}

#[test]
fn content_and_digest_sources_exclusive_and_deprecated() {
    let mut c = none();
    c.image_content_sources = vec![ImageContentSource {
        source: "quay.io/okd".into(),
        mirrors: vec!["m.local/okd".into()],
    }];
    let v = validate(&c);
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    assert!(v.warnings.iter().any(|w| w.path == "imageContentSources"));
    assert!(
        v.warnings
            .iter()
            .any(|w| w.path == "imageContentSources[0].mirrors[0]"),
        "missing credentials warning"
    );
    c.image_digest_sources = vec![ImageDigestSource {
        source: "quay.io/x".into(),
        mirrors: vec![],
        source_policy: None,
    }];
    bad(&c, "imageContentSources", ErrorKind::Forbidden);
}

#[test]
fn publish_rules() {
    let mut c = none();
    c.publish = PublishingStrategy::Internal;
    bad(&c, "publish", ErrorKind::Invalid);
    c.publish = PublishingStrategy::Mixed;
    bad(&c, "publish", ErrorKind::Invalid);
    c.publish = PublishingStrategy::External;
    c.operator_publishing_strategy = Some(OperatorPublishingStrategy {
        ingress: EndpointPublishing::Internal,
        api_server: EndpointPublishing::External,
    });
    bad(&c, "operatorPublishingStrategy", ErrorKind::Forbidden);
}

#[test]
fn credentials_mode_not_on_these_platforms() {
    let mut c = vs();
    c.credentials_mode = Some(CredentialsMode::Manual);
    bad(&c, "credentialsMode", ErrorKind::Invalid);
}

// ---- capabilities and features ----

pub(crate) fn caps(c: &mut InstallConfig, set: BaselineCapabilitySet, extra: &[Capability]) {
    c.capabilities = Some(Capabilities {
        baseline_capability_set: set,
        additional_enabled_capabilities: extra.to_vec(),
    });
}

#[test]
fn baremetal_needs_baremetal_capability() {
    let mut c = bm();
    caps(&mut c, BaselineCapabilitySet::None, &[Capability::Ingress]);
    bad(
        &c,
        "capabilities.additionalEnabledCapabilities",
        ErrorKind::Invalid,
    );
    caps(
        &mut c,
        BaselineCapabilitySet::None,
        &[Capability::Ingress, Capability::Baremetal],
    );
    ok(&c);
}

#[test]
fn marketplace_needs_olm() {
    let mut c = none();
    caps(&mut c, BaselineCapabilitySet::V4_11, &[Capability::Ingress]);
    let e = bad(
        &c,
        "capabilities.additionalEnabledCapabilities",
        ErrorKind::Invalid,
    );
    assert!(e.detail.contains("OperatorLifecycleManager"));
}

#[test]
fn ingress_cannot_be_disabled() {
    let mut c = none();
    caps(&mut c, BaselineCapabilitySet::None, &[]);
    // Only the baseline was written, so that is the field blamed.
    let e = bad(&c, "capabilities.baselineCapabilitySet", ErrorKind::Invalid);
    assert_eq!(e.value.as_deref(), Some("Ingress"));
}

#[test]
fn cloud_capabilities_only_disabled_on_baremetal_and_none() {
    let mut c = vs();
    caps(&mut c, BaselineCapabilitySet::None, &[Capability::Ingress]);
    let errs = validate(&c).errors;
    assert!(
        errs.iter()
            .any(|e| e.value.as_deref() == Some("CloudCredential"))
    );
    assert!(
        errs.iter()
            .any(|e| e.value.as_deref() == Some("CloudControllerManager"))
    );
    let mut n = none();
    caps(&mut n, BaselineCapabilitySet::None, &[Capability::Ingress]);
    ok(&n);
}

#[test]
fn feature_gates_need_custom_feature_set() {
    let mut c = none();
    c.feature_gates = vec!["Foo=true".into()];
    bad(&c, "featureGates", ErrorKind::Forbidden);
    c.feature_set = FeatureSet::CustomNoUpgrade;
    ok(&c);
    c.feature_gates.push("Bar=maybe".into());
    bad(&c, "featureGates[1]", ErrorKind::Invalid);
}

// ---- platform ----

#[test]
fn exactly_one_platform() {
    let mut c = none();
    c.platform.baremetal = Some(BaremetalPlatform::default());
    bad(&c, "platform", ErrorKind::Invalid);
    let mut c = none();
    c.platform = PlatformSection::default();
    bad(&c, "platform", ErrorKind::Required);
    let mut c = none();
    c.platform = PlatformSection {
        unsupported: UnsupportedPlatforms::with("gcp", serde_json::json!({})).unwrap(),
        ..PlatformSection::default()
    };
    bad(&c, "platform.gcp", ErrorKind::NotSupported);
}

#[test]
fn vsphere_field_rules() {
    let mut c = vs();
    let p = c.platform.vsphere.as_mut().unwrap();
    p.vcenters[0].password.clear();
    p.failure_domains[0].server = "other.example.com".into();
    p.failure_domains[0].topology.datastore = "ds1".into();
    p.failure_domains[0].topology.networks.clear();
    bad(
        &c,
        "platform.vsphere.vcenters[0].password",
        ErrorKind::Required,
    );
    bad(
        &c,
        "platform.vsphere.failureDomains[0].server",
        ErrorKind::Invalid,
    );
    bad(
        &c,
        "platform.vsphere.failureDomains[0].topology.datastore",
        ErrorKind::Invalid,
    );
    bad(
        &c,
        "platform.vsphere.failureDomains[0].topology.networks",
        ErrorKind::Required,
    );
}

// ---- topologies and extensions ----

#[test]
fn single_node_checks() {
    assert!(validate_single_node(&none()).is_empty());
    let mut c = none();
    c.control_plane.as_mut().unwrap().replicas = Some(3);
    c.bootstrap_in_place = None;
    let errs = validate_single_node(&c);
    assert!(
        errs.iter()
            .any(|e| e.path == "controlPlane.replicas" && e.kind == ErrorKind::Invalid)
    );
    assert!(
        errs.iter()
            .any(|e| e.path == "bootstrapInPlace" && e.kind == ErrorKind::Required)
    );
    c.bootstrap_in_place = Some(BootstrapInPlace {
        installation_disk: " ".into(),
    });
    let errs = validate_single_node(&c);
    assert!(errs.iter().any(|e| e.path == "bootstrapInPlace.installationDisk" && e.kind == ErrorKind::Required));
    // Not part of normal validation:
    assert!(validate(&c).errors.is_empty());
}

#[test]
fn image_mode_rules() {
    let mut c = bm();
    c.image_mode = Some(ImageMode {
        enabled: true,
        ..ImageMode::default()
    });
    ok(&c);
    let mut s = none();
    s.image_mode = Some(ImageMode {
        enabled: true,
        ..ImageMode::default()
    });
    bad(&s, "imageMode", ErrorKind::Forbidden);
    s.image_mode = Some(ImageMode {
        enabled: false,
        ..ImageMode::default()
    });
    ok(&s);
    c.feature_set = FeatureSet::TechPreviewNoUpgrade;
    c.arbiter = Some(arbiter_pool());
    bad(&c, "imageMode", ErrorKind::Forbidden);
    let mut c = bm();
    c.image_mode = Some(ImageMode {
        enabled: true,
        ..ImageMode::default()
    });
    c.compute[0].name = "infra".into();
    let e = bad(&c, "compute[0].name", ErrorKind::Invalid);
    assert!(e.detail.contains("imageMode"));
}

fn image_pool(name: &str) -> ImageModePool {
    ImageModePool {
        name: name.into(),
        pre_built_image: format!(
            "registry.example.com:5000/os/{name}@sha256:{}",
            "0a".repeat(32)
        ),
        containerfile: "FROM configs AS final\nRUN true\n".into(),
        rendered_image_push_spec: format!("registry.example.com:5000/os/{name}:latest"),
        rendered_image_push_secret: "push-credentials".into(),
    }
}

#[test]
fn image_mode_pools_with_every_value_are_valid() {
    let mut c = bm();
    c.image_mode = Some(ImageMode {
        enabled: true,
        pools: vec![image_pool("master"), image_pool("worker")],
    });
    ok(&c);
}

#[test]
fn image_mode_pools_report_every_bad_value_with_its_path() {
    let mut c = bm();
    let mut tagged = image_pool("worker");
    tagged.pre_built_image = "registry.example.com:5000/os/worker:v1".into();
    tagged.rendered_image_push_spec = "Registry.example.com/UPPER:latest".into();
    tagged.rendered_image_push_secret = "Push_Secret".into();
    tagged.containerfile = " ".into();
    let mut short_digest = image_pool("master");
    short_digest.pre_built_image = "quay.io/os/master@sha256:abc".into();
    c.image_mode = Some(ImageMode {
        enabled: true,
        pools: vec![
            short_digest,
            tagged,
            image_pool("worker"),
            image_pool("infra"),
            ImageModePool::default(),
        ],
    });
    let e = bad(&c, "imageMode.pools[0].preBuiltImage", ErrorKind::Invalid);
    assert!(e.detail.contains("64"), "{e}");
    let e = bad(&c, "imageMode.pools[1].preBuiltImage", ErrorKind::Invalid);
    assert!(e.detail.contains("digest"), "{e}");
    bad(&c, "imageMode.pools[1].containerfile", ErrorKind::Required);
    bad(
        &c,
        "imageMode.pools[1].renderedImagePushSpec",
        ErrorKind::Invalid,
    );
    bad(
        &c,
        "imageMode.pools[1].renderedImagePushSecret",
        ErrorKind::Invalid,
    );
    bad(&c, "imageMode.pools[2].name", ErrorKind::Duplicate);
    bad(&c, "imageMode.pools[3].name", ErrorKind::NotSupported);
    bad(&c, "imageMode.pools[4].name", ErrorKind::Required);
    bad(&c, "imageMode.pools[4].preBuiltImage", ErrorKind::Required);
    bad(
        &c,
        "imageMode.pools[4].renderedImagePushSpec",
        ErrorKind::Required,
    );
    bad(
        &c,
        "imageMode.pools[4].renderedImagePushSecret",
        ErrorKind::Required,
    );
}

#[test]
fn image_mode_pools_while_disabled_only_warn() {
    let mut c = bm();
    c.image_mode = Some(ImageMode {
        enabled: false,
        pools: vec![image_pool("master")],
    });
    let v = validate(&c);
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    assert!(
        v.warnings.iter().any(|w| w.path == "imageMode.pools"),
        "{:?}",
        v.warnings
    );
}

#[test]
fn bootstrap_pivot_rules() {
    let mut c = bm();
    c.bootstrap_pivot = Some(BootstrapPivot {
        installation_disk: "/dev/sda".into(),
    });
    ok(&c);
    c.bootstrap_pivot = Some(BootstrapPivot {
        installation_disk: String::new(),
    });
    bad(&c, "bootstrapPivot.installationDisk", ErrorKind::Required);
    c.bootstrap_pivot = Some(BootstrapPivot {
        installation_disk: "sda".into(),
    });
    bad(&c, "bootstrapPivot.installationDisk", ErrorKind::Invalid);
    c.bootstrap_pivot = Some(BootstrapPivot {
        installation_disk: "/dev/../etc".into(),
    });
    bad(&c, "bootstrapPivot.installationDisk", ErrorKind::Invalid);

    let mut s = none();
    s.bootstrap_pivot = Some(BootstrapPivot {
        installation_disk: "/dev/vda".into(),
    });
    bad(&s, "controlPlane.replicas", ErrorKind::Invalid);
    bad(&s, "bootstrapPivot", ErrorKind::Forbidden);

    let mut v = vs();
    v.bootstrap_pivot = Some(BootstrapPivot {
        installation_disk: "/dev/sda".into(),
    });
    bad(&v, "platform", ErrorKind::Invalid);
}

#[test]
fn fips_host_rule() {
    let mut c = none();
    assert!(validate_fips_host(&c, false, false).is_none());
    c.fips = true;
    c.ssh_key = fixture_text("rsa.pub");
    let e = validate_fips_host(&c, false, false).unwrap();
    assert_eq!((e.path.as_str(), e.kind), ("fips", ErrorKind::Forbidden));
    assert!(validate_fips_host(&c, true, false).is_none());
    assert!(validate_fips_host(&c, false, true).is_none());
}

#[test]
fn baremetal_host_rules() {
    let mut c = bm();
    let host = |name: &str, mac: &str, role: HostRole| BaremetalHost {
        name: name.into(),
        boot_mac_address: Some(mac.into()),
        role: Some(role),
        ..BaremetalHost::default()
    };
    bm_platform(&mut c).hosts = vec![
        host("m0", "52:54:00:00:00:01", HostRole::Master),
        host("m1", "52:54:00:00:00:02", HostRole::Master),
        host("m2", "52:54:00:00:00:03", HostRole::Master),
    ];
    ok(&c);
    bm_platform(&mut c).hosts = vec![
        host("m0", "52:54:00:00:00:01", HostRole::Master),
        host("m0", "52:54:00:00:00:01", HostRole::Master),
        host("m2", "52-54-00", HostRole::Master),
    ];
    bad(&c, "platform.baremetal.hosts[1].name", ErrorKind::Duplicate);
    bad(
        &c,
        "platform.baremetal.hosts[1].bootMACAddress",
        ErrorKind::Duplicate,
    );
    bad(
        &c,
        "platform.baremetal.hosts[2].bootMACAddress",
        ErrorKind::Invalid,
    );
}

/// Asserts that `text` does not load and has a `kind` problem at `path`.
#[track_caller]
pub(crate) fn parse_rejects(text: &str, path: &str, kind: ErrorKind) {
    let err = parse_str(text, "install-config.yaml").unwrap_err();
    let found = match &err {
        LoadError::Invalid { errors, .. } => {
            errors.iter().any(|e| e.path == path && e.kind == kind)
        }
        _ => false,
    };
    assert!(found, "no {kind:?} at {path}: {err}");
}

#[test]
fn baremetal_host_role_is_a_known_value() {
    let text = fixture_text("baremetal-compact.yaml").replacen("role: master", "role: boss", 1);
    parse_rejects(
        &text,
        "platform.baremetal.hosts[0].role",
        ErrorKind::NotSupported,
    );
}

#[test]
fn json_schema_is_the_explain_source() {
    let schema = json_schema();
    assert_eq!(schema["title"], "InstallConfig");
    assert!(
        schema["properties"]["imageMode"]["description"]
            .as_str()
            .unwrap()
            .starts_with("okd-install extension")
    );
}

/// External DNS records: only with a user-managed load balancer, and only with the
/// OnPremDNSRecords gate (a TechPreview gate upstream); both platforms, one rule each.
#[test]
fn external_dns_records_need_a_user_managed_lb_and_the_gate() {
    let external = Some(DnsRecordsType::External);
    let user_managed = Some(LoadBalancer {
        lb_type: LoadBalancerType::UserManaged,
    });
    let mut b = bm();
    b.platform.baremetal.as_mut().unwrap().dns_records_type = external;
    let path = "platform.baremetal.dnsRecordsType";
    let e = bad(&b, path, ErrorKind::Invalid);
    assert!(e.detail.contains("loadBalancer.type: UserManaged"), "{e}");
    let e = bad(&b, path, ErrorKind::Forbidden);
    assert!(e.detail.contains("OnPremDNSRecords"), "{e}");
    b.platform.baremetal.as_mut().unwrap().load_balancer = user_managed.clone();
    b.feature_set = FeatureSet::TechPreviewNoUpgrade;
    ok(&b);
    // Internal needs neither.
    let mut b = bm();
    b.platform.baremetal.as_mut().unwrap().dns_records_type = Some(DnsRecordsType::Internal);
    ok(&b);

    let mut v = vs();
    v.platform.vsphere.as_mut().unwrap().dns_records_type = external;
    let path = "platform.vsphere.dnsRecordsType";
    bad(&v, path, ErrorKind::Invalid);
    v.platform.vsphere.as_mut().unwrap().load_balancer = user_managed;
    v.feature_set = FeatureSet::CustomNoUpgrade;
    v.feature_gates = vec!["OnPremDNSRecords=true".into()];
    ok(&v);
}

/// The provisioning gateway follows the cluster-baremetal-operator's Provisioning rules:
/// a host address of the managed provisioning network, outside the DHCP range and not the
/// provisioning IP. The bare-metal fixture has the upstream defaults: 172.22.0.0/24,
/// cluster IP .3, DHCP .10-.254.
#[test]
fn provisioning_network_gateway_rules() {
    let path = "platform.baremetal.provisioningNetworkGateway";
    let with = |gw: &str| {
        let mut c = bm();
        bm_platform(&mut c).provisioning_network_gateway = Some(ip(gw));
        c
    };
    ok(&with("172.22.0.1"));
    for (gw, why) in [
        ("172.23.0.1", "is not in the provisioning network"),
        ("172.22.0.3", "clusterProvisioningIP"),
        ("172.22.0.0", "network or broadcast"),
        ("172.22.0.255", "network or broadcast"),
        ("172.22.0.100", "DHCP range"),
        ("gateway.example.com", "not an IP address"),
    ] {
        let e = bad(&with(gw), path, ErrorKind::Invalid);
        assert!(e.detail.contains(why), "{gw}: {e}");
    }
    for mode in [
        ProvisioningNetwork::Unmanaged,
        ProvisioningNetwork::Disabled,
    ] {
        let mut c = with("172.22.0.1");
        bm_platform(&mut c).provisioning_network = Some(mode);
        let e = bad(&c, path, ErrorKind::Invalid);
        assert!(e.detail.contains("provisioningNetwork Managed"), "{e}");
    }
}
