//! Fixed inputs shared by the integration tests.

use std::net::IpAddr;

use manifests::inputs::*;
use manifests::objects::VSphereTopology;

const ROOT_CA_CRT: &str = include_str!("fixtures/root-ca.crt");
const ROOT_CA_KEY: &str = include_str!("fixtures/root-ca.key");
const MCS_CRT: &str = include_str!("fixtures/mcs.crt");
const MCS_KEY: &str = include_str!("fixtures/mcs.key");

pub(crate) const SSH_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFixtureKeyOnlyForTestsxxxxxxxxxxxxxxxxxxxx core@example";
/// The fixture's vCenter password (must end up only in the credentials secret).
pub(crate) const VCENTER_PASSWORD: &str = "fixture-vcenter-password";
pub(crate) const TRUST_BUNDLE: &str =
    "-----BEGIN CERTIFICATE-----\nMIIBfixturebundle\n-----END CERTIFICATE-----\n";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn pool(name: &str, replicas: u32) -> Pool {
    Pool {
        name: name.into(),
        replicas,
        hyperthreading_disabled: false,
    }
}

fn networking(dual: bool) -> Networking {
    let mut n = Networking {
        network_type: "OVNKubernetes".into(),
        cluster_network: vec![ClusterNetworkEntry {
            cidr: "10.128.0.0/14".parse().unwrap(),
            host_prefix: 23,
        }],
        service_network: vec!["172.30.0.0/16".parse().unwrap()],
        machine_network: vec!["192.168.111.0/24".parse().unwrap()],
        ovn_internal_join_subnet: None,
    };
    if dual {
        n.cluster_network.push(ClusterNetworkEntry {
            cidr: "fd01::/48".parse().unwrap(),
            host_prefix: 64,
        });
        n.service_network.push("fd02::/112".parse().unwrap());
        n.machine_network
            .push("fd2e:6f44:5dd8:c956::/120".parse().unwrap());
    }
    n
}

/// A stand-in for the install-config YAML the caller supplies.
fn redacted(name: &str, platform: &str) -> String {
    format!(
        "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: {name}\nplatform:\n  {platform}\npullSecret: \"\"\n"
    )
}

/// Base inputs: platform none, single node, SSH key, OKD channel.
pub(crate) fn sno() -> ManifestInputs {
    ManifestInputs {
        names: contract::ClusterNames::new("sno", "example.com"),
        platform: Platform::None,
        networking: networking(false),
        proxy: None,
        additional_trust_bundle: None,
        trust_bundle_policy: TrustBundlePolicy::Proxyonly,
        pull_secret: r#"{"auths":{"quay.io":{"auth":"Zm9vOmJhcg=="}}}"#.into(),
        ssh_key: Some(SSH_KEY.into()),
        fips: false,
        control_plane: pool("master", 1),
        compute: vec![pool("worker", 0)],
        arbiter: None,
        capabilities: None,
        feature_set: String::new(),
        feature_gates: vec![],
        image_digest_sources: vec![],
        cpu_partitioning_all_nodes: false,
        pki: None,
        install_config_redacted_yaml: redacted("sno", "none: {}"),
        cluster_id: "0b7c6a2e-6d2f-4b3e-9a51-6c1f5d8e2a10".into(),
        infra_id: "sno-x7k2p".into(),
        tls: TlsInputs {
            root_ca_cert_pem: ROOT_CA_CRT.into(),
            root_ca_key_pem: ROOT_CA_KEY.into(),
            mcs_cert_pem: MCS_CRT.into(),
            mcs_key_pem: MCS_KEY.into(),
        },
        kubeadmin_password_hash: "$2a$10$fixturefixturefixturefixtureuFx4uXb3l7ZJ8yVq0w1e2r3t4y5u".into(),
        master_pointer_ign: r#"{"ignition":{"config":{"merge":[{"source":"https://api-int.sno.example.com:22623/config/master"}]},"version":"3.2.0"}}"#.into(),
        worker_pointer_ign: r#"{"ignition":{"config":{"merge":[{"source":"https://api-int.sno.example.com:22623/config/worker"}]},"version":"3.2.0"}}"#.into(),
        release: ReleaseInfo {
            channel: "stable-scos-4".into(),
            upstream: Some("https://amd64.origin.releases.ci.openshift.org/graph".into()),
        },
        installer_version: "okd-install 0.1.0".into(),
        invoker: "user".into(),
    }
}

/// Bare metal, compact (3 schedulable masters), proxy, trust bundle, mirrors, FIPS,
/// hyperthreading off on the control plane.
pub(crate) fn baremetal_compact() -> ManifestInputs {
    let mut i = sno();
    i.names = contract::ClusterNames::new("ocp", "example.com");
    i.infra_id = "ocp-b4m9q".into();
    i.install_config_redacted_yaml = redacted("ocp", "baremetal: {}");
    i.platform = Platform::BareMetal(BareMetal {
        api_vips: vec![ip("192.168.111.5")],
        ingress_vips: vec![ip("192.168.111.4")],
        load_balancer: None,
        dns_records_type: None,
        provisioning: BareMetalProvisioning {
            network: ProvisioningNetwork::Managed,
            network_cidr: Some("172.22.0.0/24".parse().unwrap()),
            interface: Some("enp1s0".into()),
            cluster_provisioning_ip: Some(ip("172.22.0.3")),
            gateway: None,
            dhcp_range: Some("172.22.0.10,172.22.0.254".into()),
            os_download_url: None,
            additional_ntp_servers: vec!["ntp.example.com".into()],
        },
    });
    i.networking.ovn_internal_join_subnet = Some("100.65.0.0/16".parse().unwrap());
    i.control_plane = pool("master", 3);
    i.control_plane.hyperthreading_disabled = true;
    i.proxy = Some(Proxy {
        http_proxy: Some("http://proxy.example.com:3128".into()),
        https_proxy: Some("http://proxy.example.com:3128".into()),
        no_proxy: Some(" .example.com, 10.0.0.0/8,".into()),
    });
    i.additional_trust_bundle = Some(TRUST_BUNDLE.into());
    i.fips = true;
    i.image_digest_sources = vec![ImageDigestSource {
        source: "quay.io/okd/scos-release".into(),
        mirrors: vec!["mirror.example.com:5000/okd/scos-release".into()],
        source_policy: Some("NeverContactSource".into()),
    }];
    i.capabilities = Some(Capabilities {
        baseline_capability_set: "None".into(),
        additional_enabled_capabilities: vec!["baremetal".into(), "MachineAPI".into()],
    });
    i
}

/// vSphere HA (3 masters + 3 workers) dual-stack with a custom feature-gate set.
pub(crate) fn vsphere_ha_dual_stack() -> ManifestInputs {
    let mut i = sno();
    i.names = contract::ClusterNames::new("vs", "example.com");
    i.infra_id = "vs-q2w5z".into();
    i.install_config_redacted_yaml = redacted("vs", "vsphere: {}");
    i.networking = networking(true);
    i.platform = Platform::VSphere(VSphere {
        api_vips: vec![ip("192.168.111.5"), ip("fd2e:6f44:5dd8:c956::5")],
        ingress_vips: vec![ip("192.168.111.4"), ip("fd2e:6f44:5dd8:c956::4")],
        load_balancer: Some(LoadBalancerType::UserManaged),
        vcenters: vec![VCenter {
            server: "vcenter.example.com".into(),
            port: 443,
            datacenters: vec!["dc1".into()],
        }],
        credentials: vec![VCenterCredentials {
            server: "vcenter.example.com".into(),
            username: "installer@vsphere.local".into(),
            password: SecretString(VCENTER_PASSWORD.into()),
        }],
        multi_networks: false,
        failure_domains: vec![FailureDomain {
            name: "fd-a".into(),
            region: "region-a".into(),
            zone: "zone-a".into(),
            server: "vcenter.example.com".into(),
            topology: VSphereTopology {
                datacenter: "dc1".into(),
                compute_cluster: "/dc1/host/cluster1".into(),
                networks: vec!["VM Network".into()],
                datastore: "/dc1/datastore/ds1".into(),
                resource_pool: None,
                folder: Some("/dc1/vm/vs".into()),
                template: None,
            },
        }],
    });
    i.control_plane = pool("master", 3);
    i.compute = vec![pool("worker", 3)];
    i.ssh_key = None;
    i.feature_set = "CustomNoUpgrade".into();
    i.feature_gates = vec!["OnClusterBuild=true".into(), "Example=false".into()];
    i.cpu_partitioning_all_nodes = true;
    i
}
