//! One test per row of issue 14: what the real operators need from the vSphere and bare-metal
//! manifests, written as upstream release-4.19 writes it.

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use k8s_openapi::api::rbac::v1::Role;
use manifests::inputs::{DnsRecordsType, LoadBalancerType, ManifestInputs, Platform};
use manifests::objects::*;
use manifests::{Dir, generate};
use serde::de::DeserializeOwned;

use crate::common;

fn file<T: DeserializeOwned>(i: &ManifestInputs, dir: Dir, name: &str) -> T {
    let g = generate(i).unwrap();
    let f = g
        .get(dir, name)
        .unwrap_or_else(|| panic!("{dir}/{name} not generated"));
    serde_saphyr::from_slice(&f.data).unwrap()
}

/// Whether `generate` writes `<dir>/<name>` for `i`.
fn has(i: &ManifestInputs, dir: Dir, name: &str) -> bool {
    generate(i).unwrap().get(dir, name).is_some()
}

fn vsphere(i: &mut ManifestInputs) -> &mut manifests::inputs::VSphere {
    match &mut i.platform {
        Platform::VSphere(vs) => vs,
        _ => panic!("not a vSphere fixture"),
    }
}

fn baremetal(i: &mut ManifestInputs) -> &mut manifests::inputs::BareMetal {
    match &mut i.platform {
        Platform::BareMetal(bm) => bm,
        _ => panic!("not a bare-metal fixture"),
    }
}

fn infra(i: &ManifestInputs) -> Infrastructure {
    file(i, Dir::Manifests, "cluster-infrastructure-02-config.yml")
}

#[test]
fn vsphere_credentials_secret_per_vcenter() {
    let i = common::vsphere_ha_dual_stack();
    let s: Secret = file(&i, Dir::Openshift, "99_cloud-creds-secret.yaml");
    assert_eq!(
        (s.metadata.namespace.as_deref(), s.metadata.name.as_deref()),
        (Some("kube-system"), Some("vsphere-creds"))
    );
    let data = s.data.unwrap();
    assert_eq!(
        data["vcenter.example.com.username"].0,
        b"installer@vsphere.local"
    );
    assert_eq!(
        data["vcenter.example.com.password"].0,
        common::VCENTER_PASSWORD.as_bytes()
    );
    // The password is nowhere else, and not in a debug print of the inputs.
    let g = generate(&i).unwrap();
    for f in g
        .files
        .iter()
        .filter(|f| f.name != "99_cloud-creds-secret.yaml")
    {
        assert!(
            !String::from_utf8_lossy(&f.data).contains(common::VCENTER_PASSWORD),
            "{}",
            f.rel_path()
        );
    }
    assert!(!format!("{i:?}").contains(common::VCENTER_PASSWORD));
}

#[test]
fn vsphere_credentials_reader_role() {
    let i = common::vsphere_ha_dual_stack();
    let r: Role = file(&i, Dir::Openshift, "99_role-cloud-creds-secret-reader.yaml");
    assert_eq!(r.metadata.namespace.as_deref(), Some("kube-system"));
    let rule = &r.rules.unwrap()[0];
    assert_eq!(
        rule.resource_names.as_deref(),
        Some(&["vsphere-creds".to_string()][..])
    );
    assert_eq!(rule.verbs, ["get"]);
    assert!(!has(
        &common::baremetal_compact(),
        Dir::Openshift,
        "99_cloud-creds-secret.yaml"
    ));
}

#[test]
fn vsphere_cloud_config_sets_insecure_flag() {
    let i = common::vsphere_ha_dual_stack();
    let cm: ConfigMap = file(&i, Dir::Manifests, "cloud-provider-config.yaml");
    let text = &cm.data.unwrap()["config"];
    let config: serde_json::Value = serde_saphyr::from_str(text).unwrap();
    assert_eq!(config["global"]["insecureFlag"], true);
    assert_eq!(config["global"]["secretName"], "vsphere-creds");
    // One failure domain: no zone/region tag categories (only with several, as upstream).
    assert!(config.get("labels").is_none());
}

#[test]
fn load_balancer_type_comes_from_the_install_config() {
    let mut i = common::vsphere_ha_dual_stack();
    let lb = |i: &ManifestInputs| {
        infra(i)
            .status
            .unwrap()
            .platform_status
            .vsphere
            .unwrap()
            .load_balancer
            .map(|l| l.type_)
    };
    assert_eq!(lb(&i).as_deref(), Some("UserManaged"));
    vsphere(&mut i).load_balancer = None;
    assert_eq!(lb(&i), None);
    let mut b = common::baremetal_compact();
    baremetal(&mut b).load_balancer = Some(LoadBalancerType::UserManaged);
    let status = infra(&b).status.unwrap().platform_status.baremetal.unwrap();
    assert_eq!(status.load_balancer.unwrap().type_, "UserManaged");
}

/// The bare-metal status names its DNS records type when the caller passes one (releases
/// from 4.21) and has no such field otherwise; vSphere's status never has it.
#[test]
fn dns_records_type_reaches_the_baremetal_status() {
    let status = |i: &ManifestInputs| infra(i).status.unwrap().platform_status;
    let mut b = common::baremetal_compact();
    assert_eq!(status(&b).baremetal.unwrap().dns_records_type, None);
    baremetal(&mut b).dns_records_type = Some(DnsRecordsType::External);
    assert_eq!(
        status(&b).baremetal.unwrap().dns_records_type.as_deref(),
        Some("External")
    );
    let v = common::vsphere_ha_dual_stack();
    assert_eq!(status(&v).vsphere.unwrap().dns_records_type, None);
}

#[test]
fn provisioning_cr_carries_the_network_settings() {
    let p: Provisioning = file(
        &common::baremetal_compact(),
        Dir::Openshift,
        "99_baremetal-provisioning-config.yaml",
    );
    assert_eq!(
        p.metadata.name.as_deref(),
        Some("provisioning-configuration")
    );
    let s = p.spec;
    assert_eq!(s.provisioning_network, "Managed");
    assert_eq!(s.provisioning_ip.as_deref(), Some("172.22.0.3"));
    assert_eq!(
        s.provisioning_network_cidr.as_deref(),
        Some("172.22.0.0/24")
    );
    assert_eq!(
        s.provisioning_dhcp_range.as_deref(),
        Some("172.22.0.10,172.22.0.254")
    );
    assert_eq!(s.additional_ntp_servers, ["ntp.example.com"]);
    assert!(!s.watch_all_namespaces);
    assert_eq!(s.provisioning_network_gateway, None);
}

#[test]
fn provisioning_gateway_reaches_the_provisioning_cr() {
    let mut b = common::baremetal_compact();
    baremetal(&mut b).provisioning.gateway = Some("172.22.0.1".parse().unwrap());
    let p: Provisioning = file(&b, Dir::Openshift, "99_baremetal-provisioning-config.yaml");
    assert_eq!(
        p.spec.provisioning_network_gateway.as_deref(),
        Some("172.22.0.1")
    );
}

#[test]
fn ovn_join_subnet_reaches_the_network_operator() {
    let op: OperatorNetwork = file(
        &common::baremetal_compact(),
        Dir::Manifests,
        "cluster-network-03-config.yml",
    );
    assert_eq!(op.api_version, "operator.openshift.io/v1");
    assert_eq!(
        op.spec
            .default_network
            .ovn_kubernetes_config
            .ipv4
            .internal_join_subnet,
        "100.65.0.0/16"
    );
    assert_eq!(op.spec.cluster_network[0].cidr, "10.128.0.0/14");
    assert!(!has(
        &common::sno(),
        Dir::Manifests,
        "cluster-network-03-config.yml"
    ));
}

#[test]
fn update_channel_and_upstream_are_written() {
    let cv: ClusterVersion = file(&common::sno(), Dir::Manifests, "cvo-overrides.yaml");
    assert_eq!(cv.spec.channel.as_deref(), Some("stable-scos-4"));
    assert_eq!(
        cv.spec.upstream.as_deref(),
        Some("https://amd64.origin.releases.ci.openshift.org/graph")
    );
}

#[test]
fn network_blocks_external_ips_by_default() {
    let g = generate(&common::sno()).unwrap();
    let text = String::from_utf8(
        g.get(Dir::Manifests, "cluster-network-02-config.yml")
            .unwrap()
            .data
            .clone(),
    )
    .unwrap();
    let v: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(v["spec"]["externalIP"], serde_json::json!({"policy": {}}));
}

#[test]
fn vsphere_status_without_vips_names_machine_networks() {
    let mut i = common::vsphere_ha_dual_stack();
    vsphere(&mut i).api_vips.clear();
    vsphere(&mut i).ingress_vips.clear();
    let status = infra(&i).status.unwrap().platform_status.vsphere.unwrap();
    assert!(status.api_server_internal_i_ps.is_empty());
    assert!(status.load_balancer.is_none());
    assert_eq!(
        status.machine_networks,
        ["192.168.111.0/24", "fd2e:6f44:5dd8:c956::/120"]
    );
}

#[test]
fn vsphere_spec_defaults_the_template_and_gates_node_networking() {
    let mut i = common::vsphere_ha_dual_stack();
    let spec = infra(&i).spec.platform_spec.vsphere.unwrap();
    assert_eq!(
        spec.failure_domains[0].topology.template.as_deref(),
        Some("/dc1/vm/vs-q2w5z-rhcos-region-a-zone-a")
    );
    assert!(spec.node_networking.external.network_subnet_cidr.is_empty());
    vsphere(&mut i).multi_networks = true;
    let spec = infra(&i).spec.platform_spec.vsphere.unwrap();
    assert_eq!(
        spec.node_networking.internal.network_subnet_cidr,
        ["192.168.111.0/24", "fd2e:6f44:5dd8:c956::/120"]
    );
}

#[test]
fn installer_version_is_recorded() {
    let mut i = common::sno();
    i.installer_version = "4.19.0-okd-scos.19".into();
    let cm: ConfigMap = file(&i, Dir::Openshift, "openshift-install-manifests.yaml");
    assert_eq!(cm.data.unwrap()["version"], "4.19.0-okd-scos.19");
}
