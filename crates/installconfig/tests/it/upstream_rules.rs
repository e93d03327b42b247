//! The install-config rules of the upstream 4.19 installer that okd-install lacked: one test
//! per rule, each with a failing and a passing variant.

use installconfig::validate::{FeatureGate, baseline_capabilities, gate_enabled, validate};
use installconfig::*;

use crate::fixture_text;
use crate::validate::{bad, bm, bm_platform, caps, cidr, dual, net, none, ok, parse_rejects, vs};

fn vsp(c: &mut InstallConfig) -> &mut VspherePlatform {
    c.platform.vsphere.as_mut().unwrap()
}

/// Asserts an Invalid error at `platform.baremetal.<field>`.
#[track_caller]
fn bm_invalid(c: &InstallConfig, field: &str) -> FieldError {
    bad(
        c,
        &format!("platform.baremetal.{field}"),
        ErrorKind::Invalid,
    )
}

fn errors_at(c: &InstallConfig, path: &str) -> Vec<FieldError> {
    validate(c)
        .errors
        .into_iter()
        .filter(|e| e.path == path)
        .collect()
}

// ---- mirrors ----

fn with_mirror(source: &str, mirror: &str) -> InstallConfig {
    let mut c = none();
    c.image_digest_sources = vec![ImageDigestSource {
        source: source.into(),
        mirrors: vec![mirror.into()],
        source_policy: None,
    }];
    c
}

#[test]
fn mirror_source_needs_a_registry_host() {
    let c = with_mirror("openshift/release", "mirror.local:5000/okd");
    let e = bad(&c, "imageDigestSources[0].source", ErrorKind::Invalid);
    assert!(e.detail.contains("registry host"), "{e}");
    ok(&with_mirror(
        "quay.io/openshift/release",
        "mirror.local:5000/okd",
    ));
}

#[test]
fn mirror_needs_a_registry_host() {
    let c = with_mirror("quay.io/okd", "mirror/okd");
    bad(&c, "imageDigestSources[0].mirrors[0]", ErrorKind::Invalid);
    ok(&with_mirror("quay.io/okd", "localhost/okd"));
    ok(&with_mirror("quay.io/okd", "mirror.local:5000"));
    ok(&with_mirror("quay.io/okd", "[fd00::5]:5000/okd"));
}

#[test]
fn mirror_path_components_follow_the_reference_grammar() {
    bad(
        &with_mirror("quay.io/okd", "mirror.local/a..b"),
        "imageDigestSources[0].mirrors[0]",
        ErrorKind::Invalid,
    );
    bad(
        &with_mirror("quay.io/okd", "mirror.local/Upper"),
        "imageDigestSources[0].mirrors[0]",
        ErrorKind::Invalid,
    );
    ok(&with_mirror("quay.io/okd", "mirror.local/a__b/c---d/e.f"));
}

// ---- capabilities on every baseline ----

#[test]
fn baselines_are_those_of_release_4_19() {
    let v411 = baseline_capabilities(BaselineCapabilitySet::V4_11);
    assert!(v411.contains(&Capability::MachineApi));
    assert!(!v411.contains(&Capability::Ingress));
    let v418 = baseline_capabilities(BaselineCapabilitySet::V4_18);
    assert!(v418.contains(&Capability::OperatorLifecycleManagerV1));
    assert_eq!(v418, baseline_capabilities(BaselineCapabilitySet::VCurrent));
    let text = fixture_text("none-sno.yaml").replace(
        "pullSecret:",
        "capabilities:\n  baselineCapabilitySet: v4.19\npullSecret:",
    );
    parse_rejects(
        &text,
        "capabilities.baselineCapabilitySet",
        ErrorKind::NotSupported,
    );
}

#[test]
fn old_baselines_are_checked_too() {
    // v4.11 lacks Ingress, CloudCredential and CloudControllerManager.
    let mut c = vs();
    caps(&mut c, BaselineCapabilitySet::V4_11, &[]);
    let values: Vec<String> = errors_at(&c, "capabilities.baselineCapabilitySet")
        .into_iter()
        .filter_map(|e| e.value)
        .collect();
    for cap in ["Ingress", "CloudCredential", "CloudControllerManager"] {
        assert!(
            values.contains(&cap.to_string()),
            "{cap} missing: {values:?}"
        );
    }
    caps(
        &mut c,
        BaselineCapabilitySet::V4_11,
        &[
            Capability::Ingress,
            Capability::CloudCredential,
            Capability::CloudControllerManager,
            Capability::OperatorLifecycleManager,
        ],
    );
    ok(&c);
    let mut b = bm();
    caps(&mut b, BaselineCapabilitySet::V4_15, &[]);
    bad(&b, "capabilities.baselineCapabilitySet", ErrorKind::Invalid);
    caps(&mut b, BaselineCapabilitySet::V4_16, &[]);
    ok(&b);
}

#[test]
fn okd_feature_set_is_not_a_4_19_feature_set() {
    let text = fixture_text("none-sno.yaml").replace("pullSecret:", "featureSet: OKD\npullSecret:");
    parse_rejects(&text, "featureSet", ErrorKind::NotSupported);
}

// ---- feature gates ----

#[test]
fn gates_follow_the_4_19_feature_sets() {
    let mut c = none();
    assert!(!gate_enabled(&c, FeatureGate::VSphereMultiNetworks));
    c.feature_set = FeatureSet::TechPreviewNoUpgrade;
    assert!(gate_enabled(&c, FeatureGate::HighlyAvailableArbiter));
    assert!(!gate_enabled(&c, FeatureGate::DualReplica));
    c.feature_set = FeatureSet::DevPreviewNoUpgrade;
    assert!(gate_enabled(&c, FeatureGate::DualReplica));
    c.feature_set = FeatureSet::CustomNoUpgrade;
    c.feature_gates = vec!["DualReplica=true".into()];
    assert!(gate_enabled(&c, FeatureGate::DualReplica));
    assert!(!gate_enabled(&c, FeatureGate::HighlyAvailableArbiter));
}

#[test]
fn vsphere_node_networking_is_gated() {
    let mut c = vs();
    vsp(&mut c).node_networking = Some(serde_json::json!({"external": {}}));
    bad(&c, "platform.vsphere.nodeNetworking", ErrorKind::Forbidden);
    c.feature_set = FeatureSet::TechPreviewNoUpgrade;
    ok(&c);
}

#[test]
fn vsphere_multiple_networks_are_gated() {
    let mut c = vs();
    vsp(&mut c).failure_domains[0]
        .topology
        .networks
        .push("Second Network".into());
    bad(
        &c,
        "platform.vsphere.failureDomains[0].topology.networks",
        ErrorKind::Forbidden,
    );
    c.feature_set = FeatureSet::CustomNoUpgrade;
    c.feature_gates = vec!["VSphereMultiNetworks=true".into()];
    ok(&c);
}

#[test]
fn vsphere_data_disks_are_gated() {
    let mut c = vs();
    c.compute[0].platform.vsphere = Some(VsphereMachinePool {
        data_disks: vec![DataDisk {
            name: "d1".into(),
            size_gib: 10,
        }],
        ..VsphereMachinePool::default()
    });
    bad(
        &c,
        "compute[0].platform.vsphere.dataDisks",
        ErrorKind::Forbidden,
    );
}

// ---- dual stack ----

#[test]
fn ipv6_primary_dual_stack_allowed_on_baremetal_and_vsphere() {
    let mut c = bm();
    dual(&mut c);
    let n = net(&mut c);
    n.machine_network.reverse();
    n.service_network.reverse();
    n.cluster_network.reverse();
    let p = bm_platform(&mut c);
    p.api_vips = vec![IpAddrString("fd00:1::5".into())];
    p.ingress_vips = vec![IpAddrString("fd00:1::6".into())];
    ok(&c);

    let mut v = vs();
    dual(&mut v);
    net(&mut v).machine_network.reverse();
    net(&mut v).service_network.reverse();
    net(&mut v).cluster_network.reverse();
    vsp(&mut v).api_vips.clear();
    vsp(&mut v).ingress_vips.clear();
    ok(&v);

    let mut n = none();
    dual(&mut n);
    net(&mut n).machine_network.reverse();
    bad(&n, "networking.machineNetwork", ErrorKind::Invalid);
}

// ---- OVN-Kubernetes ----

const JOIN: &str = "networking.ovnKubernetesConfig.ipv4.internalJoinSubnet";

fn with_join(join: &str) -> InstallConfig {
    let mut c = none();
    net(&mut c).ovn_kubernetes_config = Some(OvnKubernetesConfig {
        ipv4: Some(OvnIpv4Config {
            internal_join_subnet: Some(cidr(join)),
        }),
    });
    c
}

#[test]
fn ovn_config_needs_ovn_network_type() {
    let mut c = with_join("100.66.0.0/16");
    ok(&c);
    net(&mut c).network_type = "Calico".into();
    bad(&c, "networking.ovnKubernetesConfig", ErrorKind::Invalid);
}

#[test]
fn join_subnet_overlap_is_blamed_on_the_join_subnet() {
    let c = with_join("192.168.111.0/24");
    let e = bad(&c, JOIN, ErrorKind::Invalid);
    assert!(e.detail.contains("machineNetwork"), "{e}");
    assert!(errors_at(&c, "networking.machineNetwork[0].cidr").is_empty());
}

#[test]
fn join_subnet_must_be_an_ipv4_network_address() {
    bad(&with_join("fd98::/64"), JOIN, ErrorKind::Invalid);
    bad(&with_join("100.66.0.1/16"), JOIN, ErrorKind::Invalid);
}

#[test]
fn join_subnet_must_fit_every_node() {
    // 10.128.0.0/14 with hostPrefix 23 allows 512 nodes; a /24 has 253 usable addresses.
    let e = bad(&with_join("100.66.0.0/24"), JOIN, ErrorKind::Invalid);
    assert!(e.detail.contains("512"), "{e}");
    ok(&with_join("100.66.0.0/22"));
}

// ---- bare-metal hosts ----

#[test]
fn baremetal_hosts_required_with_machine_api() {
    let mut c = bm();
    bm_platform(&mut c).hosts.clear();
    bad(&c, "platform.baremetal.hosts", ErrorKind::Required);
    caps(
        &mut c,
        BaselineCapabilitySet::None,
        &[Capability::Baremetal, Capability::Ingress],
    );
    ok(&c);
}

#[test]
fn baremetal_host_count_covers_every_pool() {
    let mut c = bm();
    c.compute[0].replicas = Some(2);
    let e = bad(&c, "platform.baremetal.hosts", ErrorKind::Required);
    assert!(e.detail.contains("compute"), "{e}");
    let mut extra = bm_platform(&mut c).hosts[0].clone();
    extra.name = "spare-0".into();
    extra.role = None;
    extra.boot_mac_address = Some("52:54:00:00:50:20".into());
    let mut worker = extra.clone();
    worker.name = "worker-0".into();
    worker.role = Some(HostRole::Worker);
    worker.boot_mac_address = Some("52:54:00:00:50:21".into());
    bm_platform(&mut c).hosts.extend([extra, worker]);
    ok(&c);
}

#[test]
fn baremetal_host_fields() {
    let mut c = bm();
    let h = &mut bm_platform(&mut c).hosts;
    h[0].name = "Master_0".into();
    h[1].boot_mac_address = None;
    h[2].boot_mode = Some(BootMode::UefiSecureBoot);
    h[2].bmc.as_mut().unwrap().address = "ipmi://10.0.0.1".into();
    bad(&c, "platform.baremetal.hosts[0].name", ErrorKind::Invalid);
    bad(
        &c,
        "platform.baremetal.hosts[1].bootMACAddress",
        ErrorKind::Required,
    );
    bad(
        &c,
        "platform.baremetal.hosts[2].bootMode",
        ErrorKind::Invalid,
    );
    bm_platform(&mut c).hosts[2].bmc.as_mut().unwrap().address =
        "redfish://10.0.0.1/redfish/v1/Systems/1".into();
    assert!(errors_at(&c, "platform.baremetal.hosts[2].bootMode").is_empty());
}

#[test]
fn baremetal_root_device_hint_is_a_dev_path() {
    let mut c = bm();
    let hint = |d: &str| {
        Some(RootDeviceHints {
            device_name: Some(d.into()),
            ..RootDeviceHints::default()
        })
    };
    let path = "platform.baremetal.hosts[0].rootDeviceHints.deviceName";
    bm_platform(&mut c).hosts[0].root_device_hints = hint("sda");
    bad(&c, path, ErrorKind::Invalid);
    bm_platform(&mut c).hosts[0].root_device_hints = hint("/dev/disk/by-id/wwn-1");
    bad(&c, path, ErrorKind::Invalid);
    bm_platform(&mut c).hosts[0].root_device_hints = hint("/dev/disk/by-path/pci-0000:00:1f.2");
    ok(&c);
}

#[test]
fn baremetal_network_config_mtu_is_an_integer() {
    let mut c = bm();
    bm_platform(&mut c).hosts[0].network_config =
        Some(serde_json::json!({"interfaces": [{"name": "eno1", "mtu": "9000"}]}));
    bad(
        &c,
        "platform.baremetal.hosts[0].networkConfig.interfaces[0].mtu",
        ErrorKind::Invalid,
    );
    bm_platform(&mut c).hosts[0].network_config =
        Some(serde_json::json!({"interfaces": [{"name": "eno1", "mtu": 9000}]}));
    ok(&c);
}

// ---- bare-metal provisioning ----

#[test]
fn baremetal_provisioning_defaults_are_upstream_ones() {
    let p = bm().platform.baremetal.unwrap();
    assert_eq!(p.provisioning_network, Some(ProvisioningNetwork::Managed));
    assert_eq!(p.provisioning_network_cidr, Some(cidr("172.22.0.0/24")));
    assert_eq!(p.bootstrap_provisioning_ip.unwrap().0, "172.22.0.2");
    assert_eq!(p.cluster_provisioning_ip.unwrap().0, "172.22.0.3");
    assert_eq!(
        p.provisioning_dhcp_range.as_deref(),
        Some("172.22.0.10,172.22.0.254")
    );
    assert!(p.hosts.iter().all(|h| h.boot_mode == Some(BootMode::Uefi)));
}

#[test]
fn baremetal_provisioning_addresses_inside_the_network() {
    let mut c = bm();
    let p = bm_platform(&mut c);
    p.cluster_provisioning_ip = Some(IpAddrString("172.23.0.3".into()));
    p.provisioning_dhcp_range = Some("172.22.0.10,172.23.0.254".into());
    bm_invalid(&c, "clusterProvisioningIP");
    bm_invalid(&c, "provisioningDHCPRange");
    let p = bm_platform(&mut c);
    p.cluster_provisioning_ip = Some(IpAddrString("172.22.0.20".into()));
    p.provisioning_dhcp_range = Some("172.22.0.10,172.22.0.254".into());
    bm_invalid(&c, "clusterProvisioningIP");
}

#[test]
fn baremetal_provisioning_network_shape() {
    let mut c = bm();
    bm_platform(&mut c).provisioning_network_cidr = Some(cidr("192.168.50.0/25"));
    let e = bm_invalid(&c, "provisioningNetworkCIDR");
    assert!(e.detail.contains("machine network"), "{e}");
    bm_platform(&mut c).provisioning_network_cidr = Some(cidr("fd00:22::/48"));
    bm_invalid(&c, "provisioningNetworkCIDR");
}

#[test]
fn baremetal_disabled_provisioning_uses_machine_network() {
    let mut c = bm();
    let p = bm_platform(&mut c);
    p.provisioning_network = Some(ProvisioningNetwork::Disabled);
    p.provisioning_network_cidr = None;
    p.bootstrap_provisioning_ip = None;
    p.provisioning_dhcp_range = None;
    p.cluster_provisioning_ip = Some(IpAddrString("10.99.0.3".into()));
    bm_invalid(&c, "clusterProvisioningIP");
    bm_platform(&mut c).cluster_provisioning_ip = Some(IpAddrString("192.168.50.3".into()));
    ok(&c);
}

#[test]
fn baremetal_provisioning_macs_and_images() {
    let mut c = bm();
    let p = bm_platform(&mut c);
    p.provisioning_mac_address = Some("52:54:00:aa:bb:cc".into());
    p.external_mac_address = Some("52:54:00:AA:BB:CC".into());
    p.cluster_os_image = Some("https://images.example.com/scos.qcow2.gz".into());
    bad(
        &c,
        "platform.baremetal.provisioningMACAddress",
        ErrorKind::Duplicate,
    );
    bad(&c, "platform.baremetal.clusterOSImage", ErrorKind::Invalid);
    let p = bm_platform(&mut c);
    p.external_mac_address = None;
    p.cluster_os_image = Some(format!(
        "https://images.example.com/scos.qcow2.gz?sha256={}",
        "a".repeat(64)
    ));
    ok(&c);
}

// ---- vSphere ----

#[test]
fn vsphere_vcenter_server_is_a_host() {
    let mut c = vs();
    vsp(&mut c).vcenters[0].server = "https://vcenter.example.com/sdk".into();
    bad(
        &c,
        "platform.vsphere.vcenters[0].server",
        ErrorKind::Invalid,
    );
}

#[test]
fn vsphere_failure_domain_names_unique() {
    let mut c = vs();
    let fd = vsp(&mut c).failure_domains[0].clone();
    vsp(&mut c).failure_domains.push(fd);
    bad(
        &c,
        "platform.vsphere.failureDomains[1].name",
        ErrorKind::Duplicate,
    );
}

#[test]
fn vsphere_inventory_paths_are_in_the_datacenter() {
    let mut c = vs();
    let t = &mut vsp(&mut c).failure_domains[0].topology;
    t.datastore = "/dc2/datastore/ds1".into();
    t.folder = Some("/dc1/folder/x".into());
    t.resource_pool = Some("/dc1/host/cluster9/Resources".into());
    let base = "platform.vsphere.failureDomains[0].topology";
    bad(&c, &format!("{base}.datastore"), ErrorKind::Invalid);
    bad(&c, &format!("{base}.folder"), ErrorKind::Invalid);
    bad(&c, &format!("{base}.resourcePool"), ErrorKind::Invalid);
    let t = &mut vsp(&mut c).failure_domains[0].topology;
    t.datastore = "/dc1/datastore/ds1".into();
    t.folder = Some("/dc1/vm/ocp".into());
    t.resource_pool = Some("/dc1/host/cluster1/Resources/ocp".into());
    ok(&c);
}

#[test]
fn vsphere_tags_and_zone_types() {
    let mut c = vs();
    let fd = &mut vsp(&mut c).failure_domains[0];
    fd.topology.tag_ids = vec!["tag-1".into()];
    fd.region_type = Some(RegionType::Datacenter);
    let base = "platform.vsphere.failureDomains[0]";
    bad(
        &c,
        &format!("{base}.topology.tagIDs[0]"),
        ErrorKind::Invalid,
    );
    bad(&c, &format!("{base}.zoneType"), ErrorKind::Required);
    let fd = &mut vsp(&mut c).failure_domains[0];
    fd.topology.tag_ids =
        vec!["urn:vmomi:InventoryServiceTag:5736bf56-49f5-4667-b38c-b97e09dc9578:GLOBAL".into()];
    fd.zone_type = Some(ZoneType::ComputeCluster);
    ok(&c);
}

#[test]
fn vsphere_static_ip_hosts() {
    let mut c = vs();
    let dev = |ip: &str| {
        Some(NetworkDevice {
            ip_addrs: vec![ip.into()],
            gateway: Some("10.0.10.1".into()),
            nameservers: vec!["10.0.10.2".into()],
        })
    };
    let host = |role, ip: &str| VsphereHost {
        role,
        failure_domain: Some("fd1".into()),
        network_device: dev(ip),
    };
    let mut hosts = vec![host(VsphereHostRole::Bootstrap, "10.0.10.20/24")];
    for i in 0..3 {
        hosts.push(host(
            VsphereHostRole::ControlPlane,
            &format!("10.0.10.2{}/24", i + 1),
        ));
        hosts.push(host(VsphereHostRole::Compute, &format!("10.0.10.3{i}/24")));
    }
    vsp(&mut c).hosts = hosts;
    ok(&c);
    let h = &mut vsp(&mut c).hosts;
    h[0].role = VsphereHostRole::Compute;
    h[1].network_device = dev("10.0.10.21");
    h[2].failure_domain = Some("nowhere".into());
    bad(&c, "platform.vsphere.hosts", ErrorKind::Invalid);
    bad(
        &c,
        "platform.vsphere.hosts[1].networkDevice.ipAddrs[0]",
        ErrorKind::Invalid,
    );
    bad(
        &c,
        "platform.vsphere.hosts[2].failureDomain",
        ErrorKind::Invalid,
    );
}

// ---- cluster-config-v1 ----

#[test]
fn redacted_config_has_no_vcenter_credentials() {
    let c = vs();
    let yaml = c.redacted().to_yaml();
    assert!(!yaml.contains("secret-password"), "{yaml}");
    assert!(!yaml.contains("administrator@vsphere.local"), "{yaml}");
    assert!(yaml.contains("vcenter.example.com"));
}

#[test]
fn vsphere_machine_pool_shape() {
    let mut c = vs();
    c.compute[0].platform.vsphere = Some(VsphereMachinePool {
        cpus: Some(6),
        memory_mb: Some(-1),
        zones: vec!["fd9".into()],
        ..VsphereMachinePool::default()
    });
    bad(&c, "compute[0].platform.vsphere.cpus", ErrorKind::Invalid);
    bad(
        &c,
        "compute[0].platform.vsphere.memoryMB",
        ErrorKind::Invalid,
    );
    bad(
        &c,
        "compute[0].platform.vsphere.zones[0]",
        ErrorKind::Invalid,
    );
    c.compute[0].platform.vsphere = Some(VsphereMachinePool {
        cpus: Some(8),
        cores_per_socket: Some(2),
        zones: vec!["fd1".into()],
        ..VsphereMachinePool::default()
    });
    ok(&c);
    vsp(&mut c).default_machine_platform = Some(VsphereMachinePool {
        cores_per_socket: Some(8),
        ..VsphereMachinePool::default()
    });
    bad(
        &c,
        "platform.vsphere.defaultMachinePlatform.coresPerSocket",
        ErrorKind::Invalid,
    );
}
