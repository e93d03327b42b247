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
fn api_int_for_platform_none() {
    let host = PointerHost::for_platform("none", "demo.example.com", &[]);
    assert_eq!(host, PointerHost::ApiInt("demo.example.com".into()));
    let json = pointer_config("master", host, CA);
    assert_eq!(
        json,
        expected("https://api-int.demo.example.com:22623/config/master")
    );
    assert_eq!(check_json(&json), vec![]);
}

#[test]
fn first_ipv4_vip_for_baremetal() {
    let vips = vec!["192.168.111.5".to_string(), "192.168.111.6".to_string()];
    let host = PointerHost::for_platform("baremetal", "demo.example.com", &vips);
    let json = pointer_config("worker", host, CA);
    assert_eq!(json, expected("https://192.168.111.5:22623/config/worker"));
}

#[test]
fn ipv6_vip_in_brackets_for_vsphere() {
    let vips = vec!["fd00::5".to_string()];
    let host = PointerHost::for_platform("vsphere", "demo.example.com", &vips);
    let json = pointer_config("arbiter", host, CA);
    assert_eq!(json, expected("https://[fd00::5]:22623/config/arbiter"));
    assert_eq!(check_json(&json), vec![]);
}

#[test]
fn vip_platforms_without_vips_and_other_platforms_use_api_int() {
    let domain = "c.example.org";
    let api_int = PointerHost::ApiInt(domain.into());
    assert_eq!(PointerHost::for_platform("vsphere", domain, &[]), api_int);
    let vips = vec!["10.0.0.5".to_string()];
    assert_eq!(PointerHost::for_platform("none", domain, &vips), api_int);
    assert_eq!(PointerHost::for_platform("aws", domain, &vips), api_int);
    assert_eq!(
        PointerHost::for_platform("openstack", domain, &vips).to_string(),
        "10.0.0.5"
    );
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
