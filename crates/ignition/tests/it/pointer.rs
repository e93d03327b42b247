//! Pointer configs and metadata.json, byte for byte.

use ignition::{
    ClusterMetadata, MetadataPlatform, PointerHost, VCenterMetadata, check_json, metadata_json,
    pointer_config,
};

const CA: &str = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const CA_URL: &str = "data:text/plain;charset=utf-8;base64,LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";

fn expected(source: &str) -> String {
    format!(
        r#"{{"ignition":{{"config":{{"merge":[{{"source":"{source}"}}]}},"security":{{"tls":{{"certificateAuthorities":[{{"source":"{CA_URL}"}}]}}}},"version":"3.2.0"}}}}"#
    )
}

#[test]
fn api_int_without_an_api_vip() {
    let host = PointerHost::new("api-int.demo.example.com", None);
    assert_eq!(host, PointerHost::ApiInt("api-int.demo.example.com".into()));
    let json = pointer_config("master", host, CA);
    assert_eq!(
        json,
        expected("https://api-int.demo.example.com:22623/config/master")
    );
    assert_eq!(check_json(&json), vec![]);
}

#[test]
fn ipv4_vip_verbatim() {
    let host = PointerHost::new("demo.example.com", Some("192.168.111.5"));
    let json = pointer_config("worker", host, CA);
    assert_eq!(json, expected("https://192.168.111.5:22623/config/worker"));
}

#[test]
fn ipv6_vip_in_brackets() {
    let host = PointerHost::new("demo.example.com", Some("fd00::5"));
    let json = pointer_config("arbiter", host, CA);
    assert_eq!(json, expected("https://[fd00::5]:22623/config/arbiter"));
    assert_eq!(check_json(&json), vec![]);
}

#[test]
fn a_vip_that_is_not_an_address_is_used_verbatim() {
    let host = PointerHost::new("c.example.org", Some("api-vip.example.org"));
    assert_eq!(host, PointerHost::Literal("api-vip.example.org".into()));
    assert_eq!(host.to_string(), "api-vip.example.org");
}

fn meta(platform: MetadataPlatform) -> ClusterMetadata {
    ClusterMetadata {
        cluster_name: "demo".into(),
        cluster_id: "6f1e2a4c-0a5b-4d0e-9c67-1b2c3d4e5f60".into(),
        infra_id: "demo-x7k2p".into(),
        platform,
        feature_set: String::new(),
        custom_feature_set: None,
    }
}

#[test]
fn metadata_json_shapes() {
    assert_eq!(
        metadata_json(&meta(MetadataPlatform::None)),
        r#"{"clusterName":"demo","clusterID":"6f1e2a4c-0a5b-4d0e-9c67-1b2c3d4e5f60","infraID":"demo-x7k2p","featureSet":""}"#
    );
    let baremetal = MetadataPlatform::BareMetal {
        libvirt_uri: "qemu:///system".into(),
        bootstrap_provisioning_ip: String::new(),
    };
    assert_eq!(
        metadata_json(&meta(baremetal)),
        r#"{"clusterName":"demo","clusterID":"6f1e2a4c-0a5b-4d0e-9c67-1b2c3d4e5f60","infraID":"demo-x7k2p","baremetal":{"libvirtURI":"qemu:///system","bootstrapProvisioningIP":""},"featureSet":""}"#
    );
    let mut m = meta(MetadataPlatform::VSphere(vec![VCenterMetadata {
        vcenter: "vc.example.com".into(),
        username: "admin".into(),
        password: None,
    }]));
    m.feature_set = "TechPreviewNoUpgrade".into();
    m.custom_feature_set = Some(serde_json::json!({"enabled": ["A"]}));
    assert_eq!(
        metadata_json(&m),
        r#"{"clusterName":"demo","clusterID":"6f1e2a4c-0a5b-4d0e-9c67-1b2c3d4e5f60","infraID":"demo-x7k2p","vsphere":{"VCenters":[{"vCenter":"vc.example.com","username":"admin"}]},"featureSet":"TechPreviewNoUpgrade","customFeatureSet":{"enabled":["A"]}}"#
    );
}
